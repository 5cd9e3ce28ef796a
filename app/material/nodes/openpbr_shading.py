"""The OpenPBR Surface's shading, emitted as VPL instructions into the material's fragment function.

`shade(ctx)` returns the linear radiance of the layered model of OpenPBR
Surface 1.1 (fuzz over coat over a metal / dielectric base whose substrate
is diffuse, subsurface or transmission), lit by the scene's directional
light and its environment (the preview's prefiltered maps, docs/lighting.md,
"OpenPBR Surface"). A lobe whose weight input is an unconnected, non-live 0
is not emitted at all (`Lobes`). Every real-time approximation is listed
with its reference in docs/lighting.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.material.node_types import as_number, input_default
from app.material.nodes import pbr_functions
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import FLOAT, SAMPLER2D, Type, VectorType, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext, TrackingFunctionBuilder

MIN_ALPHA = pbr_functions.MIN_ALPHA
#: Smallest N·V the lobes evaluate (grazing views stay finite).
MIN_COSINE = 1e-4
# Slopes (in units of the lobe's extra tangent width) of the taps of the anisotropic environment lobe: the
# midpoint quantiles of the 1D marginal of GGX's slope distribution, p(x) ∝ (1 + x²)^(-3/2), so equal weights.
# The marginal's tails are heavy (5 % of it lies beyond ±3 widths) and bright lights there light the lobe: 8 taps
# reach 1.8 widths, 24 reach 3.4 (docs/lighting.md, "OpenPBR Surface").
ANISOTROPIC_TAPS = 24
ANISOTROPIC_SLOPES = tuple(w / math.sqrt(1.0 - w * w) for w in ((2 * k + 1) / ANISOTROPIC_TAPS - 1.0 for k in range(ANISOTROPIC_TAPS)))
#: Lobe weights: a lobe is emitted unless its weight is a constant 0.
LOBE_WEIGHTS: dict[str, str] = {
    "coat": "coat_weight",
    "fuzz": "fuzz_weight",
    "thin_film": "thin_film_weight",
    "transmission": "transmission_weight",
    "subsurface": "subsurface_weight",
    "metal": "base_metalness",
    "emission": "emission_luminance",
}


class Emit:
    """Arithmetic on operands with float -> vector promotion (the IR's operators need matching types)."""

    def __init__(self, fn: TrackingFunctionBuilder) -> None:
        self.fn = fn

    def v(self, value: Operand | float) -> Operand:
        return self.fn.f(float(value)) if isinstance(value, (int, float)) else value

    def _size(self, *values: Operand) -> int:
        sizes = [value.type.size for value in values if isinstance(value.type, VectorType)]
        return max(sizes) if sizes else 1

    def promote(self, value: Operand, size: int) -> Operand:
        if size == 1 or isinstance(value.type, VectorType):
            return value
        return self.fn.construct(vec(size), *([value] * size))

    def _binary(self, operator: BinaryOperator, a: Operand | float, b: Operand | float) -> Operand:
        left, right = self.v(a), self.v(b)
        size = self._size(left, right)
        return self.fn.binary(operator, self.promote(left, size), self.promote(right, size))

    def add(self, *values: Operand | float) -> Operand:
        total = self.v(values[0])
        for value in values[1:]:
            total = self._binary(BinaryOperator.ADD, total, value)
        return total

    def sub(self, a: Operand | float, b: Operand | float) -> Operand:
        return self._binary(BinaryOperator.SUBTRACT, a, b)

    def mul(self, *values: Operand | float) -> Operand:
        total = self.v(values[0])
        for value in values[1:]:
            total = self._binary(BinaryOperator.MULTIPLY, total, value)
        return total

    def div(self, a: Operand | float, b: Operand | float) -> Operand:
        return self._binary(BinaryOperator.DIVIDE, a, b)

    def call(self, builtin: Builtin, *arguments: Operand | float) -> Operand:
        """A component-wise builtin: float arguments are promoted to the widest vector among them."""
        values = [self.v(argument) for argument in arguments]
        size = self._size(*values)
        result_type: Type = vec(size) if size > 1 else FLOAT
        return self.fn.call_builtin(builtin, result_type, *(self.promote(value, size) for value in values))

    def sqrt(self, a: Operand | float) -> Operand:
        return self.call(Builtin.SQRT, a)

    def max(self, a: Operand | float, b: Operand | float) -> Operand:
        return self.call(Builtin.MAX, a, b)

    def min(self, a: Operand | float, b: Operand | float) -> Operand:
        return self.call(Builtin.MIN, a, b)

    def clamp(self, a: Operand | float, low: float, high: float) -> Operand:
        return self.call(Builtin.CLAMP, a, low, high)

    def sat(self, a: Operand) -> Operand:
        return self.clamp(a, 0.0, 1.0)

    def mix(self, a: Operand | float, b: Operand | float, t: Operand | float) -> Operand:
        return self.call(Builtin.MIX, a, b, t)

    def exp(self, a: Operand) -> Operand:
        return self.call(Builtin.EXP, a)

    def dot(self, a: Operand, b: Operand) -> Operand:
        return self.fn.call_builtin(Builtin.DOT, FLOAT, a, b)

    def normalize(self, a: Operand) -> Operand:
        return self.fn.call_builtin(Builtin.NORMALIZE, vec(3), a)

    def cross(self, a: Operand, b: Operand) -> Operand:
        return self.fn.call_builtin(Builtin.CROSS, vec(3), a, b)

    def select(self, condition: Operand, a: Operand, b: Operand) -> Operand:
        return self.fn.call_builtin(Builtin.SELECT, a.type, condition, a, b)

    def vec3(self, value: float) -> Operand:
        return pbr_functions.splat3(self.fn, value)

    def square(self, a: Operand) -> Operand:
        return self.mul(a, a)

    def pow5(self, a: Operand) -> Operand:
        squared = self.square(a)
        return self.mul(self.square(squared), a)


@dataclass
class Lobes:
    """Which lobes the material emits (a weight that is an unconnected, non-live constant 0 turns one off)."""

    on: frozenset[str]
    anisotropic: bool
    coat_anisotropic: bool
    diffuse_rough: bool

    @staticmethod
    def of(ctx: NodeContext) -> Lobes:
        def constant_zero(name: str) -> bool:
            return constant_is(ctx, name, 0.0)

        on = frozenset(lobe for lobe, weight in LOBE_WEIGHTS.items() if not constant_zero(weight))
        return Lobes(on, not constant_zero("specular_roughness_anisotropy"),
                     "coat" in on and not constant_zero("coat_roughness_anisotropy"),
                     not constant_zero("base_diffuse_roughness"))


def constant_is(ctx: NodeContext, name: str, value: float, structural: bool = False) -> bool:
    """Whether input `name` is unconnected and equal to `value` (every rgb component of a colour): the lobe it
    weighs emits no code. A live value (`lower(live=...)`) is not constant (its lobe reads the uniform), unless
    `structural`: then at `value` it is marked structural (`NodeContext.property`), so the live program has the
    canonical program's code and moving the value away lowers again with the lobe (the Surface Output's glTF
    extensions, whose neutral values must leave its code as it was)."""
    if ctx.is_connected(name):
        return False
    live = (ctx.node.id, name) in ctx.lowering.live
    if live and not structural:
        return False
    # What the unconnected input reads: the stored value when well-formed, else the catalog default.
    stored = input_default(ctx.node, ctx.node_type, name)
    # A number that is not a finite float (as_number's fallback: NaN) is never the value: the lobe is emitted.
    if isinstance(stored, (tuple, list)):
        equal = all(as_number(c, math.nan) == value for c in stored[:3])
    else:
        equal = as_number(stored, math.nan) == value
    if equal and live:
        ctx.property(name)
    return equal

class _Environment:
    """The preview's image-based lighting: prefiltered radiance, irradiance / π and the split-sum table."""

    def __init__(self, ctx: NodeContext, e: Emit) -> None:
        fn = ctx.fn
        self.e = e
        self.ctx = ctx
        self.rotation = ctx.scene("environment_rotation")
        self.intensity = ctx.scene("environment_intensity")
        self.max_lod = ctx.scene("environment_max_lod")
        self.specular_map = fn.load(ctx.lowering.host_uniform("environment_specular", SAMPLER2D))
        self.irradiance_map = fn.load(ctx.lowering.host_uniform("environment_irradiance", SAMPLER2D))
        self.brdf_table = fn.load(ctx.lowering.host_uniform("environment_brdf", SAMPLER2D))
        self.to_uv = pbr_functions.equirect_uv(ctx.lowering)

    def _sample(self, sampler: Operand, direction: Operand, lod: Operand | float, scaled: bool = True) -> Operand:
        fn = self.ctx.fn
        uv = fn.call(self.to_uv, direction, self.rotation)
        assert uv is not None
        texel = fn.swizzle(fn.call_builtin(Builtin.TEXTURE_LOD, vec(4), sampler, uv, self.e.v(lod)), "xyz")
        return self.e.mul(texel, self.intensity) if scaled else texel

    def radiance(self, direction: Operand, roughness: Operand, scaled: bool = True) -> Operand:
        e = self.e
        lod = e.mul(self.max_lod, e.mul(roughness, e.sub(2.0, roughness)))
        return self._sample(self.specular_map, direction, lod, scaled)

    def lobe(self, normal: Operand, view: Operand, roughness: Operand) -> Operand:
        """The environment over the isotropic GGX lobe of `roughness` at `normal`: the prefiltered map in the
        lobe's dominant direction (the split sum, `pbr_functions.lobe_direction`), integrated per pixel in the
        material's refined variant (docs/lighting.md, "Refined environment light")."""
        fn = self.ctx.fn
        reflected = pbr_functions.lobe_direction(fn, normal, view, roughness)
        split_sum = self.radiance(reflected, roughness, scaled=False)
        if getattr(self.ctx.lowering, "refined", False):
            refined = fn.call(pbr_functions.refined_specular(self.ctx.lowering), normal, view, roughness, split_sum)
            assert refined is not None
            split_sum = refined
        return self.e.mul(split_sum, self.intensity)

    def irradiance(self, normal: Operand) -> Operand:
        return self._sample(self.irradiance_map, normal, 0.0)

    def table(self, n_dot_v: Operand, roughness: Operand) -> tuple[Operand, Operand]:
        fn = self.ctx.fn
        texel = fn.call_builtin(Builtin.TEXTURE_LOD, vec(4), self.brdf_table, fn.construct(vec(2), n_dot_v, roughness), fn.f(0.0))
        return fn.swizzle(texel, "x"), fn.swizzle(texel, "y")


@dataclass
class _Frame:
    normal: Operand
    n_dot_v: Operand
    n_dot_l: Operand
    n_dot_h: Operand
    v_dot_h: Operand


def _frame(e: Emit, normal: Operand, view: Operand, light: Operand, halfway: Operand) -> _Frame:
    return _Frame(normal, e.max(e.dot(normal, view), MIN_COSINE), e.dot(normal, light), e.dot(normal, halfway),
                  e.max(e.dot(view, halfway), 0.0))


def anisotropic_alpha(e: Emit, roughness: Operand, anisotropy: Operand) -> tuple[Operand, Operand]:
    """OpenPBR's (α_t, α_b): α_t = r² √(2 / (1 + (1 − a)²)), α_b = (1 − a) α_t (open_pbr_anisotropy)."""
    inverse = e.sub(1.0, anisotropy)
    alpha_t = e.mul(e.square(roughness), e.sqrt(e.div(2.0, e.add(1.0, e.square(inverse)))))
    alpha_b = e.mul(inverse, alpha_t)
    return e.max(alpha_t, MIN_ALPHA), e.max(alpha_b, MIN_ALPHA)


def _microfacet(ctx: NodeContext, e: Emit, frame: _Frame, view: Operand, light: Operand, halfway: Operand,
                alpha: tuple[Operand, Operand] | Operand, tangent: Operand | None) -> Operand:
    """D · Vis (GGX, height-correlated Smith) times χ⁺(N·L) χ⁺(N·H): anisotropic when `tangent` is given."""
    lit = e.mul(pbr_functions.heaviside(ctx.fn, frame.n_dot_l), pbr_functions.heaviside(ctx.fn, frame.n_dot_h))
    n_dot_l = e.max(frame.n_dot_l, 0.0)
    if tangent is None:
        assert not isinstance(alpha, tuple)
        isotropic_d = ctx.fn.call(pbr_functions.ggx_distribution(ctx.lowering), frame.n_dot_h, alpha)
        isotropic_vis = ctx.fn.call(pbr_functions.smith_visibility(ctx.lowering), n_dot_l, frame.n_dot_v, alpha)
        assert isotropic_d is not None and isotropic_vis is not None
        return e.mul(isotropic_d, isotropic_vis, lit)
    assert isinstance(alpha, tuple)
    alpha_t, alpha_b = alpha
    normal = frame.normal
    # Gram-Schmidt: the tangent made perpendicular to the (possibly mapped) normal.
    t_axis = e.normalize(e.add(e.sub(tangent, e.mul(normal, e.dot(normal, tangent))), pbr_functions.constant3(ctx.fn, (1e-7, 0.0, 0.0))))
    b_axis = e.cross(normal, t_axis)
    h_t, h_b = e.div(e.dot(halfway, t_axis), alpha_t), e.div(e.dot(halfway, b_axis), alpha_b)
    base = e.add(e.square(h_t), e.square(h_b), e.square(frame.n_dot_h))
    distribution = e.div(1.0, e.mul(math.pi, alpha_t, alpha_b, e.square(base)))

    def lambda_root(direction: Operand, cosine: Operand) -> Operand:
        along_t, along_b = e.mul(alpha_t, e.dot(direction, t_axis)), e.mul(alpha_b, e.dot(direction, b_axis))
        return e.sqrt(e.add(e.square(along_t), e.square(along_b), e.square(cosine)))

    total = e.add(e.mul(n_dot_l, lambda_root(view, frame.n_dot_v)), e.mul(frame.n_dot_v, lambda_root(light, n_dot_l)))
    visibility = e.div(0.5, e.max(total, pbr_functions.VISIBILITY_EPSILON))
    return e.mul(distribution, visibility, lit)


def _anisotropic_radiance(ctx: NodeContext, e: Emit, env: _Environment, normal: Operand, view: Operand, tangent: Operand,
                          alpha_t: Operand, alpha_b: Operand) -> Operand:
    """The prefiltered environment over an anisotropic GGX lobe: taps of the across-tangent (α_b) prefiltered map
    at reflections off microfacet normals tilted along the tangent by the lobe's extra tangent width."""
    fn = ctx.fn
    t_axis = e.normalize(e.add(e.sub(tangent, e.mul(normal, e.dot(normal, tangent))), pbr_functions.constant3(fn, (1e-7, 0.0, 0.0))))
    spread = e.mul(t_axis, e.sqrt(e.max(e.sub(e.square(alpha_t), e.square(alpha_b)), 0.0)))
    backwards = fn.call_builtin(Builtin.NEGATE, vec(3), view)
    across = e.sqrt(alpha_b)
    total: Operand | None = None
    for slope in ANISOTROPIC_SLOPES:
        facet = e.normalize(e.add(normal, e.mul(spread, slope)))
        tap = env.radiance(fn.call_builtin(Builtin.REFLECT, vec(3), backwards, facet), across, scaled=False)
        total = tap if total is None else e.add(total, tap)
    assert total is not None
    taps = e.mul(total, 1.0 / ANISOTROPIC_TAPS)
    if getattr(ctx.lowering, "refined", False):
        # Final frames integrate the lobe per pixel, the taps as the control variate (docs/lighting.md).
        refined = fn.call(pbr_functions.refined_anisotropic_specular(ctx.lowering), normal, view, t_axis, alpha_t, alpha_b,
                          e.sqrt(e.sqrt(e.mul(alpha_t, alpha_b))), taps)
        assert refined is not None
        taps = refined
    return e.mul(taps, env.intensity)


def refracted_environment(ctx: NodeContext, e: Emit, env: _Environment, view: Operand, normal: Operand, eta: Operand,
                          thin: Operand | bool, roughness: Operand, rough: bool = True) -> Operand:
    """The environment seen through the surface: straight through a thin wall, else refracted in at the normal
    and out through a sphere's far side (the exit normal halfway between the ray and −N), with the lobe of the
    sphere's two rough faces (`solid_refraction_roughness`; not `rough`: the roughness is a constant 0 and the
    lookup takes it as it is); a bool `thin` picks the ray in Python."""
    fn = ctx.fn
    backwards = fn.call_builtin(Builtin.NEGATE, vec(3), view)
    entered = fn.call_builtin(Builtin.REFRACT, vec(3), backwards, normal, e.div(1.0, eta))
    inner_normal = e.normalize(e.sub(e.mul(entered, e.dot(entered, normal)), e.mul(normal, 0.5)))
    solid = fn.call_builtin(Builtin.REFRACT, vec(3), entered, inner_normal, eta)
    through: Operand
    lobe: Operand
    if thin is True or not rough:
        through = backwards if thin is True else solid if thin is False else e.select(thin, backwards, solid)
        lobe = roughness
    else:
        solid_lobe = solid_refraction_roughness(e, view, normal, entered, eta, roughness)
        through, lobe = ((solid, solid_lobe) if thin is False
                         else (e.select(thin, backwards, solid), e.select(thin, roughness, solid_lobe)))
    # refract() returns 0 on total internal reflection: fall back to the straight ray.
    valid = fn.binary(BinaryOperator.GREATER, e.dot(through, through), fn.f(0.5))
    through = e.select(valid, through, backwards)
    return env.radiance(through, lobe)


def solid_refraction_roughness(e: Emit, view: Operand, normal: Operand, entered: Operand, eta: Operand,
                               roughness: Operand) -> Operand:
    """The roughness of the prefiltered lookup for light refracted through both rough faces of the unit sphere.

    A microfacet tilted by δ turns a reflected ray by 2δ, which is the lobe the prefiltered chain holds; it
    turns a refracted ray by (cos θ_i / (η cos θ_t) − 1) δ at the entry and (η cos θ_t / cos θ_i − 1) δ at the
    exit (Snell's law differentiated; on a sphere the exit's angles are the entry's). The two faces' tilts are
    independent, so their turns add in quadrature: the refracted lobe is the reflected one's width times
    s = √(entry² + exit²) / 2, α' = α s, roughness' = roughness √s (capped at 1). Through glass of η 1.54 seen
    face on the roughness is 0.57 of the surface's (the lobe a third as wide); the lobe is as wide as the
    reflection's at N·V 0.44 and wider only nearer the rim. Checked against a path-traced rough glass sphere
    (tests/glass_reference.py, docs/lighting.md "Rough transmission")."""
    cos_in = e.max(e.dot(normal, view), 1e-4)
    cos_inside = e.max(e.sub(0.0, e.dot(entered, normal)), 1e-4)
    entry = e.sub(e.div(cos_in, e.mul(eta, cos_inside)), 1.0)
    leave = e.sub(e.div(e.mul(eta, cos_inside), cos_in), 1.0)
    spread = e.mul(0.5, e.sqrt(e.add(e.square(entry), e.square(leave))))
    return e.min(e.mul(roughness, e.sqrt(spread)), 1.0)


def dispersed_environment(ctx: NodeContext, e: Emit, env: _Environment, view: Operand, normal: Operand, eta: Operand,
                          thin: Operand | bool, roughness: Operand, dispersion: Operand | None, rough: bool = True) -> Operand:
    """`refracted_environment`, with dispersion (KHR_materials_dispersion's `dispersion` = 20 / Abbe number) as
    the extension and the glTF Sample Viewer shade it: the IOR spread over the channels, half-spread
    (η − 1) · 0.025 · dispersion, η_R = η − spread, η_G = η, η_B = η + spread, and one refracted lookup per
    channel. None: no dispersion, one lookup. `rough` as `refracted_environment`'s."""
    if dispersion is None:
        return refracted_environment(ctx, e, env, view, normal, eta, thin, roughness, rough)
    fn = ctx.fn
    half_spread = e.mul(e.sub(eta, 1.0), 0.025, e.max(dispersion, 0.0))
    channels = []
    for channel, channel_eta in (("x", e.sub(eta, half_spread)), ("y", eta), ("z", e.add(eta, half_spread))):
        seen = refracted_environment(ctx, e, env, view, normal, e.max(channel_eta, 1.0), thin, roughness, rough)
        channels.append(fn.swizzle(seen, channel))
    return fn.construct(vec(3), *channels)


#: The scattering medium's constants (docs/lighting.md, "OpenPBR Surface", Transmission), fitted to the volumetric
#: random walk of tests/openpbr_volume_reference.py: the mean length of one leg of a scattered path to the
#: boundary of the unit sphere, in scene units.
SCATTER_LEG = 1.0
#: ... and in mean free paths of the similar medium (a dense medium's walk starts and ends near the surface).
SCATTER_DENSE_LEG = 1.3
#: ... and in absorption lengths of the channel (light absorbed within a leg escapes only from near the surface,
#: so its walk is shorter).
SCATTER_ABSORBED_LEG = 1.0
#: The legs' lengths are Gamma distributed with this shape (as the sum of that many exponential flights): their
#: mean transmittance (1 + μ l / k)^−k exceeds exp(−μ l), most in a strongly absorbing channel.
SCATTER_LEG_SHAPE = 6.0
#: ... the share of the isotropically scattered light that leaves on the far side, around the refracted ray ...
SCATTER_FAR_SIDE = 0.2
#: ... and the optical thickness at which half the scattered light leaves back around the entry.
SCATTER_BACK = 7.0
_AXES = ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0))


