"""The preview of an imported MaterialX example against MaterialX's own renderer of the document.

Same sphere, camera and studio environment, environment light only, no tone
mapping (tests/mtlx_reference.py); the goal is a mean absolute difference of
at most 4 8-bit levels over the sphere's inner pixels. Materials that miss it
are marked (strict) with their measured figure and the reason, so a change
that makes one pass fails here until it is promoted. Smaller and with fewer
samples than benchmarks/bench_mtlx_reference.py, which prints the figures.

MaterialX's renders are the stored ones (tests/reference_store.py,
docs/testing.md "Stored reference renders"): a missing or stale one fails
naming the command that regenerates it, and `LIVE`'s cheap cases are
rendered by MaterialX for real and must equal their stored images.
"""

from __future__ import annotations

import mtlx_reference
import numpy as np
import pytest
import reference_store

SIZE = 128
#: MaterialX's samples per pixel (filtered importance sampling of each lobe): nearly all of a test's time is
#: MaterialX's render on llvmpipe, in proportion to them.
SAMPLES = 256
#: Documents whose every lobe has roughness 0: the samples all take the mirror (or refracted) direction, so
#: more of them change nothing but the time (each measures the same at 16, 64 and 256 samples: docs/testing.md).
SMOOTH_SAMPLES = 16
#: Honey, ketchup and the soap bubble are smooth too (their subsurface and transmission read the environment
#: without sampling), and the light bulb clips to white: each measured the same at 16 as at 256 samples
#: (3.19, 1.23, 2.74, 0.00 levels).
SMOOTH = ("OpenPbr/open_pbr_glass.mtlx", "StandardSurface/standard_surface_chrome.mtlx", "OpenPbr/open_pbr_honey.mtlx",
          "OpenPbr/open_pbr_ketchup.mtlx", "OpenPbr/open_pbr_soapbubble.mtlx", "OpenPbr/open_pbr_lightbulb.mtlx")
#: A known miss only has to stay a miss (a strict xfail): its figure is recorded at 256 samples in MISSES and
#: docs/interchange.md, and each misses by several times the goal at 64 too.
MISS_SAMPLES = 64
GOAL = 4.0
MEETS = (
    "GltfPbr/gltf_pbr_gold.mtlx",
    "GltfPbr/gltf_pbr_plastic.mtlx",
    "StandardSurface/standard_surface_default.mtlx",
    "StandardSurface/standard_surface_chrome.mtlx",
    "StandardSurface/standard_surface_velvet.mtlx",
    "StandardSurface/standard_surface_wood_tiled.mtlx",
    "StandardSurface/standard_surface_thin_film.mtlx",
    "StandardSurface/standard_surface_greysphere_calibration.mtlx",
    "StandardSurface/standard_surface_brick_procedural.mtlx",
    "StandardSurface/standard_surface_onyx_hextiled.mtlx",
    "StandardSurface/standard_surface_marble_solid.mtlx",
    "OpenPbr/open_pbr_default.mtlx",
    "OpenPbr/open_pbr_carpaint.mtlx",
    "OpenPbr/open_pbr_glass.mtlx",
    "OpenPbr/open_pbr_honey.mtlx",
    "OpenPbr/open_pbr_ketchup.mtlx",
    "OpenPbr/open_pbr_lightbulb.mtlx",
    "OpenPbr/open_pbr_soapbubble.mtlx",
    "OpenPbr/open_pbr_velvet.mtlx",
)
#: Known misses: name -> (the figure measured here, why).
MISSES: dict[str, tuple[float, str]] = {
    "GltfPbr/gltf_pbr_default.mtlx": (170.9, "the document sets occlusion 0; the preview applies it to the environment light "
                                            "(glTF), MaterialX 1.39's gltf_pbr declares occlusion but never reads it"),
    "OpenPbr/open_pbr_aluminum_brushed.mtlx": (14.38, "anisotropy 0.9 (a near-mirror lobe, alpha 0.056 x 0.0056): MaterialX's "
                                                      "filtered importance sampling is itself 8.3 levels brighter than a Monte Carlo "
                                                      "of the lobe, the preview's final frame 1.1 levels from it "
                                                      "(tests/app/preview/test_openpbr_metals.py)"),
    "StandardSurface/standard_surface_copper.mtlx": (11.28, "a metal under a coloured coat: MaterialX draws the mapped open_pbr_surface "
                                                          "0.30 levels from the standard_surface but 21 levels brighter than a Monte "
                                                          "Carlo of the specification's coat over metal, from which the preview's final "
                                                          "frame is 0.6 levels (tests/app/preview/test_openpbr_metals.py)"),
    "StandardSurface/standard_surface_jade.mtlx": (5.74, "MaterialX's own render is the one off: against a numpy Monte Carlo of the "
                                                         "BSDF (benchmarks/bench_jade_monte_carlo.py, 214 pixels) the preview is 1.44 "
                                                         "levels off, MaterialX 4.63 (brighter around the lights' reflections)"),
    "UsdPreviewSurface/usd_preview_surface_brass_tiled.mtlx": (16.08, "a smooth textured metal (roughness 0.12-0.23): on 60 "
                                                                      "uniformly textured pixels MaterialX is 18.7 levels brighter "
                                                                      "than a Monte Carlo of the glTF metal BRDF, the preview 1.3 "
                                                                      "from it (tests/app/preview/test_textured_gltf_reference.py)"),
    "StandardSurface/standard_surface_chess_set.mtlx": (5.44, "its first material, the black bishop (four textures, a normal "
                                                             "map, roughness 0.24-0.40 where uniform): on 60 uniformly "
                                                             "textured pixels MaterialX is 10.4 levels from a Monte Carlo of "
                                                             "the BRDF (8-9 brighter per channel), the preview 2.6 "
                                                             "(tests/app/preview/test_textured_gltf_reference.py)"),
    "StandardSurface/standard_surface_glass_tinted.mtlx": (7.75, "rough solid glass (roughness 0.15): on 80 pixels MaterialX's "
                                                                 "real-time refraction is 10.7 levels from a path-traced rough "
                                                                 "glass sphere (about 5 brighter per channel), the preview 5.9 "
                                                                 "(tests/app/preview/test_rough_glass.py)"),
    "OpenPbr/open_pbr_pearl.mtlx": (13.73, "thin film: the preview gives the substrate 1 - the film's albedo, MaterialX's real-time "
                                          "dielectric_bsdf 1 - the film-less albedo (4.55 levels with that emulated); against a "
                                          "spectral Monte Carlo of the film over a diffuse base MaterialX is 9.5 levels off, "
                                          "the preview 1.6"),
}




