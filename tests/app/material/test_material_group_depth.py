"""Groups nested deep: lowered without recursion, in time linear in their number, up to a depth budget
reported as a diagnostic naming the chain (from a material and from a `.vplf` library file)."""

from __future__ import annotations

import gc
import re
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import pytest

from app.material import group_lowering
from app.material.graph import GroupDefinition, InterfacePort, MaterialGraph
from app.material.group_lowering import MAX_GROUP_DEPTH, definitions_with_problems
from app.material.group_names import FUNCTION_PROPERTY
from app.material.groups import GROUP_TYPE, call_cycles, containing_functions
from app.material.library import function_text, import_function, read_function_text
from app.material.lowering import LoweringResult, lower
from app.material.port_types import PortType

if TYPE_CHECKING:
    from _typeshed import TraceFunction


def nested_groups(depth: int) -> MaterialGraph:
    """A material whose one group instance calls a chain of `depth` definitions (`f0` innermost multiplies by 0.5)."""
    document = MaterialGraph()
    previous: str | None = None
    for level in range(depth):
        body = MaterialGraph()
        entry = body.add_node("group_input")
        exit_ = body.add_node("group_output")
        if previous is None:
            step = body.add_node("multiply", properties={"b": 0.5})
            body.connect(entry.id, "x", step.id, "a")
        else:
            step = body.add_node(GROUP_TYPE, properties={FUNCTION_PROPERTY: previous})
            body.connect(entry.id, "x", step.id, "x")
        body.connect(step.id, "out" if previous is None else "y", exit_.id, "y")
        function_id = f"f{level}"
        document.functions[function_id] = GroupDefinition(
            function_id, f"level {level}", [InterfacePort("x", PortType.FLOAT, 1.0)], [InterfacePort("y", PortType.FLOAT)], body)
        previous = function_id
    instance = document.add_node(GROUP_TYPE, properties={FUNCTION_PROPERTY: previous})
    output = document.add_node("material_output")
    document.connect(instance.id, "y", output.id, "opacity")
    return document


def test_groups_nested_to_the_budget_lower_to_one_helper_per_level() -> None:
    result = lower(nested_groups(MAX_GROUP_DEPTH))
    assert result.ok and result.module is not None, [d.message for d in result.errors]
    helpers = [function.name for function in result.module.fragment.functions if function.name.startswith("group")]
    assert len(helpers) == MAX_GROUP_DEPTH
    # Made in the order a walk from the material meets them: the outermost first.
    assert helpers[:2] == [f"group_level_{MAX_GROUP_DEPTH - 1}", f"group_level_{MAX_GROUP_DEPTH - 2}"]


def test_a_lowering_starts_no_cyclic_collection() -> None:
    # A lowering keeps what it makes alive to its end (about 75 objects per level of a chain), so collections
    # started by its allocations walk the growing heap and free nothing: their full passes made the time of a
    # deep chain grow faster than its size. `lower` pauses the collector (`vpl_core.collector.paused`); the
    # first allocation after the pause may start one young collection (the lowering allocated past the
    # threshold), and nothing else starts (before: one every 700 allocations, dozens here).
    document = nested_groups(200)
    generations: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    was_enabled = gc.isenabled()
    gc.enable()
    gc.collect()
    gc.callbacks.append(watch)
    try:
        result = lower(document)
    finally:
        gc.callbacks.remove(watch)
        if not was_enabled:
            gc.disable()
    assert result.ok, [d.message for d in result.errors]
    assert len(generations) <= 1, generations


def test_groups_nested_past_the_budget_are_a_diagnostic_naming_the_chain() -> None:
    # 600 levels raised RecursionError ("internal error while lowering"), 10,000 did not finish.
    for depth in (MAX_GROUP_DEPTH + 1, 600, 2000):
        result = lower(nested_groups(depth))
        messages = [d.message for d in result.errors]
        assert len(messages) == 1, messages
        assert f"groups are nested more than {MAX_GROUP_DEPTH} deep ('level {depth - 1}' \u2192 'level {depth - 2}'" in messages[0]
        assert f"'level {depth - MAX_GROUP_DEPTH - 1}'); ungroup some levels" in messages[0]
        assert "RecursionError" not in messages[0]
        assert result.errors[0].node_id == "n1"  # the material's instance that leads there


