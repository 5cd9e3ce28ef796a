"""`DocumentModel`: the material graph being edited, and its undo history, without Qt.

It holds the graph with its group definitions, the level shown (the path
of definitions entered), the parameter variants and the active one, the
preview stage saved with the document, and the undo stack
(`app.session.document_commands`). Every edit is a command; every change
is announced on `changed` (one `Change` per primitive change) so a view
applies it to its items, and `history_changed` after each push, undo or
redo. The structural rules are the material layer's own
(`app.material.groups`, `connections`, `parameters`, `session.variants`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from app.material.connections import can_connect
from app.material.graph import Connection, Frame, InterfacePort, MaterialGraph, Node, ParameterVariant, stage_data
from app.material.group_names import FUNCTION_PROPERTY
from app.material.groups import (
    GROUP_TYPE,
    GroupingError,
    group_nodes,
    recursion_problem,
    scope_for,
    set_interface,
    ungroup,
)
from app.material.parameters import PARAMETER_NODE_TYPES
from app.session.document_commands import (
    ABSENT,
    AddNodes,
    Change,
    ChangeLevel,
    Command,
    Connect,
    Disconnect,
    DocumentState,
    MoveNodes,
    RemoveNodes,
    ReplaceDocument,
    SetFrames,
    SetProperty,
    SetStage,
    UndoStack,
)
from app.session.events import Event
from app.session.value_edits import ValueEdits


class DocumentModel:
    """See the module docstring."""

    def __init__(self, document: MaterialGraph | None = None) -> None:
        #: One `Change` per primitive change, after the state is consistent.
        self.changed: Event[Change] = Event("changed")
        #: The undo history changed (a push, undo, redo, a merge, the saved point): payload `modified`.
        self.history_changed: Event[bool] = Event("history_changed")
        self._state = DocumentState(self.changed.emit)
        self.stack = UndoStack(self._state, lambda: self.history_changed.emit(self.stack.modified))
        #: The variants and the parameters' values (`ValueEdits`).
        self.values = ValueEdits(self)
        if document is not None:
            self.load(document)

    # ---- what is held ---------------------------------------------------------------------

    @property
    def document(self) -> MaterialGraph:
        """The whole document (the model's own, never changed in place: copy to change)."""
        return self._state.document

    @property
    def path(self) -> tuple[str, ...]:
        """Definition ids from the material down to the level shown (empty: the material's own graph)."""
        return self._state.path

    @property
    def level(self) -> str | None:
        return self.path[-1] if self.path else None

    def level_graph(self) -> MaterialGraph:
        """The graph of the level shown (the material's, or the body of the group entered)."""
        return self._state.graph(self.level)

    def breadcrumb(self) -> list[str]:
        functions = self.document.functions
        return ["Material", *(functions[f].name if f in functions else f for f in self.path)]

    @property
    def variants(self) -> list[ParameterVariant]:
        return [variant.copy() for variant in self.document.variants]

    @property
    def active_variant(self) -> str | None:
        return self.document.active_variant

    @property
    def stage(self) -> dict[str, Any] | None:
        return copy.deepcopy(self.document.stage)

    @property
    def modified(self) -> bool:
        return self.stack.modified

    def load(self, document: MaterialGraph) -> None:
        """Make `document` the record (a copy), at its top level, with an empty history and unmodified."""
        self._state.replace(document.copy(), (), loaded=True)
        self.stack.clear()

    def take(self, document: MaterialGraph) -> None:
        """Make `document` the record outside the undo history (saving rewrote its relative texture paths)."""
        self._state.begin()
        self._state.replace(document.copy(), tuple(step for step in self.path if step in document.functions))

    def take_stage(self, stage: Mapping[str, Any] | None) -> bool:
        """The stage to save with the document, outside the undo history (it is view state); False: no change."""
        checked = stage_data(dict(stage)) if stage is not None else None
        if checked == self.document.stage:
            return False
        self._state.begin()
        self._state.set_stage(checked)
        return True

    def mark_saved(self) -> None:
        self.stack.set_clean()

    def undo(self) -> bool:
        return self.stack.undo()

    def redo(self) -> bool:
        return self.stack.redo()

    @contextmanager
    def macro(self, text: str) -> Iterator[None]:
        """The edits made inside are one undo step."""
        with self.stack.macro(text):
            yield

    def push(self, command: Command) -> None:
        """Do `command` and record it as one undo step (or merged into the previous step of its gesture)."""
        self.stack.push(command)

    # ---- nodes and wires at the level shown ----------------------------------------------

    def add_node(self, type_name: str, position: tuple[float, float] = (0.0, 0.0),
                 properties: Mapping[str, Any] | None = None) -> str:
        """Add a node of `type_name` (catalog defaults, overridden by `properties`); returns its id."""
        scratch = MaterialGraph(dict(self.level_graph().nodes))
        node = scratch.add_node(type_name, position, dict(properties) if properties is not None else None)
        self.push(AddNodes(f"Add {type_name}", self.level, [node]))
        return node.id

    def add_group_instance(self, function_id: str, position: tuple[float, float] = (0.0, 0.0)) -> str:
        """Add a node of the group `function_id`; raises GroupingError when it may not be used here."""
        if function_id not in self.document.functions:
            raise GroupingError(f"group '{function_id}' is not defined in this material")
        problem = recursion_problem(self.document.functions, function_id, self.level)
        if problem is not None:
            raise GroupingError(problem)
        return self.add_node(GROUP_TYPE, position, {FUNCTION_PROPERTY: function_id})

    def paste(self, nodes: Sequence[Node], connections: Iterable[Connection],
              offset: tuple[float, float] = (0.0, 0.0), text: str = "Paste") -> dict[str, str]:
        """Add copies of `nodes` with fresh ids (parameter names made unique) and the wires among them.

        Returns the new id of each copied node, by its old id.
        """
        scratch = MaterialGraph(dict(self.level_graph().nodes))
        renamed: dict[str, str] = {}
        added: list[Node] = []
        for node in nodes:
            properties = dict(node.properties)
            if node.type_name in PARAMETER_NODE_TYPES and isinstance(properties.get("name"), str):
                properties["name"] = scratch.unique_parameter_name(properties["name"])
            position = (node.position[0] + offset[0], node.position[1] + offset[1])
            copy_ = scratch.add_node(node.type_name, position, properties)
            copy_.properties = properties  # exactly the original's properties, no catalog defaults added
            renamed[node.id] = copy_.id
            added.append(copy_)
        wires = [Connection(renamed[c.source_node], c.source_port, renamed[c.target_node], c.target_port)
                 for c in connections if c.source_node in renamed and c.target_node in renamed]
        self.push(AddNodes(text, self.level, added, wires))
        return renamed

    def add_nodes(self, nodes: Sequence[Node], connections: Sequence[Connection] = (), text: str = "Add nodes") -> None:
        """Add these nodes as they are (their ids must be free at the level shown) and these wires (one step)."""
        if nodes or connections:
            self.push(AddNodes(text, self.level, nodes, connections))

    def remove_nodes(self, node_ids: Iterable[str]) -> None:
        graph = self.level_graph()
        ids = [node_id for node_id in dict.fromkeys(node_ids) if node_id in graph.nodes]
        if ids:
            self.push(RemoveNodes(f"Delete {len(ids)} node{'s' * (len(ids) > 1)}", self.level, ids))

    def move_nodes(self, positions: Mapping[str, tuple[float, float]], continuing: bool = False) -> None:
        """Move nodes (`continuing`: this continues the previous move of the same nodes, one undo step)."""
        graph = self.level_graph()
        moves = {node_id: (graph.nodes[node_id].position, (float(x), float(y)))
                 for node_id, (x, y) in positions.items() if node_id in graph.nodes}
        if moves and (continuing or any(before != after for before, after in moves.values())):
            self.push(MoveNodes(f"Move {len(moves)} node{'s' * (len(moves) > 1)}", self.level, moves, continuing))

    def set_property(self, node_id: str, name: str, value: Any, continuing: bool = False,
                     text: str | None = None) -> None:
        """Set one property of a node at the level shown (`continuing`: merge with the gesture's last change)."""
        node = self.level_graph().nodes[node_id]
        before = node.properties.get(name, ABSENT)
        if before == value and not continuing:
            return
        self.push(SetProperty(text or f'Change "{name}" of {node_id}', self.level, node_id, name, before, value,
                               continuing))

    def can_connect(self, source: str, source_port: str, target: str, target_port: str) -> tuple[bool, str]:
        return can_connect(self.level_graph(), source, source_port, target, target_port,
                           scope_for(self.document, self.level))

    def connect(self, source: str, source_port: str, target: str, target_port: str,
                checked: bool = True) -> tuple[bool, str]:
        """Wire an output to an input when the types allow (what fed the input is replaced); the reason if not.

        `checked=False` records a wire the view already drew as it is (a pasted one): the lowering reports it.
        """
        ok, reason = self.can_connect(source, source_port, target, target_port) if checked else (True, "")
        if not ok:
            return False, reason
        connection = Connection(source, source_port, target, target_port)
        graph = self.level_graph()
        if connection in graph.connections:
            return True, ""
        replaced = graph.connection_into(target, target_port)
        self.push(Connect(f"Connect {source}.{source_port} to {target}.{target_port}", self.level, connection,
                           replaced))
        return True, ""

    def disconnect(self, source: str, source_port: str, target: str, target_port: str) -> bool:
        connection = Connection(source, source_port, target, target_port)
        if connection not in self.level_graph().connections:
            return False
        self.push(Disconnect(f"Disconnect {target}.{target_port}", self.level, connection))
        return True

    def set_frames(self, frames: Sequence[Frame]) -> None:
        """The frames of the level shown, as a whole (drawn, moved, resized, renamed, re-coloured)."""
        before = self.level_graph().frames
        if list(frames) != list(before):
            self.push(SetFrames("Change frames", self.level, before, frames))

    # ---- groups ---------------------------------------------------------------------------

    def replace_document(self, document: MaterialGraph, text: str, path: tuple[str, ...] | None = None) -> None:
        """A structural edit computed as a new document (one undo step); the path keeps the levels that remain."""
        if path is None:
            path = tuple(step for step in self.path if step in document.functions)
        self.push(ReplaceDocument(text, (self.document, self.path), (document, path)))

    def group(self, node_ids: Iterable[str], name: str | None = None) -> str:
        """Group nodes of the level shown into a new group node; returns its id. Raises GroupingError."""
        ids = list(node_ids)
        edit = group_nodes(self.document, self.level, ids, name)
        definition = edit.document.functions[edit.function_id]
        self.replace_document(edit.document, f'Group {len(ids)} nodes as "{definition.name}"')
        return edit.instance_id

    def ungroup(self, instance_ids: Iterable[str]) -> None:
        """Put the nodes of these group nodes back in their place (one undo step). Raises GroupingError."""
        ids = list(instance_ids)
        document = self.document
        for instance_id in ids:
            document = ungroup(document, self.level, instance_id)
        self.replace_document(document, f"Ungroup {len(ids)} group node{'s' * (len(ids) > 1)}")

    def set_group_interface(self, function_id: str, name: str, description: str, inputs: list[InterfacePort],
                            outputs: list[InterfacePort], renamed_inputs: dict[str, str],
                            renamed_outputs: dict[str, str]) -> None:
        """Rename, reorder, set defaults of a group's ports (one undo step). Raises GroupingError."""
        document = set_interface(self.document, function_id, name, inputs, outputs, renamed_inputs, renamed_outputs,
                                 description)
        if document != self.document:
            self.replace_document(document, f'Change the interface of group "{name}"')

    def instance_function(self, node_id: str) -> str | None:
        """The definition a group node of the level shown is an instance of (None: not a group node)."""
        node = self.level_graph().nodes.get(node_id)
        function_id = node.properties.get(FUNCTION_PROPERTY) if node is not None and node.type_name == GROUP_TYPE \
            else None
        return function_id if isinstance(function_id, str) and function_id in self.document.functions else None

    def enter_group(self, function_id: str) -> bool:
        """Show the body of `function_id` (one undo step); False when it is unknown or already on the path."""
        if function_id not in self.document.functions or function_id in self.path:
            return False
        name = self.document.functions[function_id].name
        self.push(ChangeLevel(f'Enter group "{name}"', self.path, (*self.path, function_id)))
        return True

    def leave_group(self, depth: int | None = None) -> bool:
        """Show the level `depth` groups deep (default: one up; 0: the material); False at the top."""
        if not self.path:
            return False
        depth = len(self.path) - 1 if depth is None else max(0, min(depth, len(self.path) - 1))
        self.push(ChangeLevel("Leave group" if depth else "Back to the material", self.path, self.path[:depth]))
        return True

    # ---- stage ----------------------------------------------------------------------------

    def set_stage(self, stage: Mapping[str, Any] | None) -> None:
        """The preview stage saved with the document (None: none); checked by `stage_data`."""
        checked = stage_data(dict(stage)) if stage is not None else None
        if checked != self.document.stage:
            self.push(SetStage("Change the stage", self.document.stage, checked))
