"""Preview frame time of the layered materials against painted_metal, and the cost of a constant-zero lobe.

1. Frame time at 512x512 (every frame ends in glFinish; Mesa llvmpipe runs
   on the CPU), in one run, interleaved round by round so that load changes
   hit every case alike, in the prefiltered studio environment:
   - `painted_metal` (Surface Output, three textures: the baseline);
   - `car_paint` (OpenPBR Surface: coat over flaked metal) and `glass`
     (OpenPBR Surface: transmission with depth absorption);
   - `lacquered_wood` (Surface Output with KHR clearcoat);
   - painted_metal with its Surface Output's clearcoat set to 0 explicitly
     (GLSL identical to painted_metal: the script checks it, so the cost is
     none by construction; timed anyway as a control of the noise), with
     clearcoat 1, and with clearcoat fed by a Constant node of 0 (a
     connected weight keeps its layer: the cost of the layer itself).
   Prints median / min per case and their ratios to painted_metal's.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_openpbr_frames.py [--frames N] [--size S]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from bench_pbr import _prepared, interleaved_frames
from PySide6.QtGui import QGuiApplication

from app.material.examples import example_path, load_example
from app.material.graph import MaterialGraph
from app.preview.context import OffscreenContext

BASELINE = "painted_metal"


def _example(name: str) -> MaterialGraph:
    graph = load_example(name).graph
    assert graph is not None, name
    return graph


def _with_clearcoat(value: float | None, connected: bool = False) -> MaterialGraph:
    graph = _example(BASELINE)
    (output,) = [node for node in graph.nodes.values() if node.type_name == "surface_output"]
    if connected:
        zero = graph.add_node("constant_float", (0.0, 900.0), {"value": 0.0})
        graph.connect(zero.id, "out", output.id, "clearcoat")
    elif value is not None:
        output.properties["clearcoat"] = value
    return graph


def frame_times(frames: int, size: int) -> None:
    folder = str(example_path(BASELINE))
    cases: dict[str, tuple[Any, list[Any], str | None]] = {
        BASELINE: _prepared(_example(BASELINE), folder),
        "car_paint (OpenPBR coat)": _prepared(_example("car_paint"), None),
        "glass (OpenPBR transmission)": _prepared(_example("glass"), None),
        "lacquered_wood (Surface clearcoat)": _prepared(_example("lacquered_wood"), None),
        "painted_metal, clearcoat 0": _prepared(_with_clearcoat(0.0), folder),
        "painted_metal, clearcoat 1": _prepared(_with_clearcoat(1.0), folder),
        "painted_metal, clearcoat <- Constant 0": _prepared(_with_clearcoat(None, connected=True), folder),
    }
    same = cases[BASELINE][0].fragment_code == cases["painted_metal, clearcoat 0"][0].fragment_code
    print(f"GLSL of painted_metal with clearcoat 0 identical to painted_metal's: {same}")
    samples, description = interleaved_frames(cases, frames, size, lambda _name: True)
    print(f"Frame time at {size}x{size}, {frames} frames each, interleaved (environment: {description})")
    baseline = statistics.median(samples[BASELINE])
    fastest = min(samples[BASELINE])
    for name, times in samples.items():
        median = statistics.median(times)
        # Under load the minimum is the steadier figure (a frame no other process interrupted).
        print(f"  {name:40s} median {1000 * median:7.2f} ms  min {1000 * min(times):7.2f} ms  "
              f"ratio to {BASELINE}: median {median / baseline:5.2f}, min {min(times) / fastest:5.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--size", type=int, default=512)
    arguments = parser.parse_args()
    application = QGuiApplication(sys.argv[:1])
    from app.preview.context import DEFAULT_PROFILE, align_pyopengl_platform

    align_pyopengl_platform(application.platformName())
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}, {os.cpu_count()} CPUs")
    context = OffscreenContext(DEFAULT_PROFILE)
    try:
        frame_times(arguments.frames, arguments.size)
    finally:
        context.done()
    return 0


if __name__ == "__main__":
    sys.exit(main())
