"""User text is never read as markup by a widget (issue 23 item 6).

Qt guesses rich text in tooltips, message boxes and labels left at
`AutoText`; names, ids, paths and messages come from files and users. Each
test puts hostile strings where a user can (a parameter's name, a node id in
a file, a hand-written module's file name) and then walks
every widget, list item and graph item of the real window: wherever the
hostile text appears, it must be shown as plain text or escaped.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QLabel, QListWidget, QMessageBox, QTreeWidget, QTreeWidgetItem, QWidget

from app.graph.rich_text import plain_tooltip
from app.material.graph import MaterialGraph
from app.ui.dialogs import _plain_box

BIG_RED = "<font color=red size=7>big</font>"
PASSWD = '<img src="file:///etc/passwd">'
SHININESS = "n4"  # the default example's float parameter


def _rendered(rich_text: str) -> str:
    """What Qt shows for `rich_text` read as rich text."""
    document = QTextDocument()
    document.setHtml(rich_text)
    return document.toPlainText()


def _tooltip_shows(tooltip: str, hostile: str) -> bool:
    """The tooltip shows `hostile` as typed (escaped in rich text, or plain)."""
    if QtGui.Qt.mightBeRichText(tooltip):
        return hostile in _rendered(tooltip)
    return hostile in tooltip


def _markup_leaks(widgets: list[QWidget], hostile: str) -> list[str]:
    """Where `hostile` is handed to Qt as markup: a rich or auto label holding it raw, a raw tooltip."""
    leaks: list[str] = []
    for widget in widgets:
        if isinstance(widget, QLabel) and hostile in widget.text() and widget.textFormat() != Qt.TextFormat.PlainText:
            leaks.append(f"label {widget.objectName() or widget.text()!r}")
        if hostile in widget.toolTip():
            leaks.append(f"tooltip of {type(widget).__name__} {widget.objectName()!r}")
        if isinstance(widget, QListWidget):
            leaks += [f"list item tooltip {widget.item(row).text()!r}" for row in range(widget.count())
                      if hostile in widget.item(row).toolTip()]
        if isinstance(widget, QTreeWidget):
            items: list[QTreeWidgetItem] = [widget.invisibleRootItem()]
            while items:
                item = items.pop()
                items += [item.child(index) for index in range(item.childCount())]
                leaks += [f"tree item tooltip {item.text(0)!r}" for column in range(max(1, item.columnCount()))
                          if hostile in item.toolTip(column)]
    return leaks


def _everything(window) -> list[QWidget]:
    return [window, *window.findChildren(QWidget), *QApplication.topLevelWidgets()]


def _scene_leaks(window, hostile: str) -> list[str]:
    return [f"graph item tooltip {type(item).__name__}" for item in window.graph.scene().items()
            if hostile in item.toolTip()]


def test_hostile_parameter_names_are_shown_as_typed(window) -> None:
    window.nodes.set_node_property(SHININESS, "name", BIG_RED)
    window.flush()
    window.nodes.select_node(SHININESS)
    # The parameter panel's row for it shows the name as typed, in a plain-text label.
    labels = [label for label in window.parameters_panel.findChildren(QLabel) if label.text() == BIG_RED]
    assert labels and all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
    for hostile in (BIG_RED, PASSWD):
        assert not _markup_leaks(_everything(window), hostile) and not _scene_leaks(window, hostile)
    # A clash with the hostile name: the diagnostic quotes it, its tooltip shows it as typed.
    window.nodes.set_node_property("n1", "name", BIG_RED)
    window.flush()
    panel = window.diagnostics_panel
    tooltips = [panel.item(row).toolTip() for row in range(panel.count())]
    assert any(_tooltip_shows(tooltip, BIG_RED) for tooltip in tooltips), tooltips
    assert not _markup_leaks(_everything(window), BIG_RED) and not _scene_leaks(window, BIG_RED)
    node_tooltip = window.graph.node_by_stable_id(SHININESS).view.toolTip()
    assert _tooltip_shows(node_tooltip, BIG_RED), node_tooltip


def test_hostile_node_ids_from_a_file_are_shown_as_typed(window) -> None:
    graph = MaterialGraph()
    graph.add_node("constant_float", node_id=PASSWD, properties={"value": 0.5})
    graph.add_node("surface_output", node_id=BIG_RED)
    graph.connect(PASSWD, "out", BIG_RED, "base_color")  # a type error: diagnosed on the output node
    window.load_graph(graph, PASSWD)
    window.flush()
    window.nodes.select_node(BIG_RED)
    assert BIG_RED in _rendered(window.properties_panel._title.text())  # the panel's title names the node
    for hostile in (BIG_RED, PASSWD):
        assert not _markup_leaks(_everything(window), hostile), hostile
        assert not _scene_leaks(window, hostile), hostile


def test_hostile_file_names_of_hand_written_modules_are_shown_as_typed(window, tmp_path: Path) -> None:
    from app.material.document import END_LINE
    from app.material.examples import example_text

    text = example_text("textured")
    directory = tmp_path / BIG_RED.replace("/", "_")
    directory.mkdir()
    module_only = directory / "module.vpl"
    module_only.write_text(text[text.index(END_LINE) + len(END_LINE) + 1:], encoding="utf-8")
    assert window.open_file(module_only) and window.read_only
    hostile = BIG_RED.replace("/", "_")
    assert not _markup_leaks(_everything(window), hostile) and not _scene_leaks(window, hostile)


def test_message_boxes_show_names_and_details_as_typed(qtbot) -> None:
    box = _plain_box(QMessageBox.Icon.Critical, "Open", f"cannot open {PASSWD}", QMessageBox.StandardButton.Ok, None,
                     f"node {BIG_RED}: unknown node type")
    qtbot.addWidget(box)
    shown = [label for label in box.findChildren(QLabel) if label.text()]
    assert {label.text() for label in shown} >= {f"cannot open {PASSWD}", f"node {BIG_RED}: unknown node type"}
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in shown)


def test_plain_tooltips_keep_text_and_line_breaks() -> None:
    assert plain_tooltip("") == ""
    tooltip = plain_tooltip(f"{BIG_RED}\n{PASSWD} & more")
    assert QtGui.Qt.mightBeRichText(tooltip)
    assert _rendered(tooltip) == f"{BIG_RED}\n{PASSWD} & more"
