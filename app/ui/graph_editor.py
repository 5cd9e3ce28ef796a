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

Edits the editor makes itself are undo commands with names an artist
reads (`Change "power" of Fresnel 2`, `Change parameter "roughness"`,
`Add variant "rusty"`), never NodeGraphQt's internal property names. A
drag of a slider is one undo step: the commands of one gesture merge
(`continuing`). The parameter variants are document data the view does
not hold: the editor keeps them and adds them to every snapshot, and the
variant commands change them on the same undo stack.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from NodeGraphQt.base.commands import PropertyChangedCmd
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QUndoCommand

from app.graph.adapter import populate, renew_duplicate_ids, snapshot
from app.graph.nodes import MaterialNode, property_key, to_view_value
from app.graph.view import MaterialNodeGraph
from app.material import catalog
from app.material.connections import can_connect
from app.material.graph import MaterialGraph, ParameterVariant
from app.material.lowering import LoweringResult, NodeDiagnostic
from app.material.parameters import node_value_property, parameter_nodes

PALETTE_DROP_OFFSET = 40.0
#: QUndoCommand ids: commands with the same id may merge (Qt asks `mergeWith` only then).
PROPERTY_COMMAND_ID = 0x5650_0001
VARIANT_VALUE_COMMAND_ID = 0x5650_0002


class PropertyCommand(PropertyChangedCmd):
    """A node property change named for people; consecutive changes of one gesture merge into one step."""

    # Set by NodeGraphQt's PropertyChangedCmd (untyped): the value before and after the change.
    old_val: Any
    new_val: Any

    def __init__(self, node: MaterialNode, key: str, value: Any, text: str, continuing: bool) -> None:
        super().__init__(node, key, value)
        self.setText(text)
        self.continuing = continuing

    def id(self) -> int:
        return PROPERTY_COMMAND_ID

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt override
        if not (isinstance(other, PropertyCommand) and other.continuing and other.node is self.node
                and other.name == self.name):
            return False
        self.new_val = other.new_val
        self.setObsolete(self.new_val == self.old_val)
        return True


class VariantCommand(QUndoCommand):
    """A change of the variants (a list and the active name), applied by replacing both."""

    def __init__(self, editor: GraphEditor, text: str, change: Callable[[list[ParameterVariant], str | None],
                 str | None]) -> None:
        super().__init__(text)
        self.editor = editor
        self.before = ([variant.copy() for variant in editor.variants], editor.active_variant)
        after = [variant.copy() for variant in editor.variants]
        active = change(after, editor.active_variant)
        self.after = (after, active)
        self.continuing = False
        self.key: tuple[str, str] | None = None

    def redo(self) -> None:
        self.editor.restore_variants(*self.after)

    def undo(self) -> None:
        self.editor.restore_variants(*self.before)

    def id(self) -> int:
        return VARIANT_VALUE_COMMAND_ID if self.key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt override
        if not (isinstance(other, VariantCommand) and other.continuing and other.key == self.key):
            return False
        self.after = other.after
        return True


