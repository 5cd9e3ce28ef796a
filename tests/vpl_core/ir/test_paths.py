"""Structural paths name the same object in two instances of one module (vpl_core.ir.paths)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiers import fast_tier

from vpl_core.ir.paths import corresponding, follow, object_at, path_of, walk
from vpl_core.text import read, write

DATA = Path(__file__).resolve().parents[2] / "data"
#: Instructions per module checked through `corresponding` (each call walks both modules: four fifths of the
#: test's time at 24); the fast tier takes 4 of them, evenly spread as well (tests/tiers.py).
CORRESPONDING_SAMPLE = 4 if fast_tier() else 24
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
    # Every instruction maps to the instruction at the same place: `follow` of its path from the one walk for
    # all of them, and `corresponding` (a walk per call: quadratic over a whole module) for an even sample.
    paths = {id(value): path for path, value in original_walk}
    pairs = []
    for stage_name in ("vertex", "fragment"):
        for function, other in zip(getattr(original, stage_name).functions, getattr(canonical, stage_name).functions):
            for block, other_block in zip(function.blocks, other.blocks):
                pairs.extend(zip(block.instructions, other_block.instructions))
                pairs.append((block.terminator, other_block.terminator))
    assert pairs
    for mine, theirs in pairs:
        assert follow(canonical, paths[id(mine)]) is theirs
    for mine, theirs in pairs[:: max(1, len(pairs) // CORRESPONDING_SAMPLE)]:
        assert corresponding(original, canonical, mine) is theirs


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
