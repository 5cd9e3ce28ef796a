"""Structural paths name the same object in two instances of one module (vpl_core.ir.paths)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vpl_core.ir.paths import corresponding, object_at, path_of, walk
from vpl_core.text import read, write

DATA = Path(__file__).resolve().parents[2] / "data"
SOURCES = sorted((DATA / "spec").glob("*.vpl")) + sorted((Path(__file__).resolve().parents[3] / "resources" / "examples").glob("*.vpl"))


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_a_file_and_its_canonical_text_walk_the_same_paths(source: Path) -> None:
    original = read(source.read_bytes(), label=source.name)
    canonical = read(write(original))
    original_walk = list(walk(original))
    canonical_walk = list(walk(canonical))
    assert [path for path, _ in original_walk] == [path for path, _ in canonical_walk]
    for (_, mine), (_, theirs) in zip(original_walk, canonical_walk):
        assert type(mine) is type(theirs)
    # Every instruction maps to the instruction at the same place.
    for stage_name in ("vertex", "fragment"):
        for function, other in zip(getattr(original, stage_name).functions, getattr(canonical, stage_name).functions):
            for block, other_block in zip(function.blocks, other.blocks):
                for instruction, other_instruction in zip(block.instructions, other_block.instructions):
                    assert corresponding(original, canonical, instruction) is other_instruction
                assert corresponding(original, canonical, block.terminator) is other_block.terminator


def test_shared_record_types_have_one_path_and_links_are_not_followed() -> None:
    module = read((DATA / "spec" / "nested-aggregate-storage.vpl").read_bytes())
    records = [value for _, value in walk(module) if type(value).__name__ == "RecordType"]
    assert len(records) == 1
    path = path_of(module, records[0])
    assert object_at(module, path) is records[0]
    # The entry function is reached through the stage's function list only.
    entry_paths = [path for path, value in walk(module) if value is module.fragment.entry]
    assert entry_paths == [("fragment", "functions", 0)]


def test_objects_outside_the_module_have_no_path() -> None:
    module = read((DATA / "spec" / "canonical-example.vpl").read_bytes())
    assert path_of(module, object()) is None
    assert object_at(module, ("nowhere",)) is None
