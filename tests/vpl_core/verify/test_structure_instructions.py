"""Structural layer: operands, constants, instruction typing, calls and terminators (spec 5, 7, 8)."""

from __future__ import annotations

import math

import pytest
from test_structure_support import assert_accepted, assert_rejected, sample

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    BinaryInstruction,
    BinaryOperator,
    Block,
    BranchTerminator,
    Builtin,
    CallInstruction,
    ConditionalBranchTerminator,
    ConstantValue,
    ConstructInstruction,
    CopyInstruction,
    DiscardTerminator,
    IndexInstruction,
    Instruction,
    MemberInstruction,
    RegisterValue,
    ReturnTerminator,
    SwizzleInstruction,
    Terminator,
    add_uniform,
    ivec,
    mat,
    record,
    vec,
)
from vpl_core.verify.errors import InstructionRule, ObjectRule, TerminatorRule, TypeRule, ValueRule, VerifierRule

# Operands and constants (spec 4, 5) ---------------------------------------------------


@pytest.mark.parametrize(
    "constant, kind",
    [
        (ConstantValue(INT, True), ValueRule.CONSTANT_VALUE),
        (ConstantValue(INT, 2**31), ValueRule.CONSTANT_VALUE),
        (ConstantValue(INT, -(2**31) - 1), ValueRule.CONSTANT_VALUE),
        (ConstantValue(INT, 1.0), ValueRule.CONSTANT_VALUE),
        (ConstantValue(BOOL, 1), ValueRule.CONSTANT_VALUE),
        (ConstantValue(FLOAT, math.inf), ValueRule.CONSTANT_VALUE),
        (ConstantValue(FLOAT, math.nan), ValueRule.CONSTANT_VALUE),
        (ConstantValue(FLOAT, 0.1), ValueRule.CONSTANT_VALUE),
        (ConstantValue(FLOAT, 1e39), ValueRule.CONSTANT_VALUE),
        (ConstantValue(FLOAT, 1), ValueRule.CONSTANT_VALUE),
        (ConstantValue(vec(2), 1.0), ValueRule.CONSTANT_TYPE),
        (ConstantValue(VOID, None), ValueRule.CONSTANT_TYPE),
        (ConstantValue(None, 1), TypeRule.NOT_A_TYPE),
    ],
)
def test_malformed_constants_are_rejected(constant: ConstantValue, kind: VerifierRule) -> None:
    s = sample()
    f = s.fragment_main
    f.emit(CopyInstruction(f.register(FLOAT), constant))
    assert_rejected(s.module, kind, constant)


@pytest.mark.parametrize(
    "constant",
    [
        ConstantValue.of_int(-(2**31)),
        ConstantValue.of_int(2**31 - 1),
        ConstantValue.of_bool(False),
        ConstantValue.of_float(-0.0),
        ConstantValue.of_float(1e-45),
        ConstantValue.of_float(3.4028234663852886e38),
    ],
)
def test_extreme_valid_constants_are_accepted(constant: ConstantValue) -> None:
    s = sample()
    f = s.fragment_main
    f.copy(constant)
    assert_accepted(s.module)


def test_missing_and_foreign_operands_blame_the_instruction() -> None:
    s = sample()
    f = s.fragment_main
    copy = CopyInstruction(f.register(FLOAT), None)  # type: ignore[arg-type]
    f.emit(copy)
    assert_rejected(s.module, ObjectRule.MISSING, copy)

    s = sample()
    f = s.fragment_main
    copy = CopyInstruction(f.register(FLOAT), 1.0)  # type: ignore[arg-type]
    f.emit(copy)
    assert_rejected(s.module, ValueRule.NOT_AN_OPERAND, copy)


def test_result_register_is_required_and_must_be_a_register() -> None:
    s = sample()
    f = s.fragment_main
    copy = CopyInstruction(None, f.f(1.0))  # type: ignore[arg-type]
    f.emit(copy)
    assert_rejected(s.module, InstructionRule.NO_RESULT, copy)

    s = sample()
    f = s.fragment_main
    constant = f.f(1.0)
    copy = CopyInstruction(constant, f.f(1.0))  # type: ignore[arg-type]
    f.emit(copy)
    assert_rejected(s.module, ValueRule.NOT_A_REGISTER, constant)


