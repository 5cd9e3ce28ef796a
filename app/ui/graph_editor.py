"""The graph editing surface: the session's document model shown in NodeGraphQt, and the edits the window offers.

The record is `model`, a `DocumentModel` (app/session/document_model.py):
the graph with its group definitions, the level shown, the variants, the
saved stage and the undo history. The NodeGraphQt view is its projection
(`GraphProjection` applies the model's changes to the items) and the
source of gestures (`GestureReader` turns what NodeGraphQt does into model
commands). Undo and redo are the model's. `edited` is emitted after every
change of the history (a push, a merge, an undo, a redo); `material` is
then the model's document, which the session lowers and saves. Loading a
document (`load`) does not emit `edited`.

Edits the editor makes itself are model commands with names an artist
reads (`Change "power" of Fresnel 2`, `Add variant "rusty"`); a drag of a
slider is one undo step (`continuing`). Group edits and the function
library are in `app.ui.group_editing`; what the lowering found is drawn by
`app.ui.graph_annotations`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, QRectF, Signal
from PySide6.QtGui import QAction

from app.graph.nodes import MaterialNode, property_key, to_view_value
from app.graph.view import MaterialNodeGraph
from app.material import catalog
from app.material.custom_code import CUSTOM_CODE_TYPE
from app.material.graph import MaterialGraph
from app.material.groups import GROUP_OUTPUT_TYPE, view_types
from app.material.scene import OUTPUT_NODE_TYPES
from app.material.traversal import node_id_key
from app.session.document_commands import Change, LevelChanged
from app.session.document_model import DocumentModel
from app.ui.gesture_reader import GestureReader
from app.ui.graph_annotations import GraphAnnotations
from app.ui.graph_projection import GraphProjection
from app.ui.group_editing import GroupEditing
from vpl_core.collector import reclaim_frozen_garbage


class GraphEditor(QObject):
    """See the module docstring."""

    #: The document changed through the model's history; `material` holds it.
    edited = Signal()
    #: The undo history changed (what Undo and Redo would do).
    historyChanged = Signal()
    #: A connection was refused while dragging; carries the reason.
    connectionRefused = Signal(str)
    #: The view now shows another level (the material, or a group's body): carries the breadcrumb names.
    levelChanged = Signal(list)
    #: The level shown was built again: its nodes are new objects (they show nothing drawn for the old ones).
    viewRebuilt = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.graph = MaterialNodeGraph(self)
        self.registry = self.graph.register_catalog([*catalog.NODE_TYPES.values(), *view_types()])
        self.graph.connection_check = self._check_connection
        self.graph.typed_viewer.connection_refused.connect(self.connectionRefused)
        self.graph.set_grid_mode(1)
        self.model = DocumentModel()
        self.projection = GraphProjection(self.graph, self.model)
        self.projection.rebuilt = self._on_rebuilt
        self.reader = GestureReader(self.graph, self.model, self.projection)
        self.annotations = GraphAnnotations(self.graph, lambda: self.model.level)
        self.groups = GroupEditing(self)
        self.model.changed.connect(self._on_change)
        self.model.history_changed.connect(self._on_history)
        #: How a chosen image file is stored (the window sets the session's: relative to the document).
        self.texture_reference: Callable[[str], str] = lambda path: path
        self._loading = False
        self.editable = True
        #: True while `edited` reports a change that continues a gesture (a slider drag): the window
        #: throttles lowering then instead of lowering at once.
        self.edit_continuing = False
        self._connection_answers: dict[tuple[str, str, str, str], tuple[bool, str]] = {}
        self._shown_path: tuple[str, ...] = ()
        #: The pan and zoom each level was left with (by path), brought back when the view returns to it.
        self._view_ranges: dict[tuple[str, ...], QRectF] = {}

    # ---- the record ----------------------------------------------------------------------

    @property
    def material(self) -> MaterialGraph:
        """The whole document as the model holds it (never changed in place: copy to change)."""
        return self.model.document

    @property
    def path(self) -> tuple[str, ...]:
        return self.model.path

    @property
    def level(self) -> str | None:
        """The definition whose body the view shows; None for the material's own graph."""
        return self.model.level

    def level_material(self) -> MaterialGraph:
        return self.model.level_graph()

    def breadcrumb(self) -> list[str]:
        return self.model.breadcrumb()

    def load(self, graph: MaterialGraph) -> list[str]:
        """Show `graph` (replacing everything, clearing undo); returns what the view could not show."""
        self._loading = True
        self._view_ranges.clear()
        self.annotations.forget()
        try:
            # The previous document goes first, so that its garbage is reclaimed while the heap is smallest.
            self.graph.clear_session()
            reclaim_frozen_garbage()
            self.model.load(graph)
        finally:
            self._loading = False
        self._connection_answers.clear()
        self._announce_level()
        self._view_ranges.clear()  # the previous document's views mean nothing for this one
        return list(self.projection.problems)

    def take_rewritten(self, graph: MaterialGraph) -> None:
        """Saving rewrote property values (relative texture paths): the record and the view take them, outside undo."""
        self.model.take(graph)

    def set_saved_stage(self, stage: dict[str, Any] | None) -> None:
        """The stage to save with the document (None: none); an edit of the document, outside undo (view state)."""
        if self.model.take_stage(stage) and not self._loading and self.editable:
            self.edited.emit()

    # ---- model events --------------------------------------------------------------------

    def _on_change(self, change: Change) -> None:
        if isinstance(change, LevelChanged):
            self._announce_level()

    def _on_rebuilt(self) -> None:
        self._connection_answers.clear()
        self.annotations.redraw()
        self.viewRebuilt.emit()

    def _on_history(self, _modified: bool) -> None:
        self._connection_answers.clear()
        self.graph.refresh_constraint_tables()
        self.historyChanged.emit()
        if self._loading or not self.editable:
            return
        if not self.edit_continuing:  # a step of a drag adds no node
            self.annotations.apply_costs()  # new nodes get the footer at once; their numbers come with the next lowering
        self.edited.emit()

    def _announce_level(self) -> None:
        if self.path != self._shown_path:
            viewer = self.graph.typed_viewer
            self._view_ranges[self._shown_path] = viewer.view_range()
            self._shown_path = self.path
            saved = self._view_ranges.get(self.path)
            if saved is not None:
                viewer.show_range(saved)  # back where the level was left, as Blender does
            else:
                self.frame_all()
        self.levelChanged.emit(self.breadcrumb())

    def _check_connection(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        # The viewer asks on every mouse move over a port; the answer only
        # changes when the graph does (the cache is dropped on every edit).
        key = (source_id, source_port, target_id, target_port)
        answer = self._connection_answers.get(key)
        if answer is None:
            answer = self._connection_answers[key] = self.model.can_connect(*key)
        return answer

    # ---- history -------------------------------------------------------------------------

    def undo(self) -> None:
        self.model.undo()

    def redo(self) -> None:
        self.model.redo()

    def _continuing(self, continuing: bool) -> _Continuing:
        return _Continuing(self, continuing)

    # ---- edits ----------------------------------------------------------------------------

    def add_node(self, type_name: str, position: tuple[float, float] | None = None) -> MaterialNode:
        """Add a node at `position` (a drop), or in the free space nearest the view centre (one undo step)."""
        free = position is None
        place = self.view_centre() if position is None else position
        with self.model.macro(f"Add {catalog.NODE_TYPES[type_name].display_name if type_name in catalog.NODE_TYPES else type_name}"):
            node_id = self.model.add_node(type_name, place)
            node = self.projection.node(node_id)
            assert node is not None, "the projection shows every node the model adds"
            if free:
                self.graph.place_in_free_space(node, place)
        return node

    def view_centre(self) -> tuple[float, float]:
        viewer = self.graph.viewer()
        centre = viewer.mapToScene(viewer.viewport().rect().center())
        return centre.x(), centre.y()

    def connect_nodes(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        """Programmatic connect, through the same type check as dragging."""
        graph = self.model.level_graph()
        if source_id not in graph.nodes or target_id not in graph.nodes:
            return False, "unknown node"
        return self.model.connect(source_id, source_port, target_id, target_port)

    def set_node_property(self, node_id: str, name: str, value: object, continuing: bool = False) -> None:
        """One undoable property change (`continuing`: merge with the previous change of this gesture)."""
        node = self.projection.node(node_id)
        if node is None:
            return
        node_type = node.CATALOG_TYPE  # the node's own (a group's or Custom Code's ports are its own)
        spec = next((spec for spec in node_type.properties if spec.name == name), None)
        if spec is not None and spec.kind == "texture" and isinstance(value, str) and os.path.isabs(value):
            value = self.texture_reference(value)
        if node.get_property(property_key(name)) == to_view_value(value) and not continuing:
            return
        label = spec.display_name if spec is not None else name
        text = f'Change "{label}" of {node.name()}'
        if node_type.type_name == CUSTOM_CODE_TYPE and name in ("inputs", "outputs"):
            # The node's ports change: the level is rebuilt (wires to ports that are gone go with them).
            document = self.material.copy()
            (document if self.level is None else document.functions[self.level].body).nodes[node_id].properties[name] = value
            self.model.replace_document(document, text)
            self.select_node(node_id)
            return
        with self._continuing(continuing):
            self.model.set_property(node_id, name, value, continuing, text)

    def set_parameter_value(self, name: str, value: object, continuing: bool = False) -> bool:
        """Set a material parameter's value: in the active variant, else on its node. False: no such parameter."""
        if isinstance(value, str) and os.path.isabs(value):
            value = self.texture_reference(value)  # only texture parameters take strings
        with self._continuing(continuing):
            return self.model.values.set_parameter_value(name, value, continuing)

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

    def select_node(self, node_id: str, center: bool = True) -> bool:
        """Select one node and bring it into view (`center`); False when there is no such node."""
        node = self.projection.node(node_id)
        if node is None:
            return False
        # Through the scene, not NodeObject.set_selected: NodeGraphQt would record the selection as a gesture.
        self.graph.scene().clearSelection()
        node.view.setSelected(True)
        if center:
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

    def selected_ids(self) -> list[str]:
        return [node.stable_id for node in self.selected_material_nodes()]

    def frame_selection(self) -> None:
        nodes = self.graph.selected_nodes() or self.graph.all_nodes()
        self.graph.typed_viewer.frame_items([node.view for node in nodes])

    def frame_all(self) -> None:
        """The whole graph in view; when it cannot be shown whole at a readable scale, its output node stays in
        view (`TypedNodeViewer.frame_items`)."""
        output = self.output_node()
        self.graph.typed_viewer.frame_items([node.view for node in self.graph.all_nodes()],
                                            keep=output.view if output is not None else None)

    def output_node(self) -> MaterialNode | None:
        """The node the level's result comes from: the material's output node the lowering uses (the first by id),
        inside a group its Group Output."""
        kinds = set(OUTPUT_NODE_TYPES) | {GROUP_OUTPUT_TYPE}
        outputs = [node for node in self.graph.material_nodes() if node.type_name in kinds]
        return min(outputs, key=lambda node: node_id_key(node.stable_id)) if outputs else None

    def open_tab_search(self) -> None:
        """The node search at the cursor (app.graph.search: display names, synonyms); the chosen node lands there."""
        viewer = self.graph.viewer()
        viewer.tab_search_set_nodes(self.graph.node_factory.names)
        viewer.tab_search_toggle()

    def adopt_context_menu(self, actions: Sequence[QAction | None]) -> None:
        """Give the graph's right-click menu the window's `actions` (None: a separator).

        NodeGraphQt puts its own Undo/Redo actions, with the standard keys, in a hidden menu bar inside the
        viewer; two actions on Ctrl+Z make the key ambiguous and neither fires. Those are dropped.
        """
        menu = self.graph.viewer().context_menus()["graph"]
        # The graph's own entries (Add Node…, the frame actions) keep their keys (Ctrl+J frames).
        own = {self.graph.add_node_action, self.graph.wrap_frame_action, self.graph.rename_frame_action,
               self.graph.frame_color_action}
        for action in list(menu.actions()):
            if action not in own:
                action.setShortcuts([])
            menu.removeAction(action)
        for action in actions:
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)


class _Continuing:
    """Says, while an edit is pushed, whether it continues the previous one's gesture (`edit_continuing`)."""

    def __init__(self, editor: GraphEditor, continuing: bool) -> None:
        self.editor, self.continuing = editor, continuing

    def __enter__(self) -> None:
        self.editor.edit_continuing = self.continuing

    def __exit__(self, *_exc: object) -> None:
        self.editor.edit_continuing = False
