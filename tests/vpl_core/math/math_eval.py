"""GPU evaluation of math operations: generated VPL modules, their inputs, and numpy references.

`Evaluation(operation, arguments, result)` describes one test program: the
operation applied to arguments of the given type keys (see
`math_support.TYPES`) once per *case*. Case i is pixel (i, 0) of a
one-row framebuffer. The fragment stage derives i from its Position input
(gl_FragCoord: `float_to_int` of x), loads the case's operands from uniform
arrays (`a<k>_<j>`: argument k, components 4j..4j+3, vec4 or ivec4 per
case), builds the argument values (constructors, comparisons for bools),
applies the operation, and writes the result's components as float lanes to
RGBA32F outputs (four lanes per output, as many outputs as needed). With
`stage="vertex"` the same computation runs in the vertex stage, one point
per case, and reaches the fragment stage through varyings.

Lanes: float components as they are; int components as the exact pair
(x / 65536, x - 65536 * (x / 65536)) (both exactly representable as
floats, so integer results are compared exactly); bool components as 1.0 or
0.0; matrices column by column (M * e_j), arrays by element, the record by
its field.

`reference(...)` computes the expected lanes with numpy in float64 from the
same float32 inputs, together with a mask of lanes whose value GLSL 4.20
leaves undefined (not compared) and, where GLSL allows two results,
alternative expectations. docs/vpl-math-extension.md lists the same cases.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from math_support import TYPES

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1

#: The edge inputs every operation is evaluated on (in every component position).
FLOAT_GRID = [-1.7, -0.5, 0.0, 0.5, 1.5, 2.5]
INT_GRID = [INT_MIN, -7, -1, 0, 3, INT_MAX]

# More inputs for one-operand operations, where they are cheap: the domain
# boundaries and the values that expose rounding and range behaviour.
_ROUNDING = [-2.5, -1.5, -1.0, 1.0, 3.5, 0.49999997, -0.49999997, 8388609.0, -0.0]
EXTRA_FLOATS: dict[str, list[float]] = {
    "abs": [-0.0, -1e30],
    "sign": [-0.0, -1e-30, 1e30],
    "floor": _ROUNDING,
    "ceil": _ROUNDING,
    "fract": _ROUNDING,
    "trunc": _ROUNDING,
    "round_even": _ROUNDING,
    "sqrt": [4.0, 1e-4, 100.0, 2.0],
    "inversesqrt": [4.0, 1e-4, 100.0, 2.0],
    "exp": [5.0, -5.0, 1.0, -10.0],
    "exp2": [5.0, -5.0, 10.0, -10.0, 1.0],
    "log": [1.0, 2.0, 0.75, 10.0, 1e-3, 1000.0],
    "log2": [1.0, 2.0, 0.75, 8.0, 1e-3, 1000.0],
    "sin": [3.0, -3.0, 6.5, 1.2, math.pi / 2],
    "cos": [3.0, -3.0, 6.5, 1.2, math.pi],
    "tan": [3.0, -3.0, 1.2, -1.2, 0.25],
    "asin": [-1.0, 1.0, -0.9, 0.99],
    "acos": [-1.0, 1.0, -0.9, 0.99],
    "atan": [10.0, -10.0, 1.0, -1.0, 1e4],
    "radians": [180.0, 90.0, -360.0],
    "degrees": [math.pi, -math.pi / 2, 6.0],
    "negate": [-0.0, 1e30],
    "float_to_int": [-2.5, 1e9, -1e9, 2147483520.0, -2147483648.0, 0.99999994, -0.99999994],
    "normalize": [1e-3, 100.0],
    "length": [1e-3, 100.0],
}
EXTRA_INTS: dict[str, list[int]] = {
    "abs": [65536, -65537],
    "sign": [65536, -65537],
    "negate": [65536, -65537],
}


def _components(key: str) -> int:
    if key in ("float", "int", "bool", "R"):
        return 1
    if key == "float[2]":
        return 2
    if key.startswith(("vec", "ivec", "bvec")):
        return int(key[-1])
    return {"mat2": 4, "mat3": 9, "mat2x3": 6}[key]


def _kind(key: str) -> str:
    """F (float components), I (int), B (bool): what the uniform inputs and the lanes hold."""
    if key == "int" or key.startswith("ivec"):
        return "I"
    if key == "bool" or key.startswith("bvec"):
        return "B"
    return "F"


_MATRIX_SHAPES = {"mat2": (2, 2), "mat3": (3, 3), "mat2x3": (3, 2)}  # (rows, columns)
_VECTOR_IDS = {("F", 2): "Vec2", ("F", 3): "Vec3", ("F", 4): "Vec4", ("I", 2): "IVec2", ("I", 3): "IVec3",
               ("I", 4): "IVec4", ("B", 2): "BVec2", ("B", 3): "BVec3", ("B", 4): "BVec4"}  # fmt: skip


class _Registers:
    """Allocates numbered registers of one function and remembers their declarations."""

    def __init__(self) -> None:
        self.declared: list[tuple[str, str]] = []

    def new(self, type_id: str) -> str:
        register = f"r{len(self.declared)}"
        self.declared.append((register, type_id))
        return register

    def declaration(self) -> str:
        return " ".join(f"(register {register} {type_id})" for register, type_id in self.declared)


@dataclass
class Evaluation:
    """One GPU program evaluating `operation` on arguments of types `arguments` for every case."""

    operation: str
    arguments: tuple[str, ...]
    result: str
    stage: str = "fragment"
    inputs: list[np.ndarray] = field(init=False)  # per argument: (cases, components) float64 or int64

    def __post_init__(self) -> None:
        grids = []
        for key in self.arguments:
            if _kind(key) == "I":
                grid: list[float] = [*INT_GRID, *(EXTRA_INTS.get(self.operation, []) if len(self.arguments) == 1 else [])]
            else:
                grid = [*FLOAT_GRID, *(EXTRA_FLOATS.get(self.operation, []) if len(self.arguments) == 1 else [])]
            grids.append(grid)
        cases = list(itertools.product(*(range(len(grid)) for grid in grids)))
        self.inputs = []
        for k, (key, grid) in enumerate(zip(self.arguments, grids)):
            # Component j of argument k in case (d_0, d_1, ...) is grid[(d_k + j) % len]: every
            # component position sees every combination of grid values across the arguments.
            count = _components(key)
            rows = [[grid[(case[k] + j) % len(grid)] for j in range(count)] for case in cases]
            if _kind(key) == "I":
                self.inputs.append(np.array(rows, dtype=np.int64))
            else:
                self.inputs.append(np.array(rows, dtype=np.float32).astype(np.float64))

    @property
    def cases(self) -> int:
        return self.inputs[0].shape[0]

    @property
    def lane_count(self) -> int:
        count = _components(self.result)
        return 2 * count if _kind(self.result) == "I" else count

    @property
    def exact_lanes(self) -> bool:
        """Int and bool results are exact: their lanes are compared for equality."""
        return _kind(self.result) in ("I", "B")

    @property
    def output_count(self) -> int:
        return (self.lane_count + 3) // 4

    def uniforms(self) -> dict[str, np.ndarray]:
        """Uniform array values by logical name: `a<k>_<j>` is (cases, 4)."""
        values: dict[str, np.ndarray] = {}
        for k, (key, data) in enumerate(zip(self.arguments, self.inputs)):
            padded = np.zeros((self.cases, 4 * ((data.shape[1] + 3) // 4)), dtype=data.dtype)
            padded[:, : data.shape[1]] = data
            for j in range(padded.shape[1] // 4):
                chunk = padded[:, 4 * j : 4 * j + 4]
                values[f"a{k}_{j}"] = chunk.astype(np.int32) if _kind(key) == "I" else chunk.astype(np.float32)
        return values

    # The module ------------------------------------------------------------------------------

    def _compute(self, registers: _Registers, index: str) -> tuple[list[str], list[str]]:
        """Instructions that evaluate the operation for case `index`; returns them and the vec4 output registers."""
        lines: list[str] = []
        operands: list[str] = []
        for k, key in enumerate(self.arguments):
            vector_id = "IVec4" if _kind(key) == "I" else "Vec4"
            scalar_id = "Int" if _kind(key) == "I" else "Float"
            chunks = []
            for j in range((_components(key) + 3) // 4):
                chunk = registers.new(vector_id)
                lines.append(f"(load {chunk} (index_ref (uniform a{k}_{j}) {index}))")
                chunks.append(chunk)
            scalars = []
            for c in range(_components(key)):
                scalar = registers.new(scalar_id)
                lines.append(f'(swizzle {scalar} {chunks[c // 4]} "{"xyzw"[c % 4]}")')
                if _kind(key) == "B":
                    # A bool operand component is true where the grid value is positive.
                    flag = registers.new("Bool")
                    lines.append(f"(greater {flag} {scalar} (float 0.0))")
                    scalar = flag
                scalars.append(scalar)
            if key in ("float", "int", "bool"):
                operands.append(scalars[0])
            else:
                value = registers.new(TYPES[key].type_id)
                lines.append(f"(construct {value} {' '.join(scalars)})")
                operands.append(value)
        result = registers.new(TYPES[self.result].type_id)
        lines.append(f"({self.operation} {result} {' '.join(operands)})")
        lanes = self._lanes(registers, lines, result)
        outputs = []
        for start in range(0, len(lanes), 4):
            group = lanes[start : start + 4]
            group += ["(float 0.0)"] * (4 - len(group))
            output = registers.new("Vec4")
            lines.append(f"(construct {output} {' '.join(group)})")
            outputs.append(output)
        return lines, outputs

    def _lanes(self, registers: _Registers, lines: list[str], result: str) -> list[str]:
        key = self.result
        kind = _kind(key)
        components: list[str] = []
        if key in ("float", "int", "bool"):
            components = [result]
        elif key in _MATRIX_SHAPES:
            rows, columns = _MATRIX_SHAPES[key]
            for j in range(columns):
                basis = registers.new(f"Vec{columns}")
                units = " ".join("(float 1.0)" if i == j else "(float 0.0)" for i in range(columns))
                lines.append(f"(construct {basis} {units})")
                column = registers.new(f"Vec{rows}")
                lines.append(f"(multiply {column} {result} {basis})")
                for i in range(rows):
                    scalar = registers.new("Float")
                    lines.append(f'(swizzle {scalar} {column} "{"xyzw"[i]}")')
                    components.append(scalar)
        elif key == "float[2]":
            for i in range(2):
                scalar = registers.new("Float")
                lines.append(f"(index {scalar} {result} (int {i}))")
                components.append(scalar)
        elif key == "R":
            scalar = registers.new("Float")
            lines.append(f'(member {scalar} {result} "x")')
            components.append(scalar)
        else:
            scalar_id = {"F": "Float", "I": "Int", "B": "Bool"}[kind]
            for i in range(_components(key)):
                scalar = registers.new(scalar_id)
                lines.append(f'(swizzle {scalar} {result} "{"xyzw"[i]}")')
                components.append(scalar)
        lanes: list[str] = []
        for component in components:
            if kind == "B":
                lane = registers.new("Float")
                lines.append(f"(select {lane} {component} (float 1.0) (float 0.0))")
                lanes.append(lane)
            elif kind == "I":
                high = registers.new("Int")
                scaled = registers.new("Int")
                low = registers.new("Int")
                lines.append(f"(divide {high} {component} (int 65536))")
                lines.append(f"(multiply {scaled} {high} (int 65536))")
                lines.append(f"(subtract {low} {component} {scaled})")
                lanes += [high, low]
            else:
                lanes.append(component)
        return lanes

    def module_text(self) -> str:
        outputs = range(self.output_count)
        types = [f"    {text_type.declaration}" for text_type in TYPES.values()]
        uniforms = []
        for k, key in enumerate(self.arguments):
            element = "IVec4" if _kind(key) == "I" else "Vec4"
            for j in range((_components(key) + 3) // 4):
                uniforms.append(f'(array a{k}_{j} "a{k}_{j}" {element} {self.cases})')
        fragment_outputs = " ".join(
            f'(out color{m} "color{m}" Vec4 {m} {"fragment_color" if m == 0 else "none"})' for m in outputs
        )
        vertex = _Registers()
        fragment = _Registers()
        if self.stage == "fragment":
            vertex_interface = '(in position "position" Vec3 0 none) (out clip "clip" Vec4 -1 position)'
            position = vertex.new("Vec3")
            clip = vertex.new("Vec4")
            vertex_lines = [f"(load {position} (stage position))", f"(construct {clip} {position} (float 1.0))",
                            f"(store (stage clip) {clip})"]  # fmt: skip
            fragment_interface = f'(in frag_coord "frag_coord" Vec4 -1 position) {fragment_outputs}'
            coordinates = fragment.new("Vec4")
            x = fragment.new("Float")
            index = fragment.new("Int")
            fragment_lines = [f"(load {coordinates} (stage frag_coord))", f'(swizzle {x} {coordinates} "x")',
                              f"(float_to_int {index} {x})"]  # fmt: skip
            computed, results = self._compute(fragment, index)
            fragment_lines += computed
            fragment_lines += [f"(store (stage color{m}) {results[m]})" for m in outputs]
        else:
            varyings = " ".join(f'(out value{m} "value{m}" Vec4 {m + 1} none)' for m in outputs)
            vertex_interface = (
                '(in position "position" Vec3 0 none) (in case "case" Float 1 none) '
                f"(out clip \"clip\" Vec4 -1 position) {varyings}"
            )
            position = vertex.new("Vec3")
            clip = vertex.new("Vec4")
            case = vertex.new("Float")
            index = vertex.new("Int")
            vertex_lines = [f"(load {position} (stage position))", f"(construct {clip} {position} (float 1.0))",
                            f"(store (stage clip) {clip})", f"(load {case} (stage case))",
                            f"(float_to_int {index} {case})"]  # fmt: skip
            computed, results = self._compute(vertex, index)
            vertex_lines += computed
            vertex_lines += [f"(store (stage value{m}) {results[m]})" for m in outputs]
            inputs = " ".join(f'(in value{m} "value{m}" Vec4 {m + 1} none)' for m in outputs)
            fragment_interface = f"{inputs} {fragment_outputs}"
            fragment_lines = []
            for m in outputs:
                value = fragment.new("Vec4")
                fragment_lines += [f"(load {value} (stage value{m}))", f"(store (stage color{m}) {value})"]
        return "\n".join(
            [
                "(module 1",
                '  (extensions "math")',
                "  (types",
                "    (type Void void)",
                *types,
                "  )",
                f"  (uniforms {' '.join(uniforms)})",
                f"  (vertex vmain (interface {vertex_interface})",
                '    (functions (function vmain "vertex_main" Void (parameters)',
                f"      (registers {vertex.declaration()})",
                "      (block entry",
                *(f"        {line}" for line in vertex_lines),
                "        (return)))))",
                f"  (fragment fmain (interface {fragment_interface})",
                '    (functions (function fmain "fragment_main" Void (parameters)',
                f"      (registers {fragment.declaration()})",
                "      (block entry",
                *(f"        {line}" for line in fragment_lines),
                "        (return))))))",
            ]
        )

    # The reference ---------------------------------------------------------------------------

    def reference(self) -> Expected:
        operands = []
        for key, data in zip(self.arguments, self.inputs):
            operands.append(data > 0.0 if _kind(key) == "B" else data)
        expected = REFERENCES[self.operation](*operands)
        values = np.asarray(expected.values)
        undefined = np.broadcast_to(np.asarray(expected.undefined, dtype=bool), values.shape)
        alternatives = [np.asarray(alternative) for alternative in expected.alternatives]
        return Expected(
            _to_lanes(values, self.result), _lane_mask(undefined, self.result), [_to_lanes(a, self.result) for a in alternatives]
        )


@dataclass
class Expected:
    """Reference result: values (cases, lanes), lanes GLSL leaves undefined, and other acceptable values."""

    values: np.ndarray
    undefined: np.ndarray | bool = False
    alternatives: Sequence[np.ndarray] = ()


def _to_lanes(values: np.ndarray, key: str) -> np.ndarray:
    kind = _kind(key)
    if kind == "B":
        return values.astype(np.float64)
    if kind == "I":
        wrapped = _wrap(values.astype(np.int64))
        high = np.trunc(wrapped / 65536.0).astype(np.int64)  # VPL integer division truncates
        low = wrapped - high * 65536
        return np.stack([high, low], axis=-1).reshape(values.shape[0], -1).astype(np.float64)
    return values.astype(np.float64)


def _lane_mask(mask: np.ndarray, key: str) -> np.ndarray:
    return np.repeat(mask, 2, axis=1) if _kind(key) == "I" else mask


def _wrap(values: np.ndarray) -> np.ndarray:
    """Two's complement int32 wrap-around of int64 values (spec 4.1)."""
    return ((values + 2**31) % 2**32) - 2**31


