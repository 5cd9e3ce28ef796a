"""Robustness: no input makes the reader raise anything but the three reading errors (docs/architecture.md, "Errors").

Random bytes, random token soup and mutations of valid module texts. Sizes
are bounded so that every example is quick; an accepted mutation must also
write canonically.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from text_support import random_module
from tiers import examples

from vpl_core.diagnostics import LexicalError, SemanticError, SyntacticError
from vpl_core.text import read, write

SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "spec"
SEED_TEXTS = [path.read_text(encoding="utf-8") for path in sorted(SPEC_EXAMPLES.glob("*.vpl"))] + [
    write(random_module(seed)) for seed in range(6)
]
READING_ERRORS = (LexicalError, SyntacticError, SemanticError)

VOCABULARY = [
    "(", ")", "(", ")", "module", "1", "types", "type", "uniforms", "vertex", "fragment", "interface",
    "functions", "function", "parameters", "parameter", "registers", "register", "block", "in", "out",
    "void", "bool", "int", "float", "vector", "matrix", "array", "record", "field", "sampler2D", "scalar",
    "copy", "load", "store", "add", "less", "construct", "call", "texture", "swizzle", "member", "index",
    "member_ref", "index_ref", "local", "uniform", "stage", "branch", "branch_if", "return", "discard",
    "extensions", '"math"', "sin", "mix", "true", "false", "r0", "r1", "r00", "t0", "x", "-1", "0", "2",
    "4", "1.5", "-0.0", "1e39", "2147483648", '"name"', "'q'", '""', "none", "position", "color",
    "fragment_color", "texcoord", "// c\n", "/* c */", "\\\n", "\n", "\r\n", "\t",
]


def assert_reads_or_fails_cleanly(source: str | bytes) -> None:
    try:
        module = read(source, label="fuzz.vpl")
    except READING_ERRORS as error:
        diagnostic = error.diagnostic
        assert diagnostic.label == "fuzz.vpl"
        assert diagnostic.line is not None and diagnostic.line >= 1 and diagnostic.column >= 1
        assert diagnostic.offset is not None and diagnostic.offset >= 0
        return
    text = write(module)
    assert write(read(text)) == text


@settings(max_examples=examples(400), deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    assert_reads_or_fails_cleanly(data)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=200))
def test_random_text(text: str) -> None:
    assert_reads_or_fails_cleanly(text)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=120), st.sampled_from([" ", ""]))
def test_random_token_soup(words: list[str], separator: str) -> None:
    assert_reads_or_fails_cleanly(separator.join(words))


@st.composite
def mutated_module_texts(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEED_TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        if not text:
            break
        start = draw(st.integers(0, len(text) - 1))
        end = draw(st.integers(start, min(len(text), start + 40)))
        operation = draw(st.integers(0, 5))
        if operation == 0:  # delete a span
            text = text[:start] + text[end:]
        elif operation == 1:  # duplicate a span
            text = text[:end] + text[start:end] + text[end:]
        elif operation == 2:  # insert a vocabulary word
            text = text[:start] + " " + draw(st.sampled_from(VOCABULARY)) + " " + text[start:]
        elif operation == 3:  # replace a span by a word
            text = text[:start] + draw(st.sampled_from(VOCABULARY)) + text[end:]
        elif operation == 4:  # insert any character
            text = text[:start] + draw(st.characters()) + text[start:]
        else:  # swap two spans
            other = draw(st.integers(0, len(text) - 1))
            first, second = sorted((start, other))
            text = text[:first] + text[second:second + 5] + text[first + 5:second] + text[first:first + 5] + text[second + 5:]
    return text


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_module_texts())
def test_mutated_module_texts(text: str) -> None:
    assert_reads_or_fails_cleanly(text)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(SEED_TEXTS), st.data())
def test_every_prefix_of_a_valid_text_fails_cleanly(text: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(text) - 1))
    prefix = text[:cut]
    try:
        read(prefix)
    except READING_ERRORS:
        return
    # Only a cut inside trailing trivia can leave a complete module.
    assert not text[cut:].strip()
