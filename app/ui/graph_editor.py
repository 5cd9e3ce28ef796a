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

Node groups (app/material/groups.py): the view shows one *level* at a
time, the material's own graph or the body of one group definition (`path`
is the chain of definitions tabbed into, the breadcrumb). The snapshot is
always the whole document: the level the view shows, put into the rest of
the document as it was at the last structural edit (`_outside`). Group,
Ungroup, entering and leaving a group are undo macros that record a
`LevelCommand` (the document data and the path) and replace the view's
nodes through NodeGraphQt's own commands, so undo brings back the very node
objects the earlier commands refer to and every step stays undoable.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from NodeGraphQt.base.commands import PropertyChangedCmd
from PySide6.QtCore import QObject, QRectF, Signal
from PySide6.QtGui import QAction, QUndoCommand, QUndoStack

from app.graph.adapter import from_view_value, populate, renew_duplicate_ids, replace_contents, snapshot
from app.graph.nodes import EXTRA_PROPERTIES, PROPERTY_PREFIX, REROUTE_TYPE, MaterialNode, property_key, to_view_value
from app.graph.view import MaterialNodeGraph
from app.material import catalog
from app.material.connections import can_connect
from app.material.cost import MaterialCost, describe_count, describe_node
from app.material.custom_code import CUSTOM_CODE_TYPE
from app.material.graph import GroupDefinition, InterfacePort, MaterialGraph, Node, ParameterVariant, stage_data
from app.material.group_names import FUNCTION_PROPERTY
from app.material.groups import (
    GROUP_TYPE,
    GroupingError,
    add_instance,
    group_nodes,
    instance_type,
    level_graph,
    recursion_problem,
    scope_for,
    set_interface,
    ungroup,
    view_types,
)
from app.material.library import LibraryError, LibraryFunction, import_function, save_function, update_function
from app.material.lowering import LoweringResult
from app.material.node_types import NodeDiagnostic
from app.material.parameters import node_value_property, parameter_nodes
from app.session.variants import renamed_variants
from vpl_core.collector import reclaim_frozen_garbage

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


class LevelCommand(QUndoCommand):
    """The document data the view does not hold (definitions, the other levels) and the level shown."""

    def __init__(self, editor: GraphEditor, text: str, after: tuple[MaterialGraph, tuple[str, ...]]) -> None:
        super().__init__(text)
        self.editor = editor
        self.before = (editor.material, editor.path)
        self.after = after

    def redo(self) -> None:
        self.editor.restore_level(*self.after)

    def undo(self) -> None:
        self.editor.restore_level(*self.before)


