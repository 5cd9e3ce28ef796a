"""The Surface Output's height: parallax occlusion mapping, self-shadowing and bump from the height.

`lower_height(ctx)` runs first in the Surface Output's lowering when its
`height` input is connected. The height (0..1) is a displacement along the
normal of (height − mid level) × scale world units. The view ray is marched
through that height field in tangent space (steps adaptive to the view
angle, then a binary refinement and a final linear interpolation), the
material's inputs are computed again at the point it hits (texture
coordinates and world position moved there), the key light is marched from
that point for self-shadowing, and the shading normal is bumped by the
height's filtered slope (taps around the pixel). The method and its
limits are in docs/material-nodes.md ("Height").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.material.node_types import LoweringFailure
from app.material.nodes.pbr import BUMP_FILTER_WIDTH, BUMP_TAP_OFFSETS, BUMP_TAPS
from app.material.port_types import PortType
from app.material.texture_passes import DISPLACEMENT_CHOICES, DISPLACEMENT_PROPERTY, displacement_key, pass_sampler_name
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import BOOL, FLOAT, vec
from vpl_core.ir.values import Operand, RegisterValue

if TYPE_CHECKING:
    from app.material.lowering import NodeContext, TrackingFunctionBuilder

#: Linear-search steps through the height field: MAX_STEPS looking straight down a grazing view ray, MIN_STEPS
#: looking along the normal (the count in between follows the cosine of the view angle).
MAX_STEPS = 32
MIN_STEPS = 8
#: Halvings of the bracket the linear search found, before the final linear interpolation inside it.
REFINE_STEPS = 5
#: Steps towards the key light from the point the view ray hit (self-shadowing).
SHADOW_STEPS = 12
#: How fast the self-shadow darkens with the height above the light ray (in units of the full height range).
SHADOW_SHARPNESS = 12.0
#: The smallest cosine of the view (and light) angle the march uses: a ray more grazing than this is marched as
#: if at this angle, so the offset stays bounded (at most scale / MIN_COSINE).
MIN_COSINE = 0.1
#: The Surface Output inputs computed again at the point the view ray hits.
SHIFTED_INPUTS = ("base_color", "metallic", "roughness", "normal", "ambient_occlusion", "emissive_color",
                  "emissive_strength", "opacity", "alpha_clip", "specular")


@dataclass
class HeightResult:
    """What the Surface Output uses from its height: the shading normal and the key light's visibility."""

    normal: Operand
    light_visibility: Operand | None


def height_active(ctx: NodeContext) -> bool:
    """True when the height input does something: connected, with a scale that is connected or above 0."""
    return ctx.is_connected("height") and (ctx.is_connected("height_scale") or ctx.number("height_scale") > 0.0)


def _float(fn: TrackingFunctionBuilder, builtin: Builtin, *arguments: Operand) -> RegisterValue:
    return fn.builtin(builtin, FLOAT, *arguments)


def _dot(fn: TrackingFunctionBuilder, a: Operand, b: Operand) -> RegisterValue:
    return _float(fn, Builtin.DOT, a, b)


