"""Start-up (issue 20 item 4): what the editor imports before its first window.

Checked in a fresh interpreter (imports are process-wide): the window's
modules must not pull in `distutils` (setuptools' shim and `pkg_resources`,
loaded by NodeGraphQt 0.6 for one version comparison) nor the CPU preview and
its interpreter (only for machines without OpenGL), and NodeGraphQt's
version checks still work with the stand-in `app.graph` gives it; that the
window paints before the document is opened, without the real Qt.py.
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
from NodeGraphQt.base import menu
from PySide6.QtCore import qVersion
heavy = sorted(name for name in ("distutils", "pkg_resources", "setuptools", "app.preview.cpu_preview", "vpl_core.interp")
               if name in sys.modules)
print(json.dumps({"heavy": heavy, "qt_at_least_5_10": bool(menu.LooseVersion(qVersion()) >= menu.LooseVersion("5.10")),
                  "older": bool(menu.LooseVersion("5.9.1") >= menu.LooseVersion("5.10"))}))
"""


def test_the_window_imports_no_distutils_and_nodegraphqt_still_compares_versions() -> None:
    completed = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300,
                               check=False)
    assert completed.returncode == 0, completed.stderr
    facts = json.loads(completed.stdout.strip().splitlines()[-1])
    assert facts == {"heavy": [], "qt_at_least_5_10": True, "older": False}


def test_distutils_is_the_real_one_after_nodegraphqt() -> None:
    """The stand-in exists only during NodeGraphQt's import: a later `import distutils` is not fooled."""
    import app.graph  # noqa: F401 - NodeGraphQt is imported by now

    assert "distutils.version" not in sys.modules or hasattr(sys.modules["distutils.version"], "StrictVersion")


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
import app.graph
print(json.dumps({
    "loaded": sorted(name for name in modules if name in (
        "Qt.py", "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtNetwork", "PySide6.QtSql", "PySide6.QtTest",
        "distutils", "pkg_resources", "app.preview.cpu_preview", "vpl_core.interp")),
    "real_qt_py": app.graph._RealQt.module is not None,
    "nodes_at_first_paint": seen.get("nodes_at_first_paint"),
    "nodes_after": seen.get("nodes_after"),
}))
"""


@pytest.mark.gl  # the editor's window and its OpenGL preview, in a process of its own
def test_the_first_paint_comes_before_the_document_and_without_qt_py(tmp_path: Path) -> None:
    """Issue 20 item 4: the window paints before the document is read and lowered, and NodeGraphQt's Qt.py
    (fifteen PySide6 modules walked member by member) is not imported: its stand-in serves."""
    environment = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
                   "XDG_DATA_HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    completed = subprocess.run([sys.executable, "-c", FIRST_PAINT_PROBE], cwd=ROOT, capture_output=True, text=True,
                               timeout=300, check=False, env=environment)
    assert completed.returncode == 0, completed.stderr
    facts = json.loads(completed.stdout.strip().splitlines()[-1])
    assert facts["loaded"] == [] and not facts["real_qt_py"], facts
    assert facts["nodes_at_first_paint"] == 0, facts  # an empty view first...
    assert facts["nodes_after"] and facts["nodes_after"] > 0, facts  # ...then the example, right after


def test_the_qt_stand_in_gives_nodegraphqt_the_qt5_places_and_falls_back_to_qt_py() -> None:
    from PySide6 import QtGui, QtWidgets

    import app.graph  # noqa: F401 - installs the stand-in before NodeGraphQt

    qt = sys.modules["Qt"]
    assert qt.QtWidgets.QUndoStack is QtGui.QUndoStack and qt.QtWidgets.QAction is QtGui.QAction
    assert qt.QtWidgets.QGraphicsItem is QtWidgets.QGraphicsItem
    # A Qt.py helper comes from the real Qt.py, imported on first use.
    assert qt.QtCompat.QHeaderView.setSectionResizeMode is not None
