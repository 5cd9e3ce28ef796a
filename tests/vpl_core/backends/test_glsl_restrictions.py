"""Target restrictions (spec 12.4) and the ES profiles' extra rules: each one is a TargetError
with a clear message and the offending object as subject, raised after canonical verification.

Every module here is valid VPL (it is read, so the canonical verifier accepts
it) and is rejected only by the target. Subjects are objects of the
backend's own materialized snapshot, so they are checked by kind and name.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path
from typing import Any

import pytest

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl import generate, resolve_profile
from vpl_core.backends.glsl.errors import LocationRule, SamplerRule, TargetInterfaceRule, TargetTypeRule
from vpl_core.diagnostics import Category, TargetError
from vpl_core.ir.instructions import (
    CallInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    LoadInstruction,
    StoreInstruction,
)
from vpl_core.ir.module import Function, InterfaceVariable, Uniform
from vpl_core.publish import VerifiedModule

TARGETS = ("glsl420", "es300", "es320")

TEMPLATE = """(module 1
  {extensions}
  (types
    (type Void void) (type Bool bool) (type Int int) (type Float float)
    (type Vec2 vector float 2) (type Vec3 vector float 3) (type Vec4 vector float 4)
    (type Mat2 matrix 2 2) (type Mat4 matrix 4 4) (type Sampler sampler2D)
    {types})
  (uniforms {uniforms})
  (vertex main
    (interface (out clip "clip" Vec4 -1 position) {vertex_interface})
    (functions
      (function main "vertex_main" Void
        (parameters)
        (registers (register r0 Vec4) {vertex_registers})
        (block entry
          (construct r0 (float 1.0))
          (store (stage clip) r0)
          {vertex_body}
          (return)))))
  (fragment main
    (interface (out color "color" Vec4 0 fragment_color) {fragment_interface})
    (functions
      (function main "fragment_main" Void
        (parameters)
        (registers (register r0 Vec4) {fragment_registers})
        (block entry
          (construct r0 (float 1.0))
          {fragment_body}
          (store (stage color) r0)
          (return))
        {fragment_blocks})
      {fragment_functions})))