def samples_for(name: str) -> int:
    """MaterialX's samples per pixel for the document `name` in this test."""
    return SMOOTH_SAMPLES if name in SMOOTH else MISS_SAMPLES if name in MISSES else SAMPLES


#: Cheap cases MaterialX renders for real in every run, proving the stored set is what the installed renderer
#: draws: a smooth document at 16 samples and a rough one at 256 (each about 5 s of CPU; MaterialX's render is
#: deterministic: the same image bit for bit on every run).
LIVE = ("StandardSurface/standard_surface_chrome.mtlx", "GltfPbr/gltf_pbr_plastic.mtlx")


def test_every_document_has_its_stored_materialx_render() -> None:
    """Each document the comparison uses has a stored render whose provenance matches its inputs now."""
    problems = [problem for name in [*MEETS, *MISSES] if (problem := reference_store.mismatch(
        mtlx_reference.STORE_FOLDER, mtlx_reference.store_key(mtlx_reference.MX_EXAMPLES / name, SIZE, samples_for(name)),
        mtlx_reference.provenance(mtlx_reference.MX_EXAMPLES / name, SIZE, samples_for(name)))) is not None]
    assert not problems, "\n".join(problems) + f"\nregenerate with\n    {reference_store.REGENERATE}"
    # And nothing else is stored: a render no case reads (a renamed document, other settings) is removed.
    used = {mtlx_reference.store_key(mtlx_reference.MX_EXAMPLES / name, SIZE, samples_for(name)) for name in [*MEETS, *MISSES]}
    stored = {path.stem for path in (reference_store.STORE / mtlx_reference.STORE_FOLDER).iterdir()}
    assert stored == used, f"stored renders no case reads: {sorted(stored - used)}"


@pytest.mark.gl
@pytest.mark.parametrize("name", LIVE)
def test_materialx_still_draws_the_stored_render(name: str) -> None:
    document = mtlx_reference.MX_EXAMPLES / name
    live = mtlx_reference.srgb_8bit(mtlx_reference.render_materialx(document, SIZE, samples_for(name)))
    stored = mtlx_reference.reference_8bit(document, SIZE, samples_for(name))
    assert np.array_equal(live, stored), f"{name}: {np.abs(live - stored).max():.0f} levels at most, {(live != stored).mean():.2%} of the values"


@pytest.mark.gl
@pytest.mark.parametrize("name", [*MEETS, *[pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=f"{figure:.1f} levels: {why}"))
                                             for name, (figure, why) in MISSES.items()]])
def test_the_preview_of_the_import_matches_materialx_s_render(name: str) -> None:
    difference = mtlx_reference.compare(mtlx_reference.MX_EXAMPLES / name, SIZE, samples_for(name), stored=True)
    assert difference <= GOAL, f"{name}: {difference:.2f} levels"
