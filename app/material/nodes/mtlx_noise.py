"""MaterialX's Perlin noise and its fractal sum, bit for bit (VPL helper functions).

MaterialX's `fractal3d` (libraries/stdlib/genglsl/lib/mx_noise.glsl:
`mx_fractal3d_noise_float` / `_vec3` over `mx_perlin_noise_float` / `_vec3`)
hashes each lattice corner with Bob Jenkins' lookup3 final mix on 32-bit
unsigned integers: XOR, rotation and wrapping subtraction. VPL has no bit
operators, but its `int` is 32-bit two's complement with wrapping add,
subtract and multiply and truncating division (VPL 4.1), and unsigned and
signed integers share their bit patterns under those operations. So:

- x << k is x * 2^k (wrapping);
- a logical right shift clears the sign bit first (x + 2^31, wrapping, for
  negative x: the low 31 bits) and divides by a power of two, then puts the
  sign bit back at its new place;
- a rotation is the sum of the two disjoint shifted parts;
- XOR walks the low 31 bits (one halving of each operand per bit; the bit of
  the result is the square of the difference of the operands' bits) and puts
  the XOR of the sign bits on top.

The lattice cell is `float_to_int(floor(p))`, as MaterialX's `mx_floor`. The
corner gradients, the quintic fade, the trilinear blend (MaterialX's operand
order) and the 0.9820 scale follow MaterialX's code, so the editor draws the
same pattern as MaterialX's renderer, to float rounding. The cost is the
XOR: about 9 integer operations a bit, 7 XORs per corner hash (the last two
only on the low bits the gradients read), 8 corners per octave. The numpy
port of MaterialX's code this is checked against is
`tests/mtlx_noise_reference.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.nodes.noise import call
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import BOOL, FLOAT, INT, Type, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import TrackingFunctionBuilder, _Lowering
    from vpl_core.ir.module import Function

#: lookup3's initial value for three 32-bit words, 0xdeadbeef + (3 << 2) + 13, as an int32.
HASH_START = 0xDEADBEEF + (3 << 2) + 13 - (1 << 32)
#: mx_gradient_scale3d: the 3D gradients' sum times this spans about [-1, 1].
PERLIN3_SCALE = 0.9820
#: The offsets of the eight corners in MaterialX's order (x fastest), mx_trilerp's v0 .. v7.
CORNERS = [(dx, dy, dz) for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]
#: Jenkins' final mix: (target ^= source, target -= rotl(source, k)) in order; a, b, c are 0, 1, 2.
_FINAL_ROUNDS = ((2, 1, 14), (0, 2, 11), (1, 0, 25), (2, 1, 16), (0, 2, 4), (1, 0, 14), (2, 1, 24))
_INT_MAX = (1 << 31) - 1


def _less(fn: TrackingFunctionBuilder, lhs: Operand, rhs: Operand) -> Operand:
    return fn.binary(BinaryOperator.LESS, lhs, rhs)


def _select(fn: TrackingFunctionBuilder, condition: Operand, if_true: Operand, if_false: Operand, kind: Type = INT) -> Operand:
    return fn.builtin(Builtin.SELECT, kind, condition, if_true, if_false)


def _low31(fn: TrackingFunctionBuilder, value: Operand, negative: Operand) -> Operand:
    """The low 31 bits of an int32 (non-negative): value + 2^31 for a negative value, without overflow."""
    cleared = fn.add(fn.add(value, fn.i(_INT_MAX)), fn.i(1))
    return _select(fn, negative, cleared, value)


def _shift_right(fn: TrackingFunctionBuilder, value: Operand, bits: int) -> Operand:
    """value >> bits as an unsigned 32-bit integer (1 <= bits <= 31)."""
    negative = _less(fn, value, fn.i(0))
    shifted = fn.divide(_low31(fn, value, negative), fn.i(1 << bits))
    return fn.add(shifted, _select(fn, negative, fn.i(1 << (31 - bits)), fn.i(0)))


def _rotate_left(fn: TrackingFunctionBuilder, value: Operand, bits: int) -> Operand:
    """mx_rotl32(value, bits): the disjoint parts value << bits and value >> (32 - bits), added."""
    return fn.add(fn.multiply(value, fn.i(1 << bits)), _shift_right(fn, value, 32 - bits))


def _low_bits(fn: TrackingFunctionBuilder, value: Operand, bits: int) -> Operand:
    """value & (2^bits - 1) for a non-negative value."""
    return fn.subtract(value, fn.multiply(fn.divide(value, fn.i(1 << bits)), fn.i(1 << bits)))


def xor(lowering: _Lowering, bits: int = 32) -> Function:
    """a ^ b on int32 bit patterns, or only its low `bits` bits (the rest zero) when fewer than 32 are needed.

    Unrolled from the top bit down: each bit is a comparison with its weight, which is then taken off; the
    result gains the weight where the operands' bits differ. All 32 bits: the low 31 so, then the XOR of the
    sign bits."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        a = fn.load(fn.parameter(0))
        b = fn.load(fn.parameter(1))
        a_negative = _less(fn, a, fn.i(0))
        b_negative = _less(fn, b, fn.i(0))
        rest_a = _low31(fn, a, a_negative)
        rest_b = _low31(fn, b, b_negative)
        zero = fn.i(0)
        if bits < 32:
            rest_a, rest_b = _low_bits(fn, rest_a, bits), _low_bits(fn, rest_b, bits)
            result: Operand = zero
        else:
            result = _select(fn, fn.binary(BinaryOperator.NOT_EQUAL, a_negative, b_negative), fn.i(-_INT_MAX - 1), zero)
        for bit in range(min(bits, 31) - 1, -1, -1):
            weight = fn.i(1 << bit)
            set_a = fn.binary(BinaryOperator.GREATER_EQUAL, rest_a, weight)
            set_b = fn.binary(BinaryOperator.GREATER_EQUAL, rest_b, weight)
            if bit:
                rest_a = fn.subtract(rest_a, _select(fn, set_a, weight, zero))
                rest_b = fn.subtract(rest_b, _select(fn, set_b, weight, zero))
            result = fn.add(result, _select(fn, fn.binary(BinaryOperator.NOT_EQUAL, set_a, set_b), weight, zero))
        fn.ret(result)

    return lowering.helper("mtlx_xor" if bits == 32 else f"mtlx_xor_low{bits}", build, [INT, INT], INT)


