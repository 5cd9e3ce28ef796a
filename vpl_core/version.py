"""The product's version, from one place: the package metadata.

`pyproject.toml`'s `[project] version` is the only place the version is
written. An installed package (wheel, editable install, or the PyInstaller
bundle, which carries the `.dist-info` folder) answers through
`importlib.metadata`; a source tree used without installing falls back to
reading that same `pyproject.toml`.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

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
