"""A wire that converts (a colour into a float input, a float into a colour...) carries a small marker in the real
NodeGraphQt view; a wire between ports of one type has none."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from app.graph.view import CONVERSION_MARKER_AT, MaterialPipeItem


def pipe_between(window, source_id: str, target_id: str, target_port: str) -> MaterialPipeItem:
    port = window.graph.node_by_stable_id(target_id).inputs()[target_port].view
    (pipe,) = port.connected_pipes
    assert isinstance(pipe, MaterialPipeItem) and pipe.output_port.node.id == window.graph.node_by_stable_id(source_id).id
    return pipe


def marker_drawn(window, pipe: MaterialPipeItem) -> bool:
    """Whether the scene around the marker's place shows the input port's colour (the marker's fill)."""
    centre = pipe.path().pointAtPercent(CONVERSION_MARKER_AT)
    image = QImage(40, 40, QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    painter = QPainter(image)
    window.graph.scene().render(painter, QRectF(0, 0, 40, 40), QRectF(centre.x() - 5, centre.y() - 5, 10, 10))
    painter.end()
    wanted = QColor(*pipe.input_port.color[:3])
    return any(QColor(image.pixel(x, y)) == wanted for x in range(15, 25) for y in range(15, 25))


def test_a_converting_wire_shows_a_marker(window) -> None:
    assert window.files.new_document()
    editor = window.graph_editor
    colour = editor.add_node("constant_color", (-600.0, 300.0)).stable_id
    blend = editor.add_node("blend", (-100.0, 300.0)).stable_id
    assert editor.connect_nodes(colour, "out", blend, "factor") == (True, "")  # colour into a float: its luminance
    assert editor.connect_nodes(colour, "out", blend, "base") == (True, "")   # colour into a colour: as is
    window.flush()
    converting, plain = pipe_between(window, colour, blend, "factor"), pipe_between(window, colour, blend, "base")
    assert converting.conversion() == "luminance" and plain.conversion() is None
    assert marker_drawn(window, converting)
    assert not marker_drawn(window, plain)
