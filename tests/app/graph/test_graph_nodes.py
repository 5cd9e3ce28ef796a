"""The generated NodeGraphQt node classes mirror the catalog: identifiers, ports, colours, tooltips, markers."""

from __future__ import annotations

import pytest
from NodeGraphQt.constants import ITEM_CACHE_MODE
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtGui import QTextDocument

from app.graph.nodes import (
    STABLE_ID_PROPERTY,
    MaterialNode,
    NodeClassRegistry,
    NodeTitleItem,
    PortLabelItem,
    category_identifier,
    class_name_for,
    property_key,
)
from app.graph.ports import GENERIC_COLOR, port_color, type_label
from app.graph.view import MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.port_types import DYNAMIC, PortType


@pytest.fixture
def graph(qapp):
    view = MaterialNodeGraph()
    view.register_catalog(NODE_TYPES.values())
    yield view
    view.clear_session()
    view.deleteLater()


def test_every_catalog_type_gets_one_class_with_a_dotted_identifier() -> None:
    registry = NodeClassRegistry(NODE_TYPES.values())
    assert set(registry.classes) == set(NODE_TYPES)
    view_types = [registry.view_type(name) for name in NODE_TYPES]
    assert len(set(view_types)) == len(view_types)
    for name, view_type in zip(NODE_TYPES, view_types):
        # `::` in an identifier breaks NodeGraphQt's palette drag and drop.
        assert "::" not in view_type
        assert view_type.startswith(category_identifier(NODE_TYPES[name].category) + ".")
        assert registry.type_name(view_type) == name


def test_class_names_are_identifiers() -> None:
    assert class_name_for("constant_vec3") == "ConstantVec3Node"
    assert class_name_for("3d noise").isidentifier()


def test_node_ports_and_properties_follow_the_catalog(graph: MaterialNodeGraph) -> None:
    for type_name, node_type in NODE_TYPES.items():
        node = graph.create_material_node(type_name, push_undo=False)
        assert isinstance(node, MaterialNode)
        assert [port.name() for port in node.input_ports()] == [port.name for port in node_type.inputs]
        assert [port.name() for port in node.output_ports()] == [port.name for port in node_type.outputs]
        for spec in node_type.properties:
            assert node.has_property(property_key(spec.name))
        assert node.has_property(STABLE_ID_PROPERTY)
        # As written: the tooltip is rich text, "a < b" in a description is escaped, not read as a tag.
        shown = QTextDocument()
        shown.setHtml(node.view.toolTip())
        assert node_type.description in shown.toPlainText()


def test_ports_are_coloured_by_type(graph: MaterialNodeGraph) -> None:
    colours = {port_color(port_type) for port_type in PortType}
    assert len(colours) == len(PortType)  # every port type its own colour
    assert GENERIC_COLOR not in colours
    assert port_color(DYNAMIC) == GENERIC_COLOR
    node = graph.create_material_node("constant_vec3", push_undo=False)
    assert tuple(node.output_ports()[0].view.color[:3]) == port_color(PortType.VEC3)


def test_type_labels_use_glsl_spelling() -> None:
    from vpl_core.ir.types import mat, vec

    assert type_label(vec(3)) == "vec3"
    assert type_label(mat(4)) == "mat4"
    assert type_label(PortType.COLOR) == "color"
    assert type_label(DYNAMIC) == "dynamic"


def test_resolved_port_types_show_in_colour_and_tooltip(graph: MaterialNodeGraph) -> None:
    node = graph.create_material_node("add", push_undo=False)
    output = node.output_ports()[0]
    assert tuple(output.view.color[:3]) == GENERIC_COLOR
    node.show_port_types({("out", output.name()): PortType.VEC3})
    assert tuple(output.view.color[:3]) == port_color(PortType.VEC3)
    assert "vec3" in output.view.toolTip()
    assert node.port_type_label("out", output.name()) == "vec3"
    node.show_port_types({})
    assert tuple(output.view.color[:3]) == GENERIC_COLOR


def test_error_marker_appears_and_clears(graph: MaterialNodeGraph) -> None:
    node = graph.create_material_node("constant_float", push_undo=False)
    item = node.view
    assert not item.has_error_marker
    item.set_diagnostics(["value must be finite"])
    assert item.has_error_marker
    assert "value must be finite" in item.marker_text
    assert "value must be finite" in item.toolTip()
    # NodeGraphQt rebuilds tooltips on redraw; the message must survive it.
    item.draw_node()
    assert "value must be finite" in item.toolTip()
    item.set_diagnostics([])
    assert not item.has_error_marker
    assert "value must be finite" not in item.toolTip()