def test_a_deep_library_function_is_refused_the_same_way(tmp_path: Path) -> None:
    chain = nested_groups(3000)
    text = function_text(chain.functions, "f2999")
    entry = read_function_text(text, tmp_path / "deep.vplf", "user")
    document, root = import_function(MaterialGraph(), entry)
    instance = document.add_node(GROUP_TYPE, properties={FUNCTION_PROPERTY: root})
    output = document.add_node("material_output")
    document.connect(instance.id, "y", output.id, "opacity")
    messages = [d.message for d in lower(document).errors]
    assert len(messages) == 1 and f"nested more than {MAX_GROUP_DEPTH} deep" in messages[0], messages


def test_call_cycles_and_callers_walk_without_recursion() -> None:
    chain = nested_groups(5000)
    assert call_cycles(chain.functions) == {}
    assert len(containing_functions(chain.functions, "f0")) == 5000
    assert definitions_with_problems(chain.functions, ["f4990"]) == {f"f{level}" for level in range(4990, 5000)}
    # f0 -> f4999 closes one cycle through every definition.
    cyclic = chain.functions["f0"].body
    node = cyclic.add_node(GROUP_TYPE, properties={FUNCTION_PROPERTY: "f4999"})
    assert node.id in cyclic.nodes
    cycles = call_cycles(chain.functions)
    assert len(cycles) == 5000 and len(set(cycles.values())) == 1


def _helper_texts(result: LoweringResult) -> dict[str, str]:
    """Each group helper's canonical VPL text by name, with function references (`f1`, ...) left unnumbered."""
    helpers: dict[str, str] = {}
    for chunk in result.text.split("\n      (function ")[1:]:
        name = chunk.split('"')[1]
        if name.startswith("group_level_"):
            helpers[name] = re.sub(r"\bf\d+\b", "f", chunk).rstrip(")\n ")
    return helpers


def test_a_deep_chain_lowers_every_level_as_a_shallow_chain_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # The lowering frees each helper's per-body state as soon as its body is lowered; the same text and the
    # same provenance per level, however deep the chain, show that nothing of one level leaked into another.
    depth = 2000
    monkeypatch.setattr(group_lowering, "MAX_GROUP_DEPTH", depth + 1)
    deep, shallow = lower(nested_groups(depth)), lower(nested_groups(3))
    assert deep.ok and shallow.ok, [d.message for d in deep.errors + shallow.errors]
    deep_helpers, shallow_helpers = _helper_texts(deep), _helper_texts(shallow)
    assert len(deep_helpers) == depth and len(shallow_helpers) == 3
    assert deep_helpers["group_level_0"] == shallow_helpers["group_level_0"]
    for level in range(1, depth):  # each level above the first as the shallow chain's, but for its name
        assert deep_helpers[f"group_level_{level}"] == shallow_helpers["group_level_1"].replace(
            "group_level_1", f"group_level_{level}"), level
    assert deep.module is not None
    helpers = [function for function in deep.module.fragment.functions if function.name.startswith("group_level_")]
    body = {"", "n1", "n2", "n3"}  # the function as a whole, Group Input, Group Output, the step
    for function in helpers:
        scope_id = "f" + function.name.removeprefix("group_level_")
        for block in function.blocks:
            for item in [*block.instructions, block.terminator]:
                scope, node_id = deep.scoped_provenance[id(item)]
                assert scope == scope_id and node_id in body, (function.name, scope, node_id)
                assert deep.provenance[id(item)] == "n1"  # the material's instance
    again = lower(nested_groups(depth))
    assert again.text == deep.text and again.artifact is not None and deep.artifact is not None
    assert again.artifact.fragment_code == deep.artifact.fragment_code


def _traced_steps(depth: int) -> int:
    """The Python steps (calls, lines, bytecodes, returns: `sys.settrace` events) of one `lower()` of a chain."""
    document = nested_groups(depth)
    steps = 0

    def step(frame: FrameType, _event: str, _arg: Any) -> TraceFunction:
        nonlocal steps
        steps += 1
        frame.f_trace_opcodes = True
        return step

    previous = sys.gettrace()  # a coverage run's tracer, put back after
    sys.settrace(step)
    try:
        result = lower(document)
    finally:
        sys.settrace(previous)
    assert result.ok, [d.message for d in result.errors]
    return steps


