"""The Edit menu's graph actions: undo and redo, the clipboard, duplicate, delete, select all, frame and search.

Undo and redo act on the document model's history (`app.ui.history_actions`). The others act on
the graph only while it has focus (`graph_only`): Delete or Ctrl+C in the
code view or a property field must not touch nodes, and Tab must keep
moving focus in forms. All of them are off for a read-only document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

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

    def update_actions(self, editable: bool) -> None:
        """Enable what a document allows (nothing that edits in a read-only one; undo and redo as the stack says)."""
        for action in (self.cut_action, self.copy_action, self.paste_action, self.duplicate_action,
                       self.delete_action, self.select_all_action, self.search_action):
            action.setEnabled(editable)
        stack = self.window.graph_editor.model.stack
        self.undo_action.setEnabled(editable and stack.can_undo())
        self.redo_action.setEnabled(editable and stack.can_redo())
