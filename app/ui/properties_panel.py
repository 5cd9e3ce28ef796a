"""Node properties dock: edits the catalog properties of the selected node.

Built from the catalog's `PropertySpec`s, with the project's own widgets
(NodeGraphQt's embedded spin boxes store strings and break load and paste,
and its PropertiesBinWidget crashes after node deletion). A finished edit
emits `propertyEdited(node_id, name, value)` with a value of the catalog's
Python type; the main window applies it through NodeGraphQt's `set_property`,
so it lands on the undo stack. `show_node` refreshes the widgets from the
graph (after undo, redo, paste ...) without emitting anything.

Float fields accept any Python float spelling; an invalid entry turns the
field red and is not applied. A float with a range also gets a slider,
which applies every move while it is dragged (the preview follows) and
marks the moves after the first as `continuing`, so the host records the
drag as one undo step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.graph.rich_text import escaped
from app.material import colors
from app.preview.parameters_panel import display_qcolor, linear_from_qcolor, rows_height
from app.session.textures import image_filter
from app.ui.custom_code_editor import CustomCodeEditor, PortsEdit
from app.ui.gradient_editor import GradientEditor
from app.ui.keys import is_redo, is_undo

INVALID_STYLE = "QLineEdit { border: 1px solid #eb4034; background: #4a2020; }"
SLIDER_STEPS = 1000


def parse_float(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def format_float(value: Any) -> str:
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return str(value)


class PropertyLineEdit(QLineEdit):
    """A property's text field whose Undo/Redo keys undo the document once the text is committed.

    Qt's line edit takes Ctrl+Z for its own text history, so after a value
    was committed Ctrl+Z would revert only the text (the graph keeping the
    value) and the next focus change would commit that text as a new edit.
    Here the field's own history covers only what is typed and not yet
    committed (`forget_typing` clears it on commit); with nothing of its own
    to undo, the keys go to the window's Undo and Redo.
    """

    def _for_the_window(self, event: QKeyEvent) -> bool:
        return (is_undo(event) and not self.isUndoAvailable()) or (is_redo(event) and not self.isRedoAvailable())

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and self._for_the_window(event):
            event.ignore()  # not the field's: the window's shortcut takes it
            return False
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if self._for_the_window(event):
            event.ignore()
            return
        super().keyPressEvent(event)

    def forget_typing(self) -> None:
        """Clear the text's own undo history (setText does), keeping the text and the cursor."""
        cursor = self.cursorPosition()
        blocked = self.blockSignals(True)
        self.setText(self.text())
        self.blockSignals(blocked)
        self.setCursorPosition(cursor)


