"""Sizes of the window's docks, and the window's image as the user sees it (screenshots)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QDockWidget

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


def size_docks(window: MainWindow) -> None:
    """The docks' first sizes, from the window's (they only stick once the window has its real size)."""
    width, height = window.width(), window.height()
    horizontal, vertical = Qt.Orientation.Horizontal, Qt.Orientation.Vertical
    window.resizeDocks([window.palette_dock], [max(window.node_palette.preferred_width(), width // 8)], horizontal)
    window.resizeDocks([window.preview_dock], [max(320, width // 4)], horizontal)
    # Material parameters as tall as its rows ask (`MIN_VISIBLE_ROWS` of them at least), Node properties a
    # quarter of the height at least (a node's rows; more when its panel asks), the preview the rest.
    parameters = window.parameters_dock.sizeHint().height()
    properties = max(height // 4, window.properties_dock.minimumSizeHint().height())
    window.resizeDocks([window.preview_dock, window.parameters_dock, window.properties_dock],
                       [max(260, height - parameters - properties), parameters, properties], vertical)
    window.resizeDocks([window.diagnostics_dock], [max(180, height // 4)], vertical)
    window.resizeDocks([window.diagnostics_dock, window.code_dock], [width * 3 // 10, width * 7 // 10], horizontal)


def fit_dock(window: MainWindow, dock: QDockWidget) -> None:
    """Make `dock` at least as tall as its content asks (a node with more rows was selected): the
    dock layout keeps its separators when a minimum grows, so the content would be cut off."""
    needed = dock.minimumSizeHint().height()
    if dock.isVisible() and not dock.isFloating() and dock.height() < needed:
        window.resizeDocks([dock], [needed], Qt.Orientation.Vertical)


def grab_window(window: MainWindow) -> QPixmap:
    """The window as the user sees it: `QWidget.grab` misses what the preview paints over its GL
    image (the error overlay), so the preview's shown frame is drawn over its place."""
    image = window.grab()
    preview = window.preview
    frame = preview.grab_shown_frame() if preview.isVisible() else None
    if frame is not None and not frame.isNull():
        painter = QPainter(image)
        painter.drawImage(QRect(preview.mapTo(window, preview.rect().topLeft()), preview.size()), frame)
        painter.end()
    return image
