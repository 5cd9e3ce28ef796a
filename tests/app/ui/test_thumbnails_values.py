"""Thumbnails show values through the real window: whatever the stage's exposure and tone mapper, for parameter
nodes that feed nothing, and after a document whose textures had the same names."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage

from app.ui.node_thumbnails import THUMBNAILS_SETTING

pytestmark = pytest.mark.gl


@pytest.fixture
def thumbnail_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    return make_window(load_example=False)


def settle(window) -> None:
    window.flush()
    assert window.thumbnails.wait(120), "thumbnails did not arrive"


def centre(window, node_id: str) -> tuple[int, int, int]:
    image = window.graph.node_by_stable_id(node_id).view.thumbnail
    assert image is not None and not image.isNull(), node_id
    colour = QColor(image.pixel(image.width() // 2, image.height() // 2))
    return colour.red(), colour.green(), colour.blue()


def encoded(linear: float) -> int:
    """A linear value as the display shows it (sRGB encoding, 8 bits)."""
    value = 12.92 * linear if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    return round(255 * value)


def test_a_swatch_shows_its_value_whatever_the_stage_exposure_and_tone_mapper(thumbnail_window) -> None:
    window = thumbnail_window
    assert window.files.load_example("rough_plastic")  # a Surface Output material: its colours are linear light
    settle(window)
    red, green, blue, _alpha = window.session.graph.nodes["n1"].properties["default"]
    expected = tuple(encoded(component) for component in (red, green, blue))
    assert all(abs(a - b) <= 2 for a, b in zip(centre(window, "n1"), expected)), (centre(window, "n1"), expected)
    toolbar = window.preview_panel.toolbar
    toolbar.exposure_box.setValue(-3.0)
    toolbar.tone_box.setCurrentIndex(toolbar.tone_box.findData("aces"))
    assert window.preview_panel.toolbar.stage.exposure == -3.0
    settle(window)
    assert all(abs(a - b) <= 2 for a, b in zip(centre(window, "n1"), expected)), (centre(window, "n1"), expected)


def test_a_parameter_node_that_feeds_nothing_shows_its_own_value(thumbnail_window) -> None:
    window = thumbnail_window
    assert window.files.load_example("rough_plastic")
    settle(window)
    node = window.graph_editor.add_node("color_parameter")
    node_id = node.stable_id
    window.nodes.set_node_property(node_id, "default", (1.0, 1.0, 1.0, 1.0))
    settle(window)
    assert centre(window, node_id) == (255, 255, 255)


def test_a_new_texture_parameter_shows_the_checker_not_the_last_document_s_image(thumbnail_window, tmp_path) -> None:
    window = thumbnail_window
    red = QImage(8, 8, QImage.Format.Format_RGBA8888)
    red.fill(QColor(255, 0, 0))
    path = tmp_path / "red.png"
    assert red.save(str(path))
    assert window.files.load_example("textured")
    window.parameter_commands.set_parameter_value("albedo", str(path))
    settle(window)
    albedo = next(node_id for node_id, node in window.session.graph.nodes.items() if node.type_name == "texture_parameter")
    assert centre(window, albedo) == (255, 0, 0)
    assert window.files.new_document()
    settle(window)
    node = window.graph_editor.add_node("texture_parameter")
    assert node.material_property("name") == "albedo" and node.material_property("image") == ""
    settle(window)
    image = window.graph.node_by_stable_id(node.stable_id).view.thumbnail
    assert image is not None
    side = image.width()
    pixels = {QColor(image.pixel(x, y)).getRgb()[:3] for x in range(0, side, 3) for y in range(0, side, 3)}
    assert (255, 0, 0) not in pixels
    assert len(pixels) >= 2 and np.ptp([sum(pixel) for pixel in pixels]) > 100  # the checker's two greys
