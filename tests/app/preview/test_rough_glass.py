"""Rough solid glass in the preview against a path-traced rough glass sphere (tests/glass_reference.py).

The material is MaterialX's standard_surface_glass_tinted as `vpl import-mtlx`
reads it (transmission 1, transmission_color (0.2, 0.1, 1) at depth 0,
specular roughness 0.15, IOR 1.54: the Surface Output's transmission with a
volume, the colour as glTF's tint), drawn by `--preview-screenshot` on the
preview's sphere in the studio environment, environment light only, no tone
mapping (tests/mtlx_reference.py). The reference traces the unit sphere with
GGX microfacets on both faces, exact Fresnel at every event and every
internal reflection followed, reading the full-resolution environment.

The same pixels of MaterialX's stored render (the strict miss of
tests/app/export/test_mtlx_reference.py) are compared too: its real-time
refraction (`mx_refraction_solid_sphere` of a GGX sample, then one
environment lookup) is further from the path tracer than the preview, so the
miss is MaterialX's (docs/interchange.md). Run with `-s` to print the figures.
"""

from __future__ import annotations

import glass_reference
import mtlx_reference
import numpy as np
import pytest

from app.preview.environment import load_named_environment

DOCUMENT = mtlx_reference.MX_EXAMPLES / "StandardSurface" / "standard_surface_glass_tinted.mtlx"
SIZE = 128
#: MaterialX's render: the stored one test_mtlx_reference.py's miss reads (MISS_SAMPLES).
MATERIALX_SAMPLES = 64
IOR, ROUGHNESS, TINT = 1.54, 0.15, np.array([0.2, 0.1, 1.0])
#: Pixels compared (a fixed random choice of the sphere's inner ones) and paths per pixel (the estimate's own noise
#: is about 1.4 levels per pixel at 4000: two seeds differ by 2.8 at 1000).
PIXELS = 80
PATHS = 4000
#: Mean absolute difference of the preview from the path tracer allowed, 8-bit sRGB levels (docs/lighting.md).
MEAN_LEVELS = 6.5


def test_the_path_tracer_conserves_energy_in_a_white_furnace() -> None:
    """A clear glass sphere in a uniform white environment returns what it receives (smooth: exactly; rough:
    less only by the single-scattering microfacets' loss, small at roughness 0.15 away from the rim)."""
    white = np.ones((32, 64, 3))
    rng = np.random.default_rng(1)
    for roughness, facing, low in ((0.0, 0.9, 1.0), (0.0, 0.3, 1.0), (ROUGHNESS, 0.9, 0.995), (ROUGHNESS, 0.5, 0.985)):
        view = np.array([np.sqrt(1.0 - facing * facing), 0.0, facing])
        value = glass_reference.estimate(white, np.array([0.0, 0.0, 1.0]), view, IOR, roughness, np.ones(3), rng, 4000)
        assert low - 1e-9 <= value.min() and value.max() <= 1.0 + 1e-9, (roughness, facing, value)


@pytest.mark.gl
def test_the_tinted_rough_glass_matches_a_path_traced_sphere() -> None:
    pixels, points, views = mtlx_reference.sphere_points(SIZE)
    chosen = np.random.default_rng(3).choice(len(pixels), PIXELS, replace=False)
    radiance = np.asarray(load_named_environment(mtlx_reference.ENVIRONMENT).radiance, dtype=np.float64)[:, :, :3]
    rng = np.random.default_rng(5)
    expected = mtlx_reference.srgb_8bit(np.array([glass_reference.estimate(radiance, points[k], views[k], IOR, ROUGHNESS, TINT, rng, PATHS)
                                                  for k in chosen]))
    rows, columns = pixels[chosen, 0], pixels[chosen, 1]
    preview = np.round(mtlx_reference.render_editor(DOCUMENT, SIZE))[rows, columns]
    materialx = mtlx_reference.reference_8bit(DOCUMENT, SIZE, MATERIALX_SAMPLES)[rows, columns]
    preview_error, materialx_error = (float(np.abs(drawn - expected).mean()) for drawn in (preview, materialx))
    print(f"tinted rough glass, {PIXELS} pixels from the path tracer: preview {preview_error:.2f}, MaterialX {materialx_error:.2f}; "
          f"signed per channel: preview {(preview - expected).mean(axis=0).round(2)}, "
          f"MaterialX {(materialx - expected).mean(axis=0).round(2)}")
    assert preview_error <= MEAN_LEVELS, preview_error
    assert preview_error < materialx_error, (preview_error, materialx_error)
