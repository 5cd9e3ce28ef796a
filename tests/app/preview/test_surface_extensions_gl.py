"""The Surface Output's glTF extensions in the preview, against numpy evaluations of the extensions' formulas.

White furnace (a uniform white environment of radiance 1, no key light): a clearcoat over a white base
loses only what the coat's Fresnel reflects, which the coat returns (the sum stays 1); sheen,
transmission and anisotropy gain no energy. Over a black base (no diffuse, specular 0) the coat alone
reflects its directional albedo, compared with a numpy Monte Carlo integral of KHR_materials_clearcoat's
GGX lobe (Schlick F0 0.04, F90 1). Key light only: a few pixels of the clearcoat and of the Charlie sheen
against the formulas of KHR_materials_clearcoat and KHR_materials_sheen evaluated in numpy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pbr_testing import build, output_material, renderer_on, sphere_pixels, white_furnace

from app.preview.renderer import Renderer

pytestmark = pytest.mark.gl

SIZE = 40
WHITE = (1.0, 1.0, 1.0, 1.0)
BLACK_BASE = {"base_color": (0.0, 0.0, 0.0, 1.0), "specular": 0.0}
LIGHT = np.array([0.4, 0.6, 0.7]) / np.linalg.norm([0.4, 0.6, 0.7])
INTENSITY = 3.0
#: Case -> (properties, largest loss allowed in the furnace).
FURNACE: dict[str, tuple[dict[str, object], float]] = {
    "base": ({"base_color": WHITE, "roughness": 0.5}, 0.01),
    "clearcoat": ({"base_color": WHITE, "roughness": 0.5, "clearcoat": 1.0, "clearcoat_roughness": 0.3}, 0.01),
    "sheen": ({"base_color": WHITE, "roughness": 0.5, "sheen_color": WHITE, "sheen_roughness": 0.5}, 0.01),
    "transmission": ({"base_color": WHITE, "roughness": 0.2, "transmission": 1.0, "thickness": 1.0}, 0.01),
    "anisotropy": ({"base_color": WHITE, "metallic": 1.0, "roughness": 0.5, "anisotropy_strength": 0.8}, 0.02),
    "iridescence": ({"base_color": WHITE, "roughness": 0.3, "iridescence": 1.0}, 0.05),
}


def _render(renderer: Renderer, target: str, properties: dict[str, object]) -> np.ndarray:
    build(renderer, output_material("surface_output", properties), target)
    values = renderer.render_linear(SIZE, SIZE)[:, :, :3].astype(np.float64)
    assert np.isfinite(values).all()
    return values


def test_white_furnace_gains_no_energy_and_the_coat_returns_what_it_takes(request: pytest.FixtureRequest) -> None:
    renderer, target = renderer_on(request, "current_gl")
    cases = {case: properties for case, (properties, _) in FURNACE.items()}
    lit = white_furnace(renderer, target, SIZE, "surface_output", cases, 0.3,
                        lambda renderer: renderer.set_ambient((1.0, 1.0, 1.0)))
    means = {}
    for case, values in lit.items():
        assert values.max() <= 1.0 + 3e-3, (case, values.max())
        means[case] = float(values.mean())
        assert 1.0 - means[case] <= FURNACE[case][1], (case, means[case])
    assert abs(means["clearcoat"] - means["base"]) <= 2e-3, means


def _coat_albedo(n_dot_v: float, roughness: float, rng: np.random.Generator, count: int = 40000) -> float:
    """∫ F D G / (4 N·V) dL for KHR_materials_clearcoat's lobe (GGX, height-correlated Smith, Schlick 0.04 → 1),
    sampling H from D (N·H): weight F G (V·H) / (N·V N·H)."""
    alpha = max(roughness * roughness, 0.002)
    u1, u2 = rng.random(count), rng.random(count)
    cos_h = np.sqrt((1.0 - u1) / (1.0 + (alpha * alpha - 1.0) * u1))
    sin_h = np.sqrt(1.0 - cos_h * cos_h)
    phi = 2.0 * math.pi * u2
    h = np.stack([sin_h * np.cos(phi), sin_h * np.sin(phi), cos_h], axis=1)
    v = np.array([math.sqrt(1.0 - n_dot_v * n_dot_v), 0.0, n_dot_v])
    v_dot_h = h @ v
    light = 2.0 * v_dot_h[:, None] * h - v
    n_dot_l = light[:, 2]
    valid = (n_dot_l > 0.0) & (v_dot_h > 0.0)

    def lam(c: np.ndarray | float) -> np.ndarray:
        c = np.clip(c, 1e-6, 1.0)
        return np.asarray((-1.0 + np.sqrt(1.0 + alpha * alpha * (1.0 - c * c) / (c * c))) / 2.0)

    g = 1.0 / (1.0 + lam(n_dot_v) + lam(n_dot_l))
    fresnel = 0.04 + 0.96 * (1.0 - np.clip(v_dot_h, 0.0, 1.0)) ** 5
    weight = np.where(valid, fresnel * g * v_dot_h / (n_dot_v * cos_h), 0.0)
    return float(weight.mean())


def test_coat_over_black_reflects_its_directional_albedo(request: pytest.FixtureRequest) -> None:
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_light(intensity=0.0)
    inner, normals, views = sphere_pixels(renderer, target, SIZE, 0.3)
    renderer.set_ambient((1.0, 1.0, 1.0))
    roughness = 0.3
    values = _render(renderer, target, {**BLACK_BASE, "clearcoat": 1.0, "clearcoat_roughness": roughness})
    rng = np.random.default_rng(3)
    rows, columns = np.nonzero(inner)
    for index in rng.choice(len(rows), 6, replace=False):
        row, column = rows[index], columns[index]
        n_dot_v = float(normals[row, column] @ views[row, column])
        expected = _coat_albedo(n_dot_v, roughness, rng)
        assert values[row, column] == pytest.approx([expected] * 3, abs=0.004 + 0.05 * expected), (n_dot_v, expected)


def _charlie_sheen(n: np.ndarray, v: np.ndarray, light: np.ndarray, roughness: float) -> np.ndarray:
    """KHR_materials_sheen: D_Charlie (2 + 1/α) sin(θ_h)^(1/α) / 2π · V_Ashikhmin 1/(4 (N·L + N·V − N·L N·V)) · N·L."""
    h = (v + light) / np.linalg.norm(v + light, axis=-1, keepdims=True)
    alpha = roughness * roughness
    n_dot_h, n_dot_l, n_dot_v = (np.einsum("...k,...k->...", n, x) for x in (h, np.broadcast_to(light, n.shape), v))
    sin2 = np.maximum(1.0 - n_dot_h * n_dot_h, 0.0078125)
    d = (2.0 + 1.0 / alpha) * sin2 ** (0.5 / alpha) / (2.0 * math.pi)
    n_dot_l = np.maximum(n_dot_l, 0.0)
    visibility = 1.0 / (4.0 * (n_dot_l + n_dot_v - n_dot_l * n_dot_v))
    return np.asarray(d * visibility * n_dot_l)


def _coat_direct(n: np.ndarray, v: np.ndarray, light: np.ndarray, roughness: float) -> np.ndarray:
    """KHR_materials_clearcoat's specular for the key light: F(V·H) D G / (4 N·L N·V) · N·L."""
    h = (v + light) / np.linalg.norm(v + light, axis=-1, keepdims=True)
    alpha2 = max(roughness * roughness, 0.002) ** 2
    n_dot_h, n_dot_l, n_dot_v = (np.einsum("...k,...k->...", n, x) for x in (h, np.broadcast_to(light, n.shape), v))
    v_dot_h = np.einsum("...k,...k->...", v, h)
    d = alpha2 / (math.pi * (n_dot_h ** 2 * (alpha2 - 1.0) + 1.0) ** 2)
    lit = np.maximum(n_dot_l, 0.0)
    vis = 0.5 / (lit * np.sqrt(n_dot_v ** 2 * (1.0 - alpha2) + alpha2) + n_dot_v * np.sqrt(lit ** 2 * (1.0 - alpha2) + alpha2))
    fresnel = 0.04 + 0.96 * (1.0 - v_dot_h) ** 5
    return np.asarray(fresnel * d * vis * lit)


@pytest.mark.parametrize("case", ["clearcoat", "sheen"])
def test_key_light_layers_match_the_khr_formulas(request: pytest.FixtureRequest, case: str) -> None:
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_light(color=(1.0, 1.0, 1.0), intensity=0.0)
    inner, normals, views = sphere_pixels(renderer, target, SIZE, 0.3)
    renderer.set_ambient((0.0, 0.0, 0.0))
    renderer.set_light(intensity=INTENSITY)
    renderer.set_light_direction(tuple(LIGHT))
    if case == "clearcoat":
        values = _render(renderer, target, {**BLACK_BASE, "clearcoat": 1.0, "clearcoat_roughness": 0.4})
        expected = _coat_direct(normals, views, LIGHT, 0.4) * INTENSITY
    else:
        values = _render(renderer, target, {**BLACK_BASE, "sheen_color": WHITE, "sheen_roughness": 0.5})
        expected = _charlie_sheen(normals, views, LIGHT, 0.5) * INTENSITY
    measured = values[inner]
    reference = expected[inner]
    assert reference.max() > 0.05  # the lobe is visible in the pixels compared
    error = np.abs(measured - reference[:, None])
    assert error.max() <= 2e-3 + 1e-3 * reference.max(), (case, float(error.max()))
