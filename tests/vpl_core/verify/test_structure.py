"""Structural layer: modules, stages, functions, blocks, names, entries, uniforms, types, declarations (spec 3-5.1)."""

from __future__ import annotations

import pytest
from test_structure_support import assert_accepted, assert_rejected, sample

from vpl_core.ir import (
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    Block,
    DeclareLocalInstruction,
    Field,
    Function,
    MatrixType,
    Module,
    RecordType,
    ReferenceValue,
    RegisterValue,
    ReturnTerminator,
    SamplerType,
    ScalarType,
    Stage,
    StageKind,
    StorageKind,
    Uniform,
    UniformKind,
    VectorType,
    add_uniform,
    mat,
    record,
    vec,
)
from vpl_core.verify import VerificationError, Verifier, structure
from vpl_core.verify.errors import FunctionRule, InterfaceRule, ObjectRule, StageRule, TerminatorRule, TypeRule, UniformRule, ValueRule


def forge(obj: object, **fields: object) -> None:
    """Set fields of a frozen IR object, as a buggy producer could."""
    for name, value in fields.items():
        object.__setattr__(obj, name, value)


# Module and stages ---------------------------------------------------------------------


def test_minimal_module_is_accepted_and_not_mutated() -> None:
    s = sample()
    before = (list(s.module.uniforms), list(s.module.vertex.functions), list(s.fragment_main.function.blocks[0].instructions))
    assert_accepted(s.module)
    Verifier().run(s.module)
    assert before == (list(s.module.uniforms), list(s.module.vertex.functions), list(s.fragment_main.function.blocks[0].instructions))


def test_not_a_module_is_rejected() -> None:
    with pytest.raises(VerificationError) as caught:
        structure.check_module("module")  # type: ignore[arg-type]
    assert caught.value.kind is ObjectRule.NOT_A_MODULE


def test_stage_kinds_must_match_their_slot() -> None:
    s = sample()
    s.module.vertex.kind = StageKind.FRAGMENT
    assert_rejected(s.module, StageRule.KIND, s.module.vertex)


def test_same_stage_object_in_both_slots_is_rejected() -> None:
    s = sample()
    s.module.fragment = s.module.vertex
    assert_rejected(s.module, StageRule.KIND, s.module.vertex)


def test_missing_stage_object_is_rejected() -> None:
    s = sample()
    s.module.fragment = None  # type: ignore[assignment]
    assert_rejected(s.module, StageRule.MISSING, s.module)


# Entry selection (spec 3) -------------------------------------------------------------


def test_entry_must_be_selected() -> None:
    s = sample()
    s.module.fragment.entry = None
    assert_rejected(s.module, StageRule.NO_ENTRY, s.module.fragment)


def test_entry_must_be_in_the_same_stage() -> None:
    s = sample()
    s.module.fragment.entry = s.vertex_main.function
    assert_rejected(s.module, StageRule.ENTRY_NOT_IN_STAGE, s.module.fragment)


def test_entry_must_be_parameterless() -> None:
    s = sample()
    entry = s.fragment_main.function
    entry.parameters.append(ReferenceValue(StorageKind.PARAMETER, 0, FLOAT))
    assert_rejected(s.module, StageRule.ENTRY_HAS_PARAMETERS, entry)


def test_entry_must_return_void() -> None:
    s = sample()
    helper = s.fragment.function("helper", FLOAT)
    helper.ret(helper.f(1.0))
    s.module.fragment.entry = helper.function
    assert_rejected(s.module, StageRule.ENTRY_NOT_VOID, helper.function)


def test_entry_is_not_chosen_by_name_or_order() -> None:
    s = sample()
    other = s.fragment.function("main")
    other.ret()
    s.module.fragment.functions.reverse()
    assert_accepted(s.module)


# Functions and blocks --------------------------------------------------------------------


def test_function_needs_a_block() -> None:
    s = sample()
    empty = Function("empty", VOID)
    s.module.fragment.functions.append(empty)
    assert_rejected(s.module, FunctionRule.NO_BLOCKS, empty)


