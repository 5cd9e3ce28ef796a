"""Baking: wall time of the painted-metal example at 1024² and 2048² (and with 2×2 supersampling).

For each size: median of N runs of `bake_material` (lowering of every pass,
GL draws tile by tile, read-back, supersample reduction, seam dilation), and
separately of `save_maps` (PNG/EXR encoding through OpenImageIO) and of the
glTF export (`export_gltf`, .glb), on the sphere, in an offscreen context.
Times are wall clock on whatever GL the machine has (Mesa llvmpipe here:
software rendering, so the GPU part is CPU-bound); compare runs on one machine.

Run under X (baking needs GL):
    xvfb-run -a .venv/bin/python benchmarks/bench_bake.py [--runs N] [--sizes 1024 2048]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.export.bake import Baker, BakeSettings, bake_context  # noqa: E402 - after the path
from app.export.gltf import export_gltf  # noqa: E402
from app.export.maps import save_maps  # noqa: E402
from app.material.document import load_file  # noqa: E402

EXAMPLE = ROOT / "resources" / "examples" / "painted_metal.vpl"


def median_seconds(work: Callable[[], object], runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    arguments = parser.parse_args()
    graph = load_file(str(EXAMPLE)).graph
    assert graph is not None
    print(f"painted_metal on the sphere, median of {arguments.runs} runs")
    print(f"{'size':>6} {'ss':>3} {'bake s':>8} {'Mtexel/s':>9} {'maps s':>7} {'glb s':>6}")
    with bake_context(), tempfile.TemporaryDirectory() as scratch:
        for size in arguments.sizes:
            for supersampling in (1, 2):
                settings = BakeSettings(size, supersampling, None, "sphere")
                baker = Baker(graph, settings, document_dir=EXAMPLE.parent)
                baker.bake_material()  # warm-up: mesh upload, first compiles
                bake_time, baked = median_seconds(lambda b=baker: b.bake_material(), arguments.runs)
                maps_time, _ = median_seconds(lambda baked=baked: save_maps(baked, Path(scratch) / "maps", mesh="sphere"),
                                              arguments.runs)
                glb_time, _ = median_seconds(
                    lambda baked=baked, b=baker: export_gltf(baked, b.mesh(), Path(scratch) / "m.glb", name="m"), arguments.runs)
                rate = size * size / bake_time / 1e6
                print(f"{size:>6} {supersampling:>3} {bake_time:>8.2f} {rate:>9.2f} {maps_time:>7.2f} {glb_time:>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
