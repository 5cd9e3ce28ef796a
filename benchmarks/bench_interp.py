"""The CPU interpreter's speed: pixels per second for the example materials, and growth with module size.

1. Examples: every shipped example material drawn by `CpuRenderer` (the
   CPU preview's host: default sphere, camera, light, parameters at the
   graph's defaults) at 256x256, untracked (what the CPU preview and
   `vpl run` do) and with precision tracking (what the differential tests
   do). Prints the median time of N frames, frame pixels per second and
   fragment lanes (2x2 quads, helpers included) per second.

2. Growth: full-screen passes at 128x128 of generated modules whose
   fragment stage is a chain of K float operations (K = 100 .. 3200, mixed
   add / multiply / fract / sin / mix on vec4), and of a loop running K/10
   iterations of ten operations. Prints time per module and the ratio to
   the previous size: about 2 for each doubling means linear growth.

3. Surface Output frames on a stage (the `studio` environment, prepared or
   taken from the cache first): the whole CPU preview frame of the
   physically based examples with the plain background colour and with the
   blurred environment behind them, and its parts measured side by side:
   the material pass (interpreter), the environment background (numpy,
   `ibl.prefiltered_radiance`), the post pass in numpy
   (`post.display_colors`) and, for comparison, the same post pass run as
   its VPL module through the interpreter (why the CPU renderer uses numpy).

`--examples NAME ...` draws only those examples in the first and third
tables (the smallest setting: one physically based example, so both tables
and every measured part still run).

No GL needed:
    .venv/bin/python benchmarks/bench_interp.py [--frames N] [--size S] [--only examples|growth|stage] [--examples NAME ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from app.material.examples import example_names, example_path
from app.preview import post
from app.preview.cpu_renderer import CpuRenderer
from app.preview.preview_state import prepare_environment
from app.preview.screenshot import read_program
from app.preview.stage import Stage
from vpl_core.interp import Filter, Program, SamplerState, Texture2D, Wrap, fullscreen_mesh, render
from vpl_core.publish import VerifiedModule

PBR_EXAMPLES = ["painted_metal", "brushed_metal", "polished_gold", "rough_plastic", "glazed_ceramic", "material_chart"]


def _median_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def examples(frames: int, size: int, names: list[str]) -> None:
    print(f"Examples at {size}x{size} (median of {frames} frames)")
    print(f"{'example':<22}{'ms':>8}{'Mpixel/s':>10}{'lanes':>8}{'Mlane/s':>9}{'tracked ms':>12}")
    for name in names:
        verified, specs = read_program(str(example_path(name)))
        renderer = CpuRenderer()
        renderer.set_program(verified)
        for spec in specs:
            if spec.default is not None and not isinstance(spec.default, str):
                renderer.set_parameter(spec.name, spec.default)
        result = renderer.render_result(size, size)
        lanes = result.stats["lanes"]
        seconds = _median_time(lambda: renderer.render_image(size, size), frames)
        tracked = _median_time(lambda: renderer.render_result(size, size, tracked=True), max(1, frames // 2))
        print(f"{name:<22}{seconds * 1000:>8.0f}{size * size / seconds / 1e6:>10.2f}{lanes:>8}{lanes / seconds / 1e6:>9.2f}"
              f"{tracked * 1000:>12.0f}")


def chain_module(operations: int) -> str:
    lines = []
    kinds = ("add", "multiply", "fract", "sin", "mix")
    for index in range(operations):
        kind = kinds[index % len(kinds)]
        if kind == "add":
            lines.append("(add r1 r1 r2)")
        elif kind == "multiply":
            lines.append("(multiply r2 r1 (float 0.75))")
        elif kind == "mix":
            lines.append("(mix r1 r1 r2 (float 0.25))")
        else:
            lines.append(f"({kind} r1 r1)")
    return _module("\n".join(lines), "")


def loop_module(iterations: int) -> str:
    body = "\n".join(["(add r1 r1 r2)", "(multiply r2 r1 (float 0.75))", "(fract r1 r1)", "(sin r1 r1)", "(mix r1 r1 r2 (float 0.25))"] * 2)
    return _module("(copy r3 (int 0)) (branch test)",
                   f"(block test (less r4 r3 (int {iterations})) (branch_if r4 body done))"
                   f"(block body {body} (add r3 r3 (int 1)) (branch test))")


def _module(entry: str, blocks: str) -> str:
    finish = "(store (stage color) r1) (return)"
    if blocks:
        blocks = blocks + f"(block done {finish})"
        entry_end = ""
    else:
        entry_end = finish
    return f"""(module 1 (extensions "math")
  (types (type Void void) (type Int int) (type Bool bool) (type Vec3 vector float 3) (type Vec4 vector float 4))
  (uniforms)
  (vertex v (interface (in p "position" Vec3 0 none) (out c "clip" Vec4 -1 position))
    (functions (function v "v" Void (parameters) (registers (register r0 Vec3) (register r1 Vec4))
      (block b (load r0 (stage p)) (construct r1 r0 (float 1.0)) (store (stage c) r1) (return)))))
  (fragment f (interface (in fc "frag_coord" Vec4 -1 position) (out color "color" Vec4 0 fragment_color))
    (functions (function f "f" Void (parameters)
      (registers (register r1 Vec4) (register r2 Vec4) (register r3 Int) (register r4 Bool))
      (block entry (load r1 (stage fc)) (multiply r1 r1 (float 0.01)) (construct r2 (float 0.5)) {entry} {entry_end})
      {blocks}))))"""


def growth(size: int, largest: int = 3200) -> None:
    print(f"\nGrowth with module size: full-screen pass at {size}x{size} (median of 3)")
    sizes = [operations for operations in (100, 200, 400, 800, 1600, 3200) if operations <= largest]
    for title, make in (("straight-line chain", chain_module), ("loop iterations x 10 ops", lambda k: loop_module(k // 10))):
        print(f"{title}:")
        previous = None
        for operations in sizes:
            program = Program.from_verified(VerifiedModule.from_text(make(operations), "bench.vpl"))
            seconds = _median_time(lambda: render(program, fullscreen_mesh(), size, size, depth_test=False), 3)
            ratio = f"{seconds / previous:5.2f}" if previous else "    -"
            print(f"  {operations:>6} operations: {seconds * 1000:8.1f} ms  x{ratio}   {operations * size * size / seconds / 1e6:7.1f} M lane-ops/s")
            previous = seconds


def stage_frames(frames: int, size: int, names: list[str]) -> None:
    stage = Stage()
    stage.set_environment("studio")
    maps, table = prepare_environment("studio")
    print(f"\nSurface Output frames at {size}x{size} on the studio stage (median of {frames}; ms)")
    print(f"{'example':<16}{'frame':>8}{'blurred bg':>12}{'material':>10}{'background':>12}{'post numpy':>12}{'post VPL':>10}")
    nearest = SamplerState(wrap_s=Wrap.CLAMP_TO_EDGE, wrap_t=Wrap.CLAMP_TO_EDGE, min_filter=Filter.NEAREST, mag_filter=Filter.NEAREST)
    post_program = Program.from_verified(VerifiedModule.create(post.post_module(stage.tone_mapper), label="post"))
    for name in names:
        verified, specs = read_program(str(example_path(name)))
        renderer = CpuRenderer()
        stage.apply(renderer)
        renderer.set_environment_maps(maps)
        renderer.set_brdf_table(table)
        renderer.set_program(verified)
        for spec in specs:
            if spec.default is not None and not isinstance(spec.default, str):
                renderer.set_parameter(spec.name, spec.default)
        frame = _median_time(lambda: renderer.render_image(size, size), frames)
        renderer.set_background_mode("blurred")
        blurred = _median_time(lambda: renderer.render_image(size, size), frames)
        background = _median_time(lambda: renderer.environment_background(size, size), frames)
        renderer.set_background_mode("color")
        material = _median_time(lambda: renderer.render_linear(size, size), frames)
        hdr = renderer.render_linear(size, size)
        numpy_post = _median_time(lambda: post.display_colors(hdr, renderer.tone_mapper, 0.0, renderer.background), frames)
        texture = Texture2D([np.ascontiguousarray(hdr[::-1])], nearest)
        uniforms = {post.HDR_IMAGE_UNIFORM: texture, post.EXPOSURE_UNIFORM: 1.0, post.BACKGROUND_UNIFORM: list(renderer.background)}
        vpl_post = _median_time(lambda: render(post_program, fullscreen_mesh(), size, size, uniforms=uniforms,
                                               depth_test=False), max(1, frames // 2))
        print(f"{name:<16}{frame * 1000:>8.0f}{blurred * 1000:>12.0f}{material * 1000:>10.0f}{background * 1000:>12.0f}"
              f"{numpy_post * 1000:>12.1f}{vpl_post * 1000:>10.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--only", choices=("examples", "growth", "stage"), default=None)
    parser.add_argument("--largest-module", type=int, default=3200,
                        help="operations of the largest module of the growth table (the smallest setting: 200)")
    parser.add_argument("--examples", nargs="+", metavar="NAME", default=None,
                        help="draw only these examples (default: every example, and the physically based ones on the stage)")
    arguments = parser.parse_args()
    chosen = arguments.examples
    if chosen is not None and (unknown := sorted(set(chosen) - set(example_names()))):
        parser.error(f"no such example: {', '.join(unknown)}")
    if chosen is not None and arguments.only in (None, "stage") and (flat := [name for name in chosen if name not in PBR_EXAMPLES]):
        parser.error(f"the stage table draws Surface Output examples ({', '.join(PBR_EXAMPLES)}), not {', '.join(flat)}")
    print(f"load average: {', '.join(f'{value:.2f}' for value in os.getloadavg())}; CPUs: {os.cpu_count()}")
    if arguments.only in (None, "examples"):
        examples(arguments.frames, arguments.size, chosen or example_names())
    if arguments.only in (None, "growth"):
        growth(min(128, arguments.size), arguments.largest_module)
    if arguments.only in (None, "stage"):
        stage_frames(arguments.frames, arguments.size, chosen or PBR_EXAMPLES)


if __name__ == "__main__":
    main()
