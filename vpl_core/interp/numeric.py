"""binary32 / int32 arithmetic over lanes, with optional precision tracking (GLSL 4.20 section 4.7.1).

Every function takes and returns `Num`: a leaf array (`v`: float32, int32
or bool, lanes first) and, when the caller tracks precision, `r`: a
float64 array of the same shape, the *radius* of that component.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `vpl_core/interp/numeric.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

FLOAT_MAX = float(np.finfo(np.float32).max)
FLOAT_MIN_NORMAL = 2.0**-126
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

#: The relative size of one ULP at worst: ulp(x) <= 2^-23 |x| for normal x.
ULP_FACTOR = 2.0**-23
#: GLSL gives trigonometric functions no precision; the policy the math tests use too.
TRIG_ABSOLUTE = 1e-3
TRIG_RELATIVE = 1e-3
#: Beyond this argument magnitude trigonometric results are not compared (range reduction is unbounded).
TRIG_DOMAIN = 1e4
#: The interpreter's own rounding of a correctly rounded binary32 result.
OWN = 0.5


@dataclass(slots=True)
class Num:
    """One leaf value for all lanes, with its radius when tracking precision (see the module docstring)."""

    v: np.ndarray
    r: np.ndarray | None = None


def tracking(*operands: Num) -> bool:
    return any(operand.r is not None for operand in operands)


def radius(operand: Num) -> np.ndarray:
    return operand.r if operand.r is not None else np.zeros(np.shape(operand.v), dtype=np.float64)


def ulp(values: np.ndarray) -> np.ndarray:
    """The binary32 ULP at |values| (float64), at least the smallest normal's."""
    magnitude = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(all="ignore"):
        exponent = np.floor(np.log2(np.maximum(magnitude, FLOAT_MIN_NORMAL)))
    return np.exp2(exponent - 23.0)


def subnormal(values: np.ndarray) -> np.ndarray:
    """2^-126 where a value is a nonzero subnormal (an implementation may flush it to zero), else 0."""
    magnitude = np.abs(np.asarray(values, dtype=np.float64))
    return np.where((magnitude > 0.0) & (magnitude < FLOAT_MIN_NORMAL), FLOAT_MIN_NORMAL, 0.0)


def finish(value: np.ndarray, error: np.ndarray | None) -> Num:
    """A float result: radius inf where the value is not finite or its interval overflows binary32."""
    if error is None:
        return Num(value, None)
    magnitude = np.abs(value.astype(np.float64))
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(magnitude) | ~(magnitude + error <= FLOAT_MAX)
    return Num(value, np.where(bad, np.inf, error))


def own(value: np.ndarray, spread: np.ndarray, allowance: float | np.ndarray) -> np.ndarray:
    """`allowance` ULPs (plus the interpreter's half ULP) at the largest magnitude the result may take."""
    magnitude = np.abs(value.astype(np.float64)) + np.where(np.isfinite(spread), spread, 0.0)
    return (np.asarray(allowance) + OWN) * ulp(magnitude) + subnormal(value)


def f32(values: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values).astype(np.float32)


# Exact and piecewise-exact float operations ------------------------------------------------------------


def negate(a: Num) -> Num:
    return Num(-a.v, a.r)


def absolute(a: Num) -> Num:
    return Num(np.abs(a.v), a.r)


def add(a: Num, b: Num) -> Num:
    value = a.v + b.v
    if not tracking(a, b):
        return Num(value)
    spread = radius(a) + radius(b)
    return finish(value, spread + own(value, spread, 1.0) + subnormal(a.v) + subnormal(b.v))


def subtract(a: Num, b: Num) -> Num:
    return add(a, negate(b))


def multiply(a: Num, b: Num) -> Num:
    value = a.v * b.v
    if not tracking(a, b):
        return Num(value)
    ra, rb = radius(a), radius(b)
    spread = np.abs(a.v.astype(np.float64)) * rb + np.abs(b.v.astype(np.float64)) * ra + ra * rb
    return finish(value, spread + own(value, spread, 1.0) + (subnormal(a.v) * np.abs(b.v) + subnormal(b.v) * np.abs(a.v)))


