"""PreviewWidget under Xvfb: real context, signals, overlay, last good image, input, playing."""

from __future__ import annotations

import numpy as np
import pytest
from preview_helpers import broken_artifact, color_parameter_artifact, constant_color_artifact, lambert_artifact
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage

from app.preview.images import qimage_to_rgba
from app.preview.widget import PreviewWidget, UnavailablePreview, create_preview_widget

pytestmark = pytest.mark.gl


@pytest.fixture
def widget(qtbot):
    widget = PreviewWidget()
    widget.resize(200, 160)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _pixels(image: QImage) -> np.ndarray:
    return qimage_to_rgba(image)


def test_widget_has_a_core_context_and_shows_a_program(qtbot, widget: PreviewWidget) -> None:
    with qtbot.waitSignal(widget.programReady, timeout=5000):
        widget.set_artifact(constant_color_artifact((1.0, 0.0, 0.0, 1.0)))
    assert widget.available and widget.unavailable_reason == ""
    pixels = _pixels(widget.grab_preview())
    assert pixels.shape == (160, 200, 4)
    assert tuple(pixels[80, 100, :3]) == (255, 0, 0)
    assert widget.error_text == ""


def test_rejected_program_keeps_last_image_and_reports(qtbot, widget: PreviewWidget) -> None:
    widget.set_background((0.0, 0.0, 0.0))
    widget.set_artifact(constant_color_artifact((0.0, 1.0, 0.0, 1.0)))
    before = _pixels(widget.grab_preview())
    with qtbot.waitSignal(widget.programFailed, timeout=5000) as failed:
        widget.set_artifact(broken_artifact())
    assert "this_is_not_declared" in failed.args[0]
    assert "this_is_not_declared" in widget.error_text
    after = _pixels(widget.grab_preview())
    assert np.array_equal(before, after)
    # The overlay is painted over the GL image in the widget's own framebuffer.
    on_screen = _pixels(widget.grabFramebuffer())
    assert not np.array_equal(on_screen[:, :, :3], after[:, :, :3])
    with qtbot.waitSignal(widget.programReady, timeout=5000):
        widget.set_artifact(constant_color_artifact((0.0, 0.0, 1.0, 1.0)))
    assert widget.error_text == ""


def test_parameter_change_does_not_relink(widget: PreviewWidget) -> None:
    from app.material.parameters import ParameterKind, ParameterSpec
    from vpl_core.ir.types import vec

    spec = ParameterSpec("tint", ParameterKind.COLOR, vec(4), (1.0, 0.0, 0.0, 1.0))
    widget.set_artifact(color_parameter_artifact(), [spec])
    assert tuple(_pixels(widget.grab_preview())[80, 100, :3]) == (255, 0, 0)
    links = widget.renderer.link_count
    widget.set_parameter("tint", (0.0, 0.0, 1.0, 1.0))
    assert tuple(_pixels(widget.grab_preview())[80, 100, :3]) == (0, 0, 255)
    assert widget.renderer.link_count == links
    # A recompile shows the values the host passes (the session's ParameterModel keeps them) ...
    widget.set_artifact(color_parameter_artifact(), [spec], {"tint": (0.0, 0.0, 1.0, 1.0)})
    assert tuple(_pixels(widget.grab_preview())[80, 100, :3]) == (0, 0, 255)
    # ... and the preview carries nothing over by itself.
    widget.set_artifact(color_parameter_artifact(), [spec])
    assert tuple(_pixels(widget.grab_preview())[80, 100, :3]) == (255, 0, 0)