def scattering_medium(ctx: NodeContext, e: Emit, env: _Environment, view: Operand, normal: Operand, eta: Operand,
                      color: Operand, depth: Operand, seen: Operand, irradiance: Operand) -> Operand:
    """The radiance leaving a solid (not thin-walled) scattering medium towards the camera per unit of light
    refracted into it (OpenPBR 1.1's transmission volume: μ_t = −ln(transmission_color) / depth,
    μ_s = transmission_scatter / depth, μ_a = μ_t − μ_s shifted up to be non-negative, Henyey-Greenstein g).

    The object is taken as the unit sphere the preview's meshes are normalised to: the camera ray is refracted
    in and crosses the chord L = 2 (−N·T). Its ballistic share exp(−μ_t L) sees `seen` (the environment along
    the refracted ray) through the exit's Fresnel; the share that scatters, (μ_s/μ_t)(1 − exp(−μ_t L)),
    wanders in legs of mean length at most SCATTER_LEG (Gamma distributed) in the similar medium
    (μ_s' = μ_s (1 − g)), each leg ending in absorption, another scattering, internal reflection (the
    dielectric's diffuse internal reflectance 1 − (1 − F0)/η²) or escape: the escaping share is the geometric
    series' sum. It leaves by g_eff (the anisotropy left after the mean number of scatterings, times the exit's
    Fresnel transmission relative to normal incidence) into the prefiltered environment around the refracted
    ray, blurred to roughness 1 − g_eff, and by the rest into the environment's mean, moved towards the
    irradiance at N by the chord's optical thickness."""
    fn = ctx.fn
    scatter = e.max(fn.swizzle(ctx.input("transmission_scatter"), "xyz"), 0.0)
    g = e.clamp(ctx.input("transmission_scatter_anisotropy"), -0.95, 0.95)
    unit = e.max(depth, 1e-4)
    extinction = e.div(e.mul(-1.0, e.call(Builtin.LOG, color)), unit)
    sigma_s = e.div(scatter, unit)
    sigma_a = e.sub(extinction, sigma_s)
    lowest = e.min(e.min(fn.swizzle(sigma_a, "x"), fn.swizzle(sigma_a, "y")), fn.swizzle(sigma_a, "z"))
    sigma_a = e.sub(sigma_a, e.min(lowest, 0.0))
    sigma_t = e.add(sigma_a, sigma_s)
    backwards = fn.call_builtin(Builtin.NEGATE, vec(3), view)
    entered = fn.call_builtin(Builtin.REFRACT, vec(3), backwards, normal, e.div(1.0, eta))
    chord = e.mul(2.0, e.max(e.mul(-1.0, e.dot(entered, normal)), 0.0))
    ballistic = e.exp(e.mul(-1.0, sigma_t, chord))
    n_dot_v = e.max(e.dot(normal, view), MIN_COSINE)
    exit_transmit = e.sub(1.0, fresnel_dielectric(e, n_dot_v, eta))
    albedo = e.div(sigma_s, e.max(sigma_t, 1e-6))
    # The share that scatters along the chord, and the ballistic share the exit reflects back inside (it joins
    # the walk rather than being lost: in a white furnace a non-absorbing medium then returns all of it).
    first = e.add(e.mul(albedo, e.sub(1.0, ballistic)), e.mul(ballistic, e.sub(1.0, exit_transmit)))
    # One leg of the scattered walk in the similar medium.
    reduced_s = e.mul(sigma_s, e.sub(1.0, g))
    reduced_t = e.add(sigma_a, reduced_s)
    # A leg is at most SCATTER_DENSE_LEG mean free paths long (in a dense medium the walk starts near the surface)
    # and SCATTER_ABSORBED_LEG absorption lengths (per channel).
    leg = e.min(e.min(e.div(SCATTER_DENSE_LEG, e.max(reduced_s, 1e-4)), SCATTER_LEG),
                e.div(SCATTER_ABSORBED_LEG, e.max(sigma_a, 1e-4)))
    through_leg = e.call(Builtin.POW, e.add(1.0, e.mul(leg, reduced_t, 1.0 / SCATTER_LEG_SHAPE)), e.v(-SCATTER_LEG_SHAPE))
    internal = e.sub(1.0, e.div(e.sub(1.0, f0_of_ior(e, eta)), e.square(eta)))
    escape = e.mul(through_leg, e.sub(1.0, internal))
    again = e.add(e.mul(e.div(reduced_s, e.max(reduced_t, 1e-6)), e.sub(1.0, through_leg)), e.mul(through_leg, internal))
    escaped = e.mul(first, e.div(escape, e.max(e.sub(1.0, again), 1e-4)))
    # The anisotropy left after the mean number of scatterings along the chord (g^n, n ≥ 1).
    third = pbr_functions.constant3(fn, (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0))
    count = e.max(e.mul(e.dot(sigma_s, third), chord), 1.0)
    remaining = e.mul(e.call(Builtin.SIGN, g), e.call(Builtin.POW, e.call(Builtin.ABS, g), count))
    blur = e.sat(e.sub(1.0, remaining))
    inner_normal = e.normalize(e.sub(e.mul(entered, e.dot(entered, normal)), e.mul(normal, 0.5)))
    refracted_out = fn.call_builtin(Builtin.REFRACT, vec(3), entered, inner_normal, eta)
    valid = fn.binary(BinaryOperator.GREATER, e.dot(refracted_out, refracted_out), fn.f(0.5))
    through = e.select(valid, refracted_out, backwards)
    # Isotropically scattered light leaves in every direction: the environment's mean over the sphere, as the
    # irradiance along the six axes averages it, a share of it from the far side (the irradiance around the
    # refracted ray); what anisotropy is left keeps it around the refracted ray, as far as the exit lets it
    # through (the rest is reflected back inside and diffuses): g_eff (1 − F(N·V)) / (1 − F0), the exit's
    # cosine being the entry's on a sphere.
    around = e.mul(e.add(*(env.irradiance(pbr_functions.constant3(fn, axis)) for axis in _AXES)), 1.0 / 6.0)
    around = e.mix(around, env.irradiance(through), SCATTER_FAR_SIDE)
    # A dense or absorbing medium sends more of it back out around the entry (what survives in an absorbing
    # channel walked a short way): towards the irradiance at N by the optical thickness of the chord,
    # τ' = (μ_s' + μ_a) L per channel, τ' / (τ' + SCATTER_BACK).
    thickness = e.mul(e.add(e.dot(reduced_s, third), sigma_a), chord)
    around = e.mix(around, irradiance, e.div(thickness, e.add(thickness, SCATTER_BACK)))
    diffused = e.mix(around, env.radiance(through, blur),
                     e.mul(e.max(remaining, 0.0), e.div(exit_transmit, e.sub(1.0, f0_of_ior(e, eta)))))
    return e.add(e.mul(ballistic, exit_transmit, seen), e.mul(escaped, diffused))