def divide(a: Num, b: Num) -> Num:
    with np.errstate(divide="ignore", invalid="ignore"):
        value = a.v / b.v
    if not tracking(a, b):
        return Num(value)
    ra, rb = radius(a), radius(b)
    magnitude_a = np.abs(a.v.astype(np.float64))
    magnitude_b = np.abs(b.v.astype(np.float64))
    low = magnitude_b - rb
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = (magnitude_a * rb + magnitude_b * ra) / (magnitude_b * low)
    # GLSL bounds a / b only for |b| in [2^-126, 2^126]; elsewhere any value is allowed.
    unbounded = (low < FLOAT_MIN_NORMAL) | (magnitude_b + rb > 2.0**126)
    error = np.where(unbounded, np.inf, spread + own(value, spread, 2.5))
    return finish(value, error)


def dot(a: Num, b: Num, axis: int = -1) -> Num:
    """Sum over `axis` of a * b (dot products, matrix products): computed in binary64, rounded once.

    Bound: sum(|a| rb + |b| ra + ra rb) moves the exact sum; evaluation in any
    order, fused or not, adds at most n * 2^-23 * sum |a b| (n terms), plus
    the final rounding.
    """
    a64, b64 = a.v.astype(np.float64), b.v.astype(np.float64)
    value = f32(np.sum(a64 * b64, axis=axis))
    if not tracking(a, b):
        return Num(value)
    ra, rb = radius(a), radius(b)
    terms = a.v.shape[axis]
    spread = np.sum(np.abs(a64) * rb + np.abs(b64) * ra + ra * rb, axis=axis)
    rounding = (terms + 1) * ULP_FACTOR * np.sum(np.abs(a64 * b64), axis=axis)
    flushing = np.sum(subnormal(a.v) * np.abs(b64) + subnormal(b.v) * np.abs(a64) + subnormal(a64 * b64), axis=axis)
    return finish(value, spread + rounding + own(value, spread, 0.0) + flushing)


def minimum(a: Num, b: Num) -> Num:
    value = np.minimum(a.v, b.v)
    if not tracking(a, b):
        return Num(value)
    return finish(value, np.maximum(radius(a), radius(b)))


def maximum(a: Num, b: Num) -> Num:
    value = np.maximum(a.v, b.v)
    if not tracking(a, b):
        return Num(value)
    return finish(value, np.maximum(radius(a), radius(b)))


def straddles(center: np.ndarray, spread: np.ndarray, boundary: np.ndarray) -> np.ndarray:
    """Whether [center - spread, center + spread] reaches `boundary` while spread > 0 (or center is not finite)."""
    c = center.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return ((spread > 0.0) & (np.abs(c - boundary) <= spread)) | ~np.isfinite(c)


def _rounding(a: Num, value: np.ndarray, boundary_low: np.ndarray, boundary_high: np.ndarray) -> Num:
    """A floor-like step function's result: exact unless the interval reaches a step (then +1 and the spread)."""
    if a.r is None:
        return Num(value)
    ra = a.r
    x = a.v.astype(np.float64)
    with np.errstate(invalid="ignore"):
        crosses = (ra > 0.0) & ((x - ra <= boundary_low) | (x + ra >= boundary_high))
    error = np.where(crosses | ~np.isfinite(x), ra + 1.0, 0.0)
    return finish(value, error)


def floor(a: Num) -> Num:
    value = np.floor(a.v)
    x = a.v.astype(np.float64)
    # Steps of floor are at the integers: the one at or below x and the next above.
    return _rounding(a, value, np.where(x == np.floor(x), x, np.floor(x)), np.floor(x) + 1.0)


def ceil(a: Num) -> Num:
    value = np.ceil(a.v)
    x = a.v.astype(np.float64)
    return _rounding(a, value, np.ceil(x) - 1.0, np.where(x == np.ceil(x), x, np.ceil(x)))


