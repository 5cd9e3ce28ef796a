"""The interpreter's meaning of VPL, on hand-written modules with hand-computed results (spec 3.2, 4.1, 5-8).

Each expected value is worked out from the specification (and GLSL 4.20
for the math extension), not from the interpreter: int32 wrap-around and
truncating division, binary32 rounding, control flow that differs per
pixel (loops with per-pixel trip counts, early returns, discards in
helpers), calls with by-value aggregates, nested storage paths with dynamic
indices, derivatives over 2x2 quads (helper lanes included), and the
interpreter's handling of what it cannot run.
"""

from __future__ import annotations

import numpy as np
import pytest
from interp_support import color, fragment_module, run

from vpl_core.interp import InterpreterError, MeshData, Program, Texture2D, fullscreen_mesh, render
from vpl_core.publish import VerifiedModule

INTS = '(out ints "ints" IVec4 1 none)'


def test_int32_arithmetic_wraps_and_division_truncates() -> None:
    text = fragment_module(
        "(register r0 Int) (register r1 Int) (register r2 Int) (register r3 Int) (register r4 IVec4) (register r5 Vec4)",
        """(copy r0 (int 2147483647)) (add r0 r0 (int 1))
           (copy r1 (int 65536)) (multiply r1 r1 r1)
           (copy r2 (int -7)) (divide r2 r2 (int 2))
           (copy r3 (int -2147483648)) (negate r3 r3)
           (construct r4 r0 r1 r2 r3) (store (stage ints) r4)
           (construct r5 (float 0.0)) (store (stage color) r5) (return)""",
        outputs=INTS)
    ints = np.asarray(run(text).outputs["ints"])
    assert ints.dtype == np.int32
    assert ints[0, 0].tolist() == [-(2**31), 0, -3, -(2**31)]


def test_float_arithmetic_is_binary32() -> None:
    text = fragment_module(
        "(register r0 Float) (register r1 Float) (register r2 Int) (register r3 Float) (register r4 Float) (register r5 Vec4)",
        """(copy r0 (float 0.1)) (add r0 r0 (float 0.2))
           (copy r2 (int 16777217)) (construct r1 r2)
           (copy r3 (float 1.0)) (divide r3 r3 (float 3.0))
           (copy r4 (float 16777216.0)) (add r4 r4 (float 1.0))
           (construct r5 r0 r1 r3 r4) (store (stage color) r5) (return)""")
    pixel = color(text)[0, 0]
    expected = [np.float32(0.1) + np.float32(0.2), np.float32(16777216.0), np.float32(1.0) / np.float32(3.0), np.float32(16777216.0)]
    assert [float(value) for value in pixel] == [float(value) for value in expected]


def test_a_loop_runs_a_different_number_of_times_per_pixel() -> None:
    # The trip count is the pixel's column (x of gl_FragCoord is column + 0.5).
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float) (register r2 Int) (register r3 Int) (register r4 Float) (register r5 Bool) (register r6 Vec4)",
        """(load r0 (stage frag_coord)) (swizzle r1 r0 "x") (float_to_int r2 r1)
           (copy r3 (int 0)) (copy r4 (float 0.0)) (branch test)""",
        blocks="""(block test (less r5 r3 r2) (branch_if r5 body done))
                  (block body (add r4 r4 (float 1.0)) (add r3 r3 (int 1)) (branch test))
                  (block done (construct r6 r4 (float 0.0) (float 0.0) (float 1.0)) (store (stage color) r6) (return))""")
    frame = color(text, 5, 2)
    assert frame[..., 0].tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0]] * 2


DISCARDING_HELPER = """
      (function keep "keep_or_discard" Float (parameters (parameter x Float))
        (registers (register r0 Float) (register r1 Bool))
        (block entry (load r0 (parameter x)) (less r1 r0 (float 2.0)) (branch_if r1 drop keep))
        (block drop (discard))
        (block keep (multiply r0 r0 (float 2.0)) (return r0)))"""


