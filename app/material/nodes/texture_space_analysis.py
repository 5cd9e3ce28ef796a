"""Filters that read a height or a mask around each texel: Curvature, Ambient Occlusion, Edge Detect.

Each is a texture-space filter (`texture_passes.define_filter`): it reads
its input buffer at offsets around every texel and writes a greyscale
texture (v, v, v, 1) of the input's resolution. The input is read as
greyscale (its luminance, Rec. 709 weights, so a greyscale buffer reads
as its value), level 0, bilinear between texels, with the input buffer's
tiling: on a tiling buffer a texel near an edge reads across it, so the
result tiles seamlessly. Values an artist drags (intensity, radius,
depth, threshold, width, softness) are uniforms of the pass; only the
tap counts (Ambient Occlusion's directions and steps, Edge Detect's
reach) shape the code. The formulas are in each node's notes
(docs/material-nodes.md) and tests/analysis_filter_reference.py checks them.
"""

from __future__ import annotations

import math
from dataclasses import replace

from app.material.node_types import PortSpec, PropertySpec
from app.material.port_types import LUMINANCE_WEIGHTS, PortType
from app.material.texture_passes import BufferSpec, FilterPass, FilterSetup, PassContext, define_filter
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import FLOAT, vec
from vpl_core.ir.values import Operand

#: Ring taps of Curvature (every 45 degrees).
CURVATURE_TAPS = 8
#: The farthest Edge Detect looks for the other side of an outline, in texels along each axis; `width` is at
#: most this minus one half (the outline lies half a texel from the nearest texel across it).
EDGE_REACH = 16
#: A distance no texel within reach has: Edge Detect's "nothing across the outline on this row".
EDGE_FAR = 1000.0


def picture(name: str, caption: str) -> str:
    """The docs' picture of a filter (docs/images, made by tools/make_analysis_pictures.py), for its notes."""
    return f'<br><img src="images/filter-{name}.png" width="390" alt="{caption}">'


def grey(ctx: PassContext, rgba: Operand) -> Operand:
    """A texel as greyscale: its luminance (Rec. 709 weights; a grey (v, v, v) reads as v)."""
    fn = ctx.fn
    weights = fn.construct(vec(3), *(fn.f(weight) for weight in LUMINANCE_WEIGHTS))
    return fn.builtin(Builtin.DOT, FLOAT, fn.swizzle(rgba, "xyz"), weights)


def grey_texel(ctx: PassContext, value: Operand) -> Operand:
    """(v, v, v, 1)."""
    fn = ctx.fn
    return fn.construct(vec(4), value, value, value, fn.f(1.0))


def _clamp01(ctx: PassContext, value: Operand) -> Operand:
    fn = ctx.fn
    return fn.builtin(Builtin.CLAMP, FLOAT, value, fn.f(0.0), fn.f(1.0))


# Curvature -----------------------------------------------------------------------------------------------------


def _curvature(ctx: PassContext) -> Operand:
    fn = ctx.fn
    centre = grey(ctx, ctx.sample("height", ctx.uv))
    reach = ctx.value("radius")  # UV units: the same look at every resolution
    ring: Operand | None = None
    for k in range(CURVATURE_TAPS):
        angle = 2.0 * math.pi * k / CURVATURE_TAPS
        direction = fn.construct(vec(2), fn.f(round(math.cos(angle), 12)), fn.f(round(math.sin(angle), 12)))
        tap = grey(ctx, ctx.sample("height", fn.add(ctx.uv, fn.multiply(direction, reach))))
        ring = tap if ring is None else fn.add(ring, tap)
    assert ring is not None
    difference = fn.subtract(centre, fn.multiply(ring, fn.f(1.0 / CURVATURE_TAPS)))
    return grey_texel(ctx, _clamp01(ctx, fn.add(fn.f(0.5), fn.multiply(ctx.value("intensity"), difference))))


define_filter(
    "curvature",
    "Curvature",
    "Convex parts of a height bright, grooves and cavities dark, flat mid-grey (edge wear, dirt).",
    inputs=[PortSpec("height", PortType.TEXTURE, None),
            PortSpec("intensity", PortType.FLOAT), PortSpec("radius", PortType.FLOAT)],
    properties=[
        PropertySpec("intensity", "float", 8.0, 0.0, 64.0),
        PropertySpec("radius", "float", 0.005, 0.001, 0.1, label="radius (of the texture)"),
    ],
    passes=lambda setup: [FilterPass("curvature", _curvature)],
    notes=(
        "One pass, 9 reads: clamp(0.5 + intensity x (h − mean of h on a ring of 8 taps `radius` away), 0, 1), h "
        "the input's luminance, radius a fraction of the texture's width (the same look at any resolution; "
        "small: sharp edges only, larger: broad shapes too). Mid-grey (0.5) is flat or evenly sloped."
        + picture("curvature", "A height of bevelled bricks with grain, then its Curvature (radius 0.006, intensity 10)")
    ),
)