def test_showing_a_thumbnail_or_footer_lays_the_node_out_as_a_full_layout_does(graph: MaterialNodeGraph) -> None:
    """The quick relayout (height only, issue 23 item 8) gives every catalog type what NodeGraphQt's full one does."""
    for index, type_name in enumerate(NODE_TYPES):
        node = graph.create_material_node(type_name, position=(float(index) * 300.0, 0.0), push_undo=False,
                                          selected=False)
        item = node.view
        for thumbnail, footer in ((True, False), (True, True), (False, True), (False, False)):
            item.set_thumbnail_shown(thumbnail)
            item.set_cost_shown(footer)
            quick = (item.boundingRect(), [port.pos() for port in (*item.inputs, *item.outputs)],
                     item._marker_text.pos())
            item.draw_node()
            full = (item.boundingRect(), [port.pos() for port in (*item.inputs, *item.outputs)],
                    item._marker_text.pos())
            assert quick == full, (type_name, thumbnail, footer)


def _label_image(item: QtWidgets.QGraphicsItem, rect: QtCore.QRectF) -> QtGui.QImage:
    """`item` drawn alone (as a scene draws it, through its device cache) over `rect` of a white scene."""
    scene = QtWidgets.QGraphicsScene()
    scene.setBackgroundBrush(QtGui.QColor(255, 255, 255))
    scene.addItem(item)
    image = QtGui.QImage(int(rect.width()) * 2, int(rect.height()) * 2, QtGui.QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QtGui.QPainter(image)
    scene.render(painter, QtCore.QRectF(image.rect()), rect)
    painter.end()
    scene.removeItem(item)
    return image


def test_port_labels_are_sized_and_drawn_as_text_items(qapp) -> None:
    """A `PortLabelItem` (issue 23 item 8: a sixth of a QGraphicsTextItem's cost) has the rectangle and the pixels of
    the QGraphicsTextItem NodeGraphQt makes for a port label, for every label of the catalog and an empty one."""
    labels = {""}
    for node_type in NODE_TYPES.values():
        for spec in (*node_type.inputs, *node_type.outputs):
            labels |= {spec.name, getattr(spec, "display_name", spec.name)}
    colors = [QtGui.QColor(255, 255, 255, 180), QtGui.QColor(20, 30, 200)]  # NodeGraphQt's text colour, another
    for text in sorted(labels):
        for color in colors:
            reference = QtWidgets.QGraphicsTextItem(text)  # as NodeItem._add_port makes a label
            reference.setFont(reference.font())
            reference.setCacheMode(ITEM_CACHE_MODE)
            label = PortLabelItem("placeholder")
            label.setCacheMode(ITEM_CACHE_MODE)
            label.setPlainText(text)
            assert label.toPlainText() == text
            assert label.font() == reference.font()
            assert label.boundingRect() == reference.boundingRect(), text
            reference.setDefaultTextColor(color)
            label.setDefaultTextColor(color)
            assert label.defaultTextColor() == color
            for item in (reference, label):
                item.setPos(3.25, 7.5)  # NodeGraphQt places labels at fractions of a unit
            rect = QtCore.QRectF(0.0, 0.0, reference.boundingRect().width() + 12.0, 32.0)
            assert _label_image(label, rect) == _label_image(reference, rect), (text, color.name())


def test_a_new_label_has_the_text_items_default_colour(qapp) -> None:
    assert PortLabelItem("a").defaultTextColor() == QtWidgets.QGraphicsTextItem("a").defaultTextColor()


def test_a_node_has_no_text_document(graph: MaterialNodeGraph) -> None:
    """Neither the title nor the port labels are QGraphicsTextItems (each lays its text out in a QTextDocument);
    NodeGraphQt's calls on them (`get_input_text_item`, `text_item`, visibility, colour) reach the light items."""
    node = graph.create_material_node("mix", push_undo=False)
    item = node.view
    assert not [child for child in item.childItems() if isinstance(child, QtWidgets.QGraphicsTextItem)]
    assert isinstance(item.text_item, NodeTitleItem) and item.text_item.toPlainText() == node.name()
    assert item.text_item.node is item and item.text_item.defaultTextColor() == QtGui.QColor(*item.text_color)
    labels = [item.get_input_text_item(port.view) for port in node.input_ports()]
    labels += [item.get_output_text_item(port.view) for port in node.output_ports()]
    assert labels and all(isinstance(label, PortLabelItem) for label in labels)
    assert [label.toPlainText() for label in labels] == [
        getattr(spec, "display_name", spec.name) for spec in (*NODE_TYPES["mix"].inputs, *NODE_TYPES["mix"].outputs)]
    assert all(label.defaultTextColor() == QtGui.QColor(*item.text_color) for label in labels)


@pytest.mark.parametrize("first", ["a", ""])
def test_a_label_is_sized_again_when_its_text_or_font_changes(qapp, first: str) -> None:
    """Also in a scene, where Qt asks for the rectangle while the text changes (a title starts empty)."""
    scene = QtWidgets.QGraphicsScene()
    label = PortLabelItem(first)
    reference = QtWidgets.QGraphicsTextItem(first)
    reference.setFont(reference.font())
    scene.addItem(label)
    scene.addItem(reference)
    assert label.boundingRect() == reference.boundingRect()
    label.setPlainText("a much longer label")
    reference.setPlainText("a much longer label")
    assert label.boundingRect() == reference.boundingRect()
    font = QtGui.QFont(label.font())
    font.setPointSize(15)  # NodeGraphQt's vertical layout sets this on titles
    label.setFont(font)
    reference.setFont(font)
    assert label.boundingRect() == reference.boundingRect()


def test_a_node_item_has_what_nodegraphqts_constructor_makes(qapp) -> None:
    """`MaterialNodeItem.__init__` builds what `NodeItem.__init__` builds (NodeGraphQt 0.6.44, pinned in
    pyproject.toml) without calling it: a NodeGraphQt that adds an attribute there fails here."""
    from NodeGraphQt.qgraphics.node_base import NodeItem

    from app.graph.nodes import MaterialNodeItem

    theirs, ours = NodeItem("Add"), MaterialNodeItem("Add")
    assert set(vars(theirs)) <= set(vars(ours))
    assert ours._properties == theirs._properties
    assert ours.name == theirs.name == ours.text_item.toPlainText() == theirs.text_item.toPlainText()
    assert ours.icon_item.pixmap().toImage() == theirs.icon_item.pixmap().toImage()


def test_showing_thumbnails_measures_no_title_port_or_label_again(graph: MaterialNodeGraph,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A large graph's first paint shows every node's thumbnail (issue 23 item 8): the node's own size from its last
    layout is reused, and a title changed since is measured again (the result is still a full layout's)."""
    from NodeGraphQt.qgraphics.node_base import NodeItem

    nodes = [graph.create_material_node(type_name, position=(float(index) * 300.0, 0.0), push_undo=False,
                                        selected=False) for index, type_name in enumerate(["add", "mix", "fresnel"])]
    measured = [0]
    original = NodeItem._calc_size_horizontal

    def counted(self: NodeItem) -> tuple[float, float]:
        measured[0] += 1
        return original(self)

    monkeypatch.setattr(NodeItem, "_calc_size_horizontal", counted)
    for node in nodes:
        node.view.set_thumbnail_shown(True)
        node.view.set_cost_shown(True)
    assert measured[0] == 0
    item = nodes[0].view
    item.set_thumbnail_shown(False)
    item.name = "A much, much longer title than Add's"
    item.set_thumbnail_shown(True)
    assert measured[0] > 0  # measured again (and, the node being wider now, laid out in full)
    quick = (item.boundingRect(), [port.pos() for port in (*item.inputs, *item.outputs)])
    item.draw_node()
    assert quick == (item.boundingRect(), [port.pos() for port in (*item.inputs, *item.outputs)])


def test_a_thumbnail_s_note_is_in_the_tooltip_in_full_and_drawn_at_a_readable_size(graph) -> None:
    from app.graph.nodes import THUMBNAIL_NOTE_POINTS

    node = graph.create_material_node("add", push_undo=False)
    note = "depends on a node that has a problem"
    node.view.set_thumbnail_shown(True)
    node.view.set_thumbnail(None, note)
    assert f"No preview: {note}" in node.view.toolTip()
    node.view.set_thumbnail(QtGui.QImage(48, 48, QtGui.QImage.Format.Format_RGBA8888))
    assert "No preview" not in node.view.toolTip()
    assert THUMBNAIL_NOTE_POINTS >= 7.0
