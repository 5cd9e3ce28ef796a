"""The stone wall's single-pass twin (benchmarks/stone_wall_single_pass.vpl) stays what its generator makes, and
cheap enough to benchmark: its bump uses screen-space derivatives, not a filtered slope (which evaluates the whole
per-point wall at every tap and made one frame take minutes on llvmpipe)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from app.material.document import save_text

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stone_wall_single_pass", BENCHMARKS / "stone_wall_single_pass.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_twin_file_is_its_generators_output() -> None:
    module = _generator()
    assert (BENCHMARKS / "stone_wall_single_pass.vpl").read_text(encoding="utf-8") == save_text(
        module.stone_wall_single_pass())


def test_twin_bump_is_unfiltered() -> None:
    graph = _generator().stone_wall_single_pass()
    bumps = [node for node in graph.nodes.values() if node.type_name == "normal_from_height"]
    assert bumps, "the twin has a Normal From Height"
    assert all(float(node.properties["filter_width"]) == 0.0 for node in bumps)