def test_each_level_of_a_chain_costs_the_same_python_steps() -> None:
    # Linear in the total size means the same work per level however deep the chain: work per level that
    # grows with the depth (a walk over the chain, a name or list copied from the level above) adds a
    # quadratic term, which the difference of the step counts per 20 more levels shows. The counts are
    # exact (bytecodes, not time); the deepest chain is lowered once first so that the caches every lowering
    # shares (node ids, interface types) hold all of its names in each counted run.
    lower(nested_groups(60))
    counts = [_traced_steps(depth) for depth in (20, 40, 60)]
    first, second = counts[1] - counts[0], counts[2] - counts[1]
    assert first > 20 * 1000  # each level runs at least a thousand steps, so the counts see it
    assert abs(second - first) <= 100, (counts, first, second)


def test_a_chain_past_the_budget_is_refused_before_any_body_is_analysed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The depth is known from the bodies' live instances alone: analysing every body first (type propagation
    # and control facts, per level) made the refusal of a 10,000-level chain take seconds.
    analysed: list[str] = []
    analyse = group_lowering.GroupState._bare_analysis

    def counted(self: group_lowering.GroupState, function_id: str) -> group_lowering.BodyAnalysis:
        analysed.append(function_id)
        return analyse(self, function_id)

    monkeypatch.setattr(group_lowering.GroupState, "_bare_analysis", counted)
    refused = lower(nested_groups(3000))
    assert [d.message[:36] for d in refused.errors] == [f"groups are nested more than {MAX_GROUP_DEPTH} deep"]
    assert (refused.errors[0].scope, refused.errors[0].scoped_node) == (f"f{3000 - MAX_GROUP_DEPTH}", "n3")
    assert analysed == []
    assert lower(nested_groups(MAX_GROUP_DEPTH)).ok
    assert len(analysed) == MAX_GROUP_DEPTH  # within the budget every body is analysed, once


def test_the_depth_counts_live_calls_only_and_every_path_to_a_shared_chain() -> None:
    # An instance the body's Group Output does not read is not lowered, so it adds no depth.
    dead = nested_groups(MAX_GROUP_DEPTH)
    body = dead.functions[f"f{MAX_GROUP_DEPTH - 1}"].body
    spare = nested_groups(2)
    extra = GroupDefinition("g", "spare", [InterfacePort("x", PortType.FLOAT, 1.0)], [InterfacePort("y", PortType.FLOAT)],
                            spare.functions["f1"].body)
    dead.functions["g"] = extra
    extra.body.nodes["n3"].properties[FUNCTION_PROPERTY] = f"f{MAX_GROUP_DEPTH - 1}"
    unconnected = body.add_node(GROUP_TYPE, properties={FUNCTION_PROPERTY: "g"})
    assert unconnected.id in body.nodes
    result = lower(dead)
    assert [d.message for d in result.errors if "nested" in d.message] == []
    # A second material instance that reaches the same chain one level deeper: the helpers are shared, but the
    # calls still nest one frame per level at run time.
    deeper = nested_groups(MAX_GROUP_DEPTH)
    deeper.functions["g"] = GroupDefinition("g", "outer", [InterfacePort("x", PortType.FLOAT, 1.0)],
                                            [InterfacePort("y", PortType.FLOAT)], nested_groups(2).functions["f1"].body)
    deeper.functions["g"].body.nodes["n3"].properties[FUNCTION_PROPERTY] = f"f{MAX_GROUP_DEPTH - 1}"
    second = deeper.add_node(GROUP_TYPE, properties={FUNCTION_PROPERTY: "g"})
    output = next(node for node in deeper.nodes.values() if node.type_name == "material_output")
    deeper.connect(second.id, "y", output.id, "alpha_clip")
    messages = [d.message for d in lower(deeper).errors]
    assert len(messages) == 1 and messages[0].startswith(f"groups are nested more than {MAX_GROUP_DEPTH} deep ('outer'"), messages
