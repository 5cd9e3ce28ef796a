"""Typing of built-in calls: VPL 1's texture (spec 7.3) and the `math` extension.

One `BuiltinSpec` per `Builtin` selector (every member but NONE) in
`BUILTINS`: its description, the stages it is available in, and its
signatures. The signatures are the single source of truth: the verifier,
the GLSL backend and the editor's type propagation all ask
`check_builtin_call` (or `builtin_result_type`), and `signature_descriptions` / `concrete_signatures`
list them for documentation and tests.

The math extension follows GLSL 4.20's genType rules with VPL's exactness:
no implicit conversion, so `pow(vec3, float)` or `min(vec3, int)` are
rejected. Signature notation:

- `genF` is float or a float vector, `genI` int or an int vector, `genB`
  bool or a bool vector. Within one signature every gen* stands for the same
  component count: `mix(vec3, vec3, bvec3)` is accepted, `mix(vec3, vec3,
  bvec2)` is not.
- `mat` is any float matrix (same shape within a signature).
- `T` is any value type other than void and sampler (scalars, vectors,
  matrices, arrays, records); all T of a signature are the same type.

Decisions where the brief or GLSL leave room (see the verifier report):
`logical_and`/`logical_or`/`logical_not` take bool scalars only (component
-wise bvec logic is what `select` with a scalar condition cannot express, and
GLSL's own `&&`, `||`, `!` are scalar-only too); `select` takes a bool scalar
condition; derivatives (`dfdx`, `dfdy`, `fwidth`) are fragment-only,
`texture_lod` is available in both stages.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence

from vpl_core.ir.instructions import Builtin
from vpl_core.ir.module import StageKind
from vpl_core.ir.type_rules import describe_type, types_equal
from vpl_core.ir.types import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    MatrixType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)
from vpl_core.records import Record
from vpl_core.verify.errors import InstructionRule, ObjectRule, VerifierRule

# typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

_Environment = dict[str, object]


class Shape(Record):
    """A parameter or result pattern: matches argument types, binding variables."""

    __slots__ = ()

    def match(self, argument: Type, environment: _Environment) -> bool:
        raise NotImplementedError

    def instantiate(self, environment: _Environment) -> Type:
        raise NotImplementedError

    def variables(self) -> tuple[str, ...]:
        return ()


class Exact(Shape):
    """Exactly this type."""

    __slots__ = ("type",)

    def __init__(self, type: Type) -> None:
        self.type: Final = type

    def match(self, argument: Type, environment: _Environment) -> bool:
        return types_equal(argument, self.type)

    def instantiate(self, environment: _Environment) -> Type:
        return self.type

    def __str__(self) -> str:
        return describe_type(self.type)


class Generic(Shape):
    """genF/genI/genB: a scalar (size 1) or vector of `kind`, sized by the variable `n`."""

    __slots__ = ("kind",)

    def __init__(self, kind: ScalarKind) -> None:
        self.kind: Final = kind

    def match(self, argument: Type, environment: _Environment) -> bool:
        if isinstance(argument, ScalarType) and argument.kind is self.kind:
            size = 1
        elif isinstance(argument, VectorType) and argument.kind is self.kind:
            size = argument.size
        else:
            return False
        bound = environment.setdefault("n", size)
        return bound == size

    def instantiate(self, environment: _Environment) -> Type:
        size = environment["n"]
        assert isinstance(size, int)
        return ScalarType(self.kind) if size == 1 else VectorType(self.kind, size)

    def variables(self) -> tuple[str, ...]:
        return ("n",)

    def __str__(self) -> str:
        return {ScalarKind.FLOAT: "genF", ScalarKind.INT: "genI", ScalarKind.BOOL: "genB"}[self.kind]


class AnyMatrix(Shape):
    """Any float matrix; all AnyMatrix shapes of a signature are the same matrix type."""

    __slots__ = ()

    def match(self, argument: Type, environment: _Environment) -> bool:
        if not isinstance(argument, MatrixType):
            return False
        bound = environment.setdefault("m", argument)
        return types_equal(bound, argument)

    def instantiate(self, environment: _Environment) -> Type:
        matrix = environment["m"]
        assert isinstance(matrix, MatrixType)
        return matrix

    def variables(self) -> tuple[str, ...]:
        return ("m",)

    def __str__(self) -> str:
        return "mat"


class AnyValue(Shape):
    """Any value type but void and sampler; all AnyValue shapes of a signature are one type."""

    __slots__ = ()

    @staticmethod
    def accepts(argument: object) -> bool:
        return isinstance(argument, Type) and not isinstance(argument, (VoidType, SamplerType))

    def match(self, argument: Type, environment: _Environment) -> bool:
        if not self.accepts(argument):
            return False
        bound = environment.setdefault("T", argument)
        return types_equal(bound, argument)

    def instantiate(self, environment: _Environment) -> Type:
        value_type = environment["T"]
        assert isinstance(value_type, Type)
        return value_type

    def variables(self) -> tuple[str, ...]:
        return ("T",)

    def __str__(self) -> str:
        return "T"


GEN_F = Generic(ScalarKind.FLOAT)
GEN_I = Generic(ScalarKind.INT)
GEN_B = Generic(ScalarKind.BOOL)
MAT = AnyMatrix()
ANY = AnyValue()
F = Exact(FLOAT)
I = Exact(INT)  # noqa: E741 - reads as the GLSL type name
B = Exact(BOOL)
VEC2 = Exact(VectorType(ScalarKind.FLOAT, 2))
VEC3 = Exact(VectorType(ScalarKind.FLOAT, 3))
VEC4 = Exact(VectorType(ScalarKind.FLOAT, 4))
SAMPLER = Exact(SAMPLER2D)


class Signature(Record):
    """One overload of a built-in: the shapes of its parameters and of its result."""

    __slots__ = ("parameters", "result")

    def __init__(self, parameters: tuple[Shape, ...], result: Shape) -> None:
        self.parameters: Final = parameters
        self.result: Final = result

    def match(self, arguments: Sequence[Type]) -> Type | None:
        if len(arguments) != len(self.parameters):
            return None
        environment: _Environment = {}
        for shape, argument in zip(self.parameters, arguments):
            if not shape.match(argument, environment):
                return None
        return self.result.instantiate(environment)

    def __str__(self) -> str:
        return f"({', '.join(str(shape) for shape in self.parameters)}) -> {self.result}"


def _signature(result: Shape, *parameters: Shape) -> Signature:
    return Signature(tuple(parameters), result)


ALL_STAGES = frozenset(StageKind)
FRAGMENT_ONLY = frozenset({StageKind.FRAGMENT})


class BuiltinSpec(Record):
    """A built-in function: its overloads and the stages that may call it."""

    __slots__ = ("builtin", "description", "signatures", "stages")

    def __init__(
        self, builtin: Builtin, description: str, signatures: tuple[Signature, ...], stages: frozenset[StageKind] = ALL_STAGES
    ) -> None:
        self.builtin: Final = builtin
        self.description: Final = description
        self.signatures: Final = signatures
        self.stages: Final = stages

    @property
    def name(self) -> str:
        return self.builtin.value

    @property
    def arity(self) -> int:
        return len(self.signatures[0].parameters)


def _unary_float(builtin: Builtin, description: str) -> BuiltinSpec:
    return BuiltinSpec(builtin, description, (_signature(GEN_F, GEN_F),))


def _table(specs: Iterable[BuiltinSpec]) -> dict[Builtin, BuiltinSpec]:
    return {spec.builtin: spec for spec in specs}


BUILTINS: dict[Builtin, BuiltinSpec] = _table(
    [
        BuiltinSpec(
            Builtin.TEXTURE,
            "texture(sampler, coordinates): implicit-LOD 2D sampling (spec 7.3.1).",
            (_signature(VEC4, SAMPLER, VEC2),),
        ),
        BuiltinSpec(
            Builtin.ABS,
            "abs(x): component-wise absolute value.",
            (_signature(GEN_F, GEN_F), _signature(GEN_I, GEN_I)),
        ),
        BuiltinSpec(
            Builtin.SIGN,
            "sign(x): component-wise -1, 0 or 1.",
            (_signature(GEN_F, GEN_F), _signature(GEN_I, GEN_I)),
        ),
        _unary_float(Builtin.FLOOR, "floor(x): largest integer value not greater than x."),
        _unary_float(Builtin.CEIL, "ceil(x): smallest integer value not less than x."),
        _unary_float(Builtin.FRACT, "fract(x): x - floor(x)."),
        _unary_float(Builtin.TRUNC, "trunc(x): x rounded toward zero."),
        _unary_float(Builtin.ROUND_EVEN, "round_even(x): x rounded to the nearest integer, ties to even."),
        _unary_float(Builtin.SQRT, "sqrt(x): square root; undefined for x < 0."),
        _unary_float(Builtin.INVERSESQRT, "inversesqrt(x): 1 / sqrt(x); undefined for x <= 0."),
        _unary_float(Builtin.EXP, "exp(x): e to the x."),
        _unary_float(Builtin.EXP2, "exp2(x): 2 to the x."),
        _unary_float(Builtin.LOG, "log(x): natural logarithm; undefined for x <= 0."),
        _unary_float(Builtin.LOG2, "log2(x): base-2 logarithm; undefined for x <= 0."),
        _unary_float(Builtin.SIN, "sin(x): sine of x radians."),
        _unary_float(Builtin.COS, "cos(x): cosine of x radians."),
        _unary_float(Builtin.TAN, "tan(x): tangent of x radians."),
        _unary_float(Builtin.ASIN, "asin(x): arc sine in [-pi/2, pi/2]; undefined for |x| > 1."),
        _unary_float(Builtin.ACOS, "acos(x): arc cosine in [0, pi]; undefined for |x| > 1."),
        _unary_float(Builtin.ATAN, "atan(y_over_x): arc tangent in [-pi/2, pi/2]."),
        _unary_float(Builtin.RADIANS, "radians(degrees): degrees to radians."),
        _unary_float(Builtin.DEGREES, "degrees(radians): radians to degrees."),
        BuiltinSpec(
            Builtin.NEGATE,
            "negate(x): -x, component-wise (integers wrap as spec 4.1 says).",
            (_signature(GEN_F, GEN_F), _signature(GEN_I, GEN_I), _signature(MAT, MAT)),
        ),
        BuiltinSpec(
            Builtin.ATAN2,
            "atan2(y, x): arc tangent of y/x in [-pi, pi] using both signs (GLSL atan(y, x)).",
            (_signature(GEN_F, GEN_F, GEN_F),),
        ),
        BuiltinSpec(
            Builtin.POW,
            "pow(x, y): x to the y; undefined for x < 0, or x = 0 and y <= 0.",
            (_signature(GEN_F, GEN_F, GEN_F),),
        ),
        BuiltinSpec(
            Builtin.MOD,
            "mod(x, y): x - y * floor(x / y); y may be one float for every component.",
            (_signature(GEN_F, GEN_F, GEN_F), _signature(GEN_F, GEN_F, F)),
        ),
        BuiltinSpec(
            Builtin.MIN,
            "min(x, y): component-wise minimum; y may be one scalar for every component.",
            (
                _signature(GEN_F, GEN_F, GEN_F),
                _signature(GEN_F, GEN_F, F),
                _signature(GEN_I, GEN_I, GEN_I),
                _signature(GEN_I, GEN_I, I),
            ),
        ),
        BuiltinSpec(
            Builtin.MAX,
            "max(x, y): component-wise maximum; y may be one scalar for every component.",
            (
                _signature(GEN_F, GEN_F, GEN_F),
                _signature(GEN_F, GEN_F, F),
                _signature(GEN_I, GEN_I, GEN_I),
                _signature(GEN_I, GEN_I, I),
            ),
        ),
        BuiltinSpec(
            Builtin.STEP,
            "step(edge, x): 0.0 where x < edge, else 1.0; edge may be one float for every component.",
            (_signature(GEN_F, GEN_F, GEN_F), _signature(GEN_F, F, GEN_F)),
        ),
        BuiltinSpec(
            Builtin.CLAMP,
            "clamp(x, low, high): min(max(x, low), high); bounds may be scalars. Undefined if low > high.",
            (
                _signature(GEN_F, GEN_F, GEN_F, GEN_F),
                _signature(GEN_F, GEN_F, F, F),
                _signature(GEN_I, GEN_I, GEN_I, GEN_I),
                _signature(GEN_I, GEN_I, I, I),
            ),
        ),
        BuiltinSpec(
            Builtin.MIX,
            "mix(x, y, a): x * (1 - a) + y * a; with a bool (vector) a, selects y where a is true.",
            (
                _signature(GEN_F, GEN_F, GEN_F, GEN_F),
                _signature(GEN_F, GEN_F, GEN_F, F),
                _signature(GEN_F, GEN_F, GEN_F, GEN_B),
            ),
        ),
        BuiltinSpec(
            Builtin.SMOOTHSTEP,
            "smoothstep(edge0, edge1, x): Hermite interpolation between edges; edges may be floats.",
            (_signature(GEN_F, GEN_F, GEN_F, GEN_F), _signature(GEN_F, F, F, GEN_F)),
        ),
        BuiltinSpec(Builtin.DOT, "dot(x, y): the dot product.", (_signature(F, GEN_F, GEN_F),)),
        BuiltinSpec(Builtin.CROSS, "cross(x, y): the cross product of two vec3.", (_signature(VEC3, VEC3, VEC3),)),
        BuiltinSpec(Builtin.LENGTH, "length(x): the Euclidean length.", (_signature(F, GEN_F),)),
        BuiltinSpec(Builtin.DISTANCE, "distance(p0, p1): length(p0 - p1).", (_signature(F, GEN_F, GEN_F),)),
        BuiltinSpec(Builtin.NORMALIZE, "normalize(x): x / length(x).", (_signature(GEN_F, GEN_F),)),
        BuiltinSpec(
            Builtin.REFLECT,
            "reflect(incident, normal): incident - 2 * dot(normal, incident) * normal.",
            (_signature(GEN_F, GEN_F, GEN_F),),
        ),
        BuiltinSpec(
            Builtin.REFRACT,
            "refract(incident, normal, eta): the refraction vector for index ratio eta.",
            (_signature(GEN_F, GEN_F, GEN_F, F),),
        ),
        BuiltinSpec(
            Builtin.SELECT,
            "select(condition, if_true, if_false): if_true when the bool scalar is true, else if_false.",
            (_signature(ANY, B, ANY, ANY),),
        ),
        BuiltinSpec(Builtin.LOGICAL_AND, "logical_and(a, b): bool scalar and.", (_signature(B, B, B),)),
        BuiltinSpec(Builtin.LOGICAL_OR, "logical_or(a, b): bool scalar or.", (_signature(B, B, B),)),
        BuiltinSpec(Builtin.LOGICAL_NOT, "logical_not(a): bool scalar not.", (_signature(B, B),)),
        BuiltinSpec(
            Builtin.FLOAT_TO_INT,
            "float_to_int(x): component-wise conversion truncating toward zero (GLSL int(x)); "
            "undefined when out of int range.",
            (_signature(GEN_I, GEN_F),),
        ),
        BuiltinSpec(
            Builtin.DFDX,
            "dfdx(p): derivative in window x; fragment stage only, undefined in non-uniform control flow.",
            (_signature(GEN_F, GEN_F),),
            FRAGMENT_ONLY,
        ),
        BuiltinSpec(
            Builtin.DFDY,
            "dfdy(p): derivative in window y; fragment stage only, undefined in non-uniform control flow.",
            (_signature(GEN_F, GEN_F),),
            FRAGMENT_ONLY,
        ),
        BuiltinSpec(
            Builtin.FWIDTH,
            "fwidth(p): abs(dfdx(p)) + abs(dfdy(p)); fragment stage only.",
            (_signature(GEN_F, GEN_F),),
            FRAGMENT_ONLY,
        ),
        BuiltinSpec(
            Builtin.TEXTURE_LOD,
            "texture_lod(sampler, coordinates, lod): 2D sampling at an explicit level of detail.",
            (_signature(VEC4, SAMPLER, VEC2, F),),
        ),
    ]
)


def builtin_spec(builtin: object) -> BuiltinSpec | None:
    """The table entry of a built-in selector; None for NONE and for non-selectors."""
    if not isinstance(builtin, Builtin):
        return None
    return BUILTINS.get(builtin)


class BuiltinCallProblem(Record):
    """Why a built-in call is invalid: the rule it breaks and the message for people."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: VerifierRule, message: str) -> None:
        self.kind: Final = kind
        self.message: Final = message


