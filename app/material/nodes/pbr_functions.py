"""VPL helper functions for physically based shading: the glTF 2.0 BRDF, colour transfer functions.

Every function here is emitted as a VPL helper function of the fragment
stage (once per module, however many nodes call it), so the shading is
visible in the editor's VPL tab, verified like every other instruction and
compiled for every target. A builder has the signature `build(owner, fn)`:
`owner.helper(name, build, parameter_types, return_type)` returns the
(possibly already built) function, `fn` is the `FunctionBuilder` of the
function being built. `app.material.lowering._Lowering` is such an owner;
`HelperSet` is a minimal one for modules built outside a material (the
preview's post pass).

The BRDF is the glTF 2.0 metallic-roughness model exactly as Appendix B
("BRDF Implementation") of the glTF 2.0 specification writes it, with the
`specular` factor of KHR_materials_specular (specularColor = 1):

    α = roughness²   (clamped below at MIN_ALPHA: the appendix's note, α = 0 is singular)
    D = α² χ⁺(N·H) / (π ((N·H)² (α² − 1) + 1)²)
    Vis = χ⁺(H·L) χ⁺(H·V) / (2 (|N·V| √(α² + (1 − α²)(N·L)²) + |N·L| √(α² + (1 − α²)(N·V)²)))
    w = (1 − |V·H|)⁵
    dielectric_fresnel = specular · (0.04 + (1 − 0.04) w)
    metal_fresnel = baseColor + (1 − baseColor) w
    dielectric_brdf = dielectric_fresnel · Vis · D + (1 − dielectric_fresnel) · baseColor / π
    metal_brdf = metal_fresnel · Vis · D
    f = mix(dielectric_brdf, metal_brdf, metallic)

With specular = 1 this is the appendix's "full code" word for word. The
visibility's denominator is at least VISIBILITY_EPSILON, which only matters
when N·L = N·V = 0, where the result is multiplied by N·L = 0 anyway.
Inputs are clamped to their glTF ranges ([0, 1]) by the caller
(`surface_radiance`).

Colour transfer functions are the piecewise sRGB curves of IEC 61966-2-1;
luminance uses the Rec. 709 / sRGB primaries' Y coefficients
(0.2126, 0.7152, 0.0722).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from app.material.scene import SAMPLING_HEIGHT, SAMPLING_WIDTH
from vpl_core.ir.builder import FunctionBuilder, StageBuilder
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.module import Function
from vpl_core.ir.types import FLOAT, Type, VectorType, vec
from vpl_core.ir.values import Operand, RegisterValue

#: Smallest GGX α (= roughness²) the BRDF evaluates: roughness 0 would make D a delta function.
MIN_ALPHA = 0.002
#: Lower bound of the visibility term's denominator (both N·L and N·V zero).
VISIBILITY_EPSILON = 1e-7
DIELECTRIC_F0 = 0.04
REC709_LUMINANCE = (0.2126, 0.7152, 0.0722)

Builder = Callable[[Any, FunctionBuilder], None]


class HelperOwner(Protocol):
    def helper(self, name: str, build: Builder, parameters: Sequence[Type], return_type: Type) -> Function: ...


class HelperSet:
    """A helper owner for a stage built outside the material lowering (each helper built once)."""

    def __init__(self, stage: StageBuilder) -> None:
        self.stage = stage
        self.helpers: dict[str, Function] = {}

    def helper(self, name: str, build: Builder, parameters: Sequence[Type], return_type: Type) -> Function:
        existing = self.helpers.get(name)
        if existing is not None:
            return existing
        function = self.stage.function(name, return_type, parameters).function
        self.helpers[name] = function
        build(self, FunctionBuilder(function))
        return function


# Small emitters shared by the builders -------------------------------------------------------


def call(fn: FunctionBuilder, builtin: Builtin, result_type: Type, *arguments: Operand) -> RegisterValue:
    return fn.call_builtin(builtin, result_type, *arguments)


def splat3(fn: FunctionBuilder, value: float | Operand) -> RegisterValue:
    scalar = fn.f(value) if isinstance(value, (int, float)) else value
    return fn.construct(vec(3), scalar, scalar, scalar)


def constant3(fn: FunctionBuilder, values: Sequence[float]) -> RegisterValue:
    return fn.construct(vec(3), *(fn.f(value) for value in values))


def saturate(fn: FunctionBuilder, value: Operand) -> RegisterValue:
    """clamp(value, 0, 1) for a float or a float vector."""
    value_type = value.type
    if value_type == FLOAT:
        return call(fn, Builtin.CLAMP, FLOAT, value, fn.f(0.0), fn.f(1.0))
    if not isinstance(value_type, VectorType):
        raise TypeError(f"saturate takes a float or a float vector, not {value_type}")
    size = value_type.size
    zero = fn.construct(vec(size), *([fn.f(0.0)] * size))
    one = fn.construct(vec(size), *([fn.f(1.0)] * size))
    return call(fn, Builtin.CLAMP, value_type, value, zero, one)


def heaviside(fn: FunctionBuilder, value: Operand) -> RegisterValue:
    """χ⁺(x): 1 when x > 0, else 0 (1 − step(x, 0))."""
    return fn.subtract(fn.f(1.0), call(fn, Builtin.STEP, FLOAT, value, fn.f(0.0)))


def parameters(fn: FunctionBuilder, count: int) -> list[RegisterValue]:
    return [fn.load(fn.parameter(slot)) for slot in range(count)]


# Colour --------------------------------------------------------------------------------------


def _build_srgb_to_linear(owner: Any, fn: FunctionBuilder) -> None:
    """IEC 61966-2-1 decoding per channel: c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055)^2.4."""
    (encoded,) = parameters(fn, 1)
    low = fn.divide(encoded, fn.f(12.92))
    nonnegative = call(fn, Builtin.MAX, vec(3), encoded, splat3(fn, 0.0))  # pow is undefined below 0
    shifted = fn.divide(fn.add(nonnegative, splat3(fn, 0.055)), fn.f(1.055))
    high = call(fn, Builtin.POW, vec(3), shifted, splat3(fn, 2.4))
    above = call(fn, Builtin.STEP, vec(3), splat3(fn, 0.04045), encoded)  # 1 where 0.04045 <= c
    # The threshold itself decodes the same by both pieces (to 1e-7); strictly above is the curve.
    fn.ret(call(fn, Builtin.MIX, vec(3), low, high, above))


def _build_linear_to_srgb(owner: Any, fn: FunctionBuilder) -> None:
    """IEC 61966-2-1 encoding per channel: c <= 0.0031308 ? 12.92 c : 1.055 c^(1/2.4) − 0.055."""
    (linear,) = parameters(fn, 1)
    low = fn.multiply(linear, fn.f(12.92))
    nonnegative = call(fn, Builtin.MAX, vec(3), linear, splat3(fn, 0.0))
    curve = call(fn, Builtin.POW, vec(3), nonnegative, splat3(fn, 1.0 / 2.4))
    high = fn.subtract(fn.multiply(curve, fn.f(1.055)), splat3(fn, 0.055))
    above = call(fn, Builtin.STEP, vec(3), splat3(fn, 0.0031308), linear)
    fn.ret(call(fn, Builtin.MIX, vec(3), low, high, above))


def srgb_to_linear(owner: HelperOwner) -> Function:
    return owner.helper("srgb_to_linear", _build_srgb_to_linear, [vec(3)], vec(3))


def linear_to_srgb(owner: HelperOwner) -> Function:
    return owner.helper("linear_to_srgb", _build_linear_to_srgb, [vec(3)], vec(3))


def _build_luminance(owner: Any, fn: FunctionBuilder) -> None:
    (color,) = parameters(fn, 1)
    fn.ret(call(fn, Builtin.DOT, FLOAT, color, constant3(fn, REC709_LUMINANCE)))


def luminance(owner: HelperOwner) -> Function:
    return owner.helper("luminance", _build_luminance, [vec(3)], FLOAT)


# The glTF BRDF -------------------------------------------------------------------------------


def _build_schlick_weight(owner: Any, fn: FunctionBuilder) -> None:
    """(1 − |cos|)⁵ by multiplication (exact for 0, no pow of 0)."""
    (cosine,) = parameters(fn, 1)
    complement = saturate(fn, fn.subtract(fn.f(1.0), call(fn, Builtin.ABS, FLOAT, cosine)))
    squared = fn.multiply(complement, complement)
    fn.ret(fn.multiply(fn.multiply(squared, squared), complement))


def schlick_weight(owner: HelperOwner) -> Function:
    return owner.helper("schlick_weight", _build_schlick_weight, [FLOAT], FLOAT)


def _build_ggx_distribution(owner: Any, fn: FunctionBuilder) -> None:
    """D(α) = α² χ⁺(N·H) / (π ((N·H)² (α² − 1) + 1)²)."""
    n_dot_h, alpha = parameters(fn, 2)
    alpha2 = fn.multiply(alpha, alpha)
    base = fn.add(fn.multiply(fn.multiply(n_dot_h, n_dot_h), fn.subtract(alpha2, fn.f(1.0))), fn.f(1.0))
    denominator = fn.multiply(fn.f(math.pi), fn.multiply(base, base))
    fn.ret(fn.divide(fn.multiply(alpha2, heaviside(fn, n_dot_h)), denominator))


def ggx_distribution(owner: HelperOwner) -> Function:
    return owner.helper("ggx_distribution", _build_ggx_distribution, [FLOAT, FLOAT], FLOAT)


def _build_smith_visibility(owner: Any, fn: FunctionBuilder) -> None:
    """Height-correlated Smith G / (4 |N·L| |N·V|), without the χ⁺ factors (the caller applies them)."""
    n_dot_l, n_dot_v, alpha = parameters(fn, 3)
    alpha2 = fn.multiply(alpha, alpha)
    rest = fn.subtract(fn.f(1.0), alpha2)

    def lambda_term(cosine: Operand) -> RegisterValue:
        return call(fn, Builtin.SQRT, FLOAT, fn.add(alpha2, fn.multiply(rest, fn.multiply(cosine, cosine))))

    abs_l = call(fn, Builtin.ABS, FLOAT, n_dot_l)
    abs_v = call(fn, Builtin.ABS, FLOAT, n_dot_v)
    total = fn.add(fn.multiply(abs_v, lambda_term(n_dot_l)), fn.multiply(abs_l, lambda_term(n_dot_v)))
    denominator = fn.multiply(fn.f(2.0), call(fn, Builtin.MAX, FLOAT, total, fn.f(VISIBILITY_EPSILON)))
    fn.ret(fn.divide(fn.f(1.0), denominator))


def smith_visibility(owner: HelperOwner) -> Function:
    return owner.helper("smith_visibility", _build_smith_visibility, [FLOAT, FLOAT, FLOAT], FLOAT)


def _build_gltf_brdf(owner: Any, fn: FunctionBuilder) -> None:
    """f(N, V, L; baseColor, metallic, roughness, specular) of the glTF metallic-roughness material."""
    normal, view, light, base_color, metallic, roughness, specular = parameters(fn, 7)
    # L = −V has no half vector: a tiny offset keeps normalize defined (χ⁺(H·L) is then 0), and
    # changes H by less than 1e-11 relative wherever |L + V| > 0.1.
    halfway_sum = fn.add(fn.add(light, view), constant3(fn, (0.0, 0.0, 1e-12)))
    halfway = call(fn, Builtin.NORMALIZE, vec(3), halfway_sum)
    n_dot_l = call(fn, Builtin.DOT, FLOAT, normal, light)
    n_dot_v = call(fn, Builtin.DOT, FLOAT, normal, view)
    n_dot_h = call(fn, Builtin.DOT, FLOAT, normal, halfway)
    v_dot_h = call(fn, Builtin.DOT, FLOAT, view, halfway)
    h_dot_l = call(fn, Builtin.DOT, FLOAT, halfway, light)
    alpha = call(fn, Builtin.MAX, FLOAT, fn.multiply(roughness, roughness), fn.f(MIN_ALPHA))
    distribution = fn.call(ggx_distribution(owner), n_dot_h, alpha)
    visibility = fn.call(smith_visibility(owner), n_dot_l, n_dot_v, alpha)
    assert distribution is not None and visibility is not None  # both helpers return a float
    masking = fn.multiply(heaviside(fn, h_dot_l), heaviside(fn, v_dot_h))
    specular_lobe = fn.multiply(fn.multiply(visibility, distribution), masking)
    weight = fn.call(schlick_weight(owner), v_dot_h)
    assert weight is not None
    dielectric_fresnel = fn.multiply(specular, fn.add(fn.f(DIELECTRIC_F0), fn.multiply(fn.f(1.0 - DIELECTRIC_F0), weight)))
    diffuse = fn.multiply(base_color, fn.f(1.0 / math.pi))
    dielectric = fn.add(
        splat3(fn, fn.multiply(dielectric_fresnel, specular_lobe)),
        fn.multiply(diffuse, fn.subtract(fn.f(1.0), dielectric_fresnel)),
    )
    metal_fresnel = fn.add(base_color, fn.multiply(fn.subtract(splat3(fn, 1.0), base_color), weight))
    metal = fn.multiply(metal_fresnel, specular_lobe)
    fn.ret(call(fn, Builtin.MIX, vec(3), dielectric, metal, splat3(fn, metallic)))


def gltf_brdf(owner: HelperOwner) -> Function:
    """gltf_brdf(N, V, L: vec3, baseColor: vec3, metallic, roughness, specular: float) -> vec3."""
    return owner.helper("gltf_brdf", _build_gltf_brdf, [vec(3), vec(3), vec(3), vec(3), FLOAT, FLOAT, FLOAT], vec(3))



# The environment: image-based lighting ------------------------------------------------------


def _build_equirect_uv(owner: Any, fn: FunctionBuilder) -> None:
    """Equirect (u, t) of a world direction for an environment rotated by `rotation` radians about +y.

    docs/lighting.md: the direction is first rotated by −rotation; then
    u = 0.5 + atan2(x, −z) / 2π, t = 0.5 + asin(y) / π (u = 0.5 is −z, t = 1
    the zenith). Straight up or down (x = z = 0) u is 0.5: atan2(0, 0) is
    undefined.
    """
    direction, rotation = parameters(fn, 2)
    unit = call(fn, Builtin.NORMALIZE, vec(3), direction)
    x, y, z = (fn.swizzle(unit, letter) for letter in "xyz")
    cosine, sine = call(fn, Builtin.COS, FLOAT, rotation), call(fn, Builtin.SIN, FLOAT, rotation)
    # Rotation by −θ about +y: x' = cos θ x − sin θ z, z' = sin θ x + cos θ z.
    rotated_x = fn.subtract(fn.multiply(cosine, x), fn.multiply(sine, z))
    rotated_z = fn.add(fn.multiply(sine, x), fn.multiply(cosine, z))
    azimuth = call(fn, Builtin.ATAN2, FLOAT, rotated_x, call(fn, Builtin.NEGATE, FLOAT, rotated_z))
    horizontal = fn.add(fn.multiply(rotated_x, rotated_x), fn.multiply(rotated_z, rotated_z))
    defined = fn.binary(BinaryOperator.GREATER, horizontal, fn.f(0.0))
    azimuth = call(fn, Builtin.SELECT, FLOAT, defined, azimuth, fn.f(0.0))
    u = fn.add(fn.f(0.5), fn.multiply(azimuth, fn.f(1.0 / (2.0 * math.pi))))
    elevation = call(fn, Builtin.ASIN, FLOAT, call(fn, Builtin.CLAMP, FLOAT, y, fn.f(-1.0), fn.f(1.0)))
    t = fn.add(fn.f(0.5), fn.multiply(elevation, fn.f(1.0 / math.pi)))
    fn.ret(fn.construct(vec(2), u, t))


def equirect_uv(owner: HelperOwner) -> Function:
    """equirect_uv(direction: vec3, rotation: float) -> vec2."""
    return owner.helper("equirect_uv", _build_equirect_uv, [vec(3), FLOAT], vec(2))


def lobe_direction(fn: FunctionBuilder, normal: Operand, view: Operand, roughness: Operand) -> RegisterValue:
    """The direction the prefiltered chain is read in for a GGX lobe: Frostbite's dominant direction
    (Lagarde & de Rousiers 2014, "Moving Frostbite to PBR", getSpecularDominantDir), R = reflect(−V, N) bent
    towards N, normalize(mix(N, R, (1 − α)(√(1 − α) + α))), α = roughness² (`ibl.lobe_direction` in numpy).

    The chain is prefiltered with n = v, a lobe centred on R; the lobe of a view away from the normal leans
    towards N (wholly at α = 1, where the glTF integrand D Vis n.l is centred on N). Against the Monte Carlo
    estimate of tests/app/preview/test_rough_metals.py it takes the split sum's largest error on rough metals
    from 18.4 to about 11 levels (docs/lighting.md, "Metals against Monte Carlo").
    """
    reflected = call(fn, Builtin.REFLECT, vec(3), call(fn, Builtin.NEGATE, vec(3), view), normal)
    alpha = fn.multiply(roughness, roughness)
    smooth = fn.subtract(fn.f(1.0), alpha)
    factor = fn.multiply(smooth, fn.add(call(fn, Builtin.SQRT, FLOAT, call(fn, Builtin.MAX, FLOAT, smooth, fn.f(0.0))), alpha))
    return call(fn, Builtin.NORMALIZE, vec(3), call(fn, Builtin.MIX, vec(3), normal, reflected, splat3(fn, factor)))


def _multiple_scattering(fn: FunctionBuilder, f0: Operand, f90: Operand, scale: Operand, bias: Operand,
                         prefiltered: Operand, irradiance: Operand) -> tuple[Operand, Operand]:
    """(specular radiance, energy the specular lobes took) for F0/F90 vec3s: Fdez-Agüera (2019), section 5.

    FssEss = F0 A + F90 B, Ess = A + B, Ems = 1 − Ess, Favg = F0 + (F90 − F0) / 21,
    Fms = FssEss Favg / (1 − Ems Favg); specular = FssEss prefiltered + Fms Ems irradiance;
    what the diffuse layer still receives is 1 − (FssEss + Fms Ems).
    """
    single = fn.add(fn.multiply(f0, scale), fn.multiply(f90, bias))
    multiple_albedo = fn.subtract(fn.f(1.0), fn.add(scale, bias))
    average = fn.add(f0, fn.divide(fn.subtract(f90, f0), fn.f(21.0)))
    denominator = fn.subtract(splat3(fn, 1.0), fn.multiply(average, multiple_albedo))
    # 1 − Ems Favg reaches 0 only where A + B = 0 and F = 1, where FssEss = 0 too: no energy to scatter.
    safe = call(fn, Builtin.MAX, vec(3), denominator, splat3(fn, 1e-6))
    multiple = fn.divide(fn.multiply(single, average), safe)
    multiple_energy = fn.multiply(multiple, multiple_albedo)
    specular = fn.add(fn.multiply(single, prefiltered), fn.multiply(multiple_energy, irradiance))
    return specular, fn.add(single, multiple_energy)


#: The refined environment light's samples per pixel and frame: GGX half vectors on a jittered grid of
#: `REFINED_GRID_THETA` x `REFINED_GRID_PHI` cells, and as many directions drawn from the environment's
#: sampling distribution (`environment_sampling`), combined by multiple importance sampling.
REFINED_GRID_THETA = 4
REFINED_GRID_PHI = 2
REFINED_BRDF_SAMPLES = REFINED_GRID_THETA * REFINED_GRID_PHI
#: As many as `REFINED_BRDF_SAMPLES`: one of each per pass of the sampling loop.
REFINED_ENVIRONMENT_SAMPLES = REFINED_BRDF_SAMPLES
#: Per-frame shift of the grid's jitter: the R2 sequence's steps (Roberts 2018), so the frames' jitters fill
#: each cell evenly whatever the number of frames.
R2_STEP = (0.7548776662466927, 0.5698402909980532)
#: The R4 sequence's steps (1 / φ4^i, φ4 the real root of x^5 = x + 1): the environment samples' four
#: numbers, one point of the sequence per sample of the refinement.
R4_STEP = tuple(1.0 / 1.1673039782614187 ** power for power in range(1, 5))


def _hash(fn: FunctionBuilder, normal: Operand, view: Operand, weights: tuple[float, ...]) -> RegisterValue:
    """A value in [0, 1) that changes from pixel to pixel: fract(sin(dot(N, a) + dot(V, b)) · 43758.5453)."""
    phase = fn.add(call(fn, Builtin.DOT, FLOAT, normal, constant3(fn, weights[:3])),
                   call(fn, Builtin.DOT, FLOAT, view, constant3(fn, weights[3:])))
    return call(fn, Builtin.FRACT, FLOAT, fn.multiply(call(fn, Builtin.SIN, FLOAT, phase), fn.f(43758.5453)))


def _loop(fn: FunctionBuilder, count: Operand, body: Callable[[RegisterValue], None]) -> None:
    """for (index = 0; index < count; ++index) body(index), as blocks (the IR's loops)."""
    index = fn.copy(fn.f(0.0))
    test, block, finish = fn.new_block(), fn.new_block(), fn.new_block()
    fn.branch(test)
    fn.position_at(test)
    fn.branch_if(fn.binary(BinaryOperator.LESS, index, count), block, finish)
    fn.position_at(block)
    body(index)
    fn.add(index, fn.f(1.0), result=index)
    fn.branch(test)  # the loop's back-edge
    fn.position_at(finish)


def _build_refined_specular(owner: Any, fn: FunctionBuilder) -> None:
    """The prefiltered radiance of `environment_light` (and of the OpenPBR Surface's isotropic lobes): the
    split-sum read, or its per-pixel integration (`_refined_lobe`, isotropic)."""
    _refined_lobe(owner, fn, anisotropic=False)


def _build_refined_anisotropic_specular(owner: Any, fn: FunctionBuilder) -> None:
    """`_refined_lobe` of an anisotropic GGX lobe (the OpenPBR Surface's and KHR_materials_anisotropy's)."""
    _refined_lobe(owner, fn, anisotropic=True)


def _refined_lobe(owner: Any, fn: FunctionBuilder, anisotropic: bool) -> None:
    """The prefiltered radiance of a GGX lobe: the split-sum read, or its per-pixel integration.

    Called by `environment_light` (and the OpenPBR Surface's lobes) in a
    material's refined variant only (`lower(..., refined=True)`): the live
    program keeps the split-sum read alone, since the loops below cost
    every pixel on GPUs that run them masked. With the scene's `environment_sample_frame` at 0 it returns
    `split_sum` (the chain read at the reflection vector: prefiltered with
    n = v). In a refined frame k >= 1 it integrates the GGX lobe at this
    pixel's N and V instead, by multiple importance sampling (Veach 1997,
    balance heuristic) of two strategies:

    - `REFINED_BRDF_SAMPLES` half vectors drawn from D (n.h) on a jittered
      grid, jittered by a per-pixel offset that moves by the R2 sequence from
      frame to frame (a Cranley-Patterson rotation: each frame's set differs
      per pixel, and the host averages the frames);
    - `REFINED_ENVIRONMENT_SAMPLES` directions drawn from the environment's
      own distribution (`environment_sampling`, `app.preview.ibl.
      environment_sampling`: cells in proportion to their luminance, through
      a marginal and a conditional alias table), numbered by the R4
      sequence with a per-pixel rotation: a small bright source (a sun) is
      found by these where the lobe's samples rarely hit it.

    A direction l with density p_b under the first and p_e under the second
    weighs g / (n_b p_b + n_e p_e), g = D Vis (n.l) the glTF integrand
    without Fresnel (Fresnel stays with the split-sum table). The result is
    the lobe-weighted mean radiance ∫ L g / ∫ g, estimated as split_sum +
    (Σ L w − split_sum Σ w) / (A + B) over both sets (the split-sum read as
    a control variate, ∫ g from the split-sum table): unbiased in each
    frame, and a uniform environment returns its radiance exactly, so the
    white furnace stays 1.

    With `anisotropic`, the lobe is GGX with (α_t, α_b) along the tangent T
    and N × T: the half vectors are its slopes (the isotropic α = 1 slopes
    stretched by α_t and α_b, density D (n.h) as before), g takes the
    anisotropic D and height-correlated Smith visibility, and ∫ g is the
    table's at the `roughness` given (√√(α_t α_b)): an approximate ∫ g
    only scales the correction, so its error is that fraction of the
    (already small) difference between the split sum and the integral,
    and a uniform environment still returns its radiance exactly.

    Each sample reads the chain's level 0, the environment unfiltered:
    filtered importance sampling (Křivánek & Colbert 2008, a level as
    blurred as the solid angle a sample stands for) is what the lobe alone
    needs to resolve a sun, and with the environment's own samples it only
    adds bias (docs/lighting.md, "Refined environment light").
    """
    from vpl_core.ir.builder import member
    from vpl_core.ir.types import SAMPLER2D

    if anisotropic:
        normal, view, tangent_in, alpha_t, alpha_b, roughness, split_sum = parameters(fn, 7)
    else:
        normal, view, roughness, split_sum = parameters(fn, 4)
    frame = fn.load(member(owner.scene, "environment_sample_frame"))
    rotation = fn.load(member(owner.scene, "environment_rotation"))
    cos_r, sin_r = call(fn, Builtin.COS, FLOAT, rotation), call(fn, Builtin.SIN, FLOAT, rotation)
    specular_map = fn.load(owner.host_uniform("environment_specular", SAMPLER2D))
    sampling_map = fn.load(owner.host_uniform("environment_sampling", SAMPLER2D))
    brdf_table = fn.load(owner.host_uniform("environment_brdf", SAMPLER2D))
    n_dot_v = call(fn, Builtin.CLAMP, FLOAT, call(fn, Builtin.DOT, FLOAT, normal, view), fn.f(1e-4), fn.f(1.0))
    alpha2: Operand
    if anisotropic:
        # The lobe's own frame: the tangent made perpendicular to N (Gram-Schmidt), and N × T.
        along = fn.subtract(tangent_in, fn.multiply(normal, call(fn, Builtin.DOT, FLOAT, normal, tangent_in)))
        tangent = call(fn, Builtin.NORMALIZE, vec(3), fn.add(along, constant3(fn, (1e-7, 0.0, 0.0))))
        alpha2 = fn.f(0.0)  # unused: the slopes are stretched by (α_t, α_b) instead
    else:
        alpha = call(fn, Builtin.MAX, FLOAT, fn.multiply(roughness, roughness), fn.f(MIN_ALPHA))
        alpha_t = alpha_b = alpha
        alpha2 = fn.multiply(alpha, alpha)
        # A tangent frame about N (any: the lobe is isotropic about N).
        up = call(fn, Builtin.SELECT, vec(3), fn.binary(BinaryOperator.LESS, call(fn, Builtin.ABS, FLOAT, fn.swizzle(normal, "y")), fn.f(0.999)),
                  constant3(fn, (0.0, 1.0, 0.0)), constant3(fn, (1.0, 0.0, 0.0)))
        tangent = call(fn, Builtin.NORMALIZE, vec(3), call(fn, Builtin.CROSS, vec(3), up, normal))
    bitangent = call(fn, Builtin.CROSS, vec(3), normal, tangent)
    jitter_u = call(fn, Builtin.FRACT, FLOAT, fn.add(_hash(fn, normal, view, (12.9898, 78.233, 37.719, 39.3468, 11.1357, 83.1551)),
                                                     fn.multiply(frame, fn.f(R2_STEP[0]))))
    jitter_v = call(fn, Builtin.FRACT, FLOAT, fn.add(_hash(fn, normal, view, (63.7264, 10.873, 91.2228, 27.4138, 54.2819, 17.9117)),
                                                     fn.multiply(frame, fn.f(R2_STEP[1]))))
    rotations = [_hash(fn, normal, view, weights) for weights in (
        (41.2781, 93.1417, 7.3189, 61.9043, 25.5621, 48.8127), (85.3391, 33.6547, 70.9213, 14.2267, 97.4431, 58.1209),
        (29.8813, 66.4219, 52.7701, 90.6637, 3.9281, 74.3317), (77.1153, 19.5527, 45.3317, 36.8849, 68.2243, 9.6673))]
    active = fn.binary(BinaryOperator.GREATER, frame, fn.f(0.0))
    count = call(fn, Builtin.SELECT, FLOAT, active, fn.f(float(REFINED_BRDF_SAMPLES)), fn.f(0.0))
    total = fn.copy(splat3(fn, 0.0))
    weight_sum = fn.copy(fn.f(0.0))

    def environment_density(uv: Operand) -> RegisterValue:
        """The environment strategy's density per steradian at equirect (u, t): the cell's texel, B."""
        row = call(fn, Builtin.MIN, FLOAT, fn.multiply(fn.swizzle(uv, "y"), fn.f(float(SAMPLING_HEIGHT))),
                   fn.f(SAMPLING_HEIGHT - 0.5))
        texel = fn.construct(vec(2), fn.swizzle(uv, "x"), fn.multiply(row, fn.f(1.0 / (SAMPLING_HEIGHT + 1))))
        return fn.swizzle(call(fn, Builtin.TEXTURE_LOD, vec(4), sampling_map, texel, fn.f(0.0)), "z")

    def accumulate(light: Operand, uv: Operand, integrand: Operand, brdf_density: Operand,
                   sampled_density: Operand) -> None:
        """Add the direction `light` (at `uv`) with weight integrand / (n_b p_b + n_e p_e)."""
        mixture = fn.add(fn.multiply(brdf_density, fn.f(float(REFINED_BRDF_SAMPLES))),
                         fn.multiply(sampled_density, fn.f(float(REFINED_ENVIRONMENT_SAMPLES))))
        weight = fn.divide(integrand, call(fn, Builtin.MAX, FLOAT, mixture, fn.f(1e-20)))
        # The chain's level 0, unfiltered: a level as blurred as the solid angle the sample stands for
        # (filtered importance sampling) measured 2-3 levels too bright under the outdoor sun.
        radiance = fn.swizzle(call(fn, Builtin.TEXTURE_LOD, vec(4), specular_map, uv, fn.f(0.0)), "xyz")
        fn.add(total, fn.multiply(radiance, weight), result=total)
        fn.add(weight_sum, weight, result=weight_sum)

    def lobe(half: Operand, n_dot_h: Operand, light: Operand) -> tuple[RegisterValue, RegisterValue]:
        """(g = D Vis max(n.l, 0), p_b = D (n.h) / (4 v.h)) of the direction `light` with half vector `half`."""
        v_dot_h = call(fn, Builtin.MAX, FLOAT, call(fn, Builtin.DOT, FLOAT, view, half), fn.f(1e-4))
        n_dot_l = call(fn, Builtin.DOT, FLOAT, normal, light)
        distribution: Operand | None
        visibility: Operand | None
        if anisotropic:
            distribution, visibility = _anisotropic_lobe(fn, half, n_dot_h, light, n_dot_l, view, n_dot_v,
                                                         (tangent, bitangent), (alpha_t, alpha_b))
        else:
            distribution = fn.call(ggx_distribution(owner), n_dot_h, alpha)
            visibility = fn.call(smith_visibility(owner), n_dot_l, n_dot_v, alpha)
        assert distribution is not None and visibility is not None
        integrand = fn.multiply(fn.multiply(distribution, visibility), call(fn, Builtin.MAX, FLOAT, n_dot_l, fn.f(0.0)))
        density = fn.divide(fn.multiply(distribution, n_dot_h), fn.multiply(fn.f(4.0), v_dot_h))
        return integrand, density

    def brdf_sample(index: RegisterValue) -> None:
        row = call(fn, Builtin.FLOOR, FLOAT, fn.multiply(index, fn.f(1.0 / REFINED_GRID_THETA)))
        column = fn.subtract(index, fn.multiply(row, fn.f(float(REFINED_GRID_THETA))))
        xi1 = fn.multiply(fn.add(column, jitter_u), fn.f(1.0 / REFINED_GRID_THETA))
        xi2 = fn.multiply(fn.add(row, jitter_v), fn.f(1.0 / REFINED_GRID_PHI))
        phi = fn.multiply(xi2, fn.f(2.0 * math.pi))
        if anisotropic:
            # GGX slopes: the α = 1 slope radius √(ξ1 / (1 − ξ1)) at angle φ, stretched by (α_t, α_b).
            radius = call(fn, Builtin.SQRT, FLOAT, fn.divide(xi1, call(fn, Builtin.MAX, FLOAT, fn.subtract(fn.f(1.0), xi1), fn.f(1e-6))))
            slope_t = fn.multiply(alpha_t, fn.multiply(radius, call(fn, Builtin.COS, FLOAT, phi)))
            slope_b = fn.multiply(alpha_b, fn.multiply(radius, call(fn, Builtin.SIN, FLOAT, phi)))
            half = call(fn, Builtin.NORMALIZE, vec(3), fn.add(fn.add(fn.multiply(tangent, slope_t), fn.multiply(bitangent, slope_b)), normal))
            cos_theta = call(fn, Builtin.DOT, FLOAT, normal, half)
        else:
            # GGX half vector: cos θ = √((1 − ξ1) / (1 + (α² − 1) ξ1)), φ = 2π ξ2.
            cos_theta = call(fn, Builtin.SQRT, FLOAT, fn.divide(fn.subtract(fn.f(1.0), xi1),
                                                               fn.add(fn.f(1.0), fn.multiply(fn.subtract(alpha2, fn.f(1.0)), xi1))))
            sin_theta = call(fn, Builtin.SQRT, FLOAT, call(fn, Builtin.MAX, FLOAT, fn.subtract(fn.f(1.0), fn.multiply(cos_theta, cos_theta)), fn.f(0.0)))
            half = fn.add(fn.add(fn.multiply(tangent, fn.multiply(sin_theta, call(fn, Builtin.COS, FLOAT, phi))),
                                 fn.multiply(bitangent, fn.multiply(sin_theta, call(fn, Builtin.SIN, FLOAT, phi)))),
                          fn.multiply(normal, cos_theta))
        v_dot_h = call(fn, Builtin.MAX, FLOAT, call(fn, Builtin.DOT, FLOAT, view, half), fn.f(1e-4))
        light = fn.subtract(fn.multiply(half, fn.multiply(fn.f(2.0), v_dot_h)), view)
        integrand, density = lobe(half, call(fn, Builtin.MAX, FLOAT, cos_theta, fn.f(1e-4)), light)
        uv = fn.call(equirect_uv(owner), light, rotation)
        assert uv is not None
        accumulate(light, uv, integrand, density, environment_density(uv))

    def environment_sample(index: RegisterValue) -> None:
        sequence = fn.add(fn.multiply(fn.subtract(frame, fn.f(1.0)), fn.f(float(REFINED_ENVIRONMENT_SAMPLES))), index)
        xi = [call(fn, Builtin.FRACT, FLOAT, fn.add(offset, fn.multiply(sequence, fn.f(step))))
              for offset, step in zip(rotations, R4_STEP, strict=True)]

        def pick(number: Operand, size: int, table_row: Operand | None) -> RegisterValue:
            """Walker's alias method: candidate cell floor(ξ size), kept when fract(ξ size) < its threshold."""
            scaled = fn.multiply(number, fn.f(float(size)))
            candidate = call(fn, Builtin.MIN, FLOAT, call(fn, Builtin.FLOOR, FLOAT, scaled), fn.f(size - 1.0))
            row_coordinate = (fn.f((SAMPLING_HEIGHT + 0.5) / (SAMPLING_HEIGHT + 1)) if table_row is None
                              else fn.multiply(fn.add(table_row, fn.f(0.5)), fn.f(1.0 / (SAMPLING_HEIGHT + 1))))
            texel = fn.construct(vec(2), fn.multiply(fn.add(candidate, fn.f(0.5)), fn.f(1.0 / SAMPLING_WIDTH)), row_coordinate)
            entry = call(fn, Builtin.TEXTURE_LOD, vec(4), sampling_map, texel, fn.f(0.0))
            kept = fn.binary(BinaryOperator.LESS, fn.subtract(scaled, candidate), fn.swizzle(entry, "x"))
            return call(fn, Builtin.SELECT, FLOAT, kept, candidate, fn.swizzle(entry, "y"))

        row = pick(xi[0], SAMPLING_HEIGHT, None)
        column = pick(xi[1], SAMPLING_WIDTH, row)
        # Uniform in the cell's solid angle: u uniform, the sine of the elevation uniform between its edges.
        u = fn.multiply(fn.add(column, xi[2]), fn.f(1.0 / SAMPLING_WIDTH))
        low = call(fn, Builtin.SIN, FLOAT, fn.subtract(fn.multiply(row, fn.f(math.pi / SAMPLING_HEIGHT)), fn.f(0.5 * math.pi)))
        high = call(fn, Builtin.SIN, FLOAT, fn.subtract(fn.multiply(fn.add(row, fn.f(1.0)), fn.f(math.pi / SAMPLING_HEIGHT)),
                                                        fn.f(0.5 * math.pi)))
        sine = fn.add(low, fn.multiply(fn.subtract(high, low), xi[3]))
        cosine = call(fn, Builtin.SQRT, FLOAT, call(fn, Builtin.MAX, FLOAT, fn.subtract(fn.f(1.0), fn.multiply(sine, sine)), fn.f(0.0)))
        azimuth = fn.multiply(fn.subtract(u, fn.f(0.5)), fn.f(2.0 * math.pi))
        local_x = fn.multiply(cosine, call(fn, Builtin.SIN, FLOAT, azimuth))
        local_z = call(fn, Builtin.NEGATE, FLOAT, fn.multiply(cosine, call(fn, Builtin.COS, FLOAT, azimuth)))
        # The environment's frame to the world's: rotated by +rotation about +y (the lookup rotates by −rotation).
        light = fn.construct(vec(3), fn.add(fn.multiply(cos_r, local_x), fn.multiply(sin_r, local_z)), sine,
                             fn.subtract(fn.multiply(cos_r, local_z), fn.multiply(sin_r, local_x)))
        cell = fn.construct(vec(2), fn.multiply(fn.add(column, fn.f(0.5)), fn.f(1.0 / SAMPLING_WIDTH)),
                            fn.multiply(fn.add(row, fn.f(0.5)), fn.f(1.0 / (SAMPLING_HEIGHT + 1))))
        density = fn.swizzle(call(fn, Builtin.TEXTURE_LOD, vec(4), sampling_map, cell, fn.f(0.0)), "z")
        summed = fn.add(view, light)
        half = fn.divide(summed, call(fn, Builtin.MAX, FLOAT, call(fn, Builtin.LENGTH, FLOAT, summed), fn.f(1e-6)))
        n_dot_h = call(fn, Builtin.MAX, FLOAT, call(fn, Builtin.DOT, FLOAT, normal, half), fn.f(1e-4))
        integrand, brdf_density = lobe(half, n_dot_h, light)
        # The chain is read at the sampled direction (u, t), not at the cell's centre.
        t = fn.add(fn.f(0.5), fn.multiply(call(fn, Builtin.ASIN, FLOAT, call(fn, Builtin.CLAMP, FLOAT, sine, fn.f(-1.0), fn.f(1.0))),
                                          fn.f(1.0 / math.pi)))
        accumulate(light, fn.construct(vec(2), u, t), integrand, brdf_density, density)

    def both(index: RegisterValue) -> None:
        brdf_sample(index)
        environment_sample(index)

    # One loop drawing one sample of each strategy per pass, not a loop per strategy: the backend writes loops
    # as a block dispatcher that llvmpipe runs with every block masked on each pass, so two loops cost each
    # pass both bodies (a refined frame measured about twice as slow).
    _loop(fn, count, both)
    # split_sum + (Σ L w − split_sum Σ w) / ∫ g: Σ w estimates ∫ g and the split-sum read is fixed per pixel, so
    # the correction's mean is ∫ L g / ∫ g − split_sum (no ratio of two noisy sums, which biases each frame
    # upwards where the sun's samples carry the numerator alone), and it is exactly 0 in a uniform
    # environment. ∫ g = A + B, the split-sum table's albedo at F0 = F90 = 1. A live frame has no samples.
    table_uv = fn.construct(vec(2), saturate(fn, call(fn, Builtin.ABS, FLOAT, call(fn, Builtin.DOT, FLOAT, normal, view))), roughness)
    table = call(fn, Builtin.TEXTURE_LOD, vec(4), brdf_table, table_uv, fn.f(0.0))
    albedo = call(fn, Builtin.MAX, FLOAT, fn.add(fn.swizzle(table, "x"), fn.swizzle(table, "y")), fn.f(1e-4))
    correction = fn.subtract(total, fn.multiply(split_sum, weight_sum))
    fn.ret(fn.add(split_sum, fn.divide(correction, albedo)))


def refined_specular(owner: HelperOwner) -> Function:
    """refined_specular(N, V: vec3, roughness: float, split_sum: vec3) -> vec3 (needs the refined variant's scene
    record, `REFINED_SCENE_FIELDS`)."""
    return owner.helper("refined_specular", _build_refined_specular, [vec(3), vec(3), FLOAT, vec(3)], vec(3))


def refined_anisotropic_specular(owner: HelperOwner) -> Function:
    """refined_anisotropic_specular(N, V, T: vec3, α_t, α_b, roughness: float, split_sum: vec3) -> vec3: as
    `refined_specular` for the anisotropic GGX lobe (α_t along T), `roughness` the split-sum table's."""
    return owner.helper("refined_anisotropic_specular", _build_refined_anisotropic_specular,
                        [vec(3), vec(3), vec(3), FLOAT, FLOAT, FLOAT, vec(3)], vec(3))


def _anisotropic_lobe(fn: FunctionBuilder, half: Operand, n_dot_h: Operand, light: Operand, n_dot_l: Operand, view: Operand,
                      n_dot_v: Operand, axes: tuple[Operand, Operand], alpha: tuple[Operand, Operand]) -> tuple[Operand, Operand]:
    """(D, Vis) of anisotropic GGX with the height-correlated Smith visibility (Heitz 2014): D = 1 / (π α_t α_b
    ((h·T / α_t)² + (h·B / α_b)² + (n·h)²)²), Vis = 0.5 / (n·l Λ(v) + n·v Λ(l)), Λ(d) = |(α_t d·T, α_b d·B, n·d)|."""
    (t_axis, b_axis), (alpha_t, alpha_b) = axes, alpha

    def dot(a: Operand, b: Operand) -> RegisterValue:
        return call(fn, Builtin.DOT, FLOAT, a, b)

    def square(a: Operand) -> RegisterValue:
        return fn.multiply(a, a)

    h_t, h_b = fn.divide(dot(half, t_axis), alpha_t), fn.divide(dot(half, b_axis), alpha_b)
    base = fn.add(fn.add(square(h_t), square(h_b)), square(n_dot_h))
    distribution = fn.divide(fn.f(1.0), fn.multiply(fn.multiply(fn.f(math.pi), fn.multiply(alpha_t, alpha_b)), square(base)))

    def root(direction: Operand, cosine: Operand) -> RegisterValue:
        along_t, along_b = fn.multiply(alpha_t, dot(direction, t_axis)), fn.multiply(alpha_b, dot(direction, b_axis))
        return call(fn, Builtin.SQRT, FLOAT, fn.add(fn.add(square(along_t), square(along_b)), square(cosine)))

    positive = call(fn, Builtin.MAX, FLOAT, n_dot_l, fn.f(0.0))
    total = fn.add(fn.multiply(positive, root(view, n_dot_v)), fn.multiply(n_dot_v, root(light, positive)))
    visibility = fn.divide(fn.f(0.5), call(fn, Builtin.MAX, FLOAT, total, fn.f(VISIBILITY_EPSILON)))
    return distribution, visibility


def _build_environment_light(owner: Any, fn: FunctionBuilder) -> None:
    """Light reflected from the environment (split-sum IBL with multiple-scattering compensation).

    prefiltered = environment_specular in `lobe_direction` (the reflection
    direction bent towards N), lod = max_lod · r (2 − r); irradiance = environment_irradiance at the normal
    (irradiance / π); (A, B) = environment_brdf at (|N·V|, r). Dielectric:
    F0 = 0.04 · specular, F90 = specular, plus the Lambertian layer
    baseColor · (1 − what the specular took) · irradiance; metal: F0 =
    baseColor, F90 = 1; mixed by metallic as the glTF BRDF is. In a
    material's refined variant (`owner.refined`), prefiltered is
    `refined_specular`'s per-pixel integration instead.
    """
    from vpl_core.ir.builder import member
    from vpl_core.ir.types import SAMPLER2D

    normal, view, base_color, metallic, roughness, specular = parameters(fn, 6)
    rotation = fn.load(member(owner.scene, "environment_rotation"))
    intensity = fn.load(member(owner.scene, "environment_intensity"))
    max_lod = fn.load(member(owner.scene, "environment_max_lod"))
    specular_map = fn.load(owner.host_uniform("environment_specular", SAMPLER2D))
    irradiance_map = fn.load(owner.host_uniform("environment_irradiance", SAMPLER2D))
    brdf_table = fn.load(owner.host_uniform("environment_brdf", SAMPLER2D))

    n_dot_v = saturate(fn, call(fn, Builtin.ABS, FLOAT, call(fn, Builtin.DOT, FLOAT, normal, view)))
    lod = fn.multiply(max_lod, fn.multiply(roughness, fn.subtract(fn.f(2.0), roughness)))
    to_uv = equirect_uv(owner)
    specular_uv = fn.call(to_uv, lobe_direction(fn, normal, view, roughness), rotation)
    normal_uv = fn.call(to_uv, normal, rotation)
    assert specular_uv is not None and normal_uv is not None
    split_sum = fn.swizzle(call(fn, Builtin.TEXTURE_LOD, vec(4), specular_map, specular_uv, lod), "xyz")
    if getattr(owner, "refined", False):
        # The refined variant only (`lower(..., refined=True)`): the live program has no loop to run masked.
        refined = fn.call(refined_specular(owner), normal, view, roughness, split_sum)
        assert refined is not None
        split_sum = refined
    prefiltered = fn.multiply(split_sum, intensity)
    irradiance = fn.multiply(fn.swizzle(call(fn, Builtin.TEXTURE_LOD, vec(4), irradiance_map, normal_uv, fn.f(0.0)), "xyz"), intensity)
    table = call(fn, Builtin.TEXTURE_LOD, vec(4), brdf_table, fn.construct(vec(2), n_dot_v, roughness), fn.f(0.0))
    scale, bias = fn.swizzle(table, "x"), fn.swizzle(table, "y")

    dielectric_f0 = splat3(fn, fn.multiply(fn.f(DIELECTRIC_F0), specular))
    dielectric_specular, taken = _multiple_scattering(fn, dielectric_f0, splat3(fn, specular), scale, bias, prefiltered, irradiance)
    diffuse = fn.multiply(fn.multiply(base_color, fn.subtract(splat3(fn, 1.0), taken)), irradiance)
    dielectric = fn.add(dielectric_specular, diffuse)
    metal, _ = _multiple_scattering(fn, base_color, splat3(fn, 1.0), scale, bias, prefiltered, irradiance)
    fn.ret(call(fn, Builtin.MIX, vec(3), dielectric, metal, splat3(fn, metallic)))


def environment_light(owner: HelperOwner) -> Function:
    """environment_light(N, V, baseColor: vec3, metallic, roughness, specular: float) -> vec3 (needs the lowering's
    scene record and host samplers: `owner` must be the material lowering)."""
    return owner.helper(
        "environment_light", _build_environment_light, [vec(3), vec(3), vec(3), FLOAT, FLOAT, FLOAT], vec(3)
    )
