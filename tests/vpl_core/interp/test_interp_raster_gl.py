"""The rasteriser against the driver: which pixels a triangle covers, and the interpolated values there.

Vertices are drawn on a half-pixel grid of window positions, so pixel
centres often lie exactly on edges and corners, where only the ownership
rule decides; w varies per vertex, so interpolation is perspective-correct
or wrong. Coverage must be identical to Mesa's; interpolated texture
coordinates must agree to within a few binary32 ULPs of their range.
"""

from __future__ import annotations

import numpy as np
import pytest
from gl_float import FLOAT_SENTINEL, render_outputs
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.interp import MeshData, Program, render
from vpl_core.publish import VerifiedModule

pytestmark = pytest.mark.gl

WIDTH, HEIGHT = 12, 10
#: Clip-space positions straight from a vec4 attribute (so w varies per vertex), texture coordinates interpolated.
TEXT = """(module 1
  (types (type Void void) (type Vec2 vector float 2) (type Vec4 vector float 4))
  (uniforms)
  (vertex vmain
    (interface (in position "position" Vec4 0 none) (in texcoord "texcoord" Vec2 2 texcoord)
               (out clip "clip" Vec4 -1 position) (out uv "uv" Vec2 -1 texcoord))
    (functions (function vmain "vertex_main" Void (parameters) (registers (register r0 Vec4) (register r1 Vec2))
      (block entry (load r0 (stage position)) (store (stage clip) r0) (load r1 (stage texcoord)) (store (stage uv) r1) (return)))))
  (fragment fmain
    (interface (in uv "uv" Vec2 -1 texcoord) (out color "color" Vec4 0 fragment_color))
    (functions (function fmain "fragment_main" Void (parameters) (registers (register r0 Vec2) (register r1 Vec4))
      (block entry (load r0 (stage uv)) (construct r1 r0 (float 0.0) (float 1.0)) (store (stage color) r1) (return))))))"""
VERIFIED = VerifiedModule.from_text(TEXT, "coverage.vpl")
PROGRAM = Program.from_verified(VERIFIED)
ARTIFACT = compile_glsl(VERIFIED)

window_x = st.integers(-2, 2 * WIDTH + 2).map(lambda half: half / 2.0)
window_y = st.integers(-2, 2 * HEIGHT + 2).map(lambda half: half / 2.0)


def _compare(mesh: MeshData) -> None:
    cpu = render(PROGRAM, mesh, WIDTH, HEIGHT, depth_test=False)
    gpu = render_outputs(ARTIFACT, WIDTH, HEIGHT, mesh=mesh)[0]
    gpu_written = ~np.all(gpu == FLOAT_SENTINEL, axis=-1)
    assert (cpu.written == gpu_written).all(), f"coverage differs:\ninterpreter\n{cpu.written.astype(int)}\ndriver\n{gpu_written.astype(int)}"
    np.testing.assert_allclose(cpu.color[cpu.written][:, :2], gpu[gpu_written][:, :2], atol=1e-4, rtol=1e-4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(corners=st.lists(st.tuples(window_x, window_y, st.sampled_from([1.0, 0.5, 2.0, 3.0])), min_size=3, max_size=3))
# A vertex below the window: the driver clips the triangle to the view volume (y >= -w), and the new vertex,
# snapped on its own, moves the edge off the pixel centre (2.5, 0.5) that lay exactly on it.
@example(corners=[(0.0, 0.0, 1.0), (0.0, -1.0, 1.0), (5.0, 2.0, 1.0)])
def test_coverage_and_interpolation_match_the_driver(corners: list[tuple[float, float, float]], current_gl: object) -> None:
    positions = np.array([[(x / WIDTH * 2 - 1) * w, (y / HEIGHT * 2 - 1) * w, 0.0, w] for x, y, w in corners], dtype=np.float32)
    texcoords = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    _compare(MeshData({0: positions, 2: texcoords}, np.array([[0, 1, 2]])))


def test_edge_ownership_matches_the_driver(current_gl: object) -> None:
    # A square whose four edges run through pixel centres, split along either diagonal, in both windings.
    low, high = 2.5 / WIDTH * 2 - 1, 6.5 / WIDTH * 2 - 1
    low_y, high_y = 2.5 / HEIGHT * 2 - 1, 6.5 / HEIGHT * 2 - 1
    positions = np.array([[low, low_y, 0, 1], [high, low_y, 0, 1], [high, high_y, 0, 1], [low, high_y, 0, 1]], dtype=np.float32)
    texcoords = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    for triangles in ([[0, 1, 2], [0, 2, 3]], [[0, 2, 1], [0, 3, 2]], [[1, 2, 3], [1, 3, 0]], [[1, 3, 2], [1, 0, 3]]):
        _compare(MeshData({0: positions, 2: texcoords}, np.array(triangles)))