def check_builtin_call(
    builtin: Builtin, argument_types: Sequence[Type], stage_kind: StageKind | None = None
) -> Type | BuiltinCallProblem:
    """The result type of calling `builtin` with arguments of these (well-formed) types, or the problem.

    `stage_kind` None means "stage not known yet" (the editor propagating
    types before a node is placed) and skips the stage restriction.
    """
    spec = builtin_spec(builtin)
    if spec is None:
        return BuiltinCallProblem(ObjectRule.INVALID_ENUM, f"{builtin!r} is not a built-in function")
    if stage_kind is not None and stage_kind not in spec.stages:
        allowed = " and ".join(sorted(stage.value for stage in spec.stages))
        return BuiltinCallProblem(
            InstructionRule.BUILTIN_STAGE,
            f"built-in {spec.name} is not available in the {stage_kind.value} stage (only {allowed})",
        )
    arguments = list(argument_types)
    if len(arguments) != spec.arity:
        plural = "" if spec.arity == 1 else "s"
        return BuiltinCallProblem(
            InstructionRule.BUILTIN_ARITY, f"built-in {spec.name} takes {spec.arity} operand{plural}, got {len(arguments)}"
        )
    for signature in spec.signatures:
        result = signature.match(arguments)
        if result is not None:
            return result
    got = ", ".join(describe_type(argument) for argument in arguments)
    expected = " or ".join(str(signature) for signature in spec.signatures)
    return BuiltinCallProblem(
        InstructionRule.BUILTIN_ARGUMENTS, f"built-in {spec.name} does not accept ({got}); it takes {expected}"
    )