def trunc(a: Num) -> Num:
    value = np.trunc(a.v)
    x = a.v.astype(np.float64)
    low = np.where(x > 0, np.floor(x), np.ceil(x) - 1.0)
    high = np.where(x > 0, np.floor(x) + 1.0, np.ceil(x))
    low = np.where(x == np.trunc(x), x, low)
    high = np.where(x == np.trunc(x), x, high)
    return _rounding(a, value, low, high)


def round_even(a: Num) -> Num:
    value = np.rint(a.v)  # numpy rounds half to even, as GLSL roundEven
    x = a.v.astype(np.float64)
    return _rounding(a, value, np.floor(x - 0.5) + 0.5, np.floor(x - 0.5) + 1.5)


def fract(a: Num) -> Num:
    """GLSL fract: x - floor(x), computed in binary32 (so fract of a tiny negative x may be 1.0)."""
    stepped = floor(a)
    value = a.v - stepped.v
    if a.r is None:
        return Num(value)
    spread = radius(a) + radius(stepped)
    return finish(value, spread + own(value, spread, 1.0) + subnormal(a.v))


def sign(a: Num) -> Num:
    value = np.sign(a.v)
    if a.r is None:
        return Num(value)
    x = a.v.astype(np.float64)
    jump = np.where(straddles(x, a.r, np.zeros_like(x)), 2.0, 0.0)
    return finish(value, jump)


def step(edge: Num, x: Num) -> Num:
    value = np.where(x.v < edge.v, np.float32(0.0), np.float32(1.0)).astype(np.float32)
    if not tracking(edge, x):
        return Num(value)
    difference = x.v.astype(np.float64) - edge.v.astype(np.float64)
    jump = np.where(straddles(difference, radius(edge) + radius(x), np.zeros_like(difference)), 1.0, 0.0)
    return finish(value, jump)


# Transcendental functions ----------------------------------------------------------------------------


def _monotone(a: Num, function: Callable[[np.ndarray], np.ndarray], value: np.ndarray, allowance: float | np.ndarray, domain_low: float | None = None, *, open_low: bool = False) -> Num:
    """Result radius of a monotone function: the larger move at the interval's ends, plus `allowance` ULPs."""
    if a.r is None:
        return Num(value)
    x = a.v.astype(np.float64)
    low, high = x - a.r, x + a.r
    center = value.astype(np.float64)
    with np.errstate(all="ignore"):
        spread = np.maximum(np.abs(function(high) - center), np.abs(center - function(np.maximum(low, domain_low) if domain_low is not None else low)))
    error = spread + own(value, spread, allowance)
    if domain_low is not None:
        outside = (low <= domain_low) if open_low else (low < domain_low)
        exact_edge = (a.r == 0.0) & (x == domain_low) & (not open_low)
        error = np.where(outside & ~exact_edge, np.inf, error)
    return finish(value, error)


def sqrt(a: Num) -> Num:
    with np.errstate(invalid="ignore"):
        value = np.sqrt(a.v)
    return _monotone(a, np.sqrt, value, 4.5, 0.0)


def inversesqrt(a: Num) -> Num:
    with np.errstate(all="ignore"):
        value = f32(1.0 / np.sqrt(a.v.astype(np.float64)))
        return _monotone(a, lambda x: 1.0 / np.sqrt(x), value, 2.0, 0.0, open_low=True)


def exp(a: Num) -> Num:
    with np.errstate(over="ignore"):
        value = f32(np.exp(a.v.astype(np.float64)))
    return _monotone(a, np.exp, value, 3.0 + 2.0 * np.abs(a.v.astype(np.float64)))


def exp2(a: Num) -> Num:
    with np.errstate(over="ignore"):
        value = f32(np.exp2(a.v.astype(np.float64)))
    return _monotone(a, np.exp2, value, 3.0 + 2.0 * np.abs(a.v.astype(np.float64)))


