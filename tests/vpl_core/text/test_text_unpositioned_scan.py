"""The position-free scan (`parser.parse_unpositioned`) never accepts more than the exact scan, and agrees with it.

For every input it either answers None (not plain text: the reader scans
exactly) or the forms `parse_source` builds, positions aside; whenever
`parse_source` rejects an input (any lexical or syntactic error) it answers
None. Inputs: the spec examples, the shipped programs, their canonical
text, deterministic mutations (the same fragments as the one-pass scan's
test, plus plain ones that keep the text plain), and the edge cases of
nesting and of trailing or missing input.

`parser.same_tokens` (two texts differ at most in trivia: the publication
takes such a source as its own read-back) answers True for a plain text
that scans to forms exactly when the other is plain and scans to the same
forms.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from vpl_core.diagnostics import VplError
from vpl_core.text import read, write
from vpl_core.text.lexer import decode
from vpl_core.text.parser import MAX_NESTING_DEPTH, Form, parse_source, parse_unpositioned, same_tokens

ROOT = Path(__file__).resolve().parents[3]
SOURCES = sorted((ROOT / "tests" / "data" / "spec").glob("*.vpl")) + sorted((ROOT / "resources" / "programs").glob("*.vpl"))

_PIECES = (
    "(", ")", '"', "'", "\\", "\\u00", "/*", "*/", "//", "\n", "\r", "\t", "1.2.3", "_", "true", "x", " ", "\x01", "é",
    "((((", "))", '"a\\qb"', "'\\ud800'", '"\\u0041"', "r00", "+", "-1e", "\x7f", "1", "-2.5e3", ".5", "a1", '"é ( )"',
    "void", "__x", "1x", "x+", '"', "( x )",
)


def _without_positions(form: Form) -> list[object]:
    return [_without_positions(item) if isinstance(item, Form) else item[:2] for item in form.items]


def _positions(form: Form) -> set[int]:
    found = {form.start, form.end}
    for item in form.items:
        found |= _positions(item) if isinstance(item, Form) else {item[2]}
    return found


def _assert_agrees(text: str) -> bool:
    """Checks the contract on `text`; True if the position-free scan took it."""
    quick = parse_unpositioned(text)
    try:
        exact = parse_source(decode(text, "t.vpl"))
    except VplError:
        assert quick is None, repr(text[:200])
        return False
    if quick is None:
        return False
    assert _without_positions(quick) == _without_positions(exact), repr(text[:200])
    assert _positions(quick) == {0}
    return True


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_canonical_text_is_plain_and_scans_to_the_same_forms(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    _assert_agrees(text)
    assert _assert_agrees(write(read(text)))


@pytest.mark.parametrize("seed", range(8))
def test_mutated_files_scan_the_same_or_not_at_all(seed: int) -> None:
    generator = random.Random(seed)
    texts = [path.read_text(encoding="utf-8") for path in SOURCES]
    texts += [write(read(text)) for text in texts]
    taken = 0
    for _ in range(150):
        text = generator.choice(texts)
        for _ in range(generator.randint(1, 3)):
            position = generator.randrange(len(text) + 1)
            if generator.random() < 0.6:
                text = text[:position] + generator.choice(_PIECES) + text[position:]
            else:
                text = text[:position] + text[position + generator.randint(1, 5) :]
        taken += _assert_agrees(text)
    assert taken > 10  # the mutations exercise the position-free path, not only its refusals


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        ")",
        "x",
        '"x"',
        "(a) b",
        '(a) "b"',
        "(a) (b)",
        "(a",
        "(a))",
        "(a)\n",
        "\n (a b\n(c)) ",
        '(a"b"c)',
        '(a "" "( )")',
        "(" * MAX_NESTING_DEPTH + ")" * MAX_NESTING_DEPTH,
        "(" * (MAX_NESTING_DEPTH + 1) + ")" * (MAX_NESTING_DEPTH + 1),
        "(" * (MAX_NESTING_DEPTH - 1) + "x" + ")" * (MAX_NESTING_DEPTH - 1),
        "(" * MAX_NESTING_DEPTH + "x" + ")" * MAX_NESTING_DEPTH,
        "(" * (MAX_NESTING_DEPTH - 1) + '"x"' + ")" * (MAX_NESTING_DEPTH - 1),
        "(" * MAX_NESTING_DEPTH + '"x"' + ")" * MAX_NESTING_DEPTH,
        "(a 1.2.3 (b",
        '(a "\\q")',
        "(a) /* unterminated",
        "(a // comment\n)",
        "(a\tb)",
        "(a\r\nb)",
        "(1a b)",
        "(a+ b)",
        "(+1 -2 .5 1. 1e3 -1.5E-3 true false void _a __b9)",
    ],
)
def test_edge_cases(text: str) -> None:
    _assert_agrees(text)


def test_plain_text_with_a_late_failure_takes_linear_time() -> None:
    """A long plain text that fails at its end: the possessive scan does not backtrack over earlier spaces."""
    for ending in (" 1x)", " é)", " a+)", ' "\x01")'):  # refused by the expression, not by the quick character test
        text = "(a" + "     b" * 50_000 + ending
        assert parse_unpositioned(text) is None


def _same_forms(text: str, other: str) -> bool:
    """The reference answer for `same_tokens`: both plain, the same forms."""
    first, second = parse_unpositioned(text), parse_unpositioned(other)
    return first is not None and second is not None and _without_positions(first) == _without_positions(second)


def _laid_out_otherwise(text: str, generator: random.Random) -> str:
    """`text` with its trivia changed outside strings: runs of spaces and LF replaced, added beside parentheses."""
    parts = text.split('"')
    for index in range(0, len(parts), 2):
        words = parts[index].replace("(", " ( ").replace(")", " ) ").split(" ")
        parts[index] = "".join(word + generator.choice(("", " ", "\n", "  \n ")) if word in ("(", ")") or not word
                               else word + generator.choice((" ", "\n", " \n"))
                               for word in words)
    return '"'.join(parts)


@pytest.mark.parametrize("seed", range(4))
def test_same_tokens_is_equal_forms_of_plain_texts(seed: int) -> None:
    generator = random.Random(seed)
    canonical = [write(read(path.read_text(encoding="utf-8"))) for path in SOURCES]
    same = 0
    for _ in range(60):
        text = generator.choice(canonical)
        if generator.random() < 0.5:
            other = _laid_out_otherwise(text, generator)
        else:  # a few lines laid out otherwise: the texts share a long prefix and suffix (LF is trivia in them)
            lines = text.split("\n")
            first = generator.randrange(len(lines))
            last = generator.randrange(first, min(len(lines), first + 4)) + 1
            other = "\n".join([*lines[:first], _laid_out_otherwise("\n".join(lines[first:last]), generator), *lines[last:]])
        if generator.random() < 0.5:  # and a mutation, which may or may not change a token
            position = generator.randrange(len(other) + 1)
            other = other[:position] + generator.choice(_PIECES) + other[position:]
        expected = _same_forms(text, other)
        assert same_tokens(text, other) == expected == same_tokens(other, text), repr(other[:200])
        # Told that one text is plain (a scan found it so), the answer is the same.
        for one, plain in ((text, other), (other, text)):
            if parse_unpositioned(plain) is not None:
                assert same_tokens(one, plain, other_is_plain=True) == expected, repr(other[:200])
        same += expected
    assert 10 < same < 60  # both answers are exercised


@pytest.mark.parametrize(
    ("text", "other", "expected"),
    [
        ("(a b)", "( a\n  b )", True),
        ("(a b)", "(ab)", False),
        ('(a "x y")', '(a "x  y")', False),  # inside a string, spaces are the token
        ('(a "x")', '(a"x")', True),
        ("(a b)", "(a b) ", True),
        ("(a b)", "(a\tb)", False),  # a tab: not plain, scanned exactly
        ("(a b)", "(a b // c\n)", False),
        ("(a b", "(a  b", True),  # the same tokens, if no form (both scans refuse them alike)
        ("(a b)", "(a b)", True),
    ],
)
def test_same_tokens_cases(text: str, other: str, expected: bool) -> None:
    assert same_tokens(text, other) == expected
    if parse_unpositioned(other) is not None:
        assert same_tokens(text, other, other_is_plain=True) == expected
    if parse_unpositioned(text) is not None:
        assert expected == _same_forms(text, other)