def builtin_result_type(
    builtin: Builtin, argument_types: Sequence[Type], stage_kind: StageKind | None = None
) -> Type | str:
    """`check_builtin_call` for type propagation: a `Type`, or the message saying why the call is invalid."""
    result = check_builtin_call(builtin, argument_types, stage_kind)
    return result.message if isinstance(result, BuiltinCallProblem) else result


def signature_descriptions(builtin: Builtin) -> list[str]:
    """Human-readable signatures, e.g. `(genF, float) -> genF`, for docs and diagnostics."""
    spec = builtin_spec(builtin)
    return [] if spec is None else [str(signature) for signature in spec.signatures]


def _all_matrices() -> list[MatrixType]:
    return [MatrixType(rows, columns) for rows in range(2, 5) for columns in range(2, 5)]


def _environments(variables: set[str], value_types: Sequence[Type]) -> Iterator[_Environment]:
    domains: list[tuple[str, list[object]]] = []
    for variable in sorted(variables):
        if variable == "n":
            domains.append((variable, [1, 2, 3, 4]))
        elif variable == "m":
            domains.append((variable, list(_all_matrices())))
        elif variable == "T":
            domains.append((variable, [value_type for value_type in value_types if AnyValue.accepts(value_type)]))
    for values in itertools.product(*(domain for _, domain in domains)):
        yield {name: value for (name, _), value in zip(domains, values)}


