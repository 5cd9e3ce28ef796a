"""Layer 2 of the verifier: data flow (spec 4.1, 5.2, 6.2, 6.3).

Per stage, vertex then fragment:

1. Recursion (`callgraph`): any call cycle, in any block of any function,
   is rejected; otherwise functions are ordered callee-first.
2. Explicit invalid constant integer divisions (`division`), in every block.
3. Availability, one function at a time in callee-first order, each
   function analysed as an invocation starting with nothing assigned:
   - registers (5.2): every read needs definite assignment on every path;
   - local aggregates (6.2): tracked per whole register; derived loads and
     partial stores need the whole register assigned and never establish it;
   - outputs (6.3): tracked per observable leaf, represented by leaf
     classes (`outputs.OutputLayout`: leaves no access path in the stage
     tells apart share one bit, which gives exactly the per-leaf answers);
     every output must be fully assigned at each normal return of the
     entry function reachable from its entry block;
   - helpers (6.3): each function gets a summary (output leaves it reads
     before writing, leaves it guarantees on every normal return, whether
     it can return normally). A call needs the callee's prerequisites,
     receives its guarantees, and a callee that cannot return normally cuts
     the rest of the caller's block and its outgoing edges.
   Errors are reported for the first function in list order that has one,
   at its first problem in block list order, then instruction order.

Availability is a forward must-analysis over the blocks reachable from the
entry block (after cuts): IN is the intersection of the reachable
predecessors' OUT (nothing at the entry block), OUT = IN | GEN because
assignments are never undone. Sets are Python ints: bits [0, L) are the
stage's output leaf classes, bits [L, L + R) the function's declared
registers in declaration order. Each block's GEN is computed once; the
fixed point is a worklist in reverse postorder, so it visits each block
O(loop nesting depth) times at O((L + R) / 64) machine words per visit, and
the final checking pass walks each instruction once. Unreachable blocks are
neither analysed nor checked (the structural layer types them).

Invariants relied on: the structural layer accepted the module (declared
registers, typed operands, same-stage callees, same-function branch targets,
terminated blocks, valid paths). Nothing is stored on module objects: all
scratch state lives in locals of one run, so a failed run leaves nothing
behind and a `Verifier` can be reused.
"""

from __future__ import annotations

import collections
import enum
import heapq

from vpl_core.ir.instructions import (
    BinaryInstruction,
    Builtin,
    CallInstruction,
    ConstructInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    IndexInstruction,
    Instruction,
    LoadInstruction,
    MemberInstruction,
    ReturnTerminator,
    StoreInstruction,
    SwizzleInstruction,
    Terminator,
)
from vpl_core.ir.module import Block, Function, Module, Stage
from vpl_core.ir.values import (
    IndexReferenceValue,
    MemberReferenceValue,
    ReferenceValue,
    RegisterValue,
    StorageKind,
)
from vpl_core.records import Record
from vpl_core.verify import callgraph, division
from vpl_core.verify.errors import DataFlowRule, VerificationError
from vpl_core.verify.outputs import OutputLayout

__all__ = ["HelperSummary", "check_module", "check_stage", "summarize_stage"]


class HelperSummary(Record):
    """What a call of a function means for its caller's output availability (spec 6.3).

    Masks are sets of the stage's output leaf classes (`OutputLayout` numbering).
    `prerequisites`: leaves the function may read before writing them itself;
    a caller must have them assigned. `guarantees`: leaves assigned on every
    normal return. `returns_normally`: some normal return is reachable; if
    not, a call cuts the caller's continuation.
    """

    __slots__ = ("guarantees", "prerequisites", "returns_normally")

    def __init__(self, prerequisites: int, guarantees: int, returns_normally: bool) -> None:
        self.prerequisites: Final = prerequisites
        self.guarantees: Final = guarantees
        self.returns_normally: Final = returns_normally


# A call of a function outside the stage (rejected by the structural layer)
# is treated as having no effect rather than crashing this layer.
_NO_EFFECT = HelperSummary(0, 0, True)


