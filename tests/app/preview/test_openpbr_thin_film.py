"""OpenPBR's thin film in the preview against a numpy Monte Carlo estimate of the specification's film.

In the studio environment, environment light only, pixels of a film-coated
dielectric (on a black base, and over a diffuse base) are compared with
tests/openpbr_thinfilm_reference.py: the exact Airy reflectance per
polarisation, integrated over the spectrum, per microfacet at V·H over the
GGX lobe, against the full-resolution environment image. The same pixels
without the film, on both sides, give the base model's own difference (the
split sum's, largest towards the rim); the film may add only a little to it.
"""

from __future__ import annotations

import numpy as np
import openpbr_thinfilm_reference as reference
import pytest
from pbr_testing import build, output_material, renderer_on, sphere_pixels

from app.preview.environment import load_named_environment
from app.preview.ibl_assets import IblCache, PrefilterJob
from app.preview.preview_state import environment_maps

pytestmark = pytest.mark.gl

SIZE = 48
PIXELS = 24
#: Case -> (the largest mean difference (8-bit sRGB levels) of the preview from the estimate, the most the film may
#: add to the difference of the same material without it: the split sum's own error, docs/lighting.md).
BOUND_LEVELS = {"film on black": (3.0, 0.5), "film over diffuse": (4.5, 1.35)}


def measure(request: pytest.FixtureRequest, case: str) -> tuple[float, float]:
    """(mean level difference of the preview from the estimate, the same without the film on both sides) over
    PIXELS pixels with N·V above 0.15."""
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_light(intensity=0.0)
    inner, normals, views = sphere_pixels(renderer, target, SIZE, 0.15)
    environment = load_named_environment(reference.ENVIRONMENT)
    prepared = PrefilterJob(environment, cache=IblCache(request.getfixturevalue("tmp_path_factory").mktemp("c"))).run()
    renderer.set_environment_maps(environment_maps(prepared))
    rows, columns = np.nonzero(inner)
    chosen = np.random.default_rng(5).choice(len(rows), PIXELS, replace=False)
    figures = []
    for weight in (reference.CASES[case]["thin_film_weight"], 0.0):
        properties = {**reference.CASES[case], "thin_film_weight": weight}
        build(renderer, output_material("openpbr_surface", properties), target)
        rendered = renderer.render_linear(SIZE, SIZE)[:, :, :3].astype(np.float64)
        rng = np.random.default_rng(7)
        errors = []
        for row, column in zip(rows[chosen], columns[chosen], strict=True):
            expected = reference.estimate(properties, environment.radiance, normals[row, column], views[row, column], rng)
            errors.append(float(np.abs(reference.srgb_8bit(rendered[row, column]) - reference.srgb_8bit(expected)).mean()))
        figures.append(float(np.mean(errors)))
    return figures[0], figures[1]


@pytest.mark.parametrize("case", sorted(reference.CASES))
def test_the_thin_film_matches_a_spectral_monte_carlo_estimate(request: pytest.FixtureRequest, case: str) -> None:
    with_film, without = measure(request, case)
    print("FIGURES", case, round(with_film, 2), round(without, 2))
    bound, added = BOUND_LEVELS[case]
    assert with_film <= bound, (case, with_film, without)
    assert with_film - without <= added, (case, with_film, without)
