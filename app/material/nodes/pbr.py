"""Nodes for physically based work: normal mapping, bump, Fresnel, channel packing, colour transfer.

Conventions (docs/material-nodes.md repeats them for artists):

- **Tangent space** is MikkTSpace's, as glTF and every baking tool use it:
  tangent T along +u, bitangent B = w · cross(N, T) along +v, from the
  mesh's per-vertex tangent (vertex input 3, `app/preview/tangents.py`).
  The Tangent and Bitangent nodes (Input category) give the interpolated
  frame, re-orthogonalized against the interpolated normal.
- **Normal Map** decodes a tangent-space normal map texel t in [0, 1]³ as
  n = 2t − 1, flips n.y for DirectX-convention maps (green down), scales
  n.xy by the strength (glTF's `normalTexture.scale`), and returns
  normalize(n.x T + n.y B + n.z N) in world space.
- **Normal From Height** is bump mapping from any height value by screen-
  space derivatives (Mikkelsen 2010, "Bump Mapping Unparametrized Surfaces
  on the GPU", the method of Blender's Bump node): with σ = dP/dx, dP/dy
  and the height's derivatives, N' = normalize(|det| N − strength · sign(det)
  (dh/dx · (dP/dy × N) + dh/dy · (N × dP/dx))). The height is in world
  units times strength. Derivatives are undefined after a data-dependent
  branch, so the node refuses to follow an If node.
- **ORM Unpack** follows glTF's packing: R = ambient occlusion, G =
  roughness, B = metallic.
- **Fresnel (Schlick)**: F0 + (1 − F0)(1 − |N·V|)⁵ (Schlick 1994), the
  reflectance the Surface Output uses for light arriving along N.
- **Roughness from Glossiness**: 1 − glossiness (the specular-glossiness
  to metallic-roughness conversion).
- **Luminance**: Rec. 709 Y, dot(rgb, (0.2126, 0.7152, 0.0722)).
- **Linear to sRGB / sRGB to Linear**: the IEC 61966-2-1 piecewise curves,
  alpha untouched.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.material.node_types import LoweringFailure, NodeType, PortSpec, PropertySpec, register
from app.material.nodes import pbr_functions
from app.material.port_types import PortType
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext
    from vpl_core.ir.module import Function

CATEGORY = "PBR"


def _called(value: Operand | None) -> Operand:
    assert value is not None  # the helpers here all return a value
    return value


# Surface frame ------------------------------------------------------------------------------


def _frame(ctx: NodeContext, normal: Operand) -> tuple[Operand, Operand]:
    """(T, B) for the unit normal `normal`: the mesh's tangent frame re-orthogonalized against it."""
    if not ctx.is_connected("normal"):
        return ctx.source("world_tangent"), ctx.source("world_bitangent")
    fn = ctx.fn
    raw = ctx.source("world_tangent_raw")
    tangent = fn.swizzle(raw, "xyz")
    along = fn.multiply(normal, fn.builtin(Builtin.DOT, PortType.FLOAT, normal, tangent))
    unit_tangent = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, fn.subtract(tangent, along))
    bitangent = fn.multiply(fn.builtin(Builtin.CROSS, PortType.VEC3, normal, unit_tangent), fn.swizzle(raw, "w"))
    return unit_tangent, bitangent


def _lower_normal_map(ctx: NodeContext) -> None:
    fn = ctx.fn
    normal = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input("normal"))
    texel = ctx.input("tangent_normal")
    decoded = fn.subtract(fn.multiply(texel, fn.f(2.0)), pbr_functions.splat3(fn, 1.0))
    green = -1.0 if ctx.choice("convention") == "directx" else 1.0
    strength = ctx.input("strength")
    scale = fn.construct(vec(3), strength, fn.multiply(strength, fn.f(green)), fn.f(1.0))
    scaled = fn.multiply(decoded, scale)
    tangent, bitangent = _frame(ctx, normal)
    world = fn.add(
        fn.add(fn.multiply(tangent, fn.swizzle(scaled, "x")), fn.multiply(bitangent, fn.swizzle(scaled, "y"))),
        fn.multiply(normal, fn.swizzle(scaled, "z")),
    )
    ctx.set_output("normal_out", fn.builtin(Builtin.NORMALIZE, PortType.VEC3, world))