"""


def module_text(**parts: str) -> str:
    fields = dict.fromkeys(
        (
            "extensions", "types", "uniforms", "vertex_interface", "vertex_registers", "vertex_body",
            "fragment_interface", "fragment_registers", "fragment_body", "fragment_blocks", "fragment_functions",
        ),
        "",
    )
    fields.update(parts)
    return TEMPLATE.format(**fields)


def publish(**parts: str) -> VerifiedModule:
    return VerifiedModule.from_text(module_text(**parts), label="case.vpl")


def rejection(target: str, **parts: str) -> TargetError:
    verified = publish(**parts)
    with pytest.raises(TargetError) as caught:
        compile_glsl(verified, target=target)
    error = caught.value
    assert error.diagnostic.category is Category.TARGET
    assert error.diagnostic.label == "case.vpl"
    assert str(error).startswith("case.vpl: target error: ")
    return error


def assert_subject(error: TargetError, kind: type, name: str | None = None) -> Any:
    subject = error.subject
    assert isinstance(subject, kind), f"subject {subject!r} is not a {kind.__name__}"
    if name is not None:
        assert subject.name == name
    return subject


def test_the_template_itself_compiles_for_every_target() -> None:
    for target in TARGETS:
        compile_glsl(publish(), target=target)


# Types: empty records, arrays of arrays, contained samplers, oversize arrays -----------------------


@pytest.mark.parametrize("target", TARGETS)
def test_empty_record_register(target: str) -> None:
    error = rejection(
        target, types='(type Empty record "Nothing")', fragment_registers="(register r1 Empty)",
        fragment_body="(construct r1)",
    )
    assert error.kind is TargetTypeRule.EMPTY_RECORD
    subject = assert_subject(error, DeclareLocalInstruction)
    assert subject.register.index == 1


@pytest.mark.parametrize("target", TARGETS)
def test_empty_record_nested_in_a_uniform(target: str) -> None:
    error = rejection(
        target,
        types='(type Empty record "Nothing") (type Holder record "Holder" (field "inner" Empty) (field "x" Float))',
        uniforms='(record holder "holder" Holder)',
    )
    assert error.kind is TargetTypeRule.EMPTY_RECORD
    assert_subject(error, Uniform, "holder")


@pytest.mark.parametrize("target", TARGETS)
def test_array_of_arrays(target: str) -> None:
    error = rejection(
        target, types="(type Row array Float 2) (type Grid array Row 2)", fragment_registers="(register r1 Grid)",
    )
    assert error.kind is TargetTypeRule.ARRAY_OF_ARRAYS
    assert_subject(error, DeclareLocalInstruction)


@pytest.mark.parametrize("target", TARGETS)
def test_array_of_arrays_inside_a_record_parameter(target: str) -> None:
    error = rejection(
        target,
        types='(type Row array Float 2) (type Grid array Row 2) (type Box record "Box" (field "grid" Grid))',
        fragment_functions='(function helper "helper" Void (parameters (parameter box Box)) (registers) (block entry (return)))',
    )
    assert error.kind is TargetTypeRule.ARRAY_OF_ARRAYS
    assert_subject(error, Function, "helper")


@pytest.mark.parametrize("target", TARGETS)
def test_sampler_inside_a_record_uniform(target: str) -> None:
    error = rejection(
        target, types='(type Material record "Material" (field "image" Sampler) (field "tint" Vec4))',
        uniforms='(record material "material" Material)',
    )
    assert error.kind is TargetTypeRule.NESTED_SAMPLER
    assert_subject(error, Uniform, "material")


@pytest.mark.parametrize("target", TARGETS)
def test_sampler_array_uniform(target: str) -> None:
    # Also covers ESSL 3.00's ban on non-constant sampler array indices: there are no sampler arrays.
    error = rejection(target, uniforms='(array images "images" Sampler 4)')
    assert error.kind is TargetTypeRule.NESTED_SAMPLER
    assert_subject(error, Uniform, "images")


@pytest.mark.parametrize("target", TARGETS)
def test_array_length_beyond_signed_gl_range(target: str) -> None:
    error = rejection(target, uniforms='(array big "big" Float 2147483648)')
    assert error.kind is TargetTypeRule.ARRAY_LENGTH
    assert_subject(error, Uniform, "big")


@pytest.mark.parametrize("target", TARGETS)
def test_array_length_at_the_limit_is_not_a_target_error(target: str) -> None:
    compile_glsl(publish(uniforms='(array big "big" Float 2147483647)'), target=target)


# Interfaces -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_bool_varying(target: str) -> None:
    error = rejection(
        target, vertex_interface='(out flag "flag" Bool -1 none)', fragment_interface='(in flag "flag" Bool -1 none)',
        vertex_body="(store (stage flag) (bool true))",
    )
    assert error.kind is TargetInterfaceRule.BOOL
    assert_subject(error, InterfaceVariable, "flag")


@pytest.mark.parametrize("target", TARGETS)
def test_bool_inside_a_record_varying(target: str) -> None:
    error = rejection(
        target,
        types='(type Tagged record "Tagged" (field "value" Float) (field "flag" Bool))',
        vertex_interface='(out tagged "tagged" Tagged -1 none)',
        vertex_registers="(register r1 Tagged)",
        vertex_body="(construct r1 (float 1.0) (bool true)) (store (stage tagged) r1)",
    )
    assert error.kind is TargetInterfaceRule.BOOL
    assert_subject(error, InterfaceVariable, "tagged")


@pytest.mark.parametrize("target", TARGETS)
def test_bool_vertex_attribute(target: str) -> None:
    error = rejection(target, vertex_interface='(in flag "flag" Bool 1 none)')
    assert error.kind is TargetInterfaceRule.BOOL
    assert_subject(error, InterfaceVariable, "flag")


@pytest.mark.parametrize("target", TARGETS)
def test_sampler_varying(target: str) -> None:
    error = rejection(
        target,
        uniforms='(scalar image "image" Sampler)',
        vertex_interface='(out image "image_out" Sampler -1 none)',
        vertex_registers="(register r1 Sampler)",
        vertex_body="(load r1 (uniform image)) (store (stage image) r1)",
    )
    assert error.kind is TargetInterfaceRule.SAMPLER
    assert_subject(error, InterfaceVariable, "image_out")


@pytest.mark.parametrize("target", TARGETS)
def test_array_vertex_attribute(target: str) -> None:
    error = rejection(target, types="(type Floats array Float 2)", vertex_interface='(in weights "weights" Floats 1 none)')
    assert error.kind is TargetInterfaceRule.VERTEX_INPUT_SHAPE
    assert_subject(error, InterfaceVariable, "weights")


@pytest.mark.parametrize("target", TARGETS)
def test_record_vertex_attribute(target: str) -> None:
    error = rejection(
        target, types='(type Pair record "Pair" (field "a" Float) (field "b" Float))',
        vertex_interface='(in pair "pair" Pair 1 none)',
    )
    assert error.kind is TargetInterfaceRule.VERTEX_INPUT_SHAPE
    assert_subject(error, InterfaceVariable, "pair")


@pytest.mark.parametrize("target", TARGETS)
def test_bool_fragment_output(target: str) -> None:
    error = rejection(
        target, fragment_interface='(out mask "mask" Bool 1 none)', fragment_body="(store (stage mask) (bool true))",
    )
    assert error.kind is TargetInterfaceRule.BOOL
    assert_subject(error, InterfaceVariable, "mask")


@pytest.mark.parametrize("target", TARGETS)
def test_matrix_fragment_output(target: str) -> None:
    error = rejection(
        target, fragment_interface='(out basis "basis" Mat2 1 none)', fragment_registers="(register r1 Mat2)",
        fragment_body="(construct r1 (float 1.0)) (store (stage basis) r1)",
    )
    assert error.kind is TargetInterfaceRule.FRAGMENT_OUTPUT_SHAPE
    assert_subject(error, InterfaceVariable, "basis")


@pytest.mark.parametrize("target", TARGETS)
def test_record_fragment_output(target: str) -> None:
    error = rejection(
        target,
        types='(type Pair record "Pair" (field "a" Vec4) (field "b" Vec4))',
        fragment_interface='(out pair "pair" Pair 1 none)', fragment_registers="(register r1 Pair)",
        fragment_body="(construct r1 r0 r0) (store (stage pair) r1)",
    )
    assert error.kind is TargetInterfaceRule.FRAGMENT_OUTPUT_SHAPE
    assert_subject(error, InterfaceVariable, "pair")


@pytest.mark.parametrize("target", TARGETS)
def test_vector_array_fragment_output_and_numeric_aggregate_varyings_are_accepted(target: str) -> None:
    compile_glsl(
        publish(
            types='(type Vec4s array Vec4 2) (type Pair record "Pair" (field "a" Vec4) (field "b" Int))',
            vertex_interface='(out pair "pair" Pair -1 none) (out basis "basis" Mat2 -1 none)',
            vertex_registers="(register r1 Pair) (register r2 Mat2)",
            vertex_body="(construct r1 r0 (int 1)) (store (stage pair) r1) (construct r2 (float 1.0)) (store (stage basis) r2)",
            fragment_interface='(in pair "pair" Pair -1 none) (in basis "basis" Mat2 -1 none) (out extras "extras" Vec4s 1 none)',
            fragment_registers="(register r1 Vec4s)",
            fragment_body="(construct r1 r0 r0) (store (stage extras) r1)",
        ),
        target=target,
    )


# Locations ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_overlapping_explicit_locations(target: str) -> None:
    error = rejection(
        target, vertex_interface='(in transform "transform" Mat4 0 none) (in tint "tint" Vec4 2 none)',
    )
    assert error.kind is LocationRule.OVERLAP
    # The message names both spans: the user needs the numbers to fix the locations.
    assert "vertex input 'tint' occupies locations 2..2, overlapping input 'transform' at 0..3" in error.message
    assert_subject(error, InterfaceVariable, "tint")


@pytest.mark.parametrize("target", TARGETS)
def test_location_range_overflow(target: str) -> None:
    error = rejection(
        target, vertex_interface='(out basis "basis" Mat2 2147483647 none)',
        vertex_registers="(register r1 Mat2)", vertex_body="(construct r1 (float 1.0)) (store (stage basis) r1)",
    )
    assert error.kind is LocationRule.OUT_OF_RANGE
    assert_subject(error, InterfaceVariable, "basis")


# Sampler aliases ------------------------------------------------------------------------------------------


SAMPLER_UNIFORMS = '(scalar first "first" Sampler) (scalar second "second" Sampler)'


@pytest.mark.parametrize("target", TARGETS)
def test_sampler_register_with_two_definitions(target: str) -> None:
    error = rejection(
        target,
        uniforms=SAMPLER_UNIFORMS,
        fragment_registers="(register r1 Sampler) (register r2 Vec2)",
        fragment_body="(load r1 (uniform first)) (load r1 (uniform second)) (construct r2 (float 0.5)) (texture r0 r1 r2)",
    )
    assert error.kind is SamplerRule.DEFINITION_COUNT
    subject = assert_subject(error, LoadInstruction)
    assert subject.source.slot == 1  # the second definition


@pytest.mark.parametrize("target", TARGETS)
def test_sampler_register_without_definition(target: str) -> None:
    # The read is in an unreachable block, so the verifier's definite assignment does not apply.
    error = rejection(
        target,
        uniforms=SAMPLER_UNIFORMS,
        fragment_registers="(register r1 Sampler) (register r2 Vec2)",
        fragment_blocks="(block dead (construct r2 (float 0.5)) (texture r0 r1 r2) (store (stage color) r0) (return))",
    )
    assert error.kind is SamplerRule.DEFINITION_COUNT
    assert_subject(error, CallInstruction)


@pytest.mark.parametrize("target", TARGETS)
def test_sampler_copy_cycle(target: str) -> None:
    error = rejection(
        target,
        uniforms=SAMPLER_UNIFORMS,
        fragment_registers="(register r1 Sampler) (register r3 Sampler) (register r2 Vec2)",
        fragment_blocks=(
            "(block dead (copy r1 r3) (copy r3 r1) (construct r2 (float 0.5)) (texture r0 r1 r2)"
            " (store (stage color) r0) (return))"
        ),
    )
    assert error.kind is SamplerRule.COPY_CYCLE
    assert "cycle of copies (r1 -> r3 -> r1)" in error.message  # the message shows the cycle
    assert_subject(error, CopyInstruction)


@pytest.mark.parametrize("target", TARGETS)
def test_function_returning_a_sampler(target: str) -> None:
    error = rejection(
        target,
        fragment_functions=(
            '(function pass_through "pass_through" Sampler (parameters (parameter image Sampler))'
            " (registers (register r0 Sampler)) (block entry (load r0 (parameter image)) (return r0)))"
        ),
    )
    assert error.kind is TargetTypeRule.SAMPLER_RETURN
    assert_subject(error, Function, "pass_through")


@pytest.mark.parametrize("target", TARGETS)
def test_write_to_sampler_parameter(target: str) -> None:
    error = rejection(
        target,
        uniforms=SAMPLER_UNIFORMS,
        fragment_functions=(
            '(function rebind "rebind" Void (parameters (parameter image Sampler))'
            " (registers (register r0 Sampler)) (block entry (load r0 (parameter image))"
            " (store (parameter image) r0) (return)))"
        ),
    )
    assert error.kind is SamplerRule.PARAMETER_WRITTEN
    assert_subject(error, StoreInstruction)


@pytest.mark.parametrize("target", TARGETS)
def test_unused_sampler_register_needs_no_definition(target: str) -> None:
    artifact = compile_glsl(publish(fragment_registers="(register r1 Sampler)"), target=target)
    assert "vpl_r1" not in artifact.fragment_code


# ES profiles -------------------------------------------------------------------------------------------------


ARRAY_OF_RECORDS_VARYING = {
    "types": '(type Pair record "Pair" (field "a" Vec4) (field "b" Float)) (type Pairs array Pair 2)',
    "vertex_interface": '(out pairs "pairs" Pairs -1 none)',
    "vertex_registers": "(register r1 Pair) (register r2 Pairs)",
    "vertex_body": "(construct r1 r0 (float 1.0)) (construct r2 r1 r1) (store (stage pairs) r2)",
}
RECORD_WITH_ARRAY_VARYING = {
    "types": '(type Floats array Float 2) (type Holder record "Holder" (field "values" Floats))',
    "vertex_interface": '(out holder "holder" Holder -1 none)',
    "vertex_registers": "(register r1 Floats) (register r2 Holder)",
    "vertex_body": "(construct r1 (float 1.0) (float 2.0)) (construct r2 r1) (store (stage holder) r2)",
}
RECORD_WITH_RECORD_VARYING = {
    "types": '(type Inner record "Inner" (field "x" Float)) (type Outer record "Outer" (field "inner" Inner))',
    "vertex_interface": '(in unused "unused" Float 1 none) (out outer "outer" Outer -1 none)',
    "vertex_registers": "(register r1 Inner) (register r2 Outer)",
    "vertex_body": "(construct r1 (float 1.0)) (construct r2 r1) (store (stage outer) r2)",
}
DYNAMIC_FRAGMENT_OUTPUT_INDEX = {
    "types": "(type Vec4s array Vec4 2)",
    "fragment_interface": '(out extras "extras" Vec4s 1 none)',
    "fragment_registers": "(register r1 Vec4s) (register r2 Int)",
    "fragment_body": "(construct r1 r0 r0) (store (stage extras) r1) (copy r2 (int 1)) (store (index_ref (stage extras) r2) r0)",
}


@pytest.mark.parametrize("target", ["es300", "es320"])
@pytest.mark.parametrize(
    ("parts", "kind", "name"),
    [
        (ARRAY_OF_RECORDS_VARYING, TargetInterfaceRule.VARYING_ARRAY_OF_RECORDS, "pairs"),
        (RECORD_WITH_ARRAY_VARYING, TargetInterfaceRule.VARYING_NESTED_AGGREGATE, "holder"),
        (RECORD_WITH_RECORD_VARYING, TargetInterfaceRule.VARYING_NESTED_AGGREGATE, "outer"),
    ],
    ids=["array-of-records", "record-with-array", "record-with-record"],
)
def test_es_varying_shapes(target: str, parts: dict[str, str], kind: TargetInterfaceRule, name: str) -> None:
    error = rejection(target, **parts)
    assert error.kind is kind
    assert_subject(error, InterfaceVariable, name)


@pytest.mark.parametrize(
    "parts", [ARRAY_OF_RECORDS_VARYING, RECORD_WITH_ARRAY_VARYING, RECORD_WITH_RECORD_VARYING],
    ids=["array-of-records", "record-with-array", "record-with-record"],
)
def test_glsl420_accepts_the_varying_shapes_es_rejects(parts: dict[str, str]) -> None:
    compile_glsl(publish(**parts), target="glsl420")


@pytest.mark.parametrize("target", ["es300", "es320"])
def test_es_dynamic_fragment_output_index(target: str) -> None:
    error = rejection(target, **DYNAMIC_FRAGMENT_OUTPUT_INDEX)
    assert error.kind is TargetInterfaceRule.DYNAMIC_OUTPUT_INDEX
    subject = assert_subject(error, StoreInstruction)
    assert subject.target.index.index == 2


def test_glsl420_accepts_a_dynamic_fragment_output_index() -> None:
    artifact = compile_glsl(publish(**DYNAMIC_FRAGMENT_OUTPUT_INDEX), target="glsl420")
    assert "vpl_output1[vpl_r2] = vpl_r0;" in artifact.fragment_code



@pytest.mark.glslang
@pytest.mark.parametrize("target", ["es300", "es320"])
@pytest.mark.parametrize(
    ("parts", "relaxed_flag", "stage"),
    [
        (ARRAY_OF_RECORDS_VARYING, "flat_varying_records_only", "vert"),
        (RECORD_WITH_ARRAY_VARYING, "flat_varying_records_only", "vert"),
        (RECORD_WITH_RECORD_VARYING, "flat_varying_records_only", "vert"),
        (DYNAMIC_FRAGMENT_OUTPUT_INDEX, "constant_fragment_output_indices", "frag"),
    ],
    ids=["array-of-records", "record-with-array", "record-with-record", "dynamic-output-index"],
)
def test_each_es_restriction_is_one_the_reference_front_end_enforces(
    target: str, parts: dict[str, str], relaxed_flag: str, stage: str, glslang_validator: str, tmp_path: Path
) -> None:
    # Without the restriction the backend would emit code glslangValidator rejects for that ES version.
    profile = dataclasses.replace(resolve_profile(target), **{relaxed_flag: False})
    result = generate(publish(**parts).materialize(), profile)
    path = tmp_path / f"case.{stage}.glsl"
    path.write_text(result.vertex_code if stage == "vert" else result.fragment_code, encoding="utf-8")
    completed = subprocess.run([glslang_validator, str(path)], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2, completed.stdout
    assert "not supported with this profile: es" in completed.stdout
