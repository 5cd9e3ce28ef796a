"""Render `docs/images/graph-overview.png`: the editor on a 64-node graph with the overview in the corner.

    xvfb-run -a .venv/bin/python tools/make_overview_screenshot.py [--out docs/images/graph-overview.png]

The graph is five example materials tiled in frames (`tests/app/ui/large_graphs.py`,
the graph the overview's tests use). It is opened as it would be from a file
and the preview renders it; then two parameters are given one name (an
error, as a rename would), so the overview shows where the red nodes are
while the view is elsewhere, and the preview says it is out of date. The
window is grabbed as `vpl-editor --screenshot` grabs it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "app" / "ui"))

from large_graphs import add_parameter_clash, tiled_examples  # noqa: E402

SECTIONS = 5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images" / "graph-overview.png"))
    arguments = parser.parse_args()

    from PySide6.QtCore import QEventLoop, QPointF, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    application = QApplication.instance() or QApplication([sys.argv[0]])
    from app.preview.context import align_pyopengl_platform

    align_pyopengl_platform(application.platformName())  # before anything imports OpenGL
    from app.main import take_screenshot
    from app.ui.main_window import MainWindow

    with tempfile.TemporaryDirectory() as scratch:
        os.environ["VPL_EDITOR_RECOVERY_DIR"] = scratch
        settings = QSettings(str(Path(scratch) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings)
        graph = tiled_examples(SECTIONS)
        _first, second = add_parameter_clash(graph, second_name="shine")
        window.load_graph(graph, "large.vpl")
        window.show()
        loop = QEventLoop()
        window.preview.programReady.connect(loop.quit)
        QTimer.singleShot(20_000, loop.quit)
        loop.exec()
        QTimer.singleShot(500, loop.quit)  # the frame drawn
        loop.exec()
        # Break it the way an artist would, renaming a parameter to a name in use:
        # the last good preview stays, marked out of date.
        window.nodes.set_node_property(second, "name", "sheen")
        window.flush()
        # Look at the third section; the errors are in the first, a pan away.
        frames = sorted(window.graph.frames(), key=lambda frame: (frame.pos()[1], frame.pos()[0]))
        x, y = frames[2].pos()
        width, height = frames[2].size()
        window.inspection.overview.center_view_on(QPointF(x + width / 2, y + height / 2))
        error_node = window.graph.node_by_stable_id(second)
        assert error_node is not None and error_node.view.diagnostics, "the clash should be an error"
        status = take_screenshot(window, arguments.out, 20.0, [False])
        window.files.maybe_save = lambda: True  # a scratch document: closing asks nothing
        window.close()
    print(arguments.out)
    return status


if __name__ == "__main__":
    sys.exit(main())