# References ------------------------------------------------------------------------------------------
#
# Each takes the operands as (cases, components) arrays (components 1 for
# scalars, so numpy broadcasting gives GLSL's scalar-operand forms) and
# returns an Expected in float64 / int64 / bool.

F32 = np.float32


def _unary(function: Callable[[np.ndarray], np.ndarray], undefined: Callable[[np.ndarray], np.ndarray] | None = None):
    def reference(x: np.ndarray) -> Expected:
        with np.errstate(all="ignore"):
            return Expected(function(x), False if undefined is None else undefined(x))

    return reference


def _int_or_float(float_function: Callable[[np.ndarray], np.ndarray]) -> Callable[..., Expected]:
    def reference(*operands: np.ndarray) -> Expected:
        with np.errstate(all="ignore"):
            return Expected(float_function(*operands))

    return reference


def _sign(x: np.ndarray) -> Expected:
    return Expected(np.sign(x))


def _negate(x: np.ndarray) -> Expected:
    return Expected(_wrap(-x) if x.dtype == np.int64 else -x)


def _abs(x: np.ndarray) -> Expected:
    return Expected(_wrap(np.abs(x)) if x.dtype == np.int64 else np.abs(x))


def _atan2(y: np.ndarray, x: np.ndarray) -> Expected:
    value = np.arctan2(y, x)
    # On the negative x axis the result is +pi or -pi depending on the sign of the zero y;
    # zero signs may be interchanged (spec 4.1), so either is right.
    return Expected(value, (x == 0) & (y == 0), [np.where((y == 0) & (x < 0), -value, value)])


