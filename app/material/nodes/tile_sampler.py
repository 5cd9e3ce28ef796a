"""The Tile Sampler: a shape (or an input image) scattered on an X x Y grid with random size, rotation and colour.

A generator, as in Substance Designer, but a function of the texture
coordinates like Bricks: it needs no buffer of its own, so it works
directly in a material, and inside a Texture Buffer (whose uv are the texel
centres) when filters are to read it. Each pixel looks at the 3 x 3 cells
around its own and keeps the shape whose value is largest, so shapes may
spill into the neighbouring cells (position random is at most 0.5 of a
cell and size at most one cell, which keeps every shape within them).

Randomness is the exact lattice hash of `noise.py` on the cell wrapped to
the grid (so the pattern tiles: the cell after the last column is the
first), plus the seed:

    h = permute(permute(permute(x mod X) + (y mod Y)) + seed)
    r_k = permute(h + k) / 288            (k = 1 scale, 5 rotation, 6, 7 position, 8 luminance, 9 grey id)
    colour = permute(h + (2, 3, 4)) / 288

with permute(v) = ((34 v + 1) v) mod 289 on integer-valued floats, exact in
binary32 on every target. There are 289 distinct tiles; seeds 0..288.
Shapes are anti-aliased over the width of a pixel in the grid's finer
direction, measured with fwidth of the texture coordinates (one texel
inside a buffer, whatever it shows on a mesh).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import OPTIONAL_TEXTURE, LoweringFailure, NodeType, PortSpec, PropertySpec, register
from app.material.nodes import noise
from app.material.port_types import LUMINANCE_WEIGHTS, PortType
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import FLOAT, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

SHAPES = ("square", "disc", "brick", "image")
#: The random values' hash offsets (module docstring).
SCALE_KEY, ROTATION_KEY, POSITION_X_KEY, POSITION_Y_KEY, LUMINANCE_KEY, GREY_KEY = 1.0, 5.0, 6.0, 7.0, 8.0, 9.0


def _lower_tile_sampler(ctx: NodeContext) -> None:
    fn = ctx.fn
    lowering = ctx.lowering
    shape = ctx.choice("shape")
    if shape == "image" and not ctx.is_connected("image"):
        raise LoweringFailure("the shape is 'image' but nothing feeds the 'image' input: connect a texture (a Texture "
                              "Parameter, a Texture Buffer or a filter) or pick a built-in shape")
    columns, rows = float(ctx.integer("x_amount")), float(ctx.integer("y_amount"))
    seed = float(ctx.integer("seed"))
    counts = fn.construct(vec(2), fn.f(columns), fn.f(rows))
    uv = ctx.input("uv")
    size = fn.builtin(Builtin.CLAMP, FLOAT, ctx.input("size"), fn.f(0.0), fn.f(1.0))  # within the 3 x 3 cells
    scale_random = ctx.input("scale_random")
    rotation = ctx.input("rotation")
    rotation_random = ctx.input("rotation_random")
    position_random = fn.builtin(Builtin.CLAMP, FLOAT, ctx.input("position_random"), fn.f(0.0), fn.f(0.5))
    luminance_random = ctx.input("luminance_random")
    image = ctx.input("image") if shape == "image" else None
    # A pixel's width in cell units along the grid's finer axis: the anti-aliasing width.
    pixel = fn.builtin(Builtin.FWIDTH, vec(2), uv)
    aa_width = fn.builtin(Builtin.MAX, FLOAT, fn.multiply(fn.builtin(Builtin.MAX, FLOAT, fn.swizzle(pixel, "x"),
                                                                    fn.swizzle(pixel, "y")),
                                                          fn.f(max(columns, rows))), fn.f(1e-6))
    point = fn.multiply(uv, counts)
    home = fn.builtin(Builtin.FLOOR, vec(2), point)
    hash_cell = noise.hash_cell(lowering, 2)
    scramble = noise.permute(lowering, 1)
    weights = fn.construct(vec(3), *(fn.f(weight) for weight in LUMINANCE_WEIGHTS))
    best_value: Operand = fn.f(-1.0)
    best_color: Operand = fn.construct(vec(3), fn.f(0.0))
    best_grey: Operand = fn.f(0.0)
    grey_used = ctx.output_used("grey")
    for dj in (-1.0, 0.0, 1.0):
        for di in (-1.0, 0.0, 1.0):
            cell = fn.add(home, fn.construct(vec(2), fn.f(di), fn.f(dj)))
            # cell mod (X, Y), exactly: floor((n + 0.5) / X) is never near an integer.
            wraps = fn.builtin(Builtin.FLOOR, vec(2), fn.divide(fn.add(cell, fn.construct(vec(2), fn.f(0.5))), counts))
            wrapped = fn.subtract(cell, fn.multiply(wraps, counts))
            hashed = noise.call(fn, scramble, fn.add(noise.call(fn, hash_cell, wrapped), fn.f(seed)))
            randoms = fn.multiply(noise.scramble_offsets(fn, lowering, hashed, (SCALE_KEY, ROTATION_KEY, POSITION_X_KEY,
                                                                              POSITION_Y_KEY)), fn.f(1.0 / 288.0))
            lum_random = fn.multiply(noise.call(fn, scramble, fn.add(hashed, fn.f(LUMINANCE_KEY))), fn.f(1.0 / 288.0))
            scale = fn.multiply(size, fn.subtract(fn.f(1.0), fn.multiply(scale_random, fn.swizzle(randoms, "x"))))
            scale = fn.builtin(Builtin.MAX, FLOAT, scale, fn.f(1e-4))
            degrees = fn.add(rotation, fn.multiply(fn.multiply(rotation_random, fn.f(360.0)), fn.swizzle(randoms, "y")))
            angle = fn.builtin(Builtin.RADIANS, FLOAT, degrees)
            cos, sin = fn.builtin(Builtin.COS, FLOAT, angle), fn.builtin(Builtin.SIN, FLOAT, angle)
            jitter = fn.multiply(fn.subtract(fn.swizzle(randoms, "zw"), fn.construct(vec(2), fn.f(0.5))), position_random)
            centre = fn.add(fn.add(cell, fn.construct(vec(2), fn.f(0.5))), jitter)
            # The offset in UV units, rotated there (no shear in non-square cells), back in cell units over the scale.
            offset = fn.divide(fn.subtract(point, centre), counts)
            ox, oy = fn.swizzle(offset, "x"), fn.swizzle(offset, "y")
            rotated = fn.construct(vec(2), fn.add(fn.multiply(cos, ox), fn.multiply(sin, oy)),
                                   fn.subtract(fn.multiply(cos, oy), fn.multiply(sin, ox)))
            local = fn.divide(fn.multiply(rotated, counts), scale)
            distance = _shape_distance(ctx, shape, local)
            coverage = fn.builtin(Builtin.CLAMP, FLOAT,
                                  fn.subtract(fn.f(0.5), fn.divide(fn.multiply(distance, scale), aa_width)),
                                  fn.f(0.0), fn.f(1.0))
            value = fn.multiply(coverage, fn.subtract(fn.f(1.0), fn.multiply(luminance_random, lum_random)))
            if image is not None:
                at = fn.builtin(Builtin.CLAMP, vec(2), fn.add(local, fn.construct(vec(2), fn.f(0.5))),
                                fn.construct(vec(2), fn.f(0.0)), fn.construct(vec(2), fn.f(1.0)))
                texel = fn.builtin(Builtin.TEXTURE_LOD, PortType.COLOR, image, at, fn.f(0.0))
                value = fn.multiply(value, fn.builtin(Builtin.DOT, FLOAT, fn.swizzle(texel, "xyz"), weights))
            color = fn.multiply(noise.call(fn, noise.cell_color(lowering), hashed), coverage)
            wins = fn.compare(BinaryOperator.GREATER, value, best_value)
            best_value = fn.builtin(Builtin.SELECT, FLOAT, wins, value, best_value)
            best_color = fn.builtin(Builtin.SELECT, vec(3), wins, color, best_color)
            if grey_used:
                grey = fn.multiply(fn.multiply(noise.call(fn, scramble, fn.add(hashed, fn.f(GREY_KEY))), fn.f(1.0 / 288.0)),
                                   coverage)
                best_grey = fn.builtin(Builtin.SELECT, FLOAT, wins, grey, best_grey)
    ctx.set_output("pattern", best_value)
    if ctx.output_used("color"):
        ctx.set_output("color", fn.construct(vec(4), best_color, fn.f(1.0)))
    if grey_used:
        ctx.set_output("grey", best_grey)


def _shape_distance(ctx: NodeContext, shape: str, local: Operand) -> Operand:
    """The shape's distance field in its own units (the shape spans -0.5..0.5; negative inside)."""
    fn = ctx.fn
    if shape == "disc":
        return fn.subtract(fn.builtin(Builtin.LENGTH, FLOAT, local), fn.f(0.5))
    half = (0.5, 0.25) if shape == "brick" else (0.5, 0.5)
    outside = fn.subtract(fn.builtin(Builtin.ABS, vec(2), local), fn.construct(vec(2), fn.f(half[0]), fn.f(half[1])))
    return fn.builtin(Builtin.MAX, FLOAT, fn.swizzle(outside, "x"), fn.swizzle(outside, "y"))


