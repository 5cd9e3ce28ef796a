#!/usr/bin/env python3
"""Render the application icon master (resources/icons/vpl-editor.svg) into PNG, ICO and ICNS.

Writes, into the output directory (default: resources/icons):

* `vpl-editor-<N>.png` for N in 16, 24, 32, 48, 64, 128, 256, 512: the SVG
  rendered by Qt's SVG renderer (antialiased, transparent background);
* `vpl-editor.ico` (Windows): an ICO container whose entries are those PNGs
  for 16, 24, 32, 48, 64, 128 and 256 px (PNG-compressed entries, read by
  Windows Vista and later);
* `vpl-editor.icns` (macOS): an ICNS container with PNG payloads
  ('icp4' 16, 'icp5' 32, 'icp6' 64, 'ic07' 128, 'ic08' 256, 'ic09' 512).

The containers are written here with `struct` (no image tool needed). The
output is deterministic: the same SVG and Qt version give the same bytes (no
timestamps anywhere). Rerun after changing the SVG and commit the results.

Usage (from the repository root, with the project's virtual environment):

    .venv/bin/python tools/make_icons.py              # regenerate resources/icons/
    .venv/bin/python tools/make_icons.py OUTPUT_DIR   # write elsewhere (the tests do)

tests/installers/test_icons.py checks the files.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"
SOURCE = ICONS / "vpl-editor.svg"
NAME = "vpl-editor"

PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
#: ICNS element type for each PNG size (Apple's "icns" element types that hold PNG data).
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256), (b"ic09", 512))

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_name(size: int) -> str:
    return f"{NAME}-{size}.png"


def _application():
    """The running QGuiApplication, or a new offscreen one (the renderer wants one)."""
    from PySide6.QtGui import QGuiApplication

    application = QGuiApplication.instance()
    if application is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        application = QGuiApplication([sys.argv[0] if sys.argv else "make_icons"])
    return application


def render_png(svg: Path, size: int) -> bytes:
    """The SVG rendered at size x size px as PNG bytes (transparent background, antialiased)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _application()
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not a valid SVG file")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG"):
        raise RuntimeError(f"could not encode the {size} px image as PNG")
    buffer.close()
    return bytes(data.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """An ICO file whose entries are the given PNGs (size -> PNG bytes), smallest first.

    Layout (little-endian): ICONDIR (reserved 0, type 1 = icon, count), one
    16-byte ICONDIRENTRY per image (width, height (0 means 256), colour
    count 0, reserved 0, planes 1, bits per pixel 32, data size, data
    offset), then the image data in entry order.
    """
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries = b""
    for size in sizes:
        if not 1 <= size <= 256:
            raise ValueError(f"an ICO entry is 1 to 256 px, not {size}")
        side = 0 if size == 256 else size
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(pngs[size]), offset)
        offset += len(pngs[size])
    return header + entries + b"".join(pngs[size] for size in sizes)


def icns(elements: Sequence[tuple[bytes, bytes]]) -> bytes:
    """An ICNS file of the given (4-byte type, PNG bytes) elements, in order.

    Layout (big-endian): magic 'icns', total file length (u32), then per
    element its type, its length including this 8-byte header (u32) and its data.
    """
    body = b""
    for kind, data in elements:
        if len(kind) != 4:
            raise ValueError(f"an ICNS element type is 4 bytes, not {kind!r}")
        body += kind + struct.pack(">I", 8 + len(data)) + data
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def make_icons(output: Path, svg: Path = SOURCE) -> list[Path]:
    """Write every PNG, the ICO and the ICNS into `output`; return the paths written."""
    output.mkdir(parents=True, exist_ok=True)
    pngs = {size: render_png(svg, size) for size in PNG_SIZES}
    files = {png_name(size): data for size, data in pngs.items()}
    files[f"{NAME}.ico"] = ico({size: pngs[size] for size in ICO_SIZES})
    files[f"{NAME}.icns"] = icns([(kind, pngs[size]) for kind, size in ICNS_TYPES])
    written = []
    for name, data in files.items():
        path = output / name
        path.write_bytes(data)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render resources/icons/vpl-editor.svg into PNG, ICO and ICNS.")
    parser.add_argument("output", nargs="?", type=Path, default=ICONS,
                        help="directory to write into (default: resources/icons)")
    parser.add_argument("--svg", type=Path, default=SOURCE, help="the SVG master (default: resources/icons/vpl-editor.svg)")
    arguments = parser.parse_args(argv)
    for path in make_icons(arguments.output, arguments.svg):
        print(f"{path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
