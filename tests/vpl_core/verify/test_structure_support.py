"""Shared builders and assertions for the structural-layer tests (this file holds no tests).

`sample()` builds a module that is valid for the whole verifier: a vertex
stage storing its Position output and a fragment stage storing its
FragmentColor output, both entries already terminated. Instructions a test
appends through the builders land before those terminators (a terminator is
a separate field of the block), so a test adds exactly what it is about.

`assert_rejected` checks `structure.check_module` directly and through
`Verifier().run`: the rule kind, and that the subject is the very object
the test expects (identity, not equality: registers and references compare
by value). Messages are for people; tests of their wording live in
`tests/vpl_core/test_diagnostic_messages.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from vpl_core.ir import (
    VOID,
    FunctionBuilder,
    Module,
    ReferenceValue,
    Semantic,
    StageBuilder,
    vec,
)
from vpl_core.verify import VerificationError, Verifier, structure
from vpl_core.verify.errors import VerifierRule


@dataclass
class Sample:
    module: Module
    vertex: StageBuilder
    fragment: StageBuilder
    vertex_main: FunctionBuilder
    fragment_main: FunctionBuilder
    position: ReferenceValue
    color: ReferenceValue


def sample() -> Sample:
    module = Module()
    vertex = StageBuilder(module.vertex)
    position = vertex.output("position", vec(4), semantic=Semantic.POSITION)
    vertex_main = vertex.function("vertex_main", VOID, entry=True)
    vertex_main.store(position, vertex_main.construct(vec(4), vertex_main.f(1.0)))
    vertex_main.ret()
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    fragment_main = fragment.function("fragment_main", VOID, entry=True)
    value = fragment_main.construct(
        vec(4), fragment_main.f(0.0), fragment_main.f(1.0), fragment_main.f(0.0), fragment_main.f(1.0)
    )
    fragment_main.store(color, value)
    fragment_main.ret()
    return Sample(module, vertex, fragment, vertex_main, fragment_main, position, color)


def assert_accepted(module: Module) -> None:
    """The structural layer accepts the module (data flow is not this layer's business)."""
    structure.check_module(module)


def assert_rejected(
    module: Module, kind: VerifierRule, subject: Any, context: tuple[Any, ...] | None = None
) -> VerificationError:
    """The structural layer rejects the module for the rule `kind`, naming `subject`."""
    with pytest.raises(VerificationError) as caught:
        structure.check_module(module)
    error = caught.value
    assert error.kind is kind, f"kind is {error.kind!r}, expected {kind!r} ({error.message})"
    assert error.subject is subject, f"subject is {error.subject!r}, expected {subject!r} ({error.message})"
    if context is not None:
        assert len(error.context) == len(context) and all(
            found is expected for found, expected in zip(error.context, context)
        ), f"context {error.context!r}, expected {context!r}"
    # The verifier runs the structural layer first: same first error.
    with pytest.raises(VerificationError) as again:
        Verifier().run(module)
    assert again.value.kind is error.kind and again.value.message == error.message
    return error