def test_block_needs_a_terminator() -> None:
    s = sample()
    helper = s.fragment.function("helper")
    block = helper.function.blocks[0]
    assert_rejected(s.module, TerminatorRule.MISSING, block, (s.module.fragment, helper.function))


def test_block_shared_between_functions_is_rejected() -> None:
    s = sample()
    helper = s.fragment.function("helper")
    shared = s.fragment_main.function.blocks[0]
    helper.function.blocks.append(shared)
    helper.ret()
    assert_rejected(s.module, FunctionRule.BLOCK_SHARED, shared)


def test_block_listed_twice_is_rejected() -> None:
    s = sample()
    entry = s.fragment_main.function
    entry.blocks.append(entry.blocks[0])
    assert_rejected(s.module, FunctionRule.BLOCK_LISTED_TWICE, entry.blocks[0])


def test_function_shared_between_stages_is_rejected() -> None:
    s = sample()
    helper = s.vertex.function("helper")
    helper.ret()
    s.module.fragment.functions.append(helper.function)
    assert_rejected(s.module, FunctionRule.SHARED_BETWEEN_STAGES, helper.function)


def test_function_listed_twice_is_rejected() -> None:
    s = sample()
    helper = s.fragment.function("helper")
    helper.ret()
    s.module.fragment.functions.append(helper.function)
    assert_rejected(s.module, FunctionRule.LISTED_TWICE, helper.function)


def test_non_function_in_function_list_is_rejected() -> None:
    s = sample()
    s.module.fragment.functions.append(None)  # type: ignore[arg-type]
    assert_rejected(s.module, ObjectRule.WRONG_CLASS, s.module.fragment)


def test_non_block_in_block_list_is_rejected() -> None:
    s = sample()
    s.fragment_main.function.blocks.append("block")  # type: ignore[arg-type]
    assert_rejected(s.module, ObjectRule.WRONG_CLASS, s.fragment_main.function)


def test_blocks_across_stages_are_distinct_objects() -> None:
    s = sample()
    helper = s.fragment.function("helper")
    helper.function.blocks[0] = s.vertex_main.function.blocks[0]
    assert_rejected(s.module, FunctionRule.BLOCK_SHARED, s.vertex_main.function.blocks[0])


# Names (spec 3) -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", None, 7])
def test_function_names_are_nonempty_strings(name: object) -> None:
    s = sample()
    helper = s.fragment.function("helper")
    helper.ret()
    helper.function.name = name  # type: ignore[assignment]
    assert_rejected(s.module, FunctionRule.NAME, helper.function)


def test_function_names_are_unique_within_a_stage() -> None:
    s = sample()
    helper = s.fragment.function("fragment_main")
    helper.ret()
    assert_rejected(s.module, FunctionRule.DUPLICATE_NAME, helper.function)


def test_function_names_may_repeat_across_stages_and_differ_by_case() -> None:
    s = sample()
    one = s.fragment.function("vertex_main")
    one.ret()
    two = s.fragment.function("Fragment_main")
    two.ret()
    assert_accepted(s.module)


def test_function_and_interface_names_are_separate_collections() -> None:
    s = sample()
    helper = s.fragment.function("color")
    helper.ret()
    assert_accepted(s.module)


@pytest.mark.parametrize("name", ["", None])
def test_uniform_names_are_nonempty_strings(name: object) -> None:
    s = sample()
    s.module.uniforms.append(Uniform(UniformKind.SCALAR, name, FLOAT))  # type: ignore[arg-type]
    assert_rejected(s.module, UniformRule.NAME, s.module.uniforms[0])


def test_uniform_names_are_unique_module_wide() -> None:
    s = sample()
    add_uniform(s.module, "time", FLOAT)
    add_uniform(s.module, "time", vec(3))
    assert_rejected(s.module, UniformRule.DUPLICATE_NAME, s.module.uniforms[1])


