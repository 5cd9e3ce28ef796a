"""Preview performance: frame time at 512x512 and edit-to-new-pixels latency for a 50-node material.

1. Frame time: the default sphere (64 x 32 segments) with a lit, textured,
   noise-mixed material, rendered N times into a 512x512 offscreen
   framebuffer; every frame ends in glFinish so the time is the GPU's (here
   Mesa llvmpipe on the CPU), not just command submission. Prints mean,
   median, min and max.

2. Edit latency: a 50-node material graph (`app.material`) is edited
   (one constant in a 28-node math chain changes, so the program text
   changes), then lowered, verified and compiled (`lower`), built into a GL
   program (compile + link + reflection), and drawn once; the pixels are
   read back, so the time ends when new pixels exist. Prints the mean and
   median of each stage and of the total. Mesa's shader cache is disabled
   (unless --shader-cache) because an edited material is a new program. When `app.material.lowering` is not
   importable it falls back to a generated GLSL program of similar size and
   says so ("generated shader"); then the lowering stage is absent.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_preview.py [--frames N] [--edits E] [--size S]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
# Every real edit produces a program the driver has never seen; Mesa's on-disk shader cache
# would hide the compile cost on a second run of this script (same constants), so it is off.
if "--shader-cache" not in sys.argv:
    os.environ["MESA_SHADER_CACHE_DISABLE"] = "true"

from OpenGL import GL
from PySide6.QtGui import QGuiApplication

from app.preview.context import OffscreenContext
from app.preview.renderer import Framebuffer, Renderer, read_pixels

CHAIN_TYPES = ("multiply", "add", "sin", "fract", "subtract", "power", "saturate", "one_minus")


def material_graph(chain_constant: float) -> Any:
    """A 50-node material: textured Lambert + Blinn-Phong + fresnel rim, mixed by noise through a math chain."""
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()

    def node(type_name: str, **properties: Any) -> str:
        return graph.add_node(type_name, properties=properties or None).id

    def wire(source: str, target: str, port: str, source_port: str = "out") -> None:
        graph.connect(source, source_port, target, port)

    output = node("material_output")
    texcoord, normal, light, view, time_node = (node(t) for t in ("texcoord", "normal", "light_direction", "view_direction", "time"))
    albedo = node("texture_parameter", name="albedo")
    tint = node("color_parameter", name="tint", default=(0.9, 0.6, 0.4, 1.0))
    second = node("color_parameter", name="second", default=(0.2, 0.3, 0.8, 1.0))
    shininess = node("float_parameter", name="shininess", default=32.0, minimum=1.0, maximum=128.0)
    sample = node("sample_texture")
    wire(albedo, sample, "texture")
    wire(texcoord, sample, "uv")
    lambert = node("lambert")
    wire(normal, lambert, "normal")
    wire(light, lambert, "light_direction")
    phong = node("blinn_phong")
    wire(normal, phong, "normal")
    wire(light, phong, "light_direction")
    wire(view, phong, "view_direction")
    wire(shininess, phong, "shininess")
    rim = node("fresnel")
    wire(normal, rim, "normal")
    wire(view, rim, "view_direction")
    noise = node("fractal_noise")
    panner = node("panner")
    wire(texcoord, panner, "uv")
    wire(time_node, panner, "time")
    wire(panner, noise, "uv")
    # The math chain: 28 float nodes from the noise to the mix factor.
    previous = noise
    for index in range(28):
        type_name = CHAIN_TYPES[index % len(CHAIN_TYPES)]
        properties: dict[str, Any] = {}
        if type_name in ("multiply", "add", "subtract"):
            properties["b"] = chain_constant if index == 0 else 0.5 + 0.01 * index
        if type_name == "power":
            properties["exponent"] = 1.5
        current = node(type_name, **properties)
        first_port = {"power": "base"}.get(type_name, "a" if type_name in ("multiply", "add", "subtract") else "x")
        wire(previous, current, first_port)
        previous = current
    colour_mix = node("mix")
    wire(tint, colour_mix, "a")
    wire(second, colour_mix, "b")
    wire(previous, colour_mix, "t")
    textured = node("multiply")
    wire(sample, textured, "a", "rgba")
    wire(colour_mix, textured, "b")
    lit = node("multiply")
    wire(textured, lit, "a")
    wire(lambert, lit, "b")
    specular = node("add")
    wire(lit, specular, "a")
    wire(phong, specular, "b")
    rim_light = node("multiply", b=0.25)
    wire(rim, rim_light, "a")
    final = node("add")
    wire(specular, final, "a")
    wire(rim_light, final, "b")
    wire(final, output, "base_color")
    assert len(graph.nodes) == 50, len(graph.nodes)
    return graph


def lambert_graph() -> Any:
    """Normal and light direction into Lambert into the output: 4 nodes."""
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()
    output = graph.add_node("material_output").id
    lambert = graph.add_node("lambert").id
    graph.connect(graph.add_node("normal").id, "out", lambert, "normal")
    graph.connect(graph.add_node("light_direction").id, "out", lambert, "light_direction")
    graph.connect(lambert, "out", output, "base_color")
    return graph


def _timed(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def _summary(label: str, seconds: list[float]) -> str:
    ms = [s * 1000.0 for s in seconds]
    return (f"{label:<26} mean {statistics.mean(ms):8.2f} ms   median {statistics.median(ms):8.2f} ms"
            f"   min {min(ms):8.2f}   max {max(ms):8.2f}   (n={len(ms)})")


def _frame_benchmark(renderer: Renderer, size: int, frames: int) -> list[float]:
    target = Framebuffer(size, size)
    target.bind()
    renderer.render(size, size)  # warm-up: uploads the mesh, textures and uniforms
    GL.glFinish()
    times = []
    for frame in range(frames):
        renderer.time = frame / 60.0
        start = time.perf_counter()
        renderer.render(size, size)
        GL.glFinish()
        times.append(time.perf_counter() - start)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
    target.delete()
    return times


def _generated_artifact(chain_constant: float) -> Any:
    """Without app.material: a hand-generated program of similar size (about 50 operations)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "app" / "preview"))
    from preview_helpers import make_artifact

    lines = [f"  float x = vpl_varying1.x * {chain_constant!r};"]
    for index in range(50):
        lines.append(f"  x = fract(sin(x * {1.0 + 0.01 * index!r}) + {0.5 + 0.01 * index!r});")
    lines.append("  float lit = max(dot(normalize(vpl_varying0), normalize(vpl_u0.vpl_m6)), 0.0);")
    lines.append("  vpl_output0 = vec4(vec3(x) * lit, 1.0);")
    return make_artifact("\n".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--edits", type=int, default=15)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--shader-cache", action="store_true", help="leave Mesa's shader cache on (warm numbers)")
    arguments = parser.parse_args()

    application = QGuiApplication(sys.argv[:1])  # noqa: F841 - the context needs it alive
    context = OffscreenContext()
    print(f"GL: {GL.glGetString(GL.GL_RENDERER).decode()} / {GL.glGetString(GL.GL_VERSION).decode()}")

    try:
        from app.material.lowering import lower
    except ImportError:
        lower = None
    source = "app.material (50-node graph, lowered)" if lower is not None else "generated shader (app.material missing)"

    renderer = Renderer()
    if lower is not None:
        graph = material_graph(1.0)
        result = lower(graph)
        if not result.ok:
            print("the benchmark material does not lower:", *result.diagnostics, sep="\n  ", file=sys.stderr)
            return 1
        print(f"material: {len(graph.nodes)} nodes, {len(graph.connections)} connections, "
              f"{len(result.text.splitlines())} lines of VPL, "
              f"{len(result.artifact.fragment_code.splitlines())} lines of fragment GLSL")
        for spec in result.parameters:
            if spec.default is not None and not isinstance(spec.default, str):
                renderer.set_parameter(spec.name, spec.default)
        renderer.build_program(result.artifact)
    else:
        renderer.build_program(_generated_artifact(1.0))

    frame_times = _frame_benchmark(renderer, arguments.size, arguments.frames)
    print(f"\nframe time, sphere {arguments.size}x{arguments.size}, glFinish per frame ({source}):")
    print("  " + _summary("frame", frame_times))
    print(f"  = {1.0 / statistics.median(frame_times):.1f} frames per second (median)")
    if lower is not None:
        # For scale: the cheapest lit material (Lambert only), same mesh and size.
        simple = lower(lambert_graph())
        renderer.build_program(simple.artifact)
        simple_times = _frame_benchmark(renderer, arguments.size, arguments.frames)
        print("  " + _summary("frame (Lambert only)", simple_times))

    stages: dict[str, list[float]] = {"lower+verify+compile": [], "  of which GLSL compile": [],
                                      "build program (GL)": [], "first frame + readback": [], "total": []}
    target = Framebuffer(arguments.size, arguments.size)
    target.bind()
    for edit in range(arguments.edits):
        constant = 1.0 + 0.125 * (edit + 1)
        if lower is not None:
            graph = material_graph(constant)  # the edit: a new constant at the head of the chain
            lower_time, result = _timed(lambda: lower(graph))
            artifact = result.artifact
            from vpl_core.backends.glsl import compile as compile_glsl

            compile_time, _ = _timed(lambda: compile_glsl(result.verified))
            stages["lower+verify+compile"].append(lower_time)
            stages["  of which GLSL compile"].append(compile_time)
        else:
            lower_time, artifact = _timed(lambda: _generated_artifact(constant))
        build_time, _ = _timed(lambda: renderer.build_program(artifact))

        def draw() -> Any:
            renderer.render(arguments.size, arguments.size)
            return read_pixels(arguments.size // 2, arguments.size // 2, 1, 1)  # waits for the frame

        frame_time, _ = _timed(draw)
        stages["build program (GL)"].append(build_time)
        stages["first frame + readback"].append(frame_time)
        stages["total"].append(lower_time + build_time + frame_time)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
    target.delete()

    print(f"\nedit -> new pixels, {source}:")
    for label, values in stages.items():
        if values:
            print("  " + _summary(label, values))
    print(f"  (graph construction is not timed; the UI's debounce delay comes on top; {renderer.link_count} links)")
    renderer.release()
    context.done()
    return 0


if __name__ == "__main__":
    sys.exit(main())
