"""Source text and positions for diagnostics (spec 11).

The reader works on the decoded text and remembers positions as code-point
indexes into it; only when a diagnostic is made is an index turned into the
public position: byte offset into the UTF-8 input, one-based line and
one-based column counted in code points, where CR, LF and CR LF are each one
line ending. Converting lazily keeps the common (valid) path free of
bookkeeping.
"""

from __future__ import annotations

from vpl_core.diagnostics import ERROR_CLASSES, Diagnostic, DiagnosticKind
from vpl_core.records import replace

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def line_and_column(text: str, index: int) -> tuple[int, int]:
    """One-based line and code-point column of `text[index]`."""
    prefix = text[:index]
    line_endings = prefix.count("\n") + prefix.count("\r") - prefix.count("\r\n")
    line_start = max(prefix.rfind("\n"), prefix.rfind("\r")) + 1
    return line_endings + 1, index - line_start + 1


class SourceText:
    """A decoded source and its label; makes positioned diagnostics and raises them."""

    __slots__ = ("label", "plain", "text")

    def __init__(self, text: str, label: str | None) -> None:
        self.text = text
        self.label = label
        #: True once a scan found `text` plain (`parser.is_plain`); False when unknown.
        self.plain = False

    def position(self, diagnostic: Diagnostic, index: int) -> Diagnostic:
        """`diagnostic` placed at code-point `index` of this source, with its label."""
        index = max(0, min(index, len(self.text)))
        line, column = line_and_column(self.text, index)
        offset = len(self.text[:index].encode("utf-8"))
        return replace(diagnostic, label=self.label, offset=offset, line=line, column=column)

    def diagnostic(self, kind: DiagnosticKind, message: str, index: int, subject: object = None) -> Diagnostic:
        return self.position(Diagnostic(kind.category, message, subject=subject, kind=kind), index)

    def fail(self, kind: DiagnosticKind, message: str, index: int, subject: object = None) -> NoReturn:
        raise ERROR_CLASSES[kind.category](self.diagnostic(kind, message, index, subject))
