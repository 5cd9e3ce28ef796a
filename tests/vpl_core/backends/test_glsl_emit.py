"""Code generation details of the GLSL backend (spec 12.1-12.3) that goldens alone do not pin down:
the public entry point, literals, generated names, dispatch lowering, sampler aliases and
locations, with builder-made and text-read modules.
"""

from __future__ import annotations

import dataclasses
import re
import struct

import pytest
from golden_cases import CASES, TARGETS, artifact
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.backends.glsl import GLSL420, generate, names
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl.errors import ProfileRule
from vpl_core.backends.glsl.literals import float_literal, int_literal
from vpl_core.backends.glsl.profiles import ES300, ES320, resolve_profile
from vpl_core.diagnostics import TargetError
from vpl_core.ir import (
    FLOAT,
    INT,
    VOID,
    ConstantValue,
    Module,
    Semantic,
    StageBuilder,
    vec,
)
from vpl_core.publish import VerifiedModule
from vpl_core.text import read, write
from vpl_core.verify import verify


def minimal_module() -> Module:
    module = Module()
    vertex = StageBuilder(module.vertex)
    clip = vertex.output("clip", vec(4), semantic=Semantic.POSITION)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(clip, main.construct(vec(4), main.f(1.0)))
    main.ret()
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), 0, Semantic.FRAGMENT_COLOR)
    entry = fragment.function("fragment_main", VOID, entry=True)
    entry.store(color, entry.construct(vec(4), entry.f(0.0), entry.f(1.0), entry.f(0.0), entry.f(1.0)))
    entry.ret()
    return module


# The public entry point --------------------------------------------------------------------------------


def test_compile_accepts_target_or_version_and_defaults_to_glsl420() -> None:
    verified = VerifiedModule.create(minimal_module())
    default = compile_glsl(verified)
    assert default.target == "glsl420" and default.version == 420
    assert default.vertex_code.startswith("#version 420 core\n")
    assert compile_glsl(verified, version=420) == default
    assert compile_glsl(verified, target="glsl420", version=420) == default
    assert compile_glsl(verified, target="es300").fragment_code.startswith("#version 300 es\n")
    assert compile_glsl(verified, version=320).vertex_code.startswith("#version 320 es\n")


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [
        ({"version": 330}, ProfileRule.UNKNOWN_VERSION),
        ({"version": "420"}, ProfileRule.UNKNOWN_VERSION),
        ({"target": "glsl450"}, ProfileRule.UNKNOWN_TARGET),
        ({"target": "hlsl"}, ProfileRule.UNKNOWN_TARGET),
        ({"target": "es300", "version": 420}, ProfileRule.TARGET_VERSION_MISMATCH),
    ],
)
def test_other_targets_and_versions_are_target_errors(arguments: dict, kind: ProfileRule) -> None:
    with pytest.raises(TargetError) as caught:
        compile_glsl(VerifiedModule.create(minimal_module()), **arguments)
    assert caught.value.kind is kind


def test_compile_accepts_only_the_publication_boundary() -> None:
    with pytest.raises(TypeError, match="VerifiedModule"):
        compile_glsl(minimal_module())  # type: ignore[arg-type]


def test_compile_uses_its_own_snapshot_and_is_deterministic() -> None:
    module = minimal_module()
    verified = VerifiedModule.create(module)
    first = compile_glsl(verified)
    module.fragment.interface[0].location = 5  # mutating the builder cannot reach the snapshot
    second = compile_glsl(verified)
    assert first == second
    assert first.fragment_color_location == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.vertex_code = ""  # type: ignore[misc]


def test_profiles_are_resolved_by_name_or_version() -> None:
    assert resolve_profile() is GLSL420
    assert resolve_profile("es300") is ES300 and resolve_profile(version=300) is ES300
    assert resolve_profile("es320", 320) is ES320


# Literals ------------------------------------------------------------------------------------------------


def _binary32(text: str) -> int:
    return struct.unpack("<I", struct.pack("<f", float(text)))[0]


