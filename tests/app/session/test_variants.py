"""Renaming a parameter variant, without Qt: the name rules, the operation, and what the session makes of it.

The window's undoable command and the Values box are tested through the
real window in tests/app/ui/test_parameter_values.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.material.document import load_text
from app.material.graph import MaterialGraph, ParameterVariant
from app.session import EditorSession
from app.session.recovery import RecoveryStore
from app.session.variants import VariantNameError, checked_variant_name, renamed_variants


def _graph_with_variants() -> MaterialGraph:
    graph = MaterialGraph()
    roughness = graph.add_node("float_parameter", (0.0, 0.0), {"name": "roughness", "default": 0.5})
    output = graph.add_node("material_output", (300.0, 0.0))
    graph.connect(roughness.id, "out", output.id, "base_color")
    graph.variants = [ParameterVariant("rusty", {"roughness": 0.9}), ParameterVariant("new", {"roughness": 0.1})]
    graph.active_variant = "rusty"
    return graph


@pytest.mark.parametrize("name", ["", "   ", None, "\t"])
def test_an_empty_name_is_refused_with_a_reason(name: str | None) -> None:
    with pytest.raises(VariantNameError, match="needs a name"):
        checked_variant_name(name, ["rusty"])


def test_a_taken_name_is_refused_and_keeping_ones_own_name_is_not() -> None:
    with pytest.raises(VariantNameError, match='already a variant called "new"'):
        checked_variant_name(" new ", ["rusty", "new"], current="rusty")
    assert checked_variant_name("rusty", ["rusty", "new"], current="rusty") == "rusty"
    assert checked_variant_name("  worn  ", ["rusty", "new"]) == "worn"


def test_renaming_keeps_values_order_and_the_active_choice() -> None:
    variants = [ParameterVariant("rusty", {"roughness": 0.9}), ParameterVariant("new", {"roughness": 0.1})]
    renamed, active = renamed_variants(variants, "rusty", "rusty", " weathered ")
    assert [(variant.name, variant.values) for variant in renamed] == [("weathered", {"roughness": 0.9}),
                                                                       ("new", {"roughness": 0.1})]
    assert active == "weathered"
    assert variants[0].name == "rusty"  # the arguments are left alone (undo keeps them)
    # Renaming a variant that is not the active one leaves the choice alone.
    _renamed, active = renamed_variants(variants, "rusty", "new", "shiny")
    assert active == "rusty"
    _renamed, active = renamed_variants(variants, None, "new", "shiny")
    assert active is None


def test_renaming_refuses_a_taken_an_empty_or_an_unknown_name() -> None:
    variants = [ParameterVariant("rusty"), ParameterVariant("new")]
    with pytest.raises(VariantNameError, match="already a variant"):
        renamed_variants(variants, None, "rusty", "new")
    with pytest.raises(VariantNameError, match="needs a name"):
        renamed_variants(variants, None, "rusty", "  ")
    with pytest.raises(VariantNameError, match='no variant called "old"'):
        renamed_variants(variants, None, "old", "older")


def test_a_renamed_variant_is_what_the_session_shows_saves_and_exports(tmp_path: Path) -> None:
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    graph = _graph_with_variants()
    session.open_graph(graph, tmp_path / "m.vpl", "m.vpl")
    session.lower()
    assert session.parameters.variants.names == ("rusty", "new")
    shown = []
    session.parameters.variants_changed.connect(shown.append)

    edited = graph.copy()
    edited.variants, edited.active_variant = renamed_variants(graph.variants, graph.active_variant, "rusty", "weathered")
    session.update_graph(edited)
    assert session.is_modified
    assert shown[-1].names == ("weathered", "new") and shown[-1].active == "weathered"
    assert session.parameters.value("roughness") == 0.9  # the values came along
    assert not session.needs_lowering  # a rename changes no module

    path = session.save(tmp_path / "m.vpl")
    reopened = load_text(path.read_bytes(), str(path)).graph
    assert reopened is not None
    assert [(variant.name, variant.values) for variant in reopened.variants] == [("weathered", {"roughness": 0.9}),
                                                                                 ("new", {"roughness": 0.1})]
    assert reopened.active_variant == "weathered"

    files = session.export(tmp_path / "export")
    assert files is not None
    exported = json.loads((tmp_path / "export" / "m.json").read_text())["material"]["variants"]
    assert [variant["name"] for variant in exported] == ["weathered", "new"]
