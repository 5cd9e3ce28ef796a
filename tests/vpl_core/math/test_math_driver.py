"""Math operations evaluated by a real OpenGL driver, compared with numpy references.

Every program goes through the whole pipeline: generated VPL text -> `read`
(lexer, binding, verifier) -> `VerifiedModule` -> `glsl.compile(target=
"glsl420")` -> GL program on the driver (Mesa llvmpipe under Xvfb in CI),
rendering into GL_RGBA32F attachments that are read back as float32.

* `test_operation_on_the_gpu`: every operation with every accepted argument
  type combination (scalar, vector, broadcast-scalar, int, bool-vector,
  matrix, array, record forms) on a grid of edge inputs (`math_eval`),
  computed in the fragment stage; `test_operation_in_the_vertex_stage` the
  scalar and widest forms again in the vertex stage, one point per case.
* derivatives of values linear (and quadratic) in gl_FragCoord, in the entry
  and in a helper function;
* texture_lod picking (and blending) the requested mip level of a texture
  with a different colour per level, in both stages.
* every signature module of test_math_glsl compiles and links on the driver;
* the scalar and widest forms again through the ES 3.00 and 3.20 profiles on an
  OpenGL ES 3.2 context (`current_gles`).

Tolerances and the inputs that are not compared (GLSL leaves the result
undefined there) are in `math_eval` and docs/vpl-math-extension.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from math_eval import Evaluation, tolerance
from math_gl import Draw, MipTexture, build_program, render
from math_support import FRAGMENT_ONLY, MATH_OPERATIONS, TYPES, accepted_combinations
from OpenGL import GL
from test_math_glsl import operation_module, undefined_values_module
from test_math_text_typing import divergent_derivatives_module

from vpl_core.backends.glsl import ProgramArtifact, compile
from vpl_core.publish import VerifiedModule
from vpl_core.text import read

pytestmark = pytest.mark.gl

EVALUATED = [operation for operation in MATH_OPERATIONS if operation not in FRAGMENT_ONLY | {"texture_lod"}]
UNIVERSE = [text_type for key, text_type in TYPES.items() if key != "sampler2D"]
COMBINATIONS = [
    (operation, arguments, result)
    for operation in EVALUATED
    for arguments, result in accepted_combinations(operation, UNIVERSE)
]


def _id(combination: tuple[str, tuple[str, ...], str]) -> str:
    operation, arguments, _ = combination
    return f"{operation}({','.join(arguments)})"


def _artifact(text: str, label: str, target: str = "glsl420") -> ProgramArtifact:
    """The public pipeline: read (and verify) the text, publish, compile (GLSL 4.20 unless told otherwise)."""
    module = read(text, label=label)
    return compile(VerifiedModule.create(module, label=label), target=target)


def _gpu_lanes(outputs: dict[int, np.ndarray], lanes: int) -> np.ndarray:
    """(cases, lanes) from the one-row attachments, output 0 first."""
    rows = [outputs[location][0] for location in sorted(outputs)]
    return np.concatenate(rows, axis=1).astype(np.float64)[:, :lanes]


def _compare(evaluation: Evaluation, gpu: np.ndarray) -> None:
    expected = evaluation.reference()
    values = expected.values
    assert values.shape == gpu.shape, (values.shape, gpu.shape)
    undefined = np.broadcast_to(expected.undefined, values.shape)
    assert not np.isnan(values[~undefined]).any(), "the reference is NaN where GLSL defines the result"
    if evaluation.exact_lanes:
        allowed = np.zeros(values.shape)  # int and bool results are compared exactly
    else:
        allowed = np.broadcast_to(tolerance(evaluation.operation, _float_inputs(evaluation), values), values.shape)
    with np.errstate(invalid="ignore"):
        good = np.abs(gpu - values) <= allowed
        for alternative in expected.alternatives:
            good |= np.abs(gpu - alternative) <= allowed
    bad = ~good & ~undefined
    if bad.any():
        cases, lanes = np.nonzero(bad)
        report = []
        for case, lane in list(zip(cases, lanes))[:12]:
            operands = "; ".join(np.array2string(data[case], precision=9) for data in evaluation.inputs)
            report.append(
                f"case {case} lane {lane}: inputs {operands}: gpu {gpu[case, lane]!r}, "
                f"expected {values[case, lane]!r} (tolerance {allowed[case, lane]:.3g})"
            )
        pytest.fail(f"{bad.sum()} of {bad.size} lanes differ:\n" + "\n".join(report))
    compared = int((~undefined).sum())
    assert compared > 0


def _float_inputs(evaluation: Evaluation) -> list[np.ndarray]:
    return [data.astype(np.float64) for data in evaluation.inputs]


def _check(evaluation: Evaluation, target: str = "glsl420") -> None:
    text = evaluation.module_text()
    artifact = _artifact(text, f"{evaluation.operation}.vpl", target)
    draw = Draw(uniforms=evaluation.uniforms())
    if evaluation.stage == "vertex":
        count = evaluation.cases
        x = (np.arange(count, dtype=np.float32) + 0.5) / count * 2 - 1
        draw.attributes[0] = np.stack([x, np.zeros(count), np.zeros(count)], axis=1).astype(np.float32)
        draw.attributes[1] = np.arange(count, dtype=np.float32).reshape(count, 1)
        draw.points = True
    outputs = render(artifact, draw, width=evaluation.cases)
    assert len(outputs) == evaluation.output_count
    _compare(evaluation, _gpu_lanes(outputs, evaluation.lane_count))


@pytest.mark.parametrize(("operation", "arguments", "result"), COMBINATIONS, ids=map(_id, COMBINATIONS))
def test_operation_on_the_gpu(current_gl: object, operation: str, arguments: tuple[str, ...], result: str) -> None:
    _check(Evaluation(operation, arguments, result))


VERTEX_COMBINATIONS = [
    combination
    for operation in EVALUATED
    for combination in {
        (operation, *accepted_combinations(operation, UNIVERSE)[0]),
        (operation, *accepted_combinations(operation, UNIVERSE)[-1]),
    }
]


@pytest.mark.parametrize(
    ("operation", "arguments", "result"), sorted(VERTEX_COMBINATIONS), ids=map(_id, sorted(VERTEX_COMBINATIONS))
)
def test_operation_in_the_vertex_stage(
    current_gl: object, operation: str, arguments: tuple[str, ...], result: str
) -> None:
    _check(Evaluation(operation, arguments, result, stage="vertex"))


def test_evaluated_operations_cover_the_extension() -> None:
    covered = {operation for operation, _, _ in COMBINATIONS} | FRAGMENT_ONLY | {"texture_lod"}
    assert covered == set(MATH_OPERATIONS)


# Derivatives ------------------------------------------------------------------------------------

DERIVATIVES_MODULE = """
(module 1
  (extensions "math")
  (types
    (type Void void) (type Float float) (type Vec2 vector float 2) (type Vec3 vector float 3)
    (type Vec4 vector float 4))
  (uniforms)
  (vertex vmain
    (interface (in position "position" Vec3 0 none) (out clip "clip" Vec4 -1 position))
    (functions
      (function vmain "vertex_main" Void (parameters) (registers (register r0 Vec3) (register r1 Vec4))
        (block entry (load r0 (stage position)) (construct r1 r0 (float 1.0)) (store (stage clip) r1) (return)))))
  (fragment fmain
    (interface
      (in frag_coord "frag_coord" Vec4 -1 position)
      (out scalar "scalar" Vec4 0 fragment_color)
      (out dx "dx" Vec4 1 none)
      (out dy "dy" Vec4 2 none)
      (out width "width" Vec4 3 none)
      (out small "small" Vec4 4 none)
      (out quadratic "quadratic" Vec4 5 none))
    (functions
      (function fmain "fragment_main" Void (parameters)
        (registers
          (register r0 Vec4) (register r1 Float) (register r2 Float) (register r3 Float) (register r4 Float)
          (register r5 Float) (register r6 Float) (register r7 Vec4) (register r8 Vec4) (register r9 Vec2)
          (register r10 Vec3) (register r11 Vec2) (register r12 Vec3) (register r13 Float) (register r14 Float)
          (register r15 Float))
        (block entry
          (load r0 (stage frag_coord))
          (swizzle r1 r0 "x")
          (swizzle r2 r0 "y")
          // p = 3x + 2y: dfdx 3, dfdy 2, fwidth 5.
          (multiply r3 r1 (float 3.0))
          (multiply r4 r2 (float 2.0))
          (add r3 r3 r4)
          (dfdx r4 r3)
          (dfdy r5 r3)
          (fwidth r6 r3)
          (call r13 helper r3)
          (construct r7 r4 r5 r6 r13)
          (store (stage scalar) r7)
          // v = (3x + 2y, -x, y / 2, x + y): dfdx (3, -1, 0, 1), dfdy (2, 0, 0.5, 1).
          (multiply r4 r1 (float -1.0))
          (multiply r5 r2 (float 0.5))
          (add r6 r1 r2)
          (construct r8 r3 r4 r5 r6)
          (dfdx r7 r8)
          (store (stage dx) r7)
          (dfdy r7 r8)
          (store (stage dy) r7)
          (fwidth r7 r8)
          (store (stage width) r7)
          // vec2 and vec3 forms: dfdx (x, y) = (1, 0); dfdy (x, y, -4x).y = 1; fwidth (x, y, -4x).z = 4.
          (construct r9 r1 r2)
          (dfdx r11 r9)
          (multiply r4 r1 (float -4.0))
          (construct r10 r1 r2 r4)
          (dfdy r12 r10)
          (swizzle r5 r12 "y")
          (fwidth r12 r10)
          (swizzle r6 r12 "z")
          (construct r7 r11 r5 r6)
          (store (stage small) r7)
          // x * x: the derivative over a 2x2 quad or a pixel pair is 2x - 1 or 2x + 1.
          (multiply r14 r1 r1)
          (dfdx r15 r14)
          (construct r7 r15 r1 (float 0.0) (float 0.0))
          (store (stage quadratic) r7)
          (return)))
      (function helper "helper" Float (parameters (parameter value Float)) (registers (register r0 Float))
        (block entry (load r0 (parameter value)) (fwidth r0 r0) (return r0))))))
