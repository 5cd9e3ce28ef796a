"""Verification time of large modules: the data-flow layer alone and the full Verifier.

Three shapes, each at three sizes doubling from the first:

- `loops`: one fragment entry function of about N blocks made of nested
  loops (depth 3) with one fresh register per loop nest, so registers grow
  with blocks; the availability bit sets are O(registers) wide.
- `chain`: N helpers in a call chain; helper k writes element k of an output
  array of records, reads element k-1 (a prerequisite its caller satisfies)
  and calls helper k+1.
- `outputs`: an output array of N records written field by field with
  constant indices, then read inside a loop with a dynamic index.

For each shape it prints the best-of-R CPU time (process_time) of `dataflow.check_module` and
of `Verifier().run`, and the growth ratio to the previous size (about 2 for
linear behaviour, about 4 for quadratic).

Run: .venv/bin/python benchmarks/bench_verify.py [--repeat R] [--scale S]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    VOID,
    ArrayType,
    BinaryOperator,
    FunctionBuilder,
    Module,
    Semantic,
    StageBuilder,
    element,
    member,
    record,
    vec,
)
from vpl_core.verify import Verifier, dataflow


def _module_with_vertex() -> tuple[Module, StageBuilder]:
    module = Module()
    vertex = StageBuilder(module.vertex)
    position = vertex.output("position", vec(4), semantic=Semantic.POSITION)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(position, main.construct(vec(4), main.f(1.0)))
    main.ret()
    return module, StageBuilder(module.fragment)


def _counted_loop(main: FunctionBuilder, counter, flag, limit: int, body: Callable[[], None]) -> None:
    """counter = 0; while counter < limit { body; counter += 1 } -- 3 blocks plus the body's."""
    main.copy(main.i(0), result=counter)
    header, body_block, exit_block = main.new_block(), main.new_block(), main.new_block()
    main.branch(header)
    main.position_at(header)
    main.binary(BinaryOperator.LESS, counter, main.i(limit), result=flag)
    main.branch_if(flag, body_block, exit_block)
    main.position_at(body_block)
    body()
    main.add(counter, main.i(1), result=counter)
    main.branch(header)
    main.position_at(exit_block)


def build_loops(blocks: int) -> Module:
    module, fragment = _module_with_vertex()
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    main = fragment.function("fragment_main", VOID, entry=True)
    flag = main.register(BOOL)
    total = main.copy(main.f(0.0))
    while len(main.function.blocks) < blocks:
        counters = [main.register(INT) for _ in range(3)]
        value = main.register(FLOAT)

        def innermost() -> None:
            main.construct(FLOAT, counters[2], result=value)
            main.add(total, value, result=total)

        def middle() -> None:
            _counted_loop(main, counters[2], flag, 4, innermost)

        def outer() -> None:
            _counted_loop(main, counters[1], flag, 4, middle)

        _counted_loop(main, counters[0], flag, 4, outer)
    main.store(color, main.construct(vec(4), total))
    main.ret()
    return module


def build_chain(helpers: int) -> Module:
    module, fragment = _module_with_vertex()
    fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    cell = record("Cell", [("color", vec(4)), ("weight", FLOAT)])
    cells = fragment.output("cells", ArrayType(cell, helpers), location=1)
    color_ref = _root(fragment, 0)
    builders = [fragment.function(f"helper_{k}", VOID) for k in range(helpers)]
    for k, helper in enumerate(builders):
        value = helper.construct(vec(4), helper.f(float(k)))
        helper.store(member(element(cells, k), "color"), value)
        helper.store(member(element(cells, k), "weight"), helper.f(1.0))
        if k > 0:
            helper.load(member(element(cells, k - 1), "color"))
        if k + 1 < helpers:
            helper.call(builders[k + 1].function)
        helper.ret()
    main = fragment.function("fragment_main", VOID, entry=True)
    main.call(builders[0].function)
    main.store(color_ref, main.load(member(element(cells, helpers - 1), "color")))
    main.ret()
    return module


def build_outputs(count: int) -> Module:
    module, fragment = _module_with_vertex()
    fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    cell = record("Cell", [("color", vec(4)), ("weight", FLOAT)])
    cells = fragment.output("cells", ArrayType(cell, count), location=1)
    main = fragment.function("fragment_main", VOID, entry=True)
    flag = main.register(BOOL)
    index = main.register(INT)
    value = main.construct(vec(4), main.f(0.5))
    for k in range(count):
        main.store(member(element(cells, k), "color"), value)
        main.store(member(element(cells, k), "weight"), main.f(1.0))
    total = main.copy(main.f(0.0))

    def body() -> None:
        weight = main.load(member(element(cells, index), "weight"))
        main.add(total, weight, result=total)
        main.store(member(element(cells, index), "color"), value)  # dynamic: establishes nothing

    _counted_loop(main, index, flag, count, body)
    main.store(_root(fragment, 0), main.construct(vec(4), total))
    main.ret()
    return module


def _root(fragment: StageBuilder, slot: int):
    from vpl_core.ir.values import ReferenceValue, StorageKind

    return ReferenceValue(StorageKind.STAGE, slot, fragment.stage.interface[slot].type)


def _best(action: Callable[[], None], repeat: int) -> float:
    # CPU time of this process: other jobs sharing the machine distort wall time.
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        action()
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the base sizes")
    arguments = parser.parse_args()
    shapes = [
        ("loops", "blocks", build_loops, 1000),
        ("chain", "helpers", build_chain, 200),
        ("outputs", "records", build_outputs, 2500),
    ]
    verifier = Verifier()
    print(f"{'shape':8} {'size':>14} {'dataflow s':>11} {'ratio':>6} {'Verifier s':>11} {'ratio':>6}")
    for name, unit, build, base in shapes:
        previous: tuple[float, float] | None = None
        for factor in (1, 2, 4):
            size = int(base * arguments.scale) * factor
            module = build(size)
            layer = _best(lambda: dataflow.check_module(module), arguments.repeat)
            full = _best(lambda: verifier.run(module), arguments.repeat)
            ratios = ("", "") if previous is None else (f"{layer / previous[0]:.2f}", f"{full / previous[1]:.2f}")
            print(f"{name:8} {size:>7} {unit:<6} {layer:>11.4f} {ratios[0]:>6} {full:>11.4f} {ratios[1]:>6}")
            previous = (layer, full)


if __name__ == "__main__":
    main()
