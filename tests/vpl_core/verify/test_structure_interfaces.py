"""Structural layer: stage interfaces (spec 6) and vertex-to-fragment linkage (spec 3.1)."""

from __future__ import annotations

import pytest
from test_structure_support import Sample, assert_accepted, assert_rejected, sample

from vpl_core.ir import (
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    Direction,
    InterfaceVariable,
    Semantic,
    ivec,
    mat,
    record,
    vec,
)
from vpl_core.verify.errors import InterfaceRule, ObjectRule, StageRule, TypeRule


def add(s: Sample, stage: str, direction: Direction, name: str, value_type: object, location: int = -1,
        semantic: Semantic = Semantic.NONE) -> InterfaceVariable:
    variable = InterfaceVariable(direction, name, value_type, location, semantic)  # type: ignore[arg-type]
    getattr(s.module, stage).interface.append(variable)
    return variable


# Per-stage rules (spec 6) -------------------------------------------------------------


def test_interface_fields_are_validated() -> None:
    for direction, semantic, name, value_type, location, kind in [
        ("in", Semantic.NONE, "a", FLOAT, 0, ObjectRule.INVALID_ENUM),
        (Direction.IN, "none", "a", FLOAT, 0, ObjectRule.INVALID_ENUM),
        (Direction.IN, Semantic.NONE, "", FLOAT, 0, InterfaceRule.NAME),
        (Direction.IN, Semantic.NONE, None, FLOAT, 0, InterfaceRule.NAME),
        (Direction.IN, Semantic.NONE, "a", VOID, 0, TypeRule.VOID_VALUE),
        (Direction.IN, Semantic.NONE, "a", None, 0, TypeRule.NOT_A_TYPE),
        (Direction.IN, Semantic.NONE, "a", FLOAT, -2, InterfaceRule.LOCATION),
        (Direction.IN, Semantic.NONE, "a", FLOAT, True, InterfaceRule.LOCATION),
        (Direction.IN, Semantic.NONE, "a", FLOAT, "0", InterfaceRule.LOCATION),
    ]:
        s = sample()
        variable = InterfaceVariable(direction, name, value_type, location, semantic)  # type: ignore[arg-type]
        s.module.vertex.interface.append(variable)
        assert_rejected(s.module, kind, variable, (s.module.vertex,))


def test_non_interface_object_in_interface_is_rejected() -> None:
    s = sample()
    s.module.vertex.interface.append(None)  # type: ignore[arg-type]
    assert_rejected(s.module, ObjectRule.WRONG_CLASS, s.module.vertex)


def test_interface_names_are_unique_across_directions() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "shared", vec(3), 0)
    clash = add(s, "vertex", Direction.OUT, "shared", vec(3), 0)
    assert_rejected(s.module, InterfaceRule.DUPLICATE_NAME, clash)


def test_interface_names_are_case_sensitive_and_per_stage() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "Color", vec(3), 0)
    add(s, "vertex", Direction.OUT, "cOlor", vec(3), 1)
    add(s, "fragment", Direction.IN, "position_in", vec(4), -1, Semantic.POSITION)
    add(s, "vertex", Direction.IN, "position_in", vec(4), 1)
    assert_accepted(s.module)


def test_locations_are_unique_within_one_direction() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "a", vec(3), 0)
    add(s, "vertex", Direction.OUT, "b", vec(3), 0)  # other direction: fine
    clash = add(s, "vertex", Direction.IN, "c", vec(3), 0)
    assert_rejected(s.module, InterfaceRule.DUPLICATE_LOCATION, clash)


def test_unspecified_locations_may_repeat() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "a", vec(3))
    add(s, "vertex", Direction.IN, "b", vec(3))
    assert_accepted(s.module)


def test_span_overlaps_are_not_a_canonical_error() -> None:
    # A mat4 at location 0 spans 0-3; overlap with location 1 is a target concern (spec 12.2).
    s = sample()
    add(s, "vertex", Direction.IN, "model", mat(4), 0)
    add(s, "vertex", Direction.IN, "other", vec(3), 1)
    assert_accepted(s.module)


def test_non_none_semantics_are_unique_within_one_direction() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "uv", vec(2), 2, Semantic.TEXCOORD)
    add(s, "vertex", Direction.OUT, "uv_out", vec(2), 2, Semantic.TEXCOORD)
    clash = add(s, "vertex", Direction.IN, "uv2", vec(2), 3, Semantic.TEXCOORD)
    assert_rejected(s.module, InterfaceRule.DUPLICATE_SEMANTIC, clash)

    s = sample()
    clash = add(s, "fragment", Direction.OUT, "second", vec(4), 1, Semantic.FRAGMENT_COLOR)
    assert_rejected(s.module, InterfaceRule.DUPLICATE_SEMANTIC, clash)


