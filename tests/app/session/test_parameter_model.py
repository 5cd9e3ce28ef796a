"""ParameterModel without Qt: the one owner of parameter specs and values, and its one carry-over rule."""

from __future__ import annotations

import pytest

from app.material.parameters import ParameterKind, ParameterSpec, carry_over, specs_from_artifact, specs_from_module
from app.session.parameters import ParameterChange, ParameterModel, ParameterValues
from vpl_core.ir.types import FLOAT, SAMPLER2D, vec

ROUGHNESS = ParameterSpec("roughness", ParameterKind.FLOAT, FLOAT, 0.5, 0.0, 1.0)
TINT = ParameterSpec("tint", ParameterKind.COLOR, vec(4), (1.0, 0.0, 0.0, 1.0))
ALBEDO = ParameterSpec("albedo", ParameterKind.TEXTURE, SAMPLER2D, None)
OTHER = ParameterSpec("light", ParameterKind.OTHER, vec(4), None)


def _spec(name: str, default: float) -> ParameterSpec:
    return ParameterSpec(name, ParameterKind.FLOAT, FLOAT, default, 0.0, 10.0)


def test_values_start_at_the_defaults_and_change_with_an_event() -> None:
    model = ParameterModel()
    changes: list[ParameterChange] = []
    model.value_changed.connect(changes.append)
    model.set_specs([ROUGHNESS, TINT, ALBEDO])
    assert model.values == {"roughness": 0.5, "tint": (1.0, 0.0, 0.0, 1.0), "albedo": None}
    assert model.set_value("roughness", 0.24)
    assert model.value("roughness") == 0.24
    assert [(change.name, change.value) for change in changes] == [("roughness", 0.24)]


def test_unknown_and_uneditable_parameters_are_refused_silently() -> None:
    model = ParameterModel()
    model.set_specs([ROUGHNESS, OTHER])
    emitted: list[ParameterChange] = []
    model.value_changed.connect(emitted.append)
    assert not model.set_value("missing", 1.0)
    assert not model.set_value("light", (1.0, 1.0, 1.0, 1.0))
    assert emitted == [] and "missing" not in model.values


def test_a_value_survives_a_recompile_while_name_kind_type_and_default_stay() -> None:
    model = ParameterModel()
    model.set_specs([ROUGHNESS, TINT])
    model.set_value("roughness", 0.24)
    model.set_value("tint", (0.0, 1.0, 0.0, 1.0))
    wider = ParameterSpec("roughness", ParameterKind.FLOAT, FLOAT, 0.5, 0.0, 4.0)  # only the range changed
    model.set_specs([wider, TINT])
    assert model.values == {"roughness": 0.24, "tint": (0.0, 1.0, 0.0, 1.0)}


def test_a_changed_default_type_or_kind_shows_the_new_default() -> None:
    model = ParameterModel()
    model.set_specs([ROUGHNESS, TINT])
    model.set_value("roughness", 0.24)
    model.set_value("tint", (0.0, 1.0, 0.0, 1.0))
    new_default = ParameterSpec("roughness", ParameterKind.FLOAT, FLOAT, 0.75, 0.0, 1.0)
    as_vector = ParameterSpec("tint", ParameterKind.VECTOR, vec(4), (0.0, 0.0, 0.0, 0.0))
    model.set_specs([new_default, as_vector])
    assert model.values == {"roughness": 0.75, "tint": (0.0, 0.0, 0.0, 0.0)}


def test_explicit_values_win_over_carried_ones_and_specs_changed_carries_the_specs() -> None:
    model = ParameterModel()
    seen: list[list[ParameterSpec]] = []
    model.specs_changed.connect(seen.append)
    model.set_specs([ROUGHNESS, ALBEDO], {"albedo": "wood.png", "ignored": 1.0})
    assert model.values == {"roughness": 0.5, "albedo": "wood.png"}
    assert seen == [[ROUGHNESS, ALBEDO]]
    model.clear()
    assert model.values == {} and seen[-1] == []


def test_carry_over_is_the_one_rule() -> None:
    old = {"roughness": ROUGHNESS}
    assert carry_over(old, {"roughness": 0.1}, [ROUGHNESS]) == {"roughness": 0.1}
    renamed = ParameterSpec("rough", ParameterKind.FLOAT, FLOAT, 0.5)
    assert carry_over(old, {"roughness": 0.1}, [renamed]) == {"rough": 0.5}


def test_module_and_artifact_specs_are_classified_alike() -> None:
    from app.material.examples import load_example

    document = load_example("textured")
    assert document.module is not None and document.verified is not None
    from vpl_core.backends import glsl

    artifact = glsl.compile(document.verified)
    assert specs_from_module(document.module) == specs_from_artifact(artifact)
    assert [spec.kind for spec in specs_from_module(document.module)] == [
        ParameterKind.TEXTURE, ParameterKind.FLOAT]


def test_values_are_an_immutable_snapshot_replaced_at_each_edit() -> None:
    model = ParameterModel()
    model.set_specs([_spec("a", 1.0), _spec("b", 2.0)])
    before = model.values
    assert model.set_value("a", 5.0)
    after = model.values
    assert before == {"a": 1.0, "b": 2.0} and after == {"a": 5.0, "b": 2.0}  # the old snapshot did not change
    with pytest.raises(TypeError):
        after["a"] = 3.0  # type: ignore[index]
    with pytest.raises(AttributeError):
        after._layers = ()  # type: ignore[misc]
    assert after.changed_names(before) == {"a"}
    model.set_values({"b": 2.0})  # the same value: no new snapshot, no event
    assert model.values is after


def test_a_chained_snapshot_shares_the_model_values_and_diffs_only_what_changed() -> None:
    model = ParameterModel()
    model.set_specs([_spec("a", 1.0), _spec("b", 2.0)])
    image = object()
    first = ParameterValues.chain({"__live_0": 0.5}, {"b": image}, model.values)
    assert dict(first) == {"__live_0": 0.5, "b": image, "a": 1.0}  # the first layer holding a name wins
    assert first._layers[-1] is model.values._layers[0]  # shared, not copied
    second = ParameterValues.chain({"__live_0": 0.5}, {"b": image}, model.values)
    assert second.changed_names(first) == set()  # equal objects in fresh overlay layers: nothing to upload
    model.set_value("a", 4.0)
    third = ParameterValues.chain({"__live_0": 0.75}, {"b": image}, model.values)
    assert third.changed_names(second) == {"a", "__live_0"}
    assert ParameterValues.chain(model.values).changed_names(third) == {"__live_0", "b"}  # removed and replaced
