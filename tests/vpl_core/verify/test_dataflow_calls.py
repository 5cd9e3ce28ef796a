"""Calls and helper summaries (spec 3.2, 6.3): prerequisites, guarantees, non-returning helpers."""

from __future__ import annotations

from test_dataflow_support import assert_accepted, assert_rejected, executable, fragment_module

from vpl_core.ir import BOOL, INT, VOID, CallInstruction, vec
from vpl_core.verify.dataflow import HelperSummary, summarize_stage
from vpl_core.verify.errors import DataFlowRule


def _calls(block):
    return [instruction for instruction in executable(block) if isinstance(instruction, CallInstruction)]


def test_void_helper_guarantee_satisfies_the_entry_return():
    built = fragment_module()
    paint = built.fragment.function("paint", VOID)
    built.store_color(paint)
    paint.ret()
    main = built.entry()
    main.call(paint.function)
    main.ret()
    assert_accepted(built.module)
    summaries = summarize_stage(built.module.fragment)
    assert summaries[paint.function] == HelperSummary(prerequisites=0, guarantees=1, returns_normally=True)


def test_helper_assigning_on_one_path_only_guarantees_nothing():
    built = fragment_module()
    paint = built.fragment.function("paint", VOID, [BOOL])
    flag = paint.load(paint.parameter(0))
    yes, no = paint.new_block(), paint.new_block()
    paint.branch_if(flag, yes, no)
    paint.position_at(yes)
    built.store_color(paint)
    paint.ret()
    paint.position_at(no)
    paint.ret()
    main = built.entry()
    main.call(paint.function, main.b(True))
    main.ret()
    assert_rejected(built.module, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, main.entry.terminator)


def test_discarding_paths_do_not_weaken_helper_guarantees():
    built = fragment_module()
    paint = built.fragment.function("paint", VOID, [BOOL])
    flag = paint.load(paint.parameter(0))
    yes, no = paint.new_block(), paint.new_block()
    paint.branch_if(flag, yes, no)
    paint.position_at(yes)
    built.store_color(paint)
    paint.ret()
    paint.position_at(no)
    paint.discard()
    main = built.entry()
    main.call(paint.function, main.b(True))
    main.ret()
    assert_accepted(built.module)
    assert summarize_stage(built.module.fragment)[paint.function].guarantees == 1


def test_helper_read_before_write_is_a_prerequisite_checked_at_the_call():
    built = fragment_module()
    tint = built.fragment.function("tint", VOID)
    color = tint.load(built.color)
    tint.store(built.color, tint.multiply(color, tint.construct(vec(4), tint.f(0.5))))
    tint.ret()
    main = built.entry()
    main.call(tint.function)
    main.ret()
    call = _calls(main.entry)[0]
    error = assert_rejected(built.module, DataFlowRule.CALL_READS_UNASSIGNED_OUTPUT, call)
    assert error.context[3] is call
    # The helper itself is not in error: its read became a prerequisite.
    # Assigning the output before the call satisfies it.
    main.entry.instructions.remove(call)
    main.entry.terminator = None
    main.position_at(main.entry)
    built.store_color(main)
    main.emit(call)
    main.ret()
    assert_accepted(built.module)
    summary = summarize_stage(built.module.fragment)[tint.function]
    assert summary == HelperSummary(prerequisites=1, guarantees=1, returns_normally=True)


def test_prerequisites_propagate_through_call_chains():
    built = fragment_module()
    reader = built.fragment.function("reader", VOID)
    reader.load(built.color)
    reader.ret()
    middle = built.fragment.function("middle", VOID)
    middle.call(reader.function)
    middle.ret()
    main = built.entry()
    main.call(middle.function)
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.CALL_READS_UNASSIGNED_OUTPUT, _calls(main.entry)[0])


def test_prerequisites_satisfied_inside_the_intermediate_helper_do_not_propagate():
    built = fragment_module()
    reader = built.fragment.function("reader", VOID)
    reader.load(built.color)
    reader.ret()
    middle = built.fragment.function("middle", VOID)
    built.store_color(middle)
    middle.call(reader.function)
    middle.ret()
    main = built.entry()
    main.call(middle.function)
    main.ret()
    assert_accepted(built.module)
    summaries = summarize_stage(built.module.fragment)
    assert summaries[reader.function].prerequisites == 1
    assert summaries[middle.function].prerequisites == 0


