"""Structural layer: storage references, derived paths and permissions (spec 6, 6.1)."""

from __future__ import annotations

from test_structure_support import assert_accepted, assert_rejected, sample

from vpl_core.ir import (
    FLOAT,
    INT,
    VOID,
    ArrayType,
    ConstantValue,
    CopyInstruction,
    IndexReferenceValue,
    LoadInstruction,
    MemberReferenceValue,
    ReferenceValue,
    RegisterValue,
    StorageKind,
    StoreInstruction,
    add_uniform,
    element,
    local_ref,
    member,
    record,
    vec,
)
from vpl_core.verify.errors import InstructionRule, ObjectRule, ReferenceRule, TypeRule, ValueRule


def forge(obj: object, **fields: object) -> None:
    for name, value in fields.items():
        object.__setattr__(obj, name, value)


# Root bindings (spec 6) ------------------------------------------------------------------


def test_local_reference_binds_to_a_declared_register_of_its_type() -> None:
    s = sample()
    f = s.fragment_main
    value = f.register(FLOAT)
    f.store(local_ref(value), f.f(1.0))
    f.load(local_ref(value))
    assert_accepted(s.module)

    ghost = ReferenceValue(StorageKind.LOCAL, 77, FLOAT)
    f.load(ghost)
    assert_rejected(s.module, ReferenceRule.UNDECLARED_LOCAL, ghost)


def test_local_reference_type_must_equal_the_declared_type() -> None:
    s = sample()
    f = s.fragment_main
    value = f.register(FLOAT)
    wrong = ReferenceValue(StorageKind.LOCAL, value.index, INT)
    f.store(wrong, f.i(1))
    assert_rejected(s.module, ReferenceRule.ROOT_TYPE, wrong)


def test_parameter_reference_binds_to_the_current_function() -> None:
    s = sample()
    helper = s.fragment.function("helper", FLOAT, [FLOAT])
    loaded = helper.load(helper.parameter(0))
    helper.ret(loaded)
    assert_accepted(s.module)

    outside = ReferenceValue(StorageKind.PARAMETER, 1, FLOAT)
    helper.load(outside)
    assert_rejected(s.module, ReferenceRule.SLOT_OUT_OF_RANGE, outside)


def test_parameter_reference_type_must_match() -> None:
    s = sample()
    helper = s.fragment.function("helper", VOID, [FLOAT])
    wrong = ReferenceValue(StorageKind.PARAMETER, 0, INT)
    helper.load(wrong)
    helper.ret()
    assert_rejected(s.module, ReferenceRule.ROOT_TYPE, wrong)


def test_entry_function_has_no_parameter_slots() -> None:
    s = sample()
    reference = ReferenceValue(StorageKind.PARAMETER, 0, FLOAT)
    s.fragment_main.load(reference)
    assert_rejected(s.module, ReferenceRule.SLOT_OUT_OF_RANGE, reference)


def test_uniform_reference_binds_to_module_uniform_slots() -> None:
    s = sample()
    time = add_uniform(s.module, "time", FLOAT)
    s.fragment_main.load(time)
    s.vertex_main.load(time)
    assert_accepted(s.module)

    beyond = ReferenceValue(StorageKind.UNIFORM, 1, FLOAT)
    s.fragment_main.load(beyond)
    assert_rejected(s.module, ReferenceRule.SLOT_OUT_OF_RANGE, beyond)


def test_uniform_reference_type_must_match() -> None:
    s = sample()
    add_uniform(s.module, "time", FLOAT)
    wrong = ReferenceValue(StorageKind.UNIFORM, 0, vec(2))
    s.fragment_main.load(wrong)
    assert_rejected(s.module, ReferenceRule.ROOT_TYPE, wrong)


def test_stage_reference_binds_to_the_current_stage_interface() -> None:
    s = sample()
    # The fragment interface has one slot; the vertex stage's slot 0 is not it.
    beyond = ReferenceValue(StorageKind.STAGE, 1, vec(4))
    s.fragment_main.load(beyond)
    assert_rejected(s.module, ReferenceRule.SLOT_OUT_OF_RANGE, beyond)


def test_stage_reference_type_must_match() -> None:
    s = sample()
    wrong = ReferenceValue(StorageKind.STAGE, 0, vec(3))
    s.fragment_main.load(wrong)
    assert_rejected(s.module, ReferenceRule.ROOT_TYPE, wrong)


def test_root_reference_with_a_derived_kind_is_rejected() -> None:
    s = sample()
    forged = ReferenceValue(StorageKind.MEMBER, 0, vec(4))
    s.fragment_main.load(forged)
    assert_rejected(s.module, ReferenceRule.ROOT_STORAGE_KIND, forged)


