"""Test support: a rough glass sphere by Monte Carlo path tracing in numpy, written from the microfacet BTDF.

The object is the preview's unit sphere of a solid dielectric of IOR η
whose surface is a GGX microfacet interface of roughness r (α = r²) on both
sides (Walter et al. 2007, "Microfacet Models for Refraction through Rough
Surfaces", as OpenPBR's and Standard Surface's specular BTDF). A camera ray
meets the sphere; at every boundary event a microfacet normal is drawn from
the GGX distribution of visible normals of the arriving direction (Heitz
2018), the ray is reflected with the exact unpolarised Fresnel probability
of that microfacet (always under total internal reflection) or refracted
through it, and the path weight is multiplied by Smith's G1 of the new
direction (the separable masking-shadowing's G2 / G1 for a VNDF sample).
A path that leaves the sphere reads the full-resolution equirect
environment; one that refracted into the sphere is multiplied by
`tint` once (transmission_color at depth 0, as both renderers apply it:
a colour of the surface's transmission, not an absorbing medium). Paths
still inside after `MAX_EVENTS` events are dropped. With roughness 0 this
is the delta-lobe ray tracer (exact Fresnel at each interface, every
internal reflection followed), so it carries none of the preview's
prefiltering or MaterialX's filtered importance sampling.
"""

from __future__ import annotations

import numpy as np

from app.preview import ibl

#: Boundary events followed per path (entry, exit and internal reflections): the weight left after 12 is below
#: 1e-6 for IOR 1.5 but in the sphere's rare total-internal-reflection orbits.
MAX_EVENTS = 100


def fresnel(cosine: np.ndarray, eta: np.ndarray | float) -> np.ndarray:
    """Unpolarised Fresnel reflectance for the relative IOR η (transmitted side over incident side); 1 under TIR."""
    c = np.clip(cosine, 0.0, 1.0)
    g_squared = eta * eta - 1.0 + c * c
    g = np.sqrt(np.maximum(g_squared, 0.0))
    value = 0.5 * ((g - c) / (g + c + 1e-12)) ** 2 * (1.0 + ((c * (g + c) - 1.0) / (c * (g - c) + 1.0 + 1e-12)) ** 2)
    return np.asarray(np.where(g_squared <= 0.0, 1.0, value))


def _basis(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    helper = np.where(np.abs(normal[:, :1]) < 0.9, np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]))
    x = np.cross(helper, normal)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x, np.cross(normal, x)


def smith_g1(cosine: np.ndarray, alpha: float) -> np.ndarray:
    """GGX Smith masking of a direction at `cosine` to the macro normal (0 at or below the horizon)."""
    c = np.clip(cosine, 1e-9, 1.0)
    tan2 = (1.0 - c * c) / (c * c)
    return np.asarray(np.where(cosine > 0.0, 2.0 / (1.0 + np.sqrt(1.0 + alpha * alpha * tan2)), 0.0))


