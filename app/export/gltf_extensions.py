"""The KHR material extensions of a glTF material: entry builders shared by the Surface Output and the OpenPBR Surface.

Each builder takes the quantities the extension stores, as `_Values` gives
them (a (k,) array when constant over the mesh, else (H, W, k)), and returns
the extension's JSON object: factors for constants, a baked texture (with
the factor 1, or the peak for ranges) otherwise, channels as the extension
specifies them. `surface_extensions` writes the Surface Output's extension
inputs (`surface.SURFACE_EXTENSION_CHANNELS`); each extension is written only
when its factor is not neutral, so a material without them exports as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.export.bake import BakedMaterial
from app.export.images import encode_srgb, quantize
from app.export.maps import channel_values, unit_vectors

#: glTF's default IOR (KHR_materials_ior), also the clearcoat's fixed IOR.
GLTF_IOR = 1.5
_TOLERANCE = 0.5 / 255.0


class _Values:
    """The output's channels as numpy: a (k,) array when constant over the mesh, else (H, W, k)."""

    def __init__(self, baked: BakedMaterial) -> None:
        self.baked = baked
        self.covered = baked.coverage > 0.0

    def __call__(self, name: str) -> np.ndarray:
        constant = self.baked.constant(name)
        if constant is not None:
            return np.asarray(constant, dtype=np.float64)
        return channel_values(self.baked, name).astype(np.float64)

    def image(self, value: np.ndarray) -> np.ndarray:
        size = self.baked.size
        return np.broadcast_to(value, (size, size, value.shape[-1])).astype(np.float32)

    def mean(self, value: np.ndarray) -> np.ndarray:
        if value.ndim == 1:
            return value
        inside = value[self.covered] if self.covered.any() else value.reshape(-1, value.shape[-1])
        mean: np.ndarray = inside.mean(axis=0)
        return mean

    def peak(self, value: np.ndarray) -> float:
        if value.ndim == 1:
            return float(value.max())
        return float(value[self.covered].max()) if self.covered.any() else float(value.max())


def is_constant(value: np.ndarray) -> bool:
    return value.ndim == 1


def near(value: np.ndarray, expected: float) -> bool:
    return is_constant(value) and bool(np.all(np.abs(value - expected) <= _TOLERANCE))


def _r(value: float) -> float:
    return round(float(value), 6)




def clearcoat_entry(v: _Values, texture: Any, coat: np.ndarray, roughness: np.ndarray) -> dict[str, Any]:
    """KHR_materials_clearcoat: factor and roughness (R and G of one texture when either varies)."""
    if is_constant(coat) and is_constant(roughness):
        return {"clearcoatFactor": _r(coat[0]), "clearcoatRoughnessFactor": _r(roughness[0])}
    index = texture("clearcoat", quantize(np.concatenate([v.image(coat), v.image(roughness), v.image(np.zeros(1))], axis=2)), "data")
    return {"clearcoatFactor": 1.0, "clearcoatTexture": {"index": index},
            "clearcoatRoughnessFactor": 1.0, "clearcoatRoughnessTexture": {"index": index}}


def sheen_entry(v: _Values, texture: Any, sheen: np.ndarray, roughness: np.ndarray) -> dict[str, Any]:
    """KHR_materials_sheen: colour (sRGB texture) and roughness (the alpha of a data texture)."""
    entry: dict[str, Any] = {}
    if is_constant(sheen):
        entry["sheenColorFactor"] = [_r(c) for c in sheen]
    else:
        entry.update({"sheenColorFactor": [1.0, 1.0, 1.0],
                      "sheenColorTexture": {"index": texture("sheen_color", quantize(encode_srgb(v.image(sheen))), "srgb")}})
    if is_constant(roughness):
        entry["sheenRoughnessFactor"] = _r(roughness[0])
    else:
        pixels = quantize(np.concatenate([v.image(np.zeros(3)), v.image(roughness)], axis=2))
        entry.update({"sheenRoughnessFactor": 1.0, "sheenRoughnessTexture": {"index": texture("sheen_roughness", pixels, "data")}})
    return entry


def transmission_entry(v: _Values, texture: Any, transmission: np.ndarray) -> dict[str, Any]:
    """KHR_materials_transmission: the factor (the R channel of a texture when it varies)."""
    if is_constant(transmission):
        return {"transmissionFactor": _r(transmission[0])}
    index = texture("transmission", quantize(v.image(np.repeat(transmission, 3, axis=-1))), "data")
    return {"transmissionFactor": 1.0, "transmissionTexture": {"index": index}}


def iridescence_entry(v: _Values, texture: Any, film: np.ndarray, nanometres: np.ndarray, film_ior: np.ndarray,
                      notes: list[str], ior_name: str) -> dict[str, Any]:
    """KHR_materials_iridescence: factor (R), thickness in nm (G between the minimum 0 and the peak), IOR (a factor:
    its mean, with a note naming `ior_name`, when it varies)."""
    if not is_constant(film_ior):
        notes.append(f"{ior_name} varies over the mesh: glTF's iridescence IOR is one number; its mean is exported")
    entry: dict[str, Any] = {"iridescenceIor": _r(max(float(v.mean(film_ior)[0]), 1.0))}
    peak = max(v.peak(nanometres), 1e-3)
    if is_constant(film) and is_constant(nanometres):
        entry.update({"iridescenceFactor": _r(film[0]), "iridescenceThicknessMinimum": _r(peak),
                      "iridescenceThicknessMaximum": _r(peak)})
        return entry
    index = texture("iridescence", quantize(np.concatenate([v.image(film), v.image(nanometres / peak), v.image(np.zeros(1))], axis=2)), "data")
    entry.update({"iridescenceFactor": 1.0, "iridescenceThicknessMinimum": 0.0, "iridescenceThicknessMaximum": _r(peak),
                  "iridescenceThicknessTexture": {"index": index}})
    if not is_constant(film):
        entry["iridescenceTexture"] = {"index": index}
    else:
        entry["iridescenceFactor"] = _r(film[0])
    return entry


