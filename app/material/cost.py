"""What each node costs: the VPL instructions and texture samples it contributes to the material.

A *relative* measure for comparing nodes and versions of a material, like
Unreal's instruction count, not GPU cycles: every VPL operation counts one
(an addition as much as a `pow`), counts are static (an instruction in a
helper's loop counts once, however often the loop runs), and the GLSL a
driver compiles may fold, split or schedule them differently. It is read
from the lowered module and its provenance (`LoweringResult.provenance`:
every instruction knows the node that emitted it), so it is exactly what
the code view shows.

Rules:

- An *instruction* is any VPL instruction except a register declaration
  (`declare_local` declares, it does not compute) and except block
  terminators (branches and returns); a *texture sample* is a `texture`
  or `texture_lod` call.
- The instructions of a stage's entry function are counted on the node
  that emitted each one. The generated vertex stage belongs to the output
  node.
- A shared helper function (noise, the BRDF, colour conversions) is
  emitted once however many nodes call it, so it is counted once: on the
  node that needed it first (its owner, as provenance says). Every node
  that calls it, directly or through another helper, lists it in its
  tooltip with its size and the node it is counted on.
- Stage totals are the sums over the stage's functions, so the nodes'
  totals add up to the material's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from vpl_core.ir.instructions import Builtin, CallInstruction, DeclareLocalInstruction, Instruction
from vpl_core.ir.module import Function, Module, Stage

SAMPLE_BUILTINS = frozenset({Builtin.TEXTURE, Builtin.TEXTURE_LOD})


@dataclass(frozen=True)
class Count:
    """Instructions and texture samples."""

    instructions: int = 0
    samples: int = 0

    def __add__(self, other: Count) -> Count:
        return Count(self.instructions + other.instructions, self.samples + other.samples)


@dataclass(frozen=True)
class HelperCost:
    """One shared helper function: its own size, where it is counted, who uses it."""

    name: str
    stage: str
    count: Count
    owner: str | None
    #: Nodes that call it, directly or through other helpers (the owner among them).
    users: frozenset[str] = frozenset()


@dataclass(frozen=True)
class NodeCost:
    """What one node contributes, per stage, with the helpers it owns included."""

    node_id: str
    #: Instructions it emitted into each stage's entry function (stage name -> count).
    own: dict[str, Count] = field(default_factory=dict)
    #: Helpers counted on this node (it needed them first).
    owned_helpers: tuple[HelperCost, ...] = ()
    #: Every helper it calls, directly or indirectly, wherever it is counted.
    called_helpers: tuple[HelperCost, ...] = ()

    @property
    def total(self) -> Count:
        """Its own instructions in every stage plus the helpers counted on it."""
        total = Count()
        for count in self.own.values():
            total += count
        for helper in self.owned_helpers:
            total += helper.count
        return total

    def stage_total(self, stage: str) -> Count:
        total = self.own.get(stage, Count())
        for helper in self.owned_helpers:
            if helper.stage == stage:
                total += helper.count
        return total


@dataclass(frozen=True)
class MaterialCost:
    nodes: dict[str, NodeCost]
    helpers: tuple[HelperCost, ...]
    #: Totals per stage ("vertex", "fragment").
    stages: dict[str, Count]

    def node(self, node_id: str) -> NodeCost | None:
        return self.nodes.get(node_id)

    @property
    def total(self) -> Count:
        total = Count()
        for count in self.stages.values():
            total += count
        return total


def _counted(instructions: Iterable[Instruction]) -> Iterable[Instruction]:
    return (instruction for instruction in instructions if not isinstance(instruction, DeclareLocalInstruction))


def _count(instruction: Instruction) -> Count:
    sample = isinstance(instruction, CallInstruction) and instruction.builtin in SAMPLE_BUILTINS
    return Count(1, 1 if sample else 0)


def _callees(function: Function) -> list[Function]:
    return [instruction.callee for block in function.blocks for instruction in block.instructions
            if isinstance(instruction, CallInstruction) and instruction.callee is not None]


def material_cost(module: Module, provenance: dict[int, str], scoped_provenance: dict[int, tuple[str, str]] | None = None,
                  level: str | None = None) -> MaterialCost:
    """The cost of every node of a lowered module (`LoweringResult.module` and `.provenance`).

    With `level` (a group definition's id) and `LoweringResult.scoped_provenance`: the cost of the nodes of
    that group's body, which emit into the group's helper function rather than a stage's entry (each
    instruction once, however many instances call the helper).
    """
    scoped = scoped_provenance or {}

    def owner(item: object, in_entry: bool) -> str | None:
        """The node `item` is counted on (an instruction outside a stage's entry: only inside a group's body)."""
        if level is None:
            return provenance.get(id(item)) if in_entry else None
        found = scoped.get(id(item))
        return found[1] if found is not None and found[0] == level else None

    own: dict[str, dict[str, Count]] = {}
    stages: dict[str, Count] = {}
    helpers: list[tuple[Stage, Function, HelperCost]] = []
    direct_calls: dict[str, set[int]] = {}  # node -> ids of helpers its own instructions call
    for stage in module.stages:
        stage_name = stage.kind.value
        stage_total = Count()
        for function in stage.functions:
            function_count = Count()
            for block in function.blocks:
                for instruction in _counted(block.instructions):
                    count = _count(instruction)
                    function_count += count
                    node = owner(instruction, function is stage.entry)
                    if node is not None:
                        per_stage = own.setdefault(node, {})
                        per_stage[stage_name] = per_stage.get(stage_name, Count()) + count
                        if isinstance(instruction, CallInstruction) and instruction.callee is not None:
                            direct_calls.setdefault(node, set()).add(id(instruction.callee))
            stage_total += function_count
            if function is not stage.entry:
                helpers.append((stage, function, HelperCost(function.name, stage_name, function_count,
                                                            owner(function, True))))
        stages[stage_name] = stage_total

    by_id = {id(function): (function, cost) for _, function, cost in helpers}

    def reachable(start: Iterable[int]) -> set[int]:
        seen: set[int] = set()
        stack = [helper_id for helper_id in start if helper_id in by_id]
        while stack:
            helper_id = stack.pop()
            if helper_id in seen:
                continue
            seen.add(helper_id)
            stack.extend(id(callee) for callee in _callees(by_id[helper_id][0]) if id(callee) in by_id)
        return seen

    calls = {node: reachable(ids) for node, ids in direct_calls.items()}
    users: dict[int, set[str]] = {}
    for node, helper_ids in calls.items():
        for helper_id in helper_ids:
            users.setdefault(helper_id, set()).add(node)
    finished = {
        helper_id: HelperCost(cost.name, cost.stage, cost.count, cost.owner, frozenset(users.get(helper_id, set())))
        for helper_id, (_, cost) in by_id.items()
    }
    node_ids = set(own) | {cost.owner for cost in finished.values() if cost.owner is not None}
    nodes = {
        node: NodeCost(
            node,
            dict(own.get(node, {})),
            tuple(cost for cost in finished.values() if cost.owner == node),
            tuple(finished[helper_id] for helper_id in sorted(calls.get(node, set()), key=lambda helper_id: finished[helper_id].name)),
        )
        for node in node_ids
    }
    return MaterialCost(nodes, tuple(finished.values()), stages)


def _plural(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


def describe_count(count: Count) -> str:
    """"12 instr · 1 tex" (the node footer)."""
    text = f"{count.instructions} instr"
    if count.samples:
        text += f" \u00b7 {count.samples} tex"
    return text


def describe_node(cost: NodeCost, label: Callable[[str], str] = str) -> list[str]:
    """The tooltip lines about one node's cost (plain text; the caller escapes for rich text).

    `label` names another node (the one a shared helper is counted on).
    """
    lines = []
    stages = [stage for stage in ("vertex", "fragment") if cost.stage_total(stage).instructions]
    total = cost.total
    sample_text = f", {_plural(total.samples, 'texture sample')}" if total.samples else ""
    per_stage = ""
    if len(stages) > 1:
        per_stage = " (" + ", ".join(f"{stage} {cost.stage_total(stage).instructions}" for stage in stages) + ")"
    lines.append(f"Cost: {_plural(total.instructions, 'VPL instruction')}{sample_text}{per_stage}")
    for helper in cost.called_helpers:
        where = "counted here" if helper.owner == cost.node_id else f"counted on {label(helper.owner) if helper.owner else 'the material'}"
        shared = f", shared by {len(helper.users)} nodes" if len(helper.users) > 1 else ""
        lines.append(f"  calls {helper.name}: {describe_count(helper.count)} ({where}{shared})")
    for helper in cost.owned_helpers:
        if helper not in cost.called_helpers:
            lines.append(f"  counts {helper.name}: {describe_count(helper.count)}")
    return lines


def describe_totals(cost: MaterialCost) -> str:
    """The status bar's per-stage totals: "VS 24 · FS 412 instr · 3 tex"."""
    vertex, fragment = cost.stages.get("vertex", Count()), cost.stages.get("fragment", Count())
    samples = vertex.samples + fragment.samples
    text = f"VS {vertex.instructions} \u00b7 FS {fragment.instructions} instr"
    if samples:
        text += f" \u00b7 {samples} tex"
    return text
