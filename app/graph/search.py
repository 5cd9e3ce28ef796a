"""Node search: the popup behind Tab, the graph's "Add Node…" menu entry and wires dropped in empty space.

It lists node types by display name ("Gradient Noise", never
`gradient_noise`) with their category, and matches what an artist types
against the display name, the category, the internal type name and a
table of synonyms (lerp -> Mix, ramp -> Color Ramp, perlin -> Gradient
Noise, ...). Ranking (`rank`): an exact display name, then a display name
that starts with the query, then a word of it that does, then a synonym,
then a substring anywhere; ties keep catalog order. Up/Down move the
selection, Enter or a click chooses (`chosen(type_name)`), Escape closes.

`allowed`, when given, limits the list to the node types that can take
a pending wire (the editor passes the types with a compatible port).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication, QHideEvent, QKeyEvent
from PySide6.QtWidgets import QFrame, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from app.graph.rich_text import plain_tooltip

TYPE_NAME_ROLE = Qt.ItemDataRole.UserRole + 1
MAXIMUM_ROWS = 14

#: What artists call a node in other tools -> our type names.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "lerp": ("mix",),
    "interpolate": ("mix",),
    "blend": ("blend", "mix", "mix_color"),
    "ramp": ("color_ramp",),
    "gradient": ("color_ramp", "linear_gradient", "radial_gradient", "gradient_noise"),
    "colorramp": ("color_ramp",),
    "valtorgb": ("color_ramp",),
    "perlin": ("gradient_noise", "gradient_noise_3d"),
    "worley": ("voronoi", "voronoi_3d"),
    "cellular": ("voronoi", "voronoi_3d"),
    "cells": ("voronoi", "voronoi_3d"),
    "fbm": ("fractal_noise", "fractal_noise_3d"),
    "musgrave": ("fractal_noise", "fractal_noise_3d"),
    "turbulence": ("fractal_noise", "fractal_noise_3d"),
    "ridged": ("fractal_noise", "fractal_noise_3d"),
    "random": ("white_noise", "white_noise_3d"),
    "hash": ("white_noise", "white_noise_3d"),
    "warp": ("domain_warp", "domain_warp_3d"),
    "uv": ("texcoord", "transform_uv", "rotate_uv", "tiling_offset"),
    "texcoord": ("texcoord",),
    "tiling": ("tiling_offset", "transform_uv"),
    "saturate": ("saturate",),
    "clamp01": ("saturate",),
    "invert": ("one_minus", "invert"),
    "oneminus": ("one_minus",),
    "hsv": ("hsv_adjust", "rgb_to_hsv", "hsv_to_rgb"),
    "hue": ("hue_shift", "hsv_adjust"),
    "saturation": ("hsv_adjust", "desaturate"),
    "grayscale": ("desaturate",),
    "greyscale": ("desaturate",),
    "contrast": ("brightness_contrast", "levels"),
    "curves": ("levels", "gamma", "color_ramp"),
    "lut": ("color_ramp",),
    "overlay": ("blend",),
    "screen": ("blend", "screen_position"),
    "multiply": ("multiply", "blend"),
    "dot": ("dot", "reroute"),
    "knot": ("reroute",),
    "redirect": ("reroute",),
    "triplanar": ("triplanar_texture", "triplanar_coordinates", "triplanar_blend"),
    "boxmap": ("triplanar_texture",),
    "append": ("compose",),
    "combine": ("compose",),
    "mask": ("split", "swizzle", "color_mask"),
    "separate": ("split",),
    "frac": ("fract",),
    "pingpong": ("ping_pong",),
    "sawtooth": ("fract", "wrap"),
    "quantize": ("snap", "posterize"),
    "step": ("step", "snap"),
    "rsqrt": ("inverse_sqrt",),
    "rcp": ("reciprocal",),
    "arctan": ("atan", "atan2"),
    "ddx": ("ddx",),
    "derivative": ("ddx", "ddy", "fwidth"),
    "fresnel": ("fresnel",),
    "rim": ("fresnel",),
    "if": ("if", "select"),
    "branch": ("if", "select"),
    "tile": ("bricks", "hexagons", "tiling_offset"),
    "brick": ("bricks",),
    "hex": ("hexagons",),
    "circle": ("ellipse",),
    "disc": ("ellipse",),
    "square": ("rectangle",),
    "spritesheet": ("flipbook",),
    "sprite": ("flipbook",),
    "polar": ("polar_coordinates",),
    "radial": ("radial_gradient", "polar_coordinates"),
    "objectspace": ("object_position", "object_normal", "transform_vector"),
    "space": ("transform_vector",),
    "pi": ("math_constant",),
    "constant": ("constant_float", "math_constant"),
    "parallax": ("parallax_offset",),
    "depth": ("camera_distance", "parallax_offset"),
    "output": ("material_output",),
}


def _words(text: str) -> list[str]:
    return [word for word in text.lower().replace("-", " ").replace("_", " ").replace("/", " ").split() if word]


def rank(node_types: Sequence[Any], query: str, allowed: Iterable[str] | None = None) -> list[Any]:
    """The node types matching `query`, best first (see the module docstring); all of them for ''."""
    allowed_set = set(allowed) if allowed is not None else None
    candidates = [t for t in node_types if allowed_set is None or t.type_name in allowed_set]
    needle = query.strip().lower()
    if not needle:
        return candidates
    compact = needle.replace(" ", "")
    synonym_targets = [name for key, names in SYNONYMS.items() if key.startswith(compact) for name in names]
    scored: list[tuple[int, int, Any]] = []
    for order, node_type in enumerate(candidates):
        display = node_type.display_name.lower()
        score: int | None = None
        if display == needle:
            score = 0
        elif display.startswith(needle):
            score = 1
        elif any(word.startswith(needle) for word in _words(display)):
            score = 2
        elif node_type.type_name in synonym_targets:
            score = 3 + synonym_targets.index(node_type.type_name) * 0  # every synonym ranks alike
        elif needle in display or compact in node_type.type_name.replace("_", "") or needle in node_type.category.lower():
            score = 4
        elif needle in node_type.description.lower():
            score = 5
        if score is not None:
            scored.append((score, order, node_type))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [node_type for _, _, node_type in scored]


def on_screen(position: QPoint, size: QSize, area: QRect) -> QPoint:
    """Where a popup of `size` asked for at `position` goes so that it fits in `area` (moved left and up
    as little as needed: a wire dropped near the bottom of the screen still shows the whole list)."""
    x = max(area.left(), min(position.x(), area.right() + 1 - size.width()))
    y = max(area.top(), min(position.y(), area.bottom() + 1 - size.height()))
    return QPoint(x, y)


class NodeSearch(QFrame):
    """The search popup (a frameless popup at the cursor)."""

    chosen = Signal(str)

    def __init__(self, node_types: Sequence[Any], parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("nodeSearch")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._node_types = list(node_types)
        self._allowed: list[str] | None = None
        self.field = QLineEdit(self)
        self.field.setPlaceholderText("Search nodes…")
        self.field.setClearButtonEnabled(True)
        self.list = QListWidget(self)
        self.list.setUniformItemSizes(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.field)
        layout.addWidget(self.list)
        self.resize(300, 360)
        self.field.textChanged.connect(self._refresh)
        self.field.installEventFilter(self)
        self.list.itemActivated.connect(self._choose_item)
        self.list.itemClicked.connect(self._choose_item)
        self.on_closed: Callable[[], None] | None = None
        self._refresh("")

    # --- showing ---

    def popup(self, global_position: QPoint, allowed: Iterable[str] | None = None) -> None:
        """Show at a screen position, cleared, limited to `allowed` type names when given."""
        self._allowed = list(allowed) if allowed is not None else None
        self.field.clear()
        self._refresh("")
        self.move(on_screen(global_position, self.size(), self.screen_for(global_position)))
        self.show()
        self.raise_()
        self.activateWindow()
        self.field.setFocus()

    def screen_for(self, global_position: QPoint) -> QRect:
        """The free area of the screen at `global_position` (the popup's own screen off every screen)."""
        screen = QGuiApplication.screenAt(global_position) or self.screen()
        return screen.availableGeometry()

    def visible_type_names(self) -> list[str]:
        return [self.list.item(row).data(TYPE_NAME_ROLE) for row in range(self.list.count())]

    def _refresh(self, text: str) -> None:
        self.list.clear()
        for node_type in rank(self._node_types, text, self._allowed):
            item = QListWidgetItem(f"{node_type.display_name}    \u2014 {node_type.category}")
            item.setData(TYPE_NAME_ROLE, node_type.type_name)
            item.setToolTip(plain_tooltip(node_type.description))
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    # --- choosing ---

    def choose_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._choose_item(item)

    def _choose_item(self, item: QListWidgetItem) -> None:
        # Chosen first, then hidden: closing clears the editor's pending wire.
        type_name = item.data(TYPE_NAME_ROLE)
        if type_name:
            self.chosen.emit(type_name)
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if key == Qt.Key.Key_Down else -1
                row = min(max(self.list.currentRow() + step, 0), self.list.count() - 1)
                self.list.setCurrentRow(row)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.choose_current()
                return True
            if key == Qt.Key.Key_Escape:
                self.hide()
                return True
        return super().eventFilter(watched, event)

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt override
        super().hideEvent(event)
        if self.on_closed is not None:
            self.on_closed()
