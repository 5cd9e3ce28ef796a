"""The IR builder (`vpl_core.ir.builder`): what it constructs, checked directly.

The builder only constructs objects (the verifier checks them), so these
tests look at the objects: registers are declared once each in the entry
block's declaration prefix with fresh indices, emitters append at the
insertion block and return the destination with the type the operation's
typing rule gives (`vpl_core.ir.type_rules`), terminators land on the
current block, references carry the slot and type of what they name. A
module built with every emitter verifies, and writing it is a fixed point.
"""

from __future__ import annotations

from typing import Any, SupportsIndex

import pytest

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    BinaryInstruction,
    BinaryOperator,
    BranchTerminator,
    Builtin,
    CallInstruction,
    ConditionalBranchTerminator,
    ConstantValue,
    ConstructInstruction,
    CopyInstruction,
    DeclareLocalInstruction,
    DiscardTerminator,
    Function,
    FunctionBuilder,
    IndexInstruction,
    IndexReferenceValue,
    LoadInstruction,
    MemberInstruction,
    MemberReferenceValue,
    Module,
    ReferenceValue,
    RegisterValue,
    ReturnTerminator,
    Semantic,
    StageBuilder,
    StorageKind,
    SwizzleInstruction,
    UniformKind,
    add_uniform,
    element,
    ivec,
    mat,
    member,
    record,
    vec,
)
from vpl_core.ir.module import Block, Direction
from vpl_core.ir.type_rules import binary_result_type
from vpl_core.text import read, write
from vpl_core.verify import verify


def _declarations(builder: FunctionBuilder) -> list[DeclareLocalInstruction]:
    return [item for item in builder.entry.instructions if isinstance(item, DeclareLocalInstruction)]


def _function() -> FunctionBuilder:
    return StageBuilder(Module().fragment).function("f", VOID)


# Registers ----------------------------------------------------------------------------------


def test_registers_are_declared_in_the_entry_prefix_even_after_instructions() -> None:
    builder = _function()
    first = builder.register(FLOAT)
    builder.copy(builder.f(1.0), result=first)
    other = builder.new_block()
    builder.position_at(other)
    late = builder.register(vec(2))  # declared while emitting into another block
    instructions = builder.entry.instructions
    assert [type(item) for item in instructions] == [DeclareLocalInstruction, DeclareLocalInstruction, CopyInstruction]
    assert [declaration.register for declaration in _declarations(builder)] == [first, late]
    assert [declaration.type for declaration in _declarations(builder)] == [FLOAT, vec(2)]
    assert other.instructions == []


def test_register_indices_are_fresh_and_follow_explicit_ones() -> None:
    builder = _function()
    assert builder.register(FLOAT).index == 0
    assert builder.register(INT, index=7).index == 7
    assert builder.register(BOOL).index == 8
    assert builder.register(BOOL, index=3).index == 3  # an explicit lower index does not rewind numbering
    assert builder.register(FLOAT).index == 9


def test_a_builder_on_an_existing_function_continues_its_numbering() -> None:
    builder = _function()
    builder.register(FLOAT, index=4)
    builder.copy(builder.f(2.0))
    again = FunctionBuilder(builder.function)
    assert again.entry is builder.entry and again.block is builder.entry
    added = again.register(INT)
    assert added.index == 6
    assert [declaration.register.index for declaration in _declarations(again)] == [4, 5, 6]
    assert isinstance(again.entry.instructions[3], CopyInstruction)  # still after the whole prefix


class _MoveCountingList(list):
    """A list that counts the elements its inserts and splices shift (what `list.insert` costs)."""

    moved = 0

    def insert(self, index: SupportsIndex, item: object) -> None:
        _MoveCountingList.moved += max(0, len(self) - int(index))
        super().insert(index, item)

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            _MoveCountingList.moved += max(0, len(self) - (index.start or 0))
        super().__setitem__(index, value)


def _declare_while_emitting(count: int, defer: bool) -> tuple[FunctionBuilder, int]:
    """`count` registers, each declared right before the instruction that assigns it (as a lowering does)."""
    function = Function("g", VOID)
    function.blocks.append(Block())
    function.blocks[0].instructions = _MoveCountingList()
    builder = FunctionBuilder(function, defer_declarations=defer)
    _MoveCountingList.moved = 0
    for _ in range(count):
        builder.copy(builder.f(1.0))
    builder.finish()
    return builder, _MoveCountingList.moved


