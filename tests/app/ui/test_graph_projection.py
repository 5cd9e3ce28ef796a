"""The NodeGraphQt view as the document model's projection, with the real widget: model changes reach the items,
gestures made in the view reach the model as commands, and undo is the model's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.graph.adapter import snapshot
from app.graph.nodes import FrameNode
from app.material.examples import EXAMPLE_GRAPHS
from app.material.graph import Connection
from app.material.groups import GROUP_TYPE
from app.ui.graph_editor import GraphEditor


@pytest.fixture
def editor(qtbot) -> Iterator[GraphEditor]:
    editor = GraphEditor()
    qtbot.addWidget(editor.graph.widget)
    editor.load(EXAMPLE_GRAPHS["lit_blinn_phong"]())
    yield editor
    editor.graph.clear_session()


def shows_the_model(editor: GraphEditor) -> bool:
    """The items say what the model's level says (the view read whole, only to compare).

    A view node has every property of its type (a group node's inputs at their defaults); the model's node
    may hold fewer: those it holds are compared.
    """
    shown = snapshot(editor.graph)
    level = editor.model.level_graph()
    if set(shown.nodes) != set(level.nodes) or shown.frames != level.frames:
        return False
    if sorted(shown.connections, key=Connection.sort_key) != sorted(level.connections, key=Connection.sort_key):
        return False
    return all(shown.nodes[node_id].position == node.position and shown.nodes[node_id].type_name == node.type_name
               and all(shown.nodes[node_id].properties.get(name) == value for name, value in node.properties.items())
               for node_id, node in level.nodes.items())


def test_model_commands_reach_the_items(editor) -> None:
    model = editor.model
    node_id = model.add_node("fresnel", (500.0, 500.0), {"power": 3.0})
    view_node = editor.graph.node_by_stable_id(node_id)
    assert view_node is not None and view_node.material_property("power") == 3.0
    assert tuple(view_node.pos()) == (500.0, 500.0)
    model.set_property(node_id, "power", 6.0)
    assert view_node.material_property("power") == 6.0
    ok, reason = model.connect(node_id, "out", "n9", "a")
    assert ok, reason
    assert view_node.outputs()["out"].connected_ports()[0].node().stable_id == "n9"
    model.move_nodes({node_id: (10.0, 20.0)})
    assert tuple(view_node.pos()) == (10.0, 20.0)
    assert shows_the_model(editor)
    while model.undo():
        assert shows_the_model(editor)
    assert editor.graph.node_by_stable_id(node_id) is None
    while model.redo():
        assert shows_the_model(editor)


def test_a_parameter_rename_reaches_the_title(editor) -> None:
    editor.model.set_property("n1", "name", "tint")
    assert editor.graph.node_by_stable_id("n1").view.name == "Color Parameter: tint"


def test_gestures_in_the_view_become_model_commands(editor) -> None:
    model, graph = editor.model, editor.graph
    steps = model.stack.count
    # moving a node (NodeGraphQt records a position change)
    graph.node_by_stable_id("n7").set_pos(40.0, 60.0)
    assert model.document.nodes["n7"].position == (40.0, 60.0) and model.stack.count == steps + 1
    # a wire drawn between ports
    source, target = graph.node_by_stable_id("n7"), graph.node_by_stable_id("n10")
    source.outputs()["out"].connect_to(target.inputs()["opacity"])
    assert Connection("n7", "out", "n10", "opacity") in model.document.connections
    # deleting nodes takes their wires along, as one step
    graph.delete_nodes([graph.node_by_stable_id("n9"), graph.node_by_stable_id("n8")])
    assert "n9" not in model.document.nodes and "n8" not in model.document.nodes
    assert not [c for c in model.document.connections if "n9" in (c.source_node, c.target_node)]
    assert model.stack.undo_text() == 'deleted "2" node(s)'
    assert shows_the_model(editor)
    model.undo()
    assert "n9" in model.document.nodes and shows_the_model(editor)
    model.undo()
    model.undo()
    assert model.document.nodes["n7"].position != (40.0, 60.0) and shows_the_model(editor)


def test_a_pasted_parameter_node_gets_a_fresh_id_and_name(editor) -> None:
    graph = editor.graph
    graph.copy_nodes([graph.node_by_stable_id("n4")])
    graph.paste_nodes()
    (new_id,) = set(editor.model.document.nodes) - set(EXAMPLE_GRAPHS["lit_blinn_phong"]().nodes)
    assert editor.model.document.nodes[new_id].properties["name"] == "shininess2"
    assert editor.model.stack.count == 1 and shows_the_model(editor)
    editor.undo()
    assert new_id not in editor.model.document.nodes and graph.node_by_stable_id(new_id) is None


def test_a_frame_drawn_in_the_view_is_recorded(editor) -> None:
    graph = editor.graph
    graph.scene().clearSelection()
    for node_id in ("n7", "n8"):
        graph.node_by_stable_id(node_id).view.setSelected(True)
    frame = graph.frame_around_selection("Rim")
    assert isinstance(frame, FrameNode)
    (recorded,) = editor.model.document.frames
    assert recorded.title == "Rim" and set(recorded.node_ids) >= {"n7", "n8"}
    editor.undo()
    assert editor.model.document.frames == [] and not [n for n in graph.all_nodes() if isinstance(n, FrameNode)]


def test_entering_and_leaving_groups_rebuilds_the_level_with_named_nodes(editor) -> None:
    graph = editor.graph
    titles = {node.stable_id: node.view.name for node in graph.material_nodes()}
    graph.scene().clearSelection()
    for node_id in ("n7", "n9"):
        graph.node_by_stable_id(node_id).view.setSelected(True)
    assert editor.groups.group_selection("Rim") == ""
    instance = next(n for n in editor.model.document.nodes.values() if n.type_name == GROUP_TYPE)
    rebuilt: list[bool] = []
    editor.viewRebuilt.connect(lambda: rebuilt.append(True))
    assert editor.groups.enter_group(instance.properties["function"]) and rebuilt
    assert editor.level is not None and shows_the_model(editor)
    assert {node.type_name for node in editor.model.level_graph().nodes.values()} >= {"fresnel", "multiply"}
    assert editor.groups.exit_group()
    assert editor.level is None and shows_the_model(editor)
    after = {node.stable_id: node.view.name for node in graph.material_nodes()}
    assert after["n1"] == "Color Parameter: base_color" and after["n4"] == titles["n4"]
    assert editor.selected_ids() == [instance.id]
    editor.undo()  # back inside
    assert editor.level is not None and shows_the_model(editor)


def test_undoing_nodegraphqts_own_stack_brings_the_record_back(editor) -> None:
    """Undo is the model's; should anything undo NodeGraphQt's journal, the view shows the record again."""
    editor.graph.node_by_stable_id("n7").set_pos(40.0, 60.0)
    moved = editor.model.document
    editor.graph.undo_stack().undo()
    assert editor.model.document is moved and shows_the_model(editor)
    assert tuple(editor.graph.node_by_stable_id("n7").pos()) == (40.0, 60.0)


def test_undo_back_to_a_property_the_document_did_not_store_shows_its_default(editor) -> None:
    # A document may leave a property out (a Custom Code input added later, an older file): it reads as its
    # default. Undoing the first edit of it takes the property out again; the node shows the default.
    document = editor.material.copy()
    node_id = document.add_node("fresnel", (500.0, 500.0)).id
    default = document.nodes[node_id].properties.pop("power")
    editor.load(document)
    view_node = editor.graph.node_by_stable_id(node_id)
    assert view_node.material_property("power") == default
    editor.model.set_property(node_id, "power", default + 2.0)
    assert view_node.material_property("power") == default + 2.0
    assert editor.model.undo()
    assert "power" not in editor.model.level_graph().nodes[node_id].properties
    assert view_node.material_property("power") == default
    assert shows_the_model(editor)
