"""Read-only instruction view of a module that has no editable graph.

A `.vpl` file without the editor's graph block, or edited by hand since it
was saved (docs/architecture.md, "Files"), opens as this view instead of the node
graph: a banner saying why, and a tree of the module's canonical text.

The tree is built from the canonical text's indentation, which the spec 11
writer makes structural (one construct per line, children indented deeper):
module -> types/uniforms/stages -> interface/functions -> function ->
registers/blocks -> instructions. Working from the published text rather
than the IR means the view shows exactly what the verifier accepted and what
export will compile, with nothing re-rendered.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

#: Constructs expanded when the view opens: enough to see every instruction
#: of every block without drowning in type and interface declarations.
EXPANDED_HEADS = ("(module", "(vertex", "(fragment", "(functions", "(function", "(block")


class InstructionView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("instructionView")
        self._banner = QLabel(self)
        self._banner.setWordWrap(True)
        self._banner.setTextFormat(Qt.TextFormat.PlainText)  # reasons quote file names and messages
        self._banner.setObjectName("readOnlyBanner")
        self._banner.setStyleSheet(
            "QLabel { background: #5a4a1e; color: #f3e3b0; padding: 6px; border-radius: 3px; }"
        )
        self._tree = QTreeWidget(self)
        self._tree.setHeaderHidden(True)
        self._tree.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._tree.setUniformRowHeights(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._banner)
        layout.addWidget(self._tree)

    @property
    def tree(self) -> QTreeWidget:
        return self._tree

    @property
    def banner_text(self) -> str:
        return self._banner.text()

    def show_module(self, canonical_text: str, reason: str) -> None:
        self._banner.setText(reason)
        self._tree.clear()
        # Stack of (indentation, item): the parent of a line is the nearest
        # earlier line that is indented less.
        stack: list[tuple[int, QTreeWidgetItem | None]] = [(-1, None)]
        for line in canonical_text.splitlines():
            stripped = line.strip()
            if not stripped:
                continue
            indent = len(line) - len(line.lstrip(" "))
            while stack[-1][0] >= indent:
                stack.pop()
            parent = stack[-1][1]
            item = QTreeWidgetItem([stripped])
            if parent is None:
                self._tree.addTopLevelItem(item)
            else:
                parent.addChild(item)
            stack.append((indent, item))
        self._expand(self._tree.invisibleRootItem())

    def _expand(self, item: QTreeWidgetItem) -> None:
        for index in range(item.childCount()):
            child = item.child(index)
            if child.text(0).startswith(EXPANDED_HEADS):
                child.setExpanded(True)
            self._expand(child)

    def item_texts(self) -> list[str]:
        """Every line of the tree, depth first (what the user can unfold)."""
        texts: list[str] = []

        def walk(item: QTreeWidgetItem) -> None:
            for index in range(item.childCount()):
                child = item.child(index)
                texts.append(child.text(0))
                walk(child)

        walk(self._tree.invisibleRootItem())
        return texts