class _NeedKind(enum.Enum):
    REGISTER = "register"  # an operand, index selector, condition or return value
    LOCAL_LOAD = "local load"  # load of a whole local register
    LOCAL_PATH_LOAD = "local path load"  # load through a path rooted at a local
    LOCAL_PARTIAL_STORE = "local partial store"  # store through a path rooted at a local
    OUTPUT = "output"  # load of (part of) a stage output
    CALL = "call"  # the callee's output prerequisites


#: The rule a need of each kind enforces.
_NEED_RULES = {
    _NeedKind.REGISTER: DataFlowRule.UNASSIGNED_REGISTER,
    _NeedKind.LOCAL_LOAD: DataFlowRule.UNASSIGNED_LOCAL_LOAD,
    _NeedKind.LOCAL_PATH_LOAD: DataFlowRule.PARTIAL_LOCAL_LOAD,
    _NeedKind.LOCAL_PARTIAL_STORE: DataFlowRule.PARTIAL_LOCAL_STORE,
    _NeedKind.OUTPUT: DataFlowRule.UNASSIGNED_OUTPUT_READ,
    _NeedKind.CALL: DataFlowRule.CALL_READS_UNASSIGNED_OUTPUT,
}

# Output reads in helpers become prerequisites instead of errors.
_OUTPUT_KINDS = (_NeedKind.OUTPUT, _NeedKind.CALL)

# Instructions whose needs are exactly their register operands and whose
# only assignment is their result register (calls of built-ins included: a
# call of a module function also needs and assigns output leaves).
_REGISTER_ONLY_CLASSES = frozenset(
    {CopyInstruction, BinaryInstruction, ConstructInstruction, SwizzleInstruction, MemberInstruction, IndexInstruction}
)


# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, NamedTuple

    class _Need(NamedTuple):
        """Bits that must be in the availability set, and what to blame if they are not."""

        mask: int
        kind: _NeedKind
        subject: Any
        detail: Any  # register index, InterfaceVariable or callee Function

    class _Step(NamedTuple):
        """One statement compiled: the union of its needs' masks and what it assigns.

        The needs themselves (what to blame) are compiled again, by
        `_statement_needs`, only for a statement whose mask is not available.
        """

        statement: Instruction | Terminator
        mask: int
        gen: int
else:  # the same tuples (collections.namedtuple is what typing.NamedTuple makes)
    _Need = collections.namedtuple("_Need", ("mask", "kind", "subject", "detail"))
    _Step = collections.namedtuple("_Step", ("statement", "mask", "gen"))


class _BlockPlan:
    """The executable part of one reachable block, compiled to needs and gens."""

    __slots__ = ("gen", "steps", "successors", "terminator")

    def __init__(self, steps: list[_Step], gen: int, successors: list[Block], terminator: _Step | None) -> None:
        self.steps = steps
        self.gen = gen
        self.successors = successors
        self.terminator = terminator  # None when a non-returning call cuts the block


def check_module(module: Module) -> None:
    """Raise VerificationError at the first data-flow violation (vertex stage first)."""
    for stage in module.stages:
        check_stage(stage)


def check_stage(stage: Stage) -> None:
    summarize_stage(stage)


def summarize_stage(stage: Stage) -> dict[Function, HelperSummary]:
    """Check one stage and return every function's summary (used by tests and tools).

    Raises VerificationError for the first violation.
    """
    order = callgraph.callee_first_order(stage)
    division.check_stage(stage)
    layout = OutputLayout(stage)
    summaries: dict[Function, HelperSummary] = {}
    errors: dict[Function, VerificationError] = {}
    for function in order:
        analysis = _FunctionAnalysis(stage, function, layout, summaries)
        summary, error = analysis.run()
        summaries[function] = summary
        if error is not None:
            errors[function] = error
    for function in stage.functions:
        if function in errors:
            raise errors[function]
    return summaries