def _pow(x: np.ndarray, y: np.ndarray) -> Expected:
    with np.errstate(all="ignore"):
        return Expected(np.power(np.abs(x), y), (x < 0) | ((x == 0) & (y <= 0)))


def _mod(x: np.ndarray, y: np.ndarray) -> Expected:
    with np.errstate(all="ignore"):
        quotient = x / y
        value = x - y * np.floor(quotient)
        # mod is x - y * floor(x / y) with GLSL's division (2.5 ULP): where x / y is within
        # rounding of an integer, floor may land on either side, so value + y and value - y
        # (the other side of the jump) are also right.
        near = np.abs(quotient - np.round(quotient)) < 1e-5 * np.maximum(1.0, np.abs(quotient))
        return Expected(value, y == 0, [np.where(near, value + y, value), np.where(near, value - y, value)])


def _step(edge: np.ndarray, x: np.ndarray) -> Expected:
    return Expected(np.where(x < edge, 0.0, 1.0))


def _clamp(x: np.ndarray, low: np.ndarray, high: np.ndarray) -> Expected:
    value = np.minimum(np.maximum(x, low), high)
    return Expected(value, np.broadcast_to(low > high, value.shape))


def _mix(x: np.ndarray, y: np.ndarray, a: np.ndarray) -> Expected:
    if a.dtype == bool:
        return Expected(np.where(a, y, x))
    return Expected(x * (1 - a) + y * a)


