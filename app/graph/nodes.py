"""NodeGraphQt node classes generated from the material node catalog.

One `MaterialNode` subclass per catalog `NodeType`, registered under the
identifier `vpl.<category>` (dots: `::` breaks NodeGraphQt's drag and drop),
so the node type id NodeGraphQt stores is `vpl.<category>.<ClassName>`.

What a view node holds, and why:
- ports named exactly as the catalog's ports, coloured by declared type;
- `vpl_node_id`: the stable id of the node in the `MaterialGraph`.
  NodeGraphQt's own ids are memory addresses that change on every load and
  paste, so diagnostics, provenance and saved files use this one;
- one hidden custom property `vpl_prop_<name>` per catalog property (hidden:
  NodeGraphQt's embedded spin boxes are broken, the properties dock edits
  them), so every change goes through `set_property` and the undo stack.
  The prefix keeps catalog names such as `color` or `name` from colliding
  with NodeGraphQt's built-in properties.

The graphics item `MaterialNodeItem` adds the error marker (red border, a
badge and the first message under the node), rich tooltips, and the two
inspection strips at the bottom of the node: the live thumbnail
of its output (an image the window's thumbnail service renders; the item
only draws it, centred under the ports) and the cost footer ("12 instr ·
1 tex"). Both are off until set, and the node grows by exactly their
height, so ports and wires stay where they were.

Doing less per node (opening 2,000 nodes): tooltips of
nodes and ports are built when first asked for (`toolTip()`, or the viewer
just before Qt shows one: `materialize_tooltip`), not on every redraw; and
within `deferred_layout()` (loading) a node lays itself out once, when the
block ends, instead of after every property NodeGraphQt sets while it builds
the node. Once loaded, a node is exactly what the eager path made.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from NodeGraphQt import BackdropNode, BaseNode
from NodeGraphQt.constants import ICON_NODE_BASE, ITEM_CACHE_MODE, NodeEnum, PortTypeEnum
from NodeGraphQt.qgraphics.node_abstract import AbstractNodeItem
from NodeGraphQt.qgraphics.node_base import NodeItem
from NodeGraphQt.qgraphics.port import CustomPortItem
from PySide6 import QtCore, QtGui, QtWidgets

from app.graph.input_values import VALUE_GAP, VALUE_HEIGHT, InputValueItem, VectorValueItem
from app.graph.ports import port_color, port_tooltip, type_label
from app.graph.rich_text import escaped
from app.graph.sections import NodeSections
from app.material.port_types import Constraint, PortType

IDENTIFIER_ROOT = "vpl"
STABLE_ID_PROPERTY = "vpl_node_id"
#: Properties a file gave a node that its catalog type does not declare: kept, not shown.
EXTRA_PROPERTIES = "vpl_extra_properties"
FRAME_ID_PROPERTY = "vpl_frame_id"
#: The catalog type drawn as a small dot (app/material/nodes/utility.py).
REROUTE_TYPE = "reroute"
# A frame's members as the document stored them, and the nodes its rectangle
# enclosed when it was loaded (see app.graph.adapter: membership changes only
# when a node moves in or out).
FRAME_MEMBERS_PROPERTY = "vpl_frame_members"
FRAME_ENCLOSED_PROPERTY = "vpl_frame_enclosed"
PROPERTY_PREFIX = "vpl_prop_"

ERROR_COLOR = QtGui.QColor(235, 64, 52)
MARKER_TEXT_WIDTH = 260
#: Side of the thumbnail drawn in a node, in scene units (pixels at zoom 1).
THUMBNAIL_SIZE = 48
#: The smallest text of a thumbnail's note (why there is no image); the tooltip has it in full.
THUMBNAIL_NOTE_POINTS = 7.0
THUMBNAIL_MARGIN = 5.0
#: The height a shown thumbnail adds to a node.
THUMBNAIL_ROOM = THUMBNAIL_SIZE + THUMBNAIL_MARGIN
FOOTER_HEIGHT = 16.0
FOOTER_COLOR = QtGui.QColor(200, 200, 200)

#: Header colours per category (lower-case category name); others stay neutral.
CATEGORY_COLORS: dict[str, tuple[int, int, int]] = {
    "input": (38, 78, 112),
    "inputs": (38, 78, 112),
    "parameter": (44, 96, 84),
    "parameters": (44, 96, 84),
    "constant": (70, 70, 96),
    "constants": (70, 70, 96),
    "math": (60, 60, 60),
    "vector": (72, 62, 40),
    "texture": (104, 52, 52),
    "textures": (104, 52, 52),
    "control": (88, 56, 96),
    "output": (110, 70, 30),
    "group": (86, 98, 40),
    "outputs": (110, 70, 30),
}


def property_key(name: str) -> str:
    """The NodeGraphQt property that holds catalog property `name`."""
    return PROPERTY_PREFIX + name


def category_identifier(category: str) -> str:
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", category.strip().lower()).strip("_") or "misc"
    return f"{IDENTIFIER_ROOT}.{slug}"


def class_name_for(type_name: str) -> str:
    """A Python identifier for a catalog type name (NodeGraphQt uses it in node type ids)."""
    words = [word for word in re.split(r"[^0-9a-zA-Z]+", type_name) if word]
    name = "".join(word[:1].upper() + word[1:] for word in words) or "Unnamed"
    if name[0].isdigit():
        name = "N" + name
    return name + "Node"


def to_view_value(value: Any) -> Any:
    """Property values as NodeGraphQt keeps them: JSON-like (tuples become lists on copy/paste)."""
    if isinstance(value, tuple):
        return [to_view_value(item) for item in value]
    return value


#: The item changes NodeGraphQt's node and port items act on (looked up once: reading a PySide6 enum
#: member through its class costs as much as the rest of an `itemChange` call).
_SELECTED_CHANGE = QtWidgets.QGraphicsItem.GraphicsItemChange.ItemSelectedChange
_SCENE_POSITION_CHANGED = QtWidgets.QGraphicsItem.GraphicsItemChange.ItemScenePositionHasChanged

#: View properties whose setters `MaterialNodeItem.from_dict` skips when the value is already the view's.
_UNCHANGED_SKIPPABLE = ("name", "color", "border_color", "text_color")

#: The items whose layout waits for the end of `deferred_layout` (None: lay out at once).
_deferred_items: list[MaterialNodeItem] | None = None


@contextlib.contextmanager
def deferred_layout() -> Iterator[list[MaterialNodeItem]]:
    """Within the block, material node items lay themselves out once, at its end (loading many nodes).

    NodeGraphQt redraws a node after nearly every attribute it sets while
    building one (layout direction, icon, being added to the scene...):
    four layouts per node. The list yielded holds the postponed items; each
    is laid out (`draw_node`) once when the block ends, in creation order.
    """
    global _deferred_items
    if _deferred_items is not None:  # nested: the outer block lays everything out
        yield _deferred_items
        return
    pending: list[MaterialNodeItem] = []
    _deferred_items = pending
    try:
        yield pending
    finally:
        _deferred_items = None
        for item in pending:
            item._layout_pending = False
            item._show_title()
            item.draw_node()


@functools.cache
def _icon_pixmap(path: str) -> QtGui.QPixmap:
    """NodeGraphQt's node icon scaled as its `icon` setter does (it loaded and scaled the file for every node)."""
    pixmap = QtGui.QPixmap(path)
    if pixmap.size().height() > NodeEnum.ICON_SIZE.value:
        pixmap = pixmap.scaledToHeight(NodeEnum.ICON_SIZE.value, QtCore.Qt.TransformationMode.SmoothTransformation)
    if pixmap.size().width() > NodeEnum.ICON_SIZE.value:
        pixmap = pixmap.scaledToWidth(NodeEnum.ICON_SIZE.value, QtCore.Qt.TransformationMode.SmoothTransformation)
    return pixmap


