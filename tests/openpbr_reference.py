"""Test support: OpenPBR's coat-over-base and fuzz-over-base, integrated by Monte Carlo in numpy.

Written from the formulas (OpenPBR Surface 1.1: albedo scaling of the layer
below, coat darkening; GGX with height-correlated Smith masking and the
exact dielectric Fresnel; Zeltner et al. 2022's sheen as a linearly
transformed cosine with the published fits), not from the shader. The
environment is the full-resolution equirect radiance image, read along each
sampled direction, so the estimate carries none of the preview's
prefiltering or split-sum approximations.
"""

from __future__ import annotations

import math

import numpy as np

from app.preview import ibl

ENVIRONMENT = "studio"
SAMPLES = 40000
#: The cases: OpenPBR Surface properties (specular_weight 0, so the base is a plain diffuse layer).
CASES: dict[str, dict[str, object]] = {
    "coat over base": {"base_color": (0.8, 0.3, 0.2, 1.0), "specular_weight": 0.0, "coat_weight": 1.0,
                       "coat_roughness": 0.3, "coat_ior": 1.6},
    "fuzz over base": {"base_color": (0.3, 0.3, 0.5, 1.0), "specular_weight": 0.0, "fuzz_weight": 1.0,
                       "fuzz_color": (0.9, 0.6, 0.4, 1.0), "fuzz_roughness": 0.5},
}
#: (mean, largest) difference per channel, in 8-bit sRGB levels, between the preview and the estimate at pixels
#: with N·V >= 0.3 (docs/lighting.md records the measured figures and why fuzz is further off).
TOLERANCE_LEVELS = {"coat over base": (3.0, 12.0), "fuzz over base": (9.0, 30.0)}


def srgb_8bit(linear: np.ndarray) -> np.ndarray:
    clipped = np.clip(linear, 0.0, 1.0)
    encoded = np.where(clipped <= 0.0031308, clipped * 12.92, 1.055 * np.power(clipped, 1.0 / 2.4) - 0.055)
    return np.asarray(np.round(encoded * 255.0))


def _basis(normal: np.ndarray, x_hint: np.ndarray | None = None) -> np.ndarray:
    """Rows x, y, z of an orthonormal frame with z = normal (x along `x_hint`'s tangential part when given)."""
    hint = x_hint if x_hint is not None else (np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0]))
    x = hint - normal * (hint @ normal)
    x /= np.linalg.norm(x)
    return np.stack([x, np.cross(normal, x), normal])


def _cosine_directions(frame: np.ndarray, rng: np.random.Generator, count: int) -> np.ndarray:
    u1, u2 = rng.random(count), rng.random(count)
    radius, phi = np.sqrt(u1), 2.0 * math.pi * u2
    local = np.stack([radius * np.cos(phi), radius * np.sin(phi), np.sqrt(1.0 - u1)], axis=1)
    return np.asarray(local @ frame)


def fresnel_dielectric(cosine: np.ndarray, eta: float) -> np.ndarray:
    c = np.clip(cosine, 0.0, 1.0)
    g = np.sqrt(np.maximum(eta * eta - 1.0 + c * c, 0.0))
    return np.asarray(0.5 * ((g - c) / (g + c)) ** 2 * (1.0 + ((c * (g + c) - 1.0) / (c * (g - c) + 1.0)) ** 2))


def _smith_lambda(cosine: np.ndarray, alpha: float) -> np.ndarray:
    cosine = np.clip(cosine, 1e-6, 1.0)
    tan2 = (1.0 - cosine * cosine) / (cosine * cosine)
    return np.asarray((-1.0 + np.sqrt(1.0 + alpha * alpha * tan2)) / 2.0)


def _ggx_reflection(normal: np.ndarray, view: np.ndarray, roughness: float, eta: float, rng: np.random.Generator,
                    count: int) -> tuple[np.ndarray, np.ndarray]:
    """(directions l, weights f cos / pdf) of a GGX dielectric reflection lobe, sampled by D(h) (n·h)."""
    alpha = roughness * roughness
    u1, u2 = rng.random(count), rng.random(count)
    cos_h = np.sqrt((1.0 - u1) / (1.0 + (alpha * alpha - 1.0) * u1))
    sin_h = np.sqrt(1.0 - cos_h * cos_h)
    phi = 2.0 * math.pi * u2
    halfway = np.stack([sin_h * np.cos(phi), sin_h * np.sin(phi), cos_h], axis=1) @ _basis(normal)
    v_dot_h = halfway @ view
    light = 2.0 * v_dot_h[:, None] * halfway - view
    n_dot_l, n_dot_v = light @ normal, float(view @ normal)
    masking = 1.0 / (1.0 + _smith_lambda(np.full(count, n_dot_v), alpha) + _smith_lambda(n_dot_l, alpha))
    weight = fresnel_dielectric(v_dot_h, eta) * masking * v_dot_h / (n_dot_v * cos_h)
    valid = (n_dot_l > 0.0) & (v_dot_h > 0.0)
    return light, np.where(valid, weight, 0.0)


