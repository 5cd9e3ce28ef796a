"""The Linux desktop bundle: build time, size, and start-up of the bundled programs.

1. Builds with `installers/build-linux.sh` (the build environment in
   build/linux-bundle is reused when it exists; `--fresh` removes it first,
   as on a clean checkout) and prints the wall time, the archive's size,
   the unpacked size and the largest parts of `_internal/`.
2. Unpacks the archive and times, median of N runs each, the bundled
   programs against the same commands from the project's virtual
   environment: `vpl --version`, `vpl check EXAMPLE`,
   `vpl-editor EXAMPLE --preview-screenshot` (a real GL frame) and
   `vpl-editor --about` (Qt start plus an offscreen context).

Run under X (the preview needs GL):
    xvfb-run -a -s "-screen 0 1280x1024x24" .venv/bin/python benchmarks/bench_bundle.py [--runs N] [--fresh]
`--archive PATH` times a bundle built before instead of building one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "resources" / "examples" / "lit_blinn_phong.vpl"


def _size_mib(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 2**20
    return sum(entry.stat().st_size for entry in path.rglob("*") if entry.is_file() and not entry.is_symlink()) / 2**20


def _median_seconds(command: list[str], env: dict[str, str], cwd: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
        times.append(time.perf_counter() - started)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed: {result.stderr[-2000:]}")
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per start-up measurement (median)")
    parser.add_argument("--fresh", action="store_true", help="remove the reused build environment first")
    parser.add_argument("--archive", type=Path, default=None,
                        help="time this already built bundle archive (.tar.gz) instead of building one")
    arguments = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        print("needs an X display (run under xvfb-run)", file=sys.stderr)
        return 2
    work = ROOT / "build" / "linux-bundle"
    if arguments.fresh and work.exists():
        shutil.rmtree(work)

    with tempfile.TemporaryDirectory(prefix="bench-bundle-") as scratch:
        scratch_path = Path(scratch)
        if arguments.archive is None:
            python = getattr(sys, "_base_executable", "") or sys.executable
            started = time.perf_counter()
            build = subprocess.run([str(ROOT / "installers" / "build-linux.sh"), "--dist", str(scratch_path / "dist"),
                                    "--python", python], capture_output=True, text=True)
            build_seconds = time.perf_counter() - started
            if build.returncode != 0:
                print(build.stderr[-4000:], file=sys.stderr)
                return 1
            archive = Path(build.stdout.strip().splitlines()[-1])
            print(f"build ({'fresh environment' if arguments.fresh else 'reused environment'}): {build_seconds:.1f} s")
        else:
            archive = arguments.archive
        with tarfile.open(archive) as bundle_archive:
            bundle_archive.extractall(scratch_path / "unpacked", filter="tar")
        bundle = next((scratch_path / "unpacked").iterdir())
        internal = bundle / "_internal"

        print(f"archive: {archive.name}: {_size_mib(archive):.1f} MiB; unpacked: {_size_mib(bundle):.1f} MiB")
        parts = sorted(((_size_mib(entry), entry.name) for entry in internal.iterdir() if not entry.is_symlink()),
                       reverse=True)[:8]
        print("largest parts of _internal/: " + ", ".join(f"{name} {size:.1f}" for size, name in parts) + " (MiB)")

        home = scratch_path / "home"
        home.mkdir()
        clean = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "DISPLAY": os.environ["DISPLAY"]}
        if os.environ.get("XAUTHORITY"):
            clean["XAUTHORITY"] = os.environ["XAUTHORITY"]
        venv_bin = Path(sys.executable).parent
        shot = scratch_path / "shot.png"
        commands = {
            "vpl --version": ([str(bundle / "vpl"), "--version"], [str(venv_bin / "vpl"), "--version"]),
            "vpl check EXAMPLE": ([str(bundle / "vpl"), "check", str(EXAMPLE)],
                                  [str(venv_bin / "vpl"), "check", str(EXAMPLE)]),
            "vpl-editor --preview-screenshot": (
                [str(bundle / "vpl-editor"), str(EXAMPLE), "--preview-screenshot", str(shot)],
                [str(venv_bin / "vpl-editor"), str(EXAMPLE), "--preview-screenshot", str(shot)]),
            "vpl-editor --about": ([str(bundle / "vpl-editor"), "--about"], [str(venv_bin / "vpl-editor"), "--about"]),
        }
        print(f"start-up, median of {arguments.runs} (s):  bundle   venv")
        for label, (bundled, from_venv) in commands.items():
            bundled_seconds = _median_seconds(bundled, clean, scratch_path, arguments.runs)
            venv_seconds = _median_seconds(from_venv, dict(os.environ), scratch_path, arguments.runs)
            print(f"  {label:<34} {bundled_seconds:6.2f} {venv_seconds:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
