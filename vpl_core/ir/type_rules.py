"""The typing rules of the language (spec 4, 7.1, 7.2, 7.4), shared by the verifier, the builder and the editor.

Pure functions from operand types to result types or error messages; part
of the object model (the builder infers result types with them), so the
verifier, which reports their messages as `InstructionRule` diagnostics,
depends on them and not the other way round. They take *well-formed* types
(the verifier's `well_formed_types` layer establishes that first);
`types_equal` and `describe_type` alone are safe on any object, because the
verifier also uses them to report malformed graphs.

Type equality (spec 4) is structural for scalars, vectors, matrices,
samplers and arrays (element type and count) and nominal for records: one
`RecordType` object is one declaration. Nothing here converts implicitly:
int-to-float widening exists only as an explicit construction (spec 7.2).
"""

from __future__ import annotations

from collections.abc import Sequence

from vpl_core.ir.instructions import BinaryOperator
from vpl_core.ir.types import (
    BOOL,
    ArrayType,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)

# Deeper array nesting than this is described as "..." rather than spelled out.
_DESCRIBE_DEPTH = 32

SWIZZLE_SELECTORS = "xyzw"


def _is_float_scalar(value_type: Type) -> bool:
    return isinstance(value_type, ScalarType) and value_type.kind is ScalarKind.FLOAT


def _is_float_vector(value_type: Type) -> bool:
    return isinstance(value_type, VectorType) and value_type.kind is ScalarKind.FLOAT


def _is_int_scalar(value_type: Type) -> bool:
    return isinstance(value_type, ScalarType) and value_type.kind is ScalarKind.INT


def types_equal(first: object, second: object) -> bool:
    """Spec 4 type equality; records by identity, arrays by element type and count.

    Iterative over array nesting and guarded against forged cyclic arrays, so
    it terminates on any object graph.
    """
    seen: set[tuple[int, int]] = set()
    while True:
        if first is second:
            return True
        if type(first) is not type(second):
            return False
        if isinstance(first, ArrayType):
            assert isinstance(second, ArrayType)
            pair = (id(first), id(second))
            if pair in seen:
                return False
            seen.add(pair)
            if type(first.count) is not int or type(second.count) is not int or first.count != second.count:
                return False
            first, second = first.element, second.element
            continue
        if isinstance(first, RecordType):
            return False  # distinct declarations are distinct types
        if isinstance(first, ScalarType):
            return first.kind is second.kind  # type: ignore[attr-defined]  # same class, checked above
        if isinstance(first, VectorType):
            return first.kind is second.kind and _same_int(first.size, second.size)  # type: ignore[attr-defined]  # same class, checked above
        if isinstance(first, MatrixType):
            return _same_int(first.rows, second.rows) and _same_int(first.columns, second.columns)  # type: ignore[attr-defined]  # same class, checked above
        if isinstance(first, SamplerType):
            return isinstance(first.kind, str) and first.kind == second.kind  # type: ignore[attr-defined,no-any-return]  # same class, checked above
        return bool(isinstance(first, VoidType))


def _same_int(first: object, second: object) -> bool:
    return type(first) is int and type(second) is int and first == second


def describe_type(value_type: object) -> str:
    """The type's text spelling (as `Type.__str__`), bounded so that malformed types still print."""
    prefix: list[str] = []
    suffix: list[str] = []
    current = value_type
    for _ in range(_DESCRIBE_DEPTH):
        if not isinstance(current, ArrayType):
            break
        prefix.append("array ")
        suffix.append(f" {current.count!r}" if type(current.count) is not int else f" {current.count}")
        current = current.element
    else:
        return "".join(prefix) + "..." + "".join(reversed(suffix))
    return "".join(prefix) + _describe_leaf(current) + "".join(reversed(suffix))


