"""Test support: a metal lit by an environment, estimated by Monte Carlo from the glTF BRDF (numpy, float64).

Independent of the preview's image-based lighting (no prefiltered chain, no
split-sum table): for each shading point the integral of L(l) f(l, v) (n.l)
over the hemisphere is estimated with multiple importance sampling
(Veach 1997, balance heuristic) of the GGX distribution of half vectors and
of the environment's texels in proportion to their power. f is the glTF
2.0 Appendix B metal BRDF (GGX with alpha = roughness^2 floored at
pbr_reference.ALPHA_FLOOR, height-correlated Smith visibility, Schlick
Fresnel towards white), L the full-resolution environment at texel centres
(nearest texel).

`compensated` adds the multiple-scattering term the preview models
(Fdez-Agüera 2019, docs/lighting.md) from quantities estimated here: the
single-scattering directional albedo E_ss (F0 = 1) by the same GGX
sampling and the cosine-weighted irradiance by sampling the environment.
"""

from __future__ import annotations

import math

import numpy as np
from pbr_reference import ALPHA_FLOOR


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


class EnvironmentSampler:
    """An equirect image (GL row order: row 0 is the nadir; u = 0.5 is -z) as a light to sample and look up."""

    def __init__(self, radiance: np.ndarray) -> None:
        self.radiance = np.asarray(radiance, dtype=np.float64)[:, :, :3]
        self.height, self.width = self.radiance.shape[:2]
        edges = (np.arange(self.height + 1) / self.height - 0.5) * np.pi
        self.solid_angle = ((np.sin(edges[1:]) - np.sin(edges[:-1])) * (2.0 * np.pi / self.width))  # per row
        power = self.radiance.mean(axis=2) * self.solid_angle[:, None] + 1e-12
        self.probability = (power / power.sum()).reshape(-1)
        self.cumulative = np.cumsum(self.probability)
        self.cumulative /= self.cumulative[-1]

    def texel_of(self, direction: np.ndarray) -> np.ndarray:
        """Flat texel index of unit directions (..., 3)."""
        u = 0.5 + np.arctan2(direction[..., 0], -direction[..., 2]) / (2.0 * np.pi)
        t = 0.5 + np.arcsin(np.clip(direction[..., 1], -1.0, 1.0)) / np.pi
        column = np.clip((u * self.width).astype(np.int64), 0, self.width - 1)
        row = np.clip((t * self.height).astype(np.int64), 0, self.height - 1)
        return row * self.width + column

    def lookup(self, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(radiance (..., 3), pdf per solid angle (...)) of directions (..., 3)."""
        texel = self.texel_of(direction)
        row = texel // self.width
        return self.radiance.reshape(-1, 3)[texel], self.probability[texel] / self.solid_angle[row]

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Unit directions (*shape, 3), distributed as `probability` over texels and uniformly in solid angle within one
        (stratified along the last axis of `shape`)."""
        texel = np.minimum(np.searchsorted(self.cumulative, _stratified(rng, shape), side="right"), self.cumulative.size - 1)
        row, column = texel // self.width, texel % self.width
        u = (column + rng.random(shape)) / self.width
        # Uniform in solid angle within the row: uniform in sin(elevation).
        low = np.sin((row / self.height - 0.5) * np.pi)
        high = np.sin(((row + 1) / self.height - 0.5) * np.pi)
        sin_elevation = low + (high - low) * rng.random(shape)
        cos_elevation = np.sqrt(np.maximum(1.0 - sin_elevation**2, 0.0))
        azimuth = (u - 0.5) * 2.0 * np.pi
        return np.stack([cos_elevation * np.sin(azimuth), sin_elevation, -cos_elevation * np.cos(azimuth)], axis=-1)


def _stratified(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform numbers in [0, 1), one per stratum of [0, 1) along the last axis (in a random order)."""
    count = shape[-1]
    strata = rng.permuted(np.broadcast_to(np.arange(count), shape), axis=-1)
    return (strata + rng.random(shape)) / count


def _stratified_2d(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Jittered-grid pairs in [0, 1)^2 along the last axis of `shape` (its length a square)."""
    side = math.isqrt(shape[-1])
    if side * side != shape[-1]:
        raise ValueError(f"{shape[-1]} samples are not a square")
    cell = np.arange(shape[-1])
    return (cell // side + rng.random(shape)) / side, (cell % side + rng.random(shape)) / side


def _basis(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    helper = np.where(np.abs(n[..., 1:2]) < 0.9, np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]))
    tangent = _unit(np.cross(helper, n))
    return tangent, np.cross(n, tangent)


def _ggx(n_h: np.ndarray, alpha: float) -> np.ndarray:
    a2 = alpha * alpha
    return a2 * (n_h > 0) / (np.pi * (n_h * n_h * (a2 - 1.0) + 1.0) ** 2)


def _visibility(n_l: np.ndarray, n_v: np.ndarray, alpha: float) -> np.ndarray:
    a2 = alpha * alpha
    return 0.5 / (n_v * np.sqrt(a2 + (1 - a2) * n_l**2) + n_l * np.sqrt(a2 + (1 - a2) * n_v**2))


def metal_radiance(
    environment: EnvironmentSampler,
    normals: np.ndarray,
    views: np.ndarray,
    f0s: list[np.ndarray],
    roughness: float,
    rng: np.random.Generator,
    samples: int = 4096,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per point (points, 3) and per F0 in `f0s`: (single scattering, compensated) outgoing radiance.

    `samples` (a square) GGX samples on a jittered grid and as many
    stratified environment samples per point (MIS, balance heuristic):
    about 0.2 8-bit levels of noise per point at 4096.
    """
    chunks = [_metal_chunk(environment, normals[start : start + 16], views[start : start + 16], f0s, roughness, rng, samples)
              for start in range(0, len(normals), 16)]
    return ([np.concatenate([chunk[0][index] for chunk in chunks]) for index in range(len(f0s))],
            [np.concatenate([chunk[1][index] for chunk in chunks]) for index in range(len(f0s))])


def _metal_chunk(
    environment: EnvironmentSampler,
    normals: np.ndarray,
    views: np.ndarray,
    f0s: list[np.ndarray],
    roughness: float,
    rng: np.random.Generator,
    samples: int,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    n, v = _unit(np.asarray(normals, dtype=np.float64)), _unit(np.asarray(views, dtype=np.float64))
    points = n.shape[0]
    alpha = max(roughness * roughness, ALPHA_FLOOR)
    n_v = np.clip(np.sum(n * v, axis=-1), 1e-4, 1.0)[:, None]
    tangent, bitangent = _basis(n)

    # Strategy 1: GGX half vectors h with pdf D (n.h), l = reflect(-v, h); pdf(l) = D (n.h) / (4 v.h).
    xi1, xi2 = _stratified_2d(rng, (points, samples))
    cos_theta = np.sqrt((1.0 - xi1) / (1.0 + (alpha * alpha - 1.0) * xi1))
    sin_theta = np.sqrt(np.maximum(1.0 - cos_theta**2, 0.0))
    phi = 2.0 * np.pi * xi2
    h = (sin_theta * np.cos(phi))[..., None] * tangent[:, None] + (sin_theta * np.sin(phi))[..., None] * bitangent[:, None] \
        + cos_theta[..., None] * n[:, None]
    brdf_lights = 2.0 * np.sum(v[:, None] * h, axis=-1, keepdims=True) * h - v[:, None]
    # Strategy 2: environment texels by power.
    env_lights = environment.sample(rng, (points, samples))

    singles = [np.zeros((points, 3)) for _ in f0s]
    for lights in (brdf_lights, env_lights):
        half = _unit(lights + v[:, None])
        n_l = np.sum(n[:, None] * lights, axis=-1)
        n_h = np.sum(n[:, None] * half, axis=-1)
        v_h = np.clip(np.sum(v[:, None] * half, axis=-1), 1e-6, 1.0)
        distribution = _ggx(n_h, alpha)
        brdf_pdf = distribution * np.maximum(n_h, 0.0) / (4.0 * v_h)
        radiance, env_pdf = environment.lookup(lights)
        above = n_l > 0.0
        n_l_pos = np.where(above, n_l, 1.0)
        base = np.where(above, distribution * _visibility(n_l_pos, n_v, alpha) * n_l_pos / (brdf_pdf + env_pdf), 0.0)
        schlick = ((1.0 - v_h) ** 5)[..., None]
        for index, f0 in enumerate(f0s):
            fresnel = f0 + (1.0 - f0) * schlick
            singles[index] += np.sum(base[..., None] * fresnel * radiance, axis=1) / samples

    # Directional albedo with F0 = 1 (GGX samples alone: the integrand is smooth) and irradiance / pi.
    n_l = np.sum(n[:, None] * brdf_lights, axis=-1)
    half = h
    n_h = np.clip(np.sum(n[:, None] * half, axis=-1), 1e-6, 1.0)
    v_h = np.clip(np.sum(v[:, None] * half, axis=-1), 1e-6, 1.0)
    weight = np.where(n_l > 0.0, _visibility(np.maximum(n_l, 1e-6), n_v, alpha) * np.maximum(n_l, 0.0) * 4.0 * v_h / n_h, 0.0)
    schlick = (1.0 - v_h) ** 5
    scale, bias = np.mean(weight * (1.0 - schlick), axis=1), np.mean(weight * schlick, axis=1)
    radiance, env_pdf = environment.lookup(env_lights)
    cosine = np.maximum(np.sum(n[:, None] * env_lights, axis=-1), 0.0)
    irradiance_over_pi = np.mean(radiance * (cosine / env_pdf)[..., None], axis=1) / np.pi
    compensated = []
    for f0, single in zip(f0s, singles, strict=True):
        e_ss = (scale + bias)[:, None]
        fss_ess = f0 * scale[:, None] + bias[:, None]
        e_ms = 1.0 - e_ss
        f_avg = f0 + (1.0 - f0) / 21.0
        f_ms = fss_ess * f_avg / (1.0 - e_ms * f_avg)
        compensated.append(single + f_ms * e_ms * irradiance_over_pi)
    return singles, compensated


def f82_tint(cosine: np.ndarray, f0: np.ndarray, tint: np.ndarray) -> np.ndarray:
    """OpenPBR 1.1's metal Fresnel (Hoffman 2023, "F82-tint"): Schlick's F(μ) minus b μ (1 − μ)⁶, b chosen so that
    F(μ̄) = tint · Schlick(μ̄) at μ̄ = 1/7. (..., 1) cosines, (3,) colours."""
    mu_bar = 1.0 / 7.0
    schlick_bar = f0 + (1.0 - f0) * (1.0 - mu_bar) ** 5
    b = schlick_bar * (1.0 - tint) / (mu_bar * (1.0 - mu_bar) ** 6)
    mu = np.clip(cosine, 0.0, 1.0)
    return np.asarray(f0 + (1.0 - f0) * (1.0 - mu) ** 5 - b * mu * (1.0 - mu) ** 6)


def _anisotropic_ggx(h_t: np.ndarray, h_b: np.ndarray, h_n: np.ndarray, alpha_t: float, alpha_b: float) -> np.ndarray:
    """D(h) of GGX with roughnesses α_t along the tangent and α_b across it (Heitz 2014, eq. 85)."""
    base = (h_t / alpha_t) ** 2 + (h_b / alpha_b) ** 2 + h_n**2
    return np.asarray((h_n > 0) / (np.pi * alpha_t * alpha_b * base**2))


def _anisotropic_lambda_root(d_t: np.ndarray, d_b: np.ndarray, d_n: np.ndarray, alpha_t: float, alpha_b: float) -> np.ndarray:
    """√((α_t d_t)² + (α_b d_b)² + d_n²): 2 Λ(d) d_n + d_n of the anisotropic Smith masking."""
    return np.asarray(np.sqrt((alpha_t * d_t) ** 2 + (alpha_b * d_b) ** 2 + d_n**2))


def openpbr_metal_radiance(
    environment: EnvironmentSampler,
    normals: np.ndarray,
    views: np.ndarray,
    tangents: np.ndarray,
    color: np.ndarray,
    tint: np.ndarray,
    alpha: tuple[float, float],
    rng: np.random.Generator,
    samples: int = 4096,
) -> tuple[np.ndarray, np.ndarray]:
    """(single scattering, compensated) outgoing radiance (points, 3) of OpenPBR 1.1's metal lobe per point (normals, views,
    tangents: (points, 3)): GGX of (α_t, α_b) along the tangent (the specification's `specular_roughness_anisotropy`
    mapping gives them), height-correlated anisotropic Smith masking-shadowing, F82-tint Fresnel with F0 `color`
    and tint `tint`. `samples` (a square) half vectors drawn from D (n.h) (the α = 1 slopes on a jittered grid,
    stretched by α_t and α_b) and as many environment samples per point, multiple importance sampling (balance
    heuristic) as `metal_radiance`; compensated adds the multiple-scattering term the preview models, as
    `metal_radiance` does."""
    chunks = [_openpbr_metal_chunk(environment, normals[start : start + 16], views[start : start + 16], tangents[start : start + 16],
                                   np.asarray(color, dtype=np.float64), np.asarray(tint, dtype=np.float64), alpha, rng, samples)
              for start in range(0, len(normals), 16)]
    joined = np.concatenate(chunks, axis=1)
    return joined[0], joined[1]


def _openpbr_metal_chunk(environment: EnvironmentSampler, normals: np.ndarray, views: np.ndarray, tangents: np.ndarray,
                         color: np.ndarray, tint: np.ndarray, alpha: tuple[float, float], rng: np.random.Generator,
                         samples: int) -> np.ndarray:
    alpha_t, alpha_b = alpha
    n, v = _unit(np.asarray(normals, dtype=np.float64)), _unit(np.asarray(views, dtype=np.float64))
    t = np.asarray(tangents, dtype=np.float64)
    t = _unit(t - n * np.sum(n * t, axis=-1, keepdims=True))
    b = np.cross(n, t)
    points = n.shape[0]
    n_v = np.clip(np.sum(n * v, axis=-1), 1e-4, 1.0)[:, None]
    v_t, v_b = np.sum(v * t, axis=-1)[:, None], np.sum(v * b, axis=-1)[:, None]

    # Strategy 1: slopes of the α = 1 GGX (radius √(ξ1 / (1 − ξ1))) stretched by (α_t, α_b): h with pdf D (n.h).
    xi1, xi2 = _stratified_2d(rng, (points, samples))
    radius = np.sqrt(xi1 / np.maximum(1.0 - xi1, 1e-12))
    phi = 2.0 * np.pi * xi2
    slope_t, slope_b = alpha_t * radius * np.cos(phi), alpha_b * radius * np.sin(phi)
    h = _unit(slope_t[..., None] * t[:, None] + slope_b[..., None] * b[:, None] + n[:, None])
    brdf_lights = 2.0 * np.sum(v[:, None] * h, axis=-1, keepdims=True) * h - v[:, None]
    # Strategy 2: environment texels by power.
    env_lights = environment.sample(rng, (points, samples))

    single = np.zeros((points, 3))
    for lights in (brdf_lights, env_lights):
        half = _unit(lights + v[:, None])
        n_l = np.sum(n[:, None] * lights, axis=-1)
        h_n = np.sum(n[:, None] * half, axis=-1)
        v_h = np.clip(np.sum(v[:, None] * half, axis=-1), 1e-9, 1.0)
        distribution = _anisotropic_ggx(np.sum(t[:, None] * half, axis=-1), np.sum(b[:, None] * half, axis=-1), h_n, alpha_t, alpha_b)
        brdf_pdf = distribution * np.maximum(h_n, 0.0) / (4.0 * v_h)
        radiance, env_pdf = environment.lookup(lights)
        above = n_l > 0.0
        n_l_pos = np.where(above, n_l, 1.0)
        l_root = _anisotropic_lambda_root(np.sum(t[:, None] * lights, axis=-1), np.sum(b[:, None] * lights, axis=-1), n_l_pos,
                                          alpha_t, alpha_b)
        v_root = _anisotropic_lambda_root(v_t, v_b, n_v, alpha_t, alpha_b)
        visibility = 0.5 / (n_l_pos * v_root + n_v * l_root)
        weight = np.where(above, distribution * visibility * n_l_pos / (brdf_pdf + env_pdf), 0.0)
        fresnel = f82_tint(v_h[..., None], color, tint)
        single += np.sum(weight[..., None] * fresnel * radiance, axis=1) / samples

    # The multiple-scattering term the preview adds (as `metal_radiance`'s, with Schlick's F0 = `color`): the lobe's
    # albedo split by Schlick's weight from the GGX samples alone, the irradiance / π from the environment's.
    n_l = np.sum(n[:, None] * brdf_lights, axis=-1)
    h_n = np.clip(np.sum(n[:, None] * h, axis=-1), 1e-6, 1.0)
    v_h = np.clip(np.sum(v[:, None] * h, axis=-1), 1e-6, 1.0)
    n_l_pos = np.maximum(n_l, 1e-6)
    l_root = _anisotropic_lambda_root(np.sum(t[:, None] * brdf_lights, axis=-1), np.sum(b[:, None] * brdf_lights, axis=-1), n_l_pos,
                                      alpha_t, alpha_b)
    visibility = 0.5 / (n_l_pos * _anisotropic_lambda_root(v_t, v_b, n_v, alpha_t, alpha_b) + n_v * l_root)
    weight = np.where(n_l > 0.0, visibility * n_l_pos * 4.0 * v_h / h_n, 0.0)
    schlick = (1.0 - v_h) ** 5
    scale, bias = np.mean(weight * (1.0 - schlick), axis=1)[:, None], np.mean(weight * schlick, axis=1)[:, None]
    radiance, env_pdf = environment.lookup(env_lights)
    cosine = np.maximum(np.sum(n[:, None] * env_lights, axis=-1), 0.0)
    irradiance_over_pi = np.mean(radiance * (cosine / env_pdf)[..., None], axis=1) / np.pi
    e_ms = 1.0 - (scale + bias)
    f_avg = color + (1.0 - color) / 21.0
    f_ms = (color * scale + bias) * f_avg / (1.0 - e_ms * f_avg)
    return np.stack([single, single + f_ms * e_ms * irradiance_over_pi])


def fresnel_dielectric(cosine: np.ndarray, eta: float) -> np.ndarray:
    """The exact unpolarised Fresnel reflectance of a dielectric interface of relative IOR `eta`."""
    c = np.clip(cosine, 0.0, 1.0)
    g = np.sqrt(np.maximum(eta * eta - 1.0 + c * c, 0.0))
    return np.asarray(0.5 * ((g - c) / (g + c)) ** 2 * (1.0 + ((c * (g + c) - 1.0) / (c * (g - c) + 1.0)) ** 2))


def coat_radiance(environment: EnvironmentSampler, normals: np.ndarray, views: np.ndarray, ior: float, roughness: float,
                  rng: np.random.Generator, samples: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """(radiance (points, 3), directional albedo (points, 1)) of a GGX dielectric reflection lobe (α = roughness²,
    height-correlated Smith, exact Fresnel of `ior`): OpenPBR's coat, estimated from `samples` (a square) half
    vectors drawn from D (n.h) on a jittered grid (the lobe is narrow enough for them alone)."""
    n, v = _unit(np.asarray(normals, dtype=np.float64)), _unit(np.asarray(views, dtype=np.float64))
    alpha = max(roughness * roughness, ALPHA_FLOOR)
    n_v = np.clip(np.sum(n * v, axis=-1), 1e-4, 1.0)[:, None]
    tangent, bitangent = _basis(n)
    xi1, xi2 = _stratified_2d(rng, (n.shape[0], samples))
    cos_theta = np.sqrt((1.0 - xi1) / (1.0 + (alpha * alpha - 1.0) * xi1))
    sin_theta = np.sqrt(np.maximum(1.0 - cos_theta**2, 0.0))
    phi = 2.0 * np.pi * xi2
    h = (sin_theta * np.cos(phi))[..., None] * tangent[:, None] + (sin_theta * np.sin(phi))[..., None] * bitangent[:, None] \
        + cos_theta[..., None] * n[:, None]
    v_h = np.sum(v[:, None] * h, axis=-1)
    lights = 2.0 * v_h[..., None] * h - v[:, None]
    n_l = np.sum(n[:, None] * lights, axis=-1)
    n_l_pos = np.maximum(n_l, 1e-6)
    # f n.l / pdf = F D Vis n.l 4 v.h / (D n.h) = F Vis n.l 4 v.h / n.h.
    weight = np.where((n_l > 0.0) & (v_h > 0.0),
                      fresnel_dielectric(v_h, ior) * _visibility(n_l_pos, n_v, alpha) * n_l_pos * 4.0 * np.maximum(v_h, 0.0) / cos_theta, 0.0)
    radiance, _ = environment.lookup(lights)
    return np.mean(weight[..., None] * radiance, axis=1), np.mean(weight, axis=1)[:, None]