def test_discard_in_a_helper_abandons_the_fragment() -> None:
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float) (register r2 Float) (register r3 Vec4)",
        """(load r0 (stage frag_coord)) (swizzle r1 r0 "x") (call r2 keep r1)
           (construct r3 r2 (float 1.0) (float 1.0) (float 1.0)) (store (stage color) r3) (return)""",
        functions=DISCARDING_HELPER)
    result = run(text, 4, 1)
    assert result.written[0].tolist() == [False, False, True, True]
    assert result.color[0, 2:, 0].tolist() == [5.0, 7.0]  # 2 * (column + 0.5)
    assert result.color[0, :2].tolist() == [[0.0, 0.0, 0.0, 0.0]] * 2  # the background


def test_early_return_from_a_helper_inside_a_loop() -> None:
    helper = """
      (function first "first_over" Int (parameters (parameter limit Int))
        (registers (register r0 Int) (register r1 Int) (register r2 Bool))
        (block entry (load r1 (parameter limit)) (copy r0 (int 0)) (branch test))
        (block test (less r2 r0 (int 100)) (branch_if r2 body done))
        (block body (multiply r0 r0 (int 1)) (add r0 r0 (int 1)) (greater r2 r0 r1) (branch_if r2 found test))
        (block found (return r0))
        (block done (return (int -1))))"""
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float) (register r2 Int) (register r3 Int) (register r4 IVec4) (register r5 Vec4)",
        """(load r0 (stage frag_coord)) (swizzle r1 r0 "x") (float_to_int r2 r1) (multiply r2 r2 (int 10))
           (call r3 first r2) (construct r4 r3 r2 (int 0) (int 0)) (store (stage ints) r4)
           (construct r5 (float 0.0)) (store (stage color) r5) (return)""",
        functions=helper, outputs=INTS)
    ints = np.asarray(run(text, 4, 1).outputs["ints"])
    assert ints[0, :, 0].tolist() == [1, 11, 21, 31]


def test_helpers_write_outputs_and_their_own_parameters() -> None:
    types = "(type Floats array Float 3)"
    helper = """
      (function bump "bump" Float (parameters (parameter values Floats))
        (registers (register r0 Float) (register r1 Vec4))
        (block entry
          (store (index_ref (parameter values) (int 1)) (float 40.0))
          (load r0 (index_ref (parameter values) (int 1)))
          (construct r1 r0 (float 0.5) (float 0.5) (float 1.0))
          (store (stage color) r1)
          (return r0)))"""
    text = fragment_module(
        "(register r0 Floats) (register r1 Float) (register r3 Vec4)",
        """(construct r0 (float 1.0) (float 2.0) (float 3.0))
           (construct r3 (float 0.0)) (store (stage color) r3)
           (call r1 bump r0) (return)""",
        types=types, functions=helper)
    assert color(text, 2, 1)[0, 0].tolist() == [40.0, 0.5, 0.5, 1.0]  # the helper's output write is visible


def test_callers_arrays_are_not_changed_by_a_callee() -> None:
    types = "(type Floats array Float 3)"
    helper = """
      (function clobber "clobber" Void (parameters (parameter values Floats))
        (registers)
        (block entry (store (index_ref (parameter values) (int 1)) (float 40.0)) (return)))"""
    text = fragment_module(
        "(register r0 Floats) (register r1 Float) (register r2 Vec4)",
        """(construct r0 (float 1.0) (float 2.0) (float 3.0)) (call void clobber r0) (index r1 r0 (int 1))
           (construct r2 r1) (store (stage color) r2) (return)""",
        types=types, functions=helper)
    assert color(text, 1, 1)[0, 0, 0] == 2.0


