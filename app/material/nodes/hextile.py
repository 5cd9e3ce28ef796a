"""Hex Tiled Image: a texture repeated without visible repetition, MaterialX's `hextiledimage`.

Mikkelsen's hex-tiling (M. S. Mikkelsen, "Practical Real-Time Hex-Tiling",
JCGT 11(2), 2022) as MaterialX 1.39 implements it (stdlib genglsl
`mx_hextiledimage.glsl` and `lib/mx_hextile.glsl`), step for step, so an
imported `hextiledimage` shows the same tiles as MaterialX's renderers:

    coord  = (u t.x, 1 - v t.y)                    (MaterialX's texture space: its vertical flip)
    st     = 2 sqrt(3) coord, skewed into a triangle grid: (st.x - st.y tan 30, 2 st.y tan 30)
    f      = fract(skewed), z = 1 - f.x - f.y, s = step(0, -z)
    vertices base + (s, s), base + (s, 1 - s), base + (1 - s, s) with barycentric weights
             -z (2s - 1), s - f.y (2s - 1), s - f.x (2s - 1)   (base = floor(skewed))
    per vertex id: r = hash(id + 0.12345) (Dave Hoskins' hash22: fract and dot only);
             centre c = (id.x + id.y / 2, id.y / (2 tan 30)) / (2 sqrt(3))   (MaterialX's inverse skew)
             angle = mix(radians(rotation range.x), radians(rotation range.y), r.x rotation)
             size  = mix(1, mix(scale range.x, scale range.y, r.y), scale)
             shift = mix(offset range.x, offset range.y, r offset)
             sample point = R(angle) (coord - c) / size + c + shift, R(a) v = (v.x cos a - v.y sin a, v.x sin a + v.y cos a)
    blend  = luminance-weighted: l_k = mix(1, dot(texel_k.rgb, luma coefficients), falloff contrast),
             w_k = l_k weight_k^7 / sum; when falloff != 0.5, each w_k = gain(w_k, falloff) (Schlick's gain,
             falloff clamped to [0.001, 0.999]) and normalised again; rgb = sum w_k texel_k.rgb; alpha the same
             with l_k = 1.

Texture reads. MaterialX reads the three texels with `textureGrad` and the
derivatives of the continuous `coord` rotated and scaled per tile. VPL has
implicit-derivative `texture` only, whose derivatives are taken across a
2 x 2 pixel quad: where a quad straddles a triangle edge, a tile's sample
point jumps, and the mip level of that read would be the coarsest. The
lowering avoids the jump by reading the vertices in slots by their class in
the triangle lattice's 3-colouring, (id.x - id.y) mod 3, instead of
MaterialX's slot order (which swaps two vertices across every diagonal):
each slot's vertex is then the same across a quad unless the quad crosses
the edge opposite it, where that vertex's weight is 0 (and its share of the
blend, weight^7, below 1e-5 within a pixel of it). So each read's implicit
derivatives are MaterialX's explicit ones wherever its weight counts; the
blend is the same sum in another order. After an If's branch (non-uniform
control flow) the reads use `texture_lod` at level 0, as Texture Sample does.

Colour space: MaterialX converts an image node's colour space on the node's
output, so in a Surface Output material an sRGB Texture Parameter's texels
are blended as read (the luminance weights are of the encoded texels) and
the blended rgb is decoded to linear (`srgb_to_linear`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, register
from app.material.nodes import pbr_functions, textures
from app.material.port_types import PortType
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import FLOAT, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext, TrackingFunctionBuilder, _Lowering

CATEGORY = "Texture"
#: MaterialX's default luminance coefficients for the blend weights (ACEScg's; its enum also lists rec709's).
ACESCG_LUMA = (0.2722287, 0.6740818, 0.0536895)
#: 2 sqrt(3): the triangle grid's scale, so one hexagon keeps about the image's original size.
GRID_SCALE = math.sqrt(3.0) * 2.0
#: The skew into the triangle grid (tan 30 degrees, 2 tan 30 degrees), MaterialX's literals.
TAN30, TWO_TAN30 = 0.57735027, 1.15470054
#: Added to a vertex id before hashing (MaterialX: "to avoid some zeros").
SEED_OFFSET = 0.12345
#: The tile weights' exponent, which narrows the blend to the hexagons' borders.
WEIGHT_EXPONENT = 7.0


def _build_hash(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
    """MaterialX's `mx_hextile_hash` (Dave Hoskins' hash22): fract and dot only."""
    (p,) = pbr_functions.parameters(fn, 1)
    px, py = fn.swizzle(p, "x"), fn.swizzle(p, "y")
    p3 = fn.builtin(Builtin.FRACT, vec(3), fn.multiply(fn.construct(vec(3), px, py, px),
                                                      fn.construct(vec(3), fn.f(0.1031), fn.f(0.1030), fn.f(0.0973))))
    mixed = fn.builtin(Builtin.DOT, FLOAT, p3, fn.add(fn.swizzle(p3, "yzx"), fn.construct(vec(3), fn.f(33.33))))
    p3 = fn.add(p3, fn.construct(vec(3), mixed))
    fn.ret(fn.builtin(Builtin.FRACT, vec(2), fn.multiply(fn.add(fn.swizzle(p3, "xx"), fn.swizzle(p3, "yz")), fn.swizzle(p3, "zy"))))


def _build_gain(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
    """MaterialX's `mx_schlick_gain(x, r)` (Schlick, Graphics Gems IV), r clamped to [0.001, 0.999]."""
    x, r = pbr_functions.parameters(fn, 2)
    rr = fn.builtin(Builtin.CLAMP, FLOAT, r, fn.f(0.001), fn.f(0.999))
    a = fn.multiply(fn.subtract(fn.divide(fn.f(1.0), rr), fn.f(2.0)), fn.subtract(fn.f(1.0), fn.multiply(fn.f(2.0), x)))
    low = fn.divide(x, fn.add(a, fn.f(1.0)))
    high = fn.divide(fn.subtract(a, x), fn.subtract(a, fn.f(1.0)))
    fn.ret(fn.builtin(Builtin.SELECT, FLOAT, fn.compare(BinaryOperator.LESS, x, fn.f(0.5)), low, high))


