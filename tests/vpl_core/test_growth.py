"""Growth tests (issues 20 and 23): no stage of the pipeline may grow faster than linearly.

Each test counts the Python steps (lines and calls, `growth_support.count_steps`)
a stage takes on a generated module at two sizes in one run; never seconds.
Linear work grows about 10x for 10x input, quadratic about 100x; the bound
is the issue's: at most 12x. The generated shapes stress one dimension each
(functions in a call chain, record fields with a member access each,
varyings, uniforms, blocks, registers), where the reader, verifier, writer,
publication, location allocation and GLSL emission used to be quadratic.
std140 layout is checked the same way over nesting depth, where it used to
be exponential.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from growth_support import SHAPES, count_steps, growth, nested_record_types, nested_uniform_module
from tiers import fast_tier

from vpl_core.backends.glsl import GLSL420, UNLIMITED, compile_source, generate, std140
from vpl_core.backends.glsl.locations import resolve_interfaces
from vpl_core.ir.module import Module
from vpl_core.ir.types import FLOAT, Field, RecordType
from vpl_core.publish import VerifiedModule
from vpl_core.text import read, write
from vpl_core.verify import Verifier

#: The smaller size; the larger is FACTOR times it. Counting steps traces every line, so the cost is the
#: larger size's: the fast tier (tests/tiers.py) measures 50 and 500 (the stage that grows most grows 9.6x
#: there, 9.8x from 100 to 1,000), the full tier 100 and 1,000.
SMALL = 50 if fast_tier() else 100
FACTOR = 10
BOUND = 12.0  # issue 20 item 2: no stage may grow more than 12x for 10x input

STAGES: dict[str, Callable[[str, Module], object]] = {
    "read": lambda text, module: read(text),
    "verify": lambda text, module: Verifier().run(module),
    "write": lambda text, module: write(module),
    "publish and materialize": lambda text, module: VerifiedModule.create(module).materialize(),
    "interface locations": lambda text, module: resolve_interfaces(module),
    "generate": lambda text, module: generate(module, GLSL420, UNLIMITED),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_stage_grows_linearly(shape: str) -> None:
    generator = SHAPES[shape]
    inputs = {size: (text := generator(size), read(text)) for size in (SMALL, SMALL * FACTOR)}
    ratios = {}
    for stage, action in STAGES.items():
        small, large = (
            count_steps(lambda size=size, action=action: action(*inputs[size])) for size in (SMALL, SMALL * FACTOR)
        )
        ratios[stage] = large / small
    too_fast = {stage: round(ratio, 1) for stage, ratio in ratios.items() if ratio > BOUND}
    assert not too_fast, f"{shape}: steps grew more than {BOUND}x for {FACTOR}x input: {too_fast}"


def _chain(depth: int) -> RecordType:
    """R<k> = record (float, R<k-1>): a record's size needs its last field's size (the exponential case)."""
    record = RecordType("R0", [Field("x", FLOAT)])
    for level in range(1, depth + 1):
        record = RecordType(f"R{level}", [Field("x", FLOAT), Field("inner", record)])
    return record


def _lattice(depth: int) -> RecordType:
    """R<k> = record (R<k-1>, R<k-1>): 2^depth leaves, but only depth + 1 distinct types."""
    record = RecordType("R0", [Field("x", FLOAT)])
    for level in range(1, depth + 1):
        record = RecordType(f"R{level}", [Field("a", record), Field("b", record)])
    return record


def test_std140_layout_grows_linearly_with_nesting_depth() -> None:
    ratio = growth(lambda depth: std140.block_size(_chain(depth)), 12, 2)
    assert ratio < 3.0, ratio  # linear: about 2; the unmemoised layout: about 2**12
    # 60 levels of a shared record (2^60 leaves): one computation per distinct type.
    assert count_steps(lambda: std140.block_size(_lattice(60))) < 20_000
    assert std140.block_size(_lattice(60)) == 16 * 2**60
    assert std140.block_size(_chain(100)) == 101 * 16


def test_a_uniform_nested_to_the_reference_depth_limit_compiles() -> None:
    """119 nested records read through a 120-selector path (the writer's limit): used to never finish."""
    artifact = compile_source(nested_uniform_module(119), "deep.vpl")
    (uniform,) = artifact.uniforms
    assert uniform.block_size == 120 * 16
    assert "vpl_u0" + ".vpl_m1" * 119 + ".vpl_m0" in artifact.fragment_code
    assert nested_record_types(119).count("(type R") == 120
