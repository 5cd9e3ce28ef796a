"""The graph overview (minimap): the whole node graph drawn small in a corner of the node editor.

What it shows: every frame and node as a rectangle in its own colour (the
node's header colour, brightened to read at a few pixels), nodes with an
error marker in red (warnings only: amber), selected nodes outlined, the
wires as thin lines, and the part of the graph the view shows as a white
rectangle. Clicking in it centres the view there; dragging the rectangle
(or anywhere) pans the view with the mouse, as in Unreal's, Houdini's or
ComfyUI's minimaps; the wheel zooms the view as if the overview were not
there.

When it is shown: while the user's toggle (View > Overview, remembered in
QSettings under `OVERVIEW_SETTING`, on by default) is on **and** the graph
does not fit in the view (some node lies outside the visible area). A graph
that fits has nothing to navigate, so the overview stays out of the way.

Cost (it must keep up with a 2,000-node graph): the graph is drawn once
into a cached pixmap. The scene's `changed` signal (edits, moves, undo,
loading, error markers, selection) schedules a rebuild at most every
`REBUILD_INTERVAL_MS`, and not while a node is being dragged (it changes
the scene at every mouse move: the overview catches up when it is
dropped, or about once a second); a rebuild reads the node rectangles, and repaints the
pixmap only when they differ from the last ones and the overview is
shown (`renders` counts those repaints; a graph that fits the view, as a
document does right after opening, is not drawn until it stops fitting). Pans and zooms change no scene content: the view's viewport
paint is watched (an event filter) and the overview then repaints only the
cached pixmap and the viewport rectangle.

Panning goes through NodeGraphQt's public `scene_rect`/`set_scene_rect`
(the viewer keeps its own scene range and re-fits the view to it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from NodeGraphQt import BackdropNode
from NodeGraphQt.qgraphics.node_base import NodeItem
from NodeGraphQt.widgets.viewer import NodeViewer
from PySide6 import QtCore, QtGui, QtWidgets

from app.graph.nodes import ERROR_COLOR

#: QSettings key of the View > Overview toggle (bool, default True).
OVERVIEW_SETTING = "view/overview"
#: Rebuild the cached drawing at most this often while the scene keeps changing (a node drag).
REBUILD_INTERVAL_MS = 80
#: While a node is dragged the rebuild waits, but not longer than this many intervals.
MAX_POSTPONED = 12
#: The overview's largest size in pixels, and as a fraction of the view's; its smallest side. The graph's
#: aspect ratio decides the rest.
MAX_SIZE = QtCore.QSize(340, 240)
MAX_FRACTION = (0.32, 0.4)
MIN_SIDE = 48
#: Node colours are header colours (dark: they carry white titles); drawn a few pixels large they need light.
MIN_NODE_LIGHTNESS = 0.45
#: Gap between the overview and the view's corner, and around the graph inside the overview.
CORNER_MARGIN = 12
INNER_MARGIN = 6.0

#: The view's corners the overview may sit in, in order of preference: (at the right, at the bottom).
CORNERS = ((True, True), (False, True), (True, False), (False, False))

WARNING_COLOR = QtGui.QColor(230, 160, 40)
BACKGROUND_COLOR = QtGui.QColor(18, 18, 20, 215)
BORDER_COLOR = QtGui.QColor(110, 110, 110, 200)
VIEWPORT_COLOR = QtGui.QColor(255, 255, 255, 230)
VIEWPORT_FILL = QtGui.QColor(255, 255, 255, 28)
WIRE_COLOR = QtGui.QColor(150, 150, 150, 110)
SELECTED_COLOR = QtGui.QColor(255, 255, 255)
DEFAULT_NODE_COLOR = QtGui.QColor(90, 90, 90)


@dataclass(frozen=True)
class OverviewNode:
    """One node as the overview draws it (scene coordinates)."""

    rect: tuple[float, float, float, float]
    color: tuple[int, int, int]
    #: "error", "warning" or "" (no marker).
    problem: str = ""
    selected: bool = False


@dataclass(frozen=True)
class OverviewFrame:
    rect: tuple[float, float, float, float]
    color: tuple[int, int, int]


@dataclass(frozen=True)
class OverviewLayout:
    """What the overview draws, in scene coordinates; equal layouts draw the same picture."""

    nodes: tuple[OverviewNode, ...] = ()
    frames: tuple[OverviewFrame, ...] = ()
    #: (x1, y1, x2, y2): from the source node's right side to the target node's left side, at mid-height.
    wires: tuple[tuple[float, float, float, float], ...] = ()

    @property
    def bounds(self) -> QtCore.QRectF:
        """The rectangle around every node and frame (empty for an empty graph)."""
        # Minimum and maximum over plain floats: a `QRectF.united` per item was a
        # tenth of the overview's rebuild at 2,000 nodes. Like `united`, null
        # rectangles (no width and no height) are left out.
        items: tuple[OverviewNode | OverviewFrame, ...] = (*self.nodes, *self.frames)
        rects = [item.rect for item in items if item.rect[2] or item.rect[3]]
        if not rects:
            return QtCore.QRectF()
        left = min(rect[0] for rect in rects)
        top = min(rect[1] for rect in rects)
        right = max(rect[0] + rect[2] for rect in rects)
        bottom = max(rect[1] + rect[3] for rect in rects)
        return QtCore.QRectF(left, top, right - left, bottom - top)


def _rgb(value: Any, fallback: QtGui.QColor = DEFAULT_NODE_COLOR) -> tuple[int, int, int]:
    try:
        red, green, blue = (int(component) for component in tuple(value)[:3])
    except (TypeError, ValueError):
        return fallback.red(), fallback.green(), fallback.blue()
    return red, green, blue


def _rect(item: QtWidgets.QGraphicsItem) -> tuple[float, float, float, float]:
    rect = item.sceneBoundingRect()
    return rect.x(), rect.y(), rect.width(), rect.height()


def layout_of(nodes: Iterable[Any]) -> OverviewLayout:
    """The overview layout of NodeGraphQt node objects (`graph.all_nodes()`).

    Backdrops are frames; a node's problem comes from its item's
    `diagnostics` (app.graph.nodes.MaterialNodeItem: warnings are prefixed
    "warning: "). Wires join the nodes' sides (at a few pixels per node,
    port positions would not show), read from the ports' models, so a
    rebuild makes one Qt call per node for its rectangle.
    """
    node_list: list[OverviewNode] = []
    frames: list[OverviewFrame] = []
    rects: dict[str, tuple[float, float, float, float]] = {}
    links: list[tuple[str, str]] = []
    for node in nodes:
        item = node.view
        rect = _rect(item)
        if isinstance(node, BackdropNode):
            frames.append(OverviewFrame(rect, _rgb(node.model.color)))
            continue
        rects[node.id] = rect
        messages = getattr(item, "diagnostics", None) or ()
        problem = ("error" if any(not str(message).startswith("warning: ") for message in messages)
                   else "warning" if messages else "")
        node_list.append(OverviewNode(rect, _rgb(node.model.color), problem, item.isSelected()))
        for port in node.output_ports():
            links.extend((node.id, target) for target in port.model.connected_ports)
    wires = []
    for source, target in links:
        start, end = rects.get(source), rects.get(target)
        if start is not None and end is not None:
            wires.append((start[0] + start[2], start[1] + start[3] / 2, end[0], end[1] + end[3] / 2))
    return OverviewLayout(tuple(node_list), tuple(frames), tuple(wires))


def _node_fill(node: OverviewNode) -> QtGui.QColor:
    if node.problem == "error":
        return QtGui.QColor(ERROR_COLOR)
    if node.problem == "warning":
        return QtGui.QColor(WARNING_COLOR)
    return readable_node_color(node.color)


def readable_node_color(rgb: tuple[int, int, int]) -> QtGui.QColor:
    """A node's header colour with its hue and saturation, lightened to `MIN_NODE_LIGHTNESS` at least."""
    color = QtGui.QColor(*rgb)
    hue, saturation, lightness, _alpha = color.getHslF()
    return QtGui.QColor.fromHslF(max(hue, 0.0), saturation, max(lightness, MIN_NODE_LIGHTNESS))


