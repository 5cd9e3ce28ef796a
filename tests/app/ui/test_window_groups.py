"""Node groups in the real window (pytest-qt): Ctrl+G, Tab into and out of a group, the breadcrumb,
Ungroup, and undo/redo of every one of those steps, on the default example."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from app.material.graph import MaterialGraph
from app.material.groups import GROUP_INPUT_TYPE, GROUP_OUTPUT_TYPE, GROUP_TYPE

SAVED_IN_GROUPS = Path(__file__).resolve().parents[2] / "data" / "saved" / "texture_buffers_in_groups.vpl"


def _select(window, node_ids: list[str]) -> None:
    window.graph.scene().clearSelection()
    for node_id in node_ids:
        window.graph.node_by_stable_id(node_id).view.setSelected(True)


def _press(qtbot, window, key: Qt.Key, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    viewer = window.graph.viewer()
    window.activateWindow()
    qtbot.waitActive(window)
    viewer.setFocus()
    qtbot.waitUntil(viewer.hasFocus, timeout=5000)
    qtbot.keyClick(viewer, key, modifiers)


def _inner_ids(window) -> list[str]:
    return sorted(node_id for node_id, node in window.material.nodes.items()
                  if node.type_name not in ("material_output", "surface_output") and node.type_name != "texture_parameter")


def test_group_keys_are_blender_s(window) -> None:
    assert window.groups.group_action.shortcut() == QKeySequence("Ctrl+G")
    assert window.groups.ungroup_action.shortcut() == QKeySequence("Ctrl+Alt+G")
    assert window.groups.exit_group_action.shortcut() == QKeySequence("Ctrl+Tab")
    assert window.graph.wrap_frame_action.shortcut() == QKeySequence("Ctrl+J")


def test_ctrl_g_tab_breadcrumb_and_undo_of_every_step(qtbot, window) -> None:
    flat = window.material
    window.flush()
    assert window.result.ok
    reference_text = window.result.text
    chosen = _inner_ids(window)[:3]
    _select(window, chosen)

    _press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    grouped = window.material
    (instance_id,) = [node_id for node_id, node in grouped.nodes.items() if node.type_name == GROUP_TYPE]
    assert not set(chosen) & set(grouped.nodes)
    (function_id,) = grouped.functions
    assert sorted(node_id for node_id in grouped.functions[function_id].body.nodes
                  if grouped.functions[function_id].body.nodes[node_id].type_name
                  not in (GROUP_INPUT_TYPE, GROUP_OUTPUT_TYPE)) == sorted(chosen)
    window.flush()
    assert window.result.ok, [d.message for d in window.result.errors]
    assert "(call" in window.result.text and reference_text != window.result.text
    assert [node.stable_id for node in window.graph_editor.selected_material_nodes()] == [instance_id]
    assert window.breadcrumb.isHidden()

    # Tab into the selected group: the view shows its body, the breadcrumb says where we are.
    _press(qtbot, window, Qt.Key.Key_Tab)
    assert window.graph_editor.path == (function_id,)
    shown = {node.stable_id for node in window.graph.material_nodes()}
    assert shown == set(grouped.functions[function_id].body.nodes)
    assert window.breadcrumb.isVisible()
    assert window.breadcrumb.names == ["Material", grouped.functions[function_id].name]
    assert window.material == grouped  # moving between levels changes nothing in the document

    # An edit inside the group is an edit of the definition.
    inner = next(node_id for node_id in chosen if window.graph_editor.level_material().nodes[node_id].position)
    node = window.graph.node_by_stable_id(inner)
    x, y = node.pos()
    node.set_pos(x + 25.0, y)
    moved = window.material
    assert moved.functions[function_id].body.nodes[inner].position == (x + 25.0, y)
    assert moved.nodes == grouped.nodes

    # Back up with the breadcrumb's first crumb: the group node is selected again.
    window.breadcrumb.buttons[0].click()
    assert window.graph_editor.path == ()
    assert window.breadcrumb.isHidden()
    assert [node.stable_id for node in window.graph_editor.selected_material_nodes()] == [instance_id]
    assert window.material == moved

    # Undo walks back through every step: leaving, the move inside, entering, grouping.
    window.edit.undo_action.trigger()
    assert window.graph_editor.path == (function_id,) and window.material == moved
    assert window.breadcrumb.isVisible()
    window.edit.undo_action.trigger()
    assert window.material == grouped
    window.edit.undo_action.trigger()
    assert window.graph_editor.path == () and window.material == grouped
    window.edit.undo_action.trigger()
    assert window.material == flat
    assert {node.stable_id for node in window.graph.material_nodes()} == set(flat.nodes)
    # ... and redo forward again, onto the very same states.
    window.edit.redo_action.trigger()
    assert window.material == grouped
    window.edit.redo_action.trigger()
    assert window.graph_editor.path == (function_id,)
    window.edit.redo_action.trigger()
    assert window.material == moved
    window.edit.redo_action.trigger()
    assert window.graph_editor.path == () and window.material == moved
    window.flush()
    assert window.result.ok


def test_ctrl_tab_leaves_and_tab_without_a_group_searches(qtbot, window) -> None:
    _select(window, _inner_ids(window)[:2])
    window.groups.group_action.trigger()
    _press(qtbot, window, Qt.Key.Key_Tab)
    assert len(window.graph_editor.path) == 1
    _press(qtbot, window, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert window.graph_editor.path == ()
    window.graph.scene().clearSelection()
    _press(qtbot, window, Qt.Key.Key_Tab)  # nothing selected: the node search, as before
    assert window.graph_editor.path == ()
    assert window.graph.node_search.isVisible()
    window.graph.node_search.hide()


def test_ungroup_restores_the_graph_and_undoes(window) -> None:
    flat = window.material
    _select(window, _inner_ids(window)[:4])
    window.groups.group_action.trigger()
    grouped = window.material
    (instance_id,) = [node_id for node_id, node in grouped.nodes.items() if node.type_name == GROUP_TYPE]
    _select(window, [instance_id])
    window.groups.ungroup_action.trigger()
    assert window.material == flat
    window.edit.undo_action.trigger()
    assert window.material == grouped
    window.edit.redo_action.trigger()
    assert window.material == flat


def test_nested_groups_breadcrumb_three_levels(qtbot, window) -> None:
    ids = _inner_ids(window)
    _select(window, ids[:2])
    window.groups.group_action.trigger()
    first = next(n.stable_id for n in window.graph_editor.selected_material_nodes())
    _select(window, [first, ids[2]])
    window.groups.group_action.trigger()
    _press(qtbot, window, Qt.Key.Key_Tab)
    _select(window, [first])
    _press(qtbot, window, Qt.Key.Key_Tab)
    assert len(window.graph_editor.path) == 2
    assert len(window.breadcrumb.names) == 3
    window.breadcrumb.buttons[1].click()
    assert len(window.graph_editor.path) == 1
    _press(qtbot, window, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert window.graph_editor.path == ()
    window.flush()
    assert window.result.ok
    assert sum(1 for line in window.result.text.splitlines() if '(function ' in line and '"group' in line) == 2


def test_refused_grouping_says_why(window) -> None:
    output = next(node_id for node_id, node in window.material.nodes.items()
                  if node.type_name in ("material_output", "surface_output"))
    before = window.material
    _select(window, [output])
    window.groups.group_action.trigger()
    assert window.material == before
    assert "Cannot group" in window.statusBar().currentMessage()


def test_ctrl_g_refuses_texture_space_nodes_and_leaves_the_document(qtbot, window) -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output", position=(600.0, 0.0))
    noise = graph.add_node("white_noise", position=(0.0, 0.0))
    buffer = graph.add_node("texture_buffer", properties={"resolution": "256"}, position=(200.0, 0.0))
    sample = graph.add_node("sample_texture", position=(400.0, 0.0))
    graph.connect(noise.id, "out", buffer.id, "input")
    graph.connect(buffer.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", output.id, "base_color")
    window.load_graph(graph, "buffered noise")
    window.flush()
    before = window.material
    steps = window.graph_editor.model.stack.count
    _select(window, [noise.id, buffer.id, sample.id])
    _press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert window.material == before
    assert window.graph_editor.model.stack.count == steps
    assert {node.stable_id for node in window.graph.material_nodes()} == set(before.nodes)
    message = window.statusBar().currentMessage()
    assert "Cannot group" in message and f"Texture Buffer {buffer.id}" in message, message


def test_a_file_with_buffers_inside_groups_opens_naming_the_group_nodes(window) -> None:
    assert window.open_file(SAVED_IN_GROUPS, ask_to_save=False)
    window.flush()
    assert not window.result.ok
    rows = {row.node_id: row.message for row in window.diagnostics_panel.rows if row.node_id in ("n8", "n10")}
    assert "cannot sit inside a group" in rows["n8"] and "'Buffered noise'" in rows["n8"], rows
    assert "in group 'Inner buffer'" in rows["n10"], rows
    assert window.graph.node_by_stable_id("n10").view.has_error_marker


def test_palette_lists_the_groups_under_group_and_adds_instances(window) -> None:
    from app.ui.palette import GROUP_CATEGORY

    assert window.node_palette.item_for("custom_code").text(0) == "Custom Code"
    _select(window, _inner_ids(window)[:2])
    window.groups.group_action.trigger()
    (function_id,) = window.material.functions
    type_name = f"group:{function_id}"
    item = window.node_palette.item_for(type_name)
    assert item is not None and item.parent().text(0) == GROUP_CATEGORY
    window.node_palette.set_filter(window.material.functions[function_id].name[:4])
    assert type_name in window.node_palette.type_names(visible_only=True)
    window.node_palette.set_filter("")
    before = window.material
    window.node_palette.request(type_name)
    after = window.material
    instances = [node for node in after.nodes.values() if node.type_name == GROUP_TYPE]
    assert len(instances) == 2 and {node.properties["function"] for node in instances} == {function_id}
    window.flush()
    assert window.result.ok
    assert sum(1 for line in window.result.text.splitlines() if "(function " in line and '"group' in line) == 1
    window.edit.undo_action.trigger()
    assert window.material == before
    # Inside the group, its own entry is refused: a group cannot contain itself.
    _select(window, [instances[0].id if instances[0].id in before.nodes else instances[1].id])
    assert window.graph_editor.groups.enter_group()
    assert window.nodes.add_node_from_palette(type_name) is None
    assert "itself" in window.statusBar().currentMessage() or "recurs" in window.statusBar().currentMessage()


def test_function_library_save_use_and_offered_update(qtbot, window, make_window, prompts, function_library,
                                                      tmp_path) -> None:
    """Save a group to the library, use it in another material (embedded: the file alone opens), change the
    library copy, reopen: the update is offered and, accepted, re-applied (and undone by one Undo)."""
    from app.material.document import load_file
    from app.ui.palette import FUNCTIONS_CATEGORY

    _select(window, ["n3", "n6"])  # multiply and add: float properties to change
    window.groups.group_action.trigger()
    (function_id,) = window.material.functions
    saved = window.groups.save_group_to_library()
    assert saved is not None and saved.parent == function_library and saved.suffix == ".vplf"
    assert window.material.functions[function_id].library is not None
    key = f"user/{saved.name}"
    item = window.node_palette.item_for(f"function:{key}")
    assert item is not None and item.parent().text(0) == FUNCTIONS_CATEGORY

    other = make_window(load_example=False)
    other.groups.list_library_functions()
    assert other.nodes.add_node_from_palette(f"function:{key}") is not None
    embedded = other.material.functions
    assert len(embedded) == 1
    path = tmp_path / "uses_function.vpl"
    assert other.save_to(path)
    assert load_file(path).graph == other.material  # the definition is in the file itself

    # The library copy changes: a property inside the group.
    library_copy = window.groups.library_entries[key]
    changed = window.graph_editor.material.copy()
    inner, number = next((node_id, name) for node_id, node in changed.functions[function_id].body.nodes.items()
                         for name, value in node.properties.items() if isinstance(value, float))
    properties = changed.functions[function_id].body.nodes[inner].properties
    properties[number] = properties[number] + 0.5
    from app.material.library import save_function

    save_function(changed, function_id, library_copy.path.parent, "user")

    prompts.update_functions = True
    assert other.open_file(path, ask_to_save=False)
    assert prompts.named("ask_update_functions") == [([library_copy.name],)]
    (embedded_id,) = other.material.functions
    updated_properties = other.material.functions[embedded_id].body.nodes[inner].properties
    assert updated_properties[number] == properties[number]
    other.edit.undo_action.trigger()
    assert other.material.functions[embedded_id].body.nodes[inner].properties[number] == properties[number] - 0.5


def test_group_interface_rename_reorder_default_and_undo(window) -> None:
    _select(window, ["n3", "n6"])  # multiply and add: a group with two inputs or more
    window.groups.group_action.trigger()
    (function_id,) = window.material.functions
    before = window.material
    definition = before.functions[function_id]
    assert len(definition.inputs) >= 2
    first, second = definition.inputs[0], definition.inputs[1]
    dialog = window.groups.edit_group_interface()
    assert dialog is not None
    dialog.name_edit.setText("Tint and lift")
    dialog.inputs.item(0, 0).setText("tint")
    dialog.move_row(dialog.inputs, 0, 1)  # "tint" becomes the second input
    default = "0.25" if first.type.value == "float" else ", ".join(["0.25"] * (first.type.width))
    dialog.inputs.setItem(1, 2, type(dialog.inputs.item(0, 0))(default))
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    after = window.material.functions[function_id]
    assert after.name == "Tint and lift"
    assert [port.name for port in after.inputs][:2] == [second.name, "tint"]
    assert after.inputs[1].default in (0.25, (0.25,) * first.type.width)
    instance = next(node for node in window.graph.material_nodes() if node.type_name == GROUP_TYPE)
    assert [port.name() for port in instance.input_ports()][:2] == [second.name, "tint"]
    assert instance.name() == "Tint and lift"
    # A wire into the renamed input followed the rename.
    old_wire = before.connection_into(next(n.id for n in before.nodes.values() if n.type_name == GROUP_TYPE), first.name)
    if old_wire is not None:
        assert window.material.connection_into(instance.stable_id, "tint") is not None
    window.flush()
    assert window.result.ok, [d.message for d in window.result.errors]
    window.edit.undo_action.trigger()
    assert window.material == before


def test_group_interface_refuses_a_bad_name(window) -> None:
    _select(window, ["n3", "n6"])
    window.groups.group_action.trigger()
    before = window.material
    dialog = window.groups.edit_group_interface()
    dialog.inputs.item(0, 0).setText("2bad")
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert dialog.isVisible() and "not a port name" in dialog.problem.text()
    dialog.reject()
    assert window.material == before
