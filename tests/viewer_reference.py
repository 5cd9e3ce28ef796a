"""Test support: glTF's BRDF and its extensions' formulas evaluated in numpy on pixels of the preview's default view.

Used by tests/app/export/test_gltf_sample_viewer.py to tell which of the preview and the Khronos Sample Viewer
is off where they differ. The pixels are the default camera's (+z at `DEFAULT_DISTANCE`, `DEFAULT_FIELD_OF_VIEW`
vertically, top row first) on the unit sphere; the light is the studio environment at full resolution
(`app.preview.ibl.background_radiance`), not either renderer's prefiltered maps.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from app.preview import ibl
from app.preview.camera import DEFAULT_DISTANCE, DEFAULT_FIELD_OF_VIEW


def srgb_8bit(linear: np.ndarray) -> np.ndarray:
    value = np.clip(linear, 0.0, 1.0)
    return np.asarray(np.round(np.where(value <= 0.0031308, 12.92 * value, 1.055 * value ** (1 / 2.4) - 0.055) * 255.0))


def sphere_pixels(size: int, step: int, facing: float) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """(row, column, unit normal, unit view direction) of every `step`-th pixel on the sphere with N·V >= `facing`."""
    eye = np.array([0.0, 0.0, DEFAULT_DISTANCE])
    tan_half = math.tan(math.radians(DEFAULT_FIELD_OF_VIEW) / 2.0)
    for row in range(step // 2, size, step):
        for column in range(step // 2, size, step):
            ray = np.array([((column + 0.5) / size * 2.0 - 1.0) * tan_half, (1.0 - (row + 0.5) / size * 2.0) * tan_half, -1.0])
            ray /= np.linalg.norm(ray)
            half_b, c = float(eye @ ray), float(eye @ eye) - 1.0
            if half_b * half_b - c <= 0.0:
                continue
            normal = eye + (-half_b - math.sqrt(half_b * half_b - c)) * ray
            normal /= np.linalg.norm(normal)
            if float(normal @ -ray) >= facing:
                yield row, column, normal, -ray


def _smith_lambda(local: np.ndarray, alpha_t: float, alpha_b: float) -> np.ndarray:
    z2 = np.maximum(local[..., 2] ** 2, 1e-12)
    return np.asarray((-1.0 + np.sqrt(1.0 + (alpha_t**2 * local[..., 0] ** 2 + alpha_b**2 * local[..., 1] ** 2) / z2)) / 2.0)


def anisotropic_metal(radiance: np.ndarray, normal: np.ndarray, view: np.ndarray, f0: np.ndarray, roughness: float,
                      strength: float, rng: np.random.Generator, count: int = 20000) -> np.ndarray:
    """Linear radiance of a KHR_materials_anisotropy metal (rotation 0) on the unit sphere's mesh tangent.

    α = roughness², α_t = mix(α, 1, strength²) along the tangent, α_b = α; anisotropic GGX with height-correlated
    Smith, Schlick's Fresnel from `f0`. Visible normals sampled as Heitz (2018): the estimator is F G2 / G1.
    The preview sphere's tangent is horizontal, along +y × n (`app.preview.mesh.uv_sphere`).
    """
    alpha = roughness * roughness
    alpha_t, alpha_b = alpha + (1.0 - alpha) * strength * strength, alpha
    tangent = np.cross([0.0, 1.0, 0.0], normal)
    tangent /= np.linalg.norm(tangent)
    frame = np.stack([tangent, np.cross(normal, tangent), normal])
    local_view = frame @ view
    stretched = np.array([alpha_t * local_view[0], alpha_b * local_view[1], local_view[2]])
    stretched /= np.linalg.norm(stretched)
    length2 = stretched[0] ** 2 + stretched[1] ** 2
    t1_axis = np.array([-stretched[1], stretched[0], 0.0]) / math.sqrt(length2) if length2 > 0.0 else np.array([1.0, 0.0, 0.0])
    t2_axis = np.cross(stretched, t1_axis)
    radius, phi = np.sqrt(rng.random(count)), 2.0 * math.pi * rng.random(count)
    t1, t2 = radius * np.cos(phi), radius * np.sin(phi)
    blend = 0.5 * (1.0 + stretched[2])
    t2 = (1.0 - blend) * np.sqrt(1.0 - t1 * t1) + blend * t2
    visible = t1[:, None] * t1_axis + t2[:, None] * t2_axis + np.sqrt(np.maximum(0.0, 1.0 - t1 * t1 - t2 * t2))[:, None] * stretched
    half = np.stack([alpha_t * visible[:, 0], alpha_b * visible[:, 1], np.maximum(1e-6, visible[:, 2])], axis=1)
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    v_dot_h = half @ local_view
    light = 2.0 * v_dot_h[:, None] * half - local_view
    lambda_v = _smith_lambda(local_view, alpha_t, alpha_b)
    weight = (1.0 + lambda_v) / (1.0 + lambda_v + _smith_lambda(light, alpha_t, alpha_b))  # G2 / G1
    fresnel = f0 + (1.0 - f0) * ((1.0 - np.clip(v_dot_h, 0.0, 1.0)) ** 5)[:, None]
    weighted = np.where(light[:, 2] > 0.0, weight, 0.0)[:, None] * fresnel
    return np.asarray((ibl.background_radiance(radiance, light @ frame)[:, :3].astype(np.float64) * weighted).mean(axis=0))


def metal_rough(radiance: np.ndarray, normal: np.ndarray, view: np.ndarray, base: np.ndarray, metallic: float,
                roughness: float, rng: np.random.Generator, count: int = 20000) -> np.ndarray:
    """Linear radiance of glTF's metallic-roughness BRDF: the specular as `anisotropic_metal` with strength 0 and
    F0 = mix(0.04, base, metallic), plus the diffuse (1 − F(N·V)) (1 − metallic) base × irradiance / π, the
    irradiance by cosine-weighted samples of the environment."""
    f0 = 0.04 * (1.0 - metallic) + np.asarray(base) * metallic
    specular = anisotropic_metal(radiance, normal, view, f0, roughness, 0.0, rng, count)
    hint = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x_axis = hint - normal * (hint @ normal)
    x_axis /= np.linalg.norm(x_axis)
    y_axis = np.cross(normal, x_axis)
    u1, phi = rng.random(count), 2.0 * math.pi * rng.random(count)
    light = ((np.sqrt(u1) * np.cos(phi))[:, None] * x_axis + (np.sqrt(u1) * np.sin(phi))[:, None] * y_axis
             + np.sqrt(1.0 - u1)[:, None] * normal)
    irradiance_over_pi = ibl.background_radiance(radiance, light)[:, :3].astype(np.float64).mean(axis=0)
    fresnel = 0.04 + 0.96 * (1.0 - float(normal @ view)) ** 5
    return np.asarray(specular + (1.0 - fresnel) * (1.0 - metallic) * np.asarray(base) * irradiance_over_pi)


def thin_smooth_dielectric(radiance: np.ndarray, normal: np.ndarray, view: np.ndarray, ior: float) -> np.ndarray:
    """Linear radiance of a smooth, clear, thin-walled transmissive dielectric (KHR_materials_transmission
    without KHR_materials_volume): delta lobes, (1 − F) L(−v) + F L(reflect), Schlick's F from the IOR."""
    f0 = ((ior - 1.0) / (ior + 1.0)) ** 2
    n_dot_v = float(normal @ view)
    fresnel = f0 + (1.0 - f0) * (1.0 - n_dot_v) ** 5
    reflected = 2.0 * n_dot_v * normal - view
    through = ibl.background_radiance(radiance, -view[None])[0, :3]
    mirrored = ibl.background_radiance(radiance, reflected[None])[0, :3]
    return np.asarray((1.0 - fresnel) * through + fresnel * mirrored, dtype=np.float64)


