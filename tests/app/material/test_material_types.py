"""Port types: the connection rules, can_connect's answers and reasons, and type propagation."""

from __future__ import annotations

import pytest

from app.material.connections import can_connect
from app.material.graph import MaterialGraph
from app.material.port_types import DYNAMIC, PortType, conversion
from app.material.propagation import propagate


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        (PortType.FLOAT, PortType.FLOAT, "same"),
        (PortType.FLOAT, PortType.VEC3, "broadcast"),
        (PortType.FLOAT, PortType.COLOR, "broadcast"),
        (PortType.COLOR, PortType.VEC4, "same"),
        (PortType.VEC4, PortType.COLOR, "same"),
        (PortType.COLOR, PortType.VEC3, "drop_alpha"),
        (PortType.VEC3, PortType.COLOR, "add_alpha"),
        (PortType.VEC4, PortType.VEC3, None),
        (PortType.VEC2, PortType.VEC3, None),
        (PortType.VEC3, PortType.FLOAT, None),
        (PortType.TEXTURE, PortType.FLOAT, "sample"),  # read at the mesh UV, then the luminance
        (PortType.TEXTURE, PortType.COLOR, "sample"),
        (PortType.TEXTURE, PortType.BOOL, None),
        (PortType.TEXTURE, PortType.VEC2, None),  # a colour does not become a vec2 either
        (PortType.FLOAT, PortType.TEXTURE, None),
        (PortType.BOOL, PortType.FLOAT, None),
        (PortType.FLOAT, PortType.BOOL, None),
        (PortType.TEXTURE, PortType.TEXTURE, "same"),
        (PortType.BOOL, PortType.BOOL, "same"),
    ],
)
def test_conversion_table(source: PortType, target: PortType, expected: str | None) -> None:
    assert conversion(source, target) == expected


def nodes(graph: MaterialGraph, *type_names: str) -> list[str]:
    return [graph.add_node(type_name).id for type_name in type_names]


def test_can_connect_accepts_matching_and_broadcast_connections() -> None:
    graph = MaterialGraph()
    uv, time, tiling, color, lambert, output = nodes(graph, "texcoord", "time", "tiling_offset", "color_parameter", "lambert", "material_output")
    assert can_connect(graph, uv, "out", tiling, "uv") == (True, "")
    assert can_connect(graph, time, "out", tiling, "tiling") == (True, "")  # float broadcast
    assert can_connect(graph, color, "out", output, "emissive") == (True, "")  # colour drops alpha
    assert can_connect(graph, lambert, "out", output, "base_color") == (True, "")


def test_can_connect_refuses_type_mismatches_naming_both_types() -> None:
    graph = MaterialGraph()
    uv, lambert, image, add, compare = nodes(graph, "texcoord", "lambert", "texture_parameter", "add", "compare")
    allowed, reason = can_connect(graph, uv, "out", lambert, "normal")
    assert not allowed and "vec2" in reason and "vec3" in reason and "normal" in reason
    allowed, reason = can_connect(graph, image, "out", add, "a")
    assert not allowed and "texture" in reason
    allowed, reason = can_connect(graph, compare, "out", add, "a")
    assert not allowed and "bool" in reason


def test_can_connect_refuses_self_cycles_and_unknown_things() -> None:
    graph = MaterialGraph()
    first, second, third = nodes(graph, "add", "add", "add")
    graph.connect(first, "out", second, "a")
    graph.connect(second, "out", third, "a")
    assert can_connect(graph, first, "out", first, "b") == (False, "a node cannot connect to itself")
    allowed, reason = can_connect(graph, third, "out", first, "b")
    assert not allowed and "cycle" in reason
    allowed, reason = can_connect(graph, first, "nope", second, "b")
    assert not allowed and "nope" in reason
    allowed, reason = can_connect(graph, first, "out", second, "nope")
    assert not allowed and "nope" in reason
    allowed, reason = can_connect(graph, "missing", "out", second, "b")
    assert not allowed and "missing" in reason
    alien = graph.add_node("alien").id
    allowed, reason = can_connect(graph, alien, "out", second, "b")
    assert not allowed and "alien" in reason


def test_dynamic_inputs_must_agree_in_width() -> None:
    graph = MaterialGraph()
    uv, position, time, add = nodes(graph, "texcoord", "world_position", "time", "add")
    graph.connect(uv, "out", add, "a")
    allowed, reason = can_connect(graph, position, "out", add, "b")
    assert not allowed and "vec2" in reason and "vec3" in reason
    assert can_connect(graph, time, "out", add, "b") == (True, "")  # a float always fits
    # Replacing the only wide input is fine: the old connection does not count.
    assert can_connect(graph, position, "out", add, "a") == (True, "")


def test_a_width_change_that_breaks_a_downstream_node_is_refused() -> None:
    graph = MaterialGraph()
    time, uv, add, lambert = nodes(graph, "time", "texcoord", "add", "lambert")
    graph.connect(time, "out", add, "a")
    graph.connect(add, "out", lambert, "normal")  # float broadcasts into vec3
    allowed, reason = can_connect(graph, uv, "out", add, "b")  # would make add a vec2
    assert not allowed and lambert in reason and "vec2" in reason


def test_propagation_resolves_dynamic_widths_and_colours() -> None:
    graph = MaterialGraph()
    color, time, multiply, split, swizzle, compose = nodes(graph, "color_parameter", "time", "multiply", "split", "swizzle", "compose")
    graph.connect(color, "out", multiply, "a")
    graph.connect(time, "out", multiply, "b")
    graph.connect(multiply, "out", split, "vector")
    graph.connect(multiply, "out", swizzle, "vector")
    graph.nodes[swizzle].properties["pattern"] = "bgr"
    graph.nodes[compose].properties["size"] = 2
    resolution = propagate(graph)
    assert resolution.errors == {}
    types = resolution.port_types
    assert types[(multiply, "a")] is types[(multiply, "b")] is types[(multiply, "out")] is PortType.COLOR
    assert types[(split, "w")] is PortType.FLOAT
    assert types[(swizzle, "out")] is PortType.VEC3
    assert types[(compose, "out")] is PortType.VEC2
    assert types[(time, "out")] is PortType.FLOAT


def test_propagation_reports_node_errors_instead_of_raising() -> None:
    graph = MaterialGraph()
    uv, swizzle, bad = nodes(graph, "texcoord", "swizzle", "swizzle")
    graph.connect(uv, "out", swizzle, "vector")  # pattern "xyz" on a vec2
    graph.nodes[bad].properties["pattern"] = "xq"
    resolution = propagate(graph)
    assert "'z'" in resolution.errors[swizzle][0]
    assert "pattern" in resolution.errors[bad][0]
    assert {swizzle, bad} <= resolution.blocked


def test_dynamic_constraint_is_not_a_port_type() -> None:
    assert DYNAMIC not in set(PortType)
    assert str(DYNAMIC).startswith("float or vector")