def fresnel_dielectric(e: Emit, cosine: Operand, eta: Operand) -> Operand:
    """The exact unpolarised Fresnel reflectance of a dielectric interface of relative IOR η (η ≥ 1)."""
    c = e.clamp(cosine, 0.0, 1.0)
    g_squared = e.add(e.sub(e.square(eta), 1.0), e.square(c))
    g = e.sqrt(e.max(g_squared, 0.0))
    plus, minus = e.add(g, c), e.sub(g, c)
    first = e.div(e.square(minus), e.max(e.square(plus), 1e-12))
    second = e.div(e.sub(e.mul(c, plus), 1.0), e.add(e.mul(c, minus), 1.0))
    return e.mul(0.5, first, e.add(1.0, e.square(second)))


def f0_of_ior(e: Emit, ior: Operand) -> Operand:
    return e.square(e.div(e.sub(ior, 1.0), e.add(ior, 1.0)))


def f82_tint(e: Emit, cosine: Operand, f0: Operand, tint: Operand) -> Operand:
    """Hoffman's F82-tint conductor Fresnel (OpenPBR's metal): Schlick minus a μ (1 − μ)⁶ with the dip at μ̄ = 1/7."""
    mu_bar = 1.0 / 7.0
    schlick_at_bar = e.add(f0, e.mul(e.sub(1.0, f0), (1.0 - mu_bar) ** 5))
    a = e.div(e.mul(schlick_at_bar, e.sub(1.0, tint)), mu_bar * (1.0 - mu_bar) ** 6)
    mu = e.clamp(cosine, 0.0, 1.0)
    complement = e.sub(1.0, mu)
    schlick = e.add(f0, e.mul(e.sub(1.0, f0), e.pow5(complement)))
    dip = e.mul(a, mu, e.pow5(complement), complement)
    return e.max(e.sub(schlick, dip), 0.0)