#: QTextDocument's default margin around its text: a QGraphicsTextItem's text is drawn this far inside its rectangle.
_TEXT_DOCUMENT_MARGIN = 4.0


@functools.cache
def _text_item_default_color() -> QtGui.QColor:
    """The colour a new QGraphicsTextItem draws its text in (until NodeGraphQt's layout sets the node's)."""
    return QtWidgets.QGraphicsTextItem().defaultTextColor()


class PortLabelItem(QtWidgets.QGraphicsSimpleTextItem):
    """A port's label, drawn and sized as NodeGraphQt's `QGraphicsTextItem` label, at a fraction of its cost.

    NodeGraphQt gives every port a `QGraphicsTextItem` (a `QTextDocument` laid
    out per label: most of the cost of building a node). A label is one line
    of plain text that is never edited, so this item draws it with
    `QGraphicsSimpleTextItem` inside the same rectangle (the text plus the
    document's 4-unit margin on each side, one line high when empty) at the
    same place, and answers the `QGraphicsTextItem` calls NodeGraphQt and the
    editor make on labels (`setPlainText`, `toPlainText`,
    `setDefaultTextColor`, `defaultTextColor`). Same geometry, same pixels:
    tests/app/graph/test_graph_nodes.py compares both with real `QGraphicsTextItem`s.
    """

    _rect: QtCore.QRectF | None = None

    def __init__(self, text: str, parent: QtWidgets.QGraphicsItem | None = None) -> None:
        super().__init__(text, parent)
        self.setBrush(_text_item_default_color())

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 - Qt name
        # Asked for often (NodeGraphQt's layout reads it several times per label, Qt more): kept until
        # the text or the font change.
        if self._rect is None:
            # From Qt's own rectangle of the text (an empty text has a null one; a document is one line high).
            text = super().boundingRect()
            height = float(QtGui.QFontMetrics(self.font()).height()) if text.isNull() else text.height()
            margins = 2.0 * _TEXT_DOCUMENT_MARGIN
            self._rect = QtCore.QRectF(0.0, 0.0, text.width() + margins, height + margins)
        return QtCore.QRectF(self._rect)

    # Qt asks for the rectangle while it changes the text or the font (`prepareGeometryChange`, in a
    # scene: the old rectangle), so the kept one is dropped once the change is done.

    def setText(self, text: str) -> None:  # noqa: N802 - Qt name
        super().setText(text)
        self._rect = None

    def setFont(self, font: QtGui.QFont | str | Iterable[str]) -> None:  # noqa: N802 - Qt name
        super().setFont(font)
        self._rect = None

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem,
              widget: QtWidgets.QWidget | None = None) -> None:
        painter.save()
        painter.translate(_TEXT_DOCUMENT_MARGIN, _TEXT_DOCUMENT_MARGIN)
        super().paint(painter, option, widget)  # type: ignore[arg-type]  # None outside a widget (QGraphicsScene.render): a C++ pointer
        painter.restore()

    def setPlainText(self, text: str) -> None:  # noqa: N802 - QGraphicsTextItem's name
        self.setText(text)

    def toPlainText(self) -> str:  # noqa: N802 - QGraphicsTextItem's name
        return self.text()

    def setDefaultTextColor(self, color: QtGui.QColor) -> None:  # noqa: N802 - QGraphicsTextItem's name
        self.setBrush(color)

    def defaultTextColor(self) -> QtGui.QColor:  # noqa: N802 - QGraphicsTextItem's name
        return self.brush().color()


class NodeTitleItem(PortLabelItem):
    """A node's title: NodeGraphQt's `NodeTextItem` (a QGraphicsTextItem the artist could edit by double-click)
    for titles that are never edited (docs/editor.md: names are not part of the material), with the same
    rectangle and pixels. It answers `NodeTextItem`'s calls: `set_locked`, and `set_editable`, which does
    nothing, as on NodeGraphQt's locked title."""

    def set_locked(self, state: bool = False) -> None:
        self._locked = state

    def set_editable(self, value: bool = False) -> None:
        """Titles are not edited (a locked `NodeTextItem` ignores this too)."""

    @property
    def node(self) -> QtWidgets.QGraphicsItem | None:
        return self.parentItem()


