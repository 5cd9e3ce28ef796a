"""Curvature, Ambient Occlusion, Edge Detect, Texture Levels, Histogram Scan and Histogram Range on the CPU
interpreter, against the numpy references of tests/analysis_filter_reference.py.

Each plan is the product's: Texture Buffers rendered from a procedural sub-graph, the filters reading them,
every pass lowered, verified and run by `run_plan_cpu`. The references read the input buffers the plan
rendered (so they check the filters, not the procedurals) and are compared on every texel, the tile borders
included, where a tiling buffer must be read across the edge. Resolution 256 (the smallest a buffer has).

Tolerances: a float buffer holds binary32 results of binary32 arithmetic, so the outputs agree with the
binary64 references within 2e-5 (1e-4 for the levels' pow); an 8-bit buffer rounds to 1/255, so within half
a step plus that.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from analysis_filter_reference import (
    ambient_occlusion,
    curvature,
    edge_detect,
    histogram_range,
    histogram_scan,
    levels,
)

from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.texture_passes import PassPlan, plan_passes
from app.preview.cpu_passes import run_plan_cpu

SIZE = 256
#: Settings each filter runs with (the AO's directions and steps kept small: every tap is a read per texel).
CURVATURE: dict[str, Any] = {"intensity": 8.0, "radius": 0.02}
OCCLUSION: dict[str, Any] = {"radius": 0.06, "depth": 0.15, "intensity": 1.5, "directions": 6, "steps": 4}
EDGES: dict[str, Any] = {"threshold": 0.5, "width": 2.5, "softness": 0.6}
LEVELS: dict[str, Any] = {"in_black": 0.2, "in_white": 0.85, "gamma": 1.7, "out_black": 0.1, "out_white": 0.9,
                          "channels": "green"}
SCAN: dict[str, Any] = {"position": 0.4, "contrast": 0.7}
RANGE: dict[str, Any] = {"range": 0.35, "position": 0.8}


def _node(graph: MaterialGraph, type_name: str, **properties: Any) -> str:
    assert type_name in NODE_TYPES, type_name
    return graph.add_node(type_name, properties=properties).id


def _wave(graph: MaterialGraph, frequency: tuple[float, float], amplitude: float, phase: float) -> str:
    """amplitude sin(2 pi (fu u + fv v) + phase): tiles (integer frequencies)."""
    uv = _node(graph, "texcoord")
    along = _node(graph, "constant_vec2", value=(2.0 * math.pi * frequency[0], 2.0 * math.pi * frequency[1]))
    dot = _node(graph, "dot")
    graph.connect(uv, "out", dot, "a")
    graph.connect(along, "out", dot, "b")
    shifted = _node(graph, "add", b=phase)
    graph.connect(dot, "out", shifted, "a")
    sine = _node(graph, "sin")
    graph.connect(shifted, "out", sine, "x")
    scaled = _node(graph, "multiply", b=amplitude)
    graph.connect(sine, "out", scaled, "a")
    return scaled


def _periodic_height(graph: MaterialGraph) -> str:
    """0.5 + two waves, every frequency even: the height repeats every half texture (128 texels) along u and v,
    and is not symmetric under swapping them."""
    first = _wave(graph, (2.0, 4.0), 0.3, 0.4)
    second = _wave(graph, (4.0, 0.0), 0.18, 1.1)
    total = _node(graph, "add")
    graph.connect(first, "out", total, "a")
    graph.connect(second, "out", total, "b")
    lifted = _node(graph, "add", b=0.5)
    graph.connect(total, "out", lifted, "a")
    return lifted


def _noise_height(graph: MaterialGraph) -> str:
    """Gradient noise: smooth, and not tiling (its edges differ, so reading across one matters)."""
    return _node(graph, "gradient_noise", scale=7.0)


def _buffer(graph: MaterialGraph, source: str, buffer_format: str, tiling: str) -> str:
    buffer = _node(graph, "texture_buffer", resolution=str(SIZE), format=buffer_format, tiling=tiling)
    graph.connect(source, "out", buffer, "input")
    return buffer


def _filter(graph: MaterialGraph, type_name: str, source: str, port: str, settings: dict[str, Any]) -> str:
    node = _node(graph, type_name, **settings)
    graph.connect(source, "out", node, port)
    return node


class Run:
    """A graph of three buffers (a height, a mask thresholded from it, the texture coordinates as a colour)
    and every filter under test reading them, planned and run on the CPU interpreter."""

    def __init__(self, height_source: Any, buffer_format: str, tiling: str) -> None:
        graph = MaterialGraph()
        height_value = height_source(graph)
        mask_value = _node(graph, "step", edge=0.55)
        graph.connect(height_value, "out", mask_value, "x")
        uv = _node(graph, "texcoord")
        self.height = _buffer(graph, height_value, buffer_format, tiling)
        self.mask = _buffer(graph, mask_value, buffer_format, tiling)
        self.colour = _buffer(graph, uv, buffer_format, tiling)
        self.filters = {
            "curvature": _filter(graph, "curvature", self.height, "height", CURVATURE),
            "ambient_occlusion": _filter(graph, "ambient_occlusion", self.height, "height", OCCLUSION),
            "edge_detect": _filter(graph, "edge_detect", self.mask, "mask", EDGES),
            "texture_levels": _filter(graph, "texture_levels", self.colour, "input", LEVELS),
            "histogram_scan": _filter(graph, "histogram_scan", self.height, "input", SCAN),
            "histogram_range": _filter(graph, "histogram_range", self.colour, "input", RANGE),
        }
        self.graph = graph
        self.format = buffer_format
        self.tiling = tiling
        self.plan: PassPlan = plan_passes(graph)
        assert self.plan.ok, self.plan.diagnostics
        self.buffers = run_plan_cpu(self.plan)

    def image(self, node_id: str) -> np.ndarray:
        """A node's output buffer as float64, row 0 at v = 0 (the references' convention)."""
        key = self.plan.outputs[(node_id, "out")]
        return np.asarray(self.buffers[key], dtype=np.float64)[::-1]

    def grey(self, node_id: str) -> np.ndarray:
        return self.image(node_id)[..., 0]

    def tolerance(self, arithmetic: float = 2e-5) -> float:
        return arithmetic + (0.5 / 255.0 if self.format == "8-bit" else 0.0)

    def expected(self, name: str) -> np.ndarray:
        """The reference of filter `name` on the input buffer the plan rendered, as an rgba image."""
        height = self.grey(self.height)
        if name == "curvature":
            return _grey_rgba(curvature(height, CURVATURE["intensity"], CURVATURE["radius"], self.tiling))
        if name == "ambient_occlusion":
            settings = OCCLUSION
            return _grey_rgba(ambient_occlusion(height, settings["radius"], settings["depth"], settings["intensity"],
                                                int(settings["directions"]), int(settings["steps"]), self.tiling))
        if name == "edge_detect":
            return _grey_rgba(edge_detect(self.grey(self.mask), EDGES["threshold"], EDGES["width"], EDGES["softness"],
                                          self.tiling))
        if name == "texture_levels":
            colour: np.ndarray = self.image(self.colour).copy()
            colour[..., 1] = levels(colour[..., 1], LEVELS["in_black"], LEVELS["in_white"], LEVELS["gamma"],
                                    LEVELS["out_black"], LEVELS["out_white"])
            return colour
        if name == "histogram_scan":
            scanned: np.ndarray = self.image(self.height).copy()
            scanned[..., :3] = histogram_scan(scanned[..., :3], SCAN["position"], SCAN["contrast"])
            return scanned
        assert name == "histogram_range"
        ranged: np.ndarray = self.image(self.colour).copy()
        ranged[..., :3] = histogram_range(ranged[..., :3], RANGE["range"], RANGE["position"])
        return ranged


def _grey_rgba(value: np.ndarray) -> np.ndarray:
    return np.stack([value, value, value, np.ones_like(value)], axis=-1)


def _border(image: np.ndarray, width: int = 3) -> np.ndarray:
    """The texels within `width` of an edge of the texture."""
    mask = np.zeros(image.shape[:2], dtype=bool)
    mask[:width] = mask[-width:] = True
    mask[:, :width] = mask[:, -width:] = True
    return mask


@pytest.fixture(scope="module")
def tiled() -> Run:
    """Tiling 8-bit buffers of a periodic height (the buffers artists use)."""
    return Run(_periodic_height, "8-bit", "tile")


@pytest.fixture(scope="module")
def clamped() -> Run:
    """Clamped float buffers of a noise that does not tile."""
    return Run(_noise_height, "float", "clamp")


FILTERS = ("curvature", "ambient_occlusion", "edge_detect", "texture_levels", "histogram_scan", "histogram_range")


@pytest.mark.parametrize("name", FILTERS)
@pytest.mark.parametrize("which", ["tiled", "clamped"])
def test_filter_matches_its_reference_on_every_texel(name: str, which: str, request: pytest.FixtureRequest) -> None:
    run: Run = request.getfixturevalue(which)
    got = run.image(run.filters[name])
    want = run.expected(name)
    tolerance = run.tolerance(1e-4 if name == "texture_levels" else 2e-5)
    error = np.abs(got - want)
    border = _border(got)
    assert error[border].max() <= tolerance, f"{name} at the tile border: {error[border].max():.2e}"
    assert error.max() <= tolerance, f"{name}: worst {error.max():.2e} at {np.unravel_index(error.argmax(), error.shape)}"
    # The output does something: not a flat image (a filter reduced to a constant would pass a loose check).
    assert np.ptp(got[..., :3]) > 0.2, name


@pytest.mark.parametrize("name", ["curvature", "ambient_occlusion", "edge_detect"])
def test_the_border_check_tells_tile_from_clamp(name: str, clamped: Run) -> None:
    """On the clamped run, the tiling reference differs at the border: the border comparison above would catch a
    filter that read the wrong side of the edge."""
    height = clamped.grey(clamped.height)
    mask = clamped.grey(clamped.mask)
    wrapped = {
        "curvature": lambda: curvature(height, CURVATURE["intensity"], CURVATURE["radius"], "tile"),
        "ambient_occlusion": lambda: ambient_occlusion(height, OCCLUSION["radius"], OCCLUSION["depth"],
                                                       OCCLUSION["intensity"], int(OCCLUSION["directions"]),
                                                       int(OCCLUSION["steps"]), "tile"),
        "edge_detect": lambda: edge_detect(mask, EDGES["threshold"], EDGES["width"], EDGES["softness"], "tile"),
    }[name]()
    got = clamped.grey(clamped.filters[name])
    border = _border(got)
    assert np.abs(got - wrapped)[border].max() > 0.05


@pytest.mark.parametrize("name", ["curvature", "ambient_occlusion", "edge_detect", "histogram_scan"])
def test_filters_of_a_tiling_buffer_tile_seamlessly(name: str, tiled: Run) -> None:
    """The height repeats every 128 texels; a filter that reads across the edges keeps that period, so the
    texture joins its neighbour copy without a seam (the comparison crosses the edge: roll by half)."""
    got = tiled.grey(tiled.filters[name])
    half = SIZE // 2
    for axis in (0, 1):
        assert np.abs(got - np.roll(got, half, axis=axis)).max() <= 2.0 / 255.0, (name, axis)
    # The seam texels, explicitly: the last column next to the first as the next copy places it.
    seam = np.abs(got[:, -1] - got[:, 0]).max()
    inside = np.abs(got[:, half - 1] - got[:, half]).max()
    assert abs(seam - inside) <= 2.0 / 255.0


def test_levels_leaves_the_other_channels_alone(tiled: Run) -> None:
    got = tiled.image(tiled.filters["texture_levels"])
    colour = tiled.image(tiled.colour)
    assert np.array_equal(got[..., [0, 2, 3]], colour[..., [0, 2, 3]])
    assert np.abs(got[..., 1] - colour[..., 1]).max() > 0.1


def test_histogram_scan_extremes_follow_substance() -> None:
    """Position 0 is black and 1 white whatever the contrast; contrast 1 thresholds at 1 − position."""
    values = np.linspace(0.0, 1.0, 101)
    for contrast in (0.0, 0.5, 1.0):
        assert histogram_scan(values, 0.0, contrast).max() == 0.0
        assert histogram_scan(values, 1.0, contrast).min() == 1.0
    assert np.array_equal(histogram_scan(values, 0.5, 0.0), values)
    between = (np.arange(100) + 0.5) / 100.0  # none exactly on the threshold
    threshold = histogram_scan(between, 0.3, 1.0)
    assert set(np.unique(threshold)) == {0.0, 1.0} and between[threshold.argmax()] == pytest.approx(0.705)


@pytest.mark.parametrize("name,port", [("curvature", "height"), ("ambient_occlusion", "height"),
                                       ("edge_detect", "mask"), ("texture_levels", "input"),
                                       ("histogram_scan", "input"), ("histogram_range", "input")])
@pytest.mark.parametrize("feed", ["texture_parameter", "unconnected"])
def test_a_filter_not_fed_a_buffer_is_refused_by_name(name: str, port: str, feed: str) -> None:
    graph = MaterialGraph()
    node = _node(graph, name)
    if feed == "texture_parameter":
        parameter = _node(graph, "texture_parameter")
        graph.connect(parameter, "out", node, port)
    output = _node(graph, "surface_output")
    sample = _node(graph, "sample_texture")
    graph.connect(node, "out", sample, "texture")
    graph.connect(sample, "rgb", output, "base_color")
    plan = plan_passes(graph)
    assert not plan.ok
    assert [d.node_id for d in plan.errors] == [node], plan.diagnostics
    assert f"'{port}'" in plan.errors[0].message
    assert not plan.passes  # nothing else was run
    result = lower(graph)
    assert not result.ok
    assert node in {d.node_id for d in result.errors}, result.diagnostics