def f82_dip_factor(e: Emit, f0: Operand, tint: Operand, n_dot_v: Operand) -> Operand:
    """a μ (1 − μ)⁶ of `f82_tint` at μ = N·V (the split-sum's approximation of its directional integral)."""
    mu_bar = 1.0 / 7.0
    schlick_at_bar = e.add(f0, e.mul(e.sub(1.0, f0), (1.0 - mu_bar) ** 5))
    a = e.div(e.mul(schlick_at_bar, e.sub(1.0, tint)), mu_bar * (1.0 - mu_bar) ** 6)
    complement = e.sub(1.0, n_dot_v)
    return e.mul(a, n_dot_v, e.pow5(complement), complement)


def zeltner_albedo(e: Emit, n_dot_v: Operand, roughness: Operand) -> Operand:
    """Directional albedo of Zeltner et al.'s sheen (the fit of MaterialX's mx_zeltner_sheen_dir_albedo)."""
    x, y = n_dot_v, roughness
    s = e.div(e.mul(y, e.add(0.0206607, e.mul(1.58491, y))), e.add(0.0379424, e.mul(y, e.add(1.32227, y))))
    inner = e.add(-1.14885, e.mul(y, e.sub(1.7932, e.mul(0.95943, y, y))))
    m = e.div(e.mul(y, e.add(-0.193854, e.mul(y, inner))), e.add(0.046391, y))
    o = e.div(e.mul(y, e.add(0.000654023, e.mul(e.add(-0.0207818, e.mul(0.119681, y)), y))),
              e.add(1.26264, e.mul(y, e.add(-1.92021, y))))
    gauss = e.exp(e.mul(-0.5, e.square(e.div(e.sub(x, m), s))))
    return e.add(e.div(gauss, e.mul(s, math.sqrt(2.0 * math.pi))), o)


