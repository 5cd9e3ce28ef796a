"""The document's edits as undoable commands, the change events they emit, and the undo stack (no Qt).

`DocumentState` holds the record (the `MaterialGraph` with its group
definitions, and the path of the level shown) and applies the primitive
changes, each announced as one `Change`. The graph is copy-on-write: a
command replaces the graph objects it touches (the document, the level's
graph, a node) and never changes one in place, so a graph handed out
earlier (to the session, to a lowering job) stays as it was.

A `Command` does and undoes itself on the state; `UndoStack` keeps them,
merges the steps of one continuous gesture (a slider drag) and knows
whether the document differs from the last saved state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from app.material.graph import Connection, Frame, GroupDefinition, MaterialGraph, Node, ParameterVariant

Level = str | None


# ---- change events ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeAdded:
    level: Level
    node: Node


@dataclass(frozen=True)
class NodeRemoved:
    level: Level
    node_id: str


@dataclass(frozen=True)
class NodeMoved:
    level: Level
    node_id: str
    position: tuple[float, float]


@dataclass(frozen=True)
class PropertyChanged:
    level: Level
    node_id: str
    name: str
    value: Any


@dataclass(frozen=True)
class Connected:
    level: Level
    connection: Connection


@dataclass(frozen=True)
class Disconnected:
    level: Level
    connection: Connection


@dataclass(frozen=True)
class FramesChanged:
    level: Level


@dataclass(frozen=True)
class LevelChanged:
    """The level shown changed (a group entered or left): `path` is the chain of definitions, outermost first."""

    path: tuple[str, ...]
    previous: tuple[str, ...]


@dataclass(frozen=True)
class DocumentReplaced:
    """The graph changed as a whole (group, ungroup, an interface, a load): a view rebuilds the level it shows."""

    path: tuple[str, ...]
    loaded: bool = False


@dataclass(frozen=True)
class VariantsChanged:
    variants: tuple[ParameterVariant, ...]
    active: str | None


@dataclass(frozen=True)
class StageChanged:
    stage: dict[str, Any] | None


Change = (NodeAdded | NodeRemoved | NodeMoved | PropertyChanged | Connected | Disconnected | FramesChanged
          | LevelChanged | DocumentReplaced | VariantsChanged | StageChanged)

#: A property value meaning "the node has no such property" (undoing the addition of one).
ABSENT: Any = object()


# ---- the state and its primitive changes -----------------------------------------------------


class DocumentState:
    """The record and its primitive, announced changes; see the module docstring."""

    def __init__(self, emit: Callable[[Change], object]) -> None:
        self.document = MaterialGraph()
        self.path: tuple[str, ...] = ()
        self._emit = emit
        #: Levels whose graph was already copied for the command being applied (copy once per command).
        self._fresh: set[Level] = set()

    def begin(self) -> None:
        """A command starts: its first change of a level copies that level's graph (copy-on-write)."""
        self._fresh = set()

    def graph(self, level: Level) -> MaterialGraph:
        """The graph at `level` (None: the material's); KeyError for an unknown definition."""
        return self.document if level is None else self.document.functions[level].body

    def _writable(self, level: Level) -> MaterialGraph:
        if level in self._fresh:
            return self.graph(level)
        old = self.document
        document = MaterialGraph(dict(old.nodes), list(old.connections), [_frame_copy(frame) for frame in old.frames],
                                 old.variants, old.active_variant, dict(old.functions), old.stage)
        if level is not None:
            definition = old.functions[level]
            body = definition.body
            document.functions[level] = GroupDefinition(
                definition.id, definition.name, definition.inputs, definition.outputs,
                MaterialGraph(dict(body.nodes), list(body.connections), [_frame_copy(frame) for frame in body.frames],
                              functions=body.functions),
                definition.description, definition.library)
        self.document = document
        # The document shell is new, so the other levels are reached through it again; only `level` is fresh.
        self._fresh = {level}
        return self.graph(level)

    def put_node(self, level: Level, node: Node) -> None:
        graph = self._writable(level)
        if node.id in graph.nodes:
            raise ValueError(f"node id {node.id!r} is already used")
        graph.nodes[node.id] = node
        self._emit(NodeAdded(level, node))

    def drop_node(self, level: Level, node_id: str) -> None:
        """Remove a node with its wires and frame memberships (announcing each wire first)."""
        graph = self._writable(level)
        for connection in [c for c in graph.connections if node_id in (c.source_node, c.target_node)]:
            self.remove_connection(level, connection)
        graph.remove_node(node_id)
        self._emit(NodeRemoved(level, node_id))

    def place(self, level: Level, node_id: str, position: tuple[float, float]) -> None:
        graph = self._writable(level)
        old = graph.nodes[node_id]
        graph.nodes[node_id] = Node(old.id, old.type_name, old.properties, (float(position[0]), float(position[1])))
        self._emit(NodeMoved(level, node_id, graph.nodes[node_id].position))

    def set_property(self, level: Level, node_id: str, name: str, value: Any) -> None:
        graph = self._writable(level)
        old = graph.nodes[node_id]
        properties = dict(old.properties)
        if value is ABSENT:
            properties.pop(name, None)
        else:
            properties[name] = value
        graph.nodes[node_id] = Node(old.id, old.type_name, properties, old.position)
        self._emit(PropertyChanged(level, node_id, name, value))

    def add_connection(self, level: Level, connection: Connection) -> None:
        graph = self._writable(level)
        graph.connections.append(connection)
        self._emit(Connected(level, connection))

    def remove_connection(self, level: Level, connection: Connection) -> None:
        graph = self._writable(level)
        if not graph.disconnect(connection.source_node, connection.source_port, connection.target_node,
                                connection.target_port):
            raise KeyError(f"no connection {connection}")
        self._emit(Disconnected(level, connection))

    def set_frames(self, level: Level, frames: Sequence[Frame]) -> None:
        graph = self._writable(level)
        graph.frames = [_frame_copy(frame) for frame in frames]
        self._emit(FramesChanged(level))

    def set_variants(self, variants: Sequence[ParameterVariant], active: str | None) -> None:
        old = self.document
        self.document = MaterialGraph(old.nodes, old.connections, old.frames, [v.copy() for v in variants], active,
                                      old.functions, old.stage)
        self._fresh = set()
        self._emit(VariantsChanged(tuple(v.copy() for v in variants), active))

    def set_stage(self, stage: dict[str, Any] | None) -> None:
        old = self.document
        self.document = MaterialGraph(old.nodes, old.connections, old.frames, old.variants, old.active_variant,
                                      old.functions, copy.deepcopy(stage))
        self._fresh = set()
        self._emit(StageChanged(copy.deepcopy(stage)))

    def replace(self, document: MaterialGraph, path: tuple[str, ...], loaded: bool = False) -> None:
        previous = self.path
        self.document, self.path = document, path
        self._fresh = set()
        self._emit(DocumentReplaced(path, loaded))
        if path != previous:
            self._emit(LevelChanged(path, previous))

    def set_path(self, path: tuple[str, ...]) -> None:
        previous, self.path = self.path, path
        self._emit(LevelChanged(path, previous))