"""


def test_derivatives_of_linear_and_quadratic_functions(current_gl: object) -> None:
    artifact = _artifact(DERIVATIVES_MODULE, "derivatives.vpl")
    outputs = render(artifact, Draw(), width=8, height=8)
    expected = {
        0: (3.0, 2.0, 5.0, 5.0),  # dfdx, dfdy, fwidth, fwidth in a helper
        1: (3.0, -1.0, 0.0, 1.0),
        2: (2.0, 0.0, 0.5, 1.0),
        3: (5.0, 1.0, 0.5, 2.0),
        4: (1.0, 0.0, 1.0, 4.0),
    }
    for location, value in expected.items():
        np.testing.assert_allclose(outputs[location], np.broadcast_to(value, (8, 8, 4)), rtol=1e-5, atol=1e-5)
    quadratic = outputs[5]
    x = quadratic[..., 1]
    np.testing.assert_array_equal(x, np.broadcast_to(np.arange(8) + 0.5, (8, 8)))
    deviation = np.abs(quadratic[..., 0] - 2 * x)
    assert (deviation <= 1.0 + 1e-4).all(), deviation


# texture_lod -------------------------------------------------------------------------------------

TEXTURE_LOD_MODULE = """
(module 1
  (extensions "math")
  (types
    (type Void void) (type Float float) (type Int int) (type Vec2 vector float 2) (type Vec3 vector float 3)
    (type Vec4 vector float 4) (type Sampler sampler2D))
  (uniforms (scalar image "image" Sampler) (array lods "lods" Vec4 LODS))
  (vertex vmain
    (interface
      (in position "position" Vec3 0 none)
      (out clip "clip" Vec4 -1 position)
      (out level2 "level2" Vec4 1 none)
      (out level3 "level3" Vec4 2 none))
    (functions
      (function vmain "vertex_main" Void (parameters)
        (registers (register r0 Vec3) (register r1 Vec4) (register r2 Sampler) (register r3 Vec2))
        (block entry
          (load r0 (stage position))
          (construct r1 r0 (float 1.0))
          (store (stage clip) r1)
          (load r2 (uniform image))
          (construct r3 (float 0.5))
          (texture_lod r1 r2 r3 (float 2.0))
          (store (stage level2) r1)
          (texture_lod r1 r2 r3 (float 7.0))
          (store (stage level3) r1)
          (return)))))
  (fragment fmain
    (interface
      (in frag_coord "frag_coord" Vec4 -1 position)
      (in level2 "level2" Vec4 1 none)
      (in level3 "level3" Vec4 2 none)
      (out color "color" Vec4 0 fragment_color)
      (out vertex_level2 "vertex_level2" Vec4 1 none)
      (out vertex_level3 "vertex_level3" Vec4 2 none))
    (functions
      (function fmain "fragment_main" Void (parameters)
        (registers
          (register r0 Vec4) (register r1 Float) (register r2 Int) (register r3 Vec4) (register r4 Float)
          (register r5 Sampler) (register r6 Vec2))
        (block entry
          (load r0 (stage frag_coord))
          (swizzle r1 r0 "x")
          (float_to_int r2 r1)
          (load r3 (index_ref (uniform lods) r2))
          (swizzle r4 r3 "x")
          (load r5 (uniform image))
          (construct r6 (float 0.5))
          (texture_lod r0 r5 r6 r4)
          (store (stage color) r0)
          (load r0 (stage level2))
          (store (stage vertex_level2) r0)
          (load r0 (stage level3))
          (store (stage vertex_level3) r0)
          (return))))))
