"""Start-up (issue 20 item 4): what the editor imports before its first window.

Checked in a fresh interpreter (imports are process-wide): the window's
modules must not pull in `distutils` (setuptools' shim and `pkg_resources`,
loaded by NodeGraphQt 0.6 for one version comparison) nor the CPU preview and
its interpreter (only for machines without OpenGL), and NodeGraphQt's
version checks still work with the stand-in `app.graph` gives it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