def hash_corner(lowering: _Lowering, channels: int) -> Function:
    """mx_hash_int(x, y, z): lookup3's final mix of start + x, start + y, start + z (an int32 bit pattern), of
    which only the low bits the gradients read are right: 4 (one channel) or 20 (three, bytes 0 to 2).

    Borrows only travel upwards, so the low n bits of a difference need only the low n bits of its operands:
    the last round's XOR needs as many bits as are read, and the one before as many as the last round reads of
    the word it rotates (its bits up to n + 8)."""
    read = 4 if channels == 1 else 20
    widths = (32, 32, 32, 32, 32, read + 8, read)

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        words: list[Operand] = [fn.add(fn.i(HASH_START), fn.load(fn.parameter(axis))) for axis in range(3)]
        for (target, source, bits), width in zip(_FINAL_ROUNDS, widths, strict=True):
            mixed = call(fn, xor(lowering, width), words[target], words[source])
            words[target] = fn.subtract(mixed, _rotate_left(fn, words[source], bits))
        fn.ret(words[2])

    return lowering.helper("mtlx_hash" if channels == 1 else "mtlx_hash_vecthree", build, [INT, INT, INT], INT)


def _gradient(fn: TrackingFunctionBuilder, hashed: Operand, local: Operand) -> Operand:
    """mx_gradient_float(h & 15, x, y, z): a signed sum of two of x, y, z (12 cube-edge directions) for h in [0, 16)."""
    x, y, z = (fn.swizzle(local, axis) for axis in "xyz")
    u = _select(fn, _less(fn, hashed, fn.i(8)), x, y, FLOAT)
    x_or_z = _select(fn, fn.builtin(Builtin.LOGICAL_OR, BOOL, fn.binary(BinaryOperator.EQUAL, hashed, fn.i(12)),
                                    fn.binary(BinaryOperator.EQUAL, hashed, fn.i(14))), x, z, FLOAT)
    v = _select(fn, _less(fn, hashed, fn.i(4)), y, x_or_z, FLOAT)
    half = fn.divide(hashed, fn.i(2))
    flip_u = fn.binary(BinaryOperator.NOT_EQUAL, fn.subtract(hashed, fn.add(half, half)), fn.i(0))
    flip_v = fn.binary(BinaryOperator.NOT_EQUAL, _low_bits(fn, half, 1), fn.i(0))
    signed_u = _select(fn, flip_u, fn.builtin(Builtin.NEGATE, FLOAT, u), u, FLOAT)
    signed_v = _select(fn, flip_v, fn.builtin(Builtin.NEGATE, FLOAT, v), v, FLOAT)
    return fn.add(signed_u, signed_v)


def _fade(fn: TrackingFunctionBuilder, t: Operand) -> Operand:
    """mx_fade: t^3 (t (6 t - 15) + 10), per component."""
    inner = fn.add(fn.multiply(fn.subtract(fn.multiply(t, fn.f(6.0)), fn.construct(vec(3), fn.f(15.0))), t),
                   fn.construct(vec(3), fn.f(10.0)))
    return fn.multiply(fn.multiply(fn.multiply(t, t), t), inner)


def _trilerp(fn: TrackingFunctionBuilder, values: list[Operand], weights: Operand) -> Operand:
    """mx_trilerp with MaterialX's operand order: r1 (t1 (v0 s1 + v1 s) + t (v2 s1 + v3 s)) + r (...)."""
    s, t, r = (fn.swizzle(weights, axis) for axis in "xyz")
    s1, t1, r1 = (fn.subtract(fn.f(1.0), weight) for weight in (s, t, r))

    def pair(first: Operand, second: Operand) -> Operand:
        return fn.add(fn.multiply(first, s1), fn.multiply(second, s))

    def face(base: int) -> Operand:
        return fn.add(fn.multiply(t1, pair(values[base], values[base + 1])), fn.multiply(t, pair(values[base + 2], values[base + 3])))

    return fn.add(fn.multiply(r1, face(0)), fn.multiply(r, face(4)))