def test_unused_helper_reading_outputs_is_not_an_error():
    built = fragment_module()
    reader = built.fragment.function("reader", VOID)
    reader.load(built.color)
    reader.ret()
    main = built.entry()
    built.store_color(main)
    main.ret()
    assert_accepted(built.module)


def test_entry_function_output_reads_are_errors_not_prerequisites():
    built = fragment_module()
    main = built.entry()
    main.load(built.color)
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_OUTPUT_READ, executable(main.entry)[0].source)


def test_helper_that_always_discards_cuts_the_caller():
    built = fragment_module()
    kill = built.fragment.function("kill", VOID)
    kill.discard()
    main = built.entry()
    value = main.register(INT)
    main.call(kill.function)
    # Not executable: neither the register read nor the missing output store
    # at the return is checked (spec 6.3).
    main.copy(value)
    after = main.new_block()
    main.branch(after)
    main.position_at(after)
    main.copy(value)
    main.ret()
    assert_accepted(built.module)
    assert summarize_stage(built.module.fragment)[kill.function] == HelperSummary(0, 0, False)


def test_arguments_of_a_non_returning_call_are_still_checked():
    built = fragment_module()
    kill = built.fragment.function("kill", VOID, [INT])
    kill.discard()
    main = built.entry()
    value = main.register(INT)
    main.call(kill.function, value)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, _calls(main.entry)[0].arguments[0])


def test_helper_that_loops_forever_cannot_return_normally():
    built = fragment_module()
    spin = built.fragment.function("spin", VOID)
    loop = spin.new_block()
    spin.branch(loop)
    spin.position_at(loop)
    spin.branch(loop)
    main = built.entry()
    main.call(spin.function)
    main.ret()
    assert_accepted(built.module)
    assert not summarize_stage(built.module.fragment)[spin.function].returns_normally


def test_helper_whose_return_is_unreachable_cannot_return_normally():
    built = fragment_module()
    kill = built.fragment.function("kill", VOID)
    kill.discard()
    orphan = kill.new_block()
    kill.position_at(orphan)
    kill.ret()
    main = built.entry()
    main.call(kill.function)
    main.ret()
    assert_accepted(built.module)


def test_non_returning_call_in_one_branch_only_cuts_that_branch():
    built = fragment_module()
    kill = built.fragment.function("kill", VOID)
    kill.discard()
    main = built.entry()
    value = main.register(INT)
    flag = main.copy(main.b(True))
    dead, live, join = main.new_block(), main.new_block(), main.new_block()
    main.branch_if(flag, dead, live)
    main.position_at(dead)
    main.call(kill.function)
    main.branch(join)
    main.position_at(live)
    main.copy(main.i(1), result=value)
    main.branch(join)
    main.position_at(join)
    main.copy(value)  # assigned on the only path that reaches the join
    built.store_color(main)
    main.ret()
    assert_accepted(built.module)


def test_non_void_call_assigns_its_result_and_reads_its_arguments():
    built = fragment_module()
    twice = built.fragment.function("twice", INT, [INT])
    argument = twice.load(twice.parameter(0))
    twice.ret(twice.add(argument, argument))
    main = built.entry()
    value = main.copy(main.i(3))
    result = main.call(twice.function, value)
    main.add(result, result)
    built.store_color(main)
    main.ret()
    assert_accepted(built.module)
    # Without the copy the argument is unassigned.
    copy = executable(main.entry)[0]
    main.entry.instructions.remove(copy)
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, _calls(main.entry)[0].arguments[0])


def test_registers_are_not_shared_between_caller_and_callee():
    built = fragment_module()
    helper = built.fragment.function("helper", INT)
    local = helper.register(INT)  # r0 of the helper, never assigned there
    helper.ret(local)
    main = built.entry()
    caller_r0 = main.copy(main.i(1))  # r0 of the caller
    assert caller_r0.index == local.index
    main.call(helper.function)
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, helper.entry.terminator.value)


def test_a_call_after_the_guarantee_is_received_can_read_it():
    built = fragment_module()
    paint = built.fragment.function("paint", VOID)
    built.store_color(paint)
    paint.ret()
    main = built.entry()
    main.call(paint.function)
    main.load(built.color)
    main.ret()
    assert_accepted(built.module)