def lower_height(ctx: NodeContext) -> HeightResult:
    """Parallax occlusion mapping of the Surface Output's height (see the module docstring).

    Replaces the node's inputs (`NodeContext.replace_input`) by their values at the point the view ray hits and
    returns the bumped normal and the key light's visibility (None: no self-shadowing, the height's upstream
    could not be moved). All in the block it starts in (no branches).
    """
    if ctx.control_dependent:
        raise LoweringFailure("the Surface Output's height needs screen-space derivatives, which are undefined "
                              "after an If node")
    fn = ctx.fn
    scale = fn.builtin(Builtin.MAX, FLOAT, ctx.input("height_scale"), fn.f(0.0))
    mid_level = ctx.input("height_mid_level")
    uv0 = ctx.source("texcoord")
    position0 = ctx.source("world_position")
    normal0 = ctx.source("world_normal")
    tangent = ctx.source("world_tangent")
    bitangent = ctx.source("world_bitangent")
    view = ctx.source("view_direction")
    light = ctx.source("light_direction")

    # Texture coordinates per world unit along the surface (isotropic: from the screen derivatives).
    dp_dx = fn.builtin(Builtin.DFDX, vec(3), position0)
    dp_dy = fn.builtin(Builtin.DFDY, vec(3), position0)
    duv_dx = fn.builtin(Builtin.DFDX, vec(2), uv0)
    duv_dy = fn.builtin(Builtin.DFDY, vec(2), uv0)
    uv_length = fn.add(_dot(fn, duv_dx, duv_dx), _dot(fn, duv_dy, duv_dy))
    p_length = fn.builtin(Builtin.MAX, FLOAT, fn.add(_dot(fn, dp_dx, dp_dx), _dot(fn, dp_dy, dp_dy)), fn.f(1e-30))
    uv_per_unit = _float(fn, Builtin.SQRT, fn.divide(uv_length, p_length))

    def tangent_space(direction: Operand) -> tuple[RegisterValue, RegisterValue]:
        """(xy per unit of height, cosine): the lateral move in tangent space per unit climbed along it."""
        cosine = fn.builtin(Builtin.MAX, FLOAT, _dot(fn, direction, normal0), fn.f(MIN_COSINE))
        lateral = fn.construct(vec(2), _dot(fn, direction, tangent), _dot(fn, direction, bitangent))
        return fn.divide(lateral, cosine), cosine

    view_lateral, view_cosine = tangent_space(view)
    light_lateral, light_cosine = tangent_space(light)

    def at_layer(layer: Operand, origin_uv: Operand, origin_position: Operand, origin_layer: Operand,
                 lateral: Operand, direction: Operand, cosine: Operand) -> Callable[[str], Operand]:
        """The surface sources on the ray through (origin, origin_layer) along `direction`, at `layer`."""
        climb = fn.multiply(fn.subtract(layer, origin_layer), scale)  # world units along the normal

        def replace(name: str) -> Operand:
            if name == "texcoord":
                return fn.add(origin_uv, fn.multiply(lateral, fn.multiply(climb, uv_per_unit)))
            if name == "world_position":
                return fn.add(origin_position, fn.multiply(direction, fn.divide(climb, cosine)))
            return ctx.source(name)
        return replace

    def view_ray(layer: Operand) -> Callable[[str], Operand]:
        return at_layer(layer, uv0, position0, mid_level, view_lateral, view, view_cosine)

    def height_at(replace: Callable[[str], Operand]) -> Operand | None:
        value = ctx.input_elsewhere("height", replace)
        return None if value is None else _float(fn, Builtin.CLAMP, value, fn.f(0.0), fn.f(1.0))

    # Is the height's upstream movable at all? (Lowered once here; the unused value is dropped by the compiler.)
    if ctx.input_elsewhere("height", view_ray(fn.f(1.0))) is None:
        return HeightResult(_bump(ctx, None, scale, mid_level, None), None)

    # Linear search from the top layer (a = 1) down: the first layer on or below the height field. The march is
    # unrolled (straight-line code, selects): a loop would make the backend dispatch every block of the whole
    # entry function through a switch, many times slower on software GL, and would read textures at level 0.
    # The spacing follows the view angle (MIN_STEPS layers looking along the normal, MAX_STEPS grazing); the
    # steps past the bottom change nothing.
    boolean = BOOL
    steps = _float(fn, Builtin.FLOOR, fn.subtract(fn.f(float(MAX_STEPS)), fn.multiply(view_cosine, fn.f(float(MAX_STEPS - MIN_STEPS)))))
    above: Operand = fn.f(1.0)       # a layer above the height field, and height − layer there (<= 0)
    above_gap: Operand = fn.f(0.0)
    below: Operand = fn.f(0.0)       # a layer on or below it, and height − layer there (>= 0)
    below_gap: Operand = fn.f(0.0)
    found: Operand = fn.b(False)
    for step in range(1, MAX_STEPS + 1):
        layer = fn.subtract(fn.f(1.0), fn.divide(fn.f(float(step)), steps))
        height = height_at(view_ray(layer))
        assert height is not None
        gap = fn.subtract(height, layer)
        hit = fn.binary(BinaryOperator.GREATER_EQUAL, gap, fn.f(0.0))
        active = fn.builtin(Builtin.LOGICAL_AND, boolean, fn.binary(BinaryOperator.LESS_EQUAL, fn.f(float(step)), steps),
                            fn.builtin(Builtin.LOGICAL_NOT, boolean, found))
        take_hit = fn.builtin(Builtin.LOGICAL_AND, boolean, active, hit)
        take_miss = fn.builtin(Builtin.LOGICAL_AND, boolean, active, fn.builtin(Builtin.LOGICAL_NOT, boolean, hit))
        below = fn.builtin(Builtin.SELECT, FLOAT, take_hit, layer, below)
        below_gap = fn.builtin(Builtin.SELECT, FLOAT, take_hit, gap, below_gap)
        above = fn.builtin(Builtin.SELECT, FLOAT, take_miss, layer, above)
        above_gap = fn.builtin(Builtin.SELECT, FLOAT, take_miss, gap, above_gap)
        found = fn.builtin(Builtin.LOGICAL_OR, boolean, found, take_hit)

    # Binary refinement of the bracket [below, above].
    for _ in range(REFINE_STEPS):
        middle = fn.multiply(fn.add(above, below), fn.f(0.5))
        height = height_at(view_ray(middle))
        assert height is not None
        gap = fn.subtract(height, middle)
        hit = fn.binary(BinaryOperator.GREATER_EQUAL, gap, fn.f(0.0))
        below, below_gap, above, above_gap = (fn.builtin(Builtin.SELECT, FLOAT, hit, middle, below),
                                              fn.builtin(Builtin.SELECT, FLOAT, hit, gap, below_gap),
                                              fn.builtin(Builtin.SELECT, FLOAT, hit, above, middle),
                                              fn.builtin(Builtin.SELECT, FLOAT, hit, above_gap, gap))
    # Where the straight line between the two gaps crosses zero.
    spread = fn.builtin(Builtin.MIN, FLOAT, fn.subtract(above_gap, below_gap), fn.f(-1e-6))
    share = _float(fn, Builtin.CLAMP, fn.divide(above_gap, spread), fn.f(0.0), fn.f(1.0))
    hit_layer = fn.add(above, fn.multiply(fn.subtract(below, above), share))
    hit_at = view_ray(hit_layer)
    hit_uv = hit_at("texcoord")
    hit_position = hit_at("world_position")

    # Self-shadowing: march from the hit towards the key light; the most the height field rises above that
    # ray (weighted down with the distance) darkens the direct light.
    blocked: Operand = fn.f(0.0)
    for step in range(1, SHADOW_STEPS + 1):
        share_up = step / SHADOW_STEPS
        layer = fn.add(hit_layer, fn.multiply(fn.subtract(fn.f(1.0), hit_layer), fn.f(share_up)))
        height = height_at(at_layer(layer, hit_uv, hit_position, hit_layer, light_lateral, light, light_cosine))
        assert height is not None
        rise = fn.multiply(fn.subtract(height, layer), fn.f(1.0 - 0.5 * share_up))
        blocked = fn.builtin(Builtin.MAX, FLOAT, blocked, rise)
    visibility = fn.subtract(fn.f(1.0), _float(fn, Builtin.CLAMP, fn.multiply(blocked, fn.f(SHADOW_SHARPNESS)), fn.f(0.0), fn.f(1.0)))
    # No shadow where the height does nothing.
    visibility = fn.builtin(Builtin.SELECT, FLOAT, fn.binary(BinaryOperator.GREATER, scale, fn.f(0.0)), visibility, fn.f(1.0))

    def moved(name: str) -> Operand:
        if name == "texcoord":
            return hit_uv
        if name == "world_position":
            return hit_position
        return ctx.source(name)

    for name in SHIFTED_INPUTS:
        if ctx.is_connected(name):
            value = ctx.input_elsewhere(name, moved)
            if value is not None:
                ctx.replace_input(name, value)
    return HeightResult(_bump(ctx, moved, scale, mid_level, (hit_uv, hit_position)), visibility)


