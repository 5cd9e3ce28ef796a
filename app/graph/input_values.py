"""Values of unconnected inputs, shown on the node and edited there, as Blender's sockets are.

Every input whose value is a same-named float, colour or vector property
of its node (`input_default`: an unconnected input reads that property)
gets an item beside its label: a number field for a float, a swatch for a
colour (painted as it looks: `app.material.colors`, its alpha over a
checkerboard), and a row of compact component fields for a vector
(`VectorValueItem`, each component edited as a float; a vector input
whose width follows what is connected shows as many fields as its
resolved type has), a check box for a boolean. While a wire
feeds the input, the value means nothing and is not drawn or editable.

Editing, with the mouse on the node:
- a float: drag left or right to change it (Shift: ten times finer; a
  ranged property stays in its range), or click to type a value in a field
  over it (Enter or leaving the field commits, Escape cancels);
- a boolean: click to switch it;
- a colour: click to pick it in the colour dialog (it answers in display
  terms, stored linear).

The item never changes the node itself: it reports the new value to the
node (`commit(value, continuing)`), and the window applies it as any other
property edit (undo, the session, the preview). A drag is one gesture:
every step after the first is `continuing`, and `finish()` ends it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.material import colors

VALUE_WIDTH = 44.0
SWATCH_WIDTH = 28.0
#: One component's field of a vector value, and the space between two.
COMPONENT_WIDTH = 32.0
COMPONENT_GAP = 1.0
#: The squares of the checkerboard a colour's alpha is drawn over.
CHECKER_SIZE = 4.0
CHECKER_LIGHT = QtGui.QColor(200, 200, 200)
CHECKER_DARK = QtGui.QColor(120, 120, 120)
VALUE_HEIGHT = 13.0
#: Space between an input's label and its value.
VALUE_GAP = 4.0
#: Pixels of mouse movement before a press on a float becomes a drag (a smaller one is a click).
DRAG_THRESHOLD = 3.0
#: A drag across this many pixels spans a ranged property's whole range.
DRAG_SPAN_PIXELS = 200.0
#: The change per pixel for a property without a range.
FREE_STEP = 0.01

FIELD_COLOR = QtGui.QColor(30, 30, 30, 220)
FIELD_BORDER = QtGui.QColor(110, 110, 110)
TEXT_COLOR = QtGui.QColor(225, 225, 225)


def format_number(value: float) -> str:
    """A float as the field shows it: three decimals for ordinary values, fewer digits for large ones."""
    if not math.isfinite(value):
        return str(value)
    if abs(value) >= 1000.0:
        return f"{value:.0f}"
    if abs(value) >= 100.0:
        return f"{value:.1f}"
    return f"{value:.3f}"


def parse_number(text: str) -> float | None:
    """What was typed as a float (None when it is not a finite number)."""
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _pick_color(initial: QtGui.QColor, parent: QtWidgets.QWidget | None) -> QtGui.QColor:
    return QtWidgets.QColorDialog.getColor(initial, parent, "Colour",
                                           QtWidgets.QColorDialog.ColorDialogOption.ShowAlphaChannel)


class InputValueItem(QtWidgets.QGraphicsObject):
    """One input's value on its node; see the module docstring."""

    #: The colour dialog (tests replace it): display colour shown first -> the colour picked (invalid: cancelled).
    pick_color: Callable[[QtGui.QColor, QtWidgets.QWidget | None], QtGui.QColor] = staticmethod(_pick_color)

    def __init__(self, parent: QtWidgets.QGraphicsItem, port_item: QtWidgets.QGraphicsItem, name: str, kind: str,
                 read: Callable[[], Any], commit: Callable[[Any, bool], None], finish: Callable[[], None],
                 minimum: float | None = None, maximum: float | None = None) -> None:
        super().__init__(parent)
        self.port_item = port_item
        self.name = name
        self.kind = kind
        self._read = read
        self._commit = commit
        self._finish = finish
        self.minimum, self.maximum = minimum, maximum
        self._press: QtCore.QPointF | None = None
        self._start_value = 0.0
        self._dragged = False
        self._steps = 0
        #: The field a typed value goes into while it is open (None otherwise).
        self.editor: QtWidgets.QLineEdit | None = None
        self.setAcceptHoverEvents(True)
        self.setCursor(QtCore.Qt.CursorShape.SizeHorCursor if kind == "float" else QtCore.Qt.CursorShape.PointingHandCursor)
        self.setToolTip({"float": "Drag to change, click to type", "bool": "Click to switch on or off"}.get(
            kind, "Click to pick a colour"))

    # ---- state ----------------------------------------------------------------------------

    @property
    def width(self) -> float:
        if self.kind == "color":
            return SWATCH_WIDTH
        if self.kind == "bool":
            return VALUE_HEIGHT
        return COMPONENT_WIDTH if self.component else VALUE_WIDTH

    #: Whether the item is one component of a `VectorValueItem` (a narrower field).
    component = False

    @property
    def connected(self) -> bool:
        """Whether a wire feeds the input (the value is then not used, and not shown)."""
        return bool(getattr(self.port_item, "connected_pipes", ()))

    def value(self) -> Any:
        return self._read()

    def text(self) -> str:
        """What the item shows: the number, or the colour's display hex (alpha apart)."""
        value = self.value()
        if self.kind == "color":
            return colors.label(tuple(float(c) for c in value))
        if self.kind == "bool":
            return "on" if value else "off"
        return format_number(float(value))

    # ---- drawing --------------------------------------------------------------------------

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 - Qt name
        return QtCore.QRectF(0.0, 0.0, self.width, VALUE_HEIGHT)

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem,
              widget: QtWidgets.QWidget | None = None) -> None:
        if self.connected:
            return
        rect = self.boundingRect().adjusted(0.5, 0.5, -0.5, -0.5)
        painter.save()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QtGui.QPen(FIELD_BORDER, 1.0))
        if self.kind == "color":
            value = [float(c) for c in self.value()]
            red, green, blue = colors.display_rgb(value)
            alpha = min(1.0, max(0.0, value[3])) if len(value) > 3 else 1.0
            path = QtGui.QPainterPath()
            path.addRoundedRect(rect, 3.0, 3.0)
            if alpha < 1.0:  # the alpha shows as the checkerboard seen through the colour
                painter.save()
                painter.setClipPath(path)
                paint_checkerboard(painter, rect)
                painter.restore()
            painter.setBrush(QtGui.QColor.fromRgbF(red, green, blue, alpha))
            painter.drawPath(path)
        elif self.kind == "bool":
            painter.setBrush(FIELD_COLOR)
            painter.drawRoundedRect(rect, 2.0, 2.0)
            if self.value():  # a tick
                painter.setPen(QtGui.QPen(TEXT_COLOR, 1.6))
                painter.drawPolyline([QtCore.QPointF(rect.left() + 2.5, rect.center().y()),
                                      QtCore.QPointF(rect.left() + rect.width() * 0.42, rect.bottom() - 2.5),
                                      QtCore.QPointF(rect.right() - 2.0, rect.top() + 2.5)])
        else:
            painter.setBrush(FIELD_COLOR)
            painter.drawRoundedRect(rect, 3.0, 3.0)
            font = painter.font()
            font.setPointSizeF(7.0)
            painter.setFont(font)
            painter.setPen(TEXT_COLOR)
            painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, self.text())
        painter.restore()

    # ---- editing --------------------------------------------------------------------------

    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:  # noqa: N802 - Qt name
        if self.connected or event.button() != QtCore.Qt.MouseButton.LeftButton:
            event.ignore()
            return
        self._press = event.scenePos()
        self._dragged = False
        self._steps = 0
        if self.kind == "float":
            self._start_value = float(self.value())
        event.accept()

    def mouseMoveEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:  # noqa: N802 - Qt name
        if self._press is None or self.kind != "float":
            return
        view = _view_of(self)
        scale = view.transform().m11() if view is not None else 1.0
        pixels = (event.scenePos().x() - self._press.x()) * scale
        if not self._dragged and abs(pixels) < DRAG_THRESHOLD:
            return
        self._dragged = True
        fine = bool(event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier)
        self.drag_to(pixels, fine)

    def drag_to(self, pixels: float, fine: bool = False) -> None:
        """The value a drag `pixels` to the right of where it started gives (reported, one gesture)."""
        low, high = self.minimum, self.maximum
        ranged = low is not None and high is not None and high > low
        step = (high - low) / DRAG_SPAN_PIXELS if low is not None and high is not None and ranged else FREE_STEP
        value = self._start_value + pixels * step * (0.1 if fine else 1.0)
        if low is not None and high is not None and ranged:
            value = min(max(value, low), high)
        value = round(value, 6)
        self._commit(value, self._steps > 0)
        self._steps += 1
        self.update()

    def mouseReleaseEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:  # noqa: N802 - Qt name
        if self._press is None:
            return
        self._press = None
        event.accept()
        if self._dragged:
            self._dragged = False
            self._finish()
        elif self.kind == "float":
            self.open_editor()
        elif self.kind == "bool":
            self._commit(not self.value(), False)
            self.update()
        else:
            self.choose_color()

    def open_editor(self) -> QtWidgets.QLineEdit | None:
        """A field over the value to type a new one in."""
        view = _view_of(self)
        if view is None:
            return None
        field = QtWidgets.QLineEdit(view.viewport())
        field.setObjectName(f"inputValue:{self.name}")
        field.setText(format_number(float(self.value())))
        area = view.mapFromScene(self.sceneBoundingRect()).boundingRect()
        field.setGeometry(area.x() - 2, area.y() - 4, max(area.width() + 24, 64), max(area.height() + 8, 22))
        field.selectAll()
        field.show()
        field.setFocus()
        self.editor = field
        cancelled = False

        def commit() -> None:
            if self.editor is not field:
                return
            self.editor = None
            value = parse_number(field.text())
            field.deleteLater()
            if not cancelled and value is not None:
                self._commit(value, False)
                self.update()

        def cancel() -> None:
            nonlocal cancelled
            cancelled = True
            field.clearFocus()
            commit()

        field.editingFinished.connect(commit)
        QtGui.QShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Escape), field, cancel,
                        context=QtCore.Qt.ShortcutContext.WidgetShortcut)
        return field

    def choose_color(self) -> None:
        value = [float(c) for c in self.value()] + [1.0] * 4
        red, green, blue = colors.display_rgb(value)
        initial = QtGui.QColor.fromRgbF(red, green, blue, min(1.0, max(0.0, value[3])))
        view = _view_of(self)
        chosen = type(self).pick_color(initial, view)
        if not chosen.isValid():
            return
        linear = colors.linear_rgb((chosen.redF(), chosen.greenF(), chosen.blueF()))
        size = len(self.value())
        self._commit((*linear, float(chosen.alphaF()))[:size], False)
        self.update()


