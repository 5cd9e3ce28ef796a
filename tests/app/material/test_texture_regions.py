"""Flood Fill (and its readers), Distance and Bevel on the CPU interpreter against independent numpy references.

References (tests/filters_c_reference.py): a union-find labelling of 4-connected white regions, brute-force
Euclidean distances to every seed texel, and the bevel's formula on those exact distances; all with
wrap-around when the buffer tiles. Each reference starts from the mask buffer the filters actually read (the
Texture Buffer's pass), so the comparison is about the filters alone.

Buffers are 64^2 to keep the interpreter quick: the product's smallest resolution is 256, so these tests add 64
to the resolutions a Texture Buffer accepts (the filters' pass plans depend on N only through log2 N). Arrays
are flipped to v-up rows (row j is v = (j + 0.5) / N) before comparing, where the direction matters.

JFA error bound: jump flooding is not exact in general; these filters run JFA+2 (steps N/2 .. 1, then 2 and
1 again). On the masks below it finds the exact nearest seed on every texel; the tests allow at most one
texel of distance error anywhere and require the exact distance on at least 99% of texels (the outputs are
8-bit, so "exact" is within half a 1/255 step).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from app.material import (
    catalog,  # noqa: F401 - registers the node types
    pass_planner,
)
from app.material import texture_passes as tp
from app.material.graph import Connection, MaterialGraph, Node
from app.preview.cpu_passes import run_plan_cpu
from tests.filters_c_reference import bevel, distance_falloff, exact_distance, label_regions, white

SIZE = 64
STEP = 0.5 / 255.0 + 1e-6  # half an 8-bit step: the rounding of an 8-bit buffer


@pytest.fixture(autouse=True)
def small_buffers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(tp, "RESOLUTIONS", (SIZE, *tp.RESOLUTIONS))
    yield


def _graph(pattern: str, pattern_properties: dict[str, object], pattern_port: str, tiling: str = "tile") -> MaterialGraph:
    nodes = {
        "pattern": Node("pattern", pattern, pattern_properties),
        "mask": Node("mask", "texture_buffer", {"resolution": str(SIZE), "format": "8-bit", "tiling": tiling}),
    }
    return MaterialGraph(nodes=nodes, connections=[Connection("pattern", pattern_port, "mask", "input")])


def _bricks(tiling: str = "tile", count: tuple[float, float] = (4.0, 8.0)) -> MaterialGraph:
    """Running-bond bricks: odd rows shifted half a brick, so those bricks cross the u = 0 border."""
    properties = {"count": count, "row_offset": 0.5, "mortar": 0.04, "softness": 0.0}
    return _graph("bricks", properties, "mask", tiling)


def _disc_near_border(tiling: str) -> MaterialGraph:
    """A disc of radius 0.06 centred at (0.04, 0.3): it crosses the u = 0 border."""
    return _graph("radial_gradient", {"center": (0.04, 0.3), "radius": 0.12}, "out", tiling)


def _add(graph: MaterialGraph, node_id: str, type_name: str, source: str, port: str, **properties: object) -> None:
    graph.nodes[node_id] = Node(node_id, type_name, dict(properties))
    graph.connections.append(Connection(source, "out", node_id, port))


def _run(graph: MaterialGraph) -> dict[str, np.ndarray]:
    plan = pass_planner.plan_passes(graph)
    assert plan.ok, plan.diagnostics
    return {key: buffer[::-1] for key, buffer in run_plan_cpu(plan).items()}  # rows v-up


def _region_boxes(labels: np.ndarray) -> dict[int, tuple[float, float, float, float]]:
    """Each region's bounding box on the torus, (x0, y0, width, height) in texels, x0/y0 possibly negative."""
    boxes = {}
    size = labels.shape[0]
    for region in range(labels.max() + 1):
        rows, columns = np.nonzero(labels == region)
        spans = []
        for values in (columns, rows):
            present = np.unique(values)
            gaps = np.diff(np.concatenate([present, [present[0] + size]]))
            widest = int(np.argmax(gaps))
            start = present[(widest + 1) % len(present)]
            end = present[widest]
            spans.append((float(start if start <= end else start - size), float((end - start) % size + 1)))
        boxes[region] = (spans[0][0], spans[1][0], spans[0][1], spans[1][1])
    return boxes


