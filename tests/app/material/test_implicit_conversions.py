"""Implicit conversions between port types, as Blender makes them: a colour into a float input gives its
luminance (Rec. 709 weights), written into the module as explicit instructions and drawn by OpenGL; a float
broadcasts into colours and vectors; vec3 and colours go to each other as they are (alpha dropped or 1)."""

from __future__ import annotations

import numpy as np
import pytest
from material_render import render_material

from app.material.connections import can_connect
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.port_types import LUMINANCE_WEIGHTS, PortType, conversion


def test_a_colour_into_a_float_input_is_its_luminance() -> None:
    assert conversion(PortType.COLOR, PortType.FLOAT) == "luminance"
    assert LUMINANCE_WEIGHTS == (0.2126, 0.7152, 0.0722)  # ITU-R BT.709, as documented (docs/material-nodes.md)
    graph = MaterialGraph()
    color = graph.add_node("color_parameter")
    blend = graph.add_node("blend")
    assert can_connect(graph, color.id, "out", blend.id, "factor") == (True, "")
    # Still refused: a vector of another width into a float (no rule says which number to take).
    uv = graph.add_node("texcoord")
    allowed, reason = can_connect(graph, uv.id, "out", blend.id, "factor")
    assert not allowed and "vec2" in reason


@pytest.mark.gl
def test_the_luminance_is_written_into_the_module_and_drawn(current_gl) -> None:
    graph = MaterialGraph()
    colour = graph.add_node("color_parameter", properties={"name": "tint", "default": [0.2, 0.4, 0.6, 1.0]})
    compose = graph.add_node("compose", properties={"size": 3, "y": 0.25, "z": 0.0})
    output = graph.add_node("material_output")
    graph.connect(colour.id, "out", compose.id, "x")
    graph.connect(compose.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    assert "(dot " in result.text and "0.2126" in result.text and "0.7152" in result.text and "0.0722" in result.text
    pixels = render_material(result, 8, "glsl420", {"tint": (0.2, 0.4, 0.6, 1.0)})
    expected = 0.2126 * 0.2 + 0.7152 * 0.4 + 0.0722 * 0.6
    assert np.abs(pixels[..., 0] - expected).max() <= 1e-5
    assert np.abs(pixels[..., 1] - 0.25).max() <= 1e-6
    pixels = render_material(result, 8, "glsl420", {"tint": (1.0, 0.0, 0.0, 0.0)})  # alpha plays no part
    assert np.abs(pixels[..., 0] - 0.2126).max() <= 1e-5


@pytest.mark.gl
def test_mix_color_blends_two_colours_picked_on_the_node(current_gl) -> None:
    from app.material.catalog import NODE_TYPES

    mix_color = NODE_TYPES["mix_color"]
    assert [spec.kind for spec in mix_color.properties if spec.name in ("a", "b")] == ["color", "color"]
    graph = MaterialGraph()
    mix = graph.add_node("mix_color", properties={"a": [1.0, 0.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0, 1.0], "t": 0.25})
    output = graph.add_node("material_output")
    graph.connect(mix.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    pixels = render_material(result, 4, "glsl420")
    assert np.abs(pixels[..., :3] - np.array([0.75, 0.0, 0.25])).max() <= 1e-6
