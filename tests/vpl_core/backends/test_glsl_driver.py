"""Native-driver tests of the GLSL backend (spec 12.5) on a real OpenGL 4.x core and OpenGL ES 3.2 context.

Every golden case (spec examples, built-in programs, fixtures) is compiled
and linked by the driver from the artifact, its reflection is compared with
the driver's (std140 block sizes and member offsets, attribute and
fragment-output locations), and it is rendered into an RGBA8 framebuffer
with known inputs and its pixels checked. The ES targets must render the
same pixels as GLSL 4.20. Sampler cases distinguish repeat from clamp
addressing and fragment implicit mip selection from the vertex stage's base
level. The numeric conformance case renders green only if the driver's
integer wrapping, truncating division, int-to-float conversion, finite
arithmetic and signed-zero comparison behave as VPL specifies.
"""

from __future__ import annotations

from collections.abc import Callable

import glsl_harness as harness
import numpy as np
import pytest
from golden_cases import CASES, artifact
from OpenGL import GL

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl import compile_source, std140
from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    VOID,
    ArrayType,
    BinaryOperator,
    ConstantValue,
    Module,
    Semantic,
    StageBuilder,
    add_uniform,
    element,
    vec,
)
from vpl_core.ir.module import Direction
from vpl_core.publish import VerifiedModule

GREEN = (0, 255, 0, 255)
RED = (255, 0, 0, 255)
BLUE = (0, 0, 255, 255)
CLEAR = (0, 0, 0, 0)
IDENTITY = np.eye(4, dtype=np.float32)


def _vertex_colors(rgba: tuple[float, float, float, float]) -> np.ndarray:
    return np.array([rgba] * 3, dtype=np.float32)


def _program_inputs(texture: bool, vertex_color: bool, mesh_color: bool) -> harness.Inputs:
    inputs = harness.Inputs(uniforms={"model_view_projection": IDENTITY, "ambient_color": (0.5, 1.0, 1.0, 1.0)})
    if mesh_color:
        inputs.uniforms["mesh_color"] = (1.0, 1.0, 0.25, 1.0)
    if texture:
        inputs.textures["texture"] = harness.Texture([harness.solid(2, 2, (255, 255, 255, 255))])
        inputs.attributes[2] = harness.FULL_SCREEN_TEXCOORDS
    if vertex_color:
        inputs.attributes[3] = _vertex_colors((1.0, 1.0, 0.25, 1.0))
    return inputs


def _record_array_inputs() -> harness.Inputs:
    return harness.Inputs(
        uniforms={
            "material": {
                "vpl_m0": (1.0, 1.0, 1.0, 1.0),
                "vpl_m1[1]": 0.5,
                "vpl_m2.vpl_m1": 1.0,
                "vpl_m3": IDENTITY,
                "vpl_m4": (0, 1),
            },
            "palette": [(1, 0, 0, 1), (1, 0, 0, 1), (0.0, 1.0, 0.0, 1.0), (1, 0, 0, 1)],
            "lights": [{"direction": (0, 0, 0), "intensity": 0.0}, {"direction": (0, 0, 1), "intensity": 2.0}],
            "gain": 1.0,
            "extra": {"vpl_m0": (1.0, 1.0, 1.0, 1.0)},
        }
    )


def _green_texture() -> harness.Texture:
    return harness.Texture([harness.solid(1, 1, GREEN)])


NUMERIC_UNIFORMS = {
    "int_max": 2147483647,
    "int_min": -2147483648,
    "two_to_the_16": 65536,
    "minus_seven": -7,
    "two": 2,
    "two_to_the_24": 16777216,
    "half": 0.5,
    "quarter": 0.25,
    "negative_zero": -0.0,
}

#: For each input, a value that must make one of the checks fail (no division by zero).
NUMERIC_BROKEN = {
    "int_max": 2147483646,
    "int_min": -2147483647,
    "two_to_the_16": 65537,
    "minus_seven": -5,
    "two": 3,
    "two_to_the_24": 16777218,
    "half": 1.5,
    "quarter": 1.25,
    "negative_zero": 1.0,
}


