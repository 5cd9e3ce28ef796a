"""Displacement and bump: the frame time of a displaced material against the same material under "Bump only".

Bricks (a Bevel of a Texture Buffer of the brick mask as the height, scale 0.05, mid level 1) on the plane
(128 x 128 grid) at a three-quarter camera, studio environment: "Bump only" (parallax occlusion mapping) and
"Displacement and bump" (the vertex stage reads the height buffer, the fragment stage bumps), each with the
key light's shadows and the ground off and on. Each round builds every case, draws one frame untimed (the
texture passes run when the program changes) and times the next (`Renderer.render_image`, which ends in
glFinish; Mesa llvmpipe runs on the CPU). Prints the median of each case and its ratio to bump only.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_displacement.py [--frames N] [--size S]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.context import OffscreenContext
from app.preview.preview_state import prepare_environment
from app.preview.renderer import Renderer
from app.preview.screenshot import ensure_gui_application
from app.preview.stage import Stage
from app.preview.texture_passes_gl import schedule_for
from app.session.pass_programs import PassProgramCache

CASES = {"bump only": ("bump_only", False), "displacement": ("displacement_and_bump", False),
         "bump only + shadows": ("bump_only", True), "displacement + shadows": ("displacement_and_bump", True)}


def bricks(method: str) -> MaterialGraph:
    graph = MaterialGraph()
    pattern = graph.add_node("bricks", properties={"count": (4.0, 8.0), "mortar": 0.03, "softness": 0.01})
    buffer = graph.add_node("texture_buffer", properties={"resolution": "512", "format": "16-bit"})
    bevel = graph.add_node("bevel", properties={"width": 0.025, "smoothness": 0.6})
    output = graph.add_node("surface_output", properties={"roughness": 0.8, "height_scale": 0.05,
                                                          "height_mid_level": 1.0, "displacement_method": method})
    graph.connect(pattern.id, "mask", buffer.id, "input")
    graph.connect(buffer.id, "out", bevel.id, "mask")
    graph.connect(bevel.id, "out", output.id, "height")
    graph.connect(pattern.id, "color", output.id, "base_color")
    return graph


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=5, help="timed frames per case (default 5)")
    parser.add_argument("--size", type=int, default=512, help="frame side in pixels (default 512)")
    arguments = parser.parse_args()
    if ensure_gui_application() is None:
        print("no display: run under X (see the docstring)", file=sys.stderr)
        return 1
    stage = Stage()
    stage.set_mesh("plane")
    context = OffscreenContext()
    renderer = Renderer()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    try:
        stage.apply(renderer)
        renderer.camera.go_home((30.0, 30.0, 3.2))
        prepared = prepare_environment(stage.environment)
        if prepared is not None:
            renderer.set_environment_maps(prepared[0])
            renderer.set_brdf_table(prepared[1])
        built = {}
        for method in ("bump_only", "displacement_and_bump"):
            graph = bricks(method)
            lowered = lower(graph)
            if not lowered.ok:
                raise SystemExit(f"{method} does not lower: {lowered.diagnostics}")
            built[method] = (lowered.artifact, schedule_for(PassProgramCache.for_graph(graph).get("glsl420")))
        for _ in range(arguments.frames):
            for name, (method, shadows) in CASES.items():
                renderer.build_program(*built[method])
                renderer.set_shadows(shadows, shadows)
                renderer.render_image(arguments.size, arguments.size)  # the passes, when the schedule changed
                start = time.perf_counter()
                renderer.render_image(arguments.size, arguments.size)
                times[name].append(time.perf_counter() - start)
    finally:
        renderer.release()
        context.done()
    load = os.getloadavg()[0]
    print(f"bricks on the plane, studio, {arguments.size}x{arguments.size}, {arguments.frames} frames a case, "
          f"load average {load:.2f} on {os.cpu_count()} CPUs")
    for name, samples in times.items():
        median = statistics.median(samples)
        reference = statistics.median(times["bump only + shadows" if "shadows" in name else "bump only"])
        print(f"  {name:24s} median {1000 * median:7.1f} ms  min {1000 * min(samples):7.1f} ms  "
              f"({median / reference:.2f}x bump only{' + shadows' if 'shadows' in name else ''})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
