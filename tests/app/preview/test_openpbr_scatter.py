"""The OpenPBR Surface's scattering transmission medium against a volumetric Monte Carlo random walk.

In the studio environment, environment light only, a few dozen pixels of
the preview's unit sphere of honey and of milk (isotropic and forward
scattering) are compared with a numpy random walk through the sphere written
from the specification (tests/openpbr_volume_reference.py): Fresnel at the
boundary, Henyey-Greenstein scattering, the full-resolution environment. The
same pixels of the previous, unscattered shading (transmission_scatter 0:
Beer-Lambert over one scene unit along the refracted ray) are compared too:
the scattered preview must be within the bound docs/lighting.md records and
well below the unscattered one.
"""

from __future__ import annotations

import numpy as np
import openpbr_reference
import openpbr_volume_reference
import pytest
from pbr_testing import build, environment_lit, output_material, prefiltered, renderer_on, sphere_pixels

from app.preview.environment import load_named_environment, uniform_environment
from app.preview.stage import DEFAULT_LIGHT_INTENSITY

pytestmark = pytest.mark.gl

SIZE = 48
PIXELS = 24
#: Case -> the largest mean difference (8-bit sRGB levels) of the preview from the walk (docs/lighting.md).
BOUND_LEVELS = {"honey": 4.5, "milky, isotropic": 4.0, "milky, forward": 4.75}
#: The scattered preview's error is at most this share of the unscattered one's.
IMPROVEMENT = 0.25


def measure(request: pytest.FixtureRequest, case: str) -> tuple[float, float]:
    """(mean level difference of the preview, of the unscattered preview) from the walk, over PIXELS pixels."""
    renderer, target = renderer_on(request, "current_gl")
    inner, normals, views = sphere_pixels(renderer, target, SIZE, 0.15)
    environment = load_named_environment(openpbr_volume_reference.ENVIRONMENT)
    environment_lit(renderer, prefiltered(environment))
    properties = openpbr_volume_reference.CASES[case]
    renders = []
    for scatter in (properties["transmission_scatter"], (0.0, 0.0, 0.0, 1.0)):
        build(renderer, output_material("openpbr_surface", {**properties, "transmission_scatter": scatter}), target)
        renders.append(renderer.render_linear(SIZE, SIZE)[:, :, :3].astype(np.float64))
    rows, columns = np.nonzero(inner)
    rng = np.random.default_rng(11)
    errors: list[list[float]] = [[], []]
    for index in rng.choice(len(rows), PIXELS, replace=False):
        row, column = rows[index], columns[index]
        expected = openpbr_reference.srgb_8bit(openpbr_volume_reference.estimate(
            case, environment.radiance, normals[row, column], views[row, column], rng))
        for errors_of, rendered in zip(errors, renders, strict=True):
            errors_of.append(float(np.abs(openpbr_reference.srgb_8bit(rendered[row, column]) - expected).mean()))
    return float(np.mean(errors[0])), float(np.mean(errors[1]))


@pytest.mark.parametrize("case", sorted(openpbr_volume_reference.CASES))
def test_the_scattering_medium_matches_a_volumetric_random_walk(request: pytest.FixtureRequest, case: str) -> None:
    scattered, unscattered = measure(request, case)
    print("FIGURES", case, round(scattered, 2), round(unscattered, 2))
    assert scattered <= BOUND_LEVELS[case], (case, scattered, unscattered)
    assert scattered <= IMPROVEMENT * unscattered, (case, scattered, unscattered)


def test_subsurface_scatter_anisotropy_moves_the_key_light_s_terminator(request: pytest.FixtureRequest) -> None:
    """Subsurface scatter anisotropy widens (forward) or narrows (backward) the key light's wrap by the similarity
    relation (docs/lighting.md): in a black environment the sphere's side turned from the light is brighter with
    g = 0.6 and darker with g = -0.6 than isotropic; the lit side keeps its brightness within the wrap's
    normalisation. In the environment alone (no key light) the anisotropy changes nothing."""
    renderer, target = renderer_on(request, "current_gl")
    inner, _, _ = sphere_pixels(renderer, target, SIZE, 0.15)
    environment_lit(renderer, prefiltered(uniform_environment(0.0)))
    renderer.set_light(intensity=DEFAULT_LIGHT_INTENSITY)
    renderer.set_light_direction((1.0, 0.0, 0.0))
    base = {"subsurface_weight": 1.0, "subsurface_color": (0.9, 0.9, 0.9, 1.0), "specular_weight": 0.0}

    def red(g: float) -> np.ndarray:
        build(renderer, output_material("openpbr_surface", {**base, "subsurface_scatter_anisotropy": g}), target)
        return np.asarray(np.asarray(renderer.render_linear(SIZE, SIZE)[:, :, 0], dtype=np.float64)[inner])

    isotropic, forward, backward = red(0.0), red(0.6), red(-0.6)
    shadowed = isotropic < 0.1 * isotropic.max()
    assert shadowed.sum() > 20
    assert forward[shadowed].mean() > 1.2 * isotropic[shadowed].mean() + 1e-4
    assert backward[shadowed].mean() < 0.8 * isotropic[shadowed].mean()
    environment_lit(renderer, prefiltered("studio"))
    assert np.allclose(red(0.0), red(0.6), atol=1e-5)
