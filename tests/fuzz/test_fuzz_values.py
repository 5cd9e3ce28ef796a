"""The stage-object and `--set` fuzz targets (`values.py`) under hypothesis, with a fixed budget on every run.

Each example is a seed for `values.random_stage` / `values.random_assignment`,
so a run is repeatable (derandomized); `fuzz_values.py` runs the same
targets for as long as asked. The hostile inputs that found
these defects are checked once each as well.
"""

from __future__ import annotations

import random

import pytest
import values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

BUDGET = examples(300)  # examples per target and run (the fast tier: a quarter): about 10 s for both here

_SETTINGS = settings(max_examples=BUDGET, deadline=None, derandomize=True, database=None,
                     suppress_health_check=[HealthCheck.too_slow])


def test_stage_objects_fall_back_to_their_defaults_with_notes() -> None:
    @_SETTINGS
    @given(seed=st.integers(0, 2**32 - 1))
    def property_holds(seed: int) -> None:
        values.check_stage(values.random_stage(random.Random(seed)))

    property_holds()


def test_set_values_are_refused_in_one_line_or_taken_as_their_type() -> None:
    @_SETTINGS
    @given(seed=st.integers(0, 2**32 - 1))
    def property_holds(seed: int) -> None:
        values.check_set(values.random_assignment(random.Random(seed)))

    property_holds()


@pytest.mark.parametrize("data", [
    {"exposure": 10 ** 400}, {"light_intensity": -(10 ** 400)}, {"light_color": [1e39, 0, 0]},
    {"light_color": [float("nan"), 0, 0]}, {"background_color": "1, 2"}, {"environment_rotation": "inf"}, [1, 2], None,
])
def test_the_hostile_stage_objects(data: object) -> None:
    values.check_stage(data)


@pytest.mark.parametrize("text", [
    "roughness=" + "[" * 100_000, "roughness=1,2", 'roughness={"x":1}', "roughness=nan", "roughness=inf",
    "roughness=1e308", "count=2147483648", "tint=[1,2,3,NaN]", "light=" + "{" * 40, "palette[1]=1e39,0,0",
])
def test_the_hostile_set_values(text: str) -> None:
    values.check_set(text)