def _mod3(fn: TrackingFunctionBuilder, n: Operand) -> Operand:
    """n mod 3 of an integer-valued float, exactly: floor((n + 0.5) / 3) is never near an integer."""
    return fn.subtract(n, fn.multiply(fn.builtin(Builtin.FLOOR, FLOAT, fn.divide(fn.add(n, fn.f(0.5)), fn.f(3.0))), fn.f(3.0)))


def _vertices(fn: TrackingFunctionBuilder, coord: Operand) -> list[Operand]:
    """The three vertices of coord's triangle as vec3(id, barycentric weight), in slots by lattice colour."""
    st = fn.multiply(coord, fn.f(GRID_SCALE))
    sx, sy = fn.swizzle(st, "x"), fn.swizzle(st, "y")
    skewed = fn.construct(vec(2), fn.subtract(sx, fn.multiply(fn.f(TAN30), sy)), fn.multiply(fn.f(TWO_TAN30), sy))
    frac = fn.builtin(Builtin.FRACT, vec(2), skewed)
    base = fn.builtin(Builtin.FLOOR, vec(2), skewed)
    fx, fy = fn.swizzle(frac, "x"), fn.swizzle(frac, "y")
    z = fn.subtract(fn.subtract(fn.f(1.0), fx), fy)
    s = fn.builtin(Builtin.STEP, FLOAT, fn.f(0.0), fn.builtin(Builtin.NEGATE, FLOAT, z))
    s2 = fn.subtract(fn.multiply(fn.f(2.0), s), fn.f(1.0))
    t = fn.subtract(fn.f(1.0), s)
    bx, by = fn.swizzle(base, "x"), fn.swizzle(base, "y")
    # MaterialX's order: id1 = base + (s, s), id2 = base + (s, 1 - s), id3 = base + (1 - s, s).
    first = fn.construct(vec(3), fn.add(bx, s), fn.add(by, s), fn.multiply(fn.builtin(Builtin.NEGATE, FLOAT, z), s2))
    second = fn.construct(vec(3), fn.add(bx, s), fn.add(by, t), fn.subtract(s, fn.multiply(fy, s2)))
    third = fn.construct(vec(3), fn.add(bx, t), fn.add(by, s), fn.subtract(s, fn.multiply(fx, s2)))
    # Lattice colour (i - j) mod 3: first has base's colour c, the colour c + 1 is third (s = 0) or second (s = 1).
    colour = _mod3(fn, fn.subtract(bx, by))
    upper = fn.compare(BinaryOperator.GREATER, s, fn.f(0.5))
    next_one = fn.builtin(Builtin.SELECT, vec(3), upper, second, third)
    next_two = fn.builtin(Builtin.SELECT, vec(3), upper, third, second)
    is_zero = fn.compare(BinaryOperator.LESS, colour, fn.f(0.5))
    is_one = fn.compare(BinaryOperator.LESS, colour, fn.f(1.5))
    # Slot k holds the vertex of colour k: c itself, c + 1 (next_one) or c + 2 (next_two).
    slots: list[Operand] = []
    for own, plus_one, plus_two in ((0, 2, 1), (1, 0, 2), (2, 1, 0)):
        by_colour = {own: first, plus_one: next_one, plus_two: next_two}
        slots.append(fn.builtin(Builtin.SELECT, vec(3), is_zero, by_colour[0],
                                fn.builtin(Builtin.SELECT, vec(3), is_one, by_colour[1], by_colour[2])))
    return slots


