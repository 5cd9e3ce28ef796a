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
from vpl_core.verify.errors import DataFlowRule

SPEC = Path(__file__).resolve().parents[2] / "data" / "spec"


def _text(name: str) -> str:
    return (SPEC / name).read_text(encoding="utf-8")


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize("name", ["canonical-example.vpl", "loop-and-helper.vpl", "nested-aggregate-storage.vpl"])
def test_spec_examples_are_accepted(name: str):
    read(_text(name), name)


# (file, old, new, rule kind, the text at the reported line:column)
REJECTED = [
    (
        "loop-and-helper.vpl",
        "(copy r0 (int 0))",
        "",
        DataFlowRule.UNASSIGNED_REGISTER,
        "r0 (int 2))",
    ),
    (
        "loop-and-helper.vpl",
        "(divide r2 r2 (float 2.0))",
        "(divide r0 r0 (int 0))",
        DataFlowRule.CONSTANT_DIVISION_BY_ZERO,
        "(divide r0 r0 (int 0))",
    ),
    (
        "loop-and-helper.vpl",
        "(add r0 r0 (int 1))",
        "(call r0 increment r0)",
        DataFlowRule.RECURSION,
        "(call r0 increment r0)",
    ),
    (
        "nested-aggregate-storage.vpl",
        "(copy r3 (int 1))",
        "",
        DataFlowRule.UNASSIGNED_REGISTER,
        'r3) "color") r0)',
    ),
    (
        "nested-aggregate-storage.vpl",
        "(construct r2 r1 r1)",
        "",
        DataFlowRule.PARTIAL_LOCAL_STORE,
        '(member_ref (index_ref (local r2) r3) "color") r0)',
    ),
    (
        "nested-aggregate-storage.vpl",
        "(store (stage pixel) r0)",
        "",
        DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN,
        "(return)",
    ),
    (
        "canonical-example.vpl",
        "(construct r0 (float 1.0) (float 0.0) (float 0.0) (float 1.0))",
        "(load r0 (stage color))",
        DataFlowRule.UNASSIGNED_OUTPUT_READ,
        "(stage color))",
    ),
]


@pytest.mark.parametrize("name, old, new, kind, located", REJECTED)
def test_one_edit_variants_are_rejected_at_the_subject(name: str, old: str, new: str, kind: DataFlowRule, located: str):
    text = _edit(_text(name), old, new)
    with pytest.raises(SemanticError) as caught:
        read(text, name)
    diagnostic = caught.value.diagnostic
    assert diagnostic.kind is kind
    line = text.splitlines()[diagnostic.line - 1]
    assert line[diagnostic.column - 1 :].startswith(located), (line, diagnostic.column)
