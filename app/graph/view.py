"""The editor's NodeGraphQt graph: typed connection checks and stable node ids.

NodeGraphQt's port constraints match port *names*, not data types. So the
typed check is asked for the one port a dragged wire is over: the viewer
watches its scene's mouse moves and releases (a Qt event filter, which runs
before NodeGraphQt's handlers) while a wire is dragged, asks the graph's
`connection_check` (`app.material.connections.can_connect`, from the current
`MaterialGraph`) and, on a refusal, hands NodeGraphQt a reject table (its
public `reject_connection_types`) naming exactly that pair of ports. NodeGraphQt
then does what it does for any refused connection: the pipe turns purple while
dragging, and on release the old state comes back. The reason shows as a
tooltip at the cursor and `connection_refused(reason)` is emitted. The table
is rebuilt for each move, so nothing needs re-applying after load or paste.

Programmatic connections go through `connect_ports`, which runs the same
check and NodeGraphQt's cycle check before connecting through the undo stack.

Node search (`app.graph.search`) replaces NodeGraphQt's tab search: the
viewer's `tab_search_toggle` and a new wire released over no port
(`apply_live_connection`) call `MaterialNodeGraph.open_node_search`; the
chosen node is added where the search was opened and, for a dropped wire,
connected to its first compatible port, in one undo macro. The graph's
right-click menu gets Add Node… and the frame actions back at the top
whenever it is about to show (the editor window refills it with its own).
Frames: `frame_around_selection` wraps the selected nodes in a `FrameNode`
backdrop; title and colour changes go through the undo stack.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from NodeGraphQt import BaseNode, NodeGraph
from NodeGraphQt.base.commands import NodeMovedCmd, NodesRemovedCmd
from NodeGraphQt.constants import PortTypeEnum
from NodeGraphQt.qgraphics.node_base import NodeItem
from NodeGraphQt.qgraphics.pipe import PipeItem
from NodeGraphQt.qgraphics.port import PortItem
from NodeGraphQt.widgets.viewer import NodeViewer
from PySide6 import QtCore, QtGui, QtWidgets

from app.graph.nodes import THUMBNAIL_ROOM, FrameNode, MaterialNode, MaterialNodeItem, NodeClassRegistry, thumbnail_rect
from app.graph.placement import nearest_free
from app.graph.search import NodeSearch
from app.graph.sections import SectionHeaderItem
from app.material.port_types import Constraint, PortConstraint, PortType, conversion, refusal

#: (source node id, source port, target node id, target port) -> (allowed, reason).
#: Ids are stable ids (`MaterialNode.stable_id`), ports catalog port names.
ConnectionCheck = Callable[[str, str, str, str], tuple[bool, str]]

#: Framing never zooms out further than this: node titles (11 px) stay about 7 px tall, error badges visible.
MIN_READABLE_SCALE = 0.6

#: How long a dragged wire rests on a folded section's header before the section opens (spring-loaded, as folders
#: open under a dragged file in a file manager).
SPRING_OPEN_MS = 350

#: The pixmap cache the view's items need, in viewports' worth of pixels (`fit_pixmap_cache`), and its ceiling.
PIXMAP_CACHE_VIEWPORTS = 24
PIXMAP_CACHE_MAX_KB = 256 * 1024


def fit_pixmap_cache(viewport: QtWidgets.QWidget) -> int:
    """Raise Qt's pixmap cache limit to what a graph view of `viewport`'s size needs (it never lowers it); the limit.

    NodeGraphQt caches every node, port and wire in device coordinates
    (`DeviceCoordinateCache`), and those caches live in the process's
    `QPixmapCache`, 10 MB by default. A wire's cache is its bounding
    rectangle, so the wires of a graph in view overlap and need many
    viewports' worth of pixels: the 200-node benchmark graph in a 913 x 509
    view needs 20-40 MB. Over the limit the caches evict each other and every
    repaint (a thumbnail arriving, a marker, a node's value) paints all wires
    in the exposed area again in Python: 90-145 ms for a repaint that takes
    22-44 ms from the caches (docs/performance-history.md, section 4, "Wave 5").
    """
    ratio = viewport.devicePixelRatioF()
    pixels = viewport.width() * viewport.height() * ratio * ratio
    wanted = min(PIXMAP_CACHE_MAX_KB, int(pixels * 4 * PIXMAP_CACHE_VIEWPORTS / 1024))
    if wanted > QtGui.QPixmapCache.cacheLimit():
        QtGui.QPixmapCache.setCacheLimit(wanted)
    return QtGui.QPixmapCache.cacheLimit()


_SELECTED_CHANGE = QtWidgets.QGraphicsItem.GraphicsItemChange.ItemSelectedChange


class MaterialPipeItem(PipeItem):
    """NodeGraphQt's wire, answering Qt's item changes without two calls through the binding.

    `PipeItem.itemChange` acts on selection only; Qt calls it for every
    change of the wire (dozens while a document opens: flags, parent, scene,
    position, cache...), and each call reads a PySide6 enum member through
    its class and calls `QGraphicsItem.itemChange`, which returns `value`.
    """

    def itemChange(self, change: QtWidgets.QGraphicsItem.GraphicsItemChange, value: Any) -> Any:  # noqa: N802 - Qt name
        if change is _SELECTED_CHANGE:
            return super().itemChange(change, value)
        return value

    def conversion(self) -> str | None:
        """The implicit conversion this wire makes (`port_types.conversion`: "broadcast", "luminance", ...), from the
        types its ports show; None when the types are the same or not known."""
        if self.input_port is None or self.output_port is None:
            return None
        source, target = _shown_type(self.output_port), _shown_type(self.input_port)
        if source is None or target is None or source is target:
            return None
        return conversion(source, target)

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 - Qt override
        return super().boundingRect().adjusted(-CONVERSION_MARKER_RADIUS - 1, -CONVERSION_MARKER_RADIUS - 1,
                                               CONVERSION_MARKER_RADIUS + 1, CONVERSION_MARKER_RADIUS + 1)

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem, widget: QtWidgets.QWidget | None) -> None:
        super().paint(painter, option, widget)
        if self.conversion() is None:
            return
        # A converting wire (a colour into a float input, a float broadcast into a colour...) shows a small ring
        # near the input it converts for, in the input's colour; the port's tooltip says what it does.
        assert self.input_port is not None
        painter.save()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QtGui.QPen(QtGui.QColor(235, 235, 235), 1.5))
        painter.setBrush(QtGui.QColor(*self.input_port.color[:3]))
        painter.drawEllipse(self.path().pointAtPercent(CONVERSION_MARKER_AT), CONVERSION_MARKER_RADIUS,
                            CONVERSION_MARKER_RADIUS)
        painter.restore()


#: Where on a converting wire its marker sits (a wire's path runs from its input, 0, to its output, 1), and its
#: radius in scene units.
CONVERSION_MARKER_AT = 0.15
CONVERSION_MARKER_RADIUS = 4.0


def _shown_whole(view: QtCore.QRectF, target: QtCore.QRectF) -> QtCore.QRectF:
    """`view` moved as little as possible to hold `target` (its top left edge first when it cannot hold all of it)."""
    moved = QtCore.QRectF(view)
    if target.right() > moved.right():
        moved.moveRight(target.right())
    if target.left() < moved.left():
        moved.moveLeft(target.left())
    if target.bottom() > moved.bottom():
        moved.moveBottom(target.bottom())
    if target.top() < moved.top():
        moved.moveTop(target.top())
    return moved


def _shown_type(port: PortItem) -> PortType | None:
    """The port type a port item shows (its resolved type, else its declared one; `MaterialNode.show_port_types`)."""
    label = port.data(0)
    try:
        return PortType(label) if isinstance(label, str) else None
    except ValueError:
        return None


class TypedNodeViewer(NodeViewer):
    """A NodeViewer whose live-connection validation also asks a type check."""

    connection_refused = QtCore.Signal(str)
    #: NodeGraphQt's reject table, read by its viewer on every hover and release of a dragged wire.
    reject_connection_types: dict[str, Any] | None

    def __init__(self, parent: QtWidgets.QWidget | None = None, undo_stack: QtGui.QUndoStack | None = None) -> None:
        super().__init__(parent, undo_stack=undo_stack)
        self.port_check: Callable[[PortItem, PortItem], tuple[bool, str]] | None = None
        #: (port a wire was dragged from or None, scene position or None) -> opens the node search.
        self.search_handler: Callable[[PortItem | None, QtCore.QPointF | None], None] | None = None
        #: (NodeGraphQt id of the node under the cursor, global position) -> True when it showed a node menu.
        self.node_menu_handler: Callable[[str, QtCore.QPoint], bool] | None = None
        #: A double click on a node's thumbnail: the window opens it in the texture view (True: handled).
        self.thumbnail_handler: Callable[[str], bool] | None = None
        self._last_refusal = ""
        #: The port a wire is being dragged from (None: no wire is dragged).
        self._wire_from: PortItem | None = None
        #: NodeGraphQt's own reject table while a refusal's table stands in for it (None: it is in place).
        self._saved_rejects: dict[str, Any] | None = None
        #: (output port item a wire comes from, section header it was dropped on): connects into the section.
        self.section_drop_handler: Callable[[PortItem, SectionHeaderItem], object] | None = None
        #: The folded section a dragged wire rests on (opens when `_spring_timer` fires), and the sections opened so
        #: while this wire is dragged (folded again when it is dropped, unless it was connected into them).
        self._spring_header: SectionHeaderItem | None = None
        self._sprung: list[SectionHeaderItem] = []
        self._spring_timer = QtCore.QTimer(self)
        self._spring_timer.setSingleShot(True)
        self._spring_timer.setInterval(SPRING_OPEN_MS)
        self._spring_timer.timeout.connect(self.open_spring_section)
        self.scene().installEventFilter(self)

    @property
    def last_refusal(self) -> str:
        return self._last_refusal

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        fit_pixmap_cache(self.viewport())

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:  # noqa: N802 - Qt override
        """A right click on a node shows the window's node menu (`node_menu_handler`); elsewhere the graph menu."""
        if self.node_menu_handler is not None:
            nodes = [item for item in self._items_near(self.mapToScene(event.pos())) if isinstance(item, NodeItem)]
            if nodes and self.node_menu_handler(nodes[0].id, event.globalPos()):
                self.RMB_state = False
                event.accept()
                return
        super().contextMenuEvent(event)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802 - Qt override
        """A double click on a node's thumbnail goes to `thumbnail_handler`; any other to NodeGraphQt."""
        if self.thumbnail_handler is not None and event.button() == QtCore.Qt.MouseButton.LeftButton:
            scene_pos = self.mapToScene(event.position().toPoint())
            for item in self.scene().items(scene_pos):
                rect = thumbnail_rect(item) if isinstance(item, MaterialNodeItem) else None
                if rect is not None and rect.contains(item.mapFromScene(scene_pos)) and self.thumbnail_handler(item.id):
                    event.accept()
                    return
        super().mouseDoubleClickEvent(event)

    def viewportEvent(self, event: QtCore.QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QtCore.QEvent.Type.ToolTip and isinstance(event, QtGui.QHelpEvent):
            # Node and port tooltips are built when first shown (app.graph.nodes): build the ones under the cursor.
            for item in self.items(event.pos()):
                materialize = getattr(item, "materialize_tooltip", None)
                if materialize is not None:
                    materialize()
        return super().viewportEvent(event)

    def establish_connection(self, start_port: PortItem, end_port: PortItem) -> None:
        """NodeViewer's (NodeGraphQt 0.6.44, pinned), with a `MaterialPipeItem`."""
        pipe = MaterialPipeItem()
        self.scene().addItem(pipe)
        pipe.set_connections(start_port, end_port)
        pipe.draw_path(pipe.input_port, pipe.output_port)
        if start_port.node.selected or end_port.node.selected:
            pipe.highlight()
        if not start_port.node.visible or not end_port.node.visible:
            pipe.hide()

    def accepts_connection(self, from_port: PortItem, to_port: PortItem) -> bool:
        """The typed check of a wire dragged from `from_port` over `to_port` (a refusal is reported)."""
        if self.port_check is None or from_port.port_type == to_port.port_type:
            return True  # same-direction drops are refused by NodeGraphQt itself
        allowed, reason = self.port_check(from_port, to_port)
        if not allowed:
            self._report_refusal(reason)
        return allowed

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802 - Qt override
        """Before NodeGraphQt handles a dragged wire's move or release: the typed check of the port under it."""
        if (self._wire_from is not None and watched is self.scene()
                and isinstance(event, QtWidgets.QGraphicsSceneMouseEvent)
                and event.type() in (QtCore.QEvent.Type.GraphicsSceneMouseMove,
                                     QtCore.QEvent.Type.GraphicsSceneMouseRelease)):
            self._check_port_under(event.scenePos())
            self._rest_on_section(event.scenePos())
        return False  # NodeGraphQt handles the event as always

    def section_header_at(self, position: QtCore.QPointF) -> SectionHeaderItem | None:
        return next((item for item in self.scene().items(position) if isinstance(item, SectionHeaderItem)), None)

    def _rest_on_section(self, position: QtCore.QPointF) -> None:
        """A wire dragged from an output onto a folded section's header starts the spring timer; off it, stops it."""
        start = self._wire_from
        header = self.section_header_at(position) if start is not None and start.port_type == PortTypeEnum.OUT.value else None
        if header is not None and header.is_open:
            header = None
        if header is self._spring_header:
            return
        self._spring_header = header
        if header is None:
            self._spring_timer.stop()
        else:
            self._spring_timer.start()

    def open_spring_section(self) -> None:
        """Open the folded section a dragged wire rests on, for as long as the wire is dragged."""
        header = self._spring_header
        self._spring_header = None
        if header is None or self._wire_from is None or header.is_open:
            return
        header.set_transient(True)
        self._sprung.append(header)

    def _check_port_under(self, position: QtCore.QPointF) -> None:
        start = self._wire_from
        assert start is not None
        target = next((item for item in self.scene().items(position)
                       if isinstance(item, PortItem) and item is not start), None)
        if target is None or self.accepts_connection(start, target):
            self._restore_rejects()
            return
        if self._saved_rejects is None:
            self._saved_rejects = self.reject_connection_types
        # NodeGraphQt's reject table: {node type: {port type: {port name: {node type: {port type: [port names]}}}}}.
        self.reject_connection_types = {
            target.node.type_: {target.port_type: {target.name: {start.node.type_: {start.port_type: [start.name]}}}},
        }

    def _restore_rejects(self) -> None:
        if self._saved_rejects is not None:
            self.reject_connection_types, self._saved_rejects = self._saved_rejects, None

    def _report_refusal(self, reason: str) -> None:
        if reason != self._last_refusal:
            self._last_refusal = reason
            self.connection_refused.emit(reason)
        QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), reason, self)

    def frame_items(self, items: list[QtWidgets.QGraphicsItem], margin: float = 40.0,
                    keep: QtWidgets.QGraphicsItem | None = None) -> None:
        """Fit the items in view with a margin (NodeGraphQt's zoom_to_nodes fits edge to edge).

        Never below `MIN_READABLE_SCALE`: a graph too large to fit legibly is
        shown at that scale around its centre (titles and error badges stay
        readable; the rest is a pan away), moved just enough to show `keep`
        whole (the material's output node: what an artist looks for first;
        its top left when it is larger than the view).
        """
        if not items:
            return
        rect = self.items_rect(items).adjusted(-margin, -margin, margin, margin)
        viewport = self.viewport().size()
        if rect.width() > 0 and rect.height() > 0 and viewport.width() > 0 and viewport.height() > 0:
            fit = min(viewport.width() / rect.width(), viewport.height() / rect.height())
            if fit < MIN_READABLE_SCALE:
                centre = rect.center()
                rect = QtCore.QRectF(0.0, 0.0, viewport.width() / MIN_READABLE_SCALE,
                                     viewport.height() / MIN_READABLE_SCALE)
                rect.moveCenter(centre)
                if keep is not None:
                    rect = _shown_whole(rect, self.items_rect([keep]).adjusted(-margin, -margin, margin, margin))
        self._scene_range = rect
        self._update_scene()
        if self.get_zoom() > 0.1:
            # Never magnify a small graph beyond (about) its natural size.
            self.reset_zoom(rect.center())

    def view_range(self) -> QtCore.QRectF:
        """The scene rectangle the view is fitted to (pan and zoom), for `show_range` to bring back."""
        return QtCore.QRectF(self._scene_range)

    def show_range(self, rect: QtCore.QRectF) -> None:
        """Pan and zoom back to a rectangle `view_range` gave."""
        self._scene_range = QtCore.QRectF(rect)
        self._update_scene()

    @staticmethod
    def items_rect(nodes: list[QtWidgets.QGraphicsItem]) -> QtCore.QRectF:
        """The scene rectangle around `nodes` and their children.

        NodeGraphQt groups the items (`createItemGroup`) to ask the group; making
        and destroying the group re-parents every item and costs time quadratic in
        their number (7 of 11 s when opening 1,000 nodes). A union is linear.
        """
        rect = QtCore.QRectF()
        for item in nodes:
            rect = rect.united(item.sceneBoundingRect()).united(item.mapRectToScene(item.childrenBoundingRect()))
        return rect

    def start_live_connection(self, selected_port: PortItem) -> None:
        self._last_refusal = ""
        self._wire_from = selected_port
        super().start_live_connection(selected_port)

    def end_live_connection(self) -> None:
        super().end_live_connection()
        self._wire_from = None
        self._restore_rejects()
        self._spring_timer.stop()
        self._spring_header = None
        sprung, self._sprung = self._sprung, []
        for header in sprung:  # (a wire connected into one keeps it open)
            header.set_transient(False)

    # --- node search: Tab, and wires dropped in empty space ---

    def tab_search_set_nodes(self, nodes: Any) -> None:
        """NodeGraphQt's own search lists internal ids; ours (app.graph.search) replaces it."""
        if self.search_handler is None:
            super().tab_search_set_nodes(nodes)

    def tab_search_toggle(self) -> None:
        if self.search_handler is None:
            super().tab_search_toggle()
            return
        self.search_handler(None, None)

    def apply_live_connection(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        """A new wire released over no port opens the node search there (and connects what is chosen)."""
        start = self._start_port
        header = self.section_header_at(event.scenePos())
        if (header is not None and start is not None and start.port_type == PortTypeEnum.OUT.value
                and self._detached_port is None and self.section_drop_handler is not None
                and not any(isinstance(item, PortItem) for item in self.scene().items(event.scenePos()))):
            # A wire dropped on a section's header connects to the section's first input that takes it.
            self.end_live_connection()
            self.section_drop_handler(start, header)
            return
        dropped = (
            self.search_handler is not None
            and self._LIVE_PIPE.isVisible()
            and self._detached_port is None
            and not any(isinstance(item, PortItem) for item in self.scene().items(event.scenePos()))
        )
        super().apply_live_connection(event)
        if dropped and self.search_handler is not None:
            self.search_handler(start, event.scenePos())


def _port_fits(wire_type: PortType | None, port_type: PortConstraint, into_port: bool) -> bool:
    """Whether a wire of `wire_type` (None: unknown) can meet a catalog port of `port_type`."""
    if wire_type is None:
        return True
    if into_port:
        return refusal(wire_type, port_type, "") is None
    if isinstance(port_type, Constraint):
        return wire_type.is_numeric
    return conversion(port_type, wire_type) is not None


#: NodeGraphQt's pattern for a name that already ends in a number ("Add 3").
_NUMBERED_NAME = re.compile(r"\w+ (\d+)$")


class MaterialNodeGraph(NodeGraph):
    """NodeGraph with catalog node classes, typed checks and stable-id lookup."""

    #: A node the node search added (after its connection, if a wire was pending).
    node_added_by_search = QtCore.Signal(object)
    #: An input's value edited on its node (stable id, property name, value, continuing a drag).
    input_value_edited = QtCore.Signal(str, str, object, bool)
    #: A drag of an input's value on its node ended.
    input_value_gesture_ended = QtCore.Signal()

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        undo_stack = QtGui.QUndoStack()
        viewer = TypedNodeViewer(undo_stack=undo_stack)
        super().__init__(parent, undo_stack=undo_stack, viewer=viewer)
        # Our backdrop carries a frame id; frames are made as `FrameNode`s (NodeGraphQt's plain backdrop stays
        # registered, unused).
        self.register_node(FrameNode)
        undo_stack.setParent(self)
        self.property_changed.connect(self._show_property)
        self.registry: NodeClassRegistry | None = None
        self.connection_check: ConnectionCheck | None = None
        viewer.port_check = self._check_port_items
        viewer.section_drop_handler = self.connect_into_section
        #: While loading (`bulk_naming`): the node names in use and the next number to try per base name.
        self._names_in_use: set[str] | None = None
        self._next_number: dict[str, int] = {}
        #: Whether nodes show thumbnails (the window's switch): a new node's free spot then has room for the
        #: thumbnail it gets once drawn, so it does not grow onto the node below it.
        self.thumbnails_shown = False

    def get_unique_name(self, name: str) -> str:
        """NodeGraphQt's unique node name ("Add", "Add 1", "Add 2", ...), without its quadratic search.

        NodeGraphQt lists every node's name per call and then tries "Add 1",
        "Add 2", ... each against that list: cubic in the number of nodes of one
        type when a graph is loaded. Here a set answers; within
        `bulk_naming` the set is kept between calls and numbers go on from the
        last one given, so loading n nodes costs O(n).
        """
        name = " ".join(name.split())
        taken = self._names_in_use if self._names_in_use is not None else {node.name() for node in self.all_nodes()}
        if name in taken:
            numbered = _NUMBERED_NAME.search(name)
            base = name[:-len(numbered.group(1))].strip() if numbered else name
            number = self._next_number.get(base, 1) if self._names_in_use is not None else 1
            while f"{base} {number}" in taken:
                number += 1
            name = f"{base} {number}"
            self._next_number[base] = number + 1
        if self._names_in_use is not None:
            taken.add(name)
        return name

    def clear_session(self) -> None:
        """NodeGraphQt's, without an undo command and two signals per wire.

        Its version disconnects every wire through the undo stack (a macro
        per port), then clears the stack anyway: 1.8 s of opening a document
        over a 1,000-node one. Nothing here listens to NodeGraphQt's
        connection signals; the nodes still go in one removal command.
        """
        nodes = self.all_nodes()
        with self.unindexed_scene():
            for node in nodes:
                if isinstance(node, BaseNode):
                    for port in (*node.input_ports(), *node.output_ports()):
                        if port.locked():
                            port.set_locked(False, connected_ports=False)
                        port.clear_connections(push_undo=False, emit_signal=False)
            self._undo_stack.push(NodesRemovedCmd(self, nodes))
        self._undo_stack.clear()
        self._model.session = ""
        # A removed node and its ports refer to each other (the node lists its ports, each port's model names
        # the node): cyclic garbage, frozen since its document was opened (`vpl_core.collector.loading`), that only a
        # full collection over everything alive frees (0.4-0.9 s after 2,000 nodes). Nothing refers to these
        # nodes any more (their removal command went with the stack), so the cycles are cut and the old view is
        # freed here, by reference counting.
        for node in nodes:
            if isinstance(node, BaseNode):
                for port in (*node.input_ports(), *node.output_ports()):
                    port.model.node = None
                node._inputs.clear()
                node._outputs.clear()

    @contextlib.contextmanager
    def unindexed_scene(self) -> Iterator[None]:
        """Add or remove many items without the scene's spatial index, rebuilt once at the end.

        The BSP tree is updated for every item added or removed (a node has
        about a dozen: ports, labels, title, icon); rebuilding it once costs
        a fraction of that. Queries inside the block still work (a linear scan).
        """
        scene = self.scene()
        method = scene.itemIndexMethod()
        if method == QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex:
            yield
            return
        scene.setItemIndexMethod(QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex)
        try:
            yield
        finally:
            scene.setItemIndexMethod(method)

    @contextlib.contextmanager
    def bulk_naming(self) -> Iterator[None]:
        """Create many nodes (loading): names are made unique against a set kept for the duration."""
        self._names_in_use = {node.name() for node in self.all_nodes()}
        self._next_number = {}
        try:
            yield
        finally:
            self._names_in_use = None
            self._next_number = {}

    @property
    def typed_viewer(self) -> TypedNodeViewer:
        return self._viewer

    # --- catalog ---

    def register_catalog(self, node_types: Iterable[Any]) -> NodeClassRegistry:
        node_types = list(node_types)
        self.registry = NodeClassRegistry(node_types)
        self.register_nodes(list(self.registry.classes.values()))
        self.registry.on_new_class = self.register_node
        self._catalog_types = node_types
        self.node_search = NodeSearch(node_types, self._viewer)
        self.node_search.chosen.connect(self._add_searched_node)
        self.node_search.on_closed = self._forget_pending_wire
        self.typed_viewer.search_handler = self.open_node_search
        self._install_graph_menu_actions()
        return self.registry

    # --- node search (Tab, "Add Node…", wires dropped in empty space) ---

    def open_node_search(self, pending: PortItem | None = None, scene_position: QtCore.QPointF | None = None) -> None:
        """Show the node search at the cursor; the chosen node lands at `scene_position` (the cursor's).

        With `pending`, the port a wire was dragged from, only node types
        with a port that can take the wire are listed, and the new node is
        connected to it.
        """
        viewer = self.typed_viewer
        cursor = QtGui.QCursor.pos()
        local = viewer.mapFromGlobal(cursor)
        if not viewer.rect().contains(local):
            local = viewer.rect().center()
            cursor = viewer.mapToGlobal(local)
        self._search_position = scene_position if scene_position is not None else viewer.mapToScene(local)
        self._pending_wire = pending
        allowed = self.types_for_wire(pending) if pending is not None else None
        self.node_search.popup(cursor, allowed)

    def _forget_pending_wire(self) -> None:
        self._pending_wire = None

    def _pending_endpoint(self, pending: PortItem) -> tuple[MaterialNode | None, str, bool]:
        """(node, port name, True when the wire comes from an output)."""
        node = self.get_node_by_id(pending.node.id)
        return (node if isinstance(node, MaterialNode) else None), pending.name, pending.port_type == PortTypeEnum.OUT.value

    def types_for_wire(self, pending: PortItem) -> list[str]:
        """Catalog types with a port that can take the wire (by the types shown on the ports)."""
        node, port_name, from_output = self._pending_endpoint(pending)
        if node is None:
            return [node_type.type_name for node_type in self._catalog_types]
        label = node.port_type_label("out" if from_output else "in", port_name)
        wire_type = PortType(label) if label in {member.value for member in PortType} else None
        names = []
        for node_type in self._catalog_types:
            ports = node_type.inputs if from_output else node_type.outputs
            if any(_port_fits(wire_type, port.type, from_output) for port in ports):
                names.append(node_type.type_name)
        return names

    def _add_searched_node(self, type_name: str) -> None:
        position = getattr(self, "_search_position", None)
        pending = getattr(self, "_pending_wire", None)
        xy = (position.x(), position.y()) if position is not None else None
        stack = self.undo_stack()
        stack.beginMacro(f"add {type_name}")
        try:
            node = self.create_material_node(type_name, position=xy)
            if xy is not None:
                self.place_in_free_space(node, xy)
            if pending is not None:
                self._connect_pending(pending, node)
        finally:
            stack.endMacro()
        self._pending_wire = None
        self.node_added_by_search.emit(node)

    def _connect_pending(self, pending: PortItem, node: MaterialNode) -> bool:
        other, port_name, from_output = self._pending_endpoint(pending)
        if other is None:
            return False
        candidates = node.CATALOG_TYPE.inputs if from_output else node.CATALOG_TYPE.outputs
        for port in candidates:
            if from_output:
                allowed, _ = self.connect_ports(other, port_name, node, port.name)
            else:
                allowed, _ = self.connect_ports(node, port.name, other, port_name)
            if allowed:
                return True
        return False

    def _install_graph_menu_actions(self) -> None:
        """"Add Node…" and "Frame Around Selection" on the graph's right-click menu.

        The editor window refills that menu with its own actions; the entries
        are put back at the top whenever the menu opens.
        """
        viewer = self.typed_viewer
        self.add_node_action = QtGui.QAction("Add Node…", viewer)
        self.add_node_action.triggered.connect(lambda _checked=False: self.open_node_search())
        self.wrap_frame_action = QtGui.QAction("Frame Around Selection", viewer)
        # Ctrl+J, Blender's "join in frame" (Ctrl+G groups the selection into a node group).
        self.wrap_frame_action.setShortcut(QtGui.QKeySequence("Ctrl+J"))
        self.wrap_frame_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        self.wrap_frame_action.triggered.connect(lambda _checked=False: self.frame_around_selection())
        viewer.addAction(self.wrap_frame_action)
        self.rename_frame_action = QtGui.QAction("Rename Frame…", viewer)
        self.rename_frame_action.triggered.connect(lambda _checked=False: self._ask_frame_title())
        self.frame_color_action = QtGui.QAction("Frame Colour…", viewer)
        self.frame_color_action.triggered.connect(lambda _checked=False: self._ask_frame_color())
        menu = viewer.context_menus()["graph"]
        menu.aboutToShow.connect(self._restore_graph_menu_actions)
        self._restore_graph_menu_actions()

    def _restore_graph_menu_actions(self) -> None:
        selected_frame = self.selected_frame() is not None
        self.rename_frame_action.setEnabled(selected_frame)
        self.frame_color_action.setEnabled(selected_frame)
        menu = self.typed_viewer.context_menus()["graph"]
        actions = menu.actions()
        if self.add_node_action in actions:
            return
        first = actions[0] if actions else None
        menu.insertAction(first, self.add_node_action)
        menu.insertAction(first, self.wrap_frame_action)
        menu.insertAction(first, self.rename_frame_action)
        menu.insertAction(first, self.frame_color_action)
        if first is not None:
            menu.insertSeparator(first)

    # --- frames ---

    def frame_around_selection(self, title: str = "Frame") -> FrameNode | None:
        """A new frame (backdrop) wrapped around the selected nodes, as one undo step."""
        nodes = [node for node in self.selected_nodes() if isinstance(node, MaterialNode)]
        if not nodes:
            return None
        stack = self.undo_stack()
        stack.beginMacro("frame around selection")
        try:
            frame = self.create_node(FrameNode.type_, name=title, selected=False)
            frame.wrap_nodes(nodes)
        finally:
            stack.endMacro()
        return frame

    def selected_frame(self) -> FrameNode | None:
        frames = [node for node in self.selected_nodes() if isinstance(node, FrameNode)]
        return frames[0] if len(frames) == 1 else None

    def rename_frame(self, frame: FrameNode, title: str) -> None:
        """Set a frame's title (undoable)."""
        frame.set_name(title.strip() or "Frame")

    def set_frame_color(self, frame: FrameNode, rgb: tuple[int, int, int]) -> None:
        """Set a frame's colour (undoable)."""
        frame.set_color(*(min(max(int(component), 0), 255) for component in rgb))

    def _ask_frame_title(self) -> None:
        frame = self.selected_frame()
        if frame is None:
            return
        title, accepted = QtWidgets.QInputDialog.getText(self.typed_viewer, "Rename Frame", "Title:", text=frame.name())
        if accepted:
            self.rename_frame(frame, title)

    def _ask_frame_color(self) -> None:
        frame = self.selected_frame()
        if frame is None:
            return
        chosen = QtWidgets.QColorDialog.getColor(QtGui.QColor(*frame.color()), self.typed_viewer, "Frame Colour")
        if chosen.isValid():
            self.set_frame_color(frame, (chosen.red(), chosen.green(), chosen.blue()))

    def frames(self) -> list[FrameNode]:
        return [node for node in self.all_nodes() if isinstance(node, FrameNode)]

    def move_frame(self, frame: FrameNode, dx: float, dy: float) -> None:
        """Move a frame and the nodes it encloses by (dx, dy), as one undo step (what dragging it does)."""
        members = [node for node in frame.nodes() if node is not None and node is not frame]
        stack = self.undo_stack()
        stack.beginMacro("move frame")
        try:
            for item in [frame, *members]:
                x, y = item.pos()
                item.set_pos(x + dx, y + dy)
        finally:
            stack.endMacro()

    def create_material_node(self, type_name: str, position: tuple[float, float] | None = None,
                             push_undo: bool = True, selected: bool = True, node_type: Any = None) -> MaterialNode:
        """A new view node of catalog type `type_name`, or of `node_type`, a resolved (dynamic) type."""
        assert self.registry is not None, "register_catalog first"
        view_type = self.registry.class_for(node_type).type_ if node_type is not None else self.registry.view_type(type_name)
        node = self.create_node(view_type, pos=position, push_undo=push_undo, selected=selected)
        return node

    @staticmethod
    def _show_property(node: Any, name: str, _value: Any) -> None:
        """A property changed (an edit, undo, redo): the values drawn on the node follow."""
        if isinstance(node, MaterialNode):
            for item in node.view.input_values:
                item.update()
            node.reveal_value(name)

    def place_in_free_space(self, node: MaterialNode, preferred: tuple[float, float]) -> None:
        """Move the just-added `node` to the free spot nearest `preferred` (app.graph.placement).

        A position change through the undo stack: inside the macro that adds the node, one undo step.
        """
        scene = self.scene()
        others = {other.view for other in self.all_nodes() if other is not node and not isinstance(other, FrameNode)}
        # A node with outputs gets a thumbnail after the next refresh, which makes it taller: the new node and
        # the ones added just before it (not drawn yet) are given that height here.
        reach = THUMBNAIL_ROOM if self.thumbnails_shown else 0.0

        def final_rect(item: QtWidgets.QGraphicsItem) -> QtCore.QRectF:
            rect = item.sceneBoundingRect()
            if reach and isinstance(item, MaterialNodeItem) and item.outputs:
                rect.adjust(0.0, 0.0, 0.0, item.thumbnail_room())
            return rect

        def occupied(rect: tuple[float, float, float, float]) -> bool:
            wanted = QtCore.QRectF(*rect)
            return any(item in others and final_rect(item).intersects(wanted)
                       for item in scene.items(wanted.adjusted(0.0, -reach, 0.0, 0.0)))

        bounds = final_rect(node.view)
        x, y = nearest_free((bounds.width(), bounds.height()), preferred, occupied)
        if (x, y) != tuple(node.pos()):
            node.set_pos(x, y)

    # --- stable ids ---

    def material_nodes(self) -> list[MaterialNode]:
        return [node for node in self.all_nodes() if isinstance(node, MaterialNode)]

    def node_by_stable_id(self, stable_id: str) -> MaterialNode | None:
        for node in self.material_nodes():
            if node.stable_id == stable_id:
                return node
        return None

    def nodes_by_stable_id(self) -> dict[str, MaterialNode]:
        """Every material node by stable id, read once: for updating many nodes (`node_by_stable_id` scans all)."""
        return {node.stable_id: node for node in self.material_nodes()}

    # --- typed connections ---

    def _check_port_items(self, from_item: PortItem, to_item: PortItem) -> tuple[bool, str]:
        if from_item.port_type == PortTypeEnum.OUT.value:
            source_item, target_item = from_item, to_item
        else:
            source_item, target_item = to_item, from_item
        source = self.get_node_by_id(source_item.node.id)
        target = self.get_node_by_id(target_item.node.id)
        if not isinstance(source, MaterialNode) or not isinstance(target, MaterialNode):
            return True, ""
        return self.check_connection(source, source_item.name, target, target_item.name)

    def check_connection(self, source: MaterialNode, source_port: str, target: MaterialNode,
                         target_port: str) -> tuple[bool, str]:
        if self.connection_check is None:
            return True, ""
        return self.connection_check(source.stable_id, source_port, target.stable_id, target_port)

    def connect_ports(self, source: MaterialNode, source_port: str, target: MaterialNode, target_port: str,
                      push_undo: bool = True) -> tuple[bool, str]:
        """Connect output `source_port` to input `target_port` if the types and the graph allow it."""
        output = source.outputs().get(source_port)
        input_ = target.inputs().get(target_port)
        if output is None or input_ is None:
            return False, f"no such port: {source.name()}.{source_port} -> {target.name()}.{target_port}"
        if source is target or not self._viewer.acyclic_check(output.view, input_.view):
            return False, "the connection would make a cycle"
        allowed, reason = self.check_connection(source, source_port, target, target_port)
        if not allowed:
            self.typed_viewer.connection_refused.emit(reason)
            return False, reason
        # Connect from the output (a multi-connection port): NodeGraphQt's
        # connect_to misbehaves when called on an already connected single input.
        output.connect_to(input_, push_undo=push_undo)
        return True, ""

    def connect_into_section(self, source_item: PortItem, header: SectionHeaderItem) -> tuple[bool, str]:
        """Connect the output `source_item` to the first input of `header`'s section that takes it (an unconnected
        one first): what dropping a wire on a section's header does. The section opens with the wire."""
        source = self.get_node_by_id(source_item.node.id)
        target = self.get_node_by_id(header.node_id)
        if not isinstance(source, MaterialNode) or not isinstance(target, MaterialNode):
            return False, ""
        reason = f"no input of {header.title} takes this wire"
        ports = sorted(header.ports, key=lambda port: bool(port.connected_pipes))
        for port in ports:
            allowed, why = self.check_connection(source, source_item.name, target, port.name)
            if allowed:
                return self.connect_ports(source, source_item.name, target, port.name)
            reason = why or reason
        self.typed_viewer.connection_refused.emit(reason)
        return False, reason

    # --- paste with a correct redo ---

    def paste_nodes(self, adjust_graph_style: bool = True) -> list[Any]:
        """NodeGraphQt's paste, made redoable at the pasted position.

        NodeGraphQt adds pasted nodes at their clipboard positions (that is
        what its add command remembers) and then moves them to the cursor
        without an undo command, so a redo would put them back on top of the
        originals. A move command from the clipboard position to the final
        one, in the same macro, fixes that.
        """
        clipboard_positions = self._clipboard_positions()
        if clipboard_positions is None:
            return []
        stack = self.undo_stack()
        stack.beginMacro("paste nodes")
        try:
            nodes = list(super().paste_nodes(adjust_graph_style) or [])
            for node in nodes:
                if isinstance(node, MaterialNode):
                    node.settle_sections()  # the copied values' sections open, as when a document is shown
            if len(clipboard_positions) == len(nodes):
                for node, previous in zip(nodes, clipboard_positions):
                    final = list(node.view.xy_pos)
                    if previous is not None and list(previous) != final:
                        stack.push(NodeMovedCmd(node, final, list(previous)))
        finally:
            stack.endMacro()
        return nodes

    def _clipboard_positions(self) -> list[list[float] | None] | None:
        """Positions of the nodes NodeGraphQt will create from the clipboard, in creation order."""
        try:
            data = json.loads(QtWidgets.QApplication.clipboard().text() or "null")
        except ValueError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("nodes"), dict):
            return None
        known = set(self.node_factory.nodes) | set(self.node_factory.aliases)
        return [
            entry.get("pos") for entry in data["nodes"].values()
            if isinstance(entry, dict) and entry.get("type_") in known
        ]

    def refresh_constraint_tables(self) -> None:
        """Point the viewer at the model's current tables (deserialising replaces them)."""
        viewer = self.typed_viewer
        viewer.accept_connection_types = self.model.accept_connection_types
        viewer.reject_connection_types = self.model.reject_connection_types
