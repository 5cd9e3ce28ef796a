"""Test support: OpenPBR's scattering transmission medium in the preview's sphere, by a volumetric random walk in numpy.

Written from OpenPBR Surface 1.1, "Transmission", not from the shader: the
medium inside a solid (not thin-walled) dielectric has extinction
μ_t = −ln(transmission_color) / transmission_depth and scattering
coefficient μ_s = transmission_scatter / transmission_depth; the absorption
μ_a = μ_t − μ_s is shifted up by its most negative channel when it has one
(so it is never negative) and μ_t recomputed as μ_a + μ_s. Scattering
follows the Henyey-Greenstein phase function with
g = transmission_scatter_anisotropy.

The walk: a camera ray hits the unit sphere at the origin (the preview's
sphere) and is split exactly at the smooth surface into the Fresnel
reflection and the refracted ray. Inside, free flights are sampled by μ_s
(grey, so one path serves the three channels) with the absorption applied
as the weight exp(−μ_a s); at the boundary each path is reflected (with the
Fresnel probability, always under total internal reflection) or refracted
out, where it reads the full-resolution equirect environment. So the
estimate carries none of the preview's prefiltering, split-sum or chord
approximations.
"""

from __future__ import annotations

import math

import numpy as np

from app.preview import ibl

ENVIRONMENT = "studio"
#: Paths per pixel.
PATHS = 6000
#: A path still inside after this many boundary or scattering events is dropped (its weight is negligible then).
MAX_EVENTS = 400
#: The cases: OpenPBR Surface properties of smooth, solid, fully transmissive media.
CASES: dict[str, dict[str, object]] = {
    # MaterialX's open_pbr_honey example.
    "honey": {"specular_roughness": 0.0, "specular_ior": 1.504, "transmission_weight": 1.0,
              "transmission_color": (0.83, 0.4, 0.04, 1.0), "transmission_depth": 2.0,
              "transmission_scatter": (0.9, 0.9, 0.9, 1.0)},
    "milky, isotropic": {"specular_roughness": 0.0, "specular_ior": 1.5, "transmission_weight": 1.0,
                         "transmission_color": (0.9, 0.85, 0.7, 1.0), "transmission_depth": 0.5,
                         "transmission_scatter": (1.0, 1.0, 1.0, 1.0)},
    "milky, forward": {"specular_roughness": 0.0, "specular_ior": 1.5, "transmission_weight": 1.0,
                       "transmission_color": (0.9, 0.85, 0.7, 1.0), "transmission_depth": 0.5,
                       "transmission_scatter": (1.0, 1.0, 1.0, 1.0), "transmission_scatter_anisotropy": 0.8},
}


def coefficients(properties: dict[str, object]) -> tuple[np.ndarray, float]:
    """(μ_a per channel, μ_s) of a case's medium, per scene unit (the specification's shift of negative μ_a)."""
    depth = float(properties["transmission_depth"])  # type: ignore[arg-type]
    color = np.clip(np.asarray(properties["transmission_color"], dtype=np.float64)[:3], 1e-4, 1.0)
    scatter = np.asarray(properties["transmission_scatter"], dtype=np.float64)[:3]
    assert np.all(scatter == scatter[0]), "the walk samples a grey scattering coefficient"
    extinction = -np.log(color) / depth
    sigma_s = float(scatter[0]) / depth
    absorption = extinction - sigma_s
    absorption -= min(float(absorption.min()), 0.0)
    return absorption, sigma_s


def _fresnel(cosine: np.ndarray, eta: np.ndarray | float) -> np.ndarray:
    """Unpolarised Fresnel reflectance for the relative IOR η (transmitted side over incident side); 1 under TIR."""
    c = np.clip(cosine, 0.0, 1.0)
    g_squared = eta * eta - 1.0 + c * c
    g = np.sqrt(np.maximum(g_squared, 0.0))
    value = 0.5 * ((g - c) / (g + c + 1e-12)) ** 2 * (1.0 + ((c * (g + c) - 1.0) / (c * (g - c) + 1.0)) ** 2)
    return np.where(g_squared <= 0.0, 1.0, value)


def _refract(direction: np.ndarray, normal: np.ndarray, eta_ratio: float) -> np.ndarray:
    """GLSL's refract(I, N, eta) per row (`normal` facing against `direction`); no TIR rows are passed."""
    cosine = -np.einsum("ij,ij->i", direction, normal)
    k = 1.0 - eta_ratio * eta_ratio * (1.0 - cosine * cosine)
    return np.asarray(eta_ratio * direction + (eta_ratio * cosine - np.sqrt(np.maximum(k, 0.0)))[:, None] * normal)


