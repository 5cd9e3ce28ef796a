"""Noise kernels: the hash and the noise functions the procedural nodes call (VPL helper functions).

This module registers no node type; `procedural.py` and `patterns.py` call
the kernels below, each of which asks `_Lowering.helper` for a fragment
helper function that is emitted once per module however many nodes use it.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `app/material/nodes/noise.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import FLOAT, INT, Type, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import TrackingFunctionBuilder, _Lowering
    from vpl_core.ir.module import Function

INVERSE_289 = 1.0 / 289.0
#: Voronoi distance metrics (helper name suffixes).
METRICS = ("euclidean", "manhattan", "chebyshev")
#: Fractal bases and modes (helper name parts).
BASES = ("value", "gradient", "simplex", "voronoi")
MODES = ("fbm", "turbulence", "ridged")
#: Multiplies signed noise so it spans about [-1, 1] (measured maxima over 10^6 points, rounded up).
GRADIENT2_SCALE = math.sqrt(2.0)
GRADIENT3_SCALE = 1.0 / 0.8660254
SIMPLEX2_SCALE = 70.0
SIMPLEX3_SCALE = 32.0

_SUFFIX = {1: "", 2: "_vec", 3: "_vecthree", 4: "_vecfour"}


def value_type(width: int) -> Type:
    return FLOAT if width == 1 else vec(width)


def splat(fn: TrackingFunctionBuilder, value: float, width: int) -> Operand:
    return fn.f(value) if width == 1 else fn.construct(vec(width), fn.f(value))


def vector(fn: TrackingFunctionBuilder, *values: float) -> Operand:
    return fn.construct(vec(len(values)), *(fn.f(value) for value in values))


def call(fn: TrackingFunctionBuilder, function: Function, *arguments: Operand) -> Operand:
    result = fn.call(function, *arguments)
    assert result is not None
    return result


# The exact hash ---------------------------------------------------------------------------------


def mod289(lowering: _Lowering, width: int) -> Function:
    """x mod 289 for integer-valued x in [-2^23, 11,300,000], exact (see the module docstring)."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        x = fn.load(fn.parameter(0))
        kind = value_type(width)
        quotient = fn.builtin(Builtin.FLOOR, kind, fn.multiply(x, fn.f(INVERSE_289)))
        rest = fn.subtract(x, fn.multiply(quotient, fn.f(289.0)))
        below = fn.subtract(splat(fn, 1.0, width), fn.builtin(Builtin.STEP, kind, fn.f(0.0), rest))
        rest = fn.add(rest, fn.multiply(below, fn.f(289.0)))
        above = fn.builtin(Builtin.STEP, kind, fn.f(289.0), rest)
        fn.ret(fn.subtract(rest, fn.multiply(above, fn.f(289.0))))

    return lowering.helper("noise_mod" + _SUFFIX[width], build, [value_type(width)], value_type(width))


def permute(lowering: _Lowering, width: int) -> Function:
    """((34 x + 1) x) mod 289 for integer-valued x in [0, 578), exact."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        x = fn.load(fn.parameter(0))
        product = fn.multiply(fn.add(fn.multiply(x, fn.f(34.0)), splat(fn, 1.0, width)), x)
        fn.ret(call(fn, mod289(lowering, width), product))

    return lowering.helper("noise_permute" + _SUFFIX[width], build, [value_type(width)], value_type(width))


def hash_cell(lowering: _Lowering, dimensions: int) -> Function:
    """hash2 / hash3 of an integer lattice cell: an integer in [0, 289)."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        cell = call(fn, mod289(lowering, dimensions), fn.load(fn.parameter(0)))
        scramble = permute(lowering, 1)
        value = call(fn, scramble, fn.swizzle(cell, "x"))
        for axis in "yz"[: dimensions - 1]:
            value = call(fn, scramble, fn.add(value, fn.swizzle(cell, axis)))
        fn.ret(value)

    name = "noise_hash" if dimensions == 2 else "noise_hash_space"
    return lowering.helper(name, build, [vec(dimensions)], FLOAT)


def scramble_offsets(fn: TrackingFunctionBuilder, lowering: _Lowering, hashed: Operand, offsets: tuple[float, ...]) -> Operand:
    """permute(h + offsets): further hash values of one cell (integers in [0, 289))."""
    width = len(offsets)
    return call(fn, permute(lowering, width), fn.add(fn.construct(vec(width), hashed), vector(fn, *offsets)))


