"""Control-flow lowering (spec 12.3): explicit block graphs to structured GLSL.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `vpl_core/backends/glsl/dispatch.py`.
"""

from __future__ import annotations

from vpl_core.backends.glsl.names import BLOCK_SELECTOR
from vpl_core.backends.glsl.source_map import LineKind, Origin, TaggedLine, tagged
from vpl_core.diagnostics import StructuralPath
from vpl_core.ir.instructions import (
    BranchTerminator,
    ConditionalBranchTerminator,
    DiscardTerminator,
    ReturnTerminator,
    Terminator,
)
from vpl_core.ir.module import Block, Function

INDENT = "    "

# typing.TYPE_CHECKING without importing typing at run time (about 3 ms of every `vpl compile`).
TYPE_CHECKING = False
if TYPE_CHECKING:  # a protocol for the type checker only; `emit.FunctionWriter` implements it
    from typing import Protocol

    class BlockWriter(Protocol):
        """What the lowering needs from the instruction emitter."""

        def block_statements(self, block: Block, block_path: StructuralPath) -> list[TaggedLine]: ...

        def condition(self, terminator: ConditionalBranchTerminator) -> str: ...

        def return_statement(self, terminator: ReturnTerminator) -> str: ...

        def fallback_return(self) -> list[str]: ...


def reachable_blocks(function: Function) -> list[Block]:
    """Blocks reachable from the entry, in the function's list order."""
    if not function.blocks:
        return []
    seen = {id(function.blocks[0])}
    stack = [function.blocks[0]]
    while stack:
        block = stack.pop()
        terminator = block.terminator
        if terminator is None:
            continue
        for successor in terminator.successors():
            if id(successor) not in seen:
                seen.add(id(successor))
                stack.append(successor)
    return [block for block in function.blocks if id(block) in seen]


def _is_final(terminator: Terminator | None) -> bool:
    return isinstance(terminator, (ReturnTerminator, DiscardTerminator))


def _indented(lines: list[TaggedLine], depth: int = 1) -> list[TaggedLine]:
    prefix = INDENT * depth
    return [(prefix + text, origin) for text, origin in lines]


def lower_body(function: Function, writer: BlockWriter, function_path: StructuralPath) -> list[TaggedLine]:
    """The statements of the function body, indented one level, each tagged with its origin.

    `function_path` is the function's structural path; blocks, instructions
    and terminators are tagged with paths below it (`source_map`), the loop
    scaffolding with the function's (a case label with its block's).
    """
    position_of = {id(block): position for position, block in enumerate(function.blocks)}
    blocks = reachable_blocks(function)
    fallback = Origin(LineKind.FALLBACK, function_path)
    if len(blocks) == 1 and _is_final(blocks[0].terminator):
        block_path = (*function_path, "blocks", position_of[id(blocks[0])])
        lines = _indented(_block(blocks[0], block_path, writer, {}))
        if isinstance(blocks[0].terminator, DiscardTerminator):
            # A non-void function that only discards still needs a return
            # statement for GLSL front ends; it is never reached.
            lines.extend(_indented(tagged(writer.fallback_return(), fallback)))
        return lines
    case_of = position_of  # case labels are block list positions
    scaffolding = Origin(LineKind.DISPATCH, function_path)
    lines = tagged([f"{INDENT}int {BLOCK_SELECTOR} = {case_of[id(blocks[0])]};", f"{INDENT}while (true) {{",
                    f"{INDENT * 2}switch ({BLOCK_SELECTOR}) {{"], scaffolding)
    for block in blocks:
        block_path = (*function_path, "blocks", position_of[id(block)])
        lines.append((f"{INDENT * 2}case {case_of[id(block)]}:", Origin(LineKind.DISPATCH, block_path)))
        lines.extend(_indented(_block(block, block_path, writer, case_of), 3))
    lines.extend(tagged([f"{INDENT * 2}}}", f"{INDENT}}}"], scaffolding))
    lines.extend(_indented(tagged(writer.fallback_return(), fallback)))
    return lines


def _block(block: Block, block_path: StructuralPath, writer: BlockWriter, case_of: dict[int, int]) -> list[TaggedLine]:
    lines = list(writer.block_statements(block, block_path))
    terminator = block.terminator
    origin = Origin(LineKind.TERMINATOR, (*block_path, "terminator"))
    if isinstance(terminator, BranchTerminator):
        lines.append((f"{BLOCK_SELECTOR} = {case_of[id(terminator.target)]};", origin))
        lines.append(("continue;", origin))
    elif isinstance(terminator, ConditionalBranchTerminator):
        true_case = case_of[id(terminator.true_target)]
        false_case = case_of[id(terminator.false_target)]
        lines.append((f"{BLOCK_SELECTOR} = {writer.condition(terminator)} ? {true_case} : {false_case};", origin))
        lines.append(("continue;", origin))
    elif isinstance(terminator, ReturnTerminator):
        lines.append((writer.return_statement(terminator), origin))
    elif isinstance(terminator, DiscardTerminator):
        lines.append(("discard;", origin))
    else:
        # Verified functions have a terminator on every block.
        raise AssertionError(f"block without a supported terminator: {terminator!r}")
    return lines