def _logarithm(a: Num, function: Callable[[np.ndarray], np.ndarray]) -> Num:
    with np.errstate(all="ignore"):
        value = f32(function(a.v.astype(np.float64)))
    if a.r is None:
        return Num(value)
    x = a.v.astype(np.float64)
    low, high = x - a.r, x + a.r
    center = value.astype(np.float64)
    with np.errstate(all="ignore"):
        spread = np.maximum(np.abs(function(high) - center), np.abs(center - function(low)))
    near_one = (low >= 0.5) & (high <= 2.0)
    allowance = np.where(near_one, 2.0**-21 + OWN * ulp(np.abs(center) + spread), own(value, spread, 3.0))
    error = np.where(low <= 0.0, np.inf, spread + allowance)
    return finish(value, error)


def log(a: Num) -> Num:
    return _logarithm(a, np.log)


def log2(a: Num) -> Num:
    return _logarithm(a, np.log2)


def power(x: Num, y: Num) -> Num:
    """pow(x, y), bounded as GLSL's exp2(y * log2(x)); undefined for x < 0, and for x = 0 with y <= 0."""
    x64, y64 = x.v.astype(np.float64), y.v.astype(np.float64)
    with np.errstate(all="ignore"):
        value = f32(np.power(x64, y64))
    undefined = (x64 < 0.0) | ((x64 == 0.0) & (y64 <= 0.0))
    if not tracking(x, y):
        return Num(value)
    rx, ry = radius(x), radius(y)
    zero_exact = (x64 == 0.0) & (rx == 0.0) & (y64 - ry > 0.0)
    logarithm = log2(Num(x.v, rx))
    exponent = multiply(Num(y.v, ry), logarithm)
    exponent_radius = radius(exponent)
    with np.errstate(all="ignore"):
        t = exponent.v.astype(np.float64)
        center = np.exp2(t)
        spread = np.maximum(np.abs(np.exp2(t + exponent_radius) - center), np.abs(center - np.exp2(t - exponent_radius)))
        spread = spread + np.abs(value.astype(np.float64) - center)
    error = spread + own(value, spread, 3.0 + 2.0 * np.abs(t))
    error = np.where(zero_exact, 0.0, np.where(undefined | (x64 - rx <= 0.0), np.inf, error))
    return finish(value, error)


def _trigonometric(a: Num, value: np.ndarray, lipschitz: float | None) -> Num:
    if a.r is None:
        return Num(value)
    x = a.v.astype(np.float64)
    if lipschitz is None:
        spread = np.zeros_like(x)
    else:
        spread = a.r * lipschitz
    error = spread + TRIG_ABSOLUTE + TRIG_RELATIVE * np.abs(value.astype(np.float64))
    return finish(value, np.where(np.abs(x) > TRIG_DOMAIN, np.inf, error))


def sin(a: Num) -> Num:
    value = f32(np.sin(a.v.astype(np.float64)))
    return _trigonometric(a, value, 1.0)


def cos(a: Num) -> Num:
    value = f32(np.cos(a.v.astype(np.float64)))
    return _trigonometric(a, value, 1.0)


def tan(a: Num) -> Num:
    x = a.v.astype(np.float64)
    with np.errstate(all="ignore"):
        value = f32(np.tan(x))
    if a.r is None:
        return Num(value)
    low, high = x - a.r, x + a.r
    # A pole inside the interval: tan is unbounded there.
    pole = np.floor(low / np.pi - 0.5) != np.floor(high / np.pi - 0.5)
    with np.errstate(all="ignore"):
        spread = np.maximum(np.abs(np.tan(high) - np.tan(x)), np.abs(np.tan(x) - np.tan(low)))
    result = _trigonometric(a, value, None)
    assert result.r is not None
    return finish(value, np.where(pole, np.inf, result.r + spread))


def _inverse_trig(a: Num, function: Callable[[np.ndarray], np.ndarray]) -> Num:
    x = a.v.astype(np.float64)
    with np.errstate(invalid="ignore"):
        value = f32(function(x))
    if a.r is None:
        return Num(value)
    low, high = x - a.r, x + a.r
    with np.errstate(invalid="ignore"):
        spread = np.maximum(np.abs(function(np.clip(high, -1, 1)) - function(x)), np.abs(function(x) - function(np.clip(low, -1, 1))))
    error = spread + TRIG_ABSOLUTE + TRIG_RELATIVE * np.abs(value.astype(np.float64))
    return finish(value, np.where((low < -1.0) | (high > 1.0), np.inf, error))


