"""Metals from mirror to fully rough, on real OpenGL, against a Monte Carlo estimate of the glTF BRDF.

A sweep of roughness 0 to 1 in steps of 0.1 for a gold and a white metal
in each bundled environment, environment light only: the sphere's pixels,
as 8-bit sRGB levels, are within a mean absolute difference of 2 levels of
`metal_reference.metal_radiance` (multiple importance sampling of the full
resolution environment, no prefiltering, no split-sum table; with the
multiple-scattering term the preview models, from the reference's own
albedo and irradiance estimates). Run with `-s` to print the per-roughness
figures recorded in docs/lighting.md.

The preview is measured as it draws final frames: the refined environment
light (`Renderer.render_linear_refined`: the GGX lobe integrated per pixel
by filtered importance sampling, `REFINE_FRAMES` frames averaged), not the
live split sum, which misses the goal above roughness 0.2-0.3
(docs/lighting.md). The cases that still miss are listed in `MISSES` with
their figure: the bundled `outdoor` sun (radiance 30,000 in 2 degrees) is
what a lobe sampled 1,024 times per pixel resolves worst (the difference
is noise, the signed mean stays within 3 levels), and three `studio` cells
are just above 2. Each must stay a miss within `REGRESSION` levels of it
(so a change that makes one pass fails here until it is promoted, and one
that makes it worse fails too); every other case must meet the goal.
"""

from __future__ import annotations

import numpy as np
import pytest
from metal_reference import EnvironmentSampler, metal_radiance
from pbr_testing import build, renderer_on, surface_value

from app.material.graph import MaterialGraph
from app.preview.ibl_assets import IblCache, PrefilterJob
from app.preview.preview_state import environment_maps

pytestmark = pytest.mark.gl

SIZE = 48
ROUGHNESSES = [round(0.1 * step, 1) for step in range(11)]
#: glTF base colours: gold (the physically based F0 of gold in linear sRGB) and a white metal.
METALS = {"gold": (1.0, 0.766, 0.336), "white": (1.0, 1.0, 1.0)}
#: Mean absolute difference allowed, 8-bit sRGB levels (display: clamped to [0, 1], no tone mapping).
MEAN_LEVELS = 2.0
#: Known misses: (environment, metal) -> {roughness: mean absolute difference measured here}.
MISSES: dict[tuple[str, str], dict[float, float]] = {
    ("studio", "gold"): {0.4: 2.02},
    ("studio", "white"): {0.4: 2.14, 0.8: 2.09},
    ("outdoor", "gold"): {0.3: 4.1, 0.4: 5.2, 0.5: 2.3, 0.6: 4.1, 0.7: 4.4, 0.8: 4.3, 0.9: 5.1, 1.0: 2.9},
    ("outdoor", "white"): {0.3: 2.8, 0.4: 3.4, 0.8: 2.4, 0.9: 2.5},
}
#: How much worse than its recorded figure a known miss may measure (the reference is seeded: figures repeat).
REGRESSION = 1.0


def _levels(linear: np.ndarray) -> np.ndarray:
    clipped = np.clip(linear, 0.0, 1.0)
    return 255.0 * np.where(clipped <= 0.0031308, 12.92 * clipped, 1.055 * np.power(clipped, 1.0 / 2.4) - 0.055)


def _surface(base: tuple[float, float, float], roughness: float) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (*base, 1.0), "metallic": 1.0, "roughness": roughness})
    return graph


@pytest.mark.parametrize("name", ["studio", "outdoor", "neutral"])
def test_metal_roughness_sweep_matches_monte_carlo(request, current_gl, tmp_path, name: str) -> None:
    renderer, target = renderer_on(request, "current_gl")
    prepared = PrefilterJob(name, cache=IblCache(tmp_path / "cache")).run()
    renderer.set_light(intensity=0.0)
    renderer.set_environment_maps(environment_maps(prepared))
    renderer.set_brdf_table(prepared.brdf_lut)
    positions = surface_value(renderer, target, "world_position", SIZE)
    normals_image = surface_value(renderer, target, "normal", SIZE)
    covered = np.abs(np.linalg.norm(positions, axis=2) - 1.0) < 1e-3
    views = np.asarray(renderer.camera.position, dtype=np.float64) - positions
    views /= np.maximum(np.linalg.norm(views, axis=2, keepdims=True), 1e-9)
    normals = normals_image / np.maximum(np.linalg.norm(normals_image, axis=2, keepdims=True), 1e-9)
    inner = covered & (np.einsum("ijk,ijk->ij", normals, views) > 0.15)
    # Every third pixel of the inner disc in each direction (the reference costs 8192 samples per pixel).
    inner &= (np.arange(SIZE)[:, None] % 3 == 0) & (np.arange(SIZE)[None, :] % 3 == 0)
    sampler = EnvironmentSampler(prepared.environment.radiance)
    rng = np.random.default_rng(7)
    f0s = [np.array(base) for base in METALS.values()]
    figures: dict[tuple[str, float], tuple[float, float, float]] = {}
    for roughness in ROUGHNESSES:
        singles, compensated = metal_radiance(sampler, normals[inner], views[inner], f0s, roughness, rng)
        for (metal, base), single, expected in zip(METALS.items(), singles, compensated, strict=True):
            build(renderer, _surface(base, roughness), target)
            measured = renderer.render_linear_refined(SIZE, SIZE)[inner][:, :3].astype(np.float64)
            difference = _levels(measured) - _levels(expected)
            figures[(metal, roughness)] = (float(np.abs(difference).mean()), float(difference.mean()),
                                           float((_levels(measured) - _levels(single)).mean()))
    print(f"\n{name}: mean |difference| / signed mean (levels), signed mean against single scattering alone")
    for metal in METALS:
        print(f"  {metal:6s}" + " ".join(f"{r:.1f}: {figures[(metal, r)][0]:.2f}/{figures[(metal, r)][1]:+.2f}/{figures[(metal, r)][2]:+.2f}"
                                         for r in ROUGHNESSES))
    problems = []
    for (metal, roughness), (mean_absolute, _signed, _single) in figures.items():
        recorded = MISSES.get((name, metal), {}).get(roughness)
        if recorded is None and mean_absolute > MEAN_LEVELS:
            problems.append(f"{metal} {roughness}: {mean_absolute:.2f} levels, over the goal of {MEAN_LEVELS}")
        elif recorded is not None and mean_absolute <= MEAN_LEVELS:
            problems.append(f"{metal} {roughness}: {mean_absolute:.2f} levels meets the goal now; remove it from MISSES")
        elif recorded is not None and mean_absolute > recorded + REGRESSION:
            problems.append(f"{metal} {roughness}: {mean_absolute:.2f} levels, worse than the recorded {recorded}")
    assert not problems, (name, problems)
