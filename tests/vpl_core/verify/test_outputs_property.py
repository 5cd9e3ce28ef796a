"""Property: leaf classes answer every output question exactly as per-leaf bookkeeping does.

For random small output types and random access paths (fields, constant and
dynamic indices), a naive model enumerates the real leaves and applies spec
6.3 literally. The class layout must agree on what matters to the verifier:
whether a read is covered by a set of stores, and whether all leaves are.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.ir import FLOAT, INT, ArrayType, RecordType, RegisterValue, Stage, StageKind, element, member, record, vec
from vpl_core.ir.module import Direction, InterfaceVariable
from vpl_core.ir.types import Type
from vpl_core.ir.values import ReferenceValue, StorageKind
from vpl_core.verify.outputs import OutputLayout

_names = itertools.count()


def _types(depth: int) -> st.SearchStrategy[Type]:
    scalar = st.sampled_from([FLOAT, INT, vec(3)])
    if depth == 0:
        return scalar
    inner = _types(depth - 1)
    arrays = st.builds(ArrayType, inner, st.integers(1, 3))
    records = st.lists(inner, min_size=0, max_size=3).map(
        lambda fields: record(f"R{next(_names)}", [(f"f{n}", field) for n, field in enumerate(fields)])
    )
    return st.one_of(scalar, arrays, records)


def _leaves(value_type: Type, prefix: tuple = ()) -> list[tuple]:
    if isinstance(value_type, ArrayType):
        return [leaf for index in range(value_type.count) for leaf in _leaves(value_type.element, prefix + (index,))]
    if isinstance(value_type, RecordType):
        return [leaf for n, field in enumerate(value_type.fields) for leaf in _leaves(field.type, prefix + (n,))]
    return [prefix]


@st.composite
def _path(draw, root: ReferenceValue):
    """A valid reference below `root` and its naive selector (None for a dynamic index)."""
    reference = root
    selectors: list = []
    for _ in range(draw(st.integers(0, 4))):
        current = reference.type
        if isinstance(current, ArrayType):
            if draw(st.integers(0, 2)):
                index = draw(st.integers(0, current.count - 1))
                reference = element(reference, index)
                selectors.append(index)
            else:
                reference = element(reference, RegisterValue(0, INT))
                selectors.append(None)
        elif isinstance(current, RecordType) and current.fields:
            position = draw(st.integers(0, len(current.fields) - 1))
            reference = member(reference, current.fields[position].name)
            selectors.append(position)
        else:
            break
    return reference, tuple(selectors)


def _naive(leaves: list[tuple], selectors: tuple) -> tuple[frozenset, frozenset]:
    read = frozenset(
        leaf
        for leaf in leaves
        if all(wanted is None or leaf[level] == wanted for level, wanted in enumerate(selectors))
    )
    return read, (frozenset() if None in selectors else read)


@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_classes_agree_with_per_leaf_bookkeeping(data):
    output_type = data.draw(_types(3))
    stage = Stage(StageKind.VERTEX, [InterfaceVariable(Direction.OUT, "out", output_type)])
    root = ReferenceValue(StorageKind.STAGE, 0, output_type)
    paths = data.draw(st.lists(_path(root), min_size=1, max_size=6))
    layout = OutputLayout(stage, [reference for reference, _ in paths])
    leaves = _leaves(output_type)
    naive = [_naive(leaves, selectors) for _, selectors in paths]
    compressed = [layout.select(reference) for reference, _ in paths]
    assert layout.leaf_count(output_type) == len(leaves)
    assert (layout.leaf_total == 0) == (not leaves)
    for chosen in data.draw(st.lists(st.lists(st.integers(0, len(paths) - 1), max_size=4), min_size=1, max_size=4)):
        naive_written = frozenset().union(*(naive[n][1] for n in chosen))
        written = 0
        for n in chosen:
            written |= compressed[n].written
        assert (naive_written == frozenset(leaves)) == (layout.all_leaves & ~written == 0)
        for (naive_read, _), selection in zip(naive, compressed):
            assert (naive_read <= naive_written) == (selection.read & ~written == 0)
            assert (not naive_read) == (selection.read == 0)


def test_a_dynamic_read_is_not_covered_by_one_constant_element():
    output_type = ArrayType(FLOAT, 2)
    stage = Stage(StageKind.VERTEX, [InterfaceVariable(Direction.OUT, "out", output_type)])
    root = ReferenceValue(StorageKind.STAGE, 0, output_type)
    first, anywhere = element(root, 0), element(root, RegisterValue(0, INT))
    layout = OutputLayout(stage, [first, anywhere])
    assert layout.select(anywhere).read & ~layout.select(first).written
    assert layout.select(anywhere).written == 0