def test_unknown_and_missing_instructions_are_rejected() -> None:
    class Fence(Instruction):
        result = None

    s = sample()
    fence = Fence()
    s.fragment_main.emit(fence)
    assert_rejected(s.module, ObjectRule.UNKNOWN_CLASS, fence)

    s = sample()
    block = s.fragment_main.block
    block.instructions.append(None)  # type: ignore[arg-type]
    assert_rejected(s.module, ObjectRule.MISSING, block)


# Copy (spec 7) ------------------------------------------------------------------------


def test_copy_needs_exactly_the_result_type() -> None:
    s = sample()
    f = s.fragment_main
    f.copy(f.i(1))
    assert_accepted(s.module)
    copy = CopyInstruction(f.register(FLOAT), f.i(1))
    f.emit(copy)
    assert_rejected(s.module, InstructionRule.RESULT_TYPE, copy)


def test_copy_of_aggregates_needs_the_same_record_declaration() -> None:
    s = sample()
    f = s.fragment_main
    first = record("Pair", [("a", FLOAT)])
    second = record("Pair", [("a", FLOAT)])
    value = f.construct(first, f.f(1.0))
    f.copy(value)
    assert_accepted(s.module)
    copy = CopyInstruction(f.register(second), value)
    f.emit(copy)
    assert_rejected(s.module, InstructionRule.RESULT_TYPE, copy)


# Binary (spec 7.1; the complete table is in tests/vpl_core/ir/test_type_rules.py) ---------------------------


def test_binary_instruction_checks_the_operand_table_and_the_result() -> None:
    s = sample()
    f = s.fragment_main
    v = f.construct(vec(3), f.f(1.0))
    f.multiply(v, f.f(2.0))
    f.binary(BinaryOperator.LESS, f.f(1.0), f.f(2.0))
    assert_accepted(s.module)

    mismatch = BinaryInstruction(f.register(vec(3)), BinaryOperator.ADD, v, f.f(1.0))
    f.emit(mismatch)
    assert_rejected(s.module, InstructionRule.BINARY_OPERANDS, mismatch)


def test_binary_result_register_must_have_the_rule_type() -> None:
    s = sample()
    f = s.fragment_main
    comparison = BinaryInstruction(f.register(INT), BinaryOperator.EQUAL, f.i(1), f.i(2))
    f.emit(comparison)
    assert_rejected(s.module, InstructionRule.RESULT_TYPE, comparison)


def test_binary_instruction_needs_an_operator() -> None:
    s = sample()
    f = s.fragment_main
    binary = BinaryInstruction(f.register(INT), "add", f.i(1), f.i(2))  # type: ignore[arg-type]
    f.emit(binary)
    assert_rejected(s.module, ObjectRule.INVALID_ENUM, binary)


def test_no_implicit_int_to_float_in_arithmetic() -> None:
    s = sample()
    f = s.fragment_main
    binary = BinaryInstruction(f.register(FLOAT), BinaryOperator.ADD, f.f(1.0), f.i(1))
    f.emit(binary)
    assert_rejected(s.module, InstructionRule.BINARY_OPERANDS, binary)


# Construct (spec 7.2; complete tables in tests/vpl_core/ir/test_type_rules.py) ----------------------------


def test_construct_result_must_equal_the_constructed_type() -> None:
    s = sample()
    f = s.fragment_main
    construct = ConstructInstruction(f.register(vec(3)), vec(4), [f.f(1.0)])
    f.emit(construct)
    assert_rejected(s.module, InstructionRule.RESULT_TYPE, construct)


def test_constructor_rejections_name_the_instruction() -> None:
    s = sample()
    f = s.fragment_main
    construct = ConstructInstruction(f.register(vec(3)), vec(3), [f.f(1.0), f.f(2.0)])
    f.emit(construct)
    assert_rejected(s.module, InstructionRule.CONSTRUCT_OPERANDS, construct)

    s = sample()
    f = s.fragment_main
    sampler = f.register(SAMPLER2D)
    construct = ConstructInstruction(sampler, SAMPLER2D, [])
    f.emit(construct)
    assert_rejected(s.module, InstructionRule.CONSTRUCT_OPERANDS, construct)

    s = sample()
    f = s.fragment_main
    construct = ConstructInstruction(f.register(INT), INT, [f.f(1.0)])
    f.emit(construct)
    assert_rejected(s.module, InstructionRule.CONSTRUCT_OPERANDS, construct)


