"""Output leaves and output definedness (spec 6.3)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from test_dataflow_support import (
    assert_accepted,
    assert_rejected,
    executable,
    fragment_module,
    vertex_module,
)

from vpl_core.ir import (
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    LoadInstruction,
    Stage,
    StageKind,
    StoreInstruction,
    element,
    mat,
    member,
    record,
    vec,
)
from vpl_core.ir.module import Direction, InterfaceVariable
from vpl_core.ir.values import ReferenceValue, StorageKind
from vpl_core.verify.errors import DataFlowRule
from vpl_core.verify.outputs import OutputLayout


def python_calls(work: Callable[[], object]) -> int:
    """How many Python functions `work` calls: a measure of its work that no machine load changes."""
    calls = 0

    def count(_frame: object, event: str, _argument: object) -> None:
        nonlocal calls
        calls += event == "call"

    sys.setprofile(count)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls


def _cells_type(count: int):
    cell = record("Cell", [("color", vec(4)), ("weight", FLOAT), ("empty", record("Empty", []))])
    return cell, ArrayType(cell, count)


# The layout -----------------------------------------------------------------------------------


def _stage(*variables: tuple[Direction, str, object]) -> Stage:
    return Stage(StageKind.VERTEX, [InterfaceVariable(direction, name, type) for direction, name, type in variables])


def _reference(stage: Stage, slot: int) -> ReferenceValue:
    return ReferenceValue(StorageKind.STAGE, slot, stage.interface[slot].type)


def test_leaf_counts_split_records_and_arrays_and_skip_empty_records():
    cell, cells = _cells_type(3)
    layout = OutputLayout(_stage())
    assert layout.leaf_count(FLOAT) == 1
    assert layout.leaf_count(vec(3)) == 1
    assert layout.leaf_count(mat(4)) == 1
    assert layout.leaf_count(SAMPLER2D) == 1
    assert layout.leaf_count(record("Empty", [])) == 0
    assert layout.leaf_count(cell) == 2
    assert layout.leaf_count(cells) == 6
    assert layout.leaf_count(ArrayType(ArrayType(cells, 5), 7)) == 6 * 5 * 7


def test_outputs_without_inner_paths_are_one_class_each():
    _, cells = _cells_type(3)
    stage = _stage(
        (Direction.OUT, "first", vec(4)),
        (Direction.IN, "input", cells),
        (Direction.OUT, "cells", cells),
        (Direction.OUT, "nothing", record("Empty", [])),
        (Direction.OUT, "last", INT),
    )
    layout = OutputLayout(stage)
    # No access path enters `cells`, so its six leaves are always assigned together.
    assert layout.leaf_total == 3
    assert layout.output_range(0) == (0, 1)
    assert layout.output_range(1) is None
    assert layout.output_range(2) == (1, 1)
    assert layout.output_range(3) == (2, 0)
    assert layout.output_range(4) == (2, 1)
    assert layout.select(_reference(stage, 1)) is None
    assert [layout.describe_leaf(leaf) for leaf in range(3)] == ["first", "cells[0].color", "last"]


def test_paths_that_tell_every_leaf_apart_give_one_class_per_leaf_in_leaf_order():
    _, cells = _cells_type(3)
    stage = _stage((Direction.OUT, "first", vec(4)), (Direction.OUT, "cells", cells), (Direction.OUT, "last", INT))
    root = _reference(stage, 1)
    paths = [member(element(root, index), name) for index in (2, 0, 1) for name in ("weight", "color", "empty")]
    layout = OutputLayout(stage, paths)
    assert layout.leaf_total == 8
    assert layout.output_range(1) == (1, 6)
    assert [layout.describe_leaf(leaf) for leaf in range(8)] == [
        "first",
        "cells[0].color",
        "cells[0].weight",
        "cells[1].color",
        "cells[1].weight",
        "cells[2].color",
        "cells[2].weight",
        "last",
    ]


def test_selections_of_member_constant_and_dynamic_paths():
    from vpl_core.ir import RegisterValue

    _, cells = _cells_type(3)
    stage = _stage((Direction.OUT, "first", vec(4)), (Direction.OUT, "cells", cells))
    root = _reference(stage, 1)
    whole_path = root
    weight_1_path = member(element(root, 1), "weight")
    cell_2_path = element(root, 2)
    dynamic_path = member(element(root, RegisterValue(0, INT)), "color")
    empty_path = member(element(root, 0), "empty")
    layout = OutputLayout(stage, [whole_path, weight_1_path, cell_2_path, dynamic_path, empty_path])
    # Classes: first | cells[0].color cells[0].weight | [1].color [1].weight | [2].color [2].weight
    whole = layout.select(whole_path)
    assert whole.read == whole.written == 0b1111110
    weight_1 = layout.select(weight_1_path)
    assert weight_1.read == weight_1.written == 1 << 4
    cell_2 = layout.select(cell_2_path)
    assert cell_2.read == cell_2.written == 0b1100000
    dynamic = layout.select(dynamic_path)
    assert dynamic.read == 0b0101010  # every element's color, not its weight
    assert dynamic.written == 0
    empty = layout.select(empty_path)
    assert empty.read == empty.written == 0


def test_elements_never_told_apart_share_a_class():
    from vpl_core.ir import RegisterValue

    grid = ArrayType(ArrayType(vec(2), 3), 4)
    stage = _stage((Direction.OUT, "grid", grid))
    root = _reference(stage, 0)
    index = RegisterValue(0, INT)
    column_path = element(element(root, index), 1)
    row_path = element(element(root, 2), index)
    layout = OutputLayout(stage, [column_path, row_path])
    # Rows {0,1,3} x columns {0,2}, rows {0,1,3} x column 1, row 2 x columns {0,2}, row 2 x column 1.
    assert layout.leaf_total == 4
    column = layout.select(column_path)
    row = layout.select(row_path)
    assert column.read.bit_count() == 2 and row.read.bit_count() == 2
    assert (column.read & row.read).bit_count() == 1
    assert layout.describe_first(column.read & row.read) == "grid[2][1]"
    assert column.written == row.written == 0


def test_layout_of_huge_output_arrays_is_bounded_by_the_code_not_the_counts():
    from vpl_core.ir import RegisterValue

    def lay_out(outer: int, inner: int) -> OutputLayout:
        cell = record("Cell", [("a", vec(4)), ("b", vec(4)), ("c", FLOAT)])
        big = ArrayType(ArrayType(cell, inner), outer)
        stage = _stage((Direction.OUT, "big", big))
        root = _reference(stage, 0)
        path = member(element(element(root, RegisterValue(0, INT)), 9_999), "c")
        layout = OutputLayout(stage, [path, element(element(root, 5), 0)])
        assert layout.leaf_count(big) == 3 * inner * outer
        assert layout.leaf_total < 20
        selection = layout.select(path)
        assert layout.describe_first(selection.read) == "big[0][9999].c"
        assert layout.describe_first(layout.all_leaves & ~selection.read) == "big[0][0].a"
        return layout

    # About the same work for 2**60 leaves as for 10**8 (caches filled by earlier tests move it a little):
    # nothing is enumerated per element.
    assert python_calls(lambda: lay_out(2**20, 2**40)) < 2 * python_calls(lambda: lay_out(10_000, 10_000))


# Definedness at entry returns --------------------------------------------------------------


def test_missing_output_store_is_rejected_at_the_entry_return():
    built = fragment_module()
    main = built.entry()
    main.ret()
    terminator = main.entry.terminator
    error = assert_rejected(built.module, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, terminator)
    assert error.context[3] is terminator


def test_output_assigned_on_one_branch_only_is_rejected_at_the_return():
    built = fragment_module()
    main = built.entry()
    flag = main.copy(main.b(False))
    left, right, join = main.new_block(), main.new_block(), main.new_block()
    main.branch_if(flag, left, right)
    main.position_at(left)
    built.store_color(main)
    main.branch(join)
    main.position_at(right)
    main.branch(join)
    main.position_at(join)
    main.ret()
    assert_rejected(built.module, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, join.terminator)
    # Assigning it on the other branch too is enough.
    main.position_at(right)
    right.terminator = None
    built.store_color(main)
    main.branch(join)
    assert_accepted(built.module)


def test_every_reachable_return_is_checked():
    built = fragment_module()
    main = built.entry()
    flag = main.copy(main.b(True))
    early, late = main.new_block(), main.new_block()
    main.branch_if(flag, early, late)
    main.position_at(early)
    main.ret()
    main.position_at(late)
    built.store_color(main)
    main.ret()
    assert_rejected(built.module, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, early.terminator)


def _arrays_of_records_vertex(count: int = 2):
    module, vertex, position = vertex_module()
    cell, cells = _cells_type(count)
    varyings = vertex.output("cells", cells, location=0)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(position, main.construct(vec(4), main.f(1.0)))
    return module, main, varyings, cell, cells


def test_member_and_constant_index_stores_establish_their_subranges():
    module, main, cells_ref, _, _ = _arrays_of_records_vertex()
    color = main.construct(vec(4), main.f(0.5))
    for index in range(2):
        main.store(member(element(cells_ref, index), "color"), color)
        main.store(member(element(cells_ref, index), "weight"), main.f(1.0))
    main.ret()
    assert_accepted(module)


def test_a_missing_leaf_of_an_array_of_records_is_named():
    module, main, cells_ref, _, _ = _arrays_of_records_vertex()
    color = main.construct(vec(4), main.f(0.5))
    main.store(member(element(cells_ref, 0), "color"), color)
    main.store(member(element(cells_ref, 0), "weight"), main.f(1.0))
    main.store(member(element(cells_ref, 1), "color"), color)
    main.ret()
    assert_rejected(module, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, main.entry.terminator)


def test_whole_element_store_establishes_all_its_fields():
    module, main, cells_ref, cell, _ = _arrays_of_records_vertex()
    color = main.construct(vec(4), main.f(0.5))
    value = main.construct(cell, color, main.f(2.0), main.construct(cell.fields[2].type))
    main.store(element(cells_ref, 0), value)
    main.store(element(cells_ref, 1), value)
    main.ret()
    assert_accepted(module)


def test_dynamic_index_stores_establish_nothing_even_for_one_element_arrays():
    module, vertex, position = vertex_module()
    one = vertex.output("one", ArrayType(FLOAT, 1), location=0)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(position, main.construct(vec(4), main.f(1.0)))
    index = main.copy(main.i(0))
    main.store(element(one, index), main.f(1.0))
    main.ret()
    assert_rejected(module, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, main.entry.terminator)
    # A constant index 0 establishes the only element.
    executable(main.entry)[-1].target = element(one, 0)
    assert_accepted(module)


def test_dynamic_index_reads_need_every_potentially_selected_leaf():
    module, main, cells_ref, _, _ = _arrays_of_records_vertex(count=3)
    index = main.copy(main.i(1))
    color = main.construct(vec(4), main.f(0.5))
    for position in range(3):
        main.store(member(element(cells_ref, position), "color"), color)
    # Every element's color is assigned, so a dynamic color read is fine ...
    main.load(member(element(cells_ref, index), "color"))
    # ... but no weight is, so a dynamic weight read is not.
    main.load(member(element(cells_ref, index), "weight"))
    for position in range(3):
        main.store(member(element(cells_ref, position), "weight"), main.f(0.0))
    main.ret()
    weight_load = [i for i in executable(main.entry) if isinstance(i, LoadInstruction)][1]
    assert_rejected(module, DataFlowRule.UNASSIGNED_OUTPUT_READ, weight_load.source)


def test_dynamic_index_read_with_one_unassigned_element_is_rejected():
    module, main, cells_ref, _, _ = _arrays_of_records_vertex(count=3)
    index = main.copy(main.i(0))
    color = main.construct(vec(4), main.f(0.5))
    for position in (0, 2):
        main.store(member(element(cells_ref, position), "color"), color)
    load = LoadInstruction(main.register(vec(4)), member(element(cells_ref, index), "color"))
    main.emit(load)
    main.ret()
    assert_rejected(module, DataFlowRule.UNASSIGNED_OUTPUT_READ, load.source)


def test_output_reads_need_prior_assignment_on_every_path():
    built = fragment_module()
    main = built.entry()
    main.load(built.color)
    built.store_color(main)
    main.ret()
    load = executable(main.entry)[0]
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_OUTPUT_READ, load.source)
    # After a whole store the same read is fine.
    main.entry.instructions.remove(load)
    main.entry.terminator = None
    main.position_at(main.entry)
    main.emit(load)
    main.ret()
    assert_accepted(built.module)


def test_inputs_are_always_available():
    module, vertex, position = vertex_module()
    attribute = vertex.input("attribute", vec(4), location=0)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(position, main.load(attribute))
    main.ret()
    assert_accepted(module)


def test_empty_record_outputs_need_no_store():
    module, vertex, position = vertex_module()
    vertex.output("nothing", record("Empty", []), location=0)
    main = vertex.function("vertex_main", VOID, entry=True)
    main.store(position, main.construct(vec(4), main.f(1.0)))
    main.ret()
    assert_accepted(module)


# Discard -------------------------------------------------------------------------------------


def test_discard_paths_need_no_output_store():
    built = fragment_module()
    main = built.entry()
    flag = main.copy(main.b(True))
    keep, drop = main.new_block(), main.new_block()
    main.branch_if(flag, keep, drop)
    main.position_at(keep)
    built.store_color(main)
    main.ret()
    main.position_at(drop)
    main.discard()
    assert_accepted(built.module)


def test_an_entry_that_always_discards_is_accepted():
    built = fragment_module()
    main = built.entry()
    main.discard()
    assert_accepted(built.module)


def test_reads_before_a_discard_are_still_checked():
    built = fragment_module()
    main = built.entry()
    value = main.register(INT)
    main.copy(value)
    main.load(built.color)
    main.discard()
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_REGISTER, executable(main.entry)[0].source)
    main.entry.instructions.remove(executable(main.entry)[0])
    load = executable(main.entry)[0]
    assert isinstance(load, LoadInstruction)
    assert_rejected(built.module, DataFlowRule.UNASSIGNED_OUTPUT_READ, load.source)


def test_store_paths_do_not_need_siblings_assigned():
    module, main, cells_ref, _, _ = _arrays_of_records_vertex()
    main.store(member(element(cells_ref, 1), "weight"), main.f(1.0))
    main.load(member(element(cells_ref, 1), "weight"))
    main.store(element(cells_ref, 0), main.load(element(cells_ref, 1)))
    main.store(member(element(cells_ref, 1), "color"), main.construct(vec(4), main.f(0.0)))
    main.ret()
    load_cell = [i for i in executable(main.entry) if isinstance(i, LoadInstruction)][1]
    # The second load reads all of cells[1], whose color is not assigned yet.
    assert_rejected(module, DataFlowRule.UNASSIGNED_OUTPUT_READ, load_cell.source)
    assert isinstance(executable(main.entry)[-1], StoreInstruction)


def test_huge_output_arrays_verify_in_work_bounded_by_the_code():
    from vpl_core.ir import add_uniform

    def verify_both_ways(count: int) -> None:
        module, vertex, position = vertex_module()
        cell, _ = _cells_type(1)
        huge = ArrayType(cell, count)
        big = vertex.output("big", huge, location=0)
        source = add_uniform(module, "source", huge)
        main = vertex.function("vertex_main", VOID, entry=True)
        main.store(position, main.construct(vec(4), main.f(1.0)))
        main.store(member(element(big, 0), "weight"), main.f(1.0))
        main.ret()
        assert_rejected(module, DataFlowRule.OUTPUT_UNASSIGNED_AT_RETURN, main.entry.terminator)
        main.entry.terminator = None
        main.position_at(main.entry)
        main.store(big, main.load(source))
        main.load(member(element(big, main.copy(main.i(3))), "weight"))
        main.ret()
        assert_accepted(module)

    # 2**40 elements cost the verifier about what 8 do (caches filled by earlier tests move it a little).
    assert python_calls(lambda: verify_both_ways(2**40)) < 2 * python_calls(lambda: verify_both_ways(8))


def test_selection_of_a_path_the_layout_did_not_collect_is_conservative():
    from vpl_core.ir import RegisterValue

    _, cells = _cells_type(3)
    stage = _stage((Direction.OUT, "cells", cells))
    root = _reference(stage, 0)
    layout = OutputLayout(stage, [member(element(root, 1), "color")])
    unseen = layout.select(member(element(root, RegisterValue(0, INT)), "weight"))
    # It may read the classes holding every weight, and establishes nothing.
    assert unseen.written == 0
    assert layout.select(member(element(root, 1), "color")).read & unseen.read == 0
    constant_unseen = layout.select(member(element(root, 2), "weight"))
    assert constant_unseen.written == 0 and constant_unseen.read


def test_too_many_leaf_classes_is_an_implementation_bound_not_a_crash():
    from vpl_core.ir import RegisterValue
    from vpl_core.verify import VerificationError

    cube = ArrayType(ArrayType(ArrayType(FLOAT, 16), 16), 16)
    stage = _stage((Direction.OUT, "cube", cube))
    root = _reference(stage, 0)
    anywhere = RegisterValue(0, INT)
    paths = []
    for k in range(16):
        paths.append(element(element(element(root, k), anywhere), anywhere))
        paths.append(element(element(element(root, anywhere), k), anywhere))
        paths.append(element(element(element(root, anywhere), anywhere), k))
    # 48 paths distinguish all 16^3 leaves: exact, within the default bound.
    assert OutputLayout(stage, paths).leaf_total == 16**3
    with pytest.raises(VerificationError) as caught:
        OutputLayout(stage, paths, max_nodes=1000)
    assert caught.value.kind is DataFlowRule.OUTPUT_LEAF_LIMIT
    assert "at most 1000" in caught.value.message  # the bound is named, so the user knows it is not their error
    assert caught.value.subject is stage.interface[0]
