"""Live values: editing a value reaches the preview as a uniform, not as a new program.

What Blender's EEVEE does with unlinked socket values and Unreal or
Substance with parameters. A constant's value and an unconnected input's
default lower to literals (`app.material.lowering`), so without this every
value edit changed the GLSL and the preview compiled a new shader (100-300 ms
on llvmpipe for a 200-node material). Instead:

1. An edit that changes only such values (`value_changes`) makes them
   *wanted* live (the most recent `MAX_LIVE_VALUES`).
2. The next lowering job lowers the graph twice: canonically (literals: the
   code view, diagnostics, thumbnails, exports, saving use that one, as
   before) and, for the preview only, with the wanted values as hidden
   uniforms (`lower(live=...)`): the *live program*. It is built once.
3. While the document's graph differs from the live program's graph only in
   its live values (`LiveValues.current`), the preview keeps the live
   program: an edit posts the new uniform values at once (no lowering, no
   relink, during a drag and for discrete edits alike), and a canonical
   lowering that arrives later does not replace the program.
4. Any edit that changes more than live values drops the live set; the
   preview then takes the canonical program as before.

A material with texture passes has its passes lowered live too (a
constant inside a Texture Buffer's sub-graph becomes a hidden uniform of
that pass's module): the live program keeps them (`LiveProgram.passes`,
the preview's `EditorSession.preview_passes`), and its keys and values
include theirs.

No Qt here; the session (`EditorSession`) owns one `LiveValues`.

Bounded: at most `MAX_LIVE_VALUES` hidden uniforms (vec4 at most: 8 vectors of
the 224 fragment uniform vectors OpenGL ES 3.0 guarantees, 1,024 components
on desktop 4.2 and ES 3.2; the material's own parameters use the rest).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.material.catalog import Scope, node_type_for
from app.material.graph import Connection, MaterialGraph, Node, _json_value
from app.material.lowering import LoweringResult, ValueKey
from app.material.parameters import PARAMETER_VALUE_PROPERTY, ParameterSpec
from app.material.propagation import scope_of
from app.session.artifacts import ArtifactCache, CompiledProgram
from app.session.pass_programs import PassProgramCache, PassPrograms

#: The most values that are live at once (the most recently edited ones).
MAX_LIVE_VALUES = 8
#: Node types whose `value` property is a constant (lowered by `NodeContext.constant`).
CONSTANT_NODE_TYPES = frozenset(("constant_float", "constant_vec2", "constant_vec3", "constant_vec4", "constant_color"))


def _is_number_value(value: Any) -> bool:
    """A number (not a bool) or a sequence of 1-4 numbers: what a live value may hold."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    return isinstance(value, (list, tuple)) and 1 <= len(value) <= 4 and all(
        isinstance(item, (int, float)) and not isinstance(item, bool) for item in value)


def _may_be_live(node: Node, name: str, scope: Scope) -> bool:
    """Whether property `name` of `node` is a constant's value or the default of one of its inputs."""
    if node.type_name in CONSTANT_NODE_TYPES:
        return name == "value"
    node_type = node_type_for(node, scope)
    return node_type is not None and node_type.input(name) is not None and node_type.property(name) is not None


def live_candidates(graph: MaterialGraph) -> frozenset[ValueKey]:
    """Every value of `graph` an edit could make live: constants' values and unconnected inputs' defaults."""
    connected = {(connection.target_node, connection.target_port) for connection in graph.connections}
    scope = scope_of(graph, None)
    keys: set[ValueKey] = set()
    for node_id, node in graph.nodes.items():
        names = ("value",) if node.type_name in CONSTANT_NODE_TYPES else node.properties
        keys.update((node_id, name) for name in names
                    if (node_id, name) not in connected and _may_be_live(node, name, scope))
    return frozenset(keys)


def value_changes(old: MaterialGraph, new: MaterialGraph) -> frozenset[ValueKey] | None:
    """The values (node id, property) that differ between `old` and `new`, when nothing else the lowering reads
    does and each may be live; None when the edit changed more (the material's structure).

    May be live: a constant node's `value`, or a property named as an input port of its node (the default of
    that input when unconnected), holding numbers in both graphs. Whether the lowering really reads it as a
    literal is the lowering's to say (`LoweringResult.live_values`); the rest counts as structure then.
    Like `lowering_equivalent`, positions, frames, variants and parameter values do not count.
    """
    if old.nodes.keys() != new.nodes.keys():
        return None
    if old.functions is not new.functions and (old.functions.keys() != new.functions.keys() or any(
            old.functions[name] is not new.functions[name] and old.functions[name] != new.functions[name]
            for name in old.functions)):
        return None
    changed: set[ValueKey] = set()
    scope = None
    for node_id, node in old.nodes.items():
        other = new.nodes[node_id]
        if other is node or other.properties == node.properties:
            if other.type_name != node.type_name:
                return None
            continue
        if other.type_name != node.type_name:
            return None
        ignored = PARAMETER_VALUE_PROPERTY.get(node.type_name)
        for name in node.properties.keys() | other.properties.keys():
            if name == ignored:
                continue
            mine, theirs = node.properties.get(name), other.properties.get(name)
            if mine == theirs or _json_value(mine) == _json_value(theirs):
                continue
            if not (_is_number_value(mine) and _is_number_value(theirs)):
                return None
            scope = scope if scope is not None else scope_of(new, None)
            if not _may_be_live(other, name, scope):
                return None
            changed.add((node_id, name))
    if old.connections is not new.connections and old.connections != new.connections and (
            len(old.connections) != len(new.connections)
            or sorted(old.connections, key=Connection.sort_key) != sorted(new.connections, key=Connection.sort_key)):
        return None
    return frozenset(changed)