def _frame_copy(frame: Frame) -> Frame:
    return Frame(frame.id, frame.title, frame.position, frame.size, list(frame.node_ids), frame.color)


# ---- commands --------------------------------------------------------------------------------


class Command:
    """One undoable step. `changes_document` is False for steps that only change what is shown (a level)."""

    changes_document = True

    def __init__(self, text: str) -> None:
        self.text = text

    def do(self, state: DocumentState) -> None:
        raise NotImplementedError

    def undo(self, state: DocumentState) -> None:
        raise NotImplementedError

    def merge(self, other: Command) -> bool:
        """Absorb `other`, the next step of the same continuous gesture; False when it is not one."""
        return False

    @property
    def obsolete(self) -> bool:
        """True when the step changes nothing any more (a drag that came back to where it started)."""
        return False


class AddNodes(Command):
    """Add nodes and the wires between them and to the level's other nodes (an add, a paste, a duplicate)."""

    def __init__(self, text: str, level: Level, nodes: Sequence[Node], connections: Sequence[Connection] = ()) -> None:
        super().__init__(text)
        self.level, self.nodes, self.connections = level, list(nodes), list(connections)

    def do(self, state: DocumentState) -> None:
        for node in self.nodes:
            state.put_node(self.level, Node(node.id, node.type_name, dict(node.properties), node.position))
        for connection in self.connections:
            state.add_connection(self.level, connection)

    def undo(self, state: DocumentState) -> None:
        for node in reversed(self.nodes):
            state.drop_node(self.level, node.id)


