"""Recursion rejection and callee-first order (spec 6.3)."""

from __future__ import annotations

from test_dataflow_support import assert_accepted, assert_rejected, executable, fragment_module

from vpl_core.ir import INT, VOID, CallInstruction
from vpl_core.verify.callgraph import callee_first_order
from vpl_core.verify.errors import DataFlowRule


def _call_in(function_builder) -> CallInstruction:
    calls = [
        instruction
        for block in function_builder.function.blocks
        for instruction in executable(block)
        if isinstance(instruction, CallInstruction)
    ]
    assert len(calls) == 1
    return calls[0]


def _entry_storing_color(built):
    main = built.entry()
    built.store_color(main)
    return main


def test_direct_recursion_is_rejected():
    built = fragment_module()
    main = _entry_storing_color(built)
    again = built.fragment.function("again", VOID)
    again.call(again.function)
    again.ret()
    main.call(again.function)
    main.ret()
    error = assert_rejected(built.module, DataFlowRule.RECURSION, _call_in(again))
    assert error.context[1] is again.function


def test_indirect_recursion_is_rejected_and_names_the_cycle():
    built = fragment_module()
    main = _entry_storing_color(built)
    first = built.fragment.function("first", VOID)
    second = built.fragment.function("second", VOID)
    third = built.fragment.function("third", VOID)
    first.call(second.function)
    first.ret()
    second.call(third.function)
    second.ret()
    third.call(first.function)
    third.ret()
    main.call(first.function)
    main.ret()
    # The walk starts at `first` (list order); `third -> first` closes the cycle.
    assert_rejected(built.module, DataFlowRule.RECURSION, _call_in(third))


def test_recursion_in_an_unused_function_is_rejected():
    built = fragment_module()
    main = _entry_storing_color(built)
    main.ret()
    ping = built.fragment.function("ping", INT, [INT])
    pong = built.fragment.function("pong", INT, [INT])
    ping.ret(ping.call(pong.function, ping.load(ping.parameter(0))))
    pong.ret(pong.call(ping.function, pong.load(pong.parameter(0))))
    assert_rejected(built.module, DataFlowRule.RECURSION, _call_in(pong))


def test_recursion_in_an_unreachable_block_is_rejected():
    built = fragment_module()
    main = _entry_storing_color(built)
    main.ret()
    orphan = main.new_block()
    main.position_at(orphan)
    main.call(main.function)
    main.ret()
    assert_rejected(built.module, DataFlowRule.RECURSION, _call_in(main))


def test_recursion_is_checked_before_availability():
    # The helper also reads an unassigned register; the cycle is reported.
    built = fragment_module()
    main = _entry_storing_color(built)
    loop = built.fragment.function("loop", VOID)
    loop.copy(loop.register(INT))
    loop.call(loop.function)
    loop.ret()
    main.ret()
    assert_rejected(built.module, DataFlowRule.RECURSION, _call_in(loop))


def test_shared_callees_are_not_cycles():
    built = fragment_module()
    leaf = built.fragment.function("leaf", VOID)
    leaf.ret()
    left = built.fragment.function("left", VOID)
    left.call(leaf.function)
    left.ret()
    right = built.fragment.function("right", VOID)
    right.call(leaf.function)
    right.call(left.function)
    right.ret()
    main = _entry_storing_color(built)
    main.call(right.function)
    main.call(left.function)
    main.call(leaf.function)
    main.ret()
    assert_accepted(built.module)
    order = callee_first_order(built.module.fragment)
    assert order == [leaf.function, left.function, right.function, main.function]


def test_callee_first_order_puts_every_callee_before_its_callers():
    built = fragment_module()
    functions = [built.fragment.function(f"helper_{n}", VOID) for n in range(6)]
    # helper_n calls helper_(n+2) and helper_(n+3) where they exist.
    for number, helper in enumerate(functions):
        for offset in (2, 3):
            if number + offset < len(functions):
                helper.call(functions[number + offset].function)
        helper.ret()
    order = callee_first_order(built.module.fragment)
    position = {function: number for number, function in enumerate(order)}
    for number, helper in enumerate(functions):
        for offset in (2, 3):
            if number + offset < len(functions):
                assert position[functions[number + offset].function] < position[helper.function]


def test_a_very_long_call_chain_does_not_exhaust_the_python_stack():
    built = fragment_module()
    chain = [built.fragment.function(f"link_{n}", VOID) for n in range(3000)]
    for number, link in enumerate(chain):
        if number + 1 < len(chain):
            link.call(chain[number + 1].function)
        link.ret()
    main = _entry_storing_color(built)
    main.call(chain[0].function)
    main.ret()
    assert_accepted(built.module)
    chain[-1].function.blocks[0].terminator = None
    chain[-1].position_at(chain[-1].function.blocks[0])
    chain[-1].call(chain[0].function)
    chain[-1].ret()
    error = assert_rejected(built.module, DataFlowRule.RECURSION, _call_in(chain[-1]))
    assert "'link_2999' -> 'link_0'" in error.message