def _sample_point(ctx: NodeContext, coord: Operand, vertex: Operand) -> Operand:
    """The tile's sample point in MaterialX's texture space: coord rotated and scaled about the tile's centre,
    then shifted, by amounts hashed from its vertex id."""
    fn = ctx.fn
    vertex_id = fn.swizzle(vertex, "xy")
    scaled_id = fn.divide(vertex_id, fn.f(GRID_SCALE))
    ix, iy = fn.swizzle(scaled_id, "x"), fn.swizzle(scaled_id, "y")
    centre = fn.construct(vec(2), fn.add(ix, fn.multiply(fn.f(0.5), iy)), fn.multiply(fn.f(1.0 / TWO_TAN30), iy))
    hashed = fn.call(ctx.helper("hextile_hash", _build_hash, [vec(2)], vec(2)),
                     fn.add(vertex_id, fn.construct(vec(2), fn.f(SEED_OFFSET))))
    assert hashed is not None
    ranges = fn.builtin(Builtin.RADIANS, vec(2), ctx.input("rotation_range"))
    angle = fn.builtin(Builtin.MIX, FLOAT, fn.swizzle(ranges, "x"), fn.swizzle(ranges, "y"),
                       fn.multiply(fn.swizzle(hashed, "x"), ctx.input("rotation")))
    scale_range = ctx.input("scale_range")
    size = fn.builtin(Builtin.MIX, FLOAT, fn.f(1.0),
                      fn.builtin(Builtin.MIX, FLOAT, fn.swizzle(scale_range, "x"), fn.swizzle(scale_range, "y"), fn.swizzle(hashed, "y")),
                      ctx.input("scale"))
    offset_range = ctx.input("offset_range")
    shift = fn.builtin(Builtin.MIX, vec(2), fn.construct(vec(2), fn.swizzle(offset_range, "x")),
                       fn.construct(vec(2), fn.swizzle(offset_range, "y")), fn.multiply(hashed, ctx.input("offset")))
    cos, sin = fn.builtin(Builtin.COS, FLOAT, angle), fn.builtin(Builtin.SIN, FLOAT, angle)
    local = fn.subtract(coord, centre)
    lx, ly = fn.swizzle(local, "x"), fn.swizzle(local, "y")
    rotated = fn.construct(vec(2), fn.subtract(fn.multiply(lx, cos), fn.multiply(ly, sin)),
                           fn.add(fn.multiply(lx, sin), fn.multiply(ly, cos)))
    return fn.add(fn.add(fn.divide(rotated, size), centre), shift)


