"""The plain-data material graph: editing, ids, equality, dictionaries and copies."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from app.material.catalog import NODE_TYPES
from app.material.graph import Connection, Frame, GraphFormatError, MaterialGraph


def small_graph() -> MaterialGraph:
    graph = MaterialGraph()
    time = graph.add_node("time", (10.0, 20.0))
    wave = graph.add_node("sin", (200.0, 20.0))
    output = graph.add_node("material_output", (400.0, 0.0))
    graph.connect(time.id, "out", wave.id, "x")
    graph.connect(wave.id, "out", output.id, "base_color")
    graph.add_frame("Wave", (0.0, 0.0), (300.0, 120.0), [time.id, wave.id])
    return graph


def test_add_node_fills_catalog_defaults_and_generates_ids() -> None:
    graph = MaterialGraph()
    first = graph.add_node("clamp")
    second = graph.add_node("clamp", properties={"maximum": 2.0})
    assert (first.id, second.id) == ("n1", "n2")
    assert first.properties == NODE_TYPES["clamp"].default_properties()
    assert second.properties["maximum"] == 2.0 and second.properties["minimum"] == 0.0
    assert graph.add_node("time", node_id="custom").id == "custom"
    assert graph.add_node("time").id == "n3"
    with pytest.raises(ValueError):
        graph.add_node("time", node_id="n1")


def test_ids_are_not_reused_while_their_node_exists() -> None:
    graph = MaterialGraph()
    ids = [graph.add_node("time").id for _ in range(5)]
    graph.remove_node(ids[1])
    assert graph.add_node("time").id == "n6"
    assert len(set(graph.nodes)) == 5


def test_unknown_node_types_are_kept() -> None:
    graph = MaterialGraph()
    node = graph.add_node("from_a_newer_editor", properties={"answer": 42})
    assert graph.nodes[node.id].properties == {"answer": 42}


def test_connect_replaces_the_existing_connection_into_an_input() -> None:
    graph = small_graph()
    constant = graph.add_node("constant_float")
    graph.connect(constant.id, "out", "n2", "x")
    into = [c for c in graph.connections if c.target_node == "n2" and c.target_port == "x"]
    assert into == [Connection(constant.id, "out", "n2", "x")]
    with pytest.raises(KeyError):
        graph.connect("nope", "out", "n2", "x")


def test_disconnect_and_remove_node() -> None:
    graph = small_graph()
    assert graph.disconnect("n1", "out", "n2", "x")
    assert not graph.disconnect("n1", "out", "n2", "x")
    graph.connect("n1", "out", "n2", "x")
    graph.remove_node("n2")
    assert graph.connections == []
    assert graph.frames[0].node_ids == ["n1"]
    with pytest.raises(KeyError):
        graph.remove_node("n2")
    assert graph.disconnect_input("n3", "base_color") is None


def test_connection_queries() -> None:
    graph = small_graph()
    assert graph.connection_into("n3", "base_color") == Connection("n2", "out", "n3", "base_color")
    assert graph.connections_from("n1") == [Connection("n1", "out", "n2", "x")]


def test_dictionary_round_trip_is_exact_and_json_able() -> None:
    graph = small_graph()
    graph.nodes["n3"].properties["base_color"] = (0.1, 0.2, 0.3, 1.0)
    data = graph.to_dict()
    assert data["format"] == "vpl-material-graph" and data["version"] == 1
    restored = MaterialGraph.from_dict(json.loads(json.dumps(data)))
    assert restored == graph
    assert restored.nodes["n3"].properties["base_color"] == (0.1, 0.2, 0.3, 1.0)
    assert restored.to_dict() == data


def test_equality_and_dictionaries_ignore_connection_and_insertion_order() -> None:
    graph = small_graph()
    shuffled = MaterialGraph(
        {node_id: graph.nodes[node_id] for node_id in reversed(list(graph.nodes))},
        list(reversed(graph.connections)),
        list(graph.frames),
    )
    assert shuffled == graph
    assert json.dumps(shuffled.to_dict()) == json.dumps(graph.to_dict())
    other = graph.copy()
    other.nodes["n1"].position = (0.0, 0.0)
    assert other != graph


def test_copy_is_deep() -> None:
    graph = small_graph()
    graph.nodes["n3"].properties["base_color"] = [0.5, 0.5, 0.5, 1.0]
    copied = graph.copy()
    copied.nodes["n3"].properties["base_color"][0] = 1.0
    copied.frames[0].node_ids.append("n3")
    copied.connect("n1", "out", "n3", "opacity")
    assert graph.nodes["n3"].properties["base_color"][0] == 0.5
    assert graph.frames[0].node_ids == ["n1", "n2"]
    assert len(graph.connections) == 2


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {"format": "something else", "version": 1},
        {"format": "vpl-material-graph", "version": 99},
        {"format": "vpl-material-graph", "version": 1, "nodes": [{"id": "n1"}]},
        {"format": "vpl-material-graph", "version": 1, "nodes": [{"id": "n1", "type": "time", "position": [1]}]},
        {"format": "vpl-material-graph", "version": 1, "nodes": [{"id": "n1", "type": "time", "properties": {"x": {"y": 1}}}]},
        {"format": "vpl-material-graph", "version": 1, "nodes": [{"id": "n1", "type": "time"}, {"id": "n1", "type": "time"}]},
        {"format": "vpl-material-graph", "version": 1, "connections": [{"source_node": "a", "source_port": "out", "target_node": "b", "target_port": "x"}]},
        {"format": "vpl-material-graph", "version": 1, "frames": [{"id": 3}]},
        {"format": "vpl-material-graph", "version": 1, "nodes": "not a list"},
    ],
)
def test_malformed_dictionaries_raise_graph_format_error(data: object) -> None:
    with pytest.raises(GraphFormatError):
        MaterialGraph.from_dict(data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10,
)


@settings(max_examples=examples(200), deadline=None)
@given(json_values)
def test_from_dict_never_raises_anything_but_graph_format_error(data: object) -> None:
    for candidate in (data, {"format": "vpl-material-graph", "version": 1, "nodes": data}, {"format": "vpl-material-graph", "version": 1, "nodes": [{"id": "n1", "type": "time", "properties": data}]}):
        with contextlib.suppress(GraphFormatError):
            MaterialGraph.from_dict(candidate)


def test_frame_dataclass_and_ids() -> None:
    graph = MaterialGraph()
    first = graph.add_frame("A")
    second = graph.add_frame("B", node_ids=["n1"])
    assert (first.id, second.id) == ("f1", "f2")
    assert isinstance(second, Frame) and second.node_ids == ["n1"]
    graph.remove_frame("f1")
    assert [frame.id for frame in graph.frames] == ["f2"]
