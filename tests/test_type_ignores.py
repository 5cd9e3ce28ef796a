"""Every `# type: ignore` in the type-checked packages names its error codes and says why.

mypy (`./run-lint`, strict) reports an ignore that suppresses nothing and,
with `ignore-without-code` enabled, one without codes; this test adds what
mypy cannot check: a reason, written as a comment after the codes, so the
next engineer can tell whether the ignore is still right.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED_PACKAGES = ("vpl_core", "app")  # `[tool.mypy] files` in pyproject.toml

IGNORE = re.compile(r"#\s*type:\s*ignore\b(?P<rest>.*)$")
WITH_CODES_AND_REASON = re.compile(r"^\[[a-z0-9-]+(?:,\s*[a-z0-9-]+)*\]\s*#\s*\S")


def unexplained_ignores(source: str) -> list[int]:
    """Line numbers of `# type: ignore` comments without codes or without a reason after them."""
    return [
        number
        for number, line in enumerate(source.splitlines(), 1)
        if (match := IGNORE.search(line)) is not None and not WITH_CODES_AND_REASON.match(match.group("rest"))
    ]


def test_every_type_ignore_has_codes_and_a_reason() -> None:
    offences = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in CHECKED_PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for number in unexplained_ignores(path.read_text(encoding="utf-8"))
    ]
    assert not offences, "give these `# type: ignore[code]` a reason (`  # why`): " + ", ".join(offences)


def test_the_check_tells_explained_from_unexplained_ignores() -> None:
    source = (
        "a = 1  # type: ignore\n"
        "b = 2  # type: ignore[assignment]\n"
        "c = 3  # type: ignore[assignment]  # NodeGraphQt sets it\n"
        "d = 4  # type: ignore[attr-defined, arg-type]  # exact-class dispatch\n"
        "e = 5  # an ordinary comment\n"
    )
    assert unexplained_ignores(source) == [1, 2]