def test_root_reference_with_a_bad_slot_or_kind_is_rejected() -> None:
    for forged, kind in [
        (ReferenceValue(StorageKind.STAGE, -1, vec(4)), ReferenceRule.SLOT),
        (ReferenceValue(StorageKind.STAGE, True, vec(4)), ReferenceRule.SLOT),
        (ReferenceValue("stage", 0, vec(4)), ObjectRule.INVALID_ENUM),  # type: ignore[arg-type]
        (ReferenceValue(StorageKind.STAGE, 0, None), TypeRule.NOT_A_TYPE),  # type: ignore[arg-type]
    ]:
        s = sample()
        s.fragment_main.load(forged, result=s.fragment_main.register(vec(4)))
        assert_rejected(s.module, kind, forged)


# Derived paths (spec 6.1) ---------------------------------------------------------------


def _cells_module():
    s = sample()
    f = s.fragment_main
    cell = record("Cell", [("color", vec(4)), ("weight", INT)])
    cells_type = ArrayType(cell, 2)
    cells = f.register(cells_type)
    index = f.register(INT)
    return s, f, cell, cells_type, cells, index


def test_nested_aggregate_storage_example_is_accepted() -> None:
    # Spec 10.3 "Nested aggregate storage", built with the builder.
    s, f, cell, cells_type, cells, index = _cells_module()
    red = f.construct(vec(4), f.f(1.0), f.f(0.0), f.f(0.0), f.f(1.0))
    one = f.construct(cell, red, f.i(1))
    f.construct(cells_type, one, one, result=cells)
    f.copy(f.i(1), result=index)
    path = member(element(local_ref(cells), index), "color")
    f.store(path, red)
    f.load(path)
    assert_accepted(s.module)


def test_paths_through_arrays_of_arrays_and_record_fields_are_accepted() -> None:
    s = sample()
    f = s.fragment_main
    inner = record("Inner", [("values", ArrayType(ArrayType(FLOAT, 3), 2))])
    outer = record("Outer", [("items", ArrayType(inner, 4))])
    holder = f.register(outer)
    deep = element(element(member(element(member(local_ref(holder), "items"), 3), "values"), 1), 2)
    f.store(deep, f.f(0.5))
    f.load(member(local_ref(holder), "items"))
    assert_accepted(s.module)


def test_member_reference_needs_record_storage_and_an_existing_field() -> None:
    s, f, _cell, _cells_type, cells, _index = _cells_module()
    on_array = MemberReferenceValue.create(local_ref(cells), "color", vec(4))
    f.load(on_array)
    assert_rejected(s.module, ReferenceRule.MEMBER_OF_NON_RECORD, on_array)

    s, f, _cell, _cells_type, cells, _index = _cells_module()
    missing = MemberReferenceValue.create(element(local_ref(cells), 0), "alpha", FLOAT)
    f.load(missing)
    assert_rejected(s.module, ReferenceRule.UNKNOWN_FIELD, missing)


def test_member_reference_cannot_swizzle_a_vector() -> None:
    s = sample()
    f = s.fragment_main
    v = f.register(vec(4))
    swizzle_path = MemberReferenceValue.create(local_ref(v), "x", FLOAT)
    f.store(swizzle_path, f.f(1.0))
    assert_rejected(s.module, ReferenceRule.MEMBER_OF_NON_RECORD, swizzle_path)


def test_derived_reference_type_must_equal_the_selected_type() -> None:
    s, f, _cell, _cells_type, cells, _index = _cells_module()
    wrong_member = MemberReferenceValue.create(element(local_ref(cells), 0), "weight", FLOAT)
    f.load(wrong_member)
    assert_rejected(s.module, ReferenceRule.DERIVED_TYPE, wrong_member)

    s, f, _cell, _cells_type, cells, _index = _cells_module()
    wrong_element = IndexReferenceValue.create(local_ref(cells), f.i(0), vec(4))
    f.load(wrong_element)
    assert_rejected(s.module, ReferenceRule.DERIVED_TYPE, wrong_element)


def test_index_reference_needs_array_storage() -> None:
    s = sample()
    f = s.fragment_main
    v = f.register(vec(4))
    indexed = IndexReferenceValue.create(local_ref(v), f.i(0), FLOAT)
    f.load(indexed)
    assert_rejected(s.module, ReferenceRule.INDEX_OF_NON_ARRAY, indexed)


