"""The OpenPBR Surface as a glTF material: core metallic-roughness plus the KHR extensions that match its lobes.

The table is docs/interchange.md "OpenPBR Surface in glTF". Each quantity is
a factor when it is constant over the mesh and a baked texture otherwise
(the baker renders the output's raw inputs, `surface.OPENPBR_CHANNELS`; the
products and remappings are computed here per texel). Only extensions a
lobe in use needs are written. What glTF cannot carry (subsurface, coat
colour and darkening, ...) is named in `GltfMaterial.notes`, never dropped
silently; a quantity glTF only takes as a factor (IOR, attenuation) uses its
mean over the mesh when it varies, with a note.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from app.export.bake import BakedMaterial
from app.export.gltf_extensions import (
    _TOLERANCE,
    GLTF_IOR,
    _r,
    _Values,
    clearcoat_entry,
    iridescence_entry,
    is_constant,
    near,
    sheen_entry,
    transmission_entry,
)
from app.export.images import encode_srgb, quantize
from app.export.maps import unit_vectors

if TYPE_CHECKING:
    from app.export.gltf import GltfMaterial

def gltf_anisotropy(roughness: np.ndarray, anisotropy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(glTF roughness, KHR_materials_anisotropy strength) giving OpenPBR's (α_t, α_b).

    OpenPBR: α_t = r² √(2 / (1 + (1 − a)²)), α_b = (1 − a) α_t. glTF:
    α_b = r_g², α_t = mix(r_g², 1, s²). So r_g = √α_b and
    s = √((α_t − α_b) / (1 − α_b)), exact while α_t ≤ 1 (α_t is clamped to 1).
    """
    r = np.clip(roughness, 0.0, 1.0)
    a = np.clip(anisotropy, 0.0, 1.0)
    alpha_t = np.minimum(r * r * np.sqrt(2.0 / (1.0 + (1.0 - a) ** 2)), 1.0)
    alpha_b = (1.0 - a) * alpha_t
    strength = np.sqrt(np.clip((alpha_t - alpha_b) / np.maximum(1.0 - alpha_b, 1e-6), 0.0, 1.0))
    return np.sqrt(alpha_b), strength


