"""The file readers' fuzz targets (`files.py`) under hypothesis, with a fixed budget on every run (CI included).

Mutants of small valid glTF, GLB, OBJ, `.vplf` and Radiance HDR files are
read as the editor reads them; the reader's own error is the only failure
allowed. The budget is fixed and the search derandomized, so a run is
repeatable; `VPL_FUZZ_FILES_EXAMPLES` raises it, and `run_files.py` is the
seeded driver for long runs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import files
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TARGETS = files.targets()
BUDGET = int(os.environ.get("VPL_FUZZ_FILES_EXAMPLES", "80"))  # mutants per target and run: seconds here


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_seed_is_accepted(name: str, tmp_path: Path) -> None:
    target = TARGETS[name]
    assert all(files.check(target, seed, tmp_path) for seed in target.seeds)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_mutants_are_read_or_refused_with_the_readers_error(name: str) -> None:
    target = TARGETS[name]
    statistics = {"inputs": 0, "accepted": 0}
    folder = Path(tempfile.mkdtemp(prefix=f"vpl-fuzz-{name}-"))

    @settings(max_examples=BUDGET, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(seed=st.integers(0, len(target.seeds) - 1),
           mutations=st.lists(st.lists(st.integers(0, 2**16), min_size=4, max_size=4), min_size=1, max_size=4))
    def property_holds(seed: int, mutations: list[list[int]]) -> None:
        data = target.seeds[seed]
        for choices in mutations:
            data = files.mutate(data, list(choices))
        statistics["accepted"] += files.check(target, data, folder)
        statistics["inputs"] += 1

    property_holds()
    # Not every mutant is refused: the readers' later stages ran too.
    assert statistics["inputs"] >= BUDGET // 2 and statistics["accepted"] >= 1, statistics
