"""Foldable input sections on a node: Blender's node panels (Principled BSDF, 4.x).

A node type may group its inputs into titled sections (`InputSection`, data
on the `NodeType` in app/material). The node draws each section as a
one-line header, then the section's inputs; a click on the header folds the
section to that line or unfolds it (a double click is one click: its second
press does nothing). A folded section's ports, labels and
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

import weakref
from collections.abc import Sequence
from typing import Any

from NodeGraphQt.constants import PortEnum
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

    def mouseDoubleClickEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:  # noqa: N802 - Qt name
        """The second click of a double click: taken, and nothing more. Qt sends a double click to a widget as
        press, release, double-click, release, and an item's default double-click is a press: the pair would
        unfold and fold again. So a double click is one toggle (the first click's): the release that ends it
        toggles nothing (even after a second press, as a window gets it), and it reaches neither the node (no
        `node_double_clicked`) nor the viewer."""
        if event.button() != QtCore.Qt.MouseButton.LeftButton:
            event.ignore()
            return
        self._pressed = False
        event.accept()

    @property
    def node_id(self) -> str:
        """NodeGraphQt's id of the node the header belongs to."""
        return str(getattr(self.parentItem(), "id", ""))

    def set_transient(self, open_: bool) -> None:
        """Open the section while a wire is dragged over it (False: the wire left or was dropped)."""
        sections = getattr(self.parentItem(), "sections", None)
        if sections is not None:
            sections.set_transient(self.title, open_)

    def toggle(self) -> bool:
        """Fold an open section or unfold a folded one (a section with a connected input stays open); whether it
        changed."""
        sections = getattr(self.parentItem(), "sections", None)
        return bool(sections.set_open(self.title, not self.is_open)) if sections is not None else False


class NodeSections:
    """The foldable input sections of one node item (a NodeGraphQt `NodeItem`): their headers, which of the
    node's input ports show, the room they take and where they sit."""

    def __init__(self, node_item: Any) -> None:
        # Held weakly (as the headers reach their node through Qt's parent): a node item holds its sections, and
        # a cycle would keep a cleared view's items until the cyclic collector runs.
        self._node_item = weakref.ref(node_item) if node_item is not None else None
        #: The headers, in drawing order.
        self.headers: tuple[SectionHeaderItem, ...] = ()

    @property
    def node_item(self) -> Any:
        return self._node_item() if self._node_item is not None else None

    def set(self, sections: Sequence[tuple[str, Sequence[Any], Sequence[str]]]) -> None:
        """The node's sections: (title, input port items, their labels) each; all start folded."""
        self.headers = tuple(SectionHeaderItem(self.node_item, title, ports, labels) for title, ports, labels in sections)
        self.refresh()

    def find(self, title: str) -> SectionHeaderItem | None:
        return next((header for header in self.headers if header.title == title), None)

    def of_port(self, port: Any) -> SectionHeaderItem | None:
        return next((header for header in self.headers if port in header.ports), None)

    def set_open(self, title: str, open_: bool) -> bool:
        """The artist folds or unfolds a section (a section with a connected input is not folded); whether it
        changed."""
        header = self.find(title)
        if header is None or (not open_ and header.wired):
            return False
        was_open = header.is_open
        header.chosen_open = open_
        if not open_:
            header.transient = False
        self.refresh()
        return header.is_open != was_open

    def set_transient(self, title: str, open_: bool) -> None:
        """Open a section while a wire is dragged over it (`open_` False: that ends)."""
        header = self.find(title)
        if header is not None and header.transient != open_:
            header.transient = open_
            self.refresh()

    def refresh(self, connecting: Any = None, disconnecting: tuple[Any, Any] | None = None) -> None:
        """Show the ports of open sections and hide the others' (then lay the node out again if that changed).

        `connecting` (an input port item about to be connected) and `disconnecting` ((input port item, output
        port item) whose wire is going) are the change NodeGraphQt reports before it makes it (undoing a
        connection reports the disconnection while the wire is still there).
        """
        if not self.headers:
            return
        node = self.node_item
        changed = False
        for header in self.headers:
            header.wired = any(_port_wired(port, connecting, disconnecting) for port in header.ports)
            shown = header.is_open
            for port in header.ports:
                if port.isVisibleTo(node) != shown:
                    port.setVisible(shown)
                    changed = True
                label = node._input_items.get(port)
                if label is not None:
                    label.setVisible(shown and port.display_name)
            header.update()
        if changed:
            node.prepareGeometryChange()
            node.draw_node()
            for header in self.headers:
                for port in header.ports:
                    for pipe in list(port.connected_pipes):
                        pipe.draw_path(pipe.input_port, pipe.output_port)
            node.update()

    def size(self, width: float, height: float) -> tuple[float, float]:
        """NodeGraphQt's size of the visible ports, with the headers' rows, and wide enough for every input's label
        (a node keeps its width when a section opens)."""
        node = self.node_item
        ports = list(node._input_items)
        if not ports:
            return width, height
        port_width = ports[0].boundingRect().width()
        row = ports[0].boundingRect().height()
        labels = max((text.boundingRect().width() for port, text in node._input_items.items() if port.display_name),
                     default=0.0)
        outputs = max((text.boundingRect().width() for port, text in node._output_items.items()
                       if port.isVisible() and text.isVisible()), default=0.0)
        headers = max(header.title_width() for header in self.headers)
        width = max(width, port_width + labels + outputs, headers)
        # NodeGraphQt's rows are the port's height, stretched by 5% for the one-unit gaps between ports.
        return width, height + len(self.headers) * row * 1.05

    def place(self, v_offset: float) -> None:
        """Lay the inputs out again from `v_offset` (where NodeGraphQt's layout put the first): the ports outside
        any section, then each header followed by its ports while open."""
        node = self.node_item
        inputs = [port for port in node.inputs if port.isVisible()]
        row = (inputs[0] if inputs else self.headers[0].ports[0]).boundingRect().height()
        port_x = -self.headers[0].ports[0].boundingRect().width() / 2.0
        grouped = {port for header in self.headers for port in header.ports}
        y = v_offset

        def put(port: Any, at: float) -> None:
            port.setPos(port_x, at)
            text = node._input_items.get(port)
            if text is not None:
                text.setPos(port.boundingRect().width() / 2.0 - (PortEnum.CLICK_FALLOFF.value - 2), at - 1.5)

        for port in node.inputs:
            if port not in grouped and port.isVisible():
                put(port, y)
                y += row + 1.0
        for header in self.headers:
            header.setPos(0.0, y)
            header.set_geometry(node._width, row)
            y += row + 1.0
            for port in header.ports:
                if header.is_open:
                    put(port, y)
                    y += row + 1.0
                else:  # hidden behind its header (so every port has a place that does not depend on the past)
                    put(port, y - row - 1.0)


def _port_wired(port: Any, connecting: Any, disconnecting: tuple[Any, Any] | None) -> bool:
    """Whether input `port` has a wire, counting `connecting` as connected and `disconnecting`'s wire as gone."""
    if port is connecting:
        return True
    pipes = port.connected_pipes
    if disconnecting is not None and port is disconnecting[0]:
        pipes = [pipe for pipe in pipes if pipe.output_port is not disconnecting[1]]
    return bool(pipes)