def _smoothstep(edge0: np.ndarray, edge1: np.ndarray, x: np.ndarray) -> Expected:
    with np.errstate(all="ignore"):
        t = np.clip((x - edge0) / (edge1 - edge0), 0.0, 1.0)
        value = t * t * (3 - 2 * t)
    return Expected(value, np.broadcast_to(edge0 >= edge1, value.shape))


def _dot(x: np.ndarray, y: np.ndarray) -> Expected:
    return Expected(np.sum(x * y, axis=1, keepdims=True))


def _length(x: np.ndarray) -> Expected:
    return Expected(np.sqrt(np.sum(x * x, axis=1, keepdims=True)))


def _distance(x: np.ndarray, y: np.ndarray) -> Expected:
    return _length(x - y)


def _normalize(x: np.ndarray) -> Expected:
    length = np.sqrt(np.sum(x * x, axis=1, keepdims=True))
    with np.errstate(all="ignore"):
        return Expected(x / length, np.broadcast_to(length == 0, x.shape))


def _cross(x: np.ndarray, y: np.ndarray) -> Expected:
    return Expected(np.cross(x, y))


def _reflect(incident: np.ndarray, normal: np.ndarray) -> Expected:
    return Expected(incident - 2 * np.sum(normal * incident, axis=1, keepdims=True) * normal)


