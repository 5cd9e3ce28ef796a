"""Textures in the window (issue 16, items 2 and 3): problems are reported, paths follow the document."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import OpenImageIO as oiio  # noqa: N813 - the library's own alias
import pytest

from app.material.document import save_file
from app.material.graph import MaterialGraph
from app.preview.parameters_panel import ParametersPanel


def _write_png(path: Path, rgb: tuple[int, int, int]) -> None:
    output = oiio.ImageOutput.create(str(path))
    output.open(str(path), oiio.ImageSpec(4, 4, 3, "uint8"))
    output.write_image(np.full((4, 4, 3), rgb, np.uint8))
    output.close()


def _textured_graph(image: str) -> MaterialGraph:
    graph = MaterialGraph()
    texture = graph.add_node("texture_parameter", (0, 0), {"name": "albedo", "image": image})
    sample = graph.add_node("sample_texture", (250, 0))
    output = graph.add_node("material_output", (500, 0))
    graph.connect(texture.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", output.id, "base_color")
    return graph


def test_a_missing_texture_is_reported_on_its_node_and_in_the_status_bar(window, tmp_path: Path) -> None:
    document = tmp_path / "wood.vpl"
    save_file(document, _textured_graph("maps/missing.png"))
    assert window.open_file(document)
    window.flush()
    rows = [row for row in window.diagnostics_panel.rows if row.category == "texture"]
    assert len(rows) == 1 and rows[0].node_id == "n1" and "missing.png: no such file" in rows[0].message
    assert any("missing.png" in message for message in window.graph.node_by_stable_id("n1").view.diagnostics)
    state = window.presenter.state_label.text()  # kept in the status bar, not a passing message
    assert "1 texture could not be loaded" in state


@pytest.mark.parametrize("stored", ["maps/" + "t" * 300 + ".png", "/".join(["d" * 250] * 20) + "/x.png"])
def test_a_texture_path_longer_than_the_platform_allows_opens_with_a_diagnostic(window, tmp_path: Path, stored: str) -> None:
    # A name over 255 bytes (or a path over 4096): the session reported it, then the file watcher's
    # Path.is_file() raised OSError (errno 36) and the window failed to open the document.
    document = tmp_path / "long.vpl"
    (tmp_path / "maps").mkdir()
    save_file(document, _textured_graph(stored))
    assert window.open_file(document)
    window.flush()
    rows = [row for row in window.diagnostics_panel.rows if row.category == "texture"]
    assert len(rows) == 1 and rows[0].node_id == "n1" and "longer than this system allows" in rows[0].message


def test_textures_resolve_next_to_the_document_whatever_the_working_directory(window, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "maps").mkdir(parents=True)
    _write_png(project / "maps" / "albedo.png", (10, 200, 30))
    document = project / "wood.vpl"
    save_file(document, _textured_graph("maps/albedo.png"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert window.open_file(document)
    window.flush()
    image = window.session.textures.images["albedo"]
    assert image is not None and tuple(image.pixels[0, 0, :3]) == (10, 200, 30)
    assert not [row for row in window.diagnostics_panel.rows if row.category == "texture"]
    assert window.presenter.state_label.text() == ""


def test_a_chosen_texture_is_stored_relative_to_the_document(window, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "maps").mkdir(parents=True)
    _write_png(project / "maps" / "chosen.png", (250, 250, 0))
    document = project / "m.vpl"
    save_file(document, _textured_graph(""))
    assert window.open_file(document)
    window.flush()
    monkeypatch.setattr(ParametersPanel, "pick_image", staticmethod(lambda _parent: str(project / "maps" / "chosen.png")))
    window.parameters_panel.editor("albedo").button.click()
    assert window.material.nodes["n1"].properties["image"] == "maps/chosen.png"
    assert window.is_modified and window.edit.undo_action.isEnabled()
    image = window.session.textures.images["albedo"]
    assert image is not None and tuple(image.pixels[0, 0, :3]) == (250, 250, 0)
    window.edit.undo_action.trigger()
    assert window.material.nodes["n1"].properties["image"] == "" and window.session.textures.images["albedo"] is None


def _texture_rows(window) -> list:
    return [row for row in window.diagnostics_panel.rows if row.category == "texture"]


def test_opening_the_same_file_again_notices_a_deleted_texture(window, qtbot, tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    _write_png(tmp_path / "maps" / "albedo.png", (10, 200, 30))
    document = tmp_path / "wood.vpl"
    save_file(document, _textured_graph("maps/albedo.png"))
    assert window.open_file(document)
    window.flush()
    assert window.session.textures.images["albedo"] is not None and not _texture_rows(window)
    (tmp_path / "maps" / "albedo.png").unlink()
    assert window.open_file(document)  # as File > Open does it: the lowering runs on its own schedule
    qtbot.waitUntil(lambda: bool(_texture_rows(window)), timeout=20_000)
    assert window.session.textures.images["albedo"] is None
    assert len(_texture_rows(window)) == 1 and "no such file" in _texture_rows(window)[0].message


def test_a_texture_deleted_while_open_is_reported_and_a_repainted_one_is_read_again(window, qtbot, tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    albedo = tmp_path / "maps" / "albedo.png"
    _write_png(albedo, (10, 200, 30))
    document = tmp_path / "wood.vpl"
    save_file(document, _textured_graph("maps/albedo.png"))
    assert window.open_file(document)
    window.flush()
    first = window.session.textures.images["albedo"]
    assert first is not None and str(albedo) in window.texture_watcher.watched()

    # Repainted in another program: written to a new file renamed over the old one, as paint programs save.
    _write_png(tmp_path / "maps" / "albedo.tmp.png", (250, 20, 20))
    (tmp_path / "maps" / "albedo.tmp.png").replace(albedo)
    qtbot.waitUntil(lambda: window.session.textures.images["albedo"] is not first, timeout=10_000)
    image = window.session.textures.images["albedo"]
    assert image is not None and tuple(image.pixels[0, 0, :3]) == (250, 20, 20)
    assert not _texture_rows(window)

    albedo.unlink()  # no edit, no menu: the editor notices by itself
    qtbot.waitUntil(lambda: bool(_texture_rows(window)), timeout=10_000)
    assert window.session.textures.images["albedo"] is None
    assert "no such file" in _texture_rows(window)[0].message
    assert any("albedo.png" in message for message in window.graph.node_by_stable_id("n1").view.diagnostics)

    _write_png(albedo, (0, 0, 255))  # back again
    qtbot.waitUntil(lambda: window.session.textures.images["albedo"] is not None, timeout=10_000)
    assert not _texture_rows(window)
