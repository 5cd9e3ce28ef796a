"""Regression tests for bugs found while reviewing the editor as an artist would use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.graph.nodes import FrameNode
from app.material.document import load_text
from app.material.examples import example_names, load_example
from app.material.graph import MaterialGraph

# Frames: the stored member list survives open + save ---------------------------------------


@pytest.mark.parametrize("name", example_names())
def test_opening_then_saving_every_example_gives_an_equal_graph(window, tmp_path: Path, name: str) -> None:
    stored = load_example(name).graph
    assert stored is not None
    window.load_example(name)
    assert window.material == stored
    target = tmp_path / f"{name}.vpl"
    assert window.save_to(target)
    reopened = load_text(target.read_bytes(), str(target))
    assert reopened.graph == stored


def _frame_graph(members: list[str]) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("constant_float", (0.0, 0.0))
    graph.add_node("constant_float", (0.0, 200.0))
    graph.add_node("material_output", (400.0, 0.0))
    # The rectangle encloses n2 only (n1's edge lies on the frame's edge).
    graph.add_frame("Mixed", (-20.0, 150.0), (300.0, 200.0), members)
    return graph


def test_stored_frame_members_survive_even_when_the_geometry_disagrees(window) -> None:
    graph = _frame_graph(["n1", "n3"])
    window.load_graph(graph)
    assert window.material == graph
    assert not window.is_modified


def test_moving_a_node_into_or_out_of_a_frame_changes_membership(window) -> None:
    window.load_graph(_frame_graph(["n1", "n2"]))
    n2 = window.graph.node_by_stable_id("n2")
    n3 = window.graph.node_by_stable_id("n3")
    n2.set_pos(600.0, 600.0)  # out of the rectangle
    n3.set_pos(0.0, 200.0)  # into it
    frames = window.material.frames
    assert frames[0].node_ids == ["n1", "n3"]
    window.graph.undo_stack().undo()
    window.graph.undo_stack().undo()
    assert window.material.frames[0].node_ids == ["n1", "n2"]


def test_a_pasted_frame_holds_only_the_nodes_it_encloses(window) -> None:
    window.load_graph(_frame_graph(["n1", "n3"]))
    frame = next(node for node in window.graph.all_nodes() if isinstance(node, FrameNode))
    window.graph.scene().clearSelection()
    frame.view.setSelected(True)
    window.graph.copy_nodes([frame])
    window.graph.paste_nodes()
    frames = sorted(window.material.frames, key=lambda item: item.id)
    assert len(frames) == 2
    assert frames[0].node_ids == ["n1", "n3"]
    assert "n1" not in frames[1].node_ids and "n3" not in frames[1].node_ids


# --screenshot shows the preview's error overlay -----------------------------------------------


def _rgb(image):  # -> numpy array (numpy is imported lazily, like Qt)
    import numpy as np
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 3].reshape(
        image.height(), image.width(), 3).astype(int)


def test_window_screenshot_shows_the_preview_error_overlay(window, qtbot, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    from app.main import take_screenshot

    window.flush()
    qtbot.waitUntil(lambda: window.preview.renderer.program is not None, timeout=20_000)
    window.preview.show_problem("es320 target error: this overlay must be in the screenshot")
    assert window.preview.error_text
    png = tmp_path / "window.png"
    assert take_screenshot(window, str(png), 5.0, [True]) == 0
    shot = QImage(str(png))
    preview = window.preview
    assert shot.devicePixelRatio() == 1.0 and preview.devicePixelRatioF() == 1.0
    origin = preview.mapTo(window, preview.rect().topLeft())
    region = _rgb(shot.copy(origin.x(), origin.y(), preview.width(), preview.height()))
    framebuffer = _rgb(preview.grabFramebuffer())  # the image with the overlay, as on screen
    # pytest-xvfb's screen has 16-bit colour, so the window grab is quantized.
    assert abs(region - framebuffer).max() <= 10


# A double-click in the palette adds one node ----------------------------------------------------


def test_double_clicking_a_palette_entry_adds_one_node(window, qtbot) -> None:
    from PySide6.QtCore import Qt

    tree = window.palette.tree
    item = window.palette.item_for("add")
    tree.scrollToItem(item)
    centre = tree.visualItemRect(item).center()
    before = sum(node.type_name == "add" for node in window.material.nodes.values())
    # What a real double-click delivers: press, release, press + double-click, release.
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.mouseRelease(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    after = sum(node.type_name == "add" for node in window.material.nodes.values())
    assert after == before + 1
    assert window.graph.undo_stack().count() == 1


# Duplicating a parameter node does not break the material -------------------------------------


def test_duplicated_and_pasted_parameters_get_unique_names(window) -> None:
    window.flush()
    assert window.result.ok
    parameter = next(node.id for node in window.material.nodes.values() if node.type_name == "float_parameter")
    name = window.material.nodes[parameter].properties["name"]
    window.select_node(parameter)
    window.graph_editor.duplicate()
    window.graph_editor.copy()
    window.graph_editor.paste()
    window.flush()
    names = sorted(node.properties["name"] for node in window.material.nodes.values()
                   if node.type_name == "float_parameter")
    assert names == sorted([name, f"{name}2", f"{name}3"])
    assert window.result.ok, [diagnostic.message for diagnostic in window.result.diagnostics]
    for _ in range(2):
        window.undo_action.trigger()
    window.flush()
    assert [node.properties["name"] for node in window.material.nodes.values()
            if node.type_name == "float_parameter"] == [name]
    window.redo_action.trigger()
    assert sorted(node.properties["name"] for node in window.material.nodes.values()
                  if node.type_name == "float_parameter") == sorted([name, f"{name}2"])
