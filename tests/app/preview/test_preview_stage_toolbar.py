"""The stage toolbar above a real preview: every control reaches the renderer, choices persist per user,
a material that uses Time plays by itself, bad choices are refused without breaking anything."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from app.material.examples import load_example
from app.material.lowering import lower
from app.preview.images import qimage_to_rgba
from app.preview.stage import Stage, light_vector
from app.preview.stage_toolbar import SETTINGS_KEY, PreviewPanel, StageToolbar
from app.preview.widget import PreviewWidget

pytestmark = pytest.mark.gl


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def _panel(qtbot, settings: QSettings, **choosers) -> PreviewPanel:
    preview = PreviewWidget()
    panel = PreviewPanel(preview, settings=settings, **choosers)
    panel.resize(360, 320)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _show_example(qtbot, panel: PreviewPanel, name: str) -> None:
    result = lower(load_example(name).graph)
    assert result.ok
    with qtbot.waitSignal(panel.preview.programReady, timeout=10000):
        panel.preview.set_artifact(result.artifact, result.parameters)


def _choose(box, data) -> None:
    index = box.findData(data)
    assert index >= 0, data
    box.setCurrentIndex(index)
    box.activated.emit(index)


def test_controls_reach_the_renderer(qtbot, settings: QSettings) -> None:
    panel = _panel(qtbot, settings)
    toolbar, preview = panel.toolbar, panel.preview  # `preview.renderer` waits for the render thread to apply
    _choose(toolbar.mesh_box, "cube")
    assert preview.renderer.mesh_name == "cube"
    _choose(toolbar.tone_box, "agx")
    assert preview.renderer.tone_mapper == "agx"
    toolbar.exposure_box.setValue(1.5)
    assert preview.renderer.exposure == 1.5
    toolbar.azimuth_slider.setValue(90)
    toolbar.elevation_slider.setValue(0)
    assert np.allclose(preview.renderer.light_direction, light_vector(90, 0))
    toolbar.intensity_box.setValue(7.0)
    assert preview.renderer.light_intensity == 7.0
    toolbar.rotation_slider.setValue(90)
    toolbar.environment_intensity_box.setValue(0.5)
    renderer = preview.renderer
    assert np.isclose(renderer.environment_rotation, np.pi / 2) and renderer.environment_intensity == 0.5
    assert preview.stage.tone_mapper == "agx"


def test_exposure_changes_the_pixels_of_a_surface_material(qtbot, settings: QSettings) -> None:
    panel = _panel(qtbot, settings)
    _show_example(qtbot, panel, "rough_plastic")
    before = qimage_to_rgba(panel.preview.grab_preview())
    panel.toolbar.exposure_box.setValue(2.0)
    after = qimage_to_rgba(panel.preview.grab_preview())
    centre = tuple(s // 2 for s in before.shape[:2])
    assert after[centre][:3].astype(int).sum() > before[centre][:3].astype(int).sum()


def test_the_stage_is_remembered_per_user(qtbot, settings: QSettings) -> None:
    panel = _panel(qtbot, settings)
    _choose(panel.toolbar.mesh_box, "plane")
    panel.toolbar.exposure_box.setValue(-1.0)
    _choose(panel.toolbar.background_box, "color")
    stored = json.loads(settings.value(SETTINGS_KEY))
    assert (stored["mesh"], stored["exposure"]) == ("plane", -1.0)
    again = _panel(qtbot, settings)
    assert again.preview.renderer.mesh_name == "plane" and again.preview.renderer.exposure == -1.0
    assert again.toolbar.mesh_box.currentData() == "plane"


def test_damaged_settings_give_the_default_stage(qtbot, settings: QSettings) -> None:
    settings.setValue(SETTINGS_KEY, "{not json")
    assert StageToolbar(settings=settings).stage == Stage()
    settings.setValue(SETTINGS_KEY, json.dumps({"mesh": "teapot", "exposure": "bright", "tone_mapper": "reinhard"}))
    stage = StageToolbar(settings=settings).stage
    assert (stage.mesh, stage.exposure, stage.tone_mapper) == ("sphere", 0.0, "reinhard")


def test_file_choices_that_are_cancelled_or_unreadable_change_nothing(qtbot, settings: QSettings, tmp_path: Path) -> None:
    answers = iter([None, str(tmp_path / "missing.obj")])
    panel = _panel(qtbot, settings, choose_mesh_file=lambda parent: next(answers))
    toolbar = panel.toolbar
    for _ in range(2):
        toolbar.mesh_box.activated.emit(toolbar.mesh_box.count() - 1)  # "Mesh file…"
        assert panel.preview.renderer.mesh_name == "sphere"
        assert toolbar.mesh_box.currentData() == "sphere"


def test_colours_come_from_the_chooser(qtbot, settings: QSettings) -> None:
    panel = _panel(qtbot, settings, choose_color=lambda parent, current: (1.0, 0.5, 0.0))
    panel.toolbar.background_color_button.click()
    panel.toolbar.light_color_button.click()
    assert panel.preview.renderer.background == (1.0, 0.5, 0.0)
    assert panel.preview.renderer.light_color == (1.0, 0.5, 0.0)


def test_a_material_that_uses_time_plays_by_itself_until_paused(qtbot, settings: QSettings) -> None:
    panel = _panel(qtbot, settings)
    preview, play = panel.preview, panel.toolbar.play_button
    _show_example(qtbot, panel, "rough_plastic")
    assert not preview.playing and not play.isChecked()
    _show_example(qtbot, panel, "animated")
    assert preview.playing and play.isChecked()
    qtbot.waitUntil(lambda: preview.renderer.time > 0.05, timeout=10_000)
    play.click()  # pause
    assert not preview.playing and not play.isChecked()
    _show_example(qtbot, panel, "animated")  # the next edit keeps the user's pause
    assert not preview.playing
    panel.toolbar.restart_button.click()
    assert preview.renderer.time == 0.0
    play.click()
    assert preview.playing
    _show_example(qtbot, panel, "lit_blinn_phong")  # no Time: no clock running
    assert not preview.playing and not play.isChecked()


def test_reset_camera(qtbot, settings: QSettings) -> None:
    panel = _panel(qtbot, settings)
    camera = panel.preview.camera  # the camera the user moves (the renderer draws with a copy)
    camera.orbit(40.0, 10.0)
    moved = camera.view_matrix().copy()
    panel.toolbar.camera_button.click()
    assert not np.allclose(moved, camera.view_matrix())


def test_the_light_menus_switches_reach_the_renderer_and_a_new_mesh_is_framed(qtbot, settings: QSettings) -> None:
    from app.preview.camera import MESH_VIEWS

    panel = _panel(qtbot, settings)
    toolbar, preview = panel.toolbar, panel.preview
    toolbar.switch_boxes["shadows"].setChecked(True)
    toolbar.switch_boxes["ground"].setChecked(True)
    toolbar.switch_boxes["occlusion"].setChecked(True)
    renderer = preview.renderer
    assert (renderer.shadows, renderer.ground, renderer.occlusion) == (True, True, True)
    toolbar.switch_boxes["light"].setChecked(False)
    assert preview.renderer.light_intensity == 0.0 and not preview.stage.light_enabled
    toolbar.switch_boxes["light"].setChecked(True)
    assert preview.renderer.light_intensity == toolbar.stage.light_intensity
    stored = json.loads(settings.value(SETTINGS_KEY))
    assert stored["shadows"] and stored["ground"] and stored["occlusion"] and stored["light_enabled"]
    # Choosing the cube frames it at its three-quarter view; an orbit is undone by reset, back to that view.
    _choose(toolbar.mesh_box, "cube")
    camera = preview.camera
    assert (camera.yaw, camera.pitch) == MESH_VIEWS["cube"]
    assert (preview.renderer.camera.yaw, preview.renderer.camera.pitch) == MESH_VIEWS["cube"]
    camera.orbit(30.0, 5.0)
    toolbar.exposure_box.setValue(0.5)  # re-applying the stage keeps the orbit
    assert camera.yaw == MESH_VIEWS["cube"][0] + 30.0
    toolbar.camera_button.click()
    assert (camera.yaw, camera.pitch) == MESH_VIEWS["cube"]


def test_the_fill_rim_and_light_size_controls_reach_the_renderer_and_a_drag_reaches_the_toolbar(
        qtbot, settings: QSettings) -> None:
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    panel = _panel(qtbot, settings, choose_color=lambda parent, current: (0.25, 0.5, 1.0))
    toolbar, preview = panel.toolbar, panel.preview
    on, azimuth, elevation, intensity, color = toolbar.extra_controls["fill"]
    on.setChecked(True)
    azimuth.setValue(90)
    elevation.setValue(0)
    intensity.setValue(2.0)
    color.click()
    toolbar.extra_controls["rim"][0].setChecked(True)
    toolbar.light_size_box.setValue(6.0)
    renderer = preview.renderer
    assert len(renderer.extra_lights) == 2 and renderer.light_size == 6.0
    fill = renderer.extra_lights[0]
    assert np.allclose(fill.direction, light_vector(90, 0)) and fill.intensity == 2.0 and fill.color == (0.25, 0.5, 1.0)
    stored = json.loads(settings.value(SETTINGS_KEY))
    assert stored["fill_enabled"] and stored["rim_enabled"] and stored["fill_azimuth"] == 90 and stored["light_size"] == 6.0
    on.setChecked(False)
    assert len(preview.renderer.extra_lights) == 1
    # Ctrl-drag on the preview moves the key light; the toolbar shows it and remembers it.
    before = toolbar.stage.light_azimuth
    for kind, x, buttons in ((QEvent.Type.MouseButtonPress, 100.0, Qt.MouseButton.LeftButton),
                             (QEvent.Type.MouseMove, 140.0, Qt.MouseButton.LeftButton),
                             (QEvent.Type.MouseButtonRelease, 140.0, Qt.MouseButton.NoButton)):
        point = QPointF(x, 100.0)
        QApplication.sendEvent(preview, QMouseEvent(kind, point, preview.mapToGlobal(point), Qt.MouseButton.LeftButton,
                                                    buttons, Qt.KeyboardModifier.ControlModifier))
    assert toolbar.stage.light_azimuth == pytest.approx(before + 20.0)
    assert toolbar.azimuth_slider.value() == round(before + 20.0)
    assert json.loads(settings.value(SETTINGS_KEY))["light_azimuth"] == pytest.approx(before + 20.0)