def test_nested_storage_paths_with_dynamic_indices() -> None:
    types = """(type Floats array Float 3) (type Cell record "Cell" (field "tint" Vec4) (field "values" Floats))
               (type Cells array Cell 2)"""
    # Pixel column c writes 10 + c into cells[c % 2].values[c % 3] and reads it back through another path.
    text = fragment_module(
        """(register r0 Vec4) (register r1 Float) (register r2 Int) (register r3 Int) (register r4 Int) (register r5 Floats)
           (register r6 Cell) (register r7 Cells) (register r8 Float) (register r9 Float) (register r10 Vec4) (register r11 Int)""",
        """(load r0 (stage frag_coord)) (swizzle r1 r0 "x") (float_to_int r2 r1)
           (divide r11 r2 (int 2)) (multiply r11 r11 (int 2)) (subtract r3 r2 r11)
           (divide r11 r2 (int 3)) (multiply r11 r11 (int 3)) (subtract r4 r2 r11)
           (construct r5 (float 0.0) (float 0.0) (float 0.0)) (construct r10 (float 0.0)) (construct r6 r10 r5)
           (construct r7 r6 r6)
           (construct r8 r2) (add r8 r8 (float 10.0))
           (store (index_ref (member_ref (index_ref (local r7) r3) "values") r4) r8)
           (index r6 r7 r3) (member r5 r6 "values") (index r9 r5 r4)
           (construct r10 r9 (float 0.0) (float 0.0) (float 1.0)) (store (stage color) r10) (return)""",
        types=types)
    assert color(text, 6, 1)[0, :, 0].tolist() == [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]


def test_select_and_bool_mix_of_aggregates() -> None:
    types = '(type Pair record "Pair" (field "a" Float) (field "b" Vec2))'
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float) (register r2 Bool) (register r3 Pair) (register r4 Pair) (register r5 Pair) (register r6 Vec2) (register r7 Vec4)",
        """(load r0 (stage frag_coord)) (swizzle r1 r0 "x") (less r2 r1 (float 1.0))
           (construct r6 (float 1.0) (float 2.0)) (construct r3 (float 3.0) r6)
           (construct r6 (float 5.0)) (construct r4 (float 4.0) r6)
           (select r5 r2 r3 r4) (member r1 r5 "a") (member r6 r5 "b")
           (construct r7 r1 r6 (float 1.0)) (store (stage color) r7) (return)""",
        types=types)
    frame = color(text, 2, 1)
    assert frame[0, 0].tolist() == [3.0, 1.0, 2.0, 1.0] and frame[0, 1].tolist() == [4.0, 5.0, 5.0, 1.0]


def test_derivatives_are_differences_within_2x2_quads() -> None:
    # p = x^2 + 3y: dfdx over a pixel pair (2k + 0.5, 2k + 1.5) is 4k + 2; dfdy is 3.
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float) (register r2 Float) (register r3 Float) (register r4 Float) (register r5 Float) (register r6 Vec4)",
        """(load r0 (stage frag_coord)) (swizzle r1 r0 "x") (swizzle r2 r0 "y")
           (multiply r3 r1 r1) (multiply r2 r2 (float 3.0)) (add r3 r3 r2)
           (dfdx r4 r3) (dfdy r5 r3) (fwidth r1 r3)
           (construct r6 r4 r5 r1 (float 1.0)) (store (stage color) r6) (return)""")
    frame = color(text, 6, 2)
    assert frame[0, :, 0].tolist() == [2.0, 2.0, 6.0, 6.0, 10.0, 10.0]
    assert (frame[..., 1] == 3.0).all()
    np.testing.assert_array_equal(frame[..., 2], frame[..., 0] + 3.0)


def test_helper_lanes_give_derivatives_at_triangle_edges() -> None:
    # One small triangle: most of its quads are partly outside; dfdx of the interpolated uv is still the slope.
    text = fragment_module(
        "(register r0 Vec2) (register r1 Vec2) (register r2 Vec4)",
        """(load r0 (stage uv)) (dfdx r1 r0) (construct r2 r1 (float 0.0) (float 1.0)) (store (stage color) r2) (return)""")
    program = Program.from_verified(VerifiedModule.from_text(text, "edge.vpl"))
    positions = np.array([[-0.9, -0.9, 0.0], [0.1, -0.9, 0.0], [-0.9, 0.1, 0.0]], dtype=np.float32)
    texcoords = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 4.0]], dtype=np.float32)  # du/dx = 8 / (0.5 * 20) = 0.8 per pixel
    mesh = MeshData({0: positions, 2: texcoords}, np.array([[0, 1, 2]]))
    result = render(program, mesh, 20, 20, depth_test=False)
    drawn = result.color[result.written]
    assert len(drawn) > 10
    np.testing.assert_allclose(drawn[:, 0], 0.8, rtol=1e-5)
    np.testing.assert_allclose(drawn[:, 1], 0.0, atol=1e-5)


