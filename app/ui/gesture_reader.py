"""`GestureReader`: what the artist does in the NodeGraphQt view, as commands of the `DocumentModel`.

NodeGraphQt carries out its own gestures (dragging a wire, moving, deleting,
cutting, pasting, duplicating, drawing a frame) and records each on its
undo stack as a command of its own (`NodeAddedCmd`, `NodesRemovedCmd`,
`NodeMovedCmd`, `PortConnectedCmd`, `PropertyChangedCmd`, in macros). That
stack is only a journal here: each entry pushed is read once, from the items
it names, into model commands (one undo step of the model per gesture). It is
never undone (undo and redo are the model's), and is emptied whenever the
level shown is built again; until then its entries keep the items removed by
a gesture alive, which QGraphicsScene needs.

A pasted or duplicated node arrives with its original's id (NodeGraphQt
copies every property): it gets a fresh one, and a parameter node a fresh
name, before the model records it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

import shiboken6
from NodeGraphQt.base.commands import (
    NodeAddedCmd,
    NodeMovedCmd,
    NodesRemovedCmd,
    PortConnectedCmd,
    PortDisconnectedCmd,
    PropertyChangedCmd,
)
from PySide6.QtGui import QUndoCommand

from app.graph.adapter import from_view_value, read_frames, read_node, read_wires, renew_duplicate_ids
from app.graph.nodes import EXTRA_PROPERTIES, PROPERTY_PREFIX, FrameNode, MaterialNode
from app.graph.view import MaterialNodeGraph
from app.material.graph import Connection
from app.session.document_model import DocumentModel
from app.ui.graph_projection import GraphProjection

#: shiboken6's untyped helper, typed: whether a Qt object's C++ side still exists.
_is_valid = cast(Callable[[object], bool], shiboken6.isValid)


def _leaves(command: QUndoCommand) -> Iterator[QUndoCommand]:
    count = command.childCount()
    if not count:
        yield command
    for index in range(count):
        child = command.child(index)
        if child is not None:
            yield from _leaves(child)


class GestureReader:
    """See the module docstring."""

    def __init__(self, view: MaterialNodeGraph, model: DocumentModel, projection: GraphProjection) -> None:
        self.view, self.model, self.projection = view, model, projection
        self.enabled = True
        self._reading = False
        #: The journal entries read so far (NodeGraphQt's stack is never undone, so it only grows until emptied).
        self._seen = view.undo_stack().index()
        view.undo_stack().indexChanged.connect(self._on_journal)

    def _on_journal(self, index: int) -> None:
        seen, self._seen = self._seen, index
        if self._reading or self.projection.applying or not self.enabled:
            return  # the projection's own changes
        stack = self.view.undo_stack()
        if not _is_valid(stack):
            return  # the stack empties itself as it is destroyed (the window closing)
        if index < seen and stack.count() > index:
            # Something undid NodeGraphQt's own stack (not the document's history): show the record again.
            self.projection.rebuild()
            return
        if index <= seen:
            return  # the journal emptied when a level is built
        self._reading = True
        try:
            for entry in range(seen, index):
                self.read(stack.command(entry))
        finally:
            self._reading = False

    def read(self, command: QUndoCommand) -> None:
        """One journal entry (a gesture) as one model step."""
        self.projection.forget_items()
        leaves = list(_leaves(command))
        added = [leaf.node for leaf in leaves if isinstance(leaf, NodeAddedCmd)]
        removed = [node for leaf in leaves if isinstance(leaf, NodesRemovedCmd) for node in leaf.nodes]
        # A node added and removed by the same gesture (or removed and brought back) is no change.
        gone, came = {id(node) for node in removed}, {id(node) for node in added}
        new = [node for node in added if isinstance(node, MaterialNode) and id(node) not in gone]
        fresh = {id(node) for node in new}
        removed_here = [node for node in removed if isinstance(node, MaterialNode) and id(node) not in came]
        moved: list[MaterialNode] = []
        changed: list[tuple[MaterialNode, str]] = []
        inputs: list[tuple[MaterialNode, str]] = []
        frames = any(isinstance(node, FrameNode) for node in (*added, *removed))
        for leaf in leaves:
            if isinstance(leaf, (NodeMovedCmd, PropertyChangedCmd)):
                node = leaf.node
                frames = frames or isinstance(node, FrameNode)
                if not isinstance(node, MaterialNode) or id(node) in fresh:
                    continue
                if isinstance(leaf, NodeMovedCmd) or leaf.name == "pos":
                    moved.append(node)
                elif leaf.name.startswith(PROPERTY_PREFIX) or leaf.name == EXTRA_PROPERTIES:
                    changed.append((node, leaf.name))
            elif isinstance(leaf, (PortConnectedCmd, PortDisconnectedCmd)):
                for port in (leaf.source, leaf.target):
                    node = port.node()
                    if isinstance(node, MaterialNode) and port.type_() == "in":
                        inputs.append((node, port.name()))
        frames = frames or bool(moved or new or removed_here)
        if added:
            # Copies keep their originals' ids and names (a copied frame its id and members): fresh ones, outside undo.
            renew_duplicate_ids(self.view, self.model.level_graph())
        with self.model.macro(command.text()):
            self.model.remove_nodes(node.stable_id for node in removed_here)
            self._add(new, command.text())
            graph = self.model.level_graph()
            self.model.move_nodes({node.stable_id: (float(node.pos()[0]), float(node.pos()[1]))
                                   for node in moved if node.stable_id in graph.nodes})
            for node, name in changed:
                self._read_property(node, name)
            for node, port in inputs:
                self._read_input(node, port)
            if frames:
                self.model.set_frames(read_frames(self.view, set(self.model.level_graph().nodes)))

    def _add(self, nodes: list[MaterialNode], text: str) -> None:
        if not nodes:
            return
        level = self.model.level_graph()
        read = [read_node(view_node) for view_node in nodes]
        known = set(level.nodes) | {node.id for node in read}
        wires = list(dict.fromkeys(wire for view_node in nodes for wire in read_wires(view_node)
                                   if wire.source_node in known and wire.target_node in known))
        self.projection.forget_items()  # the ids changed
        self.model.add_nodes(read, wires, text)

    def _read_property(self, view_node: MaterialNode, key: str) -> None:
        node_id = view_node.stable_id
        if node_id not in self.model.level_graph().nodes:
            return
        if key == EXTRA_PROPERTIES:
            extra = view_node.get_property(EXTRA_PROPERTIES)
            for name, value in (extra.items() if isinstance(extra, dict) else ()):
                self.model.set_property(node_id, name, from_view_value(value))
            return
        self.model.set_property(node_id, key[len(PROPERTY_PREFIX):], from_view_value(view_node.get_property(key)))

    def _read_input(self, view_node: MaterialNode, port_name: str) -> None:
        graph = self.model.level_graph()
        node_id = view_node.stable_id
        port = view_node.inputs().get(port_name)
        if node_id not in graph.nodes or port is None:
            return
        sources = [source for source in port.connected_ports() if isinstance(source.node(), MaterialNode)]
        shown = (Connection(sources[0].node().stable_id, sources[0].name(), node_id, port_name) if sources else None)
        recorded = graph.connection_into(node_id, port_name)
        if shown == recorded:
            return
        if shown is None and recorded is not None:
            self.model.disconnect(recorded.source_node, recorded.source_port, node_id, port_name)
        elif shown is not None and shown.source_node in graph.nodes:
            self.model.connect(shown.source_node, shown.source_port, node_id, port_name, checked=False)