# Ambient occlusion -----------------------------------------------------------------------------------------------


def _occlusion_passes(setup: FilterSetup) -> list[FilterPass]:
    directions = setup.integer("directions")
    steps = setup.integer("steps")

    def kernel(ctx: PassContext) -> Operand:
        fn = ctx.fn
        centre = grey(ctx, ctx.sample("height", ctx.uv))
        radius = fn.builtin(Builtin.MAX, FLOAT, ctx.value("radius"), fn.f(1e-4))
        depth = ctx.value("depth")
        texel = ctx.input_texel("height")

        def sine(rise: Operand) -> Operand:
            """sin(atan(rise)): the elevation's sine of a rise per unit of run."""
            return fn.multiply(rise, fn.builtin(Builtin.INVERSESQRT, FLOAT, fn.add(fn.f(1.0), fn.multiply(rise, rise))))

        total: Operand | None = None
        for k in range(directions):
            angle = 2.0 * math.pi * k / directions
            direction = fn.construct(vec(2), fn.f(round(math.cos(angle), 12)), fn.f(round(math.sin(angle), 12)))
            # The surface's own slope along the direction (central difference one texel either side): a horizon
            # counts only where it rises above the tangent plane, so an even slope is not occluded.
            across = fn.multiply(direction, fn.f(texel))
            ahead = grey(ctx, ctx.sample("height", fn.add(ctx.uv, across)))
            behind = grey(ctx, ctx.sample("height", fn.subtract(ctx.uv, across)))
            tangent = sine(fn.multiply(depth, fn.multiply(fn.subtract(ahead, behind), fn.f(0.5 / texel))))
            horizon: Operand = fn.f(0.0)
            for step in range(1, steps + 1):
                distance = fn.multiply(radius, fn.f(step / steps))
                tap = grey(ctx, ctx.sample("height", fn.add(ctx.uv, fn.multiply(direction, distance))))
                rise = fn.divide(fn.multiply(depth, fn.subtract(tap, centre)), distance)
                weight = 1.0 - ((step - 1) / steps) ** 2  # far taps count less
                horizon = fn.builtin(Builtin.MAX, FLOAT, horizon,
                                     fn.multiply(fn.subtract(sine(rise), tangent), fn.f(weight)))
            total = horizon if total is None else fn.add(total, horizon)
        assert total is not None
        occlusion = fn.multiply(total, fn.f(1.0 / directions))
        return grey_texel(ctx, _clamp01(ctx, fn.subtract(fn.f(1.0), fn.multiply(ctx.value("intensity"), occlusion))))

    return [FilterPass("occlusion", kernel)]


define_filter(
    "ambient_occlusion",
    "Ambient Occlusion",
    "Horizon-based occlusion of a height: white in the open, dark in cavities and creases.",
    inputs=[PortSpec("height", PortType.TEXTURE, None),
            PortSpec("radius", PortType.FLOAT), PortSpec("depth", PortType.FLOAT), PortSpec("intensity", PortType.FLOAT)],
    properties=[
        PropertySpec("radius", "float", 0.05, 0.002, 0.5, label="radius (of the texture)"),
        PropertySpec("depth", "float", 0.1, 0.0, 2.0, label="height depth"),
        PropertySpec("intensity", "float", 1.0, 0.0, 4.0),
        PropertySpec("directions", "int", 12, 4, 32),
        PropertySpec("steps", "int", 8, 2, 32),
    ],
    passes=_occlusion_passes,
    notes=(
        "One pass, 1 + directions x (steps + 2) reads (HBAO-like). Heights 0..1 rise `depth` texture widths; "
        "S(x) = x / sqrt(1 + x²) is the sine of the elevation of a rise x per unit of run. Along each direction d "
        "(angles 2 pi k / directions) the tangent is S(depth (h(+1 texel) − h(−1 texel)) / 2 texels) and the "
        "height is read at t_s = radius x s / steps (s = 1..steps; texture-width units); a direction's occlusion is "
        "the largest (S(depth (h_s − h) / t_s) − tangent) x (1 − ((s − 1) / steps)²) (far occluders fade), at least "
        "0: only what rises above the tangent plane occludes. Result: clamp(1 − intensity x mean over the "
        "directions, 0, 1). Directions and steps shape the code (a change relinks); the others are uniforms."
        + picture("ambient-occlusion", "A height of bevelled bricks with grain, then its Ambient Occlusion (radius 0.06, "
                  "depth 0.1, intensity 1.5)")
    ),
)