class MaterialPortItem(CustomPortItem):
    """A port whose tooltip (name, declared and resolved type) is built when first asked for."""

    def __init__(self, parent: QtWidgets.QGraphicsItem, paint_func: Any) -> None:
        super().__init__(parent, paint_func)
        self._tooltip_source: tuple[str, object, object, bool] | None = None
        self._tooltip_stale = False
        self._painted_at: QtCore.QRectF | None = None

    # NodeGraphQt's setters write a "name: (single)" tooltip each time; ours replaces it.
    @property
    def locked(self) -> bool:
        return self._locked

    @locked.setter
    def locked(self, value: bool = False) -> None:
        self._locked = value

    @property
    def multi_connection(self) -> bool:
        return self._multi_connection

    @multi_connection.setter
    def multi_connection(self, mode: bool = False) -> None:
        self._multi_connection = mode

    def itemChange(self, change: QtWidgets.QGraphicsItem.GraphicsItemChange, value: Any) -> Any:  # noqa: N802 - Qt name
        # PortItem.itemChange (redraw the wires when the port moved), without its
        # call through the binding to QGraphicsItem.itemChange, which returns
        # `value`: Qt calls this about a dozen times per port while a graph opens.
        if change is _SCENE_POSITION_CHANGED:
            self.redraw_connected_pipes()
            if _deferred_items is None:  # (a graph being loaded is drawn once, when it is shown)
                self._repaint_previous_place()
        return value

    def _repaint_previous_place(self) -> None:
        """Repaint where the port was: moving a node left one-pixel slivers of its ports' antialiased
        left edges at every place of a drag (half outside the node, the ports are repainted as items
        of their own), until something else repainted the area, seconds later."""
        scene = self.scene()
        if scene is None:
            return
        if self._painted_at is not None:
            scene.update(self._painted_at)
        self._painted_at = self.sceneBoundingRect()

    def set_type_tooltip(self, name: str, declared: object, actual: object, is_input: bool) -> None:
        source = (name, declared, actual, is_input)
        if source != self._tooltip_source:
            self._tooltip_source = source
            self._tooltip_stale = True

    def materialize_tooltip(self) -> None:
        if self._tooltip_stale and self._tooltip_source is not None:
            self._tooltip_stale = False
            name, declared, actual, is_input = self._tooltip_source
            self.setToolTip(port_tooltip(name, declared, actual, is_input=is_input))

    def toolTip(self) -> str:  # noqa: N802 - Qt name
        self.materialize_tooltip()
        return super().toolTip()


