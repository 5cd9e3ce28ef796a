"""Benchmark of the text format: read (lex, forms, bind, verify) and write, at 1k, 10k and 100k instructions.

Run: ``.venv/bin/python benchmarks/bench_text.py [--sizes 1000 10000 100000] [--repeat 3]``

The generated modules are valid: a vertex stage transforming a position by
a scene matrix, and a fragment stage whose entry calls several helpers;
each helper runs many blocks of branch diamonds and counted loops over a
local array of light records, with member/index reference paths into
uniforms and locals. Instruction counts include calls and exclude register
declarations and terminators.

Printed per size: best-of-N CPU seconds for each reading phase, for `read`
(all phases) and for `write` (which verifies, writes and reads back), and
the growth ratio against the previous size (10x instructions).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from vpl_core.text import read, write
from vpl_core.text.lexer import decode, tokenize
from vpl_core.text.parser import parse_forms
from vpl_core.text.reader import _Reader, collector_paused
from vpl_core.verify import Verifier

HEADER = """(module 1
  (types
    (type V void) (type F float) (type I int) (type B bool)
    (type C vector float 4) (type P vector float 3) (type M matrix 4 4)
    (type L record "Light" (field "color" C) (field "intensity" F) (field "direction" P))
    (type Ls array L 4)
    (type S record "Scene" (field "model" M) (field "tint" C) (field "time" F)))
  (uniforms (record scene "scene" S) (array lights "lights" L 4))
  (vertex main
    (interface (in position "position" P 0 none) (out clip "clip" C -1 position))
    (functions
      (function main "main" V (parameters) (registers (register r0 P) (register r1 C) (register r2 M))
        (block entry
          (load r0 (stage position)) (construct r1 r0 (float 1.0))
          (load r2 (member_ref (uniform scene) "model")) (multiply r1 r2 r1)
          (store (stage clip) r1) (return)))))
  (fragment main
    (interface (out color "color" C 0 fragment_color))
    (functions
"""

HELPER_PROLOGUE = """      (function h{index} "helper {index}" C
        (parameters (parameter color C) (parameter weight F))
        (registers
          (register r0 C) (register r1 F) (register r2 I) (register r3 B)
          (register r4 L) (register r5 Ls) (register r6 C) (register r7 F))
        (block entry
          (load r0 (parameter color)) (load r1 (parameter weight)) (copy r2 (int 0)) (copy r3 (bool false))
          (load r4 (index_ref (uniform lights) (int 0))) (load r5 (uniform lights))
          (construct r6 (float 0.5)) (copy r7 (float 0.25)) (branch s0))
"""
HELPER_PROLOGUE_INSTRUCTIONS = 8


def diamond(segment: int) -> tuple[str, int]:
    light = segment % 4
    return (
        f"""        (block s{segment} (less r3 r1 (float {segment}.5)) (branch_if r3 s{segment}t s{segment}e))
        (block s{segment}t
          (add r0 r0 r6) (multiply r7 r7 r1)
          (load r6 (member_ref (index_ref (uniform lights) (int {light})) "color"))
          (swizzle r1 r6 "y") (branch s{segment + 1}))
        (block s{segment}e
          (subtract r0 r0 r6) (load r1 (member_ref (uniform scene) "time"))
          (store (member_ref (index_ref (local r5) (int {light})) "intensity") r7)
          (divide r7 r7 (float 1.5)) (branch s{segment + 1}))
""",
        9,
    )


def loop(segment: int) -> tuple[str, int]:
    return (
        f"""        (block s{segment} (copy r2 (int 0)) (branch s{segment}h))
        (block s{segment}h (less r3 r2 (int 4)) (branch_if r3 s{segment}b s{segment + 1}))
        (block s{segment}b
          (load r4 (index_ref (local r5) r2)) (member r6 r4 "color") (add r0 r0 r6)
          (store (member_ref (index_ref (local r5) r2) "intensity") r1)
          (add r2 r2 (int 1)) (branch s{segment}h))
""",
        7,
    )


def module_text(instruction_count: int) -> tuple[str, int]:
    """A valid module with about `instruction_count` instructions; returns (text, exact count)."""
    helper_count = max(4, instruction_count // 1000)
    per_helper = max(1, (instruction_count - 8 - 2 * helper_count) // helper_count)
    parts = [HEADER]
    entry_calls = " ".join(f"(call r0 h{index} r0 r1)" for index in range(helper_count))
    parts.append(
        '      (function main "main" V (parameters) (registers (register r0 C) (register r1 F))\n'
        f"        (block entry (construct r0 (float 0.0)) (copy r1 (float 1.0)) {entry_calls}\n"
        "          (store (stage color) r0) (return)))\n"
    )
    total = 4 + 3 + helper_count  # vertex entry + fragment entry
    for index in range(helper_count):
        parts.append(HELPER_PROLOGUE.format(index=index))
        count = HELPER_PROLOGUE_INSTRUCTIONS
        segment = 0
        while count < per_helper:
            text, size = (diamond if segment % 3 else loop)(segment)
            parts.append(text)
            count += size
            segment += 1
        parts.append(f"        (block s{segment} (return r0)))\n")
        total += count
    parts.append(")))\n")
    return "".join(parts), total


def best_of(repeat: int, action: Callable[[], object]) -> float:
    """Best CPU time of `repeat` runs: on a shared machine wall time mostly measures the neighbours."""
    best = float("inf")
    for _ in range(repeat):
        with collector_paused():  # as read and write do, so that the phases add up
            start = time.process_time()
            action()
            best = min(best, time.process_time() - start)
    return best


def measure(instruction_count: int, repeat: int) -> dict[str, float]:
    text, exact = module_text(instruction_count)
    data = text.encode("utf-8")
    source = decode(data, "bench.vpl")
    tokens = tokenize(source)
    top = parse_forms(source, tokens)
    module = read(data)
    results = {
        "instructions": exact,
        "bytes": len(data),
        "tokens": len(tokens),
        "lex": best_of(repeat, lambda: tokenize(decode(data, "bench.vpl"))),
        "forms": best_of(repeat, lambda: parse_forms(source, tokens)),
        "bind": best_of(repeat, lambda: _Reader(source, False).read_module(top)),
        "verify": best_of(repeat, lambda: Verifier().run(module)),
        "read": best_of(repeat, lambda: read(data, "bench.vpl")),
        "write": best_of(repeat, lambda: write(module)),
    }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    columns = ["lex", "forms", "bind", "verify", "read", "write"]
    print(f"{'instr':>8} {'bytes':>9} {'tokens':>8} " + " ".join(f"{name:>8}" for name in columns) + "  (CPU seconds, best of "
          f"{arguments.repeat})")
    previous: dict[str, float] | None = None
    for size in arguments.sizes:
        results = measure(size, arguments.repeat)
        print(
            f"{results['instructions']:>8} {results['bytes']:>9} {results['tokens']:>8} "
            + " ".join(f"{results[name]:>8.4f}" for name in columns)
        )
        if previous is not None:
            growth = results["instructions"] / previous["instructions"]
            ratios = " ".join(f"{results[name] / previous[name]:>8.2f}" for name in columns)
            print(f"{'growth':>8} {'x' + format(growth, '.1f'):>9} {'':>8} {ratios}")
        previous = results


if __name__ == "__main__":
    main()
