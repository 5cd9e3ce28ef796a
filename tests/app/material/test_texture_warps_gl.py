"""The warp and blur filters and the Tile Sampler on real OpenGL (the GL pass runner), against numpy.

The same graph as tests/app/material/test_texture_warps.py (float buffers,
256 x 256), drawn by the preview's GL runner and read back. Each filter is
compared with `tests/filters_b_reference.py` evaluated on the input buffers
GL itself rendered, and with the CPU interpreter's run of the same plan.
Tolerance 1e-3 everywhere, borders included (measured at most 3e-5 on
Mesa llvmpipe, whose bilinear filter computes its weights in binary32; GL
lets an implementation use as few as 8 bits of subtexel precision, which on
a sharp edge could cost up to 2^-9 per tap: a GPU like that would need a
looser bound).
"""

from __future__ import annotations

import filters_b_reference as reference
import numpy as np
from material_render import render_material
from test_texture_warps import FILTERS, SIZE, TILES, _reference, _scene

import app.material.catalog  # noqa: F401 - registers every node type (texture-space nodes included)
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.cpu_passes import run_plan_cpu
from app.preview.renderer import Renderer
from app.preview.texture_passes_gl import schedule_for
from app.preview.thumbnails import FlatCamera, square_mesh
from app.session.pass_programs import PassProgramCache

TOLERANCE = 1e-3


def _gl_buffers(graph: MaterialGraph) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every pass's buffer drawn by GL and by the CPU interpreter, row 0 at v = 0."""
    lowered = lower(graph)
    assert lowered.ok, [d.message for d in lowered.diagnostics]
    passes = PassProgramCache.for_graph(graph)
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.camera = FlatCamera()  # type: ignore[assignment]
        renderer.build_program(lowered.artifact, schedule_for(passes.get("glsl420")))
        renderer.render_linear(8, 8)
        plan = passes.plan
        assert plan is not None
        gl = {each.key: renderer.passes.read_pass(each.key)[::-1].astype(np.float64) for each in plan.passes}
        cpu = {key: image[::-1].astype(np.float64) for key, image in run_plan_cpu(plan).items()}
    finally:
        renderer.release()
    return gl, cpu


def test_warp_and_blur_filters_and_the_tile_sampler_agree_on_gl(current_gl: object) -> None:
    gl, cpu = _gl_buffers(_scene(FILTERS))
    _, colors, _ = reference.tile_sampler(SIZE, SIZE, **TILES)
    assert np.abs(gl["colors"] - colors).max() < TOLERANCE
    assert reference.seam_jump(gl["colors"][::-1]) <= 1.0
    flipped = {key: image[::-1] for key, image in gl.items()}  # `_reference` takes buffers top row first
    for node_id in FILTERS:
        expected = _reference(node_id, flipped)
        error = np.abs(gl[node_id] - expected)
        assert error.max() < TOLERANCE, (node_id, float(error.max()))
        border = np.concatenate([error[0], error[-1], error[:, 0], error[:, -1]])
        assert border.max() < TOLERANCE, node_id
        assert reference.seam_jump(gl[node_id]) <= 1.0, node_id
        assert np.abs(gl[node_id] - cpu[node_id]).max() < TOLERANCE, node_id


def test_the_tile_sampler_draws_directly_in_a_material(current_gl: object) -> None:
    """No buffer: the generator runs per pixel (64 x 64 screen pixels over the UV square), anti-aliased over
    one pixel by fwidth(uv), as in a buffer. Each output: pattern, random colour, random grey."""
    tiles = {**TILES, "shape": "brick", "x_amount": 3, "y_amount": 5, "seed": 100}
    expected = dict(zip(("pattern", "color", "grey"), reference.tile_sampler(64, 64, **tiles), strict=True))
    for output, image in expected.items():
        graph = MaterialGraph()
        graph.add_node("tile_sampler", node_id="tiles", properties=tiles)
        graph.add_node("material_output", node_id="out")
        graph.connect("tiles", output, "out", "base_color")
        pixels = render_material(lower(graph), 64, "glsl420")  # row 0 at the bottom: v = 0
        assert np.abs(pixels[..., :3] - image[..., :3]).max() < TOLERANCE, output
        assert image[..., :3].max() > 0.5 and reference.seam_jump(pixels) <= 1.0, output
    # Per tile the grey id is one value: at least as many distinct values as whole tiles (15) less repeats.
    assert len(np.unique(np.round(expected["grey"][..., 0], 4))) > 8
