"""std140 layout of record uniforms (GLSL 4.20 section 7.6.2.2; ESSL 3.00 section 2.12.6.4 of the API spec).

Record uniforms become std140 blocks (spec 12.1); the reflection reports each
block's data size so that a host can allocate its buffer without a driver
query, and `member_offsets` gives the byte offset of every leaf so that it
can pack values. The rules, for the types VPL has (bool, int and float are
four bytes each):

1. scalars: size 4, alignment 4;
2. 2-vectors: size 8, alignment 8; 3- and 4-vectors: alignment 16, size 12 / 16;
3. arrays: each element occupies its size rounded up to 16 (the stride),
   alignment max(element alignment, 16);
4. column-major matrices with C columns of R rows: an array of C vecR;
5. structures: alignment = largest member alignment rounded up to 16,
   members at offsets aligned to their own alignment, size rounded up to
   the structure's alignment.

A block lays its members out like a structure; its data size is the end of
its last member rounded up to 16, which is what GL_UNIFORM_BLOCK_DATA_SIZE
reports for std140 blocks on conforming drivers (checked by the native tests).
"""

from __future__ import annotations

from collections.abc import Iterator

from vpl_core.ir.types import ArrayType, MatrixType, RecordType, ScalarType, Type, VectorType


def _round_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def alignment(value_type: Type) -> int:
    """The std140 base alignment, in bytes."""
    if isinstance(value_type, ScalarType):
        return 4
    if isinstance(value_type, VectorType):
        return 8 if value_type.size == 2 else 16
    if isinstance(value_type, (ArrayType, MatrixType)):
        element = value_type.element if isinstance(value_type, ArrayType) else value_type.column_type
        return max(alignment(element), 16)
    if isinstance(value_type, RecordType):
        return _round_up(max((alignment(field.type) for field in value_type.fields), default=16), 16)
    raise TypeError(f"{value_type} has no std140 layout")


def size(value_type: Type) -> int:
    """The std140 size, in bytes (arrays and records include their trailing padding)."""
    if isinstance(value_type, ScalarType):
        return 4
    if isinstance(value_type, VectorType):
        return 4 * value_type.size
    if isinstance(value_type, ArrayType):
        return array_stride(value_type) * value_type.count
    if isinstance(value_type, MatrixType):
        return 16 * value_type.columns
    if isinstance(value_type, RecordType):
        return _round_up(_members_end(value_type), alignment(value_type))
    raise TypeError(f"{value_type} has no std140 layout")


def array_stride(array: ArrayType) -> int:
    return _round_up(size(array.element), 16)


def field_offsets(record: RecordType) -> list[int]:
    """Byte offsets of the record's fields, in declaration order."""
    offsets: list[int] = []
    offset = 0
    for field in record.fields:
        offset = _round_up(offset, alignment(field.type))
        offsets.append(offset)
        offset += size(field.type)
    return offsets


def _members_end(record: RecordType) -> int:
    if not record.fields:
        return 0
    return field_offsets(record)[-1] + size(record.fields[-1].type)


def block_size(record: RecordType) -> int:
    """GL_UNIFORM_BLOCK_DATA_SIZE of `layout(std140) uniform B { <record's fields> }`."""
    return _round_up(_members_end(record), 16)


def member_offsets(record: RecordType, base: int = 0, prefix: str = "") -> Iterator[tuple[str, int, Type]]:
    """(GLSL selector, byte offset, leaf type) of every scalar, vector and matrix leaf.

    Selectors use the generated member names: `vpl_m0`, `vpl_m2[1].vpl_m0`.
    """
    for position, (field, offset) in enumerate(zip(record.fields, field_offsets(record))):
        yield from _leaf_offsets(field.type, base + offset, f"{prefix}vpl_m{position}")


def _leaf_offsets(value_type: Type, offset: int, selector: str) -> Iterator[tuple[str, int, Type]]:
    if isinstance(value_type, ArrayType):
        stride = array_stride(value_type)
        for index in range(value_type.count):
            yield from _leaf_offsets(value_type.element, offset + index * stride, f"{selector}[{index}]")
    elif isinstance(value_type, RecordType):
        yield from member_offsets(value_type, offset, f"{selector}.")
    else:
        yield selector, offset, value_type
