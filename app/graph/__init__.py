"""NodeGraphQt node classes for the material catalog and the adapter between the view and `app.material`.

`import_nodegraphqt()` imports NodeGraphQt without the standard library's
`distutils` (start-up, issue 20 item 4): NodeGraphQt 0.6 imports
`distutils.version.LooseVersion` only to compare `qVersion()` with "5.10",
and on Python 3.11 with setuptools installed `import distutils` loads
setuptools' shim and `pkg_resources`, a third of a second or more of the
editor's start-up. During that one import a minimal `distutils.version`
stands in; it is removed again afterwards, so any later `import distutils`
gets the real one.
"""

from __future__ import annotations

import functools
import re
import sys
import types


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
    try:
        import NodeGraphQt
        import NodeGraphQt.base.menu
        import NodeGraphQt.widgets.viewer
    finally:
        if stand_in:
            del sys.modules["distutils.version"], sys.modules["distutils"]


import_nodegraphqt()
