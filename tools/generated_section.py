"""The part of a Markdown document between two marker lines that a tool generates.

`tools/gen_math_docs.py` and `tools/gen_diagnostic_docs.py` each own one
such section; `main` rewrites it, or with `--check` exits 1 when it is out
of date (the tests run the check).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def current_section(document: str, begin: str, end: str) -> str:
    return document[document.index(begin) : document.index(end) + len(end)]


def replace_section(document: str, section: str, begin: str, end: str) -> str:
    start = document.index(begin)
    stop = document.index(end) + len(end)
    return document[:start] + section + document[stop:]


def main(
    description: str, tool: str, document_path: Path, begin: str, end: str, generate: Callable[[], str],
    argv: Sequence[str] | None = None,
) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 if the document is out of date")
    parser.add_argument("--document", type=Path, default=document_path)
    arguments = parser.parse_args(argv)
    document = arguments.document.read_text(encoding="utf-8")
    section = generate()
    if arguments.check:
        if current_section(document, begin, end) != section:
            print(f"{arguments.document}: the generated section is out of date; run {tool}", file=sys.stderr)
            return 1
        return 0
    updated = replace_section(document, section, begin, end)
    if updated != document:
        arguments.document.write_text(updated, encoding="utf-8")
    return 0
