"""The Texture View dock: one node's output as a 2D texture, to be inspected texel by texel.

`TextureView` follows the graph's selection: the selected node's output is
drawn over the UV square (`app.preview.texture_view`, on a worker thread of
its own, never the window's) at the chosen resolution and shown in a
`TextureCanvas`. It is drawn again after every edit that changes the node's
value (a value, a parameter, an image, the graph upstream of it): its
fingerprint (`node_previews.fingerprints`) says when. Zoom and pan are kept
across redraws of the same resolution. While the preview plays, a node that
reads the time is drawn again (`ANIMATION_INTERVAL_MS`).

The canvas: the wheel zooms around the cursor (texels magnified
nearest-neighbour, so each is a square; below one pixel a texel filtered), the left or middle button drags
the view, Fit shows the whole tile, 1:1 one screen pixel per texel; Tile
shows the texture repeated 3 x 3 with the unit tile outlined; the channel
menu shows the colour (RGB), the colour over a checkerboard by its alpha
(RGBA), or one channel as grey (R, G, B, A). Under the cursor the status
line reads the texel: its pixel and UV, its linear value and its display
value (sRGB 0-255 and hex, as the editor writes colours).

Opened from View > Texture View, a node's menu ("View Texture") or a
double click on a node's thumbnail.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QApplication, QComboBox, QDockWidget, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.material.node_previews import animated, fingerprints, preview_port, structure_key, upstream_reads
from app.material.propagation import propagate
from app.material.scene import RADIANCE_OUTPUT_NAME
from app.preview.texture_view import (
    DEFAULT_SIZE,
    SIZES,
    Readout,
    TextureImage,
    TextureViewJob,
    TextureViewService,
    readout_at,
)
from app.preview.thumbnails import wait_until
from app.preview.widget import PreviewWidget

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

#: What the canvas shows of the texels (the channel menu, in its order).
CHANNELS = ("RGB", "RGBA", "R", "G", "B", "A")
#: Zoom limits, in screen pixels per texel.
MIN_SCALE = 1.0 / 32.0
MAX_SCALE = 128.0
#: One wheel notch (120 eighths of a degree) zooms by this factor.
WHEEL_STEP = 1.25
#: From this many screen pixels a texel, the texel under the cursor is outlined.
HOVER_SCALE = 8.0
#: Side of a checkerboard square, in screen pixels.
CHECKER = 8
TILE_OUTLINE = QColor(255, 196, 64)
#: While the preview plays, a node whose value changes with time is drawn again at most this often (and only
#: when the worker is idle: a slow machine draws fewer frames, it never queues them).
ANIMATION_INTERVAL_MS = 250
#: The dock's width the first time a node is opened in it (at most a third of the window).
OPEN_WIDTH = 520
#: How long closing the window waits for the worker (as the thumbnails' worker).
CLOSE_WAIT_MS = 100


def channel_image(display: np.ndarray, channel: str) -> QImage:
    """The QImage the canvas paints for `channel` of display pixels (uint8 RGBA, top row first)."""
    height, width = display.shape[:2]
    if channel == "RGBA":
        pixels = np.ascontiguousarray(display)
    elif channel == "RGB":
        pixels = display.copy()
        pixels[..., 3] = 255
    else:
        grey = display[..., "RGBA".index(channel)]
        pixels = np.empty_like(display)
        pixels[..., 0] = pixels[..., 1] = pixels[..., 2] = grey
        pixels[..., 3] = 255
    return QImage(pixels.data, width, height, width * 4, QImage.Format.Format_RGBA8888).copy()


def _checker() -> QPixmap:
    pixmap = QPixmap(2 * CHECKER, 2 * CHECKER)
    pixmap.fill(QColor(200, 200, 200))
    painter = QPainter(pixmap)
    painter.fillRect(0, 0, CHECKER, CHECKER, QColor(130, 130, 130))
    painter.fillRect(CHECKER, CHECKER, CHECKER, CHECKER, QColor(130, 130, 130))
    painter.end()
    return pixmap


class TextureCanvas(QWidget):
    """Paints a texture with zoom, pan, tiling and channel isolation; reports the texel under the cursor."""

    #: The readout under the cursor (a `Readout`), or None when the cursor is off the texture.
    hovered = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("textureCanvas")
        self.setMouseTracking(True)
        self.setMinimumSize(160, 160)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.linear: np.ndarray | None = None
        self.display: np.ndarray | None = None
        self.channel = "RGB"
        self.tiled = False
        #: Screen pixels per texel, and the widget position of the unit tile's top-left corner.
        self.scale = 1.0
        self.offset = QPointF(0.0, 0.0)
        self.message = "Select a node to view its texture"
        self.image = QImage()
        self._fitted = False
        self._drag: QPointF | None = None
        self._checker = QBrush(_checker())
        #: The texel under the cursor (unwrapped texel coordinates of its corner), outlined once texels are large.
        self.hover: tuple[int, int] | None = None
        self._cursor: QPointF | None = None

    # ---- content ----------------------------------------------------------------------------

    @property
    def texels(self) -> int:
        """The image's side in texels (0: no image)."""
        return 0 if self.linear is None else int(self.linear.shape[1])

    def set_image(self, linear: np.ndarray, display: np.ndarray) -> None:
        """Show a new image; zoom and pan stay unless its size changed (then it is fitted)."""
        resized = linear.shape[:2] != (self.linear.shape[:2] if self.linear is not None else None)
        self.linear, self.display = linear, display
        self.message = ""
        self.image = channel_image(display, self.channel)
        if resized or not self._fitted:
            self.fit()
        self.update()
        if self._cursor is not None:  # the value under a cursor that stays put changed with the image
            self._hover(self._cursor)

    def set_message(self, text: str) -> None:
        """Show `text` instead of an image (nothing to view, or why it cannot be drawn)."""
        self.linear = self.display = None
        self.image = QImage()
        self.hover = None
        self.message = text
        self.update()

    def set_channel(self, channel: str) -> None:
        if channel not in CHANNELS:
            raise ValueError(f"unknown channel {channel!r}; expected one of {', '.join(CHANNELS)}")
        self.channel = channel
        if self.display is not None:
            self.image = channel_image(self.display, channel)
        self.update()

    def set_tiled(self, tiled: bool) -> None:
        self.tiled = bool(tiled)
        self.update()

    # ---- the view ---------------------------------------------------------------------------

    def texel_at(self, position: QPointF) -> tuple[float, float]:
        """Texel coordinates (column, row from the top of the unit tile, unwrapped) of a widget position."""
        return ((position.x() - self.offset.x()) / self.scale, (position.y() - self.offset.y()) / self.scale)

    def widget_at(self, column: float, row: float) -> QPointF:
        """The widget position of texel coordinates (the inverse of `texel_at`)."""
        return QPointF(self.offset.x() + column * self.scale, self.offset.y() + row * self.scale)

    def pixel_at(self, position: QPointF) -> tuple[int, int] | None:
        """The texel under a widget position (wrapped into the tile when tiled); None off the texture."""
        side = self.texels
        if side == 0:
            return None
        column, row = self.texel_at(position)
        x, y = math.floor(column), math.floor(row)
        if self.tiled and -side <= x < 2 * side and -side <= y < 2 * side:
            return x % side, y % side
        if 0 <= x < side and 0 <= y < side:
            return x, y
        return None

    def readout(self, position: QPointF) -> Readout | None:
        pixel = self.pixel_at(position)
        if pixel is None or self.linear is None:
            return None
        return readout_at(self.linear, *pixel)

    def zoom_at(self, position: QPointF, factor: float) -> None:
        """Zoom by `factor` keeping the texture point under `position` where it is."""
        column, row = self.texel_at(position)
        self.scale = min(MAX_SCALE, max(MIN_SCALE, self.scale * factor))
        self.offset = QPointF(position.x() - column * self.scale, position.y() - row * self.scale)
        self.update()

    def fit(self) -> None:
        """The whole unit tile in view, centred (with the tiles around it when tiled)."""
        self._fitted = True
        side = self.texels or DEFAULT_SIZE
        self.scale = min(MAX_SCALE, max(MIN_SCALE, 0.94 * min(self.width(), self.height()) / side))
        self._centre(side / 2.0, side / 2.0)

    def one_to_one(self) -> None:
        """One screen pixel per texel, the texel at the centre of the view staying there."""
        centre = QPointF(self.width() / 2.0, self.height() / 2.0)
        self.zoom_at(centre, 1.0 / self.scale)

    def _centre(self, column: float, row: float) -> None:
        self.offset = QPointF(self.width() / 2.0 - column * self.scale, self.height() / 2.0 - row * self.scale)
        self.update()

    # ---- events -----------------------------------------------------------------------------

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_at(event.position(), WHEEL_STEP ** steps)
            self._hover(event.position())
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
            self._drag = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._drag is not None:
            delta = event.position() - self._drag
            self._drag = event.position()
            self.offset = self.offset + delta
            self.update()
        self._hover(event.position())
        event.accept()

    def _hover(self, position: QPointF) -> None:
        self._cursor = position
        readout = self.readout(position)
        column, row = self.texel_at(position)
        hover = (math.floor(column), math.floor(row)) if readout is not None else None
        if hover != self.hover:
            self.hover = hover
            if self.scale >= HOVER_SCALE:
                self.update()
        self.hovered.emit(readout)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._drag is not None:
            self._drag = None
            self.unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def leaveEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        self.hover = self._cursor = None
        self.update()
        self.hovered.emit(None)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        old = event.oldSize()
        if not self._fitted or old.width() <= 0:
            if self.linear is not None:
                self.fit()
            return
        # Keep the texel at the centre where it is.
        shift = QPointF((self.width() - old.width()) / 2.0, (self.height() - old.height()) / 2.0)
        self.offset = self.offset + shift

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), QColor(38, 38, 38))
            if self.image.isNull():
                painter.setPen(QColor(170, 170, 170))
                painter.drawText(QRectF(self.rect()).adjusted(12, 12, -12, -12),
                                 Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.message)
                return
            # Magnified, texels stay squares (nearest); minified, they are filtered so stripes do not alias.
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, self.scale < 1.0)
            side = self.texels
            span = side * self.scale
            view = QRectF(self.rect())
            tiles = [(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)] if self.tiled else [(0, 0)]
            for i, j in tiles:
                tile = QRectF(self.offset.x() + i * span, self.offset.y() + j * span, span, span)
                visible = tile.intersected(view)
                if visible.isEmpty():
                    continue
                # Only the texels in view are drawn (at 128 pixels a texel a whole tile is far larger than the view).
                x0 = max(0, math.floor((visible.left() - tile.left()) / self.scale))
                y0 = max(0, math.floor((visible.top() - tile.top()) / self.scale))
                x1 = min(side, math.ceil((visible.right() - tile.left()) / self.scale))
                y1 = min(side, math.ceil((visible.bottom() - tile.top()) / self.scale))
                if x1 <= x0 or y1 <= y0:
                    continue
                target = QRectF(tile.left() + x0 * self.scale, tile.top() + y0 * self.scale,
                                (x1 - x0) * self.scale, (y1 - y0) * self.scale)
                if self.channel == "RGBA":
                    painter.fillRect(target, self._checker)
                painter.drawImage(target, self.image, QRectF(x0, y0, x1 - x0, y1 - y0))
            unit = QRectF(self.offset.x(), self.offset.y(), span, span)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            pen = QPen(TILE_OUTLINE if self.tiled else QColor(90, 90, 90), 1.0)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.drawRect(unit.adjusted(-0.5, -0.5, 0.5, 0.5))
            if self.hover is not None and self.scale >= HOVER_SCALE:
                pen = QPen(QColor(255, 255, 255), 1.0)
                pen.setCosmetic(True)
                painter.setPen(pen)
                corner = self.widget_at(*self.hover)
                painter.drawRect(QRectF(corner.x(), corner.y(), self.scale, self.scale))
        finally:
            painter.end()


