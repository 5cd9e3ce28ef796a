"""Every benchmark still runs: each `benchmarks/*.py` is started on its smallest setting.

A benchmark is not a test (it prints figures and asserts no time), but one
that no longer imports or runs fails here. `SMALLEST` gives each its
arguments and the tier marks of what it needs; a benchmark missing from it
fails `test_every_benchmark_has_a_smallest_setting`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"

# Every benchmark run is `heavy` besides the marks of what it needs: a subprocess and seconds of CPU each,
# for the full tier (`test_every_benchmark_has_a_smallest_setting` stays in the fast one).
gl, glslang, slow, heavy = pytest.mark.gl, pytest.mark.glslang, pytest.mark.slow, pytest.mark.heavy

#: benchmark -> (arguments of its smallest setting, marks of what it needs).
SMALLEST: dict[str, tuple[list[str], list[pytest.MarkDecorator]]] = {
    "bench_analysis_filters.py": (["--size", "256", "--runs", "1", "--only", "curvature"], [gl]),
    "bench_bake.py": (["--runs", "1", "--sizes", "256"], [gl]),
    "bench_bump.py": (["--frames", "1", "--size", "32", "--only", "rough_plastic"], [gl]),
    "bench_bundle.py": (["--runs", "1"], [gl, slow]),  # times the run's bundle (--archive), builds nothing
    "bench_cpu_stage.py": (["--frames", "1", "--size", "16", "--mesh", "sphere", "--environment", "none"], []),
    "bench_displacement.py": (["--frames", "1", "--size", "32"], [gl]),
    "bench_editor.py": (["--quick", "--skip-opening", "--skip-interactive", "--startup-runs", "1"], [gl]),
    "bench_glsl.py": (["--sizes", "100", "--repeat", "1"], [glslang]),
    "bench_groups.py": (["--levels", "10", "--repeat", "1"], []),
    "bench_ibl.py": (["--runs", "1", "--skip-gpu", "--step", "16"], []),
    "bench_interp.py": (["--frames", "1", "--size", "16", "--largest-module", "200", "--examples", "painted_metal"], []),
    "bench_launch.py": (["--runs", "1"], [gl]),
    "bench_jade_monte_carlo.py": (["--size", "32", "--samples", "16", "--step", "8", "--mc-samples", "2000"], [gl]),
    "bench_lowering.py": (["--sizes", "20", "--repeat", "1"], []),
    "bench_mtlx_reference.py": (["GltfPbr/gltf_pbr_plastic.mtlx", "--size", "32", "--samples", "16"], [gl]),
    "bench_noise.py": (["--frames", "1", "--size", "32"], [gl]),
    "bench_openpbr_frames.py": (["--frames", "1", "--size", "32"], [gl]),
    "bench_orbit.py": (["--rounds", "1", "--seconds", "0.5", "--size", "64"], [gl]),
    "bench_overview.py": (["--sizes", "50", "--repeat", "1"], []),
    "bench_region_filters.py": (["--size", "256", "--runs", "1"], [gl]),
    "bench_pbr.py": (["--frames", "1", "--size", "32", "--lowerings", "1"], [gl]),
    "bench_lobe_direction.py": (["--frames", "1", "--size", "32"], [gl]),
    "bench_refine.py": (["--size", "32", "--frames", "2", "--live", "1"], [gl]),
    "bench_pipeline.py": (["--sizes", "100", "--repeat", "1", "--quick", "--sections", "1", "2", "3", "4",
                           "--shape-sizes", "100", "--startup-rounds", "2"], [glslang]),
    "bench_preview.py": (["--frames", "2", "--edits", "1", "--size", "32"], [gl]),
    "bench_stage.py": (["--frames", "1", "--size", "32", "--turntable-frames", "2", "--refine-frames", "2"], [gl]),
    "bench_text.py": (["--sizes", "100", "--repeat", "1"], []),
    "bench_texture_passes.py": (["--size", "256", "--runs", "1"], [gl]),
    "bench_thumbnails.py": (["--runs", "1", "--seconds", "0.2", "--large-sizes", ""], [gl]),
    "bench_values.py": (["--steps", "3", "--previews", "cpu"], []),  # the CPU preview: a window, no OpenGL
    "bench_verify.py": (["--repeat", "1", "--scale", "0.01"], []),
    "bench_warp_filters.py": (["--size", "256", "--runs", "1"], [gl]),
}


def test_every_benchmark_has_a_smallest_setting() -> None:
    # bench_*.py are the benchmarks; other scripts there are their inputs (stone_wall_single_pass.py makes a twin).
    present = sorted(path.name for path in BENCHMARKS.glob("bench_*.py"))
    assert sorted(SMALLEST) == present, "add the new benchmark to SMALLEST (or remove a deleted one)"


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[*marks, heavy], id=name.removesuffix(".py")) for name, (_, marks) in SMALLEST.items()]
)
def test_the_benchmark_runs_on_its_smallest_setting(name: str, tmp_path: Path) -> None:
    arguments = list(SMALLEST[name][0])
    if name == "bench_bundle.py":
        from bundle_build import BUILD

        result = BUILD.result()
        assert result.returncode == 0, result.stderr[-4000:]
        arguments += ["--archive", result.stdout.strip().splitlines()[-1]]
    environment = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path))
    completed = subprocess.run([sys.executable, str(BENCHMARKS / name), *arguments], cwd=ROOT, env=environment,
                               capture_output=True, text=True, timeout=600, check=False)
    assert completed.returncode == 0, f"{name} failed:\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
    assert completed.stdout.strip(), f"{name} printed no figures"
