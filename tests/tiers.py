"""Fuzz budgets per test tier.

The full run (`./run-tests`, CI) draws a property test's whole budget;
`./run-tests --fast` (tests/conftest.py sets `VPL_TEST_TIER=fast`) a
quarter of it, the same derandomized examples' first part, so a quick
check while working stays quick and CI still covers everything. An
exhaustive check may take a share of its cases the same way in the fast tier
(`strange_values` of tests/app/material/test_material_lowering.py, `REJECTED_SHARE` of
tests/vpl_core/math/test_math_text_typing.py, `CORRESPONDING_SAMPLE` of
tests/vpl_core/ir/test_paths.py), a growth check its smaller sizes
(`SMALL` of tests/vpl_core/test_growth.py), and a limit its checks at a smaller
scale in-process (`FAST_TIER_LIMIT_SHARE` of tests/app/preview/test_mesh_import.py,
whose full tier reads the full-size scenes in a guarded child).
"""

from __future__ import annotations

import os


def fast_tier() -> bool:
    return os.environ.get("VPL_TEST_TIER") == "fast"


def examples(full: int) -> int:
    """The number of examples of a property test whose full budget is `full`."""
    return max(25, full // 4) if fast_tier() else full
