"""The colour ramp's gradient widget: add, move and remove stops with the mouse; each edit is one undo step.

The widget is driven with real mouse events (pytest-qt's qtbot); the undo
test wires the properties panel to a real NodeGraphQt graph the way the
editor does (a finished edit becomes `set_property` on the undo stack).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from app.graph.adapter import populate, snapshot
from app.graph.view import MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph
from app.ui.gradient_editor import GradientBar, GradientEditor, evaluate
from app.ui.properties_panel import PropertiesPanel

THREE_STOPS = ((0.0, 1.0, 0.0, 0.0, 1.0), (0.5, 0.0, 1.0, 0.0, 1.0), (1.0, 0.0, 0.0, 1.0, 1.0))


@pytest.fixture
def bar(qtbot) -> GradientBar:
    widget = GradientBar()
    qtbot.addWidget(widget)
    widget.resize(300, 60)
    widget.set_stops(THREE_STOPS)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _point(point: QPointF) -> QPoint:
    return QPoint(round(point.x()), round(point.y()))


def test_dragging_a_stop_moves_it_and_emits_one_edit_on_release(bar: GradientBar, qtbot) -> None:
    edits = []
    bar.stopsEdited.connect(edits.append)
    start = _point(bar.handle_point(1))
    target = QPoint(round(bar.x_for(0.8)), start.y())
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(bar, QPoint(round(bar.x_for(0.65)), start.y()))
    qtbot.mouseMove(bar, target)
    assert edits == []  # nothing until the button is released
    qtbot.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=target)
    assert len(edits) == 1
    positions = [stop[0] for stop in edits[0]]
    assert positions[0] == 0.0 and positions[2] == 1.0
    assert abs(positions[1] - 0.8) < 0.01
    assert edits[0][1][1:] == (0.0, 1.0, 0.0, 1.0)  # the green stop moved, colour unchanged


def test_dragging_a_stop_past_another_reorders_and_keeps_the_selection(bar: GradientBar, qtbot) -> None:
    edits = []
    bar.stopsEdited.connect(edits.append)
    start = _point(bar.handle_point(0))
    target = QPoint(round(bar.x_for(0.75)), start.y())
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(bar, target)
    qtbot.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=target)
    stops = edits[-1]
    assert [stop[1:4] for stop in stops] == [(0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)]
    assert bar.selected == 1 and bar.stops[1][1:4] == (1.0, 0.0, 0.0)


def test_double_click_on_the_bar_adds_a_stop_with_the_gradients_colour(bar: GradientBar, qtbot) -> None:
    edits = []
    bar.stopsEdited.connect(edits.append)
    where = QPoint(round(bar.x_for(0.25)), round(bar.bar_rect().center().y()))
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=where)
    assert len(edits) == 1 and len(edits[0]) == 4
    added = edits[0][1]
    assert abs(added[0] - 0.25) < 0.01
    expected = evaluate(THREE_STOPS, "linear", added[0])
    assert all(abs(a - b) < 1e-9 for a, b in zip(added[1:], expected))


def test_right_click_removes_a_stop_but_never_the_last(bar: GradientBar, qtbot) -> None:
    edits = []
    bar.stopsEdited.connect(edits.append)
    for _ in range(2):
        qtbot.mouseClick(bar, Qt.MouseButton.RightButton, pos=_point(bar.handle_point(0)))
    assert [len(edit) for edit in edits] == [2, 1]
    qtbot.mouseClick(bar, Qt.MouseButton.RightButton, pos=_point(bar.handle_point(0)))
    assert len(edits) == 2 and len(bar.stops) == 1


def test_delete_key_removes_the_selected_stop(bar: GradientBar, qtbot) -> None:
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=_point(bar.handle_point(2)))
    assert bar.selected == 2
    qtbot.keyClick(bar, Qt.Key.Key_Delete)
    assert [stop[0] for stop in bar.stops] == [0.0, 0.5]


def test_set_stops_reads_bad_values_tolerantly_and_emits_nothing(bar: GradientBar) -> None:
    edits = []
    bar.stopsEdited.connect(edits.append)
    bar.set_stops([[0.75, 1, 1, 1, 1], "junk", [2.0, 0, 0, 0], [0.1, "x", 0, 0, 1], None])
    assert bar.stops == ((0.75, 1.0, 1.0, 1.0, 1.0), (1.0, 0.0, 0.0, 0.0, 1.0))
    bar.set_stops("not a ramp")
    assert bar.stops == () and edits == []


def test_the_bar_draws_what_the_shader_computes_for_each_interpolation(bar: GradientBar) -> None:
    for interpolation in ("linear", "ease", "constant"):
        bar.set_interpolation(interpolation)
        image = bar.gradient_image(100)
        color = image.pixelColor(30, 0)
        expected = evaluate(THREE_STOPS, interpolation, 0.305)
        assert abs(color.redF() - expected[0]) < 2 / 255 and abs(color.greenF() - expected[1]) < 2 / 255


# With the properties panel and the graph's undo stack ---------------------------------------------


@pytest.fixture
def ramp_setup(qtbot):
    view = MaterialNodeGraph()
    view.register_catalog(NODE_TYPES.values())
    graph = MaterialGraph()
    graph.add_node("color_ramp", properties={"stops": THREE_STOPS})
    populate(view, graph)
    node = view.node_by_stable_id("n1")
    panel = PropertiesPanel()
    qtbot.addWidget(panel)
    panel.resize(360, 400)

    def refresh() -> None:
        values = {spec.name: node.material_property(spec.name) for spec in node.CATALOG_TYPE.properties}
        panel.show_node("n1", node.CATALOG_TYPE, values)

    panel.propertyEdited.connect(lambda node_id, name, value: node.set_material_property(name, value))
    view.undo_stack().indexChanged.connect(lambda _index: refresh())
    refresh()
    panel.show()
    qtbot.waitExposed(panel)
    yield view, node, panel
    view.clear_session()
    view.deleteLater()


def test_a_dragged_stop_lands_in_the_graph_and_undo_restores_the_ramp(ramp_setup, qtbot) -> None:
    view, _node, panel = ramp_setup
    editor = panel.editor_widget("stops")
    assert isinstance(editor, GradientEditor)
    bar = editor.bar
    start = _point(bar.handle_point(1))
    target = QPoint(round(bar.x_for(0.2)), start.y())
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(bar, target)
    qtbot.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=target)
    stored = snapshot(view).nodes["n1"].properties["stops"]
    assert abs(stored[1][0] - 0.2) < 0.01
    view.undo_stack().undo()
    assert snapshot(view).nodes["n1"].properties["stops"] == THREE_STOPS
    assert editor.bar.stops == THREE_STOPS  # the panel shows the restored value
    view.undo_stack().redo()
    assert abs(snapshot(view).nodes["n1"].properties["stops"][1][0] - 0.2) < 0.01


def test_adding_and_removing_stops_are_separate_undo_steps(ramp_setup, qtbot) -> None:
    view, _node, panel = ramp_setup
    bar = panel.editor_widget("stops").bar
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=QPoint(round(bar.x_for(0.75)), round(bar.bar_rect().center().y())))
    assert len(snapshot(view).nodes["n1"].properties["stops"]) == 4
    qtbot.mouseClick(bar, Qt.MouseButton.RightButton, pos=_point(bar.handle_point(0)))
    assert len(snapshot(view).nodes["n1"].properties["stops"]) == 3
    view.undo_stack().undo()
    assert len(snapshot(view).nodes["n1"].properties["stops"]) == 4
    view.undo_stack().undo()
    assert snapshot(view).nodes["n1"].properties["stops"] == THREE_STOPS


def test_the_ramp_survives_save_and_load(tmp_path) -> None:
    from app.material.document import load_text, save_text

    graph = MaterialGraph()
    ramp = graph.add_node("color_ramp", properties={"stops": THREE_STOPS, "interpolation": "ease"})
    output = graph.add_node("material_output")
    graph.connect(ramp.id, "color", output.id, "base_color")
    text = save_text(graph)
    loaded = load_text(text.encode("utf-8") if isinstance(text, str) else text)
    assert loaded.graph == graph
