"""Undo and redo of every kind of edit, through the paths the UI uses.

Each test records the `MaterialGraph` before and after one edit, then
checks that undo gives back the first and redo the second exactly (node ids,
properties, positions, connections), and that the panels follow.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.material.graph import MaterialGraph
from app.ui.properties_panel import FloatEdit


def undo_redo_round_trip(window, edit: Callable[[], None]) -> tuple[MaterialGraph, MaterialGraph]:
    before = window.material
    edit()
    after = window.material
    assert after != before, "the edit changed nothing"
    window.edit.undo_action.trigger()
    assert window.material == before
    window.edit.redo_action.trigger()
    assert window.material == after
    window.edit.undo_action.trigger()
    assert window.material == before
    window.edit.redo_action.trigger()
    return before, after


def test_create(window) -> None:
    before, after = undo_redo_round_trip(window, lambda: window.node_palette.request("value_noise"))
    assert len(after.nodes) == len(before.nodes) + 1
    (new_id,) = set(after.nodes) - set(before.nodes)
    assert after.nodes[new_id].type_name == "value_noise"


def test_delete(window) -> None:
    def delete() -> None:
        window.nodes.select_node("n3")
        window.edit.delete_action.trigger()

    before, after = undo_redo_round_trip(window, delete)
    assert "n3" in before.nodes and "n3" not in after.nodes
    assert all("n3" not in (c.source_node, c.target_node) for c in after.connections)


def test_connect(window) -> None:
    def connect() -> None:
        allowed, reason = window.nodes.connect_nodes("n4", "out", "n10", "opacity")
        assert allowed, reason

    before, after = undo_redo_round_trip(window, connect)
    assert after.connection_into("n10", "opacity") is not None
    assert before.connection_into("n10", "opacity") is None


def test_disconnect(window) -> None:
    connection = window.material.connection_into("n10", "base_color")
    assert connection is not None

    def disconnect() -> None:
        source = window.graph.node_by_stable_id(connection.source_node).outputs()[connection.source_port]
        target = window.graph.node_by_stable_id("n10").inputs()["base_color"]
        source.disconnect_from(target)

    _before, after = undo_redo_round_trip(window, disconnect)
    assert after.connection_into("n10", "base_color") is None


def test_move(window) -> None:
    """A mouse drag ends in the viewer's moved_nodes signal with the previous positions."""
    node = window.graph.node_by_stable_id("n2")

    def move() -> None:
        previous = node.view.xy_pos
        node.view.xy_pos = [previous[0] + 150.0, previous[1] - 40.0]
        window.graph.viewer().moved_nodes.emit({node.view: previous})

    before, after = undo_redo_round_trip(window, move)
    x, y = before.nodes["n2"].position
    assert after.nodes["n2"].position == (x + 150.0, y - 40.0)


def test_property_change_from_the_properties_panel(window) -> None:
    window.nodes.select_node("n7")  # fresnel
    assert window.properties_panel.node_id == "n7"
    edit = window.properties_panel.editor_widget("power").findChild(FloatEdit)
    assert edit is not None and edit.value == 4.0

    def change() -> None:
        edit.setText("2.75")
        edit.editingFinished.emit()

    before, after = undo_redo_round_trip(window, change)
    assert before.nodes["n7"].properties["power"] == 4.0
    assert after.nodes["n7"].properties["power"] == 2.75
    # The panel follows undo.
    window.edit.undo_action.trigger()
    assert edit.value == 4.0


def test_invalid_float_entries_are_not_applied(window) -> None:
    window.nodes.select_node("n7")
    edit = window.properties_panel.editor_widget("power").findChild(FloatEdit)
    before = window.material
    stack_size = window.graph_editor.model.stack.count
    edit.setText("four")
    edit.editingFinished.emit()
    assert window.material == before
    assert window.graph_editor.model.stack.count == stack_size
    assert "border" in edit.styleSheet()


def test_paste(window) -> None:
    window.nodes.select_node("n3")
    window.edit.copy_action.trigger()

    before, after = undo_redo_round_trip(window, lambda: window.edit.paste_action.trigger())
    new_ids = set(after.nodes) - set(before.nodes)
    assert len(new_ids) == 1
    (new_id,) = new_ids
    assert after.nodes[new_id].type_name == before.nodes["n3"].type_name
    assert after.nodes[new_id].properties == before.nodes["n3"].properties
    # The original keeps its id and its wiring.
    assert after.nodes["n3"] == before.nodes["n3"]
    assert window.graph.node_by_stable_id(new_id) is not window.graph.node_by_stable_id("n3")


def test_duplicate_and_cut(window) -> None:
    window.nodes.select_node("n7")
    before, after = undo_redo_round_trip(window, lambda: window.edit.duplicate_action.trigger())
    assert len(after.nodes) == len(before.nodes) + 1
    ids = [node.stable_id for node in window.graph.material_nodes()]
    assert len(ids) == len(set(ids))

    window.nodes.select_node("n7")
    before, after = undo_redo_round_trip(window, lambda: window.edit.cut_action.trigger())
    assert "n7" not in after.nodes


def test_undo_is_disabled_for_read_only_documents(window, prompts) -> None:
    spec = Path(__file__).resolve().parents[2] / "data" / "spec" / "canonical-example.vpl"
    window.graph.node_by_stable_id("n1").set_pos(1.0, 1.0)
    assert window.open_file(spec)
    assert prompts.named("ask_save_changes")  # the edit was discarded by answer, not silently
    assert not window.edit.undo_action.isEnabled() and not window.edit.redo_action.isEnabled()
