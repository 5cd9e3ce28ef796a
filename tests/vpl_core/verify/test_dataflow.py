"""Definite assignment of registers (spec 5.2), local aggregates (6.2) and constant division (4.1)."""

from __future__ import annotations

from test_dataflow_support import assert_accepted, assert_rejected, executable, fragment_module

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    INT32_MIN,
    VOID,
    ArrayType,
    BinaryOperator,
    CopyInstruction,
    FunctionBuilder,
    IndexReferenceValue,
    LoadInstruction,
    StoreInstruction,
    element,
    local_ref,
    member,
    record,
    vec,
)
from vpl_core.verify import VerificationError, Verifier, dataflow
from vpl_core.verify.errors import DataFlowRule

# Branch joins and repeated writes -----------------------------------------------------------


def _join_module(assign_on_both: bool):
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    flag = main.register(BOOL)
    then_block, else_block, join = main.new_block(), main.new_block(), main.new_block()
    main.copy(main.b(True), result=flag)
    main.branch_if(flag, then_block, else_block)
    main.position_at(then_block)
    main.copy(main.i(1), result=value)
    main.branch(join)
    main.position_at(else_block)
    if assign_on_both:
        main.copy(main.i(2), result=value)
    main.branch(join)
    main.position_at(join)
    total = main.add(value, main.i(1))
    built.store_color(main)
    main.ret()
    return built.module, main, join.instructions[0], total


def test_assignment_on_both_branches_reaches_the_join():
    module, *_ = _join_module(assign_on_both=True)
    assert_accepted(module)


def test_assignment_on_one_branch_only_is_rejected_at_the_join_read():
    module, main, read, _ = _join_module(assign_on_both=False)
    error = assert_rejected(module, DataFlowRule.UNASSIGNED_REGISTER, read.lhs)
    stage, function, block, instruction = error.context
    assert stage is module.fragment and function is main.function
    assert block is main.function.blocks[3] and instruction is read


def test_constant_condition_still_considers_both_successors():
    # branch_if (bool true) never takes the false edge at run time, but the
    # verifier does not fold constants (spec 5.2).
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    then_block, else_block, join = main.new_block(), main.new_block(), main.new_block()
    main.branch_if(main.b(True), then_block, else_block)
    main.position_at(then_block)
    main.copy(main.i(1), result=value)
    main.branch(join)
    main.position_at(else_block)
    main.branch(join)
    main.position_at(join)
    read = main.add(value, main.i(1))
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, join.instructions[0].lhs)
    del read


def test_repeated_writes_are_allowed():
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    main.copy(main.i(1), result=value)
    main.copy(main.i(2), result=value)
    main.add(value, value, result=value)
    main.add(value, value, result=value)
    built.store_color(main)
    main.ret()
    assert_accepted(built.module)


def test_an_instruction_reads_its_inputs_before_writing_its_destination():
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    main.add(value, main.i(1), result=value)  # r0 = r0 + 1 needs the old r0
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, executable(main.entry)[0].lhs)


def test_read_before_write_in_the_same_block_is_rejected_and_write_after_is_not_enough():
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    other = main.copy(value)
    main.copy(main.i(1), result=value)
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, executable(main.entry)[0].source)
    del other


# Loops ------------------------------------------------------------------------------------


def _spec_loop(initial_copy: bool):
    """The function of spec section 8, made the fragment entry (returning void, storing color)."""
    built = fragment_module()
    main = built.entry()
    counter = main.register(INT)
    test_value = main.register(BOOL)
    test, body, exit_block = main.new_block(), main.new_block(), main.new_block()
    if initial_copy:
        main.copy(main.i(0), result=counter)
    main.branch(test)
    main.position_at(test)
    comparison = main.binary(BinaryOperator.LESS, counter, main.i(10), result=test_value)
    main.branch_if(comparison, body, exit_block)
    main.position_at(body)
    main.add(counter, main.i(1), result=counter)
    main.branch(test)
    main.position_at(exit_block)
    main.copy(counter)
    built.store_color(main)
    main.ret()
    return built.module, test


