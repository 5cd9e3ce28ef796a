"""Verified publication (spec 11): an immutable canonical-text snapshot, fresh materializations."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "text"))

from text_support import assert_same_module, minimal_module, random_module

from vpl_core.diagnostics import SemanticError
from vpl_core.ir import FLOAT, ConstantValue, FunctionBuilder, add_uniform
from vpl_core.publish import VerifiedModule
from vpl_core.text import read, write

SPEC_EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "spec" / "loop-and-helper.vpl"


def test_create_publishes_the_canonical_text() -> None:
    module = minimal_module()
    published = VerifiedModule.create(module, label="minimal")
    assert published.text == write(module)
    assert published.label == "minimal"
    assert isinstance(published.text, str)


def test_mutating_the_builder_never_changes_the_snapshot() -> None:
    module = minimal_module()
    published = VerifiedModule.create(module)
    before = published.text
    entry = module.fragment.entry
    entry.name = "renamed"
    entry.blocks[0].instructions[1].arguments[0] = ConstantValue.of_float(0.25)
    add_uniform(module, "late", FLOAT)
    FunctionBuilder(entry).register(FLOAT)
    module.vertex.interface[0].name = "moved"
    assert published.text == before
    assert write(module) != before  # the builder really changed
    assert write(published.materialize()) == before


def test_materialize_returns_fresh_distinct_verified_modules() -> None:
    published = VerifiedModule.from_text(SPEC_EXAMPLE.read_bytes(), label=SPEC_EXAMPLE.name)
    first, second = published.materialize(), published.materialize()
    assert first is not second
    assert first.fragment is not second.fragment
    assert first.fragment.entry is not second.fragment.entry
    assert first.fragment.entry.blocks[0] is not second.fragment.entry.blocks[0]
    assert_same_module(first, second)
    assert write(first) == published.text


def test_mutating_a_materialization_changes_neither_the_snapshot_nor_later_materializations() -> None:
    published = VerifiedModule.create(random_module(11))
    text = published.text
    first = published.materialize()
    first.fragment.entry.name = "changed"
    first.fragment.entry.blocks.clear()
    first.uniforms.clear()
    assert published.text == text
    later = published.materialize()
    assert write(later) == text
    assert later.fragment.entry.blocks


def test_the_snapshot_is_immutable() -> None:
    published = VerifiedModule.create(minimal_module())
    with pytest.raises(AttributeError):
        published._text = "(module 2)"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        published.text = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del published._text
    with pytest.raises(TypeError):
        VerifiedModule()


def test_publication_requires_a_valid_module() -> None:
    module = minimal_module()
    module.fragment.entry.blocks[0].terminator = None
    with pytest.raises(SemanticError):
        VerifiedModule.create(module)


def test_equal_programs_publish_equal_snapshots() -> None:
    text = SPEC_EXAMPLE.read_text(encoding="utf-8")
    first = VerifiedModule.from_text(text)
    second = VerifiedModule.create(read(text))
    assert first == second and hash(first) == hash(second)
    assert first != VerifiedModule.create(minimal_module())
