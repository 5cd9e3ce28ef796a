"""The refined environment light: frames to converge and time to the converged frame, against the live frame.

At SIZE x SIZE (default 512; every frame ends in glFinish; Mesa llvmpipe
runs on the CPU), lit by the bundled `studio` environment, for
`painted_metal` (the example: three textures, a normal map), a rough
gold (a Surface Output, base colour (1, 0.766, 0.336), metallic 1,
roughness 0.6) and `brushed_aluminium` (the example: an OpenPBR Surface
whose anisotropic lobe is integrated per pixel in refined frames):
- the live frame (the live program: the split sum, no refined path in it),
  median of `--live` frames, interleaved with the refined variant drawn as
  a live frame (`lower(..., refined=True)` at `environment_sample_frame` 0:
  the same pixels, the sampling loop present but entered by no pixel), the
  cost the live frame would pay if one program served both;
- the first refined frame, which makes the refined variant (lowering,
  publishing, compiling, linking: once per material structure);
- the refined frames 1..N (N = `--frames`, default the preview's
  `REFINE_FRAMES`): median and total time, each frame including the
  accumulation (read back, summed in host memory, the mean uploaded and
  tone-mapped), as the preview draws them;
- frames to converge: the first frame k whose displayed image (8-bit sRGB)
  is within a mean of 1 level (and of 0.5) of frame N's over the covered
  pixels, and the time from the first refined frame to frame N.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_refine.py [--size S] [--frames N] [--live L]
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

import numpy as np
from OpenGL import GL
from PySide6.QtGui import QGuiApplication

from app.material.examples import example_path, load_example
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.context import OffscreenContext
from app.preview.ibl_assets import PrefilterJob
from app.preview.images import load_image_rgba
from app.preview.preview_state import REFINE_FRAMES, environment_maps
from app.preview.renderer import Framebuffer, Renderer, read_pixels
from app.session.artifacts import refined_maker
from app.session.textures import resolve_texture_path


def _rough_gold() -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (1.0, 0.766, 0.336, 1.0), "metallic": 1.0, "roughness": 0.6})
    return graph


def _renderer(graph: MaterialGraph, document: str | None, prepared: object, refined_drawn: bool = False) -> Renderer:
    """A renderer drawing `graph`'s live program with its refined variant's maker, as the preview; with
    `refined_drawn`, drawing the refined variant itself (and no maker)."""
    result = lower(graph, refined=refined_drawn)
    if not result.ok or result.artifact is None:
        raise SystemExit(f"cannot lower: {result.diagnostics}")
    renderer = Renderer()
    for spec in result.parameters:
        if isinstance(spec.default, str) and document is not None:
            renderer.set_texture(spec.name, load_image_rgba(str(resolve_texture_path(spec.default, Path(document).parent))))
        elif spec.default is not None and not isinstance(spec.default, str):
            renderer.set_parameter(spec.name, spec.default)
    renderer.set_environment_maps(environment_maps(prepared))  # type: ignore[arg-type]
    renderer.set_brdf_table(prepared.brdf_lut)  # type: ignore[attr-defined]
    renderer.build_program(result.artifact, refined=None if refined_drawn else refined_maker(graph, result.artifact.target))
    return renderer


def _live_frame_of(renderer: Renderer, size: int, live: int) -> float:
    target = Framebuffer(size, size)
    target.bind()
    try:
        _timed_frame(renderer, size, 0)
        return statistics.median(_timed_frame(renderer, size, 0)[0] for _ in range(live))
    finally:
        target.delete()


def _timed_frame(renderer: Renderer, size: int, sample_frame: int) -> tuple[float, np.ndarray]:
    renderer.sample_frame = sample_frame
    try:
        started = time.perf_counter()
        renderer.render(size, size)
        GL.glFinish()
        seconds = time.perf_counter() - started
    finally:
        renderer.sample_frame = 0
    return seconds, read_pixels(0, 0, size, size)[..., :3].astype(np.float64)


def measure(name: str, renderer: Renderer, size: int, frames: int, live: int, looped: Renderer) -> None:
    renderer.refine_frames = frames
    target = Framebuffer(size, size)
    target.bind()
    try:
        _timed_frame(renderer, size, 0)  # warm-up: the driver compiles at the first draw
        live_times = []
        looped_times = []
        for _ in range(live):  # interleaved: load changes hit both alike
            live_times.append(_timed_frame(renderer, size, 0)[0])
            looped_times.append(_live_frame_of(looped, size, 1))
        target.bind()
        first = _timed_frame(renderer, size, 1)[0]  # makes and links the refined variant
        refined: list[tuple[float, np.ndarray]] = [_timed_frame(renderer, size, frame) for frame in range(1, frames + 1)]
    finally:
        target.delete()
    final = refined[-1][1]
    covered = np.abs(final - final[0, 0]).sum(axis=-1) > 0  # differs from the corner's background
    if not covered.any():
        covered[...] = True
    within = {}
    for bound in (1.0, 0.5):
        within[bound] = next(frame for frame, (_, image) in enumerate(refined, start=1)
                             if np.abs(image - final)[covered].mean() <= bound)
    times = [seconds for seconds, _ in refined]
    live_median = statistics.median(live_times)
    with_loop = statistics.median(looped_times)
    print(f"  {name:30s} live frame median {1000 * live_median:8.1f} ms (with the refined loop in the program "
          f"{1000 * with_loop:8.1f} ms, {with_loop / live_median:4.2f}x) | first refined frame {1000 * first:8.1f} ms "
          f"(makes the variant) | refined frame median {1000 * statistics.median(times):8.1f} ms "
          f"({statistics.median(times) / live_median:4.1f}x) | {frames} frames: {sum(times):6.2f} s to the converged frame | "
          f"within 1 level of it after {within[1.0]} frames ({sum(times[:within[1.0]]):5.2f} s), within 0.5 after {within[0.5]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--frames", type=int, default=REFINE_FRAMES)
    parser.add_argument("--live", type=int, default=10)
    arguments = parser.parse_args()
    application = QGuiApplication(sys.argv[:1])
    from app.preview.context import DEFAULT_PROFILE, align_pyopengl_platform

    align_pyopengl_platform(application.platformName())
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}, {os.cpu_count()} CPUs")
    prepared = PrefilterJob("studio").run()  # the preview's cache
    context = OffscreenContext(DEFAULT_PROFILE)
    try:
        print(f"Refined environment light at {arguments.size}x{arguments.size}, studio environment, "
              f"{arguments.frames} frames of 16 samples a pixel")
        painted = load_example("painted_metal").graph
        assert painted is not None
        brushed = load_example("brushed_aluminium").graph
        assert brushed is not None
        cases = {"painted_metal": (painted, str(example_path("painted_metal"))),
                 "rough gold (roughness 0.6)": (_rough_gold(), None),
                 "brushed_aluminium (OpenPBR)": (brushed, str(example_path("brushed_aluminium")))}
        for name, (graph, document) in cases.items():
            renderer = _renderer(graph, document, prepared)
            looped = _renderer(graph, document, prepared, refined_drawn=True)
            try:
                measure(name, renderer, arguments.size, arguments.frames, arguments.live, looped)
            finally:
                renderer.release()
                looped.release()
    finally:
        context.done()
    print(f"load average at the end: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
