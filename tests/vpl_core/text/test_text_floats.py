"""Decimal <-> binary32 conversion (spec 4, 10.1, 11): exact nearest-even reading, shortest writing."""

from __future__ import annotations

import struct
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.text.floats import (
    Float32OverflowError,
    exact_float32_bits,
    float32_bits_to_value,
    format_float32,
    parse_float32_bits,
)

FLT_MAX = Fraction(2**128 - 2**104)
# Values at or beyond FLT_MAX + half an ulp round (ties to even: FLT_MAX is odd) to infinity.
OVERFLOW_THRESHOLD = Fraction(2**128 - 2**103)


def exact_decimal(value: Fraction) -> str:
    """The exact decimal spelling of a dyadic rational (finite decimal expansion)."""
    numerator, denominator = value.numerator, value.denominator
    assert denominator & (denominator - 1) == 0, "dyadic rationals only"
    shift = denominator.bit_length() - 1
    digits = numerator * 5**shift
    text = str(digits).rjust(shift + 1, "0")
    return f"{text[:len(text) - shift]}.{text[len(text) - shift:]}" if shift else f"{text}.0"


def bits_of(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


@pytest.mark.parametrize(
    ("text", "expected_bits"),
    [
        ("1.0", 0x3F800000),
        ("1", 0x3F800000),
        ("+1", 0x3F800000),
        ("1.", 0x3F800000),
        (".5", 0x3F000000),
        ("-.5e+1", 0xC0A00000),
        ("0.1", 0x3DCCCCCD),
        ("0", 0x00000000),
        ("-0", 0x80000000),
        ("-0.0", 0x80000000),
        ("0e999999999999999999999", 0x00000000),
        # 16777217 = 2**24 + 1 lies halfway between 2**24 and 2**24 + 2: ties to even.
        ("16777217", 0x4B800000),
        ("16777219", 0x4B800002),  # halfway between 2**24+2 and 2**24+4: the even mantissa is 2**24+4
        ("8388609.5", 0x4B000002),
        # Subnormals and underflow to signed zero.
        ("1e-45", 0x00000001),
        ("1.401298464324817e-45", 0x00000001),
        ("1e-46", 0x00000000),
        ("-1e-46", 0x80000000),
        ("1e-999999999999999999999", 0x00000000),
        ("-1e-999999999999999999999", 0x80000000),
        ("1.1754942e-38", 0x007FFFFF),  # largest subnormal
        ("1.17549435e-38", 0x00800000),  # smallest normal
        # The top of the range.
        ("3.4028235e38", 0x7F7FFFFF),
        ("340282346638528859811704183484516925440", 0x7F7FFFFF),
        ("3.4028235677973366e38", 0x7F7FFFFF),  # just below FLT_MAX + half ulp
    ],
)
def test_reading_rounds_to_nearest_even(text: str, expected_bits: int) -> None:
    assert parse_float32_bits(text) == expected_bits
    assert exact_float32_bits(text) == expected_bits


def test_smallest_subnormal_halfway_ties_to_zero_and_anything_above_rounds_up() -> None:
    halfway = Fraction(1, 2**150)
    assert parse_float32_bits(exact_decimal(halfway)) == 0
    assert parse_float32_bits("-" + exact_decimal(halfway)) == 0x80000000
    assert parse_float32_bits(exact_decimal(halfway) + "1") == 1
    assert parse_float32_bits(exact_decimal(3 * halfway)) == 2  # halfway between 1 and 2 ulps: even


@pytest.mark.parametrize(
    "text",
    ["3.4028236e38", "1e39", "-1e39", "1e99999999999999999999", "3.40282356779733661637539395458142568448e38"],
)
def test_reading_beyond_the_rounding_boundary_overflows(text: str) -> None:
    with pytest.raises(Float32OverflowError):
        parse_float32_bits(text)
    with pytest.raises(Float32OverflowError):
        exact_float32_bits(text)


def test_the_boundary_cases_are_computed_not_assumed() -> None:
    # 3.4028235e38 is below FLT_MAX + half an ulp, 3.4028236e38 above it; the exact
    # midpoint itself ties to the even neighbour, which is 2**128 (overflow).
    assert Fraction("3.4028235e38") < OVERFLOW_THRESHOLD < Fraction("3.4028236e38")
    assert exact_decimal(OVERFLOW_THRESHOLD).startswith("340282356779733661637539395458142568448")


def test_reading_does_not_round_twice_through_binary64() -> None:
    # 1 + 2**-24 is the midpoint between 1 and the next binary32; a tiny bit more must round up.
    # binary64 rounds the text below to the midpoint itself, so a float() + cast reader returns 1.0.
    value = 1 + Fraction(1, 2**24) + Fraction(1, 2**80)
    text = exact_decimal(value)
    assert float(text) == 1 + 2**-24  # the binary64 result sits exactly on the midpoint
    assert bits_of(float(text)) == 0x3F800000  # ... where a second rounding goes to even (wrong here)
    assert parse_float32_bits(text) == 0x3F800001
    below = exact_decimal(1 + Fraction(1, 2**24) - Fraction(1, 2**80))
    assert parse_float32_bits(below) == 0x3F800000


def test_very_long_digit_strings_are_read_exactly() -> None:
    halfway = exact_decimal(1 + Fraction(1, 2**24))
    assert parse_float32_bits(halfway + "0" * 5000) == 0x3F800000
    assert parse_float32_bits(halfway + "0" * 5000 + "1") == 0x3F800001
    assert parse_float32_bits("0." + "0" * 5000 + "1") == 0
    assert parse_float32_bits("1" + "0" * 38 + "." + "0" * 6000) == bits_of(1e38)
    with pytest.raises(Float32OverflowError):
        parse_float32_bits("1" + "0" * 5000)


@pytest.mark.parametrize("text", ["", "1e", "1.2.3", "e5", "+", ".", "1e+", "0x10", "inf", "nan", "1_000"])
def test_non_numbers_are_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        parse_float32_bits(text)


@pytest.mark.parametrize(
    ("bits", "expected"),
    [
        (0x3F800000, "1.0"),
        (0x80000000, "-0.0"),
        (0x00000000, "0.0"),
        (0x3DCCCCCD, "0.1"),
        (0x7F7FFFFF, "3.4028235e38"),
        (0xFF7FFFFF, "-3.4028235e38"),
        (0x00000001, "1e-45"),
        (0x4B800000, "16777216.0"),
        (0x3727C5AC, "1e-5"),
        (0x38D1B717, "0.0001"),
        (0x40490FDB, "3.1415927"),
        (0x5A0E1BCA, "1e16"),
    ],
)
def test_writing_is_shortest_and_reads_as_a_float(bits: int, expected: str) -> None:
    assert format_float32(bits) == expected
    assert parse_float32_bits(expected) == bits


def test_non_finite_bits_cannot_be_written() -> None:
    for bits in (0x7F800000, 0xFF800000, 0x7FC00000):
        with pytest.raises(ValueError):
            format_float32(bits)


finite_bits = st.integers(0, 2**32 - 1).filter(lambda bits: (bits >> 23) & 0xFF != 0xFF)


@settings(max_examples=examples(500), deadline=None)
@given(finite_bits)
def test_writing_round_trips_every_finite_value(bits: int) -> None:
    text = format_float32(bits)
    assert "." in text or "e" in text
    assert parse_float32_bits(text) == bits
    assert exact_float32_bits(text) == bits


@settings(max_examples=examples(300), deadline=None)
@given(finite_bits)
def test_writing_uses_as_few_digits_as_numpys_shortest_repr(bits: int) -> None:
    numpy = pytest.importorskip("numpy")
    ours = format_float32(bits)
    theirs = numpy.format_float_scientific(numpy.float32(float32_bits_to_value(bits)), unique=True)

    def significant_digits(text: str) -> int:
        mantissa = text.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0").rstrip("0")
        return max(1, len(mantissa))

    assert significant_digits(ours) <= significant_digits(theirs), (ours, theirs)


decimal_texts = st.builds(
    lambda sign, digits, point, exponent: f"{sign}{digits[:point]}.{digits[point:]}e{exponent}",
    st.sampled_from(["", "-", "+"]),
    st.text("0123456789", min_size=1, max_size=30),
    st.integers(0, 30),
    st.integers(-60, 45),
)


@settings(max_examples=examples(500), deadline=None)
@given(decimal_texts)
def test_fast_path_agrees_with_exact_arithmetic(text: str) -> None:
    try:
        exact = exact_float32_bits(text)
    except Float32OverflowError:
        with pytest.raises(Float32OverflowError):
            parse_float32_bits(text)
        return
    assert parse_float32_bits(text) == exact


@settings(max_examples=examples(300), deadline=None)
@given(finite_bits, st.integers(-3, 3), st.integers(60, 90))
def test_values_near_binary32_midpoints_round_exactly(bits: int, direction: int, precision: int) -> None:
    """Decimal texts a hair away from (or exactly at) a midpoint between two binary32 neighbours."""
    value = Fraction(float32_bits_to_value(bits & 0x7FFFFFFF))
    if value >= FLT_MAX:
        return
    next_value = Fraction(float32_bits_to_value((bits & 0x7FFFFFFF) + 1))
    midpoint = (value + next_value) / 2
    probe = midpoint + direction * Fraction(1, 2**precision) * midpoint
    if direction:
        with localcontext() as context:
            context.prec = 60
            text = str(Decimal(probe.numerator) / Decimal(probe.denominator))
    else:
        text = exact_decimal(midpoint)
    expected_value = Fraction(Decimal(text))  # the text's own exact value decides
    if expected_value > midpoint:
        expected = (bits & 0x7FFFFFFF) + 1
    elif expected_value < midpoint:
        expected = bits & 0x7FFFFFFF
    else:
        lower = bits & 0x7FFFFFFF
        expected = lower if lower % 2 == 0 else lower + 1
    assert parse_float32_bits(text) == expected