def zeltner_lobe(e: Emit, normal: Operand, view: Operand, light: Operand, n_dot_v: Operand, roughness: Operand) -> Operand:
    """Zeltner et al.'s sheen LTC, D(L) including the cosine (mx_zeltner_sheen_brdf)."""
    x, y = n_dot_v, roughness
    a_inv = e.div(e.mul(e.add(e.mul(2.58126, x), e.mul(0.813703, y)), y),
                  e.add(1.0, e.mul(0.310327, x, x), e.mul(2.60994, x, y)))
    b_inv = e.div(e.mul(e.sqrt(e.max(e.sub(1.0, x), 0.0)), e.sub(y, 1.0), y, y, y),
                  e.add(0.0000254053, e.mul(1.71228, x), e.mul(-1.71506, x, y), e.mul(1.34174, y, y)))
    # The LTC frame: X along V's projection on the surface (a fixed fallback when V is along N).
    along = e.sub(view, e.mul(normal, e.dot(normal, view)))
    x_axis = e.normalize(e.add(along, pbr_functions.constant3(e.fn, (1e-6, 0.0, 0.0))))
    y_axis = e.cross(normal, x_axis)
    w_x, w_y, w_z = e.dot(light, x_axis), e.dot(light, y_axis), e.dot(light, normal)
    o_x, o_y = e.add(e.mul(a_inv, w_x), e.mul(b_inv, w_z)), e.mul(a_inv, w_y)
    length_squared = e.add(e.square(o_x), e.square(o_y), e.square(w_z))
    cosine_pdf = e.div(e.max(w_z, 0.0), math.pi)
    return e.mul(cosine_pdf, e.square(e.div(a_inv, e.max(length_squared, 1e-12))))


def fresnel_polarized(e: Emit, cosine: Operand, eta: Operand) -> tuple[Operand, Operand]:
    """(R_p, R_s): the exact Fresnel reflectance of a dielectric interface of relative IOR η per polarisation
    (η below 1 is light leaving the denser side: total internal reflection gives 1)."""
    c2 = e.square(e.clamp(cosine, 0.0, 1.0))
    s2 = e.sub(1.0, c2)
    t0 = e.max(e.sub(e.square(eta), s2), 0.0)
    t1 = e.add(t0, c2)
    t2 = e.mul(2.0, e.sqrt(t0), e.sqrt(c2))
    r_s = e.div(e.sub(t1, t2), e.max(e.add(t1, t2), 1e-12))
    t3 = e.add(e.mul(c2, t0), e.square(s2))
    t4 = e.mul(t2, s2)
    r_p = e.mul(r_s, e.div(e.sub(t3, t4), e.max(e.add(t3, t4), 1e-12)))
    return r_p, r_s


