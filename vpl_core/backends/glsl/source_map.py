"""The source map: which VPL object every line of generated GLSL comes from.

While it writes a stage the backend tags each line it emits with an
`Origin`: what kind of line it is and, where there is one, the structural
path (`vpl_core.ir.paths`) of the module object it was written for. Paths
name the same object in every instance of one canonical module, so a host
that holds its own copy of the module (the material editor's lowered
module, whose instructions know their nodes) finds the object behind a
GLSL line, and the lines behind an object, without the backend knowing
anything about it.

Line kinds (`LineKind`):

| kind | lines | path |
|---|---|---|
| `instruction` | the statement of one instruction; a register declaration at the top of a function | the instruction: `(stage, "functions", f, "blocks", b, "instructions", i)` |
| `terminator` | `return ...;`, `discard;`, or the `vpl_block = ...;` and `continue;` of a branch | the terminator: `(stage, "functions", f, "blocks", b, "terminator")` |
| `dispatch` | scaffolding of the dispatch loop: the selector, `while`, `switch`, closing braces, and each `case N:` label | the function; a case label: its block |
| `fallback` | the unreachable return after a dispatch loop or a straight-line discard | the function |
| `function` | a prototype, the signature line and the closing brace of a definition | the function |
| `main` | `void main() { <entry>(); }` | the stage's entry function |
| `declaration` | a uniform (a whole std140 block) or interface variable declaration | `("uniforms", slot)` or `(stage, "interface", slot)` |
| `preamble` | `#version`, precision statements, struct definitions | none |

In the JSON a range is `{"first": 12, "last": 12, "kind": "instruction",
"path": "fragment/functions/0/blocks/2/instructions/7"}` (the path as
`paths.to_text` spells it; no `path` for the preamble).

Every non-empty line of a stage is in exactly one range; empty lines only
separate sections and are in none. Line numbers are one-based and ranges
inclusive, as editors and GLSL compiler logs count. Instruction statements
are always one line each (the backend never nests expressions), so an
instruction's lines are exactly its statement (none for instructions that
only define a sampler alias: their uses spell the sampler itself).

`ProgramArtifact.source_map` holds the map; `export.artifact_json` writes it
under the key `source_map` (docs/glsl-backend.md).
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable, Iterator, Sequence

from vpl_core.diagnostics import StructuralPath
from vpl_core.ir import paths
from vpl_core.records import Record

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final


class LineKind(enum.Enum):
    INSTRUCTION = "instruction"
    TERMINATOR = "terminator"
    DISPATCH = "dispatch"
    FALLBACK = "fallback"
    FUNCTION = "function"
    MAIN = "main"
    DECLARATION = "declaration"
    PREAMBLE = "preamble"


#: Kinds whose lines are generated scaffolding around the module's code, not code of one instruction.
SCAFFOLDING_KINDS = frozenset({LineKind.DISPATCH, LineKind.FALLBACK, LineKind.FUNCTION, LineKind.MAIN, LineKind.PREAMBLE})


# Origins and ranges are made per emitted statement (tens of thousands per
# large module): records (`vpl_core.records`), whose slots `__init__` sets
# directly, twice as fast as a frozen dataclass's generated `__init__`.


class Origin(Record):
    """What one emitted line was written for."""

    __slots__ = ("kind", "path")

    def __init__(self, kind: LineKind, path: StructuralPath | None = None) -> None:
        self.kind: Final = kind
        self.path: Final = path


PREAMBLE = Origin(LineKind.PREAMBLE)

#: A line of code with its origin, as the stage writer builds them.
TaggedLine = tuple[str, Origin]


def tagged(lines: Iterable[str], origin: Origin) -> list[TaggedLine]:
    """Every line of `lines` with the same origin."""
    return [(line, origin) for line in lines]


class SourceRange(Record):
    """Lines `first`..`last` (one-based, inclusive) of one stage, written for `origin`."""

    __slots__ = ("first", "last", "origin")

    def __init__(self, first: int, last: int, origin: Origin) -> None:
        self.first: Final = first
        self.last: Final = last
        self.origin: Final = origin

    @property
    def kind(self) -> LineKind:
        return self.origin.kind

    @property
    def path(self) -> StructuralPath | None:
        return self.origin.path

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"first": self.first, "last": self.last, "kind": self.origin.kind.value}
        if self.origin.path is not None:
            entry["path"] = paths.to_text(self.origin.path)
        return entry


class StageSourceMap(Record):
    """The ranges of one stage's code, in line order (see the module docstring)."""

    __slots__ = ("_firsts", "ranges")

    def __init__(self, ranges: tuple[SourceRange, ...] = ()) -> None:
        self.ranges: Final = ranges
        self._firsts: Final = tuple(source_range.first for source_range in ranges)

    @classmethod
    def from_lines(cls, lines: Sequence[TaggedLine]) -> StageSourceMap:
        """Ranges of consecutive lines with equal origins; empty lines belong to none."""
        ranges: list[SourceRange] = []
        current: Origin | None = None
        first = 0
        for number, (text, origin) in enumerate(lines, start=1):
            if not text:
                if current is not None:
                    ranges.append(SourceRange(first, number - 1, current))
                current = None
                continue
            # Origins are frozen (kind, path) values; kinds are enum members, so `is` decides them.
            if current is None or origin.kind is not current.kind or origin.path != current.path:
                if current is not None:
                    ranges.append(SourceRange(first, number - 1, current))
                current, first = origin, number
        if current is not None:
            ranges.append(SourceRange(first, len(lines), current))
        return cls(tuple(ranges))

    def at_line(self, line: int) -> SourceRange | None:
        """The range holding one-based `line` (None for empty lines and lines past the end)."""
        position = bisect.bisect_right(self._firsts, line) - 1
        if position < 0:
            return None
        candidate = self.ranges[position]
        return candidate if candidate.first <= line <= candidate.last else None

    def under(self, prefix: StructuralPath) -> Iterator[SourceRange]:
        """Ranges whose path is `prefix` or lies inside it (a function's prefix gives its whole body)."""
        size = len(prefix)
        for source_range in self.ranges:
            path = source_range.origin.path
            if path is not None and path[:size] == prefix:
                yield source_range

    def to_json(self) -> list[dict[str, Any]]:
        return [source_range.to_json() for source_range in self.ranges]

    @classmethod
    def from_json(cls, entries: Sequence[dict[str, Any]]) -> StageSourceMap:
        """The map `to_json` wrote (a reader for hosts and tests); raises ValueError on a malformed entry."""
        ranges: list[SourceRange] = []
        for entry in entries:
            try:
                kind = LineKind(entry["kind"])
                first, last = int(entry["first"]), int(entry["last"])
                raw_path = entry.get("path")
            except (KeyError, TypeError, ValueError) as error:
                raise ValueError(f"malformed source map entry {entry!r}") from error
            if raw_path is not None and not isinstance(raw_path, str):
                raise ValueError(f"malformed source map path {raw_path!r}")
            path = paths.from_text(raw_path) if raw_path is not None else None
            ranges.append(SourceRange(first, last, Origin(kind, path)))
        return cls(tuple(ranges))


_EMPTY = StageSourceMap()


class SourceMap(Record):
    """Both stages' maps; `stage(name)` takes "vertex" or "fragment"."""

    __slots__ = ("fragment", "vertex")

    def __init__(self, vertex: StageSourceMap = _EMPTY, fragment: StageSourceMap = _EMPTY) -> None:
        self.vertex: Final = vertex
        self.fragment: Final = fragment

    def stage(self, name: str) -> StageSourceMap:
        if name == "vertex":
            return self.vertex
        if name == "fragment":
            return self.fragment
        raise ValueError(f"no stage {name!r}; expected 'vertex' or 'fragment'")

    def to_json(self) -> dict[str, Any]:
        return {"vertex": self.vertex.to_json(), "fragment": self.fragment.to_json()}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> SourceMap:
        return cls(StageSourceMap.from_json(document.get("vertex", [])), StageSourceMap.from_json(document.get("fragment", [])))
