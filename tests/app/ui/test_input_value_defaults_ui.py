"""The vector values of Dot and the like, edited on the node in the real window: the thumbnail follows, one undo
step, and a dynamic input shows as many fields as what is connected beside it has."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor

from app.graph.input_values import VectorValueItem
from app.ui.node_thumbnails import THUMBNAILS_SETTING

pytestmark = pytest.mark.gl


@pytest.fixture
def thumbnail_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    return make_window(load_example=False)


def settle(window) -> None:
    window.flush()
    assert window.thumbnails.wait(120), "thumbnails did not arrive"


def grey(window, node_id: str) -> int:
    image = window.graph.node_by_stable_id(node_id).view.thumbnail
    assert image is not None and not image.isNull(), node_id
    return QColor(image.pixel(image.width() // 2, image.height() // 2)).red()


def shown(value: float) -> int:
    """A float as its thumbnail shows it: the number as the grey level (0..1 to 0..255), not a light."""
    return round(255 * min(max(value, 0.0), 1.0))


def test_dragging_a_dot_product_s_vector_on_the_node_changes_its_thumbnail_in_one_undo_step(thumbnail_window,
                                                                                           qtbot) -> None:
    window = thumbnail_window
    node = window.nodes.add_node_from_palette("dot")
    assert node is not None
    settle(window)
    assert grey(window, node.stable_id) == 255  # (0, 0, 1) · (0, 0, 1)
    vector = next(item for item in node.view.input_values if item.name == "a")
    assert isinstance(vector, VectorValueItem) and [item.text() for item in vector.components] == [
        "0.000", "0.000", "1.000"]
    undo_count = window.graph_editor.model.stack.count
    viewer = window.graph.viewer()
    viewport = viewer.viewport()
    z = vector.components[2]
    viewer.centerOn(z.sceneBoundingRect().center())
    start = viewer.mapFromScene(z.sceneBoundingRect().center())
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for dx in (-10, -25, -40):
        qtbot.mouseMove(viewport, start + QPoint(dx, 0))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(-40, 0))
    a = tuple(window.material.nodes[node.stable_id].properties["a"])
    assert a[:2] == (0.0, 0.0) and 0.05 < a[2] < 0.9
    assert window.graph_editor.model.stack.count == undo_count + 1
    settle(window)
    assert abs(grey(window, node.stable_id) - shown(a[2])) <= 2, (grey(window, node.stable_id), a)
    window.edit.undo_action.trigger()
    assert tuple(window.material.nodes[node.stable_id].properties["a"]) == (0.0, 0.0, 1.0)
    settle(window)
    assert grey(window, node.stable_id) == 255

    # Texture coordinates (a vec2) into b: a shows two fields, read as its first two components.
    uv = window.nodes.add_node_from_palette("texcoord")
    assert uv is not None
    ok, message = window.graph_editor.connect_nodes(uv.stable_id, "out", node.stable_id, "b")
    assert ok, message
    settle(window)
    assert node.port_type_label("in", "a") == "vec2"
    assert len(vector.components) == 2 and all(item.isVisible() for item in vector.components)
    assert node.view.boundingRect().contains(vector.mapRectToParent(vector.boundingRect()))
    # Typing into the second field changes that component of the stored vector and keeps its third.
    y = vector.components[1]
    viewer.centerOn(y.sceneBoundingRect().center())
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=viewer.mapFromScene(y.sceneBoundingRect().center()))
    assert y.editor is not None
    y.editor.setText("0.25")
    qtbot.keyClick(y.editor, Qt.Key.Key_Return)
    assert tuple(window.material.nodes[node.stable_id].properties["a"]) == (0.0, 0.25, 1.0)
    window.edit.undo_action.trigger()
    window.graph_editor.model.stack.undo()
    settle(window)
    assert len(vector.components) == 3
