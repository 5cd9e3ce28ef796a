"""The colour ramp's gradient widget: a gradient bar with draggable stops, shown in the properties panel.

Editing with the mouse (the bar is the top strip, the stop handles the
triangles below it):

- press on a handle selects the stop; dragging it moves its position
  (clamped to [0, 1]); one edit is emitted when the button is released;
- double-click on the bar or between handles adds a stop there, with the
  colour the gradient has at that point;
- right-click on a handle (or Delete with a stop selected) removes it; the
  last stop cannot be removed;
- double-click on a handle, or the colour button, picks the stop's colour;
  the position field types an exact position.

Every finished edit emits `stopsEdited(stops)` with the whole ramp value
(a tuple of (position, r, g, b, a) tuples sorted by position, the
catalog's "ramp" property kind); the properties panel applies it through
the graph's undo stack, so each edit is one undo step. `set_stops` shows a
value without emitting (the panel calls it after undo, redo and loads).
The bar is drawn with the same evaluation the lowering performs (linear,
ease = smoothstep, constant), so what the artist sees is what renders.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QColorDialog, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from app.material.nodes.color import RampStop, ramp_stops

BAR_HEIGHT = 22
HANDLE_SIZE = 10
MARGIN = 8


def evaluate(stops: Sequence[RampStop], interpolation: str, factor: float) -> tuple[float, float, float, float]:
    """The ramp's colour at `factor`, as the lowered shader computes it."""
    if not stops:
        return (0.0, 0.0, 0.0, 1.0)
    color = list(stops[0][1:])
    for previous, stop in pairwise(stops):
        start, end = previous[0], stop[0]
        if interpolation == "constant" or end - start <= 1e-6:
            weight = 1.0 if factor >= end else 0.0
        elif interpolation == "ease":
            t = min(max((factor - start) / (end - start), 0.0), 1.0)
            weight = t * t * (3.0 - 2.0 * t)
        else:
            weight = min(max((factor - start) / (end - start), 0.0), 1.0)
        color = [a + (b - a) * weight for a, b in zip(color, stop[1:])]
    return (color[0], color[1], color[2], color[3])


def _qcolor(rgba: Sequence[float]) -> QColor:
    return QColor.fromRgbF(*(min(max(float(component), 0.0), 1.0) for component in rgba[:4]))


