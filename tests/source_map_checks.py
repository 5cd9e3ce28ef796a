"""Checks of a GLSL artifact's source map against the module it was compiled from (shared by the
backend's tests and the material editor's).

`check_source_map(artifact, module)` asserts, for both stages, from the
code text and the module alone (not from the backend's own bookkeeping):

- the ranges are in line order, disjoint, inside the code, and together
  hold exactly the non-empty lines;
- every path names an object of `module` (any instance of the compiled
  canonical module: paths are structural) of the kind's class, found the
  same by `paths.follow` and by `paths.walk`;
- every line inside a function definition belongs to that function: an
  instruction or terminator of one of its blocks, or its dispatch or
  fallback scaffolding;
- every instruction that the backend must spell (everything but sampler
  alias definitions and sampler declarations) of every reachable block has
  exactly one line, which assigns its result register when it has one, and
  every reachable block's terminator has its lines (`return`, `discard`,
  or the selector update and `continue`).
"""

from __future__ import annotations

import re
from typing import Any

from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.backends.glsl.dispatch import reachable_blocks
from vpl_core.backends.glsl.source_map import LineKind, SourceRange, StageSourceMap
from vpl_core.ir import paths
from vpl_core.ir.instructions import (
    BranchTerminator,
    ConditionalBranchTerminator,
    CopyInstruction,
    DeclareLocalInstruction,
    DiscardTerminator,
    Instruction,
    LoadInstruction,
    ReturnTerminator,
    StoreInstruction,
    Terminator,
)
from vpl_core.ir.module import Block, Function, InterfaceVariable, Module, Uniform
from vpl_core.ir.types import SamplerType

_CLASSES: dict[LineKind, tuple[type, ...]] = {
    LineKind.INSTRUCTION: (Instruction,),
    LineKind.TERMINATOR: (Terminator,),
    LineKind.DISPATCH: (Function, Block),
    LineKind.FALLBACK: (Function,),
    LineKind.FUNCTION: (Function,),
    LineKind.MAIN: (Function,),
    LineKind.DECLARATION: (Uniform, InterfaceVariable),
}
_BODY_KINDS = {LineKind.INSTRUCTION, LineKind.TERMINATOR, LineKind.DISPATCH, LineKind.FALLBACK}


def spelled(instruction: Instruction) -> bool:
    """Whether the backend writes a statement (or declaration) for `instruction` (docs/glsl-backend.md)."""
    if isinstance(instruction, DeclareLocalInstruction):
        return not isinstance(instruction.type, SamplerType)
    if isinstance(instruction, StoreInstruction):
        return not isinstance(instruction.target.type, SamplerType)
    result = getattr(instruction, "result", None)
    alias = result is not None and isinstance(result.type, SamplerType) and isinstance(instruction, (LoadInstruction, CopyInstruction))
    return not alias


def _check_partition(name: str, code: str, source_map: StageSourceMap) -> list[str]:
    lines = code.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    covered: list[int] = []
    previous_last = 0
    for source_range in source_map.ranges:
        assert previous_last < source_range.first <= source_range.last <= len(lines), (
            f"{name}: range {source_range} out of order or outside {len(lines)} lines")
        previous_last = source_range.last
        covered.extend(range(source_range.first, source_range.last + 1))
    non_empty = [number for number, text in enumerate(lines, start=1) if text.strip()]
    assert covered == non_empty, f"{name}: mapped lines {sorted(set(covered) ^ set(non_empty))[:10]} differ from the non-empty ones"
    return lines


