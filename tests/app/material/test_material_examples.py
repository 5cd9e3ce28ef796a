"""Shipped examples: in sync with their generating graphs, loading, lowering, compiling; generated docs."""

from __future__ import annotations

from pathlib import Path

import pytest
from material_testing import glslang_check, lowered_example

from app.material import reference
from app.material.examples import (
    DEFAULT_EXAMPLE,
    EXAMPLE_GRAPHS,
    example_names,
    example_path,
    example_text,
    load_example,
)
from app.material.lowering import lower
from app.material.pass_planner import plan_passes
from vpl_core.ir.instructions import Builtin, CallInstruction, ConditionalBranchTerminator, DiscardTerminator

ROOT = Path(__file__).resolve().parents[3]


def test_at_least_six_examples_are_shipped_and_default_exists() -> None:
    assert set(example_names()) == set(EXAMPLE_GRAPHS)
    assert len(example_names()) >= 6
    assert DEFAULT_EXAMPLE in example_names()
    with pytest.raises(KeyError):
        example_path("no_such_example")
    assert load_example("no_such_example").module is None


@pytest.mark.parametrize("name", sorted(EXAMPLE_GRAPHS))
def test_checked_in_example_equals_its_regeneration(name: str) -> None:
    checked_in = (ROOT / "resources" / "examples" / f"{name}.vpl").read_text(encoding="utf-8")
    assert checked_in == example_text(name), f"run `python -m app.material.examples` to regenerate {name}.vpl"
    assert example_path(name).read_text(encoding="utf-8") == checked_in


@pytest.mark.parametrize("name", sorted(EXAMPLE_GRAPHS))
def test_example_loads_lowers_verifies_and_compiles(name: str, glslang_validator: str, tmp_path: Path) -> None:
    loaded = load_example(name)
    assert loaded.graph is not None and not loaded.read_only, loaded.message
    assert loaded.graph == EXAMPLE_GRAPHS[name]()
    result = lower(loaded.graph)
    assert result.ok and result.diagnostics == [], result.diagnostics
    assert result.verified == loaded.verified
    glslang_check(glslang_validator, tmp_path, name, result.artifact.vertex_code, result.artifact.fragment_code)


def _instructions(module):
    return [i for _, f in module.functions() for b in f.blocks for i in b.instructions]


def _terminators(module):
    return [b.terminator for _, f in module.functions() for b in f.blocks]


def test_examples_show_what_their_names_promise() -> None:
    read = ("textured", "animated", "procedural_noise", "lit_blinn_phong", "alpha_clip", "compare_and_branch")
    modules = {name: lowered_example(name) for name in read}  # the examples read below (a lowering each)
    builtins = {name: {i.builtin for i in _instructions(r.module) if isinstance(i, CallInstruction)} for name, r in modules.items()}
    assert Builtin.TEXTURE in builtins["textured"]
    assert '"time"' in modules["animated"].text
    assert any(f.name == "fractal_noise" for f in modules["procedural_noise"].module.fragment.functions)
    assert Builtin.POW in builtins["lit_blinn_phong"]
    assert any(isinstance(t, DiscardTerminator) for t in _terminators(modules["alpha_clip"].module))
    main = modules["compare_and_branch"].module.fragment.entry
    assert any(isinstance(b.terminator, ConditionalBranchTerminator) for b in main.blocks)
    # The texture-space examples are made of the filters their descriptions name, every pass planned.
    promised = {
        "stone_wall": {"flood_fill", "flood_fill_to_grayscale", "bevel", "slope_blur", "curvature", "height_to_normal"},
        "rusted_metal": {"bevel", "curvature", "ambient_occlusion", "height_to_normal"},
        "wet_cobblestones": {"flood_fill", "flood_fill_to_grayscale", "bevel", "blur", "height_to_normal"},
        "scattered_pebbles": {"blur", "histogram_scan", "ambient_occlusion", "height_to_normal"},
    }
    for name, filters in promised.items():
        graph = EXAMPLE_GRAPHS[name]()
        plan = plan_passes(graph)
        assert plan.ok and plan.diagnostics == [], (name, plan.diagnostics)
        planned = {graph.nodes[each.node_id].type_name for each in plan.passes}
        assert filters | {"texture_buffer"} <= planned, (name, sorted(planned))
    assert "tile_sampler" in {node.type_name for node in EXAMPLE_GRAPHS["scattered_pebbles"]().nodes.values()}


def test_material_nodes_reference_is_in_sync_with_the_catalog() -> None:
    checked_in = (ROOT / "docs" / "material-nodes.md").read_text(encoding="utf-8")
    assert checked_in == reference.render(), "run `python -m app.material.reference` to regenerate docs/material-nodes.md"
