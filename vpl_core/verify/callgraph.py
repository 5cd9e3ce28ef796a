"""The per-stage call graph: recursion rejection and callee-first order (spec 6.3).

Edges come from every CallInstruction with builtin NONE in every block of
every function of the stage, reachable or not, used or not: spec 6.3 rejects
direct and indirect recursion "even in unused functions or unreachable
blocks". Once the graph is known to be acyclic, its depth-first postorder is
the order in which helper summaries can be computed, each callee before any
of its callers.

The walk is iterative (a deep call chain must not hit Python's recursion
limit) and deterministic: roots in function list order, callees in block and
instruction order. It relies on the structural layer for same-stage callees;
a callee outside the stage is ignored here rather than crashing.
"""

from __future__ import annotations

from vpl_core.ir.instructions import Builtin, CallInstruction
from vpl_core.ir.module import Block, Function, Stage
from vpl_core.verify.errors import DataFlowRule, VerificationError

CallSite = tuple[CallInstruction, Block]

_CYCLE_NAMES_SHOWN = 8


def call_sites(function: Function) -> list[CallSite]:
    """Every call of a module function in `function`, in block and instruction order."""
    sites: list[CallSite] = []
    for block in function.blocks:
        for instruction in block.instructions:
            if (
                isinstance(instruction, CallInstruction)
                and instruction.builtin is Builtin.NONE
                and instruction.callee is not None
            ):
                sites.append((instruction, block))
    return sites


def callee_first_order(stage: Stage) -> list[Function]:
    """The stage's functions, every callee before its callers.

    Raises VerificationError at the first call that closes a cycle; its
    subject is that call instruction and its message names the functions on
    the cycle in call order.
    """
    members = set(stage.functions)
    sites = {function: call_sites(function) for function in stage.functions}
    finished: set[Function] = set()
    on_path: dict[Function, int] = {}  # function -> position on the current DFS path
    order: list[Function] = []

    for root in stage.functions:
        if root in finished:
            continue
        path: list[Function] = [root]
        cursors: list[int] = [0]
        on_path[root] = 0
        while path:
            function = path[-1]
            function_sites = sites[function]
            cursor = cursors[-1]
            if cursor == len(function_sites):
                path.pop()
                cursors.pop()
                del on_path[function]
                finished.add(function)
                order.append(function)
                continue
            cursors[-1] = cursor + 1
            call, block = function_sites[cursor]
            callee = call.callee
            assert callee is not None
            if callee not in members or callee in finished:
                continue
            if callee in on_path:
                raise _recursion_error(stage, path[on_path[callee]:], call, block)
            on_path[callee] = len(path)
            path.append(callee)
            cursors.append(0)
    return order


def _recursion_error(stage: Stage, cycle: list[Function], call: CallInstruction, block: Block) -> VerificationError:
    caller = cycle[-1]
    if len(cycle) == 1:
        message = f"function '{caller.name}' calls itself; recursion is not allowed"
    else:
        names = [f"'{function.name}'" for function in cycle + [cycle[0]]]
        if len(names) > _CYCLE_NAMES_SHOWN:
            # Keep the message readable for long cycles: both ends and an ellipsis.
            half = _CYCLE_NAMES_SHOWN // 2
            names = names[:half] + ["..."] + names[-half:]
        message = f"recursive call cycle {' -> '.join(names)} ({len(cycle)} functions); recursion is not allowed"
    return VerificationError(DataFlowRule.RECURSION, message, call, (stage, caller, block, call))