register(
    NodeType(
        "normal_map",
        "Normal Map",
        CATEGORY,
        "Turns a tangent-space normal map texel into a world-space normal for the Surface Output.",
        inputs=[
            PortSpec("tangent_normal", PortType.VEC3, (0.5, 0.5, 1.0), label="color"),
            PortSpec("strength", PortType.FLOAT, 1.0),
            PortSpec("normal", PortType.VEC3, "world_normal"),
        ],
        outputs=[PortSpec("normal_out", PortType.VEC3, label="normal")],
        properties=[
            PropertySpec("tangent_normal", "vector", (0.5, 0.5, 1.0), label="color"),
            PropertySpec("strength", "float", 1.0, 0.0, 4.0),
            PropertySpec("convention", "enum", "opengl", choices=("opengl", "directx"), label="green channel"),
        ],
        lower=_lower_normal_map,
        notes=(
            "n = (2 t − 1) · (strength, ±strength, 1) (− for DirectX maps), then normalize(n.x T + n.y B + n.z N) "
            "with the MikkTSpace frame (world_tangent varying, bitangent = w · cross(N, T))."
        ),
    )
)


#: Normal From Height's taps: evenly on a circle (turned off the axes so a straight edge seen along x or y
#: crosses them one at a time), in units of the filter radius.
BUMP_TAPS = 8
#: Diameter in pixels of the taps a filtered bump's slope is fitted to: the Surface Output's height bump, and
#: Normal From Height's `filter_width` for a new node.
BUMP_FILTER_WIDTH = 2.0
_BUMP_TURN = math.atan2(1.0, 3.0)
BUMP_TAP_OFFSETS = tuple((math.cos(_BUMP_TURN + 2.0 * math.pi * index / BUMP_TAPS),
                          math.sin(_BUMP_TURN + 2.0 * math.pi * index / BUMP_TAPS)) for index in range(BUMP_TAPS))


def _filtered_height_slope(ctx: NodeContext, strength: Operand, width: float) -> tuple[Operand, Operand] | None:
    """The slope of height × strength per pixel in x and y, fitted to taps around the pixel; None when the
    height's upstream cannot be computed at other points (`NodeContext.input_elsewhere`)."""
    fn = ctx.fn
    radius = 0.5 * width
    differentials: dict[str, tuple[Operand, Operand, Operand, PortType]] = {}

    def at(offset: tuple[float, float]) -> Callable[[str], Operand]:
        def replace(name: str) -> Operand:
            if name not in differentials:
                base = ctx.source(name)
                port_type = {"texcoord": PortType.VEC2, "vertex_color": PortType.COLOR}.get(name, PortType.VEC3)
                differentials[name] = (base, fn.builtin(Builtin.DFDX, port_type, base),
                                       fn.builtin(Builtin.DFDY, port_type, base), port_type)
            base, along_x, along_y, _ = differentials[name]
            return fn.add(base, fn.add(fn.multiply(along_x, fn.f(offset[0] * radius)),
                                       fn.multiply(along_y, fn.f(offset[1] * radius))))
        return replace

    slope_x: Operand | None = None
    slope_y: Operand | None = None
    # Least squares of a plane through the taps: with the taps evenly on a circle of radius r, the sum of
    # o·oᵀ is (n r² / 2)·I, so the slope is (2 / (n r²)) · Σ hᵢ oᵢ (a height the same everywhere gives 0).
    scale = 2.0 / (BUMP_TAPS * radius)
    for offset in BUMP_TAP_OFFSETS:
        height = ctx.input_elsewhere("height", at(offset))
        if height is None:
            return None
        term_x = fn.multiply(height, fn.f(offset[0] * scale))
        term_y = fn.multiply(height, fn.f(offset[1] * scale))
        slope_x = term_x if slope_x is None else fn.add(slope_x, term_x)
        slope_y = term_y if slope_y is None else fn.add(slope_y, term_y)
    assert slope_x is not None and slope_y is not None
    return fn.multiply(slope_x, strength), fn.multiply(slope_y, strength)