def _blend_weights(ctx: NodeContext, luminance: Operand, tile_weights: Operand) -> Operand:
    """MaterialX's `mx_hextile_compute_blend_weights`: luminance x weight^7 normalised, then the falloff's gain."""
    fn = ctx.fn
    weights = fn.multiply(luminance, fn.builtin(Builtin.POW, vec(3), tile_weights, fn.construct(vec(3), fn.f(WEIGHT_EXPONENT))))
    weights = fn.divide(weights, fn.builtin(Builtin.DOT, FLOAT, weights, fn.construct(vec(3), fn.f(1.0))))
    falloff = ctx.input("falloff")
    gain = ctx.helper("hextile_gain", _build_gain, [FLOAT, FLOAT], FLOAT)
    components = [fn.call(gain, fn.swizzle(weights, letter), falloff) for letter in "xyz"]
    assert all(component is not None for component in components)
    gained = fn.construct(vec(3), *(component for component in components if component is not None))
    gained = fn.divide(gained, fn.builtin(Builtin.DOT, FLOAT, gained, fn.construct(vec(3), fn.f(1.0))))
    return fn.builtin(Builtin.SELECT, vec(3), fn.compare(BinaryOperator.NOT_EQUAL, falloff, fn.f(0.5)), gained, weights)


def _lower_hextiled_image(ctx: NodeContext) -> None:
    fn = ctx.fn
    sampler = ctx.input("texture")
    tiled = fn.multiply(ctx.input("uv"), ctx.input("tiling"))
    coord = fn.construct(vec(2), fn.swizzle(tiled, "x"), fn.subtract(fn.f(1.0), fn.swizzle(tiled, "y")))
    texels = []
    vertices = _vertices(fn, coord)
    for vertex in vertices:
        point = _sample_point(ctx, coord, vertex)
        # Back to the editor's texture space, where v = 0 reads the image's bottom row.
        at = fn.construct(vec(2), fn.swizzle(point, "x"), fn.subtract(fn.f(1.0), fn.swizzle(point, "y")))
        if ctx.control_dependent:
            texels.append(fn.builtin(Builtin.TEXTURE_LOD, PortType.COLOR, sampler, at, fn.f(0.0)))
        else:
            texels.append(fn.texture(sampler, at))
    tile_weights = fn.construct(vec(3), *(fn.swizzle(vertex, "z") for vertex in vertices))
    luma = ctx.input("lumacoeffs")
    luminance = fn.construct(vec(3), *(fn.builtin(Builtin.DOT, FLOAT, fn.swizzle(texel, "xyz"), luma) for texel in texels))
    luminance = fn.builtin(Builtin.MIX, vec(3), fn.construct(vec(3), fn.f(1.0)), luminance,
                           fn.construct(vec(3), ctx.input("falloff_contrast")))
    weights = _blend_weights(ctx, luminance, tile_weights)
    rgb: Operand = fn.multiply(fn.swizzle(texels[0], "xyz"), fn.swizzle(weights, "x"))
    for texel, letter in zip(texels[1:], "yz"):
        rgb = fn.add(rgb, fn.multiply(fn.swizzle(texel, "xyz"), fn.swizzle(weights, letter)))
    if textures.decodes_srgb(ctx):
        decoded = fn.call(pbr_functions.srgb_to_linear(ctx.lowering), rgb)
        assert decoded is not None
        rgb = decoded
    alpha: Operand = fn.f(1.0)
    if ctx.output_used("rgba") or ctx.output_used("a"):
        alpha_weights = _blend_weights(ctx, fn.construct(vec(3), fn.f(1.0)), tile_weights)
        alpha = fn.builtin(Builtin.DOT, FLOAT, fn.construct(vec(3), *(fn.swizzle(texel, "w") for texel in texels)), alpha_weights)
    if ctx.output_used("rgba"):
        ctx.set_output("rgba", fn.construct(vec(4), rgb, alpha))
    ctx.set_output("rgb", rgb)
    for letter, name in zip("xyz", "rgb"):
        if ctx.output_used(name):
            ctx.set_output(name, fn.swizzle(rgb, letter))
    if ctx.output_used("a"):
        ctx.set_output("a", alpha)


