"""The pipeline fuzz target under hypothesis, with a fixed budget on every run (CI included).

Mutants of the project's valid modules (`pipeline.mutate`) go through
reader, verifier, writer round trip, publication and all three GLSL
targets; accepted programs must pass glslangValidator (`pipeline.check`).
The budget is fixed and the search derandomized, so a run is repeatable;
`atheris_pipeline.py` is the coverage-guided driver for long runs.
"""

from __future__ import annotations

import pipeline
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SEEDS = pipeline.seed_texts()
BUDGET = 120  # examples per run: about a minute here with glslangValidator


@pytest.mark.glslang
def test_mutants_pass_through_the_whole_pipeline_cleanly(glslang_validator: str) -> None:
    statistics = {"inputs": 0, "accepted": 0, "validated": 0}

    @settings(
        max_examples=BUDGET,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        seed=st.integers(0, len(SEEDS) - 1),
        mutations=st.lists(st.lists(st.integers(0, 2**16), min_size=4, max_size=4), min_size=1, max_size=3),
    )
    def property_holds(seed: int, mutations: list[list[int]]) -> None:
        text = SEEDS[seed]
        for choices in mutations:
            text = pipeline.mutate(text, list(choices))
        outcome = pipeline.check(text.encode("utf-8"), glslang_validator)
        statistics["inputs"] += 1
        statistics["accepted"] += outcome.accepted
        statistics["validated"] += outcome.validated

    property_holds()
    # The mutations are not all rejected by the reader: the backends and glslang really ran.
    assert statistics["inputs"] >= BUDGET // 2, statistics
    assert statistics["accepted"] >= 10 and statistics["validated"] >= 20, statistics


@pytest.mark.glslang
@pytest.mark.parametrize("index", range(len(SEEDS)))
def test_every_seed_is_accepted_and_validated(index: int, glslang_validator: str) -> None:
    outcome = pipeline.check(SEEDS[index].encode("utf-8"), glslang_validator)
    assert outcome.accepted and outcome.compiled, outcome.compiled