def _sheen_lambda(cosine: np.ndarray, alpha: float) -> np.ndarray:
    """Estevez and Kulla's fitted Λ of the Charlie sheen (KHR_materials_sheen's visibility)."""

    def fit(x: np.ndarray) -> np.ndarray:
        t = (1.0 - alpha) ** 2
        a, b, c = 21.5473 + (25.3245 - 21.5473) * t, 3.82987 + (3.32435 - 3.82987) * t, 0.19823 + (0.16801 - 0.19823) * t
        d, e = -1.97760 + (-1.27393 + 1.97760) * t, -4.32054 + (-4.85967 + 4.32054) * t
        return np.asarray(a / (1.0 + b * np.power(x, c)) + d * x + e)

    cosine = np.abs(cosine)
    return np.asarray(np.where(cosine < 0.5, np.exp(fit(cosine)), np.exp(2.0 * fit(np.asarray(0.5)) - fit(1.0 - cosine))))


def sheen_over_base(radiance: np.ndarray, normal: np.ndarray, view: np.ndarray, color: np.ndarray, roughness: float,
                    base: np.ndarray, rng: np.random.Generator, count: int = 40000) -> np.ndarray:
    """Linear radiance of KHR_materials_sheen over a base whose radiance is `base`: the sheen lobe (Charlie
    D with α = roughness², Estevez and Kulla's V) integrated against the environment with cosine-weighted samples,
    plus the base scaled by 1 − max(color) E(N·V), E the lobe's directional albedo from the same samples."""
    alpha = roughness * roughness
    hint = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x_axis = hint - normal * (hint @ normal)
    x_axis /= np.linalg.norm(x_axis)
    y_axis = np.cross(normal, x_axis)
    u1, phi = rng.random(count), 2.0 * math.pi * rng.random(count)
    radius = np.sqrt(u1)
    light = (radius * np.cos(phi))[:, None] * x_axis + (radius * np.sin(phi))[:, None] * y_axis + np.sqrt(1.0 - u1)[:, None] * normal
    n_dot_l, n_dot_v = light @ normal, float(normal @ view)
    half = light + view
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    sin2 = np.maximum(1.0 - (half @ normal) ** 2, 0.0)
    distribution = (2.0 + 1.0 / alpha) * np.power(sin2, 0.5 / alpha) / (2.0 * math.pi)
    visibility = np.clip(1.0 / ((1.0 + _sheen_lambda(np.asarray(n_dot_v), alpha) + _sheen_lambda(n_dot_l, alpha))
                                * 4.0 * n_dot_v * np.maximum(n_dot_l, 1e-6)), 0.0, 1.0)
    weight = distribution * visibility * math.pi  # f cos θ / pdf, pdf = cos θ / π
    lobe = (ibl.background_radiance(radiance, light)[:, :3].astype(np.float64) * weight[:, None]).mean(axis=0)
    return np.asarray(color * lobe + (1.0 - float(np.max(color)) * float(weight.mean())) * base)


def linear_of_8bit(pixels: np.ndarray) -> np.ndarray:
    value = np.asarray(pixels, dtype=np.float64) / 255.0
    return np.asarray(np.where(value <= 0.04045, value / 12.92, ((value + 0.055) / 1.055) ** 2.4))