def displaces(ctx: NodeContext) -> bool:
    """True when the Surface Output moves the mesh by its height ("Displacement and bump", height active)."""
    return ctx.choice(DISPLACEMENT_PROPERTY) == DISPLACEMENT_CHOICES[1] and height_active(ctx)


def lower_displacement(ctx: NodeContext) -> HeightResult:
    """"Displacement and bump": the vertex stage moves the mesh along the normal by (height − mid) × scale, the
    height read from a buffer it is rendered into (the texture pass `displacement_key`, planned by
    `pass_planner`), and the shading normal is bumped by the same height at the pixel (no parallax: the
    geometry is where the surface is). The scale and mid level are numbers of the vertex stage: they cannot be
    connected (the vertex stage does not run the node graph)."""
    from app.material.lowering import VertexDisplacement  # the lowering imports the node modules

    for name in ("height_scale", "height_mid_level"):
        if ctx.is_connected(name):
            raise LoweringFailure(f"'Displacement and bump' moves the mesh in the vertex stage, which reads the "
                                  f"{name.replace('_', ' ')} as a number: disconnect its input and set the value "
                                  "on the Surface Output (or use 'Bump only')")
    ctx.lowering.displacement = VertexDisplacement(pass_sampler_name(displacement_key(ctx.node.id)),
                                                   max(ctx.number("height_scale"), 0.0), ctx.number("height_mid_level"))
    return HeightResult(bumped_normal(ctx), None)


