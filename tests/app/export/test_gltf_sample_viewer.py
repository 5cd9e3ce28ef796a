"""Exported examples in the Khronos glTF Sample Viewer's renderer against the editor's preview (docs/interchange.md).

Each example is baked and written as `.glb`, drawn by the Sample Viewer's
engine in headless Chromium (tests/sample_viewer.py) and by the preview,
both on the studio environment alone (no key light), no tone mapping, sRGB
pixels, the default camera, at the same size. The mean absolute 8-bit
difference over the sphere's pixels must stay within a per-example
tolerance set from the measured figures (docs/interchange.md's table):
the two renderers differ by design in their image-based lighting (the
engine's cube maps and sample counts against the preview's equirect
prefilter, the base model's documented differences) and in what glTF
drops (jade's subsurface, car paint's coat darkening).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sample_viewer
from test_gltf import EXAMPLES

from app.export.bake import Baker, BakeSettings, apply_parameters
from app.export.gltf import export_gltf
from app.material.document import load_file
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.texture_passes import has_pass_nodes
from app.preview.camera import DEFAULT_DISTANCE, DEFAULT_FIELD_OF_VIEW
from app.preview.environment import bundled_environment_path
from app.preview.renderer import Renderer
from app.preview.stage import Stage
from app.preview.texture_passes_gl import schedule_for
from app.session.pass_programs import PassProgramCache

SIZE = 128
CASES = ("painted_metal", "car_paint", "glass", "velvet", "jade", "soap_bubble", "brushed_aluminium")

#: Largest mean 8-bit difference over the sphere between the preview and the Sample Viewer per example, about
#: 15 % above the measured figure (docs/interchange.md's table says what makes each): painted metal 6.6, car paint
#: 18.7, glass 30.3, velvet 15.2, jade 25.2, soap bubble 13.8, brushed aluminium 38.3.
TOLERANCE = {
    "painted_metal": 8.0,
    "car_paint": 21.5,
    "glass": 35.0,
    "velvet": 17.5,
    "jade": 29.0,
    "soap_bubble": 16.0,
    "brushed_aluminium": 44.0,
}

pytestmark = pytest.mark.skipif(sample_viewer.engine_path() is None, reason="run scripts/bootstrap.sh")


def preview_stage() -> Stage:
    """The preview's default stage with the key light off and no tone mapping: what the page sets up."""
    stage = Stage()
    stage.light_enabled = False
    stage.tone_mapper = "none"
    stage.background_color = (0.0, 0.0, 0.0)
    return stage


def preview_frame(graph: MaterialGraph, document_dir: Path, stage: Stage) -> np.ndarray:
    import rerender

    lowered = lower(graph)
    assert lowered.ok, lowered.diagnostics
    renderer = Renderer()
    try:
        stage.apply(renderer)
        renderer.set_mesh("sphere")
        maps, table = rerender.environment()
        renderer.set_environment_maps(maps)
        renderer.set_brdf_table(table)
        assert apply_parameters(renderer, lowered.parameters, graph, document_dir) == []
        passes = PassProgramCache.for_graph(graph).get("glsl420") if has_pass_nodes(graph) else None
        renderer.build_program(lowered.artifact, schedule_for(passes))
        return renderer.render_image(SIZE, SIZE)
    finally:
        renderer.release()


@pytest.fixture(scope="module")
def viewer_frames(gl_context: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Every case baked (256²), written as .glb and drawn by the Sample Viewer in one page (one environment load)."""
    gl_context.make_current()
    directory = tmp_path_factory.mktemp("sample-viewer")
    glbs = []
    for name in CASES:
        path = EXAMPLES / f"{name}.vpl"
        graph = load_file(path).graph
        assert graph is not None
        baker = Baker(graph, BakeSettings(size=256), document_dir=path.parent)
        glbs.append(export_gltf(baker.bake_material(), baker.mesh(), directory / f"{name}.glb", name)[0])
    environment = bundled_environment_path(preview_stage().environment)
    images, report = sample_viewer.render(glbs, SIZE, environment, distance=DEFAULT_DISTANCE, field_of_view=DEFAULT_FIELD_OF_VIEW)
    print(f"Sample Viewer: {report['renderer']}; steps {report['steps']}")
    return dict(zip(CASES, images)), report


@pytest.mark.webgl
@pytest.mark.parametrize("name", CASES)
def test_the_sample_viewer_draws_the_export_like_the_preview(
    current_gl: Any, viewer_frames: tuple[dict[str, np.ndarray], dict[str, Any]], name: str, record_property: Any
) -> None:
    import rerender

    path = EXAMPLES / f"{name}.vpl"
    viewer = viewer_frames[0][name]
    graph = load_file(path).graph
    assert graph is not None
    preview = preview_frame(graph, path.parent, preview_stage())
    covered = rerender.uv_image(SIZE)[:, :, 2] > 0.5  # the sphere's pixels
    assert covered.mean() > 0.3
    camera = viewer_frames[1]["cameras"][CASES.index(name)]
    assert camera["position"] == pytest.approx([0.0, 0.0, DEFAULT_DISTANCE], abs=1e-4), camera  # the preview's eye
    assert camera["target"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-4), camera
    if os.environ.get("VPL_SAMPLE_VIEWER_IMAGES"):
        from app.export.images import write_image

        write_image(Path(os.environ["VPL_SAMPLE_VIEWER_IMAGES"]) / f"{name}.png",
                    np.concatenate([preview, viewer], axis=1), "data")
    mean = float(np.abs(preview[:, :, :3].astype(float) - viewer[:, :, :3].astype(float))[covered].mean())
    record_property("mean_difference", mean)
    print(f"{name}: mean difference {mean:.2f}")
    assert mean <= TOLERANCE[name], mean
