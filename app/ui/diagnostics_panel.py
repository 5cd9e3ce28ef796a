"""Diagnostics list: every problem of the current lowering, one row each.

A row that belongs to a node (a `NodeDiagnostic` with a node id) carries the
id; activating or clicking the row emits `nodeActivated(node_id)` and the
main window selects and frames that node. Rows without a node (module-level
or file diagnostics) are shown but lead nowhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from app.graph.rich_text import plain_tooltip

NODE_ID_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class DiagnosticRow:
    """What one row shows: independent of where the diagnostic came from."""

    message: str
    category: str = "error"
    node_id: str | None = None
    node_label: str = ""

    @property
    def text(self) -> str:
        where = f"[{self.node_label or self.node_id}] " if self.node_id else ""
        return f"{self.category}: {where}{self.message}"


class DiagnosticsPanel(QListWidget):
    nodeActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("diagnosticsPanel")
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.itemClicked.connect(self._on_item_activated)
        self.itemActivated.connect(self._on_item_activated)
        self._rows: list[DiagnosticRow] = []

    @property
    def rows(self) -> list[DiagnosticRow]:
        return list(self._rows)

    def set_rows(self, rows: Iterable[DiagnosticRow]) -> None:
        rows = list(rows)
        if rows == self._rows:
            return
        self._rows = rows
        self.clear()
        for row in rows:
            item = QListWidgetItem(row.text)
            item.setToolTip(plain_tooltip(row.message))
            if row.node_id:
                item.setData(NODE_ID_ROLE, row.node_id)
            if row.category not in ("warning", "note", "info"):
                item.setForeground(QBrush(QColor(220, 70, 60)))
            self.addItem(item)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        super().paintEvent(event)
        if self.count() == 0:
            # An empty white box reads as "broken"; say that nothing is wrong.
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(self.palette().ColorRole.PlaceholderText))
            painter.drawText(self.viewport().rect().adjusted(8, 8, -8, -8),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop), self.empty_text)
            painter.end()

    empty_text = "No problems."

    def _on_item_activated(self, item: QListWidgetItem) -> None:
        node_id = item.data(NODE_ID_ROLE)
        if node_id:
            self.nodeActivated.emit(str(node_id))