def _henyey_greenstein(direction: np.ndarray, g: float, rng: np.random.Generator) -> np.ndarray:
    count = len(direction)
    u = rng.random(count)
    if abs(g) < 1e-3:
        cosine = 1.0 - 2.0 * u
    else:
        cosine = (1.0 + g * g - ((1.0 - g * g) / (1.0 - g + 2.0 * g * u)) ** 2) / (2.0 * g)
    cosine = np.clip(cosine, -1.0, 1.0)
    sine = np.sqrt(1.0 - cosine * cosine)
    phi = 2.0 * math.pi * rng.random(count)
    helper = np.where(np.abs(direction[:, :1]) < 0.9, np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]))
    x = np.cross(helper, direction)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.cross(direction, x)
    return np.asarray((sine * np.cos(phi))[:, None] * x + (sine * np.sin(phi))[:, None] * y + cosine[:, None] * direction)


def estimate(case: str, radiance: np.ndarray, normal: np.ndarray, view: np.ndarray, rng: np.random.Generator,
             paths: int = PATHS) -> np.ndarray:
    """Linear radiance towards `view` from the unit sphere's point `normal`, lit by the equirect `radiance`."""
    properties = CASES[case]
    eta = float(properties["specular_ior"])  # type: ignore[arg-type]
    g = float(properties.get("transmission_scatter_anisotropy", 0.0))  # type: ignore[arg-type]
    absorption, sigma_s = coefficients(properties)
    incoming = -view
    cosine = float(normal @ view)
    entry_fresnel = float(_fresnel(np.array([cosine]), eta)[0])
    reflected = incoming + 2.0 * cosine * normal
    result = entry_fresnel * ibl.background_radiance(radiance, reflected[None, :]).astype(np.float64)[0]

    position = np.tile(normal, (paths, 1))
    direction = np.tile(_refract(incoming[None, :], normal[None, :], 1.0 / eta)[0], (paths, 1))
    weight = np.full((paths, 3), 1.0 - entry_fresnel)
    exited = np.zeros(3)
    for _ in range(MAX_EVENTS):
        if len(position) == 0:
            break
        # Distance to the sphere along the direction from inside: t = −b + sqrt(b² − c), b = x·w, c = |x|² − 1.
        b = np.einsum("ij,ij->i", position, direction)
        c = np.einsum("ij,ij->i", position, position) - 1.0
        to_boundary = -b + np.sqrt(np.maximum(b * b - c, 0.0))
        flight = rng.exponential(1.0 / sigma_s, len(position)) if sigma_s > 0.0 else np.full(len(position), np.inf)
        scatters = flight < to_boundary
        step = np.where(scatters, flight, to_boundary)
        position = position + step[:, None] * direction
        weight = weight * np.exp(-absorption[None, :] * step[:, None])
        new_direction = direction.copy()
        if np.any(scatters):
            new_direction[scatters] = _henyey_greenstein(direction[scatters], g, rng)
        hits = ~scatters
        leaving = np.zeros(len(position), dtype=bool)
        if np.any(hits):
            outward = position[hits] / np.linalg.norm(position[hits], axis=1, keepdims=True)
            cos_inside = np.einsum("ij,ij->i", direction[hits], outward)
            reflectance = _fresnel(cos_inside, 1.0 / eta)
            out = rng.random(len(cos_inside)) >= reflectance
            mirrored = direction[hits] - 2.0 * cos_inside[:, None] * outward
            refracted = np.zeros_like(mirrored)
            if np.any(out):
                refracted[out] = _refract(direction[hits][out], -outward[out], eta)
                refracted[out] /= np.linalg.norm(refracted[out], axis=1, keepdims=True)
                seen = ibl.background_radiance(radiance, refracted[out]).astype(np.float64)
                exited += (weight[hits][out] * seen).sum(axis=0)
            new_direction[hits] = np.where(out[:, None], refracted, mirrored)
            leaving[np.nonzero(hits)[0][out]] = True
            # Keep the point a hair inside so the next flight starts in the medium.
            position[hits] = outward * (1.0 - 1e-9)
        keep = ~leaving
        position, direction, weight = position[keep], new_direction[keep], weight[keep]
    return np.asarray(result + exited / paths)
