"""Qt.py's site configuration (QtSiteConfig.py) against the NodeGraphQt it serves.

The configuration names the Qt classes NodeGraphQt's source writes; these
tests read that source (the installed, pinned release) and check that the
names are exactly those, and, in fresh interpreters, that Qt.py loads the
configuration and that every name NodeGraphQt writes resolves the same with
it as without it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import NodeGraphQt

import QtSiteConfig

MODULE_MEMBER = re.compile(r"\b(QtCore|QtGui|QtWidgets|QtSvg|Qt[A-Z][A-Za-z]+)\.(\w+)")


def names_in_nodegraphqt() -> dict[str, set[str]]:
    """Every `QtMODULE.NAME` written in NodeGraphQt's source, per module."""
    used: dict[str, set[str]] = {}
    for path in Path(NodeGraphQt.__file__).parent.rglob("*.py"):
        for module, name in MODULE_MEMBER.findall(path.read_text(encoding="utf-8")):
            if module != "QtCompat":  # Qt.py's own helpers, not a PySide6 module
                used.setdefault(module, set()).add(name)
    return used


def test_the_configuration_names_what_nodegraphqt_uses() -> None:
    assert names_in_nodegraphqt() == {module: set(names) for module, names in QtSiteConfig.USED_MEMBERS.items()}


PROBE = """
import json, sys
import Qt
names = json.loads(sys.argv[1])
print(json.dumps({"modules": sorted(name[1:] for name in vars(Qt) if name.startswith("_Qt")),  # imported by Qt.py
                  "resolved": {module: sorted(name for name in members if hasattr(getattr(Qt, module), name))
                               for module, members in names.items()}}))
"""


def probe(*, site_config: bool) -> dict[str, object]:
    """Qt.py's modules and which of NodeGraphQt's names it resolves, loaded with or without the configuration."""
    names = {module: sorted(members) for module, members in names_in_nodegraphqt().items()}
    # Without it: `-S`, no `site`, so no .pth file puts this checkout (where the configuration is) on the
    # path; site-packages itself is put back by hand. Qt.py then finds no QtSiteConfig.
    site_packages = str(Path(NodeGraphQt.__file__).parents[1])
    prefix = [] if site_config else ["-S", "-c", f"import sys; sys.path.append({site_packages!r}); exec({PROBE!r})"]
    command = [sys.executable, *(prefix or ["-c", PROBE]), json.dumps(names)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]  # the probe prints an object


def test_qt_py_loads_the_configuration_and_nodegraphqt_sees_the_same_names() -> None:
    configured, default = probe(site_config=True), probe(site_config=False)
    configured_modules, default_modules = set(configured["modules"]), set(default["modules"])  # type: ignore[call-overload]  # lists
    assert set(QtSiteConfig.USED_MEMBERS) <= configured_modules  # with Qt.py's own extras (QtUiTools, ...)
    assert {"QtNetwork", "QtQml", "QtSql"} <= default_modules - configured_modules
    assert configured["resolved"] == default["resolved"]
