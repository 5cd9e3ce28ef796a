"""Two-way links between the nodes of a material and the lines of its generated code.

The code view shows three texts of one lowering: the canonical VPL text,
and the vertex and fragment GLSL. Every VPL object the lowering created
knows the node that emitted it (`LoweringResult.provenance`); these links
find, for a line of any of the three texts, the object written there and so
its node, and for a set of nodes all the lines written for them:

- GLSL: the artifact's source map (`vpl_core.backends.glsl.source_map`)
  names the structural path of the object behind every line; the path
  names the same object in the lowered module (`paths.follow`).
  Instruction, terminator and declaration lines link to nodes; the
  backend's scaffolding (the dispatch loop, function frames, `main`, the
  preamble) links to none.
- VPL: the canonical text is read once more, with positions
  (`read_located`); each instruction, terminator, register declaration,
  uniform and interface variable of that reading sits on its own line, and
  its structural path names the object of the lowered module.

Built lazily, once per lowering, on the first question about a view.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.backends.glsl.source_map import LineKind, StageSourceMap
from vpl_core.diagnostics import StructuralPath, VplError
from vpl_core.ir import paths
from vpl_core.ir.instructions import DeclareLocalInstruction, Instruction, Terminator
from vpl_core.ir.module import Module
from vpl_core.text import read_located

VPL_VIEW = "vpl"
VERTEX_VIEW = "vertex"
FRAGMENT_VIEW = "fragment"
VIEWS = (VPL_VIEW, VERTEX_VIEW, FRAGMENT_VIEW)

#: Source-map kinds whose lines are code of one object with a node (the rest is scaffolding).
LINKED_KINDS = frozenset({LineKind.INSTRUCTION, LineKind.TERMINATOR, LineKind.DECLARATION})


def module_objects(module: Module) -> Iterator[tuple[StructuralPath, Any]]:
    """Uniforms, interface variables, instructions and terminators with their structural paths."""
    for slot, uniform in enumerate(module.uniforms):
        yield ("uniforms", slot), uniform
    for stage in module.stages:
        name = stage.kind.value
        for slot, variable in enumerate(stage.interface):
            yield (name, "interface", slot), variable
        for position, function in enumerate(stage.functions):
            for block_position, block in enumerate(function.blocks):
                block_path = (name, "functions", position, "blocks", block_position)
                for index, instruction in enumerate(block.instructions):
                    yield (*block_path, "instructions", index), instruction
                if block.terminator is not None:
                    yield (*block_path, "terminator"), block.terminator


def is_computation(value: object) -> bool:
    """An instruction or terminator that computes or branches: what a node's lines are scrolled to (a register's
    declaration, a uniform or an interface variable is a node's too, but says nothing of what it does)."""
    return isinstance(value, (Instruction, Terminator)) and not isinstance(value, DeclareLocalInstruction)


def glsl_line_nodes(module: Module, provenance: dict[int, str], stage_map: StageSourceMap,
                    computations: set[int] | None = None) -> dict[int, str]:
    """Line (one-based) -> node for every linked line of one GLSL stage; the lines of computations
    (`is_computation`) are added to `computations` when given."""
    nodes: dict[int, str] = {}
    for source_range in stage_map.ranges:
        if source_range.kind not in LINKED_KINDS or source_range.path is None:
            continue
        value = paths.follow(module, source_range.path)
        node = provenance.get(id(value))
        if node is not None:
            for line in range(source_range.first, source_range.last + 1):
                nodes[line] = node
            if computations is not None and source_range.kind is not LineKind.DECLARATION and is_computation(value):
                computations.update(range(source_range.first, source_range.last + 1))
    return nodes


def vpl_line_nodes(module: Module, provenance: dict[int, str], text: str,
                   computations: set[int] | None = None) -> dict[int, str]:
    """Line (one-based) -> node for every instruction, terminator and declaration of the canonical text; the lines
    of computations (`is_computation`) are added to `computations` when given."""
    try:
        reread, locator = read_located(text)
    except VplError:
        return {}  # not the canonical text of a valid module: nothing to link
    nodes: dict[int, str] = {}
    # Lines are counted once over the text, not per object (line_and_column scans from the start).
    offsets: list[tuple[int, str, bool]] = []
    for path, value in module_objects(reread):
        start = locator.spans.get(id(value))
        node = provenance.get(id(paths.follow(module, path)))
        if start is not None and node is not None:
            offsets.append((start, node, is_computation(value)))
    offsets.sort(key=lambda entry: entry[0])
    line, position = 1, 0
    for start, node, computation in offsets:
        line += text.count("\n", position, start)
        position = start
        nodes[line] = node
        if computation and computations is not None:
            computations.add(line)
    return nodes


class CodeLinks:
    """The links of one lowering's three code views; see the module docstring."""

    def __init__(self, module: Module | None, provenance: dict[int, str], vpl_text: str,
                 artifact: ProgramArtifact | None) -> None:
        self._module = module
        self._provenance = provenance
        self._vpl_text = vpl_text
        self._artifact = artifact
        self._line_nodes: dict[str, dict[int, str]] = {}
        self._computations: dict[str, set[int]] = {}

    @classmethod
    def of(cls, result: Any) -> CodeLinks:
        """The links of a `LoweringResult` (its module, provenance, canonical text and GLSL 4.20 artifact)."""
        return cls(result.module, result.provenance, result.text, result.artifact)

    def line_nodes(self, view: str) -> dict[int, str]:
        """Line -> node of `view` ("vpl", "vertex" or "fragment"); empty when there is no such code."""
        if view not in VIEWS:
            raise ValueError(f"no code view {view!r}; expected one of {', '.join(VIEWS)}")
        found = self._line_nodes.get(view)
        if found is None:
            found = {}
            computations: set[int] = set()
            if self._module is not None:
                if view == VPL_VIEW:
                    if self._vpl_text:
                        found = vpl_line_nodes(self._module, self._provenance, self._vpl_text, computations)
                elif self._artifact is not None:
                    found = glsl_line_nodes(self._module, self._provenance, self._artifact.source_map.stage(view),
                                            computations)
            self._line_nodes[view] = found
            self._computations[view] = computations
        return found

    def anchor_lines(self, view: str, node_ids: Collection[str]) -> list[int]:
        """The lines of `view` a selection of `node_ids` is scrolled to: their computations (`is_computation`),
        in order; their other lines (declarations) only when they have none there."""
        lines = self.lines_of(view, node_ids)
        computations = self._computations.get(view, set())
        return [line for line in lines if line in computations] or lines

    def node_at(self, view: str, line: int) -> str | None:
        """The node that produced line `line` (one-based) of `view`; None for scaffolding and empty lines."""
        return self.line_nodes(view).get(line)

    def lines_of(self, view: str, node_ids: Collection[str]) -> list[int]:
        """Every line of `view` written for one of `node_ids`, in order."""
        wanted = set(node_ids)
        if not wanted:
            return []
        return sorted(line for line, node in self.line_nodes(view).items() if node in wanted)


def line_ranges(lines: Collection[int]) -> list[tuple[int, int]]:
    """Sorted line numbers as inclusive runs: [3, 4, 5, 9] -> [(3, 5), (9, 9)]."""
    runs: list[tuple[int, int]] = []
    for line in sorted(lines):
        if runs and runs[-1][1] == line - 1:
            runs[-1] = (runs[-1][0], line)
        else:
            runs.append((line, line))
    return runs

