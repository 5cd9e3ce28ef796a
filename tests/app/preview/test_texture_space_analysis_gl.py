"""Curvature, Ambient Occlusion, Edge Detect, Texture Levels and the histogram filters drawn by the GL pass
runner, against the numpy references (tests/analysis_filter_reference.py), every texel, the tile borders
included, and against the CPU interpreter's run of the same plan.

The plan is tests/analysis_filter_graphs.py's tiling run (256 x 256): a periodic height in a 16-bit buffer
(Curvature, Ambient Occlusion and Histogram Scan read it and write 16-bit), a mask and the texture
coordinates in 8-bit buffers; the material reads Curvature. The references read the input buffers GL
rendered.

Tolerances: the output's rounding (a half-float step, 2^-11 = 4.9e-4 on values up to 1, as GL may round
either way; or half an 8-bit step) plus 2e-5 of arithmetic. The CPU run renders its own input buffers, whose sines may differ from
GL's in the last half-float bit; Curvature amplifies that by its intensity (8 x 4.9e-4), so the two runs
agree within 5e-3 (16-bit) or one 8-bit step.

An 8-bit height (not used here) reads coarser on llvmpipe: its filtered reads between texels come back
rounded to 8 bits, which Curvature and Ambient Occlusion amplify (differences of up to 7/255 from the exact
result were measured): docs/texture-space.md advises 16-bit heights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from analysis_filter_graphs import FILTERS, FilterRun, border, node, periodic_height

from app.material.lowering import lower
from app.preview.renderer import Renderer
from app.preview.texture_passes_gl import schedule_for
from app.preview.thumbnails import FlatCamera, square_mesh
from app.session.pass_programs import PassProgramCache

#: A half-float step on values in [0.5, 1): GL may round a 16-bit output either way (llvmpipe truncates).
HALF_STEP = 2.0 ** -11


@pytest.fixture(scope="module")
def drawn(gl_context: Any) -> tuple[FilterRun, FilterRun]:
    """The plan drawn on GL (buffers read back) and run on the CPU."""
    gl_context.make_current()
    run = FilterRun(periodic_height, "8-bit", "tile", height_format="16-bit")
    sample = node(run.graph, "sample_texture")
    output = node(run.graph, "material_output")
    run.graph.connect(run.filters["curvature"], "out", sample, "texture")
    run.graph.connect(sample, "rgba", output, "base_color")
    lowered = lower(run.graph)
    assert lowered.ok, [d.message for d in lowered.diagnostics]
    programs = PassProgramCache.for_graph(run.graph).get("glsl420")
    assert programs is not None
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.camera = FlatCamera()  # type: ignore[assignment]  # the thumbnails' camera over the UV square, not an orbit camera
        renderer.build_program(lowered.artifact, schedule_for(programs))
        renderer.render_linear(16, 16)
        assert renderer.passes is not None
        run.buffers = {each.key: renderer.passes.read_pass(each.key) for each in run.plan.passes}
    finally:
        renderer.release()
    return run, FilterRun(periodic_height, "8-bit", "tile", height_format="16-bit").run_cpu()


@pytest.mark.parametrize("name", FILTERS)
def test_filter_on_gl_matches_the_reference_and_the_cpu(name: str, drawn: tuple[FilterRun, FilterRun]) -> None:
    gl, cpu = drawn
    got = gl.image(gl.filters[name])
    want = gl.expected(name)
    sixteen = gl.output_format(name) == "16-bit"
    tolerance = gl.tolerance(name) + (HALF_STEP if sixteen else 0.0)
    error = np.abs(got - want)
    edges = border(got)
    assert error[edges].max() <= tolerance, f"{name} at the tile border: {error[edges].max() * 255:.2f}/255"
    assert error.max() <= tolerance, f"{name}: worst {error.max() * 255:.2f}/255"
    assert np.ptp(got[..., :3]) > 0.2, name
    # The same plan on the CPU interpreter (its own input buffers, rendered by the interpreter).
    assert np.abs(got - cpu.image(cpu.filters[name])).max() <= (5e-3 if sixteen else 1.0 / 255.0 + 2e-5), name