def test_spec_loop_with_initial_copy_is_accepted():
    module, _ = _spec_loop(initial_copy=True)
    assert_accepted(module)


def test_assignment_on_a_back_edge_does_not_justify_the_first_iteration():
    module, test = _spec_loop(initial_copy=False)
    assert_rejected(module, DataFlowRule.UNASSIGNED_REGISTER, test.instructions[0].lhs)


def test_assignment_inside_a_loop_body_is_not_available_after_the_loop():
    built = fragment_module()
    main = built.entry()
    counter, flag, inner = main.register(INT), main.register(BOOL), main.register(INT)
    test, body, exit_block = main.new_block(), main.new_block(), main.new_block()
    main.copy(main.i(0), result=counter)
    main.branch(test)
    main.position_at(test)
    main.binary(BinaryOperator.LESS, counter, main.i(3), result=flag)
    main.branch_if(flag, body, exit_block)
    main.position_at(body)
    main.copy(main.i(7), result=inner)
    main.add(counter, main.i(1), result=counter)
    main.branch(test)
    main.position_at(exit_block)
    main.copy(inner)
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, exit_block.instructions[0].source)


def test_nested_loops_reach_a_fixed_point():
    built = fragment_module()
    main = built.entry()
    i, j, flag, acc = main.register(INT), main.register(INT), main.register(BOOL), main.register(INT)
    outer, outer_body, inner, inner_body, inner_exit, done = (main.new_block() for _ in range(6))
    main.copy(main.i(0), result=i)
    main.copy(main.i(0), result=acc)
    main.branch(outer)
    main.position_at(outer)
    main.binary(BinaryOperator.LESS, i, main.i(4), result=flag)
    main.branch_if(flag, outer_body, done)
    main.position_at(outer_body)
    main.copy(main.i(0), result=j)
    main.branch(inner)
    main.position_at(inner)
    main.binary(BinaryOperator.LESS, j, main.i(4), result=flag)
    main.branch_if(flag, inner_body, inner_exit)
    main.position_at(inner_body)
    main.add(acc, j, result=acc)
    main.add(j, main.i(1), result=j)
    main.branch(inner)
    main.position_at(inner_exit)
    main.add(i, main.i(1), result=i)
    main.branch(outer)
    main.position_at(done)
    main.copy(acc)
    built.store_color(main)
    main.ret()
    assert_accepted(built.module)
    # j is assigned only in the outer body, so it is unavailable after the outer loop.
    done.instructions.insert(0, CopyInstruction(acc, j))
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, done.instructions[0].source)


def test_infinite_loop_without_return_is_accepted():
    built = fragment_module()
    main = built.entry()
    spin = main.new_block()
    main.branch(spin)
    main.position_at(spin)
    main.branch(spin)
    assert_accepted(built.module)


# Terminator reads -------------------------------------------------------------------------


def test_branch_condition_needs_assignment():
    built = fragment_module()
    main = built.entry()
    flag = main.register(BOOL)
    left, right = main.new_block(), main.new_block()
    main.branch_if(flag, left, right)
    for block in (left, right):
        main.position_at(block)
        built.store_color(main)
        main.ret()
    terminator = main.entry.terminator
    error = assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, terminator.condition)
    assert error.context[3] is terminator


def test_return_value_needs_assignment():
    built = fragment_module()
    helper = built.fragment.function("helper", INT)
    result = helper.register(INT)
    helper.ret(result)
    main = built.entry()
    main.call(helper.function)
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, helper.function.blocks[0].terminator.value)


# Reachability ------------------------------------------------------------------------------


def test_unreachable_blocks_are_not_availability_checked():
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    built.store_color(main)
    main.ret()
    orphan = main.new_block()
    main.position_at(orphan)
    main.add(value, main.i(1), result=value)
    main.branch(orphan)
    assert_accepted(built.module)