def test_arrays_of_records_are_constructed_and_extracted() -> None:
    s = sample()
    f = s.fragment_main
    cell = record("Cell", [("color", vec(4)), ("weight", INT)])
    color = f.construct(vec(4), f.f(1.0))
    one = f.construct(cell, color, f.i(1))
    cells = f.construct(ArrayType(cell, 3), one, one, one)
    picked = f.index(cells, f.i(2))
    f.member(picked, "weight")
    counter = f.copy(f.i(0))
    f.index(cells, counter)
    assert_accepted(s.module)


def test_construct_type_must_be_well_formed() -> None:
    s = sample()
    f = s.fragment_main
    construct = ConstructInstruction(f.register(FLOAT), "float", [f.f(1.0)])  # type: ignore[arg-type]
    f.emit(construct)
    assert_rejected(s.module, TypeRule.NOT_A_TYPE, construct)


# Swizzle, member, index (spec 7.4) --------------------------------------------------


def test_swizzles() -> None:
    s = sample()
    f = s.fragment_main
    v2 = f.construct(vec(2), f.f(1.0))
    v4 = f.construct(vec(4), f.f(1.0))
    iv = f.construct(ivec(3), f.i(1))
    f.swizzle(v2, "yx")
    f.swizzle(v2, "xxxx")
    f.swizzle(v4, "w")
    f.swizzle(iv, "zyx")
    assert_accepted(s.module)

    for source_type, pattern, result_type, kind in [
        (vec(2), "z", FLOAT, InstructionRule.SWIZZLE),
        (vec(4), "xyzwx", vec(4), InstructionRule.SWIZZLE),
        (vec(4), "", FLOAT, InstructionRule.SWIZZLE),
        (vec(4), "rgba", vec(4), InstructionRule.SWIZZLE),
        (FLOAT, "x", FLOAT, InstructionRule.SWIZZLE),
        (vec(4), "xy", vec(3), InstructionRule.RESULT_TYPE),
        (ivec(2), "x", FLOAT, InstructionRule.RESULT_TYPE),
    ]:
        s = sample()
        f = s.fragment_main
        source = f.register(source_type)
        swizzle = SwizzleInstruction(f.register(result_type), source, pattern)
        f.emit(swizzle)
        assert_rejected(s.module, kind, swizzle)


def test_member_extraction() -> None:
    pair = record("Pair", [("a", FLOAT), ("b", ivec(2))])
    for source_type, field_name, result_type, kind in [
        (pair, "c", FLOAT, InstructionRule.UNKNOWN_FIELD),
        (pair, "b", vec(2), InstructionRule.RESULT_TYPE),
        (vec(4), "x", FLOAT, InstructionRule.MEMBER_OF_NON_RECORD),
        (pair, None, FLOAT, InstructionRule.MEMBER_FIELD_NAME),
    ]:
        s = sample()
        f = s.fragment_main
        member = MemberInstruction(f.register(result_type), f.register(source_type), field_name)  # type: ignore[arg-type]
        f.emit(member)
        assert_rejected(s.module, kind, member)


def test_index_extraction() -> None:
    floats = ArrayType(FLOAT, 3)
    for source_type, index, result_type, kind, blame_index in [
        (floats, ConstantValue.of_int(3), FLOAT, ValueRule.CONSTANT_INDEX_BOUNDS, True),
        (floats, ConstantValue.of_float(1.0), FLOAT, ValueRule.INDEX_TYPE, True),
        (floats, ConstantValue.of_int(0), INT, InstructionRule.RESULT_TYPE, False),
        (vec(3), ConstantValue.of_int(0), FLOAT, InstructionRule.INDEX_OF_NON_ARRAY, False),
    ]:
        s = sample()
        f = s.fragment_main
        instruction = IndexInstruction(f.register(result_type), f.register(source_type), index)
        f.emit(instruction)
        assert_rejected(s.module, kind, index if blame_index else instruction)


# Calls (spec 7.3) ------------------------------------------------------------------------


def test_calls_including_void_calls_are_accepted() -> None:
    s = sample()
    f = s.fragment_main
    scale = s.fragment.function("scale", FLOAT, [FLOAT, INT])
    scale.ret(scale.load(scale.parameter(0)))
    touch = s.fragment.function("touch")
    touch.ret()
    f.call(scale.function, f.f(2.0), f.i(1))
    f.call(touch.function)
    assert_accepted(s.module)


