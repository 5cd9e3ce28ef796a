"""Texture-space filters that move where a buffer is read: directional, non-uniform and slope blur, warps.

Each is a filter (`texture_passes.define_filter`, docs/texture-space.md): one
pass whose kernel reads its input buffers at offsets, with the buffers'
tiling (tile: the result tiles seamlessly). Distances called *intensity*
are in 1/256 of the texture (pixels of a 256 x 256 buffer), so a graph looks
the same at every buffer resolution, as Substance Designer's do. Angles are
in degrees, as elsewhere in the product; both are value inputs a Float
Parameter may drive (from the parameters panel, without relinking). A greyscale input (blur map,
intensity map, slope) is read as the luminance of its texel (Rec. 709
weights, the product's colour-to-float conversion), so a grey buffer reads
as its value. Gradients are central differences one texel of that input
either side, in height per UV unit. Tap counts shape the code (a change
relinks); angles and intensities are uniforms (an edit re-renders only).

The published formulas are each node's `notes`; tests/filters_b_reference.py
evaluates them independently with numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.material import texture_passes as tp
from app.material.node_types import PortSpec, PropertySpec
from app.material.port_types import LUMINANCE_WEIGHTS, PortType
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import FLOAT, vec
from vpl_core.ir.values import Operand

#: UV units per unit of intensity: 1/256 of the texture.
UNIT = 1.0 / 256.0
#: The Vogel spiral's angle step (the golden angle), for the non-uniform blur's disc of taps.
GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))
SAMPLE_COUNTS = ("8", "16", "32", "64")


def picture(name: str, caption: str) -> str:
    """The docs' picture of a node (docs/images, made by tools/make_warp_pictures.py), for its `notes`."""
    return f'<br><img src="images/filter-{name}.png" width="390" alt="{caption}">'


def _luminance(ctx: tp.PassContext, texel: Operand) -> Operand:
    fn = ctx.fn
    weights = fn.construct(vec(3), *(fn.f(weight) for weight in LUMINANCE_WEIGHTS))
    return fn.builtin(Builtin.DOT, FLOAT, fn.swizzle(texel, "xyz"), weights)


def _direction(ctx: tp.PassContext, degrees: Operand) -> Operand:
    fn = ctx.fn
    angle = fn.builtin(Builtin.RADIANS, FLOAT, degrees)
    return fn.construct(vec(2), fn.builtin(Builtin.COS, FLOAT, angle), fn.builtin(Builtin.SIN, FLOAT, angle))


def _gradient(ctx: tp.PassContext, name: str, uv: Operand) -> Operand:
    """Central differences of input `name`'s luminance one of its texels either side of `uv`, per UV unit."""
    fn = ctx.fn
    step = ctx.input_texel(name)

    def at(dx: float, dy: float) -> Operand:
        return _luminance(ctx, ctx.sample(name, fn.add(uv, fn.construct(vec(2), fn.f(dx), fn.f(dy)))))

    du = fn.subtract(at(step, 0.0), at(-step, 0.0))
    dv = fn.subtract(at(0.0, step), at(0.0, -step))
    return fn.multiply(fn.construct(vec(2), du, dv), fn.f(0.5 / step))


def _weighted_sum(ctx: tp.PassContext, name: str, taps: Sequence[tuple[Operand, float]]) -> Operand:
    """sum(w_k * input(uv_k)) / sum(w_k)."""
    fn = ctx.fn
    total: Operand | None = None
    for uv, weight in taps:
        term = fn.multiply(ctx.sample(name, uv), fn.f(weight))
        total = term if total is None else fn.add(total, term)
    assert total is not None
    return fn.multiply(total, fn.f(1.0 / sum(weight for _, weight in taps)))


def _samples(ctx: tp.PassContext) -> int:
    return int(ctx.choice("samples"))


# Directional Blur ---------------------------------------------------------------------------------


def directional_taps(samples: int) -> list[tuple[float, float]]:
    """(t_k, w_k): positions along the streak in [-1, 1] and their Gaussian weights exp(-2 t^2)."""
    taps = []
    for k in range(samples):
        t = -1.0 + 2.0 * k / (samples - 1)
        taps.append((t, math.exp(-2.0 * t * t)))
    return taps