def _lower_normal_from_height(ctx: NodeContext) -> None:
    if ctx.control_dependent:
        raise LoweringFailure("Normal From Height needs screen-space derivatives, which are undefined after an If node")
    fn = ctx.fn
    normal = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input("normal"))
    strength = ctx.input("strength")
    position = ctx.source("world_position")
    dp_dx = fn.builtin(Builtin.DFDX, PortType.VEC3, position)
    dp_dy = fn.builtin(Builtin.DFDY, PortType.VEC3, position)
    r1 = fn.builtin(Builtin.CROSS, PortType.VEC3, dp_dy, normal)
    r2 = fn.builtin(Builtin.CROSS, PortType.VEC3, normal, dp_dx)
    det = fn.builtin(Builtin.DOT, PortType.FLOAT, dp_dx, r1)
    width = max(0.0, ctx.number("filter_width"))
    slopes = _filtered_height_slope(ctx, strength, width) if width > 0.0 else None
    if slopes is None:
        height = fn.multiply(ctx.input("height"), strength)
        slopes = (fn.builtin(Builtin.DFDX, PortType.FLOAT, height), fn.builtin(Builtin.DFDY, PortType.FLOAT, height))
    dh_dx, dh_dy = slopes
    gradient = fn.multiply(fn.add(fn.multiply(r1, dh_dx), fn.multiply(r2, dh_dy)), fn.builtin(Builtin.SIGN, PortType.FLOAT, det))
    absolute = fn.builtin(Builtin.ABS, PortType.FLOAT, det)
    bumped = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, fn.subtract(fn.multiply(normal, absolute), gradient))
    # The gradient is orthogonal to N, so |bumped|² >= det²: only a degenerate pixel (det ~ 0,
    # seen edge-on) has nothing to normalize, and keeps N.
    usable = fn.binary(BinaryOperator.GREATER, absolute, fn.f(1e-18))
    ctx.set_output("normal_out", fn.builtin(Builtin.SELECT, PortType.VEC3, usable, bumped, normal))


register(
    NodeType(
        "normal_from_height",
        "Normal From Height",
        CATEGORY,
        "Bump mapping: a world-space normal tilted by the slope of a height value (any node).",
        inputs=[
            PortSpec("height", PortType.FLOAT, 0.0),
            PortSpec("strength", PortType.FLOAT, 1.0),
            PortSpec("normal", PortType.VEC3, "world_normal"),
        ],
        outputs=[PortSpec("normal_out", PortType.VEC3, label="normal")],
        properties=[
            PropertySpec("height", "float", 0.0, 0.0, 1.0),
            PropertySpec("strength", "float", 1.0, 0.0, 10.0),
            # Filtered by default (a new node): a file that stored 0 keeps the quad-stepped `dfdx` slope.
            PropertySpec("filter_width", "float", BUMP_FILTER_WIDTH, 0.0, 8.0),
        ],
        lower=_lower_normal_from_height,
        notes=(
            "Mikkelsen's surface gradient (\"Bump Mapping Unparametrized Surfaces on the GPU\", 2010) from "
            "`dfdx`/`dfdy` of the world position and the slope of height × strength. With `filter_width` > 0 "
            f"(pixels; {BUMP_FILTER_WIDTH:g} for a new node, as the Surface Output's own height bump) the "
            f"height's upstream is computed again at {BUMP_TAPS} taps on a circle of that diameter "
            "(texture coordinates, world position and vertex colour moved by their screen derivatives) and the "
            "slope is the least-squares plane through them: a sharp mask gives a smooth bevel about that wide, at "
            "the cost of that many evaluations of the nodes that read those sources (parameters and nodes that "
            "read none are shared; a texture-heavy height such as a triplanar sample is slow to compile on "
            "software GL); a linear height gives the same slope as `dfdx`. With `filter_width` 0 (what files saved before "
            "the filter was the default store) the slope is `dfdx`/`dfdy` of height × strength, which differences "
            "whole 2×2-pixel quads: a sharp mask gives a bevel that steps along the quads. Strength is read at the "
            "pixel. "
            "A height whose upstream holds a group, a Group Input or an If node keeps the `dfdx` slope (a group's "
            "helper cannot be given moved sources yet). An error after an If node (derivatives need uniform "
            "control flow)."
        ),
    )
)


# Reflectance and channels --------------------------------------------------------------------


def _lower_fresnel_schlick(ctx: NodeContext) -> None:
    fn = ctx.fn
    normal = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input("normal"))
    view = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input("view_direction"))
    weight = _called(fn.call(pbr_functions.schlick_weight(ctx.lowering), fn.builtin(Builtin.DOT, PortType.FLOAT, normal, view)))
    f0 = ctx.input("f0")
    ctx.set_output("out", fn.add(f0, fn.multiply(fn.subtract(pbr_functions.splat3(fn, 1.0), f0), weight)))


register(
    NodeType(
        "fresnel_schlick",
        "Fresnel (Schlick)",
        CATEGORY,
        "Reflectance by view angle: F0 + (1 - F0)(1 - |N.V|)^5 (0.04 for plastic, the colour for metal).",
        inputs=[
            PortSpec("f0", PortType.VEC3, (0.04, 0.04, 0.04)),
            PortSpec("normal", PortType.VEC3, "world_normal"),
            PortSpec("view_direction", PortType.VEC3, "view_direction"),
        ],
        outputs=[PortSpec("out", PortType.VEC3)],
        properties=[PropertySpec("f0", "color", (0.04, 0.04, 0.04, 1.0))],
        lower=_lower_fresnel_schlick,
        notes="Calls the helper `schlick_weight` ((1 − |N·V|)⁵ by multiplication); F0 + (1 − F0) · weight.",
    )
)