@dataclass(frozen=True)
class LiveProgram:
    """The preview's program of a graph with some values as hidden uniforms (`lower(live=...)`)."""

    graph: MaterialGraph
    result: LoweringResult
    programs: ArtifactCache
    #: The texture passes lowered with the same live values (None: the material has none).
    passes: PassProgramCache | None = None

    @property
    def keys(self) -> frozenset[ValueKey]:
        """The values this program takes as uniforms (a value a node also read as a number is not one), its
        passes' included (a constant upstream of a buffer)."""
        inside = frozenset(value.key for value in self.passes.live_values()) if self.passes is not None else frozenset()
        return (frozenset(self.result.live_values) | inside) - self.result.live_structural

    def serves(self, graph: MaterialGraph) -> bool:
        """Whether `graph` differs from this program's graph only in values it takes as uniforms."""
        changes = value_changes(self.graph, graph)
        return changes is not None and changes <= self.keys

    def values(self, graph: MaterialGraph) -> dict[str, float | tuple[float, ...]]:
        """The hidden uniforms' values for `graph` (one this program serves), by uniform name."""
        values: dict[str, float | tuple[float, ...]] = {}
        for live in self.live_list():
            value = live.value_in(graph)
            values[live.uniform] = value if value is not None else live.value
        return values

    def live_list(self) -> list[Any]:
        """Every hidden uniform: the material's and its passes' (`lowering.LiveValue`)."""
        found = list(self.result.live_values.values())
        if self.passes is not None:
            uniforms = {live.uniform for live in found}
            found += [live for live in self.passes.live_values() if live.uniform not in uniforms]
        return found


class LiveValues:
    """The session's live values: which are wanted, the live program, and whether it serves the current graph."""

    def __init__(self) -> None:
        #: The values to lower as uniforms for the preview, least recently edited first.
        self.wanted: tuple[ValueKey, ...] = ()
        self.program: LiveProgram | None = None
        #: The live program serves the document's current graph (the preview shows it, values posted).
        self.current = False
        #: Live programs accepted (tests count: one per set of live values, not one per edit).
        self.builds = 0

    def clear(self) -> None:
        """Drop everything (another document, or an edit of the material's structure)."""
        self.wanted = ()
        self.program = None
        self.current = False

    def edited(self, old: MaterialGraph, new: MaterialGraph) -> bool:
        """The document's graph went from `old` to `new`; True when the live program serves `new` (its values are
        to be posted to the preview: `values`)."""
        changes = value_changes(old, new)
        if changes is None:
            self.clear()
            return False
        if changes:
            recent = [key for key in self.wanted if key not in changes] + sorted(changes)
            self.wanted = tuple(recent[-MAX_LIVE_VALUES:])
        if self.program is None:
            return False
        # Only what this edit changed needs checking against the program once the previous graph was served.
        self.current = (changes <= self.program.keys) if self.current else self.program.serves(new)
        return self.current and bool(changes)

    def to_build(self) -> frozenset[ValueKey]:
        """The values the next lowering job should lower live for the preview (empty: no live lowering needed:
        none is wanted, or the live program serves the current graph and takes them all)."""
        if not self.wanted:
            return frozenset()
        if self.current and self.program is not None and set(self.wanted) <= self.program.keys:
            return frozenset()
        return frozenset(self.wanted)

    def accept(self, graph: MaterialGraph, result: LoweringResult, programs: tuple[CompiledProgram, ...],
               current: MaterialGraph, passes: PassProgramCache | None = None) -> None:
        """A live lowering of `graph` arrived (the document's graph is now `current`), with its texture `passes`;
        kept when it verified."""
        pass_values = passes.live_values() if passes is not None else []
        if result.verified is None or not (result.live_values or pass_values):
            return
        cache = ArtifactCache(result.verified, seed=result.artifact)
        for compiled in programs:
            cache.record(compiled)
        program = LiveProgram(graph, result, cache, passes)
        if not program.serves(current):
            return  # the material changed since in more than these values: the canonical program it is
        self.program = program
        self.current = True
        self.builds += 1

    def preview_program(self, target: str) -> CompiledProgram | None:
        """The live program for `target` when it serves the current graph, else None (the canonical one is)."""
        if not self.current or self.program is None:
            return None
        return self.program.programs.get(target)

    def preview_passes(self, target: str) -> PassPrograms | None:
        """The live program's texture passes for `target` while it serves the current graph, else None."""
        if not self.current or self.program is None or self.program.passes is None:
            return None
        return self.program.passes.get(target)

    def specs(self) -> list[ParameterSpec]:
        """The hidden uniforms of the live program the preview shows (no panel lists them)."""
        if not self.current or self.program is None:
            return []
        return [live.spec for live in self.program.live_list()]

    def values(self, graph: MaterialGraph) -> dict[str, float | tuple[float, ...]]:
        if not self.current or self.program is None:
            return {}
        return self.program.values(graph)