def _directional_blur(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    reach = fn.multiply(_direction(ctx, ctx.value("angle")), fn.multiply(ctx.value("intensity"), fn.f(UNIT)))
    taps = [(fn.add(ctx.uv, fn.multiply(reach, fn.f(t))), weight) for t, weight in directional_taps(_samples(ctx))]
    return _weighted_sum(ctx, "input", taps)


tp.define_filter(
    "directional_blur", "Directional Blur",
    "Blurs along one direction (a streak of Gaussian-weighted taps), tiling seamlessly.",
    inputs=[PortSpec("input", PortType.TEXTURE, None), PortSpec("angle", PortType.FLOAT, 0.0),
            PortSpec("intensity", PortType.FLOAT, 8.0)],
    properties=[
        PropertySpec("angle", "float", 0.0, 0.0, 360.0),
        PropertySpec("intensity", "float", 8.0, 0.0, 64.0),
        PropertySpec("samples", "enum", "32", choices=SAMPLE_COUNTS),
    ],
    passes=lambda setup: [tp.FilterPass("blur", _directional_blur)],
    notes=(
        "One pass: n taps (samples) at uv + t_k d, t_k = -1 + 2k/(n-1), d = (cos a, sin a) x intensity / 256 (the "
        "streak's half-length, in 1/256 of the texture), weights exp(-2 t_k^2) normalised; bilinear, with the "
        "buffer's tiling. Angle in degrees."
        + picture("directional-blur", "Tile Sampler discs, then Directional Blur at 30 degrees, intensity 16")
    ),
)


# Non-Uniform Blur ---------------------------------------------------------------------------------


def vogel_taps(samples: int) -> list[tuple[float, float, float]]:
    """(x, y, w) of the disc of taps: radius sqrt((k + 0.5)/n), angle k x golden angle, weight exp(-2 r^2)."""
    taps = []
    for k in range(samples):
        radius = math.sqrt((k + 0.5) / samples)
        angle = k * GOLDEN_ANGLE
        taps.append((radius * math.cos(angle), radius * math.sin(angle), math.exp(-2.0 * radius * radius)))
    return taps


def _non_uniform_blur(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    radius = fn.multiply(_luminance(ctx, ctx.sample("blur_map", ctx.uv)), fn.multiply(ctx.value("intensity"), fn.f(UNIT)))
    taps = []
    for x, y, weight in vogel_taps(_samples(ctx)):
        offset = fn.multiply(fn.construct(vec(2), fn.f(x), fn.f(y)), radius)
        taps.append((fn.add(ctx.uv, offset), weight))
    return _weighted_sum(ctx, "input", taps)


tp.define_filter(
    "non_uniform_blur", "Non-Uniform Blur",
    "Blurs by what a greyscale blur map says per texel: black stays sharp, white blurs most.",
    inputs=[PortSpec("input", PortType.TEXTURE, None), PortSpec("blur_map", PortType.TEXTURE, None, label="blur map"),
            PortSpec("intensity", PortType.FLOAT, 8.0)],
    properties=[
        PropertySpec("intensity", "float", 8.0, 0.0, 64.0),
        PropertySpec("samples", "enum", "32", choices=SAMPLE_COUNTS),
    ],
    passes=lambda setup: [tp.FilterPass("blur", _non_uniform_blur)],
    notes=(
        "One pass: radius r = intensity / 256 x luminance(blur map at uv); n taps (samples) on a Vogel disc, "
        "uv + r rho_k (cos k g, sin k g) with rho_k = sqrt((k + 0.5)/n) and g the golden angle, weights "
        "exp(-2 rho_k^2) normalised; bilinear, with the buffers' tiling."
        + picture("non-uniform-blur", "Scattered squares, a linear gradient as blur map, then Non-Uniform Blur: sharp on the left, blurred on the right")
    ),
)


# Slope Blur --------------------------------------------------------------------------------------

SLOPE_MODES = ("blur", "min", "max")


def _slope_blur(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    samples = _samples(ctx)
    mode = ctx.choice("mode")
    step = fn.multiply(ctx.value("intensity"), fn.f(-UNIT / samples))
    point = ctx.uv
    result: Operand | None = None
    for k in range(samples):
        value = ctx.sample("input", point)
        if result is None:
            result = value
        elif mode == "blur":
            result = fn.add(result, value)
        else:
            result = fn.builtin(Builtin.MIN if mode == "min" else Builtin.MAX, vec(4), result, value)
        if k < samples - 1:
            point = fn.add(point, fn.multiply(_gradient(ctx, "slope", point), step))
    assert result is not None
    return fn.multiply(result, fn.f(1.0 / samples)) if mode == "blur" else result


tp.define_filter(
    "slope_blur", "Slope Blur",
    "Smears the input along the slopes of a height (slope) map: positive intensity reads downhill.",
    inputs=[PortSpec("input", PortType.TEXTURE, None), PortSpec("slope", PortType.TEXTURE, None),
            PortSpec("intensity", PortType.FLOAT, 4.0)],
    properties=[
        PropertySpec("intensity", "float", 4.0, -16.0, 16.0),
        PropertySpec("samples", "enum", "16", choices=("4", "8", "16", "32")),
        PropertySpec("mode", "enum", "blur", choices=SLOPE_MODES),
    ],
    passes=lambda setup: [tp.FilterPass("blur", _slope_blur)],
    notes=(
        "One pass: p_0 = uv, p_{k+1} = p_k - intensity / (256 n) x grad(slope at p_k) (central differences of "
        "the slope's luminance one texel either side, per UV unit); the input's samples at p_0 .. p_{n-1} "
        "averaged (blur) or their per-channel minimum / maximum (min, max). Flat slope: no blur."
        + picture("slope-blur", "White discs, a fractal noise slope (16-bit buffer), then Slope Blur, intensity 10, 32 samples")
    ),
)


# Warps -------------------------------------------------------------------------------------------


def _directional_warp(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    amount = fn.multiply(_luminance(ctx, ctx.sample("intensity_map", ctx.uv)), fn.multiply(ctx.value("intensity"), fn.f(UNIT)))
    return ctx.sample("input", fn.add(ctx.uv, fn.multiply(_direction(ctx, ctx.value("angle")), amount)))


tp.define_filter(
    "directional_warp", "Directional Warp",
    "Shifts the input along one direction by a distance an intensity map sets per texel.",
    inputs=[PortSpec("input", PortType.TEXTURE, None),
            PortSpec("intensity_map", PortType.TEXTURE, None, label="intensity map"),
            PortSpec("angle", PortType.FLOAT, 0.0), PortSpec("intensity", PortType.FLOAT, 8.0)],
    properties=[
        PropertySpec("angle", "float", 0.0, 0.0, 360.0),
        PropertySpec("intensity", "float", 8.0, 0.0, 64.0),
    ],
    passes=lambda setup: [tp.FilterPass("warp", _directional_warp)],
    notes=(
        "One pass: input(uv + (cos a, sin a) x intensity / 256 x luminance(intensity map at uv)); bilinear, with "
        "the buffers' tiling. Angle in degrees."
        + picture("directional-warp", "Bricks, a fractal noise intensity map, then Directional Warp at 45 degrees, intensity 24")
    ),
)


def _warp(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    offset = fn.multiply(_gradient(ctx, "gradient", ctx.uv), fn.multiply(ctx.value("intensity"), fn.f(UNIT)))
    return ctx.sample("input", fn.add(ctx.uv, offset))


tp.define_filter(
    "warp", "Warp",
    "Distorts the input along the slopes of a gradient (height) map: it is read uphill.",
    inputs=[PortSpec("input", PortType.TEXTURE, None), PortSpec("gradient", PortType.TEXTURE, None),
            PortSpec("intensity", PortType.FLOAT, 1.0)],
    properties=[PropertySpec("intensity", "float", 1.0, 0.0, 16.0)],
    passes=lambda setup: [tp.FilterPass("warp", _warp)],
    notes=(
        "One pass: input(uv + intensity / 256 x grad(gradient at uv)), grad by central differences of the "
        "gradient map's luminance one texel either side, per UV unit (a ramp rising by 1 across the texture "
        "moves by intensity / 256); bilinear, with the buffers' tiling."
        + picture("warp", "Bricks, a fractal noise gradient map (16-bit buffer), then Warp, intensity 0.6")
    ),
)
