"""Generic forms (spec 10.2, 11): tokens to a tree of parenthesized forms.

This is the scanner's private parsing data, not a public AST. A `Form` is
the list of its items (tokens and nested forms) with the positions of its
parentheses; the reader (`reader.py`) gives forms their meaning.

Guarantees, so that later stages need no defensive code for them:

* the input is exactly one form followed by end of input: trailing input is
  a syntactic error at the first trailing token, an atom at top level or a
  missing form likewise;
* parentheses balance: a ')' after the module form is trailing input, an
  unclosed '(' an error at end of input naming the open form's position;
* form/atom nesting depth is at most `MAX_NESTING_DEPTH` (spec 10.2: 128):
  the outermost form has depth 1 and every item of a form at depth d (a
  nested form or an atom) has depth d + 1, so a form at depth 129, or an
  atom inside a form at depth 128, is an error at that item. Counting atoms
  is what makes the writer's derived-reference limit of 120 fit exactly:
  six enclosing forms (module to instruction), 120 reference forms, the
  root form and its atom. The tree is built with an explicit stack, and
  everything that walks it recursively is bounded by this depth.
"""

from __future__ import annotations

from vpl_core.text.errors import SyntaxRule
from vpl_core.text.lexer import CLOSE, OPEN, Token
from vpl_core.text.source import SourceText, line_and_column

MAX_NESTING_DEPTH = 128
_TOO_DEEP = f"forms and atoms nest deeper than {MAX_NESTING_DEPTH} levels"


class Form:
    """A parenthesized form: `items` are tokens or forms; `start`/`end` index its '(' and ')'."""

    __slots__ = ("end", "items", "start")

    def __init__(self, start: int) -> None:
        self.items: list[Item] = []
        self.start = start
        self.end = start

    def __repr__(self) -> str:
        return f"Form({len(self.items)} items at {self.start})"


Item = Token | Form


def parse_forms(source: SourceText, tokens: list[Token]) -> Form:
    """The single top-level form of the token list."""
    if not tokens:
        source.fail(SyntaxRule.EMPTY_INPUT, "empty input: expected a (module ...) form", len(source.text))
    first_kind, first_value, first_start = tokens[0]
    if first_kind != OPEN:
        source.fail(SyntaxRule.NOT_A_MODULE_FORM, f"expected '(' of a (module ...) form, found '{first_value}'", first_start)
    stack: list[Form] = []
    top: Form | None = None
    for token in tokens:
        kind = token[0]
        if top is not None:
            source.fail(SyntaxRule.TRAILING_INPUT, f"trailing input after the module form: '{token[1]}'", token[2])
        if kind == OPEN:
            if len(stack) >= MAX_NESTING_DEPTH:
                source.fail(SyntaxRule.NESTING_DEPTH, _TOO_DEEP, token[2])
            form = Form(token[2])
            if stack:
                stack[-1].items.append(form)
            stack.append(form)
        elif kind == CLOSE:
            # The stack is never empty here: the first token is '(' and any
            # token after the first form closed was reported as trailing.
            form = stack.pop()
            form.end = token[2]
            if not stack:
                top = form
        else:
            if len(stack) >= MAX_NESTING_DEPTH:
                source.fail(SyntaxRule.NESTING_DEPTH, _TOO_DEEP, token[2])
            stack[-1].items.append(token)
    if top is None:
        line, column = line_and_column(source.text, stack[-1].start)
        source.fail(
            SyntaxRule.UNCLOSED_FORM,
            f"unexpected end of input: the form opened at line {line}, column {column} is not closed",
            len(source.text),
        )
    return top