def _describe_leaf(value_type: object) -> str:
    try:
        if value_type is None:
            return "nothing"
        if isinstance(value_type, VoidType):
            return "void"
        if isinstance(value_type, ScalarType):
            return str(value_type.kind.value)
        if isinstance(value_type, VectorType):
            return f"vector {value_type.kind.value} {value_type.size}"
        if isinstance(value_type, MatrixType):
            return f"matrix {value_type.rows} {value_type.columns}"
        if isinstance(value_type, SamplerType):
            return str(value_type.kind)
        if isinstance(value_type, RecordType):
            return f"record {value_type.name!r}"
    except Exception:  # noqa: BLE001 - a forged field (e.g. kind=None) must not break a diagnostic
        pass
    return f"<{type(value_type).__name__}>"


# ---------------------------------------------------------------------------------------
# 7.1 Arithmetic and comparisons


def binary_result_type(operator: BinaryOperator, lhs: Type, rhs: Type) -> Type | None:
    """The result type of `lhs OP rhs` by the complete operand table of spec 7.1."""
    if operator.is_comparison:
        if not isinstance(lhs, ScalarType) or lhs != rhs:
            return None
        if operator in (BinaryOperator.EQUAL, BinaryOperator.NOT_EQUAL):
            return BOOL
        return BOOL if lhs.kind is not ScalarKind.BOOL else None

    # Matching int or float scalars / vectors: all four operations.
    if isinstance(lhs, (ScalarType, VectorType)) and lhs == rhs and lhs.kind is not ScalarKind.BOOL:
        return lhs
    # Matching matrix shapes: add, subtract, divide (component-wise).
    if isinstance(lhs, MatrixType) and lhs == rhs and operator is not BinaryOperator.MULTIPLY:
        return lhs
    if operator is BinaryOperator.MULTIPLY:
        if isinstance(lhs, MatrixType) and isinstance(rhs, MatrixType):
            if lhs.columns == rhs.rows:
                return MatrixType(lhs.rows, rhs.columns)
            return None
        if isinstance(lhs, MatrixType) and _is_float_vector(rhs):
            assert isinstance(rhs, VectorType)
            return VectorType(ScalarKind.FLOAT, lhs.rows) if lhs.columns == rhs.size else None
        if _is_float_scalar(lhs) and (_is_float_vector(rhs) or isinstance(rhs, MatrixType)):
            return rhs
    if (
        operator in (BinaryOperator.MULTIPLY, BinaryOperator.DIVIDE)
        and (_is_float_vector(lhs) or isinstance(lhs, MatrixType))
        and _is_float_scalar(rhs)
    ):
        return lhs
    return None


def _is_numeric(value_type: Type) -> bool:
    if isinstance(value_type, (ScalarType, VectorType)):
        return value_type.kind is not ScalarKind.BOOL
    return isinstance(value_type, MatrixType)


def binary_type_error(operator: BinaryOperator, lhs: Type, rhs: Type) -> str | None:
    """Why `lhs OP rhs` is not in the 7.1 table, or None when it is."""
    if binary_result_type(operator, lhs, rhs) is not None:
        return None
    name = f"binary {operator.value}"
    got = f"got {describe_type(lhs)} and {describe_type(rhs)}"
    if operator in (BinaryOperator.EQUAL, BinaryOperator.NOT_EQUAL):
        if not isinstance(lhs, ScalarType) or not isinstance(rhs, ScalarType):
            return f"{name} compares scalars only, {got}"
        return f"{name} needs matching operand types, {got}"
    if operator.is_comparison:
        if not (isinstance(lhs, ScalarType) and isinstance(rhs, ScalarType)) or not (
            _is_numeric(lhs) and _is_numeric(rhs)
        ):
            return f"{name} needs matching numeric scalars, {got}"
        return f"{name} needs matching operand types, {got}"
    if not _is_numeric(lhs) or not _is_numeric(rhs):
        return f"{name} needs numeric operands, {got}"
    if operator is BinaryOperator.MULTIPLY and isinstance(lhs, MatrixType) and (isinstance(rhs, MatrixType) or _is_float_vector(rhs)):
        return f"{name} needs matching inner dimensions, {got}"
    if isinstance(lhs, MatrixType) and types_equal(lhs, rhs):
        return f"{name} is not defined for matrices, {got}"
    return f"{name} needs matching operand types, {got}"


