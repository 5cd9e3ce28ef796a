"""File > Save Stage with Material (issue 14, item 4), driven through the real window: the toggle puts the
toolbar's stage into the document (modified, saved), opening the document shows its stage again, node
edits and their undo keep it, unchecking removes it; a document without one leaves the user's stage."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.material.document import load_file
from app.preview.stage import Stage


def _stage(mesh: str, exposure: float) -> Stage:
    stage = Stage()
    stage.set_mesh(mesh)
    stage.set_exposure(exposure)
    return stage


def test_the_stage_is_saved_with_the_material_and_shown_when_it_is_opened(make_window, tmp_path: Path) -> None:
    first = make_window()
    toolbar = first.preview_panel.toolbar
    assert not first.stage_commands.save_stage_action.isChecked() and first.material.stage is None
    toolbar.set_stage(_stage("cube", 1.5))
    assert not first.isWindowModified()  # the user's stage: not the document's
    first.stage_commands.save_stage_action.trigger()
    assert first.stage_commands.save_stage_action.isChecked() and first.isWindowModified()
    assert first.material.stage["mesh"] == "cube" and first.material.stage["exposure"] == 1.5
    toolbar.set_stage(_stage("torus", 1.5))  # followed while the option is on
    assert first.material.stage["mesh"] == "torus"
    # A node edit and its undo keep the stage (it is outside the undo stack).
    parameter = next(node_id for node_id, node in first.material.nodes.items() if node.type_name == "float_parameter")
    first.nodes.set_node_property(parameter, "default", 7.0)
    first.edit.undo_action.trigger()
    assert first.material.stage["mesh"] == "torus"
    document = tmp_path / "staged.vpl"
    assert first.save_to(document) and not first.isWindowModified()
    assert load_file(document).graph.stage["mesh"] == "torus"
    first.close()

    second = make_window()
    second.preview_panel.toolbar.set_stage(_stage("sphere", 0.0))  # what this user had
    assert second.open_file(document)
    shown = second.preview_panel.toolbar.stage
    assert (shown.mesh, shown.exposure) == ("torus", 1.5)
    assert second.preview.stage.mesh == "torus"  # the preview shows it too
    assert second.stage_commands.save_stage_action.isChecked() and not second.isWindowModified()
    second.stage_commands.save_stage_action.trigger()  # unchecked: the document no longer carries a stage
    assert second.material.stage is None and second.isWindowModified()
    assert second.save_to(document)
    assert "stage" not in document.read_text(encoding="utf-8").split("// graph-end")[0]


def test_a_document_without_a_stage_keeps_the_users(make_window, tmp_path: Path) -> None:
    window = make_window()
    window.preview_panel.toolbar.set_stage(_stage("cylinder", -1.0))
    window.stage_commands.save_stage_action.trigger()
    window.new_action.trigger()
    assert not window.stage_commands.save_stage_action.isChecked() and window.material.stage is None
    assert window.preview_panel.toolbar.stage.mesh == "cylinder"


def test_a_stage_with_a_huge_number_opens_with_the_default_and_a_note(make_window, tmp_path: Path) -> None:
    # A 400-digit exposure stopped the window from opening (OverflowError); light_color [1e39, 0, 0]
    # made the preview's "Shader error". The docs: out of range falls back to the default.
    from app.material.document import save_text
    from app.material.graph import stage_data

    source = Path(__file__).resolve().parents[3] / "resources" / "examples" / "polished_gold.vpl"
    graph = load_file(source).graph
    assert graph is not None
    graph.stage = stage_data({"exposure": 10 ** 400, "light_color": [1e39, 0, 0], "mesh": "cube"})
    document = tmp_path / "hostile_stage.vpl"
    document.write_text(save_text(graph), encoding="utf-8")
    window = make_window()
    assert window.open_file(document)
    shown = window.preview_panel.toolbar.stage
    assert (shown.mesh, shown.exposure, shown.light_color) == ("cube", Stage().exposure, Stage().light_color)
    message = window.statusBar().currentMessage()
    assert "the stage's exposure" in message and "the stage's light_color" in message, message


def test_the_document_keeps_the_previews_camera_and_a_new_mesh_gets_its_own_view(make_window, tmp_path: Path) -> None:
    from app.preview.camera import MESH_VIEWS

    first = make_window()
    first.preview_panel.toolbar.set_stage(_stage("cube", 0.0))
    camera = first.preview.camera
    camera.orbit(-50.0, 10.0)
    view = (camera.yaw, camera.pitch, camera.distance)
    first.stage_commands.save_stage_action.trigger()
    stored = first.material.stage["camera"]
    assert np.allclose(stored, [((view[0] + 180.0) % 360.0) - 180.0, view[1], view[2]])
    document = tmp_path / "viewed.vpl"
    assert first.save_to(document)
    first.close()

    second = make_window()
    assert second.open_file(document)
    shown = second.preview.camera
    assert np.allclose([shown.yaw, shown.pitch, shown.distance], stored)
    _choose_mesh(second, "torus")
    assert (second.preview.camera.yaw, second.preview.camera.pitch) == MESH_VIEWS["torus"]


def _choose_mesh(window, mesh: str) -> None:
    box = window.preview_panel.toolbar.mesh_box
    index = box.findData(mesh)
    box.setCurrentIndex(index)
    box.activated.emit(index)
