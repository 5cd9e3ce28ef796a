"""Examples ship inside the package and load without the source tree or a working-directory convention."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging_support import run_from_build

from app.material.examples import EXAMPLE_GRAPHS, example_names, load_example

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ROOT / "resources" / "examples"


def test_examples_load_from_any_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert set(example_names()) == set(EXAMPLE_GRAPHS)
    loaded = load_example("textured")
    assert loaded.graph is not None and loaded.label == "textured.vpl"


def test_a_built_package_ships_the_examples_and_loads_them_without_the_source_tree(
    built_package: Path, tmp_path: Path
) -> None:
    shipped = built_package / "app" / "material" / "examples"
    for name in EXAMPLE_GRAPHS:
        path = shipped / f"{name}.vpl"
        assert path.is_file() and not path.is_symlink()
        assert path.read_bytes() == (SOURCES / f"{name}.vpl").read_bytes()
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import app.material.examples as examples; "
        "assert examples.__file__.startswith(sys.argv[1]), examples.__file__; "
        "document = examples.load_example(examples.DEFAULT_EXAMPLE); "
        "assert document.graph is not None and not document.read_only, document.message; "
        "print(' '.join(examples.example_names()))"
    )
    result = run_from_build(built_package, probe, tmp_path / "elsewhere")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == sorted(EXAMPLE_GRAPHS)
