"""Generated VPL modules that stress one dimension each, and an operation counter for growth tests.

Each `*_module(n)` returns valid module text whose size grows linearly in `n`
along one axis the pipeline must handle in linear time (issue 20 item 2,
issue 23): functions in a call chain, fields of one record (with a member
access per field), varyings, uniforms, blocks, registers, and records nested
`n` deep. `benchmarks/bench_pipeline.py` prints their growth per stage; the
growth tests count operations at two sizes in one run (never seconds).

`count_steps(action)` counts the Python lines and calls `action` executes (a
`sys.settrace` hook): deterministic, independent of machine load, and
proportional to the work of pure-Python code like ours.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

_TYPES = """  (types (type V void) (type F float) (type C vector float 4) (type I int) (type B bool){extra})"""

_VERTEX = """  (vertex vmain
    (interface (in position "position" C 0 none) (out clip "clip" C -1 position){outputs})
    (functions
      (function vmain "vertex_main" V (parameters) (registers (register r0 C) (register r1 F))
        (block entry (load r0 (stage position)) (store (stage clip) r0){stores} (return)))))"""


def _module(*, types: str = "", uniforms: str = "", vertex_outputs: str = "", vertex_stores: str = "",
            fragment_inputs: str = "", fragment_functions: str) -> str:
    return "\n".join(
        [
            "(module 1",
            _TYPES.format(extra=types),
            f"  (uniforms{uniforms})",
            _VERTEX.format(outputs=vertex_outputs, stores=vertex_stores),
            "  (fragment fmain",
            f'    (interface (out color "color" C 0 fragment_color){fragment_inputs})',
            f"    (functions\n{fragment_functions})))",
        ]
    ) + "\n"


def _main(registers: str, body: str) -> str:
    return (
        f'      (function fmain "fragment_main" V (parameters) (registers (register r0 C) (register r1 F){registers})\n'
        f"        (block entry {body} (construct r0 r1) (store (stage color) r0) (return)))"
    )


def calls_module(count: int) -> str:
    """A chain of `count` helper functions, each calling the next (8,000 took 13 s per target)."""
    helpers = []
    for index in range(count):
        call = f"(call r0 h{index + 1} r0) " if index + 1 < count else ""
        helpers.append(
            f'      (function h{index} "helper {index}" F (parameters (parameter p F)) (registers (register r0 F))\n'
            f"        (block entry (load r0 (parameter p)) {call}(add r0 r0 (float 1.0)) (return r0)))"
        )
    main = _main("", "(copy r1 (float 0.5)) (call r1 h0 r1)")
    return _module(fragment_functions="\n".join([main, *helpers]))


def fields_module(count: int) -> str:
    """One record of `count` float fields, constructed, and one member extraction per field."""
    fields = "".join(f' (field "f{index}" F)' for index in range(count))
    arguments = " ".join("(float 1.0)" for _ in range(count))
    members = " ".join(f'(member r3 r2 "f{index}") (add r1 r1 r3)' for index in range(count))
    body = f"(copy r1 (float 0.0)) (construct r2 {arguments}) {members}"
    main = _main(" (register r2 R) (register r3 F)", body)
    return _module(types=f'\n    (type R record "Big"{fields})', fragment_functions=main)


def varyings_module(count: int) -> str:
    """`count` float varyings (unspecified locations), written by the vertex stage, summed by the fragment stage."""
    outputs = "".join(f' (out v{index} "v{index}" F -1 none)' for index in range(count))
    stores = "".join(f" (store (stage v{index}) r1)" for index in range(count))
    inputs = "".join(f' (in v{index} "v{index}" F -1 none)' for index in range(count))
    loads = " ".join(f"(load r2 (stage v{index})) (add r1 r1 r2)" for index in range(count))
    main = _main(" (register r2 F)", f"(copy r1 (float 0.0)) {loads}")
    return _module(
        vertex_outputs=outputs,
        vertex_stores=f" (copy r1 (float 0.5)){stores}",
        fragment_inputs=inputs,
        fragment_functions=main,
    )


def uniforms_module(count: int) -> str:
    """`count` float uniforms, each loaded and summed by the fragment entry."""
    uniforms = "".join(f' (scalar u{index} "u{index}" F)' for index in range(count))
    loads = " ".join(f"(load r2 (uniform u{index})) (add r1 r1 r2)" for index in range(count))
    main = _main(" (register r2 F)", f"(copy r1 (float 0.0)) {loads}")
    return _module(uniforms=uniforms, fragment_functions=main)


def blocks_module(count: int) -> str:
    """A fragment entry of `count` blocks, each adding and branching to the next (dispatch lowering)."""
    blocks = [
        f"        (block b{index} (add r1 r1 (float 1.0)) (less r2 r1 (float 1000000.0)) (branch_if r2 b{index + 1} b{count}))"
        for index in range(count)
    ]
    return _module(
        fragment_functions=(
            '      (function fmain "fragment_main" V (parameters) (registers (register r0 C) (register r1 F) (register r2 B))\n'
            "        (block entry (copy r1 (float 0.0)) (branch b0))\n"
            + "\n".join(blocks)
            + f"\n        (block b{count} (construct r0 r1) (store (stage color) r0) (return)))"
        )
    )


def registers_module(count: int) -> str:
    """A fragment entry declaring `count` float registers, each assigned and summed."""
    registers = "".join(f" (register r{index + 10} F)" for index in range(count))
    body = " ".join(f"(copy r{index + 10} (float 1.0)) (add r1 r1 r{index + 10})" for index in range(count))
    return _module(fragment_functions=_main(registers, f"(copy r1 (float 0.0)) {body}"))


def nested_record_types(depth: int) -> str:
    """Type declarations R0 .. R<depth>: R<k> = record (float, R<k-1>), the case std140 took exponential time on."""
    lines = ['\n    (type R0 record "R0" (field "x" F))']
    lines += [f'\n    (type R{level} record "R{level}" (field "x" F) (field "inner" R{level - 1}))' for level in range(1, depth + 1)]
    return "".join(lines)


def nested_uniform_module(depth: int) -> str:
    """A record uniform nested `depth` levels deep (the spec allows 128 type edges), read by the fragment entry."""
    path = "(uniform u)"
    for _ in range(depth):
        path = f'(member_ref {path} "inner")'
    path = f'(member_ref {path} "x")'
    main = _main("", f"(load r1 {path})")
    return _module(
        types=nested_record_types(depth), uniforms=f' (record u "deep" R{depth})', fragment_functions=main
    )


SHAPES: dict[str, Callable[[int], str]] = {
    "calls": calls_module,
    "fields": fields_module,
    "varyings": varyings_module,
    "uniforms": uniforms_module,
    "blocks": blocks_module,
    "registers": registers_module,
}
"""Shape name -> generator; each grows linearly in its argument."""


def count_steps(action: Callable[[], Any]) -> int:
    """Python lines executed while `action` runs (a `sys.settrace` hook): loops count per iteration.

    Deterministic and independent of machine load. Work done inside C
    (a dict comprehension's hashing, `list.insert`) is not seen, except as
    the lines that call it; the algorithms under test are Python.
    """
    steps = 0

    def local(frame: Any, event: str, argument: Any) -> Any:
        nonlocal steps
        if event == "line":
            steps += 1
        return local

    def global_trace(frame: Any, event: str, argument: Any) -> Any:
        nonlocal steps
        steps += 1  # the call itself
        return local

    previous = sys.gettrace()
    sys.settrace(global_trace)
    try:
        action()
    finally:
        sys.settrace(previous)
    return steps


def growth(action: Callable[[int], Any], small: int, factor: int = 10) -> float:
    """Ratio of the steps of `action(factor * small)` to those of `action(small)` (linear: about `factor`)."""
    return count_steps(lambda: action(small * factor)) / count_steps(lambda: action(small))
