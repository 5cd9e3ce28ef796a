"""std140 packing of VPL values (GLSL 4.20 section 7.6.2.2); the layout is the backend's.

Record uniforms compile to std140 interface blocks (spec 12.1), so the
preview fills each block's buffer from Python values to exactly the layout
the driver uses. The layout rules (offsets, strides, sizes) are
`vpl_core.backends.glsl.std140`'s, the same code that reports block sizes in
the artifact's reflection; this module adds the leaves the driver reflects
and packing.

Value conventions (shared with the renderer): a scalar is a Python number, a
vector any sequence, a matrix a numpy array of shape (rows, columns) in
mathematical indexing (`m[row, column]`), an array a sequence of element
values, a record a mapping from field name to value (or a sequence in field
order). `None`, and anything missing, is the type's default: zero, matrices
identity. Samplers cannot live in a block (spec 12.4) and are rejected.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vpl_core.backends.glsl import std140 as layout
from vpl_core.backends.glsl.std140 import Std140Layout
from vpl_core.ir.types import (
    ArrayType,
    MatrixType,
    RecordType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)

VEC4_ALIGNMENT = 16

# The layout rules live in the backend, which also reports block sizes in the
# reflection: one implementation, so the preview packs exactly what the
# artifact promises. The recursive walks below share one memoising
# `Std140Layout` per top-level call, so each record's offsets are computed
# once however deeply records nest (exponential layout).
base_alignment = layout.alignment
size_of = layout.size
field_offsets = layout.field_offsets


def array_stride(element_type: Type) -> int:
    """Bytes from one array element to the next."""
    return layout.array_stride(ArrayType(element_type, 1))


def _field_offsets(record: RecordType, memo: Std140Layout) -> Iterator[tuple[int, Type]]:
    return zip(memo.field_offsets(record), (record_field.type for record_field in record.fields))


@dataclass(frozen=True)
class Leaf:
    """One basic (scalar/vector/matrix) member as the driver reflects it.

    `path` uses the backend's generated GLSL member names (spec 12.1:
    fields are vpl_m0, vpl_m1, ...); an array of basic types is one leaf
    with its stride, as `glGetActiveUniformsiv` reports it.
    """

    path: str
    type: Type
    offset: int
    array_stride: int = 0
    matrix_stride: int = 0


def leaves(value_type: Type, prefix: str, offset: int = 0, memo: Std140Layout | None = None) -> Iterator[Leaf]:
    """Every basic member under `prefix` (e.g. "vpl_Block0"), with its offset."""
    memo = memo or Std140Layout()
    if isinstance(value_type, RecordType):
        for index, (field_offset, field_type) in enumerate(_field_offsets(value_type, memo)):
            yield from leaves(field_type, f"{prefix}.vpl_m{index}", offset + field_offset, memo)
    elif isinstance(value_type, ArrayType):
        element = value_type.element
        stride = memo.array_stride(value_type)
        if isinstance(element, (RecordType, ArrayType)):
            for index in range(value_type.count):
                yield from leaves(element, f"{prefix}[{index}]", offset + index * stride, memo)
        else:
            yield Leaf(f"{prefix}[0]", element, offset, stride, _matrix_stride(element))
    else:
        yield Leaf(prefix, value_type, offset, 0, _matrix_stride(value_type))


def _matrix_stride(value_type: Type) -> int:
    return VEC4_ALIGNMENT if isinstance(value_type, MatrixType) else 0


def default_value(value_type: Type) -> Any:
    """Zero of the type; identity for matrices (so unknown transforms do no harm)."""
    if isinstance(value_type, MatrixType):
        return np.eye(value_type.rows, value_type.columns, dtype=np.float32)
    if isinstance(value_type, ScalarType):
        return 0
    if isinstance(value_type, VectorType):
        return (0,) * value_type.size
    if isinstance(value_type, ArrayType):
        return [default_value(value_type.element)] * value_type.count
    if isinstance(value_type, RecordType):
        return {f.name: default_value(f.type) for f in value_type.fields}
    raise TypeError(f"{value_type} has no default value")



def _scalar_bytes(kind: ScalarKind, value: Any) -> bytes:
    if kind is ScalarKind.FLOAT:
        return struct.pack("<f", float(value))
    if kind is ScalarKind.INT:
        # Wrap like the GPU's int32 instead of raising on out-of-range input.
        return struct.pack("<i", ((int(value) + 2**31) % 2**32) - 2**31)
    return struct.pack("<I", 1 if value else 0)


def pack_into(
    buffer: bytearray, value_type: Type, value: Any, offset: int = 0, memo: Std140Layout | None = None
) -> None:
    """Write `value` (None: the default) as `value_type` at `offset` of `buffer`."""
    memo = memo or Std140Layout()
    if value is None:
        value = default_value(value_type)
    if isinstance(value_type, ScalarType):
        buffer[offset : offset + 4] = _scalar_bytes(value_type.kind, _as_scalar(value))
    elif isinstance(value_type, VectorType):
        components = _as_components(value, value_type.size)
        for index, component in enumerate(components):
            at = offset + 4 * index
            buffer[at : at + 4] = _scalar_bytes(value_type.kind, component)
    elif isinstance(value_type, MatrixType):
        matrix = _as_matrix(value, value_type)
        for column in range(value_type.columns):
            at = offset + VEC4_ALIGNMENT * column
            buffer[at : at + 4 * value_type.rows] = matrix[:, column].astype("<f4").tobytes()
    elif isinstance(value_type, ArrayType):
        stride = memo.array_stride(value_type)
        elements = list(value) if value is not None else []
        for index in range(value_type.count):
            element = elements[index] if index < len(elements) else None
            pack_into(buffer, value_type.element, element, offset + index * stride, memo)
    elif isinstance(value_type, RecordType):
        for record_field, field_offset in zip(value_type.fields, memo.field_offsets(value_type)):
            pack_into(
                buffer, record_field.type, _field_value(value, value_type, record_field.name), offset + field_offset, memo
            )
    else:
        raise TypeError(f"{value_type} has no std140 layout")


def pack(value_type: Type, value: Any = None) -> bytes:
    """The std140 bytes of a whole value (a block's buffer for a record)."""
    memo = Std140Layout()
    buffer = bytearray(memo.size(value_type))
    pack_into(buffer, value_type, value, 0, memo)
    return bytes(buffer)


def _field_value(value: Any, record: RecordType, name: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(name)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        index = record.field_index(name)
        return value[index] if index < len(value) else None
    return None


def _as_scalar(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.reshape(-1)[0].item()
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return value[0]
    return value


def _as_components(value: Any, size: int) -> list[Any]:
    if isinstance(value, (int, float, bool, np.number)):
        return [value] * size  # a scalar splats, as a GLSL constructor does
    components = list(np.asarray(value).reshape(-1))
    return (components + [0] * size)[:size]


def _as_matrix(value: Any, matrix_type: MatrixType) -> np.ndarray:
    array = np.asarray(value, dtype=np.float32)
    if array.ndim == 1:
        # A flat value is GL's column-major order.
        array = array.reshape(matrix_type.columns, matrix_type.rows).T
    result = np.eye(matrix_type.rows, matrix_type.columns, dtype=np.float32)
    rows = min(array.shape[0], matrix_type.rows)
    columns = min(array.shape[1], matrix_type.columns)
    result[:rows, :columns] = array[:rows, :columns]
    return result