def test_callee_may_appear_later_in_the_list() -> None:
    s = sample()
    f = s.fragment_main
    later = s.fragment.function("later", INT)
    later.ret(later.i(1))
    s.module.fragment.functions.reverse()
    f.call(later.function)
    assert_accepted(s.module)


def test_call_rejections() -> None:
    def setup():
        s = sample()
        scale = s.fragment.function("scale", FLOAT, [FLOAT])
        scale.ret(scale.load(scale.parameter(0)))
        touch = s.fragment.function("touch")
        touch.ret()
        return s, s.fragment_main, scale.function, touch.function

    s, f, scale, touch = setup()
    call = CallInstruction(f.register(FLOAT), None, Builtin.NONE, [f.f(1.0)])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.NO_CALLEE, call)

    s, f, scale, touch = setup()
    call = CallInstruction(f.register(FLOAT), scale, Builtin.NONE, [])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.CALL_ARITY, call)

    s, f, scale, touch = setup()
    call = CallInstruction(f.register(FLOAT), scale, Builtin.NONE, [f.i(1)])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.CALL_ARGUMENT_TYPE, call)

    s, f, scale, touch = setup()
    call = CallInstruction(None, scale, Builtin.NONE, [f.f(1.0)])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.NO_RESULT, call)

    s, f, scale, touch = setup()
    call = CallInstruction(f.register(INT), scale, Builtin.NONE, [f.f(1.0)])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.RESULT_TYPE, call)

    s, f, scale, touch = setup()
    call = CallInstruction(f.register(FLOAT), touch, Builtin.NONE, [])
    f.emit(call)
    assert_rejected(s.module, InstructionRule.VOID_CALL_RESULT, call)

    s, f, scale, touch = setup()
    call = CallInstruction(None, "touch", Builtin.NONE, [])  # type: ignore[arg-type]
    f.emit(call)
    assert_rejected(s.module, ObjectRule.WRONG_CLASS, call)

    s, f, scale, touch = setup()
    call = CallInstruction(None, touch, "none", [])  # type: ignore[arg-type]
    f.emit(call)
    assert_rejected(s.module, ObjectRule.INVALID_ENUM, call)

    s, f, scale, touch = setup()
    call = CallInstruction(None, touch, Builtin.NONE, None)  # type: ignore[arg-type]
    f.emit(call)
    assert_rejected(s.module, ObjectRule.NOT_A_LIST, call)


def test_calls_cannot_name_a_function_of_another_stage() -> None:
    s = sample()
    helper = s.vertex.function("helper")
    helper.ret()
    call = CallInstruction(None, helper.function, Builtin.NONE, [])
    s.fragment_main.emit(call)
    assert_rejected(s.module, InstructionRule.CALLEE_OTHER_STAGE, call)


def test_calls_cannot_name_an_unlisted_function() -> None:
    from vpl_core.ir import Function

    s = sample()
    stray = Function("stray", VOID, [], [Block([], ReturnTerminator())])
    call = CallInstruction(None, stray, Builtin.NONE, [])
    s.fragment_main.emit(call)
    assert_rejected(s.module, InstructionRule.CALLEE_OTHER_STAGE, call)


def test_texture_sampling() -> None:
    s = sample()
    sampler_reference = add_uniform(s.module, "albedo", SAMPLER2D)
    f = s.fragment_main
    sampler = f.load(sampler_reference)
    uv = f.construct(vec(2), f.f(0.5))
    f.texture(sampler, uv)
    v = s.vertex_main
    v.texture(v.load(sampler_reference), v.construct(vec(2), v.f(0.0)))  # vertex sampling: base LOD
    assert_accepted(s.module)

    for arguments, result_type, callee, kind in [
        (("sampler", "uv3"), vec(4), None, InstructionRule.BUILTIN_ARGUMENTS),
        (("uv", "sampler"), vec(4), None, InstructionRule.BUILTIN_ARGUMENTS),
        (("sampler",), vec(4), None, InstructionRule.BUILTIN_ARITY),
        (("sampler", "uv"), vec(3), None, InstructionRule.RESULT_TYPE),
        (("sampler", "uv"), None, None, InstructionRule.NO_RESULT),
        (("sampler", "uv"), vec(4), "helper", InstructionRule.BUILTIN_WITH_CALLEE),
    ]:
        s = sample()
        f = s.fragment_main
        sampler_reference = add_uniform(s.module, "albedo", SAMPLER2D)
        helper = s.fragment.function("helper")
        helper.ret()
        values = {
            "sampler": f.load(sampler_reference),
            "uv": f.construct(vec(2), f.f(0.5)),
            "uv3": f.construct(vec(3), f.f(0.5)),
        }
        call = CallInstruction(
            None if result_type is None else f.register(result_type),
            helper.function if callee else None,
            Builtin.TEXTURE,
            [values[name] for name in arguments],
        )
        f.emit(call)
        assert_rejected(s.module, kind, call)