def bumped_normal(ctx: NodeContext) -> Operand:
    """The normal input bumped by the height at the point itself (no parallax): what a baked normal map holds."""
    fn = ctx.fn
    scale = fn.builtin(Builtin.MAX, FLOAT, ctx.input("height_scale"), fn.f(0.0))
    origin = (ctx.source("texcoord"), ctx.source("world_position"))
    return _bump(ctx, ctx.source, scale, ctx.input("height_mid_level"), origin)


def _bump(ctx: NodeContext, moved: Callable[[str], Operand] | None, scale: Operand, mid_level: Operand,
          origin: tuple[Operand, Operand] | None) -> Operand:
    """The shading normal (the normal input) tilted by the slope of the displacement (height − mid) × scale.

    The slope is fitted to `BUMP_TAPS` taps on a circle `BUMP_FILTER_WIDTH` pixels wide around the pixel (the
    sources moved by their screen derivatives from `origin`, the hit point), as Normal From Height does with a
    filter width: a sharp height mask gives a smooth bevel. Without `origin` (the height cannot be computed
    elsewhere) the slope is `dfdx`/`dfdy` of the height at the pixel.
    """
    del mid_level  # a constant offset has no slope
    fn = ctx.fn
    normal = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input("normal"))
    position = ctx.source("world_position")
    dp_dx = fn.builtin(Builtin.DFDX, vec(3), position)
    dp_dy = fn.builtin(Builtin.DFDY, vec(3), position)
    r1 = fn.builtin(Builtin.CROSS, vec(3), dp_dy, normal)
    r2 = fn.builtin(Builtin.CROSS, vec(3), normal, dp_dx)
    det = _dot(fn, dp_dx, r1)
    slopes: tuple[Operand, Operand] | None = None
    if origin is not None and moved is not None:
        uv, world = origin
        bases = {"texcoord": (uv, vec(2)), "world_position": (world, vec(3))}
        differentials = {name: (base, fn.builtin(Builtin.DFDX, kind, base), fn.builtin(Builtin.DFDY, kind, base))
                         for name, (base, kind) in bases.items()}
        radius = 0.5 * BUMP_FILTER_WIDTH
        weight = 2.0 / (BUMP_TAPS * radius)
        slope_x: Operand | None = None
        slope_y: Operand | None = None
        for offset in BUMP_TAP_OFFSETS:
            def tap(name: str, offset: tuple[float, float] = offset) -> Operand:
                if name not in differentials:
                    return moved(name)
                base, along_x, along_y = differentials[name]
                return fn.add(base, fn.add(fn.multiply(along_x, fn.f(offset[0] * radius)),
                                           fn.multiply(along_y, fn.f(offset[1] * radius))))
            height = ctx.input_elsewhere("height", tap)
            if height is None:
                break
            term_x = fn.multiply(height, fn.f(offset[0] * weight))
            term_y = fn.multiply(height, fn.f(offset[1] * weight))
            slope_x = term_x if slope_x is None else fn.add(slope_x, term_x)
            slope_y = term_y if slope_y is None else fn.add(slope_y, term_y)
        else:
            assert slope_x is not None and slope_y is not None
            slopes = (fn.multiply(slope_x, scale), fn.multiply(slope_y, scale))
    if slopes is None:
        displacement = fn.multiply(ctx.input("height"), scale)
        slopes = (_float(fn, Builtin.DFDX, displacement), _float(fn, Builtin.DFDY, displacement))
    dh_dx, dh_dy = slopes
    gradient = fn.multiply(fn.add(fn.multiply(r1, dh_dx), fn.multiply(r2, dh_dy)), _float(fn, Builtin.SIGN, det))
    absolute = _float(fn, Builtin.ABS, det)
    bumped = fn.builtin(Builtin.NORMALIZE, vec(3), fn.subtract(fn.multiply(normal, absolute), gradient))
    usable = fn.binary(BinaryOperator.GREATER, absolute, fn.f(1e-18))
    return fn.builtin(Builtin.SELECT, vec(3), usable, bumped, normal)