def _uniform(expected: tuple[int, ...]) -> Callable[[np.ndarray], None]:
    def check(pixels: np.ndarray) -> None:
        difference = np.abs(pixels.astype(int) - np.array(expected))
        assert difference.max() <= 1, f"expected every pixel {expected}, got\n{pixels.reshape(-1, 4)}"

    return check


def _quadrant(pixels: np.ndarray) -> None:
    # discard.vpl: x < 2 or y < 2 discarded (clear colour), the rest green.
    for y in range(pixels.shape[0]):
        for x in range(pixels.shape[1]):
            expected = GREEN if x >= 2 and y >= 2 else CLEAR
            assert tuple(pixels[y, x]) == expected, f"pixel ({x}, {y}) is {tuple(pixels[y, x])}, expected {expected}"


#: case -> (inputs, pixel check). Product colours: ambient (0.5, 1, 1, 1) x (1, 1, 0.25, 1) = (128, 255, 64, 255).
EXPECTATIONS: dict[str, tuple[Callable[[], harness.Inputs], Callable[[np.ndarray], None]]] = {
    # All vertices at the same clip position: a degenerate triangle, nothing drawn.
    "spec-canonical-example": (harness.Inputs, _uniform(CLEAR)),
    "spec-loop-and-helper": (harness.Inputs, _uniform(GREEN)),
    "spec-nested-aggregate-storage": (harness.Inputs, _uniform(GREEN)),
    "program-mesh-ambient-color": (lambda: _program_inputs(False, False, True), _uniform((128, 255, 64, 255))),
    "program-vertex-ambient-color": (lambda: _program_inputs(False, True, False), _uniform((128, 255, 64, 255))),
    "program-texture-ambient-color": (lambda: _program_inputs(True, False, False), _uniform((128, 255, 255, 255))),
    "program-texture-vertex-ambient-color": (
        lambda: _program_inputs(True, True, False),
        _uniform((128, 255, 64, 255)),
    ),
    "record-array-uniforms": (_record_array_inputs, _uniform(GREEN)),
    "integer-varyings": (harness.Inputs, _uniform(GREEN)),
    "calls": (lambda: harness.Inputs(textures={"image": _green_texture()}), _uniform(GREEN)),
    "nested-selectors": (
        lambda: harness.Inputs(
            uniforms={"cells": [{"values": [0, 0, 0], "scale": 1.0}, {"values": [0, 5, 9], "scale": 2.0}]}
        ),
        _uniform(GREEN),
    ),
    "loop-sum": (harness.Inputs, _uniform((10, 255, 0, 255))),
    "loop-nested": (harness.Inputs, _uniform((11, 255, 0, 255))),
    "loop-early-return": (harness.Inputs, _uniform((5, 180, 0, 255))),
    "discard": (harness.Inputs, _quadrant),
    "numeric-conformance": (lambda: harness.Inputs(uniforms=dict(NUMERIC_UNIFORMS)), _uniform(GREEN)),
    "sampler-alias": (lambda: harness.Inputs(textures={"image": _green_texture()}), _uniform(GREEN)),
    "sampler-addressing": (
        lambda: harness.Inputs(uniforms={"coordinate": (0.5, 0.5)}, textures={"image": _green_texture()}),
        _uniform(GREEN),
    ),
    "sampler-lod": (
        lambda: harness.Inputs(
            uniforms={"show_vertex_sample": 0},
            textures={"image": _green_texture()},
            attributes={2: harness.FULL_SCREEN_TEXCOORDS},
        ),
        _uniform(GREEN),
    ),
    "math-ops": (harness.Inputs, _uniform(GREEN)),
    "hostile-names": (harness.Inputs, _uniform(GREEN)),
    "locations": (lambda: harness.Inputs(attributes={4: _vertex_colors((0.0, 1.0, 0.0, 1.0))}), _uniform(GREEN)),
}

#: Cases whose every declared vertex input, fragment output and uniform block must be active (used).
ALL_ACTIVE = {"locations", "record-array-uniforms"}