class FloatEdit(PropertyLineEdit):
    """A line edit that commits a finite float on Enter or focus loss."""

    committed = Signal(float)

    def __init__(self, value: float = 0.0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value = float(value)
        self.setText(format_float(value))
        self.editingFinished.connect(self._commit)
        self.textEdited.connect(self._check)

    @property
    def value(self) -> float:
        return self._value

    def set_value(self, value: float) -> None:
        self._value = float(value)
        if not self.hasFocus() or parse_float(self.text()) != self._value:
            self.setText(format_float(value))
        self.setStyleSheet("")

    def _check(self, text: str) -> None:
        self.setStyleSheet("" if parse_float(text) is not None else INVALID_STYLE)

    def _commit(self) -> None:
        value = parse_float(self.text())
        if value is None:
            self.setStyleSheet(INVALID_STYLE)
            return
        self.setStyleSheet("")
        self.forget_typing()
        if value != self._value:
            self._value = value
            self.committed.emit(value)


class _Editor:
    """One property's widget(s): `widget` to place, `set_value`, and a commit callback."""

    def __init__(self, widget: QWidget, set_value: Callable[[Any], None],
                 show_context: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.widget = widget
        self.set_value = set_value
        # Sees all of the node's values (the colour ramp's bar draws with the interpolation property).
        self.show_context = show_context


#: The most height the panel asks of the window to show a node's rows unscrolled (about eight rows).
MAX_UNSCROLLED_HEIGHT = 260

def _pick_color(initial: QColor, parent: QWidget) -> QColor:
    return QColorDialog.getColor(initial, parent, "Colour", QColorDialog.ColorDialogOption.ShowAlphaChannel)


class PropertiesPanel(QWidget):
    #: The colour dialog (a class attribute so tests can answer it): initial display colour -> picked one.
    pick_color: Callable[[QColor, QWidget], QColor] = staticmethod(_pick_color)
    propertyEdited = Signal(str, str, object)
    #: A slider of a property was released: the gesture its `continuing` edits made is over.
    gestureEnded = Signal()

    def __init__(self, parent: QWidget | None = None,
                 choose_texture: Callable[[QWidget], str | None] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("propertiesPanel")
        self._choose_texture = choose_texture or _choose_texture
        self._node_id: str | None = None
        self._type_name: str | None = None
        #: The type the form was built for (a Custom Code node's properties change with its ports).
        self._node_type: Any = None
        self._editors: dict[str, _Editor] = {}
        self._updating = False
        #: True while `propertyEdited` reports a change that continues a slider drag (merge into one undo step).
        self.continuing = False

        self._title = QLabel(self)
        self._title.setWordWrap(True)
        self._title.setTextFormat(Qt.TextFormat.RichText)
        self._form_host = QWidget(self)
        self._form = QFormLayout(self._form_host)
        # Rows never shrink below their minimum (a Custom Code node's editor): the scroll area scrolls instead.
        self._form.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._form_host)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self._scroll = scroll
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._title)
        layout.addWidget(scroll, 1)
        self.show_nothing()

    # --- what is shown ---

    @property
    def node_id(self) -> str | None:
        return self._node_id

    def editor_widget(self, name: str) -> QWidget:
        return self._editors[name].widget

    def show_nothing(self, message: str = "Select one node to edit its properties.") -> None:
        self._node_id = None
        self._type_name = None
        self._node_type = None
        self._clear_form()
        self._title.setText(f"<i>{escaped(message)}</i>")

    def show_node(self, node_id: str, node_type: Any, values: dict[str, Any],
                  connected_inputs: Iterable[str] = (), editable: bool = True) -> None:
        """Show (or refresh) the node's properties; emits nothing."""
        if node_id != self._node_id or node_type is not self._node_type:
            self._build(node_id, node_type)
        connected = set(connected_inputs)
        self._updating = True
        try:
            for spec in node_type.properties:
                editor = self._editors[spec.name]
                editor.set_value(values.get(spec.name, spec.default))
                # A property that shadows a connected input is unused: say so.
                editor.widget.setEnabled(editable and spec.name not in connected)
                editor.widget.setToolTip("driven by the connected input" if spec.name in connected else "")
                if editor.show_context is not None:
                    editor.show_context(values)
        finally:
            self._updating = False

    def _clear_form(self) -> None:
        while self._form.rowCount():
            self._form.removeRow(0)
        self._editors.clear()
        self._scroll.setMinimumHeight(0)

    def _build(self, node_id: str, node_type: Any) -> None:
        self._clear_form()
        self._node_id = node_id
        self._type_name = node_type.type_name
        self._node_type = node_type
        self._title.setText(
            f"<b>{escaped(node_type.display_name)}</b> ({escaped(node_type.category)}, {escaped(node_id)})"
            f"<br/><i>{escaped(node_type.description)}</i>"
        )
        if not node_type.properties:
            self._form.addRow(QLabel("<i>No properties.</i>"))
        for spec in node_type.properties:
            editor = self._make_editor(spec)
            self._editors[spec.name] = editor
            self._form.addRow(_plain_label(spec.display_name), editor.widget)
        # Every row of an ordinary node without scrolling (a large editor, as Custom Code's, scrolls).
        self._scroll.setMinimumHeight(min(rows_height(self._form, self._form.rowCount()), MAX_UNSCROLLED_HEIGHT))

    # --- editors per property kind ---

    def _emit(self, name: str, value: Any, continuing: bool = False) -> None:
        if not self._updating and self._node_id is not None:
            self.continuing = continuing
            try:
                self.propertyEdited.emit(self._node_id, name, value)
            finally:
                self.continuing = False

    def _make_editor(self, spec: Any) -> _Editor:
        kind = spec.kind
        if kind == "float":
            return self._float_editor(spec)
        if kind in ("vector", "color"):
            return self._vector_editor(spec)
        if kind == "int":
            box = QSpinBox()
            box.setRange(int(spec.minimum) if spec.minimum is not None else -1_000_000,
                         int(spec.maximum) if spec.maximum is not None else 1_000_000)
            box.valueChanged.connect(lambda value, name=spec.name: self._emit(name, int(value)))
            return _Editor(box, lambda value: box.setValue(int(value)))
        if kind == "bool":
            check = QCheckBox()
            check.toggled.connect(lambda state, name=spec.name: self._emit(name, bool(state)))
            return _Editor(check, lambda value: check.setChecked(bool(value)))
        if kind == "enum":
            combo = QComboBox()
            combo.addItems(list(spec.choices))
            combo.currentTextChanged.connect(lambda text, name=spec.name: self._emit(name, text))
            return _Editor(combo, lambda value: combo.setCurrentText(str(value)))
        if kind == "texture":
            return self._texture_editor(spec)
        if kind == "code":
            code = CustomCodeEditor()
            code.codeCommitted.connect(lambda text, name=spec.name: self._emit(name, text))
            return _Editor(code, code.set_code, code.show_node_values)
        if kind == "ports":
            ports = PortsEdit()
            ports.portsCommitted.connect(lambda value, name=spec.name: self._emit(name, value))
            return _Editor(ports, ports.set_ports)
        if kind == "ramp":
            gradient = GradientEditor()
            gradient.stopsEdited.connect(lambda stops, name=spec.name: self._emit(name, stops))
            return _Editor(gradient, gradient.set_stops, gradient.show_node_values)
        line = PropertyLineEdit()

        def commit_text(name: str = spec.name) -> None:
            line.forget_typing()
            self._emit(name, line.text())

        line.editingFinished.connect(commit_text)
        return _Editor(line, lambda value: line.setText("" if value is None else str(value)))

    def _float_editor(self, spec: Any) -> _Editor:
        host = QWidget()
        row = QHBoxLayout(host)
        row.setContentsMargins(0, 0, 0, 0)
        edit = FloatEdit(float(spec.default or 0.0))
        edit.setObjectName(f"float:{spec.name}")
        row.addWidget(edit, 1)
        slider: QSlider | None = None
        low, high = spec.minimum, spec.maximum
        if low is not None and high is not None and high > low:
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(0, SLIDER_STEPS)
            row.addWidget(slider, 2)

            def slider_value(position: int) -> float:
                return low + (high - low) * position / SLIDER_STEPS

            drag = {"changed": False}

            def commit_slider(position: int) -> None:
                if self._updating:
                    return
                value = slider_value(position)
                edit.set_value(value)
                # A drag previews live (every move is applied) and is one undo step: the
                # moves after the first continue it. Clicks and keys are steps of their own.
                self._emit(spec.name, value, continuing=slider.isSliderDown() and drag["changed"])
                drag["changed"] = slider.isSliderDown()

            slider.sliderPressed.connect(lambda: drag.update(changed=False))
            slider.sliderReleased.connect(self.gestureEnded)
            slider.valueChanged.connect(commit_slider)
        edit.committed.connect(lambda value: self._emit(spec.name, value))

        def set_value(value: Any) -> None:
            number = float(value) if value is not None else 0.0
            edit.set_value(number)
            if slider is not None:
                blocked = slider.blockSignals(True)
                slider.setValue(round((min(max(number, low), high) - low) / (high - low) * SLIDER_STEPS))
                slider.blockSignals(blocked)

        return _Editor(host, set_value)

    def _vector_editor(self, spec: Any) -> _Editor:
        host = QWidget()
        row = QHBoxLayout(host)
        row.setContentsMargins(0, 0, 0, 0)
        size = len(spec.default) if isinstance(spec.default, (tuple, list)) else 4
        edits = [FloatEdit(0.0) for _ in range(size)]
        swatch: QPushButton | None = None
        if spec.kind == "color":
            swatch = QPushButton()
            swatch.setFixedWidth(28)
            swatch.setToolTip("Pick a colour")
            row.addWidget(swatch)
        for index, edit in enumerate(edits):
            edit.setObjectName(f"component:{spec.name}:{index}")
            edit.setMinimumWidth(40)
            row.addWidget(edit, 1)

        def current() -> tuple[float, ...]:
            return tuple(edit.value for edit in edits)

        def show_swatch(values: tuple[float, ...]) -> None:
            if swatch is not None:
                # The fields hold the linear values; the swatch shows the colour as it looks (sRGB-encoded).
                swatch.setStyleSheet(f"QPushButton {{ background: {colors.display_hex(values)}; border: 1px solid #888; }}")
                swatch.setToolTip(f"{colors.describe(values)}\nClick to pick a colour")

        def commit(_value: float) -> None:
            show_swatch(current())
            self._emit(spec.name, current())

        for edit in edits:
            edit.committed.connect(commit)

        if swatch is not None:
            def pick() -> None:
                values = list(current()) + [1.0] * 4
                chosen = type(self).pick_color(display_qcolor(values[:4]), self)
                if chosen.isValid():
                    picked = linear_from_qcolor(chosen)[:size]
                    for edit, component in zip(edits, picked):
                        edit.set_value(component)
                    commit(0.0)

            swatch.clicked.connect(pick)

        def set_value(value: Any) -> None:
            values = tuple(value) if isinstance(value, (tuple, list)) else (float(value or 0.0),) * size
            for edit, component in zip(edits, values):
                edit.set_value(float(component))
            show_swatch(values)

        return _Editor(host, set_value)

    def _texture_editor(self, spec: Any) -> _Editor:
        host = QWidget()
        row = QHBoxLayout(host)
        row.setContentsMargins(0, 0, 0, 0)
        line = PropertyLineEdit()
        line.setPlaceholderText("checker (default)")
        browse = QPushButton("…")
        browse.setFixedWidth(28)
        row.addWidget(line, 1)
        row.addWidget(browse)
        def commit_path() -> None:
            line.forget_typing()
            self._emit(spec.name, line.text() or None)

        line.editingFinished.connect(commit_path)

        def pick() -> None:
            path = self._choose_texture(self)
            if path:
                line.setText(path)
                self._emit(spec.name, path)

        browse.clicked.connect(pick)
        return _Editor(host, lambda value: line.setText("" if value is None else str(value)))


def _choose_texture(parent: QWidget) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Choose texture image", "", image_filter())
    return path or None


def _plain_label(text: str) -> QLabel:
    """A form label showing `text` as written (property names of user-defined nodes are not markup)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