def concrete_signatures(
    builtin: Builtin, value_types: Sequence[Type] = (FLOAT, INT, BOOL)
) -> list[tuple[tuple[Type, ...], Type]]:
    """Every concrete (argument types, result type) the built-in accepts.

    gen* sizes and matrix shapes are enumerated completely; `T` ranges over
    the acceptable members of `value_types` (the set of any-value types is
    infinite). Duplicates from
    overlapping signatures are listed once, in signature order.
    """
    spec = builtin_spec(builtin)
    if spec is None:
        return []
    listed: list[tuple[tuple[Type, ...], Type]] = []
    for signature in spec.signatures:
        variables = {name for shape in (*signature.parameters, signature.result) for name in shape.variables()}
        for environment in _environments(variables, value_types):
            arguments = tuple(shape.instantiate(environment) for shape in signature.parameters)
            result = signature.result.instantiate(environment)
            if not any(_same_signature(arguments, result, other) for other in listed):
                listed.append((arguments, result))
    return listed


def _same_signature(arguments: tuple[Type, ...], result: Type, other: tuple[tuple[Type, ...], Type]) -> bool:
    other_arguments, other_result = other
    return (
        len(arguments) == len(other_arguments)
        and all(types_equal(first, second) for first, second in zip(arguments, other_arguments))
        and types_equal(result, other_result)
    )