def test_every_golden_case_has_an_expectation() -> None:
    assert set(EXPECTATIONS) == set(CASES)


def _check_reflection(case_name: str, target: str, program: int) -> None:
    result = artifact(case_name, target)
    for binding in result.uniforms:
        if binding.block_binding < 0:
            continue
        size = harness.block_data_size(program, binding)
        if size is None:
            assert case_name not in ALL_ACTIVE, f"{binding.block_name} is inactive"
            continue  # optimized away; the binding point stays reserved (spec 12.5)
        # GL_UNIFORM_BLOCK_DATA_SIZE may omit std140's trailing padding (ANGLE reports 284 where
        # block_size says 288): hosts allocate block_size, and only driver <= block_size is promised.
        assert size <= binding.block_size, f"{binding.block_name}: driver size {size}, reflected {binding.block_size}"
        assert binding.block_size - size < 16, f"{binding.block_name}: more than padding apart"
        for selector, offset, _ in std140.member_offsets(binding.type):
            if any(f"[{index}]" in selector for index in range(1, 64)):
                continue  # GL reports offsets of the first array element only
            driver = harness.block_member_offset(program, f"{binding.block_name}.{selector}")
            if driver is not None:
                assert driver == offset, f"{binding.block_name}.{selector}: driver offset {driver}, std140 {offset}"
    for binding in result.vertex_interface:
        if binding.direction is not Direction.IN:
            continue
        location = GL.glGetAttribLocation(program, binding.gl_name_bytes)
        if case_name == "locations":
            assert location == binding.location, f"{binding.name}: driver {location}, reflected {binding.location}"
        else:
            assert location in (binding.location, -1), f"{binding.name}: driver {location}, reflected {binding.location}"
    for binding in result.fragment_interface:
        if binding.direction is not Direction.OUT:
            continue
        location = GL.glGetFragDataLocation(program, binding.gl_name_bytes)
        assert location == binding.location, f"{binding.name}: driver {location}, reflected {binding.location}"
    color = GL.glGetFragDataLocation(program, result.fragment_color_output.encode("ascii") + b"\0")
    assert color == result.fragment_color_location


@pytest.mark.gl
@pytest.mark.parametrize("case_name", sorted(EXPECTATIONS))
def test_glsl420_links_reflects_and_renders(case_name: str, current_gl: object) -> None:
    result = artifact(case_name, "glsl420")
    program = harness.build_program(result)
    try:
        _check_reflection(case_name, "glsl420", program)
    finally:
        GL.glDeleteProgram(program)
    make_inputs, check = EXPECTATIONS[case_name]
    check(harness.render(result, make_inputs()))


@pytest.mark.gl
@pytest.mark.parametrize("target", ["es300", "es320"])
@pytest.mark.parametrize("case_name", sorted(EXPECTATIONS))
def test_es_links_reflects_and_renders_like_glsl420(case_name: str, target: str, current_gles: object) -> None:
    result = artifact(case_name, target)
    program = harness.build_program(result, es=True)
    try:
        _check_reflection(case_name, target, program)
    finally:
        GL.glDeleteProgram(program)
    make_inputs, check = EXPECTATIONS[case_name]
    check(harness.render(result, make_inputs(), es=True))


# Sampler state and levels of detail ------------------------------------------------------------------


def _two_texel_texture(wrap: int) -> harness.Texture:
    pixels = np.array([[RED, GREEN]], dtype=np.uint8)  # one row: u in [0, 0.5) red, [0.5, 1) green
    return harness.Texture([pixels], wrap=wrap)


@pytest.mark.gl
@pytest.mark.parametrize(("wrap", "expected"), [(GL.GL_REPEAT, RED), (GL.GL_CLAMP_TO_EDGE, GREEN)])
@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
def test_texture_addressing_follows_sampler_state(
    target: str, wrap: int, expected: tuple[int, ...], request: pytest.FixtureRequest
) -> None:
    es = target != "glsl420"
    request.getfixturevalue("current_gles" if es else "current_gl")
    inputs = harness.Inputs(uniforms={"coordinate": (1.25, 0.5)}, textures={"image": _two_texel_texture(wrap)})
    pixels = harness.render(artifact("sampler-addressing", target), inputs, es=es)
    _uniform(expected)(pixels)