class MaterialNodeItem(NodeItem):
    """Node graphics with an error marker, catalog-aware tooltips, thumbnail and cost footer."""

    # Class-level defaults: NodeItem's constructor lays the node out before ours has run.
    _thumbnail_shown = False
    _cost_shown = False
    _cost_lines: list[str] = []  # noqa: RUF012 - replaced per instance, never mutated
    _layout_pending = False
    _tooltip_stale = False
    #: The size NodeGraphQt's last layout asked `calc_size` for (None: no layout yet, or a layout of its own).
    _base_size_arguments: tuple[float, float] | None = None
    #: ((add_w, add_h), NodeGraphQt's `calc_size` for them) since the last layout, title or port change.
    _own_size: tuple[tuple[float, float], tuple[float, float]] | None = None

    _title_pending = False
    #: True while NodeGraphQt's layout (`draw_node`) runs.
    _laying_out = False
    #: The values of the node's unconnected float and colour inputs, drawn beside their labels.
    input_values: tuple[InputValueItem | VectorValueItem, ...] = ()
    #: The node type's foldable input sections (app.graph.sections); the empty default serves while NodeGraphQt's
    #: constructor lays the node out, before the node has its own.
    sections: NodeSections = NodeSections(None)
    #: Makes the title and the port labels, (text, parent item) -> item (tests compare with NodeGraphQt's own).
    title_item_factory: Callable[[str, QtWidgets.QGraphicsItem], Any] = NodeTitleItem
    label_item_factory: Callable[[str, QtWidgets.QGraphicsItem], Any] = PortLabelItem

    def __init__(self, name: str = "node", parent: QtWidgets.QGraphicsItem | None = None) -> None:
        # NodeItem's constructor with an empty name: its title (a QTextDocument) lays out no text. The title is
        # then a `NodeTitleItem` (a plain text item, set once with `name`: NodeGraphQt sets a node's name three
        # times while building it, and each text laid out in a QTextDocument costs about as much as the rest
        # of the title).
        super().__init__("", parent)
        self.sections = NodeSections(self)
        rich_title = self.text_item
        rich_title.setParentItem(None)
        rich_title.deleteLater()
        self._text_item = self.title_item_factory("", self)
        AbstractNodeItem.name.fset(self, name.strip())
        self._title_pending = True
        if _deferred_items is None:
            self._show_title()
        else:
            self.draw_node()  # (postponed) with the title's text
        self._tooltip_stale = True
        self._type_display = ""
        self._description = ""
        self._diagnostics: list[str] = []
        self._marker_text = QtWidgets.QGraphicsSimpleTextItem(self)
        self._marker_text.setBrush(QtGui.QBrush(ERROR_COLOR))
        font = self._marker_text.font()
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        self._marker_text.setFont(font)
        self._marker_text.setVisible(False)
        # Titles are derived (type name, or the parameter name), not saved:
        # an in-place rename would be silently lost, so it is not offered.
        self._text_item.set_locked(True)
        self._thumbnail: QtGui.QImage | None = None
        self._thumbnail_shown = False
        self._thumbnail_note = ""
        self._pinned = False
        self._cost_text = ""
        self._cost_lines: list[str] = []
        self._cost_shown = False

    def itemChange(self, change: QtWidgets.QGraphicsItem.GraphicsItemChange, value: Any) -> Any:  # noqa: N802 - Qt name
        # NodeItem.itemChange acts on selection only; every other change (about
        # twenty per node while a graph opens) returns `value`, as
        # QGraphicsItem.itemChange does, without two calls through the binding.
        if change is _SELECTED_CHANGE:
            return super().itemChange(change, value)
        return value

    # --- catalog information and diagnostics ---

    def set_catalog_info(self, type_display: str, description: str) -> None:
        self._type_display = type_display
        self._description = description
        self._tooltip_stale = True

    @property
    def diagnostics(self) -> list[str]:
        return list(self._diagnostics)

    @property
    def has_error_marker(self) -> bool:
        return bool(self._diagnostics) and self._marker_text.isVisible()

    @property
    def marker_text(self) -> str:
        return self._marker_text.text() if self._marker_text.isVisible() else ""

    def set_diagnostics(self, messages: Sequence[str]) -> None:
        messages = list(messages)
        if messages == self._diagnostics:
            return
        self._diagnostics = messages
        if messages:
            metrics = QtGui.QFontMetricsF(self._marker_text.font())
            first = messages[0] if len(messages) == 1 else f"{messages[0]} (+{len(messages) - 1} more)"
            self._marker_text.setText("\u26a0 " + metrics.elidedText(first, QtCore.Qt.TextElideMode.ElideRight, MARKER_TEXT_WIDTH))
        self._marker_text.setVisible(bool(messages))
        self._place_marker()
        self._tooltip_stale = True
        self.update()

    def _place_marker(self) -> None:
        self._marker_text.setPos(2.0, self._height + 3.0)

    # --- inspection: thumbnail and cost footer ---

    @property
    def thumbnail(self) -> QtGui.QImage | None:
        """The image drawn in the node (None: none yet, or thumbnails are off)."""
        return self._thumbnail if self._thumbnail_shown else None

    @property
    def thumbnail_shown(self) -> bool:
        return self._thumbnail_shown

    @property
    def thumbnail_note(self) -> str:
        return self._thumbnail_note if self._thumbnail_shown else ""

    @property
    def cost_text(self) -> str:
        return self._cost_text if self._cost_shown else ""

    @property
    def pinned(self) -> bool:
        return self._pinned

    def set_thumbnail_shown(self, shown: bool) -> None:
        """Reserve (or give back) the thumbnail's place; the node changes height."""
        if shown != self._thumbnail_shown:
            self._thumbnail_shown = shown
            self._tooltip_stale = True
            self._relayout()

    def thumbnail_room(self) -> float:
        """The height showing a thumbnail adds to the node (0 when its place is reserved already)."""
        return 0.0 if self._thumbnail_shown else THUMBNAIL_ROOM

    def set_thumbnail(self, image: QtGui.QImage | None, note: str = "") -> None:
        """The image to draw (None with a `note`: why there is none, e.g. the node has an error)."""
        if note != self._thumbnail_note or (image is None) != (self._thumbnail is None):
            self._tooltip_stale = True  # the tooltip gives the note in full
        self._thumbnail = image
        self._thumbnail_note = note
        if self._thumbnail_shown:
            self.update()

    def set_pinned(self, pinned: bool) -> None:
        """Marks the node whose value the main preview shows ("Preview this node")."""
        if pinned != self._pinned:
            self._pinned = pinned
            self.update()

    def set_cost(self, text: str, lines: Sequence[str] = ()) -> None:
        """The footer text and the tooltip lines about the node's cost ("" and none: no cost known)."""
        lines = list(lines)
        if text == self._cost_text and lines == self._cost_lines:
            return
        self._cost_text, self._cost_lines = text, lines
        self._tooltip_stale = True
        if self._cost_shown:
            self.update()

    def set_cost_shown(self, shown: bool) -> None:
        if shown != self._cost_shown:
            self._cost_shown = shown
            self._tooltip_stale = True
            self._relayout()

    def _bottom_extra(self) -> float:
        extra = 0.0
        if self._thumbnail_shown:
            extra += THUMBNAIL_SIZE + THUMBNAIL_MARGIN
        if self._cost_shown:
            extra += FOOTER_HEIGHT
        return extra

    def _relayout(self) -> None:
        """After the thumbnail or the footer came or went: only the node's height changes (they sit under
        the ports), so a node whose width stays is not laid out again (opening a large graph turns every
        node's thumbnail on; a full layout each was a tenth of it)."""
        self.prepareGeometryChange()
        base = self._base_size_arguments
        if base is not None and _deferred_items is None:
            width, height = self.calc_size(*base)
            if max(width, NodeEnum.WIDTH.value) == self._width:
                self._height = max(height, NodeEnum.HEIGHT.value)
                self._place_marker()
                self.update()
                return
        self.draw_node()
        self.update()

    def calc_size(self, add_w: float = 0.0, add_h: float = 0.0) -> tuple[float, float]:
        # NodeGraphQt's size (title, ports, labels) is kept from the last layout: a thumbnail or a footer
        # coming or going (`_relayout`: every node's thumbnail when a large graph first shows) adds to it.
        if self._laying_out:  # the size NodeGraphQt's layout asks for: `_relayout` asks for it again
            self._base_size_arguments = (add_w, add_h)
        own = self._own_size
        if own is None or own[0] != (add_w, add_h):
            own = ((add_w, add_h), super().calc_size(add_w, add_h))
            self._own_size = own
        width, height = own[1]
        if self.sections.headers:
            width, height = self.sections.size(width, height)
        if self.input_values:  # a column between the input and the output labels
            width += max(item.width for item in self.input_values) + 2 * VALUE_GAP
        if self._thumbnail_shown:
            width = max(width, THUMBNAIL_SIZE + 4 * THUMBNAIL_MARGIN)
        return width, height + self._bottom_extra()

    # --- NodeItem overrides ---

    @property
    def disabled(self) -> bool:
        return NodeItem.disabled.fget(self)

    @disabled.setter
    def disabled(self, state: bool = False) -> None:
        NodeItem.disabled.fset(self, state)
        self._tooltip_stale = True  # NodeGraphQt wrote its own tooltip: ours is built again when asked for

    def materialize_tooltip(self) -> None:
        """Build the tooltip if something it shows changed (the viewer calls it before Qt shows one)."""
        if not self._tooltip_stale:
            return
        self._tooltip_stale = False
        parts = [f"<b>{escaped(self.name)}</b>"]
        if self.disabled:
            parts[0] += ' <font color="red"><b>(disabled)</b></font>'
        if self._type_display:
            parts.append(f"<i>{escaped(self._type_display)}</i>")
        if self._description:
            parts.append(escaped(self._description))
        for message in self._diagnostics:
            parts.append(f'<font color="#eb4034">\u26a0 {escaped(message)}</font>')
        if self.thumbnail_note and (self._thumbnail is None or self._thumbnail.isNull()):
            # The thumbnail's square is 48 pixels: the full reason is here, at the tooltip's size.
            parts.append(f"<i>No preview: {escaped(self.thumbnail_note)}</i>")
        if self._cost_shown and self._cost_lines:
            parts.append("<br/>".join(escaped(line).replace("  ", "&nbsp;&nbsp;") for line in self._cost_lines))
        self.setToolTip("<br/>".join(parts))

    def toolTip(self) -> str:  # noqa: N802 - Qt name
        self.materialize_tooltip()
        return super().toolTip()

    @property
    def name(self) -> str:
        return NodeItem.name.fget(self)

    @name.setter
    def name(self, name: str = "") -> None:
        self._tooltip_stale = True
        self._own_size = None
        if _deferred_items is not None:
            # Inside `deferred_layout`: the title's text is set once, with the layout at the block's end.
            AbstractNodeItem.name.fset(self, name)
            self._title_pending = True
            self.draw_node()
            return
        NodeItem.name.fset(self, name)

    def _show_title(self) -> None:
        """The title's text as `name` says (postponed inside `deferred_layout`)."""
        if self._title_pending:
            self._title_pending = False
            if self._text_item.toPlainText() != self.name:
                self._text_item.setPlainText(self.name)

    @property
    def icon(self) -> str:
        return NodeItem.icon.fget(self)

    @icon.setter
    def icon(self, path: str | None = None) -> None:
        # NodeGraphQt's setter, with the scaled pixmap made once per path.
        self._properties["icon"] = path
        self._icon_item.setPixmap(_icon_pixmap(path or ICON_NODE_BASE))
        if self.scene():
            self.post_init()
        self.update()

    def _new_port(self, name: str, port_type: int, multi_port: bool, display_name: bool, locked: bool,
                  painter_func: Any) -> MaterialPortItem:
        # NodeItem.add_input/add_output, with ports whose tooltips are built lazily.
        port = MaterialPortItem(self, painter_func)
        port.name = name
        port.port_type = port_type
        port.multi_connection = multi_port
        port.display_name = display_name
        port.locked = locked
        return self._add_port_label(port)

    def _add_port_label(self, port: MaterialPortItem) -> MaterialPortItem:
        # What NodeItem's add_input/add_output do after making the port, with a `PortLabelItem` for the label
        # instead of a QGraphicsTextItem (and without its font calls, which set the font the label has already).
        self._own_size = None
        text = self.label_item_factory(port.name, self)
        text.setVisible(port.display_name)
        text.setCacheMode(ITEM_CACHE_MODE)
        if port.port_type == PortTypeEnum.IN.value:
            self._input_items[port] = text
        elif port.port_type == PortTypeEnum.OUT.value:
            self._output_items[port] = text
        if self.scene():
            self.post_init()
        return port

    def delete_input(self, port: Any) -> None:
        self._own_size = None
        super().delete_input(port)

    def delete_output(self, port: Any) -> None:
        self._own_size = None
        super().delete_output(port)

    def add_input(self, name: str = "input", multi_port: bool = False, display_name: bool = True,
                  locked: bool = False, painter_func: Any = None) -> MaterialPortItem:
        return self._new_port(name, PortTypeEnum.IN.value, multi_port, display_name, locked, painter_func)

    def add_output(self, name: str = "output", multi_port: bool = False, display_name: bool = True,
                   locked: bool = False, painter_func: Any = None) -> MaterialPortItem:
        return self._new_port(name, PortTypeEnum.OUT.value, multi_port, display_name, locked, painter_func)

    def from_dict(self, node_dict: dict[str, Any]) -> None:
        # NodeGraphQt's `create_node` pushes the whole model onto the view
        # (`NodeObject.update`) right after the constructor gave the view the
        # same name and colours: each setter redraws or recolours every port
        # label. Values the view already holds are skipped, and inside
        # `deferred_layout` so are width and height: the layout at the block's
        # end recomputes both whatever they were.
        skipped = {name for name in _UNCHANGED_SKIPPABLE if name in node_dict and self._properties.get(name) == node_dict[name]}
        if _deferred_items is not None:
            skipped |= {"width", "height"}
        super().from_dict({name: value for name, value in node_dict.items() if name not in skipped})
        if _deferred_items is not None:
            self.draw_node()  # (postponed) the layout that sets width and height

    def draw_node(self) -> None:
        if _deferred_items is not None:
            if not self._layout_pending:
                self._layout_pending = True
                _deferred_items.append(self)
            return
        self._own_size = None
        self._laying_out = True
        try:
            self._lay_out()
        finally:
            self._laying_out = False
        self._tooltip_stale = True  # NodeGraphQt's layout wrote its own tooltip
        if self.sections.headers:
            # Below the title, where NodeGraphQt's horizontal layout starts the ports (`_draw_node_horizontal`).
            self.sections.place(self._text_item.boundingRect().height() + 4.0)
        self._place_input_values()
        self._place_marker()

    def _lay_out(self) -> None:
        """The node's layout: NodeGraphQt's."""
        super().draw_node()

    def set_input_values(self, items: Sequence[InputValueItem | VectorValueItem]) -> None:
        self.input_values = tuple(items)
        self.draw_node()

    def _place_input_values(self) -> None:
        """Each value beside its input's label, all in one column after the longest label."""
        if not self.input_values:
            return
        right = 0.0
        for port in self.inputs:
            text = self.get_input_text_item(port)
            if port.isVisible() and text is not None and text.isVisible():
                right = max(right, text.x() + text.boundingRect().width())
        for item in self.input_values:
            port = item.port_item
            item.setVisible(port.isVisible())
            item.setPos(right + VALUE_GAP, port.y() + (port.boundingRect().height() - VALUE_HEIGHT) / 2.0)

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem, widget: QtWidgets.QWidget | None) -> None:
        super().paint(painter, option, widget)
        if self._thumbnail_shown or self._cost_shown:
            _paint_inspection(self, painter)
        if not self._diagnostics:
            return
        painter.save()
        rect = self.boundingRect().adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.setPen(QtGui.QPen(ERROR_COLOR, 2.5))
        painter.drawRoundedRect(rect, 4.0, 4.0)
        # The badge: a red disc with "!" on the top-right corner.
        radius = 8.0
        center = QtCore.QPointF(rect.right() - radius - 2.0, rect.top() + radius + 2.0)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(ERROR_COLOR)
        painter.drawEllipse(center, radius, radius)
        painter.setPen(QtGui.QPen(QtGui.QColor(255, 255, 255)))
        font = painter.font()
        font.setBold(True)
        painter.setFont(font)
        painter.drawText(QtCore.QRectF(center.x() - radius, center.y() - radius, 2 * radius, 2 * radius),
                         QtCore.Qt.AlignmentFlag.AlignCenter, "!")
        painter.restore()


