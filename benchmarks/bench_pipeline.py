"""Pipeline benchmark: `vpl compile` against `glslangValidator -l`, start-up, growth per stage.

Everything is measured in one run, so the ratios compare like with like on
whatever the machine is doing (the load average is printed with them):

1. **compile vs glslang**: for generated modules of about 1k, 10k and 100k
   instructions (`bench_glsl.generate_module`, the generator of the first
   figures), `vpl compile FILE --out DIR` as a process (start-up
   included) and `glslangValidator -l` on the GLSL it wrote, interleaved run
   by run; medians of wall and CPU time, and their ratios. Each module is
   measured as generated (hand-written spelling: the publication must read
   its canonical text back) and in canonical form (as the editor and
   `vpl fmt` write files: the first read serves as the read-back).
2. **start-up**: `python -c pass` (the same interpreter), `vpl --version` and
   `vpl check` of a small file, interleaved; the in-process time of the
   check's work (read and verify), and what is left over.
3. **growth per stage**: CPU time of each stage at 1k, 10k and 100k
   instructions and the ratio per 10x (the bound: at most 11x; each
   stage's sizes are measured in turn, round by round, best of the rounds):
   lex, forms, the reader's one-pass scan (lex and forms together), the
   position-free scan of plain text, bind (one register object per use, and
   shared as `compile_source` binds), verify (structure, data flow), write,
   publish, materialize, generate (restrictions, locations, emission),
   `compile_source` as a whole (in-process); lowering of
   material graphs of 100, 1,000 and 10,000 nodes (the wall time of each of
   `lower()`'s phases, and the CPU time of all of it); and the one-axis shapes
   of the growth tests (functions, record fields, varyings, uniforms, blocks,
   registers) at 300 and 3,000.

4. **shapes** (`--sections 4`, not run by default): section 1 and the
   stages of section 3 for modules of other shapes at `--shape-sizes`
   (default 1k and 10k instructions, about): `straight` (one block of
   arithmetic), `helper chains` (helpers of 40 instructions calling each
   other, called from an arithmetic chain), `branches+loops` (units of a
   counted loop and an if/else), `wide uniforms` (record uniforms of 48
   vec4 fields, arrays of records and of vectors, read field by field),
   `small functions` (thousands of four-instruction functions) and `tiled
   example` (the lowering of the largest example material, its fragment
   functions copied until the size is reached), beside `benchmark` (the
   generator of section 1). Goal: at most 2.5x glslang's CPU time at 10k
   for every shape and both spellings; growth per 10x at most 11x.

Benchmarks print; no test asserts a time. The figures in docs/performance.md
come from this script.

Run: ``.venv/bin/python benchmarks/bench_pipeline.py [--sizes 1000 10000 100000] [--repeat 5] [--quick] [--sections 1 2 3 4]
[--shapes ...] [--shape-sizes 1000 10000]``
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "vpl_core"))

from bench_glsl import HEADER, _instruction, generate_module  # noqa: E402
from growth_support import SHAPES, count_steps  # noqa: E402

from vpl_core.backends.glsl import GLSL420, UNLIMITED, compile_source, generate  # noqa: E402
from vpl_core.backends.glsl.locations import resolve_interfaces  # noqa: E402
from vpl_core.backends.glsl.restrictions import check_module  # noqa: E402
from vpl_core.ir.clone import clone_module  # noqa: E402
from vpl_core.publish import VerifiedModule  # noqa: E402
from vpl_core.text import read, write  # noqa: E402
from vpl_core.text.lexer import decode, tokenize  # noqa: E402
from vpl_core.text.parser import parse_forms, parse_source, parse_unpositioned  # noqa: E402
from vpl_core.text.reader import _Reader, _SharingReader  # noqa: E402
from vpl_core.text.writer import _Writer  # noqa: E402
from vpl_core.verify import dataflow, structure  # noqa: E402

VPL = Path(sys.executable).with_name("vpl")


# Shapes: generated modules of about N instructions, each stressing another part of the pipeline ---------------


def _arithmetic(step: int) -> str:
    """`bench_glsl`'s instruction pattern over r0-r5 (vec4), r6-r8 (float), without its helper call."""
    instruction = _instruction(step)
    return instruction if not instruction.startswith("(call") else f"(multiply r{step % 6} r{step % 6} r{(step + 2) % 6})"


