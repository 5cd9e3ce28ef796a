"""Values of unconnected inputs on the nodes, edited there with the mouse (real NodeGraphQt, real window)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor

from app.graph.input_values import InputValueItem, VectorValueItem
from app.graph.view import MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.port_types import PortType


def _item(window, node_id: str, name: str) -> InputValueItem:
    node = window.graph.node_by_stable_id(node_id)
    return next(item for item in node.view.input_values if item.name == name)


def _point(window, item: InputValueItem) -> QPoint:
    viewer = window.graph.viewer()
    viewer.centerOn(item.sceneBoundingRect().center())
    return viewer.mapFromScene(item.sceneBoundingRect().center())


def _output_id(window) -> str:
    return next(node.id for node in window.material.nodes.values() if node.type_name == "material_output")


def test_every_float_and_colour_input_with_a_value_shows_it_on_its_node(qtbot) -> None:
    graph = MaterialNodeGraph()
    graph.register_catalog(NODE_TYPES.values())
    for type_name, node_type in NODE_TYPES.items():
        node = graph.create_material_node(type_name, push_undo=False)
        for header in node.view.sections.headers:  # every input shown (a folded section hides its values)
            node.view.sections.set_open(header.title, True)
        names = {item.name for item in node.view.input_values}
        for port in node_type.inputs:
            spec = node_type.property(port.name)
            editable = spec is not None and spec.kind in ("float", "color", "vector", "bool")
            assert (port.name in names) == editable, (type_name, port.name)
            if port.type in (PortType.FLOAT, PortType.COLOR) and not isinstance(port.default, str):
                # Every float and colour input (not one that reads a source such as the texture coordinates).
                assert port.name in names, f"{type_name}.{port.name} has no value on the node"
            if spec is not None and spec.kind == "vector" and not isinstance(port.default, str):
                item = next(item for item in node.view.input_values if item.name == port.name)
                assert isinstance(item, VectorValueItem) and len(item.components) == len(spec.default)
                assert item.value() == pytest.approx(tuple(spec.default)), (type_name, port.name)
        labels = [node.view.get_output_text_item(port.view) for port in node.output_ports()]
        labels += [node.view.get_input_text_item(port.view) for port in node.input_ports()]
        for item in node.view.input_values:  # inside the node, clear of every port label
            assert item.isVisible(), (type_name, item.name)
            assert node.view.boundingRect().contains(item.mapRectToParent(item.boundingRect())), (type_name, item.name)
            for label in labels:
                assert not label.sceneBoundingRect().intersects(item.sceneBoundingRect()), (type_name, item.name)
    graph.clear_session()
    graph.deleteLater()


def test_dragging_a_float_value_on_the_node_edits_it_in_one_undo_step(window, qtbot) -> None:
    output = _output_id(window)
    item = _item(window, output, "opacity")
    assert not item.connected and item.isVisible()
    before = window.material.nodes[output].properties.get("opacity", 1.0)
    steps = window.edit.undo_action.isEnabled(), window.graph_editor.model.stack.count
    viewport = window.graph.viewer().viewport()
    start = _point(window, item)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for dx in (-10, -30, -60):
        qtbot.mouseMove(viewport, start + QPoint(dx, 0))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(-60, 0))
    after = window.material.nodes[output].properties["opacity"]
    assert after < before
    assert item.text() == f"{after:.3f}"
    assert window.graph_editor.model.stack.count == steps[1] + 1  # the whole drag is one step
    window.edit.undo_action.trigger()
    assert window.material.nodes[output].properties.get("opacity", 1.0) == before


def test_clicking_a_float_value_opens_a_field_to_type_in(window, qtbot) -> None:
    output = _output_id(window)
    item = _item(window, output, "alpha_clip")
    viewport = window.graph.viewer().viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=_point(window, item))
    assert item.editor is not None and item.editor.isVisible()
    item.editor.setText("0.25")
    qtbot.keyClick(item.editor, Qt.Key.Key_Return)
    assert window.material.nodes[output].properties["alpha_clip"] == pytest.approx(0.25)
    assert item.editor is None


def test_clicking_a_colour_swatch_picks_in_display_terms_and_stores_linear(window, qtbot, monkeypatch) -> None:
    node = window.nodes.add_node_from_palette("bricks")  # a pattern with three colour inputs
    item = _item(window, node.stable_id, "mortar_color")
    asked: list[str] = []

    def pick(initial: QColor, parent: object) -> QColor:
        asked.append(initial.name())
        return QColor.fromRgbF(0.5, 0.5, 0.5, 1.0)

    monkeypatch.setattr(InputValueItem, "pick_color", staticmethod(pick))
    qtbot.mouseClick(window.graph.viewer().viewport(), Qt.MouseButton.LeftButton, pos=_point(window, item))
    assert asked == ["#e7e5dd"]  # linear (0.8, 0.78, 0.72) as it looks on screen
    stored = window.material.nodes[node.stable_id].properties["mortar_color"]
    assert stored[:3] == pytest.approx((0.214, 0.214, 0.214), abs=1e-3)


def test_a_connected_input_shows_and_takes_no_value(window, qtbot) -> None:
    output = _output_id(window)
    item = _item(window, output, "base_color")  # fed by a wire in the example
    assert item.connected
    before = window.material.nodes[output].properties.get("base_color")
    undo_count = window.graph_editor.model.stack.count
    viewport = window.graph.viewer().viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=_point(window, item))
    assert window.material.nodes[output].properties.get("base_color") == before
    assert window.graph_editor.model.stack.count == undo_count


def test_a_vector_input_edits_each_component_on_the_node_with_undo(window, qtbot) -> None:
    node = window.nodes.add_node_from_palette("tiling_offset")  # tiling and offset: two vec2 inputs
    vector = next(item for item in node.view.input_values if item.name == "tiling")
    assert isinstance(vector, VectorValueItem) and not vector.connected
    assert [item.text() for item in vector.components] == ["1.000", "1.000"]
    undo_count = window.graph_editor.model.stack.count
    viewport = window.graph.viewer().viewport()
    # Typing into the second component changes only it.
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=_point(window, vector.components[1]))
    editor = vector.components[1].editor
    assert editor is not None and editor.isVisible()
    editor.setText("3")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert tuple(window.material.nodes[node.stable_id].properties["tiling"]) == pytest.approx((1.0, 3.0))
    # Dragging the first component is one undo step.
    start = _point(window, vector.components[0])
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for dx in (10, 30, 50):
        qtbot.mouseMove(viewport, start + QPoint(dx, 0))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(50, 0))
    dragged = tuple(window.material.nodes[node.stable_id].properties["tiling"])
    assert dragged[0] > 1.0 and dragged[1] == pytest.approx(3.0)
    assert window.graph_editor.model.stack.count == undo_count + 2
    window.edit.undo_action.trigger()
    assert tuple(window.material.nodes[node.stable_id].properties["tiling"]) == pytest.approx((1.0, 3.0))
    window.edit.undo_action.trigger()
    assert tuple(window.material.nodes[node.stable_id].properties["tiling"]) == pytest.approx((1.0, 1.0))
    assert vector.components[1].text() == "1.000"  # the node follows undo


def test_a_colour_swatch_edits_alpha_and_draws_it_over_a_checkerboard(window, qtbot, monkeypatch) -> None:
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

    node = window.nodes.add_node_from_palette("set_alpha")  # a vec4 colour input
    item = _item(window, node.stable_id, "color")
    options: list[object] = []

    def pick(initial: QColor, parent: object) -> QColor:
        options.append(initial.alphaF())
        return QColor.fromRgbF(1.0, 1.0, 1.0, 0.25)

    monkeypatch.setattr(InputValueItem, "pick_color", staticmethod(pick))
    qtbot.mouseClick(window.graph.viewer().viewport(), Qt.MouseButton.LeftButton, pos=_point(window, item))
    assert options == [pytest.approx(1.0)]
    stored = window.material.nodes[node.stable_id].properties["color"]
    assert tuple(stored) == pytest.approx((1.0, 1.0, 1.0, 0.25), abs=1e-3)
    undo_count = window.graph_editor.model.stack.count
    window.edit.undo_action.trigger()
    assert tuple(window.material.nodes[node.stable_id].properties["color"])[3] == pytest.approx(1.0)
    window.edit.redo_action.trigger()
    assert window.graph_editor.model.stack.count == undo_count

    def render() -> QImage:
        image = QImage(int(item.width) * 4, 13 * 4, QImage.Format.Format_ARGB32)
        image.fill(QColor(0, 0, 0))
        painter = QPainter(image)
        painter.scale(4.0, 4.0)
        item.paint(painter, QStyleOptionGraphicsItem(), None)
        painter.end()
        return image

    # A white that is three quarters transparent: the checker's light and dark squares show through, unequal.
    image = render()
    light = QColor(image.pixel(6 * 4 + 2, 6 * 4 + 2)).red()   # squares of 4 px at scale 4: 16 image px each
    dark = QColor(image.pixel(10 * 4 + 2, 6 * 4 + 2)).red()
    assert abs(light - dark) > 20, (light, dark)
    # An opaque colour hides the checkerboard.
    window.edit.undo_action.trigger()
    image = render()
    assert QColor(image.pixel(6 * 4 + 2, 6 * 4 + 2)) == QColor(image.pixel(10 * 4 + 2, 6 * 4 + 2))


def test_the_colour_dialog_offers_alpha(qtbot) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QColorDialog, QDialogButtonBox, QLabel, QLineEdit, QSpinBox

    seen: list[bool] = []

    def answer() -> None:
        """Runs in the dialog's own event loop: types the colour and its alpha, then presses OK."""
        qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QColorDialog))
        dialog = QApplication.activeModalWidget()
        try:
            labels = {label.text().replace("&", ""): label.buddy() for label in dialog.findChildren(QLabel)}
            alpha = labels["Alpha channel:"]
            assert isinstance(alpha, QSpinBox)
            seen.append(alpha.isVisible())  # shown only with ShowAlphaChannel
            html = labels["HTML:"]
            assert isinstance(html, QLineEdit)
            html.selectAll()
            qtbot.keyClicks(html, "#336699")  # 0.2, 0.4, 0.6
            alpha.lineEdit().selectAll()
            qtbot.keyClicks(alpha, "128")  # 0.5
            buttons = dialog.findChild(QDialogButtonBox)
            qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
        finally:
            if dialog.isVisible():  # a failed check above must not leave the test waiting on the dialog
                dialog.reject()

    timer = QTimer()  # stopped afterwards: an unanswered timer never fires in a later test
    timer.setSingleShot(True)
    timer.timeout.connect(answer)
    timer.start(0)
    try:
        chosen = InputValueItem.pick_color(QColor.fromRgbF(1.0, 1.0, 1.0, 1.0), None)
    finally:
        timer.stop()
    assert seen == [True]
    assert (chosen.red(), chosen.green(), chosen.blue(), chosen.alpha()) == (0x33, 0x66, 0x99, 128)