def test_drag_orbits_and_wheel_zooms(qtbot, widget: PreviewWidget) -> None:
    camera = widget.camera  # the camera the user moves (the renderer draws with a copy)
    yaw, distance = camera.yaw, camera.distance
    qtbot.mousePress(widget, Qt.MouseButton.LeftButton, pos=QPoint(50, 50))
    qtbot.mouseMove(widget, QPoint(90, 60))
    qtbot.mouseRelease(widget, Qt.MouseButton.LeftButton, pos=QPoint(90, 60))
    assert camera.yaw != yaw
    from PySide6.QtCore import QPoint as P
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    event = QWheelEvent(QPointF(50, 50), QPointF(widget.mapToGlobal(P(50, 50))), P(0, 0), P(0, 120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
    assert camera.distance < distance
    widget.reset_camera()
    assert (camera.yaw, camera.distance) == (0.0, pytest.approx(distance))


def test_playing_advances_time(qtbot, widget: PreviewWidget) -> None:
    widget.set_artifact(lambert_artifact())
    widget.set_playing(True)
    assert widget.playing
    qtbot.waitUntil(lambda: widget.renderer.time > 0.05, timeout=10_000)
    widget.set_playing(False)
    frozen = widget.renderer.time
    # The clock advances only on its timer's ticks: stopped, nothing changes the time any more.
    assert widget.renderer.time == frozen and not widget.playing


def test_artifact_before_show_is_built_on_first_show(qtbot) -> None:
    widget = PreviewWidget()
    qtbot.addWidget(widget)
    widget.resize(64, 64)
    widget.set_artifact(constant_color_artifact((1.0, 1.0, 0.0, 1.0)))
    with qtbot.waitSignal(widget.programReady, timeout=5000):
        widget.show()
        qtbot.waitExposed(widget)
    assert tuple(_pixels(widget.grab_preview())[32, 32, :3]) == (255, 255, 0)


def test_factory_gives_a_working_preview_here(qtbot) -> None:
    widget = create_preview_widget()
    qtbot.addWidget(widget)
    assert isinstance(widget, PreviewWidget)


def test_unavailable_stand_in_accepts_the_api(qtbot) -> None:
    stand_in = UnavailablePreview("No OpenGL context could be created.")
    qtbot.addWidget(stand_in)
    stand_in.set_artifact(constant_color_artifact((1, 1, 1, 1)))
    stand_in.set_parameter("x", 1.0)
    assert not stand_in.available and "OpenGL" in stand_in.unavailable_reason and "OpenGL" in stand_in.text()
    assert stand_in.grab_preview().isNull()


def test_texture_file_reaches_the_sampler(qtbot, widget: PreviewWidget, tmp_path) -> None:
    from preview_helpers import texture_artifact

    from app.session.textures import load_texture

    image = QImage(8, 8, QImage.Format.Format_RGBA8888)
    image.fill(Qt.GlobalColor.magenta)
    path = tmp_path / "magenta.png"
    assert image.save(str(path))
    widget.set_mesh("plane")
    widget.set_artifact(texture_artifact())
    widget.set_texture("albedo", load_texture(path))  # the host reads files; the preview uploads images
    assert tuple(_pixels(widget.grab_preview())[80, 100, :3]) == (255, 0, 255)
    widget.set_texture("albedo", None)  # the checker
    assert tuple(_pixels(widget.grab_preview())[80, 100, :3]) != (255, 0, 255)
    # With the program: the values the host passes, images for textures.
    widget.set_artifact(texture_artifact(), None, {"albedo": load_texture(path)})
    assert tuple(_pixels(widget.grab_preview())[80, 100, :3]) == (255, 0, 255)


def test_high_precision_textures_keep_values_above_one(qtbot, widget: PreviewWidget, tmp_path) -> None:
    """An EXR value of 3.0 survives upload (half-float texture): 3.0 * 0.25 = 0.75, not 1.0 * 0.25."""
    import numpy as np
    import OpenImageIO as oiio  # noqa: N813 - the library's own alias
    from preview_helpers import make_artifact

    from app.session.textures import load_texture
    from vpl_core.ir.types import SAMPLER2D

    path = tmp_path / "bright.exr"
    output = oiio.ImageOutput.create(str(path))
    assert output.open(str(path), oiio.ImageSpec(8, 8, 4, "half"))
    assert output.write_image(np.full((8, 8, 4), (3.0, 1.0, 0.5, 1.0), np.float32))
    output.close()
    image = load_texture(path)
    assert image.high_precision and image.pixels[0, 0, 0] == 3.0
    widget.set_mesh("plane")
    widget.set_artifact(make_artifact("  vpl_output0 = texture(vpl_u1, vpl_varying1) * 0.25;",
                                      [("albedo", SAMPLER2D)]), None, {"albedo": image})
    red, green, blue = (int(channel) for channel in _pixels(widget.grab_preview())[80, 100, :3])
    assert abs(red - 191) <= 1 and abs(green - 64) <= 1 and abs(blue - 32) <= 1


def test_wrong_context_version_is_shown_as_text(qtbot, monkeypatch) -> None:
    import app.preview.widget as widget_module

    reason = "The preview needs OpenGL 4.2 core; this system offers OpenGL 3.1."
    monkeypatch.setattr(widget_module, "context_problem", lambda context, profile=None: reason)
    widget = PreviewWidget()
    widget.resize(320, 120)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_artifact(constant_color_artifact((1.0, 0.0, 0.0, 1.0)))  # accepted, never built
    assert not widget.available and widget.unavailable_reason == reason
    shown = _pixels(widget.grabFramebuffer())
    assert (shown[:, :, :3] == (60, 60, 60)).all(axis=2).mean() > 0.8  # the message background...
    assert ((shown[:, :, :3] > 150).all(axis=2)).sum() > 30            # ...with light text on it
    assert widget.grab_preview().isNull()
