"""Shared builders and assertions for the data-flow tests (this file holds no tests).

Modules are built with `vpl_core.ir.builder` so that they are valid for the
structural layer by construction: every test module has a complete vertex
stage (Position output stored on every path) and a fragment stage with a
FragmentColor output; a test adds the functions it is about.

`assert_rejected` checks the data-flow layer directly and through
`Verifier().run`, so a test also covers the verifier's layer order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from vpl_core.ir import (
    VOID,
    Block,
    DeclareLocalInstruction,
    FunctionBuilder,
    Instruction,
    Module,
    ReferenceValue,
    Semantic,
    StageBuilder,
    vec,
)
from vpl_core.verify import VerificationError, Verifier, dataflow
from vpl_core.verify.errors import VerifierRule


@dataclass
class FragmentModule:
    """A module whose fragment stage is the test's subject."""

    module: Module
    fragment: StageBuilder
    color: ReferenceValue

    def entry(self, name: str = "fragment_main") -> FunctionBuilder:
        return self.fragment.function(name, VOID, entry=True)

    def store_color(self, function: FunctionBuilder) -> None:
        """Assign the whole color output with a constant vector."""
        value = function.construct(vec(4), function.f(0.0), function.f(1.0), function.f(0.0), function.f(1.0))
        function.store(self.color, value)


def complete_vertex_stage(module: Module) -> StageBuilder:
    vertex = StageBuilder(module.vertex)
    position = vertex.output("position", vec(4), semantic=Semantic.POSITION)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(position, main.construct(vec(4), main.f(1.0)))
    main.ret()
    return vertex


def fragment_module() -> FragmentModule:
    module = Module()
    complete_vertex_stage(module)
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    return FragmentModule(module, fragment, color)


def vertex_module() -> tuple[Module, StageBuilder, ReferenceValue]:
    """A module whose vertex stage is the subject: Position declared, no functions yet.

    The fragment stage is complete (color output assigned).
    """
    module = Module()
    vertex = StageBuilder(module.vertex)
    position = vertex.output("position", vec(4), semantic=Semantic.POSITION)
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    main = fragment.function("fragment_main", VOID, entry=True)
    main.store(color, main.construct(vec(4), main.f(1.0)))
    main.ret()
    return module, vertex, position


def assert_accepted(module: Module) -> None:
    dataflow.check_module(module)
    Verifier().run(module)


def assert_rejected(module: Module, kind: VerifierRule, subject: Any) -> VerificationError:
    """The data-flow layer and the full verifier reject `module` for the rule `kind`, blaming `subject` itself."""
    with pytest.raises(VerificationError) as caught:
        dataflow.check_module(module)
    error = caught.value
    assert error.kind is kind, f"kind is {error.kind!r}, expected {kind!r} ({error.message})"
    assert error.subject is subject, f"subject {error.subject!r} is not {subject!r}"
    assert len(error.context) == 4
    with pytest.raises(VerificationError) as through_verifier:
        Verifier().run(module)
    assert through_verifier.value.kind is kind and through_verifier.value.message == error.message
    assert through_verifier.value.subject is subject
    return error


def executable(block: Block) -> list[Instruction]:
    """The block's instructions after its register declarations."""
    return [instruction for instruction in block.instructions if not isinstance(instruction, DeclareLocalInstruction)]
