"""The fuzz target of the whole VPL pipeline: one input through reader, verifier, writer, publication and GLSL.

`check(data)` is the property every input must satisfy (issue 23):

* reading either succeeds or raises exactly one of the three reading errors,
  whose diagnostic has a label, line, column and byte offset, and is never
  an "internal verifier error";
* an accepted module's canonical text reads back to the same text (writer
  round trip), and publication gives that text, with a materialization that
  writes it again;
* every target (glsl420, es300, es320) either compiles or raises a
  positioned `TargetError`; nothing else escapes;
* the GLSL of every accepted program passes `glslangValidator -l` (both
  stages, linked), when a validator is given.

Any other exception, or a failed assertion, is a bug. Two drivers use it:
`tests/fuzz/test_fuzz_pipeline.py` (hypothesis, a fixed budget in every test
run and in CI) and `tests/fuzz/atheris_pipeline.py` (coverage-guided, for
long runs; see docs/performance.md and README in this folder).

Inputs are mutations of the project's own valid modules (`seed_texts`):
golden fixtures, spec examples, built-in programs and example materials.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from vpl_core.backends.glsl import compile_source
from vpl_core.diagnostics import LexicalError, SemanticError, SyntacticError, TargetError
from vpl_core.publish import VerifiedModule
from vpl_core.text import read, write

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ("glsl420", "es300", "es320")
READING_ERRORS = (LexicalError, SyntacticError, SemanticError)


def seed_texts() -> list[str]:
    """Valid modules to mutate, from the repository's single checked-in copies."""
    paths = sorted((ROOT / "tests" / "golden").glob("*.vpl"))
    paths += sorted((ROOT / "tests" / "data" / "spec").glob("*.vpl"))
    paths += sorted((ROOT / "resources" / "programs").glob("*.vpl"))
    paths += sorted((ROOT / "resources" / "examples").glob("*.vpl"))
    return [path.read_text(encoding="utf-8") for path in paths]


class Outcome:
    """What one input did, for statistics (accepted modules, compiled programs, validated stages)."""

    __slots__ = ("accepted", "compiled", "validated")

    def __init__(self) -> None:
        self.accepted = False
        self.compiled: list[str] = []
        self.validated = 0


def _assert_positioned(error: LexicalError | SyntacticError | SemanticError | TargetError, label: str) -> None:
    diagnostic = error.diagnostic
    assert diagnostic.label == label, diagnostic
    assert diagnostic.line is not None and diagnostic.column is not None and diagnostic.offset is not None, diagnostic
    assert diagnostic.line >= 1 and diagnostic.column >= 1 and diagnostic.offset >= 0, diagnostic
    assert diagnostic.message and not diagnostic.message.startswith("internal verifier error"), diagnostic


def _where_and_what(error: LexicalError | SyntacticError | SemanticError) -> tuple[object, ...]:
    """A diagnostic without its subject (an object of one module instance)."""
    diagnostic = error.diagnostic
    return (type(error), diagnostic.category, diagnostic.message, diagnostic.label, diagnostic.offset,
            diagnostic.line, diagnostic.column)


def check(data: bytes | str, validator: str | None = None) -> Outcome:
    """Run one input through the pipeline; raise AssertionError (or whatever escapes) on a bug."""
    outcome = Outcome()
    label = "fuzz.vpl"
    try:
        module = read(data, label=label)
    except READING_ERRORS as error:
        _assert_positioned(error, label)
        try:
            compile_source(data, label, "glsl420")
        except READING_ERRORS as compile_error:  # publication verifies differently, but reports the same
            assert _where_and_what(compile_error) == _where_and_what(error), (compile_error, error)
        else:
            raise AssertionError(f"compile_source accepted what read rejects: {error}")
        return outcome
    outcome.accepted = True
    text = write(module)
    assert write(read(text)) == text, "canonical text does not read back to itself"
    published = VerifiedModule.from_text(data, label=label)
    assert published.text == text
    assert write(published.materialize()) == text
    for target in TARGETS:
        try:
            artifact = compile_source(data, label, target)
        except TargetError as error:
            _assert_positioned(error, label)
            continue
        outcome.compiled.append(target)
        if validator is not None:
            _validate(validator, artifact.vertex_code, artifact.fragment_code, target)
            outcome.validated += 1
    return outcome


