"""Typed connections: the viewer's live-connection validation and programmatic connects ask the type check."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from app.graph.adapter import populate, snapshot
from app.graph.view import MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.connections import can_connect
from app.material.graph import MaterialGraph


@pytest.fixture
def view(qapp):
    graph = MaterialNodeGraph()
    graph.register_catalog(NODE_TYPES.values())
    graph.connection_check = lambda *ports: can_connect(snapshot(graph), *ports)
    graph.widget.resize(800, 600)
    yield graph
    graph.clear_session()
    graph.deleteLater()


def texture_and_output(view: MaterialNodeGraph) -> None:
    graph = MaterialGraph()
    graph.add_node("texture_parameter", (-300.0, 0.0))
    graph.add_node("constant_vec2", (-300.0, 200.0))
    graph.add_node("material_output", (100.0, 0.0))
    populate(view, graph)


def test_the_viewer_refuses_a_type_mismatch_while_dragging_and_says_why(view: MaterialNodeGraph, qtbot) -> None:
    texture_and_output(view)
    vector = view.node_by_stable_id("n2")
    output = view.node_by_stable_id("n3")
    source_item = vector.outputs()["out"].view
    target_item = output.inputs()["opacity"].view
    viewer = view.typed_viewer
    with qtbot.waitSignal(viewer.connection_refused, timeout=5000) as refused:
        # The check the viewer makes while a live pipe hovers a port and on release.
        accepted = viewer.accepts_connection(source_item, target_item)
    assert accepted is False
    assert "vec2" in refused.args[0] and "float" in refused.args[0]
    # Dragging from the input end asks the same question the other way round.
    assert viewer.accepts_connection(target_item, source_item) is False


#: NodeGraphQt's colour of the live pipe's arrow over a port that refuses the wire.
REFUSED_COLOUR = [150, 60, 255]


def _drag_wire(view: MaterialNodeGraph, qtbot, source, target) -> list[list[int]]:
    """Drag a wire with the mouse from port item `source` to port item `target`; the colour of the live pipe's
    arrow (NodeGraphQt's sign of an accepted or refused port) over it."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QGraphicsPolygonItem

    viewer = view.typed_viewer
    start = viewer.mapFromScene(source.scenePos() + source.boundingRect().center())
    end = viewer.mapFromScene(target.scenePos() + target.boundingRect().center())
    qtbot.mousePress(viewer.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(viewer.viewport(), start + (end - start) * step / 5)
    colours = [list(item.pen().color().getRgb()[:3]) for item in viewer.scene().items()
               if isinstance(item, QGraphicsPolygonItem) and type(item.parentItem()).__name__ == "LivePipeItem"]
    qtbot.mouseRelease(viewer.viewport(), Qt.MouseButton.LeftButton, pos=end)
    return colours


def test_a_wire_dragged_onto_a_port_of_another_type_is_refused(view: MaterialNodeGraph, qtbot) -> None:
    """The gesture itself: the live pipe turns purple over the refusing port, the reason is reported, and the
    release connects nothing; a matching port then connects."""
    texture_and_output(view)
    output = view.node_by_stable_id("n3")
    viewer = view.typed_viewer
    with qtbot.waitSignal(viewer.connection_refused, timeout=5000) as refused:
        colours = _drag_wire(view, qtbot, view.node_by_stable_id("n2").outputs()["out"].view,
                             output.inputs()["opacity"].view)
    assert "vec2" in refused.args[0]
    assert REFUSED_COLOUR in colours
    assert snapshot(view).connections == [] and viewer.reject_connection_types is view.model.reject_connection_types
    constant = view.create_material_node("constant_float", position=(-300.0, 400.0), push_undo=False)
    constant.set_stable_id("n9")
    assert REFUSED_COLOUR not in _drag_wire(view, qtbot, constant.outputs()["out"].view, output.inputs()["opacity"].view)
    assert [(link.source_node, link.source_port, link.target_node, link.target_port)
            for link in snapshot(view).connections] == [("n9", "out", "n3", "opacity")]


def test_the_viewer_accepts_a_matching_connection(view: MaterialNodeGraph) -> None:
    texture_and_output(view)
    vector = view.node_by_stable_id("n2")
    output = view.node_by_stable_id("n3")
    assert view.typed_viewer.accepts_connection(
        vector.outputs()["out"].view, output.inputs()["opacity"].view
    ) is False  # vec2 into a float input: refused
    constant = view.create_material_node("constant_float", push_undo=False)
    constant.set_stable_id("n9")
    assert view.typed_viewer.accepts_connection(
        constant.outputs()["out"].view, output.inputs()["opacity"].view
    ) is True


def test_programmatic_connects_are_guarded(view: MaterialNodeGraph) -> None:
    texture_and_output(view)
    vector = view.node_by_stable_id("n2")
    output = view.node_by_stable_id("n3")
    allowed, reason = view.connect_ports(vector, "out", output, "opacity")
    assert not allowed and "vec2" in reason
    assert not output.inputs()["opacity"].connected_ports()
    assert view.undo_stack().count() == 0

    constant = view.create_material_node("constant_color", push_undo=False)
    constant.set_stable_id("n4")
    allowed, reason = view.connect_ports(constant, "out", output, "base_color")
    assert allowed, reason
    assert snapshot(view).connection_into("n3", "base_color") is not None
    assert view.undo_stack().count() == 1


def test_cycles_are_refused(view: MaterialNodeGraph) -> None:
    graph = MaterialGraph()
    first = graph.add_node("add", (0.0, 0.0))
    second = graph.add_node("add", (200.0, 0.0))
    graph.connect(first.id, "out", second.id, "a")
    populate(view, graph)
    allowed, reason = view.connect_ports(view.node_by_stable_id("n2"), "out", view.node_by_stable_id("n1"), "a")
    assert not allowed and "cycle" in reason


def test_type_checks_survive_load_and_paste(view: MaterialNodeGraph) -> None:
    """NodeGraphQt's own constraint tables go stale after a load; the typed check must not."""
    texture_and_output(view)
    view.copy_nodes([view.node_by_stable_id("n2")])
    pasted = list(view.paste_nodes())
    pasted[0].set_stable_id("n9")
    view.refresh_constraint_tables()
    assert view.typed_viewer.accept_connection_types is view.model.accept_connection_types
    output = view.node_by_stable_id("n3")
    assert view.typed_viewer.accepts_connection(
        pasted[0].outputs()["out"].view, output.inputs()["opacity"].view
    ) is False
    texture_and_output(view)  # load again
    assert view.typed_viewer.accepts_connection(
        view.node_by_stable_id("n2").outputs()["out"].view, view.node_by_stable_id("n3").inputs()["opacity"].view
    ) is False


def test_wires_follow_a_moved_node_and_light_up_with_a_selected_one(view: MaterialNodeGraph) -> None:
    # The node and port items answer `itemChange` themselves (app/graph/nodes.py): what NodeGraphQt's did
    # (redraw the wires when a port moves, highlight them when the node is selected) must still happen.
    graph = MaterialGraph()
    graph.add_node("constant_vec2", (-300.0, 200.0))
    graph.add_node("add", (100.0, 0.0))
    graph.connect("n1", "out", "n2", "a")
    populate(view, graph)
    source = view.node_by_stable_id("n1")
    pipe = source.outputs()["out"].view.connected_pipes[0]
    path = pipe.path()
    start = path.elementAt(path.elementCount() - 1)  # NodeGraphQt draws from the input to the output port
    before = (start.x, start.y)
    source.set_pos(-600.0, 500.0)
    path = pipe.path()
    start = path.elementAt(path.elementCount() - 1)
    assert (start.x - before[0], start.y - before[1]) == pytest.approx((-300.0, 300.0), abs=1.0)
    assert not pipe.highlighted()
    source.view.setSelected(True)
    assert pipe.highlighted()


def test_wires_are_material_pipes_that_highlight_when_selected(view: MaterialNodeGraph) -> None:
    """Wires, loaded or connected, are `MaterialPipeItem`s (their `itemChange` skips the binding for changes other
    than selection, issue 23 item 8); selecting one still highlights it and deselecting resets it."""
    from app.graph.view import MaterialPipeItem

    graph = MaterialGraph()
    graph.add_node("constant_vec2", (-300.0, 200.0))
    graph.add_node("add", (100.0, 0.0))
    graph.add_node("add", (400.0, 0.0))
    graph.connect("n1", "out", "n2", "a")
    populate(view, graph)
    assert view.connect_ports(view.node_by_stable_id("n2"), "out", view.node_by_stable_id("n3"), "a")[0]
    pipes = [port.view.connected_pipes[0] for port in (view.node_by_stable_id("n1").outputs()["out"],
                                                      view.node_by_stable_id("n2").outputs()["out"])]
    assert all(type(pipe) is MaterialPipeItem for pipe in pipes)
    assert all(isinstance(item, MaterialPipeItem) for item in view.scene().items()
               if type(item).__name__.endswith("PipeItem") and item is not view.typed_viewer._LIVE_PIPE
               and item is not view.typed_viewer._SLICER_PIPE)
    pipe = pipes[0]
    assert not pipe.highlighted()
    pipe.setSelected(True)
    assert pipe.highlighted()
    pipe.setSelected(False)
    assert not pipe.highlighted()


WIRES = 40


def test_wires_are_repainted_from_their_caches(view: MaterialNodeGraph, qtbot, monkeypatch) -> None:
    """A repaint of an unchanged view paints no wire again: their device caches fit in Qt's pixmap cache.

    Forty wires crossing an 800 x 600 view need about 20 MB of cached pixels at 16 bits a pixel (a wire's
    cache is its bounding rectangle), twice Qt's default limit: the caches evicted each other and every repaint
    of the view (a thumbnail, a marker, a value) painted every wire again in Python (`fit_pixmap_cache`).
    """
    from NodeGraphQt.qgraphics.pipe import PipeItem

    from app.graph.view import MaterialPipeItem

    painted: list[PipeItem] = []
    paint = PipeItem.paint

    def counting(item: PipeItem, *arguments: object) -> None:
        painted.append(item)
        paint(item, *arguments)

    monkeypatch.setattr(PipeItem, "paint", counting)
    graph = MaterialGraph()
    sources = [graph.add_node("constant_float", (-500.0, -290.0 + 15.0 * index)) for index in range(WIRES)]
    for index, source in enumerate(sources):
        target = graph.add_node("add", (350.0, 270.0 - 15.0 * index))
        graph.connect(source.id, "out", target.id, "a")
    populate(view, graph)
    viewer = view.viewer()
    view.widget.show()
    qtbot.waitExposed(view.widget)
    viewer.resetTransform()  # one scene unit a pixel: each wire's cache about 760 pixels wide, up to 580 high
    viewer.centerOn(0.0, 0.0)
    QApplication.processEvents()
    wires = {item for item in viewer.scene().items() if type(item) is MaterialPipeItem}  # the view's wires
    assert len(wires) == WIRES and all(viewer.mapToScene(viewer.viewport().rect()).boundingRect().intersects(
        wire.sceneBoundingRect()) for wire in wires), "every wire is in view"
    for wire in wires:
        wire.update()  # drawn again into their caches, as after an edit of every wire
    QApplication.processEvents()
    viewer.viewport().repaint()
    assert set(painted) == wires
    painted.clear()
    viewer.viewport().repaint()
    assert painted == [], "wires painted again although nothing changed"