class GraphOverview(QtWidgets.QWidget):
    """The minimap in a corner of a NodeGraphQt viewer; see the module docstring.

    `viewer` is the NodeViewer (the overview becomes its child, above the
    viewport); `nodes` returns the graph's node objects (`graph.all_nodes`).
    """

    #: The user's toggle changed (View > Overview).
    enabledChanged = QtCore.Signal(bool)

    def __init__(self, viewer: NodeViewer, nodes: Callable[[], Iterable[Any]]) -> None:
        super().__init__(viewer)
        self.setObjectName("graphOverview")
        self.setToolTip("Overview: click or drag to move the view (View > Overview hides it)")
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_NoMousePropagation)
        self._viewer = viewer
        self._nodes = nodes
        self._enabled = True
        #: Which of CORNERS the overview sits in.
        self._corner = 0
        self._layout = OverviewLayout()
        self._bounds = QtCore.QRectF()
        self._pixmap: QtGui.QPixmap | None = None
        #: The layout or size changed since the drawing was made; it is redrawn when the overview shows
        #: (a graph that fits the view, as every document does right after opening, is never drawn).
        self._drawing_stale = False
        self._visible_rect = QtCore.QRectF()
        self._drag_offset: QtCore.QPointF | None = None
        self._postponed = 0
        #: How many times the cached drawing was repainted (tests count them: pans must not repaint it).
        self.renders = 0
        self._rebuild_timer = QtCore.QTimer(self)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(REBUILD_INTERVAL_MS)
        self._rebuild_timer.timeout.connect(self._rebuild_when_idle)
        viewer.scene().changed.connect(self._schedule_rebuild)
        viewer.installEventFilter(self)
        self._viewport = viewer.viewport()
        self._viewport.installEventFilter(self)
        self.hide()
        self._schedule_rebuild()

    # ---- state ----------------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        """The user's toggle (the overview shows only while it is on and the graph does not fit)."""
        return self._enabled

    def set_enabled(self, enabled: bool) -> None:
        if enabled == self._enabled:
            return
        self._enabled = enabled
        self._update_visibility()
        self.enabledChanged.emit(enabled)

    @property
    def layout_shown(self) -> OverviewLayout:
        """The layout the cached drawing shows."""
        return self._layout

    def cached_drawing(self) -> QtGui.QPixmap:
        """The graph as drawn into the cache (without the view's rectangle)."""
        if self._drawing_stale:
            self._render()
        return self._pixmap if self._pixmap is not None else QtGui.QPixmap()

    def visible_scene_rect(self) -> QtCore.QRectF:
        """The part of the scene the viewer shows."""
        return self._viewer.mapToScene(self._viewport.rect()).boundingRect()

    def graph_fits(self) -> bool:
        """Every node is inside the view (an empty graph fits too)."""
        return self._bounds.isEmpty() or self.visible_scene_rect().contains(self._bounds)

    # ---- coordinates ----------------------------------------------------------------------

    def _scale_and_origin(self) -> tuple[float, QtCore.QPointF]:
        """Scene -> widget: widget = origin + scene * scale (the bounds centred, aspect kept)."""
        bounds = self._bounds
        if bounds.isEmpty():
            return 1.0, QtCore.QPointF(0.0, 0.0)
        width = max(1.0, self.width() - 2 * INNER_MARGIN)
        height = max(1.0, self.height() - 2 * INNER_MARGIN)
        scale = min(width / bounds.width(), height / bounds.height())
        origin = QtCore.QPointF(self.width() / 2 - bounds.center().x() * scale,
                                self.height() / 2 - bounds.center().y() * scale)
        return scale, origin

    def scene_to_overview(self, point: QtCore.QPointF) -> QtCore.QPointF:
        scale, origin = self._scale_and_origin()
        return QtCore.QPointF(origin.x() + point.x() * scale, origin.y() + point.y() * scale)

    def overview_to_scene(self, point: QtCore.QPointF) -> QtCore.QPointF:
        scale, origin = self._scale_and_origin()
        return QtCore.QPointF((point.x() - origin.x()) / scale, (point.y() - origin.y()) / scale)

    def _scene_rect_to_overview(self, rect: QtCore.QRectF) -> QtCore.QRectF:
        return QtCore.QRectF(self.scene_to_overview(rect.topLeft()), self.scene_to_overview(rect.bottomRight()))

    # ---- navigation -----------------------------------------------------------------------

    def center_view_on(self, scene_point: QtCore.QPointF) -> None:
        """Pan the viewer (zoom unchanged) so that `scene_point` is at the centre of its view."""
        _x, _y, width, height = self._viewer.scene_rect()
        self._viewer.set_scene_rect([scene_point.x() - width / 2, scene_point.y() - height / 2, width, height])

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() != QtCore.Qt.MouseButton.LeftButton or self._bounds.isEmpty():
            event.ignore()
            return
        scene_point = self.overview_to_scene(event.position())
        visible = self.visible_scene_rect()
        # Grabbing the viewport rectangle moves it by the grab point (no jump); elsewhere it jumps there.
        self._drag_offset = (scene_point - visible.center()) if visible.contains(scene_point) else QtCore.QPointF()
        self.center_view_on(scene_point - self._drag_offset)
        self.setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
        event.accept()

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._drag_offset is None:
            event.ignore()
            return
        self.center_view_on(self.overview_to_scene(event.position()) - self._drag_offset)
        event.accept()

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802 - Qt override
        self._drag_offset = None
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        event.accept()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802 - Qt override
        # The wheel zooms the view as if the overview were not there (around the point under the cursor).
        position = QtCore.QPointF(self._viewport.mapFrom(self, event.position().toPoint()))
        forwarded = QtGui.QWheelEvent(position, event.globalPosition(), event.pixelDelta(), event.angleDelta(),
                                      event.buttons(), event.modifiers(), event.phase(), event.inverted())
        QtCore.QCoreApplication.sendEvent(self._viewport, forwarded)
        event.accept()

    # ---- following the graph and the view -------------------------------------------------

    def _schedule_rebuild(self, *_args: object) -> None:
        if not self._rebuild_timer.isActive():
            self._rebuild_timer.start()

    def _rebuild_when_idle(self) -> None:
        # A node being dragged (the scene's mouse grabber) changes the scene at every mouse move: redraw
        # once it is dropped, or every MAX_POSTPONED intervals during a long drag.
        if self._viewer.scene().mouseGrabberItem() is not None and self._postponed < MAX_POSTPONED:
            self._postponed += 1
            self._rebuild_timer.start()
            return
        self.rebuild()

    def rebuild(self) -> bool:
        """Read the graph now; True when the drawing changed (and was repainted)."""
        self._rebuild_timer.stop()
        self._postponed = 0
        layout = layout_of(self._nodes())
        if layout == self._layout and (self._pixmap is not None or self._drawing_stale):
            self._update_visibility()
            return False
        self._layout = layout
        self._bounds = layout.bounds
        self._place()
        self._drawing_stale = True
        self._update_visibility()
        self.update()
        return True

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind == QtCore.QEvent.Type.Resize and watched is self._viewer:
            self._place()
            self._drawing_stale = True
            self._update_visibility()
        elif kind == QtCore.QEvent.Type.Paint and watched is self._viewport:
            # The view repaints after every pan and zoom: follow it without touching the cached drawing.
            visible = self.visible_scene_rect()
            if visible != self._visible_rect:
                self._visible_rect = visible
                self._update_visibility()
                if self.isVisible():
                    self.update()
        return False

    def _update_visibility(self) -> None:
        visible = self._enabled and not self.graph_fits()
        if visible and self._drawing_stale:
            self._render()
        self.setVisible(visible)
        if self.isVisible():
            self._follow_free_corner()
            self.raise_()

    def _covers_nodes(self, geometry: QtCore.QRect) -> bool:
        """Whether a node of the graph is drawn in the view under `geometry` (the viewer's coordinates)."""
        viewport = self._viewer.viewport().geometry()
        local = geometry.translated(-viewport.topLeft()).adjusted(-4, -4, 4, 4)
        return any(isinstance(item, NodeItem) for item in self._viewer.items(local))

    def _corner_geometry(self, corner: int, width: int, height: int) -> QtCore.QRect:
        """The overview's rectangle in corner `corner` of CORNERS (the viewer's coordinates)."""
        viewport = self._viewer.viewport().geometry()
        right, bottom = CORNERS[corner]
        x = viewport.right() - CORNER_MARGIN - width + 1 if right else viewport.left() + CORNER_MARGIN
        y = viewport.bottom() - CORNER_MARGIN - height + 1 if bottom else viewport.top() + CORNER_MARGIN
        return QtCore.QRect(x, y, width, height)

    def _follow_free_corner(self) -> None:
        """Out of the way of the nodes: when nodes are under the overview and another corner of the view
        has none, it moves there (and stays there while that corner is free: it does not chase the view)."""
        if not self._covers_nodes(self.geometry()):
            return
        for corner in range(len(CORNERS)):
            if corner != self._corner:
                geometry = self._corner_geometry(corner, self.width(), self.height())
                if not self._covers_nodes(geometry):
                    self._corner = corner
                    self.setGeometry(geometry)
                    return

    def _place(self) -> None:
        """Size from the graph's aspect ratio, in the viewer's corner it was in (bottom-right at first)."""
        bounds = self._bounds
        aspect = bounds.width() / bounds.height() if not bounds.isEmpty() else 1.5
        viewport = self._viewer.viewport().geometry()
        max_width = min(MAX_SIZE.width(), viewport.width() * MAX_FRACTION[0])
        max_height = min(MAX_SIZE.height(), viewport.height() * MAX_FRACTION[1])
        # The inner area (inside the margin) has the graph's aspect ratio, so the graph fills it.
        inner_width = max_width - 2 * INNER_MARGIN
        inner_height = inner_width / aspect
        if inner_height > max_height - 2 * INNER_MARGIN:
            inner_height = max_height - 2 * INNER_MARGIN
            inner_width = inner_height * aspect
        width = max(MIN_SIDE, round(inner_width + 2 * INNER_MARGIN))
        height = max(MIN_SIDE, round(inner_height + 2 * INNER_MARGIN))
        self.setGeometry(self._corner_geometry(self._corner, width, height))

    def _render(self) -> None:
        """Draw the graph into the cached pixmap (the only place that walks every node)."""
        ratio = self.devicePixelRatioF()
        pixmap = QtGui.QPixmap(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(pixmap)
        try:
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
            painter.setPen(QtGui.QPen(BORDER_COLOR, 1.0))
            painter.setBrush(BACKGROUND_COLOR)
            painter.drawRoundedRect(QtCore.QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4.0, 4.0)
            if not self._bounds.isEmpty():
                self._draw_layout(painter)
        finally:
            painter.end()
        self._pixmap = pixmap
        self._drawing_stale = False
        self.renders += 1

    def _draw_layout(self, painter: QtGui.QPainter) -> None:
        layout = self._layout
        scale, origin = self._scale_and_origin()
        ox, oy = origin.x(), origin.y()

        def mapped(rect: tuple[float, float, float, float], minimum: float = 0.0) -> QtCore.QRectF:
            x, y, width, height = rect
            return QtCore.QRectF(ox + x * scale, oy + y * scale, max(width * scale, minimum), max(height * scale, minimum))

        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for frame in layout.frames:
            fill = QtGui.QColor(*frame.color)
            fill.setAlpha(90)
            painter.setBrush(fill)
            painter.drawRect(mapped(frame.rect))
        painter.setPen(QtGui.QPen(WIRE_COLOR, 0.8))
        painter.drawLines([QtCore.QLineF(ox + x1 * scale, oy + y1 * scale, ox + x2 * scale, oy + y2 * scale)
                           for x1, y1, x2, y2 in layout.wires])
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        # One drawRects call per colour: a 2,000-node graph has a few dozen colours.
        by_fill: dict[tuple[tuple[int, int, int], str], list[QtCore.QRectF]] = {}
        selected: list[QtCore.QRectF] = []
        problems: list[tuple[QtCore.QRectF, str]] = []
        for node in layout.nodes:
            rect = mapped(node.rect, 2.0)  # at least 2 px: a node stays visible however large the graph
            by_fill.setdefault((node.color, node.problem), []).append(rect)
            if node.selected:
                selected.append(rect)
            if node.problem:
                problems.append((rect, node.problem))
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for (color, problem), rects in by_fill.items():
            painter.setBrush(_node_fill(OverviewNode((0.0, 0.0, 0.0, 0.0), color, problem)))
            painter.drawRects(rects)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.setPen(QtGui.QPen(SELECTED_COLOR, 1.0))
        painter.drawRects(selected)
        # Problems on top, ringed, so a red speck is found at a glance even under its neighbours.
        for rect, problem in problems:
            painter.setPen(QtGui.QPen(ERROR_COLOR if problem == "error" else WARNING_COLOR, 1.5))
            painter.drawRect(rect.adjusted(-2.5, -2.5, 2.5, 2.5))

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QtGui.QPainter(self)
        try:
            if self._pixmap is not None:
                painter.drawPixmap(0, 0, self._pixmap)
            if self._bounds.isEmpty():
                return
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
            painter.setClipRect(self.rect().adjusted(1, 1, -1, -1))
            painter.setPen(QtGui.QPen(VIEWPORT_COLOR, 1.5))
            painter.setBrush(VIEWPORT_FILL)
            painter.drawRect(self._scene_rect_to_overview(self.visible_scene_rect()))
        finally:
            painter.end()


def overview_action(overview: GraphOverview, settings: QtCore.QSettings, parent: QtCore.QObject) -> QtGui.QAction:
    """View > Overview: the checkable toggle, its state read from and written to `settings`."""
    action = QtGui.QAction("&Overview", parent)
    action.setCheckable(True)
    action.setStatusTip("Show a map of the whole graph in the corner of the node editor when it does not fit")
    enabled = settings.value(OVERVIEW_SETTING, True, type=bool)
    overview.set_enabled(bool(enabled))
    action.setChecked(overview.enabled)

    def toggled(checked: bool) -> None:
        overview.set_enabled(checked)
        settings.setValue(OVERVIEW_SETTING, checked)

    action.toggled.connect(toggled)
    overview.enabledChanged.connect(action.setChecked)
    return action