def test_record_display_names_are_nonempty() -> None:
    s = sample()
    nameless = record("", [("x", FLOAT)])
    add_uniform(s.module, "scene", nameless)
    assert_rejected(s.module, TypeRule.RECORD_NAME, nameless)


def test_record_display_names_need_not_be_unique() -> None:
    s = sample()
    add_uniform(s.module, "a", record("Light", [("x", FLOAT)]))
    add_uniform(s.module, "b", record("Light", [("x", FLOAT)]))
    assert_accepted(s.module)


def test_field_names_are_nonempty_and_unique() -> None:
    s = sample()
    empty = record("Light", [("", FLOAT)])
    add_uniform(s.module, "light", empty)
    assert_rejected(s.module, TypeRule.FIELD_NAME, empty.fields[0])

    s = sample()
    twice = record("Light", [("x", FLOAT), ("x", INT)])
    add_uniform(s.module, "light", twice)
    assert_rejected(s.module, TypeRule.DUPLICATE_FIELD, twice.fields[1])


# Uniforms (spec 6) -------------------------------------------------------------------


@pytest.mark.parametrize("value_type", [FLOAT, INT, vec(3), mat(4), mat(2, 3), SAMPLER2D])
def test_scalar_uniforms_carry_scalar_vector_matrix_or_sampler_types(value_type: object) -> None:
    s = sample()
    s.module.uniforms.append(Uniform(UniformKind.SCALAR, "u", value_type))  # type: ignore[arg-type]
    assert_accepted(s.module)


def test_uniform_kind_must_agree_with_type() -> None:
    light = record("Light", [("x", FLOAT)])
    cases = [
        (Uniform(UniformKind.SCALAR, "u", light), UniformRule.KIND_TYPE),
        (Uniform(UniformKind.SCALAR, "u", ArrayType(FLOAT, 2)), UniformRule.KIND_TYPE),
        (Uniform(UniformKind.RECORD, "u", FLOAT), UniformRule.KIND_TYPE),
        (Uniform(UniformKind.ARRAY, "u", FLOAT), UniformRule.KIND_TYPE),
        (Uniform("scalar", "u", FLOAT), ObjectRule.INVALID_ENUM),  # type: ignore[arg-type]
        (Uniform(UniformKind.SCALAR, "u", VOID), TypeRule.VOID_VALUE),
        (Uniform(UniformKind.SCALAR, "u", None), TypeRule.NOT_A_TYPE),  # type: ignore[arg-type]
    ]
    for uniform, kind in cases:
        s = sample()
        s.module.uniforms.append(uniform)
        assert_rejected(s.module, kind, uniform)
    s = sample()
    s.module.uniforms.append(Uniform(UniformKind.RECORD, "r", light))
    s.module.uniforms.append(Uniform(UniformKind.ARRAY, "a", ArrayType(light, 3)))
    assert_accepted(s.module)


def test_array_uniform_with_count_zero_is_rejected() -> None:
    s = sample()
    unsized = ArrayType(FLOAT, 1)
    forge(unsized, count=0)
    s.module.uniforms.append(Uniform(UniformKind.ARRAY, "a", unsized))
    assert_rejected(s.module, TypeRule.ARRAY_COUNT, unsized)


def test_non_uniform_in_uniform_list_is_rejected() -> None:
    s = sample()
    s.module.uniforms.append(FLOAT)  # type: ignore[arg-type]
    assert_rejected(s.module, ObjectRule.WRONG_CLASS, s.module)


# Types (spec 4) -------------------------------------------------------------------------


def test_void_is_not_a_field_or_element_type() -> None:
    s = sample()
    holder = record("Holder", [("nothing", VOID)])
    add_uniform(s.module, "h", holder)
    assert_rejected(s.module, TypeRule.VOID_VALUE, holder.fields[0])

    s = sample()
    voids = ArrayType(VOID, 2)
    s.module.uniforms.append(Uniform(UniformKind.ARRAY, "v", voids))
    assert_rejected(s.module, TypeRule.VOID_VALUE, voids)


