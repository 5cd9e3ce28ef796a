"""Built-in programs (spec 12.5): canonical checked-in sources, shipped as package data, loaded without
any working-directory or source-tree dependence, labelled with their file names."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging_support import run_from_build

from vpl_core import programs
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.publish import VerifiedModule
from vpl_core.text import read, write

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "resources" / "programs"
NAMES = ("mesh-ambient-color", "vertex-ambient-color", "texture-ambient-color", "texture-vertex-ambient-color")


def test_the_four_variants() -> None:
    assert programs.names() == NAMES
    assert sorted(path.stem for path in SOURCES.glob("*.vpl")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_packaged_bytes_equal_the_checked_in_source(name: str) -> None:
    assert programs.source(name) == (SOURCES / f"{name}.vpl").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_sources_are_canonical_text(name: str) -> None:
    text = (SOURCES / f"{name}.vpl").read_text(encoding="utf-8")
    assert write(read(text, label=f"{name}.vpl")) == text


@pytest.mark.parametrize("name", NAMES)
def test_load_publishes_a_verified_module_labelled_with_the_file_name(name: str) -> None:
    verified = programs.load(name)
    assert isinstance(verified, VerifiedModule)
    assert verified.label == f"{name}.vpl"
    assert verified.text == programs.source(name).decode("utf-8")
    artifact = compile_glsl(verified)
    assert [binding.name for binding in artifact.uniforms][:2] == ["model_view_projection", "ambient_color"]
    position = artifact.vertex_interface[0]
    assert (position.name, position.location, str(position.type)) == ("position", 0, "vector float 3")


def test_read_errors_name_the_program_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(programs, "source", lambda name: b"(module 1 (types) (uniforms) (vertex")
    with pytest.raises(Exception) as caught:
        programs.load("mesh-ambient-color")
    assert caught.value.diagnostic.label == "mesh-ambient-color.vpl"  # type: ignore[attr-defined]
    assert str(caught.value).startswith("mesh-ambient-color.vpl:1:")


def test_unknown_programs_are_rejected() -> None:
    with pytest.raises(KeyError, match="unknown built-in program 'mesh'"):
        programs.source("mesh")
    with pytest.raises(KeyError):
        programs.load("../pyproject")


def test_loading_does_not_depend_on_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert programs.load("texture-vertex-ambient-color").label == "texture-vertex-ambient-color.vpl"


def test_a_built_package_ships_the_exact_bytes_and_works_without_the_source_tree(
    built_package: Path, tmp_path: Path
) -> None:
    shipped = built_package / "vpl_core" / "builtin_programs"
    for name in NAMES:
        path = shipped / f"{name}.vpl"
        assert path.is_file() and not path.is_symlink()
        assert path.read_bytes() == (SOURCES / f"{name}.vpl").read_bytes()
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); from vpl_core import programs; "
        "import vpl_core; assert vpl_core.__file__.startswith(sys.argv[1]), vpl_core.__file__; "
        "print(len(programs.source('mesh-ambient-color')), programs.load('texture-ambient-color').label)"
    )
    result = run_from_build(built_package, probe, tmp_path / "elsewhere")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == [str(len((SOURCES / "mesh-ambient-color.vpl").read_bytes())), "texture-ambient-color.vpl"]
