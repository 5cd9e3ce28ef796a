"""Tone adjustments of a texture: Levels, Histogram Scan, Histogram Range.

Texture-space filters (`texture_passes.define_filter`) of one pass that
read each texel of the input buffer once and remap its value, so they sit
in a chain of buffers and filters the way Substance Designer's
adjustments do (a Histogram Scan of a blurred mask, a Levels before a
Curvature). Every value is a uniform of the pass (dragging a slider
re-renders without relinking); only Levels' choice of channels shapes the
code. The formulas are in each node's notes (docs/material-nodes.md);
tests/analysis_filter_reference.py checks them.
"""

from __future__ import annotations

from app.material.node_types import PortSpec, PropertySpec
from app.material.nodes.texture_space_analysis import picture
from app.material.port_types import PortType
from app.material.texture_passes import FilterPass, FilterSetup, PassContext, define_filter
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import FLOAT, vec
from vpl_core.ir.values import Operand

#: Levels' channel choices and the components each adjusts (the others pass through).
LEVELS_CHANNELS: dict[str, str] = {"rgb": "xyz", "rgba": "xyzw", "red": "x", "green": "y", "blue": "z", "alpha": "w"}
#: The narrowest input window (in_high − in_low, or 1 − contrast): narrower acts as this, a step.
NARROWEST = 1e-5


def _with_channels(ctx: PassContext, original: Operand, adjusted: Operand, components: str) -> Operand:
    """`adjusted` in `components`, `original` in the others (vec4)."""
    fn = ctx.fn
    return fn.construct(vec(4), *(fn.swizzle(adjusted if letter in components else original, letter) for letter in "xyzw"))


def _remap(ctx: PassContext, value: Operand, low: Operand, width: Operand) -> Operand:
    """clamp((value − low) / max(width, NARROWEST), 0, 1), component-wise on a vec4."""
    fn = ctx.fn
    narrowest = fn.builtin(Builtin.MAX, FLOAT, width, fn.f(NARROWEST))
    shifted = fn.subtract(value, fn.construct(vec(4), low))
    return fn.builtin(Builtin.CLAMP, vec(4), fn.multiply(shifted, fn.divide(fn.f(1.0), narrowest)), fn.f(0.0), fn.f(1.0))


def _levels_passes(setup: FilterSetup) -> list[FilterPass]:
    components = LEVELS_CHANNELS[setup.choice("channels")]

    def kernel(ctx: PassContext) -> Operand:
        fn = ctx.fn
        texel = ctx.sample("input", ctx.uv)
        in_low, in_high = ctx.value("in_black"), ctx.value("in_white")
        out_low, out_high = ctx.value("out_black"), ctx.value("out_white")
        t = _remap(ctx, texel, in_low, fn.subtract(in_high, in_low))
        exponent = fn.divide(fn.f(1.0), fn.builtin(Builtin.MAX, FLOAT, ctx.value("gamma"), fn.f(1e-3)))
        curved = fn.builtin(Builtin.POW, vec(4), t, fn.construct(vec(4), exponent, exponent, exponent, exponent))
        adjusted = fn.add(fn.construct(vec(4), out_low), fn.multiply(curved, fn.subtract(out_high, out_low)))
        return _with_channels(ctx, texel, adjusted, components)

    return [FilterPass("levels", kernel)]