@pytest.mark.parametrize(
    "stage, direction",
    [("vertex", Direction.IN), ("fragment", Direction.OUT)],
)
def test_position_only_as_vertex_output_or_fragment_input(stage: str, direction: Direction) -> None:
    s = sample()
    misplaced = add(s, stage, direction, "where", vec(4), -1, Semantic.POSITION)
    assert_rejected(s.module, InterfaceRule.POSITION_PLACEMENT, misplaced)


def test_position_type_and_location() -> None:
    s = sample()
    s.module.vertex.interface[0].type = vec(3)
    assert_rejected(s.module, InterfaceRule.POSITION_TYPE, s.module.vertex.interface[0])

    s = sample()
    s.module.vertex.interface[0].location = 0
    assert_rejected(s.module, InterfaceRule.POSITION_LOCATION, s.module.vertex.interface[0])

    s = sample()
    frag_position = add(s, "fragment", Direction.IN, "frag_coord", ivec(4), -1, Semantic.POSITION)
    assert_rejected(s.module, InterfaceRule.POSITION_TYPE, frag_position)


def test_fragment_position_input_is_not_linked() -> None:
    s = sample()
    add(s, "fragment", Direction.IN, "frag_coord", vec(4), -1, Semantic.POSITION)
    assert_accepted(s.module)


def test_fragment_color_only_as_float_vec4_fragment_output() -> None:
    for stage, direction, value_type, kind in [
        ("vertex", Direction.OUT, vec(4), InterfaceRule.FRAGMENT_COLOR_PLACEMENT),
        ("fragment", Direction.IN, vec(4), InterfaceRule.FRAGMENT_COLOR_PLACEMENT),
        ("vertex", Direction.IN, vec(4), InterfaceRule.FRAGMENT_COLOR_PLACEMENT),
    ]:
        s = sample()
        misplaced = add(s, stage, direction, "misplaced", value_type, 5, Semantic.FRAGMENT_COLOR)
        assert_rejected(s.module, kind, misplaced)

    s = sample()
    s.module.fragment.interface[0].type = ivec(4)
    assert_rejected(s.module, InterfaceRule.FRAGMENT_COLOR_TYPE, s.module.fragment.interface[0])


def test_fragment_color_location_is_free() -> None:
    s = sample()
    s.module.fragment.interface[0].location = -1
    assert_accepted(s.module)
    s.module.fragment.interface[0].location = 3
    assert_accepted(s.module)


def test_color_and_texcoord_are_allowed_anywhere_with_any_type() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "tint", ivec(3), 1, Semantic.COLOR)
    add(s, "vertex", Direction.IN, "uv", vec(2), 2, Semantic.TEXCOORD)
    add(s, "vertex", Direction.OUT, "tint_out", FLOAT, 1, Semantic.COLOR)
    add(s, "fragment", Direction.IN, "tint_out", FLOAT, 1, Semantic.COLOR)
    add(s, "fragment", Direction.OUT, "extra", vec(2), 1, Semantic.TEXCOORD)
    assert_accepted(s.module)


def test_required_outputs() -> None:
    s = sample()
    del s.module.vertex.interface[0]
    assert_rejected(s.module, InterfaceRule.NO_POSITION, s.module.vertex)

    s = sample()
    s.module.fragment.interface[0].semantic = Semantic.NONE
    assert_rejected(s.module, InterfaceRule.NO_FRAGMENT_COLOR, s.module.fragment)


def test_interface_type_checks_reach_nested_records() -> None:
    s = sample()
    bad = record("Varying", [("", FLOAT)])
    add(s, "vertex", Direction.OUT, "v", bad, 3)
    assert_rejected(s.module, TypeRule.FIELD_NAME, bad.fields[0])


def test_opaque_and_bool_interfaces_are_a_target_concern() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "flag", SAMPLER2D, 1)
    assert_accepted(s.module)


# Linkage (spec 3.1) -------------------------------------------------------------------


def test_explicit_locations_match_regardless_of_names() -> None:
    s = sample()
    add(s, "vertex", Direction.OUT, "normal_vs", vec(3), 4)
    add(s, "fragment", Direction.IN, "normal_fs", vec(3), 4)
    assert_accepted(s.module)


