"""NodeGraphQt node classes for the material catalog and the adapter between the view and `app.material`.

`import_nodegraphqt()` imports NodeGraphQt without the standard library's
`distutils` (start-up): NodeGraphQt 0.6 imports
`distutils.version.LooseVersion` only to compare `qVersion()` with "5.10",
and on Python 3.11 with setuptools installed `import distutils` loads
setuptools' shim and `pkg_resources`, a third of a second or more of the
editor's start-up. During that one import a minimal `distutils.version`
stands in; it is removed again afterwards, so any later `import distutils`
gets the real one.

It also gives NodeGraphQt a lean stand-in for `Qt` (Qt.py, its binding
shim): Qt.py imports fifteen PySide6 modules (QtQml, QtQuick, QtSql,
QtNetwork, ...) and walks every member of each to build its compatibility
layer, 0.3 to 0.6 s of start-up. The stand-in's `QtCore`, `QtGui`,
`QtWidgets` and `QtSvg` are PySide6's, with the Qt5 places Qt.py keeps
(`QtWidgets.QUndoStack`, `QtWidgets.QAction`: QtGui's in Qt 6); any other
name (a `QtCompat` helper, a module or member PySide6 lacks) comes from the real
Qt.py, imported then, so nothing NodeGraphQt may ask for is missing. The
stand-in stays in `sys.modules["Qt"]` (NodeGraphQt imports some of its
modules later).
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
import types
from typing import Any


@functools.total_ordering
class _LooseVersion:
    """What NodeGraphQt asks of `distutils.version.LooseVersion`: comparing Qt's "6.5.2" with "5.10"."""

    def __init__(self, text: str) -> None:
        self.numbers = tuple(int(number) for number in re.findall(r"\d+", str(text)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _LooseVersion) and self.numbers == other.numbers

    def __lt__(self, other: _LooseVersion) -> bool:
        return self.numbers < other.numbers

    __hash__ = None  # type: ignore[assignment]  # unhashable as distutils' LooseVersion (it defines equality)


#: Where the stand-in modules look a name up, in order, before asking the real Qt.py.
_QT_MODULES: dict[str, tuple[str, ...]] = {
    "QtCore": ("PySide6.QtCore",),
    "QtGui": ("PySide6.QtGui",),
    "QtWidgets": ("PySide6.QtWidgets", "PySide6.QtGui"),  # Qt.py keeps QAction, QUndoStack... in QtWidgets
    "QtSvg": ("PySide6.QtSvg", "PySide6.QtSvgWidgets"),
    "QtCompat": (),  # Qt.py's own helpers: imported from it when one is first used (the properties bin)
}


class _RealQt:
    """The real Qt.py, imported on first need (a name the stand-in does not have)."""

    module: Any = None

    @classmethod
    def get(cls) -> Any:
        if cls.module is None:
            stand_in = sys.modules.pop("Qt", None)
            try:
                cls.module = importlib.import_module("Qt")
            finally:
                if stand_in is not None:
                    sys.modules["Qt"] = stand_in
        return cls.module


def _qt_stand_in_module(name: str, sources: tuple[str, ...]) -> types.ModuleType:
    module = types.ModuleType(f"Qt.{name}")

    def __getattr__(attribute: str) -> Any:  # noqa: N807 - a module's __getattr__ (PEP 562)
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        for source in sources:
            value = getattr(importlib.import_module(source), attribute, None)
            if value is not None:
                break
        else:
            value = getattr(getattr(_RealQt.get(), name), attribute)
        setattr(module, attribute, value)
        return value

    module.__getattr__ = __getattr__  # type: ignore[method-assign]  # PEP 562 lookup in the module's namespace
    return module


def _install_qt_stand_in() -> None:
    """`sys.modules["Qt"]`: PySide6's modules where they serve, the real Qt.py for anything else."""
    if "Qt" in sys.modules:
        return
    package = types.ModuleType("Qt")
    for name, sources in _QT_MODULES.items():
        setattr(package, name, _qt_stand_in_module(name, sources))

    def __getattr__(attribute: str) -> Any:  # noqa: N807 - a module's __getattr__ (PEP 562)
        if attribute.startswith("__") and attribute not in ("__binding__", "__qt_version__", "__binding_version__"):
            raise AttributeError(attribute)
        return getattr(_RealQt.get(), attribute)

    package.__getattr__ = __getattr__  # type: ignore[method-assign]  # PEP 562 lookup in the module's namespace
    sys.modules["Qt"] = package


def import_nodegraphqt() -> None:
    """Import NodeGraphQt (once) with the stand-in `distutils.version` if `distutils` is not loaded yet."""
    if "NodeGraphQt" in sys.modules:
        return
    stand_in = "distutils" not in sys.modules
    if stand_in:
        package = types.ModuleType("distutils")
        package.__path__ = []  # a package, so `distutils.version` resolves to the module below
        version = types.ModuleType("distutils.version")
        version.LooseVersion = _LooseVersion  # type: ignore[attr-defined]  # a stand-in module built at run time
        package.version = version  # type: ignore[attr-defined]  # a stand-in package built at run time
        sys.modules["distutils"], sys.modules["distutils.version"] = package, version
    _install_qt_stand_in()
    try:
        import NodeGraphQt
        import NodeGraphQt.base.menu
        import NodeGraphQt.widgets.viewer
    finally:
        if stand_in:
            del sys.modules["distutils.version"], sys.modules["distutils"]


import_nodegraphqt()
