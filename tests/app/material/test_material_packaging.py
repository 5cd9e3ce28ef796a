"""Examples ship inside the package and load without the source tree or a working-directory convention."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.material.examples import EXAMPLE_GRAPHS, example_names, load_example

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ROOT / "resources" / "examples"


def test_examples_load_from_any_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert set(example_names()) == set(EXAMPLE_GRAPHS)
    loaded = load_example("textured")
    assert loaded.graph is not None and loaded.label == "textured.vpl"


def test_a_built_package_ships_the_examples_and_loads_them_without_the_source_tree(tmp_path: Path) -> None:
    # Build as a wheel would (setuptools build_py with the project's pyproject.toml),
    # then import from the build only: no site packages, no source tree, another directory.
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    ignore = shutil.ignore_patterns("__pycache__")
    for package in ("vpl_core", "app"):
        shutil.copytree(ROOT / package, project / package, symlinks=True, ignore=ignore)
    shutil.copytree(ROOT / "resources", project / "resources", ignore=ignore)
    build = tmp_path / "build"
    result = subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py", "--build-lib", str(build)],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    shipped = build / "app" / "material" / "examples"
    for name in EXAMPLE_GRAPHS:
        path = shipped / f"{name}.vpl"
        assert path.is_file() and not path.is_symlink()
        assert path.read_bytes() == (SOURCES / f"{name}.vpl").read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import app.material.examples as examples; "
        "assert examples.__file__.startswith(sys.argv[1]), examples.__file__; "
        "document = examples.load_example(examples.DEFAULT_EXAMPLE); "
        "assert document.graph is not None and not document.read_only, document.message; "
        "print(' '.join(examples.example_names()))"
    )
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-S", "-c", probe, str(build)], cwd=elsewhere, capture_output=True, text=True,
        timeout=120, env=environment,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == sorted(EXAMPLE_GRAPHS)
