"""Editing a graph in the window: open/save keeps the graph, frames keep their members, the palette, duplicating.

Each test reproduces what an artist does (open and save an example, move a
node across a frame, paste a frame, double-click a palette entry, duplicate
a parameter node) and checks the material the window holds afterwards.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.graph.nodes import FrameNode
from app.material.document import load_text
from app.material.examples import example_names, example_path, load_example
from app.material.graph import MaterialGraph
from app.session.textures import resolve_texture_path

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
    assert reopened.graph is not None
    # Texture paths are stored relative to the document, so saving elsewhere rewrites them:
    # compare the files they name.
    assert _with_resolved_images(reopened.graph, tmp_path) == _with_resolved_images(stored, example_path(name).parent)


def _with_resolved_images(graph: MaterialGraph, folder: Path) -> MaterialGraph:
    resolved = graph.copy()
    for node in resolved.nodes.values():
        image = node.properties.get("image")
        if node.type_name == "texture_parameter" and isinstance(image, str) and image:
            node.properties["image"] = str(resolve_texture_path(image, folder).resolve())
    return resolved


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
    window.graph_editor.undo()
    window.graph_editor.undo()
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


# A double-click in the palette adds one node ----------------------------------------------------


def test_double_clicking_a_palette_entry_adds_one_node(window, qtbot) -> None:
    from PySide6.QtCore import Qt

    tree = window.node_palette.tree
    item = window.node_palette.item_for("add")
    tree.scrollToItem(item)
    centre = tree.visualItemRect(item).center()
    before = sum(node.type_name == "add" for node in window.material.nodes.values())
    # What a real double-click delivers: press, release, press + double-click, release.
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.mouseRelease(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    after = sum(node.type_name == "add" for node in window.material.nodes.values())
    assert after == before + 1
    assert window.graph_editor.model.stack.count == 1


# Duplicating a parameter node does not break the material -------------------------------------


def test_duplicated_and_pasted_parameters_get_unique_names(window) -> None:
    window.flush()
    assert window.result.ok
    parameter = next(node.id for node in window.material.nodes.values() if node.type_name == "float_parameter")
    name = window.material.nodes[parameter].properties["name"]
    window.nodes.select_node(parameter)
    window.graph_editor.duplicate()
    window.graph_editor.copy()
    window.graph_editor.paste()
    window.flush()
    names = sorted(node.properties["name"] for node in window.material.nodes.values()
                   if node.type_name == "float_parameter")
    assert names == sorted([name, f"{name}2", f"{name}3"])
    assert window.result.ok, [diagnostic.message for diagnostic in window.result.diagnostics]
    for _ in range(2):
        window.edit.undo_action.trigger()
    window.flush()
    assert [node.properties["name"] for node in window.material.nodes.values()
            if node.type_name == "float_parameter"] == [name]
    window.edit.redo_action.trigger()
    assert sorted(node.properties["name"] for node in window.material.nodes.values()
                  if node.type_name == "float_parameter") == sorted([name, f"{name}2"])


def test_a_property_drag_is_recorded_by_the_model_without_reading_the_view(window, monkeypatch) -> None:
    """A slider step is a model command (one undo step per drag); the view follows it and is never read whole."""
    import app.graph.adapter as adapter

    editor = window.graph_editor
    whole = adapter.snapshot

    def refused(_view):
        raise AssertionError("the whole view was read")

    monkeypatch.setattr(adapter, "snapshot", refused)

    def agrees() -> bool:
        shown = whole(window.graph)
        shown.variants, shown.active_variant = editor.material.variants, editor.material.active_variant
        return editor.material == shown

    shininess = "n4"  # the default example's float parameter
    steps = editor.model.stack.count
    for step, value in enumerate((60.0, 70.0, 80.0)):
        window.nodes.set_node_property(shininess, "default", value, continuing=step > 0)
        assert editor.material.nodes[shininess].properties["default"] == value and agrees()
    assert editor.model.stack.count == steps + 1
    editor.undo()
    assert editor.material.nodes[shininess].properties["default"] == 48.0 and agrees()
    editor.redo()
    assert editor.material.nodes[shininess].properties["default"] == 80.0 and agrees()
    window.graph_editor.add_node("constant_float")
    assert agrees()


def _overlapping(window, node) -> list[str]:
    """Other nodes whose rectangle meets `node`'s in the scene."""
    rect = node.view.sceneBoundingRect()
    return [other.name() for other in window.graph.material_nodes()
            if other is not node and other.view.sceneBoundingRect().intersects(rect)]


def test_new_nodes_from_the_palette_and_tab_land_in_free_space(window, qtbot) -> None:
    from PySide6.QtCore import Qt

    assert window.files.new_document()  # a Surface Output, centred in the view
    output = window.graph.material_nodes()[0]
    added = [window.nodes.add_node_from_palette(name) for name in ("constant_color", "mix", "fractal_noise")]
    for node in added:
        assert _overlapping(window, node) == [], f"{node.name()} covers {_overlapping(window, node)}"
    # One undo step per addition, the move included: undo takes the node away.
    count = len(window.material.nodes)
    window.edit.undo_action.trigger()
    assert len(window.material.nodes) == count - 1

    viewer = window.graph.viewer()
    qtbot.mouseMove(viewer.viewport(), viewer.mapFromScene(output.view.sceneBoundingRect().center()))
    window.graph.open_node_search()  # Tab with the cursor over the Surface Output
    qtbot.keyClicks(window.graph.node_search.field, "Smooth Step")
    qtbot.keyClick(window.graph.node_search.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(n.type_name == "smoothstep" for n in window.material.nodes.values()), timeout=5000)
    smooth = next(node for node in window.graph.material_nodes() if node.type_name == "smoothstep")
    assert _overlapping(window, smooth) == []


def test_the_node_search_stays_on_the_screen(window, qtbot) -> None:
    from PySide6.QtCore import QPoint

    search = window.graph.node_search
    screen = window.screen().availableGeometry()
    search.popup(QPoint(screen.right() - 10, screen.bottom() - 10))  # a wire dropped at the bottom right
    qtbot.waitUntil(search.isVisible, timeout=2000)
    assert screen.contains(search.frameGeometry()), (search.frameGeometry(), screen)
    search.hide()


@pytest.mark.gl
def test_new_nodes_keep_free_of_others_once_their_thumbnails_are_drawn(make_window, settings) -> None:
    """A node is placed before its thumbnail is drawn (as are the ones added just before it, when the artist is
    quick); the thumbnail makes it taller, never onto the node below."""
    from app.ui.node_thumbnails import THUMBNAILS_SETTING

    settings.setValue(THUMBNAILS_SETTING, True)
    window = make_window(load_example=False)
    assert window.files.new_document()
    added = []
    for name in ("constant_color", "mix", "fractal_noise", "add", "smoothstep"):
        added.append(window.nodes.add_node_from_palette(name))
    window.flush()
    assert window.thumbnails.wait(120), "thumbnails did not arrive"
    assert all(node.view.thumbnail_shown for node in added)
    for node in window.graph.material_nodes():
        assert _overlapping(window, node) == [], f"{node.name()} covers {_overlapping(window, node)}"