def airy_iridescence(e: Emit, cosine: Operand, thickness_um: Operand, film_ior: Operand, base_ior: Operand) -> Operand:
    """Thin-film (Airy) reflectance of a dielectric film in air over a dielectric base, per RGB: Belcour & Barla
    (2017), each polarisation on its own (exact Fresnel and phase shifts at both interfaces, two orders of the
    Airy sum) and averaged, the spectral integration in Fourier space by `_eval_sensitivity`. Averaging the
    Fresnel terms before the interference (KHR_materials_iridescence's evalIridescence) is the same at normal
    incidence, but towards grazing the p wave nears Brewster's angle and the two interfere differently: the
    averaged form overshoots the exact spectral reflectance there (docs/lighting.md)."""
    thickness = e.mul(thickness_um, 1000.0)  # nm
    # The film's IOR fades to the outside's as the film vanishes (no film, no colour): KHR's smoothstep.
    fade = e.call(Builtin.SMOOTHSTEP, 0.0, 0.03, thickness)
    eta2 = e.mix(1.0, e.max(film_ior, 1.0), fade)
    eta3 = e.max(base_ior, 1.0)
    cos1 = e.clamp(cosine, 0.0, 1.0)
    sin2_film = e.mul(e.square(e.div(1.0, eta2)), e.sub(1.0, e.square(cos1)))
    cos2 = e.sqrt(e.max(e.sub(1.0, sin2_film), 0.0))
    r12_p, r12_s = fresnel_polarized(e, cos1, eta2)
    r23_p, r23_s = fresnel_polarized(e, cos2, e.div(eta3, eta2))
    # Phase shifts on reflection: at the film's top seen from inside (p flips at Brewster's angle, tan θ_B = η2),
    # and at the base (π below a less dense base; p flips where n3⁴ cos² θ2 = n2² (n3² − n2² sin² θ2)).
    brewster = e.div(1.0, e.sqrt(e.add(1.0, e.square(eta2))))
    phi21_p = e.select(e.fn.binary(BinaryOperator.LESS, cos1, brewster), e.v(0.0), e.v(math.pi))
    phi23_s = e.select(e.fn.binary(BinaryOperator.LESS, eta3, eta2), e.v(math.pi), e.v(0.0))
    eta2_sq, eta3_sq = e.square(eta2), e.square(eta3)
    p_sign = e.sub(e.mul(e.square(eta3_sq), e.square(cos2)), e.mul(eta2_sq, e.sub(eta3_sq, e.mul(eta2_sq, sin2_film))))
    phi23_p = e.select(e.fn.binary(BinaryOperator.LESS, p_sign, e.fn.f(0.0)), e.v(math.pi), e.v(0.0))
    opd = e.mul(2.0, eta2, thickness, cos2)
    result: Operand | None = None
    for r12, r23, phi in ((r12_p, r23_p, e.add(phi21_p, phi23_p)), (r12_s, r23_s, e.add(math.pi, phi23_s))):
        t121 = e.sub(1.0, r12)
        r123 = e.clamp(e.mul(r12, r23), 1e-5, 0.9999)
        rs = e.div(e.mul(e.square(t121), r23), e.sub(1.0, r123))
        polarised = e.promote(e.add(r12, rs), 3)
        amplitude = e.sub(rs, t121)
        root = e.sqrt(r123)
        for m in (1, 2):
            amplitude = e.mul(amplitude, root)
            sensitivity = _eval_sensitivity(e, e.mul(float(m), opd), e.mul(float(m), phi))
            polarised = e.add(polarised, e.mul(amplitude, 2.0, sensitivity))
        result = polarised if result is None else e.add(result, polarised)
    assert result is not None
    return e.max(e.mul(0.5, result), 0.0)


def _eval_sensitivity(e: Emit, opd: Operand, shift: Operand) -> Operand:
    """KHR_materials_iridescence's evalSensitivity: the XYZ Gaussian fit of the CIE sensitivities in Fourier
    space, converted to linear Rec.709."""
    phase = e.mul(2.0 * math.pi * 1e-9, opd)
    values = ((5.4856e-13, 4.4201e-13, 5.2481e-13), (1.6810e6, 1.7953e6, 2.2084e6),
              (4.3278e9, 9.3046e9, 6.6121e9), (-2.9744e6, -2.2144e6, -2.9411e6))
    val = pbr_functions.constant3(e.fn, values[0])
    pos = pbr_functions.constant3(e.fn, values[1])
    var = pbr_functions.constant3(e.fn, values[2])
    phase3 = e.promote(phase, 3)
    gauss = e.exp(e.mul(-1.0, e.mul(phase3, phase3), var))
    shifted = e.add(e.mul(pos, phase3), e.promote(shift, 3))
    xyz = e.mul(val, e.sqrt(e.mul(2.0 * math.pi, var)), e.call(Builtin.COS, shifted), gauss)
    extra = e.mul(9.7470e-14 * math.sqrt(2.0 * math.pi * 4.5282e9),
                  e.call(Builtin.COS, e.add(e.mul(2.2399e6, phase), shift)),
                  e.exp(e.mul(-4.5282e9, e.square(phase))))
    x = e.add(e.fn.swizzle(xyz, "x"), extra)
    scaled = e.div(e.fn.construct(vec(3), x, e.fn.swizzle(xyz, "y"), e.fn.swizzle(xyz, "z")), 1.0685e-7)
    rows = ((3.2404542, -1.5371385, -0.4985314), (-0.9692660, 1.8760108, 0.0415560), (0.0556434, -0.2040259, 1.0572252))
    return e.fn.construct(vec(3), *(e.dot(pbr_functions.constant3(e.fn, row), scaled) for row in rows))


def _inputs(ctx: NodeContext, e: Emit, names: Sequence[str]) -> dict[str, Operand]:
    values: dict[str, Operand] = {}
    for name in names:
        value = ctx.input(name)
        values[name] = ctx.fn.swizzle(value, "xyz") if value.type == vec(4) else value
    return values


