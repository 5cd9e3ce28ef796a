"""Every case of data/negative-cases.vpl-cases is rejected with its category, position and rule kind.

The data file holds many small negative cases split by marker lines (see
its header), so adding a case is adding a few lines of text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from vpl_core.diagnostics import LexicalError, SemanticError, SyntacticError, VplError
from vpl_core.records import replace
from vpl_core.text import read

CASES_FILE = Path(__file__).parent / "data" / "negative-cases.vpl-cases"
ERROR_CLASSES = {"lexical": LexicalError, "syntactic": SyntacticError, "semantic": SemanticError}


@dataclass(frozen=True)
class NegativeCase:
    name: str
    category: str
    line: int
    column: int
    kind: str  # the rule kind's code, `Family.MEMBER`
    strict: bool
    text: str


def load_cases() -> list[NegativeCase]:
    cases: list[NegativeCase] = []
    header: str | None = None
    body: list[str] = []

    def finish() -> None:
        if header is None:
            return
        fields = [field.strip() for field in header[3:].split(" | ")]
        name, expectation, kind = fields[:3]
        flags = fields[3:]
        category, position = expectation.split()
        line, column = (int(number) for number in position.split(":"))
        while body and not body[-1].strip():
            body.pop()
        cases.append(NegativeCase(name, category, line, column, kind, "strict" in flags, "\n".join(body)))

    with open(CASES_FILE, encoding="utf-8", newline="") as stream:
        for line in stream.read().split("\n"):
            if line.startswith("==="):
                finish()
                header, body = line, []
            elif header is not None:
                body.append(line)
    finish()
    return cases


CASES = load_cases()


def test_the_case_file_has_cases_of_every_category() -> None:
    assert {case.category for case in CASES} == set(ERROR_CLASSES)
    assert len({case.name for case in CASES}) == len(CASES), "case names must be unique"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_negative_case(case: NegativeCase) -> None:
    with pytest.raises(VplError) as raised:
        read(case.text, label="case.vpl", strict_v1=case.strict)
    error = raised.value
    diagnostic = error.diagnostic
    kind = diagnostic.kind.code if diagnostic.kind is not None else None
    actual = f"{type(error).__name__} {diagnostic.line}:{diagnostic.column} {kind} {diagnostic.message}"
    assert type(error) is ERROR_CLASSES[case.category], actual
    assert (diagnostic.line, diagnostic.column) == (case.line, case.column), actual
    assert kind == case.kind, actual
    assert diagnostic.label == "case.vpl"
    # The byte offset agrees with line and column.
    data = case.text.encode("utf-8")
    lines = case.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    prefix = "\n".join(lines[: case.line - 1]) + ("\n" if case.line > 1 else "") + lines[case.line - 1][: case.column - 1]
    assert diagnostic.offset == len(prefix.encode("utf-8")) <= len(data)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_compile_source_reports_what_read_reports(case: NegativeCase) -> None:
    """compile_source verifies the canonical text, not the parse of the source (issue 20), yet an
    invalid source gets the same diagnostic, at the same place, as reading it."""
    from vpl_core.backends.glsl import compile_source

    with pytest.raises(VplError) as read_error:
        read(case.text, label="case.vpl", strict_v1=case.strict)
    with pytest.raises(VplError) as compile_error:
        compile_source(case.text, "case.vpl", strict_v1=case.strict)
    assert type(compile_error.value) is type(read_error.value)
    # Equal but for the subject, which is an object of each call's own module.
    assert replace(compile_error.value.diagnostic, subject=None) == replace(read_error.value.diagnostic, subject=None)
