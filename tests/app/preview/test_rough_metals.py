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
by multiple importance sampling of the lobe and of the environment's
luminance, `REFINE_FRAMES` frames averaged). Every case must meet the goal;
`test_rotated_environment_matches_monte_carlo` checks the same with the
environment turned, where a sampling table read in the wrong frame would
weigh the sun's samples wrong.

The live frame (`Renderer.render_linear`: the split-sum read of the
prefiltered chain) is measured in the same sweep against the same
estimate. It meets the goal up to roughness `LIVE_GOAL_ROUGHNESS` and not
above (docs/lighting.md, "Metals against Monte Carlo"); above, it must stay
within `LIVE_LEVELS` of its environment, the recorded figures with a
margin, so a change that makes the live frame worse fails.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from metal_reference import EnvironmentSampler, metal_radiance
from pbr_testing import build, renderer_on, surface_value

from app.material.graph import MaterialGraph
from app.preview.ibl import environment_direction
from app.preview.ibl_assets import IblCache, PrefilterJob
from app.preview.preview_state import environment_maps

pytestmark = pytest.mark.gl

SIZE = 48
ROUGHNESSES = [round(0.1 * step, 1) for step in range(11)]
#: glTF base colours: gold (the physically based F0 of gold in linear sRGB) and a white metal.
METALS = {"gold": (1.0, 0.766, 0.336), "white": (1.0, 1.0, 1.0)}
#: Mean absolute difference allowed, 8-bit sRGB levels (display: clamped to [0, 1], no tone mapping).
MEAN_LEVELS = 2.0
#: The live frame meets `MEAN_LEVELS` up to this roughness in every bundled environment.
LIVE_GOAL_ROUGHNESS = 0.1
#: Above it, the live frame's largest mean absolute difference per environment (levels): the recorded
#: 8.5 (`studio`), 10.9 (`outdoor`) and 2.5 (`neutral`) with half a level of margin (read at the reflection
#: vector instead of `lobe_direction`, the split sum measured 15.8, 18.4 and 5.6).
LIVE_LEVELS = {"studio": 9.0, "outdoor": 11.4, "neutral": 3.0}


def _levels(linear: np.ndarray) -> np.ndarray:
    clipped = np.clip(linear, 0.0, 1.0)
    return 255.0 * np.where(clipped <= 0.0031308, 12.92 * clipped, 1.055 * np.power(clipped, 1.0 / 2.4) - 0.055)


def _surface(base: tuple[float, float, float], roughness: float) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (*base, 1.0), "metallic": 1.0, "roughness": roughness})
    return graph


def _openpbr(base: tuple[float, float, float], roughness: float) -> MaterialGraph:
    """The same metal as an OpenPBR Surface: with the default white specular colour its F82-tint Fresnel is
    Schlick's, and its environment light the same split sum with the same multiple scattering."""
    graph = MaterialGraph()
    graph.add_node("openpbr_surface", properties={"base_color": (*base, 1.0), "base_metalness": 1.0,
                                                  "specular_roughness": roughness})
    return graph


Figures = dict[tuple[str, float], tuple[float, float, float]]


def _sweep(request: pytest.FixtureRequest, tmp_path, name: str, roughnesses: list[float],
           rotation: float = 0.0, surface: Callable[[tuple[float, float, float], float], MaterialGraph] = _surface,
           ) -> tuple[Figures, Figures]:
    """(refined, live) figures: (metal, roughness) -> (mean absolute difference, signed mean, signed mean
    against single scattering alone), levels, of the refined preview and of its live frame against the
    reference in environment `name` turned by `rotation`."""
    renderer, target = renderer_on(request, "current_gl")
    prepared = PrefilterJob(name, cache=IblCache(tmp_path / "cache")).run()
    renderer.set_light(intensity=0.0)
    renderer.set_environment_maps(environment_maps(prepared))
    renderer.set_brdf_table(prepared.brdf_lut)
    renderer.environment_rotation = rotation
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
    # The reference looks the unrotated environment up: the shading frame turned back by the rotation.
    reference_normals = environment_direction(normals[inner], rotation)
    reference_views = environment_direction(views[inner], rotation)
    figures: Figures = {}
    live: Figures = {}
    for roughness in roughnesses:
        singles, compensated = metal_radiance(sampler, reference_normals, reference_views, f0s, roughness, rng)
        for (metal, base), single, expected in zip(METALS.items(), singles, compensated, strict=True):
            build(renderer, surface(base, roughness), target)
            for frames, render in ((figures, renderer.render_linear_refined), (live, renderer.render_linear)):
                measured = render(SIZE, SIZE)[inner][:, :3].astype(np.float64)
                difference = _levels(measured) - _levels(expected)
                frames[(metal, roughness)] = (float(np.abs(difference).mean()), float(difference.mean()),
                                              float((_levels(measured) - _levels(single)).mean()))
    for label, table in (("refined", figures), ("live", live)):
        print(f"\n{name} (rotation {rotation}), {label}: mean |difference| / signed mean (levels), signed mean against "
              "single scattering alone")
        for metal in METALS:
            print(f"  {metal:6s}" + " ".join(f"{r:.1f}: {table[(metal, r)][0]:.2f}/{table[(metal, r)][1]:+.2f}/{table[(metal, r)][2]:+.2f}"
                                             for r in roughnesses))
    return figures, live


