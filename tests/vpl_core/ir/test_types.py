"""Type objects (spec 4) and constants (spec 4, 5): the invariants the object model keeps by itself.

Constructors reject what no module can hold (vector sizes and matrix
dimensions outside 2-4, non-positive array counts, int constants outside
int32, non-finite floats); structural types compare by value and hash
alike, records by identity; a record's field lookup answers as a linear
scan would, whatever happened to its field list (while its field names are
unique, as in every valid record); float constants hold
binary32 values (rounded as numpy's float32 rounds) and compare by bits.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.ir import (
    BOOL,
    FLOAT,
    INT,
    SAMPLER2D,
    VOID,
    ArrayType,
    ConstantValue,
    Field,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    VectorType,
    VoidType,
    ivec,
    mat,
    record,
    vec,
)
from vpl_core.ir.values import INT32_MAX, INT32_MIN, float32_bits, is_float32


@pytest.mark.parametrize("size", [0, 1, 5, -2, 2.0, "3", None, True])
def test_vectors_have_2_to_4_components(size: object) -> None:
    with pytest.raises(ValueError, match="vector size"):
        VectorType(ScalarKind.FLOAT, size)  # type: ignore[arg-type]


@pytest.mark.parametrize(("rows", "columns"), [(1, 2), (2, 5), (0, 0), (4, 1), (2.0, 2), (2, None)])
def test_matrices_have_2_to_4_rows_and_columns(rows: object, columns: object) -> None:
    with pytest.raises(ValueError, match="matrix dimensions"):
        MatrixType(rows, columns)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [0, -1, 1.5, "2", None, True, False])
def test_array_counts_are_positive_integers(count: object) -> None:
    with pytest.raises(ValueError, match="array count"):
        ArrayType(FLOAT, count)  # type: ignore[arg-type]


def test_every_valid_dimension_constructs() -> None:
    for size in (2, 3, 4):
        for kind in ScalarKind:
            assert VectorType(kind, size).element == ScalarType(kind)
    for rows in (2, 3, 4):
        for columns in (2, 3, 4):
            matrix = MatrixType(rows, columns)
            assert matrix.column_type == vec(rows)
    assert ArrayType(FLOAT, 2**64 - 1).count == 2**64 - 1  # the text's size bound, no smaller limit here


def test_structural_types_compare_and_hash_by_value() -> None:
    pairs = [
        (ScalarType(ScalarKind.INT), INT),
        (VectorType(ScalarKind.FLOAT, 3), vec(3)),
        (VectorType(ScalarKind.INT, 2), ivec(2)),
        (MatrixType(4, 3), mat(4, 3)),
        (SamplerType(), SAMPLER2D),
        (VoidType(), VOID),
        (ArrayType(ArrayType(vec(2), 3), 4), ArrayType(ArrayType(vec(2), 3), 4)),
    ]
    for fresh, shared in pairs:
        assert fresh == shared and hash(fresh) == hash(shared) and fresh is not shared
    assert vec(3) != ivec(3) and mat(2, 3) != mat(3, 2) and ArrayType(FLOAT, 2) != ArrayType(FLOAT, 3)
    assert ArrayType(INT, 2) != ArrayType(FLOAT, 2) and BOOL != INT


def test_records_are_nominal_and_arrays_of_them_follow() -> None:
    first = record("Light", [("color", vec(3))])
    second = record("Light", [("color", vec(3))])
    assert first != second and first == first and hash(first) != hash(second)
    assert ArrayType(first, 2) == ArrayType(first, 2)
    assert ArrayType(first, 2) != ArrayType(second, 2)
    assert len({first, second, first}) == 2


def test_type_spellings_are_the_text_formats() -> None:
    assert [str(value) for value in (VOID, BOOL, INT, FLOAT, vec(4), ivec(2), mat(3, 4), SAMPLER2D)] == [
        "void", "bool", "int", "float", "vector float 4", "vector int 2", "matrix 3 4", "sampler2D",
    ]
    assert str(ArrayType(ArrayType(FLOAT, 2), 3)) == "array array float 2 3"
    assert str(record("Light", [])) == "record 'Light'"


def test_structural_types_are_immutable() -> None:
    with pytest.raises(AttributeError):
        vec(3).size = 4  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ArrayType(FLOAT, 2).count = 3  # type: ignore[misc]


# Field lookup -----------------------------------------------------------------------------


def _scan(fields: list[Field], name: str) -> int:
    return next((position for position, field in enumerate(fields) if field.name == name), -1)


NAMES = st.sampled_from(["a", "b", "c", "d"])
EDITS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), NAMES),
        st.tuples(st.just("rename"), st.integers(0, 7), NAMES),
        st.tuples(st.just("swap"), st.integers(0, 7), st.integers(0, 7)),
        st.tuples(st.just("pop"), st.integers(0, 7)),
        st.tuples(st.just("replace"), st.lists(NAMES, max_size=5)),
        st.tuples(st.just("lookup"), NAMES),
    ),
    max_size=30,
)


@settings(max_examples=examples(300), deadline=None)
@given(EDITS)
def test_field_lookup_answers_as_a_linear_scan_after_any_edit(edits: list[tuple[object, ...]]) -> None:
    """The lookup index (built on first use) must follow appends, renames, swaps, removals and new lists.

    Exactly the linear scan's answer while the name is unique in the record
    (every valid record); with duplicate names (an invalid record) a field
    of that name.
    """
    declaration = RecordType("R", [Field("a", FLOAT)])
    for edit in edits:
        fields = declaration.fields
        if edit[0] == "append":
            fields.append(Field(str(edit[1]), INT))
        elif edit[0] == "rename" and fields:
            fields[int(edit[1]) % len(fields)].name = str(edit[2])
        elif edit[0] == "swap" and fields:
            first, second = int(edit[1]) % len(fields), int(edit[2]) % len(fields)
            fields[first], fields[second] = fields[second], fields[first]
        elif edit[0] == "pop" and fields:
            fields.pop(int(edit[1]) % len(fields))
        elif edit[0] == "replace":
            declaration.fields = [Field(name, FLOAT) for name in edit[1]]
        for name in ("a", "b", "c", "d", "e"):
            expected = _scan(declaration.fields, name)
            position = declaration.field_index(name)
            found = declaration.field_named(name)
            if sum(field.name == name for field in declaration.fields) <= 1:
                assert position == expected
                assert (found is None) if expected < 0 else (found is declaration.fields[expected])
            else:
                assert declaration.fields[position].name == name and found is declaration.fields[position]


# Constants --------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0.1, 1 / 3, 3.4028235e38, 1e-45, 2.5e-46, -7.0e-40, 16777217.0, math.pi, -0.0])
def test_float_constants_round_to_binary32_as_numpy_does(value: float) -> None:
    constant = ConstantValue.of_float(value)
    expected = np.float32(value)
    assert constant.value == float(expected)
    assert constant.bits == int(np.array([expected], dtype=np.float32).view(np.uint32)[0])
    assert is_float32(constant.value)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_float_constants_are_finite(value: float) -> None:
    with pytest.raises(ValueError):
        ConstantValue.of_float(value)


def test_float_constants_that_overflow_binary32_are_rejected() -> None:
    with pytest.raises(OverflowError):
        ConstantValue.of_float(3.5e38)


def test_signed_zeros_are_distinct_constants_and_bit_patterns_round_trip() -> None:
    positive, negative = ConstantValue.of_float(0.0), ConstantValue.of_float(-0.0)
    assert positive != negative and hash(positive) != hash(negative)
    assert (positive.bits, negative.bits) == (0, 0x80000000)
    for bits in (0, 0x80000000, 0x00000001, 0x7F7FFFFF, 0x3F800000, 0xBF800001):
        assert ConstantValue.of_float_bits(bits).bits == bits == float32_bits(ConstantValue.of_float_bits(bits).value)


def test_int_constants_are_int32() -> None:
    assert ConstantValue.of_int(INT32_MIN).value == -(2**31) and ConstantValue.of_int(INT32_MAX).value == 2**31 - 1
    for value in (INT32_MIN - 1, INT32_MAX + 1):
        with pytest.raises(ValueError):
            ConstantValue.of_int(value)


def test_constants_of_different_kinds_never_compare_equal() -> None:
    assert ConstantValue.of_int(1) != ConstantValue.of_float(1.0)
    assert ConstantValue.of_bool(True) != ConstantValue.of_int(1)
    assert ConstantValue.of_bool(False) == ConstantValue.of_bool(False)
    assert ConstantValue.of_int(7).bits is None and ConstantValue.of_bool(True).bits is None
