"""The preview stage saved with a document (issue 14, item 4; docs/file-format.md): the optional `stage`
object of the graph block, read back equal, tolerant of anything malformed, its mesh and environment
files stored relative to the document as texture paths are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.material.document import load_file, load_text, save_text
from app.material.examples import example_text, load_example
from app.material.graph import MaterialGraph, stage_data
from app.session import EditorSession
from app.session.recovery import RecoveryStore
from app.session.stage_files import names_a_file, resolved_stage, stored_stage

STAGE = {"mesh": "cube", "environment": "outdoor", "exposure": -2.5, "light_color": (1.0, 0.9, 0.8), "tone_mapper": "agx"}


def _graph(stage: dict | None) -> MaterialGraph:
    graph = load_example("lit_blinn_phong").graph
    graph.stage = stage_data(stage) if stage is not None else None
    return graph


def test_a_stage_reads_back_equal_and_a_graph_without_one_is_written_as_before() -> None:
    with_stage = _graph(STAGE)
    text = save_text(with_stage)
    assert '"stage": {' in text and load_text(text.encode("utf-8")).graph == with_stage
    assert load_text(text.encode("utf-8")).graph.stage["light_color"] == [1.0, 0.9, 0.8]
    without = _graph(None)
    assert "stage" not in json.dumps(without.to_dict())
    assert save_text(without) == example_text("lit_blinn_phong")  # byte for byte as before
    assert with_stage != without and with_stage.same_nodes(without)  # the same module


@pytest.mark.parametrize("stored", ['"cube"', "[1, 2]", "null", '{"mesh": ["a", {"b": 1}]}', "3.5"])
def test_a_malformed_stage_is_dropped_or_kept_as_json_never_an_error(stored: str) -> None:
    data = _graph(None).to_dict()
    data["stage"] = json.loads(stored)
    graph = MaterialGraph.from_dict(data)
    expected = json.loads(stored) if stored.startswith("{") else None
    assert graph.stage == expected


def test_stage_data_refuses_what_json_cannot_hold() -> None:
    assert stage_data({"exposure": float("nan")}) is None
    assert stage_data({1: "cube"}) is None
    assert stage_data({"mesh": "cube", "light_color": (1, 2, 3)}) == {"mesh": "cube", "light_color": [1, 2, 3]}


def test_only_values_with_a_file_extension_name_files() -> None:
    assert not any(names_a_file(name) for name in ("sphere", "ball", "studio", "none", "", None, 3.0))
    assert all(names_a_file(path) for path in ("vase.glb", "maps/sky.hdr", "C:\\meshes\\a.obj", "/abs/x.exr"))


def test_stage_files_are_stored_relative_to_the_document_and_resolved_back(tmp_path: Path) -> None:
    mesh = tmp_path / "meshes" / "vase.glb"
    stage = {"mesh": str(mesh), "environment": "studio", "exposure": 1.0}
    stored = stored_stage(stage, tmp_path)
    assert stored == {"mesh": "meshes/vase.glb", "environment": "studio", "exposure": 1.0}
    assert resolved_stage(stored, tmp_path) == stage
    assert stored_stage(stage, None)["mesh"] == str(mesh)  # a document without a folder keeps the absolute path


def test_saving_elsewhere_rewrites_the_stage_files_to_name_the_same(tmp_path: Path) -> None:
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    first = tmp_path / "a" / "material.vpl"
    first.parent.mkdir()
    (tmp_path / "a" / "sky.hdr").write_bytes(b"not read here")
    session.open_graph(_graph({"mesh": "sphere", "environment": "sky.hdr"}), None, "untitled")
    session.save(first)
    session.update_graph(_graph({"mesh": "sphere", "environment": "sky.hdr"}))
    second = tmp_path / "b" / "deeper" / "material.vpl"
    second.parent.mkdir(parents=True)
    session.save(second)
    saved = load_file(second).graph.stage
    assert saved == {"mesh": "sphere", "environment": "../../a/sky.hdr"}
    assert Path(resolved_stage(saved, second.parent)["environment"]).resolve() == (tmp_path / "a" / "sky.hdr").resolve()


def test_saved_stage_is_what_preview_screenshot_starts_from(tmp_path: Path) -> None:
    from app.preview.screenshot import saved_stage

    document = tmp_path / "staged.vpl"
    (tmp_path / "ball.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", encoding="utf-8")
    document.write_text(save_text(_graph({**STAGE, "mesh": "ball.obj"})), encoding="utf-8")
    stage = saved_stage(str(document))
    assert stage.mesh == str(tmp_path / "ball.obj") and stage.environment == "outdoor"
    assert stage.exposure == -2.5 and stage.tone_mapper == "agx" and stage.light_color == (1.0, 0.9, 0.8)
    plain = tmp_path / "plain.vpl"
    plain.write_text(save_text(_graph(None)), encoding="utf-8")
    assert saved_stage(str(plain)) is None and saved_stage(str(tmp_path / "missing.vpl")) is None
