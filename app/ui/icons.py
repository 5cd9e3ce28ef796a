"""The application icon, read from the package data (`app/icons`, a link to `resources/icons`).

`resources/icons/vpl-editor.svg` is the master; `tools/make_icons.py`
renders it into the PNG sizes (and the Windows .ico and macOS .icns the
bundles use). The window icon is built from the PNGs, so it needs no SVG
image plugin.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PySide6.QtGui import QIcon, QPixmap

ICON_PACKAGE = "app"
ICON_DIRECTORY = "icons"
ICON_NAME = "vpl-editor"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def _icon_bytes(file_name: str) -> bytes | None:
    entry = resources.files(ICON_PACKAGE).joinpath(ICON_DIRECTORY).joinpath(file_name)
    try:
        return entry.read_bytes()
    except OSError:
        return None


@lru_cache(maxsize=1)
def application_icon() -> QIcon:
    """The editor's icon at every shipped size (an empty QIcon only if the package data is missing)."""
    icon = QIcon()
    for size in PNG_SIZES:
        data = _icon_bytes(f"{ICON_NAME}-{size}.png")
        pixmap = QPixmap()
        if data is not None and pixmap.loadFromData(data):  # the format (PNG) is read from the data
            icon.addPixmap(pixmap)
    return icon