def test_flood_fill_gives_each_region_one_colour_across_the_border() -> None:
    graph = _bricks()
    _add(graph, "fill", "flood_fill", "mask", "mask")
    _add(graph, "colour", "flood_fill_to_color", "fill", "regions", seed=3)
    _add(graph, "grey", "flood_fill_to_grayscale", "fill", "regions", seed=3, format="float")
    _add(graph, "other_seed", "flood_fill_to_grayscale", "fill", "regions", seed=4, format="float")
    _add(graph, "position", "flood_fill_to_position", "fill", "regions", format="float")
    _add(graph, "size", "flood_fill_to_bbox_size", "fill", "regions", format="float")
    buffers = _run(graph)
    labels = label_regions(buffers["mask"][..., 0], wrap=True)
    count = labels.max() + 1
    # The mask has bricks that only the wrap-around joins: without it there are more regions.
    assert label_regions(buffers["mask"][..., 0], wrap=False).max() + 1 > count >= 24
    colours: list[tuple[float, ...]] = []
    greys: list[tuple[float, ...]] = []
    others: list[tuple[float, ...]] = []
    for region in range(count):
        inside = labels == region
        for image, found in ((buffers["colour"][..., :3], colours), (buffers["grey"][..., :1], greys),
                             (buffers["other_seed"][..., :1], others)):
            values = np.unique(image[inside], axis=0)
            assert len(values) == 1, f"region {region} has {len(values)} values"
            found.append(tuple(values[0]))
    assert len(set(colours)) == count, "two regions share a colour"
    assert len(set(greys)) == count, "two regions share a grey"
    assert greys != others, "the seed changes the greys"
    assert np.all(buffers["colour"][labels < 0][:, :3] == 0.0) and np.all(buffers["grey"][labels < 0][:, 0] == 0.0)
    # The Flood Fill's own buffer: each texel's offset to its region's box corner and the box size, in UV.
    boxes = _region_boxes(labels)
    regions = buffers["fill"]
    rows, columns = np.mgrid[0:SIZE, 0:SIZE]
    for region, (x0, y0, width, height) in boxes.items():
        inside = labels == region
        # Texel centre + offset = the box's min edge (x0, y0), up to whole turns of the torus.
        for centres, offsets, edge in ((columns, regions[..., 0], x0), (rows, regions[..., 1], y0)):
            miss = (centres[inside] + 0.5 + offsets[inside] * SIZE - edge) % SIZE
            assert np.minimum(miss, SIZE - miss).max() < 1e-3
        assert np.allclose(regions[inside][:, 2:] * SIZE, (width, height), atol=1e-3)
        assert np.allclose(buffers["size"][inside][:, :2] * SIZE, (width, height), atol=1e-3)
        centre = (np.array([x0 + width / 2.0, y0 + height / 2.0]) / SIZE) % 1.0
        assert np.allclose(buffers["position"][inside][:, :2], centre, atol=1e-5), region
    assert np.all(buffers["position"][labels < 0][:, :2] == 0.0)