def check_source_map(artifact: ProgramArtifact, module: Module) -> None:
    index: dict[Any, Any] = dict(paths.walk(module))
    for stage_name, code in (("vertex", artifact.vertex_code), ("fragment", artifact.fragment_code)):
        stage_map = artifact.source_map.stage(stage_name)
        lines = _check_partition(stage_name, code, stage_map)
        stage = getattr(module, stage_name)
        lines_of: dict[Any, list[int]] = {}
        for source_range in stage_map.ranges:
            if source_range.kind is LineKind.PREAMBLE:
                assert source_range.path is None
                continue
            path = source_range.path
            assert path is not None, f"{stage_name}: {source_range.kind} range without a path"
            found = paths.follow(module, path)
            assert found is not None and index.get(path) is found, f"{stage_name}: path {path} does not name one object"
            assert isinstance(found, _CLASSES[source_range.kind]), f"{stage_name}: {source_range.kind} names {found!r}"
            if source_range.kind in (LineKind.INSTRUCTION, LineKind.TERMINATOR):
                lines_of.setdefault(path, []).extend(range(source_range.first, source_range.last + 1))
        for position, function in enumerate(stage.functions):
            _check_function(stage_name, stage_map, lines, (stage_name, "functions", position), function, lines_of)


def _definition(stage_map: StageSourceMap, function_path: tuple[Any, ...]) -> tuple[SourceRange, SourceRange]:
    """The signature line and the closing brace of a function definition (not its prototype)."""
    frames = [source_range for source_range in stage_map.ranges
              if source_range.kind is LineKind.FUNCTION and source_range.path == function_path]
    assert len(frames) == 3, f"{function_path}: expected prototype, signature and closing brace, got {frames}"
    return frames[1], frames[2]


def _check_function(stage_name: str, stage_map: StageSourceMap, lines: list[str], function_path: tuple[Any, ...],
                    function: Function, lines_of: dict[Any, list[int]]) -> None:
    opening, closing = _definition(stage_map, function_path)
    assert lines[opening.first - 1].endswith("{") and lines[closing.first - 1] == "}"
    for number in range(opening.last + 1, closing.first):
        found = stage_map.at_line(number)
        assert found is not None, f"{stage_name}:{number}: body line without an origin: {lines[number - 1]!r}"
        assert found.kind in _BODY_KINDS, f"{stage_name}:{number}: {found.kind} inside a function body"
        assert found.path is not None and found.path[:len(function_path)] == function_path, (
            f"{stage_name}:{number}: line of {found.path} inside {function_path}")
    position_of = {id(block): position for position, block in enumerate(function.blocks)}
    for block in reachable_blocks(function):
        block_path = (*function_path, "blocks", position_of[id(block)])
        for position, instruction in enumerate(block.instructions):
            numbers = lines_of.get((*block_path, "instructions", position), [])
            if not spelled(instruction):
                assert not numbers, f"{stage_name}: sampler alias {instruction!r} has lines {numbers}"
                continue
            assert len(numbers) == 1, f"{stage_name}: {instruction!r} at {block_path}/{position} has lines {numbers}"
            text = lines[numbers[0] - 1].strip()
            if isinstance(instruction, DeclareLocalInstruction):
                assert re.search(rf"\bvpl_r{instruction.register.index}\b", text), text
            elif getattr(instruction, "result", None) is not None:
                assert text.startswith(f"vpl_r{instruction.result.index} = "), text
        _check_terminator(stage_name, block, [lines[number - 1].strip()
                                              for number in lines_of.get((*block_path, "terminator"), [])])


def _check_terminator(stage_name: str, block: Block, texts: list[str]) -> None:
    terminator = block.terminator
    if isinstance(terminator, ReturnTerminator):
        assert len(texts) == 1 and texts[0].startswith("return"), (stage_name, texts)
    elif isinstance(terminator, DiscardTerminator):
        assert texts == ["discard;"], (stage_name, texts)
    elif isinstance(terminator, (BranchTerminator, ConditionalBranchTerminator)):
        assert len(texts) == 2 and texts[0].startswith("vpl_block = ") and texts[1] == "continue;", (stage_name, texts)
    else:
        raise AssertionError(f"{stage_name}: unexpected terminator {terminator!r}")
