"""Cost of each noise node: 512x512 frame time on the GL driver, relative to a constant-colour material.

Every material is one node wired into the Unlit Output, drawn on a quad
that covers the whole 512x512 RGBA32F framebuffer (so every pixel runs the
node once), N frames each ending in glFinish; the constant-colour material
is measured in the same run and every figure is printed as milliseconds
and as a ratio to it, so the ratios mean something on a loaded machine.
On Mesa llvmpipe this is CPU time; a GPU is far faster, but the ratios
tell an artist what a node costs compared with another.

Run under X (Mesa has no GL on Qt's offscreen platform):
    xvfb-run -a -s "-screen 0 1280x1024x24" .venv/bin/python benchmarks/bench_noise.py [--frames N] [--size S] [--only TEXT ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "app" / "material"))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from OpenGL import GL  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402

from app.material.graph import MaterialGraph  # noqa: E402
from app.material.lowering import lower  # noqa: E402
from app.preview.context import OffscreenContext  # noqa: E402

#: (label, node type, properties, output port)
CASES: list[tuple[str, str, dict, str]] = [
    ("constant colour (baseline)", "constant_color", {}, "out"),
    ("white noise", "white_noise", {}, "out"),
    ("white noise 3D", "white_noise_3d", {}, "out"),
    ("value noise", "value_noise", {}, "out"),
    ("value noise 3D", "value_noise_3d", {}, "out"),
    ("gradient noise", "gradient_noise", {}, "out"),
    ("gradient noise 3D", "gradient_noise_3d", {}, "out"),
    ("simplex noise", "simplex_noise", {}, "out"),
    ("simplex noise 3D", "simplex_noise_3d", {}, "out"),
    ("voronoi F1", "voronoi", {}, "f1"),
    ("voronoi cell colour", "voronoi", {}, "cell_color"),
    ("voronoi 3D F1", "voronoi_3d", {}, "f1"),
    ("fractal value fBm, 5 oct", "fractal_noise", {}, "out"),
    ("fractal gradient fBm, 5 oct", "fractal_noise", {"basis": "gradient"}, "out"),
    ("fractal simplex ridged, 5 oct", "fractal_noise", {"basis": "simplex", "mode": "ridged"}, "out"),
    ("fractal voronoi fBm, 5 oct", "fractal_noise", {"basis": "voronoi"}, "out"),
    ("fractal gradient 3D fBm, 5 oct", "fractal_noise_3d", {"basis": "gradient"}, "out"),
    ("fractal gradient 3D fBm, 3 oct", "fractal_noise_3d", {"basis": "gradient", "octaves": 3}, "out"),
    ("MaterialX fractal 3D, 3 oct", "mtlx_fractal_3d", {}, "out"),
    ("domain warp", "domain_warp", {}, "out"),
    ("domain warp 3D", "domain_warp_3d", {}, "out"),
]


def material(type_name: str, properties: dict, port: str) -> MaterialGraph:
    graph = MaterialGraph()
    node = graph.add_node(type_name, properties=properties)
    output = graph.add_node("material_output")
    if port in ("out",) and type_name in ("domain_warp", "domain_warp_3d"):
        length = graph.add_node("length")
        graph.connect(node.id, port, length.id, "vector")
        graph.connect(length.id, "out", output.id, "base_color")
    else:
        graph.connect(node.id, port, output.id, "base_color")
    return graph


def frame_times(type_name: str, properties: dict, port: str, size: int, frames: int) -> list[float]:
    from material_render import MaterialQuad

    result = lower(material(type_name, properties, port))
    if not result.ok:
        raise SystemExit(f"{type_name} does not lower: {result.diagnostics}")
    with MaterialQuad(result, size, "glsl420") as quad:
        quad.draw()  # warm-up: the driver compiles lazily
        times = []
        for _ in range(frames):
            start = time.perf_counter()
            quad.draw()
            times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--only", nargs="*", default=[], metavar="TEXT",
                        help="measure only the cases whose label contains one of these (and the baseline)")
    arguments = parser.parse_args()
    application = QGuiApplication(sys.argv[:1])  # noqa: F841 - the context needs it alive
    context = OffscreenContext()  # noqa: F841 - current for the whole run
    print(f"GL: {GL.glGetString(GL.GL_RENDERER).decode()} / {GL.glGetString(GL.GL_VERSION).decode()}")
    print(f"load average at start: {os.getloadavg()[0]:.2f}; {arguments.size}x{arguments.size}, {arguments.frames} frames each, median")
    baseline = None
    for label, type_name, properties, port in CASES:
        if arguments.only and baseline is not None and not any(text in label for text in arguments.only):
            continue
        median = statistics.median(frame_times(type_name, properties, port, arguments.size, arguments.frames))
        baseline = baseline or median
        print(f"  {label:<32} {median * 1000.0:8.2f} ms   x{median / baseline:6.1f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