def test_deferred_declarations_give_the_same_function_in_one_splice() -> None:
    eager, _ = _declare_while_emitting(50, defer=False)
    deferred, _ = _declare_while_emitting(50, defer=True)
    assert [str(item) for item in deferred.entry.instructions] == [str(item) for item in eager.entry.instructions]
    assert [type(item) for item in deferred.entry.instructions] == [DeclareLocalInstruction] * 50 + [CopyInstruction] * 50


def test_declaring_while_emitting_grows_linearly_only_when_deferred() -> None:
    """Growth in elements moved (issue 20): inserting each declaration ahead of the body is quadratic."""
    _, eager_small = _declare_while_emitting(200, defer=False)
    _, eager_large = _declare_while_emitting(2000, defer=False)
    _, deferred_small = _declare_while_emitting(200, defer=True)
    _, deferred_large = _declare_while_emitting(2000, defer=True)
    assert eager_large / eager_small > 50  # the old way: about 100x for 10x
    assert deferred_large <= 12 * max(deferred_small, 1)
    assert deferred_large <= 2000  # one splice: nothing but the (empty) body moves


def test_finish_is_idempotent_and_later_declarations_wait_for_the_next_finish() -> None:
    builder = FunctionBuilder(Function("h", VOID), defer_declarations=True)
    first = builder.copy(builder.f(1.0))
    assert [type(item) for item in builder.entry.instructions] == [CopyInstruction]  # incomplete until finish
    builder.finish()
    builder.finish()
    second = builder.copy(builder.f(2.0))
    builder.finish()
    assert [declaration.register for declaration in _declarations(builder)] == [first, second]
    assert [type(item) for item in builder.entry.instructions] == [DeclareLocalInstruction] * 2 + [CopyInstruction] * 2
    assert builder.last_declaration is _declarations(builder)[-1]


def test_finish_without_deferral_changes_nothing() -> None:
    builder = _function()
    builder.copy(builder.f(1.0))
    before = list(builder.entry.instructions)
    assert builder.finish() is builder.function
    assert builder.entry.instructions == before


def test_a_function_without_blocks_gets_its_entry_block() -> None:
    function = Function("g", VOID)
    builder = FunctionBuilder(function)
    assert function.blocks == [builder.entry] and builder.block is builder.entry


# Emitters and their result types --------------------------------------------------------------


@pytest.mark.parametrize(
    ("operator", "lhs", "rhs"),
    [
        (BinaryOperator.ADD, FLOAT, FLOAT),
        (BinaryOperator.MULTIPLY, mat(3, 4), vec(4)),
        (BinaryOperator.MULTIPLY, mat(2, 3), mat(3, 4)),
        (BinaryOperator.MULTIPLY, FLOAT, vec(3)),
        (BinaryOperator.DIVIDE, vec(3), FLOAT),
        (BinaryOperator.SUBTRACT, ivec(2), ivec(2)),
        (BinaryOperator.LESS, INT, INT),
        (BinaryOperator.EQUAL, BOOL, BOOL),
    ],
)
def test_binary_results_take_the_typing_rule_type(operator: BinaryOperator, lhs: object, rhs: object) -> None:
    builder = _function()
    left, right = builder.register(lhs), builder.register(rhs)  # type: ignore[arg-type]
    result = builder.binary(operator, left, right)
    instruction = builder.block.instructions[-1]
    assert isinstance(instruction, BinaryInstruction)
    assert (instruction.result, instruction.operator, instruction.lhs, instruction.rhs) == (result, operator, left, right)
    assert result.type == binary_result_type(operator, lhs, rhs)  # type: ignore[arg-type]


def test_binary_with_no_typing_rule_is_refused_unless_the_type_is_given() -> None:
    builder = _function()
    left, right = builder.register(vec(3)), builder.register(vec(4))
    with pytest.raises(TypeError, match="add is not defined"):
        builder.add(left, right)
    forced = builder.binary(BinaryOperator.ADD, left, right, result_type=vec(3))  # the verifier's business then
    assert forced.type == vec(3)


