"""What Curvature, Ambient Occlusion, Edge Detect, Texture Levels and Histogram Scan cost to draw on GL.

Each filter reads a Texture Buffer of SIZE² (16-bit) holding a bricks mask;
the material samples the filter's output. The GL pass runner draws every
pass (`invalidate`, then one frame of 8x8 pixels ending in glFinish, so a
time is the passes'), RUNS times, median. Printed per filter: its time
beyond the buffer's own pass, and that time as a ratio of the buffer's pass
(one procedural evaluation per texel) measured side by side in the same
run; Blur at its defaults is measured too, for scale. Mesa llvmpipe runs on the CPU: the ratios say what
is expensive.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_analysis_filters.py [--size 1024] [--runs 3] [--only curvature ...]
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

#: name -> (filter type, properties): the defaults, and the costly settings an artist may choose.
CASES: dict[str, tuple[str | None, dict[str, Any]]] = {
    "buffer": (None, {}),
    "blur": ("blur", {}),
    "curvature": ("curvature", {}),
    "ambient_occlusion": ("ambient_occlusion", {}),
    "ambient_occlusion_6x4": ("ambient_occlusion", {"directions": 6, "steps": 4}),
    "edge_detect": ("edge_detect", {}),
    "edge_detect_width_12": ("edge_detect", {"width": 12.0}),
    "texture_levels": ("texture_levels", {}),
    "histogram_scan": ("histogram_scan", {}),
}


def graph_for(filter_type: str | None, properties: dict[str, Any], size: int) -> Any:
    import app.material.catalog  # noqa: F401 - registers every node type
    from app.material.catalog import NODE_TYPES
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()
    bricks = graph.add_node("bricks").id
    buffer = graph.add_node("texture_buffer", properties={"resolution": str(size), "format": "16-bit"}).id
    graph.connect(bricks, "mask", buffer, "input")
    last = buffer
    if filter_type is not None:
        last = graph.add_node(filter_type, properties=properties).id
        graph.connect(buffer, "out", last, NODE_TYPES[filter_type].inputs[0].name)
    sample = graph.add_node("sample_texture").id
    graph.connect(last, "out", sample, "texture")
    output = graph.add_node("material_output").id
    graph.connect(sample, "rgba", output, "base_color")
    return graph


def draw_times(graph: Any, runs: int) -> list[float]:
    """Seconds to draw every pass (and an 8x8 frame), `runs` times after a first frame that links."""
    from OpenGL import GL

    from app.material.lowering import lower
    from app.preview.renderer import Renderer
    from app.preview.texture_passes_gl import schedule_for
    from app.preview.thumbnails import FlatCamera, square_mesh
    from app.session.pass_programs import PassProgramCache

    lowered = lower(graph)
    if not lowered.ok:
        raise SystemExit([d.message for d in lowered.diagnostics])
    programs = PassProgramCache.for_graph(graph).get("glsl420")
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.camera = FlatCamera()  # type: ignore[assignment]  # the thumbnails' camera over the UV square, not an orbit camera
        renderer.build_program(lowered.artifact, schedule_for(programs))
        renderer.render_linear(8, 8)
        assert renderer.passes is not None
        times = []
        for _ in range(runs):
            renderer.passes.invalidate()
            GL.glFinish()
            start = time.perf_counter()
            renderer.render_linear(8, 8)
            GL.glFinish()
            times.append(time.perf_counter() - start)
        return times
    finally:
        renderer.release()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, choices=(256, 512, 1024, 2048, 4096))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, choices=[name for name in CASES if name != "buffer"])
    arguments = parser.parse_args()

    from PySide6.QtGui import QGuiApplication

    from app.preview.context import OffscreenContext

    application = QGuiApplication(sys.argv[:1])  # noqa: F841 - the context needs it alive
    context = OffscreenContext()  # noqa: F841 - current for the whole run
    names = ["buffer", *(arguments.only or [name for name in CASES if name != "buffer"])]
    samples: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(arguments.runs):  # the cases alternate, so a change of load touches them alike
        for name in names:
            filter_type, properties = CASES[name]
            samples[name] += draw_times(graph_for(filter_type, properties, arguments.size), 1)
    buffer = statistics.median(samples["buffer"])
    print(f"{arguments.size}² 16-bit, median of {arguments.runs}; the buffer's pass alone: {buffer * 1000:.0f} ms")
    for name in names[1:]:
        extra = statistics.median(samples[name]) - buffer
        print(f"{name:24} {extra * 1000:7.0f} ms beyond the buffer, {extra / buffer:6.1f}x its pass")
    print("load average:", " ".join(f"{load:.1f}" for load in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