def thumbnail_rect(item: MaterialNodeItem) -> QtCore.QRectF | None:
    """Where a node's thumbnail is drawn, in the item's coordinates (None: no thumbnail is shown)."""
    if not item._thumbnail_shown:
        return None
    bottom = item._height - (FOOTER_HEIGHT if item._cost_shown else 0.0)
    left = (item._width - THUMBNAIL_SIZE) / 2.0
    return QtCore.QRectF(left, bottom - THUMBNAIL_SIZE - THUMBNAIL_MARGIN / 2.0, THUMBNAIL_SIZE, THUMBNAIL_SIZE)


def _paint_inspection(item: MaterialNodeItem, painter: QtGui.QPainter) -> None:
    """The cost footer and the thumbnail, at the bottom of a node (`MaterialNodeItem.paint`)."""
    bottom = item._height
    painter.save()
    if item._cost_shown:
        footer = QtCore.QRectF(6.0, bottom - FOOTER_HEIGHT, item._width - 12.0, FOOTER_HEIGHT - 2.0)
        bottom -= FOOTER_HEIGHT
        font = painter.font()
        font.setPointSizeF(max(6.5, font.pointSizeF() * 0.8))
        painter.setFont(font)
        painter.setPen(FOOTER_COLOR)
        painter.drawText(footer, QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                         item._cost_text or "—")
    target = thumbnail_rect(item)
    if target is not None:
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(24, 24, 24))
        painter.drawRect(target)
        if item._thumbnail is not None and not item._thumbnail.isNull():
            painter.drawImage(target, item._thumbnail)
        elif item._thumbnail_note:
            font = painter.font()
            font.setPointSizeF(max(THUMBNAIL_NOTE_POINTS, font.pointSizeF() * 0.75))
            painter.setFont(font)
            painter.setPen(QtGui.QColor(150, 150, 150))
            painter.drawText(target.adjusted(3, 3, -3, -3), QtCore.Qt.AlignmentFlag.AlignCenter
                             | QtCore.Qt.TextFlag.TextWordWrap, item._thumbnail_note)
        if item._pinned:
            painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            painter.setPen(QtGui.QPen(QtGui.QColor(255, 196, 64), 2.0))
            painter.drawRect(target.adjusted(-1.0, -1.0, 1.0, 1.0))
    painter.restore()