_SHAPE_REGISTERS = (
    "(registers" + "".join(f" (register r{index} Vec4)" for index in range(6))
    + "".join(f" (register r{index} Float)" for index in range(6, 9))
    + " (register r9 Bool) (register r10 Vec2) (register r11 Int))"
)
_SHAPE_PROLOGUE = ("(load r10 (stage uv)) (load r0 (uniform tint)) (load r6 (uniform scale))"
                   " (construct r1 r10 (float 0.0) (float 1.0)) (copy r2 r0) (copy r3 r1) (copy r4 r0) (copy r5 r1)"
                   " (copy r7 (float 0.5)) (copy r8 (float 0.25)) (copy r9 (bool false)) (copy r11 (int 0))")


def _shape_module(main_blocks: str, helpers: str = "", uniforms: str = "", types: str = "") -> str:
    """`bench_glsl`'s header (extra types and uniforms added) with this fragment entry and these helpers."""
    header = HEADER.replace("(type Vec4 vector float 4))", f"(type Vec4 vector float 4) (type Int int){types})")
    header = header.replace('(scalar scale "scale" Float))', f'(scalar scale "scale" Float){uniforms})')
    main = (f'      (function main "fragment_main" Void (parameters)\n        {_SHAPE_REGISTERS}\n{main_blocks})\n')
    return header + main + helpers + ")))\n"


def straight_module(instructions: int) -> str:
    """One block of arithmetic: no calls, no branches."""
    body = "\n".join(f"          {_arithmetic(step)}" for step in range(instructions))
    return _shape_module(f"        (block entry {_SHAPE_PROLOGUE}\n{body}\n          (store (stage color) r0) (return))")