def perlin(lowering: _Lowering, channels: int) -> Function:
    """mx_perlin_noise_float (channels 1) or mx_perlin_noise_vec3 (channels 3, from the hash's bytes 0, 1, 2).

    The eight corners are an explicit loop, so the hash's code appears once (a GLSL compiler inlines every
    call: eight inlined hashes made llvmpipe's compile about ten times longer); each pass keeps its corner's
    gradient value in that corner's register, and the blend after the loop is MaterialX's.
    """

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        kind = FLOAT if channels == 1 else vec(3)
        point = fn.load(fn.parameter(0))
        floor = fn.builtin(Builtin.FLOOR, vec(3), point)
        cells = [fn.builtin(Builtin.FLOAT_TO_INT, INT, fn.swizzle(floor, axis)) for axis in "xyz"]
        local = fn.subtract(point, fn.construct(vec(3), *(fn.construct(FLOAT, cell) for cell in cells)))
        zero = fn.f(0.0) if channels == 1 else fn.construct(kind, fn.f(0.0))
        values = [fn.copy(zero) for _ in CORNERS]
        corner = fn.copy(fn.i(0))
        test, body, finish = fn.new_block(), fn.new_block(), fn.new_block()
        fn.branch(test)

        fn.position_at(test)
        fn.branch_if(_less(fn, corner, fn.i(len(CORNERS))), body, finish)

        fn.position_at(body)
        half, quarter = fn.divide(corner, fn.i(2)), fn.divide(corner, fn.i(4))
        steps = [fn.subtract(corner, fn.add(half, half)), _low_bits(fn, half, 1), quarter]  # corner = x + 2 y + 4 z
        value = call(fn, hash_corner(lowering, channels), *(fn.add(cell, step) for cell, step in zip(cells, steps, strict=True)))
        offset = fn.subtract(local, fn.construct(vec(3), *(fn.construct(FLOAT, step) for step in steps)))
        unsigned = _low31(fn, value, _less(fn, value, fn.i(0)))
        gradients = []
        for channel in range(channels):
            byte = unsigned if channel == 0 else fn.divide(unsigned, fn.i(1 << (8 * channel)))
            gradients.append(_gradient(fn, _low_bits(fn, byte, 4), offset))
        gradient = gradients[0] if channels == 1 else fn.construct(kind, *gradients)
        for index, register in enumerate(values):
            fn.copy(_select(fn, fn.binary(BinaryOperator.EQUAL, corner, fn.i(index)), gradient, register, kind), result=register)
        fn.add(corner, fn.i(1), result=corner)
        fn.branch(test)

        fn.position_at(finish)
        fn.ret(fn.multiply(_trilerp(fn, list(values), _fade(fn, local)), fn.f(PERLIN3_SCALE)))

    return lowering.helper("mtlx_perlin" if channels == 1 else "mtlx_perlin_vecthree", build, [vec(3)], FLOAT if channels == 1 else vec(3))


def fractal(lowering: _Lowering, channels: int) -> Function:
    """mx_fractal3d_noise_float / _vec3(p, octaves, lacunarity, diminish): octave k adds diminish^k times the
    Perlin noise at lacunarity^k p (no normalisation: the sum of 3 octaves spans about [-1.75, 1.75])."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        noise = perlin(lowering, channels)
        kind = FLOAT if channels == 1 else vec(3)
        point = fn.copy(fn.load(fn.parameter(0)))
        octaves = fn.load(fn.parameter(1))
        lacunarity = fn.load(fn.parameter(2))
        diminish = fn.load(fn.parameter(3))
        total = fn.copy(fn.f(0.0) if channels == 1 else fn.construct(kind, fn.f(0.0)))
        amplitude = fn.copy(fn.f(1.0))
        octave = fn.copy(fn.i(0))
        test, body, finish = fn.new_block(), fn.new_block(), fn.new_block()
        fn.branch(test)

        fn.position_at(test)
        fn.branch_if(_less(fn, octave, octaves), body, finish)

        fn.position_at(body)
        fn.add(total, fn.multiply(call(fn, noise, point), amplitude), result=total)
        fn.multiply(amplitude, diminish, result=amplitude)
        fn.multiply(point, lacunarity, result=point)
        fn.add(octave, fn.i(1), result=octave)
        fn.branch(test)

        fn.position_at(finish)
        fn.ret(total)

    name = "mtlx_fractal" if channels == 1 else "mtlx_fractal_vecthree"
    return lowering.helper(name, build, [vec(3), INT, FLOAT, FLOAT], FLOAT if channels == 1 else vec(3))
