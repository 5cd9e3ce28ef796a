"""Decimal text <-> IEEE binary32, the float literal rules of spec 4 and 10.1.

Reading: a decimal number word (common number spelling: optional sign,
digits with an optional fraction, or a fraction alone, then an optional
exponent) rounds *directly* to the nearest binary32, ties to even, including
subnormals; underflow gives a signed zero and rounding beyond the largest
finite binary32 is an error (`Float32OverflowError`). Rounding directly
matters: going through binary64 first can round twice and land on the wrong
neighbour when the binary64 result sits exactly on a binary32 midpoint.

Writing: `format_float32(bits)` gives the shortest decimal (fewest
significant digits; among those the one nearest the value) that reads back
to exactly `bits`, always with a '.' or an 'e' so that it is a float
spelling, e.g. ``1.0``, ``-0.0``, ``0.1``, ``3.4028235e38``, ``1e-45``.

Both directions are exact integer arithmetic; the reader has a fast path
through binary64 that is provably equal (see `_round_via_binary64`).
"""

from __future__ import annotations

import functools
import math
import re
import struct

FLOAT32_MAX_BITS = 0x7F7FFFFF
SIGN_BIT = 0x80000000

NUMBER_PATTERN = re.compile(r"([+-]?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?\Z")
"""The common decimal number spelling; a number word must match it entirely."""

# A binary32 midpoint (the only values where rounding is a close call) has at
# most about 115 significant decimal digits, so keeping 200 digits plus a
# nonzero "sticky" digit for anything dropped cannot change the rounding.
_KEPT_SIGNIFICANT_DIGITS = 200
# Longer words take the exact path straight away; short ones try binary64.
_FAST_PATH_MAX_LENGTH = 40


class Float32OverflowError(ValueError):
    """The decimal value rounds beyond the largest finite binary32."""


def _round_half_even(numerator: int, denominator: int) -> int:
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient & 1):
        quotient += 1
    return quotient


def _exact_magnitude_bits(numerator: int, denominator: int) -> int:
    """Bits (without sign) of the binary32 nearest to numerator/denominator > 0."""
    exponent = numerator.bit_length() - denominator.bit_length()
    # Now 2**(exponent-1) < n/d < 2**(exponent+1); settle on 2**e <= n/d.
    if exponent >= 0:
        if numerator < denominator << exponent:
            exponent -= 1
    elif numerator << -exponent < denominator:
        exponent -= 1
    if exponent > 127:
        raise Float32OverflowError("value exceeds the binary32 range")
    quantum = max(exponent - 23, -149)
    if quantum >= 0:
        mantissa = _round_half_even(numerator, denominator << quantum)
    else:
        mantissa = _round_half_even(numerator << -quantum, denominator)
    if exponent < -126:
        # Subnormal range: the quantum is fixed, and a mantissa that rounded
        # up to 2**23 is exactly the smallest normal's bit pattern.
        return mantissa
    if mantissa == 1 << 24:
        mantissa = 1 << 23
        exponent += 1
        if exponent > 127:
            raise Float32OverflowError("value exceeds the binary32 range")
    return ((exponent + 127) << 23) | (mantissa - (1 << 23))