class GraphEditor(QObject):
    """See the module docstring."""

    #: The graph changed through the undo stack; `material` holds the new snapshot.
    edited = Signal()
    #: A connection was refused while dragging; carries the reason.
    connectionRefused = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.graph = MaterialNodeGraph(self)
        self.registry = self.graph.register_catalog(catalog.NODE_TYPES.values())
        self.graph.connection_check = self._check_connection
        self.graph.typed_viewer.connection_refused.connect(self.connectionRefused)
        self.graph.undo_stack().indexChanged.connect(self._on_stack_changed)
        self.graph.set_grid_mode(1)
        self._material = MaterialGraph()
        #: How a chosen image file is stored (the window sets the session's: relative to the document).
        self.texture_reference: Callable[[str], str] = lambda path: path
        self.variants: list[ParameterVariant] = []
        self.active_variant: str | None = None
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
        self.variants = [variant.copy() for variant in graph.variants]
        self.active_variant = graph.active_variant
        self._material = self._snapshot()
        self._connection_answers.clear()
        return problems

    def _snapshot(self) -> MaterialGraph:
        graph = snapshot(self.graph)
        graph.variants = [variant.copy() for variant in self.variants]
        graph.active_variant = self.active_variant
        return graph

    def _on_stack_changed(self, _index: int = 0) -> None:
        if self._loading or not self.editable:
            return
        renew_duplicate_ids(self.graph, self._material)
        self._material = self._snapshot()
        self._connection_answers.clear()
        self.graph.refresh_constraint_tables()
        self.edited.emit()

    def take_rewritten(self, graph: MaterialGraph) -> None:
        """Saving rewrote property values (relative texture paths): the view takes them, outside undo."""
        for node_id, node in graph.nodes.items():
            view_node = self.graph.node_by_stable_id(node_id)
            if view_node is None:
                continue
            for name, value in node.properties.items():
                key = property_key(name)
                if view_node.has_property(key) and view_node.get_property(key) != to_view_value(value):
                    view_node.set_property(key, to_view_value(value), push_undo=False)
        self.restore_variants(graph.variants, graph.active_variant)
        self._material = self._snapshot()

    def restore_variants(self, variants: list[ParameterVariant], active: str | None) -> None:
        """What the variant commands do (the stack's index change then takes the snapshot)."""
        self.variants = [variant.copy() for variant in variants]
        self.active_variant = active

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

    def set_node_property(self, node_id: str, name: str, value: object, continuing: bool = False) -> None:
        """One undoable property change (`continuing`: merge with the previous change of this gesture)."""
        node = self.graph.node_by_stable_id(node_id)
        if node is None:
            return
        node_type = catalog.NODE_TYPES.get(node.CATALOG_TYPE.type_name)
        spec = next((spec for spec in node_type.properties if spec.name == name), None) if node_type else None
        if spec is not None and spec.kind == "texture" and isinstance(value, str) and os.path.isabs(value):
            value = self.texture_reference(value)
        key, view_value = property_key(name), to_view_value(value)
        if node.get_property(key) == view_value and not continuing:
            return
        label = spec.display_name if spec is not None else name
        self.graph.undo_stack().push(PropertyCommand(node, key, view_value, f'Change "{label}" of {node.name()}',
                                                     continuing))

    def set_parameter_value(self, name: str, value: object, continuing: bool = False) -> bool:
        """Set a material parameter's value: in the active variant, else on its node. False: no such parameter."""
        if isinstance(value, str) and os.path.isabs(value):
            value = self.texture_reference(value)  # only texture parameters take strings
        if self.active_variant is not None:
            active = self.active_variant

            def change(variants: list[ParameterVariant], current: str | None) -> str | None:
                for variant in variants:
                    if variant.name == active:
                        variant.values[name] = "" if value is None else value
                return current

            command = VariantCommand(self, f'Change "{name}" in variant "{active}"', change)
            command.continuing = continuing
            command.key = (active, name)
            self.graph.undo_stack().push(command)
            return True
        node = parameter_nodes(self._material).get(name)
        prop = node_value_property(node) if node is not None else None
        view_node = self.graph.node_by_stable_id(node.id) if node is not None else None
        if view_node is None or prop is None:
            return False
        stored = "" if value is None else value
        if view_node.get_property(property_key(prop)) == to_view_value(stored) and not continuing:
            return True
        self.graph.undo_stack().push(PropertyCommand(view_node, property_key(prop), to_view_value(stored),
                                                     f'Change parameter "{name}"', continuing))
        return True

    # ---- variants -------------------------------------------------------------------------

    def add_variant(self, name: str) -> None:
        """A new variant holding no values yet (everything as the nodes say), made the active one."""
        def change(variants: list[ParameterVariant], _current: str | None) -> str | None:
            variants.append(ParameterVariant(name))
            return name

        self.graph.undo_stack().push(VariantCommand(self, f'Add variant "{name}"', change))

    def remove_variant(self, name: str) -> None:
        def change(variants: list[ParameterVariant], current: str | None) -> str | None:
            variants[:] = [variant for variant in variants if variant.name != name]
            return None if current == name else current

        self.graph.undo_stack().push(VariantCommand(self, f'Delete variant "{name}"', change))

    def activate_variant(self, name: str | None) -> None:
        """Use variant `name` (None: the parameter nodes' own values)."""
        if name == self.active_variant:
            return
        text = f'Use variant "{name}"' if name else "Use the base values"
        self.graph.undo_stack().push(VariantCommand(self, text, lambda _variants, _current: name))

    def reset_variant_value(self, name: str) -> None:
        """The active variant stops overriding parameter `name`."""
        active = self.active_variant
        if active is None:
            return

        def change(variants: list[ParameterVariant], current: str | None) -> str | None:
            for variant in variants:
                if variant.name == active:
                    variant.values.pop(name, None)
            return current

        self.graph.undo_stack().push(VariantCommand(self, f'Reset "{name}" in variant "{active}"', change))

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
        """The node search at the cursor (app.graph.search: display names, synonyms); the chosen node lands there."""
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
