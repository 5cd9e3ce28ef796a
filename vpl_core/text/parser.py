"""Generic forms (spec 10.2, 11): tokens to a tree of parenthesized forms.

This is the scanner's private parsing data, not a public AST. A `Form` is
the list of its items (tokens and nested forms) with the positions of its
parentheses; the reader (`reader.py`) gives forms their meaning.

`parse_source(source)` is `parse_forms(source, tokenize(source))` in one
pass over the text (the reader's path): it builds the forms while scanning,
without the intermediate token list, and whenever the input is not well
formed it hands over to those two, so that every diagnostic, and which
diagnostic comes first (lexical before syntactic), is theirs.

`parse_unpositioned(text)` builds the same forms without source positions
(every `start` and `end` is 0), about twice as fast, for readers that keep
no positions and read the text again exactly if anything fails
(`reader.read`, publication's read-back, `compile_source`): it accepts
only a plain subset of the syntax (see its docstring) and answers None for
anything else, so it never accepts what `parse_source` rejects.

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

import functools
import re

from vpl_core.text.errors import SyntaxRule
from vpl_core.text.lexer import (
    CLOSE,
    GROUP_CLOSE,
    GROUP_DOUBLE,
    GROUP_NAME,
    GROUP_NUMBER,
    GROUP_OPEN,
    GROUP_SINGLE,
    KEYWORD,
    NAME,
    NUMBER,
    OPEN,
    RESERVED_WORDS,
    SCANNER,
    STRING,
    WORD_CHARACTER,
    Token,
    decode_escapes,
    tokenize,
)
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


def parse_source(source: SourceText) -> Form:
    """The single top-level form of the text: exactly `parse_forms(source, tokenize(source))`.

    Scans and builds forms in one pass. At anything the two-pass path would
    report (a lexical error, a misplaced token, too deep a nesting, trailing
    or missing input) it returns that path's result instead, so its errors
    are raised by exactly the code that defines them; a well-formed input
    never reaches it and gives the same forms and tokens.
    """
    text = source.text
    reserved = RESERVED_WORDS
    limit = MAX_NESTING_DEPTH
    stack: list[Form] = []
    items: list[Item] = []  # the items of the innermost open form
    top: Form | None = None
    shared: dict[str, str] = {}  # one string per distinct word: tokens keep no copies of their values
    share = shared.setdefault
    group: int | None = -1  # the last match's group; None once the end of input matched
    for match in SCANNER.finditer(text):
        group = match.lastindex
        if group is None:
            break  # end of input
        if top is not None or (not stack and group != GROUP_OPEN):
            break  # trailing input, or not a form first: the two-pass path reports it
        if group == GROUP_OPEN:
            if len(stack) >= limit:
                break
            form = Form(match.start(group))
            if stack:
                items.append(form)
            stack.append(form)
            items = form.items
        elif group == GROUP_CLOSE:
            form = stack.pop()
            form.end = match.start(group)
            if stack:
                items = stack[-1].items
            else:
                top = form
        elif len(stack) >= limit:
            break
        elif group == GROUP_NAME:
            value = match.group(group)
            items.append((KEYWORD if value in reserved else NAME, share(value, value), match.start(group)))
        elif group == GROUP_NUMBER:
            value = match.group(group)
            items.append((NUMBER, share(value, value), match.start(group)))
        elif group in (GROUP_DOUBLE, GROUP_SINGLE):
            body = match.group(group)
            start = match.start(group) - 1  # the opening quote
            if "\\" in body:
                # Every earlier character scanned cleanly, so a bad escape here
                # is the first lexical error, as `tokenize` would report it.
                body = decode_escapes(source, body, start + 1)
            items.append((STRING, body, start))
        else:
            break  # a malformed word or a character no token starts with: a lexical error
    if top is not None and group is None:
        return top
    return parse_forms(source, tokenize(source))


# The plain subset `parse_unpositioned` takes: spaces and LF between tokens,
# parentheses, names and numbers that are whole words (the scanner's own
# spellings and lookaheads), double-quoted strings without escapes. At any
# position at most one alternative matches, and only with one length (a
# shorter name or number would be followed by a word character), so the
# possessive repetition accepts exactly the texts the scanner splits into
# those tokens, with no backtracking on a text that fails late.
# Compiled on first use (`_plain_text`): `vpl check` of a file with comments never needs it.
_PLAIN_TEXT_PATTERN = (
    r"""(?:
     [ \n]++
    |[()]
    |_*[A-Za-z][A-Za-z0-9_]*+(?!WORD)
    |[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?!WORD)
    |"[^"\\\x00-\x1f]*+"
    )*+""".replace("WORD", WORD_CHARACTER)
)
_NUMBER_STARTS = frozenset("0123456789+-.")
# Characters plain text never holds outside or inside a string: a quick refusal before the scan.
_NEVER_PLAIN = ("/", "\\", "\t", "\r", "'")


@functools.cache
def _plain_text() -> re.Pattern[str]:
    return re.compile(_PLAIN_TEXT_PATTERN, re.X)


def is_plain(text: str) -> bool:
    """Whether `text` is in the plain subset `parse_unpositioned` takes (its lexical part; see there)."""
    for character in _NEVER_PLAIN:
        if character in text:
            return False
    return _plain_text().fullmatch(text) is not None


def _token_key(text: str) -> str:
    """The tokens of plain `text` as one string: strings verbatim, every run of trivia one space, none
    beside a parenthesis (so two plain texts have the same key exactly when they split into the same tokens)."""
    parts = text.split('"')
    for index in range(0, len(parts), 2):  # outside strings (a double quote only delimits strings in plain text)
        parts[index] = " ".join(parts[index].replace("(", " ( ").replace(")", " ) ").split())
    return '"'.join(parts)


def same_tokens(text: str, other: str, *, other_is_plain: bool = False) -> bool:
    """Whether two texts differ at most in their trivia, both being plain: the same tokens in the same order.

    Such texts scan alike (`parse_unpositioned`: to equal forms, or both to
    None) and so read to equal modules: the publication takes a source that
    is canonical text laid out otherwise (lines broken or joined) as its own
    read-back. False if either text is not plain (lexically: comments,
    escapes, tabs, CR...), and for plain texts that differ in a token.
    `other_is_plain`: the caller knows `other` is plain (a scan found it so);
    the answer is the same, found by comparing only the lines where the texts differ.
    """
    if other_is_plain:
        return _same_tokens_as_plain(text, other)
    # Trivia is spaces and LF only in plain text: equal tokens leave equal texts once they are removed. So
    # `other` holds the characters of plain `text` and spaces and LF besides (no tab, CR, comment, escape),
    # and with the same words and strings it is plain too: one scan of `text` decides for both.
    if text.replace(" ", "").replace("\n", "") != other.replace(" ", "").replace("\n", ""):
        return False
    return is_plain(text) and (text == other or _token_key(text) == _token_key(other))


def _same_tokens_as_plain(text: str, other: str) -> bool:
    """`same_tokens(text, other)` for a plain `other`, looking only at the lines where the two differ.

    Both texts are cut at an LF in their common prefix and one in their common suffix: in plain `other`
    every LF is trivia (strings hold no control character), and so it is in `text` at the same place (as
    many double quotes precede it). Equal parts scan to equal tokens, so the texts have the same tokens
    exactly when the middles have, which `same_tokens`' character and key comparisons decide. With the
    same tokens as plain `other` (its words and strings, and only spaces and LF between them), `text` is
    plain too: no scan of it is needed.
    """
    if text == other:
        return True
    shorter = min(len(text), len(other))
    prefix = _common_length(text, other, shorter, 1)
    suffix = _common_length(text, other, shorter - prefix, -1)
    start = text.rfind("\n", 0, prefix) + 1  # just after an LF of the common prefix, or the start
    end = text.find("\n", len(text) - suffix)  # an LF of the common suffix, or none: the end
    text_end = len(text) if end < 0 else end
    other_end = len(other) - (len(text) - text_end)
    middle, other_middle = text[start:text_end], other[start:other_end]
    if middle.replace(" ", "").replace("\n", "") != other_middle.replace(" ", "").replace("\n", ""):
        return False
    return _token_key(middle) == _token_key(other_middle)


_CHUNK = 4096


def _common_length(text: str, other: str, limit: int, direction: int) -> int:
    """The length (at most `limit`) of the common prefix (`direction` 1) or suffix (-1) of two texts."""
    length = 0
    # Whole chunks first (slices compared in C), then characters within the first differing chunk.
    while length + _CHUNK <= limit and (
        text[length:length + _CHUNK] == other[length:length + _CHUNK] if direction > 0
        else text[len(text) - length - _CHUNK:len(text) - length] == other[len(other) - length - _CHUNK:len(other) - length]
    ):
        length += _CHUNK
    if direction > 0:
        while length < limit and text[length] == other[length]:
            length += 1
    else:
        while length < limit and text[-1 - length] == other[-1 - length]:
            length += 1
    return length


def parse_unpositioned(text: str) -> Form | None:
    """The forms `parse_source` builds for `text`, every position 0; None if `text` is not plain.

    Plain text (what the writer emits, and most hand-written files without
    comments or escapes): only spaces and LF as trivia, no comments, tabs,
    CR or line continuations, double-quoted strings without escapes, no
    '/' or single quote anywhere (so a comment is refused before the scan),
    and exactly one top-level form nested at most `MAX_NESTING_DEPTH` deep.
    For such text the result equals `parse_source`'s but for positions;
    for anything else (including every input `parse_source` rejects) it is
    None and the caller scans exactly. One regular-expression pass checks
    the text, then `str.split` cuts it into words (strings at the double
    quotes, which only delimit strings in plain text) and one loop builds
    the forms; repeated words share one token tuple.
    """
    for character in _NEVER_PLAIN:
        if character in text:
            return None  # a comment, an escape, a tab, a CR or a single quote: scan exactly
    if _plain_text().fullmatch(text) is None:
        return None
    limit = MAX_NESTING_DEPTH
    reserved = RESERVED_WORDS
    number_starts = _NUMBER_STARTS
    tokens: dict[str, Token] = {}
    stack: list[Form] = []
    items: list[Item] | None = None  # the items of the innermost open form; None outside every form
    top: Form | None = None
    in_string = False
    for part in text.split('"'):
        if in_string:  # the body of a string (no escapes in plain text)
            if items is None or len(stack) >= limit:
                return None
            items.append((STRING, part, 0))
            in_string = False
            continue
        in_string = True
        for word in part.replace("(", " ( ").replace(")", " ) ").split():
            if word == "(":
                if top is not None or len(stack) >= limit:
                    return None  # trailing input, or too deep
                form = Form(0)
                if items is not None:
                    items.append(form)
                stack.append(form)
                items = form.items
            elif word == ")":
                if not stack:
                    return None
                form = stack.pop()
                if stack:
                    items = stack[-1].items
                else:
                    top = form
                    items = None
            else:
                if items is None or len(stack) >= limit:
                    return None  # an atom outside every form, or too deep
                token = tokens.get(word)
                if token is None:
                    kind = NUMBER if word[0] in number_starts else KEYWORD if word in reserved else NAME
                    token = tokens[word] = (kind, word, 0)
                items.append(token)
    if top is None or stack:
        return None  # no form, or one left open
    return top
