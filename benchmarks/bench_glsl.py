"""GLSL backend benchmark: read + verify + publish + compile, side by side with glslangValidator.

For generated modules of about 1 000 and 10 000 instructions (a fragment
entry of straight-line blocks chained by conditional branches, so the
dispatch lowering is exercised, with arithmetic, construction, swizzles,
math-extension calls and helper calls), times, as the median of
`--repeat` runs:

- publish: `VerifiedModule.from_text` (read and verify the text, write the
  canonical text, read and verify it back: what publication costs),
- compile: `glsl.compile` (materialize and verify the snapshot, check the
  target restrictions, generate both stages and the reflection), and
  separately its two parts: materialize (the text reader and verifier
  reading the snapshot) and generate (the backend proper),
- glslang: `glslangValidator` on the emitted vertex and fragment code,
  linked (`-l`), as the reference cost of a production GLSL front end
  reading what we wrote,

and prints them with the ratios (publish + compile) / glslang and
generate / glslang.

Run: ``.venv/bin/python benchmarks/bench_glsl.py [--sizes 1000 10000] [--repeat 5] [--target glsl420]``
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl import generate, resolve_profile
from vpl_core.ir.instructions import DeclareLocalInstruction
from vpl_core.publish import VerifiedModule

BLOCK_SIZE = 40  # instructions per block in the generated fragment entry

HEADER = """(module 1
  (extensions "math")
  (types
    (type Void void) (type Bool bool) (type Float float)
    (type Vec2 vector float 2) (type Vec3 vector float 3) (type Vec4 vector float 4))
  (uniforms (scalar tint "tint" Vec4) (scalar scale "scale" Float))
  (vertex main
    (interface (in position "position" Vec3 0 none) (out clip "clip" Vec4 -1 position)
               (out uv "uv" Vec2 -1 texcoord))
    (functions
      (function main "vertex_main" Void
        (parameters)
        (registers (register r0 Vec3) (register r1 Vec4) (register r2 Vec2))
        (block entry
          (load r0 (stage position)) (construct r1 r0 (float 1.0)) (store (stage clip) r1)
          (swizzle r2 r0 "xy") (store (stage uv) r2) (return)))))
  (fragment main
    (interface (in uv "uv" Vec2 -1 texcoord) (out color "color" Vec4 0 fragment_color))
    (functions
"""

HELPER = """      (function shade "shade" Vec4
        (parameters (parameter value Vec4) (parameter amount Float))
        (registers (register r0 Vec4) (register r1 Float))
        (block entry
          (load r0 (parameter value)) (load r1 (parameter amount))
          (multiply r0 r0 r1) (sin r0 r0) (return r0)))
"""


def _instruction(step: int) -> str:
    """One instruction of a repeating pattern over registers r0-r5 (vec4), r6-r8 (float), r9 (bool)."""
    a, b = f"r{step % 6}", f"r{(step + 1) % 6}"
    f, g = f"r{6 + step % 3}", f"r{6 + (step + 1) % 3}"
    pattern = step % 10
    if pattern == 0:
        return f"(add {a} {a} {b})"
    if pattern == 1:
        return f"(multiply {a} {a} {f})"
    if pattern == 2:
        return f"(swizzle {f} {a} \"y\")"
    if pattern == 3:
        return f"(mix {a} {a} {b} {f})"
    if pattern == 4:
        return f"(construct {b} {f} {g} (float 0.5) (float 1.0))"
    if pattern == 5:
        return f"(fract {a} {a})"
    if pattern == 6:
        return f"(add {f} {f} (float 0.25))"
    if pattern == 7:
        return f"(call {a} shade {b} {g})"
    if pattern == 8:
        return f"(dot {f} {a} {b})"
    return f"(subtract {a} {a} {b})"


def generate_module(instructions: int) -> str:
    """Module text whose fragment entry has about `instructions` instructions."""
    blocks = max(1, instructions // BLOCK_SIZE)
    lines = [HEADER, '      (function main "fragment_main" Void', "        (parameters)", "        (registers"]
    lines += [f"          (register r{index} Vec4)" for index in range(6)]
    lines += [f"          (register r{index} Float)" for index in range(6, 9)]
    lines += ["          (register r9 Bool) (register r10 Vec2))"]
    lines.append("        (block b0")
    lines.append("          (load r10 (stage uv)) (load r0 (uniform tint)) (load r6 (uniform scale))")
    lines.append("          (construct r1 r10 (float 0.0) (float 1.0)) (copy r2 r0) (copy r3 r1) (copy r4 r0) (copy r5 r1)")
    lines.append("          (copy r7 (float 0.5)) (copy r8 (float 0.25))")
    step = 0
    for block in range(blocks):
        if block > 0:
            lines.append(f"        (block b{block}")
        for _ in range(BLOCK_SIZE - 2):
            lines.append(f"          {_instruction(step)}")
            step += 1
        if block + 1 < blocks:
            lines.append(f"          (less r9 r6 (float 1000.0)) (branch_if r9 b{block + 1} b{blocks})")
        else:
            lines.append(f"          (branch b{blocks})")
        lines[-1] += ")"
    lines.append(f"        (block b{blocks} (store (stage color) r0) (return)))")
    lines.append(HELPER + ")))")
    return "\n".join(lines) + "\n"


def _median_seconds(action, repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--target", default="glsl420", choices=["glsl420", "es300", "es320"])
    arguments = parser.parse_args()
    validator = shutil.which("glslangValidator")
    if validator is None:
        print("glslangValidator not found (Debian package glslang-tools)", file=sys.stderr)
        return 1

    print(f"target {arguments.target}, median of {arguments.repeat} runs, milliseconds")
    header = (
        f"{'instructions':>12} {'GLSL lines':>10} {'publish':>9} {'compile':>9} {'(materialize':>13} "
        f"{'generate)':>10} {'ours':>9} {'glslang':>9} {'ours/glslang':>12} {'generate/glslang':>16}"
    )
    print(header)
    for size in arguments.sizes:
        text = generate_module(size)
        verified = VerifiedModule.from_text(text, label=f"generated-{size}.vpl")
        artifact = compile_glsl(verified, target=arguments.target)
        instructions = sum(
            1
            for _, function in verified.materialize().functions()
            for block in function.blocks
            for instruction in block.instructions
            if not isinstance(instruction, DeclareLocalInstruction)
        )
        publish = _median_seconds(lambda: VerifiedModule.from_text(text, label="bench.vpl"), arguments.repeat)
        compile_time = _median_seconds(lambda: compile_glsl(verified, target=arguments.target), arguments.repeat)
        materialize = _median_seconds(verified.materialize, arguments.repeat)
        profile = resolve_profile(arguments.target)
        modules = [verified.materialize() for _ in range(arguments.repeat)]
        generate_time = _median_seconds(lambda: generate(modules.pop(), profile), arguments.repeat)
        with tempfile.TemporaryDirectory() as directory:
            vertex = Path(directory, "bench.vert.glsl")
            fragment = Path(directory, "bench.frag.glsl")
            vertex.write_text(artifact.vertex_code, encoding="utf-8")
            fragment.write_text(artifact.fragment_code, encoding="utf-8")

            def validate() -> None:
                result = subprocess.run([validator, "-l", str(vertex), str(fragment)], capture_output=True, text=True)
                if result.returncode != 0:
                    raise SystemExit(f"glslangValidator rejected the generated code:\n{result.stdout}{result.stderr}")

            glslang = _median_seconds(validate, arguments.repeat)
        ours = publish + compile_time
        lines = artifact.vertex_code.count("\n") + artifact.fragment_code.count("\n")
        print(
            f"{instructions:>12} {lines:>10} {publish * 1e3:>9.1f} {compile_time * 1e3:>9.1f} "
            f"{materialize * 1e3:>13.1f} {generate_time * 1e3:>10.1f} {ours * 1e3:>9.1f} "
            f"{glslang * 1e3:>9.1f} {ours / glslang:>12.2f} {generate_time / glslang:>16.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