def _misses(figures: Figures, goal: float = MEAN_LEVELS, above: float = -1.0) -> list[str]:
    """The cases of roughness over `above` whose mean absolute difference exceeds `goal`."""
    return [f"{metal} {roughness}: {mean_absolute:.2f} levels, over the goal of {goal}"
            for (metal, roughness), (mean_absolute, _signed, _single) in figures.items()
            if roughness > above and mean_absolute > goal]


@pytest.mark.parametrize("name", ["studio", "outdoor", "neutral"])
def test_metal_roughness_sweep_matches_monte_carlo(request, current_gl, tmp_path, name: str) -> None:
    figures, live = _sweep(request, tmp_path, name, ROUGHNESSES)
    assert not _misses(figures), (name, _misses(figures))
    smooth = {case: value for case, value in live.items() if case[1] <= LIVE_GOAL_ROUGHNESS}
    assert not _misses(smooth), (name, "live", _misses(smooth))
    assert not _misses(live, LIVE_LEVELS[name], LIVE_GOAL_ROUGHNESS), (name, "live", _misses(live, LIVE_LEVELS[name]))


def test_rotated_environment_matches_monte_carlo(request, current_gl, tmp_path) -> None:
    figures, _live = _sweep(request, tmp_path, "outdoor", [0.3, 0.7], rotation=2.0)
    assert not _misses(figures), _misses(figures)


def test_openpbr_metal_refined_matches_monte_carlo(request, current_gl, tmp_path) -> None:
    """The OpenPBR Surface's refined frames integrate its specular lobe per pixel as the Surface Output's do:
    within the goal where its live split sum is not."""
    figures, live = _sweep(request, tmp_path, "studio", [0.5, 0.8], surface=_openpbr)
    assert not _misses(figures), _misses(figures)
    assert _misses(live), "the live frame was expected to miss the goal here"


def test_no_fireflies_around_the_sun(request, current_gl, tmp_path) -> None:
    """A rough gold under the `outdoor` sun, refined: no pixel stands out of its 5 x 5 neighbourhood by more than
    12 levels (at the environment's recommended exposure, -3 EV). A sampling table that gave the strip the
    bilinear read lights beyond the sun's cell that cell's own density left about one pixel in a thousand
    20-50 levels too bright there."""
    renderer, target = renderer_on(request, "current_gl")
    prepared = PrefilterJob("outdoor", cache=IblCache(tmp_path / "cache")).run()
    renderer.set_light(intensity=0.0)
    renderer.set_environment_maps(environment_maps(prepared))
    renderer.set_brdf_table(prepared.brdf_lut)
    size = 192
    normals = surface_value(renderer, target, "normal", size)
    views = np.asarray(renderer.camera.position, dtype=np.float64) - surface_value(renderer, target, "world_position", size)
    facing = np.einsum("ijk,ijk->ij", normals, views) / np.maximum(
        np.linalg.norm(normals, axis=2) * np.linalg.norm(views, axis=2), 1e-9)
    build(renderer, _surface(METALS["gold"], 0.6), target)
    image = _levels(renderer.render_linear_refined(size, size)[..., :3].astype(np.float64) / 8.0)
    padded = np.pad(image, ((2, 2), (2, 2), (0, 0)), mode="edge")
    median = np.median([padded[i:i + size, j:j + size] for i in range(5) for j in range(5)], axis=0)
    inner = np.ones((size, size), dtype=bool)
    for dy in range(-2, 3):  # every pixel of the 5 x 5 window well inside the disc
        for dx in range(-2, 3):
            inner &= np.roll(facing, (dy, dx), axis=(0, 1)) > 0.3
    above = (image - median).max(axis=2)[inner]
    assert inner.sum() > 10_000
    assert (above > 12.0).sum() == 0, (int((above > 12.0).sum()), float(above.max()))
