"""Observable leaves of a stage's outputs (spec 6.3), numbered for bit sets.

Output definedness is tracked per leaf: each OUT interface variable is split
recursively, records by fields and fixed arrays by elements; a scalar,
vector, matrix or sampler is one leaf and an empty record has none. Leaves
are numbered densely over the stage's outputs in interface order, so leaf
`i` is bit `i` of a Python int, and the set of leaves of any whole output is
one contiguous range.

Nothing here enumerates leaves one by one: leaf counts and field offsets are
computed per type, and the leaves a storage path may select are built with
shifts and a repunit multiplication, so a 10,000-element output array costs
a few big-int operations, not 10,000 objects.

Invariant relied on: the structural layer has accepted the module, so types
are acyclic, member selectors name existing fields, constant indices are in
bounds and paths are typed consistently with the declared interface type.
The layout is built per verifier run and never stored on the module.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from vpl_core.ir.module import Direction, InterfaceVariable, Stage
from vpl_core.ir.types import ArrayType, RecordType, Type
from vpl_core.ir.values import (
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    ReferenceValue,
    StorageKind,
)


@dataclass(frozen=True)
class OutputSelection:
    """The leaves a reference rooted at a stage output touches.

    `read` is every leaf a load through the path may observe (for a dynamic
    index, every element at that level); `written` is the leaves a store
    through it definitely establishes: the same range for whole, member and
    constant-index paths, nothing once any index on the path is dynamic.
    """

    variable: InterfaceVariable
    read: int
    written: int


def repeat_bits(pattern: int, stride: int, count: int) -> int:
    """`pattern` OR-ed at offsets 0, stride, 2*stride ... (count copies).

    Built by doubling, so the cost is logarithmic in `count` big-int shifts.
    The copies must not overlap (pattern narrower than stride), which holds
    for elements of one array.
    """
    if count <= 0 or pattern == 0:
        return 0
    result = pattern
    copies = 1
    while copies * 2 <= count:
        result |= result << (copies * stride)
        copies *= 2
    if copies < count:
        result |= repeat_bits(pattern, stride, count - copies) << (copies * stride)
    return result


class OutputLayout:
    """Leaf numbering of one stage's outputs for one verifier run."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        # Keyed by id() to avoid hashing deeply nested structural types
        # recursively; each entry holds its type so that the id cannot be
        # reused by another object while the layout lives.
        self._leaf_counts: dict[int, tuple[Type, int]] = {}
        self._field_offsets: dict[int, tuple[RecordType, list[int]]] = {}
        self._ranges: dict[int, tuple[int, int]] = {}
        self._range_starts: list[int] = []
        self._range_slots: list[int] = []
        offset = 0
        for slot, variable in enumerate(stage.interface):
            if variable.direction is not Direction.OUT:
                continue
            count = self.leaf_count(variable.type)
            self._ranges[slot] = (offset, count)
            if count:
                self._range_starts.append(offset)
                self._range_slots.append(slot)
            offset += count
        self.leaf_total = offset
        self.all_leaves = (1 << offset) - 1

    # Types ------------------------------------------------------------------------------

    def leaf_count(self, value_type: Type) -> int:
        """Observable leaves of a value of `value_type` (iterative: types may nest deeply)."""
        cached = self._leaf_counts.get(id(value_type))
        if cached is not None:
            return cached[1]
        in_progress: set[int] = set()
        stack: list[Type] = [value_type]
        while stack:
            current = stack[-1]
            key = id(current)
            if key in self._leaf_counts:
                stack.pop()
                continue
            children = _children(current)
            pending = [child for child in children if id(child) not in self._leaf_counts]
            if pending:
                if key in in_progress:
                    raise ValueError(f"type {current} contains itself")
                in_progress.add(key)
                stack.extend(pending)
                continue
            stack.pop()
            in_progress.discard(key)
            if isinstance(current, ArrayType):
                count = current.count * self._leaf_counts[id(current.element)][1]
            elif isinstance(current, RecordType):
                count = sum(self._leaf_counts[id(field.type)][1] for field in current.fields)
            else:
                count = 1
            self._leaf_counts[key] = (current, count)
        return self._leaf_counts[id(value_type)][1]

    def field_offsets(self, record: RecordType) -> list[int]:
        """Leaf offset of each field inside one record value, plus the total at the end."""
        cached = self._field_offsets.get(id(record))
        if cached is not None:
            return cached[1]
        offsets = [0]
        for field in record.fields:
            offsets.append(offsets[-1] + self.leaf_count(field.type))
        self._field_offsets[id(record)] = (record, offsets)
        return offsets

    # Outputs ----------------------------------------------------------------------------

    def output_range(self, slot: int) -> tuple[int, int] | None:
        """(first leaf, leaf count) of the output in interface slot `slot`; None for inputs."""
        return self._ranges.get(slot)

    def output_mask(self, slot: int) -> int:
        offset, count = self._ranges[slot]
        return ((1 << count) - 1) << offset

    def select(self, reference: ReferenceValue) -> OutputSelection | None:
        """The leaves `reference` selects, or None when it is not rooted at an output."""
        path: list[ReferenceValue] = []
        root = reference
        while isinstance(root, (MemberReferenceValue, IndexReferenceValue)):
            path.append(root)
            root = root.base
        if root.storage_kind is not StorageKind.STAGE:
            return None
        leaf_range = self._ranges.get(root.slot)
        if leaf_range is None:
            return None
        variable = self.stage.interface[root.slot]
        # `starts` has one bit at the first leaf of every value the path may
        # select, relative to the output's first leaf.
        starts = 1
        dynamic = False
        current = variable.type
        for step in reversed(path):
            if isinstance(step, MemberReferenceValue):
                assert isinstance(current, RecordType)
                position = current.field_index(step.field_name)
                starts <<= self.field_offsets(current)[position]
                current = current.fields[position].type
            else:
                assert isinstance(current, ArrayType) and isinstance(step, IndexReferenceValue)
                stride = self.leaf_count(current.element)
                if isinstance(step.index, ConstantValue):
                    starts <<= int(step.index.value) * stride
                else:
                    dynamic = True
                    starts = repeat_bits(starts, stride, current.count) if stride else 0
                current = current.element
        width = self.leaf_count(current)
        # The selected values are disjoint, so multiplying the start bits by a
        # run of `width` ones places one run per value without carries.
        read = (starts * ((1 << width) - 1)) << leaf_range[0]
        return OutputSelection(variable, read, 0 if dynamic else read)

    # Diagnostics ------------------------------------------------------------------------

    def describe_leaf(self, leaf: int) -> str:
        """A readable path of leaf number `leaf`, e.g. `cells[3].color`."""
        position = bisect.bisect_right(self._range_starts, leaf) - 1
        slot = self._range_slots[position]
        variable = self.stage.interface[slot]
        remainder = leaf - self._range_starts[position]
        text = [variable.name]
        current = variable.type
        while True:
            if isinstance(current, ArrayType):
                stride = self.leaf_count(current.element)
                text.append(f"[{remainder // stride}]")
                remainder %= stride
                current = current.element
            elif isinstance(current, RecordType):
                offsets = self.field_offsets(current)
                # The last field starting at or before the leaf owns it; empty
                # fields before it share its offset and are passed over.
                position = bisect.bisect_right(offsets, remainder) - 1
                text.append(f".{current.fields[position].name}")
                remainder -= offsets[position]
                current = current.fields[position].type
            else:
                return "".join(text)

    def describe_first(self, leaves: int) -> str:
        """The readable path of the lowest leaf in a nonempty set."""
        return self.describe_leaf((leaves & -leaves).bit_length() - 1)

    def variable_of_leaf(self, leaf: int) -> InterfaceVariable:
        position = bisect.bisect_right(self._range_starts, leaf) - 1
        return self.stage.interface[self._range_slots[position]]


def _children(value_type: Type) -> list[Type]:
    if isinstance(value_type, ArrayType):
        return [value_type.element]
    if isinstance(value_type, RecordType):
        return [field.type for field in value_type.fields]
    return []