def test_emitters_append_at_the_insertion_block_and_return_typed_destinations() -> None:
    module = Module()
    stage = StageBuilder(module.fragment)
    light = record("Light", [("color", vec(3)), ("power", FLOAT)])
    lights = add_uniform(module, "lights", ArrayType(light, 2))
    sampler = add_uniform(module, "tex", SAMPLER2D)
    builder = stage.function("main", VOID, entry=True)
    body = builder.new_block()
    builder.position_at(body)

    loaded = builder.load(lights)
    first = builder.index(loaded, builder.i(0))
    power = builder.member(first, "power")
    color = builder.swizzle(builder.construct(vec(4), power), "xyz")
    scalar = builder.swizzle(color, "y")
    texel = builder.texture(builder.load(sampler), builder.construct(vec(2), builder.f(0.5)))
    copied = builder.copy(texel)
    assert (loaded.type, first.type, power.type) == (ArrayType(light, 2), light, FLOAT)
    assert (color.type, scalar.type, texel.type, copied.type) == (vec(3), FLOAT, vec(4), vec(4))
    assert builder.entry.instructions == _declarations(builder)  # nothing but declarations in the entry
    kinds = [type(item) for item in body.instructions]
    assert kinds == [
        LoadInstruction, IndexInstruction, MemberInstruction, ConstructInstruction, SwizzleInstruction,
        SwizzleInstruction, LoadInstruction, ConstructInstruction, CallInstruction, CopyInstruction,
    ]
    call = body.instructions[8]
    assert isinstance(call, CallInstruction) and call.builtin is Builtin.TEXTURE and call.callee is None


def test_calls_return_a_register_only_for_non_void_callees() -> None:
    stage = StageBuilder(Module().fragment)
    helper = stage.function("helper", FLOAT, parameters=[FLOAT, vec(2)])
    procedure = stage.function("procedure", VOID)
    caller = stage.function("caller", VOID)
    value = caller.call(helper.function, caller.f(1.0), caller.construct(vec(2), caller.f(0.0)))
    nothing = caller.call(procedure.function)
    assert isinstance(value, RegisterValue) and value.type == FLOAT and nothing is None
    calls = [item for item in caller.block.instructions if isinstance(item, CallInstruction)]
    assert [(call.callee, call.builtin, call.result) for call in calls] == [
        (helper.function, Builtin.NONE, value),
        (procedure.function, Builtin.NONE, None),
    ]
    assert helper.function.parameters == [
        ReferenceValue(StorageKind.PARAMETER, 0, FLOAT),
        ReferenceValue(StorageKind.PARAMETER, 1, vec(2)),
    ]
    assert helper.parameter(1) is helper.function.parameters[1]


def test_an_explicit_result_register_is_used_and_not_redeclared() -> None:
    builder = _function()
    target = builder.register(vec(4))
    assert builder.construct(vec(4), builder.f(1.0), result=target) is target
    assert builder.copy(target, result=target) is target
    assert len(_declarations(builder)) == 1


def test_constants_are_the_value_constructors() -> None:
    assert FunctionBuilder.f(0.1) == ConstantValue.of_float(0.1)
    assert FunctionBuilder.i(-3) == ConstantValue.of_int(-3)
    assert FunctionBuilder.b(True) == ConstantValue.of_bool(True)


# Terminators and blocks -----------------------------------------------------------------------


def test_terminators_land_on_the_current_block() -> None:
    builder = _function()
    condition = builder.copy(builder.b(True))
    yes, no, done = builder.new_block(), builder.new_block(), builder.new_block()
    assert not builder.is_terminated
    builder.branch_if(condition, yes, no)
    assert builder.is_terminated
    builder.position_at(yes)
    builder.branch(done)
    builder.position_at(no)
    builder.discard()
    builder.position_at(done)
    builder.ret()
    assert builder.function.blocks == [builder.entry, yes, no, done]
    branch_if = builder.entry.terminator
    assert isinstance(branch_if, ConditionalBranchTerminator)
    assert (branch_if.condition, branch_if.true_target, branch_if.false_target) == (condition, yes, no)
    assert isinstance(yes.terminator, BranchTerminator) and yes.terminator.target is done
    assert isinstance(no.terminator, DiscardTerminator)
    assert isinstance(done.terminator, ReturnTerminator) and done.terminator.value is None