def _mip_texture() -> harness.Texture:
    colours = [RED, GREEN, BLUE, (255, 255, 0, 255), (255, 255, 255, 255)]
    levels = [harness.solid(16 >> level, 16 >> level, colour) for level, colour in enumerate(colours)]
    return harness.Texture(levels, min_filter=GL.GL_NEAREST_MIPMAP_NEAREST)


@pytest.mark.gl
@pytest.mark.parametrize(("show_vertex_sample", "expected"), [(0, BLUE), (1, RED)])
@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
def test_fragment_implicit_lod_uses_derivatives_vertex_uses_base_level(
    target: str, show_vertex_sample: int, expected: tuple[int, ...], request: pytest.FixtureRequest
) -> None:
    # 16x16 texels over 4x4 pixels: 4 texels per pixel, lambda = 2 (blue) in the
    # fragment stage; the vertex stage has no derivatives and samples level 0 (red).
    es = target != "glsl420"
    request.getfixturevalue("current_gles" if es else "current_gl")
    inputs = harness.Inputs(
        uniforms={"show_vertex_sample": show_vertex_sample},
        textures={"image": _mip_texture()},
        attributes={2: harness.FULL_SCREEN_TEXCOORDS},
    )
    pixels = harness.render(artifact("sampler-lod", target), inputs, size=4, es=es)
    _uniform(expected)(pixels)


@pytest.mark.gl
@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
@pytest.mark.parametrize("broken", sorted(NUMERIC_UNIFORMS))
def test_numeric_conformance_detects_wrong_inputs(target: str, broken: str, request: pytest.FixtureRequest) -> None:
    # The pass colour is not an accident: perturbing any input makes some check fail.
    es = target != "glsl420"
    request.getfixturevalue("current_gles" if es else "current_gl")
    uniforms = {**NUMERIC_UNIFORMS, broken: NUMERIC_BROKEN[broken]}
    pixels = harness.render(artifact("numeric-conformance", target), harness.Inputs(uniforms=uniforms), es=es)
    assert tuple(pixels[0, 0]) != GREEN and pixels[0, 0, 0] > 0, f"perturbed {broken}: {tuple(pixels[0, 0])}"


# Literals on the driver ----------------------------------------------------------------------------------------

#: binary32 values whose nine-digit spellings the driver must read back exactly (normal numbers only:
#: drivers may flush subnormals, spec 4.1).
LITERAL_FLOATS = [
    0.1, 1.0 / 3.0, 3.4028234663852886e38, -3.4028234663852886e38, 1.1754943508222875e-38, 16777216.0,
    -2.5, 1e10, 1e-10, 0.7, 123456.789, 2.0**-20, 6.02214076e23,
]
LITERAL_INTS = [-2147483648, 2147483647, -1, 0, 65536]


