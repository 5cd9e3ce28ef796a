"""The MaterialX import fuzz target under hypothesis, with a fixed budget on every run (CI included; the fast tier draws a quarter of it).

Mutants of the bundled MaterialX examples and of the editor's own exports
(`mtlx_target.mutate`) go through import, lowering, saving and re-export
(`mtlx_target.check`). Derandomized, so a run is repeatable; `fuzz_mtlx.py`
is the driver for longer runs.
"""

from __future__ import annotations

import functools
from pathlib import Path

import mtlx_target
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

BUDGET = examples(150)  # mutants per run (the fast tier: a quarter)
#: The seeds' count is known at collection; their texts (four exports, each a lowering) are made when a test asks.
SEED_COUNT = mtlx_target.seed_count()


@functools.cache
def seeds() -> list[str]:
    texts = mtlx_target.seed_texts()
    assert len(texts) == SEED_COUNT
    return texts


def test_mutants_import_cleanly_or_are_refused_with_one_line(tmp_path: Path) -> None:
    statistics = {"inputs": 0, "imported": 0, "refused": 0, "exported": 0}
    texts = seeds()

    @settings(max_examples=BUDGET, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
    @given(seed=st.integers(0, SEED_COUNT - 1),
           mutations=st.lists(st.lists(st.integers(0, 2**16), min_size=4, max_size=4), min_size=1, max_size=3))
    def property_holds(seed: int, mutations: list[list[int]]) -> None:
        text = texts[seed]
        for choices in mutations:
            text = mtlx_target.mutate(text, list(choices))
        outcome = mtlx_target.check(text.encode("utf-8"), tmp_path)
        statistics["inputs"] += 1
        statistics["imported"] += outcome.imported
        statistics["refused"] += bool(outcome.refused)
        statistics["exported"] += outcome.exported

    property_holds()
    # Both outcomes happen: the mutants are neither all refused nor all harmless.
    assert statistics["imported"] >= BUDGET // 5 and statistics["refused"] >= 5, statistics


@pytest.mark.parametrize("index", range(SEED_COUNT))
def test_every_seed_imports_or_is_refused_cleanly(index: int, tmp_path: Path) -> None:
    outcome = mtlx_target.check(seeds()[index].encode("utf-8"), tmp_path)
    assert outcome.imported or "open_pbr_surface" in outcome.refused, outcome.refused


FINDINGS = sorted((Path(__file__).resolve().parent / "mtlx_findings").glob("*.mtlx"))


@pytest.mark.parametrize("path", FINDINGS, ids=[path.stem for path in FINDINGS])
def test_earlier_findings_pass(path: Path, tmp_path: Path) -> None:
    """Inputs the long run found: an output typed against its consumer (cut with a note), an imported node named
    like the exporter's convert node, a one-component Swizzle of a float (exported as an invalid extract)."""
    mtlx_target.check(path.read_bytes(), tmp_path)
