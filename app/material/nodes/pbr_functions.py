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

from vpl_core.ir.builder import FunctionBuilder, StageBuilder
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.module import Function
from vpl_core.ir.types import FLOAT, Type, vec
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
    size = value_type.size  # type: ignore[union-attr]
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
    masking = fn.multiply(heaviside(fn, h_dot_l), heaviside(fn, v_dot_h))
    specular_lobe = fn.multiply(fn.multiply(visibility, distribution), masking)  # type: ignore[arg-type]
    weight = fn.call(schlick_weight(owner), v_dot_h)
    assert weight is not None and specular_lobe is not None
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



# The environment (until image-based lighting: a uniform environment) -------------------------


def _build_environment_brdf(owner: Any, fn: FunctionBuilder) -> None:
    """Split-sum (scale, bias) of the GGX lobe for (roughness, |N·V|): Karis (2014), "Physically Based
    Shading on Mobile", the analytic fit of the split-sum lookup table."""
    roughness, n_dot_v = parameters(fn, 2)
    c0 = fn.construct(vec(4), fn.f(-1.0), fn.f(-0.0275), fn.f(-0.572), fn.f(0.022))
    c1 = fn.construct(vec(4), fn.f(1.0), fn.f(0.0425), fn.f(1.04), fn.f(-0.04))
    r = fn.add(fn.multiply(c0, roughness), c1)
    rx = fn.swizzle(r, "x")
    falloff = call(fn, Builtin.EXP2, FLOAT, fn.multiply(fn.f(-9.28), n_dot_v))
    a004 = fn.add(fn.multiply(call(fn, Builtin.MIN, FLOAT, fn.multiply(rx, rx), falloff), rx), fn.swizzle(r, "y"))
    scale_bias = fn.add(fn.multiply(fn.construct(vec(2), fn.f(-1.04), fn.f(1.04)), a004), fn.swizzle(r, "zw"))
    # The fit dips slightly below 0 at grazing angles on rough surfaces; a reflectance cannot.
    fn.ret(call(fn, Builtin.MAX, vec(2), scale_bias, fn.construct(vec(2), fn.f(0.0), fn.f(0.0))))


def environment_brdf(owner: HelperOwner) -> Function:
    return owner.helper("environment_brdf", _build_environment_brdf, [FLOAT, FLOAT], vec(2))


def _build_uniform_environment(owner: Any, fn: FunctionBuilder) -> None:
    """Light reflected from a uniform environment of radiance `ambient` (split-sum approximation).

    Specular: ambient · (F0 · scale + F90 · bias), with the dielectric's F0 = 0.04 · specular,
    F90 = specular, the metal's F0 = baseColor, F90 = 1. Diffuse (dielectric only): the Lambertian
    reflection of a uniform environment is baseColor · ambient, weighted by what the specular
    lobe leaves, (1 − its directional albedo).
    """
    normal, view, base_color, metallic, roughness, specular, ambient = parameters(fn, 7)
    n_dot_v = call(fn, Builtin.ABS, FLOAT, call(fn, Builtin.DOT, FLOAT, normal, view))
    scale_bias = fn.call(environment_brdf(owner), roughness, n_dot_v)
    assert scale_bias is not None
    scale, bias = fn.swizzle(scale_bias, "x"), fn.swizzle(scale_bias, "y")
    dielectric_albedo = fn.multiply(specular, fn.add(fn.multiply(fn.f(DIELECTRIC_F0), scale), bias))
    dielectric = fn.add(fn.multiply(base_color, fn.subtract(fn.f(1.0), dielectric_albedo)), splat3(fn, dielectric_albedo))
    metal = fn.add(fn.multiply(base_color, scale), splat3(fn, bias))
    fn.ret(fn.multiply(call(fn, Builtin.MIX, vec(3), dielectric, metal, splat3(fn, metallic)), ambient))


def uniform_environment(owner: HelperOwner) -> Function:
    """uniform_environment(N, V, baseColor: vec3, metallic, roughness, specular: float, ambient: vec3) -> vec3."""
    return owner.helper(
        "uniform_environment", _build_uniform_environment, [vec(3), vec(3), vec(3), FLOAT, FLOAT, FLOAT, vec(3)], vec(3)
    )
