"""The Edit menu's graph actions: undo and redo, the clipboard, duplicate, delete, select all, frame and search.

Undo and redo act on the document model's history (`app.ui.history_actions`). The others act on
the graph only while it has focus (`graph_only`): Delete or Ctrl+C in the
code view or a property field must not touch nodes, and Tab must keep
moving focus in forms. All of them are off for a read-only document.

Tab is also the node search while the mouse is over the graph, whichever
widget of the window has focus (`GraphTabKey`), as in Blender: the key
goes where the artist looks. Text editors that type a Tab keep it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QCursor, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QTextEdit, QWidget

from app.ui.history_actions import history_actions

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

DUPLICATE_KEY = "Ctrl+D"


class EditCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        standard = QKeySequence.StandardKey
        self.undo_action, self.redo_action = history_actions(window, window.graph_editor)
        window.addActions([self.undo_action, self.redo_action])
        editor, make_action = window.graph_editor, window.make_action
        self.cut_action = make_action("Cu&t", editor.cut, standard.Cut, graph_only=True)
        self.copy_action = make_action("&Copy", editor.copy, standard.Copy, graph_only=True)
        self.paste_action = make_action("&Paste", editor.paste, standard.Paste, graph_only=True)
        self.duplicate_action = make_action("D&uplicate", editor.duplicate, DUPLICATE_KEY, graph_only=True)
        self.delete_action = make_action("&Delete", editor.delete_selection, standard.Delete, graph_only=True)
        # On X11 the standard Delete keys include Ctrl+D, which is Duplicate
        # here; Backspace deletes too, as in most node editors.
        self.delete_action.setShortcuts(
            [key for key in QKeySequence.keyBindings(standard.Delete) if key != QKeySequence(DUPLICATE_KEY)]
            + [QKeySequence(Qt.Key.Key_Backspace)]
        )
        self.select_all_action = make_action("Select &All", editor.select_all, standard.SelectAll, graph_only=True)
        self.frame_action = make_action("&Frame Selection", editor.frame_selection, "F",
                                        "Fit the selected nodes (all nodes when none is selected) in view",
                                        graph_only=True)
        self.search_action = make_action("Search Nodes…", window.nodes.open_tab_search,
                                         QKeySequence(Qt.Key.Key_Tab).toString(), graph_only=True)
        self.tab_key = GraphTabKey(window, window.graph.viewer().viewport(), self.search_action)

    def update_actions(self, editable: bool) -> None:
        """Enable what a document allows (nothing that edits in a read-only one; undo and redo as the stack says)."""
        for action in (self.cut_action, self.copy_action, self.paste_action, self.duplicate_action,
                       self.delete_action, self.select_all_action, self.search_action):
            action.setEnabled(editable)
        stack = self.window.graph_editor.model.stack
        self.undo_action.setEnabled(editable and stack.can_undo())
        self.redo_action.setEnabled(editable and stack.can_redo())


class GraphTabKey(QObject):
    """Tab over the graph opens the node search though another widget of the window has focus.

    The graph's own Tab action (`graph_only`) answers while the graph has
    focus. Otherwise the key goes to the focused widget, and this filter of
    the application's key presses takes it first when: the window is the
    active one, the mouse is over the graph's viewport, and the focused
    widget is not a text editor that types a Tab (the Custom Code editor).
    Focus is not moved on hover: a field being typed in keeps its focus
    until Tab is pressed over the graph. Elsewhere Tab moves focus as usual.
    """

    def __init__(self, window: QWidget, viewport: QWidget, action: QAction) -> None:
        super().__init__(window)
        self._window = window
        self._viewport = viewport
        self._action = action
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def applies(self) -> bool:
        """Whether a Tab pressed now goes to the node search."""
        if QApplication.activeWindow() is not self._window or QApplication.activePopupWidget() is not None:
            return False
        if QApplication.activeModalWidget() is not None or not self._action.isEnabled():
            return False
        viewport = self._viewport
        if not viewport.isVisible() or not viewport.rect().contains(viewport.mapFromGlobal(QCursor.pos())):
            return False
        focus = QApplication.focusWidget()
        return not isinstance(focus, (QPlainTextEdit, QTextEdit))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        if event.key() != Qt.Key.Key_Tab or event.modifiers() != Qt.KeyboardModifier.NoModifier:
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self._window or not self.applies():
            return False
        self._action.trigger()
        return True
