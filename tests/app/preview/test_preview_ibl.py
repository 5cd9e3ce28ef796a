"""Image-based lighting in the renderer on real OpenGL (desktop 4.2+ core and ES 3.2): the white furnace,
the Surface Output's environment term against the numpy lookups of `app.preview.ibl`, the environment
background, and the widget preparing environments without blocking.

The references are `app.preview.ibl`'s numpy functions (GL's bilinear and
trilinear filtering of the same arrays, the split-sum table, Fdez-Agüera's
multiple-scattering terms), written from the papers by the IBL components'
author, not from this shader's VPL.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest
from pbr_testing import CONTEXTS, build, environment_lit, prefiltered, renderer_on, shader_normals, sphere_pixels

from app.material.graph import MaterialGraph
from app.preview import ibl
from app.preview.environment import load_named_environment, uniform_environment
from app.preview.ibl_assets import PrefilterJob, load_brdf_lut
from app.preview.preview_state import environment_maps
from app.preview.renderer import EnvironmentMaps, Renderer
from app.preview.stage import Stage
from app.preview.widget import PreviewWidget

pytestmark = pytest.mark.gl

SIZE = 48


@pytest.fixture(scope="module")
def furnace_maps() -> EnvironmentMaps:
    """A uniform white environment (radiance 1) through the real prefilter."""
    prepared = prefiltered(uniform_environment(1.0))
    return environment_maps(prepared)


@pytest.fixture(scope="module")
def studio():
    return prefiltered("studio")


def _surface(metallic: float, roughness: float, base=(1.0, 1.0, 1.0)) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (*base, 1.0), "metallic": metallic, "roughness": roughness})
    return graph


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_white_furnace(request, gl_fixture: str, furnace_maps: EnvironmentMaps) -> None:
    """Uniform white environment of radiance 1, white base colour, no direct light: a metal reflects
    exactly what arrives at every roughness (multiple-scattering compensation), a dielectric never more."""
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_light(intensity=0.0)
    inner, _, _ = sphere_pixels(renderer, target, SIZE, 0.15)
    for maps, label in ((furnace_maps, "prefiltered"), (EnvironmentMaps.uniform((1.0, 1.0, 1.0)), "one texel")):
        renderer.set_environment_maps(maps)
        for metallic, roughness in itertools.product((1.0, 0.0), (0.0, 0.25, 0.5, 0.75, 1.0)):
            build(renderer, _surface(metallic, roughness), target)
            # The live frame (split sum) and the refined environment light (frames of per-pixel samples).
            for radiance, path in ((renderer.render_linear(SIZE, SIZE), "split sum"),
                                   (renderer.render_linear_refined(SIZE, SIZE, frames=2), "refined")):
                assert np.isfinite(radiance).all()
                values = radiance[inner][:, :3].astype(np.float64)
                if metallic == 1.0:
                    assert np.abs(values - 1.0).max() < 5e-3, (label, path, roughness, values.min(), values.max())
                else:
                    # Never above 1; with the energy-preserving coupling of the diffuse layer, 1 exactly.
                    assert values.max() <= 1.0 + 2e-3, (label, path, roughness, values.max())
                    assert values.min() > 0.99, (label, path, roughness, values.min())


def test_single_scattering_loses_energy_that_the_compensation_returns() -> None:
    """The split-sum table alone (F0 = 1: A + B) loses energy on rough surfaces; documented in docs/preview.md."""
    table = load_brdf_lut()
    grid = np.linspace(0.05, 1.0, 20)
    n_dot_v, roughness = np.meshgrid(grid, grid)
    single = ibl.brdf_lut_lookup(table, n_dot_v, roughness).sum(axis=-1)
    assert single.min() < 0.75  # at roughness 1, grazing: a quarter of the light would be lost
    compensated, _ = ibl.multiple_scattering_ibl(table, np.ones(3), np.zeros(3), n_dot_v, roughness,
                                                 np.ones(n_dot_v.shape + (3,)), np.ones(n_dot_v.shape + (3,)))
    assert np.abs(compensated - 1.0).max() < 1e-6


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_environment_term_matches_the_numpy_lookups(request, gl_fixture: str, studio) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    rotation, intensity = 0.7, 1.3
    environment_lit(renderer, studio, rotation, intensity)
    inner, _, view = sphere_pixels(renderer, target, SIZE, 0.15)
    normals, view = shader_normals(renderer, target, SIZE)[inner], view[inner]
    n_dot_v = np.clip(np.abs(np.einsum("ij,ij->i", normals, view)), 0.0, 1.0)
    chain = [level.astype(np.float64) for level in studio.assets.specular]
    irradiance = ibl.diffuse_radiance(studio.assets.irradiance.astype(np.float64), normals, rotation, intensity)
    table = studio.brdf_lut.astype(np.float16).astype(np.float64)  # the renderer stores it as half floats
    base = np.array([0.9, 0.5, 0.2])
    for metallic, roughness in ((0.0, 0.3), (1.0, 0.05), (1.0, 0.6), (0.5, 1.0)):
        build(renderer, _surface(metallic, roughness, tuple(base)), target)
        measured = renderer.render_linear(SIZE, SIZE)[inner][:, :3].astype(np.float64)
        prefiltered = ibl.prefiltered_radiance(chain, ibl.lobe_direction(normals, view, roughness), roughness, rotation, intensity)
        dielectric_specular, dielectric_diffuse = ibl.multiple_scattering_ibl(
            table, np.full(3, 0.04), base, n_dot_v, roughness, prefiltered, irradiance)
        metal, _ = ibl.multiple_scattering_ibl(table, base, np.zeros(3), n_dot_v, roughness, prefiltered, irradiance)
        expected = (1.0 - metallic) * (dielectric_specular + dielectric_diffuse) + metallic * metal
        error = np.abs(measured - expected)
        # Half-float textures, GPU filtering (8-bit subtexel weights) and float32 directions: within 1%
        # of the value plus 0.002 for 98% of the pixels; the rest sit on the sharp edges of the soft
        # boxes in near-mirror reflections, where they stay within 2% of the brightest value.
        within = error <= 0.01 * np.abs(expected) + 2e-3
        assert within.mean() >= 0.98, (metallic, roughness, within.mean(), error.max())
        assert error.max() <= 0.02 * np.abs(expected).max() + 2e-3, (metallic, roughness, error.max())


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_the_environment_background_turns_with_the_rotation(request, gl_fixture: str, studio) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_environment_maps(environment_maps(studio))
    build(renderer, _surface(0.0, 0.5), target)
    renderer.set_background((0.25, 0.5, 0.75))
    plain = renderer.render_image(64, 64)
    assert tuple(int(c) for c in plain[0, 0]) == (64, 128, 191, 255)
    renderer.set_background_mode("environment")
    first = renderer.render_linear(64, 64)
    renderer.set_environment_settings(rotation=np.pi / 2)
    turned = renderer.render_linear(64, 64)
    corner = (slice(0, 8), slice(0, 8))
    assert (first[corner] >= 0.0).all() and (turned != first).any()  # radiance, not the -1 of "uncovered"
    assert np.isfinite(renderer.render_linear(32, 32)).all()
    # The background is the environment's radiance seen through the pixel (sharp level 0).
    radiance = renderer.render_linear(64, 64)
    ray = _pixel_ray(renderer, 2, 2, 64)
    expected = ibl.background_radiance(studio.assets.specular[0].astype(np.float64), ray, np.pi / 2)
    assert np.allclose(radiance[2, 2, :3], expected, rtol=0.02, atol=2e-3)


def _pixel_ray(renderer: Renderer, row: int, column: int, size: int) -> np.ndarray:
    """The world direction through a pixel centre (row 0 at the top)."""
    x = (column + 0.5) / size * 2.0 - 1.0
    y = 1.0 - (row + 0.5) / size * 2.0
    view = np.array(renderer.camera.view_matrix(), dtype=np.float64)
    view[:3, 3] = 0.0
    projection = np.array(renderer.camera.projection_matrix(1.0), dtype=np.float64)
    far = np.linalg.inv(projection @ view) @ np.array([x, y, 1.0, 1.0])
    return far[:3] / np.linalg.norm(far[:3])


def test_the_widget_prepares_an_environment_without_blocking(qtbot, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("VPL_CACHE_DIR", str(tmp_path / "cache"))  # nothing cached: a real prefilter runs
    widget = PreviewWidget()
    widget.resize(160, 120)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    stage = Stage()
    stage.set_environment("outdoor")
    # The prefilter is held until the widget's thread has run an event: set_stage must return at once.
    turned = threading.Event()
    work = PrefilterJob._work

    def held_work(job: PrefilterJob) -> object:
        assert turned.wait(60), "the widget's event loop did not run while the environment was prepared"
        return work(job)

    monkeypatch.setattr(PrefilterJob, "_work", held_work)
    from PySide6.QtCore import QTimer

    with qtbot.waitSignal(widget.environmentReady, timeout=120_000) as ready:
        widget.set_stage(stage)
        assert widget.preparing_environment
        QTimer.singleShot(0, turned.set)
    assert ready.args == ["outdoor"] and not widget.preparing_environment and widget.environment_note == ""
    assert len(widget.renderer.environment_maps.specular) == ibl.SPECULAR_LEVELS

    broken = tmp_path / "broken.hdr"
    broken.write_bytes(b"#?RADIANCE\nnot really\n")
    stage.set_environment(str(broken))
    with qtbot.waitSignal(widget.environmentFailed, timeout=30_000) as failed:
        widget.set_stage(stage)
    assert "broken.hdr" in failed.args[0] and "broken.hdr" in widget.environment_note
    assert len(widget.renderer.environment_maps.specular) == ibl.SPECULAR_LEVELS  # the previous one stays

    stage.set_environment("none")
    widget.set_stage(stage)
    assert widget.environment_note == "" and len(widget.renderer.environment_maps.specular) == 1


def test_the_bundled_environments_load() -> None:
    for name in ("studio", "outdoor", "neutral"):
        assert load_named_environment(name).width == 1024