class RemoveNodes(Command):
    """Delete nodes with their wires; undo brings back the nodes, wires and frame memberships."""

    def __init__(self, text: str, level: Level, node_ids: Sequence[str]) -> None:
        super().__init__(text)
        self.level, self.node_ids = level, list(node_ids)
        self._nodes: list[Node] = []
        self._connections: list[Connection] = []
        self._frames: list[Frame] = []

    def do(self, state: DocumentState) -> None:
        graph = state.graph(self.level)
        removed = set(self.node_ids)
        self._nodes = [graph.nodes[node_id] for node_id in self.node_ids]
        self._connections = [c for c in graph.connections if {c.source_node, c.target_node} & removed]
        self._frames = [_frame_copy(frame) for frame in graph.frames]
        for node_id in self.node_ids:
            state.drop_node(self.level, node_id)

    def undo(self, state: DocumentState) -> None:
        for node in self._nodes:
            state.put_node(self.level, node)
        for connection in self._connections:
            state.add_connection(self.level, connection)
        state.set_frames(self.level, self._frames)


class MoveNodes(Command):
    """Move nodes; the moves of one drag merge into one step."""

    def __init__(self, text: str, level: Level, moves: dict[str, tuple[tuple[float, float], tuple[float, float]]],
                 continuing: bool = False) -> None:
        super().__init__(text)
        self.level, self.moves, self.continuing = level, dict(moves), continuing

    def do(self, state: DocumentState) -> None:
        for node_id, (_before, after) in self.moves.items():
            state.place(self.level, node_id, after)

    def undo(self, state: DocumentState) -> None:
        for node_id, (before, _after) in self.moves.items():
            state.place(self.level, node_id, before)

    def merge(self, other: Command) -> bool:
        if not (isinstance(other, MoveNodes) and other.continuing and other.level == self.level
                and set(other.moves) == set(self.moves)):
            return False
        self.moves = {node_id: (before, other.moves[node_id][1]) for node_id, (before, _) in self.moves.items()}
        return True

    @property
    def obsolete(self) -> bool:
        return all(before == after for before, after in self.moves.values())


class SetProperty(Command):
    """Change one property of one node; the changes of one gesture (a slider drag) merge into one step."""

    def __init__(self, text: str, level: Level, node_id: str, name: str, before: Any, after: Any,
                 continuing: bool = False) -> None:
        super().__init__(text)
        self.level, self.node_id, self.name = level, node_id, name
        self.before, self.after, self.continuing = before, after, continuing

    def do(self, state: DocumentState) -> None:
        state.set_property(self.level, self.node_id, self.name, self.after)

    def undo(self, state: DocumentState) -> None:
        state.set_property(self.level, self.node_id, self.name, self.before)

    def merge(self, other: Command) -> bool:
        if not (isinstance(other, SetProperty) and other.continuing and other.level == self.level
                and other.node_id == self.node_id and other.name == self.name):
            return False
        self.after = other.after
        return True

    @property
    def obsolete(self) -> bool:
        return self.before is not ABSENT and self.before == self.after