class RerouteNodeItem(MaterialNodeItem):
    """The Reroute's look: a small dot with its input on the left and its output on the right, no title."""

    DOT_WIDTH = 26.0
    DOT_HEIGHT = 18.0

    def _lay_out(self) -> None:
        self._text_item.setVisible(False)
        for text in (*self._input_items.values(), *self._output_items.values()):
            text.setVisible(False)
        self._width, self._height = self.DOT_WIDTH, self.DOT_HEIGHT
        ports = [port for port in (*self.inputs, *self.outputs) if port.isVisible()]
        port_height = ports[0].boundingRect().height() if ports else 0.0
        self.align_ports(v_offset=(self.DOT_HEIGHT - port_height) / 2)
        self.update()

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem, widget: QtWidgets.QWidget | None) -> None:
        painter.save()
        rect = QtCore.QRectF(0.0, 0.0, self._width, self._height)
        painter.setPen(QtGui.QPen(QtGui.QColor(255, 255, 255) if self.selected else QtGui.QColor(20, 20, 20), 1.5))
        painter.setBrush(QtGui.QColor(90, 90, 90))
        painter.drawRoundedRect(rect.adjusted(4.0, 3.0, -4.0, -3.0), 6.0, 6.0)
        if self._diagnostics:
            painter.setPen(QtGui.QPen(ERROR_COLOR, 2.5))
            painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(1.0, 1.0, -1.0, -1.0), 7.0, 7.0)
        painter.restore()


def paint_typed_port(painter: QtGui.QPainter, rect: QtCore.QRectF, info: dict[str, Any]) -> None:
    """Ports always show their type colour (NodeGraphQt's own painter hides it once connected)."""
    painter.save()
    color = QtGui.QColor(*info["color"][:3])
    border = QtGui.QColor(255, 255, 255) if info["hovered"] else color.darker(170)
    painter.setPen(QtGui.QPen(border, 2.0 if info["hovered"] else 1.4))
    painter.setBrush(color)
    painter.drawEllipse(rect)
    if info["connected"]:
        # A dark centre marks a connected port without hiding its type.
        inner = rect.width() / 2.8
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(30, 30, 30))
        painter.drawEllipse(rect.center(), inner / 2, inner / 2)
    painter.restore()