def test_an_unbound_sampler_reads_opaque_black() -> None:
    text = fragment_module(
        "(register r0 Sampler) (register r1 Vec2) (register r2 Vec4)",
        """(load r0 (uniform image)) (load r1 (stage uv)) (texture r2 r0 r1) (store (stage color) r2) (return)""",
        uniforms='(scalar image "image" Sampler)')
    assert color(text, 2, 2)[0, 0].tolist() == [0.0, 0.0, 0.0, 1.0]


def test_uniforms_by_name_and_their_errors() -> None:
    types = '(type Light record "Light" (field "tint" Vec4) (field "power" Float))'
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float) (register r2 Vec4)",
        """(load r0 (member_ref (uniform light) "tint")) (load r1 (member_ref (uniform light) "power"))
           (multiply r2 r0 r1) (store (stage color) r2) (return)""",
        types=types, uniforms='(record light "light" Light)')
    frame = color(text, 1, 1, uniforms={"light": {"tint": [1.0, 0.5, 0.25, 1.0], "power": 2.0}})
    assert frame[0, 0].tolist() == [2.0, 1.0, 0.5, 2.0]
    assert color(text, 1, 1)[0, 0].tolist() == [0.0, 0.0, 0.0, 0.0]  # unset uniforms are zero, as GL's
    with pytest.raises(InterpreterError, match="no uniform 'lamp'"):
        run(text, uniforms={"lamp": 1.0})
    with pytest.raises(InterpreterError, match=r"uniform 'light'.*4 components"):
        run(text, uniforms={"light": {"tint": [1.0, 0.5], "power": 2.0}})
    with pytest.raises(InterpreterError, match="no field 'colour'"):
        run(text, uniforms={"light": {"colour": [1.0, 0.5, 0.25, 1.0]}})


def test_runaway_loops_hit_the_step_limit() -> None:
    text = fragment_module(
        "(register r0 Vec4) (register r1 Bool)",
        "(construct r0 (float 1.0)) (store (stage color) r0) (copy r1 (bool true)) (branch spin)",
        blocks="(block spin (branch_if r1 spin done)) (block done (return))")
    program = Program.from_verified(VerifiedModule.from_text(text, "spin.vpl"))
    with pytest.raises(InterpreterError, match="did not finish within 500 block executions"):
        render(program, fullscreen_mesh(), 2, 2, step_limit=500)


def test_only_verified_modules_run() -> None:
    with pytest.raises(TypeError, match="VerifiedModule"):
        Program.from_verified("(module 1 ...)")  # type: ignore[arg-type]


def test_frame_size_and_mesh_errors() -> None:
    text = fragment_module("(register r0 Vec4)", "(construct r0 (float 1.0)) (store (stage color) r0) (return)")
    program = Program.from_verified(VerifiedModule.from_text(text, "plain.vpl"))
    with pytest.raises(InterpreterError, match="positive"):
        render(program, fullscreen_mesh(), 0, 4)
    with pytest.raises(InterpreterError, match="outside the vertex range"):
        render(program, MeshData({0: np.zeros((3, 3), dtype=np.float32)}, np.array([[0, 1, 5]])), 2, 2)


def test_depth_test_keeps_the_nearest_fragment_and_discards_show_what_is_behind() -> None:
    # Two full-screen triangles: the first at window depth 0.5 (z = 0), the second nearer (z = -0.5: 0.25).
    # The near one's fragments discard in the left half (x < 2), where the far one then shows.
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float) (register r2 Bool) (register r3 Vec4) (register r4 Float)",
        """(load r0 (stage frag_coord)) (swizzle r4 r0 "z") (swizzle r1 r0 "x")
           (construct r3 r4 (float 0.0) (float 0.0) (float 1.0)) (store (stage color) r3)
           (less r2 r4 (float 0.4)) (branch_if r2 near done)""",
        blocks="""(block near (less r2 r1 (float 2.0)) (branch_if r2 drop done))
                  (block drop (discard))
                  (block done (return))""")
    program = Program.from_verified(VerifiedModule.from_text(text, "depth.vpl"))
    quad = np.array([[-1, -1, 0], [3, -1, 0], [-1, 3, 0], [-1, -1, -0.5], [3, -1, -0.5], [-1, 3, -0.5]], dtype=np.float32)
    mesh = MeshData({0: quad}, np.array([[0, 1, 2], [3, 4, 5]]))
    frame = render(program, mesh, 4, 1, depth_test=True).color
    assert frame[0, :, 0].tolist() == [0.5, 0.5, 0.25, 0.25]
    # Without the depth test the last triangle wins where it does not discard.
    frame = render(program, mesh, 4, 1, depth_test=False).color
    assert frame[0, :, 0].tolist() == [0.5, 0.5, 0.25, 0.25]


