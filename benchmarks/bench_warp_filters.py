"""What the warp and blur filters and a buffered Tile Sampler cost on GL, relative to a plain Texture Buffer.

For each node, a material "source buffer(s) -> node -> Unlit Output" and its
twin without the node ("source buffer(s) -> Unlit Output") are drawn by the
preview's `Renderer` into SIZE x SIZE with every pass invalidated first, so a
frame draws all its passes (each frame ends in glFinish and a read-back:
times are the GPU's, here Mesa llvmpipe on the CPU). The node's pass costs
the difference of the two; it is printed in milliseconds and against the
pass of a Texture Buffer holding a 5-octave Fractal Noise (a familiar cost),
measured the same way. The materials alternate, RUNS times, medians. The
Tile Sampler is measured as a Texture Buffer holding it.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_warp_filters.py [--size 1024] [--runs 3]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

#: node -> (type, properties, its texture inputs); "wave" is the source buffer.
NODES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "Directional Blur, 32 taps": ("directional_blur", {"samples": "32"}, ("input",)),
    "Non-Uniform Blur, 32 taps": ("non_uniform_blur", {"samples": "32"}, ("input", "blur_map")),
    "Slope Blur, 16 steps": ("slope_blur", {"samples": "16"}, ("input", "slope")),
    "Directional Warp": ("directional_warp", {}, ("input", "intensity_map")),
    "Warp": ("warp", {}, ("input", "gradient")),
}
TILE_SAMPLER = "Tile Sampler in a buffer"
NOISE = "Fractal Noise (5 octaves) in a buffer"


def graph_for(size: int, node: str | None) -> Any:
    """The source buffer and, when `node` is given, that node reading it, into an Unlit Output."""
    import app.material.catalog  # noqa: F401 - registers every node type
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()
    graph.add_node("tiling_offset", node_id="wave_uv", properties={"tiling": (4 * math.pi, 6 * math.pi)})
    graph.add_node("sin", node_id="wave")
    graph.add_node("component_sum", node_id="wave_sum")
    graph.add_node("texture_buffer", node_id="source", properties={"resolution": str(size), "format": "16-bit"})
    graph.add_node("material_output", node_id="out")
    graph.connect("wave_uv", "out", "wave", "x")
    graph.connect("wave", "out", "wave_sum", "vector")
    graph.connect("wave_sum", "out", "source", "input")
    last = "source"
    if node in (TILE_SAMPLER, NOISE):
        if node == TILE_SAMPLER:
            graph.add_node("tile_sampler", node_id="tiles", properties={"shape": "disc", "rotation_random": 1.0,
                                                                        "position_random": 0.3, "scale_random": 0.5})
        else:
            graph.add_node("fractal_noise", node_id="tiles", properties={"octaves": 5})
        graph.add_node("texture_buffer", node_id="scatter", properties={"resolution": str(size), "format": "16-bit"})
        graph.connect("tiles", "pattern" if node == TILE_SAMPLER else "out", "scatter", "input")
        last = "scatter"
    elif node is not None:
        type_name, properties, inputs = NODES[node]
        graph.add_node(type_name, node_id="filter", properties=properties)
        for port in inputs:
            graph.connect("source", "out", "filter", port)
        last = "filter"
    graph.add_node("sample_texture", node_id="read")
    graph.connect(last, "out", "read", "texture")
    graph.connect("read", "rgba", "out", "base_color")
    return graph


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1024, help="frame and buffer side in pixels (default 1024)")
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()

    from OpenGL import GL
    from PySide6.QtGui import QGuiApplication

    from app.material.lowering import lower
    from app.preview.context import OffscreenContext
    from app.preview.renderer import Renderer
    from app.preview.texture_passes_gl import schedule_for
    from app.session.pass_programs import PassProgramCache

    application = QGuiApplication(sys.argv[:1])  # noqa: F841 - the context needs it alive
    context = OffscreenContext()  # noqa: F841 - current for the whole run
    print(f"GL: {GL.glGetString(GL.GL_RENDERER).decode()} / {GL.glGetString(GL.GL_VERSION).decode()}")
    size = arguments.size
    print(f"buffers and frame {size}x{size} (16-bit buffers), glFinish and read-back per frame, "
          f"{arguments.runs} runs, medians")

    def frame_seconds(graph: Any) -> float:
        """A frame drawing every pass, with the programs already linked."""
        lowered = lower(graph)
        assert lowered.ok, [d.message for d in lowered.errors]
        renderer = Renderer()
        try:
            renderer.set_mesh("sphere")
            renderer.build_program(lowered.artifact, schedule_for(PassProgramCache.for_graph(graph).get("glsl420")))
            renderer.render_image(size, size)  # links every program, draws every pass
            renderer.passes.invalidate()
            started = time.perf_counter()
            renderer.render_image(size, size)
            return time.perf_counter() - started
        finally:
            renderer.release()

    def frame_without_passes(graph: Any) -> float:
        lowered = lower(graph)
        renderer = Renderer()
        try:
            renderer.set_mesh("sphere")
            renderer.build_program(lowered.artifact, schedule_for(PassProgramCache.for_graph(graph).get("glsl420")))
            renderer.render_image(size, size)
            started = time.perf_counter()
            renderer.render_image(size, size)  # nothing changed: no pass draws
            return time.perf_counter() - started
        finally:
            renderer.release()

    base = graph_for(size, None)
    times: dict[str, list[float]] = {}
    for _ in range(arguments.runs):
        times.setdefault("frame", []).append(frame_without_passes(base))
        times.setdefault("source", []).append(frame_seconds(base))
        for node in (NOISE, *NODES, TILE_SAMPLER):
            times.setdefault(node, []).append(frame_seconds(graph_for(size, node)))
    median = {name: statistics.median(values) for name, values in times.items()}
    noise_pass = median[NOISE] - median["source"]
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
    print(f"frame without passes {median['frame'] * 1000:.0f} ms; with the source buffer's pass "
          f"{median['source'] * 1000:.0f} ms\n")
    print(f"{'node':<38} {'its pass':>9} {'x noise buffer':>15}")
    for node in (NOISE, *NODES, TILE_SAMPLER):
        own = median[node] - median["source"]
        print(f"{node:<38} {own * 1000:7.0f}ms {own / noise_pass:14.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
