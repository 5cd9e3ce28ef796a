"""Group lowering benchmark: a material whose one instance calls a chain of N nested group definitions.

For N = 100, 1,000 and 10,000 nesting levels (3 nodes per level: Group
Input, the next level's instance or a Multiply at the bottom, Group
Output), times `lower()` split as it records it:

- groups + lowering: type propagation, the group analyses (every
  definition's body, once) and the lowering of one helper per level,
- publication and glsl: `VerifiedModule.create` and `glsl.compile` of the
  module (the VPL core's share, shown for context),

each the best of `--repeat` runs, and the growth of the first column per
10x more levels (the goal: at most 11x, i.e. linear in the total size).
The first column is measured twice: with Python's cyclic collector as a
script has it, and paused by the benchmark during the call. `lower()`
pauses the collector itself (vpl_core/collector.py), so the two agree:
the collector's passes would walk every live object, about 75 per level
while the module is being built, and free nothing, a share that grows
with the size on top of the lowering's own linear work.
The product refuses chains deeper than `MAX_GROUP_DEPTH` (a diagnostic
naming the chain); the benchmark lifts that budget to time the lowering
itself, and also prints how long the refusal of the deepest chain takes,
beside the analysis of its bodies that the depth check, done first, skips.

On a loaded machine the times spread widely; `--calls` also counts the
Python function calls of one `lower()` per size (cProfile), whose growth
does not depend on the load.

Run: ``.venv/bin/python benchmarks/bench_groups.py [--levels 100 1000 10000] [--repeat 3] [--calls]``
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import math
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.material import group_lowering
from app.material.graph import GroupDefinition, InterfacePort, MaterialGraph
from app.material.group_names import FUNCTION_PROPERTY
from app.material.groups import GROUP_TYPE
from app.material.lowering import lower
from app.material.port_types import PortType
from vpl_core import collector


def nested_groups(depth: int) -> MaterialGraph:
    """One instance in the material, calling `depth` definitions nested in a chain."""
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


def total_nodes(document: MaterialGraph) -> int:
    return len(document.nodes) + sum(len(definition.body.nodes) for definition in document.functions.values())


def measure(depth: int, repeat: int, paused: bool) -> tuple[float, float, float]:
    """Best (groups + lowering, publication, glsl) seconds of `lower()` over `repeat` runs (`paused`: no
    automatic collection during the call)."""
    best: tuple[float, float, float] | None = None
    for _ in range(repeat):
        document = nested_groups(depth)
        gc.collect()
        if paused:
            gc.disable()
        try:
            started = time.perf_counter()
            result = lower(document)
            elapsed = time.perf_counter() - started
        finally:
            gc.enable()
        if not result.ok:
            raise SystemExit(f"{depth} levels did not lower: {[d.message for d in result.errors][:2]}")
        publication, glsl = result.timings.get("publication", 0.0), result.timings.get("glsl", 0.0)
        run = (elapsed - publication - glsl, publication, glsl)
        best = run if best is None or run[0] < best[0] else best
    assert best is not None
    return best


def count_calls(depth: int) -> int:
    """The Python function calls (primitive and recursive) one `lower()` of `depth` levels makes."""
    document = nested_groups(depth)
    profile = cProfile.Profile()
    profile.enable()
    lower(document)
    profile.disable()
    return sum(entry[1] for entry in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]  # Stats.stats is not in typeshed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--calls", action="store_true", help="also count the Python calls of lower() per size")
    arguments = parser.parse_args()
    budget = group_lowering.MAX_GROUP_DEPTH
    group_lowering.MAX_GROUP_DEPTH = max(arguments.levels) + 1
    print(f"{'levels':>8} {'nodes':>8} {'groups+lowering s':>18} {'growth':>7} {'collector paused s':>19} {'growth':>7}"
          f" {'publication s':>14} {'glsl s':>8}")
    previous: tuple[int, float, float] | None = None
    for depth in arguments.levels:
        lowering, publication, glsl = measure(depth, arguments.repeat, paused=False)
        paused = measure(depth, arguments.repeat, paused=True)[0]
        growth = paused_growth = ""
        if previous is not None:
            steps = math.log10(depth / previous[0])  # scaled to a 10x step when the levels do not grow tenfold
            growth = f"{(lowering / previous[1]) ** (1.0 / steps):.1f}x"
            paused_growth = f"{(paused / previous[2]) ** (1.0 / steps):.1f}x"
        print(f"{depth:>8} {total_nodes(nested_groups(depth)):>8} {lowering:>18.3f} {growth:>7} {paused:>19.3f} "
              f"{paused_growth:>7} {publication:>14.3f} {glsl:>8.3f}")
        previous = (depth, lowering, paused)
    if arguments.calls:
        counted: tuple[int, int] | None = None
        for depth in arguments.levels:
            calls = count_calls(depth)
            growth = "" if counted is None else f"{(calls / counted[1]) ** (1.0 / math.log10(depth / counted[0])):.1f}x"
            print(f"{depth:>8} levels: {calls:>12,} Python calls in lower() {growth}")
            counted = (depth, calls)
    group_lowering.MAX_GROUP_DEPTH = budget
    deepest = max(arguments.levels)
    document = nested_groups(deepest)
    started = time.perf_counter()
    refused = lower(document)
    refusal = time.perf_counter() - started
    if not refused.errors:
        print(f"{deepest} levels are within the budget of {budget}: not refused")
        return
    # What the refusal cost when it came at the budget's level of the lowering: every body analysed first.
    started = time.perf_counter()
    with collector.paused():  # as in lower()
        group_lowering.GroupState(document, set(document.nodes)).analysis(f"f{deepest - 1}")
    analyses = time.perf_counter() - started
    print(f"refusing {deepest} levels at the budget of {budget}: {refusal:.3f} s; analysing their bodies (which the "
          f"depth check skips): {analyses:.3f} s ({analyses / refusal:.1f}x the refusal)")
    print(f"  {refused.errors[0].message[:60]}...")

if __name__ == "__main__":
    main()