#: Inputs besides the texture and uv: (name, port type, default = MaterialX's nodedef default, property kind, range).
PARAMETERS: tuple[tuple[str, PortType, float | tuple[float, ...], str, tuple[float, float] | None], ...] = (
    ("tiling", PortType.VEC2, (1.0, 1.0), "vector", None),
    ("rotation", PortType.FLOAT, 1.0, "float", (0.0, 1.0)),
    ("rotation_range", PortType.VEC2, (0.0, 360.0), "vector", None),
    ("scale", PortType.FLOAT, 1.0, "float", (0.0, 1.0)),
    ("scale_range", PortType.VEC2, (0.5, 2.0), "vector", None),
    ("offset", PortType.FLOAT, 1.0, "float", (0.0, 1.0)),
    ("offset_range", PortType.VEC2, (0.0, 1.0), "vector", None),
    ("falloff", PortType.FLOAT, 0.5, "float", (0.0, 1.0)),
    ("falloff_contrast", PortType.FLOAT, 0.5, "float", (0.0, 1.0)),
    ("lumacoeffs", PortType.VEC3, ACESCG_LUMA, "vector", None),
)
_LABELS = {"rotation_range": "rotation range", "scale_range": "scale range", "offset_range": "offset range",
           "falloff_contrast": "falloff contrast", "lumacoeffs": "luma coefficients"}


register(
    NodeType(
        "hextiled_image",
        "Hex Tiled Image",
        CATEGORY,
        "A texture tiled on a hex grid, each tile randomly turned, scaled and shifted: no visible repeats.",
        inputs=[
            PortSpec("texture", PortType.TEXTURE, None),
            PortSpec("uv", PortType.VEC2, "texcoord"),
            *(PortSpec(name, port_type, default, label=_LABELS.get(name, "")) for name, port_type, default, _kind, _range in PARAMETERS),
        ],
        outputs=list(textures.SAMPLE_OUTPUTS),
        properties=[
            PropertySpec(name, kind, default, bounds[0] if bounds else None, bounds[1] if bounds else None,
                         label=_LABELS.get(name, ""))
            for name, _type, default, kind, bounds in PARAMETERS
        ],
        lower=_lower_hextiled_image,
        notes=(
            "MaterialX 1.39's mx_hextiledimage step for step (Mikkelsen, JCGT 2022): coord = (u t.x, 1 - v t.y); "
            "the triangle grid of 2 sqrt(3) coord skewed by tan 30; per vertex id a hash (fract and dot) gives "
            "rotation mix(range) x rotation, scale mix(1, mix(range), scale) and offset mix(range, r x offset) about "
            "the tile's centre; three `texture` reads (in slots by the lattice's 3-colouring, so each read's implicit "
            "derivatives are the tile's own; `texture_lod` level 0 behind an If); weights mix(1, luminance, falloff "
            "contrast) x barycentric^7 normalised, Schlick's gain by falloff when it is not 0.5. In a Surface Output "
            "material an sRGB Texture Parameter's blend is decoded after blending, as MaterialX does."
        ),
    )
)