"""

# Level L (8 >> L texels square) is filled with (L, L * L, 1, 1): every level differs, and a
# blend of two levels is distinguishable from any single level.
LEVEL_COLOURS = np.array([[level, level * level, 1.0, 1.0] for level in range(4)], dtype=np.float32)
LODS = [0.0, 1.0, 2.0, 3.0, 0.4, 1.4, 1.6, 2.49, -1.0, 10.0, 1.25, 1.5, 2.75]


def _mip_texture(min_filter: int) -> MipTexture:
    levels = [np.broadcast_to(LEVEL_COLOURS[level], (8 >> level, 8 >> level, 4)).copy() for level in range(4)]
    return MipTexture(levels, min_filter=min_filter)


def _texture_lod(min_filter: int) -> dict[int, np.ndarray]:
    text = TEXTURE_LOD_MODULE.replace("LODS", str(len(LODS)))
    artifact = _artifact(text, "texture-lod.vpl")
    lods = np.zeros((len(LODS), 4), dtype=np.float32)
    lods[:, 0] = LODS
    draw = Draw(uniforms={"lods": lods}, textures={"image": _mip_texture(min_filter)})
    return render(artifact, draw, width=len(LODS))


def test_texture_lod_selects_the_nearest_level(current_gl: object) -> None:
    outputs = _texture_lod(GL.GL_NEAREST_MIPMAP_NEAREST)
    # OpenGL 4.5 section 8.14.3, NEAREST_MIPMAP_NEAREST: level 0 for lambda <= 1/2,
    # else ceil(lambda + 1/2) - 1, clamped to the last level.
    # At an exact half (lambda = 1.5) the rule gives level 1, but GL lets the LOD be kept with
    # limited precision and llvmpipe picks level 2 there: either neighbour is accepted.
    for position, lod in enumerate(LODS):
        level = 0 if lod <= 0.5 else min(3, int(np.ceil(lod + 0.5)) - 1)
        allowed = [level, level + 1] if lod > 0.5 and (lod - 0.5) % 1.0 == 0.0 else [level]
        assert any(
            np.array_equal(outputs[0][0][position], LEVEL_COLOURS[choice]) for choice in allowed
        ), (lod, outputs[0][0][position], allowed)
    # Vertex stage: explicit LODs 2 and 7 (clamped to level 3).
    np.testing.assert_array_equal(outputs[1][0], np.broadcast_to(LEVEL_COLOURS[2], (len(LODS), 4)))
    np.testing.assert_array_equal(outputs[2][0], np.broadcast_to(LEVEL_COLOURS[3], (len(LODS), 4)))


def test_texture_lod_blends_levels_linearly(current_gl: object) -> None:
    outputs = _texture_lod(GL.GL_LINEAR_MIPMAP_LINEAR)
    expected = []
    for lod in LODS:
        lod = min(max(lod, 0.0), 3.0)
        low = int(np.floor(lod))
        high = min(low + 1, 3)
        weight = lod - low
        expected.append((1 - weight) * LEVEL_COLOURS[low] + weight * LEVEL_COLOURS[high])
    # Drivers keep the LOD fraction with limited precision (8 bits is common): allow a
    # weight error of 1/64 times the colour difference between neighbouring levels (<= 5).
    np.testing.assert_allclose(outputs[0][0], np.array(expected), rtol=0, atol=5 / 64)


# Every signature compiles and links -----------------------------------------------------------------


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_every_signature_module_links_on_the_driver(current_gl: object, operation: str) -> None:
    artifact = _artifact(operation_module(operation), f"{operation}.vpl")
    program = build_program(artifact)
    GL.glDeleteProgram(program)


def test_undefined_constants_and_divergent_derivatives_link_on_the_driver(current_gl: object) -> None:
    """Valid modules whose results GLSL leaves undefined must still compile: constant folding may not reject them."""
    for label, text in (("undefined.vpl", undefined_values_module()), ("divergent.vpl", divergent_derivatives_module())):
        program = build_program(_artifact(text, label))
        GL.glDeleteProgram(program)


# OpenGL ES targets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["es300", "es320"])
@pytest.mark.parametrize(
    ("operation", "arguments", "result"), sorted(VERTEX_COMBINATIONS), ids=map(_id, sorted(VERTEX_COMBINATIONS))
)
def test_operation_on_an_es_driver(
    current_gles: object, target: str, operation: str, arguments: tuple[str, ...], result: str
) -> None:
    """The scalar and widest forms of every operation through the ES profiles, on an OpenGL ES 3.2 context."""
    _check(Evaluation(operation, arguments, result), target=target)