class Connect(Command):
    """Wire an output to an input, replacing what fed the input before (undo brings that back)."""

    def __init__(self, text: str, level: Level, connection: Connection, replaced: Connection | None) -> None:
        super().__init__(text)
        self.level, self.connection, self.replaced = level, connection, replaced

    def do(self, state: DocumentState) -> None:
        if self.replaced is not None:
            state.remove_connection(self.level, self.replaced)
        state.add_connection(self.level, self.connection)

    def undo(self, state: DocumentState) -> None:
        state.remove_connection(self.level, self.connection)
        if self.replaced is not None:
            state.add_connection(self.level, self.replaced)


class Disconnect(Command):
    def __init__(self, text: str, level: Level, connection: Connection) -> None:
        super().__init__(text)
        self.level, self.connection = level, connection

    def do(self, state: DocumentState) -> None:
        state.remove_connection(self.level, self.connection)

    def undo(self, state: DocumentState) -> None:
        state.add_connection(self.level, self.connection)


class SetFrames(Command):
    """The frames of a level (their titles, rectangles, colours and members) as a whole."""

    def __init__(self, text: str, level: Level, before: Sequence[Frame], after: Sequence[Frame]) -> None:
        super().__init__(text)
        self.level = level
        self.before, self.after = [_frame_copy(f) for f in before], [_frame_copy(f) for f in after]

    def do(self, state: DocumentState) -> None:
        state.set_frames(self.level, self.after)

    def undo(self, state: DocumentState) -> None:
        state.set_frames(self.level, self.before)


class ReplaceDocument(Command):
    """A structural edit computed as a whole new document (group, ungroup, a group's interface, a library)."""

    def __init__(self, text: str, before: tuple[MaterialGraph, tuple[str, ...]],
                 after: tuple[MaterialGraph, tuple[str, ...]]) -> None:
        super().__init__(text)
        self.before, self.after = before, after

    def do(self, state: DocumentState) -> None:
        state.replace(*self.after)

    def undo(self, state: DocumentState) -> None:
        state.replace(*self.before)


class ChangeLevel(Command):
    """Enter or leave a group: what is shown changes, the document does not."""

    changes_document = False

    def __init__(self, text: str, before: tuple[str, ...], after: tuple[str, ...]) -> None:
        super().__init__(text)
        self.before, self.after = before, after

    def do(self, state: DocumentState) -> None:
        state.set_path(self.after)

    def undo(self, state: DocumentState) -> None:
        state.set_path(self.before)


class SetVariants(Command):
    """A change of the variants and the active one; value edits of one gesture (`key`) merge."""

    def __init__(self, text: str, before: tuple[list[ParameterVariant], str | None],
                 after: tuple[list[ParameterVariant], str | None], key: tuple[str, str] | None = None,
                 continuing: bool = False) -> None:
        super().__init__(text)
        self.before, self.after, self.key, self.continuing = before, after, key, continuing

    def do(self, state: DocumentState) -> None:
        state.set_variants(*self.after)

    def undo(self, state: DocumentState) -> None:
        state.set_variants(*self.before)

    def merge(self, other: Command) -> bool:
        if not (isinstance(other, SetVariants) and other.continuing and self.key is not None
                and other.key == self.key):
            return False
        self.after = other.after
        return True

    @property
    def obsolete(self) -> bool:
        return self.before == self.after


