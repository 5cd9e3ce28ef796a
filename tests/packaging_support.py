"""Test support: build the package as a wheel would, and run code against the build alone.

`build_package` runs setuptools' build_py with the project's pyproject.toml on
a copy of the sources, so package data (the built-in programs and the example
materials, shipped through symlinks into resources/) is resolved exactly as
in a wheel. `run_from_build` imports from that build only: no site packages,
no source tree, another working directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_package(directory: Path) -> Path:
    project = directory / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    ignore = shutil.ignore_patterns("__pycache__")
    for package in ("vpl_core", "app"):
        shutil.copytree(ROOT / package, project / package, symlinks=True, ignore=ignore)
    shutil.copytree(ROOT / "resources", project / "resources", ignore=ignore)
    build = directory / "build"
    result = subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py", "--build-lib", str(build)],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return build


def run_from_build(build: Path, probe: str, directory: Path) -> subprocess.CompletedProcess[str]:
    """Run `probe` (Python source; `sys.argv[1]` is the build) with only the build importable."""
    directory.mkdir(exist_ok=True)
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-S", "-c", probe, str(build)], cwd=directory, capture_output=True, text=True,
        timeout=120, env=environment,
    )