def test_record_containing_itself_is_rejected() -> None:
    s = sample()
    node = RecordType("Node", [])
    node.fields.append(Field("next", node))
    add_uniform(s.module, "list", node)
    assert_rejected(s.module, TypeRule.RECURSIVE, node)


def test_record_containing_itself_through_arrays_and_other_records_is_rejected() -> None:
    s = sample()
    outer = RecordType("Outer", [])
    middle = record("Middle", [("items", ArrayType(outer, 2))])
    outer.fields.append(Field("middle", ArrayType(ArrayType(middle, 3), 2)))
    add_uniform(s.module, "u", middle)
    assert_rejected(s.module, TypeRule.RECURSIVE, middle)


def test_unused_recursive_type_reachable_from_a_register_declaration_is_rejected() -> None:
    s = sample()
    node = RecordType("Node", [])
    node.fields.append(Field("self", node))
    wrapper = record("Wrapper", [("node", node)])
    s.fragment_main.register(wrapper)
    assert_rejected(s.module, TypeRule.RECURSIVE, node)


def test_forged_cyclic_array_type_is_rejected() -> None:
    s = sample()
    loop = ArrayType(FLOAT, 2)
    forge(loop, element=loop)
    s.module.uniforms.append(Uniform(UniformKind.ARRAY, "a", loop))
    assert_rejected(s.module, TypeRule.RECURSIVE, loop)


def test_shared_acyclic_record_is_not_a_cycle() -> None:
    s = sample()
    leaf = record("Leaf", [("x", FLOAT)])
    pair = record("Pair", [("a", leaf), ("b", leaf), ("many", ArrayType(leaf, 4))])
    add_uniform(s.module, "pair", pair)
    add_uniform(s.module, "leaf", leaf)
    assert_accepted(s.module)


def test_empty_record_is_representable() -> None:
    s = sample()
    add_uniform(s.module, "empty", record("Empty", []))
    assert_accepted(s.module)


@pytest.mark.parametrize(
    "field, value, kind",
    [
        ("size", 5, TypeRule.VECTOR_SIZE),
        ("size", True, TypeRule.VECTOR_SIZE),
        ("kind", "float", TypeRule.ELEMENT_KIND),
    ],
)
def test_malformed_vector_types_are_rejected(field: str, value: object, kind: TypeRule) -> None:
    s = sample()
    bad = VectorType(FLOAT.kind, 3)
    forge(bad, **{field: value})
    add_uniform(s.module, "u", bad)
    assert_rejected(s.module, kind, bad)


def test_malformed_matrix_scalar_and_sampler_types_are_rejected() -> None:
    for bad, kind in [
        (MatrixType(2, 2), TypeRule.MATRIX_SHAPE),
        (ScalarType(FLOAT.kind), TypeRule.ELEMENT_KIND),
        (SamplerType(), TypeRule.SAMPLER_KIND),
    ]:
        forge(bad, **{"rows": 1} if isinstance(bad, MatrixType) else {"kind": "cube"})
        s = sample()
        s.module.uniforms.append(Uniform(UniformKind.SCALAR, "u", bad))
        assert_rejected(s.module, kind, bad)


def test_unknown_type_class_is_rejected() -> None:
    class Quaternion(ScalarType):
        pass

    s = sample()
    uniform = Uniform(UniformKind.SCALAR, "q", Quaternion(FLOAT.kind))
    s.module.uniforms.append(uniform)
    assert_rejected(s.module, TypeRule.NOT_A_TYPE, uniform)


def test_void_return_type_is_allowed_but_void_parameter_is_not() -> None:
    s = sample()
    helper = s.fragment.function("helper", VOID, [VOID])
    helper.ret()
    assert_rejected(s.module, TypeRule.VOID_VALUE, helper.function.parameters[0])


def test_function_return_type_must_be_a_type() -> None:
    s = sample()
    helper = s.fragment.function("helper", "float")  # type: ignore[arg-type]
    helper.ret()
    assert_rejected(s.module, TypeRule.NOT_A_TYPE, helper.function)


