"""View <-> MaterialGraph adapter: round trips, stable ids across paste, frames, unknown types."""

from __future__ import annotations

import pytest
from PySide6 import QtCore

from app.graph.adapter import populate, renew_duplicate_ids, snapshot
from app.graph.nodes import FRAME_ID_PROPERTY, STABLE_ID_PROPERTY, FrameNode, MaterialNode
from app.graph.view import MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.graph import Connection, MaterialGraph
from app.material.traversal import node_id_key


@pytest.fixture
def view(qapp):
    graph = MaterialNodeGraph()
    graph.register_catalog(NODE_TYPES.values())
    yield graph
    graph.clear_session()
    graph.deleteLater()


def small_graph() -> MaterialGraph:
    graph = MaterialGraph()
    color = graph.add_node("constant_color", (-400.0, 10.5), {"value": (0.25, 0.5, 0.75, 1.0)})
    scale = graph.add_node("constant_float", (-400.0, 200.0), {"value": 0.5})
    multiply = graph.add_node("multiply", (-120.0, 80.0))
    output = graph.add_node("material_output", (200.0, 0.0))
    graph.connect(color.id, "out", multiply.id, "a")
    graph.connect(scale.id, "out", multiply.id, "b")
    graph.connect(multiply.id, "out", output.id, "base_color")
    return graph


def ports_exist(graph: MaterialGraph) -> None:
    for connection in graph.connections:
        assert NODE_TYPES[graph.nodes[connection.source_node].type_name].output(connection.source_port)
        assert NODE_TYPES[graph.nodes[connection.target_node].type_name].input(connection.target_port)


def test_populate_then_snapshot_gives_the_graph_back(view: MaterialNodeGraph) -> None:
    graph = small_graph()
    ports_exist(graph)
    assert populate(view, graph) == []
    assert snapshot(view) == graph
    assert view.undo_stack().count() == 0  # loading is not an edit