def test_an_input_added_at_runtime_gets_its_value_on_the_node(window, qtbot) -> None:
    node = window.nodes.add_node_from_palette("custom_code")
    node_id = node.stable_id
    window.nodes.select_node(node_id)
    ports = window.properties_panel.editor_widget("inputs")
    ports.setText("color: color, amount: float, offset: vec2")  # a vector input added to the node
    ports.editingFinished.emit()
    node = window.graph.node_by_stable_id(node_id)  # the level is rebuilt with the new port layout
    values = {item.name: item for item in node.view.input_values}
    assert set(values) == {"color", "amount", "offset"}
    vector = values["offset"]
    assert isinstance(vector, VectorValueItem) and len(vector.components) == 2
    before = window.graph_editor.model.stack.count
    viewport = window.graph.viewer().viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=_point(window, vector.components[0]))
    editor = vector.components[0].editor
    assert editor is not None
    editor.setText("0.75")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert tuple(window.material.nodes[node_id].properties["offset"]) == pytest.approx((0.75, 0.0))
    assert window.graph_editor.model.stack.count == before + 1
    window.edit.undo_action.trigger()
    # The document did not store the new input's value before the edit: undo takes it out again, and the
    # node shows the default, and draws it (grab() paints the view now, the vector's item in it).
    assert "offset" not in window.material.nodes[node_id].properties
    assert [item.text() for item in vector.components] == ["0.000", "0.000"]
    assert viewport.rect().intersects(window.graph.viewer().mapFromScene(vector.sceneBoundingRect()).boundingRect())
    assert not viewport.grab().isNull()


def test_a_boolean_input_switches_on_the_node_with_undo(window, qtbot) -> None:
    node = window.nodes.add_node_from_palette("select")
    item = _item(window, node.stable_id, "condition")
    assert item.kind == "bool" and item.text() == "off"
    viewport = window.graph.viewer().viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=_point(window, item))
    assert window.material.nodes[node.stable_id].properties["condition"] is True
    assert item.text() == "on"
    window.edit.undo_action.trigger()
    assert not window.material.nodes[node.stable_id].properties.get("condition", False)
    assert item.text() == "off"
