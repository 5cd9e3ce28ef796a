"""Graphs for the checks of Curvature, Ambient Occlusion, Edge Detect, Texture Levels and the histogram filters
(tests/app/material/test_texture_space_analysis.py on the CPU interpreter, tests/app/preview/
test_texture_space_analysis_gl.py on OpenGL), and what tests/analysis_filter_reference.py expects of them.

`FilterRun(height, format, tiling)` builds one material graph: three Texture Buffers (a height, a mask
thresholded from it, the texture coordinates as a colour) and every filter reading them, and plans it.
`run_cpu()` fills `buffers` from the CPU interpreter; a GL test fills them from its read-backs. The
references read the input buffers the run rendered, so they check the filters, not the procedurals.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
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
from app.material.pass_planner import plan_passes
from app.material.texture_passes import PassPlan
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


def node(graph: MaterialGraph, type_name: str, **properties: Any) -> str:
    assert type_name in NODE_TYPES, type_name
    return graph.add_node(type_name, properties=properties).id


def _wave(graph: MaterialGraph, frequency: tuple[float, float], amplitude: float, phase: float) -> str:
    """amplitude sin(2 pi (fu u + fv v) + phase): tiles (integer frequencies)."""
    uv = node(graph, "texcoord")
    along = node(graph, "constant_vec2", value=(2.0 * math.pi * frequency[0], 2.0 * math.pi * frequency[1]))
    dot = node(graph, "dot")
    graph.connect(uv, "out", dot, "a")
    graph.connect(along, "out", dot, "b")
    shifted = node(graph, "add", b=phase)
    graph.connect(dot, "out", shifted, "a")
    sine = node(graph, "sin")
    graph.connect(shifted, "out", sine, "x")
    scaled = node(graph, "multiply", b=amplitude)
    graph.connect(sine, "out", scaled, "a")
    return scaled


def periodic_height(graph: MaterialGraph) -> str:
    """0.5 + two waves, every frequency even: the height repeats every half texture (128 texels) along u and v,
    and is not symmetric under swapping them."""
    first = _wave(graph, (2.0, 4.0), 0.3, 0.4)
    second = _wave(graph, (4.0, 0.0), 0.18, 1.1)
    total = node(graph, "add")
    graph.connect(first, "out", total, "a")
    graph.connect(second, "out", total, "b")
    lifted = node(graph, "add", b=0.5)
    graph.connect(total, "out", lifted, "a")
    return lifted


def noise_height(graph: MaterialGraph) -> str:
    """Gradient noise: smooth, and not tiling (its edges differ, so reading across one matters)."""
    return node(graph, "gradient_noise", scale=7.0)


def _buffer(graph: MaterialGraph, source: str, buffer_format: str, tiling: str) -> str:
    buffer = node(graph, "texture_buffer", resolution=str(SIZE), format=buffer_format, tiling=tiling)
    graph.connect(source, "out", buffer, "input")
    return buffer


def _filter(graph: MaterialGraph, type_name: str, source: str, port: str, settings: dict[str, Any]) -> str:
    made = node(graph, type_name, **settings)
    graph.connect(source, "out", made, port)
    return made


#: The filters reading the height buffer (the others read the mask or the colour).
HEIGHT_READERS = ("curvature", "ambient_occlusion", "histogram_scan")


class FilterRun:
    """A graph of three buffers (a height, a mask thresholded from it, the texture coordinates as a colour)
    and every filter under test reading them, planned (`run_cpu` or a GL runner fills `buffers`)."""

    def __init__(self, height_source: Any, buffer_format: str, tiling: str, height_format: str | None = None) -> None:
        """`buffer_format` for every buffer, but `height_format` (when given) for the height's."""
        graph = MaterialGraph()
        height_value = height_source(graph)
        mask_value = node(graph, "step", edge=0.55)
        graph.connect(height_value, "out", mask_value, "x")
        uv = node(graph, "texcoord")
        self.height = _buffer(graph, height_value, height_format or buffer_format, tiling)
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
        self.height_format = height_format or buffer_format
        self.tiling = tiling
        self.plan: PassPlan = plan_passes(graph)
        assert self.plan.ok, self.plan.diagnostics
        #: Every pass's buffer by pass key, (N, N, 4), first row at the top (as the runners return them).
        self.buffers: dict[str, np.ndarray] = {}

    def run_cpu(self) -> FilterRun:
        self.buffers = run_plan_cpu(self.plan)
        return self

    def image(self, node_id: str) -> np.ndarray:
        """A node's output buffer as float64, row 0 at v = 0 (the references' convention)."""
        key = self.plan.outputs[(node_id, "out")]
        return np.asarray(self.buffers[key], dtype=np.float64)[::-1]

    def grey(self, node_id: str) -> np.ndarray:
        return self.image(node_id)[..., 0]

    def output_format(self, name: str) -> str:
        """The format of filter `name`'s output: its input buffer's."""
        return self.height_format if name in HEIGHT_READERS else self.format

    def tolerance(self, name: str, arithmetic: float = 2e-5) -> float:
        """`arithmetic`, plus half a step of filter `name`'s output when it is 8-bit."""
        return arithmetic + (0.5 / 255.0 if self.output_format(name) == "8-bit" else 0.0)

    def expected(self, name: str) -> np.ndarray:
        """The reference of filter `name` on the input buffer the plan rendered, as an rgba image."""
        height = self.grey(self.height)
        if name == "curvature":
            return grey_rgba(curvature(height, CURVATURE["intensity"], CURVATURE["radius"], self.tiling))
        if name == "ambient_occlusion":
            settings = OCCLUSION
            return grey_rgba(ambient_occlusion(height, settings["radius"], settings["depth"], settings["intensity"],
                                                int(settings["directions"]), int(settings["steps"]), self.tiling))
        if name == "edge_detect":
            return grey_rgba(edge_detect(self.grey(self.mask), EDGES["threshold"], EDGES["width"], EDGES["softness"],
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


def grey_rgba(value: np.ndarray) -> np.ndarray:
    return np.stack([value, value, value, np.ones_like(value)], axis=-1)


def border(image: np.ndarray, width: int = 3) -> np.ndarray:
    """The texels within `width` of an edge of the texture."""
    mask = np.zeros(image.shape[:2], dtype=bool)
    mask[:width] = mask[-width:] = True
    mask[:, :width] = mask[:, -width:] = True
    return mask


FILTERS = ("curvature", "ambient_occlusion", "edge_detect", "texture_levels", "histogram_scan", "histogram_range")
