"""The product's version, from one place: the package metadata.

`pyproject.toml`'s `[project] version` is the only place the version is
written. An installed package (wheel, editable install, or the PyInstaller
bundle, which carries the `.dist-info` folder) answers through
`importlib.metadata`; a source tree used without installing falls back to
reading that same `pyproject.toml`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from functools import lru_cache

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DISTRIBUTION = "vpl-material-editor"
UNKNOWN = "0+unknown"

_PROJECT_VERSION = re.compile(r'^\[project\][^\[]*?^version\s*=\s*"([^"]+)"', re.MULTILINE | re.DOTALL)


def _version_from_source_tree() -> str | None:
    pyproject = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(pyproject, encoding="utf-8") as stream:
            match = _PROJECT_VERSION.search(stream.read())
    except OSError:
        return None
    return match.group(1) if match else None


def _version_from_dist_info() -> str | None:
    """The `Version:` of this distribution's installed METADATA, found on sys.path without importlib.metadata.

    What `importlib.metadata.version` finds, for the installs this project
    makes (wheel, editable, the bundle's copied .dist-info), at a fraction of
    its import cost (~30 ms, a third of `vpl --version`). None if not found.
    """
    prefix = DISTRIBUTION.replace("-", "_") + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith(prefix) and name.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry or ".", name, "METADATA"), encoding="utf-8") as stream:
                        for line in stream:
                            if line.startswith("Version:"):
                                return line.split(":", 1)[1].strip()
                            if not line.strip():
                                break  # end of the headers
                except OSError:
                    continue
    return None


@lru_cache(maxsize=1)
def version() -> str:
    """"0.1.0": the installed distribution's version, else the source tree's, else "0+unknown"."""
    found = _version_from_dist_info()
    if found is not None:
        return found
    from importlib import metadata  # on use: importing it costs ~30 ms that `vpl check` need not pay

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return _version_from_source_tree() or UNKNOWN


class VersionAction(argparse.Action):
    """`--version`: prints "PROG VERSION" and exits, looking the version up only when asked.

    argparse's own "version" action wants the string when the parser is
    built, which would put the metadata lookup on every run of the commands.
    """

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str = "print the version and exit") -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog} {version()}", file=sys.stdout)
        parser.exit()