class MaterialNode(BaseNode):
    """Base of the generated classes; `CATALOG_TYPE` is the catalog `NodeType`."""

    __identifier__ = IDENTIFIER_ROOT
    NODE_NAME = "Material node"
    CATALOG_TYPE: Any = None
    ITEM_CLASS: type[MaterialNodeItem] = MaterialNodeItem

    def __init__(self) -> None:
        super().__init__(qgraphics_item=self.ITEM_CLASS)
        node_type = self.CATALOG_TYPE
        self.create_property(STABLE_ID_PROPERTY, "")
        self.create_property(EXTRA_PROPERTIES, {})
        self._declared_types: dict[tuple[str, str], object] = {}
        #: (input names, output names, resolved types) as `show_port_types` last showed them.
        self._shown_port_types: tuple[list[str], list[str], dict[tuple[str, str], object]] | None = None
        for spec in node_type.inputs:
            port = self.add_input(spec.name, multi_input=False, color=port_color(spec.type),
                                  painter_func=paint_typed_port)
            self._declared_types[("in", spec.name)] = spec.type
            self._label_port(self.view.get_input_text_item(port.view), spec)
        for spec in node_type.outputs:
            port = self.add_output(spec.name, multi_output=True, color=port_color(spec.type),
                                   painter_func=paint_typed_port)
            self._declared_types[("out", spec.name)] = spec.type
            self._label_port(self.view.get_output_text_item(port.view), spec)
        for spec in node_type.properties:
            self.create_property(property_key(spec.name), to_view_value(spec.default))
        self._add_input_values(node_type)
        self._add_sections(node_type)
        color = CATEGORY_COLORS.get(str(node_type.category).strip().lower())
        if color:
            self.set_color(*color)
        self.view.set_catalog_info(f"{node_type.display_name} ({node_type.category})", node_type.description)
        self.show_port_types({})

    def _add_input_values(self, node_type: Any) -> None:
        """An in-place value for every input that reads a same-named float, colour, vector or boolean property
        when unconnected (a vector: one compact field per component)."""
        items: list[InputValueItem | VectorValueItem] = []
        inputs = self.inputs()
        for port_spec in node_type.inputs:
            spec = node_type.property(port_spec.name)
            port = inputs.get(port_spec.name)
            if spec is None or spec.kind not in ("float", "color", "vector", "bool") or port is None:
                continue
            if spec.kind == "vector":
                items.append(VectorValueItem(
                    self.view, port.view, spec.name, len(spec.default),
                    read=functools.partial(_read_input_value, weakref.ref(self), spec.name, spec.default),
                    commit=functools.partial(_commit_input_value, weakref.ref(self), spec.name),
                    finish=functools.partial(_finish_input_value, weakref.ref(self)),
                    minimum=spec.minimum, maximum=spec.maximum))
                continue
            items.append(InputValueItem(
                self.view, port.view, spec.name, spec.kind,
                # Through a weak reference: the item (held by the view) must not keep its node alive.
                read=functools.partial(_read_input_value, weakref.ref(self), spec.name, spec.default),
                commit=functools.partial(_commit_input_value, weakref.ref(self), spec.name),
                finish=functools.partial(_finish_input_value, weakref.ref(self)),
                minimum=spec.minimum, maximum=spec.maximum))
        if items:
            self.view.set_input_values(items)

    def _add_sections(self, node_type: Any) -> None:
        """The node type's foldable input sections (`NodeType.sections`), all folded until `settle_sections`."""
        if not node_type.sections:
            return
        inputs = self.inputs()
        self.view.sections.set([
            (section.title, [inputs[name].view for name in section.inputs],
             [node_type.input(name).display_name for name in section.inputs])
            for section in node_type.sections])

    def settle_sections(self) -> None:
        """Unfold the sections the node's values or wires use (`NodeType.section_starts_open`): after a node is
        shown with its document's values."""
        node_type = self.CATALOG_TYPE
        if not node_type.sections:
            return
        values = {spec.name: self.material_property(spec.name) for spec in node_type.properties}
        connected = [name for name, port in self.inputs().items() if port.connected_ports()]
        for section in node_type.sections:
            header = self.view.sections.find(section.title)
            if header is not None:
                header.chosen_open = node_type.section_starts_open(section, values, connected)
        self.view.sections.refresh()

    def reveal_value(self, view_property: str) -> None:
        """A value of a folded section changed elsewhere (the properties panel, undo) to other than its default:
        the section unfolds, so the node shows the lobe is on (it never folds by itself)."""
        if not view_property.startswith(PROPERTY_PREFIX) or not self.view.sections.headers:
            return
        name = view_property[len(PROPERTY_PREFIX):]
        port = self.inputs().get(name)
        header = self.view.sections.of_port(port.view) if port is not None else None
        if header is None or header.is_open:
            return
        section = next(section for section in self.CATALOG_TYPE.sections if section.title == header.title)
        if self.CATALOG_TYPE.section_starts_open(section, {name: self.material_property(name)}):
            self.view.sections.set_open(header.title, True)

    def on_input_connected(self, in_port: Any, out_port: Any) -> None:
        self.view.sections.refresh(connecting=in_port.view)
        self._show_input_values()

    def on_input_disconnected(self, in_port: Any, out_port: Any) -> None:
        self.view.sections.refresh(disconnecting=(in_port.view, out_port.view))
        self._show_input_values()

    def _show_input_values(self) -> None:
        for item in self.view.input_values:
            item.update()

    @staticmethod
    def _label_port(text_item: PortLabelItem, spec: Any) -> None:
        # Ports keep the catalog's names (connections and files use them);
        # the label shows the friendlier display name.
        label = getattr(spec, "display_name", spec.name)
        if label != spec.name:
            text_item.setPlainText(label)

    @property
    def type_name(self) -> str:
        return self.CATALOG_TYPE.type_name

    @property
    def stable_id(self) -> str:
        # A custom property: read from the model's custom properties directly
        # (`get_property` first copies the model's attribute dictionary twice).
        return str(self.model.custom_properties.get(STABLE_ID_PROPERTY) or "")

    def set_stable_id(self, stable_id: str) -> None:
        # Written to the model directly, outside the undo stack: the id is
        # identity, not an edit, and undoing a paste must not resurrect the
        # clipboard's ids on the pasted nodes.
        self.model.set_property(STABLE_ID_PROPERTY, stable_id)

    def get_property(self, name: str) -> Any:
        # NodeGraphQt's model answers `get_property` by copying its attribute
        # dictionary twice (`NodeModel.properties`) before looking at the custom
        # properties; the custom ones (every catalog property, the stable id)
        # are read directly here, with the same answer.
        model = self.model
        custom = model.custom_properties
        if name in custom and name not in model.__dict__:
            return custom[name]
        return super().get_property(name)

    def material_property(self, name: str) -> Any:
        return self.get_property(property_key(name))

    def set_material_property(self, name: str, value: Any, push_undo: bool = True) -> None:
        self.set_property(property_key(name), to_view_value(value), push_undo=push_undo)

    def refresh_title(self) -> None:
        """Parameter nodes show their parameter name: "Color Parameter: base_color".

        A view-only label derived from the `name` property every time the
        graph changes, so undo needs nothing of its own.
        """
        if not any(spec.name == "name" for spec in self.CATALOG_TYPE.properties):
            return
        title = f"{self.CATALOG_TYPE.display_name}: {self.material_property('name')}"
        if self.view.name != title:
            self.view.name = title
            self.view.draw_node()

    def show_port_types(self, resolved: dict[tuple[str, str], object]) -> None:
        """Colour and describe every port by its resolved type (declared type when unknown).

        `resolved` maps ("in"|"out", port name) to the type the lowering inferred.
        Nothing is redone when the ports and their types are those shown already
        (every lowering of a slider's drag shows them all again).
        """
        inputs, outputs = self.input_ports(), self.output_ports()
        shown = ([port.name() for port in inputs], [port.name() for port in outputs], resolved)
        if shown == self._shown_port_types:
            return
        self._shown_port_types = shown
        for direction, ports in (("in", inputs), ("out", outputs)):
            for port in ports:
                declared = self._declared_types.get((direction, port.name()))
                actual = resolved.get((direction, port.name()))
                item = port.view
                color = port_color(actual if actual is not None else declared)
                if tuple(item.color[:3]) != color:
                    item.color = color
                    item.border_color = [min(255, component + 80) for component in color]
                label = type_label(actual if actual is not None else declared)
                if isinstance(item, MaterialPortItem):
                    item.set_type_tooltip(port.name(), declared, actual, direction == "in")
                else:
                    item.setToolTip(port_tooltip(port.name(), declared, actual, is_input=direction == "in"))
                if item.data(0) != label:
                    item.setData(0, label)
                    for pipe in item.connected_pipes:
                        pipe.update()  # its conversion marker follows the types (app.graph.view.MaterialPipeItem)
        self._resize_vector_values(resolved)

    def _resize_vector_values(self, resolved: dict[tuple[str, str], object]) -> None:
        """A dynamic vector input shows as many fields as its resolved type has (its declared default's
        width until the type is known)."""
        resized = False
        for item in self.view.input_values:
            if not isinstance(item, VectorValueItem) or not isinstance(self._declared_types.get(("in", item.name)),
                                                                        Constraint):
                continue
            actual = resolved.get(("in", item.name))
            default = self.CATALOG_TYPE.property(item.name).default
            width = actual.width if isinstance(actual, PortType) and 1 <= actual.width <= 4 else len(default)
            resized = item.resize(width, actual is PortType.COLOR) or resized
        if resized:
            self.view._own_size = None
            self.view.draw_node()

    def port_type_label(self, direction: str, port_name: str) -> str:
        ports = self.inputs() if direction == "in" else self.outputs()
        return str(ports[port_name].view.data(0) or "")