def test_a_block_reached_only_from_unreachable_code_does_not_weaken_a_join():
    # The unreachable predecessor of `join` assigns nothing; only reachable
    # predecessors take part in the intersection.
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    join, orphan = main.new_block(), main.new_block()
    main.copy(main.i(1), result=value)
    main.branch(join)
    main.position_at(orphan)
    main.branch(join)
    main.position_at(join)
    main.copy(value)
    built.store_color(main)
    main.ret()
    assert_accepted(built.module)


def test_unused_functions_are_checked_as_their_own_invocations():
    built = fragment_module()
    main = built.entry()
    built.store_color(main)
    main.ret()
    unused = built.fragment.function("unused", VOID)
    value = unused.register(INT)
    unused.copy(value)
    unused.ret()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, executable(unused.entry)[0].source)


# Local aggregates (6.2) -----------------------------------------------------------------------


def _cell_type():
    return record("Cell", [("color", vec(4)), ("weight", INT)])


def test_member_store_into_unassigned_local_aggregate_is_rejected():
    built = fragment_module()
    main = built.entry()
    cell = main.register(_cell_type())
    weight = main.copy(main.i(1))
    main.store(member(local_ref(cell), "weight"), weight)
    built.store_color(main)
    main.ret()
    store = executable(main.entry)[1]
    assert isinstance(store, StoreInstruction)
    assert_rejected(built.module, DataFlowRule.PARTIAL_LOCAL_STORE, store.target)


def test_partial_stores_never_establish_the_whole_register():
    # Writing every field one by one still leaves the register unassigned:
    # each partial store is rejected, and so is a whole load after them.
    built = fragment_module()
    main = built.entry()
    cell = main.register(_cell_type())
    color = main.construct(vec(4), main.f(1.0))
    main.store(member(local_ref(cell), "color"), color)
    main.store(member(local_ref(cell), "weight"), main.i(3))
    main.load(local_ref(cell))
    built.store_color(main)
    main.ret()
    first_partial, second_partial = executable(main.entry)[1:3]
    assert_rejected(built.module, DataFlowRule.PARTIAL_LOCAL_STORE, first_partial.target)
    main.entry.instructions.remove(first_partial)
    assert_rejected(built.module, DataFlowRule.PARTIAL_LOCAL_STORE, second_partial.target)
    main.entry.instructions.remove(second_partial)
    load = executable(main.entry)[1]
    assert isinstance(load, LoadInstruction)
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_LOCAL_LOAD, load.source)


def test_whole_assignments_establish_a_local_aggregate():
    cell_type = _cell_type()
    for how in ("construct", "copy", "whole_store", "whole_load"):
        built = fragment_module()
        main = built.entry()
        cell = main.register(cell_type)
        source = main.register(cell_type)
        color = main.construct(vec(4), main.f(1.0))
        main.construct(cell_type, color, main.i(2), result=source)
        if how == "construct":
            main.construct(cell_type, color, main.i(2), result=cell)
        elif how == "copy":
            main.copy(source, result=cell)
        elif how == "whole_store":
            main.store(local_ref(cell), source)
        else:
            main.load(local_ref(source), result=cell)
        main.store(member(local_ref(cell), "weight"), main.i(5))
        main.load(member(local_ref(cell), "color"))
        built.store_color(main)
        main.ret()
        assert_accepted(built.module)


def test_derived_load_needs_the_whole_local_register():
    built = fragment_module()
    main = built.entry()
    cell = main.register(_cell_type())
    main.load(member(local_ref(cell), "weight"))
    built.store_color(main)
    main.ret()
    load = executable(main.entry)[0]
    assert_rejected(built.module, DataFlowRule.PARTIAL_LOCAL_LOAD, load.source)


def test_parameters_are_supplied_in_full():
    built = fragment_module()
    cell_type = _cell_type()
    helper = built.fragment.function("helper", INT, [cell_type])
    helper.store(member(helper.parameter(0), "weight"), helper.i(4))
    weight = helper.load(member(helper.parameter(0), "weight"))
    whole = helper.load(helper.parameter(0))
    helper.ret(weight)
    main = built.entry()
    cell = main.construct(cell_type, main.construct(vec(4), main.f(0.5)), main.i(1))
    main.call(helper.function, cell)
    built.store_color(main)
    main.ret()
    assert_accepted(built.module)
    del whole