def helper_chain_module(instructions: int) -> str:
    """Helpers of 40 instructions, each calling the one before, and an entry whose arithmetic calls them in turn."""
    helpers_count = max(1, instructions // 90)
    helpers = []
    for index in range(helpers_count):
        body = " ".join(_arithmetic(step) for step in range(index, index + 40))
        call = f"(call r0 h{index - 1} r0 r6) " if index else ""
        helpers.append(
            f'      (function h{index} "helper {index}" Vec4 (parameters (parameter value Vec4) (parameter amount Float))\n'
            f"        {_SHAPE_REGISTERS}\n"
            f"        (block entry {_SHAPE_PROLOGUE.replace('(load r0 (uniform tint))', '(load r0 (parameter value))')}"
            f" (load r6 (parameter amount)) {call}{body} (return r0)))\n"
        )
    steps = []
    for step in range(max(1, instructions - 45 * helpers_count)):
        steps.append(f"(call r{step % 6} h{step % helpers_count} r{(step + 1) % 6} r{6 + step % 3})" if step % 5 == 0
                     else _arithmetic(step))
    body = "\n".join(f"          {step}" for step in steps)
    return _shape_module(f"        (block entry {_SHAPE_PROLOGUE}\n{body}\n          (store (stage color) r0) (return))",
                         "".join(helpers))


def branches_loops_module(instructions: int) -> str:
    """Units of a counted loop (three turns) and an if/else diamond, about 22 instructions each."""
    units = max(1, instructions // 22)
    blocks = [f"        (block entry {_SHAPE_PROLOGUE} (branch h0))"]
    step = 0

    def arithmetic(count: int) -> str:
        nonlocal step
        text = " ".join(_arithmetic(step + offset) for offset in range(count))
        step += count
        return text

    for unit in range(units):
        blocks += [
            f"        (block h{unit} (copy r11 (int 0)) (branch t{unit}))",
            f"        (block t{unit} (less r9 r11 (int 3)) (branch_if r9 l{unit} d{unit}))",
            f"        (block l{unit} {arithmetic(6)} (add r11 r11 (int 1)) (branch t{unit}))",
            f"        (block d{unit} (less r9 r6 (float 0.5)) (branch_if r9 a{unit} e{unit}))",
            f"        (block a{unit} {arithmetic(4)} (branch j{unit}))",
            f"        (block e{unit} {arithmetic(4)} (branch j{unit}))",
            f"        (block j{unit} {arithmetic(2)} (branch h{unit + 1}))",
        ]
    blocks.append(f"        (block h{units} (store (stage color) r0) (return))")
    return _shape_module("\n".join(blocks))


#: Fields of the wide record (vec4 each) and of the record in uniform arrays; the arrays' length.
WIDE_FIELDS, ELEMENT_FIELDS, ARRAY_LENGTH = 48, 8, 4


def wide_uniforms_module(instructions: int) -> str:
    """Record uniforms of 48 vec4 fields, arrays of records and of vectors, read field by field and summed."""
    types = ('\n    (type Wide record "Wide"' + "".join(f' (field "f{index}" Vec4)' for index in range(WIDE_FIELDS)) + ")"
             + '\n    (type Element record "Element"' + "".join(f' (field "e{index}" Vec4)' for index in range(ELEMENT_FIELDS))
             + ' (field "weight" Float))')
    uniforms = ("".join(f' (record w{index} "wide {index}" Wide)' for index in range(4))
                + "".join(f' (array a{index} "elements {index}" Element {ARRAY_LENGTH})' for index in range(2))
                + ' (array v "vectors" Vec4 32)')
    steps = []
    for step in range(max(1, instructions // 2)):
        kind = step % 4
        if kind < 2:
            path = f'(member_ref (uniform w{step % 4}) "f{step % WIDE_FIELDS}")'
        elif kind == 2:
            path = f'(member_ref (index_ref (uniform a{step % 2}) (int {step % ARRAY_LENGTH})) "e{step % ELEMENT_FIELDS}")'
        else:
            path = f"(index_ref (uniform v) (int {step % 32}))"
        steps.append(f"(load r1 {path}) (add r0 r0 r1)")
    body = "\n".join(f"          {step}" for step in steps)
    return _shape_module(f"        (block entry {_SHAPE_PROLOGUE}\n{body}\n          (store (stage color) r0) (return))",
                         uniforms=uniforms, types=types)


def small_functions_module(instructions: int) -> str:
    """Many functions of four instructions, each called once by the entry."""
    count = max(1, instructions // 5)
    helpers = "".join(
        f'      (function g{index} "small {index}" Float (parameters (parameter p Float)) (registers (register r0 Float))\n'
        f"        (block entry (load r0 (parameter p)) (multiply r0 r0 (float 1.01)) (add r0 r0 (float {index % 97 / 1000!r}))"
        f" (return r0)))\n"
        for index in range(count))
    body = "\n".join(f"          (call r6 g{index} r6)" for index in range(count))
    return _shape_module(
        f"        (block entry {_SHAPE_PROLOGUE}\n{body}\n          (multiply r0 r0 r6) (store (stage color) r0) (return))",
        helpers)


_LARGEST_EXAMPLE: list[str] = []


def largest_example_text() -> str:
    """The lowering of the example material with the most instructions (the editor's own output)."""
    if not _LARGEST_EXAMPLE:
        from app.material.examples import example_names, load_example
        from app.material.lowering import lower

        texts = []
        for name in example_names():
            result = lower(load_example(name).graph)
            if result.ok:
                texts.append(result.text)
        _LARGEST_EXAMPLE.append(max(texts, key=lambda text: text.count("\n          (")))
    return _LARGEST_EXAMPLE[0]


def tiled_example_module(instructions: int) -> str:
    """The largest example's lowering with its fragment functions copied until about `instructions`.

    Copy c renames the stage's functions (ids `f<k>` and display names) and its entry becomes a void helper
    the real entry calls first: every copy is live and writes the output before the original does.
    """
    import re

    text = largest_example_text()
    head, fragment = text.split("\n  (fragment ", 1)
    start = fragment.index("    (functions\n") + len("    (functions\n")
    interface, functions = fragment[:start], fragment[start:].rstrip()
    if not functions.endswith(")))"):
        raise SystemExit("the example's lowering does not end as expected")
    functions = functions[:-3]
    ids = sorted({int(number) for number in re.findall(r"\(function f(\d+) ", functions)})
    per_copy = sum(1 for line in functions.splitlines() if line.startswith("          ("))
    copies = max(1, round(instructions / max(1, per_copy)))
    tiles = []
    for copy in range(1, copies):
        offset = copy * (max(ids) + 1)
        tile = re.sub(r"\bf(\d+)\b", lambda match, offset=offset: f"f{int(match.group(1)) + offset}", functions)
        tile = re.sub(r'\(function (f\d+) "([^"]*)"', lambda match, copy=copy: f'(function {match.group(1)} "{match.group(2)} {copy}"',
                      tile)
        tiles.append(tile)
    calls = "".join(f" (call void f{copy * (max(ids) + 1)})" for copy in range(1, copies))
    entry = re.search(r'\(function f0 "[^"]*"[^\n]*\n(?:[^\n]*\n)*?\s*\(block \S+', functions)
    if entry is None:
        raise SystemExit("the example's fragment entry has no block")
    functions = functions[:entry.end()] + calls + functions[entry.end():]
    return head + "\n  (fragment " + interface + "\n".join([functions, *tiles]) + ")))\n"


PIPELINE_SHAPES: dict[str, Callable[[int], str]] = {
    "benchmark": generate_module,
    "straight": straight_module,
    "helper chains": helper_chain_module,
    "branches+loops": branches_loops_module,
    "wide uniforms": wide_uniforms_module,
    "small functions": small_functions_module,
    "tiled example": tiled_example_module,
}
"""Shape name -> generator of module text of about N instructions (`benchmark` is `bench_glsl`'s)."""


def instruction_count(text: str) -> int:
    module = read(text)
    return sum(len(block.instructions) for _, function in module.functions() for block in function.blocks)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return (
        f"{platform.node()}: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; load average {load}"
    )


def run_process(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run; fails loudly if the command fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{completed.stdout}{completed.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def interleaved(commands: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) per command, the commands run in turn, `repeat` rounds."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            samples[name].append(run_process(command))
    return {
        name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for name, runs in samples.items()
    }


def cpu_best(action: Callable[[], object], repeat: int) -> float:
    """Best CPU seconds of `repeat` runs with the cyclic collector paused (as the `vpl` command runs)."""
    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        try:
            started = time.process_time()
            action()
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
        gc.collect()
    return best


# 1. compile vs glslang -------------------------------------------------------------------------


def compile_versus_glslang(sizes: list[int], repeat: int, validator: str, directory: Path,
                           shapes: dict[str, Callable[[int], str]] | None = None) -> None:
    shapes = shapes or {"benchmark": generate_module}
    print("\n1. `vpl compile` (a process, start-up included) vs `glslangValidator -l` on its output;")
    print(f"   medians of {repeat} interleaved runs; ms wall / ms CPU; ratio = vpl / glslang (goal: CPU ratio <= 2.5 at 10k)")
    print(f"   {'shape':<16}{'instructions':>12} {'form':>10} {'vpl wall':>9} {'vpl CPU':>8} {'glslang wall':>13}"
          f" {'glslang CPU':>12} {'ratio wall':>11} {'ratio CPU':>10}")
    for shape, generator in shapes.items():
        for size in sizes:
            text = generator(size)
            module = read(text)
            count = sum(len(block.instructions) for _, function in module.functions() for block in function.blocks)
            for form, source in (("generated", text), ("canonical", write(module))):
                stem = f"{shape.replace(' ', '_').replace('+', '_')}-{size}-{form}"
                path = directory / f"{stem}.vpl"
                path.write_text(source, encoding="utf-8")
                out = directory / f"out-{stem}"
                commands = {
                    "vpl": [str(VPL), "compile", str(path), "--out", str(out)],
                    "glslang": [validator, "-l", str(out / f"{stem}.vert.glsl"), str(out / f"{stem}.frag.glsl")],
                }
                run_process(commands["vpl"])  # writes the files glslang reads
                result = interleaved(commands, repeat)
                (vpl_wall, vpl_cpu), (glslang_wall, glslang_cpu) = result["vpl"], result["glslang"]
                print(
                    f"   {shape:<16}{count:>12} {form:>10} {vpl_wall * 1e3:>9.0f} {vpl_cpu * 1e3:>8.0f}"
                    f" {glslang_wall * 1e3:>13.0f} {glslang_cpu * 1e3:>12.0f} {vpl_wall / glslang_wall:>11.2f}"
                    f" {vpl_cpu / glslang_cpu:>10.2f}", flush=True
                )


# 2. start-up -----------------------------------------------------------------------------------


def start_up(repeat: int) -> None:
    small = ROOT / "tests" / "data" / "spec" / "loop-and-helper.vpl"
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "vpl --version": [str(VPL), "--version"],
        "vpl check (small)": [str(VPL), "check", str(small)],
    }
    result = interleaved(commands, repeat)
    data = small.read_bytes()
    work = cpu_best(lambda: read(data, str(small)), 20)
    base_wall, base_cpu = result["python -c pass"]
    print(f"\n2. start-up, medians of {repeat} interleaved runs (ms wall / ms CPU; ratios to `python -c pass`)")
    print(f"   {'command':<20} {'wall':>7} {'CPU':>7} {'x wall':>7} {'x CPU':>7}")
    for name, (wall, cpu) in result.items():
        print(f"   {name:<20} {wall * 1e3:7.1f} {cpu * 1e3:7.1f} {wall / base_wall:7.2f} {cpu / base_cpu:7.2f}")
    check_wall, check_cpu = result["vpl check (small)"]
    print(
        f"   the check's work in-process (read + verify): {work * 1e3:.1f} ms CPU; goal: check < 2 x python + work:"
        f" CPU {(2 * base_cpu + work) * 1e3:.1f} ms, measured {check_cpu * 1e3:.1f} ms"
        f" ({'met' if check_cpu < 2 * base_cpu + work else 'not met'});"
        f" wall {(2 * base_wall + work) * 1e3:.1f} ms, measured {check_wall * 1e3:.1f} ms"
    )


# 3. growth per stage ---------------------------------------------------------------------------


def pipeline_stages(text: str) -> dict[str, Callable[[], object]]:
    source = decode(text, "bench.vpl")
    token_list = tokenize(source)
    top = parse_forms(source, token_list)
    module = read(text)
    published = VerifiedModule.create(module)
    return {
        "lex": lambda: tokenize(decode(text, "bench.vpl")),
        "forms": lambda: parse_forms(source, token_list),
        "scan (1 pass)": lambda: parse_source(decode(text, "bench.vpl")),  # lex + forms as the reader does them
        "scan (plain)": lambda: parse_unpositioned(text),  # no positions: the reads of `read` and `compile_source`
        "bind": lambda: _Reader(source, False).read_module(top),
        "bind (shared)": lambda: _SharingReader(source, False).read_module(top),  # `compile_source`'s binding
        "structure": lambda: structure.check_module(module),
        "dataflow": lambda: dataflow.check_module(module),
        "emit text": lambda: _Writer(module).write(),
        "write": lambda: write(module),
        "publish": lambda: VerifiedModule.create(module),
        "clone": lambda: clone_module(module),
        "materialize": published.materialize,
        "restrictions": lambda: check_module(module, GLSL420),
        "locations": lambda: resolve_interfaces(module),
        "generate": lambda: generate(module, GLSL420, UNLIMITED),
        "compile_source": lambda: compile_source(text, "bench.vpl"),
    }


def print_growth(title: str, sizes: list[int], rows: dict[str, list[float]]) -> None:
    print(f"\n{title}")
    header = "".join(f"{size:>10}" for size in sizes)
    ratios = "".join(f"{f'x{b}/{a}':>10}" for a, b in itertools.pairwise(sizes))
    print(f"   {'stage':<14}{header}{ratios}   (CPU ms, best of N; ratio per step; bound 11x per 10x)")
    for stage, values in rows.items():
        cells = "".join(f"{value * 1e3:>10.1f}" for value in values)
        growth = "".join(f"{(b / a if a > 0 else float('nan')):>10.1f}" for a, b in itertools.pairwise(values))
        worst = max((b / a for a, b in itertools.pairwise(values) if a > 0.0005), default=0.0)
        flag = "  <-- over 11x" if worst > 11 else ""
        print(f"   {stage:<14}{cells}{growth}{flag}")


def stage_times(generator: Callable[[int], str], sizes: list[int], repeat: int) -> dict[str, list[float]]:
    """Best CPU seconds of each stage at each size, the sizes of one stage measured in turn, round by round.

    A stage's sizes are measured in the same seconds, so a change of the machine's load while the benchmark
    runs moves both sides of a growth ratio alike (measured size after size, a ratio compared two moments).
    Sizes of 50,000 and more get half the rounds (at least one).
    """
    stages = {size: pipeline_stages(generator(size)) for size in sizes}
    rows: dict[str, list[float]] = {}
    for stage in stages[sizes[0]]:
        best = [float("inf")] * len(sizes)
        for round_number in range(repeat):
            for position, size in enumerate(sizes):
                if size < 50_000 or round_number < max(1, repeat // 2):
                    best[position] = min(best[position], cpu_best(stages[size][stage], 1))
        rows[stage] = best
    return rows


def growth_pipeline(sizes: list[int], repeat: int) -> None:
    rows = stage_times(generate_module, sizes, repeat)
    print_growth("3a. growth per stage, generated modules (instructions as requested)", sizes, rows)


def growth_per_shape(sizes: list[int], repeat: int, shapes: dict[str, Callable[[int], str]]) -> None:
    """Each stage's CPU time per shape at `sizes` and its growth per step (the bound: 11x per 10x)."""
    for shape, generator in shapes.items():
        print_growth(f"3e. growth per stage, shape '{shape}'", sizes, stage_times(generator, sizes, repeat))


def growth_lowering(sizes: list[int], repeat: int) -> None:
    from bench_lowering import build_graph

    from app.material.graph import MaterialGraph
    from app.material.lowering import lower

    rows: dict[str, list[float]] = {}
    for size in sizes:
        graph = build_graph(size)
        best: dict[str, float] = {}
        for _ in range(repeat if size < 5000 else min(repeat, 3)):  # best of as many runs on both sides of a ratio
            snapshot = MaterialGraph.from_dict(graph.to_dict())
            gc.disable()
            try:
                started = time.process_time()
                result = lower(snapshot)
                cpu = time.process_time() - started
            finally:
                gc.enable()
            if not result.ok:
                raise SystemExit(f"benchmark graph of {size} nodes does not lower: {result.diagnostics[:3]}")
            for phase, seconds in [*result.timings.items(), ("all (CPU)", cpu)]:
                best[phase] = min(best.get(phase, float("inf")), seconds)
        for phase, seconds in best.items():
            rows.setdefault(f"lower:{phase}", []).append(seconds)
    print_growth("3b. growth of material lowering (graph nodes; wall ms of lower()'s phases, CPU ms of all of it)", sizes, rows)


def growth_shapes(small: int, repeat: int) -> None:
    """Steps (deterministic) and CPU time along one axis each; time ratios of small inputs include cache effects."""
    rows: dict[str, list[float]] = {}
    steps: dict[str, list[int]] = {}
    for shape, generator in SHAPES.items():
        for size in (small, small * 10):
            stages = pipeline_stages(generator(size))
            for stage in ("bind", "structure", "dataflow", "emit text", "clone", "locations", "generate"):
                rows.setdefault(f"{shape}:{stage}", []).append(cpu_best(stages[stage], repeat))
                steps.setdefault(f"{shape}:{stage}", []).append(count_steps(stages[stage]))
    print_growth(f"3c. growth along one axis (the growth tests' shapes, {small} and {small * 10})", [small, small * 10], rows)
    print(f"\n3d. the same in Python steps (lines and calls; deterministic, load-independent), x{small * 10}/{small}")
    for stage, (before, after) in steps.items():
        flag = "  <-- over 12x" if after / before > 12 else ""
        print(f"   {stage:<24}{before:>10}{after:>11}{after / before:>8.1f}{flag}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="skip the lowering and shape growth tables")
    parser.add_argument("--sections", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3, 4],
                        help="which sections to run (default: 1 2 3; 4: every shape against glslang and its growth)")
    parser.add_argument("--shapes", nargs="+", choices=list(PIPELINE_SHAPES), default=list(PIPELINE_SHAPES),
                        help="the shapes of section 4")
    parser.add_argument("--startup-rounds", type=int, default=None,
                        help="interleaved rounds of section 2's process starts (default: 4 x --repeat, at least 20)")
    parser.add_argument("--shape-sizes", type=int, nargs="+", default=[1_000, 10_000],
                        help="the sizes of section 4 (instructions, about)")
    arguments = parser.parse_args()
    validator = shutil.which("glslangValidator")
    if validator is None:
        print("glslangValidator not found (Debian package glslang-tools)", file=sys.stderr)
        return 1
    if not VPL.exists():
        print(f"{VPL} not found: run from the project's virtual environment", file=sys.stderr)
        return 1
    print(f"machine: {machine()}")
    # Installed packages (wheels, the bundle) carry bytecode; a checkout run with
    # PYTHONDONTWRITEBYTECODE (set on this machine) would compile every module
    # at every `vpl` start. Compile once, as an installation does, so processes
    # are measured as users run them (__pycache__ is ignored by git).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "vpl_core")], check=True, capture_output=True)
    if 1 in arguments.sections:
        with tempfile.TemporaryDirectory(prefix="vpl-bench-") as directory:
            compile_versus_glslang(arguments.sizes, arguments.repeat, validator, Path(directory))
    if 2 in arguments.sections:
        # Short runs: more rounds for a stable median.
        start_up(arguments.startup_rounds if arguments.startup_rounds is not None else max(arguments.repeat * 4, 20))
    if 3 in arguments.sections:
        growth_pipeline(arguments.sizes, arguments.repeat)
        if not arguments.quick:
            growth_lowering([100, 1_000, 10_000], arguments.repeat)
            growth_shapes(300, arguments.repeat)
    if 4 in arguments.sections:
        shapes = {name: PIPELINE_SHAPES[name] for name in arguments.shapes}
        with tempfile.TemporaryDirectory(prefix="vpl-bench-") as directory:
            compile_versus_glslang(arguments.shape_sizes, arguments.repeat, validator, Path(directory), shapes)
        growth_per_shape(arguments.shape_sizes, arguments.repeat, shapes)
    print(f"\nload average at the end: {', '.join(f'{value:.2f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
