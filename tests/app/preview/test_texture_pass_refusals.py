"""A refused texture-space node takes down only itself and what reads it, on real OpenGL.

A Blur fed by a constant is refused (a filter reads buffers). Bricks, the
Texture Buffer of the bricks and a good Blur of it are unrelated: their
thumbnails are drawn as in the same graph without the refused node (the
reference: the thumbnails of that graph, pixel for pixel); the refused node
shows its own reason, a node reading it "depends on a node that has a
problem". The material's preview: a refused node nothing of the output reads
leaves the material and its passes as they are; one the output reads is an
error of the material (no module to draw, the preview keeps its last picture).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

import app.material.catalog  # noqa: F401 - registers every node type (texture-space nodes included)
from app.material.graph import MaterialGraph
from app.material.node_previews import material_output_name, structure_key
from app.material.texture_passes import DEPENDS_ON_A_PROBLEM, pass_sampler_name
from app.preview import thumbnails
from app.preview.context import DEFAULT_PROFILE
from app.preview.renderer import Renderer
from app.preview.texture_passes_gl import schedule_for
from app.preview.thumbnails import ThumbnailBatch, ThumbnailJob, ThumbnailService, square_mesh
from app.session.pass_programs import PassProgramCache
from app.session.session import EditorSession

pytestmark = pytest.mark.gl

REFUSED = "is not a texture-space node"


def bricks_graph(refused: bool) -> MaterialGraph:
    """Bricks -> 256² buffer -> Blur -> sampled -> base colour; with `refused`, also a Blur of a constant ('bad')
    and a Height to Normal of it ('after'), neither read by the output."""
    graph = MaterialGraph()
    graph.add_node("bricks", node_id="bricks")
    graph.add_node("texture_buffer", node_id="mask", properties={"resolution": "256", "format": "8-bit"})
    graph.add_node("blur", node_id="blur", properties={"radius": 0.01})
    graph.add_node("sample_texture", node_id="read")
    graph.add_node("material_output", node_id="out")
    graph.connect("bricks", "mask", "mask", "input")
    graph.connect("mask", "out", "blur", "image")
    graph.connect("blur", "out", "read", "texture")
    graph.connect("read", "rgba", "out", "base_color")
    if refused:
        graph.add_node("constant_float", node_id="constant", properties={"value": 0.5})
        graph.add_node("blur", node_id="bad")
        graph.add_node("height_to_normal", node_id="after")
        graph.connect("constant", "out", "bad", "image")
        graph.connect("bad", "out", "after", "height")
    return graph


def pixels(image: QImage) -> np.ndarray:
    rgba = image.convertToFormat(QImage.Format.Format_RGBA8888)
    return np.frombuffer(rgba.constBits(), np.uint8, rgba.sizeInBytes()).reshape(
        rgba.height(), rgba.bytesPerLine())[:, :rgba.width() * 4].copy()


def thumbnails_of(qapp, graph: MaterialGraph) -> tuple[dict[str, np.ndarray], ThumbnailBatch]:
    output = material_output_name(graph)
    job = ThumbnailJob(1, graph, structure_key(graph, output), output, tuple(sorted(graph.nodes)),
                       fingerprints={node: f"print-{node}" for node in graph.nodes})
    service = ThumbnailService(DEFAULT_PROFILE)
    batches: list[ThumbnailBatch] = []
    service.rendered.connect(batches.append)
    try:
        service.submit(job)
        assert thumbnails.wait_until(lambda: any(batch.final for batch in batches), qapp.processEvents, 120)
    finally:
        assert service.stop(120_000)
    assert all(not batch.problem for batch in batches), [batch.problem for batch in batches]
    images = {node: pixels(image) for batch in batches for node, image in batch.images.items()}
    return images, next(batch for batch in batches if batch.final)


def read_by_the_output(graph: MaterialGraph) -> MaterialGraph:
    """`graph` with the refused chain's end sampled into the output's emissive: the refusal is an error."""
    graph.add_node("sample_texture", node_id="read_after")
    graph.connect("after", "out", "read_after", "texture")
    graph.connect("read_after", "rgb", "out", "emissive")
    return graph


@pytest.mark.parametrize("read", [False, True], ids=["not-read-by-the-output", "read-by-the-output"])
def test_a_refused_filter_leaves_every_other_thumbnail_drawn(qapp, read: bool) -> None:
    graph = bricks_graph(refused=True)
    images, final = thumbnails_of(qapp, read_by_the_output(graph) if read else graph)
    reference, _ = thumbnails_of(qapp, bricks_graph(refused=False))
    for node in ("bricks", "mask", "blur", "read"):
        assert node in images, f"{node} has no thumbnail: {final.problems.get(node)}"
        assert np.abs(images[node].astype(int) - reference[node].astype(int)).max() <= 1, node
    assert images["blur"][..., :3].std() > 10, "the blurred bricks, not a flat picture"
    assert "bad" not in images and "after" not in images
    assert REFUSED in final.problems["bad"]
    assert final.problems["after"] == DEPENDS_ON_A_PROBLEM
    if read:
        assert "read_after" not in images and final.problems["read_after"] == DEPENDS_ON_A_PROBLEM
    assert {"bad", "after"} <= set(final.fingerprints), "the nodes without a picture are answered in the last batch"


def test_the_preview_draws_past_a_refused_node_the_output_does_not_read(current_gl) -> None:
    session = EditorSession()
    session.open_graph(bricks_graph(refused=True))
    result = session.lower()
    assert result is not None and result.ok, [d.message for d in result.errors]
    assert any(d.node_id == "bad" and d.severity == "warning" and REFUSED in d.message for d in session.diagnostics)
    passes = session.preview_passes("glsl420")
    assert passes is not None and passes.ok and [each.key for each in passes.plan.passes] == ["mask", "blur/horizontal", "blur"]
    assert passes.problems == {"bad": passes.plan.refused["bad"], "after": DEPENDS_ON_A_PROBLEM}
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.set_values(session.preview_values())
        renderer.build_program(session.preview_program("glsl420").artifact, schedule_for(passes))
        renderer.render_linear(8, 8)
        assert renderer.passes.renders == {"mask": 1, "blur/horizontal": 1, "blur": 1}
        assert renderer.passes.material_textures()  # the material samples the blurred bricks
    finally:
        renderer.release()


def test_a_refused_node_the_output_reads_is_an_error_of_the_material() -> None:
    graph = read_by_the_output(bricks_graph(refused=True))
    session = EditorSession()
    session.open_graph(graph)
    result = session.lower()
    assert result is not None and result.verified is None, "no module to draw: the preview keeps its last picture"
    assert any(d.node_id == "bad" and d.severity == "error" and REFUSED in d.message for d in result.errors)
    # The passes of the nodes that are fine are still built (thumbnails, the Texture View draw them).
    passes = PassProgramCache.for_graph(graph).get("glsl420")
    assert passes is not None and passes.ok and passes.problems["read_after"] == DEPENDS_ON_A_PROBLEM
    # A module sampling the refused chain's end (a bake of the material) is told which node and why.
    assert passes.reads_refused([pass_sampler_name("after")]) == f"Height to Normal 'after': {DEPENDS_ON_A_PROBLEM}"
    assert REFUSED in passes.reads_refused([pass_sampler_name("bad")])
    assert passes.reads_refused([pass_sampler_name("blur")]) == ""


def test_a_buffer_beyond_the_budget_is_refused_alone_and_named_when_the_output_reads_it() -> None:
    """A refusal the material's own lowering cannot see (the memory budget) reaches its diagnostics: a warning
    while nothing of the output reads the buffer, an error of the material once something does."""
    graph = bricks_graph(refused=False)
    for index in range(4):  # 341, 341, 256 MiB fit with the bricks' (planned after them); the fourth is refused
        graph.add_node("texture_buffer", node_id=f"huge{index}", properties={"resolution": "4096", "format": "float",
                                                                            "mipmaps": index < 2})
        graph.connect("bricks", "mask", f"huge{index}", "input")
    session = EditorSession()
    session.open_graph(graph)
    result = session.lower()
    assert result is not None and result.ok
    assert any(d.node_id == "huge3" and d.severity == "warning" and "budget" in d.message for d in session.diagnostics)
    assert session.preview_passes("glsl420").ok
    edited = session.graph.copy()
    edited.add_node("sample_texture", node_id="read_huge")
    edited.connect("huge3", "out", "read_huge", "texture")
    edited.connect("read_huge", "rgb", "out", "emissive")
    session.update_graph(edited)
    result = session.lower()
    assert result is not None and result.verified is None
    assert any(d.node_id == "huge3" and d.severity == "error" and "budget" in d.message for d in result.errors)
