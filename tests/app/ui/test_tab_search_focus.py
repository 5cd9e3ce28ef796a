"""Tab over the graph opens the node search whichever widget has focus (the real window and NodeGraphQt viewer)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication, QLineEdit, QPlainTextEdit, QWidget


def _focus_field_in_properties(window, qtbot) -> QLineEdit:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    field = QLineEdit(window)  # a text field of another part of the window, as a property field is
    field.setGeometry(10, 40, 120, 22)
    field.show()
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=5000)
    return field


def _put_cursor(widget, qtbot) -> None:
    # Near the top-left corner: the window may be larger than the test's screen.
    QCursor.setPos(widget.mapToGlobal(QPoint(min(20, widget.width() // 2), min(10, widget.height() // 2))))
    qtbot.waitUntil(lambda: widget.rect().contains(widget.mapFromGlobal(QCursor.pos())), timeout=5000)


def test_tab_over_the_graph_opens_the_search_while_the_properties_panel_has_focus(window, qtbot) -> None:
    field = _focus_field_in_properties(window, qtbot)
    _put_cursor(window.graph.viewer().viewport(), qtbot)
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert window.graph.node_search.isVisible()
    window.graph.node_search.hide()


def test_tab_elsewhere_still_moves_focus_and_opens_no_search(window, qtbot) -> None:
    field = _focus_field_in_properties(window, qtbot)
    following = QLineEdit(window)
    following.setGeometry(140, 40, 120, 22)
    following.show()
    QWidget.setTabOrder(field, following)
    _put_cursor(field, qtbot)
    assert not window.graph.viewer().viewport().rect().contains(
        window.graph.viewer().viewport().mapFromGlobal(QCursor.pos()))
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert not window.graph.node_search.isVisible()
    assert following.hasFocus()  # Qt's focus chain took the Tab


def test_a_text_editor_keeps_its_tab_over_the_graph(window, qtbot) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    editor = QPlainTextEdit(window)  # as the Custom Code editor, Tab is text here
    editor.setGeometry(10, 40, 120, 60)
    editor.show()
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus, timeout=5000)
    _put_cursor(window.graph.viewer().viewport(), qtbot)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert not window.graph.node_search.isVisible()
    assert "\t" in editor.toPlainText() or editor.toPlainText().startswith(" ")


def test_tab_over_the_graph_does_nothing_in_a_read_only_window(window, qtbot) -> None:
    window.edit.search_action.setEnabled(False)  # what a read-only document sets
    field = _focus_field_in_properties(window, qtbot)
    _put_cursor(window.graph.viewer().viewport(), qtbot)
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert not window.graph.node_search.isVisible()