def test_sampler_parameters_may_be_passed() -> None:
    s = sample()
    sampler_reference = add_uniform(s.module, "albedo", SAMPLER2D)
    sample_it = s.fragment.function("sample_it", vec(4), [SAMPLER2D])
    sample_it.ret(sample_it.texture(sample_it.load(sample_it.parameter(0)), sample_it.construct(vec(2), sample_it.f(0.0))))
    f = s.fragment_main
    f.call(sample_it.function, f.load(sampler_reference))
    assert_accepted(s.module)


# Terminators (spec 8) ---------------------------------------------------------------------


def test_branches_target_blocks_of_the_same_function() -> None:
    s = sample()
    f = s.fragment_main
    entry = f.function.blocks[0]
    loop = f.new_block()
    done = f.new_block()
    exit_terminator = entry.terminator
    entry.terminator = BranchTerminator(loop)
    f.position_at(loop)
    counter = f.register(BOOL)
    f.copy(f.b(False), result=counter)
    f.branch_if(counter, loop, done)
    done.terminator = exit_terminator
    assert_accepted(s.module)

    helper = s.fragment.function("helper")
    helper.ret()
    foreign = helper.function.blocks[0]
    loop.terminator = ConditionalBranchTerminator(counter, loop, foreign)
    assert_rejected(s.module, TerminatorRule.TARGET_OTHER_FUNCTION, loop.terminator)

    loop.terminator = BranchTerminator(Block([], ReturnTerminator()))
    assert_rejected(s.module, TerminatorRule.TARGET_OTHER_FUNCTION, loop.terminator)

    loop.terminator = BranchTerminator(None)  # type: ignore[arg-type]
    assert_rejected(s.module, TerminatorRule.TARGET_NOT_BLOCK, loop.terminator)


def test_branch_condition_must_be_a_bool_scalar() -> None:
    for condition_type in (INT, FLOAT, vec(2)):
        s = sample()
        f = s.fragment_main
        other = f.new_block()
        f.position_at(other)
        f.ret()
        entry = f.function.blocks[0]
        condition = f.register(condition_type)
        entry.terminator = ConditionalBranchTerminator(condition, other, other)
        assert_rejected(s.module, TerminatorRule.CONDITION_TYPE, entry.terminator)

    s = sample()
    f = s.fragment_main
    entry = f.function.blocks[0]
    entry.terminator = ConditionalBranchTerminator(f.b(True), entry, entry)
    assert_accepted(s.module)


def test_return_values() -> None:
    s = sample()
    helper = s.fragment.function("helper", ivec(2))
    value = helper.construct(ivec(2), helper.i(0))
    helper.ret(value)
    assert_accepted(s.module)

    helper.function.blocks[0].terminator = ReturnTerminator()
    assert_rejected(s.module, TerminatorRule.MISSING_RETURN_VALUE, helper.function.blocks[0].terminator)

    helper.function.blocks[0].terminator = ReturnTerminator(helper.f(1.0))
    assert_rejected(s.module, TerminatorRule.RETURN_TYPE, helper.function.blocks[0].terminator)

    entry_block = s.fragment_main.function.blocks[0]
    entry_block.terminator = ReturnTerminator(s.fragment_main.f(1.0))
    assert_rejected(s.module, TerminatorRule.VOID_RETURN_VALUE, entry_block.terminator)


def test_return_of_a_storage_reference_is_rejected() -> None:
    s = sample()
    helper = s.fragment.function("helper", FLOAT, [FLOAT])
    parameter = helper.parameter(0)
    helper.ret(parameter)  # type: ignore[arg-type]
    assert_rejected(s.module, ValueRule.REFERENCE_OPERAND, parameter)


