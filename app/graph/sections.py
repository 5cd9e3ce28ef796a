"""Foldable input sections on a node: Blender's node panels (Principled BSDF, 4.x).

A node type may group its inputs into titled sections (`InputSection`, data
on the `NodeType` in app/material). The node draws each section as a
one-line header, then the section's inputs; a click on the header folds the
section to that line or unfolds it. A folded section's ports, labels and
in-place values are hidden and take no room, so the Surface Output, whose
glTF extension lobes are folded until used, is about as tall as a
metallic-roughness node.

When a section is open (`SectionHeaderItem.is_open`):
- while any of its inputs is connected: always (a wire never ends at a
  folded section; a click on such a header does nothing but say so);
- otherwise as the artist last left it (`chosen_open`), which starts as
  `NodeType.section_starts_open` says when the node is shown (a lobe whose
  value was changed starts open: folded, it would hide that the lobe is on);
- and, while a wire is dragged, a section the wire rests on
  (`transient`; the viewer opens it, app/graph/view.py).

The state is view state of the session: the document format has no place
for per-node view state (docs/file-format.md), and the sections' initial
state is derived from the material, so nothing is saved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

HEADER_FILL = QtGui.QColor(255, 255, 255, 22)
HEADER_FILL_HOVER = QtGui.QColor(255, 255, 255, 40)
HEADER_TEXT = QtGui.QColor(215, 215, 215)
HEADER_HINT = QtGui.QColor(150, 150, 150)
#: Points of the header's title.
HEADER_POINTS = 8.0


class SectionHeaderItem(QtWidgets.QGraphicsObject):
    """One section's header line on its node: a disclosure triangle and the title; a click folds or unfolds."""

    def __init__(self, node_item: QtWidgets.QGraphicsItem, title: str, ports: Sequence[Any], labels: Sequence[str]) -> None:
        super().__init__(node_item)
        self.node_item = node_item
        self.title = title
        #: The section's input port items, in the order drawn.
        self.ports = tuple(ports)
        self.labels = tuple(labels)
        self.chosen_open = False
        self.transient = False
        self.wired = False
        self._width = 100.0
        self._height = 22.0
        self._hovered = False
        self._pressed = False
        self.setAcceptHoverEvents(True)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setZValue(1.0)

    @property
    def is_open(self) -> bool:
        return self.wired or self.chosen_open or self.transient

    def set_geometry(self, width: float, height: float) -> None:
        if (width, height) != (self._width, self._height):
            self.prepareGeometryChange()
            self._width, self._height = width, height

    def title_width(self) -> float:
        """The width the header's text needs (the node is at least this wide)."""
        metrics = QtGui.QFontMetricsF(self._font())
        return 28.0 + metrics.horizontalAdvance(self.title) + metrics.horizontalAdvance(f"  {len(self.ports)}") + 12.0

    def _font(self) -> QtGui.QFont:
        font = QtGui.QFont()
        font.setPointSizeF(HEADER_POINTS)
        font.setBold(True)
        return font

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 - Qt name
        return QtCore.QRectF(0.0, 0.0, self._width, self._height)

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem,
              widget: QtWidgets.QWidget | None = None) -> None:
        rect = QtCore.QRectF(4.0, 2.0, self._width - 8.0, self._height - 4.0)
        painter.save()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(HEADER_FILL_HOVER if self._hovered else HEADER_FILL)
        painter.drawRoundedRect(rect, 3.0, 3.0)
        # The disclosure triangle: pointing right when folded, down when open (dimmed: held open by a wire).
        size = 4.0
        centre = QtCore.QPointF(rect.left() + 9.0, rect.center().y())
        if self.is_open:
            points = [centre + QtCore.QPointF(-size, -size * 0.6), centre + QtCore.QPointF(size, -size * 0.6),
                      centre + QtCore.QPointF(0.0, size * 0.8)]
        else:
            points = [centre + QtCore.QPointF(-size * 0.6, -size), centre + QtCore.QPointF(-size * 0.6, size),
                      centre + QtCore.QPointF(size * 0.8, 0.0)]
        painter.setBrush(HEADER_HINT if self.wired else HEADER_TEXT)
        painter.drawPolygon(QtGui.QPolygonF(points))
        painter.setFont(self._font())
        painter.setPen(HEADER_TEXT)
        text_rect = rect.adjusted(20.0, 0.0, -6.0, 0.0)
        painter.drawText(text_rect, QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter, self.title)
        if not self.is_open:  # how many inputs the fold holds
            painter.setPen(HEADER_HINT)
            painter.drawText(text_rect, QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter,
                             str(len(self.ports)))
        painter.restore()

    def toolTip(self) -> str:  # noqa: N802 - Qt name
        inputs = ", ".join(self.labels)
        if self.wired:
            action = "it has connected inputs, so it stays open"
        elif self.is_open:
            action = "click to fold"
        else:
            action = "click to unfold; drop a wire here to connect its first fitting input"
        return f"<b>{self.title}</b>: {inputs}<br/><i>{action}</i>"

    def hoverEnterEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:  # noqa: N802 - Qt name
        self._hovered = True
        self.setToolTip(self.toolTip())
        self.update()

    def hoverLeaveEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:  # noqa: N802 - Qt name
        self._hovered = False
        self.update()

    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:  # noqa: N802 - Qt name
        if event.button() != QtCore.Qt.MouseButton.LeftButton:
            event.ignore()
            return
        self._pressed = True
        event.accept()

    def mouseReleaseEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:  # noqa: N802 - Qt name
        if not self._pressed:
            return
        self._pressed = False
        event.accept()
        if self.boundingRect().contains(event.pos()):
            self.toggle()

    @property
    def node_id(self) -> str:
        """NodeGraphQt's id of the node the header belongs to."""
        return str(getattr(self.node_item, "id", ""))

    def set_transient(self, open_: bool) -> None:
        """Open the section while a wire is dragged over it (False: the wire left or was dropped)."""
        transient = getattr(self.node_item, "set_section_transient", None)
        if transient is not None:
            transient(self.title, open_)

    def toggle(self) -> bool:
        """Fold an open section or unfold a folded one (a section with a connected input stays open); whether it
        changed."""
        toggle = getattr(self.node_item, "set_section_open", None)
        return bool(toggle(self.title, not self.is_open)) if toggle is not None else False
