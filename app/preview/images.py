"""Image files to numpy RGBA arrays with Qt's image readers (the widget layer's job).

The renderer takes plain arrays (`app.material.textures`); reading files
needs QtGui (a QGuiApplication is not required for QImageReader).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage, QImageReader


class ImageLoadError(Exception):
    pass


def load_image_rgba(path: str) -> np.ndarray:
    """The image at `path` as uint8 (height, width, 4), top row first; raises ImageLoadError."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    image = reader.read()
    if image.isNull():
        raise ImageLoadError(f"{path}: {reader.errorString()}")
    return qimage_to_rgba(image)


def qimage_to_rgba(image: QImage) -> np.ndarray:
    converted = image.convertToFormat(QImage.Format.Format_RGBA8888)
    width, height = converted.width(), converted.height()
    row_bytes = converted.bytesPerLine()
    data = np.frombuffer(converted.constBits(), dtype=np.uint8, count=row_bytes * height)
    # Copy: `data` views the QImage's memory, which dies with `converted`.
    return data.reshape(height, row_bytes)[:, : width * 4].reshape(height, width, 4).copy()


def rgba_to_qimage(pixels: np.ndarray) -> QImage:
    """A deep-copied QImage (RGBA8888) of a (height, width, 4) uint8 array, top row first."""
    array = np.ascontiguousarray(pixels, dtype=np.uint8)
    height, width = array.shape[:2]
    image = QImage(array.data, width, height, width * 4, QImage.Format.Format_RGBA8888)
    return image.copy()  # detach from the numpy buffer, which may be freed
