"""The document model without Qt: every editing flow, its change events, undo and redo, merging and the modified flag.

Each flow is checked against the document as it was before (undo gives back
an equal document) and against the material layer's own operations
(group_nodes, ungroup, can_connect), which the model must use unchanged.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.material.examples import EXAMPLE_GRAPHS
from app.material.graph import Connection, MaterialGraph, Node, ParameterVariant
from app.material.groups import GROUP_TYPE, GroupingError, group_nodes, ungroup
from app.session.document_commands import (
    Change,
    Connected,
    Disconnected,
    DocumentReplaced,
    LevelChanged,
    NodeAdded,
    NodeMoved,
    NodeRemoved,
    PropertyChanged,
    StageChanged,
    VariantsChanged,
)
from app.session.document_model import DocumentModel
from app.session.variants import VariantNameError


def blinn() -> MaterialGraph:
    return EXAMPLE_GRAPHS["lit_blinn_phong"]()


def watched(document: MaterialGraph | None = None) -> tuple[DocumentModel, list[Change]]:
    model = DocumentModel(document if document is not None else blinn())
    changes: list[Change] = []
    model.changed.connect(changes.append)
    return model, changes


def undo_redo_round_trip(model: DocumentModel, before: MaterialGraph) -> None:
    """Undo gives back `before`, redo the document after the edit, both equal and as new objects."""
    after = model.document.copy()
    assert model.undo()
    assert model.document == before
    assert model.redo()
    assert model.document == after


def test_no_qt_is_imported() -> None:
    code = ("import sys, app.session.document_model; "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'NodeGraphQt', 'OpenGL')]")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[3])


def test_load_makes_a_copy_with_an_empty_history() -> None:
    graph = blinn()
    model, changes = watched(graph)
    assert model.document == graph and model.document is not graph
    assert not model.modified and not model.stack.can_undo()
    model.load(EXAMPLE_GRAPHS["grouped_rock"]())
    assert changes == [DocumentReplaced((), loaded=True)]


def test_add_node_undo_redo() -> None:
    model, changes = watched()
    before = model.document.copy()
    node_id = model.add_node("fresnel", (10.0, 20.0), {"power": 2.0})
    node = model.document.nodes[node_id]
    assert node.type_name == "fresnel" and node.properties["power"] == 2.0 and node.position == (10.0, 20.0)
    assert changes == [NodeAdded(None, node)]
    assert model.modified and model.stack.undo_text() == "Add fresnel"
    undo_redo_round_trip(model, before)
    assert isinstance(changes[1], NodeRemoved) and isinstance(changes[2], NodeAdded)


def test_a_parameter_node_gets_a_free_name() -> None:
    model, _ = watched()
    node_id = model.add_node("color_parameter", (0.0, 0.0), None)
    names = [node.properties["name"] for node in model.document.nodes.values() if "name" in node.properties]
    assert len(names) == len(set(names)) and model.document.nodes[node_id].properties["name"] in names


def test_edits_never_change_a_document_handed_out_earlier() -> None:
    model, _ = watched()
    earlier = model.document
    copy_ = earlier.copy()
    model.set_property("n7", "power", 9.0)
    model.move_nodes({"n1": (5.0, 5.0)})
    model.remove_nodes(["n2"])
    assert earlier == copy_ and model.document != copy_


def test_connect_checks_types_and_replaces_the_wire_into_the_input() -> None:
    model, changes = watched()
    before = model.document.copy()
    old = model.document.connection_into("n10", "emissive")
    assert old is not None
    ok, reason = model.connect("n7", "out", "n10", "emissive")
    assert ok, reason
    assert model.document.connection_into("n10", "emissive") == Connection("n7", "out", "n10", "emissive")
    assert changes == [Disconnected(None, old), Connected(None, Connection("n7", "out", "n10", "emissive"))]
    undo_redo_round_trip(model, before)

    changes.clear()
    ok, reason = model.connect("n10", "emissive", "n10", "emissive")
    assert not ok and reason and not changes
    ok, reason = model.connect("n3", "out", "n1", "nothing")
    assert not ok and reason


def test_a_refused_connection_says_what_can_connect_says() -> None:
    model, _ = watched()
    from app.material.connections import can_connect

    # a cycle: the add node's output into the multiply that feeds it
    expected = can_connect(model.document, "n6", "out", "n3", "a")
    assert model.connect("n6", "out", "n3", "a") == expected and not expected[0]
    assert model.stack.count == 0


def test_disconnect_undo_redo() -> None:
    model, changes = watched()
    before = model.document.copy()
    wire = model.document.connections[0]
    assert model.disconnect(wire.source_node, wire.source_port, wire.target_node, wire.target_port)
    assert wire not in model.document.connections and changes == [Disconnected(None, wire)]
    assert not model.disconnect(wire.source_node, wire.source_port, wire.target_node, wire.target_port)
    undo_redo_round_trip(model, before)


def test_delete_removes_wires_and_frame_membership_and_undo_brings_them_back() -> None:
    graph = blinn()
    graph.add_frame("Rim", node_ids=["n7", "n8", "n9"])
    model, changes = watched(graph)
    before = model.document.copy()
    model.remove_nodes(["n9", "n7"])
    document = model.document
    assert "n9" not in document.nodes and "n7" not in document.nodes
    assert not [c for c in document.connections if {"n7", "n9"} & {c.source_node, c.target_node}]
    assert document.frames[0].node_ids == ["n8"]
    removed = [change.node_id for change in changes if isinstance(change, NodeRemoved)]
    assert removed == ["n9", "n7"]
    # each wire is announced before the node it hangs on goes
    assert all(isinstance(change, Disconnected) for change in changes[:changes.index(NodeRemoved(None, "n9"))])
    undo_redo_round_trip(model, before)
    assert model.stack.undo_text() == "Delete 2 nodes"


def test_move_merges_a_drag_into_one_step() -> None:
    model, changes = watched()
    before = model.document.copy()
    model.move_nodes({"n1": (1.0, 1.0), "n2": (2.0, 2.0)})
    model.move_nodes({"n1": (3.0, 3.0), "n2": (4.0, 4.0)}, continuing=True)
    assert model.stack.count == 1
    assert model.document.nodes["n1"].position == (3.0, 3.0)
    assert changes[-1] == NodeMoved(None, "n2", (4.0, 4.0))
    undo_redo_round_trip(model, before)
    # a drag that comes back to where it started is no step at all
    model.undo()
    model.move_nodes({"n1": (9.0, 9.0)})
    model.move_nodes({"n1": before.nodes["n1"].position}, continuing=True)
    assert model.stack.count == 0 and not model.modified


def test_set_property_merges_a_slider_drag_and_a_new_gesture_is_a_new_step() -> None:
    model, changes = watched()
    before = model.document.copy()
    for value in (2.0, 3.0, 5.0):
        model.set_property("n7", "power", value, continuing=value != 2.0, text='Change "power" of Fresnel')
    assert model.stack.count == 1 and model.stack.undo_text() == 'Change "power" of Fresnel'
    assert changes == [PropertyChanged(None, "n7", "power", value) for value in (2.0, 3.0, 5.0)]
    model.set_property("n7", "power", 6.0)
    assert model.stack.count == 2
    model.set_property("n7", "power", 6.0)  # no change: no step
    assert model.stack.count == 2
    model.undo()
    undo_redo_round_trip(model, before)


def test_paste_gives_fresh_ids_and_parameter_names_and_keeps_inner_wires() -> None:
    model, _ = watched()
    before = model.document.copy()
    nodes = [model.document.nodes[node_id] for node_id in ("n1", "n3")]
    wires = [c for c in model.document.connections if c.source_node == "n1" and c.target_node == "n3"]
    renamed = model.paste(nodes, wires, offset=(50.0, 0.0))
    assert set(renamed) == {"n1", "n3"} and not set(renamed.values()) & set(before.nodes)
    copy_of_color = model.document.nodes[renamed["n1"]]
    assert copy_of_color.properties["name"] != "base_color"
    assert copy_of_color.position == (before.nodes["n1"].position[0] + 50.0, before.nodes["n1"].position[1])
    assert Connection(renamed["n1"], "out", renamed["n3"], "a") in model.document.connections
    undo_redo_round_trip(model, before)


def test_group_and_ungroup_are_the_material_layers_operations() -> None:
    model, changes = watched()
    before = model.document.copy()
    instance = model.group(["n7", "n9"], "Rim")
    expected = group_nodes(before, None, ["n7", "n9"], "Rim")
    assert instance == expected.instance_id and model.document == expected.document
    assert changes == [DocumentReplaced(())]
    assert model.stack.undo_text() == 'Group 2 nodes as "Rim"'
    undo_redo_round_trip(model, before)

    grouped = model.document.copy()
    model.ungroup([instance])
    assert model.document == ungroup(grouped, None, instance)
    undo_redo_round_trip(model, grouped)
    with pytest.raises(GroupingError):
        model.group([])
    assert model.document == ungroup(grouped, None, instance)


def test_a_refused_grouping_leaves_the_document_and_the_history() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    buffer = graph.add_node("texture_buffer")
    sample = graph.add_node("sample_texture")
    graph.connect(buffer.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", output.id, "base_color")
    model, changes = watched(graph)
    before = model.document.copy()
    with pytest.raises(GroupingError, match=f"Texture Buffer {buffer.id}"):
        model.group([buffer.id, sample.id])
    assert model.document == before
    assert changes == [] and model.stack.count == 0 and not model.modified


def test_enter_and_leave_nested_groups() -> None:
    model, changes = watched(EXAMPLE_GRAPHS["grouped_rock"]())
    top = model.document.copy()
    (outer_node,) = [node for node in model.document.nodes.values() if node.type_name == GROUP_TYPE]
    outer = model.instance_function(outer_node.id)
    assert outer is not None and model.enter_group(outer)
    assert list(model.path) == [outer] and model.level_graph() is model.document.functions[outer].body
    inner_nodes = [node.id for node in model.level_graph().nodes.values() if node.type_name == GROUP_TYPE]
    inner = model.instance_function(inner_nodes[0])
    assert inner is not None and model.enter_group(inner)
    assert model.path == (outer, inner)
    assert model.breadcrumb() == ["Material", "Rock pattern", model.document.functions[inner].name]
    assert not model.enter_group(outer)  # already on the path
    assert [change for change in changes if isinstance(change, LevelChanged)] == [
        LevelChanged((outer,), ()), LevelChanged((outer, inner), (outer,))]
    # entering is an undo step but not a change of the document
    assert not model.modified and model.document == top

    # an edit inside the inner body changes that body only
    body_node = next(iter(model.level_graph().nodes))
    model.move_nodes({body_node: (123.0, 45.0)})
    assert model.document.functions[inner].body.nodes[body_node].position == (123.0, 45.0)
    assert changes[-1] == NodeMoved(inner, body_node, (123.0, 45.0))
    assert model.document.nodes == top.nodes and model.modified

    assert model.leave_group()
    assert model.path == (outer,)
    assert model.leave_group(0) and model.path == ()
    assert not model.leave_group()
    model.undo()
    assert model.path == (outer,)
    model.undo()
    assert model.path == (outer, inner)
    model.undo()  # the move
    assert model.document == top and not model.modified
    model.undo()
    model.undo()
    assert model.path == ()
    assert model.redo() and model.path == (outer,)


def test_group_inside_a_group_and_undo_keeps_the_level() -> None:
    model, _ = watched(EXAMPLE_GRAPHS["grouped_rock"]())
    (outer_node,) = [node for node in model.document.nodes.values() if node.type_name == GROUP_TYPE]
    outer = model.instance_function(outer_node.id)
    assert outer is not None
    model.enter_group(outer)
    before = model.document.copy()
    body = model.level_graph()
    plain = [node_id for node_id, node in body.nodes.items() if node.type_name not in (GROUP_TYPE, "group_input",
                                                                                       "group_output")]
    model.group(plain[:1], "Inner")
    assert model.path == (outer,)
    assert model.document == group_nodes(before, outer, plain[:1], "Inner").document
    undo_redo_round_trip(model, before)
    assert model.path == (outer,)


def test_ungrouping_the_group_shown_keeps_the_path_valid() -> None:
    model, _ = watched()
    instance = model.group(["n7"], "Rim")
    function_id = model.instance_function(instance)
    assert function_id is not None
    model.enter_group(function_id)
    model.leave_group()
    model.ungroup([instance])
    assert model.path == () and function_id not in model.document.functions


def test_variants_add_rename_activate_set_reset_remove_and_undo() -> None:
    model, changes = watched()
    base = model.document.copy()
    assert model.values.add_variant(" rusty ") == "rusty"
    assert model.active_variant == "rusty" and model.variants == [ParameterVariant("rusty")]
    assert changes[-1] == VariantsChanged((ParameterVariant("rusty"),), "rusty")
    with pytest.raises(VariantNameError):
        model.values.add_variant("rusty")

    assert model.values.set_parameter_value("shininess", 10.0)
    assert model.values.set_parameter_value("shininess", 12.0, continuing=True)
    assert model.variants[0].values == {"shininess": 12.0}
    assert model.stack.count == 2  # the drag is one step
    assert model.document.nodes["n4"].properties["default"] == 48.0  # the node keeps its own value

    assert model.values.rename_variant("rusty", "worn") == "worn"
    assert model.active_variant == "worn"
    with pytest.raises(VariantNameError):
        model.values.rename_variant("missing", "x")

    model.values.reset_variant_value("shininess")
    assert model.variants[0].values == {}
    model.values.activate_variant(None)
    assert model.active_variant is None
    assert model.values.set_parameter_value("shininess", 20.0)
    assert model.document.nodes["n4"].properties["default"] == 20.0
    assert not model.values.set_parameter_value("nothing", 1.0)
    model.values.remove_variant("worn")
    assert model.variants == [] and model.active_variant is None
    with pytest.raises(VariantNameError):
        model.values.activate_variant("worn")

    texts = []
    while model.stack.can_undo():
        texts.append(model.stack.undo_text())
        model.undo()
    assert texts == ['Delete variant "worn"', 'Change parameter "shininess"', "Use the base values",
                     'Reset "shininess" in variant "worn"', 'Rename variant "rusty" to "worn"',
                     'Change "shininess" in variant "rusty"', 'Add variant "rusty"']
    assert model.document == base and not model.modified
    while model.redo():
        pass
    assert model.variants == [] and model.document.nodes["n4"].properties["default"] == 20.0


def test_stage_change_is_an_undoable_edit() -> None:
    model, changes = watched()
    model.set_stage({"mesh": "cube"})
    assert model.stage == {"mesh": "cube"} and changes == [StageChanged({"mesh": "cube"})]
    model.set_stage({"mesh": "cube"})
    assert model.stack.count == 1
    model.undo()
    assert model.stage is None and not model.modified
    model.redo()
    assert model.document.stage == {"mesh": "cube"}
    with pytest.raises(Exception):  # noqa: B017 - stage_data's own error for a stage that is not an object
        model.set_stage(["not", "a", "stage"])


def test_modified_follows_the_saved_point() -> None:
    model, _ = watched()
    states: list[bool] = []
    model.history_changed.connect(states.append)
    model.set_property("n7", "power", 2.0)
    assert model.modified
    model.mark_saved()
    assert not model.modified
    model.undo()
    assert model.modified
    model.redo()
    assert not model.modified
    # a continuing edit after saving is a new step, so undo returns to the saved state
    model.set_property("n7", "power", 3.0, continuing=True)
    assert model.stack.count == 2 and model.modified
    model.undo()
    assert not model.modified
    # a new edit after undoing past the saved point makes it unreachable
    model.undo()
    model.set_property("n7", "power", 7.0)
    assert model.modified
    model.undo()
    assert model.modified
    assert states[-1] is True


def test_a_macro_is_one_step_and_an_error_inside_undoes_it() -> None:
    model, _ = watched()
    before = model.document.copy()
    with model.macro("Add and wire"):
        node_id = model.add_node("fresnel", (0.0, 0.0))
        model.connect(node_id, "out", "n9", "a")
    assert model.stack.count == 1 and model.stack.undo_text() == "Add and wire"
    undo_redo_round_trip(model, before)
    model.undo()
    with pytest.raises(KeyError), model.macro("Broken"):
        model.add_node("fresnel", (0.0, 0.0))
        model.set_property("no such node", "power", 1.0)
    assert model.document == before and model.stack.count == 1  # the redo step is still there


def test_unknown_node_types_are_kept() -> None:
    graph = MaterialGraph()
    graph.nodes["n1"] = Node("n1", "from_a_newer_editor", {"x": 1}, (0.0, 0.0))
    model, _ = watched(graph)
    model.move_nodes({"n1": (1.0, 2.0)})
    assert model.document.nodes["n1"].properties == {"x": 1}
