"""Independent numpy references for the PBR tests, written from the published formulas (float64).

Nothing here is imported from the code under test: the constants are
copied from the sources named below, so a wrong constant in the shader
code cannot hide in both places.

- BRDF: glTF 2.0 specification, Appendix B "BRDF Implementation" (the
  specular BRDF with the GGX distribution and the height-correlated Smith
  visibility, the Lambertian diffuse, Schlick's Fresnel, the "full code"
  mix of metal and dielectric BRDFs), with KHR_materials_specular's
  `specular` factor (dielectric_f0 = 0.04 · specular, f90 = specular).
  The appendix's note that α = 0 must not be evaluated is followed with a
  clamp α >= ALPHA_FLOOR, documented by the project as its choice.
- sRGB: IEC 61966-2-1.
- Tone mappers: Khronos PBR Neutral (KhronosGroup/ToneMapping, PBR_Neutral
  specification); ACES filmic as fitted by Stephen Hill (BakingLab
  ACES.hlsl) with the 1/0.6 exposure boost used by three.js; AgX as in
  three.js r161+ / Filament (Rec. 2020 primaries, AgX inset/outset, log2
  range [-12.47393, 4.026069], Wrensch's polynomial); Reinhard (2002).
"""

from __future__ import annotations

import numpy as np

ALPHA_FLOOR = 0.002


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=-1)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def gltf_brdf(n, v, light, base_color, metallic, roughness, specular=1.0) -> np.ndarray:
    """f(l, v) of the glTF metallic-roughness material, (..., 3)."""
    n, v, light = (np.asarray(x, dtype=np.float64) for x in (n, v, light))
    base = np.asarray(base_color, dtype=np.float64)
    h = _unit(light + v)
    n_l, n_v, n_h = _dot(n, light), _dot(n, v), _dot(n, h)
    h_l, h_v = _dot(h, light), _dot(h, v)
    alpha = np.maximum(np.asarray(roughness, dtype=np.float64) ** 2, ALPHA_FLOOR)
    a2 = alpha * alpha
    chi = lambda x: (x > 0).astype(np.float64)  # noqa: E731 - the appendix's Heaviside function
    d = a2 * chi(n_h) / (np.pi * (n_h * n_h * (a2 - 1.0) + 1.0) ** 2)
    vis = chi(h_l) * chi(h_v) / (
        2.0 * (np.abs(n_v) * np.sqrt(a2 + (1 - a2) * n_l**2) + np.abs(n_l) * np.sqrt(a2 + (1 - a2) * n_v**2))
    )
    specular_brdf = (vis * d)[..., None]
    fresnel_w = ((1.0 - np.abs(h_v)) ** 5)[..., None]
    diffuse_brdf = base / np.pi
    dielectric_fresnel = specular * (0.04 + (1.0 - 0.04) * fresnel_w)
    dielectric_brdf = dielectric_fresnel * specular_brdf + (1.0 - dielectric_fresnel) * diffuse_brdf
    metal_fresnel = base + (1.0 - base) * fresnel_w
    metal_brdf = metal_fresnel * specular_brdf
    m = np.asarray(metallic, dtype=np.float64)
    return (1.0 - m) * dielectric_brdf + m * metal_brdf


def direct_radiance(n, v, light, base_color, metallic, roughness, light_radiance, specular=1.0) -> np.ndarray:
    """Radiance from one directional light: f · E · max(N·L, 0)."""
    light = np.broadcast_to(np.asarray(light, dtype=np.float64), np.shape(v))
    facing = np.maximum(_dot(np.asarray(n, dtype=np.float64), light), 0.0)[..., None]
    return gltf_brdf(n, v, light, base_color, metallic, roughness, specular) * np.asarray(light_radiance) * facing


# sRGB (IEC 61966-2-1) ---------------------------------------------------------------------------


def srgb_decode(encoded) -> np.ndarray:
    c = np.asarray(encoded, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def srgb_encode(linear) -> np.ndarray:
    c = np.asarray(linear, dtype=np.float64)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.maximum(c, 0.0) ** (1 / 2.4) - 0.055)


# Tone mappers ---------------------------------------------------------------------------------


def pbr_neutral(color) -> np.ndarray:
    """Khronos PBR Neutral, from its specification (F90 = 0.04, Ks = 0.8 - F90, Kd = 0.15)."""
    c = np.asarray(color, dtype=np.float64)
    f90, kd = 0.04, 0.15
    ks = 0.8 - f90
    x = c.min(axis=-1, keepdims=True)
    f = np.where(x <= 2 * f90, x - x * x / (4 * f90), f90)
    p = (c - f).max(axis=-1, keepdims=True)
    p_n = 1 - (1 - ks) ** 2 / (p + 1 - 2 * ks)
    g = 1 / (kd * (p - p_n) + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        compressed = (c - f) * (p_n / p) * g + p_n * (1 - g)
    return np.where(p <= ks, c - f, compressed)


def aces_hill(color) -> np.ndarray:
    c = np.asarray(color, dtype=np.float64) / 0.6
    to_aces = np.array([[0.59719, 0.35458, 0.04823], [0.07600, 0.90834, 0.01566], [0.02840, 0.13383, 0.83777]])
    from_aces = np.array([[1.60475, -0.53108, -0.07367], [-0.10208, 1.10813, -0.00605], [-0.00327, -0.07276, 1.07602]])
    v = c @ to_aces.T
    fitted = (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.4329510) + 0.238081)
    return fitted @ from_aces.T


def agx(color) -> np.ndarray:
    c = np.asarray(color, dtype=np.float64)
    srgb_to_2020 = np.array([[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0113], [0.0164, 0.0880, 0.8956]])
    rec2020_to_srgb = np.array([[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083], [-0.0182, -0.1006, 1.1187]])
    # three.js writes these column by column; these are the rows.
    inset = np.array([[0.856627153315983, 0.0951212405381588, 0.0482516061458583],
                      [0.137318972929847, 0.761241990602591, 0.101439036467562],
                      [0.11189821299995, 0.0767994186031903, 0.811302368396859]])
    outset = np.array([[1.1271005818144368, -0.11060664309660323, -0.016493938717834573],
                       [-0.1413297634984383, 1.157823702216272, -0.016493938717834257],
                       [-0.14132976349843826, -0.11060664309660294, 1.2519364065950405]])
    v = c @ srgb_to_2020.T @ inset.T
    v = np.clip((np.log2(np.maximum(v, 1e-10)) + 12.47393) / (4.026069 + 12.47393), 0.0, 1.0)
    x2 = v * v
    x4 = x2 * x2
    v = 15.5 * x4 * x2 - 40.14 * x4 * v + 31.96 * x4 - 6.868 * x2 * v + 0.4298 * x2 + 0.1191 * v - 0.00232
    v = np.maximum(v @ outset.T, 0.0) ** 2.2
    return v @ rec2020_to_srgb.T


def reinhard(color) -> np.ndarray:
    c = np.asarray(color, dtype=np.float64)
    return c / (1.0 + c)


TONE_MAPPERS = {"pbr_neutral": pbr_neutral, "aces": aces_hill, "agx": agx, "reinhard": reinhard, "none": lambda c: np.asarray(c, dtype=np.float64)}


def display(tone_mapper: str, radiance, exposure_ev: float = 0.0) -> np.ndarray:
    """What the post pass should show: sRGB-encoded, clipped to [0, 1]."""
    mapped = TONE_MAPPERS[tone_mapper](np.asarray(radiance, dtype=np.float64) * 2.0**exposure_ev)
    return srgb_encode(np.clip(mapped, 0.0, 1.0))