def shade(ctx: NodeContext) -> Operand:
    """The linear radiance leaving the surface towards the camera (key light + environment + emission)."""
    fn = ctx.fn
    e = Emit(fn)
    lobes = Lobes.of(ctx)
    on = lobes.on
    view = ctx.source("view_direction")
    light = ctx.source("light_direction")
    normal = e.normalize(ctx.input("geometry_normal"))
    halfway = e.normalize(e.add(e.add(light, view), pbr_functions.constant3(fn, (0.0, 0.0, 1e-12))))
    frame = _frame(e, normal, view, light, halfway)
    light_radiance = e.mul(ctx.scene("light_color"), ctx.scene("light_intensity"))
    irradiance_light = e.mul(light_radiance, e.max(frame.n_dot_l, 0.0))
    env = _Environment(ctx, e)
    irradiance = env.irradiance(normal)

    base_weight = e.sat(ctx.input("base_weight"))
    base_color = e.sat(fn.swizzle(ctx.input("base_color"), "xyz"))
    specular_weight = e.max(ctx.input("specular_weight"), 0.0)
    specular_color = e.sat(fn.swizzle(ctx.input("specular_color"), "xyz"))
    roughness = e.sat(ctx.input("specular_roughness"))
    specular_ior = e.clamp(ctx.input("specular_ior"), 1.0, 10.0)
    coat_weight = e.sat(ctx.input("coat_weight")) if "coat" in on else None
    coat_ior = e.clamp(ctx.input("coat_ior"), 1.0, 10.0) if "coat" in on else None
    coat_roughness = e.sat(ctx.input("coat_roughness")) if "coat" in on else None
    if coat_weight is not None and coat_roughness is not None:
        # Coat roughening of the base specular (OpenPBR 1.1, "Coat"; MaterialX's effective_specular_roughness).
        roughened = e.call(Builtin.POW, e.min(1.0, e.add(e.mul(2.0, e.square(e.square(coat_roughness))), e.square(e.square(roughness)))), 0.25)
        roughness = e.mix(roughness, roughened, coat_weight)
    tangent: Operand | None = None
    if lobes.anisotropic:
        anisotropy = e.sat(ctx.input("specular_roughness_anisotropy"))
        alpha_t, alpha_b = anisotropic_alpha(e, roughness, anisotropy)
        alpha: tuple[Operand, Operand] | Operand = (alpha_t, alpha_b)
        tangent = ctx.input("geometry_tangent")
        env_roughness = e.sqrt(e.sqrt(e.mul(alpha_t, alpha_b)))
    else:
        alpha = e.max(e.square(roughness), MIN_ALPHA)
        env_roughness = roughness
    lobe = _microfacet(ctx, e, frame, view, light, halfway, alpha, tangent)
    if tangent is not None:
        prefiltered = _anisotropic_radiance(ctx, e, env, normal, view, tangent, alpha_t, alpha_b)
    else:
        prefiltered = env.lobe(normal, view, env_roughness)
    scale, bias = env.table(frame.n_dot_v, env_roughness)

    # Dielectric base: specular over the diffuse / subsurface / transmission substrate.
    eta = specular_ior
    if coat_weight is not None and coat_ior is not None:
        ratio = e.div(specular_ior, coat_ior)
        inverted = e.select(fn.binary(BinaryOperator.GREATER, ratio, fn.f(1.0)), ratio, e.div(coat_ior, specular_ior))
        eta = e.mix(specular_ior, inverted, coat_weight)
    f0 = e.clamp(e.mul(specular_weight, f0_of_ior(e, eta)), 0.0, 0.99999)
    modulated_eta = e.div(e.add(1.0, e.sqrt(f0)), e.sub(1.0, e.sqrt(f0)))
    f90 = e.sat(e.mul(50.0, f0))
    thin_film: Operand | None = None
    thin_film_light: Operand | None = None
    thin_film_weight: Operand | None = None
    if "thin_film" in on:
        # The film lies on the base as the base's own Fresnel sees it: over the coat-relative, specular_weight-
        # modulated IOR (MaterialX's dielectric_reflection_tf reads modulated_eta_s too). The key light's
        # microfacet sees it at V·H (the specification's per-microfacet Fresnel); the split sum at N·V.
        thin_film_weight = e.sat(ctx.input("thin_film_weight"))
        thickness, film_ior = e.max(ctx.input("thin_film_thickness"), 0.0), ctx.input("thin_film_ior")
        thin_film = airy_iridescence(e, frame.n_dot_v, thickness, film_ior, modulated_eta)
        thin_film_light = airy_iridescence(e, frame.v_dot_h, thickness, film_ior, modulated_eta)
    fresnel = fresnel_dielectric(e, frame.v_dot_h, modulated_eta)
    env_f0 = e.promote(f0, 3)
    env_f90 = e.promote(f90, 3)
    if thin_film is not None and thin_film_light is not None and thin_film_weight is not None:
        fresnel = e.mix(e.promote(fresnel, 3), thin_film_light, thin_film_weight)
        env_f0 = e.mix(env_f0, thin_film, thin_film_weight)
        env_f90 = e.mix(env_f90, thin_film, thin_film_weight)
    spec_env, spec_taken = pbr_functions._multiple_scattering(fn, env_f0, env_f90, scale, bias, prefiltered, irradiance)
    spec_direct = e.mul(specular_color, fresnel, lobe, irradiance_light)
    dielectric = e.add(e.mul(specular_color, spec_env), spec_direct)
    substrate_transmit = e.sub(1.0, spec_taken)

    albedo = e.mul(base_color, base_weight)
    if lobes.diffuse_rough:
        # Fujii's "improved" Oren-Nayar (FON) for the key light.
        sigma = e.sat(ctx.input("base_diffuse_roughness"))
        denominator = e.add(math.pi, e.mul(math.pi / 2.0 - 2.0 / 3.0, sigma))
        s = e.sub(e.dot(light, view), e.mul(frame.n_dot_l, frame.n_dot_v))
        t = e.select(fn.binary(BinaryOperator.GREATER, s, fn.f(0.0)), e.max(e.max(frame.n_dot_l, frame.n_dot_v), 1e-4), e.v(1.0))
        diffuse_brdf = e.div(e.add(1.0, e.mul(sigma, e.div(s, t))), denominator)
    else:
        diffuse_brdf = e.v(1.0 / math.pi)
    opaque = e.add(e.mul(albedo, diffuse_brdf, irradiance_light), e.mul(albedo, irradiance))
    subsurface_weight: Operand | None = None
    subsurface_color: Operand | None = None
    if "subsurface" in on:
        # Wrapped, tinted diffuse standing in for the diffusion (docs/lighting.md).
        subsurface_weight = e.sat(ctx.input("subsurface_weight"))
        subsurface_color = e.sat(fn.swizzle(ctx.input("subsurface_color"), "xyz"))
        radius = e.mul(e.max(ctx.input("subsurface_radius"), 0.0), e.max(fn.swizzle(ctx.input("subsurface_radius_scale"), "xyz"), 0.0))
        if not constant_is(ctx, "subsurface_scatter_anisotropy", 0.0):
            # The similarity relation of diffusion theory: a medium scattering with mean cosine g spreads light
            # as an isotropic one of mean free path r / (1 − g) (μ_s' = μ_s (1 − g)); the colour is the
            # observed albedo, so only the spread (the wrap) changes.
            radius = e.div(radius, e.sub(1.0, e.clamp(ctx.input("subsurface_scatter_anisotropy"), -0.95, 0.95)))
        wrap = e.mul(0.5, e.div(radius, e.add(radius, 1.0)))
        wrapped = e.div(e.max(e.add(frame.n_dot_l, wrap), 0.0), e.square(e.add(wrap, 1.0)))
        subsurface = e.add(e.mul(subsurface_color, e.div(wrapped, math.pi), light_radiance), e.mul(subsurface_color, irradiance))
        opaque = e.mix(opaque, subsurface, subsurface_weight)
    if "transmission" in on:
        transmission_weight = e.sat(ctx.input("transmission_weight"))
        color = e.clamp(fn.swizzle(ctx.input("transmission_color"), "xyz"), 1e-4, 1.0)
        depth = e.max(ctx.input("transmission_depth"), 0.0)
        # Depth 0: the colour tints directly; else Beer-Lambert over one scene unit (MaterialX's anisotropic_vdf).
        absorbed = e.exp(e.div(e.call(Builtin.LOG, color), e.max(depth, 1e-6)))
        tint = e.select(fn.binary(BinaryOperator.GREATER, depth, fn.f(0.0)), absorbed, color)
        thin: Operand | bool = (ctx.input("geometry_thin_walled") if ctx.is_connected("geometry_thin_walled")
                                else bool(ctx.property("geometry_thin_walled")))
        dispersion: Operand | None = None
        if not (thin is True or constant_is(ctx, "transmission_dispersion_scale", 0.0)):
            # OpenPBR's effective Abbe number is abbe_number / scale; glTF's dispersion is 20 / Abbe number.
            dispersion = e.div(e.mul(20.0, e.sat(ctx.input("transmission_dispersion_scale"))),
                               e.max(ctx.input("transmission_dispersion_abbe_number"), 1e-3))
        rough = not (constant_is(ctx, "specular_roughness", 0.0) and "coat" not in on)
        seen = dispersed_environment(ctx, e, env, view, normal, modulated_eta, thin, env_roughness, dispersion, rough)
        transmitted = e.mul(seen, tint)
        if thin is not True and not constant_is(ctx, "transmission_scatter", 0.0):
            scattered = scattering_medium(ctx, e, env, view, normal, modulated_eta, color, depth, seen, irradiance)
            transmitted = scattered if thin is False else e.select(thin, transmitted, scattered)
        opaque = e.mix(opaque, transmitted, transmission_weight)
    dielectric = e.add(dielectric, e.mul(substrate_transmit, opaque))

    base: Operand = dielectric
    if "metal" in on:
        metalness = e.sat(ctx.input("base_metalness"))
        metal_color = albedo
        metal_fresnel = f82_tint(e, frame.v_dot_h, metal_color, specular_color)
        metal_env_f0: Operand = metal_color
        if thin_film is not None and thin_film_light is not None and thin_film_weight is not None:
            metal_fresnel = e.mix(metal_fresnel, thin_film_light, thin_film_weight)
            metal_env_f0 = e.mix(metal_env_f0, thin_film, thin_film_weight)
        metal_env, _ = pbr_functions._multiple_scattering(fn, metal_env_f0, e.vec3(1.0), scale, bias, prefiltered, irradiance)
        dip = e.mul(f82_dip_factor(e, metal_color, specular_color, frame.n_dot_v), e.add(scale, bias), prefiltered)
        metal = e.mul(specular_weight, e.add(e.max(e.sub(metal_env, dip), 0.0), e.mul(metal_fresnel, lobe, irradiance_light)))
        base = e.mix(dielectric, metal, metalness)

    total = base
    coat_f0: Operand | None = None
    if coat_weight is not None and coat_ior is not None and coat_roughness is not None:
        coat_normal = e.normalize(ctx.input("geometry_coat_normal"))
        coat_half_frame = _frame(e, coat_normal, view, light, halfway)
        coat_tangent: Operand | None = None
        if lobes.coat_anisotropic:
            coat_alpha: tuple[Operand, Operand] | Operand = anisotropic_alpha(e, coat_roughness, e.sat(ctx.input("coat_roughness_anisotropy")))
            coat_tangent = ctx.input("geometry_coat_tangent")
        else:
            coat_alpha = e.max(e.square(coat_roughness), MIN_ALPHA)
        coat_lobe = _microfacet(ctx, e, coat_half_frame, view, light, halfway, coat_alpha, coat_tangent)
        coat_fresnel = fresnel_dielectric(e, coat_half_frame.v_dot_h, coat_ior)
        coat_f0 = f0_of_ior(e, coat_ior)
        coat_scale, coat_bias = env.table(coat_half_frame.n_dot_v, coat_roughness)
        coat_env, coat_taken = pbr_functions._multiple_scattering(
            fn, e.promote(coat_f0, 3), e.vec3(1.0), coat_scale, coat_bias, env.lobe(coat_normal, view, coat_roughness),
            env.irradiance(coat_normal))
        coat_specular = e.mul(coat_weight, e.add(coat_env, e.mul(coat_fresnel, coat_lobe, e.mul(light_radiance, e.max(coat_half_frame.n_dot_l, 0.0)))))
        coat_color = e.sat(fn.swizzle(ctx.input("coat_color"), "xyz"))
        # Darkening by internal reflection (OpenPBR 1.1; MaterialX's base_darkening).
        k_coat = e.sub(1.0, e.div(e.sub(1.0, coat_f0), e.square(coat_ior)))
        base_albedo: Operand = base_color
        if subsurface_weight is not None and subsurface_color is not None:
            base_albedo = e.mix(base_color, subsurface_color, subsurface_weight)
        if "metal" in on:
            base_albedo = e.mix(base_albedo, e.mul(base_color, specular_weight), e.sat(ctx.input("base_metalness")))
        darkening = e.div(e.promote(e.sub(1.0, k_coat), 3), e.sub(1.0, e.mul(base_albedo, k_coat)))
        darkening = e.mix(e.vec3(1.0), darkening, e.mul(coat_weight, e.sat(ctx.input("coat_darkening"))))
        attenuation = e.mul(e.mix(e.vec3(1.0), coat_color, coat_weight), darkening, e.sub(1.0, e.mul(coat_weight, coat_taken)))
        total = e.add(coat_specular, e.mul(base, attenuation))

    if "fuzz" in on:
        fuzz_weight = e.sat(ctx.input("fuzz_weight"))
        fuzz_color = e.sat(fn.swizzle(ctx.input("fuzz_color"), "xyz"))
        fuzz_roughness = e.clamp(ctx.input("fuzz_roughness"), 0.01, 1.0)
        fuzz_albedo = e.clamp(zeltner_albedo(e, frame.n_dot_v, fuzz_roughness), 0.0, 1.0)
        fuzz_lobe = zeltner_lobe(e, normal, view, light, frame.n_dot_v, fuzz_roughness)
        fuzz = e.mul(fuzz_color, fuzz_weight, fuzz_albedo, e.add(irradiance, e.mul(fuzz_lobe, light_radiance)))
        total = e.add(fuzz, e.mul(total, e.sub(1.0, e.mul(fuzz_weight, fuzz_albedo))))

    if "emission" in on:
        emission = e.mul(e.max(fn.swizzle(ctx.input("emission_color"), "xyz"), 0.0), e.max(ctx.input("emission_luminance"), 0.0))
        if coat_weight is not None and coat_f0 is not None:
            coated = e.mul(emission, e.sat(fn.swizzle(ctx.input("coat_color"), "xyz")),
                           e.mul(e.sub(1.0, coat_f0), e.sub(1.0, e.pow5(e.sub(1.0, frame.n_dot_v)))))
            emission = e.mix(emission, coated, coat_weight)
        total = e.add(total, emission)
    return total