class _FunctionAnalysis:
    """Availability of registers and output leaves in one function, for one run."""

    def __init__(
        self, stage: Stage, function: Function, layout: OutputLayout, summaries: dict[Function, HelperSummary]
    ) -> None:
        self.stage = stage
        self.function = function
        self.layout = layout
        self.summaries = summaries
        self.is_entry = function is stage.entry
        self.register_bits: dict[int, int] = {}
        entry = function.entry_block
        if entry is not None:
            for instruction in entry.instructions:
                if not isinstance(instruction, DeclareLocalInstruction):
                    break  # the declarations' prefix (spec 6; a register declared elsewhere is numbered at its use)
                self._register_bit(instruction.register.index)

    def _register_bit(self, index: int) -> int:
        bit = self.register_bits.get(index)
        if bit is None:
            # Undeclared registers are the structural layer's error; number them
            # anyway so this layer never fails with a KeyError.
            bit = 1 << (self.layout.leaf_total + len(self.register_bits))
            self.register_bits[index] = bit
        return bit

    # Compilation of instructions to needs and gens ----------------------------------------

    def _operand_need(self, operand: Any, needs: list[_Need]) -> None:
        if isinstance(operand, RegisterValue):
            needs.append(_Need(self._register_bit(operand.index), _NeedKind.REGISTER, operand, operand.index))

    def _reference(self, reference: ReferenceValue, needs: list[_Need], is_store: bool) -> int:
        """Add the needs of accessing `reference`; return what a store through it establishes."""
        path: list[ReferenceValue] = []
        root = reference
        while isinstance(root, (MemberReferenceValue, IndexReferenceValue)):
            path.append(root)
            root = root.base
        # Selectors are read when the path is used (spec 6.1), root first.
        for step in reversed(path):
            if isinstance(step, IndexReferenceValue):
                self._operand_need(step.index, needs)
        if root.storage_kind is StorageKind.LOCAL:
            bit = self._register_bit(root.slot)
            if not path:
                if is_store:
                    return bit
                needs.append(_Need(bit, _NeedKind.LOCAL_LOAD, reference, root.slot))
            else:
                kind = _NeedKind.LOCAL_PARTIAL_STORE if is_store else _NeedKind.LOCAL_PATH_LOAD
                needs.append(_Need(bit, kind, reference, root.slot))
            return 0
        if root.storage_kind is StorageKind.STAGE:
            selection = self.layout.select(reference)
            if selection is None:
                return 0  # a stage input: always available
            if is_store:
                return selection.written
            if selection.read:
                needs.append(_Need(selection.read, _NeedKind.OUTPUT, reference, selection.variable))
        # Parameters are supplied in full; uniforms are read-only and always available.
        return 0

    def _instruction_needs(self, instruction: Instruction) -> tuple[list[_Need], int, bool]:
        """The needs of one instruction, what it assigns, and whether it cuts the block (a non-returning call)."""
        needs: list[_Need] = []
        gen = 0
        returns = True
        if isinstance(instruction, DeclareLocalInstruction):
            return needs, 0, False
        if isinstance(instruction, LoadInstruction):
            self._reference(instruction.source, needs, is_store=False)
        elif isinstance(instruction, StoreInstruction):
            gen |= self._reference(instruction.target, needs, is_store=True)
        for operand in instruction.operands():
            self._operand_need(operand, needs)
        if isinstance(instruction, CallInstruction) and instruction.builtin is Builtin.NONE:
            callee = instruction.callee
            summary = self.summaries.get(callee, _NO_EFFECT) if callee is not None else _NO_EFFECT
            if summary.prerequisites:
                needs.append(_Need(summary.prerequisites, _NeedKind.CALL, instruction, callee))
            gen |= summary.guarantees
            returns = summary.returns_normally
        result = getattr(instruction, "result", None)
        if isinstance(result, RegisterValue):
            gen |= self._register_bit(result.index)
        return needs, gen, not returns

    def _statement_needs(self, statement: Instruction | Terminator) -> list[_Need]:
        """The needs of a compiled statement, in the order they are checked (for its diagnostics)."""
        if isinstance(statement, Terminator):
            needs: list[_Need] = []
            for operand in statement.operands():
                self._operand_need(operand, needs)
            return needs
        return self._instruction_needs(statement)[0]

    def _compile_instruction(self, instruction: Instruction) -> tuple[_Step, bool]:
        """The step of one instruction, and whether it cuts the block (a non-returning call)."""
        kind = type(instruction)
        if kind in _REGISTER_ONLY_CLASSES or (
            kind is CallInstruction and instruction.builtin is not Builtin.NONE  # type: ignore[attr-defined]  # `kind is CallInstruction` was just checked (an exact class test mypy does not narrow on)
        ):
            # Most instructions read only register operands and assign their
            # result register: their mask needs no _Need objects. (The same
            # bits as `_instruction_needs`, which also handles malformed
            # instructions the structural layer reports first.)
            bits = self.register_bits
            mask = 0
            for operand in instruction.operands():
                if isinstance(operand, RegisterValue):
                    bit = bits.get(operand.index)
                    mask |= bit if bit is not None else self._register_bit(operand.index)
            result = instruction.result  # type: ignore[attr-defined]  # every instruction class that is not register-only has a result
            gen = self._register_bit(result.index) if isinstance(result, RegisterValue) else 0
            return _Step(instruction, mask, gen), False
        needs, gen, cuts = self._instruction_needs(instruction)
        mask = 0
        for need in needs:
            mask |= need.mask
        return _Step(instruction, mask, gen), cuts

    def _compile_block(self, block: Block) -> _BlockPlan:
        steps: list[_Step] = []
        gen = 0
        for instruction in block.instructions:
            if type(instruction) is DeclareLocalInstruction:
                continue  # needs nothing and assigns nothing: a step that always passes (a lowered material has thousands)
            step, cuts = self._compile_instruction(instruction)
            steps.append(step)
            gen |= step.gen
            if cuts:
                # The callee never returns normally: later instructions, the
                # terminator and the successors are not executable (spec 6.3).
                return _BlockPlan(steps, gen, [], None)
        terminator = block.terminator
        if terminator is None:
            return _BlockPlan(steps, gen, [], None)
        mask = 0
        for need in self._statement_needs(terminator):
            mask |= need.mask
        return _BlockPlan(steps, gen, list(terminator.successors()), _Step(terminator, mask, 0))

    # The analysis -----------------------------------------------------------------------

    def run(self) -> tuple[HelperSummary, VerificationError | None]:
        entry = self.function.entry_block
        if entry is None:
            return _NO_EFFECT, None

        # Depth-first walk of the reachable graph, compiling each block once.
        plans: dict[Block, _BlockPlan] = {entry: self._compile_block(entry)}
        postorder: list[Block] = []
        stack: list[tuple[Block, int]] = [(entry, 0)]
        while stack:
            block, cursor = stack[-1]
            successors = plans[block].successors
            if cursor < len(successors):
                stack[-1] = (block, cursor + 1)
                successor = successors[cursor]
                if successor not in plans:
                    plans[successor] = self._compile_block(successor)
                    stack.append((successor, 0))
                continue
            stack.pop()
            postorder.append(block)
        order = postorder[::-1]
        position = {block: number for number, block in enumerate(order)}
        predecessors: list[list[int]] = [[] for _ in order]
        successor_positions: list[list[int]] = []
        for number, block in enumerate(order):
            targets = [position[successor] for successor in plans[block].successors]
            successor_positions.append(targets)
            for target in targets:
                predecessors[target].append(number)
        gens = [plans[block].gen for block in order]

        universe = (1 << (self.layout.leaf_total + len(self.register_bits))) - 1
        outgoing = [universe] * len(order)

        def incoming(number: int) -> int:
            if number == 0:
                return 0  # the invocation starts with nothing assigned
            state = universe
            for predecessor in predecessors[number]:
                state &= outgoing[predecessor]
            return state

        # Worklist in reverse postorder: a block is revisited only when a
        # predecessor's OUT shrank, so loops settle in O(nesting depth) rounds.
        worklist = list(range(len(order)))
        queued = [True] * len(order)
        while worklist:
            number = heapq.heappop(worklist)
            queued[number] = False
            state = incoming(number) | gens[number]
            if state != outgoing[number]:
                outgoing[number] = state
                for target in successor_positions[number]:
                    if not queued[target]:
                        queued[target] = True
                        heapq.heappush(worklist, target)

        return self._check(plans, position, incoming)

    def _check(
        self, plans: dict[Block, _BlockPlan], position: dict[Block, int], incoming: Any
    ) -> tuple[HelperSummary, VerificationError | None]:
        """Walk reachable blocks in list order with the fixed point's IN sets."""
        all_leaves = self.layout.all_leaves
        error: VerificationError | None = None
        prerequisites = 0
        guarantees = all_leaves
        returns_normally = False
        for block in self.function.blocks:
            plan = plans.get(block)
            if plan is None:
                continue  # unreachable from the entry block: not availability-checked
            state = incoming(position[block])
            steps = plan.steps if plan.terminator is None else plan.steps + [plan.terminator]
            for statement, statement_mask, gen in steps:
                # `state & mask` is only as long as the shorter operand, so
                # these tests stay cheap for low bits of a wide state.
                if state & statement_mask == statement_mask:
                    state |= gen
                    continue
                for need in self._statement_needs(statement):
                    if state & need.mask == need.mask:
                        continue
                    missing = need.mask & ~state
                    if need.kind in _OUTPUT_KINDS and not self.is_entry:
                        prerequisites |= missing
                    elif error is None:
                        error = self._error(need, missing, block, statement)
                state |= gen
            if plan.terminator is not None and isinstance(plan.terminator.statement, ReturnTerminator):
                returns_normally = True
                guarantees &= state
                if self.is_entry and error is None and all_leaves & ~state:
                    error = self._return_error(all_leaves & ~state, block, plan.terminator.statement)
        summary = HelperSummary(prerequisites, guarantees & all_leaves if returns_normally else 0, returns_normally)
        return summary, error

    # Diagnostics ------------------------------------------------------------------------

    def _context(self, block: Block, statement: Any) -> tuple[Any, ...]:
        return (self.stage, self.function, block, statement)

    def _error(self, need: _Need, missing: int, block: Block, statement: Any) -> VerificationError:
        kind = need.kind
        rule = _NEED_RULES[kind]
        if kind is _NeedKind.REGISTER:
            message = f"register r{need.detail} is read before it is definitely assigned on every path"
        elif kind is _NeedKind.LOCAL_LOAD:
            message = f"load of local r{need.detail} before the register is definitely assigned on every path"
        elif kind is _NeedKind.LOCAL_PATH_LOAD:
            message = (
                f"load of part of local r{need.detail} before the whole register is definitely assigned"
                " (a local aggregate must be wholly assigned before a field or element is read)"
            )
        elif kind is _NeedKind.LOCAL_PARTIAL_STORE:
            message = (
                f"store into part of local r{need.detail} before the whole register is definitely assigned"
                " (a field or element store does not initialize a local aggregate)"
            )
        elif kind is _NeedKind.OUTPUT:
            message = (
                f"output '{need.detail.name}' is read before '{self.layout.describe_first(missing)}'"
                " is definitely assigned on every path"
            )
        else:
            message = (
                f"call of '{need.detail.name}' reads output '{self.layout.describe_first(missing)}'"
                " before writing it, and it is not definitely assigned before the call"
            )
        return VerificationError(rule, message, need.subject, self._context(block, statement))

    def _return_error(self, missing: int, block: Block, terminator: ReturnTerminator) -> VerificationError:
        variable = self.layout.variable_of_leaf((missing & -missing).bit_length() - 1)
        leaf = self.layout.describe_first(missing)
        detail = "" if leaf == variable.name else f" ('{leaf}' may be unassigned)"
        message = (
            f"entry function '{self.function.name}' returns before output '{variable.name}'"
            f" is fully assigned on every path{detail}"
        )
        return VerificationError(DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, message, terminator, self._context(block, terminator))
