"""Physically based materials: frame time of the Surface Output vs a hand-lit material, IBL cost, lowering time.

1. Frame time at 512x512 (every frame ends in glFinish; Mesa llvmpipe runs
   on the CPU) of, in one run and interleaved round by round so that load
   changes hit every case alike:
   - `lit_blinn_phong` (the hand-lit Unlit Output example: no HDR pass);
   - `painted_metal` (Surface Output: three textures, normal map, the glTF
     BRDF, image-based lighting, the HDR framebuffer and the post pass),
     lit by a uniform environment ("no IBL maps": 1-texel maps) and by a
     prefiltered environment (the bundled `studio` when the IBL components
     are installed, else a synthetic 1024x512 chain; the script says which);
   - a constant-colour Surface Output and Unlit Output (the cost of the
     shading, the HDR target and the post pass), and the post pass alone.
   Prints mean / median / min per case and the ratios to lit_blinn_phong.

2. Lowering + verification + GLSL time of every physically based example
   (`lower` timings: types, lowering, publication, glsl), median of N runs.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_pbr.py [--frames N] [--size S] [--lowerings L]
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

import numpy as np
from OpenGL import GL
from PySide6.QtGui import QGuiApplication

from app.material.examples import EXAMPLE_GRAPHS, example_path, load_example
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.context import OffscreenContext
from app.preview.images import load_image_rgba
from app.preview.renderer import EnvironmentMaps, Framebuffer, Renderer
from app.session.textures import resolve_texture_path

PBR_EXAMPLES = ["painted_metal", "brushed_metal", "polished_gold", "rough_plastic", "glazed_ceramic", "material_chart"]


def _constant(output_type: str) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node(output_type)
    return graph


def example_graph(name: str) -> MaterialGraph:
    """The shipped example `name`'s graph, read from its file as the editor opens it."""
    loaded = load_example(name)
    if loaded.graph is None:
        raise SystemExit(f"{name}: {loaded.message}")
    return loaded.graph


def _prepared(graph: MaterialGraph, document: str | None) -> tuple[Any, list[Any], str | None]:
    result = lower(graph)
    if not result.ok:
        raise SystemExit(f"cannot lower: {result.diagnostics}")
    return result.artifact, result.parameters, document


def _environment() -> tuple[EnvironmentMaps, np.ndarray | None, str]:
    """(maps, BRDF table or None, description): the bundled studio when the IBL components exist."""
    try:
        from app.preview.ibl_assets import PrefilterJob
    except ImportError:
        levels, height = [], 512
        rng = np.random.default_rng(1)
        while height >= 16:
            levels.append(rng.random((height, 2 * height, 3)).astype(np.float16))
            height //= 2
        return EnvironmentMaps(tuple(levels), levels[-1][:32, :64]), None, "synthetic 1024x512 chain (IBL components not installed)"
    prepared = PrefilterJob("studio").run()  # the preview's cache
    maps = EnvironmentMaps(tuple(prepared.assets.specular), prepared.assets.irradiance)
    return maps, prepared.brdf_lut, "bundled studio environment"


def interleaved_frames(cases: dict[str, tuple[Any, list[Any], str | None]], frames: int, size: int,
                       with_maps: Callable[[str], bool],
                       after: Callable[[dict[str, Renderer]], None] | None = None) -> tuple[dict[str, list[float]], str]:
    """Frame times of each case at size x size, interleaved round by round so that load changes hit every case alike.

    A renderer per case (`_prepared`: its artifact, parameter defaults and textures beside its document), with
    `_environment`'s BRDF table, and its prefiltered maps where `with_maps(name)`; one warm-up frame each (the
    driver compiles at the first draw), then `frames` rounds; every frame ends in glFinish. `after` runs on the
    renderers, the target still bound, before they are released. Returns (case -> seconds per frame, the
    environment's description).
    """
    maps, table, description = _environment()
    renderers: dict[str, Renderer] = {}
    for name, (artifact, parameters, document) in cases.items():
        renderer = Renderer()
        for spec in parameters:
            if isinstance(spec.default, str) and document is not None:
                renderer.set_texture(spec.name, load_image_rgba(str(resolve_texture_path(spec.default, Path(document).parent))))
            elif spec.default is not None and not isinstance(spec.default, str):
                renderer.set_parameter(spec.name, spec.default)
        if table is not None:
            renderer.set_brdf_table(table)
        if with_maps(name):
            renderer.set_environment_maps(maps)
        renderer.build_program(artifact)
        renderers[name] = renderer
    target = Framebuffer(size, size)
    target.bind()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for renderer in renderers.values():
        renderer.render(size, size)
        GL.glFinish()
    for _ in range(frames):
        for name, renderer in renderers.items():
            started = time.perf_counter()
            renderer.render(size, size)
            GL.glFinish()
            samples[name].append(time.perf_counter() - started)
    if after is not None:
        after(renderers)
    target.delete()
    for renderer in renderers.values():
        renderer.release()
    return samples, description


