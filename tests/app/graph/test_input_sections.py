"""Foldable input sections (Blender's node panels) on the output nodes, on the real NodeGraphQt widget.

The Surface Output's glTF extension lobes are folded to one header line each
until used; a wire opens its section, also through undo and redo, and a wire
can reach a folded section's input (resting on its header opens it, dropping
on the header connects its first fitting input). A wire never ends at a
folded section.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication

from app.graph.adapter import populate, snapshot
from app.graph.nodes import MaterialNode
from app.graph.view import SPRING_OPEN_MS, MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph
from app.material.node_types import InputSection, NodeType, PortSpec
from app.material.port_types import PortType


def _surface(properties: dict[str, object] | None = None, wired: str | None = None) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("constant_float", (-400.0, 0.0))
    graph.add_node("surface_output", (0.0, 0.0), properties=properties or {})
    if wired is not None:
        graph.connect("n1", "out", "n2", wired)
    return graph


def _open(node: MaterialNode) -> dict[str, bool]:
    return {header.title: header.is_open for header in node.view.sections.headers}


def _no_wire_into_a_folded_section(node: MaterialNode) -> None:
    for header in node.view.sections.headers:
        for port in header.ports:
            if port.connected_pipes:
                assert header.is_open, f"{header.title}: a wire ends at a folded section"
                assert port.isVisible()
                assert all(pipe.isVisible() for pipe in port.connected_pipes)


def _view_point(view: MaterialNodeGraph, scene_point: QPointF) -> QPoint:
    return view.typed_viewer.mapFromScene(scene_point)


def test_sections_are_data_on_the_node_type() -> None:
    surface = NODE_TYPES["surface_output"]
    assert [section.title for section in surface.sections][:3] == ["Specular", "Emission", "Coat"]
    assert "base_color" in surface.unsectioned_inputs() and "clearcoat" not in surface.unsectioned_inputs()
    # Every input of both output nodes is drawn once: in no section, or in exactly one.
    for type_name in ("surface_output", "openpbr_surface"):
        node_type = NODE_TYPES[type_name]
        grouped = [name for section in node_type.sections for name in section.inputs]
        assert sorted(grouped + node_type.unsectioned_inputs()) == sorted(port.name for port in node_type.inputs)
    assert surface.drawn_rows(()) == len(surface.unsectioned_inputs()) + len(surface.sections)
    with pytest.raises(ValueError, match="unknown or repeated"):
        NodeType("bad", "Bad", "Test", "", [PortSpec("a", PortType.FLOAT)], [], [], lower=lambda ctx: None,
                 sections=(InputSection("S", ("a", "b")),))


def test_the_extension_lobes_start_folded_and_the_node_is_short(view: MaterialNodeGraph) -> None:
    assert populate(view, _surface()) == []
    node = view.node_by_stable_id("n2")
    assert node is not None
    assert not any(_open(node).values())
    shown = [port.name for port in node.view.inputs if port.isVisible()]
    assert shown == NODE_TYPES["surface_output"].unsectioned_inputs()
    # Seven inputs and nine header lines instead of twenty-eight inputs.
    assert node.view.height < 420.0
    # Folded inputs' values are hidden on the node; every one is still a property (the properties panel shows them).
    values = {item.name: item for item in node.view.input_values}
    assert not values["clearcoat"].isVisible() and values["metallic"].isVisible()
    assert {spec.name for spec in node.CATALOG_TYPE.properties} >= {"clearcoat", "sheen_roughness", "ior"}
    # The headers are drawn in order under the core inputs, each one row.
    tops = [header.pos().y() for header in node.view.sections.headers]
    assert tops == sorted(tops) and tops[0] > max(port.pos().y() for port in node.view.inputs if port.isVisible())


def test_a_connected_or_changed_lobe_starts_open(view: MaterialNodeGraph) -> None:
    populate(view, _surface(wired="sheen_roughness"))
    node = view.node_by_stable_id("n2")
    assert node is not None
    assert {title for title, is_open in _open(node).items() if is_open} == {"Sheen"}
    _no_wire_into_a_folded_section(node)
    populate(view, _surface(properties={"clearcoat": 1.0}))
    node = view.node_by_stable_id("n2")
    assert node is not None
    assert {title for title, is_open in _open(node).items() if is_open} == {"Coat"}


def test_connecting_opens_the_section_and_undo_redo_keep_it_consistent(view: MaterialNodeGraph) -> None:
    populate(view, _surface())
    source, node = view.node_by_stable_id("n1"), view.node_by_stable_id("n2")
    assert source is not None and node is not None
    folded_height = node.view.height
    assert view.connect_ports(source, "out", node, "clearcoat_roughness") == (True, "")
    assert _open(node)["Coat"] and node.view.height > folded_height
    port = node.inputs()["clearcoat_roughness"].view
    pipe = port.connected_pipes[0]
    assert pipe.isVisible()
    # The wire ends at the port where it is drawn now.
    end = pipe.path().pointAtPercent(0.0)
    assert (end - port.scenePos() - port.boundingRect().center()).manhattanLength() < 2.0
    stack = view.undo_stack()
    stack.undo()
    assert not _open(node)["Coat"] and node.view.height == folded_height
    assert not port.connected_pipes
    stack.redo()
    assert _open(node)["Coat"] and port.connected_pipes
    _no_wire_into_a_folded_section(node)
    # Disconnecting folds it (nothing holds it open); undoing that reopens it before the wire comes back.
    node.inputs()["clearcoat_roughness"].disconnect_from(source.outputs()["out"])
    assert not _open(node)["Coat"]
    stack.undo()
    assert _open(node)["Coat"] and port.connected_pipes and port.isVisible()
    _no_wire_into_a_folded_section(node)
    # A section holding a wire cannot be folded by a click; once the wire goes, it can.
    header = node.view.sections.find("Coat")
    assert header is not None
    assert not header.toggle() and header.is_open
    stack.undo()
    assert not header.is_open
    assert header.toggle() and header.is_open  # the artist unfolds it
    assert header.toggle() and not header.is_open


def test_a_click_on_a_header_folds_and_unfolds_it(view: MaterialNodeGraph, qtbot) -> None:
    populate(view, _surface())
    node = view.node_by_stable_id("n2")
    assert node is not None
    header = node.view.sections.find("Sheen")
    assert header is not None
    view.typed_viewer.centerOn(header)
    point = _view_point(view, header.sceneBoundingRect().center())
    viewport = view.typed_viewer.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=point)
    assert header.is_open and node.inputs()["sheen_color"].view.isVisible()
    point = _view_point(view, header.sceneBoundingRect().center())
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=point)
    assert not header.is_open and not node.inputs()["sheen_color"].view.isVisible()


def _double_click(view: MaterialNodeGraph, qtbot: Any, point: QPoint, second_press: bool) -> None:
    """A double click as Qt delivers it to a widget: press, release, double-click, release (`mouseDClick` sends
    the double-click event alone); with `second_press`, as a window gets it: a press before the double-click."""
    viewport = view.typed_viewer.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=point)
    if second_press:
        qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=point)
    qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=point)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=point)


@pytest.mark.parametrize("second_press", [False, True], ids=["widget", "window"])
def test_a_double_click_on_a_header_is_one_toggle(view: MaterialNodeGraph, qtbot: Any, second_press: bool) -> None:
    """The second click of a double click must not fold again what the first unfolded (nor unfold what it
    folded); the double click stays on the header."""
    populate(view, _surface())
    node = view.node_by_stable_id("n2")
    assert node is not None
    header = node.view.sections.find("Sheen")
    assert header is not None
    view.typed_viewer.centerOn(header)
    steps = view.undo_stack().count()
    double_clicked: list[str] = []
    view.node_double_clicked.connect(lambda node: double_clicked.append(node.id))
    _double_click(view, qtbot, _view_point(view, header.sceneBoundingRect().center()), second_press)
    assert header.is_open and node.inputs()["sheen_color"].view.isVisible()
    qtbot.wait(QApplication.doubleClickInterval() + 50)  # the next gesture is no part of this one
    _double_click(view, qtbot, _view_point(view, header.sceneBoundingRect().center()), second_press)
    assert not header.is_open and not node.inputs()["sheen_color"].view.isVisible()
    # Folding is view state: no step of the document; and the node's own double click was not triggered.
    assert view.undo_stack().count() == steps
    assert double_clicked == []


def _drag(view: MaterialNodeGraph, qtbot, start: QPoint, end: QPoint, rest_ms: int = 0) -> None:
    viewport = view.typed_viewer.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(viewport, start + (end - start) * step / 5)
    if rest_ms:
        qtbot.wait(rest_ms)


def test_a_wire_resting_on_a_folded_header_opens_it_and_reaches_its_input(view: MaterialNodeGraph, qtbot) -> None:
    populate(view, _surface())
    source, node = view.node_by_stable_id("n1"), view.node_by_stable_id("n2")
    assert source is not None and node is not None
    header = node.view.sections.find("Thin Film")
    assert header is not None
    out = source.outputs()["out"].view
    start = _view_point(view, out.scenePos() + out.boundingRect().center())
    _drag(view, qtbot, start, _view_point(view, header.sceneBoundingRect().center()), rest_ms=SPRING_OPEN_MS + 250)
    assert header.is_open and header.transient  # opened for this wire
    target = node.inputs()["iridescence_thickness"].view
    end = _view_point(view, target.scenePos() + target.boundingRect().center())
    viewport = view.typed_viewer.viewport()
    qtbot.mouseMove(viewport, end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    connections = snapshot(view).connections
    assert [(c.target_node, c.target_port) for c in connections] == [("n2", "iridescence_thickness")]
    assert header.is_open and not header.transient  # held open by the wire now
    _no_wire_into_a_folded_section(node)
    view.undo_stack().undo()
    assert not header.is_open


def test_a_wire_that_only_passes_a_folded_header_leaves_it_folded(view: MaterialNodeGraph, qtbot) -> None:
    populate(view, _surface())
    source, node = view.node_by_stable_id("n1"), view.node_by_stable_id("n2")
    assert source is not None and node is not None
    header = node.view.sections.find("Volume")
    assert header is not None
    out = source.outputs()["out"].view
    start = _view_point(view, out.scenePos() + out.boundingRect().center())
    _drag(view, qtbot, start, _view_point(view, header.sceneBoundingRect().center()), rest_ms=SPRING_OPEN_MS + 250)
    assert header.is_open
    # Dropped in empty space (the search opens; cancelled): the section folds again.
    empty = _view_point(view, QPointF(-200.0, 600.0))
    viewport = view.typed_viewer.viewport()
    qtbot.mouseMove(viewport, empty)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=empty)
    view.node_search.hide()
    assert not header.is_open and not snapshot(view).connections


def test_a_wire_dropped_on_a_folded_header_connects_the_sections_first_input(view: MaterialNodeGraph, qtbot) -> None:
    populate(view, _surface())
    source, node = view.node_by_stable_id("n1"), view.node_by_stable_id("n2")
    assert source is not None and node is not None
    header = node.view.sections.find("Anisotropy")
    assert header is not None
    out = source.outputs()["out"].view
    start = _view_point(view, out.scenePos() + out.boundingRect().center())
    end = _view_point(view, header.sceneBoundingRect().center())
    _drag(view, qtbot, start, end)  # released at once: no time for the spring
    qtbot.mouseRelease(view.typed_viewer.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert not view.node_search.isVisible()
    connections = snapshot(view).connections
    assert [(c.target_node, c.target_port) for c in connections] == [("n2", "anisotropy_strength")]
    assert header.is_open
    _no_wire_into_a_folded_section(node)


def test_a_value_changed_in_the_properties_opens_its_section(view: MaterialNodeGraph) -> None:
    populate(view, _surface())
    node = view.node_by_stable_id("n2")
    assert node is not None
    node.set_material_property("transmission", 0.8)
    assert _open(node)["Transmission"]
    node.set_material_property("transmission", 0.0)
    assert _open(node)["Transmission"]  # never folds by itself


def test_the_openpbr_surface_folds_its_lobes_too(view: MaterialNodeGraph) -> None:
    graph = MaterialGraph()
    graph.add_node("openpbr_surface", (0.0, 0.0))
    populate(view, graph)
    node = view.node_by_stable_id("n1")
    assert node is not None
    assert node.view.sections.headers and not any(_open(node).values())
    assert node.view.height < 420.0