def paint_checkerboard(painter: QtGui.QPainter, rect: QtCore.QRectF) -> None:
    """Light and dark squares over `rect`: what a colour's transparency is seen against."""
    painter.setPen(QtCore.Qt.PenStyle.NoPen)
    painter.setBrush(CHECKER_LIGHT)
    painter.drawRect(rect)
    painter.setBrush(CHECKER_DARK)
    rows = math.ceil(rect.height() / CHECKER_SIZE)
    columns = math.ceil(rect.width() / CHECKER_SIZE)
    for row in range(rows):
        for column in range(row % 2, columns, 2):
            square = QtCore.QRectF(rect.left() + column * CHECKER_SIZE, rect.top() + row * CHECKER_SIZE,
                                   CHECKER_SIZE, CHECKER_SIZE)
            painter.drawRect(square.intersected(rect))


class VectorValueItem(QtWidgets.QGraphicsObject):
    """A vector input's value on its node: one compact float field per component, side by side.

    Each component is an `InputValueItem` of kind "float" that reads its own
    component and reports the whole vector with that component changed, so
    a vector is edited (dragged, typed, undone) exactly as a float is.
    """

    kind = "vector"

    def __init__(self, parent: QtWidgets.QGraphicsItem, port_item: QtWidgets.QGraphicsItem, name: str, size: int,
                 read: Callable[[], Any], commit: Callable[[Any, bool], None], finish: Callable[[], None],
                 minimum: float | None = None, maximum: float | None = None) -> None:
        super().__init__(parent)
        self.port_item = port_item
        self.name = name
        self.size = 0
        self._read = read
        self._commit = commit
        self._finish = finish
        self._range = (minimum, maximum)
        #: Whether the input is a colour: a missing alpha reads 1 (as the lowering pads it), else 0.
        self._color = False
        self.components: list[InputValueItem] = []
        self.resize(size)

    def resize(self, size: int, color: bool = False) -> bool:
        """Show `size` components (a dynamic input's resolved width); whether anything changed.

        The stored value keeps its own length: the lowering reads as many components as the input's
        type has (`lowering.default_numbers`), and an edit changes only the component edited.
        """
        self._color = color
        if size == self.size:
            return False
        for item in self.components[size:]:
            item.setVisible(False)
            scene = item.scene()
            if scene is not None:
                scene.removeItem(item)
        del self.components[size:]
        minimum, maximum = self._range
        for index in range(len(self.components), size):
            item = InputValueItem(self, self.port_item, f"{self.name}[{index}]", "float",
                                  read=functools.partial(self._component, index),
                                  commit=functools.partial(self._commit_component, self._commit, index),
                                  finish=self._finish, minimum=minimum, maximum=maximum)
            item.component = True
            item.setToolTip(f"{'xyzw'[index]}: drag to change, click to type")
            item.setPos(index * (COMPONENT_WIDTH + COMPONENT_GAP), 0.0)
            self.components.append(item)
        self.prepareGeometryChange()
        self.size = size
        return True

    @property
    def width(self) -> float:
        return self.size * COMPONENT_WIDTH + (self.size - 1) * COMPONENT_GAP

    @property
    def connected(self) -> bool:
        return bool(getattr(self.port_item, "connected_pipes", ()))

    def value(self) -> tuple[float, ...]:
        """The components shown: the stored value truncated or padded to the shown width, as the lowering
        reads it."""
        value = [float(c) for c in self._read()]
        while len(value) < self.size:
            value.append(1.0 if (self._color and len(value) == 3) else 0.0)
        return tuple(value[:self.size])

    def _component(self, index: int) -> float:
        return self.value()[index]

    def _commit_component(self, commit: Callable[[Any, bool], None], index: int, component: float,
                          continuing: bool) -> None:
        """One component edited: the whole stored vector (at least as long as shown), with that component
        changed, is reported."""
        stored = [float(c) for c in self._read()]
        value = list(self.value()) + stored[self.size:]
        value[index] = float(component)
        commit(tuple(value), continuing)

    def text(self) -> str:
        return ", ".join(format_number(c) for c in self.value())

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 - Qt name
        return QtCore.QRectF(0.0, 0.0, self.width, VALUE_HEIGHT)

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem,
              widget: QtWidgets.QWidget | None = None) -> None:
        """The components draw themselves."""

    def update(self, *args: Any) -> None:
        super().update(*args)
        for item in self.components:
            item.update()


def _view_of(item: QtWidgets.QGraphicsItem) -> QtWidgets.QGraphicsView | None:
    scene = item.scene()
    views = scene.views() if scene is not None else []
    return views[0] if views else None
