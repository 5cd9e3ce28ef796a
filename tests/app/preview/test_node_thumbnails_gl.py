"""Node thumbnails on real OpenGL (issue 18): each thumbnail equals the sub-graph feeding it rendered alone.

`ThumbnailRenderer` draws every thumbnail of a graph with one program (a
selector uniform picks the node) into tiles of one image. The reference for
a tile is the preview's own path on its own: the sub-graph feeding that one
output lowered alone (`PreviewOutputs` of one port), built into a fresh
`Renderer` and drawn full frame with `render_image` on the same geometry.
Simple values are also checked against numpy: the UV square's texture
coordinates at pixel centres, a constant's grey.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.material.examples import EXAMPLE_GRAPHS
from app.material.graph import MaterialGraph
from app.material.lowering import PreviewOutputs, lower
from app.material.node_previews import MESH, SQUARE, lower_thumbnails
from app.preview.camera import OrbitCamera
from app.preview.renderer import Renderer
from app.preview.stage import Stage
from app.preview.thumbnails import THUMBNAIL_PIXELS, FlatCamera, ThumbnailRenderer, square_mesh, thumbnail_sphere

pytestmark = pytest.mark.gl

SIZE = THUMBNAIL_PIXELS


@pytest.fixture
def thumbnails(current_gl):
    renderer = ThumbnailRenderer()
    yield renderer
    current_gl.make_current()
    renderer.release()


def draw_all(thumbnails: ThumbnailRenderer, graph: MaterialGraph, stage: Stage, time_seconds: float = 0.0):
    program = lower_thumbnails(graph)
    assert program.ok, program.problems
    assert program.result.artifact is not None
    thumbnails.set_program(program.result.artifact, program.result.preview_selector)
    thumbnails.set_stage(stage, time_seconds)
    items = [(selector, program.geometry[node]) for selector, (node, _) in enumerate(program.ports)]
    images = thumbnails.render(items, SIZE)
    return program, {node: images[selector] for selector, (node, _) in enumerate(program.ports)}


def render_alone(current_gl, graph: MaterialGraph, port: tuple[str, str], output_name: str, geometry: str, stage: Stage,
                 time_seconds: float = 0.0) -> np.ndarray:
    """The main preview's path for one node output lowered on its own."""
    result = lower(graph, PreviewOutputs((port,), output_name))
    assert result.ok and result.artifact is not None, result.diagnostics
    assert result.preview_selector == ""
    renderer = Renderer()
    try:
        renderer.build_program(result.artifact)
        stage.apply(renderer)
        renderer.set_background_mode("color")
        renderer.time = time_seconds
        if geometry == SQUARE:
            renderer.set_mesh(square_mesh())
            renderer.camera = FlatCamera()
        else:
            renderer.set_mesh(thumbnail_sphere())
            renderer.camera = OrbitCamera()
        return renderer.render_image(SIZE, SIZE)
    finally:
        current_gl.make_current()
        renderer.release()


@pytest.mark.parametrize(("example", "time_seconds"), [("procedural_noise", 0.0), ("stylised_lava", 1.75),
                                                        ("rough_plastic", 0.0), ("toon_shading", 0.0)])
def test_every_thumbnail_equals_its_sub_graph_rendered_alone(current_gl, thumbnails, example: str,
                                                             time_seconds: float) -> None:
    graph = EXAMPLE_GRAPHS[example]()
    stage = Stage()
    program, images = draw_all(thumbnails, graph, stage, time_seconds)
    assert len(images) >= 4
    for node_id, port in program.ports:
        alone = render_alone(current_gl, graph, (node_id, port), program.output_name, program.geometry[node_id], stage,
                             time_seconds)
        difference = np.abs(images[node_id].astype(int) - alone.astype(int))
        # Two programs compute the value (the selector's branches and the port alone): the driver may
        # round a last bit differently, which shows as one step of 8 bits on a rare pixel.
        label = (example, node_id, graph.nodes[node_id].type_name, int(difference.max()), int((difference > 0).sum()))
        assert difference.max() <= 1 and (difference > 0).mean() < 0.01, label


def test_examples_cover_both_geometries_and_time() -> None:
    kinds = set()
    animated = 0
    for example in ("procedural_noise", "stylised_lava", "rough_plastic", "toon_shading"):
        program = lower_thumbnails(EXAMPLE_GRAPHS[example]())
        kinds.update(program.geometry.values())
        animated += len(program.animated)
    assert kinds == {SQUARE, MESH}
    assert animated > 0


def uv_graph() -> MaterialGraph:
    graph = MaterialGraph()
    uv = graph.add_node("texcoord", (0.0, 0.0))
    grey = graph.add_node("constant_float", (0.0, 100.0), {"value": 0.25})
    add = graph.add_node("add", (200.0, 0.0))
    output = graph.add_node("material_output", (400.0, 0.0))
    graph.connect(uv.id, "out", add.id, "a")
    graph.connect(grey.id, "out", add.id, "b")
    graph.connect(add.id, "out", output.id, "base_color")
    return graph


def test_uv_square_thumbnails_match_numpy(thumbnails) -> None:
    graph = uv_graph()
    program, images = draw_all(thumbnails, graph, Stage())
    by_type = {graph.nodes[node].type_name: node for node in images}
    assert set(by_type) == {"texcoord", "constant_float", "add"}
    assert all(program.geometry[node] == SQUARE for node in images)
    centres = (np.arange(SIZE) + 0.5) / SIZE
    u = np.tile(centres, (SIZE, 1))
    v = np.tile(centres[::-1, None], (1, SIZE))  # images are top row first
    expected_uv = np.stack([u, v, np.zeros_like(u)], axis=-1)
    expected = {
        "texcoord": expected_uv,
        "constant_float": np.full((SIZE, SIZE, 3), 0.25),
        "add": np.concatenate([expected_uv[..., :2] + 0.25, np.zeros((SIZE, SIZE, 1))], axis=-1),  # a vec2: blue 0
    }
    for type_name, node_id in by_type.items():
        reference = np.round(np.clip(expected[type_name], 0.0, 1.0) * 255.0)
        image = images[node_id]
        assert np.abs(image[..., :3].astype(int) - reference.astype(int)).max() <= 1, type_name
        assert (image[..., 3] == 255).all()


def test_a_new_stage_after_square_thumbnails_keeps_the_mesh_thumbnails_front_on(thumbnails) -> None:
    """Drawing square thumbnails leaves the flat camera in the renderer; the next stage (with a camera view of its
    own) is applied all the same, and a mesh thumbnail is the same sphere from the front whatever that view."""
    draw_all(thumbnails, uv_graph(), Stage())  # squares only: the flat camera stays in the renderer
    graph = uv_graph()
    fresnel = graph.add_node("fresnel", (0.0, 300.0))
    _program, before = draw_all(thumbnails, graph, Stage())
    turned = Stage()
    turned.set_camera((90.0, 30.0, 5.0))
    _program, after = draw_all(thumbnails, graph, turned)
    assert set(after) == set(before)
    assert np.array_equal(after[fresnel.id], before[fresnel.id])
