"""Well-formedness of type objects (spec 4): shapes, void placement, recursion.

Every type the verifier meets (declarations, registers, constants,
references, constructions) goes through `TypeChecker` before any typing rule
compares it, so the typing rules (`vpl_core.ir.type_rules`) only ever see well-formed,
acyclic types. A `TypeChecker` lives for one verifier run: it remembers the
type objects it has accepted (by identity, holding them so that identities
stay unique) and is discarded afterwards.

Rules: exact classes only (a subclass of a type class could change equality
behind the verifier's back); vector sizes and matrix dimensions 2-4; the
only sampler kind is sampler2D; array counts positive; records have nonempty
display names and uniquely, nonemptily named fields; void is never a field
or element type; no type contains itself through fields or elements, at
any depth. Forged cycles through frozen arrays are rejected the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from vpl_core.ir.types import (
    ArrayType,
    Field,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)
from vpl_core.verify.errors import TypeRule, VerificationError, short_repr

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KNOWN_TYPE_CLASSES = (VoidType, ScalarType, VectorType, MatrixType, SamplerType, ArrayType, RecordType)
_SAMPLER_KINDS = frozenset({"sampler2D"})


def is_dimension(value: object, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


class TypeChecker:
    """Validates type objects once per verifier run."""

    def __init__(self) -> None:
        self._accepted: dict[int, object] = {}

    @property
    def accepted(self) -> dict[int, object]:
        """The types found well-formed so far, by identity (the live table: read it, never change it).

        `check_type` of a type object in it returns that object and raises nothing.
        """
        return self._accepted

    def check_type(self, value_type: object, subject: Any, context: Sequence[Any], what: str) -> Type:
        """`value_type` must be a well-formed type (void allowed); returns it.

        `subject` is blamed when `value_type` is not a type at all (the
        declaration holding it); problems inside a type blame the type or
        field itself, with `context` extended by `subject`.
        """
        if type(value_type) not in _KNOWN_TYPE_CLASSES:
            if isinstance(value_type, Type):
                raise VerificationError(TypeRule.NOT_A_TYPE, f"{what} has unknown type class {type(value_type).__name__}", subject, context)
            raise VerificationError(TypeRule.NOT_A_TYPE, f"{what} is not a type", subject, context)
        assert isinstance(value_type, Type)
        if isinstance(value_type, (ArrayType, RecordType)):
            if id(value_type) not in self._accepted:
                self._walk(value_type, (*context, subject))
        elif id(value_type) not in self._accepted:
            # Leaf types have no children: check the shape, skip the walk. A module repeats a few leaf type
            # objects (the reader's per declaration): each is checked once per run, and kept alive by the entry.
            problem = _shape_problem(value_type)
            if problem is not None:
                raise VerificationError(problem[0], problem[1], problem[2], (*context, subject))
            self._accepted[id(value_type)] = value_type
        return value_type

    def check_value_type(self, value_type: object, subject: Any, context: Sequence[Any], what: str) -> Type:
        """`value_type` must be a well-formed type other than void."""
        checked = self.check_type(value_type, subject, context, what)
        if isinstance(checked, VoidType):
            raise VerificationError(TypeRule.VOID_VALUE, f"{what} cannot be void", subject, context)
        return checked

    # Depth-first walk with an explicit stack (deep nesting must not exhaust Python's).
    def _walk(self, root: Type, context: tuple[Any, ...]) -> None:
        in_progress: set[int] = set()
        self._raise_shape_problem(root, context)
        in_progress.add(id(root))
        stack: list[tuple[Type, list[tuple[Any, Any, Any]], int]] = [(root, self._children(root), 0)]
        while stack:
            node, children, position = stack[-1]
            if position == len(children):
                stack.pop()
                in_progress.discard(id(node))
                self._accepted[id(node)] = node
                continue
            stack[-1] = (node, children, position + 1)
            child, _owner, holder = children[position]
            if type(child) not in _KNOWN_TYPE_CLASSES:
                what = "field type" if isinstance(holder, Field) else "array element"
                message = f"{what} has unknown type class" if isinstance(child, Type) else f"{what} is not a type"
                raise VerificationError(TypeRule.NOT_A_TYPE, message, holder, context)
            if isinstance(child, VoidType):
                if isinstance(holder, Field):
                    raise VerificationError(TypeRule.VOID_VALUE, f"field {holder.name!r} cannot have type void", holder, context)
                raise VerificationError(TypeRule.VOID_VALUE, "array element type cannot be void", holder, context)
            if id(child) in in_progress:
                if isinstance(child, RecordType):
                    raise VerificationError(
                        TypeRule.RECURSIVE, f"record type {child.name!r} contains itself", child, context
                    )
                raise VerificationError(TypeRule.RECURSIVE, "array type contains itself", child, context)
            if id(child) in self._accepted:
                continue
            self._raise_shape_problem(child, context)
            in_progress.add(id(child))
            stack.append((child, self._children(child), 0))

    @staticmethod
    def _raise_shape_problem(node: Type, context: tuple[Any, ...]) -> None:
        problem = _shape_problem(node)
        if problem is not None:
            raise VerificationError(problem[0], problem[1], problem[2], context)

    @staticmethod
    def _children(node: Type) -> list[tuple[Any, Any, Any]]:
        """(child type, owning type, object to blame) for each contained type."""
        if isinstance(node, ArrayType):
            return [(node.element, node, node)]
        if isinstance(node, RecordType):
            return [(field.type, node, field) for field in node.fields]
        return []


def _shape_problem(node: Type) -> tuple[TypeRule, str, Any] | None:
    """(rule, message, object to blame) when the type's own fields are malformed, else None."""
    if isinstance(node, ScalarType):
        if not isinstance(node.kind, ScalarKind):
            return (TypeRule.ELEMENT_KIND, "scalar type has no valid element kind", node)
    elif isinstance(node, VectorType):
        if not isinstance(node.kind, ScalarKind):
            return (TypeRule.ELEMENT_KIND, "vector type has no valid element kind", node)
        if not is_dimension(node.size, 2, 4):
            return (TypeRule.VECTOR_SIZE, f"vector size must be 2, 3 or 4, got {short_repr(node.size)}", node)
    elif isinstance(node, MatrixType):
        if not is_dimension(node.rows, 2, 4) or not is_dimension(node.columns, 2, 4):
            got = f"{short_repr(node.rows)} by {short_repr(node.columns)}"
            return (TypeRule.MATRIX_SHAPE, f"matrix dimensions must be 2, 3 or 4, got {got}", node)
    elif isinstance(node, SamplerType):
        if not isinstance(node.kind, str) or node.kind not in _SAMPLER_KINDS:
            return (TypeRule.SAMPLER_KIND, f"unsupported sampler kind {short_repr(node.kind)}", node)
    elif isinstance(node, ArrayType):
        if type(node.count) is not int or node.count < 1:
            return (TypeRule.ARRAY_COUNT, f"array count must be positive, got {short_repr(node.count)}", node)
    elif isinstance(node, RecordType):
        if not isinstance(node.name, str) or not node.name:
            return (TypeRule.RECORD_NAME, "record display name must be a nonempty string", node)
        fields = node.fields
        if not isinstance(fields, (list, tuple)):
            return (TypeRule.RECORD_FIELDS, f"record {node.name!r} has no field list", node)
        names: set[str] = set()
        for field in fields:
            if not isinstance(field, Field):
                return (TypeRule.RECORD_FIELDS, f"record {node.name!r} holds a non-field", node)
            if not isinstance(field.name, str) or not field.name:
                return (TypeRule.FIELD_NAME, f"field names of record {node.name!r} must be nonempty strings", field)
            if field.name in names:
                return (TypeRule.DUPLICATE_FIELD, f"record {node.name!r} has two fields named {field.name!r}", field)
            names.add(field.name)
    return None
