"""NodeGraphQt node classes for the material catalog and the adapter between the view and `app.material`.

NodeGraphQt 0.6 imports its real dependencies: Qt.py (its binding shim, a
declared dependency of NodeGraphQt) and `distutils.version.LooseVersion`,
which setuptools provides (a dependency of ours: the standard library has
no `distutils` from Python 3.12); Qt.py's site configuration
(QtSiteConfig.py, top level) limits it to the Qt classes NodeGraphQt
names. NodeGraphQt builds a `LooseVersion` per
menu command only to compare `qVersion()` with "5.10"; the deprecation
warning each one raises is about NodeGraphQt's code, not ours, and is
ignored for NodeGraphQt's modules only. docs/decisions.md says why there
are no stand-in modules and what they cost at start-up.
"""

from __future__ import annotations

import warnings

warnings.filterwarnings("ignore", message="distutils Version classes are deprecated", category=DeprecationWarning,
                        module=r"NodeGraphQt\.")

import NodeGraphQt  # noqa: E402 - after the filter above: NodeGraphQt's menus compare versions as it loads