class TextureViewPanel(QWidget):
    """The dock's widget: a tool row (node, fit, 1:1, tile, channel, resolution), the canvas, the readout."""

    sizeChosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("textureViewPanel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        row = QHBoxLayout()
        row.setSpacing(4)
        self.node_label = QLabel("—", self)
        self.node_label.setObjectName("textureViewNode")
        row.addWidget(self.node_label, 1)
        self.canvas = TextureCanvas(self)
        self.fit_button = self._button("Fit", "Show the whole texture", self.canvas.fit)
        self.one_button = self._button("1:1", "One screen pixel per texel", self.canvas.one_to_one)
        self.tile_button = self._button("Tile", "Repeat the texture 3 x 3, the unit tile outlined", None)
        self.tile_button.setCheckable(True)
        self.tile_button.toggled.connect(self.canvas.set_tiled)
        self.channel_box = QComboBox(self)
        self.channel_box.setObjectName("textureViewChannel")
        self.channel_box.addItems(list(CHANNELS))
        self.channel_box.setToolTip("The channels shown: colour, colour over a checkerboard by alpha, or one as grey")
        self.channel_box.currentTextChanged.connect(self.canvas.set_channel)
        self.size_box = QComboBox(self)
        self.size_box.setObjectName("textureViewSize")
        for size in SIZES:
            self.size_box.addItem(f"{size}\u00b2", size)
        self.size_box.setCurrentIndex(SIZES.index(DEFAULT_SIZE))
        self.size_box.setToolTip("The resolution the texture is drawn at")
        self.size_box.currentIndexChanged.connect(lambda index: self.sizeChosen.emit(int(self.size_box.itemData(index))))
        for widget in (self.fit_button, self.one_button, self.tile_button, self.channel_box, self.size_box):
            row.addWidget(widget)
        layout.addLayout(row)
        layout.addWidget(self.canvas, 1)
        self.readout_label = QLabel("", self)
        self.readout_label.setObjectName("textureViewReadout")
        self.readout_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.readout_label.font()
        font.setStyleHint(font.StyleHint.Monospace)
        font.setFamily("monospace")
        self.readout_label.setFont(font)
        # Three lines, always: the canvas above never changes size as the cursor comes and goes.
        self.readout_label.setFixedHeight(self.readout_label.fontMetrics().lineSpacing() * 3 + 4)
        self.readout_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.readout_label)
        self.canvas.hovered.connect(self._show_readout)

    def _button(self, text: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        if callable(slot):
            button.clicked.connect(lambda _checked=False: slot())
        return button

    def _show_readout(self, readout: Readout | None) -> None:
        self.readout_label.setText(readout.text() if readout is not None else "")


class TextureView(QObject):
    """The dock, its worker and what it shows (module docstring)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.editor = window.graph_editor
        self.panel = TextureViewPanel(window)
        self.canvas = self.panel.canvas
        self.dock = QDockWidget("Texture View", window)
        self.dock.setObjectName("textureViewDock")
        self.dock.setWidget(self.panel)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        window.splitDockWidget(window.palette_dock, self.dock, Qt.Orientation.Vertical)
        self.dock.hide()
        self.available = isinstance(window.preview, PreviewWidget)
        self.service: TextureViewService | None = None
        #: The node shown (a stable id of the level the view shows), and the size drawn at.
        self.node_id: str | None = None
        self.size = DEFAULT_SIZE
        #: What the image shows (node, fingerprint, size) and what was last asked for.
        self.shown_key: tuple[str, str, int] | None = None
        self._requested_key: tuple[str, str, int] | None = None
        self._generation = 0
        self._opened = False
        self.images = 0
        self.problem = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        self.action = self.dock.toggleViewAction()
        self.action.setText("&Texture View")
        self.action.setStatusTip("A 2D view of the selected node's output: zoom, pan, tiling, channels, texel values")
        self.dock.visibilityChanged.connect(lambda visible: self.schedule() if visible else None)
        self.panel.sizeChosen.connect(self.set_size)
        window.graph.scene().selectionChanged.connect(self.follow_selection)
        self.session.lowered.connect(lambda _result: self.schedule())
        self.session.parameters.value_changed.connect(lambda _change: self.schedule())
        self.session.textures.changed.connect(lambda _images: self.schedule())
        self.session.document_changed.connect(lambda _document: self.show_node(None))
        self.editor.levelChanged.connect(lambda _path: self.show_node(None))
        window.graph.viewer().thumbnail_handler = self._open_from_view
        self._animation = QTimer(self)
        self._animation.setInterval(ANIMATION_INTERVAL_MS)
        self._animation.timeout.connect(self._animate)
        window.preview.playingChanged.connect(self._follow_playing)
        self.dock.visibilityChanged.connect(lambda _visible: self._follow_playing(bool(getattr(window.preview, "playing", False))))

    # ---- what is shown ----------------------------------------------------------------------

    def viewable(self, node_id: str) -> bool:
        """The node has an output the view can draw (at the level the graph shows)."""
        graph = self.window.thumbnails.graph()
        return node_id in graph.nodes and preview_port(graph, node_id, propagate(graph).port_types) is not None

    def open_node(self, node_id: str) -> None:
        """Show the dock with `node_id`'s output (a thumbnail's double click, the node menu)."""
        first = not self._opened
        self._opened = True
        self.dock.show()
        self.dock.raise_()
        if first and not self.dock.isFloating():
            # The palette's column is narrow: the first time, the view gets room to show texels (later the user's sizes stay).
            window = self.window
            window.resizeDocks([self.dock], [max(self.dock.width(), min(OPEN_WIDTH, window.width() // 3))],
                               Qt.Orientation.Horizontal)
            window.resizeDocks([window.palette_dock, self.dock], [window.height() * 2 // 5, window.height() * 3 // 5],
                               Qt.Orientation.Vertical)
        self.show_node(node_id)

    def _open_from_view(self, view_id: str) -> bool:
        node = self.window.graph.get_node_by_id(view_id)
        stable_id = getattr(node, "stable_id", None)
        if not isinstance(stable_id, str) or not self.viewable(stable_id):
            return False
        self.open_node(stable_id)
        return True

    def show_node(self, node_id: str | None) -> None:
        if node_id != self.node_id:
            self.node_id = node_id
            self.shown_key = self._requested_key = None
            label = self.window.graph_editor.annotations.node_label(node_id) if node_id is not None else "—"
            self.panel.node_label.setText(label)
            if node_id is None:
                self.canvas.set_message("Select a node to view its texture")
        self.schedule()

    def follow_selection(self) -> None:
        """The selected node with a value becomes the one shown; a selection without one keeps it."""
        if self.window.read_only:
            return
        for node in self.editor.selected_material_nodes():
            if self.viewable(node.stable_id):
                self.show_node(node.stable_id)
                return

    def set_size(self, size: int) -> None:
        if size not in SIZES:
            raise ValueError(f"the texture view draws at {', '.join(map(str, SIZES))} texels, not {size}")
        self.size = size
        index = SIZES.index(size)
        if self.panel.size_box.currentIndex() != index:
            self.panel.size_box.setCurrentIndex(index)
        self.schedule()

    # ---- drawing ----------------------------------------------------------------------------

    def schedule(self) -> None:
        """Draw after the current event-loop turn (many changes in one turn ask once)."""
        self._timer.start()

    def refresh(self, force: bool = False) -> bool:
        """Ask the worker for the shown node's image when it is out of date (or `force`); False when nothing was asked."""
        self._timer.stop()
        node_id = self.node_id
        if node_id is None or not self.dock.isVisible() or self.window.read_only:
            return False
        if not self.available:
            self.canvas.set_message("The texture view needs the OpenGL preview")
            return False
        graph = self.window.thumbnails.graph()
        if node_id not in graph.nodes:
            self.show_node(None)
            return False
        values, textures, extras = self.window.thumbnails.values_and_images(graph)
        key = (node_id, fingerprints(graph, extras).get(node_id, ""), self.size)
        if not force and key in (self.shown_key, self._requested_key):
            return False
        self._generation += 1
        self._requested_key = key
        job = TextureViewJob(self._generation, graph.copy(), node_id,
                             f"{node_id}:{structure_key(graph, RADIANCE_OUTPUT_NAME)}", self.size, values, textures,
                             float(self.window.preview.time), self.window.graph_editor.annotations.node_label(node_id))
        self._service().submit(job)
        return True

    def _service(self) -> TextureViewService:
        if self.service is None:
            service = TextureViewService(self.window.preview.profile, self)
            service.rendered.connect(self._on_rendered)
            service.failed.connect(self._on_failed)
            self.service = service
        return self.service

    def _on_rendered(self, image: TextureImage) -> None:
        if image.generation != self._generation and not (image.generation == 0 and image.problem):
            return  # an older request's (an error is delivered only while it is the newest job's)
        self.images += 1
        self.shown_key = self._requested_key
        self.problem = image.problem
        if image.linear is None or image.display is None:
            self.canvas.set_message(image.problem or "nothing to show")
            return
        self.canvas.set_image(image.linear, image.display)

    def _on_failed(self, reason: str) -> None:
        self.problem = reason
        self.available = False
        self.canvas.set_message(f"The texture view cannot draw: {reason}")

    # ---- animation ------------------------------------------------------------------------

    def animated(self) -> bool:
        """The shown node's value changes with time (its sub-graph reads the time)."""
        node_id, program = self.node_id, self.window.thumbnails.program
        if node_id is None:
            return False
        if program is not None and program.selector(node_id) is not None:
            return node_id in program.animated
        result, graph = self.session.result, self.window.thumbnails.graph()
        if result is None or graph is not self.session.graph:
            return False
        return animated(upstream_reads(graph, result.reads, [node_id]).get(node_id, frozenset()))

    def _follow_playing(self, playing: bool) -> None:
        if playing and self.dock.isVisible():
            if not self._animation.isActive():
                self._animation.start()
        else:
            self._animation.stop()

    def _animate(self) -> None:
        if not self.dock.isVisible() or not getattr(self.window.preview, "playing", False):
            self._animation.stop()
            return
        if self.animated() and not (self.service is not None and self.service.busy):
            self.refresh(force=True)  # a new frame of the same node: the worker draws it at the preview's time

    def shutdown(self) -> None:
        self._animation.stop()
        self._timer.stop()
        if self.service is not None:
            self.service.stop(CLOSE_WAIT_MS)

    # ---- tests and tools --------------------------------------------------------------------

    def wait(self, timeout_seconds: float = 60.0) -> bool:
        """Process events until the image asked for has arrived (True) or the timeout (False)."""
        application = QApplication.instance()

        def settled() -> bool:
            if self._timer.isActive():
                return False
            service = self.service
            return service is None or (not service.busy and self._requested_key == self.shown_key)

        return wait_until(settled, application.processEvents, timeout_seconds)


