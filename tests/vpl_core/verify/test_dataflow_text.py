"""Data-flow diagnostics through the text reader: spec examples and one-edit variants.

The reader places a verifier diagnostic at its subject, so these tests also
check that the data-flow layer blames the precise object (the register
operand, the storage path, the call, the return) rather than a whole block.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vpl_core.diagnostics import SemanticError
from vpl_core.text import read

SPEC = Path(__file__).resolve().parents[2] / "data" / "spec"


def _text(name: str) -> str:
    return (SPEC / name).read_text(encoding="utf-8")


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize("name", ["canonical-example.vpl", "loop-and-helper.vpl", "nested-aggregate-storage.vpl"])
def test_spec_examples_are_accepted(name: str):
    read(_text(name), name)


# (file, old, new, message gist, the text at the reported line:column)
REJECTED = [
    (
        "loop-and-helper.vpl",
        "(copy r0 (int 0))",
        "",
        "register r0 is read before it is definitely assigned",
        "r0 (int 2))",
    ),
    (
        "loop-and-helper.vpl",
        "(divide r2 r2 (float 2.0))",
        "(divide r0 r0 (int 0))",
        "integer division by the constant 0",
        "(divide r0 r0 (int 0))",
    ),
    (
        "loop-and-helper.vpl",
        "(add r0 r0 (int 1))",
        "(call r0 increment r0)",
        "function 'increment' calls itself",
        "(call r0 increment r0)",
    ),
    (
        "nested-aggregate-storage.vpl",
        "(copy r3 (int 1))",
        "",
        "register r3 is read before it is definitely assigned",
        'r3) "color") r0)',
    ),
    (
        "nested-aggregate-storage.vpl",
        "(construct r2 r1 r1)",
        "",
        "store into part of local r2",
        '(member_ref (index_ref (local r2) r3) "color") r0)',
    ),
    (
        "nested-aggregate-storage.vpl",
        "(store (stage pixel) r0)",
        "",
        "returns before output 'pixel_color' is fully assigned",
        "(return)",
    ),
    (
        "canonical-example.vpl",
        "(construct r0 (float 1.0) (float 0.0) (float 0.0) (float 1.0))",
        "(load r0 (stage color))",
        "output 'color' is read before 'color' is definitely assigned",
        "(stage color))",
    ),
]


@pytest.mark.parametrize("name, old, new, gist, located", REJECTED)
def test_one_edit_variants_are_rejected_at_the_subject(name: str, old: str, new: str, gist: str, located: str):
    text = _edit(_text(name), old, new)
    with pytest.raises(SemanticError) as caught:
        read(text, name)
    diagnostic = caught.value.diagnostic
    assert gist in diagnostic.message
    line = text.splitlines()[diagnostic.line - 1]
    assert line[diagnostic.column - 1 :].startswith(located), (line, diagnostic.column)