def _read_input_value(node_ref: weakref.ref[MaterialNode], name: str, default: Any) -> Any:
    node = node_ref()
    return node.material_property(name) if node is not None else default


def _commit_input_value(node_ref: weakref.ref[MaterialNode], name: str, value: Any, continuing: bool) -> None:
    """An input's value edited on the node: the graph reports it (the window applies it as a property edit)."""
    node = node_ref()
    signal = getattr(node.graph, "input_value_edited", None) if node is not None else None
    if node is not None and signal is not None:
        signal.emit(node.stable_id, name, value, continuing)


def _finish_input_value(node_ref: weakref.ref[MaterialNode]) -> None:
    node = node_ref()
    signal = getattr(node.graph, "input_value_gesture_ended", None) if node is not None else None
    if signal is not None:
        signal.emit()


class FrameNode(BackdropNode):
    """A backdrop that remembers its `MaterialGraph` frame id (replaces NodeGraphQt's Backdrop)."""

    __identifier__ = IDENTIFIER_ROOT
    NODE_NAME = "Frame"
    #: The colour a new frame gets (NodeGraphQt's backdrop default); a saved frame stores only other colours.
    DEFAULT_COLOR = (5, 129, 138)

    def __init__(self) -> None:
        super().__init__()
        self.create_property(FRAME_ID_PROPERTY, "")
        self.create_property(FRAME_MEMBERS_PROPERTY, [])
        self.create_property(FRAME_ENCLOSED_PROPERTY, [])


def make_node_class(node_type: Any, suffix: str = "") -> type[MaterialNode]:
    """The NodeGraphQt class of one catalog type (`suffix` tells dynamic port layouts apart)."""
    attributes = {
        "__identifier__": category_identifier(str(node_type.category)),
        "NODE_NAME": node_type.display_name,
        "CATALOG_TYPE": node_type,
        "__doc__": node_type.description,
        "__module__": __name__,
    }
    if node_type.type_name == REROUTE_TYPE:
        attributes["ITEM_CLASS"] = RerouteNodeItem
    return type(class_name_for(node_type.type_name) + suffix, (MaterialNode,), attributes)


class NodeClassRegistry:
    """Catalog type name <-> generated class <-> NodeGraphQt node type id.

    Dynamic node types (a group instance's ports come from its definition, a
    Custom Code node's from its properties; `app.material.node_types.register_dynamic`)
    get one extra class per distinct port layout (`class_for`), named after
    the catalog type plus a digest of the layout, registered when first met.
    """

    def __init__(self, node_types: Iterable[Any]) -> None:
        self.classes: dict[str, type[MaterialNode]] = {}
        self._by_view_type: dict[str, str] = {}
        self._dynamic: dict[str, type[MaterialNode]] = {}
        #: Called with each new dynamic class (the graph registers it with NodeGraphQt's factory).
        self.on_new_class: Any = None
        for node_type in node_types:
            cls = make_node_class(node_type)
            self.classes[node_type.type_name] = cls
            self._by_view_type[cls.type_] = node_type.type_name

    def class_for(self, node_type: Any) -> type[MaterialNode]:
        """The class of a resolved node type: the catalog's own, or one for this dynamic port layout."""
        base = self.classes.get(node_type.type_name)
        if base is not None and base.CATALOG_TYPE is node_type:
            return base
        layout = repr((node_type.type_name, node_type.display_name,
                       [(port.name, str(port.type), repr(port.default)) for port in node_type.inputs],
                       [(port.name, str(port.type)) for port in node_type.outputs],
                       [(spec.name, spec.kind) for spec in node_type.properties]))
        digest = hashlib.sha1(layout.encode()).hexdigest()[:12]
        cls = self._dynamic.get(digest)
        if cls is None:
            cls = make_node_class(node_type, suffix=f"_{digest}")
            self._dynamic[digest] = cls
            self._by_view_type[cls.type_] = node_type.type_name
            if self.on_new_class is not None:
                self.on_new_class(cls)
        return cls

    def view_type(self, type_name: str) -> str:
        return self.classes[type_name].type_

    def type_name(self, view_type: str) -> str | None:
        return self._by_view_type.get(view_type)

    def __contains__(self, type_name: object) -> bool:
        return type_name in self.classes
