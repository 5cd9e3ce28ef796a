"""Observable leaves of a stage's outputs (spec 6.3), grouped into classes for bit sets.

Output definedness is defined per leaf: each OUT interface variable is split
recursively, records by fields and fixed arrays by elements; a scalar,
vector, matrix or sampler is one leaf and an empty record has none. Stores
through whole, member and constant-index paths establish the leaves they
select, dynamic-index stores establish nothing, loads need every leaf they
may select, and an entry return needs all leaves.

Declared counts can be huge (the text format allows array lengths up to
2^64-1), so leaves are not numbered one by one. Every operation above acts
on the leaves below some node of the type tree that an access path in the
stage reaches, so two leaves that no access path in the stage tells apart
are always assigned together. The layout therefore collects every output
path of every load and store in the stage and numbers *leaf classes*:

- a subtree that no path enters below its root is one class (none if it has
  no leaves);
- a record that paths enter keeps one subtree per field;
- an array that paths enter keeps one subtree per constant index used on it
  and one "rest" subtree for all other elements (dynamic indices reach every
  subtree, constant and rest alike).

Class numbering follows leaf order, each node's classes are a contiguous
range, and a selection is the union of the ranges of the nodes a path
reaches. The number of classes is bounded by the size of the stage's code,
not by array counts, and the rules are exactly the per-leaf rules of 6.3.

Exact classes can still multiply: constant and dynamic indices crossing at
several nesting levels distinguish K^depth genuinely different leaf sets.
Building more than `MAX_CLASS_NODES` tree nodes for one stage is rejected
as an implementation resource bound (a VerificationError naming the output)
rather than exhausting memory; ordinary shaders stay far below it.

Invariants relied on: the structural layer has accepted the module (types
acyclic, member selectors name fields, constant indices in bounds, paths
typed consistently with the declared interface type). All work is
iterative (deep types must not exhaust Python's stack) and the layout lives
for one verifier run; nothing is stored on the module.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from vpl_core.ir.instructions import LoadInstruction, StoreInstruction
from vpl_core.ir.module import Direction, InterfaceVariable, Stage
from vpl_core.ir.types import ArrayType, RecordType, Type
from vpl_core.ir.values import (
    ConstantValue,
    IndexReferenceValue,
    MemberReferenceValue,
    ReferenceValue,
    StorageKind,
)
from vpl_core.records import Record
from vpl_core.verify.errors import DataFlowRule, VerificationError

# typing.TYPE_CHECKING without importing typing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# The implementation bound on leaf-class tree nodes per stage (see above).
MAX_CLASS_NODES = 1 << 18

# One step of an access path below an output: a field position, a constant
# element index, or DYNAMIC for an index register.
DYNAMIC = "dynamic"
Step = tuple[str, int | str]
Path = tuple[Step, ...]


class OutputSelection(Record):
    """The leaf classes a reference rooted at a stage output touches.

    `read` is every class a load through the path may observe (for a dynamic
    index, every element at that level); `written` is the classes a store
    through it definitely establishes: the same set for whole, member and
    constant-index paths, nothing once any index on the path is dynamic.
    """

    __slots__ = ("read", "variable", "written")

    def __init__(self, variable: InterfaceVariable, read: int, written: int) -> None:
        self.variable: Final = variable
        self.read: Final = read
        self.written: Final = written


_NO_NODES: list[_Node] = []  # never appended to: expanded nodes get their own lists
_NO_CONSTANTS: dict[int, _Node] = {}


class _Node:
    """A node of an output's compressed type tree.

    `children` are in leaf order. For records, `fields[i]` is field i's
    subtree; for arrays, `constants` maps each distinguished index to its
    subtree and `rest` (if any) stands for every other element, with
    `rest_index` the smallest of them. A node without children is one class
    when its type has leaves (`count` 1) and none otherwise.
    """

    __slots__ = ("children", "constants", "count", "fields", "offset", "rest", "rest_index", "type")

    def __init__(self, value_type: Type) -> None:
        self.type = value_type
        # Most nodes are classes without children: share empty containers
        # until _build expands the node.
        self.children: list[_Node] = _NO_NODES
        self.fields: list[_Node] = _NO_NODES
        self.constants: dict[int, _Node] = _NO_CONSTANTS
        self.rest: _Node | None = None
        self.rest_index = 0
        self.offset = 0
        self.count = 0

    @property
    def mask(self) -> int:
        return ((1 << self.count) - 1) << self.offset


def reference_path(reference: ReferenceValue) -> tuple[ReferenceValue, list[MemberReferenceValue | IndexReferenceValue]]:
    """The root of `reference` and its derived steps from the root outwards (iterative)."""
    steps: list[MemberReferenceValue | IndexReferenceValue] = []
    root = reference
    while isinstance(root, (MemberReferenceValue, IndexReferenceValue)):
        steps.append(root)
        root = root.base
    steps.reverse()
    return root, steps


class OutputLayout:
    """Leaf-class numbering of one stage's outputs for one verifier run."""

    def __init__(
        self, stage: Stage, extra_references: Iterable[ReferenceValue] = (), max_nodes: int = MAX_CLASS_NODES
    ) -> None:
        """Collect the output paths of every load and store in `stage` (plus `extra_references`).

        Raises VerificationError when the class trees need more than `max_nodes` nodes.
        """
        self.stage = stage
        self._max_nodes = max_nodes
        self._nodes_left = max_nodes
        # Keyed by id() to avoid hashing deeply nested structural types
        # recursively; each entry holds its type so that the id cannot be
        # reused by another object while the layout lives.
        self._leaf_counts: dict[int, tuple[Type, int]] = {}
        self._field_positions: dict[int, tuple[RecordType, dict[str, int]]] = {}
        paths: dict[int, set[Path]] = {
            slot: set() for slot, variable in enumerate(stage.interface) if variable.direction is Direction.OUT
        }
        for reference in self._stage_references(extra_references):
            root, steps = reference_path(reference)
            if root.storage_kind is StorageKind.STAGE and root.slot in paths and steps:
                paths[root.slot].add(self._path_of(root, steps))

        self._roots: dict[int, _Node] = {}
        self._range_starts: list[int] = []
        self._range_slots: list[int] = []
        offset = 0
        for slot in paths:
            root_node = self._build(stage.interface[slot], paths[slot])
            offset = self._number(root_node, offset)
            self._roots[slot] = root_node
            if root_node.count:
                self._range_starts.append(root_node.offset)
                self._range_slots.append(slot)
        self.leaf_total = offset
        self.all_leaves = (1 << offset) - 1

    # Types ------------------------------------------------------------------------------

    def leaf_count(self, value_type: Type) -> int:
        """Observable leaves of a value of `value_type`, as a number (iterative: types may nest deeply)."""
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
            pending = [child for child in _children(current) if id(child) not in self._leaf_counts]
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

    # Construction -----------------------------------------------------------------------

    def _stage_references(self, extra: Iterable[ReferenceValue]) -> Iterable[ReferenceValue]:
        # Every block, reachable or not: a superset of paths only splits
        # classes further, which never changes the per-leaf answers.
        for function in self.stage.functions:
            for block in function.blocks:
                for instruction in block.instructions:
                    if isinstance(instruction, LoadInstruction):
                        yield instruction.source
                    elif isinstance(instruction, StoreInstruction):
                        yield instruction.target
        yield from extra

    def field_position(self, record: RecordType, name: str) -> int:
        """The position of field `name` (cached: records can have many fields)."""
        cached = self._field_positions.get(id(record))
        if cached is None:
            positions: dict[str, int] = {}
            for position, field in enumerate(record.fields):
                positions.setdefault(field.name, position)
            cached = (record, positions)
            self._field_positions[id(record)] = cached
        return cached[1][name]

    def _path_of(self, root: ReferenceValue, steps: list[MemberReferenceValue | IndexReferenceValue]) -> Path:
        path: list[Step] = []
        current = root.type
        for step in steps:
            if isinstance(step, MemberReferenceValue):
                assert isinstance(current, RecordType)
                position = self.field_position(current, step.field_name)
                path.append(("field", position))
                current = current.fields[position].type
            else:
                assert isinstance(current, ArrayType)
                if isinstance(step.index, ConstantValue):
                    path.append(("index", int(step.index.value)))
                else:
                    path.append(("index", DYNAMIC))
                current = current.element
        return tuple(path)

    def _build(self, variable: InterfaceVariable, paths: set[Path]) -> _Node:
        """The compressed tree of one output, built top-down with an explicit stack."""
        root = _Node(variable.type)
        stack: list[tuple[_Node, set[Path]]] = [(root, paths)]
        while stack:
            node, node_paths = stack.pop()
            self._nodes_left -= 1
            if self._nodes_left < 0:
                raise VerificationError(
                    DataFlowRule.OUTPUT_LEAF_LIMIT,
                    f"the access paths of output '{variable.name}' distinguish too many leaf classes: this"
                    f" verifier tracks at most {self._max_nodes} per stage (an implementation resource bound)",
                    variable,
                    (self.stage,),
                )
            if not node_paths:
                node.count = 1 if self.leaf_count(node.type) else 0
                continue
            if isinstance(node.type, RecordType):
                node.children, node.fields = [], []
                by_field: dict[int, set[Path]] = {}
                for path in node_paths:
                    by_field.setdefault(int(path[0][1]), set()).update([path[1:]] if len(path) > 1 else [])
                for position, field in enumerate(node.type.fields):
                    child = _Node(field.type)
                    node.fields.append(child)
                    node.children.append(child)
                    stack.append((child, by_field.get(position, set())))
            elif isinstance(node.type, ArrayType):
                node.children, node.constants = [], {}
                dynamic: set[Path] = set()
                by_index: dict[int, set[Path]] = {}
                for path in node_paths:
                    selector = path[0][1]
                    tail = [path[1:]] if len(path) > 1 else []
                    if selector == DYNAMIC:
                        dynamic.update(tail)
                    elif 0 <= int(selector) < node.type.count:
                        by_index.setdefault(int(selector), set()).update(tail)
                indices = sorted(by_index)
                rest_index = _smallest_missing(indices)
                for index in indices:
                    if node.rest is None and rest_index < index and rest_index < node.type.count:
                        self._add_rest(node, rest_index, dynamic, stack)
                    child = _Node(node.type.element)
                    node.constants[index] = child
                    node.children.append(child)
                    # A dynamic index reaches constant elements too.
                    stack.append((child, by_index[index] | dynamic))
                if node.rest is None and rest_index < node.type.count:
                    self._add_rest(node, rest_index, dynamic, stack)
            else:
                node.count = 1
        return root

    @staticmethod
    def _add_rest(node: _Node, rest_index: int, dynamic: set[Path], stack: list[tuple[_Node, set[Path]]]) -> None:
        assert isinstance(node.type, ArrayType)
        rest = _Node(node.type.element)
        node.rest = rest
        node.rest_index = rest_index
        node.children.append(rest)
        stack.append((rest, set(dynamic)))

    @staticmethod
    def _number(root: _Node, offset: int) -> int:
        """Give classes consecutive numbers in leaf order; each node gets its range."""
        stack: list[tuple[_Node, bool]] = [(root, False)]
        while stack:
            node, finished = stack.pop()
            if finished:
                node.count = offset - node.offset
                continue
            node.offset = offset
            if not node.children:
                offset += node.count
                continue
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.children))
        return offset

    # Queries ----------------------------------------------------------------------------

    def output_range(self, slot: int) -> tuple[int, int] | None:
        """(first class, class count) of the output in interface slot `slot`; None for inputs."""
        node = self._roots.get(slot)
        return None if node is None else (node.offset, node.count)

    def select(self, reference: ReferenceValue) -> OutputSelection | None:
        """The classes `reference` selects, or None when it is not rooted at an output."""
        root, steps = reference_path(reference)
        if root.storage_kind is not StorageKind.STAGE or root.slot not in self._roots:
            return None
        variable = self.stage.interface[root.slot]
        nodes = [self._roots[root.slot]]
        exact = True
        for step in steps:
            reached: list[_Node] = []
            position: int | None = None
            for node in nodes:
                if not node.children:
                    # Only a reference this layout did not collect can go below
                    # a class; its whole class may be read, none is written.
                    exact = False
                    reached.append(node)
                elif isinstance(step, MemberReferenceValue):
                    if position is None:
                        # Expanded nodes reached at one level share one record type.
                        assert isinstance(node.type, RecordType)
                        position = self.field_position(node.type, step.field_name)
                    reached.append(node.fields[position])
                elif isinstance(step.index, ConstantValue):
                    child = node.constants.get(int(step.index.value))
                    if child is None:
                        exact = False
                        child = node.rest
                    assert child is not None
                    reached.append(child)
                else:
                    exact = False
                    reached.extend(node.children)
            nodes = reached
        read = 0
        for node in nodes:
            read |= node.mask
        return OutputSelection(variable, read, read if exact else 0)

    def variable_of_leaf(self, leaf: int) -> InterfaceVariable:
        position = bisect.bisect_right(self._range_starts, leaf) - 1
        return self.stage.interface[self._range_slots[position]]

    def describe_leaf(self, leaf: int) -> str:
        """A readable path of one leaf in class `leaf`, e.g. `cells[3].color`."""
        position = bisect.bisect_right(self._range_starts, leaf) - 1
        slot = self._range_slots[position]
        variable = self.stage.interface[slot]
        text = [variable.name]
        node = self._roots[slot]
        while node.children:
            starts = [child.offset for child in node.children if child.count]
            owners = [child for child in node.children if child.count]
            child = owners[bisect.bisect_right(starts, leaf) - 1]
            if isinstance(node.type, RecordType):
                text.append(f".{node.type.fields[node.fields.index(child)].name}")
            elif child is node.rest:
                text.append(f"[{node.rest_index}]")
            else:
                index = next(index for index, candidate in node.constants.items() if candidate is child)
                text.append(f"[{index}]")
            node = child
        text.append(self._first_leaf_suffix(node.type))
        return "".join(text)

    def describe_first(self, leaves: int) -> str:
        """The readable path of a leaf in the lowest class of a nonempty set."""
        return self.describe_leaf((leaves & -leaves).bit_length() - 1)

    def _first_leaf_suffix(self, value_type: Type) -> str:
        """The path from a value of `value_type` to its first leaf (one class stands for all)."""
        text: list[str] = []
        current = value_type
        while True:
            if isinstance(current, ArrayType):
                text.append("[0]")
                current = current.element
            elif isinstance(current, RecordType):
                field = next(field for field in current.fields if self.leaf_count(field.type))
                text.append(f".{field.name}")
                current = field.type
            else:
                return "".join(text)


def _children(value_type: Type) -> list[Type]:
    if isinstance(value_type, ArrayType):
        return [value_type.element]
    if isinstance(value_type, RecordType):
        return [field.type for field in value_type.fields]
    return []


def _smallest_missing(sorted_indices: list[int]) -> int:
    """The smallest nonnegative integer not in `sorted_indices` (sorted, distinct)."""
    expected = 0
    for index in sorted_indices:
        if index != expected:
            return expected
        expected += 1
    return expected
