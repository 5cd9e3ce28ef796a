"""Live frame cost of reading the prefiltered chain in `lobe_direction` against reading it at the reflection vector.

The Surface Output's environment light reads the chain in Frostbite's dominant direction
(`pbr_functions.lobe_direction`, docs/lighting.md, "Metals against Monte Carlo"). This lowers
`painted_metal` and a rough gold (metallic 1, roughness 0.6) twice, as shipped and with the read at the
reflection vector R = reflect(-V, N) (the helper replaced while lowering), and draws the four live programs
at SIZE x SIZE under the bundled `studio` environment, interleaved round by round so that load changes hit
every case alike (every frame ends in glFinish; Mesa llvmpipe runs on the CPU). Prints the medians and the
ratio of each material's two programs.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_lobe_direction.py [--frames N] [--size S]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

import bench_pbr

from app.material.examples import example_path
from app.material.graph import MaterialGraph
from app.material.nodes import pbr_functions
from vpl_core.ir.builder import FunctionBuilder
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand, RegisterValue


def _rough_gold() -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (1.0, 0.766, 0.336, 1.0), "metallic": 1.0, "roughness": 0.6})
    return graph


def _reflection(fn: FunctionBuilder, normal: Operand, view: Operand, _roughness: Operand) -> RegisterValue:
    return pbr_functions.call(fn, Builtin.REFLECT, vec(3), pbr_functions.call(fn, Builtin.NEGATE, vec(3), view), normal)


def measure(frames: int, size: int) -> None:
    document = str(example_path("painted_metal"))
    materials: dict[str, tuple[Callable[[], MaterialGraph], str | None]] = {
        "painted_metal": (lambda: bench_pbr.example_graph("painted_metal"), document), "rough gold": (_rough_gold, None)}
    cases: dict[str, tuple[Any, list[Any], str | None]] = {}
    shipped = pbr_functions.lobe_direction
    for read, helper in (("lobe direction", shipped), ("reflection vector", _reflection)):
        pbr_functions.lobe_direction = helper  # type: ignore[assignment]
        try:
            for name, (graph, source) in materials.items():
                cases[f"{name}, {read}"] = bench_pbr._prepared(graph(), source)
        finally:
            pbr_functions.lobe_direction = shipped
    samples, description = bench_pbr.interleaved_frames(cases, frames, size, lambda _name: True)
    print(f"Live frame at {size}x{size}, {frames} frames each, interleaved ({description})")
    for name, times in samples.items():
        print(f"  {name:36s} median {1000 * statistics.median(times):8.2f} ms  min {1000 * min(times):8.2f} ms")
    for name in materials:
        ratio = statistics.median(samples[f"{name}, lobe direction"]) / statistics.median(samples[f"{name}, reflection vector"])
        print(f"  {name}: lobe direction / reflection vector {ratio:.3f}")
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--size", type=int, default=512)
    arguments = parser.parse_args()
    bench_pbr.on_offscreen_gl(lambda: measure(arguments.frames, arguments.size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
