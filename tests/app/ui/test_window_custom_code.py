"""The Custom Code node in the real window: the code editor's live diagnostics at their line, the node's
badge after Apply, highlighting, port edits that change the node's ports, and undo of each."""

from __future__ import annotations

from PySide6.QtGui import QTextCharFormat

from app.material.examples import POSTERIZE_CODE
from app.ui.custom_code_editor import CustomCodeEditor, PortsEdit, parse_ports

BROKEN = POSTERIZE_CODE.replace("(divide r4 r3 r1)", "(divide r5 r3 r1)")  # a vec3 into a float register


def _open_custom(window) -> str:
    window.load_example("custom_posterize")
    window.flush()
    assert window.result.ok
    node_id = next(node_id for node_id, node in window.material.nodes.items() if node.type_name == "custom_code")
    window.nodes.select_node(node_id)
    return node_id


def test_code_editor_shows_the_problem_at_its_line_and_the_badge_after_apply(window) -> None:
    node_id = _open_custom(window)
    editor = window.properties_panel.editor_widget("code")
    assert isinstance(editor, CustomCodeEditor)
    assert editor.text.toPlainText() == POSTERIZE_CODE and not editor.diagnostics
    before = window.material

    editor.text.setPlainText(BROKEN)
    (problem,) = editor.diagnostics
    line = BROKEN.splitlines().index("  (divide r5 r3 r1)") + 1
    assert problem.line == line
    assert editor.problems.count() == 1 and f"line {line}" in editor.problems.item(0).text()
    underlined = [selection.cursor.blockNumber() for selection in editor.text.extraSelections()
                  if selection.format.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline]
    assert underlined == [line - 1]
    assert window.material == before  # typing changes nothing until Apply

    editor.apply()
    assert window.material.nodes[node_id].properties["code"] == BROKEN
    window.flush()
    assert not window.result.ok
    badge = window.graph.node_by_stable_id(node_id).view
    assert badge.has_error_marker and f"line {line}" in " ".join(badge.diagnostics)

    window.edit.undo_action.trigger()
    assert window.material == before
    window.flush()
    assert window.result.ok
    assert not window.graph.node_by_stable_id(node_id).view.has_error_marker


def test_highlighter_colours_instructions_and_registers(window) -> None:
    _open_custom(window)
    editor = window.properties_panel.editor_widget("code")
    block = editor.text.document().findBlockByLineNumber(3)  # "  (load r0 (parameter color))"
    formats = {(entry.start, entry.length) for entry in block.layout().formats()}
    text = block.text()
    assert (text.index("load"), len("load")) in formats
    assert (text.index("r0"), 2) in formats


def test_port_edit_changes_the_node_s_ports_and_undoes(window) -> None:
    node_id = _open_custom(window)
    ports = window.properties_panel.editor_widget("inputs")
    assert isinstance(ports, PortsEdit)
    assert parse_ports(ports.text()) == (("color", "color"), ("levels", "float"))
    before = window.material
    ports.setText("color: color, levels: float, gain: float")
    ports.editingFinished.emit()
    node = window.graph.node_by_stable_id(node_id)
    assert "gain" in node.inputs()
    assert window.material.connection_into(node_id, "color") is not None  # wires kept
    assert parse_ports("a float") == "'a float' is not 'name: type'"
    window.edit.undo_action.trigger()
    assert window.material == before
    assert "gain" not in window.graph.node_by_stable_id(node_id).inputs()


def test_code_window_edits_the_same_code(window) -> None:
    node_id = _open_custom(window)
    editor = window.properties_panel.editor_widget("code")
    code_window = editor.open_window()
    assert code_window.isVisible() and code_window.editor.text.toPlainText() == POSTERIZE_CODE
    code_window.editor.text.setPlainText(BROKEN)
    assert code_window.editor.diagnostics
    code_window.editor.apply()
    assert window.material.nodes[node_id].properties["code"] == BROKEN
    assert editor.text.toPlainText() == BROKEN
    code_window.close()
