"""`GraphProjection`: the NodeGraphQt view as a projection of the `DocumentModel`.

The model (app/session/document_model.py) is the record; this applies each
of its changes to the view's items, outside NodeGraphQt's undo stack: a
node added, removed, moved or changed, a wire made or removed, the frames,
and a new level or document (the level shown is built again). A change the
view already shows (the echo of a gesture made in the view, see
`app.ui.gesture_reader`) changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from app.graph.adapter import populate, read_frames, show_frames, show_nodes
from app.graph.nodes import EXTRA_PROPERTIES, MaterialNode, property_key, to_view_value
from app.graph.view import MaterialNodeGraph
from app.material.groups import scope_for
from app.session.document_commands import (
    ABSENT,
    Change,
    Connected,
    Disconnected,
    DocumentReplaced,
    FramesChanged,
    LevelChanged,
    NodeAdded,
    NodeMoved,
    NodeRemoved,
    PropertyChanged,
)
from app.session.document_model import DocumentModel


class GraphProjection:
    """See the module docstring."""

    def __init__(self, view: MaterialNodeGraph, model: DocumentModel) -> None:
        self.view = view
        self.model = model
        #: True while the view's items are being changed to match the model (the gesture reader ignores it).
        self.applying = False
        #: What cannot be shown of the level last built (unknown node types, wires to missing ports).
        self.problems: list[str] = []
        #: Called after the level shown was built again (its nodes are new objects).
        self.rebuilt: Callable[[], object] = lambda: None
        self._shown: tuple[object, tuple[str, ...]] | None = None
        #: The view's material nodes by id (None: read again); kept in step with what this adds and removes.
        self._nodes: dict[str, MaterialNode] | None = None
        model.changed.connect(self.apply)

    @contextmanager
    def _applying(self) -> Iterator[None]:
        outer, self.applying = self.applying, True
        try:
            yield
        finally:
            self.applying = outer

    def rebuild(self) -> list[str]:
        """Show the model's level as it is now (new items); returns what cannot be shown."""
        model = self.model
        with self._applying():
            self.problems = populate(self.view, model.level_graph(), scope_for(model.document, model.level))
        self._shown = (model.document, model.path)
        self._nodes = None
        self.rebuilt()
        return self.problems

    def forget_items(self) -> None:
        """The view's items changed outside the projection (a gesture): read them again when needed."""
        self._nodes = None

    def node(self, node_id: str) -> MaterialNode | None:
        if self._nodes is None:
            self._nodes = self.view.nodes_by_stable_id()
        return self._nodes.get(node_id)

    def apply(self, change: Change) -> None:
        if isinstance(change, (DocumentReplaced, LevelChanged)):
            shown = self._shown
            if shown is None or shown[0] is not self.model.document or shown[1] != self.model.path:
                self.rebuild()
            return
        level = getattr(change, "level", ...)
        if level is ... or level != self.model.level:
            return  # variants, the stage, or another level than the one shown
        with self._applying():
            self._apply_here(change)

    def _apply_here(self, change: Change) -> None:
        view = self.view
        if isinstance(change, NodeAdded):
            if self.node(change.node.id) is None:
                created, problems = show_nodes(view, [change.node], scope_for(self.model.document, self.model.level))
                self.problems += problems
                if self._nodes is not None:
                    self._nodes.update(created)
        elif isinstance(change, NodeRemoved):
            node = self.node(change.node_id)
            if node is not None:
                view.remove_node(node, push_undo=False)
                if self._nodes is not None:
                    self._nodes.pop(change.node_id, None)
        elif isinstance(change, NodeMoved):
            node = self.node(change.node_id)
            if node is not None and tuple(node.pos()) != change.position:
                node.set_property("pos", list(change.position), push_undo=False)
        elif isinstance(change, PropertyChanged):
            self._set_property(change)
        elif isinstance(change, (Connected, Disconnected)):
            self._set_wire(change)
        elif isinstance(change, FramesChanged):
            graph = self.model.level_graph()
            if read_frames(view, set(graph.nodes)) != graph.frames:
                show_frames(view, graph.frames)

    def _set_property(self, change: PropertyChanged) -> None:
        node = self.node(change.node_id)
        if node is None:
            return
        spec = node.CATALOG_TYPE.property(change.name)
        if spec is not None:
            # A property the document does not store (undo back to before it was first set) reads as its
            # default, as on a node just made: the view keeps a value, never the model's ABSENT marker.
            value = to_view_value(spec.default if change.value is ABSENT else change.value)
            if node.get_property(property_key(change.name)) != value:
                node.set_property(property_key(change.name), value, push_undo=False)
        else:
            extra = dict(node.get_property(EXTRA_PROPERTIES) or {})
            if change.value is ABSENT:
                extra.pop(change.name, None)
            else:
                extra[change.name] = to_view_value(change.value)
            node.model.set_property(EXTRA_PROPERTIES, extra)
        node.refresh_title()  # a parameter node's title carries its name

    def _set_wire(self, change: Connected | Disconnected) -> None:
        wire = change.connection
        source = self.node(wire.source_node)
        target = self.node(wire.target_node)
        output = source.outputs().get(wire.source_port) if isinstance(source, MaterialNode) else None
        input_ = target.inputs().get(wire.target_port) if isinstance(target, MaterialNode) else None
        if output is None or input_ is None:
            return
        connected = input_ in output.connected_ports()
        if isinstance(change, Connected) and not connected:
            for other in list(input_.connected_ports()):  # the view shows one wire into an input
                other.disconnect_from(input_, push_undo=False, emit_signal=False)
            output.connect_to(input_, push_undo=False, emit_signal=False)
        elif isinstance(change, Disconnected) and connected:
            output.disconnect_from(input_, push_undo=False, emit_signal=False)
