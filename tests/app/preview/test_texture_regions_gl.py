"""Flood Fill, Distance and Bevel drawn by the GL pass runner, against numpy references and the CPU interpreter.

One material: running-bond bricks (odd rows cross the u = 0 border) into a 64^2 8-bit Texture Buffer, read by
Flood Fill -> Flood Fill to Random Colour (sampled by the output), Distance and Bevel. Every pass of the plan
is drawn on the GL context; each filter's buffer is read back and compared with the reference of
tests/filters_c_reference.py computed from the mask buffer GL drew, and with the CPU interpreter's run of the
same plan (the region hash is integer arithmetic: the same colours on both).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import app.material.catalog  # noqa: F401 - registers every node type (texture-space nodes included)
from app.material import texture_passes as tp
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.cpu_passes import run_plan_cpu
from app.preview.renderer import Renderer
from app.preview.texture_passes_gl import schedule_for
from app.preview.thumbnails import FlatCamera, square_mesh
from app.session.pass_programs import PassProgramCache
from tests.filters_c_reference import bevel, distance_falloff, label_regions

SIZE = 64
STEP = 0.5 / 255.0 + 1e-6
MAX_DISTANCE = 0.1
WIDTH, SMOOTHNESS = 0.06, 0.5


@pytest.fixture(autouse=True)
def small_buffers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """64^2 buffers keep the CPU comparison quick; the product's smallest resolution is 256."""
    monkeypatch.setattr(tp, "RESOLUTIONS", (SIZE, *tp.RESOLUTIONS))
    yield


def regions_graph() -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("bricks", node_id="bricks", properties={"count": (2.0, 4.0), "row_offset": 0.5, "mortar": 0.04,
                                                           "softness": 0.0})
    graph.add_node("texture_buffer", node_id="mask", properties={"resolution": str(SIZE), "format": "8-bit"})
    graph.add_node("flood_fill", node_id="fill")
    graph.add_node("flood_fill_to_color", node_id="colour", properties={"seed": 2})
    graph.add_node("mask_distance", node_id="distance", properties={"max_distance": MAX_DISTANCE})
    graph.add_node("bevel", node_id="bevel", properties={"width": WIDTH, "smoothness": SMOOTHNESS})
    graph.add_node("sample_texture", node_id="read")
    graph.add_node("material_output", node_id="out")
    graph.connect("bricks", "mask", "mask", "input")
    graph.connect("mask", "out", "fill", "mask")
    graph.connect("fill", "out", "colour", "regions")
    graph.connect("mask", "out", "distance", "mask")
    graph.connect("mask", "out", "bevel", "mask")
    graph.connect("colour", "out", "read", "texture")
    graph.connect("read", "rgba", "out", "base_color")
    return graph


def gl_rows(image: np.ndarray) -> np.ndarray:
    return image[::-1].astype(np.float64)


def test_region_filters_on_gl_match_the_references_and_the_cpu(current_gl: object) -> None:
    graph = regions_graph()
    lowered = lower(graph)
    assert lowered.ok, [d.message for d in lowered.diagnostics]
    passes = PassProgramCache.for_graph(graph)
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.camera = FlatCamera()  # type: ignore[assignment]
        renderer.set_values({})
        renderer.build_program(lowered.artifact, schedule_for(passes.get("glsl420")))
        renderer.render_linear(8, 8)
        plan = passes.plan
        assert plan is not None
        runner = renderer.passes
        gl = {key: gl_rows(runner.read_pass(key)) for key in ("mask", "colour", "distance", "bevel")}
        cpu = {key: gl_rows(image) for key, image in run_plan_cpu(plan).items()}
    finally:
        renderer.release()
    mask = gl["mask"][..., 0]
    assert np.array_equal(mask, cpu["mask"][..., 0])

    labels = label_regions(mask, wrap=True)
    assert label_regions(mask, wrap=False).max() > labels.max(), "bricks cross the border"
    colours = []
    for region in range(labels.max() + 1):
        values = np.unique(gl["colour"][labels == region][:, :3], axis=0)
        assert len(values) == 1, f"region {region} has {len(values)} colours on GL"
        colours.append(tuple(values[0]))
    assert len(set(colours)) == labels.max() + 1
    assert np.abs(gl["colour"] - cpu["colour"]).max() <= 1.0 / 255.0 + 1e-6

    distance = distance_falloff(mask, MAX_DISTANCE * SIZE, wrap=True)
    assert np.abs(gl["distance"][..., 0] - distance).max() <= STEP + 1.0 / 255.0
    height = bevel(mask, WIDTH * SIZE, SMOOTHNESS, "round", wrap=True)
    assert np.abs(gl["bevel"][..., 0] - height).max() <= STEP + 1.0 / 255.0
    assert np.abs(gl["bevel"] - cpu["bevel"]).max() <= 1.0 / 255.0 + 1e-6
