"""File > Export GLSL records the preview's stage: a Surface Output material gets the stage's environment
images beside its JSON, a display-colour material only the stage's numbers (docs/engine-integration.md)."""

from __future__ import annotations

import json
from pathlib import Path

from app.preview.stage import Stage


def _exported(window, directory: Path) -> tuple[dict, list[str]]:
    assert window.export_to(directory)
    names = sorted(path.name for path in directory.iterdir())
    stem = next(name for name in names if name.endswith(".json"))[: -len(".json")]
    return json.loads((directory / f"{stem}.json").read_text(encoding="utf-8"))["material"], names


def test_a_surface_output_export_carries_the_preview_stage_and_environment(window, tmp_path: Path) -> None:
    assert window.load_example("polished_gold")
    stage = Stage()
    stage.set_environment("neutral", rotation=45.0)
    stage.set_tone_mapper("agx")
    stage.set_exposure(0.75)
    window.preview.set_stage(stage)
    material, names = _exported(window, tmp_path / "gold")
    preview = material["preview"]
    assert (preview["environment"]["name"], preview["tone_mapper"], preview["exposure"]) == ("neutral", "agx", 0.75)
    files = preview["environment"]["files"]
    assert [name for name in names if ".environment_" in name] == sorted(
        [*files["environment_specular"], files["environment_irradiance"], files["environment_brdf"]])
    assert material["output"]["radiance"] and len(material["environment_samplers"]) == 3


def test_a_display_colour_export_writes_no_environment_images(window, tmp_path: Path) -> None:
    assert window.load_example("lit_blinn_phong")
    material, names = _exported(window, tmp_path / "lit")
    assert not material["output"]["radiance"] and material["environment_samplers"] == []
    assert "files" not in material["preview"]["environment"]
    assert not [name for name in names if ".environment_" in name]