def test_index_operand_must_be_an_int_register_or_constant() -> None:
    s, f, cell, _cells_type, cells, index = _cells_module()
    by_float = f.f(0.0)
    f.load(IndexReferenceValue.create(local_ref(cells), by_float, cell))
    assert_rejected(s.module, ValueRule.INDEX_TYPE, by_float)

    s, f, cell, _cells_type, cells, index = _cells_module()
    counter = f.register(INT)
    by_reference = local_ref(counter)
    f.load(IndexReferenceValue.create(local_ref(cells), by_reference, cell))  # type: ignore[arg-type]
    assert_rejected(s.module, ValueRule.REFERENCE_OPERAND, by_reference)

    s, f, cell, _cells_type, cells, index = _cells_module()
    undeclared = RegisterValue(50, INT)
    f.load(IndexReferenceValue.create(local_ref(cells), undeclared, cell))
    assert_rejected(s.module, ValueRule.UNDECLARED_REGISTER, undeclared)

    s, f, cell, _cells_type, cells, index = _cells_module()
    f.load(element(local_ref(cells), index))
    assert_accepted(s.module)


def test_constant_indices_must_be_in_bounds_at_each_level() -> None:
    for bad in (2, -1):
        s, f, cell, _cells_type, cells, _index = _cells_module()
        constant = ConstantValue.of_int(bad)
        f.load(IndexReferenceValue.create(local_ref(cells), constant, cell))
        assert_rejected(s.module, ValueRule.CONSTANT_INDEX_BOUNDS, constant)

    s = sample()
    f = s.fragment_main
    grid = f.register(ArrayType(ArrayType(FLOAT, 2), 5))
    inner_bad = ConstantValue.of_int(3)
    f.load(element(element(local_ref(grid), 4), inner_bad))
    assert_rejected(s.module, ValueRule.CONSTANT_INDEX_BOUNDS, inner_bad)


def test_derived_class_and_kind_must_agree() -> None:
    s, f, cell, _cells_type, cells, _index = _cells_module()
    forged = IndexReferenceValue(StorageKind.MEMBER, 0, cell, local_ref(cells), f.i(0))
    f.load(forged)
    assert_rejected(s.module, ReferenceRule.DERIVED_STORAGE_KIND, forged)

    s, f, cell, _cells_type, cells, _index = _cells_module()
    forged = MemberReferenceValue(StorageKind.LOCAL, 0, INT, element(local_ref(cells), 0), "weight")
    f.load(forged)
    assert_rejected(s.module, ReferenceRule.DERIVED_STORAGE_KIND, forged)


def test_derived_slot_must_be_zero() -> None:
    s, f, cell, _cells_type, cells, _index = _cells_module()
    forged = IndexReferenceValue(StorageKind.INDEX, 1, cell, local_ref(cells), f.i(0))
    f.load(forged)
    assert_rejected(s.module, ReferenceRule.DERIVED_SLOT, forged)


def test_cyclic_reference_path_is_rejected() -> None:
    s, f, _cell, _cells_type, cells, _index = _cells_module()
    first = element(local_ref(cells), 0)
    second = member(first, "weight")
    forge(first, base=second)
    f.load(second)
    assert_rejected(s.module, ReferenceRule.CYCLIC_PATH, second)


def test_self_referencing_path_is_rejected() -> None:
    s, f, _cell, _cells_type, cells, _index = _cells_module()
    loop = element(local_ref(cells), 0)
    forge(loop, base=loop)
    f.load(loop)
    assert_rejected(s.module, ReferenceRule.CYCLIC_PATH, loop)


def test_derived_reference_without_base_is_rejected() -> None:
    s, f, cell, _cells_type, _cells, _index = _cells_module()
    orphan = IndexReferenceValue.create(None, f.i(0), cell)  # type: ignore[arg-type]
    f.load(orphan)
    assert_rejected(s.module, ReferenceRule.NO_BASE, orphan)


def test_deep_acyclic_path_does_not_exhaust_the_stack() -> None:
    s = sample()
    f = s.fragment_main
    nested = FLOAT
    for _ in range(3000):
        nested = ArrayType(nested, 1)
    holder = f.register(nested)
    path = local_ref(holder)
    for _ in range(3000):
        path = element(path, 0)
    f.store(path, f.f(1.0))
    assert_accepted(s.module)


# Permissions (spec 6, 6.1) ------------------------------------------------------------