# Selectors and nested storage paths ---------------------------------------------------------


def _nested_storage(initialize_index: bool, initialize_array: bool = True):
    """The spec's "Nested aggregate storage" fragment entry (section 10.3)."""
    built = fragment_module()
    main = built.entry()
    cell_type = record("Cell", [("color", vec(4)), ("weight", INT)])
    cells_type = ArrayType(cell_type, 2)
    r0 = main.register(vec(4))
    r1 = main.register(cell_type)
    r2 = main.register(cells_type)
    r3 = main.register(INT)
    main.construct(vec(4), main.f(1.0), main.f(0.0), main.f(0.0), main.f(1.0), result=r0)
    main.construct(cell_type, r0, main.i(1), result=r1)
    if initialize_array:
        main.construct(cells_type, r1, r1, result=r2)
    if initialize_index:
        main.copy(main.i(1), result=r3)
    main.construct(vec(4), main.f(0.0), main.f(1.0), main.f(0.0), main.f(1.0), result=r0)
    path = member(element(local_ref(r2), r3), "color")
    main.store(path, r0)
    main.load(member(element(local_ref(r2), r3), "color"), result=r0)
    main.store(built.color, r0)
    main.ret()
    return built.module, main


def test_spec_nested_aggregate_storage_is_accepted():
    module, _ = _nested_storage(initialize_index=True)
    assert_accepted(module)


def test_dynamic_index_register_must_be_assigned_in_a_store_path():
    module, main = _nested_storage(initialize_index=False)
    store = next(i for i in main.entry.instructions if isinstance(i, StoreInstruction))
    index_reference = store.target.base
    assert isinstance(index_reference, IndexReferenceValue)
    error = assert_rejected(module, DataFlowRule.UNASSIGNED_REGISTER, index_reference.index)
    assert error.context[3] is store


def test_dynamic_index_register_must_be_assigned_in_a_load_path():
    module, main = _nested_storage(initialize_index=True)
    instructions = main.entry.instructions
    copy_position = next(n for n, i in enumerate(instructions) if isinstance(i, CopyInstruction))
    load = next(i for i in instructions if isinstance(i, LoadInstruction))
    # Move the index assignment between the store and the load: the store's
    # selector is now unassigned, and that is reported first.
    copy = instructions.pop(copy_position)
    instructions.insert(instructions.index(load), copy)
    store = next(i for i in instructions if isinstance(i, StoreInstruction))
    assert_rejected(module, DataFlowRule.UNASSIGNED_REGISTER, store.target.base.index)
    # With the store removed, the load is fine again (the copy precedes it).
    instructions.remove(store)
    assert_accepted(module)


def test_nested_store_into_an_uninitialized_array_of_records_is_rejected():
    module, main = _nested_storage(initialize_index=True, initialize_array=False)
    store = next(i for i in main.entry.instructions if isinstance(i, StoreInstruction))
    assert_rejected(module, DataFlowRule.PARTIAL_LOCAL_STORE, store.target)


def test_index_extraction_reads_its_index_register():
    built = fragment_module()
    main = built.entry()
    array_type = ArrayType(FLOAT, 3)
    values = main.construct(array_type, main.f(1.0), main.f(2.0), main.f(3.0))
    position = main.register(INT)
    main.index(values, position)
    built.store_color(main)
    main.ret()
    extraction = executable(main.entry)[1]
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, extraction.index)


# Constant division (4.1) ----------------------------------------------------------------------


def _division(lhs, rhs, result_type=INT, unreachable: bool = False, in_unused: bool = False):
    built = fragment_module()
    main = built.entry()
    built.store_color(main)
    main.ret()
    target = main
    if in_unused:
        target = built.fragment.function("unused", VOID)
    elif unreachable:
        main.position_at(main.new_block())
    operands = []
    for operand in (lhs, rhs):
        if operand == "register":
            operand = target.copy(target.i(7) if result_type == INT else target.f(7.0))
        operands.append(operand)
    target.binary(BinaryOperator.DIVIDE, operands[0], operands[1], result_type=result_type)
    target.ret()
    instruction = target.block.instructions[-1]
    return built.module, instruction


