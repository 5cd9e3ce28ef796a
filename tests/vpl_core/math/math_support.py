"""Shared helpers for the `math` extension tests: a type universe, module texts, expected signatures.

Everything here works on VPL *text*, so the tests that use it go through the
whole reader (lexer, forms, binding, verifier) rather than the IR builder.

`EXPECTED_SIGNATURES` is this test suite's own statement of the typing rules,
written from the issue text and GLSL 4.20 (section 8) independently of
`vpl_core.verify.builtins`: the tests compare the two, so a change to either
shows up. Notation (the same as docs/vpl-math-extension.md): `genF`/`genI`/
`genB` are float/int/bool scalars or vectors, one component count per
signature; `mat` is one float matrix shape; `T` is one value type other than
sampler.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from vpl_core.ir import Builtin

MATH_OPERATIONS: list[str] = [builtin.value for builtin in Builtin if builtin.extension == "math"]

_UNARY_FLOAT = ("genF -> genF",)
EXPECTED_SIGNATURES: dict[str, tuple[str, ...]] = {
    "abs": ("genF -> genF", "genI -> genI"),
    "sign": ("genF -> genF", "genI -> genI"),
    **dict.fromkeys(["floor", "ceil", "fract", "trunc", "round_even", "sqrt", "inversesqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "radians", "degrees", "normalize", "dfdx", "dfdy", "fwidth"], _UNARY_FLOAT),
    "negate": ("genF -> genF", "genI -> genI", "mat -> mat"),
    "atan2": ("genF, genF -> genF",),
    "pow": ("genF, genF -> genF",),
    "mod": ("genF, genF -> genF", "genF, float -> genF"),
    "min": ("genF, genF -> genF", "genF, float -> genF", "genI, genI -> genI", "genI, int -> genI"),
    "max": ("genF, genF -> genF", "genF, float -> genF", "genI, genI -> genI", "genI, int -> genI"),
    "step": ("genF, genF -> genF", "float, genF -> genF"),
    "clamp": (
        "genF, genF, genF -> genF",
        "genF, float, float -> genF",
        "genI, genI, genI -> genI",
        "genI, int, int -> genI",
    ),
    "mix": ("genF, genF, genF -> genF", "genF, genF, float -> genF", "genF, genF, genB -> genF"),
    "smoothstep": ("genF, genF, genF -> genF", "float, float, genF -> genF"),
    "dot": ("genF, genF -> float",),
    "cross": ("vec3, vec3 -> vec3",),
    "length": ("genF -> float",),
    "distance": ("genF, genF -> float",),
    "reflect": ("genF, genF -> genF",),
    "refract": ("genF, genF, float -> genF",),
    "select": ("bool, T, T -> T",),
    "logical_and": ("bool, bool -> bool",),
    "logical_or": ("bool, bool -> bool",),
    "logical_not": ("bool -> bool",),
    "float_to_int": ("genF -> genI",),
    "texture_lod": ("sampler2D, vec2, float -> vec4",),
}
FRAGMENT_ONLY = frozenset({"dfdx", "dfdy", "fwidth"})


# The type universe ----------------------------------------------------------------------


@dataclass(frozen=True)
class TextType:
    """One value type as the tests spell it: a key (GLSL-like), its type id and declaration in module text."""

    key: str
    type_id: str
    declaration: str
    scalar: str  # constant spelling that fills it ("(float 0.5)"), "" for sampler/array/record

    def define(self, register: str) -> str:
        """An instruction that assigns `register` (of this type) a value."""
        if self.key == "sampler2D":
            return f"(load {register} (uniform tex))"
        if self.key == "float[2]":
            return f"(construct {register} (float 0.5) (float 0.5))"
        if self.key == "R":
            return f"(construct {register} (float 0.5))"
        if self.key in ("float", "int", "bool"):
            return f"(copy {register} {self.scalar})"
        return f"(construct {register} {self.scalar})"


def _universe() -> dict[str, TextType]:
    types: list[TextType] = [
        TextType("float", "Float", "(type Float float)", "(float 0.5)"),
        TextType("int", "Int", "(type Int int)", "(int 1)"),
        TextType("bool", "Bool", "(type Bool bool)", "(bool true)"),
    ]
    for size in (2, 3, 4):
        types.append(TextType(f"vec{size}", f"Vec{size}", f"(type Vec{size} vector float {size})", "(float 0.5)"))
        types.append(TextType(f"ivec{size}", f"IVec{size}", f"(type IVec{size} vector int {size})", "(int 1)"))
        types.append(TextType(f"bvec{size}", f"BVec{size}", f"(type BVec{size} vector bool {size})", "(bool true)"))
    # GLSL names: matCxR has C columns and R rows; VPL's matrix form is rows then columns.
    types.append(TextType("mat2", "Mat2", "(type Mat2 matrix 2 2)", "(float 0.5)"))
    types.append(TextType("mat3", "Mat3", "(type Mat3 matrix 3 3)", "(float 0.5)"))
    types.append(TextType("mat2x3", "Mat2x3", "(type Mat2x3 matrix 3 2)", "(float 0.5)"))
    types.append(TextType("sampler2D", "Sampler", "(type Sampler sampler2D)", ""))
    types.append(TextType("float[2]", "FloatArray", "(type FloatArray array Float 2)", ""))
    types.append(TextType("R", "Rec", '(type Rec record "R" (field "x" Float))', ""))
    return {text_type.key: text_type for text_type in types}


TYPES: dict[str, TextType] = _universe()
UNIVERSE: list[TextType] = list(TYPES.values())


# Expected typing (independent of vpl_core.verify.builtins) ------------------------------


def _parse(signature: str) -> tuple[list[str], str]:
    parameters, result = signature.split("->")
    return [item.strip() for item in parameters.split(",")], result.strip()


def _gen_size(key: str, kind: str) -> int | None:
    scalar, prefix = {"F": ("float", "vec"), "I": ("int", "ivec"), "B": ("bool", "bvec")}[kind]
    if key == scalar:
        return 1
    if key.startswith(prefix) and key[len(prefix):].isdigit():
        return int(key[len(prefix):])
    return None


def _gen_key(kind: str, size: int) -> str:
    scalar, prefix = {"F": ("float", "vec"), "I": ("int", "ivec"), "B": ("bool", "bvec")}[kind]
    return scalar if size == 1 else f"{prefix}{size}"


def _match(pattern: str, key: str, bound: dict[str, object]) -> bool:
    if pattern.startswith("gen"):
        size = _gen_size(key, pattern[3])
        return size is not None and bound.setdefault("n", size) == size
    if pattern == "mat":
        return key.startswith("mat") and bound.setdefault("m", key) == key
    if pattern == "T":
        return key != "sampler2D" and bound.setdefault("T", key) == key
    return pattern == key


def _instantiate(pattern: str, bound: dict[str, object]) -> str:
    if pattern.startswith("gen"):
        return _gen_key(pattern[3], int(bound["n"]))  # type: ignore[call-overload]
    if pattern == "mat":
        return str(bound["m"])
    if pattern == "T":
        return str(bound["T"])
    return pattern


@functools.cache
def _signatures(operation: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    """`EXPECTED_SIGNATURES[operation]` parsed: (parameter patterns, result pattern) per signature."""
    return tuple((tuple(parameters), result) for parameters, result in map(_parse, EXPECTED_SIGNATURES[operation]))


def expected_result(operation: str, argument_keys: Sequence[str]) -> str | None:
    """The result type key of `operation` applied to these argument types, or None if it is rejected."""
    for parameters, result in _signatures(operation):
        if len(parameters) != len(argument_keys):
            continue
        bound: dict[str, object] = {}
        if all(_match(pattern, key, bound) for pattern, key in zip(parameters, argument_keys)):
            return _instantiate(result, bound)
    return None


def arity(operation: str) -> int:
    return len(_parse(EXPECTED_SIGNATURES[operation][0])[0])


def accepted_combinations(operation: str, universe: Iterable[TextType] = UNIVERSE) -> list[tuple[tuple[str, ...], str]]:
    """Every (argument keys, result key) over the universe that `operation` accepts."""
    return list(_accepted_combinations(operation, tuple(text_type.key for text_type in universe)))


@functools.cache
def _accepted_combinations(operation: str, keys: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """`accepted_combinations`, worked out once per operation and universe: several test modules parametrize
    with it at collection, in every worker. Each signature's arguments are matched one position at a time, so
    a rejected prefix rules out every tuple that starts with it (what `expected_result` gives every tuple of
    the universe, in `itertools.product` order)."""
    count = arity(operation)
    found: dict[tuple[str, ...], str] = {}

    def extend(parameters: tuple[str, ...], result: str, arguments: tuple[str, ...], bound: dict[str, object]) -> None:
        if len(arguments) == count:
            found.setdefault(arguments, _instantiate(result, bound))  # the first signature that matches decides
            return
        for key in keys:
            trial = dict(bound)
            if _match(parameters[len(arguments)], key, trial):
                extend(parameters, result, (*arguments, key), trial)

    for parameters, result in _signatures(operation):
        if len(parameters) == count:
            extend(parameters, result, (), {})
    position = {key: index for index, key in enumerate(keys)}
    return tuple(sorted(found.items(), key=lambda item: [position[key] for key in item[0]]))


# Module texts --------------------------------------------------------------------------


@dataclass
class Function:
    """Registers and instructions of one entry function (the stage output store is appended)."""

    registers: list[tuple[str, str]]  # (register, type key)
    lines: list[str]


def _function_text(name: str, display: str, function: Function, output: str, indent: str) -> list[str]:
    registers = [("r0", "vec4"), *function.registers]
    declared = " ".join(f"(register {register} {TYPES[key].type_id})" for register, key in registers)
    body = [*function.lines, "(construct r0 (float 1.0))", f"(store (stage {output}) r0)", "(return)"]
    lines = [
        f'{indent}(function {name} "{display}" Void',
        f"{indent}  (parameters)",
        f"{indent}  (registers {declared})",
        f"{indent}  (block entry",
    ]
    lines += [f"{indent}    {line}" for line in body]
    lines[-1] += "))"
    return lines


def module_text(
    fragment: Function,
    vertex: Function | None = None,
    *,
    extension: str | None = '(extensions "math")',
    fragment_helpers: Sequence[str] = (),
    vertex_helpers: Sequence[str] = (),
) -> str:
    """A complete module: every universe type declared, a sampler uniform `tex`, and these stage bodies.

    Each body line is on its own source line, so `position_of` can find it.
    `extension` is the text placed after the version (None for none).
    Helper functions are given as complete `(function ...)` texts.
    """
    vertex = vertex or Function([], [])
    lines = ["(module 1"]
    if extension is not None:
        lines.append(f"  {extension}")
    lines.append("  (types")
    lines.append("    (type Void void)")
    lines += [f"    {text_type.declaration}" for text_type in UNIVERSE]
    lines[-1] += ")"
    lines.append('  (uniforms (scalar tex "tex" Sampler))')
    lines.append("  (vertex vmain")
    lines.append('    (interface (out position "position" Vec4 -1 position))')
    lines.append("    (functions")
    lines += _function_text("vmain", "vertex_main", vertex, "position", "      ")
    lines += [f"      {helper}" for helper in vertex_helpers]
    lines[-1] += "))"
    lines.append("  (fragment fmain")
    lines.append('    (interface (out color "color" Vec4 0 fragment_color))')
    lines.append("    (functions")
    lines += _function_text("fmain", "fragment_main", fragment, "color", "      ")
    lines += [f"      {helper}" for helper in fragment_helpers]
    lines[-1] += ")))"
    return "\n".join(lines) + "\n"


def call_function(operation: str, arguments: Sequence[str], result: str) -> tuple[Function, str]:
    """A function body that defines one register per argument type and applies `operation`.

    Returns the body and the operation's instruction text. Argument
    registers are r10, r11, ...; the result register is r1.
    """
    registers = [("r1", result)]
    lines = []
    operands = []
    for position, key in enumerate(arguments):
        register = f"r{10 + position}"
        registers.append((register, key))
        lines.append(TYPES[key].define(register))
        operands.append(register)
    instruction = f"({operation} r1 {' '.join(operands)})"
    lines.append(instruction)
    return Function(registers, lines), instruction


def position_of(text: str, snippet: str, occurrence: int = 0) -> tuple[int, int]:
    """One-based (line, column) of the `occurrence`-th appearance of `snippet` in `text`."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(snippet, index + 1)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def chunks(items: Sequence[object], size: int) -> Iterator[Sequence[object]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