# Stages, uniforms, references -------------------------------------------------------------------


def test_interface_variables_get_their_list_position_as_slot() -> None:
    module = Module()
    stage = StageBuilder(module.vertex)
    position = stage.output("position", vec(4), semantic=Semantic.POSITION)
    normal = stage.input("normal", vec(3), location=1)
    assert (position.storage_kind, position.slot, position.type) == (StorageKind.STAGE, 0, vec(4))
    assert (normal.slot, normal.type) == (1, vec(3))
    variable = module.vertex.interface[1]
    assert (variable.direction, variable.name, variable.location, variable.semantic) == (
        Direction.IN, "normal", 1, Semantic.NONE,
    )
    entry = stage.function("main", entry=True)
    other = stage.function("other")
    assert module.vertex.entry is entry.function and module.vertex.functions == [entry.function, other.function]


def test_uniform_kinds_follow_their_types_and_records_are_new_declarations() -> None:
    module = Module()
    light = record("Light", [("color", vec(3))])
    references = [
        add_uniform(module, "scale", FLOAT),
        add_uniform(module, "light", light),
        add_uniform(module, "weights", ArrayType(FLOAT, 4)),
        add_uniform(module, "tex", SAMPLER2D),
    ]
    assert [uniform.kind for uniform in module.uniforms] == [
        UniformKind.SCALAR, UniformKind.RECORD, UniformKind.ARRAY, UniformKind.SCALAR,
    ]
    assert [(reference.storage_kind, reference.slot) for reference in references] == [
        (StorageKind.UNIFORM, slot) for slot in range(4)
    ]
    assert record("Light", [("color", vec(3))]) != light


def test_member_and_element_references_select_the_stored_type() -> None:
    module = Module()
    cell = record("Cell", [("value", INT), ("weights", ArrayType(FLOAT, 3))])
    cells = add_uniform(module, "cells", ArrayType(cell, 2))
    index = RegisterValue(0, INT)
    path = element(member(element(cells, index), "weights"), 2)
    assert isinstance(path, IndexReferenceValue) and path.type == FLOAT
    assert path.index == ConstantValue.of_int(2)
    weights = path.base
    assert isinstance(weights, MemberReferenceValue) and weights.field_name == "weights"
    assert weights.type == ArrayType(FLOAT, 3)
    assert path.root is cells and path.storage_kind is StorageKind.INDEX and path.slot == 0
    with pytest.raises(TypeError):
        member(cells, "value")  # an array is no record
    with pytest.raises(TypeError):
        element(element(cells, 0), 1)  # a record is no array
    with pytest.raises(KeyError):
        member(element(cells, 0), "missing")


# A whole module ---------------------------------------------------------------------------------


def _loop_module() -> Module:
    """A fragment colour computed in a loop through a helper: every emitter family the lowering uses."""
    module = Module()
    vertex = StageBuilder(module.vertex)
    position = vertex.output("position", vec(4), semantic=Semantic.POSITION)
    vertex_main = vertex.function("vertex_main", entry=True)
    vertex_main.store(position, vertex_main.construct(vec(4), vertex_main.f(0.0)))
    vertex_main.ret()

    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    gain = add_uniform(module, "gain", FLOAT)
    half = fragment.function("half", FLOAT, parameters=[FLOAT])
    half.ret(half.multiply(half.load(half.parameter(0)), half.f(0.5)))
    main = fragment.function("fragment_main", entry=True)
    counter = main.copy(main.i(0))
    total = main.copy(main.f(0.0))
    test, body, done = main.new_block(), main.new_block(), main.new_block()
    main.branch(test)
    main.position_at(test)
    main.branch_if(main.binary(BinaryOperator.LESS, counter, main.i(4)), body, done)
    main.position_at(body)
    main.add(total, main.call(half.function, main.load(gain)), result=total)  # type: ignore[arg-type]
    main.add(counter, main.i(1), result=counter)
    main.branch(test)
    main.position_at(done)
    main.store(color, main.construct(vec(4), total))
    main.ret()
    return module


def test_a_built_module_verifies_and_writes_as_a_fixed_point() -> None:
    module = _loop_module()
    verify(module)
    text = write(module)
    assert write(read(text)) == text
    assert "(call r" in text and "(branch_if " in text
