"""GLSL spellings of VPL scalar constants (spec 12.3).

Floats: nine significant digits, which identify every binary32 value
uniquely, formatted without the process locale (Python's %-formatting never
consults it), always with a decimal point in the mantissa and a plain
decimal exponent (`1.0e-10`, never `1e-10`, `inf` or hexadecimal), so every
GLSL and ESSL front end reads the same value. No spelling's decimal value
exceeds the largest finite float: that one value is spelled `3.40282346e38`
(rounded toward zero; it still reads back as the largest float), because
`3.40282347e38` makes ANGLE warn "Float overflow". Each spelling is read back and
compared bit for bit before it is used. GLSL has no negative literals: a
leading minus is unary negation, which is exact, and `-0.0` is negation of
0.0, which yields negative zero — the stored bit pattern survives (the
shader may still treat zero signs as interchangeable, spec 4.1).

Integers: decimal; the minimum int is `(-2147483647 - 1)` because
`2147483648` is out of range as a GLSL int literal before negation.
"""

from __future__ import annotations

import functools
import math

from vpl_core.ir.types import ScalarKind, ScalarType
from vpl_core.ir.values import INT32_MIN, ConstantValue, float32_bits, float32_from_bits, round_to_float32

FLOAT32_MAX = float32_from_bits(0x7F7FFFFF)
"""The largest finite binary32 value, 3.4028234663852886e38; no literal's decimal value exceeds it."""


def float_literal(value: float) -> str:
    """A GLSL float literal (with a leading `-` for negative values) of a finite binary32 value."""
    if not math.isfinite(value):
        raise ValueError(f"float constant {value!r} is not finite")
    value = round_to_float32(value)  # constants are binary32 already; this makes the contract explicit
    return _float_literal_of_bits(float32_bits(value))


@functools.lru_cache(maxsize=4096)
def _float_literal_of_bits(bits: int) -> str:
    """Memoised by bit pattern (not by value: 0.0 == -0.0): modules repeat their constants."""
    value = float32_from_bits(bits)
    negative = bool(bits >> 31)
    magnitude = abs(value)
    if magnitude == 0.0:
        text = "0.0"
    else:
        digits = f"{magnitude:.9g}"
        if float(digits) > FLOAT32_MAX:
            # Only the largest finite float rounds up past itself (3.40282347e38):
            # some compilers (ANGLE) warn "Float overflow" at such a literal even
            # though it rounds back to the largest float. Nine digits truncated,
            # 3.40282346e38, lie below it and still round to it.
            digits = _truncated(magnitude)
        mantissa, _, exponent = digits.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        text = mantissa if not exponent else f"{mantissa}e{int(exponent)}"
        if float32_bits(round_to_float32(float(text))) != bits & 0x7FFFFFFF:
            # Nine digits always round-trip binary32; this guards the invariant.
            raise AssertionError(f"float literal {text} does not round-trip {value!r}")
    return f"-{text}" if negative else text


def _truncated(magnitude: float) -> str:
    """Nine significant digits of `magnitude`, rounded toward zero, in %g-like spelling."""
    mantissa, _, exponent = f"{magnitude:.20e}".partition("e")
    whole, _, fraction = mantissa.partition(".")
    return f"{whole}.{fraction[:8]}e{int(exponent)}"


def int_literal(value: int) -> str:
    if value == INT32_MIN:
        return "(-2147483647 - 1)"
    return str(value)


def bool_literal(value: bool) -> str:
    return "true" if value else "false"


def constant_literal(constant: ConstantValue) -> str:
    """The spelling of a bool, int or float constant."""
    constant_type = constant.type
    assert isinstance(constant_type, ScalarType)
    if constant_type.kind is ScalarKind.FLOAT:
        return float_literal(float(constant.value))
    if constant_type.kind is ScalarKind.INT:
        return int_literal(int(constant.value))
    return bool_literal(bool(constant.value))


def is_negative_spelling(text: str) -> bool:
    """True if the spelling starts with unary minus (needs parentheses as an operator operand)."""
    return text.startswith("-")
