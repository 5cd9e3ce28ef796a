"""The Surface Output's glTF material extensions, emitted as VPL instructions (docs/lighting.md, "glTF extensions").

The Surface Output is the glTF 2.0 metallic-roughness material; these are
the KHR extensions that layer onto it, shaded by the extensions' reference
formulas with the real-time approximations the OpenPBR Surface already uses
for the same lobes (`openpbr_shading`, whose helpers are shared here):

- KHR_materials_ior: dielectric F0 = ((ior − 1) / (ior + 1))² · specular.
- KHR_materials_iridescence: the dielectric and metal Fresnel mixed towards
  the thin-film (Airy) reflectance by the iridescence factor
  (`openpbr_shading.airy_iridescence`, the extension's evalIridescence).
- KHR_materials_anisotropy: α_t = mix(α, 1, strength²), α_b = α along the
  tangent turned by the rotation; anisotropic GGX (`_microfacet`) and the
  tapped environment lobe (`_anisotropic_radiance`).
- KHR_materials_transmission / _volume: the dielectric's diffuse is mixed
  towards the environment seen through the surface (refracted twice through
  a sphere when the thickness is above 0, with the lobe the two rough faces
  give (`openpbr_shading.solid_refraction_roughness`); straight through when
  it is 0, with the extension's roughness · clamp(2 ior − 2, 0, 1)),
  tinted by the base colour and Beer-Lambert attenuation
  attenuationColor^(thickness / attenuationDistance) (distance 0 = none).
- KHR_materials_dispersion (with a volume): the IOR spread over the colour
  channels from the Abbe number (dispersion = 20 / V; half-spread
  (ior − 1) · 0.025 · dispersion, R below and B above the IOR) and one
  refracted environment lookup per channel, as the glTF Sample Viewer does
  (`openpbr_shading.dispersed_environment`).
- KHR_materials_sheen: Charlie D with Ashikhmin's visibility for the key
  light; the base scaled by 1 − max(sheenColor) · E(N·V), E the sheen's
  directional albedo (Zeltner's fit, `openpbr_shading.zeltner_albedo`),
  and E · irradiance from the environment.
- KHR_materials_clearcoat: a GGX layer (IOR 1.5: F0 0.04, F90 1) on the
  clearcoat normal over everything below, which keeps 1 − clearcoat · F:
  Schlick at N·V for the key light and emission, the split-sum energy the
  coat took for the environment.

A lobe whose factor input is unconnected, not live and at its neutral value
(0; an IOR of 1.5; a black sheen colour) emits nothing: materials that do
not use an extension produce the same GLSL as before the extensions existed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.material.nodes import pbr_functions
from app.material.nodes.openpbr_shading import (
    MIN_ALPHA,
    Emit,
    _anisotropic_radiance,
    _Environment,
    _frame,
    _microfacet,
    airy_iridescence,
    constant_is,
    dispersed_environment,
    f0_of_ior,
    zeltner_albedo,
)
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

#: glTF's default IOR (KHR_materials_ior).
GLTF_IOR = 1.5
#: Clearcoat F0 (IOR 1.5, fixed by KHR_materials_clearcoat).
CLEARCOAT_F0 = 0.04
#: Smallest sheen α (KHR_materials_sheen's reference clamps sin²θ_h, not α; this keeps 1/α finite).
MIN_SHEEN_ALPHA = 1e-3


@dataclass(frozen=True)
class Extensions:
    """Which extensions a Surface Output emits (each off while its factor is an unconnected neutral constant)."""

    clearcoat: bool
    sheen: bool
    transmission: bool
    volume: bool
    attenuation: bool
    dispersion: bool
    ior: bool
    iridescence: bool
    anisotropy: bool

    @staticmethod
    def of(ctx: NodeContext) -> Extensions:
        transmission = not constant_is(ctx, "transmission", 0.0, structural=True)
        volume = transmission and not constant_is(ctx, "thickness", 0.0, structural=True)
        return Extensions(
            clearcoat=not constant_is(ctx, "clearcoat", 0.0, structural=True),
            sheen=not constant_is(ctx, "sheen_color", 0.0, structural=True),
            transmission=transmission,
            volume=volume,
            attenuation=volume and not constant_is(ctx, "attenuation_distance", 0.0, structural=True),
            dispersion=volume and not constant_is(ctx, "dispersion", 0.0, structural=True),
            ior=not constant_is(ctx, "ior", GLTF_IOR, structural=True),
            iridescence=not constant_is(ctx, "iridescence", 0.0, structural=True),
            anisotropy=not constant_is(ctx, "anisotropy_strength", 0.0, structural=True),
        )

    @property
    def base(self) -> bool:
        """Whether the base BRDF itself changes (else the metallic-roughness helpers are used as they are)."""
        return self.transmission or self.ior or self.iridescence or self.anisotropy

    @property
    def layers(self) -> bool:
        return self.clearcoat or self.sheen


@dataclass
class BaseInputs:
    normal: Operand
    view: Operand
    light: Operand
    base_color: Operand
    metallic: Operand
    roughness: Operand
    specular: Operand
    irradiance_light: Operand  # light colour × intensity × max(N·L, 0) (× self-shadowing)


def extended_base(ctx: NodeContext, x: Extensions, b: BaseInputs) -> tuple[Operand, Operand]:
    """(direct, environment) radiance of the metallic-roughness base with ior, iridescence, anisotropy and
    transmission/volume (the glTF BRDF of Appendix B with the extensions' changes)."""
    fn = ctx.fn
    e = Emit(fn)
    halfway = e.normalize(e.add(e.add(b.light, b.view), pbr_functions.constant3(fn, (0.0, 0.0, 1e-12))))
    frame = _frame(e, b.normal, b.view, b.light, halfway)
    env = _Environment(ctx, e)
    irradiance = env.irradiance(b.normal)
    ior = e.clamp(ctx.input("ior"), 1.0, 10.0) if x.ior else e.v(GLTF_IOR)
    f0_dielectric = e.mul(f0_of_ior(e, ior) if x.ior else e.v(pbr_functions.DIELECTRIC_F0), b.specular)

    alpha = e.max(e.square(b.roughness), MIN_ALPHA)
    tangent: Operand | None = None
    backwards = fn.call_builtin(Builtin.NEGATE, vec(3), b.view)
    if x.anisotropy:
        strength = e.sat(ctx.input("anisotropy_strength"))
        rotation = ctx.input("anisotropy_rotation")
        tangent = e.add(e.mul(ctx.source("world_tangent"), e.call(Builtin.COS, rotation)),
                        e.mul(ctx.source("world_bitangent"), e.call(Builtin.SIN, rotation)))
        alpha_t = e.max(e.mix(alpha, 1.0, e.square(strength)), MIN_ALPHA)
        lobe = _microfacet(ctx, e, frame, b.view, b.light, halfway, (alpha_t, alpha), tangent)
        prefiltered = _anisotropic_radiance(ctx, e, env, b.normal, b.view, tangent, alpha_t, alpha)
        env_roughness = e.sqrt(e.sqrt(e.mul(alpha_t, alpha)))
    else:
        lobe = _microfacet(ctx, e, frame, b.view, b.light, halfway, alpha, None)
        prefiltered = env.radiance(fn.call_builtin(Builtin.REFLECT, vec(3), backwards, b.normal), b.roughness)
        env_roughness = b.roughness
    scale, bias = env.table(frame.n_dot_v, env_roughness)

    weight = fn.call(pbr_functions.schlick_weight(ctx.lowering), frame.v_dot_h)
    assert weight is not None
    dielectric_fresnel: Operand = e.add(f0_dielectric, e.mul(e.sub(b.specular, f0_dielectric), weight))
    metal_fresnel = e.add(b.base_color, e.mul(e.sub(1.0, b.base_color), weight))
    env_f0: Operand = e.promote(f0_dielectric, 3)
    env_f90: Operand = e.promote(b.specular, 3)
    metal_f0: Operand = b.base_color
    if x.iridescence:
        factor = e.sat(ctx.input("iridescence"))
        film = airy_iridescence(e, frame.n_dot_v, e.mul(e.max(ctx.input("iridescence_thickness"), 0.0), 1e-3),
                                ctx.input("iridescence_ior"), ior)
        tinted = e.mul(film, b.specular)
        dielectric_fresnel = e.mix(e.promote(dielectric_fresnel, 3), tinted, factor)
        env_f0, env_f90 = e.mix(env_f0, tinted, factor), e.mix(env_f90, tinted, factor)
        metal_fresnel = e.mix(metal_fresnel, film, factor)
        metal_f0 = e.mix(metal_f0, film, factor)

    diffuse_direct = e.mul(b.base_color, 1.0 / math.pi)
    diffuse_env = e.mul(b.base_color, irradiance)
    if x.transmission:
        transmission = e.sat(ctx.input("transmission"))
        # The key light reaches the transmitted lobe only along the refracted ray: no direct diffuse for that part.
        diffuse_direct = e.mul(diffuse_direct, e.sub(1.0, transmission))
        tint: Operand = b.base_color
        if x.attenuation:
            color = e.clamp(fn.swizzle(ctx.input("attenuation_color"), "xyz"), 1e-4, 1.0)
            distance = e.max(ctx.input("attenuation_distance"), 1e-6)
            thickness = e.max(ctx.input("thickness"), 0.0)
            tint = e.mul(tint, e.exp(e.mul(e.call(Builtin.LOG, color), e.div(thickness, distance))))
        # Thin: KHR_materials_transmission's roughness for the refracted lobe, roughness · clamp(2 ior − 2, 0, 1).
        # A volume: the roughness, which `refracted_environment` turns into the lobe through the sphere's two faces.
        transmitted_roughness = (b.roughness if x.volume
                                 else e.mul(b.roughness, e.sat(e.sub(e.mul(2.0, ior), 2.0))))
        dispersion = ctx.input("dispersion") if x.dispersion else None
        through = dispersed_environment(ctx, e, env, b.view, b.normal, ior, not x.volume, transmitted_roughness, dispersion,
                                        not constant_is(ctx, "roughness", 0.0))
        diffuse_env = e.mix(diffuse_env, e.mul(through, tint), transmission)

    dielectric_direct = e.add(e.mul(dielectric_fresnel, lobe), e.mul(e.sub(1.0, dielectric_fresnel), diffuse_direct))
    metal_direct = e.mul(metal_fresnel, lobe)
    metallic3 = e.promote(b.metallic, 3)
    direct = e.mul(e.mix(e.promote(dielectric_direct, 3), metal_direct, metallic3), b.irradiance_light)

    dielectric_specular, taken = pbr_functions._multiple_scattering(fn, env_f0, env_f90, scale, bias, prefiltered, irradiance)
    dielectric_env = e.add(dielectric_specular, e.mul(e.sub(1.0, taken), diffuse_env))
    metal_env, _ = pbr_functions._multiple_scattering(fn, metal_f0, e.vec3(1.0), scale, bias, prefiltered, irradiance)
    return direct, e.mix(dielectric_env, metal_env, metallic3)


def layers(ctx: NodeContext, x: Extensions, normal: Operand, view: Operand, light: Operand, direct: Operand,
           indirect: Operand, emissive: Operand, occlusion: Operand) -> Operand:
    """direct + indirect + emissive under the sheen and then the clearcoat layer (KHR's order)."""
    fn = ctx.fn
    e = Emit(fn)
    light_radiance = e.mul(ctx.scene("light_color"), ctx.scene("light_intensity"))
    env = _Environment(ctx, e)
    halfway = e.normalize(e.add(e.add(light, view), pbr_functions.constant3(fn, (0.0, 0.0, 1e-12))))
    total_direct, total_indirect, total_emissive = direct, indirect, emissive
    if x.sheen:
        frame = _frame(e, normal, view, light, halfway)
        sheen_color = e.sat(fn.swizzle(ctx.input("sheen_color"), "xyz"))
        sheen_roughness = e.clamp(ctx.input("sheen_roughness"), 0.01, 1.0)
        inverse_alpha = e.div(1.0, e.max(e.square(sheen_roughness), MIN_SHEEN_ALPHA))
        sin2 = e.max(e.sub(1.0, e.square(frame.n_dot_h)), 0.0078125)
        distribution = e.div(e.mul(e.add(2.0, inverse_alpha), e.call(Builtin.POW, sin2, e.mul(inverse_alpha, 0.5))), 2.0 * math.pi)
        n_dot_l = e.max(frame.n_dot_l, 0.0)
        # Ashikhmin's visibility, 1 / (4 (N·L + N·V − N·L N·V)).
        visibility = e.div(1.0, e.mul(4.0, e.max(e.sub(e.add(n_dot_l, frame.n_dot_v), e.mul(n_dot_l, frame.n_dot_v)), 1e-4)))
        albedo = e.sat(zeltner_albedo(e, frame.n_dot_v, sheen_roughness))
        peak = e.max(e.max(fn.swizzle(sheen_color, "x"), fn.swizzle(sheen_color, "y")), fn.swizzle(sheen_color, "z"))
        scaling = e.sub(1.0, e.mul(peak, albedo))
        sheen_direct = e.mul(sheen_color, distribution, visibility, light_radiance, n_dot_l)
        sheen_env = e.mul(sheen_color, albedo, env.irradiance(normal), occlusion)
        total_direct = e.add(sheen_direct, e.mul(total_direct, scaling))
        total_indirect = e.add(sheen_env, e.mul(total_indirect, scaling))
        total_emissive = e.mul(total_emissive, scaling)
    if x.clearcoat:
        coat = e.sat(ctx.input("clearcoat"))
        coat_roughness = e.sat(ctx.input("clearcoat_roughness"))
        coat_normal = e.normalize(ctx.input("clearcoat_normal"))
        frame = _frame(e, coat_normal, view, light, halfway)
        lobe = _microfacet(ctx, e, frame, view, light, halfway, e.max(e.square(coat_roughness), MIN_ALPHA), None)
        weight = fn.call(pbr_functions.schlick_weight(ctx.lowering), frame.v_dot_h)
        facing = fn.call(pbr_functions.schlick_weight(ctx.lowering), frame.n_dot_v)
        assert weight is not None and facing is not None
        fresnel = e.add(CLEARCOAT_F0, e.mul(1.0 - CLEARCOAT_F0, weight))
        coat_direct = e.mul(coat, fresnel, lobe, light_radiance, e.max(frame.n_dot_l, 0.0))
        reflected = fn.call_builtin(Builtin.REFLECT, vec(3), fn.call_builtin(Builtin.NEGATE, vec(3), view), coat_normal)
        scale, bias = env.table(frame.n_dot_v, coat_roughness)
        coat_env, taken = pbr_functions._multiple_scattering(
            fn, e.vec3(CLEARCOAT_F0), e.vec3(1.0), scale, bias, env.radiance(reflected, coat_roughness), env.irradiance(coat_normal))
        keep_direct = e.sub(1.0, e.mul(coat, e.add(CLEARCOAT_F0, e.mul(1.0 - CLEARCOAT_F0, facing))))
        total_direct = e.add(coat_direct, e.mul(total_direct, keep_direct))
        total_indirect = e.add(e.mul(coat_env, coat, occlusion), e.mul(total_indirect, e.sub(1.0, e.mul(taken, coat))))
        total_emissive = e.mul(total_emissive, keep_direct)
    return e.add(e.add(total_direct, total_indirect), total_emissive)