# Edge detect -----------------------------------------------------------------------------------------------------


def _edge_reach(setup: FilterSetup) -> int:
    """Texels to look along each axis: enough to find every texel across the outline that can light this one."""
    return max(1, min(EDGE_REACH, math.ceil(setup.number("width") + 0.5)))


def _edge_passes(setup: FilterSetup) -> list[FilterPass]:
    reach = _edge_reach(setup)

    def across_rows(ctx: PassContext) -> Operand:
        """Along this texel's row: the nearest inside texel's and outside texel's distance |dx|, and whether
        this texel is inside: (to inside, to outside, inside, 1)."""
        fn = ctx.fn
        threshold = ctx.value("threshold")
        to_inside: Operand = fn.f(EDGE_FAR)
        to_outside: Operand = fn.f(EDGE_FAR)
        centre_inside: Operand = fn.f(0.0)
        for dx in range(-reach, reach + 1):
            value = grey(ctx, ctx.sample_offset("mask", float(dx), 0.0))
            inside = fn.binary(BinaryOperator.GREATER_EQUAL, value, threshold)
            distance = fn.f(float(abs(dx)))
            to_inside = fn.builtin(Builtin.MIN, FLOAT, to_inside,
                                   fn.builtin(Builtin.SELECT, FLOAT, inside, distance, fn.f(EDGE_FAR)))
            to_outside = fn.builtin(Builtin.MIN, FLOAT, to_outside,
                                    fn.builtin(Builtin.SELECT, FLOAT, inside, fn.f(EDGE_FAR), distance))
            if dx == 0:
                centre_inside = fn.builtin(Builtin.SELECT, FLOAT, inside, fn.f(1.0), fn.f(0.0))
        return fn.construct(vec(4), to_inside, to_outside, centre_inside, fn.f(1.0))

    def across_columns(ctx: PassContext) -> Operand:
        """The Euclidean distance to the nearest texel across the outline: min over the column of dx² + dy²."""
        fn = ctx.fn
        inside = fn.binary(BinaryOperator.GREATER, fn.swizzle(ctx.sample("rows", ctx.uv), "z"), fn.f(0.5))
        nearest: Operand = fn.f(EDGE_FAR * EDGE_FAR)
        for dy in range(-reach, reach + 1):
            row = ctx.sample_offset("rows", 0.0, float(dy))
            across = fn.builtin(Builtin.SELECT, FLOAT, inside, fn.swizzle(row, "y"), fn.swizzle(row, "x"))
            nearest = fn.builtin(Builtin.MIN, FLOAT, nearest, fn.add(fn.multiply(across, across), fn.f(float(dy * dy))))
        outline = fn.subtract(fn.builtin(Builtin.SQRT, FLOAT, nearest), fn.f(0.5))
        width = ctx.value("width")
        ramp = fn.builtin(Builtin.MAX, FLOAT, fn.multiply(ctx.value("softness"), width), fn.f(1e-3))
        return grey_texel(ctx, _clamp01(ctx, fn.divide(fn.subtract(width, outline), ramp)))

    def distances(spec: BufferSpec) -> BufferSpec:
        # Whole texel distances up to EDGE_FAR are exact in binary16; 8-bit would clamp them to 1.
        return replace(spec, format="16-bit", mipmaps=False)

    return [FilterPass("rows", across_rows, spec=distances, reads=("mask",)),
            FilterPass("edges", across_columns, reads=("rows",))]


define_filter(
    "edge_detect",
    "Edge Detect",
    "A line along the outlines of a mask's shapes, width texels to each side, with a soft falloff.",
    inputs=[PortSpec("mask", PortType.TEXTURE, None),
            PortSpec("threshold", PortType.FLOAT), PortSpec("softness", PortType.FLOAT)],
    properties=[
        PropertySpec("threshold", "float", 0.5, 0.0, 1.0),
        PropertySpec("width", "float", 2.0, 0.5, EDGE_REACH - 0.5, label="width (texels)"),
        PropertySpec("softness", "float", 0.5, 0.0, 1.0),
    ],
    passes=_edge_passes,
    notes=(
        "Two passes (exact distance, separable): along each row, the distance to the nearest texel inside "
        "(luminance >= threshold) and outside (16-bit buffer); then down each column, the Euclidean distance d to "
        "the nearest texel on the other side of the outline, looking at most ceil(width + 0.5) texels (at most "
        f"{EDGE_REACH}) along each axis. The outline is half a texel from it (b = d − 0.5); result clamp((width − b) "
        "/ max(softness x width, 0.001), 0, 1). The reach shapes the code (a width change that changes it relinks)."
        + picture("edge-detect", "A hexagon mask, then its Edge Detect (width 3, softness 0.6)")
    ),
)
