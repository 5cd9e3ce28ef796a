"""The Texture View dock through the real window: a node's output drawn over the UV square on a worker.

The material is a Checker node whose two colours have different alphas, so
every texel's value is known in closed form: the readout under a texel
(pixel, UV, linear RGBA, display 0-255 and hex) is compared with a numpy
evaluation of the checker and of the sRGB encoding (IEC 61966-2-1);
channel isolation is read back from the painted canvas; a wheel zoom keeps
the texel under the cursor; the view follows the selection and draws again
after an edit, keeping zoom and pan; the drawing is done off the GUI thread;
a Texture Parameter's image is read decoded to linear (Pillow reads the PNG).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from app.graph.nodes import thumbnail_rect
from app.material.graph import MaterialGraph
from app.ui.node_thumbnails import THUMBNAILS_SETTING, node_menu

pytestmark = pytest.mark.gl

SIZE = 256
SCALE = 4.0
COLOR_A = (0.1, 0.5, 0.02, 0.25)
COLOR_B = (0.8, 0.2, 0.6, 0.75)


def checker_graph() -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("checker", (0.0, 0.0), {"scale": SCALE, "color_a": list(COLOR_A)}, node_id="n1")
    graph.add_node("color_parameter", (-300.0, 0.0), {"name": "tint", "default": list(COLOR_B)}, node_id="n4")
    graph.connect("n4", "out", "n1", "color_b")
    graph.add_node("value_noise", (0.0, 250.0), {"scale": 6.0}, node_id="n2")
    graph.add_node("material_output", (300.0, 0.0), {}, node_id="n3")
    graph.connect("n1", "out", "n3", "base_color")
    graph.connect("n2", "out", "n3", "opacity")
    return graph


def expected_checker(size: int, color_a=COLOR_A, color_b=COLOR_B, scale: float = SCALE) -> np.ndarray:
    """The checker's value at each texel centre, top row first (v = 1 at the top): the node's formula in numpy."""
    centres = (np.arange(size) + 0.5) / size
    u = centres[None, :]
    v = 1.0 - centres[:, None]
    parity = np.mod(np.floor(u * scale) + np.floor(v * scale), 2.0)[..., None]
    return np.asarray(color_a) * (1.0 - parity) + np.asarray(color_b) * parity


def srgb8(linear: np.ndarray) -> np.ndarray:
    c = np.clip(linear, 0.0, 1.0)
    return np.round(np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055) * 255).astype(int)


@pytest.fixture
def view_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    window = make_window(load_example=False)
    window.load_graph(checker_graph(), "checker")
    window.flush()
    assert window.result is not None and window.result.ok
    view = window.texture_view
    view.set_size(SIZE)
    window.nodes.select_node("n1")
    view.open_node("n1")
    assert view.wait(120), "the texture did not arrive"
    assert view.problem == ""
    return window


def move_to_texel(canvas, x: int, y: int) -> None:
    """A mouse move over texel (x, y), delivered to the canvas as the window system would."""
    position = canvas.widget_at(x + 0.5, y + 0.5)
    event = QMouseEvent(QEvent.Type.MouseMove, position, canvas.mapToGlobal(position), Qt.MouseButton.NoButton,
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(canvas, event)


def test_the_readout_under_a_texel_is_the_checker_in_linear_and_display_values(view_window) -> None:
    view = view_window.texture_view
    canvas, label = view.canvas, view.panel.readout_label
    canvas.zoom_at(QPointF(canvas.width() / 2, canvas.height() / 2), 4.0 / canvas.scale)  # 4 pixels a texel
    canvas.offset = QPointF(-40 * canvas.scale, -50 * canvas.scale)  # texels from (40, 50) in view
    expected = expected_checker(SIZE)
    for x, y in ((40, 50), (70, 50), (41, 81), (75, 90)):
        move_to_texel(canvas, x, y)
        readout = canvas.readout(canvas.widget_at(x + 0.5, y + 0.5))
        assert readout is not None and (readout.x, readout.y) == (x, y)
        assert readout.u == pytest.approx((x + 0.5) / SIZE) and readout.v == pytest.approx(1 - (y + 0.5) / SIZE)
        assert np.allclose(readout.linear, expected[y, x], atol=1e-5), (x, y, readout.linear, expected[y, x])
        display = srgb8(expected[y, x])
        assert readout.display[:3] == tuple(display[:3])
        assert readout.display[3] == round(expected[y, x][3] * 255)
        assert readout.hex == "#" + "".join(f"{c:02x}" for c in display[:3])
        assert label.text() == readout.text()
        assert readout.hex in label.text() and f"{expected[y, x][0]:.4f}" in label.text()
    # From 8 pixels a texel, the texel under the cursor is outlined in white.
    canvas.zoom_at(QPointF(0, 0), 12.0 / canvas.scale)
    canvas.offset = QPointF(-40 * canvas.scale, -50 * canvas.scale)
    move_to_texel(canvas, 42, 52)
    corner = canvas.widget_at(42, 52)
    image = canvas_image(canvas)
    edge = image.pixelColor(round(corner.x()) + 6, round(corner.y()))
    inside = image.pixelColor(round(corner.x()) + 6, round(corner.y()) + 6)
    assert (edge.red(), edge.green(), edge.blue()) == (255, 255, 255)
    assert (inside.red(), inside.green(), inside.blue()) == tuple(srgb8(expected[52, 42])[:3])
    # The two colours are both seen, and the whole image is the checker.
    assert canvas.linear is not None and np.allclose(canvas.linear, expected, atol=1e-5)


def canvas_image(canvas) -> QImage:
    """What the canvas paints, in 8 bits a channel (a grab would take the screen's depth)."""
    image = QImage(canvas.size(), QImage.Format.Format_RGB32)
    canvas.render(image)
    return image


def painted(canvas, x: int, y: int) -> tuple[int, int, int]:
    position = canvas.widget_at(x + 0.5, y + 0.5)
    color = canvas_image(canvas).pixelColor(round(position.x()), round(position.y()))
    return color.red(), color.green(), color.blue()


def test_channel_isolation_shows_the_channel_asked_for(view_window) -> None:
    view = view_window.texture_view
    canvas, box = view.canvas, view.panel.channel_box
    canvas.zoom_at(QPointF(0, 0), 2.0 / canvas.scale)
    canvas.offset = QPointF(-10 * canvas.scale, -10 * canvas.scale)
    expected = srgb8(expected_checker(SIZE))
    alpha = np.round(expected_checker(SIZE)[..., 3] * 255).astype(int)
    texels = [(12, 12), (80, 12)]  # one of each colour (a square is 64 texels wide)
    assert tuple(expected[12, 12]) != tuple(expected[12, 80])
    for channel, index in (("R", 0), ("G", 1), ("B", 2)):
        box.setCurrentText(channel)
        for x, y in texels:
            value = int(expected[y, x][index])
            assert painted(canvas, x, y) == (value, value, value), (channel, x, y)
    box.setCurrentText("A")
    for x, y in texels:
        assert painted(canvas, x, y) == (alpha[y, x],) * 3
    box.setCurrentText("RGB")
    for x, y in texels:
        assert painted(canvas, x, y) == tuple(expected[y, x][:3])
    box.setCurrentText("RGBA")  # over the checkerboard: the colour blended by its alpha with a grey square
    for x, y in texels:
        shown = np.array(painted(canvas, x, y))
        a = alpha[y, x] / 255
        greys = [np.round(expected[y, x][:3] * a + grey * (1 - a)) for grey in (130, 200)]
        assert any(np.all(np.abs(shown - g) <= 6) for g in greys), (shown, greys)  # Qt blends premultiplied 8-bit


def wheel(canvas, position: QPointF, notches: int) -> None:
    event = QWheelEvent(position, canvas.mapToGlobal(position), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(canvas, event)


def test_a_wheel_zoom_keeps_the_point_under_the_cursor(view_window) -> None:
    canvas = view_window.texture_view.canvas
    for position in (QPointF(37.0, 81.0), QPointF(canvas.width() - 20.0, 15.0)):
        before = canvas.texel_at(position)
        scale = canvas.scale
        wheel(canvas, position, 3)
        assert canvas.scale == pytest.approx(scale * 1.25 ** 3)
        assert canvas.texel_at(position) == pytest.approx(before, abs=1e-9)
        wheel(canvas, position, -5)
        assert canvas.texel_at(position) == pytest.approx(before, abs=1e-9)
    canvas.zoom_at(QPointF(0, 0), 16.0 / canvas.scale)
    assert canvas.scale == 16.0
    canvas.one_to_one()
    assert canvas.scale == 1.0
    canvas.fit()
    assert canvas.scale == pytest.approx(0.94 * min(canvas.width(), canvas.height()) / SIZE)


def test_tiling_repeats_the_texture_around_the_unit_tile(view_window, qtbot) -> None:
    view = view_window.texture_view
    canvas = view.canvas
    canvas.fit()
    canvas.zoom_at(QPointF(canvas.width() / 2, canvas.height() / 2), 0.5)
    outside = canvas.widget_at(SIZE + 10.5, 20.5)  # one tile to the right
    assert canvas.pixel_at(outside) is None
    view.panel.tile_button.setChecked(True)
    assert canvas.tiled
    assert canvas.pixel_at(outside) == (10, 20)
    expected = srgb8(expected_checker(SIZE))
    shown = canvas_image(canvas).pixelColor(round(outside.x()), round(outside.y()))
    assert (shown.red(), shown.green(), shown.blue()) == tuple(expected[20, 10][:3])


def test_the_view_follows_the_selection_and_edits_keeping_zoom_and_pan(view_window) -> None:
    window = view_window
    view = window.texture_view
    canvas = view.canvas
    canvas.zoom_at(QPointF(30, 40), 3.0)
    scale, offset = canvas.scale, QPointF(canvas.offset)
    # A value edit of the shown node: drawn again with the new colour, the view where it was.
    new_a = (0.3, 0.05, 0.9, 1.0)
    texel = next((x, y) for y in range(SIZE) for x in range(SIZE)
                 if canvas.pixel_at(canvas.widget_at(x + 0.5, y + 0.5)) == (x, y)
                 and np.allclose(expected_checker(SIZE)[y, x], COLOR_A))  # a texel of colour a in view
    move_to_texel(canvas, *texel)
    window.nodes.set_node_property("n1", "color_a", list(new_a))
    window.flush()
    assert view.wait(120)
    assert np.allclose(canvas.linear, expected_checker(SIZE, color_a=new_a), atol=1e-5)
    # The readout under the cursor, which did not move, is the new value.
    assert " ".join(f"{c:.4f}" for c in new_a) in view.panel.readout_label.text()
    assert canvas.scale == scale and canvas.offset == offset
    # An edit that changes the module (the scale is a literal of the code): lowered and linked again.
    builds = view.service.builds
    window.nodes.set_node_property("n1", "scale", 2.0)
    window.flush()
    assert view.wait(120)
    assert view.service.builds > builds
    assert np.allclose(canvas.linear, expected_checker(SIZE, color_a=new_a, scale=2.0), atol=1e-5)
    assert canvas.scale == scale and canvas.offset == offset
    # A structural edit upstream: a Tiling and Offset node into the checker's UV, tiling 2 x 2.
    tiling = window.graph_editor.add_node("tiling_offset", (-300.0, 300.0)).stable_id
    assert window.graph_editor.connect_nodes(tiling, "out", "n1", "uv")[0]
    window.nodes.set_node_property(tiling, "tiling", [2.0, 2.0])
    window.flush()
    window.nodes.select_node("n1")  # the new node has a value too: back to the checker
    assert view.wait(120)
    assert view.node_id == "n1"
    assert np.allclose(canvas.linear, expected_checker(SIZE, color_a=new_a, scale=4.0), atol=1e-5)
    assert canvas.scale == scale and canvas.offset == offset
    # Selecting another node shows its output; a selection of nothing keeps it.
    window.nodes.select_node("n2")
    assert view.wait(120)
    assert view.node_id == "n2" and view.problem == ""
    noise = canvas.linear
    assert noise is not None and np.ptp(noise[..., 0]) > 0.3  # a pattern, not the checker
    assert np.allclose(noise[..., 0], noise[..., 1]) and np.all(noise[..., 3] == 1.0)  # a float shows as grey, opaque
    window.graph.clear_selection()
    QApplication.processEvents()
    assert view.node_id == "n2"
    window.nodes.select_node("n3")  # the output node has no value of its own to view
    QApplication.processEvents()
    assert view.node_id == "n2"


def test_drawing_is_done_off_the_gui_thread(view_window) -> None:
    window = view_window
    view = window.texture_view
    service = view.service
    assert service is not None and service.drawn_on not in (None, threading.get_ident())
    images = view.images
    view.set_size(1024)
    assert view.refresh()  # asks and returns: the image is not there yet, the worker draws it
    assert service.busy and view.images == images
    assert view.wait(120)
    assert view.images == images + 1 and view.canvas.texels == 1024
    assert service.drawn_on != threading.get_ident()


def test_the_node_menu_and_a_thumbnail_double_click_open_the_view(view_window, qtbot) -> None:
    window = view_window
    view = window.texture_view
    view.dock.hide()
    menu = node_menu(window, "n2")
    action = next(action for action in menu.actions() if action.text() == "&View Texture")
    action.trigger()
    assert view.dock.isVisible() and view.node_id == "n2"
    assert view.wait(120)
    view.dock.hide()
    assert window.thumbnails.wait(120)
    node = window.graph.node_by_stable_id("n1")
    rect = thumbnail_rect(node.view)
    assert rect is not None
    viewer = window.graph.viewer()
    centre = viewer.mapFromScene(node.view.mapToScene(rect.center()))
    qtbot.mouseDClick(viewer.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert view.dock.isVisible() and view.node_id == "n1"
    assert view.wait(120)
    assert window.texture_view.action.isChecked()


def test_a_parameter_value_edit_redraws_with_the_same_program(view_window) -> None:
    window = view_window
    view = window.texture_view
    builds, draws = view.service.builds, view.service.draws
    tint = (0.05, 0.9, 0.4, 0.5)
    window.nodes.set_node_property("n4", "default", list(tint))
    window.flush()
    assert view.wait(120)
    assert view.service.draws > draws and view.service.builds == builds  # a uniform: drawn again, not linked again
    assert np.allclose(view.canvas.linear, expected_checker(SIZE, color_b=tint), atol=1e-5)


def test_a_node_that_cannot_be_drawn_is_named_and_the_view_goes_on(view_window) -> None:
    window = view_window
    view = window.texture_view
    # A second parameter named "tint" upstream of the checker: two uniforms cannot share a name.
    graph = checker_graph()
    graph.add_node("color_parameter", (-300.0, 200.0), {"name": "tint", "default": [1.0, 0.0, 0.0, 1.0]}, node_id="n5")
    graph.connect("n5", "out", "n1", "color_a")
    window.load_graph(graph, "clash")
    window.flush()
    window.nodes.select_node("n1")
    assert view.node_id == "n1"
    assert view.wait(120)
    assert view.problem.startswith("Checker (n1) cannot be drawn") and "also used by" in view.problem, view.problem
    assert view.canvas.linear is None and view.canvas.message == view.problem
    # Fixed: the view draws again.
    window.nodes.set_node_property("n5", "name", "other")
    window.flush()
    assert view.wait(120)
    assert view.problem == "" and view.canvas.linear is not None


def test_a_texture_parameter_reads_its_image_decoded_to_linear(make_window) -> None:
    """painted_metal's albedo (512², sRGB) viewed at 512²: each texel is the image's pixel, sRGB-decoded."""
    window = make_window(example="painted_metal")
    view = window.texture_view
    view.set_size(512)
    view.open_node("n2")  # Texture Parameter: albedo
    assert view.wait(120) and view.problem == ""
    root = Path(__file__).resolve().parents[3]
    encoded = np.asarray(Image.open(root / "resources/examples/textures/painted_metal_albedo.png").convert("RGB"),
                         dtype=np.float64) / 255.0
    linear = np.where(encoded <= 0.04045, encoded / 12.92, ((encoded + 0.055) / 1.055) ** 2.4)
    shown = view.canvas.linear
    assert shown is not None and shown.shape == (512, 512, 4)
    assert np.abs(shown[..., :3] - linear).max() < 2e-3
    assert np.all(shown[..., 3] == 1.0)
    # The display value is the image's own 8-bit value again.
    readout = view.canvas.readout(view.canvas.widget_at(100.5, 300.5))
    assert readout is not None
    assert readout.display[:3] == tuple(round(c * 255) for c in encoded[300, 100])


def test_a_node_that_reads_the_time_is_drawn_again_while_the_preview_plays(make_window) -> None:
    window = make_window(example="animated")
    view = window.texture_view
    view.set_size(256)
    view.open_node("n6")  # sin(time * speed): a flat grey that changes with time
    assert view.wait(120) and view.problem == ""
    assert view.animated()
    first, images = float(view.canvas.linear[0, 0, 0]), view.images
    window.preview.set_playing(True)
    try:
        deadline = time.monotonic() + 30
        while view.images < images + 3 and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.01)
    finally:
        window.preview.set_playing(False)
    assert view.images >= images + 3
    assert float(view.canvas.linear[0, 0, 0]) != first
    # A node that does not read the time is not drawn again.
    view.open_node("n4")
    assert view.wait(120)
    assert not view.animated()
