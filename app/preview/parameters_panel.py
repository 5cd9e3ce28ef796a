"""The parameters panel: one editor per material parameter (ParameterSpec).

Float: a slider over the spec's range with a spin box beside it; vector:
one spin box per component; colour: a swatch button opening QColorDialog,
labelled with the display-encoded `#rrggbb` and alpha apart (the stored
values are linear: `app.material.colors`);
texture: a button opening QFileDialog (the checker when no file is set,
otherwise the file name) and a reset button; anything else (records,
arrays, ints, matrices) is shown read-only, since the preview fills it with
zero/identity.

Edits emit `parameterChanged(name, value)` (floats, tuples of floats) or
`textureChanged(name, path_or_None)`. The panel holds no values of its own
beyond what it shows: the host (the session's `ParameterModel`) passes the
value of every parameter to `set_parameters`, and `set_value` after a
change. `set_parameters` with the same names, kinds and types keeps the
editors (and the artist's focus); only ranges, labels and values follow.
The dialogs are class attributes so tests (and other hosts) can replace them.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor, QCursor, QIcon, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QColorDialog,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSlider,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.material import colors
from app.material.parameters import ParameterKind, ParameterSpec
from app.session.parameters import VariantState
from app.session.textures import image_filter
from vpl_core.ir.types import VectorType

SLIDER_STEPS = 1000
#: The panel never shrinks below this many parameter rows (more scroll); the window sizes its docks for it.
MIN_VISIBLE_ROWS = 4
IMAGE_FILTER = image_filter()


def rows_height(form: QFormLayout, rows: int) -> int:
    """The height the first `rows` rows of `form` take with its margins and spacing (all rows when fewer).

    From the row widgets' own size hints: widgets just added to a shown form are shown (and counted in
    the form's size hint) only later.
    """
    shown = min(rows, form.rowCount())
    spacing = form.verticalSpacing()
    host = form.parentWidget()
    if spacing < 0 and host is not None:
        spacing = host.style().pixelMetric(QStyle.PixelMetric.PM_LayoutVerticalSpacing)
    margins = form.contentsMargins()
    height = margins.top() + margins.bottom() + max(0, spacing) * max(0, shown - 1)
    roles = (QFormLayout.ItemRole.LabelRole, QFormLayout.ItemRole.FieldRole, QFormLayout.ItemRole.SpanningRole)
    for row in range(shown):
        widgets = [item.widget() for item in (form.itemAt(row, role) for role in roles) if item is not None]
        height += max((widget.sizeHint().height() for widget in widgets if widget is not None), default=0)
    return height


def _pick_color(initial: QColor, parent: QWidget, with_alpha: bool) -> QColor:
    options = QColorDialog.ColorDialogOption.ShowAlphaChannel if with_alpha else QColorDialog.ColorDialogOption(0)
    return QColorDialog.getColor(initial, parent, "Choose colour", options)


def _pick_image(parent: QWidget) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Choose texture image", "", IMAGE_FILTER)
    return path or None


class _FloatEditor(QWidget):
    def __init__(self, spec: ParameterSpec, value: Any, changed: Callable[[Any], None]) -> None:
        super().__init__()
        self._changed = changed
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.spin = QDoubleSpinBox()
        self.spin.setDecimals(3)
        self.spin.setKeyboardTracking(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.apply_spec(spec)
        default = spec.default if isinstance(spec.default, (int, float)) else 0.0
        self.set_value(float(value) if value is not None else default)
        #: True while a slider drag goes on after its first change (one undo step per drag).
        self.continuing = False
        self._dragging = False
        self.slider.valueChanged.connect(self._slider_moved)
        self.slider.sliderPressed.connect(self._drag_started)
        self.slider.sliderReleased.connect(self._drag_ended)
        self.spin.valueChanged.connect(self._spin_changed)

    def _drag_started(self) -> None:
        self._dragging, self.continuing = True, False

    def _drag_ended(self) -> None:
        self._dragging = self.continuing = False

    def apply_spec(self, spec: ParameterSpec) -> None:
        low, high = float(spec.minimum), float(spec.maximum)
        if high <= low:
            high = low + 1.0
        self._low, self._high = low, high
        self.spin.blockSignals(True)
        self.spin.setRange(low, high)
        self.spin.setSingleStep((high - low) / 100.0)
        self.spin.blockSignals(False)

    def value(self) -> float:
        return float(self.spin.value())

    def set_value(self, value: float) -> None:
        for widget in (self.spin, self.slider):
            widget.blockSignals(True)
        self.spin.setValue(value)
        self.slider.setValue(round((self.spin.value() - self._low) / (self._high - self._low) * SLIDER_STEPS))
        for widget in (self.spin, self.slider):
            widget.blockSignals(False)

    def _slider_moved(self, position: int) -> None:
        value = self._low + (self._high - self._low) * position / SLIDER_STEPS
        self.spin.blockSignals(True)
        self.spin.setValue(value)
        self.spin.blockSignals(False)
        self._changed(self.value())
        self.continuing = self._dragging

    def _spin_changed(self, value: float) -> None:
        self.continuing = False
        self.slider.blockSignals(True)
        self.slider.setValue(round((value - self._low) / (self._high - self._low) * SLIDER_STEPS))
        self.slider.blockSignals(False)
        self._changed(float(value))


class _VectorEditor(QWidget):
    def __init__(self, spec: ParameterSpec, value: Any, changed: Callable[[Any], None]) -> None:
        super().__init__()
        self._changed = changed
        size = spec.type.size if isinstance(spec.type, VectorType) else 4
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.spins: list[QDoubleSpinBox] = []
        for _ in range(size):
            spin = QDoubleSpinBox()
            spin.setDecimals(3)
            spin.setRange(-1e6, 1e6)
            spin.setSingleStep(0.05)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._spin_changed)
            layout.addWidget(spin)
            self.spins.append(spin)
        self.set_value(value if value is not None else spec.default)

    def apply_spec(self, spec: ParameterSpec) -> None:
        pass

    def value(self) -> tuple[float, ...]:
        return tuple(float(spin.value()) for spin in self.spins)

    def set_value(self, value: Any) -> None:
        components = list(value) if value is not None else []
        for index, spin in enumerate(self.spins):
            spin.blockSignals(True)
            spin.setValue(float(components[index]) if index < len(components) else 0.0)
            spin.blockSignals(False)

    def _spin_changed(self, _: float) -> None:
        self._changed(self.value())


class _ColorEditor(QPushButton):
    def __init__(self, spec: ParameterSpec, value: Any, changed: Callable[[Any], None], pick: Callable[..., QColor]) -> None:
        super().__init__()
        self._changed = changed
        self._pick = pick
        self._size = spec.type.size if isinstance(spec.type, VectorType) else 4
        self._value: tuple[float, ...] = ()
        self.set_value(value if value is not None else spec.default)
        self.clicked.connect(self._choose)

    def apply_spec(self, spec: ParameterSpec) -> None:
        pass

    def value(self) -> tuple[float, ...]:
        return self._value

    def set_value(self, value: Any) -> None:
        components = [float(c) for c in (value or ())]
        defaults = [0.0, 0.0, 0.0, 1.0]
        self._value = tuple((components + defaults[len(components):])[: self._size])
        swatch = QPixmap(28, 14)
        swatch.fill(display_qcolor(self._value, with_alpha=False))
        self.setIcon(QIcon(swatch))
        self.setText(colors.label(self._value))
        self.setToolTip(colors.describe(self._value))

    def _choose(self) -> None:
        chosen = self._pick(display_qcolor(self._value, with_alpha=self._size == 4), self, self._size == 4)
        if chosen is None or not chosen.isValid():
            return
        self.set_value(linear_from_qcolor(chosen)[: self._size])
        self._changed(self._value)


def display_qcolor(linear: Any, with_alpha: bool = True) -> QColor:
    """The QColor showing linear colour `linear` on screen: sRGB-encoded RGB (alpha as is, clipped)."""
    components = [float(c) for c in (linear or ())]
    red, green, blue = colors.display_rgb(components)
    alpha = min(1.0, max(0.0, components[3])) if with_alpha and len(components) >= 4 else 1.0
    return QColor.fromRgbF(red, green, blue, alpha)


def linear_from_qcolor(color: QColor) -> tuple[float, float, float, float]:
    """Linear RGBA of a colour a person picked on screen (a colour dialog's sRGB-encoded answer)."""
    red, green, blue = colors.linear_rgb((color.redF(), color.greenF(), color.blueF()))
    return red, green, blue, float(color.alphaF())


class _TextureEditor(QWidget):
    def __init__(self, spec: ParameterSpec, value: Any, changed: Callable[[Any], None], pick: Callable[..., str | None]) -> None:
        super().__init__()
        self._changed = changed
        self._pick = pick
        self._path: str | None = None
        self.button = QPushButton()
        self.button.clicked.connect(self._choose)
        self.reset = QToolButton()
        self.reset.setText("×")
        self.reset.setToolTip("Use the default checker texture")
        self.reset.clicked.connect(self._clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button, 1)
        layout.addWidget(self.reset)
        self.set_value(value if isinstance(value, str) else None)

    def apply_spec(self, spec: ParameterSpec) -> None:
        pass

    def value(self) -> str | None:
        return self._path

    def set_value(self, path: str | None) -> None:
        self._path = path
        self.button.setText(os.path.basename(path) if path else "Checker (default)")
        self.button.setToolTip(f"<p>{html.escape(path, quote=False)}</p>" if path else "No image chosen: the preview samples a checker texture")
        self.reset.setEnabled(path is not None)

    def _choose(self) -> None:
        path = self._pick(self)
        if path:
            self.set_value(path)
            self._changed(path)

    def _clear(self) -> None:
        self.set_value(None)
        self._changed(None)


class _ReadOnlyEditor(QLabel):
    def __init__(self, spec: ParameterSpec) -> None:
        super().__init__(f"{spec.type} (zero/identity in the preview)")
        self.setEnabled(False)
        self.setWordWrap(True)

    def apply_spec(self, spec: ParameterSpec) -> None:
        pass

    def value(self) -> Any:
        return None

    def set_value(self, value: Any) -> None:
        pass


#: One editor per parameter kind; each shows a value (`set_value`) and follows a changed spec (`apply_spec`).
_ParameterEditor = _FloatEditor | _VectorEditor | _ColorEditor | _TextureEditor | _ReadOnlyEditor


class ParametersPanel(QWidget):
    """Editors for a material's parameters; see the module docstring."""

    parameterChanged = Signal(str, object)
    textureChanged = Signal(str, object)
    #: The variant chosen in the variant box (None: the base values).
    variantActivated = Signal(object)
    #: "New variant" was clicked (the host asks for a name).
    variantAddRequested = Signal()
    #: "Delete variant" was clicked for the named variant.
    variantRemoveRequested = Signal(str)
    #: "Rename variant" (F2, the box's right-click menu, the pencil button) for the named variant.
    variantRenameRequested = Signal(str)
    #: "Reset" of an overridden parameter was clicked.
    parameterResetRequested = Signal(str)
    #: A parameter's slider was released: the gesture its `continuing` changes made is over.
    gestureEnded = Signal()

    #: Replaceable dialogs: (initial QColor, parent, with_alpha) -> QColor; (parent) -> path or None.
    pick_color: Callable[[QColor, QWidget, bool], QColor] = staticmethod(_pick_color)
    pick_image: Callable[[QWidget], str | None] = staticmethod(_pick_image)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._specs: list[ParameterSpec] = []
        self._editors: dict[str, _ParameterEditor] = {}
        self._variants = VariantState()
        self._continuing = False
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._build_variant_bar())
        outer.addWidget(self._scroll)
        self._rebuild()

    def _build_variant_bar(self) -> QWidget:
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(4, 2, 4, 2)
        label = QLabel("Values:")
        self.variant_box = QComboBox()
        self.variant_box.setObjectName("variantBox")
        self.variant_box.setToolTip("Named sets of parameter values saved with the material (material instances); "
                                    "right-click or F2 to rename one")
        self.variant_box.activated.connect(self._variant_chosen)
        label.setBuddy(self.variant_box)
        self.add_variant_button = QToolButton()
        self.add_variant_button.setText("+")
        self.add_variant_button.setToolTip("New variant: a named set of values, starting from the current ones")
        self.add_variant_button.clicked.connect(self.variantAddRequested)
        self.remove_variant_button = QToolButton()
        self.remove_variant_button.setText("\u2212")
        self.remove_variant_button.setToolTip("Delete this variant")
        self.remove_variant_button.clicked.connect(self._request_variant_removal)
        self.rename_variant_button = QToolButton()
        self.rename_variant_button.setText("\u270e")
        self.rename_variant_button.setToolTip("Rename this variant (F2)")
        self.rename_variant_button.clicked.connect(self._request_rename)
        # The same three on the box's right-click menu; F2 renames while the box has focus.
        self.rename_variant_action = QAction("Rename Variant\u2026", bar)
        self.rename_variant_action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        self.rename_variant_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.rename_variant_action.triggered.connect(self._request_rename)
        new_action = QAction("New Variant\u2026", bar)
        new_action.triggered.connect(self.variantAddRequested)
        self.remove_variant_action = QAction("Delete Variant", bar)
        self.remove_variant_action.triggered.connect(self.remove_variant_button.click)
        self.variant_box.addActions([self.rename_variant_action, new_action, self.remove_variant_action])
        self.variant_box.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        row.addWidget(label)
        row.addWidget(self.variant_box, 1)
        row.addWidget(self.add_variant_button)
        row.addWidget(self.rename_variant_button)
        row.addWidget(self.remove_variant_button)
        self.variant_bar = bar
        self.set_variants(VariantState())
        return bar

    # ---- API ------------------------------------------------------------------------------

    @property
    def specs(self) -> list[ParameterSpec]:
        return list(self._specs)

    def values(self) -> dict[str, Any]:
        """The value every editor shows (None for textures on the checker and read-only ones): the editors hold
        what is shown; the values are the session's `ParameterModel`'s."""
        return {name: editor.value() for name, editor in self._editors.items()}

    def editor(self, name: str) -> QWidget | None:
        return self._editors.get(name)

    def set_parameters(self, specs: list[ParameterSpec], values: Mapping[str, Any] | None = None) -> None:
        """Show `specs` with `values` (by name; a spec's default where a value is missing)."""
        given = values or {}
        new_values = {spec.name: given.get(spec.name, spec.default) for spec in specs}
        same_shape = [_shape(spec) for spec in specs] == [_shape(spec) for spec in self._specs]
        self._specs = list(specs)
        if same_shape and self._editors:
            # Same parameters: keep the editors (and the artist's focus), update ranges, labels, values.
            for spec in specs:
                editor = self._editors[spec.name]
                editor.apply_spec(spec)
                editor.set_value(new_values[spec.name])
                label = self._form.labelForField(editor)
                if isinstance(label, QLabel):
                    label.setText(spec.display_name)
            self._show_overrides()
            return
        self._rebuild(new_values)
        self._show_overrides()

    @property
    def continuing(self) -> bool:
        """Whether the last change continues a slider drag that already changed the value (one undo step)."""
        return self._continuing

    @property
    def variants(self) -> VariantState:
        return self._variants

    def set_variants_available(self, available: bool) -> None:
        """Variants belong to a saved material; a read-only module has none."""
        self.variant_bar.setVisible(available)

    def set_variants(self, state: VariantState) -> None:
        """Show the variant names, the active one and which parameters it overrides."""
        self._variants = state
        self.variant_box.blockSignals(True)
        self.variant_box.clear()
        self.variant_box.addItem("Base (the parameter nodes' values)", None)
        for name in state.names:
            self.variant_box.addItem(name, name)
        self.variant_box.setCurrentIndex(state.names.index(state.active) + 1 if state.active in state.names else 0)
        self.variant_box.blockSignals(False)
        for widget in (self.remove_variant_button, self.rename_variant_button, self.rename_variant_action,
                       self.remove_variant_action):
            widget.setEnabled(state.active is not None)
        self._show_overrides()

    def _request_rename(self) -> None:
        if self._variants.active is not None:
            self.variantRenameRequested.emit(self._variants.active)

    def _variant_chosen(self, index: int) -> None:
        name = self.variant_box.itemData(index)
        if name != self._variants.active:
            self.variantActivated.emit(name)

    def _show_overrides(self) -> None:
        if not hasattr(self, "_form"):
            return
        for spec in self._specs:
            editor = self._editors.get(spec.name)
            label = self._form.labelForField(editor) if editor is not None else None
            if not isinstance(label, QLabel):
                continue
            overridden = spec.name in self._variants.overridden
            font = label.font()
            font.setBold(overridden)
            label.setFont(font)
            label.setToolTip(f"Set in variant \u201c{html.escape(str(self._variants.active), quote=False)}\u201d (right-click to reset to the base value)"
                             if overridden else "")

    def set_value(self, name: str, value: Any) -> None:
        """Show `value` for `name` without emitting (the host changed it)."""
        editor = self._editors.get(name)
        if editor is not None and editor.value() != value:
            editor.set_value(value)

    # ---- internals ------------------------------------------------------------------------

    def _rebuild(self, values: Mapping[str, Any] | None = None) -> None:
        container = QWidget()
        self._form = QFormLayout(container)
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._editors = {}
        if not self._specs:
            empty = QLabel("This material has no parameters.")
            empty.setEnabled(False)
            self._form.addRow(empty)
        for spec in self._specs:
            editor = self._make_editor(spec, (values or {}).get(spec.name))
            editor.setObjectName(f"parameter:{spec.name}")
            self._editors[spec.name] = editor
            label = QLabel(spec.display_name)
            label.setTextFormat(Qt.TextFormat.PlainText)  # a parameter name is the user's text, never markup
            label.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            label.customContextMenuRequested.connect(lambda _position, name=spec.name: self._offer_reset(name))
            self._form.addRow(label, editor)
        self._scroll.setWidget(container)  # deletes the previous container and its editors
        self._scroll.setMinimumHeight(rows_height(self._form, MIN_VISIBLE_ROWS))

    def _make_editor(self, spec: ParameterSpec, value: Any) -> _ParameterEditor:
        name = spec.name
        if spec.kind is ParameterKind.FLOAT:
            editor = _FloatEditor(spec, value, lambda v: self._emit(name, v))
            editor.slider.sliderReleased.connect(self.gestureEnded)
            return editor
        if spec.kind is ParameterKind.VECTOR:
            return _VectorEditor(spec, value, lambda v: self._emit(name, v))
        if spec.kind is ParameterKind.COLOR:
            return _ColorEditor(spec, value, lambda v: self._emit(name, v), lambda *a: type(self).pick_color(*a))
        if spec.kind is ParameterKind.TEXTURE:
            return _TextureEditor(spec, value, lambda v: self._emit_texture(name, v), lambda *a: type(self).pick_image(*a))
        return _ReadOnlyEditor(spec)

    def _offer_reset(self, name: str) -> None:
        if name not in self._variants.overridden:
            return
        menu = QMenu(self)
        menu.addAction(f"Reset to the base value ({self._variants.active} stops setting it)",
                       lambda: self.parameterResetRequested.emit(name))
        menu.exec(QCursor.pos())

    def _request_variant_removal(self) -> None:
        if self._variants.active:
            self.variantRemoveRequested.emit(self._variants.active)

    def _emit(self, name: str, value: Any) -> None:
        editor = self._editors.get(name)
        self._continuing = isinstance(editor, _FloatEditor) and editor.continuing
        self.parameterChanged.emit(name, value)

    def _emit_texture(self, name: str, path: str | None) -> None:
        self._continuing = False
        self.textureChanged.emit(name, path)


def _shape(spec: ParameterSpec) -> tuple[str, ParameterKind, str]:
    # Types compare by string here: a recompiled record type is a new object with the same text.
    return (spec.name, spec.kind, str(spec.type))
