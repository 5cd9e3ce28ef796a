"""`vpl export-glsl FILE --out DIR` writes, byte for byte, what File > Export GLSL… writes in the real window
(the GLSL, the JSON with its `material` section, copied textures, the stage's environment images)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.material.document import save_file
from app.material.examples import EXAMPLE_GRAPHS, example_path
from vpl_core import cli


def _files(directory: Path) -> dict[str, bytes]:
    return {str(path.relative_to(directory)): path.read_bytes() for path in sorted(directory.rglob("*")) if path.is_file()}


@pytest.mark.parametrize(("example", "stage", "copy_textures"), [
    ("painted_metal", None, True),  # textures beside the material, copied; the user's default stage
    ("polished_gold", {"environment": "neutral", "environment_rotation": 45.0, "exposure": 0.75, "tone_mapper": "agx"},
     False),  # a stage saved with the material: its environment images are written
    ("scattered_pebbles", None, False),  # texture passes: a program per pass and the `passes` entry
])
def test_the_command_writes_what_the_window_exports(make_window, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    example: str, stage: dict | None, copy_textures: bool) -> None:
    folder = tmp_path / "material"
    shutil.copytree(example_path(example).parent / "textures", folder / "textures")
    graph = EXAMPLE_GRAPHS[example]()
    graph.stage = stage
    path = folder / f"{example}.vpl"
    save_file(path, graph)

    window = make_window(load_example=False)
    assert window.files.open_file(path, ask_to_save=False)
    window.flush()
    assert window.files.export_to(tmp_path / "window", copy_textures=copy_textures)

    arguments = ["export-glsl", str(path), "--out", str(tmp_path / "command")]
    assert cli.main([*arguments, *(["--copy-textures"] if copy_textures else [])]) == 0
    assert capsys.readouterr().err == ""
    exported, written = _files(tmp_path / "window"), _files(tmp_path / "command")
    assert f"{example}.json" in written and f"{example}.frag.glsl" in written
    if copy_textures:
        assert any(name.endswith(".png") for name in written)
    if stage is not None:
        assert any(".environment_" in name for name in written)
    if example == "scattered_pebbles":
        assert f"{example}.pass0.frag.glsl" in written and b'"passes"' in written[f"{example}.json"]
    assert sorted(written) == sorted(exported)
    for name, data in exported.items():
        assert written[name] == data, name
        assert b"capDate" not in data  # no time of writing: the same material, the same bytes


def test_a_file_without_a_graph_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = tmp_path / "plain.vpl"
    module.write_text((Path(__file__).resolve().parents[2] / "data" / "spec" / "loop-and-helper.vpl").read_text(encoding="utf-8"),
                      encoding="utf-8")
    assert cli.main(["export-glsl", str(module), "--out", str(tmp_path / "out")]) == 1
    assert "only materials saved by the editor" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_target_option_writes_every_program_for_that_target(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "material"
    shutil.copytree(example_path("scattered_pebbles").parent / "textures", folder / "textures")
    path = folder / "scattered_pebbles.vpl"
    save_file(path, EXAMPLE_GRAPHS["scattered_pebbles"]())
    assert cli.main(["export-glsl", str(path), "--out", str(tmp_path / "out"), "--target", "es300"]) == 0
    assert capsys.readouterr().err == ""
    programs = sorted((tmp_path / "out").glob("*.glsl"))
    assert len(programs) > 2 and any(".pass" in path.name for path in programs)
    assert all(path.read_text(encoding="utf-8").startswith("#version 300 es") for path in programs)
