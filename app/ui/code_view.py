"""Generated-code panel: canonical VPL text, vertex GLSL and fragment GLSL, linked to the nodes.

Three read-only monospace tabs that follow the document: the presenter
calls `show_code` after every lowering (or load of a read-only module). A
tab whose code does not exist (lowering failed before the backend) shows
the reason instead of stale code, so the panel never disagrees with the
graph.

Two-way links come from the lowering's `CodeLinks`
(`app.material.code_links`: provenance for the VPL text, the backend's
source map for the GLSL), handed over with `set_links`:

- `highlight_nodes(ids)`: the lines written for those nodes get a tinted
  background in all three tabs (the window calls it when the graph's
  selection changes), and the shown tab scrolls to the first line of what
  they compute (instructions, not the registers, uniforms and interface
  variables they declare) when none of those is in view;
- clicking a line written for a node emits `nodeActivated(node_id)` (the
  window selects that node); lines of the backend's scaffolding (dispatch
  loop, function frames, `main`) belong to no node and select nothing.
"""

from __future__ import annotations

from collections.abc import Collection

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QMouseEvent, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QTextEdit, QWidget

from app.material.code_links import FRAGMENT_VIEW, VERTEX_VIEW, VPL_VIEW, CodeLinks, line_ranges

VPL_TAB = "VPL"
VERTEX_TAB = "Vertex GLSL"
FRAGMENT_TAB = "Fragment GLSL"
#: Tab title -> the code view name `CodeLinks` uses.
TAB_VIEWS = {VPL_TAB: VPL_VIEW, VERTEX_TAB: VERTEX_VIEW, FRAGMENT_TAB: FRAGMENT_VIEW}
HIGHLIGHT_COLOR = QColor(255, 196, 64, 70)


class CodeView(QTabWidget):
    """Tabs of generated code; every editor is read-only and monospace."""

    #: A line written for this node was clicked.
    nodeActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeView")
        self._editors: dict[str, QPlainTextEdit] = {}
        self._links: CodeLinks | None = None
        self._highlighted: frozenset[str] = frozenset()
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for title in (VPL_TAB, VERTEX_TAB, FRAGMENT_TAB):
            editor = QPlainTextEdit(self)
            editor.setReadOnly(True)
            editor.setFont(font)
            editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            editor.setObjectName(f"code:{title}")
            editor.viewport().installEventFilter(self)
            self._editors[title] = editor
            self.addTab(editor, title)
        self.currentChanged.connect(lambda _index: self._scroll_to_highlight(only_if_hidden=True))

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

    # ---- links to the nodes ---------------------------------------------------------------

    @property
    def links(self) -> CodeLinks | None:
        return self._links

    def set_links(self, links: CodeLinks | None) -> None:
        """The links of the code now shown (None: no node made it, e.g. a read-only module)."""
        self._links = links
        self._apply_highlight()

    @property
    def highlighted_nodes(self) -> frozenset[str]:
        return self._highlighted

    def highlight_nodes(self, node_ids: Collection[str]) -> None:
        """Tint the lines written for `node_ids` in every tab; bring the first into view if none is."""
        self._highlighted = frozenset(node_ids)
        self._apply_highlight()
        self._scroll_to_highlight(only_if_hidden=True)

    def highlighted_lines(self, title: str) -> list[int]:
        """The one-based lines of tab `title` tinted now."""
        if self._links is None or not self._highlighted:
            return []
        return self._links.lines_of(TAB_VIEWS[title], self._highlighted)

    def node_at(self, title: str, line: int) -> str | None:
        """The node behind one-based `line` of tab `title` (None: scaffolding, or no links)."""
        return self._links.node_at(TAB_VIEWS[title], line) if self._links is not None else None

    def activate_line(self, title: str, line: int) -> str | None:
        """What a click on `line` of tab `title` does: emit `nodeActivated` for its node; returns the node."""
        node = self.node_at(title, line)
        if node is not None:
            self.nodeActivated.emit(node)
        return node

    def _apply_highlight(self) -> None:
        for title, editor in self._editors.items():
            selections = []
            document = editor.document()
            for first, last in line_ranges(self.highlighted_lines(title)):
                start = document.findBlockByNumber(first - 1)
                end = document.findBlockByNumber(last - 1)
                if not start.isValid() or not end.isValid():
                    continue
                selection = QTextEdit.ExtraSelection()
                selection.format.setBackground(HIGHLIGHT_COLOR)
                selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                cursor = QTextCursor(start)
                cursor.setPosition(end.position() + max(0, end.length() - 1), QTextCursor.MoveMode.KeepAnchor)
                selection.cursor = cursor
                selections.append(selection)
            editor.setExtraSelections(selections)

    def anchor_lines(self, title: str) -> list[int]:
        """The lines of tab `title` the view scrolls to for the highlighted nodes: what they compute, not where
        they declare registers, uniforms or interface variables (`CodeLinks.anchor_lines`)."""
        if self._links is None or not self._highlighted:
            return []
        return self._links.anchor_lines(TAB_VIEWS[title], self._highlighted)

    def _scroll_to_highlight(self, only_if_hidden: bool) -> None:
        title = self.tabText(self.currentIndex())
        editor = self._editors.get(title)
        lines = self.anchor_lines(title) if editor is not None else []
        if editor is None or not lines:
            return
        first_visible = editor.firstVisibleBlock().blockNumber() + 1
        visible_count = max(1, editor.viewport().height() // max(1, editor.fontMetrics().height()))
        if only_if_hidden and any(first_visible <= line < first_visible + visible_count for line in lines):
            return
        block = editor.document().findBlockByNumber(lines[0] - 1)
        editor.verticalScrollBar().setValue(max(0, block.blockNumber() - visible_count // 3))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent) \
                and event.button() == Qt.MouseButton.LeftButton:
            for title, editor in self._editors.items():
                if watched is editor.viewport():
                    cursor = editor.cursorForPosition(event.position().toPoint())
                    if not editor.textCursor().hasSelection():  # a drag selects text to copy, it does not jump
                        self.activate_line(title, cursor.blockNumber() + 1)
                    break
        return super().eventFilter(watched, event)
