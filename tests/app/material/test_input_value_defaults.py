"""Every value input of every node type has a stored, editable default, and files saved before read the same."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.material.catalog import NODE_TYPES
from app.material.document import load_text
from app.material.graph import MaterialGraph
from app.material.lowering import default_numbers, lower
from app.material.node_types import NodeType, PortSpec
from app.material.port_types import Constraint, PortType, float_type
from app.material.propagation import propagate

SAVED = Path(__file__).resolve().parents[2] / "data" / "saved"

#: The property kinds an on-node editor exists for (`app.graph.nodes.MaterialNode._add_input_values`).
EDITABLE_KINDS = ("float", "color", "vector", "bool")
VALUE_TYPES = (PortType.FLOAT, PortType.COLOR, PortType.VEC2, PortType.VEC3, PortType.VEC4, PortType.BOOL)

#: Value inputs with nothing to edit on purpose, each with why.
WITHOUT_EDITABLE_DEFAULT = {
    ("reroute", "in"): "a reroute is a point on a wire: it passes on what feeds it and has no value of its own",
}


def _value_inputs() -> Iterator[tuple[NodeType, PortSpec]]:
    for node_type in NODE_TYPES.values():
        for port in node_type.inputs:
            # A default naming a surface source ("texcoord", "world_normal") reads the surface, not a value.
            if isinstance(port.default, str):
                continue
            if port.type in VALUE_TYPES or isinstance(port.type, Constraint):
                yield node_type, port


def test_every_value_input_of_every_node_type_has_an_editable_default() -> None:
    missing = []
    for node_type, port in _value_inputs():
        spec = node_type.property(port.name)
        if (node_type.type_name, port.name) in WITHOUT_EDITABLE_DEFAULT:
            assert spec is None, f"{node_type.type_name}.{port.name} is editable now: drop its exception"
            continue
        if spec is None or spec.kind not in EDITABLE_KINDS:
            missing.append(f"{node_type.type_name}.{port.name}")
    assert not missing, f"value inputs with nothing to edit on the node: {missing}"
    assert all(NODE_TYPES[name].input(port) is not None for name, port in WITHOUT_EDITABLE_DEFAULT)


#: The inputs whose value was the port default alone until they got a property (files before store none).
GIVEN_PROPERTIES = {
    "dot": ("a", "b"), "cross": ("a", "b"), "length": ("vector",), "normalize": ("vector",), "distance": ("a", "b"),
    "project": ("a", "b"), "split": ("vector",), "swizzle": ("vector",), "component_min": ("vector",),
    "component_max": ("vector",), "component_sum": ("vector",), "reflect": ("incident",), "refract": ("incident",),
    "vector_rotate": ("vector",), "luminance": ("color",), "normal_map": ("tangent_normal",),
    "triplanar_blend": ("x", "y", "z", "weights"),
}


def test_every_given_default_reads_as_its_port_default_did() -> None:
    """A file saved before an input had its property stores none: the property's catalog default is read
    instead of the port default, so the two must be the same numbers at every width the input takes."""
    for type_name, names in GIVEN_PROPERTIES.items():
        node_type = NODE_TYPES[type_name]
        for name in names:
            port, spec = node_type.input(name), node_type.property(name)
            assert port is not None and spec is not None, (type_name, name)
            if isinstance(port.type, Constraint):
                width = len(port.default) if isinstance(port.default, tuple) else 1
                targets = [float_type(width)] + ([PortType.COLOR] if width == 4 else [])
            else:
                targets = [port.type]
            for target in targets:
                assert default_numbers(spec.default, target) == default_numbers(port.default, target), (
                    type_name, name, target)


@pytest.mark.parametrize(("name", "type_name", "port"), [("compare_and_branch_split", "split", "vector"),
                                                          ("painted_metal_normal_map", "normal_map", "tangent_normal")])
def test_a_file_saved_before_the_inputs_had_values_lowers_to_the_module_it_stored(name: str, type_name: str,
                                                                                  port: str) -> None:
    """Files written when Split and Normal Map stored nothing for their inputs (their node's "properties"
    lack "vector" / "tangent_normal"): the module lowered now is the one the file holds."""
    text = (SAVED / f"{name}.vpl").read_text(encoding="utf-8")
    loaded = load_text(text)
    assert loaded.graph is not None and not loaded.read_only, loaded.message
    nodes = [node for node in loaded.graph.nodes.values() if node.type_name == type_name]
    assert nodes and all(port not in node.properties for node in nodes)
    result = lower(loaded.graph)
    assert result.ok, result.diagnostics
    assert result.verified == loaded.verified


def _dot_of_texcoord(a: tuple[float, ...]) -> MaterialGraph:
    graph = MaterialGraph()
    output = graph.add_node("surface_output")
    uv = graph.add_node("texcoord")
    dot = graph.add_node("dot", properties={"a": a})
    graph.connect(uv.id, "out", dot.id, "b")
    graph.connect(dot.id, "out", output.id, "roughness")
    return graph


def test_an_unconnected_vector_takes_the_width_of_the_vectors_connected_beside_it() -> None:
    """Dot of a vec2 (connected) and a stored 3-vector (unconnected): the value is read as a vec2, its first two
    components, as a Blender socket converts; with only a float connected the stored width decides."""
    graph = _dot_of_texcoord((0.5, 0.25, 1.0))
    dot = next(node.id for node in graph.nodes.values() if node.type_name == "dot")
    resolution = propagate(graph)
    assert not resolution.errors, resolution.errors
    assert resolution.port_types[(dot, "a")] is PortType.VEC2
    result = lower(graph)
    assert result.ok, result.diagnostics
    assert "vec2(0.5, 0.25)" in result.artifact.fragment_code

    graph = MaterialGraph()
    output = graph.add_node("surface_output")
    color = graph.add_node("constant_color", properties={"value": (0.2, 0.4, 0.6, 0.8)})
    project = graph.add_node("project", properties={"b": (1.0, 0.0, 0.0)})
    graph.connect(color.id, "out", project.id, "a")
    graph.connect(project.id, "out", output.id, "base_color")
    resolution = propagate(graph)
    assert not resolution.errors, resolution.errors
    assert resolution.port_types[(project.id, "b")] is PortType.COLOR
    assert default_numbers((1.0, 0.0, 0.0), PortType.COLOR) == (1.0, 0.0, 0.0, 1.0)

    graph = MaterialGraph()
    output = graph.add_node("surface_output")
    number = graph.add_node("constant_float")
    length = graph.add_node("distance", properties={"a": (3.0, 4.0, 0.0)})
    graph.connect(number.id, "out", length.id, "b")
    graph.connect(length.id, "out", output.id, "roughness")
    resolution = propagate(graph)
    assert not resolution.errors, resolution.errors
    assert resolution.port_types[(length.id, "a")] is PortType.VEC3


def test_a_source_default_keeps_its_own_width() -> None:
    """Reflect's normal reads the surface normal (a vec3) when unconnected: it does not follow a vec2."""
    graph = MaterialGraph()
    output = graph.add_node("surface_output")
    uv = graph.add_node("texcoord")
    reflect = graph.add_node("reflect")
    graph.connect(uv.id, "out", reflect.id, "incident")
    graph.connect(reflect.id, "out", output.id, "base_color")
    resolution = propagate(graph)
    assert reflect.id in resolution.errors
