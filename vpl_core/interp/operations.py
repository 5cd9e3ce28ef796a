"""The value semantics of VPL instructions and math built-ins over lanes (spec 7.1-7.4, the math extension).

Each function takes operand `Value`s with their VPL types and returns the
result `Value`; numbers go through `vpl_core.interp.numeric`, so precision
tracking follows automatically. Nothing here knows about control flow,
storage or textures (`machine.py`, `texture.py`).

Built-ins that GLSL defines by an equation of basic operations (mix,
smoothstep, length, normalize, reflect, refract, mod, ...) are computed as
that equation, in binary32, so their error bound is the one GLSL says they
inherit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from vpl_core.interp import numeric as nm
from vpl_core.interp.lanes import Tree, Value, leaf_dtype, leaf_shape, leaves, map_trees, rebuild
from vpl_core.interp.numeric import Num
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import (
    ArrayType,
    MatrixType,
    RecordType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)

_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}


def num(value: Value) -> Num:
    assert isinstance(value.data, np.ndarray)
    return Num(value.data, value.error)  # type: ignore[arg-type]  # a leaf's error is an array or None, like its data (`Value.error` is typed as any tree)


def val(result: Num) -> Value:
    return Value(result.v, result.r)


def kind_of(value_type: Type) -> ScalarKind | None:
    if isinstance(value_type, (ScalarType, VectorType)):
        return value_type.kind
    if isinstance(value_type, MatrixType):
        return ScalarKind.FLOAT
    return None


def _widen(operand: Num, ndim: int) -> Num:
    """A scalar operand (N,) shaped to broadcast against a (N, ...) aggregate of `ndim` dimensions."""
    extra = ndim - operand.v.ndim
    if extra <= 0:
        return operand
    shape = operand.v.shape + (1,) * extra
    return Num(operand.v.reshape(shape), None if operand.r is None else operand.r.reshape(shape))


def _broadcast(operand: Num, shape: tuple[int, ...]) -> Num:
    widened = _widen(operand, len(shape))
    return Num(np.broadcast_to(widened.v, shape), None if widened.r is None else np.broadcast_to(widened.r, shape))


# Binary instructions ---------------------------------------------------------------------------------

_FLOAT_ARITHMETIC: dict[BinaryOperator, Callable[[Num, Num], Num]] = {
    BinaryOperator.ADD: nm.add,
    BinaryOperator.SUBTRACT: nm.subtract,
    BinaryOperator.MULTIPLY: nm.multiply,
    BinaryOperator.DIVIDE: nm.divide,
}
_INT_ARITHMETIC: dict[BinaryOperator, Callable[[Num, Num], Num]] = {
    BinaryOperator.ADD: nm.int_add,
    BinaryOperator.SUBTRACT: nm.int_subtract,
    BinaryOperator.MULTIPLY: nm.int_multiply,
    BinaryOperator.DIVIDE: nm.int_divide,
}


def binary(operator: BinaryOperator, lhs: Value, lhs_type: Type, rhs: Value, rhs_type: Type) -> Value:
    """The operand table of spec 7.1 (types already verified)."""
    a, b = num(lhs), num(rhs)
    if operator.is_comparison:
        floating = kind_of(lhs_type) is ScalarKind.FLOAT
        return val(nm.compare(operator.value, a, b, floating=floating))
    if operator is BinaryOperator.MULTIPLY and isinstance(lhs_type, MatrixType):
        if isinstance(rhs_type, MatrixType):
            # (N, K, R) x (N, C, K) -> (N, C, R): result[c, r] = sum_k A[k, r] B[c, k].
            left = Num(np.swapaxes(a.v, 1, 2)[:, None, :, :], None if a.r is None else np.swapaxes(a.r, 1, 2)[:, None, :, :])
            right = Num(b.v[:, :, None, :], None if b.r is None else b.r[:, :, None, :])
            return val(nm.dot(left, right))
        if isinstance(rhs_type, VectorType):
            left = Num(np.swapaxes(a.v, 1, 2), None if a.r is None else np.swapaxes(a.r, 1, 2))
            right = Num(b.v[:, None, :], None if b.r is None else b.r[:, None, :])
            return val(nm.dot(left, right))
    if kind_of(lhs_type) is ScalarKind.INT:
        return val(_INT_ARITHMETIC[operator](a, b))
    ndim = max(a.v.ndim, b.v.ndim)
    return val(_FLOAT_ARITHMETIC[operator](_widen(a, ndim), _widen(b, ndim)))


# Construction, conversion and extraction ----------------------------------------------------------------


def _scalar_components(value: Value, value_type: Type, target: ScalarKind) -> list[Num]:
    """The components an operand contributes to a vector/matrix constructor, converted to `target`."""
    operand = num(value)
    if isinstance(value_type, ScalarType):
        if value_type.kind is ScalarKind.INT and target is ScalarKind.FLOAT:
            operand = nm.int_to_float(operand)
        return [operand]
    assert isinstance(value_type, VectorType)
    return [Num(operand.v[:, k], None if operand.r is None else operand.r[:, k]) for k in range(value_type.size)]


def _stack(components: Sequence[Num], axis: int = 1) -> Num:
    data = np.stack([component.v for component in components], axis=axis)
    if all(component.r is None for component in components):
        return Num(data)
    errors = np.stack([nm.radius(component) for component in components], axis=axis)
    return Num(data, errors)


def construct(result_type: Type, operands: Sequence[tuple[Value, Type]], lanes: int) -> Value:
    """Spec 7.2: scalars (with int-to-float), vectors, matrices (column-major, one scalar: diagonal), arrays, records."""
    tracked = any(value.error is not None for value, _ in operands)
    if isinstance(result_type, ScalarType):
        value, value_type = operands[0]
        if isinstance(value_type, ScalarType) and value_type.kind is ScalarKind.INT and result_type.kind is ScalarKind.FLOAT:
            return val(nm.int_to_float(num(value)))
        return value
    if isinstance(result_type, (VectorType, MatrixType)):
        target = ScalarKind.FLOAT if isinstance(result_type, MatrixType) else result_type.kind
        components: list[Num] = []
        for value, value_type in operands:
            components.extend(_scalar_components(value, value_type, target))
        dtype = leaf_dtype(result_type)
        if isinstance(result_type, VectorType):
            if len(components) == 1:
                components = components * result_type.size
            stacked = _stack(components)
            return Value(stacked.v.astype(dtype, copy=False), stacked.r)
        rows, columns = result_type.rows, result_type.columns
        if len(components) == 1:
            diagonal = components[0]
            zero = nm.constant(np.zeros(lanes, dtype=np.float32), tracked)
            components = [diagonal if row == column else zero for column in range(columns) for row in range(rows)]
        stacked = _stack(components)
        shape = (stacked.v.shape[0], columns, rows)
        return Value(stacked.v.reshape(shape).astype(np.float32, copy=False), None if stacked.r is None else stacked.r.reshape(shape))
    if isinstance(result_type, ArrayType):
        data = map_trees(lambda *parts: np.stack(parts, axis=1), *[value.data for value, _ in operands])
        errors = None
        if tracked:
            errors = map_trees(lambda *parts: np.stack(parts, axis=1), *[_errors(value) for value, _ in operands])
        return Value(data, errors)
    if isinstance(result_type, RecordType):
        data_fields = tuple(value.data for value, _ in operands)
        error_fields = tuple(_errors(value) for value, _ in operands) if tracked else None
        return Value(data_fields, error_fields)
    raise TypeError(f"cannot construct a {result_type}")


def _errors(value: Value) -> Tree:
    if value.error is not None:
        return value.error
    return map_trees(lambda leaf: np.zeros(np.shape(leaf), dtype=np.float64), value.data)


def swizzle(source: Value, pattern: str) -> Value:
    selection = [_COMPONENTS[letter] for letter in pattern]
    operand = num(source)
    if len(selection) == 1:
        return Value(operand.v[:, selection[0]], None if operand.r is None else operand.r[:, selection[0]])
    return Value(operand.v[:, selection], None if operand.r is None else operand.r[:, selection])


# Math built-ins -------------------------------------------------------------------------------------


def _one_like(x: Num) -> Num:
    return nm.constant(np.ones_like(x.v), x.r is not None)


def _splat(value: float, like: Num) -> Num:
    return nm.constant(np.full(np.shape(like.v), np.float32(value), dtype=np.float32), like.r is not None)


def mix(x: Num, y: Num, a: Num) -> Num:
    """GLSL mix: x * (1 - a) + y * a."""
    return nm.add(nm.multiply(x, nm.subtract(_one_like(a), a)), nm.multiply(y, a))


def clamp_float(x: Num, low: Num, high: Num) -> Num:
    result = nm.minimum(nm.maximum(x, low), high)
    if not nm.tracking(x, low, high):
        return result
    # Undefined wherever low > high is possible.
    undefined = low.v.astype(np.float64) + nm.radius(low) > high.v.astype(np.float64) - nm.radius(high)
    return Num(result.v, np.where(undefined, np.inf, nm.radius(result)))


def clamp_int(x: Num, low: Num, high: Num) -> Num:
    result = nm.int_minimum(nm.int_maximum(x, low), high)
    if not nm.tracking(x, low, high):
        return result
    undefined = low.v > high.v
    return Num(result.v, np.where(undefined, np.inf, nm.radius(result)))


def smoothstep(edge0: Num, edge1: Num, x: Num) -> Num:
    """GLSL: t = clamp((x - edge0) / (edge1 - edge0), 0, 1); t * t * (3 - 2 * t). Undefined for edge0 >= edge1."""
    t = nm.divide(nm.subtract(x, edge0), nm.subtract(edge1, edge0))
    t = nm.minimum(nm.maximum(t, _splat(0.0, t)), _splat(1.0, t))
    result = nm.multiply(nm.multiply(t, t), nm.subtract(_splat(3.0, t), nm.multiply(_splat(2.0, t), t)))
    if not nm.tracking(edge0, edge1, x):
        return result
    e0, e1 = edge0.v.astype(np.float64), edge1.v.astype(np.float64)
    undefined = e0 + nm.radius(edge0) >= e1 - nm.radius(edge1)
    return Num(result.v, np.where(np.broadcast_to(undefined, result.v.shape), np.inf, nm.radius(result)))


def _sum_components(x: Num, y: Num) -> Num:
    """dot over the last axis of vectors; scalars are the product."""
    if x.v.ndim == 1:
        return nm.multiply(x, y)
    return nm.dot(x, y)


def length(x: Num) -> Num:
    return nm.sqrt(_sum_components(x, x))


def normalize(x: Num) -> Num:
    magnitude = length(x)
    return nm.divide(x, _widen(magnitude, x.v.ndim))


def reflect(incident: Num, normal: Num) -> Num:
    d = _widen(_sum_components(normal, incident), incident.v.ndim)
    return nm.subtract(incident, nm.multiply(nm.multiply(_splat(2.0, d), d), normal))


def refract(incident: Num, normal: Num, eta: Num) -> Num:
    """GLSL: k = 1 - eta^2 (1 - dot(N, I)^2); k < 0 gives 0, else eta I - (eta dot(N, I) + sqrt(k)) N."""
    d = _sum_components(normal, incident)
    one = _one_like(d)
    k = nm.subtract(one, nm.multiply(nm.multiply(eta, eta), nm.subtract(one, nm.multiply(d, d))))
    root = nm.sqrt(Num(np.maximum(k.v, np.float32(0.0)), k.r))
    ndim = incident.v.ndim
    bent = nm.subtract(
        nm.multiply(_widen(eta, ndim), incident),
        nm.multiply(_widen(nm.add(nm.multiply(eta, d), root), ndim), normal),
    )
    zero = nm.constant(np.zeros_like(bent.v), bent.r is not None)
    total = nm.compare("less", k, nm.constant(np.zeros_like(k.v), k.r is not None), floating=True)
    condition = _broadcast(total, bent.v.shape)
    # Near k = 0 the condition is uncertain and `choose` covers both the zero and the refracted vector.
    return nm.choose(condition, zero, bent, floating=True)


def mod(x: Num, y: Num) -> Num:
    """GLSL: x - y * floor(x / y)."""
    return nm.subtract(x, nm.multiply(y, nm.floor(nm.divide(x, y))))


def cross(x: Num, y: Num) -> Num:
    def pick(operand: Num, indices: list[int]) -> Num:
        return Num(operand.v[:, indices], None if operand.r is None else operand.r[:, indices])

    left = Num(np.stack([pick(x, [1, 2]).v, pick(x, [2, 0]).v, pick(x, [0, 1]).v], axis=1))
    right = Num(np.stack([pick(y, [2, 1]).v, pick(y, [0, 2]).v, pick(y, [1, 0]).v], axis=1))
    if nm.tracking(x, y):
        rx, ry = nm.radius(x), nm.radius(y)
        left.r = np.stack([rx[:, [1, 2]], rx[:, [2, 0]], rx[:, [0, 1]]], axis=1)
        right.r = np.stack([ry[:, [2, 1]], ry[:, [0, 2]], ry[:, [1, 0]]], axis=1)
    # x.y * y.z - x.z * y.y as a two-term dot product with the second term negated.
    right = Num(right.v * np.array([1.0, -1.0], dtype=np.float32), right.r)
    return nm.dot(left, right)


def call_math(builtin: Builtin, operands: Sequence[tuple[Value, Type]], result_type: Type) -> Value:
    """Every math-extension operation but the derivatives and texture_lod (they need the machine)."""
    values = [num(value) if isinstance(value.data, np.ndarray) else None for value, _ in operands]
    types = [value_type for _, value_type in operands]
    kind = kind_of(types[0]) if types else None
    name = builtin.value

    if builtin is Builtin.SELECT:
        condition, (if_true, true_type), (if_false, _) = num(operands[0][0]), operands[1], operands[2]
        return _select(condition, if_true, if_false, true_type)
    if builtin in (Builtin.LOGICAL_AND, Builtin.LOGICAL_OR):
        return val(nm.logical("and" if builtin is Builtin.LOGICAL_AND else "or", values[0], values[1]))  # type: ignore[arg-type]  # the verifier typed both operands bool: leaves, so `values` holds no None here
    if builtin is Builtin.LOGICAL_NOT:
        return val(nm.logical("not", values[0]))  # type: ignore[arg-type]  # the verifier typed the operand bool: a leaf, so `values` holds no None here

    operands_num = [value for value in values if value is not None]
    if builtin is Builtin.NEGATE:
        return val(nm.int_negate(operands_num[0]) if kind is ScalarKind.INT else nm.negate(operands_num[0]))
    if builtin is Builtin.ABS:
        return val(nm.int_absolute(operands_num[0]) if kind is ScalarKind.INT else nm.absolute(operands_num[0]))
    if builtin is Builtin.SIGN:
        return val(nm.int_sign(operands_num[0]) if kind is ScalarKind.INT else nm.sign(operands_num[0]))
    if builtin is Builtin.FLOAT_TO_INT:
        return val(nm.float_to_int(operands_num[0]))
    if name in _UNARY:
        return val(_UNARY[name](operands_num[0]))

    ndim = max(operand.v.ndim for operand in operands_num)
    widened = [_widen(operand, ndim) for operand in operands_num]
    if builtin in (Builtin.MIN, Builtin.MAX, Builtin.CLAMP):
        table: dict[Builtin, Callable[..., Num]]
        if kind is ScalarKind.INT:
            table = {Builtin.MIN: nm.int_minimum, Builtin.MAX: nm.int_maximum, Builtin.CLAMP: clamp_int}
        else:
            table = {Builtin.MIN: nm.minimum, Builtin.MAX: nm.maximum, Builtin.CLAMP: clamp_float}
        function = table[builtin]
        return val(function(*widened))
    if builtin is Builtin.MIX:
        third_kind = kind_of(types[2])
        if third_kind is ScalarKind.BOOL:
            return val(nm.choose(widened[2], widened[1], widened[0], floating=True))
        return val(mix(*widened))
    if builtin is Builtin.DOT:
        return val(_sum_components(*operands_num))
    if builtin is Builtin.DISTANCE:
        return val(length(nm.subtract(*operands_num)))
    if builtin is Builtin.REFRACT:
        return val(refract(*operands_num))
    function = _BINARY_AND_MORE[name]
    return val(function(*widened))


def _leaf_is_float(value_type: Type) -> list[bool]:
    """Per leaf of a value of the type (in `leaves` order): whether it holds floats."""
    if isinstance(value_type, ArrayType):
        return _leaf_is_float(value_type.element)
    if isinstance(value_type, RecordType):
        return [flag for field in value_type.fields for flag in _leaf_is_float(field.type)]
    return [kind_of(value_type) is ScalarKind.FLOAT]


def _select(condition: Num, if_true: Value, if_false: Value, value_type: Type) -> Value:
    """select(c, a, b) for any value type: leaf by leaf, with the condition broadcast."""
    tracked = condition.r is not None or if_true.error is not None or if_false.error is not None
    true_leaves, false_leaves = leaves(if_true.data), leaves(if_false.data)
    true_errors = leaves(_errors(if_true)) if tracked else [None] * len(true_leaves)
    false_errors = leaves(_errors(if_false)) if tracked else [None] * len(false_leaves)
    data: list[np.ndarray] = []
    errors: list[np.ndarray] = []
    for a, b, ra, rb, floating in zip(true_leaves, false_leaves, true_errors, false_errors, _leaf_is_float(value_type)):
        chosen = nm.choose(_broadcast(condition, a.shape), Num(a, ra), Num(b, rb), floating=floating)
        data.append(chosen.v)
        errors.append(nm.radius(chosen))
    return Value(rebuild(if_true.data, iter(data)), rebuild(if_true.data, iter(errors)) if tracked else None)


_UNARY: dict[str, Callable[[Num], Num]] = {
    "floor": nm.floor,
    "ceil": nm.ceil,
    "fract": nm.fract,
    "trunc": nm.trunc,
    "round_even": nm.round_even,
    "sqrt": nm.sqrt,
    "inversesqrt": nm.inversesqrt,
    "exp": nm.exp,
    "exp2": nm.exp2,
    "log": nm.log,
    "log2": nm.log2,
    "sin": nm.sin,
    "cos": nm.cos,
    "tan": nm.tan,
    "asin": nm.asin,
    "acos": nm.acos,
    "atan": nm.atan,
    "radians": lambda x: nm.scale(x, np.pi / 180.0),
    "degrees": lambda x: nm.scale(x, 180.0 / np.pi),
    "normalize": normalize,
    "length": length,
}

_BINARY_AND_MORE: dict[str, Callable[..., Num]] = {
    "atan2": nm.atan2,
    "pow": nm.power,
    "mod": mod,
    "step": nm.step,
    "smoothstep": smoothstep,
    "cross": cross,
    "reflect": reflect,
}


def zero_value(value_type: Type, lanes: int, tracked: bool) -> Value:
    from vpl_core.interp.lanes import zero_errors, zeros

    return Value(zeros(value_type, (lanes,)), zero_errors(value_type, (lanes,)) if tracked else None)


def constant_value(value_type: Type, literal: bool | int | float, lanes: int, tracked: bool) -> Value:
    data = np.full((lanes,) + leaf_shape(value_type), literal, dtype=leaf_dtype(value_type))
    return Value(data, np.zeros(data.shape, dtype=np.float64) if tracked else None)