class GraphEditor(QObject):
    """See the module docstring."""

    #: The graph changed through the undo stack; `material` holds the new snapshot.
    edited = Signal()
    #: A connection was refused while dragging; carries the reason.
    connectionRefused = Signal(str)
    #: The view now shows another level (the material, or a group's body): carries the breadcrumb names.
    levelChanged = Signal(list)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.graph = MaterialNodeGraph(self)
        self.registry = self.graph.register_catalog([*catalog.NODE_TYPES.values(), *view_types()])
        self.graph.connection_check = self._check_connection
        self.graph.typed_viewer.connection_refused.connect(self.connectionRefused)
        self.graph.undo_stack().indexChanged.connect(self._on_stack_changed)
        self.graph.set_grid_mode(1)
        self._material = MaterialGraph()
        #: The undo stack's (index, count) after the last change seen: which command a change was.
        self._stack_state = (0, 0)
        #: The whole document as of the last load or structural edit; the view's level replaces its part.
        self._outside = MaterialGraph()
        #: Definition ids from the material down to the level the view shows (empty: the material).
        self.path: tuple[str, ...] = ()
        self._shown_path: tuple[str, ...] = ()
        #: How a chosen image file is stored (the window sets the session's: relative to the document).
        self.texture_reference: Callable[[str], str] = lambda path: path
        self.variants: list[ParameterVariant] = []
        self.active_variant: str | None = None
        #: The preview stage saved with the document (`MaterialGraph.stage`), or None: view state, outside undo.
        self.stage: dict[str, Any] | None = None
        self._loading = False
        self.editable = True
        #: True while `edited` reports a change that continues a gesture (a slider drag): the window
        #: throttles lowering then instead of lowering at once.
        self.edit_continuing = False
        self._connection_answers: dict[tuple[str, str, str, str], tuple[bool, str]] = {}
        #: Whether nodes show their cost footer (View > Node Cost), and the costs of the last lowering.
        self.costs_visible = False
        self._costs: MaterialCost | None = None
        #: The costs of a group body's nodes, by definition id (from the same lowering as `_costs`).
        self._level_costs: Callable[[str], MaterialCost | None] | None = None
        self._level_cost_cache: dict[str, MaterialCost | None] = {}
        #: What the last lowering found, shown again on the nodes of a level the view changes to.
        self._diagnostics: Sequence[NodeDiagnostic] = ()
        self._result: LoweringResult | None = None
        #: The pan and zoom each level was left with (by path), brought back when the view returns to it.
        self._view_ranges: dict[tuple[str, ...], QRectF] = {}

    @property
    def material(self) -> MaterialGraph:
        """The snapshot of the view after the last edit or load (the editor's own: copy to change)."""
        return self._material

    # ---- loading --------------------------------------------------------------------------

    def load(self, graph: MaterialGraph) -> list[str]:
        """Show `graph` (replacing everything, clearing undo); returns what the view could not show."""
        self._loading = True
        self._outside = graph.copy()
        self.path = ()
        self._view_ranges.clear()
        self._diagnostics, self._result = (), None  # the last lowering was another document's
        try:
            # The previous document goes first, so that its garbage is reclaimed while the heap is smallest.
            self.graph.clear_session()
            reclaim_frozen_garbage()
            problems = populate(self.graph, graph)
        finally:
            self._loading = False
        self.variants = [variant.copy() for variant in graph.variants]
        self.active_variant = graph.active_variant
        self.stage = copy.deepcopy(graph.stage)
        self._material = self._snapshot()
        self._stack_state = (self.graph.undo_stack().index(), self.graph.undo_stack().count())
        self._connection_answers.clear()
        self._announce_level()
        self._view_ranges.clear()  # the previous document's views mean nothing for this one
        return problems

    def _changed_command(self, stack: QUndoStack) -> QUndoCommand | None:
        """The one command this index change pushed, merged into, undid or redid; None when it is not that clear
        (a push that dropped redo commands, an obsolete merge removed, a clean-state jump): then the caller
        snapshots the whole view."""
        index, count = stack.index(), stack.count()
        previous_index, previous_count = self._stack_state
        if index == previous_index + 1 and ((count == previous_count + 1 and index == count) or count == previous_count):
            return stack.command(index - 1)  # pushed (at the top) or redone
        if index == previous_index and count == previous_count and index > 0:
            return stack.command(index - 1)  # merged into the top command (a slider being dragged)
        if index == previous_index - 1 and count == previous_count:
            return stack.command(index)      # undone
        return None

    def _after_property_change(self, command: PropertyCommand) -> MaterialGraph | None:
        """The last snapshot with one node property as the view now has it (a slider drag step costs O(1)
        view reads instead of reading the whole view); None when the command is not a catalog property of a
        node the snapshot has."""
        node = command.node
        if not isinstance(node, MaterialNode) or not command.name.startswith(PROPERTY_PREFIX):
            return None
        previous = self._material.nodes.get(node.stable_id)
        name = command.name[len(PROPERTY_PREFIX):]
        if previous is None or name not in previous.properties:
            return None
        graph = MaterialGraph(nodes=dict(self._material.nodes), connections=list(self._material.connections),
                              frames=[copy.deepcopy(frame) for frame in self._material.frames])
        graph.nodes[previous.id] = Node(previous.id, previous.type_name,
                                        {**previous.properties, name: from_view_value(node.get_property(command.name))},
                                        previous.position)
        graph.functions = dict(self._material.functions)  # definitions are replaced, never changed in place
        graph.variants = [variant.copy() for variant in self.variants]
        graph.active_variant = self.active_variant
        graph.stage = copy.deepcopy(self.stage)
        return graph

    def _snapshot(self) -> MaterialGraph:
        shown = snapshot(self.graph)
        outside = self._outside
        level = self.level
        if level is None or level not in outside.functions:
            graph = shown
            graph.functions = dict(outside.functions)
        else:
            # Definitions are replaced, never changed in place, so the snapshot may share them.
            graph = MaterialGraph(dict(outside.nodes), list(outside.connections), list(outside.frames))
            graph.functions = dict(outside.functions)
            old = outside.functions[level]
            graph.functions[level] = GroupDefinition(old.id, old.name, old.inputs, old.outputs, shown, old.description,
                                                     old.library)
        graph.variants = [variant.copy() for variant in self.variants]
        graph.active_variant = self.active_variant
        graph.stage = copy.deepcopy(self.stage)
        return graph

    # ---- levels (node groups) -------------------------------------------------------------

    @property
    def level(self) -> str | None:
        """The definition whose body the view shows; None for the material's own graph."""
        return self.path[-1] if self.path else None

    def level_material(self) -> MaterialGraph:
        """The graph the view shows, as plain data (the editor's own: copy to change)."""
        return level_graph(self._material, self.level)

    def breadcrumb(self) -> list[str]:
        """"Material" and the names of the groups tabbed into, outermost first."""
        functions = self._material.functions
        return ["Material", *(functions[function_id].name if function_id in functions else function_id
                              for function_id in self.path)]

    def restore_level(self, document: MaterialGraph, path: tuple[str, ...]) -> None:
        """What a `LevelCommand` does (the stack's index change then takes the snapshot)."""
        self._outside = document
        self.path = path

    def _announce_level(self) -> None:
        if self.path != self._shown_path:
            viewer = self.graph.typed_viewer
            self._view_ranges[self._shown_path] = viewer.view_range()
            self._shown_path = self.path
            saved = self._view_ranges.get(self.path)
            if saved is not None:
                viewer.show_range(saved)  # back where the level was left, as Blender does
            else:
                viewer.frame_items([node.view for node in self.graph.all_nodes()])
            # The level's nodes are new objects: they show what the last lowering found about them.
            self.show_diagnostics(self._diagnostics)
            if self._result is not None:
                self.show_port_types(self._result)
            self._apply_costs()
        self.levelChanged.emit(self.breadcrumb())

    def _apply_document(self, document: MaterialGraph, path: tuple[str, ...], text: str) -> None:
        """Show `document` at `path` as one undo step (a structural edit or a change of level)."""
        stack = self.graph.undo_stack()
        stack.beginMacro(text)
        try:
            stack.push(LevelCommand(self, text, (document, path)))
            level = path[-1] if path else None
            replace_contents(self.graph, level_graph(document, level), scope_for(document, level))
        finally:
            stack.endMacro()

    def selected_ids(self) -> list[str]:
        return [node.stable_id for node in self.selected_material_nodes()]

    def group_selection(self, name: str | None = None) -> str:
        """Group the selected nodes into a new group node (Ctrl+G); returns why not, or "" when done."""
        ids = self.selected_ids()
        if not ids:
            return "select the nodes to group first"
        try:
            edit = group_nodes(self._material, self.level, ids, name)
        except GroupingError as refusal:
            return str(refusal)
        definition = edit.document.functions[edit.function_id]
        self._apply_document(edit.document, self.path, f'Group {len(ids)} nodes as "{definition.name}"')
        self.select_node(edit.instance_id)
        return ""

    def ungroup_selection(self) -> str:
        """Put the nodes of the selected group nodes back in their place; returns why not, or ""."""
        instances = [node_id for node_id in self.selected_ids()
                     if self.level_material().nodes[node_id].type_name == GROUP_TYPE]
        if not instances:
            return "select a group node to ungroup"
        document = self._material
        try:
            for instance_id in instances:
                document = ungroup(document, self.level, instance_id)
        except GroupingError as refusal:
            return str(refusal)
        self._apply_document(document, self.path, f"Ungroup {len(instances)} group node{'s' * (len(instances) > 1)}")
        return ""

    def selected_group(self) -> str | None:
        """The definition id of the one selected group node, if exactly one node is selected and it is one."""
        ids = self.selected_ids()
        if len(ids) != 1:
            return None
        node = self.level_material().nodes.get(ids[0])
        if node is None or node.type_name != GROUP_TYPE:
            return None
        function_id = node.properties.get(FUNCTION_PROPERTY)
        return function_id if isinstance(function_id, str) and function_id in self._material.functions else None

    def enter_group(self, function_id: str | None = None) -> bool:
        """Show the body of `function_id` (default: the selected group node's) for editing (Tab)."""
        function_id = function_id if function_id is not None else self.selected_group()
        if function_id is None or function_id not in self._material.functions or function_id in self.path:
            return False
        name = self._material.functions[function_id].name
        self._apply_document(self._material, (*self.path, function_id), f'Enter group "{name}"')
        return True

    def exit_group(self, depth: int | None = None) -> bool:
        """Show the level `depth` groups deep (default: one level up; 0: the material)."""
        if not self.path:
            return False
        depth = len(self.path) - 1 if depth is None else max(0, min(depth, len(self.path) - 1))
        left = self.path[depth]
        self._apply_document(self._material, self.path[:depth], "Leave group" if depth else "Back to the material")
        # Select the group node just left, as Blender does (the view stays where this level was left).
        for node in self.level_material().nodes.values():
            if node.type_name == GROUP_TYPE and node.properties.get(FUNCTION_PROPERTY) == left:
                self.select_node(node.id, center=False)
                break
        return True

    def _on_stack_changed(self, _index: int = 0) -> None:
        stack = self.graph.undo_stack()
        changed = self._changed_command(stack)
        self._stack_state = (stack.index(), stack.count())
        if self._loading or not self.editable:
            return
        level = self.level
        # A property step inside a group's body is not a step on the material's own nodes: snapshot then.
        material = (self._after_property_change(changed)
                    if level is None and isinstance(changed, PropertyCommand) else None)
        if material is None:
            renew_duplicate_ids(self.graph, level_graph(self._material, level)
                                if level is None or level in self._material.functions else None)
            material = self._snapshot()
        self._material = material
        self._connection_answers.clear()
        self.graph.refresh_constraint_tables()
        if self.path != self._shown_path:
            self._announce_level()
        if not isinstance(changed, PropertyCommand):  # a property step (a slider's drag) adds no node
            self._apply_costs()  # new nodes get the footer at once; their numbers come with the next lowering
        self.edited.emit()

    def take_rewritten(self, graph: MaterialGraph) -> None:
        """Saving rewrote property values (relative texture paths): the view takes them, outside undo."""
        self._outside = graph.copy()
        view_nodes = self.graph.nodes_by_stable_id()
        for node_id, node in level_graph(graph, self.level).nodes.items():
            view_node = view_nodes.get(node_id)
            if view_node is None:
                continue
            for name, value in node.properties.items():
                key = property_key(name)
                if view_node.has_property(key) and view_node.get_property(key) != to_view_value(value):
                    view_node.set_property(key, to_view_value(value), push_undo=False)
        self.restore_variants(graph.variants, graph.active_variant)
        self.stage = copy.deepcopy(graph.stage)
        self._material = self._snapshot()

    def set_saved_stage(self, stage: dict[str, Any] | None) -> None:
        """The stage to save with the document (None: none); an edit of the document, outside undo (view state)."""
        stage = stage_data(stage) if stage is not None else None
        if stage == self.stage:
            return
        self.stage = stage
        self._material = self._snapshot()
        if not self._loading and self.editable:
            self.edited.emit()

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
            answer = can_connect(self.level_material(), source_id, source_port, target_id, target_port,
                                 scope_for(self._material, self.level))
            self._connection_answers[key] = answer
        return answer

    # ---- edits ----------------------------------------------------------------------------

    def add_node(self, type_name: str, position: tuple[float, float] | None = None) -> MaterialNode:
        """Add a node at `position` (a drop), or in the free space nearest the view centre (one undo step)."""
        if position is not None:
            return self.graph.create_material_node(type_name, position=position)
        centre = self._view_centre()
        stack = self.graph.undo_stack()
        stack.beginMacro(f"add {type_name}")
        try:
            node = self.graph.create_material_node(type_name, position=centre)
            self.graph.place_in_free_space(node, centre)
        finally:
            stack.endMacro()
        return node

    def _view_centre(self) -> tuple[float, float]:
        viewer = self.graph.viewer()
        centre = viewer.mapToScene(viewer.viewport().rect().center())
        return centre.x(), centre.y()

    def add_group_instance(self, function_id: str, position: tuple[float, float] | None = None) -> MaterialNode | str:
        """Add a node of the group `function_id` here (one undo step); the reason when it may not be."""
        definition = self._material.functions.get(function_id)
        if definition is None:
            return f"group '{function_id}' is not defined in this material"
        problem = recursion_problem(self._material.functions, function_id, self.level)
        if problem is not None:
            return problem
        free = position is None
        if position is None:
            position = self._view_centre()
        stack = self.graph.undo_stack()
        stack.beginMacro(f'Add group "{definition.name}"')
        try:
            node = self.graph.create_material_node(GROUP_TYPE, position=position, node_type=instance_type(definition))
            node.model.set_property(EXTRA_PROPERTIES, {FUNCTION_PROPERTY: function_id})
            if free:
                self.graph.place_in_free_space(node, position)
        finally:
            stack.endMacro()
        return node

    def interface_target(self) -> str | None:
        """The group whose interface Edit > Group Interface… edits: the selected one, else the one shown."""
        return self.selected_group() or self.level

    def set_group_interface(self, function_id: str, name: str, description: str, inputs: list[InterfacePort],
                            outputs: list[InterfacePort], renamed_inputs: dict[str, str],
                            renamed_outputs: dict[str, str]) -> str:
        """Rename, reorder, set defaults of a group's ports (one undo step); the reason when refused."""
        try:
            document = set_interface(self._material, function_id, name, inputs, outputs, renamed_inputs,
                                     renamed_outputs, description)
        except GroupingError as refusal:
            return str(refusal)
        if document == self._material:
            return ""
        self._apply_document(document, self.path, f'Change the interface of group "{name}"')
        return ""

    def use_library_function(self, entry: LibraryFunction, position: tuple[float, float] | None = None) -> str:
        """Embed a library function (once per material) and add a node of it here; the reason when refused."""
        document, function_id = import_function(self._material, entry)
        problem = recursion_problem(document.functions, function_id, self.level)
        if problem is not None:
            return problem
        if position is None:
            viewer = self.graph.viewer()
            centre = viewer.mapToScene(viewer.viewport().rect().center())
            position = (centre.x(), centre.y())
        document, instance_id = add_instance(document, self.level, function_id, position)
        self._apply_document(document, self.path, f'Add function "{entry.name}"')
        self.select_node(instance_id)
        return ""

    def save_group_to_library(self, directory: Path, folder: str) -> Path | str:
        """Save the selected group's definition as a function file; the file, or why not."""
        function_id = self.selected_group()
        if function_id is None:
            return "select one group node to save its group"
        try:
            path, document = save_function(self._material, function_id, directory, folder)
        except (OSError, LibraryError) as error:
            return str(error)
        self._apply_document(document, self.path, f'Link group "{document.functions[function_id].name}" to {path.name}')
        return path

    def update_library_functions(self, updates: Sequence[tuple[str, LibraryFunction]]) -> None:
        """Re-apply the library copies of these embedded functions (one undo step)."""
        if not updates:
            return
        document = self._material
        for function_id, entry in updates:
            document = update_function(document, function_id, entry)
        path = tuple(step for step in self.path if step in document.functions)
        names = ", ".join(entry.name for _, entry in updates)
        self._apply_document(document, path, f"Update library functions ({names})")

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
        node_type = node.CATALOG_TYPE  # the node's own (a group's or Custom Code's ports are its own)
        spec = next((spec for spec in node_type.properties if spec.name == name), None)
        if spec is not None and spec.kind == "texture" and isinstance(value, str) and os.path.isabs(value):
            value = self.texture_reference(value)
        key, view_value = property_key(name), to_view_value(value)
        if node.get_property(key) == view_value and not continuing:
            return
        label = spec.display_name if spec is not None else name
        if node.CATALOG_TYPE.type_name == CUSTOM_CODE_TYPE and name in ("inputs", "outputs"):
            # The node's ports change: the level is rebuilt (wires to ports that are gone go with them).
            document = self._material.copy()
            level_graph(document, self.level).nodes[node_id].properties[name] = value
            self._apply_document(document, self.path, f'Change "{label}" of {node.name()}')
            self.select_node(node_id)
            return
        self._push(PropertyCommand(node, key, view_value, f'Change "{label}" of {node.name()}', continuing), continuing)

    def _push(self, command: QUndoCommand, continuing: bool) -> None:
        """Push an edit, saying (`edit_continuing`) whether it continues the previous one's gesture."""
        self.edit_continuing = continuing
        try:
            self.graph.undo_stack().push(command)
        finally:
            self.edit_continuing = False

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
            self._push(command, continuing)
            return True
        node = parameter_nodes(self._material).get(name)
        prop = node_value_property(node) if node is not None else None
        view_node = self.graph.node_by_stable_id(node.id) if node is not None else None
        if view_node is None or prop is None:
            return False
        stored = "" if value is None else value
        if view_node.get_property(property_key(prop)) == to_view_value(stored) and not continuing:
            return True
        self._push(PropertyCommand(view_node, property_key(prop), to_view_value(stored), f'Change parameter "{name}"',
                                   continuing), continuing)
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

    def rename_variant(self, old: str, new: str) -> str:
        """Rename variant `old` (values and place kept; the active choice follows); returns the name used.

        Raises `VariantNameError` (nothing changed) for an empty or taken name, or no variant `old`.
        """
        variants, active = renamed_variants(self.variants, self.active_variant, old, new)
        name = variants[[variant.name for variant in self.variants].index(old)].name
        if name != old:
            def change(target: list[ParameterVariant], _current: str | None) -> str | None:
                target[:] = variants
                return active

            self.graph.undo_stack().push(VariantCommand(self, f'Rename variant "{old}" to "{name}"', change))
        return name

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

    def select_node(self, node_id: str, center: bool = True) -> bool:
        """Select one node and bring it into view (`center`); False when there is no such node."""
        node = self.graph.node_by_stable_id(node_id)
        if node is None:
            return False
        # Through the scene, not NodeObject.set_selected: NodeGraphQt would
        # push the selection onto the undo stack.
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

    # ---- what the lowering found ----------------------------------------------------------

    def node_label(self, node_id: str | None) -> str:
        if node_id is None:
            return ""
        node = self.graph.node_by_stable_id(node_id)
        return f"{node.name()} ({node_id})" if node is not None else node_id

    def show_diagnostics(self, diagnostics: Sequence[NodeDiagnostic]) -> None:
        """Error markers on the nodes the diagnostics name (and none on the others)."""
        self._diagnostics = diagnostics
        messages: dict[str, list[str]] = {}
        level = self.level
        for diagnostic in diagnostics:
            if level is not None:
                # Inside a group: the problems of its body's nodes, on those nodes.
                if diagnostic.scope == level and diagnostic.scoped_node is not None:
                    prefix = "" if diagnostic.severity == "error" else "warning: "
                    messages.setdefault(diagnostic.scoped_node, []).append(prefix + diagnostic.message)
                continue
            if diagnostic.node_id is not None:
                prefix = "" if diagnostic.severity == "error" else "warning: "
                messages.setdefault(diagnostic.node_id, []).append(prefix + diagnostic.message)
        for node in self.graph.material_nodes():
            node.view.set_diagnostics(messages.get(node.stable_id, []))

    def show_costs(self, costs: MaterialCost | None, level_costs: Callable[[str], MaterialCost | None] | None = None) -> None:
        """Each node's cost (footer text and tooltip lines) from the last lowering (None: not known).

        `level_costs` gives the costs of a group body's nodes (by definition id), asked for when the view shows one.
        """
        self._costs = costs
        self._level_costs = level_costs
        self._level_cost_cache.clear()
        self._apply_costs()

    def _shown_costs(self) -> MaterialCost | None:
        level = self.level
        if level is None or self._costs is None:
            return self._costs
        if level not in self._level_cost_cache:
            self._level_cost_cache[level] = self._level_costs(level) if self._level_costs is not None else None
        return self._level_cost_cache[level]

    def set_costs_visible(self, visible: bool) -> None:
        self.costs_visible = visible
        self._apply_costs()

    def _apply_costs(self) -> None:
        costs = self._shown_costs() if self.costs_visible else None
        if not self.costs_visible:
            # Footers and their tooltip lines show only with View > Node Cost: they are made when it is
            # turned on (`set_costs_visible`), not for every lowering (a slider's drag lowers many times).
            for node in self.graph.material_nodes():
                if node.type_name != REROUTE_TYPE:
                    node.view.set_cost_shown(False)
            return
        nodes = self.graph.nodes_by_stable_id()

        def label(node_id: str | None) -> str:
            node = nodes.get(node_id) if node_id is not None else None
            return f"{node.name()} ({node_id})" if node is not None else (node_id or "")

        for node_id, node in nodes.items():
            if node.type_name == REROUTE_TYPE:
                continue  # a reroute emits nothing and has no room for a footer
            node.view.set_cost_shown(True)
            cost = costs.node(node_id) if costs is not None else None
            if cost is None:
                node.view.set_cost("0 instr" if costs is not None else "", [])
            else:
                node.view.set_cost(describe_count(cost.total), describe_node(cost, label))

    def show_port_types(self, result: LoweringResult) -> None:
        self._result = result
        level = self.level
        port_types = result.port_types if level is None else result.scoped_port_types.get(level, {})
        for node in self.graph.material_nodes():
            node.refresh_title()
            resolved: dict[tuple[str, str], object] = {}
            for direction, ports in (("in", node.input_ports()), ("out", node.output_ports())):
                for port in ports:
                    port_type = port_types.get((node.stable_id, port.name()))
                    if port_type is not None:
                        resolved[(direction, port.name())] = port_type
            node.show_port_types(resolved)