# ---------------------------------------------------------------------------------------
# 7.2 Construction and conversion


def construct_type_error(target: Type, argument_types: Sequence[Type]) -> str | None:
    """Why constructing `target` from operands of `argument_types` violates spec 7.2, or None."""
    name = describe_type(target)
    count = len(argument_types)
    if isinstance(target, VoidType):
        return "void values cannot be constructed"
    if isinstance(target, SamplerType):
        return "samplers cannot be constructed"
    if isinstance(target, ScalarType):
        if count != 1:
            return f"constructing {name} needs exactly one operand, got {count}"
        (operand,) = argument_types
        if types_equal(operand, target):
            return None
        if target.kind is ScalarKind.FLOAT and _is_int_scalar(operand):
            return None  # the explicit int-to-float widening
        return f"cannot construct {name} from {describe_type(operand)}"
    if isinstance(target, (VectorType, MatrixType)):
        return _components_error(target, argument_types)
    if isinstance(target, ArrayType):
        if count != target.count:
            return f"constructing {name} needs exactly {target.count} operands, got {count}"
        for position, operand in enumerate(argument_types):
            if not types_equal(operand, target.element):
                return (
                    f"constructing {name} needs {describe_type(target.element)} elements, "
                    f"got {describe_type(operand)} at operand {position}"
                )
        return None
    if isinstance(target, RecordType):
        fields = list(target.fields)
        if count != len(fields):
            return f"constructing {name} needs one operand per field ({len(fields)}), got {count}"
        for field, operand in zip(fields, argument_types):
            if not types_equal(operand, field.type):
                return (
                    f"constructing {name} needs {describe_type(field.type)} for field {field.name!r}, "
                    f"got {describe_type(operand)}"
                )
        return None
    return f"{name} cannot be constructed"


def _components_error(target: VectorType | MatrixType, argument_types: Sequence[Type]) -> str | None:
    name = describe_type(target)
    if isinstance(target, VectorType):
        kind, needed = target.kind, target.size
    else:
        kind, needed = ScalarKind.FLOAT, target.rows * target.columns
    if not argument_types:
        return f"constructing {name} needs operands"
    total = 0
    for operand in argument_types:
        if isinstance(operand, ScalarType) and (
            operand.kind is kind or (kind is ScalarKind.FLOAT and operand.kind is ScalarKind.INT)
        ):
            total += 1
        elif isinstance(operand, VectorType) and operand.kind is kind:
            total += operand.size
        elif isinstance(operand, MatrixType):
            return f"constructing {name} cannot take matrix operands, got {describe_type(operand)}"
        elif isinstance(operand, VectorType) and operand.kind is ScalarKind.INT and kind is ScalarKind.FLOAT:
            return f"constructing {name} does not convert integer vectors, got {describe_type(operand)}"
        else:
            return f"cannot use {describe_type(operand)} as a component of {name}"
    if len(argument_types) == 1 and isinstance(argument_types[0], ScalarType):
        return None  # one scalar fills a vector or forms a diagonal matrix
    if total != needed:
        return f"constructing {name} needs exactly {needed} components, got {total}"
    return None


# ---------------------------------------------------------------------------------------
# 7.4 Extraction


def swizzle_result_type(source: Type, pattern: object) -> Type | str:
    """The type a swizzle of `source` by `pattern` yields, or why it is invalid."""
    if not isinstance(source, VectorType):
        return f"swizzle needs a vector source, got {describe_type(source)}"
    if not isinstance(pattern, str) or not 1 <= len(pattern) <= 4:
        return f"swizzle pattern must be 1 to 4 of x, y, z, w, got {pattern!r}"
    valid = SWIZZLE_SELECTORS[: source.size]
    for selector in pattern:
        if selector not in valid:
            return f"swizzle selector {selector!r} is not valid for {describe_type(source)}"
    if len(pattern) == 1:
        return ScalarType(source.kind)
    return VectorType(source.kind, len(pattern))
