"""Shadows, ground and turntables: frame time with the stage passes on and off, and a turntable's time.

1. Frame time (`Renderer.render_image`, which ends in glFinish; Mesa
   llvmpipe runs on the CPU) of `painted_metal` on the material ball in the
   `studio` environment, interleaved round by round so load changes hit
   every case alike: shadows, ground and geometry occlusion off; each alone;
   all three. Prints mean / median / min and the ratio of each
   median to the plain frame.
2. A turntable of the same stage with shadows, ground and occlusion: `--turntable-frames`
   frames (default 36) rendered and encoded as GIF and as MP4 through
   `app.preview.turntable.turntable` (one process, the program built once
   per turntable), wall time each.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_stage.py [--frames N] [--size S] [--turntable-frames F]
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

from app.material.examples import example_path
from app.preview.context import OffscreenContext
from app.preview.preview_state import prepare_environment
from app.preview.renderer import Renderer
from app.preview.screenshot import ensure_gui_application, load_program
from app.preview.stage import Stage
from app.preview.turntable import turntable

CASES = {"plain": (False, False, False), "ground": (False, True, False), "shadows": (True, False, False),
         "occlusion": (False, False, True), "all three": (True, True, True)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20, help="frames per case (default 20)")
    parser.add_argument("--size", type=int, default=512, help="frame side in pixels (default 512)")
    parser.add_argument("--turntable-frames", type=int, default=36, help="turntable frames (default 36; 0 skips it)")
    arguments = parser.parse_args()
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
        renderer.build_program(artifact)
        times: dict[str, list[float]] = {name: [] for name in CASES}
        for switches in CASES.values():  # warm-up: the driver compiles each pass at its first draw
            renderer.set_shadows(*switches)
            renderer.render_image(arguments.size, arguments.size)
        for _ in range(arguments.frames):
            for name, switches in CASES.items():
                renderer.set_shadows(*switches)
                start = time.perf_counter()
                renderer.render_image(arguments.size, arguments.size)
                times[name].append(time.perf_counter() - start)
    finally:
        renderer.release()
        context.done()
    load = os.getloadavg()[0]
    print(f"painted_metal on the ball, studio, {arguments.size}x{arguments.size}, {arguments.frames} frames a case, "
          f"load average {load:.2f} on {os.cpu_count()} CPUs")
    plain = statistics.median(times["plain"])
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"  {name:15s} mean {1000 * statistics.mean(samples):7.1f} ms  median {1000 * median:7.1f} ms  "
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
                      f"with shadows, ground and occlusion: {elapsed:.1f} s (status {status}, {size / 1e6:.1f} MB)")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
