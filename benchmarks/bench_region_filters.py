"""Flood Fill, Distance and Bevel in the GL preview: the time of their passes against one Texture Buffer pass.

Each filter reads a brick mask rendered into a SIZE² 8-bit Texture Buffer; a
material samples the filter's output on the UV square. For each filter the
preview's `Renderer` draws every pass (the runner's buffers invalidated
first, so nothing is skipped; each frame ends in a read-back, so a time is
the GPU's, here Mesa llvmpipe on the CPU), RUNS times, side by side with the
same material reading the buffer alone (one pass). Printed: the filter's
pass count, the median time of all its passes (the buffer's included), the
buffer alone, and their ratio; then the memory of its buffers as the runner
allocates them (internal passes sharing buffers) beside what a buffer per
pass would take.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_region_filters.py [--size 1024] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

FILTERS: dict[str, list[tuple[str, dict[str, object]]]] = {
    "buffer alone": [],
    "Flood Fill to Random Colour": [("flood_fill", {}), ("flood_fill_to_color", {})],
    "Distance": [("mask_distance", {"max_distance": 0.05})],
    "Bevel (angular)": [("bevel", {"width": 0.02, "corner": "angular"})],
    "Bevel (round)": [("bevel", {"width": 0.02, "corner": "round"})],
}


def material(size: int, chain: list[tuple[str, dict[str, object]]]) -> Any:
    import app.material.catalog  # noqa: F401 - registers every node type
    from app.material import texture_passes as tp
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()
    graph.add_node("bricks", node_id="bricks", properties={"count": (4.0, 8.0), "row_offset": 0.5, "mortar": 0.03})
    graph.add_node("texture_buffer", node_id="mask", properties={"resolution": str(size), "format": "8-bit"})
    graph.connect("bricks", "mask", "mask", "input")
    previous = "mask"
    for position, (type_name, properties) in enumerate(chain):
        node_id = f"filter{position}"
        graph.add_node(type_name, node_id=node_id, properties=dict(properties))
        graph.connect(previous, "out", node_id, tp.FILTERS[type_name].main_input)
        previous = node_id
    graph.add_node("sample_texture", node_id="read")
    graph.add_node("material_output", node_id="out")
    graph.connect(previous, "out", "read", "texture")
    graph.connect("read", "rgba", "out", "base_color")
    return graph


def measure(graph: Any, runs: int) -> tuple[int, float, int, int]:
    """(passes, median seconds to draw them all, bytes of the buffers allocated, bytes a buffer per pass would take)."""
    from app.material.lowering import lower
    from app.preview.renderer import Renderer
    from app.preview.texture_passes_gl import schedule_for
    from app.preview.thumbnails import FlatCamera, square_mesh
    from app.session.pass_programs import PassProgramCache

    lowered = lower(graph)
    if not lowered.ok:
        raise SystemExit("; ".join(d.message for d in lowered.errors))
    programs = PassProgramCache.for_graph(graph).get("glsl420")
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.camera = FlatCamera()  # type: ignore[assignment]
        renderer.set_values({})
        renderer.build_program(lowered.artifact, schedule_for(programs))
        renderer.render_linear(8, 8)  # links every program, draws once
        times = []
        for _ in range(runs):
            renderer.passes.invalidate()
            start = time.perf_counter()
            renderer.render_linear(8, 8)
            times.append(time.perf_counter() - start)
        each_own = sum(each.spec.memory_bytes for each in programs.plan.passes)
        return len(renderer.passes.schedule.passes), statistics.median(times), renderer.passes.memory_bytes(), each_own
    finally:
        renderer.release()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="the mask's Texture Buffer resolution (256 is the smallest)")
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    from app.material.texture_passes import RESOLUTIONS

    if arguments.size not in RESOLUTIONS:  # the Texture Buffer would draw at its default resolution instead
        parser.error(f"--size must be a Texture Buffer resolution ({', '.join(map(str, RESOLUTIONS))}), not {arguments.size}")

    from OpenGL import GL
    from PySide6.QtGui import QGuiApplication

    from app.preview.context import OffscreenContext

    application = QGuiApplication(sys.argv[:1])  # noqa: F841 - the context needs it alive
    context = OffscreenContext()  # noqa: F841 - current for the whole run
    print(f"GL: {GL.glGetString(GL.GL_RENDERER).decode()} / {GL.glGetString(GL.GL_VERSION).decode()}")
    print(f"region filters at {arguments.size}², median of {arguments.runs} (GL: every pass drawn, then an 8² frame)")
    baseline = 0.0
    for name, chain in FILTERS.items():
        passes, seconds, memory, each_own = measure(material(arguments.size, chain), arguments.runs)
        baseline = baseline or seconds
        print(f"{name:28s} {passes:3d} passes  {seconds * 1000:8.1f} ms  x{seconds / baseline:6.1f} of the buffer alone"
              f"  buffers {memory / 2**20:7.1f} MiB allocated ({each_own / 2**20:.1f} MiB with a buffer per pass)")


if __name__ == "__main__":
    main()
