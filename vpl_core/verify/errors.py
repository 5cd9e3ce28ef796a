"""The verifier's error: a semantic error naming the first invalid object.

`subject` is the offending IR object itself (an instruction, terminator,
block, function, stage, uniform, interface variable, record type, field, or
an operand/reference object taken from the IR). `context` lists the
enclosing objects from outermost to innermost (stage, function, block,
instruction) so that a reader can place the diagnostic at the nearest
object it has a source position for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vpl_core.diagnostics import Category, Diagnostic, SemanticError


class VerificationError(SemanticError):
    def __init__(self, message: str, subject: Any = None, context: Sequence[Any] = ()) -> None:
        super().__init__(Diagnostic(Category.SEMANTIC, message, subject=subject))
        self.context: tuple[Any, ...] = tuple(context)
