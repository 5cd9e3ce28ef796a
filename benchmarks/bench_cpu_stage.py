"""The CPU preview's stage: frame time with shadows, ground, occlusion and the extra lights on and off.

Frame time (`CpuRenderer.render_image`: the VPL interpreter draws the
material once per light setting, numpy the masks, app/preview/cpu_stage.py)
of `painted_metal` on the material ball in the `studio` environment,
interleaved round by round so load changes hit every case alike: the stage
off; ground alone; shadows and ground; shadows, ground and geometry
occlusion; fill and rim lights. The shadow and height maps and the
per-vertex occlusion are made once before the rounds (they are cached per
mesh and light, as when the artist orbits). Prints median and min and the
ratio of each median to the plain frame.

    .venv/bin/python benchmarks/bench_cpu_stage.py [--frames N] [--size S] [--mesh NAME] [--environment NAME]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.material.examples import example_path
from app.preview.cpu_renderer import CpuRenderer
from app.preview.preview_state import prepare_environment
from app.preview.screenshot import read_program
from app.preview.stage import Stage

#: case -> ((shadows, ground, occlusion), fill and rim lights on).
CASES = {"plain": ((False, False, False), False), "ground": ((False, True, False), False),
         "shadows + ground": ((True, True, False), False), "all three": ((True, True, True), False),
         "fill + rim": ((False, False, False), True)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3, help="rounds (each case once per round)")
    parser.add_argument("--size", type=int, default=128, help="frame side in pixels")
    parser.add_argument("--mesh", default="ball", help="the stage's mesh (default ball)")
    parser.add_argument("--environment", default="studio", help="the stage's environment (default studio)")
    arguments = parser.parse_args()
    verified, _parameters = read_program(str(example_path("painted_metal")))
    renderers = {}
    for name, (switches, extra) in CASES.items():
        stage = Stage()
        stage.set_mesh(arguments.mesh)
        stage.set_environment(arguments.environment)
        stage.set_switches(shadows="on" if switches[0] else "off", ground="on" if switches[1] else "off",
                           occlusion="on" if switches[2] else "off")
        stage.set_extra_light("fill", enabled=extra)
        stage.set_extra_light("rim", enabled=extra)
        renderer = CpuRenderer()
        stage.apply(renderer)
        prepared = prepare_environment(stage.environment)
        if prepared is not None:
            renderer.set_environment_maps(prepared[0])
            renderer.set_brdf_table(prepared[1])
        renderer.set_program(verified)
        renderer.render_image(arguments.size, arguments.size)  # warm: caches, textures, the mesh's occlusion
        renderers[name] = renderer
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _round in range(arguments.frames):
        for name, renderer in renderers.items():
            start = time.perf_counter()
            renderer.render_image(arguments.size, arguments.size)
            times[name].append(time.perf_counter() - start)
    plain = statistics.median(times["plain"])
    print(f"painted_metal on the {arguments.mesh}, {arguments.environment}, {arguments.size}x{arguments.size}, "
          f"{arguments.frames} rounds")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:18s} median {median * 1000:8.0f} ms  min {min(values) * 1000:8.0f} ms  ratio {median / plain:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