def asin(a: Num) -> Num:
    return _inverse_trig(a, np.arcsin)


def acos(a: Num) -> Num:
    return _inverse_trig(a, np.arccos)


def atan(a: Num) -> Num:
    value = f32(np.arctan(a.v.astype(np.float64)))
    if a.r is None:
        return Num(value)
    return finish(value, a.r + TRIG_ABSOLUTE + TRIG_RELATIVE * np.abs(value.astype(np.float64)))


def atan2(y: Num, x: Num) -> Num:
    y64, x64 = y.v.astype(np.float64), x.v.astype(np.float64)
    value = f32(np.arctan2(y64, x64))
    if not tracking(y, x):
        return Num(value)
    ry, rx = radius(y), radius(x)
    distance = np.hypot(x64, y64) - np.hypot(rx, ry)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = (rx + ry) / distance
    # Undefined at the origin; on the negative x axis the result jumps between +pi and -pi
    # (and a zero y's sign, which may be interchanged, decides it).
    jump = (x64 - rx <= 0.0) & (np.abs(y64) <= ry)
    undefined = (distance <= 0.0) | jump
    error = spread + TRIG_ABSOLUTE + TRIG_RELATIVE * np.abs(value.astype(np.float64))
    return finish(value, np.where(undefined, np.inf, error))


def scale(a: Num, factor: float) -> Num:
    """a times a binary32 constant (radians, degrees): one rounded multiplication."""
    return multiply(a, Num(np.full_like(a.v, np.float32(factor)), None if a.r is None else np.zeros_like(a.r)))


# Integers --------------------------------------------------------------------------------------------


def wrap(values: np.ndarray) -> np.ndarray:
    """int64 values to int32 by two's complement wrap-around (spec 4.1)."""
    return (((values.astype(np.int64) + 2**31) % 2**32) - 2**31).astype(np.int32)


def _uncertain(*operands: Num) -> np.ndarray | None:
    if not tracking(*operands):
        return None
    total = None
    for operand in operands:
        if operand.r is not None:
            total = operand.r if total is None else np.maximum(total, operand.r)
    return total


def int_add(a: Num, b: Num) -> Num:
    return Num(wrap(a.v.astype(np.int64) + b.v), _uncertain(a, b))


def int_subtract(a: Num, b: Num) -> Num:
    return Num(wrap(a.v.astype(np.int64) - b.v), _uncertain(a, b))


def int_multiply(a: Num, b: Num) -> Num:
    return Num(wrap(a.v.astype(np.int64) * b.v.astype(np.int64)), _uncertain(a, b))


def int_divide(a: Num, b: Num) -> Num:
    """Division truncating toward zero; by zero, and the minimum int by -1, undefined (radius inf, value 0)."""
    a64, b64 = a.v.astype(np.int64), b.v.astype(np.int64)
    undefined = (b64 == 0) | ((a64 == INT32_MIN) & (b64 == -1))
    safe = np.where(undefined, 1, b64)
    quotient = np.abs(a64) // np.abs(safe) * np.sign(a64) * np.sign(safe)
    value = np.where(undefined, 0, quotient).astype(np.int32)
    uncertain = _uncertain(a, b)
    if uncertain is None:
        return Num(value)
    return Num(value, np.where(undefined, np.inf, uncertain))


def int_negate(a: Num) -> Num:
    return Num(wrap(-a.v.astype(np.int64)), a.r)


def int_absolute(a: Num) -> Num:
    return Num(wrap(np.abs(a.v.astype(np.int64))), a.r)


def int_sign(a: Num) -> Num:
    return Num(np.sign(a.v).astype(np.int32), a.r)


def int_minimum(a: Num, b: Num) -> Num:
    return Num(np.minimum(a.v, b.v), _uncertain(a, b))


