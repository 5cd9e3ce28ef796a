"""Start-up: what the editor imports before its first window.

Checked in a fresh interpreter (imports are process-wide): the window's
modules must not pull in the CPU preview and its interpreter (only for
machines without OpenGL); NodeGraphQt gets its real dependencies (Qt.py,
`distutils.version` from setuptools) and loads without a deprecation
warning; the window paints before the document is opened.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import app.ui.main_window
import distutils.version
from NodeGraphQt.base import menu
from PySide6.QtWidgets import QApplication
application = QApplication([])
import app.graph.view
graph = app.graph.view.MaterialNodeGraph()  # builds NodeGraphQt's menus: a version comparison per command
heavy = sorted(name for name in ("app.preview.cpu_preview", "vpl_core.interp") if name in sys.modules)
qt = sys.modules["Qt"]
print(json.dumps({"heavy": heavy, "qt_py": [qt.__binding__, hasattr(qt, "QtCompat")],
                  "real_loose_version": menu.LooseVersion is distutils.version.LooseVersion}))
"""


def test_nodegraphqt_gets_its_real_dependencies_without_deprecation_warnings() -> None:
    """`-W error::DeprecationWarning`: NodeGraphQt's `LooseVersion` comparisons warn only into the filter
    `app.graph` installs for NodeGraphQt's modules."""
    completed = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", PROBE], cwd=ROOT,
                               capture_output=True, text=True, timeout=300, check=False,
                               env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert completed.returncode == 0, completed.stderr
    facts = json.loads(completed.stdout.strip().splitlines()[-1])
    assert facts == {"heavy": [], "qt_py": ["PySide6", True], "real_loose_version": True}


FIRST_PAINT_PROBE = """
import json, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

application = QApplication([sys.argv[0]])
seen = {}

class Watch(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow) and "modules" not in seen:
            seen["modules"] = sorted(sys.modules)
            seen["nodes_at_first_paint"] = len(watched.material.nodes)
            watched.documentOpened.connect(lambda: QTimer.singleShot(0, finish))
        return False

def finish():
    window = next(widget for widget in application.topLevelWidgets() if isinstance(widget, QMainWindow))
    seen["nodes_after"] = len(window.material.nodes)
    application.quit()

watch = Watch()
application.installEventFilter(watch)
QTimer.singleShot(120_000, application.quit)
import app.main
app.main.main([])
modules = seen.get("modules", [])
print(json.dumps({
    "loaded": sorted(name for name in modules if name in ("app.preview.cpu_preview", "vpl_core.interp")),
    "nodes_at_first_paint": seen.get("nodes_at_first_paint"),
    "nodes_after": seen.get("nodes_after"),
}))
"""


@pytest.mark.gl  # the editor's window and its OpenGL preview, in a process of its own
def test_the_first_paint_comes_before_the_document(tmp_path: Path) -> None:
    """The window paints before the document is read and lowered, without the CPU preview."""
    environment = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
                   "XDG_DATA_HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    completed = subprocess.run([sys.executable, "-c", FIRST_PAINT_PROBE], cwd=ROOT, capture_output=True, text=True,
                               timeout=300, check=False, env=environment)
    assert completed.returncode == 0, completed.stderr
    facts = json.loads(completed.stdout.strip().splitlines()[-1])
    assert facts["loaded"] == [], facts
    assert facts["nodes_at_first_paint"] == 0, facts  # an empty view first...
    assert facts["nodes_after"] and facts["nodes_after"] > 0, facts  # ...then the example, right after