class GradientBar(QWidget):
    """The bar and its handles; see the module docstring for the mouse gestures."""

    #: A finished edit: the whole ramp value.
    stopsEdited = Signal(object)
    #: The selected stop changed (index, or -1).
    selectionChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumSize(160, BAR_HEIGHT + HANDLE_SIZE + 2 * MARGIN)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setMouseTracking(False)
        self.setToolTip("Drag a stop to move it; double-click to add one; right-click a stop to remove it")
        self._stops: list[RampStop] = []
        self._interpolation = "linear"
        self._selected = -1
        self._dragging = False
        self._moved = False

    # --- value ---

    @property
    def stops(self) -> tuple[RampStop, ...]:
        return tuple(self._stops)

    @property
    def selected(self) -> int:
        return self._selected

    def set_stops(self, value: Any, interpolation: str | None = None) -> None:
        """Show a stored ramp value (tolerantly read); emits nothing."""
        self._stops = ramp_stops(value)
        if interpolation is not None:
            self._interpolation = interpolation
        if self._selected >= len(self._stops):
            self._select(len(self._stops) - 1)
        self.update()

    def set_interpolation(self, interpolation: str) -> None:
        self._interpolation = interpolation
        self.update()

    def select(self, index: int) -> None:
        self._select(index if 0 <= index < len(self._stops) else -1)

    # --- geometry ---

    def bar_rect(self) -> QRectF:
        return QRectF(MARGIN, MARGIN, max(1.0, self.width() - 2 * MARGIN), BAR_HEIGHT)

    def x_for(self, position: float) -> float:
        bar = self.bar_rect()
        return bar.left() + position * bar.width()

    def position_at(self, x: float) -> float:
        bar = self.bar_rect()
        return min(max((x - bar.left()) / bar.width(), 0.0), 1.0)

    def handle_point(self, index: int) -> QPointF:
        """The centre of a stop's handle (for tests and hit-testing)."""
        return QPointF(self.x_for(self._stops[index][0]), self.bar_rect().bottom() + HANDLE_SIZE / 2 + 1)

    def handle_at(self, point: QPointF) -> int:
        """The stop whose handle (or bar column) is under `point`, -1 for none; the nearest wins."""
        best, best_distance = -1, HANDLE_SIZE * 0.75
        if point.y() < self.bar_rect().top() - 2:
            return -1
        for index, stop in enumerate(self._stops):
            distance = abs(self.x_for(stop[0]) - point.x())
            if distance <= best_distance:
                best, best_distance = index, distance
        return best if point.y() >= self.bar_rect().bottom() - 2 else -1

    # --- edits ---

    def _emit(self) -> None:
        self.stopsEdited.emit(tuple(self._stops))

    def _select(self, index: int) -> None:
        if index != self._selected:
            self._selected = index
            self.selectionChanged.emit(index)
        self.update()

    def add_stop(self, position: float) -> int:
        """Add a stop at `position` with the gradient's colour there; returns its index. Emits."""
        color = evaluate(self._stops, self._interpolation, position)
        self._stops.append((position, *color))
        index = self._resort(len(self._stops) - 1)
        self._select(index)
        self._emit()
        return index

    def remove_stop(self, index: int) -> bool:
        """Remove a stop (never the last one). Emits when it did."""
        if len(self._stops) <= 1 or not 0 <= index < len(self._stops):
            return False
        del self._stops[index]
        self._select(min(index, len(self._stops) - 1))
        self._emit()
        return True

    def set_stop_color(self, index: int, rgba: Sequence[float]) -> None:
        position = self._stops[index][0]
        red, green, blue, alpha = (float(component) for component in rgba[:4])
        self._stops[index] = (position, red, green, blue, alpha)
        self.update()
        self._emit()

    def set_stop_position(self, index: int, position: float) -> None:
        stop = self._stops[index]
        self._stops[index] = (min(max(position, 0.0), 1.0), *stop[1:])
        self._select(self._resort(index))
        self._emit()

    def _resort(self, index: int) -> int:
        """Keep stops sorted (stable); returns where the stop at `index` went."""
        moving = self._stops[index]
        order = sorted(range(len(self._stops)), key=lambda i: (self._stops[i][0], i != index))
        self._stops = [self._stops[i] for i in order]
        return next(i for i, stop in enumerate(self._stops) if stop is moving)

    # --- events ---

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        index = self.handle_at(event.position())
        if event.button() == Qt.MouseButton.RightButton:
            if index >= 0:
                self.remove_stop(index)
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return
        self._select(index)
        self._dragging = index >= 0
        self._moved = False

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if not self._dragging or self._selected < 0:
            return
        stop = self._stops[self._selected]
        self._stops[self._selected] = (self.position_at(event.position().x()), *stop[1:])
        self._selected = self._resort(self._selected)
        self._moved = True
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._dragging and self._moved:
            self._emit()
            self.selectionChanged.emit(self._selected)
        self._dragging = False
        self._moved = False

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self.handle_at(event.position())
        if index >= 0:
            self.pick_color(index)
        elif self.bar_rect().adjusted(0, 0, 0, HANDLE_SIZE + 2).contains(event.position()):
            self.add_stop(self.position_at(event.position().x()))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self._selected >= 0:
            self.remove_stop(self._selected)
            return
        super().keyPressEvent(event)

    def pick_color(self, index: int) -> None:
        chosen = QColorDialog.getColor(_qcolor(self._stops[index][1:]), self, "Stop colour", QColorDialog.ColorDialogOption.ShowAlphaChannel)
        if chosen.isValid():
            self.set_stop_color(index, (chosen.redF(), chosen.greenF(), chosen.blueF(), chosen.alphaF()))

    # --- painting ---

    def gradient_image(self, width: int) -> QImage:
        image = QImage(max(1, width), 1, QImage.Format.Format_ARGB32)
        for x in range(image.width()):
            factor = (x + 0.5) / image.width()
            image.setPixelColor(x, 0, _qcolor(evaluate(self._stops, self._interpolation, factor)))
        return image

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        bar = self.bar_rect()
        # A checkerboard under the bar shows transparency.
        cell = 6
        for column in range(int(bar.width() // cell) + 1):
            for row in range(int(bar.height() // cell) + 1):
                shade = QColor(200, 200, 200) if (column + row) % 2 else QColor(120, 120, 120)
                painter.fillRect(QRectF(bar.left() + column * cell, bar.top() + row * cell, cell, cell).intersected(bar), shade)
        painter.drawImage(bar, self.gradient_image(int(bar.width())))
        painter.setPen(QPen(QColor(20, 20, 20), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)
        for index, stop in enumerate(self._stops):
            x = self.x_for(stop[0])
            top = bar.bottom() + 1
            triangle = QPolygonF([QPointF(x, top), QPointF(x - HANDLE_SIZE / 2, top + HANDLE_SIZE), QPointF(x + HANDLE_SIZE / 2, top + HANDLE_SIZE)])
            selected = index == self._selected
            painter.setPen(QPen(QColor(255, 255, 255) if selected else QColor(30, 30, 30), 2 if selected else 1))
            painter.setBrush(_qcolor((*stop[1:4], 1.0)))
            painter.drawPolygon(triangle)
        painter.end()


class GradientEditor(QWidget):
    """The bar plus a row for the selected stop: colour button, position field, remove button."""

    stopsEdited = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gradientEditor")
        self.bar = GradientBar(self)
        self.color_button = QPushButton("Colour…", self)
        self.position_label = QLabel(self)
        self.remove_button = QPushButton("Remove", self)
        self.color_button.setToolTip("Pick the selected stop's colour")
        self.remove_button.setToolTip("Remove the selected stop")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.color_button)
        row.addWidget(self.position_label, 1)
        row.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar)
        layout.addLayout(row)
        self.bar.stopsEdited.connect(self.stopsEdited)
        self.bar.selectionChanged.connect(self._show_selection)
        self.color_button.clicked.connect(self._pick_selected_color)
        self.remove_button.clicked.connect(lambda: self.bar.remove_stop(self.bar.selected))
        self._show_selection(-1)

    def _pick_selected_color(self) -> None:
        if self.bar.selected >= 0:
            self.bar.pick_color(self.bar.selected)

    def set_stops(self, value: Any) -> None:
        self.bar.set_stops(value)
        self._show_selection(self.bar.selected)

    def set_interpolation(self, interpolation: str) -> None:
        self.bar.set_interpolation(interpolation)

    def show_node_values(self, values: dict[str, Any]) -> None:
        """The properties panel's context hook: draw with the node's interpolation property."""
        interpolation = values.get("interpolation")
        if isinstance(interpolation, str):
            self.set_interpolation(interpolation)

    def _show_selection(self, index: int) -> None:
        has = 0 <= index < len(self.bar.stops)
        self.color_button.setEnabled(has)
        self.remove_button.setEnabled(has and len(self.bar.stops) > 1)
        self.position_label.setText(f"stop {index + 1} at {self.bar.stops[index][0]:.3f}" if has else "no stop selected")
