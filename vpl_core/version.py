"""The product's version, from one place: the package metadata.

`pyproject.toml`'s `[project] version` is the only place the version is
written. An installed package (wheel, editable install, or the PyInstaller
bundle, which carries the `.dist-info` folder) answers through
`importlib.metadata`; a source tree used without installing falls back to
reading that same `pyproject.toml`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "vpl-material-editor"
UNKNOWN = "0+unknown"

_PROJECT_VERSION = re.compile(r'^\[project\][^\[]*?^version\s*=\s*"([^"]+)"', re.MULTILINE | re.DOTALL)


def _version_from_source_tree() -> str | None:
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        match = _PROJECT_VERSION.search(pyproject.read_text(encoding="utf-8"))
    except OSError:
        return None
    return match.group(1) if match else None


@lru_cache(maxsize=1)
def version() -> str:
    """"0.1.0": the installed distribution's version, else the source tree's, else "0+unknown"."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return _version_from_source_tree() or UNKNOWN