def _flat_normal(value: np.ndarray) -> bool:
    return is_constant(value) and bool(np.max(np.abs(value - (0.0, 0.0, 1.0))) <= _TOLERANCE)


def surface_extensions(result: Any, baked: BakedMaterial, texture: Any, extensions: dict[str, Any]) -> None:
    """Add the Surface Output's KHR extensions to `extensions` (and their images and notes to `result`)."""
    v = _Values(baked)
    notes: list[str] = result.notes

    ior = np.maximum(v("ior"), 1.0)
    if not is_constant(ior):
        notes.append("ior varies over the mesh: glTF's IOR is one number; its mean is exported")
    ior_value = float(v.mean(ior)[0])
    if abs(ior_value - GLTF_IOR) > 1e-6:
        extensions["KHR_materials_ior"] = {"ior": _r(ior_value)}

    coat = np.clip(v("clearcoat"), 0.0, 1.0)
    if not near(coat, 0.0):
        entry = clearcoat_entry(v, texture, coat, np.clip(v("clearcoat_roughness"), 0.0, 1.0))
        coat_normal = v("clearcoat_normal")
        if not _flat_normal(coat_normal):
            result.needs_tangents = True
            pixels = quantize(unit_vectors(v.image(coat_normal)) * 0.5 + 0.5)
            entry["clearcoatNormalTexture"] = {"index": texture("clearcoat_normal", pixels, "data"), "scale": 1.0}
        extensions["KHR_materials_clearcoat"] = entry

    sheen = np.clip(v("sheen_color"), 0.0, 1.0)
    if not near(sheen, 0.0):
        extensions["KHR_materials_sheen"] = sheen_entry(v, texture, sheen, np.clip(v("sheen_roughness"), 0.0, 1.0))

    transmission = np.clip(v("transmission"), 0.0, 1.0)
    if not near(transmission, 0.0):
        extensions["KHR_materials_transmission"] = transmission_entry(v, texture, transmission)
        thickness = np.maximum(v("thickness"), 0.0)
        if not near(thickness, 0.0):
            volume: dict[str, Any]
            if is_constant(thickness):
                volume = {"thicknessFactor": _r(thickness[0])}
            else:  # KHR_materials_volume reads the thickness from G, scaled by the factor
                peak = max(v.peak(thickness), 1e-6)
                pixels = quantize(np.concatenate([v.image(np.zeros(1)), v.image(thickness / peak), v.image(np.zeros(1))], axis=2))
                volume = {"thicknessFactor": _r(peak), "thicknessTexture": {"index": texture("thickness", pixels, "data")}}
            color, distance = v("attenuation_color"), v("attenuation_distance")
            if not (is_constant(color) and is_constant(distance)):
                notes.append("attenuation_color/attenuation_distance vary over the mesh: glTF's attenuation is one colour "
                             "and distance; their means are exported")
            distance_value = float(v.mean(distance)[0])
            if distance_value > 0.0:  # 0 stands for glTF's default, infinity (no attenuation)
                volume.update({"attenuationColor": [_r(c) for c in np.clip(v.mean(color), 0.0, 1.0)],
                               "attenuationDistance": _r(distance_value)})
            extensions["KHR_materials_volume"] = volume
            # KHR_materials_dispersion applies to a volume only (the extension's spec), so it is written with one.
            dispersion = np.maximum(v("dispersion"), 0.0)
            if not near(dispersion, 0.0):
                if not is_constant(dispersion):
                    notes.append("dispersion varies over the mesh: KHR_materials_dispersion is one number; its mean is exported")
                extensions["KHR_materials_dispersion"] = {"dispersion": _r(float(v.mean(dispersion)[0]))}

    film = np.clip(v("iridescence"), 0.0, 1.0)
    if not near(film, 0.0):
        extensions["KHR_materials_iridescence"] = iridescence_entry(
            v, texture, film, np.maximum(v("iridescence_thickness"), 0.0), v("iridescence_ior"), notes, "iridescence_ior")

    strength = np.clip(v("anisotropy_strength"), 0.0, 1.0)
    if not near(strength, 0.0):
        result.needs_tangents = True
        rotation = v("anisotropy_rotation")
        if is_constant(strength) and is_constant(rotation):
            extensions["KHR_materials_anisotropy"] = {"anisotropyStrength": _r(strength[0]), "anisotropyRotation": _r(rotation[0])}
        else:
            # RG: the direction in tangent space encoded as (d + 1) / 2; B: the strength.
            angle = v.image(rotation)
            pixels = np.concatenate([np.cos(angle) * 0.5 + 0.5, np.sin(angle) * 0.5 + 0.5, v.image(strength)], axis=2)
            extensions["KHR_materials_anisotropy"] = {"anisotropyStrength": 1.0,
                                                      "anisotropyTexture": {"index": texture("anisotropy", quantize(pixels), "data")}}