def _refract(incident: np.ndarray, normal: np.ndarray, eta: np.ndarray) -> Expected:
    d = np.sum(normal * incident, axis=1, keepdims=True)
    k = 1 - eta * eta * (1 - d * d)
    with np.errstate(all="ignore"):
        value = np.where(k < 0, 0.0, eta * incident - (eta * d + np.sqrt(np.maximum(k, 0))) * normal)
    # k near 0 is the total-reflection boundary, where the result jumps to 0: rounding may
    # put it on either side, so it is not compared there.
    return Expected(value, np.broadcast_to(np.abs(k) < 1e-4, value.shape))


def _select(condition: np.ndarray, if_true: np.ndarray, if_false: np.ndarray) -> Expected:
    return Expected(np.where(condition, if_true, if_false))


def _float_to_int(x: np.ndarray) -> Expected:
    value = np.trunc(x)
    return Expected(value.astype(np.int64), (value < INT_MIN) | (value > INT_MAX))


REFERENCES: dict[str, Callable[..., Expected]] = {
    "abs": _abs,
    "sign": _sign,
    "floor": _unary(np.floor),
    "ceil": _unary(np.ceil),
    "fract": _unary(lambda x: x - np.floor(x)),
    "trunc": _unary(np.trunc),
    "round_even": _unary(np.rint),  # numpy rounds half to even
    "sqrt": _unary(np.sqrt, lambda x: x < 0),
    "inversesqrt": _unary(lambda x: 1 / np.sqrt(x), lambda x: x <= 0),
    "exp": _unary(np.exp),
    "exp2": _unary(np.exp2),
    "log": _unary(np.log, lambda x: x <= 0),
    "log2": _unary(np.log2, lambda x: x <= 0),
    "sin": _unary(np.sin),
    "cos": _unary(np.cos),
    "tan": _unary(np.tan),
    "asin": _unary(np.arcsin, lambda x: np.abs(x) > 1),
    "acos": _unary(np.arccos, lambda x: np.abs(x) > 1),
    "atan": _unary(np.arctan),
    "radians": _unary(lambda x: x * (np.pi / 180)),
    "degrees": _unary(lambda x: x * (180 / np.pi)),
    "negate": _negate,
    "atan2": _atan2,
    "pow": _pow,
    "mod": _mod,
    "min": _int_or_float(np.minimum),
    "max": _int_or_float(np.maximum),
    "step": _step,
    "clamp": _clamp,
    "mix": _mix,
    "smoothstep": _smoothstep,
    "dot": _dot,
    "cross": _cross,
    "length": _length,
    "distance": _distance,
    "normalize": _normalize,
    "reflect": _reflect,
    "refract": _refract,
    "select": _select,
    "logical_and": _int_or_float(np.logical_and),
    "logical_or": _int_or_float(np.logical_or),
    "logical_not": _int_or_float(np.logical_not),
    "float_to_int": _float_to_int,
}


