"""MaterialX Fractal 3D (`mtlx_fractal_3d`) against the numpy port of MaterialX's own fractal3d
(tests/mtlx_noise_reference.py, itself checked against MaterialX's GLSL), read back from real OpenGL (RGBA32F).

The lattice hash is Jenkins' lookup3 in int32 arithmetic (XOR bit by bit): the same corner gradients as
MaterialX's, so the only differences are float rounding of the blend (under 1e-5 here), and the pattern
matches at every pixel. Points span many lattice cells with both signs on every axis.
"""

from __future__ import annotations

from typing import Any

import mtlx_noise_reference
import numpy as np
import pytest
from material_render import pixel_uv, render_material

from app.material.graph import MaterialGraph
from app.material.lowering import lower

SIZE = 64
#: position = (x s + o_x, y s + o_y, (x - y) s + o_z) over the test quad's world position (x, y) in [-1, 1]^2.
SCALE = 5.5
OFFSET = (-0.7, 1.3, -2.1)


def _graph(port: str, properties: dict[str, Any]) -> MaterialGraph:
    graph = MaterialGraph()
    split = graph.add_node("split")
    graph.connect(graph.add_node("world_position").id, "out", split.id, "vector")
    difference = graph.add_node("subtract")
    graph.connect(split.id, "x", difference.id, "a")
    graph.connect(split.id, "y", difference.id, "b")
    compose = graph.add_node("compose")
    for axis, source in zip("xyz", ((split.id, "x"), (split.id, "y"), (difference.id, "out")), strict=True):
        scaled = graph.add_node("multiply", properties={"b": SCALE})
        graph.connect(source[0], source[1], scaled.id, "a")
        shifted = graph.add_node("add", properties={"b": OFFSET["xyz".index(axis)]})
        graph.connect(scaled.id, "out", shifted.id, "a")
        graph.connect(shifted.id, "out", compose.id, axis)
    fractal = graph.add_node("mtlx_fractal_3d", properties=properties)
    graph.connect(compose.id, "out", fractal.id, "position")
    output = graph.add_node("material_output")
    graph.connect(fractal.id, port, output.id, "base_color")
    return graph


def _points() -> np.ndarray:
    u, v = pixel_uv(SIZE)
    x, y = u * np.float32(2.0) - np.float32(1.0), v * np.float32(2.0) - np.float32(1.0)
    scale = np.float32(SCALE)
    return np.stack([x * scale + np.float32(OFFSET[0]), y * scale + np.float32(OFFSET[1]),
                     (x - y) * scale + np.float32(OFFSET[2])], axis=-1).astype(np.float32)


CASES = [
    ("out", {"octaves": 3}),
    ("out", {"octaves": 5, "lacunarity": 2.7, "diminish": 0.6, "amplitude": 1.5}),
    ("vector", {"octaves": 2, "lacunarity": 1.9, "diminish": 0.45}),
]


@pytest.mark.gl
@pytest.mark.parametrize(("port", "properties"), CASES)
def test_the_fractal_is_materialx_fractal3d(current_gl: Any, port: str, properties: dict[str, Any]) -> None:
    result = lower(_graph(port, properties))
    assert result.ok, result.diagnostics
    pixels = render_material(result, SIZE, "glsl420")
    channels = 3 if port == "vector" else 1
    expected = mtlx_noise_reference.fractal3d(_points(), properties["octaves"], properties.get("lacunarity", 2.0),
                                              properties.get("diminish", 0.5), properties.get("amplitude", 1.0), channels)
    drawn = pixels[..., :3] if channels == 3 else pixels[..., 0]
    assert float(np.std(expected)) > 0.2 and (expected < -0.2).any()  # a signed pattern, not a constant
    assert np.abs(drawn - expected).max() < 2e-5, np.abs(drawn - expected).max()
