"""Pattern nodes: bricks, hexagons, stripes, gradients, polar coordinates, flipbooks and shapes over UV space.

Random values per brick or hexagon come from the exact lattice hash of
`noise.py`, so patterns look the same on every target. Shapes are
anti-aliased with `fwidth` (one pixel of soft edge at any zoom).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, register
from app.material.nodes import noise
from app.material.port_types import PortType
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import FLOAT, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext, TrackingFunctionBuilder

CATEGORY = "Pattern"

_UV = PortSpec("uv", PortType.VEC2, "texcoord")


def _v2(fn: TrackingFunctionBuilder, x: float, y: float) -> Operand:
    return fn.construct(vec(2), fn.f(x), fn.f(y))


def _antialiased_inside(fn: TrackingFunctionBuilder, signed_distance: Operand) -> Operand:
    """1 inside (distance < 0), 0 outside, one pixel of blend: clamp(0.5 - d / fwidth(d), 0, 1)."""
    width = fn.builtin(Builtin.MAX, FLOAT, fn.builtin(Builtin.FWIDTH, FLOAT, signed_distance), fn.f(1e-6))
    return fn.builtin(Builtin.CLAMP, FLOAT, fn.subtract(fn.f(0.5), fn.divide(signed_distance, width)), fn.f(0.0), fn.f(1.0))


# Bricks -----------------------------------------------------------------------------------------


def _lower_bricks(ctx: NodeContext) -> None:
    fn = ctx.fn
    counts = ctx.input("count")
    point = fn.multiply(ctx.input("uv"), counts)
    row = fn.builtin(Builtin.FLOOR, FLOAT, fn.swizzle(point, "y"))
    shifted_x = fn.add(fn.swizzle(point, "x"), fn.multiply(row, ctx.input("row_offset")))
    shifted = fn.construct(vec(2), shifted_x, fn.swizzle(point, "y"))
    cell = fn.builtin(Builtin.FLOOR, vec(2), shifted)
    local = fn.subtract(shifted, cell)
    # Distance to the nearest brick edge, in UV units (so mortar width does not depend on brick size).
    edge = fn.divide(fn.builtin(Builtin.MIN, vec(2), local, fn.subtract(_v2(fn, 1.0, 1.0), local)), counts)
    nearest_edge = fn.builtin(Builtin.MIN, FLOAT, fn.swizzle(edge, "x"), fn.swizzle(edge, "y"))
    mortar = fn.multiply(ctx.input("mortar"), fn.f(0.5))
    softness = fn.builtin(Builtin.MAX, FLOAT, ctx.input("softness"), fn.f(1e-6))
    mask = fn.builtin(Builtin.SMOOTHSTEP, FLOAT, mortar, fn.add(mortar, softness), nearest_edge)
    hashed = noise.call(fn, noise.hash_cell(ctx.lowering, 2), cell)
    brick_id = fn.multiply(hashed, fn.f(1.0 / 288.0))
    brick_color = fn.builtin(Builtin.MIX, vec(4), ctx.input("color_a"), ctx.input("color_b"), brick_id)
    ctx.set_output("color", fn.builtin(Builtin.MIX, vec(4), ctx.input("mortar_color"), brick_color, mask))
    ctx.set_output("mask", mask)
    ctx.set_output("brick_id", brick_id)
    ctx.set_output("brick_uv", local)


register(
    NodeType(
        "bricks",
        "Bricks",
        CATEGORY,
        "A running-bond brick wall: colour, mortar mask, a random value and UVs per brick.",
        inputs=[
            _UV,
            PortSpec("count", PortType.VEC2, (4.0, 8.0)),
            PortSpec("row_offset", PortType.FLOAT, 0.5),
            PortSpec("mortar", PortType.FLOAT, 0.02),
            PortSpec("softness", PortType.FLOAT, 0.005),
            PortSpec("color_a", PortType.COLOR),
            PortSpec("color_b", PortType.COLOR),
            PortSpec("mortar_color", PortType.COLOR),
        ],
        outputs=[
            PortSpec("color", PortType.COLOR),
            PortSpec("mask", PortType.FLOAT, label="brick mask"),
            PortSpec("brick_id", PortType.FLOAT, label="brick id"),
            PortSpec("brick_uv", PortType.VEC2, label="brick uv"),
        ],
        properties=[
            PropertySpec("count", "vector", (4.0, 8.0)),
            PropertySpec("row_offset", "float", 0.5, 0.0, 1.0),
            PropertySpec("mortar", "float", 0.02, 0.0, 0.2),
            PropertySpec("softness", "float", 0.005, 0.0, 0.1),
            PropertySpec("color_a", "color", (0.55, 0.18, 0.12, 1.0)),
            PropertySpec("color_b", "color", (0.72, 0.32, 0.2, 1.0)),
            PropertySpec("mortar_color", "color", (0.8, 0.78, 0.72, 1.0)),
        ],
        lower=_lower_bricks,
        notes=(
            "Rows shifted by row * row_offset; mask = smoothstep(mortar / 2, mortar / 2 + softness, distance to the "
            "nearest brick edge in UV units); brick id = exact hash of the brick cell / 288."
        ),
    )
)


# Hexagons ---------------------------------------------------------------------------------------


def _lower_hexagons(ctx: NodeContext) -> None:
    fn = ctx.fn
    root3 = math.sqrt(3.0)
    point = fn.multiply(ctx.input("uv"), ctx.input("scale"))
    size = _v2(fn, 1.0, root3)
    half = _v2(fn, 0.5, root3 / 2.0)
    first = fn.subtract(fn.builtin(Builtin.MOD, vec(2), point, size), half)
    second = fn.subtract(fn.builtin(Builtin.MOD, vec(2), fn.subtract(point, half), size), half)
    closer = fn.binary(
        BinaryOperator.LESS, fn.builtin(Builtin.DOT, FLOAT, first, first), fn.builtin(Builtin.DOT, FLOAT, second, second)
    )
    local = fn.builtin(Builtin.SELECT, vec(2), closer, first, second)
    centre = fn.subtract(point, local)
    # Centres lie on a half-integer grid in x and a multiple of sqrt(3)/2 in y: an exact integer cell.
    cell = fn.builtin(
        Builtin.FLOOR, vec(2), fn.add(fn.multiply(centre, _v2(fn, 2.0, 2.0 / root3)), _v2(fn, 0.5, 0.5))
    )
    absolute = fn.builtin(Builtin.ABS, vec(2), local)
    # Distance from the centre in hexagon units: 0.5 on every edge (pointy-top hexagons).
    radial = fn.builtin(
        Builtin.MAX, FLOAT, fn.builtin(Builtin.DOT, FLOAT, absolute, _v2(fn, 0.5, root3 / 2.0)), fn.swizzle(absolute, "x")
    )
    edge_distance = fn.subtract(fn.f(0.5), radial)
    gap = fn.multiply(ctx.input("gap"), fn.f(0.5))
    mask = fn.builtin(Builtin.SMOOTHSTEP, FLOAT, gap, fn.add(gap, fn.f(0.02)), edge_distance)
    hashed = noise.call(fn, noise.hash_cell(ctx.lowering, 2), cell)
    ctx.set_output("mask", mask)
    ctx.set_output("edge_distance", fn.multiply(edge_distance, fn.f(2.0)))
    ctx.set_output("cell_id", fn.multiply(hashed, fn.f(1.0 / 288.0)))
    ctx.set_output("cell_uv", fn.add(local, _v2(fn, 0.5, 0.5)))


register(
    NodeType(
        "hexagons",
        "Hexagons",
        CATEGORY,
        "Hexagonal tiles: a tile mask, distance to the tile edge, a random value and UVs per tile.",
        inputs=[_UV, PortSpec("scale", PortType.FLOAT, 6.0), PortSpec("gap", PortType.FLOAT, 0.05)],
        outputs=[
            PortSpec("mask", PortType.FLOAT, label="tile mask"),
            PortSpec("edge_distance", PortType.FLOAT, label="edge distance"),
            PortSpec("cell_id", PortType.FLOAT, label="tile id"),
            PortSpec("cell_uv", PortType.VEC2, label="tile uv"),
        ],
        properties=[PropertySpec("scale", "float", 6.0, 0.0, 64.0), PropertySpec("gap", "float", 0.05, 0.0, 0.5)],
        lower=_lower_hexagons,
        notes=(
            "The nearer of two offset rectangular lattices gives the hexagon centre; edge distance from the "
            "hexagonal norm max(dot(|p|, (1/2, sqrt(3)/2)), |p.x|); tile id = exact hash of the centre's cell / 288."
        ),
    )
)


# Stripes, gradients, polar ----------------------------------------------------------------------


def _direction(fn: TrackingFunctionBuilder, degrees: Operand) -> Operand:
    angle = fn.builtin(Builtin.RADIANS, FLOAT, degrees)
    return fn.construct(vec(2), fn.builtin(Builtin.COS, FLOAT, angle), fn.builtin(Builtin.SIN, FLOAT, angle))


def _lower_stripes(ctx: NodeContext) -> None:
    fn = ctx.fn
    along = fn.builtin(Builtin.DOT, FLOAT, ctx.input("uv"), _direction(fn, ctx.input("angle")))
    phase = fn.builtin(Builtin.FRACT, FLOAT, fn.multiply(along, ctx.input("frequency")))
    # Signed distance (in stripe periods) outside the stripe of width `width` centred in each period.
    half_width = fn.multiply(ctx.input("width"), fn.f(0.5))
    outside = fn.subtract(fn.builtin(Builtin.ABS, FLOAT, fn.subtract(phase, fn.f(0.5))), half_width)
    ctx.set_output("out", _antialiased_inside(fn, outside))


register(
    NodeType(
        "stripes",
        "Stripes",
        CATEGORY,
        "Parallel anti-aliased stripes: frequency per UV unit, width as a fraction, angle in degrees.",
        inputs=[_UV, PortSpec("frequency", PortType.FLOAT, 8.0), PortSpec("width", PortType.FLOAT, 0.5), PortSpec("angle", PortType.FLOAT, 0.0)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[
            PropertySpec("frequency", "float", 8.0, 0.0, 128.0),
            PropertySpec("width", "float", 0.5, 0.0, 1.0),
            PropertySpec("angle", "float", 0.0, -180.0, 180.0),
        ],
        lower=_lower_stripes,
        notes="t = fract(dot(uv, (cos a, sin a)) * frequency); inside where |t - 0.5| < width / 2, edges anti-aliased with fwidth.",
    )
)


def _lower_linear_gradient(ctx: NodeContext) -> None:
    fn = ctx.fn
    centred = fn.subtract(ctx.input("uv"), _v2(fn, 0.5, 0.5))
    along = fn.add(fn.builtin(Builtin.DOT, FLOAT, centred, _direction(fn, ctx.input("angle"))), fn.f(0.5))
    ctx.set_output("out", fn.builtin(Builtin.CLAMP, FLOAT, along, fn.f(0.0), fn.f(1.0)))


register(
    NodeType(
        "linear_gradient",
        "Linear Gradient",
        CATEGORY,
        "0 to 1 across UV space along a direction (angle in degrees; 0 runs left to right).",
        inputs=[_UV, PortSpec("angle", PortType.FLOAT, 0.0)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("angle", "float", 0.0, -180.0, 180.0)],
        lower=_lower_linear_gradient,
        notes="clamp(dot(uv - 0.5, (cos a, sin a)) + 0.5, 0, 1).",
    )
)


def _lower_radial_gradient(ctx: NodeContext) -> None:
    fn = ctx.fn
    distance = fn.builtin(Builtin.DISTANCE, FLOAT, ctx.input("uv"), ctx.input("center"))
    radius = fn.builtin(Builtin.MAX, FLOAT, ctx.input("radius"), fn.f(1e-6))
    ctx.set_output("out", fn.builtin(Builtin.CLAMP, FLOAT, fn.subtract(fn.f(1.0), fn.divide(distance, radius)), fn.f(0.0), fn.f(1.0)))


register(
    NodeType(
        "radial_gradient",
        "Radial Gradient",
        CATEGORY,
        "1 at the centre falling to 0 at the radius.",
        inputs=[_UV, PortSpec("center", PortType.VEC2, (0.5, 0.5)), PortSpec("radius", PortType.FLOAT, 0.5)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("center", "vector", (0.5, 0.5)), PropertySpec("radius", "float", 0.5, 0.0, 2.0)],
        lower=_lower_radial_gradient,
        notes="clamp(1 - distance(uv, center) / radius, 0, 1).",
    )
)


def _lower_polar(ctx: NodeContext) -> None:
    fn = ctx.fn
    offset = fn.subtract(ctx.input("uv"), ctx.input("center"))
    angle = fn.builtin(Builtin.ATAN2, FLOAT, fn.swizzle(offset, "y"), fn.swizzle(offset, "x"))
    turns = fn.add(fn.multiply(angle, fn.f(0.5 / math.pi)), fn.f(0.5))
    radius = fn.multiply(fn.builtin(Builtin.LENGTH, FLOAT, offset), fn.f(2.0))
    ctx.set_output("out", fn.construct(vec(2), radius, turns))


register(
    NodeType(
        "polar_coordinates",
        "Polar Coordinates",
        CATEGORY,
        "UV as (distance from centre, angle in turns): rings and spokes from straight patterns.",
        inputs=[_UV, PortSpec("center", PortType.VEC2, (0.5, 0.5))],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[PropertySpec("center", "vector", (0.5, 0.5))],
        lower=_lower_polar,
        notes="(2 |uv - center|, atan2(dy, dx) / 2 pi + 0.5).",
    )
)


def _lower_flipbook(ctx: NodeContext) -> None:
    fn = ctx.fn
    columns = fn.builtin(Builtin.MAX, FLOAT, fn.builtin(Builtin.FLOOR, FLOAT, ctx.input("columns")), fn.f(1.0))
    rows = fn.builtin(Builtin.MAX, FLOAT, fn.builtin(Builtin.FLOOR, FLOAT, ctx.input("rows")), fn.f(1.0))
    count = fn.multiply(columns, rows)
    frame = fn.builtin(Builtin.FLOOR, FLOAT, fn.builtin(Builtin.MOD, FLOAT, fn.builtin(Builtin.FLOOR, FLOAT, ctx.input("frame")), count))
    row_from_top = fn.builtin(Builtin.FLOOR, FLOAT, fn.divide(fn.add(frame, fn.f(0.5)), columns))
    column = fn.subtract(frame, fn.multiply(row_from_top, columns))
    row = fn.subtract(fn.subtract(rows, fn.f(1.0)), row_from_top)
    tile = fn.construct(vec(2), column, row)
    ctx.set_output("out", fn.divide(fn.add(ctx.input("uv"), tile), fn.construct(vec(2), columns, rows)))


register(
    NodeType(
        "flipbook",
        "Flipbook",
        CATEGORY,
        "UVs of one frame of a sprite sheet (frames left to right, top to bottom); frame wraps around.",
        inputs=[_UV, PortSpec("columns", PortType.FLOAT, 4.0), PortSpec("rows", PortType.FLOAT, 4.0), PortSpec("frame", PortType.FLOAT, 0.0)],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[
            PropertySpec("columns", "float", 4.0, 1.0, 64.0),
            PropertySpec("rows", "float", 4.0, 1.0, 64.0),
            PropertySpec("frame", "float", 0.0, 0.0, 4096.0),
        ],
        lower=_lower_flipbook,
        notes="f = mod(floor(frame), columns * rows); tile (f mod columns, rows - 1 - floor(f / columns)); (uv + tile) / (columns, rows).",
    )
)


# Shapes -----------------------------------------------------------------------------------------


def _lower_ellipse(ctx: NodeContext) -> None:
    fn = ctx.fn
    size = fn.builtin(Builtin.MAX, vec(2), ctx.input("size"), fn.f(1e-6))
    scaled = fn.divide(fn.subtract(ctx.input("uv"), _v2(fn, 0.5, 0.5)), fn.multiply(size, fn.f(0.5)))
    ctx.set_output("out", _antialiased_inside(fn, fn.subtract(fn.builtin(Builtin.LENGTH, FLOAT, scaled), fn.f(1.0))))


register(
    NodeType(
        "ellipse",
        "Ellipse",
        CATEGORY,
        "An anti-aliased ellipse (width, height in UV units) centred in UV space: 1 inside.",
        inputs=[_UV, PortSpec("size", PortType.VEC2, (0.8, 0.8))],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("size", "vector", (0.8, 0.8))],
        lower=_lower_ellipse,
        notes="d = |(uv - 0.5) / (size / 2)| - 1; clamp(0.5 - d / fwidth(d), 0, 1).",
    )
)


def _lower_rectangle(ctx: NodeContext) -> None:
    fn = ctx.fn
    half = fn.multiply(ctx.input("size"), fn.f(0.5))
    radius = fn.builtin(Builtin.MIN, FLOAT, ctx.input("roundness"), fn.builtin(Builtin.MIN, FLOAT, fn.swizzle(half, "x"), fn.swizzle(half, "y")))
    corner = fn.construct(vec(2), radius)
    offset = fn.subtract(fn.subtract(fn.builtin(Builtin.ABS, vec(2), fn.subtract(ctx.input("uv"), _v2(fn, 0.5, 0.5))), half), fn.builtin(Builtin.NEGATE, vec(2), corner))
    outside = fn.builtin(Builtin.LENGTH, FLOAT, fn.builtin(Builtin.MAX, vec(2), offset, fn.f(0.0)))
    inside = fn.builtin(Builtin.MIN, FLOAT, fn.builtin(Builtin.MAX, FLOAT, fn.swizzle(offset, "x"), fn.swizzle(offset, "y")), fn.f(0.0))
    ctx.set_output("out", _antialiased_inside(fn, fn.subtract(fn.add(outside, inside), radius)))


register(
    NodeType(
        "rectangle",
        "Rectangle",
        CATEGORY,
        "An anti-aliased, optionally rounded rectangle centred in UV space: 1 inside.",
        inputs=[_UV, PortSpec("size", PortType.VEC2, (0.8, 0.5)), PortSpec("roundness", PortType.FLOAT, 0.0)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("size", "vector", (0.8, 0.5)), PropertySpec("roundness", "float", 0.0, 0.0, 0.5)],
        lower=_lower_rectangle,
        notes="The rounded-box signed distance (|p| - size/2 + r, outside length plus inside max, minus r), anti-aliased.",
    )
)


def _lower_polygon(ctx: NodeContext) -> None:
    fn = ctx.fn
    sides = fn.builtin(Builtin.MAX, FLOAT, fn.builtin(Builtin.FLOOR, FLOAT, ctx.input("sides")), fn.f(3.0))
    offset = fn.subtract(ctx.input("uv"), _v2(fn, 0.5, 0.5))
    # Angle measured from +y so one vertex points up; the polar "sector" distance of a regular polygon.
    angle = fn.builtin(Builtin.ATAN2, FLOAT, fn.swizzle(offset, "x"), fn.swizzle(offset, "y"))
    sector = fn.divide(fn.f(2.0 * math.pi), sides)
    centred = fn.subtract(
        fn.multiply(fn.builtin(Builtin.FLOOR, FLOAT, fn.add(fn.divide(angle, sector), fn.f(0.5))), sector), angle
    )
    apothem = fn.multiply(fn.builtin(Builtin.COS, FLOAT, centred), fn.builtin(Builtin.LENGTH, FLOAT, offset))
    half = fn.multiply(fn.builtin(Builtin.COS, FLOAT, fn.multiply(sector, fn.f(0.5))), fn.multiply(ctx.input("size"), fn.f(0.5)))
    ctx.set_output("out", _antialiased_inside(fn, fn.subtract(apothem, half)))


register(
    NodeType(
        "polygon",
        "Polygon",
        CATEGORY,
        "An anti-aliased regular polygon (3 or more sides) centred in UV space: 1 inside.",
        inputs=[_UV, PortSpec("sides", PortType.FLOAT, 6.0), PortSpec("size", PortType.FLOAT, 0.8)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("sides", "float", 6.0, 3.0, 32.0), PropertySpec("size", "float", 0.8, 0.0, 1.0)],
        lower=_lower_polygon,
        notes="Distance to the nearest edge through the angle to the nearest sector centre (cos of it times the radius).",
    )
)
