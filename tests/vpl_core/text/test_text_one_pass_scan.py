"""The reader's one-pass scan (`parser.parse_source`) is exactly `parse_forms(source, tokenize(source))`.

Same forms and tokens for well-formed input, and for everything else the
same error (class, rule, position, message), including which of a lexical
and a syntactic problem is reported first. Inputs: the spec examples, the
shipped programs and examples, deterministic mutations of them (inserted
parentheses, quotes, escapes, comments, controls; deletions), and nesting
at the depth limit.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from vpl_core.diagnostics import VplError
from vpl_core.text.lexer import decode, tokenize
from vpl_core.text.parser import MAX_NESTING_DEPTH, Form, parse_forms, parse_source
from vpl_core.text.source import SourceText

ROOT = Path(__file__).resolve().parents[3]
SOURCES = sorted((ROOT / "tests" / "data" / "spec").glob("*.vpl")) + sorted((ROOT / "resources" / "programs").glob("*.vpl"))

# Fragments that make words malformed, strings unterminated or badly escaped,
# comments unclosed, forms unbalanced or nested too deep.
_PIECES = (
    "(", ")", '"', "'", "\\", "\\u00", "/*", "*/", "//", "\n", "\r", "1.2.3", "_", "true", "x", " ", "\x01", "é",
    "((((", "))", '"a\\qb"', "'\\ud800'", '"\\u0041"', "r00", "+", "-1e", "\x7f",
)


def _shape(form: Form) -> tuple[object, ...]:
    return (form.start, form.end, [_shape(item) if isinstance(item, Form) else item for item in form.items])


def _outcome(parse: object, source: SourceText) -> tuple[object, ...]:
    try:
        return ("forms", _shape(parse(source)))  # type: ignore[operator]
    except VplError as error:
        return ("error", type(error).__name__, error.diagnostic.kind, error.diagnostic.format())


def _two_pass(source: SourceText) -> Form:
    return parse_forms(source, tokenize(source))


def _assert_same(text: str) -> None:
    source = decode(text, "t.vpl")
    assert _outcome(parse_source, source) == _outcome(_two_pass, source), repr(text[:200])


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_files_scan_to_the_same_forms(path: Path) -> None:
    _assert_same(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("seed", range(8))
def test_mutated_files_scan_to_the_same_forms_or_the_same_error(seed: int) -> None:
    generator = random.Random(seed)
    texts = [path.read_text(encoding="utf-8") for path in SOURCES]
    for _ in range(150):
        text = generator.choice(texts)
        for _ in range(generator.randint(1, 3)):
            position = generator.randrange(len(text) + 1)
            if generator.random() < 0.6:
                text = text[:position] + generator.choice(_PIECES) + text[position:]
            else:
                text = text[:position] + text[position + generator.randint(1, 5) :]
        _assert_same(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        ")",
        "x",
        "(a) b",
        "(a",
        "(a))",
        "(" * MAX_NESTING_DEPTH + ")" * MAX_NESTING_DEPTH,
        "(" * (MAX_NESTING_DEPTH + 1) + ")" * (MAX_NESTING_DEPTH + 1),
        "(" * (MAX_NESTING_DEPTH - 1) + "x" + ")" * (MAX_NESTING_DEPTH - 1),
        "(" * MAX_NESTING_DEPTH + "x" + ")" * MAX_NESTING_DEPTH,
        "(a 1.2.3 (b",  # a lexical error after a syntactic one: the lexical one is reported
        '(a "\\q")',
        "(a) /* unterminated",
    ],
)
def test_edge_cases_scan_the_same(text: str) -> None:
    _assert_same(text)