def zeltner_albedo(n_dot_v: float, roughness: float) -> float:
    """Directional albedo of the Zeltner sheen (the paper's fit, as MaterialX ships it)."""
    x, y = n_dot_v, roughness
    s = y * (0.0206607 + 1.58491 * y) / (0.0379424 + y * (1.32227 + y))
    m = y * (-0.193854 + y * (-1.14885 + y * (1.7932 - 0.95943 * y * y))) / (0.046391 + y)
    o = y * (0.000654023 + (-0.0207818 + 0.119681 * y) * y) / (1.26264 + y * (-1.92021 + y))
    return float(math.exp(-0.5 * ((x - m) / s) ** 2) / (s * math.sqrt(2.0 * math.pi)) + o)


def zeltner_lobe(light: np.ndarray, normal: np.ndarray, view: np.ndarray, roughness: float) -> np.ndarray:
    """The sheen's LTC distribution D(l) (it includes the cosine): D_o(M⁻¹l / |M⁻¹l|) |M⁻¹| / |M⁻¹l|³."""
    x, y = float(view @ normal), roughness
    a_inv = (2.58126 * x + 0.813703 * y) * y / (1.0 + 0.310327 * x * x + 2.60994 * x * y)
    b_inv = math.sqrt(1.0 - x) * (y - 1.0) * y ** 3 / (0.0000254053 + 1.71228 * x - 1.71506 * x * y + 1.34174 * y * y)
    local = light @ _basis(normal, view).T
    inverse = np.array([[a_inv, 0.0, b_inv], [0.0, a_inv, 0.0], [0.0, 0.0, 1.0]])
    original = local @ inverse.T
    length = np.linalg.norm(original, axis=1)
    clamped_cosine = np.maximum(original[:, 2] / length, 0.0) / math.pi
    return np.asarray(clamped_cosine * abs(np.linalg.det(inverse)) / length**3)


def estimate(case: str, radiance: np.ndarray, normal: np.ndarray, view: np.ndarray, rng: np.random.Generator,
             samples: int = SAMPLES) -> np.ndarray:
    """Linear radiance towards `view` of `case` at a point with `normal`, lit by the equirect `radiance`."""
    properties = CASES[case]
    frame = _basis(normal)
    base = np.asarray(properties["base_color"], dtype=np.float64)[:3]
    diffuse_directions = _cosine_directions(frame, rng, samples)
    diffuse = ibl.background_radiance(radiance, diffuse_directions).astype(np.float64).mean(axis=0) * base
    if case == "coat over base":
        eta, roughness = float(properties["coat_ior"]), float(properties["coat_roughness"])  # type: ignore[arg-type]
        light, weight = _ggx_reflection(normal, view, roughness, eta, rng, samples)
        coat = (ibl.background_radiance(radiance, light).astype(np.float64) * weight[:, None]).mean(axis=0)
        coat_albedo = float(weight.mean())
        f0 = ((eta - 1.0) / (eta + 1.0)) ** 2
        internal = 1.0 - (1.0 - f0) / (eta * eta)
        darkening = (1.0 - internal) / (1.0 - base * internal)
        return np.asarray(coat + (1.0 - coat_albedo) * darkening * diffuse)
    color = np.asarray(properties["fuzz_color"], dtype=np.float64)[:3]
    roughness = float(properties["fuzz_roughness"])  # type: ignore[arg-type]
    albedo = zeltner_albedo(float(view @ normal), roughness)
    directions = _cosine_directions(frame, rng, samples)
    pdf = np.maximum(directions @ normal, 1e-9) / math.pi
    lobe = zeltner_lobe(directions, normal, view, roughness) / pdf
    fuzz = (ibl.background_radiance(radiance, directions).astype(np.float64) * lobe[:, None]).mean(axis=0)
    return np.asarray(albedo * color * fuzz + (1.0 - albedo) * diffuse)
