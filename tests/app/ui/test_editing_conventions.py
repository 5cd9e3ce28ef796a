"""Editing defects found in a new-user test (issue 16, items 5-9), driven through the real window.

5 node-property sliders preview while dragging (one undo step per drag);
6 Ctrl+Y redoes, Ctrl+Z in a committed property field undoes the graph,
  the Edit menu names edits for people; 7 a Float Parameter's inverted
range is a diagnostic; 8 a broken material's preview is marked out of date;
9 framing a large graph keeps titles readable.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QSlider

from app.graph.view import MIN_READABLE_SCALE
from app.material.graph import MaterialGraph
from app.ui.properties_panel import FloatEdit

FRESNEL = "n7"   # the default example's Fresnel node: power 4.0, range 0..16
SHININESS = "n4"


def _power_editor(window) -> tuple[FloatEdit, QSlider]:
    window.activateWindow()
    window.nodes.select_node(FRESNEL)
    host = window.properties_panel.editor_widget("power")
    edit, slider = host.findChild(FloatEdit), host.findChild(QSlider)
    assert edit is not None and slider is not None
    return edit, slider


@pytest.mark.gl
def test_node_property_slider_previews_while_dragging(window, qtbot) -> None:
    window.flush()
    qtbot.waitUntil(lambda: window.preview.renderer.program is not None, timeout=30_000)
    edit, slider = _power_editor(window)
    steps = window.graph_editor.model.stack.count
    links = window.preview.renderer.link_count
    slider.setSliderDown(True)
    slider.setValue(250)  # power 4.0
    with qtbot.waitSignal(window.lowered, timeout=10_000):
        slider.setValue(500)  # power 8.0, still dragging
    assert slider.isSliderDown()
    assert window.material.nodes[FRESNEL].properties["power"] == 8.0
    qtbot.waitUntil(lambda: window.preview.renderer.link_count > links, timeout=30_000)  # the preview followed
    slider.setValue(625)
    slider.setSliderDown(False)
    window.flush()
    assert window.material.nodes[FRESNEL].properties["power"] == 10.0 and edit.value == 10.0
    assert window.graph_editor.model.stack.count == steps + 1  # the whole drag is one step
    window.edit.undo_action.trigger()
    assert window.material.nodes[FRESNEL].properties["power"] == 4.0


def test_ctrl_y_redoes(window, qtbot) -> None:
    before = window.material
    window.nodes.set_node_property(FRESNEL, "power", 2.5)
    after = window.material
    window.edit.undo_action.trigger()
    assert window.material == before
    window.activateWindow()
    qtbot.waitActive(window)
    window.graph.viewer().setFocus()
    qtbot.waitUntil(window.graph.viewer().hasFocus, timeout=5000)
    QTest.keyClick(window.graph.viewer(), Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert window.material == after
    window.edit.undo_action.trigger()
    QTest.keyClick(window.graph.viewer(), Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.material == after  # the platform's standard Redo still works


def test_ctrl_z_in_a_committed_property_field_undoes_the_graph(window, qtbot) -> None:
    edit, _slider = _power_editor(window)
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    edit.selectAll()
    QTest.keyClicks(edit, "2.5")
    QTest.keyClick(edit, Qt.Key.Key_Return)
    assert window.material.nodes[FRESNEL].properties["power"] == 2.5
    index = window.graph_editor.model.stack.index
    QTest.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    # The graph's edit is undone, and the field shows the graph's value.
    assert window.material.nodes[FRESNEL].properties["power"] == 4.0
    assert window.graph_editor.model.stack.index == index - 1
    assert edit.text() == "4.0" and edit.value == 4.0
    # Leaving the field records nothing new.
    window.graph.viewer().setFocus()
    qtbot.waitUntil(lambda: not edit.hasFocus())
    assert window.graph_editor.model.stack.index == index - 1 and window.graph_editor.model.stack.count == index


def test_typing_not_yet_committed_is_undone_in_the_field_first(window, qtbot) -> None:
    edit, _slider = _power_editor(window)
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    edit.end(False)
    QTest.keyClicks(edit, "5")
    assert edit.text() == "4.05"
    index = window.graph_editor.model.stack.index
    QTest.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert edit.text() == "4.0" and window.graph_editor.model.stack.index == index  # text editing convention


def test_the_edit_menu_names_edits_for_people(window) -> None:
    window.nodes.set_node_property(FRESNEL, "power", 2.5)
    text = window.edit.undo_action.text().replace("&", "")
    assert text.startswith('Undo Change "power" of ') and "vpl_prop" not in text
    window.edit.undo_action.trigger()
    assert "vpl_prop" not in window.edit.redo_action.text()


def test_an_inverted_parameter_range_is_a_diagnostic(window) -> None:
    window.nodes.set_node_property(SHININESS, "minimum", 5.0)
    window.nodes.set_node_property(SHININESS, "maximum", 2.0)
    window.flush()
    rows = [row for row in window.diagnostics_panel.rows if row.node_id == SHININESS]
    assert rows and "minimum 5 is greater than the maximum 2" in rows[0].message
    assert rows[0].category == "graph warning"
    node = window.graph.node_by_stable_id(SHININESS)
    assert any("minimum 5" in message for message in node.view.diagnostics)
    assert window.result.ok  # the material itself still works
    window.nodes.set_node_property(SHININESS, "maximum", 256.0)
    window.flush()
    assert not [row for row in window.diagnostics_panel.rows if row.node_id == SHININESS]


@pytest.mark.gl
def test_a_broken_material_marks_the_preview_out_of_date(window, qtbot) -> None:
    window.flush()
    qtbot.waitUntil(lambda: window.preview.renderer.program is not None, timeout=30_000)
    assert window.preview.stale_text == ""
    output = next(node_id for node_id, node in window.material.nodes.items() if node.type_name == "material_output")
    window.graph.node_by_stable_id(output).view.setSelected(True)
    window.nodes.select_node(output)
    window.graph_editor.delete_selection()
    window.flush()
    assert not window.result.ok
    assert "error" in window.preview.stale_text
    frame = window.preview.grab_shown_frame()
    bottom = frame.pixelColor(frame.width() // 2, frame.height() - 4)
    assert bottom.red() < 60 and bottom.green() < 30  # the dark band of the overlay
    window.edit.undo_action.trigger()
    window.flush()
    assert window.result.ok and window.preview.stale_text == ""


def _big_graph(count: int) -> MaterialGraph:
    graph = MaterialGraph()
    previous = graph.add_node("constant_float", (0.0, 0.0))
    for index in range(1, count):
        node = graph.add_node("add", ((index % 10) * 260.0, (index // 10) * 180.0))
        graph.connect(previous.id, "out", node.id, "a")
        previous = node
    output = graph.add_node("material_output", (10 * 260.0, 0.0))
    graph.connect(previous.id, "out", output.id, "base_color")
    return graph


def test_framing_a_large_graph_keeps_titles_readable(window, qtbot) -> None:
    window.load_graph(_big_graph(60), "big")
    window.frame_all()
    scale = window.graph.viewer().transform().m11()
    assert scale >= MIN_READABLE_SCALE - 0.01
    # The graph cannot be shown whole at that scale: its output node (on the right edge) stays in view.
    viewer = window.graph.viewer()
    output = next(node for node in window.graph.material_nodes() if node.type_name == "material_output")
    shown = viewer.mapToScene(viewer.viewport().rect()).boundingRect()
    assert shown.contains(output.view.sceneBoundingRect())
    # A small graph still fits whole, at about its natural size.
    window.load_graph(_big_graph(3), "small")
    window.frame_all()
    assert window.graph.viewer().transform().m11() <= 1.01
