"""Lane values: how the interpreter holds one VPL value for many invocations at once.

A *lane* is one invocation (a vertex or a fragment); every value the
interpreter computes is held for all lanes of a batch together, as numpy
arrays whose first axis is the lane. The layout per VPL type:

| VPL type | data (N lanes) |
|---|---|
| bool / int / float scalar | shape (N,), dtype bool / int32 / float32 |
| vector of k | (N, k) |
| matrix with R rows and C columns | (N, C, R): column-major, `m[:, c]` is column c |
| sampler2D | (N,) int32: an index into the batch's texture table (-1: none) |
| array of n elements E | E's layout with an axis of length n inserted after the lane axis, in every leaf |
| record | a tuple with one entry per field, in declaration order |

So arrays are stored "structure of arrays": an array of records is a tuple
of per-field arrays, each with the element axis. Dynamic indexing is then
one gather per leaf, whatever the element type, and nested arrays add one
axis per level. These trees of arrays are *immutable by convention*: every
operation builds new arrays and never writes into an array another value
may share, so copying a value (spec 3.2: copies are by value) is sharing it.

`Value` pairs the data tree with an optional *error tree* of the same shape
(float64): the radius the precision tracking of `vpl_core.interp.precision`
attaches to every leaf component (for ints and bools 0 = certain, inf =
uncertain). Without tracking it is None and costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from vpl_core.ir.types import (
    ArrayType,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)

Tree = np.ndarray | tuple["Tree", ...]

_DTYPES = {ScalarKind.BOOL: np.dtype(np.bool_), ScalarKind.INT: np.dtype(np.int32), ScalarKind.FLOAT: np.dtype(np.float32)}


class InterpreterError(Exception):
    """A module the interpreter cannot run as asked: an unsupported size, a missing input, a limit."""


@dataclass(slots=True)
class Value:
    """A VPL value for every lane of a batch: the data tree and, when tracking precision, its error tree."""

    data: Tree
    error: Tree | None = None


def leaf_dtype(value_type: Type) -> np.dtype:
    if isinstance(value_type, (ScalarType, VectorType)):
        return _DTYPES[value_type.kind]
    if isinstance(value_type, MatrixType):
        return _DTYPES[ScalarKind.FLOAT]
    if isinstance(value_type, SamplerType):
        return _DTYPES[ScalarKind.INT]
    raise TypeError(f"{value_type} is not a leaf type")


def leaf_shape(value_type: Type) -> tuple[int, ...]:
    """The per-lane shape of a scalar, vector, matrix or sampler leaf."""
    if isinstance(value_type, VectorType):
        return (value_type.size,)
    if isinstance(value_type, MatrixType):
        return (value_type.columns, value_type.rows)
    return ()


def is_leaf_type(value_type: Type) -> bool:
    return isinstance(value_type, (ScalarType, VectorType, MatrixType, SamplerType))


#: Scalar components a batch may hold in one value (lanes x components): beyond it the interpreter refuses.
MAX_ELEMENTS = 1 << 26


def element_count(value_type: Type) -> int:
    """Scalar components in one value of the type (arrays and records summed); for size limits."""
    if isinstance(value_type, ArrayType):
        return value_type.count * element_count(value_type.element)
    if isinstance(value_type, RecordType):
        return sum(element_count(field.type) for field in value_type.fields)
    return int(np.prod(leaf_shape(value_type), dtype=np.int64)) if is_leaf_type(value_type) else 0


def zeros(value_type: Type, prefix: tuple[int, ...]) -> Tree:
    """The all-zero value (false, 0, 0.0, sampler -1) with leading axes `prefix` (lanes, enclosing arrays)."""
    if isinstance(value_type, ArrayType):
        return zeros(value_type.element, prefix + (value_type.count,))
    if isinstance(value_type, RecordType):
        return tuple(zeros(field.type, prefix) for field in value_type.fields)
    if isinstance(value_type, SamplerType):
        return np.full(prefix, -1, dtype=np.int32)
    return np.zeros(prefix + leaf_shape(value_type), dtype=leaf_dtype(value_type))


def zero_errors(value_type: Type, prefix: tuple[int, ...]) -> Tree:
    """An error tree of exact zeros for a value of the type."""
    if isinstance(value_type, ArrayType):
        return zero_errors(value_type.element, prefix + (value_type.count,))
    if isinstance(value_type, RecordType):
        return tuple(zero_errors(field.type, prefix) for field in value_type.fields)
    return np.zeros(prefix + leaf_shape(value_type), dtype=np.float64)


def map_tree(function: Callable[[np.ndarray], np.ndarray], tree: Tree) -> Tree:
    if isinstance(tree, tuple):
        return tuple(map_tree(function, item) for item in tree)
    return function(tree)


def map_trees(function: Callable[..., np.ndarray], *trees: Tree) -> Tree:
    first = trees[0]
    if isinstance(first, tuple):
        return tuple(map_trees(function, *items) for items in zip(*trees))
    return function(*trees)


def leaves(tree: Tree) -> list[np.ndarray]:
    if isinstance(tree, tuple):
        result: list[np.ndarray] = []
        for item in tree:
            result.extend(leaves(item))
        return result
    return [tree]


def rebuild(template: Tree, items: Iterator[np.ndarray]) -> Tree:
    """A tree shaped like `template` whose leaves are taken in order from `items` (the inverse of `leaves`)."""
    if isinstance(template, tuple):
        return tuple(rebuild(item, items) for item in template)
    return next(items)


def lane_mask(mask: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """`mask` (N,) reshaped to broadcast against a leaf (N, ...)."""
    return mask.reshape(mask.shape + (1,) * (leaf.ndim - 1))


def where(mask: np.ndarray | None, new: Tree, old: Tree) -> Tree:
    """`new` in the lanes of `mask`, `old` elsewhere (None: every lane)."""
    if mask is None:
        return new

    def select(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(lane_mask(mask, a), a, b)

    return map_trees(select, new, old)


def where_value(mask: np.ndarray | None, new: Value, old: Value) -> Value:
    if mask is None:
        return new
    data = where(mask, new.data, old.data)
    if new.error is None or old.error is None:
        return Value(data, None if new.error is None and old.error is None else where(mask, _errors_of(new), _errors_of(old)))
    return Value(data, where(mask, new.error, old.error))


def _errors_of(value: Value) -> Tree:
    if value.error is not None:
        return value.error
    return map_tree(lambda leaf: np.zeros(leaf.shape, dtype=np.float64), value.data)


def broadcast_lanes(tree: Tree, lanes: int) -> Tree:
    """A per-invocation-constant tree (leaves without the lane axis) as read-only views for `lanes` lanes."""
    return map_tree(lambda leaf: np.broadcast_to(leaf, (lanes,) + leaf.shape), tree)


# Element and field selection ---------------------------------------------------------------------


def clip_index(index: np.ndarray | int, count: int) -> np.ndarray | int:
    if isinstance(index, (int, np.integer)):
        return int(min(max(int(index), 0), count - 1))
    return np.clip(index, 0, count - 1)


def take_element(tree: Tree, index: np.ndarray | int) -> Tree:
    """Element `index` of an array value (its leaves have the element axis at 1).

    `index` is an int (every lane) or an (N,) int array already clipped to
    the array's range; out-of-range handling is the caller's (see
    `Machine._checked_index`).
    """
    if isinstance(index, (int, np.integer)):
        return map_tree(lambda leaf: leaf[:, int(index)], tree)
    lanes = np.arange(index.shape[0])
    return map_tree(lambda leaf: leaf[lanes, index], tree)


def put_element(tree: Tree, index: np.ndarray | int, element: Tree, mask: np.ndarray | None) -> Tree:
    """A copy of array value `tree` whose element `index` is `element` in the lanes of `mask`."""

    def put(leaf: np.ndarray, new: np.ndarray) -> np.ndarray:
        result = np.array(leaf, copy=True)
        lanes = np.arange(leaf.shape[0]) if mask is None else np.flatnonzero(mask)
        position = index if isinstance(index, (int, np.integer)) else index[lanes]
        result[lanes, position] = new[lanes] if new.shape[0] == leaf.shape[0] else new
        return result

    return map_trees(put, tree, element)


def select_field(tree: Tree, record: RecordType, name: str) -> Tree:
    assert isinstance(tree, tuple)
    return tree[record.field_index(name)]


def replace_field(tree: Tree, record: RecordType, name: str, field_value: Tree) -> Tree:
    assert isinstance(tree, tuple)
    position = record.field_index(name)
    return tree[:position] + (field_value,) + tree[position + 1 :]


# Python values <-> lane values ---------------------------------------------------------------------


def from_python(value_type: Type, value: object, *, sampler_ids: Callable[[object], int] | None = None) -> Tree:
    """A per-invocation-constant tree (no lane axis) from a Python description of a value.

    Scalars: bool, int or float. Vectors: a sequence (or numpy array) of
    exactly the vector's size. Matrices: a (rows, columns) array in
    mathematical order (`m[row, column]`). Arrays: a sequence of exactly
    `count` elements. Records: a mapping from field name to value; fields
    left out are zero. Samplers: whatever `sampler_ids` maps to a texture
    index. None is the zero value. A value of the wrong shape is a
    ValueError that says what was expected.
    """
    if value is None:
        return zeros(value_type, ())
    if isinstance(value_type, ScalarType):
        array = np.asarray(value)
        if array.shape != () or array.dtype.kind not in "biuf":
            raise ValueError(f"expected a {value_type} scalar, got {value!r}")
        return _scalar_array(value_type.kind, array)
    if isinstance(value_type, VectorType):
        array = np.asarray(value)
        if array.shape != (value_type.size,) or array.dtype.kind not in "biuf":
            raise ValueError(f"expected {value_type.size} components for a {value_type}, got {value!r}")
        return _scalar_array(value_type.kind, array)
    if isinstance(value_type, MatrixType):
        array = np.asarray(value, dtype=np.float64)
        if array.shape != (value_type.rows, value_type.columns):
            raise ValueError(f"expected a ({value_type.rows}, {value_type.columns}) array for a {value_type}, got shape {array.shape}")
        return np.ascontiguousarray(array.T, dtype=np.float32)
    if isinstance(value_type, SamplerType):
        if sampler_ids is None:
            raise ValueError("sampler values need a texture table")
        return np.asarray(sampler_ids(value), dtype=np.int32)
    if isinstance(value_type, ArrayType):
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
            raise ValueError(f"expected a sequence of {value_type.count} elements for an {value_type}, got {value!r}")
        items = list(value)
        if len(items) != value_type.count:
            raise ValueError(f"expected {value_type.count} elements for an {value_type}, got {len(items)}")
        elements = [from_python(value_type.element, item, sampler_ids=sampler_ids) for item in items]
        return map_trees(lambda *parts: np.stack(parts, axis=0), *elements)
    if isinstance(value_type, RecordType):
        if not isinstance(value, Mapping):
            raise ValueError(f"expected a mapping from field names for {value_type}, got {value!r}")
        unknown = sorted(set(value) - {field.name for field in value_type.fields})
        if unknown:
            raise ValueError(f"{value_type} has no field {unknown[0]!r}")
        return tuple(from_python(field.type, value.get(field.name), sampler_ids=sampler_ids) for field in value_type.fields)
    raise ValueError(f"no values of type {value_type}")


def _scalar_array(kind: ScalarKind, array: np.ndarray) -> np.ndarray:
    if kind is ScalarKind.FLOAT:
        with np.errstate(over="ignore"):
            return array.astype(np.float32)
    if kind is ScalarKind.INT:
        if array.dtype.kind == "f" and not np.all(array == np.trunc(array)):
            raise ValueError(f"expected integers, got {array.tolist()!r}")
        wide = array.astype(np.int64)
        return (((wide + 2**31) % 2**32) - 2**31).astype(np.int32)
    return array.astype(np.bool_)