class SetStage(Command):
    """The preview stage saved with the document."""

    def __init__(self, text: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
        super().__init__(text)
        self.before, self.after = copy.deepcopy(before), copy.deepcopy(after)

    def do(self, state: DocumentState) -> None:
        state.set_stage(self.after)

    def undo(self, state: DocumentState) -> None:
        state.set_stage(self.before)


class Macro(Command):
    """Several commands as one step (undone in reverse order)."""

    def __init__(self, text: str, commands: Sequence[Command] = ()) -> None:
        super().__init__(text)
        self.commands = list(commands)

    @property
    def changes_document(self) -> bool:  # type: ignore[override]  # an attribute on Command, derived here
        return any(command.changes_document for command in self.commands)

    def do(self, state: DocumentState) -> None:
        for command in self.commands:
            state.begin()
            command.do(state)

    def undo(self, state: DocumentState) -> None:
        for command in reversed(self.commands):
            state.begin()
            command.undo(state)


# ---- the stack -------------------------------------------------------------------------------


@dataclass
class _OpenMacro:
    text: str
    commands: list[Command] = field(default_factory=list)


class UndoStack:
    """The document's undo history; `changed` is called after every push, undo, redo or clean-state change.

    `modified` is True when a document-changing command lies between the
    saved (clean) point and the current one: entering a group does not
    make a document modified.
    """

    def __init__(self, state: DocumentState, changed: Callable[[], object]) -> None:
        self._state = state
        self._changed = changed
        self._commands: list[Command] = []
        self._index = 0
        self._clean: int | None = 0
        self._macros: list[_OpenMacro] = []

    @property
    def index(self) -> int:
        return self._index

    @property
    def count(self) -> int:
        return len(self._commands)

    def command(self, index: int) -> Command:
        return self._commands[index]

    def push(self, command: Command) -> None:
        """Do `command` and record it (into the open macro, or merged with the top step of its gesture)."""
        self._state.begin()
        command.do(self._state)
        if self._macros:
            self._macros[-1].commands.append(command)
            return
        self._record(command)

    def _record(self, command: Command) -> None:
        top = self._commands[self._index - 1] if self._index > 0 else None
        if top is not None and self._index == self.count and self._clean != self._index and top.merge(command):
            if top.obsolete:
                self._commands.pop()
                self._index -= 1
        else:
            del self._commands[self._index:]
            if self._clean is not None and self._clean > self._index:
                self._clean = None  # the saved state cannot be reached any more
            self._commands.append(command)
            self._index += 1
        self._changed()

    @contextmanager
    def macro(self, text: str) -> Iterator[None]:
        """Record the commands pushed inside as one step called `text` (nothing when none was pushed).

        When the block raises, what it did is undone and the error propagates.
        """
        self._macros.append(_OpenMacro(text))
        try:
            yield
        except BaseException:
            opened = self._macros.pop()
            Macro(opened.text, opened.commands).undo(self._state)
            raise
        opened = self._macros.pop()
        if not opened.commands:
            return
        if self._macros:
            self._macros[-1].commands.append(Macro(opened.text, opened.commands))
        else:
            self._record(Macro(opened.text, opened.commands))

    def can_undo(self) -> bool:
        return self._index > 0 and not self._macros

    def can_redo(self) -> bool:
        return self._index < self.count and not self._macros

    def undo_text(self) -> str:
        return self._commands[self._index - 1].text if self._index > 0 else ""

    def redo_text(self) -> str:
        return self._commands[self._index].text if self._index < self.count else ""

    def undo(self) -> bool:
        if not self.can_undo():
            return False
        self._index -= 1
        self._state.begin()
        self._commands[self._index].undo(self._state)
        self._changed()
        return True

    def redo(self) -> bool:
        if not self.can_redo():
            return False
        self._state.begin()
        self._commands[self._index].do(self._state)
        self._index += 1
        self._changed()
        return True

    def clear(self) -> None:
        self._commands.clear()
        self._index = 0
        self._clean = 0
        self._changed()

    def set_clean(self) -> None:
        """The current state is the saved one."""
        self._clean = self._index
        self._changed()

    @property
    def modified(self) -> bool:
        if self._clean is None:
            return True
        low, high = sorted((self._clean, self._index))
        return any(command.changes_document for command in self._commands[low:high])
