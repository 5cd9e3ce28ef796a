"""Generated GLSL identifiers and the words they must never be (spec 12.1, 12.2).

No name from a module (record, field, uniform, interface or function display
names) ever reaches GLSL text: every emitted identifier is built here from a
fixed `vpl_` prefix and numbers taken from the module's structure (list
positions, register IDs, resolved locations). So names cannot inject code,
collide with each other, or collide with GLSL keywords and built-ins, and
identical structure gives identical text.

The reserved-word and built-in-function sets are here so that a test can
prove the generated names avoid them (`check_identifier`), in every dialect.
"""

from __future__ import annotations

import re

from vpl_core.ir.module import StageKind
from vpl_core.ir.types import ArrayType, RecordType, Type

PREFIX = "vpl_"

#: Name of the dispatch loop's block selector local (spec 12.3).
BLOCK_SELECTOR = "vpl_block"

#: Name of the unassigned local an array-containing fallback return returns (spec 12.3).
FALLBACK_VALUE = "vpl_fallback"

#: GLSL 4.20 and ESSL 3.00/3.20 keywords and reserved words, plus the type names.
RESERVED_WORDS: frozenset[str] = frozenset(
    ["attribute", "const", "uniform", "varying", "buffer", "shared", "coherent", "volatile", "restrict", "readonly", "writeonly", "atomic_uint", "layout", "centroid", "flat", "smooth", "noperspective", "patch", "sample", "break", "continue", "do", "for", "while", "switch", "case", "default", "if", "else", "subroutine", "in", "out", "inout", "float", "double", "int", "void", "bool", "true", "false", "invariant", "precise", "discard", "return", "mat2", "mat3", "mat4", "dmat2", "dmat3", "dmat4", "mat2x2", "mat2x3", "mat2x4", "dmat2x2", "dmat2x3", "dmat2x4", "mat3x2", "mat3x3", "mat3x4", "dmat3x2", "dmat3x3", "dmat3x4", "mat4x2", "mat4x3", "mat4x4", "dmat4x2", "dmat4x3", "dmat4x4", "vec2", "vec3", "vec4", "ivec2", "ivec3", "ivec4", "bvec2", "bvec3", "bvec4", "dvec2", "dvec3", "dvec4", "uint", "uvec2", "uvec3", "uvec4", "lowp", "mediump", "highp", "precision", "sampler1D", "sampler2D", "sampler3D", "samplerCube", "sampler1DShadow", "sampler2DShadow", "samplerCubeShadow", "sampler1DArray", "sampler2DArray", "sampler1DArrayShadow", "sampler2DArrayShadow", "isampler1D", "isampler2D", "isampler3D", "isamplerCube", "isampler1DArray", "isampler2DArray", "usampler1D", "usampler2D", "usampler3D", "usamplerCube", "usampler1DArray", "usampler2DArray", "sampler2DRect", "sampler2DRectShadow", "isampler2DRect", "usampler2DRect", "samplerBuffer", "isamplerBuffer", "usamplerBuffer", "sampler2DMS", "isampler2DMS", "usampler2DMS", "sampler2DMSArray", "isampler2DMSArray", "usampler2DMSArray", "samplerCubeArray", "samplerCubeArrayShadow", "isamplerCubeArray", "usamplerCubeArray", "image1D", "iimage1D", "uimage1D", "image2D", "iimage2D", "uimage2D", "image3D", "iimage3D", "uimage3D", "image2DRect", "iimage2DRect", "uimage2DRect", "imageCube", "iimageCube", "uimageCube", "imageBuffer", "iimageBuffer", "uimageBuffer", "image1DArray", "iimage1DArray", "uimage1DArray", "image2DArray", "iimage2DArray", "uimage2DArray", "imageCubeArray", "iimageCubeArray", "uimageCubeArray", "image2DMS", "iimage2DMS", "uimage2DMS", "image2DMSArray", "iimage2DMSArray", "uimage2DMSArray", "struct", "common", "partition", "active", "asm", "class", "union", "enum", "typedef", "template", "this", "resource", "goto", "inline", "noinline", "public", "static", "extern", "external", "interface", "long", "short", "half", "fixed", "unsigned", "superp", "input", "output", "hvec2", "hvec3", "hvec4", "fvec2", "fvec3", "fvec4", "sampler3DRect", "filter", "sizeof", "cast", "namespace", "using", "main"]
)