# Parameters (spec 3, 6.1) --------------------------------------------------------------


def test_parameters_are_root_parameter_references_in_slot_order() -> None:
    s = sample()
    helper = s.fragment.function("helper", VOID, [FLOAT, INT])
    helper.ret()
    assert_accepted(s.module)

    parameters = helper.function.parameters
    parameters[1] = ReferenceValue(StorageKind.PARAMETER, 0, INT)
    assert_rejected(s.module, FunctionRule.PARAMETER_SLOT, parameters[1])

    parameters[1] = ReferenceValue(StorageKind.LOCAL, 1, INT)
    assert_rejected(s.module, FunctionRule.PARAMETER_STORAGE_KIND, parameters[1])

    forged = ReferenceValue(StorageKind.PARAMETER, 1, INT)
    from vpl_core.ir import MemberReferenceValue

    derived = MemberReferenceValue(StorageKind.PARAMETER, 1, INT, forged, "x")
    parameters[1] = derived
    assert_rejected(s.module, FunctionRule.PARAMETER_NOT_ROOT, derived)

    parameters[1] = None  # type: ignore[call-overload]
    assert_rejected(s.module, FunctionRule.PARAMETER_NOT_ROOT, helper.function)


# Register declarations (spec 5.1) ------------------------------------------------------


def test_declarations_form_a_prefix_of_the_entry_block() -> None:
    s = sample()
    entry = s.fragment_main.function.blocks[0]
    late = DeclareLocalInstruction(RegisterValue(40, FLOAT), FLOAT)
    entry.instructions.append(late)
    assert_rejected(s.module, ValueRule.DECLARATION_NOT_IN_PREFIX, late, (s.module.fragment, s.fragment_main.function, entry))


def test_declarations_outside_the_entry_block_are_rejected() -> None:
    s = sample()
    main = s.fragment_main
    later = main.new_block()
    main.function.blocks[0].terminator = None
    main.position_at(main.function.blocks[0])
    main.branch(later)
    main.position_at(later)
    main.ret()
    declaration = DeclareLocalInstruction(RegisterValue(40, FLOAT), FLOAT)
    later.instructions.append(declaration)
    assert_rejected(s.module, ValueRule.DECLARATION_NOT_IN_PREFIX, declaration)


def test_register_declared_twice_is_rejected() -> None:
    s = sample()
    s.fragment_main.register(FLOAT, index=7)
    s.fragment_main.register(FLOAT, index=7)
    declarations = s.fragment_main.function.blocks[0].instructions
    assert_rejected(s.module, ValueRule.DECLARED_TWICE, declarations[2])


def test_register_indices_need_not_be_dense() -> None:
    s = sample()
    value = s.fragment_main.register(FLOAT, index=1000)
    s.fragment_main.copy(s.fragment_main.f(2.0), result=value)
    assert_accepted(s.module)


def test_declaration_type_must_equal_register_type() -> None:
    s = sample()
    declaration = DeclareLocalInstruction(RegisterValue(9, FLOAT), INT)
    s.fragment_main.function.blocks[0].instructions.insert(0, declaration)
    assert_rejected(s.module, ValueRule.REGISTER_TYPE, declaration)


def test_void_register_is_rejected() -> None:
    s = sample()
    s.fragment_main.register(VOID)
    declaration = s.fragment_main.function.blocks[0].instructions[1]
    assert_rejected(s.module, TypeRule.VOID_VALUE, declaration)


def test_negative_register_index_is_rejected() -> None:
    s = sample()
    register = RegisterValue(-1, FLOAT)
    s.fragment_main.function.blocks[0].instructions.insert(0, DeclareLocalInstruction(register, FLOAT))
    assert_rejected(s.module, ValueRule.REGISTER_INDEX, register)


def test_undeclared_register_use_is_rejected() -> None:
    s = sample()
    ghost = RegisterValue(99, FLOAT)
    s.fragment_main.copy(s.fragment_main.f(1.0), result=ghost)
    assert_rejected(s.module, ValueRule.UNDECLARED_REGISTER, ghost)