def test_every_catalog_type_round_trips_with_its_defaults(view: MaterialNodeGraph) -> None:
    graph = MaterialGraph()
    for index, type_name in enumerate(NODE_TYPES):
        graph.add_node(type_name, (float(index * 170 % 2000), float(index // 12 * 220)))
    assert populate(view, graph) == []
    assert snapshot(view) == graph


def test_unknown_node_types_are_reported_not_dropped_silently(view: MaterialNodeGraph) -> None:
    graph = small_graph()
    graph.add_node("no_such_node", (0.0, 0.0))
    problems = populate(view, graph)
    assert any("no_such_node" in problem for problem in problems)


def test_a_second_connection_into_one_input_is_reported_not_swapped_in(view: MaterialNodeGraph) -> None:
    """Issue 23 item 9: the view shows one connection per input; the first stays, the others are problems."""
    graph = small_graph()
    first = graph.connection_into("n3", "a")
    extra = graph.add_node("constant_color", (-400.0, 400.0))
    duplicate = Connection(extra.id, "out", "n3", "a")
    graph.connections.append(duplicate)
    problems = populate(view, graph)
    assert len(problems) == 1 and "n3.a" in problems[0] and "already" in problems[0]
    shown = snapshot(view)
    assert shown.connection_into("n3", "a") == first and duplicate not in shown.connections


def test_properties_unknown_to_the_catalog_are_kept(view: MaterialNodeGraph) -> None:
    graph = small_graph()
    graph.nodes["n1"].properties["from_the_future"] = (1.0, 2.0)
    populate(view, graph)
    assert snapshot(view).nodes["n1"].properties["from_the_future"] == (1.0, 2.0)


def test_frames_round_trip_with_geometry_membership(view: MaterialNodeGraph) -> None:
    graph = small_graph()
    graph.add_frame("Inputs", (-450.0, -40.0), (330.0, 380.0), ["n1", "n2"])
    populate(view, graph)
    frames = [node for node in view.all_nodes() if isinstance(node, FrameNode)]
    assert len(frames) == 1 and frames[0].get_property(FRAME_ID_PROPERTY) == "f1"
    assert snapshot(view) == graph


def test_paste_and_duplicate_get_fresh_stable_ids(view: MaterialNodeGraph) -> None:
    populate(view, small_graph())
    before = snapshot(view)
    original = view.node_by_stable_id("n3")
    copies = list(view.duplicate_nodes([original]))
    renewed = renew_duplicate_ids(view, before)
    assert [node.stable_id for node in renewed] == [copies[0].stable_id]
    assert original.stable_id == "n3"
    assert copies[0].stable_id not in before.nodes
    ids = [node.stable_id for node in view.material_nodes()]
    assert len(ids) == len(set(ids))

    view.clear_selection()
    before_paste = snapshot(view)
    view.copy_nodes([view.node_by_stable_id("n1"), view.node_by_stable_id("n2")])
    pasted = list(view.paste_nodes())
    renew_duplicate_ids(view, before_paste)
    assert {node.stable_id for node in pasted}.isdisjoint({"n1", "n2"})
    assert view.node_by_stable_id("n1") is not None and view.node_by_stable_id("n1") not in pasted
    after = snapshot(view)
    assert len(after.nodes) == len(before.nodes) + 3


def test_pasted_values_come_back_as_catalog_tuples(view: MaterialNodeGraph) -> None:
    populate(view, small_graph())
    view.copy_nodes([view.node_by_stable_id("n1")])
    pasted = list(view.paste_nodes())
    renew_duplicate_ids(view)
    node = pasted[0]
    assert isinstance(node, MaterialNode)
    assert snapshot(view).nodes[node.stable_id].properties["value"] == (0.25, 0.5, 0.75, 1.0)


def _loading_work(view: MaterialNodeGraph, size: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(node names read, item groups made) while loading and framing a chain of `size` Add nodes."""
    from PySide6 import QtWidgets

    graph = MaterialGraph()
    previous = graph.add_node("constant_float", (0.0, 0.0))
    for index in range(size - 1):  # one type throughout: NodeGraphQt names them "Add 1", "Add 2", ...
        node = graph.add_node("add", (float(index % 20) * 200.0, float(index // 20) * 150.0))
        graph.connect(previous.id, "out", node.id, "a")
        previous = node
    names_read = [0]
    groups = [0]
    original_name = MaterialNode.name
    original_group = QtWidgets.QGraphicsScene.createItemGroup

    def counted_name(self: MaterialNode) -> str:
        names_read[0] += 1
        return original_name(self)

    def counted_group(self: QtWidgets.QGraphicsScene, items: list) -> QtWidgets.QGraphicsItemGroup:
        groups[0] += 1
        return original_group(self, items)

    monkeypatch.setattr(MaterialNode, "name", counted_name)
    monkeypatch.setattr(QtWidgets.QGraphicsScene, "createItemGroup", counted_group)
    try:
        assert populate(view, graph) == []
        view.typed_viewer.frame_items([node.view for node in view.all_nodes()])
    finally:
        monkeypatch.undo()
    return names_read[0], groups[0]


def test_loading_grows_linearly_with_the_graph(view: MaterialNodeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 item 8: unique names from a set, framing by a union of rectangles (no item group)."""
    small_names, small_groups = _loading_work(view, 60, monkeypatch)
    large_names, large_groups = _loading_work(view, 120, monkeypatch)
    assert small_groups == large_groups == 0
    assert large_names <= 2.5 * max(small_names, 1), (small_names, large_names)  # quadratic: 4x


def test_loading_lays_each_node_out_once_and_builds_no_tooltip(view: MaterialNodeGraph,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 item 8: NodeGraphQt laid a node out four times while building it and rebuilt its tooltip seven
    times; loading now lays each node out once (at the end of `deferred_layout`) and tooltips wait to be asked for."""
    from NodeGraphQt.qgraphics.node_base import NodeItem
    from PySide6 import QtWidgets

    from app.graph import nodes as graph_nodes

    layouts: list[object] = []
    tooltips = [0]
    original_draw = NodeItem.draw_node
    original_set_tooltip = QtWidgets.QGraphicsItem.setToolTip

    def counted_draw(self: NodeItem) -> None:
        layouts.append(self)
        original_draw(self)

    def counted_tooltip(self: QtWidgets.QGraphicsItem, text: str) -> None:
        if isinstance(self, (graph_nodes.MaterialNodeItem, graph_nodes.MaterialPortItem)):
            tooltips[0] += 1
        original_set_tooltip(self, text)

    graph = MaterialGraph()
    previous = graph.add_node("constant_float", (0.0, 0.0))
    for index in range(40):
        node = graph.add_node("add", (float(index) * 200.0, 0.0))
        graph.connect(previous.id, "out", node.id, "a")
        previous = node
    monkeypatch.setattr(NodeItem, "draw_node", counted_draw)
    monkeypatch.setattr(QtWidgets.QGraphicsItem, "setToolTip", counted_tooltip)
    try:
        assert populate(view, graph) == []
    finally:
        monkeypatch.undo()
    items = [node.view for node in view.material_nodes()]
    assert len(layouts) == len(items) == 41 and set(map(id, layouts)) == set(map(id, items))
    # Only NodeGraphQt's own node tooltip is written (by its name setter, twice per node, its layout and its
    # `disabled` setter), replaced by ours when asked for; none per port (three each through NodeGraphQt's setters).
    assert tooltips[0] <= 5 * len(items)
    for node in view.material_nodes():
        assert (node.view.width, node.view.height) == (node.model.width, node.model.height)
        assert "<b>" in node.view.toolTip()
        for port in node.output_ports():
            assert port.view.toolTip().startswith("<b>out</b>") and "type:" in port.view.toolTip()


def test_a_tooltip_about_to_show_is_built(view: MaterialNodeGraph, qtbot) -> None:
    """Qt reads an item's tooltip in C++ (not through the Python override): the viewer builds it first."""
    from PySide6 import QtCore, QtGui, QtWidgets

    assert populate(view, small_graph()) == []
    viewer = view.typed_viewer
    viewer.resize(800, 600)
    viewer.show()
    qtbot.waitExposed(viewer)
    multiply = next(node for node in view.material_nodes() if node.type_name == "multiply")
    viewer.centerOn(multiply.view)
    assert QtWidgets.QGraphicsItem.toolTip(multiply.view) != multiply.view.toolTip()  # not built yet
    centre = viewer.mapFromScene(multiply.view.sceneBoundingRect().center())
    event = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, centre, viewer.viewport().mapToGlobal(centre))
    QtWidgets.QApplication.sendEvent(viewer.viewport(), event)
    assert "Multiply" in QtWidgets.QGraphicsItem.toolTip(multiply.view)
    QtWidgets.QToolTip.hideText()


def _node_layout(node: MaterialNode) -> tuple[object, ...]:
    item = node.view
    labels = [(item.get_input_text_item(port), port) for port in item.inputs]
    labels += [(item.get_output_text_item(port), port) for port in item.outputs]
    return (node.name(), item.pos(), item.boundingRect(), item.text_item.toPlainText(), item.text_item.pos(),
            [(label.toPlainText(), label.pos(), label.boundingRect(), label.isVisible(), port.pos())
             for label, port in labels])


def _scene_image(view: MaterialNodeGraph, rect: QtCore.QRectF) -> object:
    """The scene over `rect`, one pixel per unit."""
    from PySide6 import QtGui

    image = QtGui.QImage(int(rect.width()), int(rect.height()), QtGui.QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QtGui.QPainter(image)
    view.scene().render(painter, QtCore.QRectF(image.rect()), rect)
    painter.end()
    return image


def test_loaded_nodes_are_laid_out_and_drawn_as_nodegraphqt_builds_them(view: MaterialNodeGraph,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading builds titles once and port labels without a QTextDocument (issue 23 item 8); every catalog type
    still has the layout and the pixels of a node NodeGraphQt builds one step at a time, with its own labels."""
    from NodeGraphQt.qgraphics.node_text_item import NodeTextItem
    from PySide6 import QtWidgets

    from app.graph.nodes import MaterialNodeItem

    graph = MaterialGraph()
    for index, type_name in enumerate(NODE_TYPES):
        graph.add_node(type_name, (float(index % 8) * 280.0, float(index // 8) * 260.0))
    assert populate(view, graph) == []
    loaded = {node.stable_id: node for node in view.material_nodes()}

    reference = MaterialNodeGraph()
    reference.register_catalog(NODE_TYPES.values())
    monkeypatch.setattr(MaterialNodeItem, "label_item_factory", QtWidgets.QGraphicsTextItem)  # NodeGraphQt's labels
    monkeypatch.setattr(MaterialNodeItem, "title_item_factory", NodeTextItem)
    try:
        for node_id in sorted(graph.nodes, key=node_id_key):
            node = graph.nodes[node_id]
            built = reference.create_material_node(node.type_name, position=node.position, push_undo=False,
                                                   selected=False)
            built.refresh_title()  # loading names a parameter node by its parameter, as the lowering later would
            texts = [built.view.text_item, *(built.view.get_input_text_item(port) for port in built.view.inputs),
                     *(built.view.get_output_text_item(port) for port in built.view.outputs)]
            assert all(isinstance(text, QtWidgets.QGraphicsTextItem) for text in texts)
            assert isinstance(built.view.text_item, NodeTextItem) and built.view.text_item._locked
            assert _node_layout(built) == _node_layout(loaded[node_id]), node.type_name
        for row in range(0, len(NODE_TYPES) // 8 + 1, 2):
            rect = QtCore.QRectF(-40.0, row * 260.0 - 30.0, 8 * 280.0, 2 * 260.0)
            assert _scene_image(view, rect) == _scene_image(reference, rect), row
    finally:
        reference.clear_session()
        reference.deleteLater()


def test_loading_sets_each_title_once(view: MaterialNodeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """NodeGraphQt names a node three times while building it ("node", its class's name, the unique name); the title
    takes its text once per node when a document is loaded."""
    from app.graph.nodes import NodeTitleItem

    texts: list[str] = []
    original = NodeTitleItem.setPlainText

    def counted(self: NodeTitleItem, text: str) -> None:
        texts.append(text)
        original(self, text)

    graph = MaterialGraph()
    for index in range(30):
        graph.add_node("add", (float(index) * 200.0, 0.0))
    monkeypatch.setattr(NodeTitleItem, "setPlainText", counted)
    assert populate(view, graph) == []
    monkeypatch.undo()
    assert sorted(texts) == sorted(node.name() for node in view.material_nodes())


def test_a_cleared_view_is_freed_without_the_cyclic_collector(view: MaterialNodeGraph) -> None:
    """Issue 23 item 8: NodeGraphQt's nodes and ports refer to each other; `clear_session` cuts those cycles so the
    previous document goes by reference counting (a frozen cycle waits for a full collection over everything)."""
    import gc
    import weakref

    graph = small_graph()
    assert populate(view, graph) == []
    nodes = view.material_nodes()
    references = [weakref.ref(node) for node in nodes]
    references += [weakref.ref(port) for node in nodes for port in (*node.input_ports(), *node.output_ports())]
    references += [weakref.ref(node.view) for node in nodes]
    del nodes
    enabled = gc.isenabled()
    gc.disable()
    try:
        view.clear_session()
        assert [reference for reference in references if reference() is not None] == []
    finally:
        if enabled:
            gc.enable()
    # The view still works: a document loads into it and snapshots back.
    assert populate(view, graph) == []
    assert snapshot(view) == graph


def test_a_document_opened_over_another_edits_undoes_and_serialises_as_one_opened_first(
        view: MaterialNodeGraph) -> None:
    """Cutting the previous view's cycles (`clear_session`) leaves the new one whole: NodeGraphQt's serialisation,
    its port queries and the undo of a following edit are those of the same document opened into a fresh view."""
    other = MaterialGraph()
    for index in range(12):
        other.add_node("add", (float(index) * 200.0, 300.0))
    graph = small_graph()
    fresh = MaterialNodeGraph()
    fresh.register_catalog(NODE_TYPES.values())
    try:
        assert populate(fresh, graph) == []
        assert populate(view, other) == []
        assert populate(view, graph) == []

        def observed(target: MaterialNodeGraph) -> tuple[object, ...]:
            session = target.serialize_session()
            nodes = sorted((node["type_"], tuple(node["pos"]), node["custom"][STABLE_ID_PROPERTY])
                           for node in session["nodes"].values())
            ports = sorted((node.stable_id, port.name(), tuple(sorted((p.node().stable_id, p.name())
                                                                       for p in port.connected_ports())))
                           for node in target.material_nodes() for port in (*node.input_ports(), *node.output_ports()))
            return nodes, ports, len(session.get("connections", [])), snapshot(target)

        assert observed(view) == observed(fresh)
        for target in (view, fresh):
            multiply = target.node_by_stable_id("n3")
            target.delete_nodes([multiply], push_undo=True)
            assert "n3" not in snapshot(target).nodes
            target.undo_stack().undo()
        assert observed(view) == observed(fresh)
        assert snapshot(view) == graph
    finally:
        fresh.clear_session()
        fresh.deleteLater()