def test_flood_fill_to_gradient_runs_along_the_angle_across_each_box() -> None:
    angle = 30.0
    graph = _bricks()
    _add(graph, "fill", "flood_fill", "mask", "mask")
    _add(graph, "gradient", "flood_fill_to_gradient", "fill", "regions", angle=angle)
    _add(graph, "turned", "flood_fill_to_gradient", "fill", "regions", angle=angle, angle_variation=1.0)
    buffers = _run(graph)
    labels = label_regions(buffers["mask"][..., 0], wrap=True)
    direction = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    expected = np.zeros((SIZE, SIZE))
    rows, columns = np.mgrid[0:SIZE, 0:SIZE]
    for region, (x0, y0, width, height) in _region_boxes(labels).items():
        inside = labels == region
        # Texel centres unwrapped into the box, relative to the box's centre.
        x = (columns[inside] - x0) % SIZE + 0.5 - width / 2.0
        y = (rows[inside] - y0) % SIZE + 0.5 - height / 2.0
        extent = width * abs(direction[0]) + height * abs(direction[1])
        expected[inside] = np.clip((x * direction[0] + y * direction[1]) / extent + 0.5, 0.0, 1.0)
    got = buffers["gradient"][..., 0]
    assert np.abs(got - expected).max() <= STEP + 1e-4
    turned = buffers["turned"][..., 0]
    assert np.abs(turned - expected).max() > 0.2, "angle variation turns the gradients"
    for region in range(labels.max() + 1):  # still 0..1 across each region, whatever its turn
        values = turned[labels == region]
        assert values.min() <= 0.1 and values.max() >= 0.9


@pytest.mark.parametrize("tiling", ["tile", "clamp"])
def test_distance_matches_the_exact_euclidean_distance(tiling: str) -> None:
    max_distance = 0.3
    graph = _disc_near_border(tiling)
    _add(graph, "distance", "mask_distance", "mask", "mask", max_distance=max_distance)
    buffers = _run(graph)
    mask = buffers["mask"][..., 0]
    wrap = tiling == "tile"
    expected = distance_falloff(mask, max_distance * SIZE, wrap=wrap)
    got = buffers["distance"][..., 0]
    error = np.abs(got - expected)
    assert error.max() <= 1.0 / (max_distance * SIZE) + STEP  # at most one texel of distance anywhere
    assert (error <= STEP).mean() >= 0.99
    # The wrap-around matters on this mask: the other reference is far off.
    other = distance_falloff(mask, max_distance * SIZE, wrap=not wrap)
    assert np.abs(got - other).max() > 0.3


@pytest.mark.parametrize("corner", ["round", "angular"])
def test_bevel_matches_its_formula_on_exact_distances(corner: str) -> None:
    width, smoothness = 0.06, 0.5
    graph = _bricks(count=(2.0, 4.0))
    _add(graph, "bevel", "bevel", "mask", "mask", width=width, smoothness=smoothness, corner=corner)
    buffers = _run(graph)
    mask = buffers["mask"][..., 0]
    expected = bevel(mask, width * SIZE, smoothness, corner, wrap=True)
    got = buffers["bevel"][..., 0]
    assert np.abs(got - expected).max() <= STEP
    other = bevel(mask, width * SIZE, smoothness, "angular" if corner == "round" else "round", wrap=True)
    assert np.abs(got - other).max() > 0.1, "the corner type changes the corners"
    # Seamless: the bevel of a brick crossing u = 0 continues on the other side.
    assert np.abs(got[:, 0] - got[:, -1]).max() < 0.5
    assert exact_distance(~white(mask)).max() > width * SIZE, "the bricks have a flat top"


@pytest.mark.parametrize("type_name", ["flood_fill", "mask_distance", "bevel"])
def test_a_filter_fed_a_value_is_refused_naming_it(type_name: str) -> None:
    graph = _bricks()
    graph.nodes["filter"] = Node("filter", type_name, {})
    graph.connections.append(Connection("pattern", "mask", "filter", "mask"))
    _add(graph, "distance", "mask_distance", "mask", "mask")
    plan = pass_planner.plan_passes(graph)
    refused = [diagnostic for diagnostic in plan.diagnostics if diagnostic.node_id == "filter"]
    assert len(refused) == 1 and "not a texture-space node" in refused[0].message, plan.diagnostics
    assert {diagnostic.node_id for diagnostic in plan.diagnostics} == {"filter"}
    assert {each.node_id for each in plan.passes} == {"mask", "distance"}, "the rest of the plan is untouched"


