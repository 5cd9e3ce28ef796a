"""Diagnostics, the rule kinds they name, and the four error classes of the VPL toolchain.

Spec 11 names three reading failures (lexical, syntactic, semantic); the GLSL
backend adds a fourth, target. Every error carries exactly one `Diagnostic`
(the first problem found). A diagnostic produced by the verifier on a module
that was built in code has no source position; the text reader fills the
position in from the subject object before it raises.

Every diagnostic that `vpl_core` raises names the rule it reports as a
`DiagnosticKind`: a member of one enum per rule family (the lexer's
`LexicalRule`, the verifier's `InterfaceRule`, the backend's
`TargetTypeRule`, ...), defined next to the code that checks it. A kind
carries the section of the specification it implements and its category,
so callers and tests branch on the kind and its fields, never on the
message text; the message stays the sentence a user reads. Diagnostics made
outside `vpl_core` (the editor's own) may have no kind.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from vpl_core.records import record, replace

# typing.TYPE_CHECKING without importing typing at run time (typing is about 3 ms of `vpl check`'s start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import overload

StructuralPath = tuple[str | int, ...]
"""List positions and field names from a module to one of its objects (`vpl_core.ir.paths`)."""


class Category(enum.Enum):
    LEXICAL = "lexical"
    SYNTACTIC = "syntactic"
    SEMANTIC = "semantic"
    TARGET = "target"


SPEC_SECTIONS = frozenset(
    (
        "1", "2", "3", "3.1", "3.2", "4", "4.1", "5", "5.1", "5.2", "6", "6.1", "6.2", "6.3",
        "7", "7.1", "7.2", "7.3", "7.3.1", "7.4", "8", "9", "10", "10.1", "10.2", "10.3", "11",
        "12", "12.1", "12.2", "12.3", "12.4", "12.5", "13",
    )
)
"""The sections of the VPL 1 specification (its table of contents), as rule kinds and docs cite them."""

PROJECT_SECTIONS = frozenset({"math", "es", "impl"})
"""The project's own rules: the math extension, the GLSL ES profiles, this implementation's bounds."""


class DiagnosticKind(enum.Enum):
    """One rule of VPL: the base of every rule family (an enum per checking area).

    A member is declared as ``NAME = "section", "what the rule requires"``:
    `section` is the specification section it implements (``"6.1"``,
    several as ``"6.1, 7.4"``; one of `SPEC_SECTIONS`, or of
    `PROJECT_SECTIONS`: ``"math"`` for the math extension, ``"es"`` for the
    GLSL ES profiles, ``"impl"`` for an implementation bound), checked when
    the family is defined; the summary (the member's value) states the rule
    in a few words, for docs/vpl-language.md. Families set `category`.
    """

    section: str
    summary: str

    def __new__(cls, section: str, summary: str) -> DiagnosticKind:
        unknown = [part for part in section.split(", ") if part not in SPEC_SECTIONS | PROJECT_SECTIONS]
        if unknown or not summary:
            raise ValueError(f"rule {summary!r}: no section {unknown} in VPL 1 or the project's rules")
        member = object.__new__(cls)
        member._value_ = summary
        member.section = section
        member.summary = summary
        return member

    @property
    def category(self) -> Category:
        raise NotImplementedError(f"{type(self).__name__} does not declare its category")

    @property
    def code(self) -> str:
        """A stable identifier: `Family.MEMBER`."""
        return f"{type(self).__name__}.{self.name}"

    def __repr__(self) -> str:
        return f"<{self.code} (spec {self.section})>"


@record(frozen=True)
class Diagnostic:
    """One problem: where it is, what it is, which rule, and (for the verifier and backend) which object.

    `offset` is a byte offset into the UTF-8 input; `line` and `column` are
    one-based and count Unicode code points, a CR, LF or CR LF group being one
    line ending. Positions are None for modules that have no source text.

    `subject` is the offending IR object and `context` the enclosing objects
    from outermost to innermost (stage, function, block, instruction).
    `subject_path` is the subject's structural path (`vpl_core.ir.paths`) in
    the module that was checked: the backend compiles a private snapshot, and
    the path finds the same object in any other instance of that module.
    """

    category: Category
    message: str
    label: str | None = None
    offset: int | None = None
    line: int | None = None
    column: int | None = None
    subject: object = None
    kind: DiagnosticKind | None = None
    context: tuple[object, ...] = ()
    subject_path: StructuralPath | None = None

    def __init__(self, category: Category, message: str, label: str | None = None, offset: int | None = None,
                 line: int | None = None, column: int | None = None, subject: object = None,
                 kind: DiagnosticKind | None = None, context: tuple[object, ...] = (),
                 subject_path: StructuralPath | None = None) -> None:
        store = object.__setattr__
        store(self, "category", category)
        store(self, "message", message)
        store(self, "label", label)
        store(self, "offset", offset)
        store(self, "line", line)
        store(self, "column", column)
        store(self, "subject", subject)
        store(self, "kind", kind)
        store(self, "context", context)
        store(self, "subject_path", subject_path)

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
    """Base of the four error classes; `diagnostic` holds the problem.

    Raised either with a finished diagnostic, ``SemanticError(diagnostic)``,
    or with the rule, the message and the offending object,
    ``TargetError(TargetTypeRule.ARRAY_OF_ARRAYS, "...", subject)``; the
    kind's category must be the class's.
    """

    category: Category = Category.SEMANTIC

    if TYPE_CHECKING:
        @overload
        def __init__(self, diagnostic: Diagnostic, /) -> None: ...

        @overload
        def __init__(
            self, kind: DiagnosticKind, message: str, /, subject: object = None, context: Sequence[object] = ()
        ) -> None: ...

    def __init__(
        self,
        diagnostic: Diagnostic | DiagnosticKind,
        message: str | None = None,
        /,
        subject: object = None,
        context: Sequence[object] = (),
    ) -> None:
        if isinstance(diagnostic, DiagnosticKind):
            if message is None:
                raise TypeError("an error made from a rule kind needs a message")
            diagnostic = Diagnostic(self.category, message, subject=subject, kind=diagnostic, context=tuple(context))
        elif not isinstance(diagnostic, Diagnostic):
            raise TypeError(f"{type(self).__name__} takes a Diagnostic or a rule kind and a message, not {diagnostic!r}")
        if diagnostic.kind is not None and diagnostic.kind.category is not diagnostic.category:
            raise ValueError(f"{diagnostic.kind.code} is a {diagnostic.kind.category.value} rule, not {diagnostic.category.value}")
        self.diagnostic = diagnostic
        super().__init__(diagnostic.format())

    def __reduce__(self) -> tuple[object, tuple[type[VplError], Diagnostic]]:
        # Subclasses have their own constructor signatures; rebuild from the diagnostic alone.
        return (_rebuild_error, (type(self), self.diagnostic))

    @property
    def message(self) -> str:
        return self.diagnostic.message

    @property
    def kind(self) -> DiagnosticKind | None:
        return self.diagnostic.kind

    @property
    def subject(self) -> object:
        return self.diagnostic.subject

    @property
    def context(self) -> tuple[object, ...]:
        return self.diagnostic.context

    @property
    def subject_path(self) -> StructuralPath | None:
        return self.diagnostic.subject_path


def _rebuild_error(cls: type[VplError], diagnostic: Diagnostic) -> VplError:
    error = cls.__new__(cls)
    VplError.__init__(error, diagnostic)
    return error


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
