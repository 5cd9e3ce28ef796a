"""The editor's NodeGraphQt graph: typed connection checks and stable node ids.

NodeGraphQt's port constraints match port *names*, not data types, and the
viewer keeps stale constraint tables after a session load. So the typed check
replaces the viewer's validation hook instead of feeding those tables:
`TypedNodeViewer._validate_accept_connection` (called by the viewer while a
live connection is dragged over a port, and again on release) asks the
graph's `connection_check`, which answers from the current `MaterialGraph`
(`app.material.types.can_connect`). A refusal keeps the pipe purple while
dragging, shows the reason as a tooltip at the cursor and emits
`connection_refused(reason)`; on release NodeGraphQt then restores the old
state as it does for any refused connection. Because the hook does not read
any table, nothing needs re-applying after load or paste; the tables are
still re-pointed (`refresh_constraint_tables`) so NodeGraphQt's own checks
stay consistent.

Programmatic connections go through `connect_ports`, which runs the same
check and NodeGraphQt's cycle check before connecting through the undo stack.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from NodeGraphQt import NodeGraph
from NodeGraphQt.base.commands import NodeMovedCmd
from NodeGraphQt.constants import PortTypeEnum
from NodeGraphQt.qgraphics.port import PortItem
from NodeGraphQt.widgets.viewer import NodeViewer
from PySide6 import QtCore, QtGui, QtWidgets

from app.graph.nodes import FrameNode, MaterialNode, NodeClassRegistry

#: (source node id, source port, target node id, target port) -> (allowed, reason).
#: Ids are stable ids (`MaterialNode.stable_id`), ports catalog port names.
ConnectionCheck = Callable[[str, str, str, str], tuple[bool, str]]

#: Framing never zooms out further than this: node titles (11 px) stay about 7 px tall, error badges visible.
MIN_READABLE_SCALE = 0.6


class TypedNodeViewer(NodeViewer):
    """A NodeViewer whose live-connection validation also asks a type check."""

    connection_refused = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None, undo_stack: QtGui.QUndoStack | None = None) -> None:
        super().__init__(parent, undo_stack=undo_stack)
        self.port_check: Callable[[PortItem, PortItem], tuple[bool, str]] | None = None
        self._last_refusal = ""

    @property
    def last_refusal(self) -> str:
        return self._last_refusal

    def _validate_accept_connection(self, from_port: PortItem, to_port: PortItem) -> bool:
        if not super()._validate_accept_connection(from_port, to_port):
            return False
        if self.port_check is None or from_port.port_type == to_port.port_type:
            return True  # same-direction drops are refused by NodeGraphQt itself
        allowed, reason = self.port_check(from_port, to_port)
        if not allowed:
            self._report_refusal(reason)
        return allowed

    def _report_refusal(self, reason: str) -> None:
        if reason != self._last_refusal:
            self._last_refusal = reason
            self.connection_refused.emit(reason)
        QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), reason, self)

    def frame_items(self, items: list[QtWidgets.QGraphicsItem], margin: float = 40.0) -> None:
        """Fit the items in view with a margin (NodeGraphQt's zoom_to_nodes fits edge to edge).

        Never below `MIN_READABLE_SCALE`: a graph too large to fit legibly is
        shown at that scale around its centre (titles and error badges stay
        readable; the rest is a pan away).
        """
        if not items:
            return
        rect = self._combined_rect(items).adjusted(-margin, -margin, margin, margin)
        viewport = self.viewport().size()
        if rect.width() > 0 and rect.height() > 0 and viewport.width() > 0 and viewport.height() > 0:
            fit = min(viewport.width() / rect.width(), viewport.height() / rect.height())
            if fit < MIN_READABLE_SCALE:
                centre = rect.center()
                rect = QtCore.QRectF(0.0, 0.0, viewport.width() / MIN_READABLE_SCALE,
                                     viewport.height() / MIN_READABLE_SCALE)
                rect.moveCenter(centre)
        self._scene_range = rect
        self._update_scene()
        if self.get_zoom() > 0.1:
            # Never magnify a small graph beyond (about) its natural size.
            self.reset_zoom(rect.center())

    def start_live_connection(self, selected_port: PortItem) -> None:
        self._last_refusal = ""
        super().start_live_connection(selected_port)


class MaterialNodeGraph(NodeGraph):
    """NodeGraph with catalog node classes, typed checks and stable-id lookup."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        undo_stack = QtGui.QUndoStack()
        viewer = TypedNodeViewer(undo_stack=undo_stack)
        super().__init__(parent, undo_stack=undo_stack, viewer=viewer)
        undo_stack.setParent(self)
        self.registry: NodeClassRegistry | None = None
        self.connection_check: ConnectionCheck | None = None
        viewer.port_check = self._check_port_items

    def _register_builtin_nodes(self) -> None:
        # Our backdrop carries a frame id; NodeGraphQt's plain one would not.
        self.register_node(FrameNode, alias="Backdrop")

    @property
    def typed_viewer(self) -> TypedNodeViewer:
        return self._viewer

    # --- catalog ---

    def register_catalog(self, node_types: Iterable[Any]) -> NodeClassRegistry:
        self.registry = NodeClassRegistry(node_types)
        self.register_nodes(list(self.registry.classes.values()))
        return self.registry

    def create_material_node(self, type_name: str, position: tuple[float, float] | None = None,
                             push_undo: bool = True, selected: bool = True) -> MaterialNode:
        assert self.registry is not None, "register_catalog first"
        node = self.create_node(self.registry.view_type(type_name), pos=position, push_undo=push_undo,
                                selected=selected)
        return node

    # --- stable ids ---

    def material_nodes(self) -> list[MaterialNode]:
        return [node for node in self.all_nodes() if isinstance(node, MaterialNode)]

    def node_by_stable_id(self, stable_id: str) -> MaterialNode | None:
        for node in self.material_nodes():
            if node.stable_id == stable_id:
                return node
        return None

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
        self._viewer.accept_connection_types = self._model.accept_connection_types
        self._viewer.reject_connection_types = self._model.reject_connection_types