def _digits_to_int(digits: str) -> int:
    # int() refuses very long digit strings (sys.int_info.str_digits_check_threshold);
    # callers keep digit strings short, this only guards the invariant.
    value = 0
    for start in range(0, len(digits), 1000):
        chunk = digits[start : start + 1000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def decimal_to_float32_bits(negative: bool, digits: str, exponent10: int) -> int:
    """Exactly round ``(-1)**negative * int(digits) * 10**exponent10`` to binary32 bits."""
    sign = SIGN_BIT if negative else 0
    stripped = digits.lstrip("0")
    if not stripped:
        return sign
    trailing = len(stripped) - len(stripped.rstrip("0"))
    if trailing:
        stripped = stripped[:-trailing]
        exponent10 += trailing
    if len(stripped) > _KEPT_SIGNIFICANT_DIGITS:
        dropped = stripped[_KEPT_SIGNIFICANT_DIGITS:]
        exponent10 += len(dropped)
        stripped = stripped[:_KEPT_SIGNIFICANT_DIGITS]
        if dropped.strip("0"):
            stripped += "1"
            exponent10 -= 1
    leading_exponent = exponent10 + len(stripped) - 1
    if leading_exponent > 39:  # >= 1e39 > FLT_MAX
        raise Float32OverflowError("value exceeds the binary32 range")
    if leading_exponent < -46:  # < 1e-46 < 2**-150: below half the smallest subnormal
        return sign
    mantissa = _digits_to_int(stripped)
    if exponent10 >= 0:
        magnitude = _exact_magnitude_bits(mantissa * 10**exponent10, 1)
    else:
        magnitude = _exact_magnitude_bits(mantissa, 10**-exponent10)
    return sign | magnitude


def _is_binary32_midpoint(value: float) -> bool:
    """True if the finite, nonzero binary64 `value` lies exactly halfway between binary32 neighbours."""
    _, binary_exponent = math.frexp(abs(value))
    quantum = max(binary_exponent - 24, -149)
    scaled = math.ldexp(abs(value), -quantum)  # exact: a power-of-two scaling
    return scaled - math.floor(scaled) == 0.5


def _round_via_binary64(text: str) -> int | None:
    """Bits by way of binary64, or None when that could round twice.

    `float()` rounds correctly to binary64. Every binary32 midpoint is a
    binary64 number and rounding is monotone, so unless the binary64 result
    *is* a midpoint, it lies on the same side of every midpoint as the exact
    decimal value and the second rounding (a C float cast) agrees with
    direct rounding.
    """
    value = float(text)
    if math.isinf(value):
        raise Float32OverflowError("value exceeds the binary32 range")
    if value != 0.0 and _is_binary32_midpoint(value):
        return None
    try:
        bits: int = struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        raise Float32OverflowError("value exceeds the binary32 range") from None
    return bits


def parse_float32_bits(text: str) -> int:
    """The binary32 bits of a number word; ValueError if it is not one, Float32OverflowError on overflow."""
    match = NUMBER_PATTERN.match(text)
    if match is None:
        raise ValueError(f"not a decimal number: {text!r}")
    if len(text) <= _FAST_PATH_MAX_LENGTH:
        bits = _round_via_binary64(text)
        if bits is not None:
            return bits
    return _exact_bits_of_match(match)


def exact_float32_bits(text: str) -> int:
    """Like `parse_float32_bits` but always by exact arithmetic (used to test the fast path)."""
    match = NUMBER_PATTERN.match(text)
    if match is None:
        raise ValueError(f"not a decimal number: {text!r}")
    return _exact_bits_of_match(match)


def _exact_bits_of_match(match: re.Match[str]) -> int:
    sign, integer_digits, fraction_digits, bare_fraction, exponent_text = match.groups()
    if bare_fraction is not None:
        integer_digits, fraction_digits = "", bare_fraction
    fraction_digits = fraction_digits or ""
    digits = integer_digits + fraction_digits
    negative = sign == "-"
    if not digits.strip("0"):
        return SIGN_BIT if negative else 0
    exponent10 = -len(fraction_digits)
    if exponent_text is not None:
        exponent_sign = -1 if exponent_text.startswith("-") else 1
        exponent_digits = exponent_text.lstrip("+-").lstrip("0") or "0"
        if len(exponent_digits) > 12:
            # Far beyond anything the digits could compensate: |value| is
            # astronomically large or small. Let the range checks decide.
            if exponent_sign > 0:
                raise Float32OverflowError("value exceeds the binary32 range")
            return SIGN_BIT if negative else 0
        exponent10 += exponent_sign * int(exponent_digits)
    return decimal_to_float32_bits(negative, digits, exponent10)


def float32_bits_to_value(bits: int) -> float:
    value: float = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    return value


def _layout(digits: str, exponent10: int, negative: bool) -> str:
    """Spell int(digits) * 10**exponent10 like Python's repr: positional unless very large or small."""
    sign = "-" if negative else ""
    leading_exponent = exponent10 + len(digits) - 1
    if -4 <= leading_exponent < 16:
        if exponent10 >= 0:
            return f"{sign}{digits}{'0' * exponent10}.0"
        if leading_exponent >= 0:
            point = len(digits) + exponent10
            return f"{sign}{digits[:point]}.{digits[point:]}"
        return f"{sign}0.{'0' * (-leading_exponent - 1)}{digits}"
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{leading_exponent}"


@functools.lru_cache(maxsize=65536)
def format_float32(bits: int) -> str:
    """The shortest round-tripping decimal spelling of a finite binary32 bit pattern."""
    bits &= 0xFFFFFFFF
    negative = bool(bits & SIGN_BIT)
    magnitude_bits = bits & ~SIGN_BIT
    if magnitude_bits > FLOAT32_MAX_BITS:
        raise ValueError(f"binary32 bits 0x{bits:08x} are not finite")
    if magnitude_bits == 0:
        return "-0.0" if negative else "0.0"
    # The same exact rational arithmetic as with `fractions.Fraction`, on
    # integers: importing fractions (and with it decimal) cost about 3 ms of
    # every `vpl compile`. The value is numerator / denominator exactly (a
    # binary32 is a binary64, whose ratio has a power-of-two denominator).
    numerator, denominator = float32_bits_to_value(magnitude_bits).as_integer_ratio()

    def power_above(exponent: int) -> bool:
        """Whether 10**exponent > the value."""
        power: int = 10 ** abs(exponent)  # typeshed types int ** int as Any (a negative power is a float)
        if exponent >= 0:
            return power * denominator > numerator
        return denominator > numerator * power

    # Decimal exponent of the leading digit: estimate, then settle exactly.
    leading = math.floor(math.log10(numerator / denominator))
    while power_above(leading):
        leading -= 1
    while not power_above(leading + 1):
        leading += 1
    for significant in range(1, 10):
        exponent10 = leading - significant + 1
        # scaled = value / 10**exponent10 = scaled_numerator / scaled_denominator
        if exponent10 >= 0:
            scaled_numerator, scaled_denominator = numerator, denominator * 10**exponent10
        else:
            scaled_numerator, scaled_denominator = numerator * 10**-exponent10, denominator
        quotient, remainder = divmod(scaled_numerator, scaled_denominator)
        twice = 2 * remainder
        nearest = quotient + 1 if twice > scaled_denominator or (twice == scaled_denominator and quotient & 1) else quotient
        # The nearest candidate usually decides; at a power of two the gap
        # above is twice the gap below, so a neighbour can round-trip when
        # the nearest does not. Try them closest first, even last digit on ties
        # (|candidate - scaled| compared as |candidate * denominator - numerator|).
        candidates = sorted(
            (candidate for candidate in (nearest, nearest - 1, nearest + 1) if candidate > 0),
            key=lambda candidate: (abs(candidate * scaled_denominator - scaled_numerator), candidate & 1),
        )
        for candidate in candidates:
            try:
                round_trips = decimal_to_float32_bits(False, str(candidate), exponent10) == magnitude_bits
            except Float32OverflowError:
                round_trips = False
            if round_trips:
                digits = str(candidate)
                stripped = digits.rstrip("0")
                return _layout(stripped, exponent10 + len(digits) - len(stripped), negative)
    raise AssertionError(f"no round-tripping decimal for 0x{bits:08x}")  # 9 digits always suffice