def int_maximum(a: Num, b: Num) -> Num:
    return Num(np.maximum(a.v, b.v), _uncertain(a, b))


def float_to_int(a: Num) -> Num:
    """Truncation toward zero; undefined (value 0 here, radius inf) outside the int32 range."""
    x = a.v.astype(np.float64)
    with np.errstate(invalid="ignore"):
        truncated = np.trunc(x)
        outside = ~(np.abs(truncated) <= 2.0**31) | (truncated == 2.0**31)
    value = np.where(outside, 0, np.nan_to_num(truncated)).astype(np.int64).astype(np.int32)
    if a.r is None:
        return Num(value)
    with np.errstate(invalid="ignore"):
        moves = (np.trunc(x - a.r) != truncated) | (np.trunc(x + a.r) != truncated)
    return Num(value, np.where(outside | moves, np.inf, 0.0))


def int_to_float(a: Num) -> Num:
    """Runtime int-to-float conversion (spec 4.1): the value, correctly rounded."""
    value = a.v.astype(np.float32)
    if a.r is None:
        return Num(value)
    inexact = value.astype(np.float64) != a.v.astype(np.float64)
    return Num(value, np.where(np.isinf(a.r), np.inf, np.where(inexact, 1.5 * ulp(value), 0.0)))


# Comparisons and selection ---------------------------------------------------------------------------

_COMPARE = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}


def compare(operator: str, a: Num, b: Num, *, floating: bool) -> Num:
    """A bool result; uncertain where float operands' intervals make either outcome possible."""
    value = _COMPARE[operator](a.v, b.v)
    if not tracking(a, b):
        return Num(value)
    spread = radius(a) + radius(b)
    if not floating:
        return Num(value, spread)
    difference = a.v.astype(np.float64) - b.v.astype(np.float64)
    uncertain = straddles(difference, spread, np.zeros_like(difference))
    # Zero signs may be interchanged and subnormals flushed: equal within 2^-126 counts as uncertain.
    flushed = (np.abs(difference) <= FLOAT_MIN_NORMAL) & (difference != 0.0)
    return Num(value, np.where(uncertain | flushed | np.isinf(spread), np.inf, 0.0))


def choose(condition: Num, if_true: Num, if_false: Num, *, floating: bool) -> Num:
    """condition ? if_true : if_false per component; an uncertain condition covers both values."""
    shape = np.broadcast_shapes(np.shape(if_true.v), np.shape(if_false.v), np.shape(condition.v))
    value = np.where(condition.v, if_true.v, if_false.v)
    if not tracking(condition, if_true, if_false):
        return Num(value)
    chosen = np.where(condition.v, radius(if_true), radius(if_false))
    uncertain = np.broadcast_to(radius(condition), shape) > 0
    if floating:
        with np.errstate(invalid="ignore"):
            cover = np.maximum(radius(if_true), radius(if_false)) + np.abs(if_true.v.astype(np.float64) - if_false.v.astype(np.float64))
    else:
        differ = if_true.v != if_false.v
        cover = np.where(differ, np.inf, np.maximum(radius(if_true), radius(if_false)))
    error = np.where(uncertain, cover, chosen)
    return finish(value, error) if floating else Num(value, error)


def logical(operator: str, a: Num, b: Num | None = None) -> Num:
    if operator == "not":
        return Num(~a.v, a.r)
    assert b is not None
    value = (a.v & b.v) if operator == "and" else (a.v | b.v)
    if not tracking(a, b):
        return Num(value)
    ra, rb = radius(a) > 0, radius(b) > 0
    # A certain false (and) / true (or) operand decides the result on its own.
    decisive = a.v if operator == "or" else ~a.v
    decisive_b = b.v if operator == "or" else ~b.v
    uncertain = (ra | rb) & ~((~ra & decisive) | (~rb & decisive_b))
    return Num(value, np.where(uncertain, np.inf, 0.0))


def constant(value: np.ndarray, tracked: bool) -> Num:
    return Num(value, np.zeros(np.shape(value), dtype=np.float64) if tracked else None)