def _validate(validator: str, vertex: str, fragment: str, target: str) -> None:
    with tempfile.TemporaryDirectory(prefix="vpl-fuzz-") as directory:
        vertex_path = Path(directory, "program.vert")
        fragment_path = Path(directory, "program.frag")
        vertex_path.write_text(vertex, encoding="utf-8")
        fragment_path.write_text(fragment, encoding="utf-8")
        completed = subprocess.run(
            [validator, "-l", str(vertex_path), str(fragment_path)], capture_output=True, text=True, timeout=120
        )
    assert completed.returncode == 0, f"glslangValidator rejected the {target} program:\n{completed.stdout}"


# Structure-aware mutations (shared by the hypothesis and atheris drivers) ------------------------

import re  # noqa: E402 - grouped with the mutation helpers it serves

_TOKEN = re.compile(r'\(|\)|"(?:[^"\\]|\\.)*"|[^\s()"]+')
INTERESTING_NUMBERS = (
    "0", "1", "-1", "2", "3", "4", "5", "7", "8", "15", "16", "100", "127", "128", "2147483647", "-2147483648",
    "2147483648", "4294967296", "18446744073709551615", "0.0", "-0.0", "0.5", "1.0e38", "3.4028234663852886e38",
    "3.4028235e38", "1.4e-45", "1e-46", "-3.4028234663852886e38",
)


def tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


def form_end(text_tokens: list[re.Match[str]], open_index: int) -> int:
    """Index of the token closing the form opened at `open_index` (or the last token if unbalanced)."""
    depth = 0
    for index in range(open_index, len(text_tokens)):
        value = text_tokens[index].group(0)
        if value == "(":
            depth += 1
        elif value == ")":
            depth -= 1
            if depth == 0:
                return index
    return len(text_tokens) - 1


def mutate(text: str, choices: list[int]) -> str:
    """Apply one mutation chosen by the integers in `choices` (consumed from the front)."""

    def choose(limit: int) -> int:
        return choices.pop(0) % limit if choices and limit > 0 else 0

    found = tokens(text)
    if not found:
        return text
    operation = choose(7)
    token = found[choose(len(found))]
    start, end = token.span()
    if operation == 0:  # a number becomes an interesting one
        numbers = [match for match in found if re.fullmatch(r"[-+0-9.eE]+", match.group(0))]
        if numbers:
            token = numbers[choose(len(numbers))]
            start, end = token.span()
        return text[:start] + INTERESTING_NUMBERS[choose(len(INTERESTING_NUMBERS))] + text[end:]
    if operation == 1:  # a word becomes another word of the same text
        words = [match.group(0) for match in found if match.group(0) not in "()"]
        return text[:start] + words[choose(len(words))] + text[end:]
    opens = [index for index, match in enumerate(found) if match.group(0) == "("]
    if not opens:
        return text
    first = opens[choose(len(opens))]
    last = form_end(found, first)
    form_start, form_stop = found[first].start(), found[last].end()
    if operation == 2:  # delete a form
        return text[:form_start] + text[form_stop:]
    if operation == 3:  # duplicate a form
        return text[:form_stop] + " " + text[form_start:form_stop] + text[form_stop:]
    if operation == 4:  # swap a form with another
        second = opens[choose(len(opens))]
        second_last = form_end(found, second)
        other_start, other_stop = found[second].start(), found[second_last].end()
        if other_start >= form_stop:
            return (
                text[:form_start] + text[other_start:other_stop] + text[form_stop:other_start]
                + text[form_start:form_stop] + text[other_stop:]
            )
        return text
    if operation == 5:  # move a form to another place
        moved = text[form_start:form_stop]
        rest = text[:form_start] + text[form_stop:]
        at = found[choose(len(found))].start()
        at = min(at, len(rest))
        return rest[:at] + moved + " " + rest[at:]
    return text[:start] + text[end:]  # delete one token