def build_openpbr(result: GltfMaterial, baked: BakedMaterial, texture: Any, emissive: Any, thickness: float) -> None:
    """Fill `result` (material, images, extensions, notes) from an OpenPBR Surface bake.

    `texture(name, pixels, colour space) -> index` adds an image; `emissive(material, extensions, radiance)`
    writes the emission as the metallic-roughness path does; `thickness` is the mesh's thickness (its
    smallest bounding-box extent) for KHR_materials_volume.
    """
    description = baked.description
    v = _Values(baked)
    material = result.material
    notes = result.notes
    extensions: dict[str, Any] = {}
    pbr: dict[str, Any] = {}

    # Base: base_color × base_weight, opacity in alpha when blending.
    base = np.clip(v("base_color") * v("base_weight"), 0.0, 1.0)
    opacity = np.clip(v("opacity"), 0.0, 1.0)
    blend = description.alpha_mode != "OPAQUE"
    if is_constant(base) and (is_constant(opacity) or not blend):
        pbr["baseColorFactor"] = [*(_r(c) for c in base), _r(opacity[0]) if blend else 1.0]
    else:
        pixels = quantize(encode_srgb(v.image(base)))
        if blend:
            pixels = np.concatenate([pixels, quantize(v.image(opacity))], axis=2)
        pbr["baseColorTexture"] = {"index": texture("base_color", pixels, "srgb")}

    # Metallic, roughness (remapped with the specular anisotropy).
    metallic = np.clip(v("metallic"), 0.0, 1.0)
    roughness = np.clip(v("roughness"), 0.0, 1.0)
    anisotropy = np.clip(v("anisotropy"), 0.0, 1.0)
    strength = None
    if not near(anisotropy, 0.0):
        roughness, strength = gltf_anisotropy(roughness, anisotropy)
    if is_constant(metallic) and is_constant(roughness):
        pbr["metallicFactor"], pbr["roughnessFactor"] = _r(metallic[0]), _r(roughness[0])
    else:
        orm = np.concatenate([v.image(np.ones(1)), v.image(roughness), v.image(metallic)], axis=2)
        pbr.update({"metallicFactor": 1.0, "roughnessFactor": 1.0, "metallicRoughnessTexture": {"index": texture("orm", quantize(orm), "data")}})
    material["pbrMetallicRoughness"] = pbr

    def normal_texture(channel: str) -> dict[str, Any] | None:
        value = v(channel)
        if is_constant(value) and np.max(np.abs(value - (0.0, 0.0, 1.0))) <= _TOLERANCE:
            return None
        result.needs_tangents = True
        return {"index": texture(channel, quantize(unit_vectors(v.image(value)) * 0.5 + 0.5), "data"), "scale": 1.0}

    normal = normal_texture("normal")
    if normal is not None:
        material["normalTexture"] = normal
    if "geometry_tangent" in description.connected:
        notes.append("geometry_tangent: glTF's anisotropy follows the mesh's tangents; the connected tangent is not exported")

    emissive(material, extensions, np.maximum(v("emission_color"), 0.0) * np.maximum(v("emission_luminance"), 0.0))

    # KHR_materials_specular: specular_weight, specular_color.
    specular, specular_color = np.clip(v("specular"), 0.0, 1.0), np.maximum(v("specular_color"), 0.0)
    if not (near(specular, 1.0) and near(specular_color, 1.0)):
        entry: dict[str, Any] = {}
        if is_constant(specular):
            entry["specularFactor"] = _r(specular[0])
        else:
            entry["specularTexture"] = {"index": texture("specular", quantize(np.concatenate([v.image(np.zeros(3)), v.image(specular)], axis=2)), "data")}
        if is_constant(specular_color):
            entry["specularColorFactor"] = [_r(c) for c in specular_color]
        else:
            peak = max(v.peak(specular_color), 1e-6)
            entry["specularColorFactor"] = [_r(peak)] * 3
            entry["specularColorTexture"] = {"index": texture("specular_color", quantize(encode_srgb(v.image(specular_color / peak))), "srgb")}
        extensions["KHR_materials_specular"] = entry

    # KHR_materials_ior: specular_ior (a factor only).
    ior = v("specular_ior")
    if not is_constant(ior):
        notes.append("specular_ior varies over the mesh: glTF's IOR is one number; its mean is exported")
    ior_value = float(v.mean(ior)[0])
    if abs(ior_value - GLTF_IOR) > 1e-6:
        extensions["KHR_materials_ior"] = {"ior": _r(max(ior_value, 1.0))}

    # KHR_materials_clearcoat: coat_weight, coat_roughness, geometry_coat_normal.
    coat, coat_roughness = np.clip(v("coat_weight"), 0.0, 1.0), np.clip(v("coat_roughness"), 0.0, 1.0)
    coat_used = not near(coat, 0.0)
    if coat_used:
        entry = clearcoat_entry(v, texture, coat, coat_roughness)
        coat_normal = normal_texture("coat_normal")
        if coat_normal is not None:
            entry["clearcoatNormalTexture"] = coat_normal
        extensions["KHR_materials_clearcoat"] = entry

    # KHR_materials_sheen: fuzz_color × fuzz_weight, fuzz_roughness.
    fuzz_weight = np.clip(v("fuzz_weight"), 0.0, 1.0)
    if not near(fuzz_weight, 0.0):
        sheen = np.clip(v("fuzz_color") * fuzz_weight, 0.0, 1.0)
        extensions["KHR_materials_sheen"] = sheen_entry(v, texture, sheen, np.clip(v("fuzz_roughness"), 0.0, 1.0))

    # KHR_materials_transmission and _volume.
    transmission = np.clip(v("transmission_weight"), 0.0, 1.0)
    if not near(transmission, 0.0):
        extensions["KHR_materials_transmission"] = transmission_entry(v, texture, transmission)
        color, depth = v("transmission_color"), v("transmission_depth")
        if not (is_constant(color) and is_constant(depth)):
            notes.append("transmission_color/transmission_depth vary over the mesh: glTF's attenuation is one colour "
                         "and distance; their means are exported")
        color_mean, depth_mean = np.clip(v.mean(color), 0.0, 1.0), float(v.mean(depth)[0])
        thin_walled = description.constants.get("thin_walled", (0.0,))[0] > 0.5
        tinted = bool(np.any(np.abs(color_mean - 1.0) > _TOLERANCE))
        if not thin_walled:
            volume: dict[str, Any] = {"thicknessFactor": _r(thickness)}
            if depth_mean > 0.0 and tinted:
                volume.update({"attenuationColor": [_r(c) for c in color_mean], "attenuationDistance": _r(depth_mean)})
            extensions["KHR_materials_volume"] = volume
            dispersion = _dispersion(description.constants)
            if dispersion is not None:
                extensions["KHR_materials_dispersion"] = {"dispersion": _r(dispersion)}
        if tinted and (depth_mean <= 0.0 or thin_walled):
            # A tint at the surface. glTF tints transmitted light by the base colour; with all light transmitted
            # (weight 1, no metal) the base colour has no diffuse left to colour, so it can carry the tint exactly.
            if near(transmission, 1.0) and near(metallic, 0.0) and is_constant(color) and "baseColorFactor" in pbr:
                pbr["baseColorFactor"] = [*(_r(c) for c in color_mean), pbr["baseColorFactor"][3]]
            else:
                notes.append("transmission_color without transmission_depth (a tint at the surface): glTF tints "
                             "transmission by the base colour, which this material also uses for its diffuse; not exported")

    # KHR_materials_iridescence: thin_film_weight, thin_film_thickness (µm → nm), thin_film_ior.
    film = np.clip(v("thin_film_weight"), 0.0, 1.0)
    if not near(film, 0.0):
        nanometres = np.maximum(v("thin_film_thickness"), 0.0) * 1000.0
        extensions["KHR_materials_iridescence"] = iridescence_entry(v, texture, film, nanometres, v("thin_film_ior"), notes, "thin_film_ior")

    # KHR_materials_anisotropy: strength from the remapping above, along the mesh's tangent (rotation 0).
    if strength is not None:
        result.needs_tangents = True
        if is_constant(strength):
            extensions["KHR_materials_anisotropy"] = {"anisotropyStrength": _r(strength[0])}
        else:
            # RG: the direction in tangent space, (1, 0) encoded as (1, 0.5); B: the strength.
            pixels = np.concatenate([v.image(np.ones(1)), v.image(np.full(1, 0.5)), v.image(strength)], axis=2)
            extensions["KHR_materials_anisotropy"] = {"anisotropyStrength": 1.0, "anisotropyTexture": {"index": texture("anisotropy", quantize(pixels), "data")}}

    notes.extend(unmapped_notes(baked, coat_used, "KHR_materials_transmission" in extensions, "KHR_materials_dispersion" in extensions))
    if extensions:
        material["extensions"] = extensions
        result.extensions.extend(name for name in sorted(extensions) if name not in result.extensions)
    if blend:
        material["alphaMode"] = "BLEND"


