"""The graph editing surface: NodeGraphQt's view, its undo stack and the edits the window offers.

`GraphEditor` owns the `MaterialNodeGraph` and turns what happens in it into
one signal: `edited`, after every change on the undo stack (NodeGraphQt
emits no node or port signals for paste, duplicate or undo, so the stack's
`indexChanged` is the one "graph changed" signal). On it the editor renews
duplicated stable ids and snapshots the view into `material`, the
`MaterialGraph` the session lowers and saves. Loading a document
(`load`) does not emit `edited`.

It also shows what the lowering found on the nodes (error markers,
resolved port types) and answers the viewer's "may this connect?" question
from the current snapshot, cached until the next edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from app.graph.adapter import populate, renew_duplicate_ids, snapshot
from app.graph.nodes import MaterialNode
from app.graph.view import MaterialNodeGraph
from app.material import catalog
from app.material.graph import MaterialGraph
from app.material.lowering import LoweringResult, NodeDiagnostic
from app.material.types import can_connect

PALETTE_DROP_OFFSET = 40.0


class GraphEditor(QObject):
    """See the module docstring."""

    #: The graph changed through the undo stack; `material` holds the new snapshot.
    edited = Signal()
    #: A connection was refused while dragging; carries the reason.
    connectionRefused = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.graph = MaterialNodeGraph(self)
        self.graph.register_catalog(catalog.NODE_TYPES.values())
        self.graph.connection_check = self._check_connection
        self.graph.typed_viewer.connection_refused.connect(self.connectionRefused)
        self.graph.undo_stack().indexChanged.connect(self._on_stack_changed)
        self.graph.set_grid_mode(1)
        self._material = MaterialGraph()
        self._loading = False
        self.editable = True
        self._connection_answers: dict[tuple[str, str, str, str], tuple[bool, str]] = {}

    @property
    def material(self) -> MaterialGraph:
        """The snapshot of the view after the last edit or load (the editor's own: copy to change)."""
        return self._material

    # ---- loading --------------------------------------------------------------------------

    def load(self, graph: MaterialGraph) -> list[str]:
        """Show `graph` (replacing everything, clearing undo); returns what the view could not show."""
        self._loading = True
        try:
            problems = populate(self.graph, graph)
        finally:
            self._loading = False
        self._material = snapshot(self.graph)
        self._connection_answers.clear()
        return problems

    def _on_stack_changed(self, _index: int = 0) -> None:
        if self._loading or not self.editable:
            return
        renew_duplicate_ids(self.graph, self._material)
        self._material = snapshot(self.graph)
        self._connection_answers.clear()
        self.graph.refresh_constraint_tables()
        self.edited.emit()

    def _check_connection(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        # The viewer asks on every mouse move over a port; the answer only
        # changes when the graph does (the cache is dropped on every edit).
        key = (source_id, source_port, target_id, target_port)
        answer = self._connection_answers.get(key)
        if answer is None:
            answer = can_connect(self._material, source_id, source_port, target_id, target_port)
            self._connection_answers[key] = answer
        return answer

    # ---- edits ----------------------------------------------------------------------------

    def add_node(self, type_name: str, position: tuple[float, float] | None = None) -> MaterialNode:
        """Add a node at `position`, or at the view centre without piling onto earlier additions."""
        if position is None:
            viewer = self.graph.viewer()
            centre = viewer.mapToScene(viewer.viewport().rect().center())
            position = (centre.x(), centre.y())
            taken = [node.pos() for node in self.graph.all_nodes()]
            while any(abs(x - position[0]) < 10 and abs(y - position[1]) < 10 for x, y in taken):
                position = (position[0] + PALETTE_DROP_OFFSET, position[1] + PALETTE_DROP_OFFSET)
        return self.graph.create_material_node(type_name, position=position)

    def connect_nodes(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        """Programmatic connect, through the same type check as dragging."""
        source = self.graph.node_by_stable_id(source_id)
        target = self.graph.node_by_stable_id(target_id)
        if source is None or target is None:
            return False, "unknown node"
        return self.graph.connect_ports(source, source_port, target, target_port)

    def set_node_property(self, node_id: str, name: str, value: object) -> None:
        node = self.graph.node_by_stable_id(node_id)
        if node is not None:
            node.set_material_property(name, value)

    def cut(self) -> None:
        if self.graph.selected_nodes():
            self.graph.cut_nodes()

    def copy(self) -> None:
        self.graph.copy_nodes()

    def paste(self) -> None:
        self.graph.paste_nodes()

    def duplicate(self) -> None:
        nodes = self.graph.selected_nodes()
        if nodes:
            self.graph.duplicate_nodes(nodes)

    def delete_selection(self) -> None:
        nodes = self.graph.selected_nodes()
        if nodes:
            self.graph.delete_nodes(nodes)

    # ---- selection and view ---------------------------------------------------------------

    def select_node(self, node_id: str) -> bool:
        """Select one node and bring it into view; False when there is no such node."""
        node = self.graph.node_by_stable_id(node_id)
        if node is None:
            return False
        # Through the scene, not NodeObject.set_selected: NodeGraphQt would
        # push the selection onto the undo stack.
        self.graph.scene().clearSelection()
        node.view.setSelected(True)
        self.graph.viewer().center_selection([node.view])
        return True

    def select_all(self) -> None:
        for node in self.graph.all_nodes():
            node.view.setSelected(True)

    def selected_material_nodes(self) -> list[MaterialNode]:
        try:
            # Through the scene, not NodeGraph.selected_nodes: while nodes are
            # being removed the scene can report an item the model dropped.
            items = self.graph.viewer().selected_nodes()
        except RuntimeError:
            return []  # the scene is being torn down
        nodes = (self.graph.get_node_by_id(item.id) for item in items)
        return [node for node in nodes if isinstance(node, MaterialNode)]

    def frame_selection(self) -> None:
        nodes = self.graph.selected_nodes() or self.graph.all_nodes()
        self.graph.typed_viewer.frame_items([node.view for node in nodes])

    def frame_all(self) -> None:
        self.graph.typed_viewer.frame_items([node.view for node in self.graph.all_nodes()])

    def open_tab_search(self) -> None:
        """NodeGraphQt's tab search (a modal menu at the cursor); the chosen node lands there."""
        viewer = self.graph.viewer()
        viewer.tab_search_set_nodes(self.graph.node_factory.names)
        viewer.tab_search_toggle()

    def adopt_context_menu(self, actions: Sequence[QAction | None]) -> None:
        """Give the graph's right-click menu the window's `actions` (None: a separator).

        NodeGraphQt puts its own Undo/Redo actions, with the standard keys,
        in a hidden menu bar inside the viewer; two actions on Ctrl+Z make
        the key ambiguous and neither fires. Those actions are dropped in
        favour of the window's.
        """
        menu = self.graph.viewer().context_menus()["graph"]
        for action in list(menu.actions()):
            action.setShortcuts([])
            menu.removeAction(action)
        for action in actions:
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)

    # ---- what the lowering found ----------------------------------------------------------

    def node_label(self, node_id: str | None) -> str:
        if node_id is None:
            return ""
        node = self.graph.node_by_stable_id(node_id)
        return f"{node.name()} ({node_id})" if node is not None else node_id

    def show_diagnostics(self, diagnostics: Sequence[NodeDiagnostic]) -> None:
        """Error markers on the nodes the diagnostics name (and none on the others)."""
        messages: dict[str, list[str]] = {}
        for diagnostic in diagnostics:
            if diagnostic.node_id is not None:
                prefix = "" if diagnostic.severity == "error" else "warning: "
                messages.setdefault(diagnostic.node_id, []).append(prefix + diagnostic.message)
        for node in self.graph.material_nodes():
            node.view.set_diagnostics(messages.get(node.stable_id, []))

    def show_port_types(self, result: LoweringResult) -> None:
        for node in self.graph.material_nodes():
            node.refresh_title()
            resolved: dict[tuple[str, str], object] = {}
            for direction, ports in (("in", node.input_ports()), ("out", node.output_ports())):
                for port in ports:
                    port_type = result.port_types.get((node.stable_id, port.name()))
                    if port_type is not None:
                        resolved[(direction, port.name())] = port_type
            node.show_port_types(resolved)