def test_unspecified_locations_match_by_exact_name() -> None:
    s = sample()
    add(s, "vertex", Direction.OUT, "normal", vec(3))
    add(s, "fragment", Direction.IN, "normal", vec(3))
    assert_accepted(s.module)

    s = sample()
    add(s, "vertex", Direction.OUT, "Normal", vec(3))
    missing = add(s, "fragment", Direction.IN, "normal", vec(3))
    assert_rejected(s.module, InterfaceRule.UNLINKED_INPUT, missing)


def test_no_mixed_inference_between_explicit_and_unspecified_locations() -> None:
    s = sample()
    add(s, "vertex", Direction.OUT, "normal", vec(3), 4)
    unmatched = add(s, "fragment", Direction.IN, "normal", vec(3))
    assert_rejected(s.module, InterfaceRule.UNLINKED_INPUT, unmatched)

    s = sample()
    add(s, "vertex", Direction.OUT, "normal", vec(3))
    unmatched = add(s, "fragment", Direction.IN, "normal", vec(3), 4)
    assert_rejected(s.module, InterfaceRule.UNLINKED_INPUT, unmatched)


def test_every_fragment_input_needs_a_vertex_output_even_if_unused() -> None:
    s = sample()
    orphan = add(s, "fragment", Direction.IN, "orphan", FLOAT, 2)
    assert_rejected(s.module, InterfaceRule.UNLINKED_INPUT, orphan)


def test_vertex_position_output_is_not_a_linkage_candidate() -> None:
    s = sample()
    # The vertex Position output is named "position" with location -1.
    unmatched = add(s, "fragment", Direction.IN, "position", vec(4))
    assert_rejected(s.module, InterfaceRule.UNLINKED_INPUT, unmatched)


def test_vertex_inputs_and_fragment_outputs_are_not_linkage_candidates() -> None:
    s = sample()
    add(s, "vertex", Direction.IN, "normal", vec(3), 1)
    unmatched = add(s, "fragment", Direction.IN, "normal_fs", vec(3), 1)
    assert_rejected(s.module, InterfaceRule.UNLINKED_INPUT, unmatched)


def test_unconsumed_vertex_outputs_are_allowed() -> None:
    s = sample()
    add(s, "vertex", Direction.OUT, "spare", vec(3), 7)
    add(s, "vertex", Direction.OUT, "spare2", FLOAT)
    assert_accepted(s.module)


def test_linked_types_must_be_equal() -> None:
    light = record("Light", [("x", FLOAT)])
    same_name = record("Light", [("x", FLOAT)])
    for output_type, input_type, accepted in [
        (vec(3), vec(3), True),
        (vec(3), vec(4), False),
        (INT, FLOAT, False),
        (ArrayType(FLOAT, 3), ArrayType(FLOAT, 3), True),
        (ArrayType(FLOAT, 3), ArrayType(FLOAT, 4), False),
        (light, light, True),
        (light, same_name, False),
        (ArrayType(light, 2), ArrayType(light, 2), True),
        (ArrayType(light, 2), ArrayType(same_name, 2), False),
    ]:
        s = sample()
        add(s, "vertex", Direction.OUT, "v", output_type, 1)
        fragment_input = add(s, "fragment", Direction.IN, "v", input_type, 1)
        if accepted:
            assert_accepted(s.module)
        else:
            assert_rejected(s.module, InterfaceRule.LINK_TYPE, fragment_input)


@pytest.mark.parametrize(
    "output_tag, input_tag, accepted",
    [
        (Semantic.NONE, Semantic.NONE, True),
        (Semantic.COLOR, Semantic.NONE, True),
        (Semantic.NONE, Semantic.TEXCOORD, True),
        (Semantic.COLOR, Semantic.COLOR, True),
        (Semantic.TEXCOORD, Semantic.TEXCOORD, True),
        (Semantic.COLOR, Semantic.TEXCOORD, False),
        (Semantic.TEXCOORD, Semantic.COLOR, False),
    ],
)
def test_color_and_texcoord_tags_agree_when_both_are_given(
    output_tag: Semantic, input_tag: Semantic, accepted: bool
) -> None:
    s = sample()
    add(s, "vertex", Direction.OUT, "v", vec(2), 1, output_tag)
    fragment_input = add(s, "fragment", Direction.IN, "v", vec(2), 1, input_tag)
    if accepted:
        assert_accepted(s.module)
    else:
        assert_rejected(s.module, InterfaceRule.LINK_TAG, fragment_input)


def test_linkage_is_checked_after_the_vertex_stage() -> None:
    s = sample()
    s.module.vertex.entry = None
    add(s, "fragment", Direction.IN, "orphan", FLOAT, 2)
    assert_rejected(s.module, StageRule.NO_ENTRY, s.module.vertex)