def test_textures_are_sampled_with_their_state() -> None:
    from vpl_core.interp import SamplerState
    from vpl_core.interp.texture import Filter, Wrap

    image = np.zeros((2, 2, 4), dtype=np.uint8)
    image[..., 3] = 255
    image[0, 0, 0] = 255  # top left red; texcoord v = 0 is the bottom row
    image[1, 1, 1] = 255  # bottom right green
    text = fragment_module(
        "(register r0 Sampler) (register r1 Vec2) (register r2 Vec4)",
        """(load r0 (uniform image)) (load r1 (stage uv)) (texture_lod r2 r0 r1 (float 0.0)) (store (stage color) r2) (return)""",
        uniforms='(scalar image "image" Sampler)')
    nearest = Texture2D.from_image(image, mipmaps=False, sampler=SamplerState(Wrap.REPEAT, Wrap.REPEAT, Filter.NEAREST, Filter.NEAREST))
    frame = color(text, 2, 2, uniforms={"image": nearest})
    assert frame[0, 0].tolist() == [1.0, 0.0, 0.0, 1.0] and frame[1, 1].tolist() == [0.0, 1.0, 0.0, 1.0]
    linear = Texture2D.from_image(image, mipmaps=False, sampler=SamplerState(Wrap.CLAMP_TO_EDGE, Wrap.CLAMP_TO_EDGE, Filter.LINEAR, Filter.LINEAR))
    frame = color(text, 4, 4, uniforms={"image": linear})
    # Pixel (1, 1) from the top samples uv = (0.375, 0.625): texel space (0.75, 1.25), weights 1/4 to the left column.
    np.testing.assert_allclose(frame[1, 1, :2], [0.75 * 0.75, 0.25 * 0.25], rtol=1e-6)


def test_precision_tracking_marks_branches_that_could_go_either_way() -> None:
    # 0.1 * 3 is 0.3 to within a few ULP: whether it is less than 0.3 is not fixed by GLSL's precision.
    text = fragment_module(
        "(register r0 Float) (register r1 Bool) (register r2 Vec4)",
        """(copy r0 (float 0.1)) (multiply r0 r0 (float 3.0)) (less r1 r0 (float 0.3))
           (construct r2 (float 1.0)) (store (stage color) r2) (branch_if r1 a b)""",
        blocks="(block a (return)) (block b (return))")
    result = run(text, 2, 2, tracked=True)
    assert result.unstable is not None and result.unstable.all()
    steady = run(text.replace("(float 0.3)", "(float 0.5)"), 2, 2, tracked=True)
    assert steady.unstable is not None and not steady.unstable.any()


def test_values_too_large_for_the_interpreter_are_refused() -> None:
    text = fragment_module(
        "(register r0 Vec4) (register r1 Float)",
        "(load r1 (index_ref (uniform huge) (int 5))) (construct r0 r1) (store (stage color) r0) (return)",
        types="(type Huge array Float 4000000000)", uniforms='(array huge "huge" Float 4000000000)')
    with pytest.raises(InterpreterError, match="largest value has 4000000000 components"):
        run(text)
    # A value that fits one quad but not a whole frame at once runs in batches.
    batched = fragment_module(
        "(register r0 Vec4) (register r1 Float)",
        "(load r1 (index_ref (uniform big) (int 5))) (construct r0 r1) (store (stage color) r0) (return)",
        uniforms='(array big "big" Float 1000000)')
    assert (color(batched, 16, 16) == 0.0).all()
