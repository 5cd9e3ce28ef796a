"""Dragging a node with the mouse leaves nothing behind on screen (no ghost ports at its old places).

Driven by real mouse events (QTest) on the real NodeGraphQt viewer; what the X server shows (the
backing store as flushed) is compared with a fresh render of the viewport after the drag.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication


def _array(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 3].reshape(
        image.height(), image.width(), 3).astype(int)


def test_dragging_a_node_leaves_no_ghost_ports(window, qtbot, tmp_path: Path) -> None:
    viewer = window.graph.viewer()
    viewport = viewer.viewport()
    node = window.graph.node_by_stable_id("n7")  # the Fresnel: three input ports on its left edge
    rect = node.view.sceneBoundingRect()
    start = viewer.mapFromScene(rect.center().x(), rect.top() + 8)  # its title
    qtbot.mouseMove(viewport, start)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 16):
        qtbot.mouseMove(viewport, start + QPoint(step * 12, step * 5))
        qtbot.wait(16)  # one frame per step, as a hand drags
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(180, 75))
    assert node.view.sceneBoundingRect().topLeft() != rect.topLeft()
    QApplication.processEvents()

    # The part of the viewport on the (virtual) screen, as shown, against a fresh render.
    origin = viewport.mapToGlobal(QPoint(0, 0))
    area = QRect(origin, viewport.size()).intersected(viewport.screen().geometry())
    assert area.width() > 200 and area.height() > 200
    shown = viewport.screen().grabWindow(0, area.x(), area.y(), area.width(), area.height())
    fresh = viewport.grab(QRect(area.topLeft() - origin, area.size()))
    shown.save(str(tmp_path / "shown.png"))
    fresh.save(str(tmp_path / "fresh.png"))
    difference = np.abs(_array(shown.toImage()) - _array(fresh.toImage())).max(axis=2)
    ys, xs = np.nonzero(difference > 40)  # the screen is 16-bit: small differences are quantization
    assert len(xs) == 0, f"{len(xs)} pixels left behind around ({xs.mean():.0f}, {ys.mean():.0f}); see {tmp_path}"