#: Built-in functions of GLSL 4.20 and ESSL 3.20 that a generated function
#: name must not redeclare (ESSL forbids redeclaring built-ins outright).
BUILTIN_FUNCTIONS: frozenset[str] = frozenset(
    ["radians", "degrees", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "pow", "exp", "log", "exp2", "log2", "sqrt", "inversesqrt", "abs", "sign", "floor", "trunc", "round", "roundEven", "ceil", "fract", "mod", "modf", "min", "max", "clamp", "mix", "step", "smoothstep", "isnan", "isinf", "floatBitsToInt", "floatBitsToUint", "intBitsToFloat", "uintBitsToFloat", "fma", "frexp", "ldexp", "packUnorm2x16", "packSnorm2x16", "packUnorm4x8", "packSnorm4x8", "unpackUnorm2x16", "unpackSnorm2x16", "unpackUnorm4x8", "unpackSnorm4x8", "packHalf2x16", "unpackHalf2x16", "packDouble2x32", "unpackDouble2x32", "length", "distance", "dot", "cross", "normalize", "faceforward", "reflect", "refract", "matrixCompMult", "outerProduct", "transpose", "determinant", "inverse", "lessThan", "lessThanEqual", "greaterThan", "greaterThanEqual", "equal", "notEqual", "any", "all", "not", "uaddCarry", "usubBorrow", "umulExtended", "imulExtended", "bitfieldExtract", "bitfieldInsert", "bitfieldReverse", "bitCount", "findLSB", "findMSB", "textureSize", "textureQueryLod", "textureQueryLevels", "texture", "textureProj", "textureLod", "textureOffset", "texelFetch", "texelFetchOffset", "textureProjOffset", "textureLodOffset", "textureProjLod", "textureProjLodOffset", "textureGrad", "textureGradOffset", "textureProjGrad", "textureProjGradOffset", "textureGather", "textureGatherOffset", "textureGatherOffsets", "atomicCounterIncrement", "atomicCounterDecrement", "atomicCounter", "atomicAdd", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor", "atomicExchange", "atomicCompSwap", "imageSize", "imageLoad", "imageStore", "imageAtomicAdd", "imageAtomicMin", "imageAtomicMax", "imageAtomicAnd", "imageAtomicOr", "imageAtomicXor", "imageAtomicExchange", "imageAtomicCompSwap", "dFdx", "dFdy", "fwidth", "interpolateAtCentroid", "interpolateAtSample", "interpolateAtOffset", "noise1", "noise2", "noise3", "noise4", "EmitStreamVertex", "EndStreamPrimitive", "EmitVertex", "EndPrimitive", "barrier", "memoryBarrier", "memoryBarrierAtomicCounter", "memoryBarrierBuffer", "memoryBarrierShared", "memoryBarrierImage", "groupMemoryBarrier"]
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_identifier(name: str) -> str:
    """Return `name` if it is a GLSL identifier the backend may declare; raise ValueError otherwise.

    Generated names must be plain ASCII identifiers, not keywords, reserved
    words or built-in function names, and must avoid the `gl_` prefix and
    double underscores that GLSL reserves.
    """
    if not _IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a GLSL identifier")
    if name in RESERVED_WORDS or name in BUILTIN_FUNCTIONS:
        raise ValueError(f"{name!r} is a GLSL reserved word or built-in function")
    if name.startswith("gl_") or "__" in name:
        raise ValueError(f"{name!r} uses a prefix or sequence GLSL reserves")
    return name


def function_name(stage: StageKind, position: int) -> str:
    """`vpl_fv<i>` / `vpl_ff<i>`: the function at list position i of the stage."""
    return f"vpl_f{'v' if stage is StageKind.VERTEX else 'f'}{position}"


def register_name(index: int) -> str:
    return f"vpl_r{index}"


def parameter_name(slot: int) -> str:
    return f"vpl_p{slot}"


def field_name(position: int) -> str:
    """Record fields and block members: `vpl_m<position in declaration order>`."""
    return f"vpl_m{position}"


def record_name(number: int) -> str:
    return f"vpl_R{number}"


def uniform_name(slot: int) -> str:
    """Non-block uniforms and block instances: `vpl_u<uniform slot>`."""
    return f"vpl_u{slot}"


def block_name(slot: int) -> str:
    """The block name of a record uniform: `vpl_Block<uniform slot>`."""
    return f"vpl_Block{slot}"


def attribute_name(location: int) -> str:
    return f"vpl_attribute{location}"


def varying_name(location: int) -> str:
    return f"vpl_varying{location}"


def output_name(location: int) -> str:
    return f"vpl_output{location}"


class RecordNames:
    """Deterministic `vpl_R<n>` names for the record declarations a module uses.

    Records are numbered in dependency order (a record's field records come
    first) over a deterministic walk of the module, so struct definitions
    can be emitted in numeric order and each is defined before use. Identity
    is nominal: two declarations with the same display name get two names.
    """

    def __init__(self) -> None:
        self._names: dict[int, str] = {}
        self.records: list[RecordType] = []

    def add(self, value_type: Type) -> None:
        """Number every record reachable from `value_type` not numbered yet."""
        # Iterative post-order walk: verified types are acyclic, but the walk
        # must not depend on Python's recursion limit for deep nesting.
        stack: list[tuple[Type, bool]] = [(value_type, False)]
        while stack:
            current, expanded = stack.pop()
            while isinstance(current, ArrayType):
                current = current.element
            if not isinstance(current, RecordType) or id(current) in self._names:
                continue
            if expanded:
                self._names[id(current)] = record_name(len(self.records))
                self.records.append(current)
                continue
            stack.append((current, True))
            for field in reversed(current.fields):
                stack.append((field.type, False))

    def name(self, record: RecordType) -> str:
        return self._names[id(record)]

    def __contains__(self, record: RecordType) -> bool:
        return id(record) in self._names
