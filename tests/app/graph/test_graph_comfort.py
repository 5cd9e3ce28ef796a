"""Graph comfort: node search (Tab, "Add Node…", wires dropped in empty space), Reroute, and frames.

Everything runs on the real NodeGraphQt widget with real mouse and key
events where the gesture matters (dragging a wire, typing in the search).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication

from app.graph.adapter import populate, renew_duplicate_ids, snapshot
from app.graph.nodes import FrameNode
from app.graph.search import SYNONYMS, rank
from app.graph.view import MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph
from app.material.lowering import lower

TYPES = list(NODE_TYPES.values())


def _top(query: str, allowed=None) -> list[str]:
    return [node_type.type_name for node_type in rank(TYPES, query, allowed)[:3]]


# Search ranking -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query,expected",
    [("lerp", "mix"), ("ramp", "color_ramp"), ("perlin", "gradient_noise"), ("worley", "voronoi"), ("Mix", "mix"),
     ("grad", "gradient_noise"), ("voronoi 3", "voronoi_3d"), ("fbm", "fractal_noise"), ("knot", "reroute")],
)
def test_search_finds_nodes_by_display_name_and_synonyms(query: str, expected: str) -> None:
    assert _top(query)[0] == expected


def test_every_synonym_names_real_node_types() -> None:
    for key, names in SYNONYMS.items():
        assert set(names) <= set(NODE_TYPES), key


def test_search_lists_display_names_not_internal_ids(view: MaterialNodeGraph) -> None:
    view.open_node_search()
    texts = [view.node_search.list.item(row).text() for row in range(view.node_search.list.count())]
    assert len(texts) == len(NODE_TYPES)
    assert any(text.startswith("Gradient Noise 3D") for text in texts)
    assert not any(text.startswith("gradient_noise") for text in texts)


# Tab, context menu ----------------------------------------------------------------------------------


def test_tab_search_adds_the_chosen_node_in_one_undo_step(view: MaterialNodeGraph, qtbot) -> None:
    view.typed_viewer.tab_search_toggle()  # what the editor's Tab action calls
    search = view.node_search
    assert search.isVisible()
    qtbot.keyClicks(search.field, "perlin")
    assert search.visible_type_names()[0] == "gradient_noise"
    qtbot.keyClick(search.field, Qt.Key.Key_Return)
    assert not search.isVisible()
    assert [node.type_name for node in view.material_nodes()] == ["gradient_noise"]
    view.undo_stack().undo()
    assert view.material_nodes() == []


def test_arrow_keys_move_through_results_and_escape_closes(view: MaterialNodeGraph, qtbot) -> None:
    view.open_node_search()
    search = view.node_search
    qtbot.keyClicks(search.field, "noise")
    second = search.visible_type_names()[1]
    qtbot.keyClick(search.field, Qt.Key.Key_Down)
    qtbot.keyClick(search.field, Qt.Key.Key_Return)
    assert [node.type_name for node in view.material_nodes()] == [second]
    view.open_node_search()
    qtbot.keyClick(search.field, Qt.Key.Key_Escape)
    assert not search.isVisible() and len(view.material_nodes()) == 1


def test_the_graph_menu_offers_add_node_even_after_the_window_refills_it(view: MaterialNodeGraph) -> None:
    menu = view.typed_viewer.context_menus()["graph"]
    for action in list(menu.actions()):  # what the editor window does with its own actions
        menu.removeAction(action)
    menu.aboutToShow.emit()
    texts = [action.text() for action in menu.actions()]
    assert texts[:2] == ["Add Node…", "Frame Around Selection"]
    view.add_node_action.trigger()
    assert view.node_search.isVisible()


# Dragging a wire into empty space -------------------------------------------------------------------


def _view_point(view: MaterialNodeGraph, scene_point: QPointF) -> QPoint:
    return view.typed_viewer.mapFromScene(scene_point)


def test_a_wire_dropped_in_empty_space_opens_the_search_and_connects_the_chosen_node(view: MaterialNodeGraph, qtbot) -> None:
    graph = MaterialGraph()
    graph.add_node("voronoi", (-300.0, 0.0))
    populate(view, graph)
    voronoi = view.node_by_stable_id("n1")
    port = voronoi.outputs()["cell_color"].view
    start = _view_point(view, port.scenePos() + port.boundingRect().center())
    end = _view_point(view, QPointF(250.0, 60.0))
    viewport = view.typed_viewer.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(viewport, start + (end - start) * step / 5)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    search = view.node_search
    assert search.isVisible()
    listed = set(search.visible_type_names())
    assert "blend" in listed and "texture_parameter" not in listed  # only nodes that can take a colour
    qtbot.keyClicks(search.field, "desat")
    qtbot.keyClick(search.field, Qt.Key.Key_Return)
    renew_duplicate_ids(view)
    material = snapshot(view)
    added = next(node for node in material.nodes.values() if node.type_name == "desaturate")
    assert [(c.source_node, c.source_port, c.target_port) for c in material.connections if c.target_node == added.id] == [
        ("n1", "cell_color", "color")
    ]
    assert abs(added.position[0] - 250.0) < 30 and abs(added.position[1] - 60.0) < 30
    view.undo_stack().undo()  # node and wire go in one step
    assert len(snapshot(view).nodes) == 1 and snapshot(view).connections == []


def test_a_wire_dropped_on_a_port_connects_as_before(view: MaterialNodeGraph, qtbot) -> None:
    graph = MaterialGraph()
    graph.add_node("value_noise", (-300.0, 0.0))
    graph.add_node("one_minus", (100.0, 0.0))
    populate(view, graph)
    source = view.node_by_stable_id("n1").outputs()["out"].view
    target = view.node_by_stable_id("n2").inputs()["x"].view
    start = _view_point(view, source.scenePos() + source.boundingRect().center())
    end = _view_point(view, target.scenePos() + target.boundingRect().center())
    viewport = view.typed_viewer.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(viewport, start + (end - start) * step / 5)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    assert not view.node_search.isVisible()
    assert len(snapshot(view).connections) == 1


# Reroute --------------------------------------------------------------------------------------------


def test_a_reroute_passes_its_value_through_unchanged() -> None:
    def material(with_reroute: bool) -> MaterialGraph:
        graph = MaterialGraph()
        color = graph.add_node("constant_color", properties={"value": (0.2, 0.4, 0.6, 1.0)})
        output = graph.add_node("material_output")
        if with_reroute:
            dot = graph.add_node("reroute")
            graph.connect(color.id, "out", dot.id, "in")
            graph.connect(dot.id, "out", output.id, "base_color")
        else:
            graph.connect(color.id, "out", output.id, "base_color")
        return graph

    direct, rerouted = lower(material(False)), lower(material(True))
    assert rerouted.ok and rerouted.port_types[("n3", "out")].value == "color"
    assert rerouted.artifact.fragment_code == direct.artifact.fragment_code


def test_a_reroute_in_the_view_is_a_small_dot_that_carries_the_type(view: MaterialNodeGraph) -> None:
    graph = MaterialGraph()
    graph.add_node("constant_vec3")
    graph.add_node("reroute", (200.0, 0.0))
    graph.add_node("normalize", (400.0, 0.0))
    graph.connect("n1", "out", "n2", "in")
    graph.connect("n2", "out", "n3", "vector")
    populate(view, graph)
    reroute = view.node_by_stable_id("n2")
    ordinary = view.node_by_stable_id("n3")
    assert reroute.view.boundingRect().width() < ordinary.view.boundingRect().width() / 2
    result = lower(snapshot(view))
    assert result.port_types[("n2", "out")].value == "vec3"


# Frames -------------------------------------------------------------------------------------------


def _two_nodes_and_a_stranger(view: MaterialNodeGraph) -> None:
    graph = MaterialGraph()
    graph.add_node("value_noise", (0.0, 0.0))
    graph.add_node("color_ramp", (250.0, 0.0))
    graph.add_node("material_output", (900.0, 400.0))
    populate(view, graph)


def test_frame_around_selection_wraps_the_selected_nodes(view: MaterialNodeGraph) -> None:
    _two_nodes_and_a_stranger(view)
    for node_id in ("n1", "n2"):
        view.node_by_stable_id(node_id).view.setSelected(True)
    frame = view.frame_around_selection("Noise")
    assert isinstance(frame, FrameNode)
    renew_duplicate_ids(view)
    material = snapshot(view)
    assert [(f.title, f.node_ids) for f in material.frames] == [("Noise", ["n1", "n2"])]
    view.undo_stack().undo()
    assert snapshot(view).frames == []


def test_a_frame_title_and_colour_are_editable_undoable_and_saved(view: MaterialNodeGraph) -> None:
    _two_nodes_and_a_stranger(view)
    view.node_by_stable_id("n1").view.setSelected(True)
    frame = view.frame_around_selection()
    renew_duplicate_ids(view)
    view.rename_frame(frame, "Lava cracks")
    view.set_frame_color(frame, (200, 60, 20))
    material = snapshot(view)
    assert (material.frames[0].title, material.frames[0].color) == ("Lava cracks", (200, 60, 20))
    reread = MaterialGraph.from_dict(material.to_dict())
    assert reread == material and reread.frames[0].color == (200, 60, 20)
    populate(view, reread)
    assert snapshot(view) == material
    view.clear_session()
    populate(view, reread)
    frame = view.frames()[0]
    view.rename_frame(frame, "Other")
    view.undo_stack().undo()
    assert snapshot(view).frames[0].title == "Lava cracks"


def test_frames_without_a_colour_read_from_old_files_stay_without_one() -> None:
    graph = MaterialGraph()
    graph.add_node("value_noise")
    graph.add_frame("Old", (0.0, 0.0), (300.0, 200.0), ["n1"])
    data = graph.to_dict()
    assert "color" not in data["frames"][0]
    data["frames"][0]["color"] = "red"  # a hand-edited file: ignored, never an error
    assert MaterialGraph.from_dict(data).frames[0].color is None


def test_moving_a_frame_moves_its_members_and_not_the_others(view: MaterialNodeGraph, qtbot) -> None:
    _two_nodes_and_a_stranger(view)
    for node_id in ("n1", "n2"):
        view.node_by_stable_id(node_id).view.setSelected(True)
    frame = view.frame_around_selection()
    view.clear_selection()
    before = {node_id: tuple(view.node_by_stable_id(node_id).pos()) for node_id in ("n1", "n2", "n3")}
    # Drag the frame by its title bar with the mouse.
    grip = frame.view.scenePos() + QPointF(20.0, 8.0)
    start = _view_point(view, grip)
    end = start + QPoint(120, 80)
    viewport = view.typed_viewer.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(viewport, start + (end - start) * step / 5)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    QApplication.processEvents()
    after = {node_id: tuple(view.node_by_stable_id(node_id).pos()) for node_id in ("n1", "n2", "n3")}
    zoom = view.typed_viewer.transform().m11()
    for node_id in ("n1", "n2"):
        assert abs(after[node_id][0] - before[node_id][0] - 120 / zoom) < 3, node_id
        assert abs(after[node_id][1] - before[node_id][1] - 80 / zoom) < 3, node_id
    assert after["n3"] == before["n3"]
    view.move_frame(frame, -10.0, 0.0)
    assert abs(view.node_by_stable_id("n1").pos()[0] - (after["n1"][0] - 10.0)) < 1e-6
    view.undo_stack().undo()
    assert abs(view.node_by_stable_id("n1").pos()[0] - after["n1"][0]) < 1e-6
