"""Diagnostics and the four error classes of the VPL toolchain.

Spec 11 names three reading failures (lexical, syntactic, semantic); the GLSL
backend adds a fourth, target. Every error carries exactly one `Diagnostic`
(the first problem found). A diagnostic produced by the verifier on a module
that was built in code has no source position; the text reader fills the
position in from the subject object before it raises.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any


class Category(enum.Enum):
    LEXICAL = "lexical"
    SYNTACTIC = "syntactic"
    SEMANTIC = "semantic"
    TARGET = "target"


@dataclass(frozen=True)
class Diagnostic:
    """One problem: where it is, what it is, and (for the verifier) which object.

    `offset` is a byte offset into the UTF-8 input; `line` and `column` are
    one-based and count Unicode code points, a CR, LF or CR LF group being one
    line ending. Positions are None for modules that have no source text.
    """

    category: Category
    message: str
    label: str | None = None
    offset: int | None = None
    line: int | None = None
    column: int | None = None
    subject: Any = None

    def with_position(self, label: str | None, offset: int, line: int, column: int) -> Diagnostic:
        return replace(self, label=label, offset=offset, line=line, column=column)

    def format(self) -> str:
        """`FILE:LINE:COLUMN: CATEGORY error: MESSAGE`, the CLI's format."""
        where = self.label if self.label is not None else "<module>"
        if self.line is not None:
            where = f"{where}:{self.line}:{self.column}"
        return f"{where}: {self.category.value} error: {self.message}"

    def __str__(self) -> str:
        return self.format()


class VplError(Exception):
    """Base of the four error classes; `diagnostic` holds the problem."""

    category: Category = Category.SEMANTIC

    def __init__(self, diagnostic: Diagnostic | str, subject: Any = None) -> None:
        if isinstance(diagnostic, str):
            diagnostic = Diagnostic(self.category, diagnostic, subject=subject)
        self.diagnostic = diagnostic
        super().__init__(diagnostic.format())

    @property
    def message(self) -> str:
        return self.diagnostic.message

    @property
    def subject(self) -> Any:
        return self.diagnostic.subject


class LexicalError(VplError):
    category = Category.LEXICAL


class SyntacticError(VplError):
    category = Category.SYNTACTIC


class SemanticError(VplError):
    category = Category.SEMANTIC


class TargetError(VplError):
    category = Category.TARGET


ERROR_CLASSES: dict[Category, type[VplError]] = {
    Category.LEXICAL: LexicalError,
    Category.SYNTACTIC: SyntacticError,
    Category.SEMANTIC: SemanticError,
    Category.TARGET: TargetError,
}


def error_for(diagnostic: Diagnostic) -> VplError:
    """The exception of the diagnostic's category."""
    return ERROR_CLASSES[diagnostic.category](diagnostic)