def _literal_module(perturbed: int | None = None) -> VerifiedModule:
    """Compare each uniform element with its literal; `perturbed` changes one literal (to see the test fail)."""

    module = Module()
    floats = add_uniform(module, "floats", ArrayType(FLOAT, len(LITERAL_FLOATS)))
    ints = add_uniform(module, "ints", ArrayType(INT, len(LITERAL_INTS)))
    vertex = StageBuilder(module.vertex)
    position = vertex.input("position", vec(3), 0)
    clip = vertex.output("clip", vec(4), semantic=Semantic.POSITION)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(clip, main.construct(vec(4), main.load(position), main.f(1.0)))
    main.ret()
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), 0, Semantic.FRAGMENT_COLOR)
    entry = fragment.function("fragment_main", VOID, entry=True)
    value = entry.register(FLOAT)
    integer = entry.register(INT)
    same = entry.register(BOOL)
    failure = entry.new_block()
    entry.position_at(failure)
    entry.store(color, entry.construct(vec(4), entry.f(1.0), entry.f(0.0), entry.f(0.0), entry.f(1.0)))
    entry.ret()
    entry.position_at(entry.entry)
    checks = [
        (floats, index, ConstantValue.of_float(number * (1.0 + 2.0**-20) if index == perturbed else number))
        for index, number in enumerate(LITERAL_FLOATS)
    ]
    checks += [(ints, index, ConstantValue.of_int(number)) for index, number in enumerate(LITERAL_INTS)]
    for storage, index, literal in checks:
        target = value if storage is floats else integer
        entry.load(element(storage, index), result=target)
        entry.binary(BinaryOperator.EQUAL, target, literal, result=same)
        following = entry.new_block()
        entry.branch_if(same, following, failure)
        entry.position_at(following)
    entry.store(color, entry.construct(vec(4), entry.f(0.0), entry.f(1.0), entry.f(0.0), entry.f(1.0)))
    entry.ret()
    return VerifiedModule.create(module)


@pytest.mark.gl
@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
def test_float_and_int_literals_reach_the_driver_bit_exact(target: str, request: pytest.FixtureRequest) -> None:
    es = target != "glsl420"
    request.getfixturevalue("current_gles" if es else "current_gl")
    result = compile_glsl(_literal_module(), target=target)
    assert "(-2147483647 - 1)" in result.fragment_code and "3.40282346e38" in result.fragment_code
    inputs = harness.Inputs(uniforms={"floats": np.array(LITERAL_FLOATS, dtype=np.float32), "ints": LITERAL_INTS})
    _uniform(GREEN)(harness.render(result, inputs, es=es))
    # One binary32 step away is visible: the comparison is exact, not approximate.
    perturbed = compile_glsl(_literal_module(perturbed=0), target=target)
    _uniform(RED)(harness.render(perturbed, inputs, es=es))


INTEGER_INPUT_WITHOUT_DATA = """(module 1
  (types (type V void) (type I int) (type B bool) (type P vector float 3) (type C vector float 4))
  (uniforms)
  (vertex main
    (interface (in position "position" P 0 none) (in count "count" I 1 none)
               (out clip "clip" C -1 position) (out passed "passed" I -1 none))
    (functions
      (function main "vertex_main" V (parameters) (registers (register r0 P) (register r1 C) (register r2 I))
        (block entry (load r0 (stage position)) (construct r1 r0 (float 1.0)) (store (stage clip) r1)
          (load r2 (stage count)) (store (stage passed) r2) (return)))))
  (fragment main
    (interface (in passed "passed" I -1 none) (out color "color" C 0 fragment_color))
    (functions
      (function main "fragment_main" V (parameters) (registers (register r0 I) (register r1 B) (register r2 C))
        (block entry (load r0 (stage passed)) (equal r1 r0 (int 0)) (branch_if r1 green red))
        (block green (construct r2 (float 0.0) (float 1.0) (float 0.0) (float 1.0)) (store (stage color) r2) (return))
        (block red (construct r2 (float 1.0) (float 0.0) (float 0.0) (float 1.0)) (store (stage color) r2) (return))))))
"""


@pytest.mark.gl
@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
def test_an_integer_vertex_input_without_data_reads_zero(target: str, request: pytest.FixtureRequest) -> None:
    """Host contract (issue 23 item 10): glVertexAttribI4i gives an int input without data its value.

    A float current value left by earlier drawing (here 1.5, whose bits read as
    an int are 1069547520) would otherwise reach the shader.
    """
    es = target != "glsl420"
    request.getfixturevalue("current_gles" if es else "current_gl")
    result = compile_source(INTEGER_INPUT_WITHOUT_DATA, "integer-input.vpl", target)
    (count,) = [binding for binding in result.vertex_interface if binding.name == "count"]
    GL.glVertexAttrib4f(count.location, 1.5, 1.5, 1.5, 1.5)  # stale state of another draw
    _uniform(GREEN)(harness.render(result, harness.Inputs(), es=es))