def test_fragment_discard_is_allowed_in_any_fragment_function() -> None:
    s = sample()
    s.fragment_main.function.blocks[0].terminator = DiscardTerminator()
    helper = s.fragment.function("helper", FLOAT)
    helper.discard()  # regardless of the return type
    assert_accepted(s.module)


def test_discard_is_rejected_in_vertex_entry_and_vertex_helpers() -> None:
    s = sample()
    s.vertex_main.function.blocks[0].terminator = DiscardTerminator()
    assert_rejected(s.module, TerminatorRule.DISCARD_OUTSIDE_FRAGMENT, s.vertex_main.function.blocks[0].terminator)

    s = sample()
    helper = s.vertex.function("helper")
    helper.discard()
    assert_rejected(s.module, TerminatorRule.DISCARD_OUTSIDE_FRAGMENT, helper.function.blocks[0].terminator)


def test_unknown_terminators_are_rejected() -> None:
    class Halt(Terminator):
        pass

    s = sample()
    halt = Halt()
    s.fragment_main.function.blocks[0].terminator = halt
    assert_rejected(s.module, ObjectRule.UNKNOWN_CLASS, halt)

    s = sample()
    block = s.fragment_main.function.blocks[0]
    block.terminator = "return"  # type: ignore[assignment]
    assert_rejected(s.module, ObjectRule.WRONG_CLASS, block)


# Spec example (10.3, loop and helper), built with the builder ---------------------------


def test_loop_and_helper_example_is_accepted_by_the_whole_verifier() -> None:
    from vpl_core.ir import Module, Semantic, StageBuilder
    from vpl_core.verify import Verifier

    module = Module()
    vertex = StageBuilder(module.vertex)
    attribute = vertex.input("input_position", vec(3), location=0)
    clip = vertex.output("clip_position", vec(4), semantic=Semantic.POSITION)
    v = vertex.function("vertex_entry", entry=True)
    position = v.load(attribute)
    v.store(clip, v.construct(vec(4), position, v.f(1.0)))
    v.ret()

    fragment = StageBuilder(module.fragment)
    pixel = fragment.output("pixel_color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    f = fragment.function("fragment_entry", entry=True)
    increment = fragment.function("increment", INT, [INT])
    counter = f.register(INT)
    test = f.register(BOOL)
    green = f.register(FLOAT)
    color = f.register(vec(4))
    f.copy(f.i(0), result=counter)
    test_block, body, finish = f.new_block(), f.new_block(), f.new_block()
    f.branch(test_block)
    f.position_at(test_block)
    f.binary(BinaryOperator.LESS, counter, f.i(2), result=test)
    f.branch_if(test, body, finish)
    f.position_at(body)
    f.call(increment.function, counter, result=counter)
    f.branch(test_block)
    f.position_at(finish)
    f.construct(FLOAT, counter, result=green)
    f.divide(green, f.f(2.0), result=green)
    f.construct(vec(4), f.f(0.0), green, f.f(0.0), f.f(1.0), result=color)
    f.store(pixel, color)
    f.ret()
    value = increment.register(INT, index=0)
    increment.load(increment.parameter(0), result=value)
    increment.add(value, increment.i(1), result=value)
    increment.ret(value)

    assert_accepted(module)
    Verifier().run(module)


def test_matrix_operations_are_typed() -> None:
    s = sample()
    f = s.fragment_main
    model = f.construct(mat(4), f.f(1.0))
    column = f.construct(vec(4), f.f(1.0))
    f.multiply(model, column)
    f.multiply(model, model)
    wide = f.construct(mat(2, 3), f.f(1.0))
    tall = f.construct(mat(3, 2), f.f(1.0))
    product = f.multiply(wide, tall)
    assert f.function.blocks[0].instructions[-1].result.type == mat(2, 2)
    f.add(product, product)
    assert_accepted(s.module)
    wrong = BinaryInstruction(f.register(mat(2)), BinaryOperator.MULTIPLY, wide, wide)
    f.emit(wrong)
    assert_rejected(s.module, InstructionRule.BINARY_OPERANDS, wrong)


def test_registers_in_unreachable_blocks_are_still_typed() -> None:
    s = sample()
    f = s.fragment_main
    island = f.new_block()
    f.position_at(island)
    ghost = RegisterValue(123, FLOAT)
    f.copy(f.f(1.0), result=ghost)
    f.ret()
    assert_rejected(s.module, ValueRule.UNDECLARED_REGISTER, ghost)
