"""Render the documentation images of the physically based examples with `vpl-editor --preview-screenshot`.

    xvfb-run -a .venv/bin/python tools/make_pbr_screenshots.py [--out docs/images] [--size 320] [--only SHEET]

Every tile is one run of the real command line (`python -m app FILE
--preview-screenshot PNG --size WxH --environment E --mesh M`), so the images
show exactly what an artist gets; the tiles are then put side by side
(QPainter) into:

- `pbr-examples.png`: the six physically based examples on the sphere in
  the `studio` environment;
- `pbr-environments.png`: painted metal, polished gold and rough plastic on
  the sphere in `studio`, `outdoor` and `neutral`, and on a second mesh;
- `node-library-examples.png`: the node library's examples (stylised lava,
  triplanar rock and tiled floor on the Surface Output, toon shading on
  the Unlit Output) on the sphere in `studio`, and the three lit ones again
  in `outdoor` on the material ball;
- `openpbr-examples.png`: the OpenPBR Surface examples on the sphere in the
  `studio` environment, shown behind them (blurred) so the transmitting ones
  show what they refract.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "resources" / "examples"
PBR_EXAMPLES = ["painted_metal", "brushed_metal", "polished_gold", "rough_plastic", "glazed_ceramic", "material_chart"]
ENVIRONMENTS = ["studio", "outdoor", "neutral"]
SHEET_EXAMPLES = ["painted_metal", "polished_gold", "rough_plastic"]
LIBRARY_EXAMPLES = ["stylised_lava", "triplanar_rock", "tiled_floor", "toon_shading"]
OPENPBR_EXAMPLES = ["car_paint", "glass", "honey", "velvet", "jade", "soap_bubble", "brushed_aluminium"]
SHEETS = ("pbr-examples", "pbr-environments", "node-library-examples", "openpbr-examples")


def shot(example: str, png: Path, size: int, environment: str = "studio", mesh: str = "sphere", background: str | None = None) -> Path:
    command = [sys.executable, "-m", "app", str(EXAMPLES / f"{example}.vpl"), "--preview-screenshot", str(png),
               "--size", f"{size}x{size}", "--environment", environment, "--mesh", mesh]
    if background is not None:
        command += ["--background", background]
    subprocess.run(command, check=True, cwd=ROOT)
    return png


def sheet(rows: list[list[Path]], out: Path, labels: list[list[str]] | None = None) -> None:
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    images = [[QImage(str(path)) for path in row] for row in rows]
    width, height = images[0][0].width(), images[0][0].height()
    columns = max(len(row) for row in images)
    result = QImage(width * columns, height * len(images), QImage.Format.Format_RGB32)
    result.fill(QColor(46, 48, 54))
    painter = QPainter(result)
    font = QFont("sans")
    font.setPixelSize(max(11, height // 22))
    painter.setFont(font)
    for r, row in enumerate(images):
        for c, image in enumerate(row):
            painter.drawImage(c * width, r * height, image)
            if labels:
                painter.setPen(QColor(225, 225, 225))
                painter.drawText(QRect(c * width + 8, r * height + 6, width - 16, height // 8),
                                 int(Qt.AlignmentFlag.AlignLeft), labels[r][c])
    painter.end()
    if not result.save(str(out), "PNG"):  # type: ignore[call-overload]  # PySide6 takes the str its stubs refuse
        raise OSError(f"cannot write {out}")
    print(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--mesh", default="cube", help="the second mesh of pbr-environments.png")
    parser.add_argument("--only", choices=SHEETS, action="append", help="make only this sheet (repeatable; default: all)")
    arguments = parser.parse_args(argv)
    wanted = arguments.only or list(SHEETS)
    from PySide6.QtGui import QGuiApplication

    application = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - fonts need an application
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        if "pbr-examples" in wanted:
            tiles = [shot(name, work / f"{name}.png", arguments.size) for name in PBR_EXAMPLES]
            names = [name.replace("_", " ") for name in PBR_EXAMPLES]
            sheet([tiles[:3], tiles[3:]], arguments.out / "pbr-examples.png", [names[:3], names[3:]])
        if "pbr-environments" in wanted:
            rows, labels = [], []
            for name in SHEET_EXAMPLES:
                row = [shot(name, work / f"{name}-{environment}.png", arguments.size, environment) for environment in ENVIRONMENTS]
                row.append(shot(name, work / f"{name}-{arguments.mesh}.png", arguments.size, "studio", arguments.mesh))
                rows.append(row)
                labels.append([f"{name.replace('_', ' ')}, {environment}" for environment in ENVIRONMENTS] + [f"{arguments.mesh}, studio"])
            sheet(rows, arguments.out / "pbr-environments.png", labels)
        if "node-library-examples" in wanted:
            library = [shot(name, work / f"{name}.png", arguments.size) for name in LIBRARY_EXAMPLES]
            lit = LIBRARY_EXAMPLES[:3]
            outdoors = [shot(name, work / f"{name}-outdoor-ball.png", arguments.size, "outdoor", "ball") for name in lit]
            library_names = [name.replace("_", " ") for name in LIBRARY_EXAMPLES]
            sheet([library, outdoors], arguments.out / "node-library-examples.png",
                  [[f"{name}, studio" for name in library_names[:3]] + ["toon shading (unlit)"],
                   [f"{name}, outdoor, ball" for name in library_names[:3]]])
        if "openpbr-examples" in wanted:
            tiles = [shot(name, work / f"{name}-openpbr.png", arguments.size, "studio", background="environment")
                     for name in OPENPBR_EXAMPLES]
            names = [name.replace("_", " ") for name in OPENPBR_EXAMPLES]
            sheet([tiles[:4], tiles[4:]], arguments.out / "openpbr-examples.png", [names[:4], names[4:]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
