"""Edit > Undo and Redo: actions on the document model's undo history, named after the step they undo or redo."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from app.ui.graph_editor import GraphEditor
from app.ui.keys import redo_keys


def history_actions(parent: QWidget, editor: GraphEditor) -> tuple[QAction, QAction]:
    """The Undo and Redo actions (standard keys, Ctrl+Y too), kept in step with the model's history."""
    undo = QAction("&Undo", parent)
    undo.setShortcuts(QKeySequence.StandardKey.Undo)
    redo = QAction("&Redo", parent)
    redo.setShortcuts(redo_keys())
    undo.triggered.connect(lambda _checked=False: editor.undo())
    redo.triggered.connect(lambda _checked=False: editor.redo())
    stack = editor.model.stack

    def follow() -> None:
        undo.setText(f"&Undo {stack.undo_text()}".rstrip())
        redo.setText(f"&Redo {stack.redo_text()}".rstrip())
        undo.setEnabled(editor.editable and stack.can_undo())
        redo.setEnabled(editor.editable and stack.can_redo())

    editor.historyChanged.connect(follow)
    follow()
    return undo, redo