def frame_times(frames: int, size: int) -> None:
    cases = {
        "lit_blinn_phong (Unlit Output, hand-lit)": _prepared(example_graph("lit_blinn_phong"), None),
        "painted_metal, uniform environment": _prepared(example_graph("painted_metal"), str(example_path("painted_metal"))),
        "painted_metal, prefiltered environment": _prepared(example_graph("painted_metal"), str(example_path("painted_metal"))),
        "constant Unlit Output": _prepared(_constant("material_output"), None),
        "constant Surface Output": _prepared(_constant("surface_output"), None),
    }
    post_times: list[float] = []

    def time_post(renderers: dict[str, Renderer]) -> None:
        # The post pass alone (exposure, Khronos PBR Neutral, sRGB) over the whole 512x512 target.
        surface = renderers["constant Surface Output"]
        post = surface._post_program(surface.tone_mapper)
        hdr = surface._hdr_target
        assert hdr is not None, "the Surface Output's frames were drawn into the HDR target"
        for _ in range(frames):
            started = time.perf_counter()
            surface._draw_post(size, size, post, hdr.texture)
            GL.glFinish()
            post_times.append(time.perf_counter() - started)

    samples, description = interleaved_frames(cases, frames, size, lambda name: "prefiltered" in name, after=time_post)
    print(f"Frame time at {size}x{size}, {frames} frames each, interleaved (environment: {description})")
    baseline = statistics.median(samples["lit_blinn_phong (Unlit Output, hand-lit)"])
    for name, times in samples.items():
        median = statistics.median(times)
        print(f"  {name:45s} mean {1000 * statistics.mean(times):7.2f} ms  median {1000 * median:7.2f} ms  "
              f"min {1000 * min(times):7.2f} ms  ratio to lit_blinn_phong {median / baseline:5.2f}")
    with_maps = statistics.median(samples["painted_metal, prefiltered environment"])
    uniform = statistics.median(samples["painted_metal, uniform environment"])
    print(f"  IBL maps vs uniform environment (painted_metal): {with_maps / uniform:.2f}")
    print(f"  the post pass alone (exposure, PBR Neutral, sRGB over {size}x{size}): median {1000 * statistics.median(post_times):.2f} ms")


def lowering_times(runs: int) -> None:
    print(f"Lowering + verification + GLSL of the physically based examples (median of {runs})")
    for name in PBR_EXAMPLES:
        graph = EXAMPLE_GRAPHS[name]()
        phases: dict[str, list[float]] = {}
        totals = []
        for _ in range(runs):
            started = time.perf_counter()
            result = lower(graph)
            totals.append(time.perf_counter() - started)
            for phase, seconds in result.timings.items():
                phases.setdefault(phase, []).append(seconds)
        parts = "  ".join(f"{phase} {1000 * statistics.median(values):6.2f}" for phase, values in phases.items())
        print(f"  {name:16s} total {1000 * statistics.median(totals):7.2f} ms   ({parts} ms)")


def on_offscreen_gl(measure: Callable[[], None]) -> None:
    """Print the load average, then run `measure` with the preview's default GL profile current on an offscreen
    context (a Qt application alive around it; PyOpenGL on Qt's platform), released afterwards whatever happens."""
    application = QGuiApplication(sys.argv[:1])
    from app.preview.context import DEFAULT_PROFILE, align_pyopengl_platform

    align_pyopengl_platform(application.platformName())
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}, {os.cpu_count()} CPUs")
    context = OffscreenContext(DEFAULT_PROFILE)
    try:
        measure()
    finally:
        context.done()
    del application


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--lowerings", type=int, default=15)
    arguments = parser.parse_args()
    on_offscreen_gl(lambda: frame_times(arguments.frames, arguments.size))
    lowering_times(arguments.lowerings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
