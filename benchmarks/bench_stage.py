"""Shadows, ground and turntables: frame time with the stage passes on and off, and a turntable's time.

1. Frame time (`Renderer.render_image`, which ends in glFinish; Mesa
   llvmpipe runs on the CPU) of `painted_metal` on the material ball in the
   `studio` environment, interleaved round by round so load changes hit
   every case alike: shadows, ground and geometry occlusion off; each alone;
   all three; then the same material with a height (the paint's thickness:
   1 − metallic of its ORM map, scale `--pom-scale`, mid level 1) drawn
   with parallax occlusion mapping, alone and with the three; and the
   fill and rim lights on (over the plain frame). Prints mean / median / min
   and the ratio of each median to the plain frame (everything off).
2. A turntable of the same stage with shadows, ground and occlusion: `--turntable-frames`
   frames (default 36) rendered and encoded as GIF and as MP4 through
   `app.preview.turntable.turntable` (one process, the program built once
   per turntable), wall time each. Each picture averages `--refine-frames`
   frames of the refined environment light (default the application's 64).

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_stage.py [--frames N] [--size S] [--turntable-frames F]
        [--refine-frames R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from app.material.examples import EXAMPLE_GRAPHS, example_path
from app.material.lowering import lower
from app.preview import preview_state
from app.preview.context import OffscreenContext
from app.preview.preview_state import ExtraLight, prepare_environment
from app.preview.renderer import Renderer
from app.preview.screenshot import ensure_gui_application, load_program
from app.preview.stage import Stage
from app.preview.turntable import turntable

#: case -> (the program: "plain" or "pom", (shadows, ground, occlusion), fill and rim lights on).
CASES = {"plain": ("plain", (False, False, False), False), "ground": ("plain", (False, True, False), False),
         "shadows": ("plain", (True, False, False), False), "occlusion": ("plain", (False, False, True), False),
         "all three": ("plain", (True, True, True), False), "pom": ("pom", (False, False, False), False),
         "all three + pom": ("pom", (True, True, True), False), "fill + rim": ("plain", (False, False, False), True)}


def pom_artifact(scale: float) -> tuple[object, list[object]]:
    """painted_metal with the paint's thickness as the Surface Output's height (parallax occlusion mapping)."""
    graph = EXAMPLE_GRAPHS["painted_metal"]()
    output = next(node for node in graph.nodes.values() if node.type_name == "surface_output")
    unpack = next(node for node in graph.nodes.values() if node.type_name == "orm_unpack")
    output.properties.update({"height_scale": scale, "height_mid_level": 1.0})
    thickness = graph.add_node("remap", (0.0, 0.0), {"out_min": 1.0, "out_max": 0.0})
    graph.connect(unpack.id, "metallic", thickness.id, "x")
    graph.connect(thickness.id, "out", output.id, "height")
    result = lower(graph)
    if not result.ok:
        raise SystemExit(f"the height variant does not lower: {result.diagnostics}")
    return result.artifact, list(result.parameters)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20, help="frames per case (default 20)")
    parser.add_argument("--size", type=int, default=512, help="frame side in pixels (default 512)")
    parser.add_argument("--turntable-frames", type=int, default=36, help="turntable frames (default 36; 0 skips it)")
    parser.add_argument("--pom-scale", type=float, default=0.02, help="the height's scale in scene units (default 0.02)")
    parser.add_argument("--refine-frames", type=int, default=preview_state.REFINE_FRAMES,
                        help=f"refined frames averaged per turntable frame (default {preview_state.REFINE_FRAMES}, the "
                             "application's)")
    arguments = parser.parse_args()
    # The renderers made from here on (the turntable's) average this many frames of the refined environment light
    # per picture: the application's count unless asked (tests/test_benchmarks.py's smallest setting draws two).
    preview_state.REFINE_FRAMES = max(arguments.refine_frames, 1)
    if ensure_gui_application() is None:
        print("no display: run under X (see the docstring)", file=sys.stderr)
        return 1
    source = str(example_path("painted_metal"))
    stage = Stage()
    stage.set_mesh("ball")
    context = OffscreenContext()
    renderer = Renderer()
    try:
        stage.apply(renderer)
        prepared = prepare_environment(stage.environment)
        if prepared is not None:
            renderer.set_environment_maps(prepared[0])
            renderer.set_brdf_table(prepared[1])
        artifact, parameters = load_program(source)
        for spec in parameters:
            if spec.default is not None and spec.kind.name not in ("TEXTURE", "OTHER"):
                renderer.set_parameter(spec.name, spec.default)
        programs = {"plain": artifact, "pom": pom_artifact(arguments.pom_scale)[0]}
        lit = Stage()
        lit.set_extra_light("fill", enabled=True)
        lit.set_extra_light("rim", enabled=True)
        extra = {False: ([], 0.0), True: ([ExtraLight(lit.extra_light_direction(which), getattr(lit, f"{which}_color"),
                                                      getattr(lit, f"{which}_intensity")) for which in ("fill", "rim")], 0.0)}

        def choose(case: tuple[str, tuple[bool, bool, bool], bool]) -> None:
            program, switches, lights = case
            renderer.build_program(programs[program])  # linked once: later builds of the same code reuse it
            renderer.set_shadows(*switches)
            renderer.set_stage_lights(*extra[lights])

        times: dict[str, list[float]] = {name: [] for name in CASES}
        for case in CASES.values():  # warm-up: the driver compiles each pass at its first draw
            choose(case)
            renderer.render_image(arguments.size, arguments.size)
        for _ in range(arguments.frames):
            for name, case in CASES.items():
                choose(case)
                start = time.perf_counter()
                renderer.render_image(arguments.size, arguments.size)
                times[name].append(time.perf_counter() - start)
    finally:
        renderer.release()
        context.done()
    load = os.getloadavg()[0]
    print(f"painted_metal on the ball, studio, {arguments.size}x{arguments.size}, {arguments.frames} frames a case, "
          f"height scale {arguments.pom_scale:g} for pom, load average {load:.2f} on {os.cpu_count()} CPUs")
    plain = statistics.median(times["plain"])
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"  {name:16s} mean {1000 * statistics.mean(samples):7.1f} ms  median {1000 * median:7.1f} ms  "
              f"min {1000 * min(samples):7.1f} ms  ({median / plain:.2f}x plain)")
    if arguments.turntable_frames > 0:
        stage.set_switches(shadows="on", ground="on", occlusion="on")
        with tempfile.TemporaryDirectory(prefix="bench-turntable-") as scratch:
            for suffix in (".gif", ".mp4"):
                out = str(Path(scratch) / f"turntable{suffix}")
                start = time.perf_counter()
                status = turntable(source, out, (arguments.size, arguments.size), arguments.turntable_frames, stage=stage)
                elapsed = time.perf_counter() - start
                size = Path(out).stat().st_size if status == 0 else 0
                print(f"  turntable {suffix}: {arguments.turntable_frames} frames at {arguments.size}x{arguments.size} "
                      f"with shadows, ground and occlusion, {preview_state.REFINE_FRAMES} refined frames each: "
                      f"{elapsed:.1f} s (status {status}, {size / 1e6:.1f} MB)")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