def sample_visible_normal(towards: np.ndarray, normal: np.ndarray, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Microfacet normals (k, 3) drawn from GGX's distribution of normals visible from the unit directions `towards`
    (on the side of the unit `normal`), Heitz 2018's stretched hemisphere."""
    x, y = _basis(normal)
    local = np.stack([np.einsum("ij,ij->i", towards, x), np.einsum("ij,ij->i", towards, y),
                      np.einsum("ij,ij->i", towards, normal)], axis=1)
    stretched = local * np.array([[alpha, alpha, 1.0]])
    stretched /= np.linalg.norm(stretched, axis=1, keepdims=True)
    lensq = stretched[:, 0] ** 2 + stretched[:, 1] ** 2
    t1 = np.where(lensq[:, None] > 1e-12,
                  np.stack([-stretched[:, 1], stretched[:, 0], np.zeros(len(local))], axis=1) / np.sqrt(np.maximum(lensq, 1e-12))[:, None],
                  np.array([[1.0, 0.0, 0.0]]))
    t2 = np.cross(stretched, t1)
    u1, u2 = rng.random(len(local)), rng.random(len(local))
    radius, phi = np.sqrt(u1), 2.0 * np.pi * u2
    p1, p2 = radius * np.cos(phi), radius * np.sin(phi)
    s = 0.5 * (1.0 + stretched[:, 2])
    p2 = (1.0 - s) * np.sqrt(np.maximum(1.0 - p1 * p1, 0.0)) + s * p2
    h = p1[:, None] * t1 + p2[:, None] * t2 + np.sqrt(np.maximum(1.0 - p1 * p1 - p2 * p2, 0.0))[:, None] * stretched
    m_local = np.stack([alpha * h[:, 0], alpha * h[:, 1], np.maximum(h[:, 2], 1e-9)], axis=1)
    m_local /= np.linalg.norm(m_local, axis=1, keepdims=True)
    return np.asarray(m_local[:, :1] * x + m_local[:, 1:2] * y + m_local[:, 2:] * normal)


def _scatter(direction: np.ndarray, normal: np.ndarray, eta: float, alpha: float,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One boundary event of rays arriving along `direction` at a surface whose unit `normal` faces them, from a
    side of IOR 1 into one of relative IOR `eta`: (new directions, refracted?, path weights)."""
    if alpha > 0.0:
        micro = sample_visible_normal(-direction, normal, alpha, rng)
    else:
        micro = normal
    cosine = -np.einsum("ij,ij->i", direction, micro)
    reflectance = fresnel(cosine, eta)
    refracted = rng.random(len(direction)) >= reflectance
    reflected_direction = direction + 2.0 * cosine[:, None] * micro
    ratio = 1.0 / eta
    k = np.maximum(1.0 - ratio * ratio * (1.0 - cosine * cosine), 0.0)
    refracted_direction = ratio * direction + (ratio * cosine - np.sqrt(k))[:, None] * micro
    new = np.where(refracted[:, None], refracted_direction, reflected_direction)
    new /= np.linalg.norm(new, axis=1, keepdims=True)
    # Reflection stays on the arriving side (+normal), refraction crosses (−normal); G1 of the new direction there.
    side = np.einsum("ij,ij->i", new, normal) * np.where(refracted, -1.0, 1.0)
    weight = smith_g1(side, alpha) if alpha > 0.0 else (side > 0.0).astype(np.float64)
    return new, refracted, weight


def estimate(radiance: np.ndarray, point: np.ndarray, view: np.ndarray, ior: float, roughness: float,
             tint: np.ndarray, rng: np.random.Generator, paths: int) -> np.ndarray:
    """Linear radiance towards the unit `view` from the unit sphere's `point`, lit by the equirect `radiance`."""
    alpha = roughness * roughness
    direction = np.tile(-view, (paths, 1))
    normal = np.tile(point, (paths, 1))
    new, refracted, weight = _scatter(direction, normal, ior, alpha, rng)
    total = np.zeros(3)
    outside = ~refracted & (weight > 0.0)
    total += (weight[outside, None] * ibl.background_radiance(radiance, new[outside]).astype(np.float64)).sum(axis=0)
    inside = refracted & (weight > 0.0)
    position, direction, weight = np.tile(point, (int(inside.sum()), 1)), new[inside], weight[inside]
    for _ in range(MAX_EVENTS - 1):
        if len(position) == 0:
            break
        # The chord to the far side: t = −b + sqrt(b² − c), b = x·w, c = |x|² − 1.
        b = np.einsum("ij,ij->i", position, direction)
        c = np.einsum("ij,ij->i", position, position) - 1.0
        position = position + (-b + np.sqrt(np.maximum(b * b - c, 0.0)))[:, None] * direction
        position /= np.linalg.norm(position, axis=1, keepdims=True)
        new, out, factor = _scatter(direction, -position, 1.0 / ior, alpha, rng)
        weight = weight * factor
        leaving = out & (weight > 0.0)
        seen = ibl.background_radiance(radiance, new[leaving]).astype(np.float64)
        total += tint * (weight[leaving, None] * seen).sum(axis=0)
        stay = ~out & (weight > 0.0)
        position, direction, weight = position[stay] * (1.0 - 1e-9), new[stay], weight[stay]
    return np.asarray(total / paths)