@pytest.mark.parametrize(
    ("value", "spelling"),
    [
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (-2.5, "-2.5"),
        (0.1, "0.100000001"),
        (16777216.0, "16777216.0"),
        (1e10, "1.0e10"),
        (3.4028234663852886e38, "3.40282346e38"),  # not ...47e38: above the largest float, ANGLE warns
        (-3.4028234663852886e38, "-3.40282346e38"),
        (3.4028232635611926e38, "3.40282326e38"),
        (1.1754943508222875e-38, "1.17549435e-38"),
        (1.401298464324817e-45, "1.40129846e-45"),
    ],
)
def test_float_literal_spellings(value: float, spelling: str) -> None:
    binary32 = struct.unpack("<f", struct.pack("<f", value))[0]
    assert float_literal(binary32) == spelling


@settings(max_examples=examples(3000), deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_float_literals_round_trip_every_finite_binary32(bits: int) -> None:
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    if value != value or value in (float("inf"), float("-inf")):
        return
    text = float_literal(value)
    # GLSL float-constant grammar: a mantissa with a decimal point, an optional decimal exponent.
    assert re.fullmatch(r"-?[0-9]+\.[0-9]+(e-?[0-9]+)?", text), text
    assert len(text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")) <= 10
    assert _binary32(text) == bits
    assert abs(float(text)) <= 3.4028234663852886e38  # no decimal value beyond the largest float


def test_int_literals() -> None:
    assert int_literal(0) == "0"
    assert int_literal(-7) == "-7"
    assert int_literal(2147483647) == "2147483647"
    assert int_literal(-2147483648) == "(-2147483647 - 1)"


def test_negative_literals_are_parenthesized_as_operator_operands() -> None:
    module = minimal_module()
    fragment = StageBuilder(module.fragment)
    entry = fragment.function("helper", INT, [INT])
    value = entry.load(entry.parameter(0))
    value = entry.subtract(value, ConstantValue.of_int(-3))
    value = entry.subtract(value, ConstantValue.of_int(-2147483648))
    entry.ret(value)
    verify(module)
    code = generate(module).fragment_code
    assert "vpl_r1 = vpl_r0 - (-3);" in code
    assert "vpl_r2 = vpl_r1 - (-2147483647 - 1);" in code


# Names -------------------------------------------------------------------------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GENERATED = re.compile(r"vpl_(f[vf][0-9]+|r[0-9]+|p[0-9]+|m[0-9]+|R[0-9]+|u[0-9]+|Block[0-9]+|attribute[0-9]+|varying[0-9]+|output[0-9]+|block)")
_GLSL_WORDS = {
    "version", "core", "es", "precision", "highp", "struct", "layout", "std140", "binding", "location", "uniform",
    "in", "out", "flat", "void", "main", "return", "while", "true", "false", "switch", "case", "continue",
    "discard", "gl_Position", "gl_FragCoord", "float", "int", "bool", "sampler2D",
} | {f"{prefix}vec{size}" for prefix in ("", "i", "b") for size in (2, 3, 4)} | {
    f"mat{columns}" + (f"x{rows}" if rows else "") for columns in (2, 3, 4) for rows in (0, 2, 3, 4)
}


def identifiers(code: str) -> set[str]:
    # Literal exponents (1.0e10) and swizzles (.xyz) are not identifiers.
    code = re.sub(r"[0-9]+\.[0-9]+(e-?[0-9]+)?", "0", code)
    return set(_IDENTIFIER.findall(re.sub(r"\.[xyzw]{1,4}\b", "", code)))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_name", sorted(CASES))
def test_only_generated_names_glsl_words_and_builtins_appear(case_name: str, target: str) -> None:
    result = artifact(case_name, target)
    for code in (result.vertex_code, result.fragment_code):
        for identifier in identifiers(code):
            assert (
                _GENERATED.fullmatch(identifier)
                or identifier in _GLSL_WORDS
                or identifier in names.BUILTIN_FUNCTIONS
            ), f"unexpected identifier {identifier!r}"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_name", sorted(CASES))
def test_function_names_never_collide_with_builtins_or_keywords(case_name: str, target: str) -> None:
    result = artifact(case_name, target)
    for code in (result.vertex_code, result.fragment_code):
        declared = set(re.findall(r"^[A-Za-z_][A-Za-z0-9_\[\]]* ([A-Za-z_][A-Za-z0-9_]*)\(", code, re.MULTILINE))
        assert declared, code
        for name in declared - {"main"}:
            assert re.fullmatch(r"vpl_f[vf][0-9]+", name)
            assert names.check_identifier(name) == name
            assert name not in names.BUILTIN_FUNCTIONS


def test_generated_name_families_are_valid_glsl_identifiers() -> None:
    from vpl_core.ir.module import StageKind

    for number in (0, 1, 17, 2147483647):
        for name in (
            names.function_name(StageKind.VERTEX, number), names.function_name(StageKind.FRAGMENT, number),
            names.register_name(number), names.parameter_name(number), names.field_name(number),
            names.record_name(number), names.uniform_name(number), names.block_name(number),
            names.attribute_name(number), names.varying_name(number), names.output_name(number),
            names.BLOCK_SELECTOR,
        ):
            assert names.check_identifier(name) == name
    for bad in ("main", "texture", "gl_Foo", "a__b", "1x", "x-y", "vec4"):
        with pytest.raises(ValueError):
            names.check_identifier(bad)


def _renamed(text: str) -> str:
    """The same module with every distinct display string replaced by a bland one."""
    replacements: dict[str, str] = {}
    return re.sub(
        r'"(?:[^"\\]|\\.)*"',
        lambda match: '"' + replacements.setdefault(match.group(0), f"name{len(replacements)}") + '"',
        text,
    )


@pytest.mark.parametrize("target", TARGETS)
def test_code_does_not_depend_on_display_names(target: str) -> None:
    # hostile-names.vpl is full of GLSL keywords, built-in names, generated-name
    # look-alikes and code fragments; renaming them all changes no byte of code.
    canonical = CASES["hostile-names"].source.read_text(encoding="utf-8")
    hostile = compile_glsl(VerifiedModule.from_text(canonical), target=target)
    bland = compile_glsl(VerifiedModule.from_text(_renamed(write(read(canonical)))), target=target)
    assert hostile.vertex_code == bland.vertex_code
    assert hostile.fragment_code == bland.fragment_code
    for fragment in ("}; void x(){", "#version 100", "*/", "gl_FragColor", "gl_Vertex", "discard"):
        assert fragment not in hostile.vertex_code + hostile.fragment_code
    assert [binding.name for binding in hostile.uniforms] == ["gl_FragColor", "vpl_u1", "*/ uniform float /*\u0001\n"]


# Dispatch lowering -------------------------------------------------------------------------------------------


def test_single_block_functions_are_straight_line() -> None:
    code = artifact("spec-canonical-example", "glsl420").fragment_code
    assert "switch" not in code and "while" not in code


def test_general_graphs_use_a_selector_loop_with_one_case_per_reachable_block() -> None:
    code = artifact("spec-loop-and-helper", "glsl420").fragment_code
    assert "    int vpl_block = 0;\n    while (true) {\n        switch (vpl_block) {\n" in code
    assert code.count("        case ") == 4
    assert "            vpl_block = vpl_r1 ? 2 : 3;\n            continue;\n" in code
    # The helper is one block: no loop, and the void entry has no fallback return.
    assert "int vpl_ff1(int vpl_p0) {\n    int vpl_r0;\n    vpl_r0 = vpl_p0;" in code


def test_non_void_dispatch_functions_end_with_an_unreachable_fallback_return() -> None:
    code = artifact("loop-early-return", "glsl420").fragment_code
    assert "        }\n    }\n    return 0;\n}\n" in code


def test_unreachable_blocks_are_not_emitted() -> None:
    text = CASES["spec-loop-and-helper"].source.read_text(encoding="utf-8")
    text = text.replace(
        "        (block finish",
        "        (block orphan\n          (construct r2 r0)\n          (branch finish))\n        (block finish",
    )
    code = compile_glsl(VerifiedModule.from_text(text)).fragment_code
    # The orphan is block 3; the finish block keeps its list position 4.
    assert "case 3:" not in code and "case 4:" in code and code.count("        case ") == 4


def test_discard_in_dispatch_and_direct_functions() -> None:
    code = artifact("discard", "glsl420").fragment_code
    assert "        case 1:\n            discard;\n" in code
    assert "void vpl_ff1() {\n    discard;\n}\n" in code
    # glslang rejects a non-void function without a return statement.
    assert "float vpl_ff2() {\n    discard;\n    return 0.0;\n}\n" in code


def test_main_calls_the_selected_entry_not_the_first_function() -> None:
    text = CASES["spec-loop-and-helper"].source.read_text(encoding="utf-8")
    reordered = text.replace("(fragment fragment_entry", "(fragment fragment_entry", 1)
    module = read(reordered)
    module.fragment.functions.reverse()  # entry is now the second function
    verify(module)
    code = generate(module).fragment_code
    assert code.endswith("void main() {\n    vpl_ff1();\n}\n")
    assert "int vpl_ff0(int vpl_p0);\nvoid vpl_ff1();\n" in code


# Loads, stores, blocks and samplers -------------------------------------------------------------------------


def test_whole_block_uniform_loads_construct_a_struct_value() -> None:
    code = artifact("record-array-uniforms", "glsl420").fragment_code
    assert "vpl_r0 = vpl_R1(vpl_u0.vpl_m0, vpl_u0.vpl_m1, vpl_u0.vpl_m2, vpl_u0.vpl_m3, vpl_u0.vpl_m4);" in code
    assert "layout(std140, binding = 0) uniform vpl_Block0 {" in code
    assert "layout(std140, binding = 1) uniform vpl_Block4 {" in code
    assert "vpl_r2 = vpl_u0.vpl_m1[1];" in code and "vpl_r5 = vpl_u2[vpl_r4];" in code


def test_es300_blocks_have_no_binding_qualifier_but_keep_reflected_binding_points() -> None:
    result = artifact("record-array-uniforms", "es300")
    assert "layout(std140) uniform vpl_Block0 {" in result.fragment_code
    assert "binding" not in result.fragment_code
    assert [binding.block_binding for binding in result.uniforms] == [0, -1, -1, -1, 1]


def test_sampler_registers_are_aliases_never_locals() -> None:
    for case_name in sorted(CASES):
        for target in TARGETS:
            result = artifact(case_name, target)
            for code in (result.vertex_code, result.fragment_code):
                assert not re.search(r"^\s+sampler2D ", code, re.MULTILINE), f"{case_name} {target}"
    code = artifact("sampler-alias", "glsl420").fragment_code
    assert "vpl_r5 = texture(vpl_u0, vpl_r4);" in code
    assert "vpl_r6 = vpl_ff1(vpl_u0, vpl_r4);" in code
    assert "vpl_r2 = texture(vpl_p0, vpl_r1);" in code and "vpl_r3 = texture(vpl_p0, vpl_r1);" in code


def test_parameters_are_by_value_in_parameters_written_locally() -> None:
    code = artifact("calls", "glsl420").fragment_code
    assert "void vpl_ff2(float vpl_p0[3]) {\n    vpl_p0[0] = 100.0;\n    return;\n}" in code
    assert "inout" not in code and " out float" not in code


def test_integer_varyings_are_flat_on_both_sides_and_locations_allocated() -> None:
    result = artifact("integer-varyings", "glsl420")
    assert "layout(location = 0) flat out int vpl_varying0;" in result.vertex_code
    assert "layout(location = 1) flat out vpl_R0 vpl_varying1;" in result.vertex_code
    assert "layout(location = 5) flat out ivec2 vpl_varying5;" in result.vertex_code
    assert "layout(location = 6) out mat2 vpl_varying6;" in result.vertex_code
    assert "layout(location = 1) flat in vpl_R0 vpl_varying1;" in result.fragment_code
    assert "layout(location = 5) flat in ivec2 vpl_varying5;" in result.fragment_code
    locations = {binding.name: binding.location for binding in result.vertex_interface}
    assert locations == {
        "position": 0, "clip": -1, "count": 0, "cell": 1, "weights": 3, "pair": 5, "basis": 6, "tint": 8, "unused": 9,
    }
    fragment = {binding.name: (binding.gl_name, binding.location) for binding in result.fragment_interface}
    assert fragment["pair_input"] == ("vpl_varying5", 5)
    assert fragment["count"] == ("vpl_varying0", 0)


def test_es300_varyings_match_by_location_derived_names() -> None:
    result = artifact("integer-varyings", "es300")
    assert "\nflat out int vpl_varying0;" in result.vertex_code
    assert "\nflat in int vpl_varying0;" in result.fragment_code
    assert "layout(location = 0) in vec3 vpl_attribute0;" in result.vertex_code
    for line in result.vertex_code.splitlines():
        if " out " in f" {line}" and "location" in line:
            raise AssertionError(f"es300 varying with a location: {line}")


def test_es_preamble_precedes_every_declaration() -> None:
    for target in ("es300", "es320"):
        result = artifact("record-array-uniforms", target)
        for code in (result.vertex_code, result.fragment_code):
            lines = code.splitlines()
            assert lines[0] == f"#version {target[2:]} es"
            assert lines[1:4] == ["precision highp float;", "precision highp int;", "precision highp sampler2D;"]


def test_locations_fixture_reflection() -> None:
    result = artifact("locations", "glsl420")
    vertex = {binding.name: binding.location for binding in result.vertex_interface}
    assert vertex == {
        "uv": 0, "basis": 1, "tint": 4, "ids": 7, "small": 5, "weight": 8,
        "clip": -1, "pair": 0, "fixed": 2, "uvs": 3, "unused": 6,
    }
    fragment = {binding.name: (binding.gl_name, binding.location) for binding in result.fragment_interface}
    assert fragment == {
        "uvs": ("vpl_varying3", 3), "fixed_input": ("vpl_varying2", 2), "pair": ("vpl_varying0", 0),
        "color": ("vpl_output0", 0), "extras": ("vpl_output1", 1), "id": ("vpl_output3", 3),
    }
    assert (result.fragment_color_output, result.fragment_color_location) == ("vpl_output0", 0)


def test_position_is_builtin_without_declaration() -> None:
    result = artifact("discard", "glsl420")
    assert "gl_FragCoord" in result.fragment_code and "gl_Position = " in result.vertex_code
    assert "in vec4 gl_FragCoord" not in result.fragment_code and "out vec4 gl_Position" not in result.vertex_code
    position = [binding for binding in result.fragment_interface if binding.semantic is Semantic.POSITION]
    assert [(binding.gl_name, binding.location) for binding in position] == [("gl_FragCoord", -1)]


def test_math_extension_spellings() -> None:
    code = artifact("math-ops", "glsl420").fragment_code
    for expected in (
        "vpl_r1 = roundEven(vpl_r0);", "vpl_r1 = atan(vpl_r0, -1.0);", "vpl_r1 = -vpl_r0;",
        "vpl_r3 = mix(vpl_r2, vpl_r3, vpl_r7);", "vpl_r6 = vpl_r6 && true;", "vpl_r6 = vpl_r6 || false;",
        "vpl_r6 = !vpl_r6;", "vpl_r5 = ivec2(vpl_r9);", "vpl_r17 = int(0.75);", "vpl_r9 = dFdx(vpl_r9);",
        "vpl_r1 = dFdy(vpl_r1);", "vpl_r9 = fwidth(vpl_r9);", "vpl_r10 = textureLod(vpl_u0, vpl_r9, 1.0);",
        "vpl_r15 = true ? 1.0 : 0.0;", "vpl_r8 = -vpl_r8;", "vpl_r5 = min(vpl_r5, 0);",
    ):
        assert expected in code, expected


def test_matrix_types_are_columns_by_rows() -> None:
    from vpl_core.backends.glsl.emit import base_type_name
    from vpl_core.ir import mat

    records = names.RecordNames()
    assert base_type_name(mat(4), records) == "mat4"
    assert base_type_name(mat(3, 2), records) == "mat2x3"  # 3 rows, 2 columns
    assert base_type_name(mat(2, 4), records) == "mat4x2"


def test_record_names_follow_dependency_order_and_nominal_identity() -> None:
    from vpl_core.ir import ArrayType, record

    inner_a = record("Same", [("x", FLOAT)])
    inner_b = record("Same", [("x", FLOAT)])
    outer = record("Outer", [("a", inner_a), ("b", ArrayType(inner_b, 2))])
    records = names.RecordNames()
    records.add(outer)
    records.add(inner_a)
    assert [records.name(r) for r in (inner_a, inner_b, outer)] == ["vpl_R0", "vpl_R1", "vpl_R2"]