def _lower_roughness_from_glossiness(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.fn.subtract(ctx.fn.f(1.0), ctx.input("glossiness")))


register(
    NodeType(
        "roughness_from_glossiness",
        "Roughness from Glossiness",
        CATEGORY,
        "1 - glossiness: uses a specular-glossiness map as the Surface Output's roughness.",
        inputs=[PortSpec("glossiness", PortType.FLOAT, 0.5)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("glossiness", "float", 0.5, 0.0, 1.0)],
        lower=_lower_roughness_from_glossiness,
        notes="One `subtract` from 1.",
    )
)


def _lower_orm_unpack(ctx: NodeContext) -> None:
    fn = ctx.fn
    orm = ctx.input("orm")
    for name, letter in (("occlusion", "x"), ("roughness", "y"), ("metallic", "z")):
        if ctx.output_used(name):
            ctx.set_output(name, fn.swizzle(orm, letter))


register(
    NodeType(
        "orm_unpack",
        "ORM Unpack",
        CATEGORY,
        "Splits a packed ORM texture (glTF): R = occlusion, G = roughness, B = metallic.",
        inputs=[PortSpec("orm", PortType.COLOR, (1.0, 0.5, 0.0, 1.0))],
        outputs=[PortSpec("occlusion", PortType.FLOAT), PortSpec("roughness", PortType.FLOAT), PortSpec("metallic", PortType.FLOAT)],
        properties=[PropertySpec("orm", "color", (1.0, 0.5, 0.0, 1.0))],
        lower=_lower_orm_unpack,
        notes="One swizzle per used output (r, g, b). Sample the texture with the Texture Parameter's colour space set to linear.",
    )
)


def _lower_luminance(ctx: NodeContext) -> None:
    ctx.set_output("out", _called(ctx.fn.call(pbr_functions.luminance(ctx.lowering), ctx.input("color"))))


register(
    NodeType(
        "luminance",
        "Luminance",
        CATEGORY,
        "The brightness of a linear colour: dot(rgb, (0.2126, 0.7152, 0.0722)) (Rec. 709).",
        inputs=[PortSpec("color", PortType.VEC3, (1.0, 1.0, 1.0))],
        outputs=[PortSpec("out", PortType.FLOAT)],
        # A colour (its swatch on the node); the rgb reach the vec3 input.
        properties=[PropertySpec("color", "color", (1.0, 1.0, 1.0, 1.0))],
        lower=_lower_luminance,
        notes="Calls the helper `luminance` (one `dot`).",
    )
)


def _transfer_node(
    type_name: str, display_name: str, description: str, helper: Callable[[pbr_functions.HelperOwner], Function], notes: str
) -> None:
    def lower(ctx: NodeContext) -> None:
        fn = ctx.fn
        color = ctx.input("color")
        rgb = _called(fn.call(helper(ctx.lowering), fn.swizzle(color, "xyz")))
        ctx.set_output("out", fn.construct(vec(4), rgb, fn.swizzle(color, "w")))

    register(
        NodeType(
            type_name,
            display_name,
            CATEGORY,
            description,
            inputs=[PortSpec("color", PortType.COLOR)],
            outputs=[PortSpec("out", PortType.COLOR)],
            properties=[PropertySpec("color", "color", (0.5, 0.5, 0.5, 1.0))],
            lower=lower,
            notes=notes,
        )
    )


_transfer_node(
    "linear_to_srgb",
    "Linear to sRGB",
    "Encodes a linear colour with the sRGB curve (IEC 61966-2-1); alpha unchanged.",
    pbr_functions.linear_to_srgb,
    "Calls the helper `linear_to_srgb`: 12.92 c below 0.0031308, else 1.055 c^(1/2.4) − 0.055 (`step` + `mix`).",
)
_transfer_node(
    "srgb_to_linear",
    "sRGB to Linear",
    "Decodes an sRGB-encoded colour to linear (IEC 61966-2-1); alpha unchanged.",
    pbr_functions.srgb_to_linear,
    "Calls the helper `srgb_to_linear`: c / 12.92 below 0.04045, else ((c + 0.055) / 1.055)^2.4 (`step` + `mix`).",
)