def _dispersion(constants: dict[str, tuple[float, ...]]) -> float | None:
    """KHR_materials_dispersion's value, 20 / V with OpenPBR's effective Abbe number V = abbe_number / scale
    (None: no dispersion, or its inputs are connected)."""
    scale, abbe = constants.get("input:transmission_dispersion_scale"), constants.get("input:transmission_dispersion_abbe_number")
    if scale is None or abbe is None or scale[0] <= 0.0 or abbe[0] <= 0.0:
        return None
    return 20.0 * scale[0] / abbe[0]


def unmapped_notes(baked: BakedMaterial, coat_used: bool, transmission_used: bool, dispersion_written: bool) -> list[str]:
    """One note per OpenPBR parameter in use that glTF cannot carry (connected, or not its neutral value)."""
    description = baked.description
    constants = description.constants

    def in_use(name: str, neutral: float | tuple[float, ...]) -> bool:
        if name in description.connected:
            return True
        value = constants.get(f"input:{name}")
        expected = neutral if isinstance(neutral, tuple) else (neutral,)
        return value is not None and any(abs(a - b) > 1e-6 for a, b in zip(value, expected))

    notes = []
    if in_use("subsurface_weight", 0.0):
        notes.append("subsurface (subsurface_weight, subsurface_color, subsurface_radius, subsurface_radius_scale, "
                     "subsurface_scatter_anisotropy): no glTF counterpart; not exported")
    if coat_used:
        if in_use("coat_color", (1.0, 1.0, 1.0)):
            notes.append("coat_color: KHR_materials_clearcoat has no coat tint; not exported")
        if in_use("coat_darkening", 0.0):
            notes.append("coat_darkening: KHR_materials_clearcoat has no darkening of the base under the coat; not exported")
        if in_use("coat_ior", GLTF_IOR):
            notes.append("coat_ior: KHR_materials_clearcoat's IOR is fixed at 1.5; not exported")
        if in_use("coat_roughness_anisotropy", 0.0):
            notes.append("coat_roughness_anisotropy: KHR_materials_clearcoat is isotropic; not exported")
    if in_use("base_diffuse_roughness", 0.0):
        notes.append("base_diffuse_roughness: glTF's diffuse is Lambertian; not exported")
    if transmission_used and (in_use("transmission_scatter", (0.0, 0.0, 0.0)) or in_use("transmission_scatter_anisotropy", 0.0)):
        notes.append("transmission_scatter, transmission_scatter_anisotropy: KHR_materials_volume has no scattering; not exported")
    if transmission_used and not dispersion_written and in_use("transmission_dispersion_scale", 0.0):
        notes.append("transmission_dispersion_scale, transmission_dispersion_abbe_number: KHR_materials_dispersion needs "
                     "them constant on a transmissive volume (not thin-walled); not exported")
    return notes


def mesh_thickness(positions: np.ndarray) -> float:
    """The smallest extent of the mesh's bounding box: KHR_materials_volume's thickness for a closed mesh."""
    extent = np.ptp(np.asarray(positions, dtype=np.float64), axis=0) if len(positions) else np.zeros(3)
    smallest = float(extent.min()) if extent.size else 0.0
    return smallest if math.isfinite(smallest) and smallest > 0.0 else 1.0