@pytest.mark.parametrize("reader", ["flood_fill_to_color", "flood_fill_to_grayscale", "flood_fill_to_gradient",
                                    "flood_fill_to_position", "flood_fill_to_bbox_size"])
def test_a_flood_fill_reader_fed_an_image_is_refused_naming_it(reader: str) -> None:
    """The readers take a Flood Fill's buffer (boxes, not colours): a Texture Buffer or a Distance is refused."""
    graph = _bricks()
    _add(graph, "distance", "mask_distance", "mask", "mask")
    _add(graph, "from_buffer", reader, "mask", "regions")
    _add(graph, "from_distance", reader, "distance", "regions")
    plan = pass_planner.plan_passes(graph)
    messages = {diagnostic.node_id: diagnostic.message for diagnostic in plan.diagnostics}
    assert set(messages) == {"from_buffer", "from_distance"}, plan.diagnostics
    assert "reads mask, a Texture Buffer: it takes the output of a Flood Fill" in messages["from_buffer"]
    assert "reads distance, a Distance: it takes the output of a Flood Fill" in messages["from_distance"]
    assert {each.node_id for each in plan.passes} == {"mask", "distance"}


def test_flood_fill_of_planks_across_a_tiling_buffer() -> None:
    """Stripes along v span the whole texture: each plank is one region on the torus, one colour from texel 0."""
    graph = _graph("stripes", {"frequency": 4.0, "width": 0.75, "angle": 0.0}, "out")
    _add(graph, "fill", "flood_fill", "mask", "mask")
    _add(graph, "colour", "flood_fill_to_color", "fill", "regions")
    buffers = _run(graph)
    labels = label_regions(buffers["mask"][..., 0], wrap=True)
    assert labels.max() + 1 == 4
    colours = set()
    for region in range(4):
        values = np.unique(buffers["colour"][labels == region][:, :3], axis=0)
        assert len(values) == 1
        colours.add(tuple(values[0]))
        assert np.allclose(buffers["fill"][labels == region][:, 3], 1.0), "as tall as the texture"
    assert len(colours) == 4


def test_flood_fill_of_hexagons_in_a_clamped_buffer() -> None:
    """Convex non-rectangular regions, cut by the edges of a clamped buffer (no wrap): two sweeps suffice."""
    graph = _graph("hexagons", {"scale": 3.0, "gap": 0.15}, "mask", tiling="clamp")
    _add(graph, "fill", "flood_fill", "mask", "mask")
    _add(graph, "grey", "flood_fill_to_grayscale", "fill", "regions", format="float")
    buffers = _run(graph)
    labels = label_regions(buffers["mask"][..., 0], wrap=False)
    assert labels.max() + 1 >= 12
    greys = set()
    for region in range(labels.max() + 1):
        values = np.unique(buffers["grey"][labels == region][:, 0])
        assert len(values) == 1, f"region {region} has {len(values)} greys"
        greys.add(float(values[0]))
    assert len(greys) == labels.max() + 1


def test_can_connect_refuses_what_the_readers_refuse() -> None:
    """The editor does not offer a wire the pass planner would refuse: a reader's regions from anything but a Flood Fill."""
    from app.material.connections import can_connect

    graph = _bricks()
    _add(graph, "fill", "flood_fill", "mask", "mask")
    reader = graph.add_node("flood_fill_to_color", node_id="reader")
    edges = graph.add_node("edge_detect", node_id="edges")
    graph.connect("mask", "out", edges.id, "input")
    assert can_connect(graph, "fill", "out", reader.id, "regions")[0]
    allowed, reason = can_connect(graph, "edges", "out", reader.id, "regions")
    assert not allowed and reason == "'regions' of Flood Fill to Random Colour takes the output of a Flood Fill", reason