# Tolerances -------------------------------------------------------------------------------------------
#
# |gpu - reference| <= tolerance, per lane. GLSL 4.20 section 4.7.1 gives
# bounds for some operations; those are used (times two: the reference is
# float64 while the bound is stated against the exact result, and the
# operands went through float32) together with a tiny absolute floor for
# flushed subnormals. Operations "defined as equations" of basic arithmetic
# inherit the arithmetic's error; GLSL gives trigonometry no bound at all,
# so it gets a generous 1e-3 absolute + relative allowance.


def _ulp(values: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.spacing(np.abs(values).astype(np.float32)).astype(np.float64)


EXACT = "exact"  # results are exact in binary32 (abs, floor, min, select, ...): 1e-5 relative
ARITHMETIC = "arithmetic"  # equations of +, -, *, / and sqrt (mix, dot, normalize, ...): 1e-5 rel + 1e-5 abs
TRIGONOMETRIC = "trigonometric"  # no GLSL bound: 1e-3 abs + 1e-3 rel
GLSL_BOUND = "glsl bound"  # exp, exp2, log, log2, pow, sqrt, inversesqrt: section 4.7.1

TOLERANCE_CLASS: dict[str, str] = {
    **dict.fromkeys(["abs", "sign", "floor", "ceil", "fract", "trunc", "round_even", "negate", "min", "max", "step", "clamp", "select", "logical_and", "logical_or", "logical_not", "float_to_int"], EXACT),
    **dict.fromkeys(["radians", "degrees", "mod", "mix", "smoothstep", "dot", "cross", "length", "distance", "normalize", "reflect", "refract", "dfdx", "dfdy", "fwidth"], ARITHMETIC),
    **dict.fromkeys(["sin", "cos", "tan", "asin", "acos", "atan", "atan2"], TRIGONOMETRIC),
    **dict.fromkeys(["exp", "exp2", "log", "log2", "pow", "sqrt", "inversesqrt"], GLSL_BOUND),
}  # fmt: skip


def tolerance(operation: str, inputs: Sequence[np.ndarray], expected: np.ndarray) -> np.ndarray:
    """Allowed absolute difference per lane (same shape as `expected`)."""
    magnitude = np.abs(expected)
    kind = TOLERANCE_CLASS[operation]
    if kind == EXACT:
        return 1e-5 * magnitude + 1e-6
    if kind == ARITHMETIC:
        return 1e-5 * magnitude + 1e-5
    if kind == TRIGONOMETRIC:
        return 1e-3 * magnitude + 1e-3
    x = inputs[0]
    ulp = _ulp(expected)
    with np.errstate(all="ignore"):
        if operation in ("exp", "exp2"):
            bound = (3 + 2 * np.abs(x)) * ulp  # (3 + 2|x|) ULP
        elif operation in ("log", "log2"):
            inside = (x >= 0.5) & (x <= 2.0)
            bound = np.where(inside, 2.0**-21, 3 * ulp)  # 3 ULP outside [0.5, 2], 2^-21 absolute inside
        elif operation == "inversesqrt":
            bound = 2 * ulp
        elif operation == "sqrt":
            bound = 5 * ulp  # inherited from 1 / inversesqrt(x): 2 ULP, then 2.5 ULP division
        else:  # pow: inherited from exp2(y * log2(x))
            y = inputs[1]
            log2x = np.log2(np.abs(x))
            log_error = np.where((np.abs(x) >= 0.5) & (np.abs(x) <= 2.0), 2.0**-21, 3 * _ulp(log2x))
            exponent = y * log2x
            exponent_error = np.abs(y) * log_error + _ulp(exponent)
            bound = magnitude * (np.expm1(exponent_error * np.log(2))) + (3 + 2 * np.abs(exponent)) * ulp
    return 2 * np.nan_to_num(bound, nan=0.0, posinf=np.inf) + 1e-30