def test_integer_division_by_constant_zero_is_rejected():
    for where in ({}, {"unreachable": True}, {"in_unused": True}):
        module, division = _division("register", _int(0), **where)
        assert_rejected(module, DataFlowRule.CONSTANT_DIVISION_BY_ZERO, division)


def test_constant_int32_min_divided_by_minus_one_is_rejected():
    module, division = _division(_int(INT32_MIN), _int(-1))
    assert_rejected(module, DataFlowRule.CONSTANT_DIVISION_OVERFLOW, division)


def test_other_divisions_are_accepted():
    accepted = [
        (_float(1.0), _float(0.0), FLOAT),  # float division by zero follows GLSL's infinity rules
        (_float(1.0), _float(-0.0), FLOAT),
        ("register", "register", INT),  # registers are not tracked
        (_int(5), _int(-1), INT),
        (_int(INT32_MIN), "register", INT),
        ("register", _int(-1), INT),
        (_int(INT32_MIN), _int(1), INT),
        (_int(0), _int(3), INT),
    ]
    for lhs, rhs, result_type in accepted:
        module, _ = _division(lhs, rhs, result_type)
        assert_accepted(module)


def _int(value: int):
    from vpl_core.ir import ConstantValue

    return ConstantValue.of_int(value)


def _float(value: float):
    from vpl_core.ir import ConstantValue

    return ConstantValue.of_float(value)


# Order, reruns and cleanup ------------------------------------------------------------------


def test_vertex_stage_errors_come_before_fragment_stage_errors():
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    main.copy(value)
    built.store_color(main)
    main.ret()
    vertex_main = FunctionBuilder(built.module.vertex.entry)
    unassigned = vertex_main.register(INT, index=99)
    read = CopyInstruction(vertex_main.register(INT, index=100), unassigned)
    entry_block = vertex_main.entry
    entry_block.instructions.insert(entry_block.instructions.index(executable(entry_block)[0]), read)
    error = assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, unassigned)
    assert error.context[0] is built.module.vertex


def test_errors_follow_function_list_order_not_call_order():
    # `helper` is listed first and analysed before its caller either way;
    # `late` is listed last and would be analysed first in callee-first order.
    built = fragment_module()
    helper = built.fragment.function("helper", VOID)
    helper_value = helper.register(INT)
    helper.copy(helper_value)
    helper.ret()
    main = built.entry()
    late = built.fragment.function("late", VOID)
    late_value = late.register(INT)
    late.copy(late_value)
    late.ret()
    main.call(late.function)
    main.call(helper.function)
    built.store_color(main)
    main.ret()
    error = assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, executable(helper.entry)[0].source)
    assert error.context[1] is helper.function


def _object_state(module):
    """Every attribute of every object reachable from the module, for change detection."""
    seen: dict[int, object] = {}
    pending = [module]
    snapshot = []
    while pending:
        current = pending.pop()
        if id(current) in seen or isinstance(current, (str, int, float, bool, type(None))):
            continue
        seen[id(current)] = current
        if isinstance(current, (list, tuple)):
            snapshot.append((id(current), len(current)))
            pending.extend(current)
            continue
        attributes = getattr(current, "__dict__", None)
        if attributes is None:
            continue
        snapshot.append((id(current), tuple(sorted((k, id(v)) for k, v in attributes.items()))))
        pending.extend(attributes.values())
    return sorted(snapshot)


def test_reruns_after_a_failure_give_the_same_results_and_leave_the_module_unchanged():
    failing, _ = _spec_loop(initial_copy=False)
    passing, _ = _spec_loop(initial_copy=True)
    verifier = Verifier()
    before = _object_state(failing)
    messages = []
    for _ in range(3):
        try:
            verifier.run(failing)
        except VerificationError as error:
            messages.append((error.message, id(error.subject)))
        verifier.run(passing)
    assert len(messages) == 3 and len(set(messages)) == 1
    assert _object_state(failing) == before
    dataflow.check_module(passing)