def cell_color(lowering: _Lowering) -> Function:
    """The colour of a cell from its hash: permute(h + (2, 3, 4)) / 288, each in [0, 1]."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        hashed = fn.load(fn.parameter(0))
        fn.ret(fn.multiply(scramble_offsets(fn, lowering, hashed, (2.0, 3.0, 4.0)), fn.f(1.0 / 288.0)))

    return lowering.helper("noise_cell_color", build, [FLOAT], vec(3))


def white_noise(lowering: _Lowering, dimensions: int) -> Function:
    """hash(floor(p)) / 288: one random value in [0, 1] per unit cell."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        cell = fn.builtin(Builtin.FLOOR, vec(dimensions), fn.load(fn.parameter(0)))
        fn.ret(call(fn, hash_cell(lowering, dimensions), cell))

    return lowering.helper("noise_white" if dimensions == 2 else "noise_white_space", build, [vec(dimensions)], FLOAT)


# Lattice noise ----------------------------------------------------------------------------------


def _corners(dimensions: int) -> list[tuple[float, ...]]:
    if dimensions == 2:
        return [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
    return [(x, y, z) for z in (0.0, 1.0) for y in (0.0, 1.0) for x in (0.0, 1.0)]


def _blend_corners(fn: TrackingFunctionBuilder, values: Sequence[Operand], weights: Operand, dimensions: int) -> Operand:
    """Multilinear blend of corner values (corner order of `_corners`) with per-axis weights."""
    level: Sequence[Operand] = values
    for axis in "xyz"[:dimensions]:
        weight = fn.swizzle(weights, axis)
        level = [fn.builtin(Builtin.MIX, FLOAT, level[index], level[index + 1], weight) for index in range(0, len(level), 2)]
    return level[0]


def _hermite(fn: TrackingFunctionBuilder, local: Operand, dimensions: int) -> Operand:
    """3f^2 - 2f^3 per component."""
    three_minus = fn.subtract(splat(fn, 3.0, dimensions), fn.multiply(local, fn.f(2.0)))
    return fn.multiply(fn.multiply(local, local), three_minus)


def _quintic(fn: TrackingFunctionBuilder, local: Operand, dimensions: int) -> Operand:
    """6f^5 - 15f^4 + 10f^3 per component."""
    inner = fn.add(fn.multiply(fn.subtract(fn.multiply(local, fn.f(6.0)), splat(fn, 15.0, dimensions)), local), splat(fn, 10.0, dimensions))
    return fn.multiply(fn.multiply(fn.multiply(local, local), local), inner)


def value_noise(lowering: _Lowering, dimensions: int) -> Function:
    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        point = fn.load(fn.parameter(0))
        cell = fn.builtin(Builtin.FLOOR, vec(dimensions), point)
        local = fn.subtract(point, cell)
        hashed = hash_cell(lowering, dimensions)
        values = []
        for corner in _corners(dimensions):
            corner_cell = cell if not any(corner) else fn.add(cell, vector(fn, *corner))
            values.append(fn.multiply(call(fn, hashed, corner_cell), fn.f(1.0 / 288.0)))
        fn.ret(_blend_corners(fn, values, _hermite(fn, local, dimensions), dimensions))

    name = "value_noise" if dimensions == 2 else "value_noise_space"
    return lowering.helper(name, build, [vec(dimensions)], FLOAT)


def gradient(lowering: _Lowering, dimensions: int) -> Function:
    """The unit gradient of a cell hash h."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        hashed = fn.load(fn.parameter(0))
        if dimensions == 2:
            angle = fn.multiply(hashed, fn.f(2.0 * math.pi / 289.0))
            fn.ret(fn.construct(vec(2), fn.builtin(Builtin.COS, FLOAT, angle), fn.builtin(Builtin.SIN, FLOAT, angle)))
            return
        z = fn.subtract(fn.multiply(hashed, fn.f(2.0 / 288.0)), fn.f(1.0))
        second = call(fn, permute(lowering, 1), fn.add(hashed, fn.f(1.0)))
        angle = fn.multiply(second, fn.f(2.0 * math.pi / 289.0))
        radius = fn.builtin(Builtin.SQRT, FLOAT, fn.builtin(Builtin.MAX, FLOAT, fn.subtract(fn.f(1.0), fn.multiply(z, z)), fn.f(0.0)))
        fn.ret(
            fn.construct(
                vec(3),
                fn.multiply(radius, fn.builtin(Builtin.COS, FLOAT, angle)),
                fn.multiply(radius, fn.builtin(Builtin.SIN, FLOAT, angle)),
                z,
            )
        )

    name = "noise_gradient" if dimensions == 2 else "noise_gradient_space"
    return lowering.helper(name, build, [FLOAT], vec(dimensions))


def gradient_noise(lowering: _Lowering, dimensions: int) -> Function:
    """Signed Perlin gradient noise, about [-1, 1]."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        point = fn.load(fn.parameter(0))
        cell = fn.builtin(Builtin.FLOOR, vec(dimensions), point)
        local = fn.subtract(point, cell)
        hashed = hash_cell(lowering, dimensions)
        direction = gradient(lowering, dimensions)
        values = []
        for corner in _corners(dimensions):
            corner_cell = cell if not any(corner) else fn.add(cell, vector(fn, *corner))
            offset = local if not any(corner) else fn.subtract(local, vector(fn, *corner))
            values.append(fn.builtin(Builtin.DOT, FLOAT, call(fn, direction, call(fn, hashed, corner_cell)), offset))
        blended = _blend_corners(fn, values, _quintic(fn, local, dimensions), dimensions)
        fn.ret(fn.multiply(blended, fn.f(GRADIENT2_SCALE if dimensions == 2 else GRADIENT3_SCALE)))

    name = "gradient_noise" if dimensions == 2 else "gradient_noise_space"
    return lowering.helper(name, build, [vec(dimensions)], FLOAT)


def _simplex_corner(
    fn: TrackingFunctionBuilder, lowering: _Lowering, cell: Operand, offset: Operand, radius: float, dimensions: int
) -> Operand:
    """max(r - |x|^2, 0)^4 * dot(gradient(hash(cell)), x)."""
    falloff = fn.builtin(Builtin.MAX, FLOAT, fn.subtract(fn.f(radius), fn.builtin(Builtin.DOT, FLOAT, offset, offset)), fn.f(0.0))
    squared = fn.multiply(falloff, falloff)
    direction = call(fn, gradient(lowering, dimensions), call(fn, hash_cell(lowering, dimensions), cell))
    return fn.multiply(fn.multiply(squared, squared), fn.builtin(Builtin.DOT, FLOAT, direction, offset))


def simplex_noise(lowering: _Lowering, dimensions: int) -> Function:
    """Signed simplex noise (Gustavson, "Simplex noise demystified", 2005), about [-1, 1]."""

    def build2(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        skew = 0.5 * (math.sqrt(3.0) - 1.0)
        unskew = (3.0 - math.sqrt(3.0)) / 6.0
        point = fn.load(fn.parameter(0))
        skewed = fn.multiply(fn.add(fn.swizzle(point, "x"), fn.swizzle(point, "y")), fn.f(skew))
        cell = fn.builtin(Builtin.FLOOR, vec(2), fn.add(point, fn.construct(vec(2), skewed)))
        back = fn.multiply(fn.add(fn.swizzle(cell, "x"), fn.swizzle(cell, "y")), fn.f(unskew))
        first = fn.add(fn.subtract(point, cell), fn.construct(vec(2), back))
        along_x = fn.builtin(Builtin.STEP, FLOAT, fn.swizzle(first, "y"), fn.swizzle(first, "x"))
        step_cell = fn.construct(vec(2), along_x, fn.subtract(fn.f(1.0), along_x))
        second = fn.add(fn.subtract(first, step_cell), splat(fn, unskew, 2))
        third = fn.add(first, splat(fn, 2.0 * unskew - 1.0, 2))
        total = _simplex_corner(fn, lowering, cell, first, 0.5, 2)
        total = fn.add(total, _simplex_corner(fn, lowering, fn.add(cell, step_cell), second, 0.5, 2))
        total = fn.add(total, _simplex_corner(fn, lowering, fn.add(cell, splat(fn, 1.0, 2)), third, 0.5, 2))
        fn.ret(fn.multiply(total, fn.f(SIMPLEX2_SCALE)))

    def build3(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        point = fn.load(fn.parameter(0))
        skewed = fn.builtin(Builtin.DOT, FLOAT, point, splat(fn, 1.0 / 3.0, 3))
        cell = fn.builtin(Builtin.FLOOR, vec(3), fn.add(point, fn.construct(vec(3), skewed)))
        back = fn.builtin(Builtin.DOT, FLOAT, cell, splat(fn, 1.0 / 6.0, 3))
        first = fn.add(fn.subtract(point, cell), fn.construct(vec(3), back))
        greater = fn.builtin(Builtin.STEP, vec(3), fn.swizzle(first, "yzx"), first)
        lesser = fn.subtract(splat(fn, 1.0, 3), greater)
        rotated = fn.swizzle(lesser, "zxy")
        step_one = fn.builtin(Builtin.MIN, vec(3), greater, rotated)
        step_two = fn.builtin(Builtin.MAX, vec(3), greater, rotated)
        second = fn.add(fn.subtract(first, step_one), splat(fn, 1.0 / 6.0, 3))
        third = fn.add(fn.subtract(first, step_two), splat(fn, 2.0 / 6.0, 3))
        fourth = fn.add(first, splat(fn, 3.0 / 6.0 - 1.0, 3))
        total = _simplex_corner(fn, lowering, cell, first, 0.6, 3)
        total = fn.add(total, _simplex_corner(fn, lowering, fn.add(cell, step_one), second, 0.6, 3))
        total = fn.add(total, _simplex_corner(fn, lowering, fn.add(cell, step_two), third, 0.6, 3))
        total = fn.add(total, _simplex_corner(fn, lowering, fn.add(cell, splat(fn, 1.0, 3)), fourth, 0.6, 3))
        fn.ret(fn.multiply(total, fn.f(SIMPLEX3_SCALE)))

    if dimensions == 2:
        return lowering.helper("simplex_noise", build2, [vec(2)], FLOAT)
    return lowering.helper("simplex_noise_space", build3, [vec(3)], FLOAT)


# Cellular noise ---------------------------------------------------------------------------------


def _distance(fn: TrackingFunctionBuilder, offset: Operand, metric: str, dimensions: int) -> Operand:
    if metric == "manhattan":
        return fn.builtin(Builtin.DOT, FLOAT, fn.builtin(Builtin.ABS, vec(dimensions), offset), splat(fn, 1.0, dimensions))
    if metric == "chebyshev":
        absolute = fn.builtin(Builtin.ABS, vec(dimensions), offset)
        largest = fn.builtin(Builtin.MAX, FLOAT, fn.swizzle(absolute, "x"), fn.swizzle(absolute, "y"))
        if dimensions == 3:
            largest = fn.builtin(Builtin.MAX, FLOAT, largest, fn.swizzle(absolute, "z"))
        return largest
    return fn.builtin(Builtin.LENGTH, FLOAT, offset)


def voronoi(lowering: _Lowering, dimensions: int, metric: str) -> Function:
    """(F1, F2, hash of the nearest cell) for voronoi(p, jitter); jitter 0 is a regular grid."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        point = fn.load(fn.parameter(0))
        jitter = fn.load(fn.parameter(1))
        cell = fn.builtin(Builtin.FLOOR, vec(dimensions), point)
        local = fn.subtract(point, cell)
        hashed = hash_cell(lowering, dimensions)
        nearest = fn.copy(fn.f(8.0))
        second = fn.copy(fn.f(8.0))
        nearest_hash = fn.copy(fn.f(0.0))
        offsets: list[tuple[float, ...]] = [(x, y) for y in (-1.0, 0.0, 1.0) for x in (-1.0, 0.0, 1.0)]
        if dimensions == 3:
            offsets = [(x, y, z) for z in (-1.0, 0.0, 1.0) for y in (-1.0, 0.0, 1.0) for x in (-1.0, 0.0, 1.0)]
        scramble = tuple(float(axis) for axis in range(dimensions))
        for offset in offsets:
            value = call(fn, hashed, fn.add(cell, vector(fn, *offset)))
            random = fn.multiply(scramble_offsets(fn, lowering, value, scramble), fn.f(INVERSE_289))
            shift = fn.multiply(fn.subtract(random, splat(fn, 0.5, dimensions)), jitter)
            feature = fn.add(shift, vector(fn, *(component + 0.5 for component in offset)))
            distance = _distance(fn, fn.subtract(feature, local), metric, dimensions)
            closer = fn.binary(BinaryOperator.LESS, distance, nearest)
            fn.call_builtin(Builtin.MIN, FLOAT, second, fn.builtin(Builtin.MAX, FLOAT, nearest, distance), result=second)
            fn.call_builtin(Builtin.SELECT, FLOAT, closer, value, nearest_hash, result=nearest_hash)
            fn.call_builtin(Builtin.MIN, FLOAT, nearest, distance, result=nearest)
        fn.ret(fn.construct(vec(3), nearest, second, nearest_hash))

    plane = "" if dimensions == 2 else "_space"
    return lowering.helper(f"voronoi_{metric}{plane}", build, [vec(dimensions), FLOAT], vec(3))


# Fractal sums -----------------------------------------------------------------------------------


def signed_basis(lowering: _Lowering, basis: str, dimensions: int) -> Function:
    """The basis as a signed function of about [-1, 1] (value and Voronoi F1 are remapped)."""
    if basis == "gradient":
        return gradient_noise(lowering, dimensions)
    if basis == "simplex":
        return simplex_noise(lowering, dimensions)

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        point = fn.load(fn.parameter(0))
        if basis == "voronoi":
            unsigned: Operand = fn.swizzle(call(fn, voronoi(lowering, dimensions, "euclidean"), point, fn.f(1.0)), "x")
        else:
            unsigned = call(fn, value_noise(lowering, dimensions), point)
        fn.ret(fn.subtract(fn.multiply(unsigned, fn.f(2.0)), fn.f(1.0)))

    plane = "" if dimensions == 2 else "_space"
    return lowering.helper(f"signed_{basis}{plane}", build, [vec(dimensions)], FLOAT)


def fractal(lowering: _Lowering, basis: str, mode: str, dimensions: int) -> Function:
    """fractal(p, octaves, lacunarity, gain) in [0, 1] (fBm about [0, 1]).

    Octave k adds amplitude a_k = gain^k times layer(frequency_k * p) with
    frequency_k = lacunarity^k, and the sum is divided by the summed
    amplitudes. The layer is, for a signed basis n: fBm 0.5 + 0.5 n,
    turbulence |n|, ridged (1 - |n|)^2. The octave loop is explicit VPL:
    a test block with a conditional branch, a body block, and a back-edge.
    """

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        noise = signed_basis(lowering, basis, dimensions)
        point = fn.load(fn.parameter(0))
        octaves = fn.load(fn.parameter(1))
        lacunarity = fn.load(fn.parameter(2))
        gain = fn.load(fn.parameter(3))
        total = fn.copy(fn.f(0.0))
        amplitude = fn.copy(fn.f(0.5))
        amplitude_sum = fn.copy(fn.f(0.0))
        frequency = fn.copy(fn.f(1.0))
        octave = fn.copy(fn.i(0))
        test, body, finish = fn.new_block(), fn.new_block(), fn.new_block()
        fn.branch(test)

        fn.position_at(test)
        fn.branch_if(fn.binary(BinaryOperator.LESS, octave, octaves), body, finish)

        fn.position_at(body)
        signed = call(fn, noise, fn.multiply(point, frequency))
        layer = _layer(fn, signed, mode)
        fn.add(total, fn.multiply(layer, amplitude), result=total)
        fn.add(amplitude_sum, amplitude, result=amplitude_sum)
        fn.multiply(frequency, lacunarity, result=frequency)
        fn.multiply(amplitude, gain, result=amplitude)
        fn.add(octave, fn.i(1), result=octave)
        fn.branch(test)  # the loop's back-edge

        fn.position_at(finish)
        # Dividing by the summed amplitude keeps the result in [0, 1]; max() guards octaves <= 0.
        fn.ret(fn.divide(total, fn.builtin(Builtin.MAX, FLOAT, amplitude_sum, fn.f(1e-6))))

    if (basis, mode, dimensions) == ("value", "fbm", 2):
        name = "fractal_noise"  # the name materials saved before the other bases existed use
    else:
        name = f"fractal_{basis}_{mode}" + ("" if dimensions == 2 else "_space")
    return lowering.helper(name, build, [vec(dimensions), INT, FLOAT, FLOAT], FLOAT)


def _layer(fn: TrackingFunctionBuilder, signed: Operand, mode: str) -> Operand:
    if mode == "turbulence":
        return fn.builtin(Builtin.ABS, FLOAT, signed)
    if mode == "ridged":
        ridge = fn.subtract(fn.f(1.0), fn.builtin(Builtin.ABS, FLOAT, signed))
        return fn.multiply(ridge, ridge)
    return fn.add(fn.multiply(signed, fn.f(0.5)), fn.f(0.5))


def to_unit(fn: TrackingFunctionBuilder, signed: Operand) -> Operand:
    """0.5 + 0.5 n: a signed noise in [0, 1]."""
    return fn.add(fn.multiply(signed, fn.f(0.5)), fn.f(0.5))