def test_stores_to_uniforms_are_rejected_and_inherited_by_paths() -> None:
    s = sample()
    light = record("Light", [("colors", ArrayType(vec(4), 2))])
    scene = add_uniform(s.module, "scene", light)
    f = s.fragment_main
    value = f.construct(vec(4), f.f(1.0))
    whole = f.load(scene)
    f.store(member(scene, "colors"), f.load(member(scene, "colors")))
    store = f.block.instructions[-1]
    assert isinstance(store, StoreInstruction)
    assert_rejected(s.module, ReferenceRule.READ_ONLY, store.target)

    s = sample()
    scene = add_uniform(s.module, "scene", light)
    f = s.fragment_main
    value = f.construct(vec(4), f.f(1.0))
    target = element(member(scene, "colors"), 1)
    f.store(target, value)
    assert_rejected(s.module, ReferenceRule.READ_ONLY, target)
    assert whole is not None


def test_stores_to_stage_inputs_are_rejected_and_inherited_by_paths() -> None:
    s = sample()
    normal = s.vertex.input("normal", vec(3), location=1)
    v = s.vertex_main
    v.load(normal)
    assert_accepted(s.module)
    v.store(normal, v.construct(vec(3), v.f(0.0)))
    store = v.block.instructions[-1]
    assert_rejected(s.module, ReferenceRule.READ_ONLY, store.target)

    s = sample()
    weights = s.vertex.input("weights", ArrayType(FLOAT, 4), location=1)
    target = element(weights, 2)
    s.vertex_main.store(target, s.vertex_main.f(1.0))
    assert_rejected(s.module, ReferenceRule.READ_ONLY, target)


def test_outputs_parameters_and_locals_are_writable_through_paths() -> None:
    s = sample()
    out = s.fragment.output("extra", ArrayType(vec(2), 3), location=1)
    f = s.fragment_main
    f.store(element(out, 2), f.construct(vec(2), f.f(1.0)))
    f.load(out)  # readable in structural terms; definedness is data flow
    pair = record("Pair", [("a", FLOAT), ("b", FLOAT)])
    helper = s.fragment.function("helper", FLOAT, [pair])
    helper.store(member(helper.parameter(0), "a"), helper.f(2.0))
    helper.store(helper.parameter(0), helper.construct(pair, helper.f(1.0), helper.f(2.0)))
    helper.ret(helper.load(member(helper.parameter(0), "b")))
    assert_accepted(s.module)


def test_load_needs_a_reference_and_a_matching_result() -> None:
    s = sample()
    f = s.fragment_main
    value = f.register(FLOAT)
    load = LoadInstruction(value, value)  # type: ignore[arg-type]
    f.emit(load)
    assert_rejected(s.module, ReferenceRule.NOT_A_REFERENCE, value)

    s = sample()
    f = s.fragment_main
    time = add_uniform(s.module, "time", FLOAT)
    load = LoadInstruction(f.register(INT), time)
    f.emit(load)
    assert_rejected(s.module, InstructionRule.RESULT_TYPE, load)


def test_store_needs_a_reference_and_an_exactly_matching_value() -> None:
    s = sample()
    f = s.fragment_main
    value = f.register(FLOAT)
    store = StoreInstruction(local_ref(value), f.i(1))
    f.emit(store)
    assert_rejected(s.module, InstructionRule.STORE_TYPE, store)

    s = sample()
    f = s.fragment_main
    constant = f.f(1.0)
    f.emit(StoreInstruction(constant, constant))  # type: ignore[arg-type]
    assert_rejected(s.module, ReferenceRule.NOT_A_REFERENCE, constant)

    s = sample()
    f = s.fragment_main
    store = StoreInstruction(None, f.f(1.0))  # type: ignore[arg-type]
    f.emit(store)
    assert_rejected(s.module, ObjectRule.MISSING, store)


def test_reference_is_not_a_computation_operand() -> None:
    s = sample()
    f = s.fragment_main
    time_reference = add_uniform(s.module, "time", FLOAT)
    copy = CopyInstruction(f.register(FLOAT), time_reference)  # type: ignore[arg-type]
    f.emit(copy)
    assert_rejected(s.module, ValueRule.REFERENCE_OPERAND, time_reference)


def test_sampler_uniform_loads_into_a_sampler_register() -> None:
    from vpl_core.ir import SAMPLER2D

    s = sample()
    texture = add_uniform(s.module, "albedo", SAMPLER2D)
    f = s.fragment_main
    sampler = f.load(texture)
    coordinates = f.construct(vec(2), f.f(0.5))
    f.texture(sampler, coordinates)
    assert_accepted(s.module)


def test_unknown_reference_subclass_is_rejected() -> None:
    from vpl_core.records import record

    @record(frozen=True)
    class Pointer(ReferenceValue):
        pass

    s = sample()
    forged = Pointer(StorageKind.STAGE, 0, vec(4))
    s.fragment_main.load(forged)
    assert_rejected(s.module, ObjectRule.UNKNOWN_CLASS, forged)