define_filter(
    "texture_levels",
    "Texture Levels",
    "Levels of a texture (in/out black and white points, gamma) on the channels you pick.",
    inputs=[PortSpec("input", PortType.TEXTURE, None),
            PortSpec("in_black", PortType.FLOAT),
            PortSpec("in_white", PortType.FLOAT),
            PortSpec("gamma", PortType.FLOAT),
            PortSpec("out_black", PortType.FLOAT),
            PortSpec("out_white", PortType.FLOAT)],
    properties=[
        PropertySpec("in_black", "float", 0.0, 0.0, 1.0),
        PropertySpec("in_white", "float", 1.0, 0.0, 1.0),
        PropertySpec("gamma", "float", 1.0, 0.1, 10.0),
        PropertySpec("out_black", "float", 0.0, 0.0, 1.0),
        PropertySpec("out_white", "float", 1.0, 0.0, 1.0),
        PropertySpec("channels", "enum", "rgb", choices=tuple(LEVELS_CHANNELS)),
    ],
    passes=_levels_passes,
    notes=(
        "One pass, 1 read; the formula of Color's Levels. Per adjusted channel: t = clamp((v − in_black) / "
        "max(in_white − in_black, 1e-5), 0, 1); out_black + t^(1/gamma) (out_white − out_black) (gamma at least "
        "0.001). `channels` picks the adjusted ones (rgb, rgba, or one); the others pass through. For different "
        "levels per channel chain Texture Levels nodes, one channel each. in_white at or below in_black is a step "
        "at in_black."
        + picture("texture-levels", "Bricks, then Texture Levels (in 0.25 to 0.75, gamma 1.4)")
    ),
)


def _histogram_scan(ctx: PassContext) -> Operand:
    fn = ctx.fn
    texel = ctx.sample("input", ctx.uv)
    window = fn.builtin(Builtin.MAX, FLOAT, fn.subtract(fn.f(1.0), ctx.value("contrast")), fn.f(NARROWEST))
    # The window [low, low + window] slides from [1, 1 + window] (position 0) to [−window, 0] (position 1).
    low = fn.subtract(fn.multiply(fn.subtract(fn.f(1.0), ctx.value("position")), fn.add(fn.f(1.0), window)), window)
    return _with_channels(ctx, texel, _remap(ctx, texel, low, window), "xyz")


define_filter(
    "histogram_scan",
    "Histogram Scan",
    "Turns a greyscale into a mask: position moves the cut, contrast hardens it (grows/shrinks masks).",
    inputs=[PortSpec("input", PortType.TEXTURE, None),
            PortSpec("position", PortType.FLOAT),
            PortSpec("contrast", PortType.FLOAT)],
    properties=[
        PropertySpec("position", "float", 0.5, 0.0, 1.0),
        PropertySpec("contrast", "float", 0.5, 0.0, 1.0),
    ],
    passes=lambda setup: [FilterPass("scan", _histogram_scan)],
    notes=(
        "One pass, 1 read; Substance Designer's semantics. On r, g, b (alpha passes through): levels with the input "
        "window [low, low + w], w = max(1 − contrast, 1e-5), low = (1 − position)(1 + w) − w: position 0 gives black, 1 white, "
        "0.5 with contrast 0 the input unchanged; contrast 1 is a threshold at 1 − position."
        + picture("histogram-scan", "A fractal noise, then Histogram Scan (position 0.45, contrast 0.85)")
    ),
)


def _histogram_range(ctx: PassContext) -> Operand:
    fn = ctx.fn
    texel = ctx.sample("input", ctx.uv)
    span = ctx.value("range")
    offset = fn.multiply(ctx.value("position"), fn.subtract(fn.f(1.0), span))
    return _with_channels(ctx, texel, fn.add(fn.construct(vec(4), offset), fn.multiply(texel, span)), "xyz")


define_filter(
    "histogram_range",
    "Histogram Range",
    "Squeezes values into a band `range` wide that sits at `position` (0 dark end, 1 bright end).",
    inputs=[PortSpec("input", PortType.TEXTURE, None),
            PortSpec("range", PortType.FLOAT),
            PortSpec("position", PortType.FLOAT)],
    properties=[
        PropertySpec("range", "float", 0.5, 0.0, 1.0),
        PropertySpec("position", "float", 0.5, 0.0, 1.0),
    ],
    passes=lambda setup: [FilterPass("range", _histogram_range)],
    notes=(
        "One pass, 1 read; Substance Designer's semantics. On r, g, b (alpha passes through): position (1 − range) + "
        "v range: [0, 1] goes to a band `range` wide, from [0, range] (position 0) to [1 − range, 1] (position 1)."
        + picture("histogram-range", "A fractal noise, then Histogram Range (range 0.3, position 0.8)")
    ),
)