register(
    NodeType(
        "tile_sampler",
        "Tile Sampler",
        "Pattern",
        "Scatters a shape or image on an X x Y grid: random size, rotation, position, luminance and colour.",
        inputs=[
            PortSpec("uv", PortType.VEC2, "texcoord"),
            PortSpec("size", PortType.FLOAT, 0.8),
            PortSpec("scale_random", PortType.FLOAT, 0.0, label="scale random"),
            PortSpec("rotation", PortType.FLOAT, 0.0),
            PortSpec("rotation_random", PortType.FLOAT, 0.0, label="rotation random"),
            PortSpec("position_random", PortType.FLOAT, 0.0, label="position random"),
            PortSpec("luminance_random", PortType.FLOAT, 0.0, label="luminance random"),
            PortSpec("image", PortType.TEXTURE, OPTIONAL_TEXTURE),
        ],
        outputs=[PortSpec("pattern", PortType.FLOAT), PortSpec("color", PortType.COLOR, label="random colour"),
                 PortSpec("grey", PortType.FLOAT, label="random grey")],
        properties=[
            PropertySpec("x_amount", "int", 8, 1, 64, label="X amount"),
            PropertySpec("y_amount", "int", 8, 1, 64, label="Y amount"),
            PropertySpec("shape", "enum", "square", choices=SHAPES),
            PropertySpec("size", "float", 0.8, 0.0, 1.0),
            PropertySpec("scale_random", "float", 0.0, 0.0, 1.0, label="scale random"),
            PropertySpec("rotation", "float", 0.0, 0.0, 360.0),
            PropertySpec("rotation_random", "float", 0.0, 0.0, 1.0, label="rotation random"),
            PropertySpec("position_random", "float", 0.0, 0.0, 0.5, label="position random"),
            PropertySpec("luminance_random", "float", 0.0, 0.0, 1.0, label="luminance random"),
            PropertySpec("seed", "int", 0, 0, 288),
        ],
        lower=_lower_tile_sampler,
        notes=(
            "Per pixel, the 3 x 3 cells n around floor(uv (X, Y)): h = permute(permute(permute(n.x mod X) + n.y mod Y) "
            "+ seed), r_k = permute(h + k) / 288; centre n + 0.5 + position random x (r_6 - 0.5, r_7 - 0.5); local "
            "q = (X, Y) R(-theta) (uv - centre / (X, Y)) / s, theta = rotation + 360 x rotation random x r_5 degrees, "
            "s = clamp(size, 0, 1) (1 - scale random x r_1); distance d: square max|q| - 0.5, disc |q| - 0.5, brick "
            "max(|q.x| - 0.5, |q.y| - 0.25); coverage clamp(0.5 - d s / (max(X, Y) max(fwidth(uv))), 0, 1); value = "
            "coverage (1 - luminance random x r_8), times the image's luminance at clamp(q + 0.5) for the image "
            "shape (texture_lod, level 0). The largest value wins (the first on ties): pattern = it, random colour = "
            "permute(h + (2, 3, 4)) / 288 x its coverage, alpha 1; random grey = r_9 x its coverage."
            '<br><img src="images/filter-tile-sampler.png" width="390" alt="Tile Sampler: rotated squares with random '
            'size and luminance (pattern), bricks (random colour), hexagons stamped with the image shape">'
        ),
    )
)