def test_register_use_with_another_type_is_rejected() -> None:
    s = sample()
    declared = s.fragment_main.register(FLOAT)
    retyped = RegisterValue(declared.index, INT)
    s.fragment_main.copy(s.fragment_main.i(1), result=retyped)
    assert_rejected(s.module, ValueRule.REGISTER_TYPE, retyped)


def test_register_ids_are_function_local() -> None:
    s = sample()
    helper = s.fragment.function("helper", INT)
    local = helper.register(INT, index=0)
    helper.copy(helper.i(3), result=local)
    helper.ret(local)
    assert s.fragment_main.function.blocks[0].instructions[0].register.type == vec(4)
    assert_accepted(s.module)


# Reruns and failure cleanup (spec 9) ----------------------------------------------------


def test_verifier_is_reusable_after_a_failure_and_keeps_no_state() -> None:
    verifier = Verifier()
    good = sample().module
    bad = sample()
    bad.module.fragment.entry = None
    verifier.run(good)
    with pytest.raises(VerificationError):
        verifier.run(bad.module)
    verifier.run(good)
    # Fixing the failed module makes it pass on the same verifier.
    bad.module.fragment.entry = bad.fragment_main.function
    verifier.run(bad.module)
    # And breaking a verified module is caught: a success is not cached.
    good.vertex.entry = None
    with pytest.raises(VerificationError):
        verifier.run(good)


def test_structure_check_is_deterministic() -> None:
    s = sample()
    s.module.uniforms.append(Uniform(UniformKind.SCALAR, "", FLOAT))
    s.module.fragment.entry = None
    found = set()
    for _ in range(3):
        with pytest.raises(VerificationError) as caught:
            structure.check_module(s.module)
        found.add((caught.value.kind, caught.value.message))
    assert len(found) == 1 and next(iter(found))[0] is UniformRule.NAME


def test_uniforms_are_checked_before_stages_and_vertex_before_fragment() -> None:
    s = sample()
    s.module.fragment.entry = None
    s.module.vertex.entry = None
    assert_rejected(s.module, StageRule.NO_ENTRY, s.module.vertex)
    add_uniform(s.module, "", FLOAT)
    assert_rejected(s.module, UniformRule.NAME, s.module.uniforms[0])


def test_stage_list_fields_must_be_lists() -> None:
    s = sample()
    s.module.fragment.functions = None  # type: ignore[assignment]
    assert_rejected(s.module, ObjectRule.NOT_A_LIST, s.module.fragment)
    s = sample()
    s.fragment_main.function.blocks[0].instructions = "abc"  # type: ignore[assignment]
    assert_rejected(s.module, ObjectRule.NOT_A_LIST, s.fragment_main.function.blocks[0])
    s = sample()
    s.module.uniforms = {}  # type: ignore[assignment]
    assert_rejected(s.module, ObjectRule.NOT_A_LIST, s.module)


def test_stage_object_must_be_a_stage() -> None:
    s = sample()
    s.module.vertex = Block()  # type: ignore[assignment]
    assert_rejected(s.module, StageRule.MISSING, s.module)


def test_stage_built_with_entry_at_construction_is_accepted() -> None:
    s = sample()
    stage = Stage(StageKind.FRAGMENT, list(s.module.fragment.interface), list(s.module.fragment.functions), s.fragment_main.function)
    s.module.fragment = stage
    assert_accepted(s.module)


def test_return_terminator_object_may_be_shared() -> None:
    # Sharing terminator objects between blocks is not forbidden by the spec.
    s = sample()
    helper = s.fragment.function("helper")
    helper.function.blocks[0].terminator = s.fragment_main.function.blocks[0].terminator
    assert isinstance(helper.function.blocks[0].terminator, ReturnTerminator)
    assert_accepted(s.module)


def test_empty_module_reports_missing_required_outputs() -> None:
    module = Module()
    assert_rejected(module, InterfaceRule.NO_POSITION, module.vertex)
