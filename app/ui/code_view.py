"""Generated-code panel: canonical VPL text, vertex GLSL and fragment GLSL.

Three read-only monospace tabs that follow the document: the main window
calls `show_code` after every lowering (or load of a read-only module). A tab
whose code does not exist (lowering failed before the backend) shows the
reason instead of stale code, so the panel never disagrees with the graph.
"""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QWidget

VPL_TAB = "VPL"
VERTEX_TAB = "Vertex GLSL"
FRAGMENT_TAB = "Fragment GLSL"


class CodeView(QTabWidget):
    """Tabs of generated code; every editor is read-only and monospace."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeView")
        self._editors: dict[str, QPlainTextEdit] = {}
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for title in (VPL_TAB, VERTEX_TAB, FRAGMENT_TAB):
            editor = QPlainTextEdit(self)
            editor.setReadOnly(True)
            editor.setFont(font)
            editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            editor.setObjectName(f"code:{title}")
            self._editors[title] = editor
            self.addTab(editor, title)

    def editor(self, title: str) -> QPlainTextEdit:
        return self._editors[title]

    def text(self, title: str) -> str:
        return self._editors[title].toPlainText()

    def show_code(self, vpl_text: str | None, vertex_code: str | None, fragment_code: str | None,
                  missing_reason: str = "") -> None:
        """Replace all three tabs; a None code shows `missing_reason` as a comment."""
        placeholder = f"// {missing_reason or 'not available'}\n"
        for title, code in ((VPL_TAB, vpl_text), (VERTEX_TAB, vertex_code), (FRAGMENT_TAB, fragment_code)):
            self._set_text(self._editors[title], code if code is not None else placeholder)

    @staticmethod
    def _set_text(editor: QPlainTextEdit, text: str) -> None:
        if editor.toPlainText() == text:
            return
        # Keep the reader's place: regenerating on every edit must not jump to the top.
        vertical = editor.verticalScrollBar().value()
        horizontal = editor.horizontalScrollBar().value()
        editor.setPlainText(text)
        editor.verticalScrollBar().setValue(vertical)
        editor.horizontalScrollBar().setValue(horizontal)
