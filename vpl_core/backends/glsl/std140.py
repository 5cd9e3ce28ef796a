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
reports for std140 blocks on conforming drivers (checked by the native
tests; a driver may report less, e.g. ANGLE omits the trailing padding, so
hosts must allocate `block_size` and may only assume driver <= block_size).

Every quantity is computed once per type: a `Std140Layout` memoises
alignments, sizes and field offsets, so a layout costs time linear in the
number of distinct types, however deeply records nest or however often a
record is reused (without it a record nested 20 levels deep took seconds,
50 levels never finished, because a record's size needs its last field's
size twice). The module-level functions use a fresh layout per call; code
that asks about many types of one module (the packer) keeps one layout.
Types are memoised by value for structural types and by identity for
records, and the layout holds them, so no key can be reused while it lives.
"""

from __future__ import annotations

from collections.abc import Iterator

from vpl_core.ir.types import ArrayType, MatrixType, RecordType, ScalarType, Type, VectorType


def _round_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


class Std140Layout:
    """Memoised std140 alignments, sizes and offsets (one instance per module or request)."""

    __slots__ = ("_alignments", "_offsets", "_sizes")

    def __init__(self) -> None:
        self._alignments: dict[Type, int] = {}
        self._sizes: dict[Type, int] = {}
        self._offsets: dict[RecordType, list[int]] = {}

    def alignment(self, value_type: Type) -> int:
        """The std140 base alignment, in bytes."""
        if isinstance(value_type, ScalarType):
            return 4
        if isinstance(value_type, VectorType):
            return 8 if value_type.size == 2 else 16
        known = self._alignments.get(value_type)
        if known is not None:
            return known
        if isinstance(value_type, (ArrayType, MatrixType)):
            element = value_type.element if isinstance(value_type, ArrayType) else value_type.column_type
            result = max(self.alignment(element), 16)
        elif isinstance(value_type, RecordType):
            result = _round_up(max((self.alignment(field.type) for field in value_type.fields), default=16), 16)
        else:
            raise TypeError(f"{value_type} has no std140 layout")
        self._alignments[value_type] = result
        return result

    def size(self, value_type: Type) -> int:
        """The std140 size, in bytes (arrays and records include their trailing padding)."""
        if isinstance(value_type, ScalarType):
            return 4
        if isinstance(value_type, VectorType):
            return 4 * value_type.size
        known = self._sizes.get(value_type)
        if known is not None:
            return known
        if isinstance(value_type, ArrayType):
            result = self.array_stride(value_type) * value_type.count
        elif isinstance(value_type, MatrixType):
            result = 16 * value_type.columns
        elif isinstance(value_type, RecordType):
            result = _round_up(self._members_end(value_type), self.alignment(value_type))
        else:
            raise TypeError(f"{value_type} has no std140 layout")
        self._sizes[value_type] = result
        return result

    def array_stride(self, array: ArrayType) -> int:
        return _round_up(self.size(array.element), 16)

    def field_offsets(self, record: RecordType) -> list[int]:
        """Byte offsets of the record's fields, in declaration order (a fresh list)."""
        known = self._offsets.get(record)
        if known is None:
            known = []
            offset = 0
            for field in record.fields:
                offset = _round_up(offset, self.alignment(field.type))
                known.append(offset)
                offset += self.size(field.type)
            self._offsets[record] = known
        return list(known)

    def _members_end(self, record: RecordType) -> int:
        if not record.fields:
            return 0
        return self.field_offsets(record)[-1] + self.size(record.fields[-1].type)

    def block_size(self, record: RecordType) -> int:
        """GL_UNIFORM_BLOCK_DATA_SIZE of `layout(std140) uniform B { <record's fields> }` (an upper bound)."""
        return _round_up(self._members_end(record), 16)

    def member_offsets(self, record: RecordType, base: int = 0, prefix: str = "") -> Iterator[tuple[str, int, Type]]:
        """(GLSL selector, byte offset, leaf type) of every scalar, vector and matrix leaf.

        Selectors use the generated member names: `vpl_m0`, `vpl_m2[1].vpl_m0`.
        One item per leaf of the value, so as many as the block has leaves.
        """
        for position, (field, offset) in enumerate(zip(record.fields, self.field_offsets(record))):
            yield from self._leaf_offsets(field.type, base + offset, f"{prefix}vpl_m{position}")

    def _leaf_offsets(self, value_type: Type, offset: int, selector: str) -> Iterator[tuple[str, int, Type]]:
        if isinstance(value_type, ArrayType):
            stride = self.array_stride(value_type)
            for index in range(value_type.count):
                yield from self._leaf_offsets(value_type.element, offset + index * stride, f"{selector}[{index}]")
        elif isinstance(value_type, RecordType):
            yield from self.member_offsets(value_type, offset, f"{selector}.")
        else:
            yield selector, offset, value_type


def alignment(value_type: Type) -> int:
    """The std140 base alignment, in bytes."""
    return Std140Layout().alignment(value_type)


def size(value_type: Type) -> int:
    """The std140 size, in bytes (arrays and records include their trailing padding)."""
    return Std140Layout().size(value_type)


def array_stride(array: ArrayType) -> int:
    return Std140Layout().array_stride(array)


def field_offsets(record: RecordType) -> list[int]:
    """Byte offsets of the record's fields, in declaration order."""
    return Std140Layout().field_offsets(record)


def block_size(record: RecordType) -> int:
    """GL_UNIFORM_BLOCK_DATA_SIZE of `layout(std140) uniform B { <record's fields> }` (an upper bound)."""
    return Std140Layout().block_size(record)


def member_offsets(record: RecordType, base: int = 0, prefix: str = "") -> Iterator[tuple[str, int, Type]]:
    """(GLSL selector, byte offset, leaf type) of every scalar, vector and matrix leaf (`Std140Layout.member_offsets`)."""
    return Std140Layout().member_offsets(record, base, prefix)
