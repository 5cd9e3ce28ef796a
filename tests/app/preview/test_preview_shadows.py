"""The key light's shadows and the ground (app/preview/shadows.py) on real OpenGL, desktop 4.2 core and ES 3.2:
the ground under the material ball is darker with shadows than without and the lit side is not; the mesh
shadows itself; the ground's contact occlusion; nothing changes where there is nothing to shadow; the white
furnace through the shadow passes is still 1."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from pbr_testing import CONTEXTS, build, renderer_on

from app.main import main
from app.material.graph import MaterialGraph
from app.preview.images import load_image_rgba
from app.preview.renderer import EnvironmentMaps

pytestmark = pytest.mark.gl

ROOT = Path(__file__).resolve().parents[3]
PAINTED = ROOT / "resources" / "examples" / "painted_metal.vpl"
SIZE = 96


def _ball(tmp_path: Path, name: str, *options: str) -> np.ndarray:
    png = tmp_path / f"{name}.png"
    assert main([str(PAINTED), "--preview-screenshot", str(png), "--size", f"{SIZE}x{SIZE}", "--mesh", "ball", *options]) == 0
    return load_image_rgba(str(png)).astype(int)[..., :3]


def _mesh_mask(tmp_path: Path) -> np.ndarray:
    """The ball's pixels: where the frame differs from the background with the ground off."""
    plain = _ball(tmp_path, "plain", "--ground", "off", "--shadows", "off")
    return np.abs(plain - plain[0, 0]).sum(axis=2) > 0


def test_the_ground_under_the_ball_is_darker_with_shadows_and_the_lit_side_is_not(qapp, tmp_path: Path) -> None:
    mesh = _mesh_mask(tmp_path)
    without = _ball(tmp_path, "without", "--ground", "on", "--shadows", "off")
    with_shadows = _ball(tmp_path, "with", "--ground", "on", "--shadows", "on")
    ground = ~mesh
    darker = (without - with_shadows).sum(axis=2)
    # The cast shadow: a patch of ground clearly darker (the light is upper left in front: it falls right, behind).
    shadowed = ground & (darker > 30)
    assert shadowed.sum() > 0.02 * SIZE * SIZE, shadowed.sum()
    columns = np.flatnonzero(shadowed.any(axis=0))
    assert columns.mean() > SIZE / 2
    assert (darker[ground] >= -1).all()  # never lighter
    # The lit side of the ball (upper left, facing the light) is the same.
    rows, cols = np.nonzero(mesh)
    top, left = rows.min(), cols.min()
    lit_side = np.zeros_like(mesh)
    lit_side[top: top + (rows.max() - top) // 3, left: left + (cols.max() - left) // 2] = True
    lit_side &= mesh
    assert lit_side.sum() > 50
    assert np.abs(with_shadows[lit_side] - without[lit_side]).max() <= 1


def test_the_ball_shadows_itself_and_the_ground_leaves_it_alone(qapp, tmp_path: Path) -> None:
    mesh = _mesh_mask(tmp_path)
    plain = _ball(tmp_path, "plain2", "--ground", "off", "--shadows", "off")
    shadows = _ball(tmp_path, "self", "--ground", "off", "--shadows", "on")
    # The sphere shadows the pedestal below it: some of the ball's pixels are clearly darker, none lighter.
    change = (plain - shadows).sum(axis=2)
    assert (change[mesh] > 30).sum() > 20
    assert (change[mesh] >= -3).all()
    assert (shadows[~mesh] == plain[~mesh]).all()  # without a ground the background is untouched
    ground = _ball(tmp_path, "ground_only", "--ground", "on", "--shadows", "off")
    assert (ground[mesh] == plain[mesh]).all()  # the ground's catcher is not multiplied into the mesh


def test_contact_occlusion_without_the_key_light(qapp, tmp_path: Path) -> None:
    mesh = _mesh_mask(tmp_path)
    dark = _ball(tmp_path, "unlit", "--ground", "on", "--light", "off")
    background = _ball(tmp_path, "unlit_plain", "--ground", "off", "--light", "off")[0, 0]
    # Right under the pedestal the open ground is occluded by the ball; far from it, not at all.
    rows = np.flatnonzero(mesh.any(axis=1))
    columns = np.flatnonzero(mesh[rows[-1]])
    below = dark[rows[-1] + 2, columns.min() + 2: columns.max() - 1]
    assert below.sum(axis=1).mean() < 0.8 * background.sum()
    assert (dark[0] == background).all() and (dark[:, 0] == background).all()
    # Without a key light there is nothing to shadow: shadows on or off give the same frame.
    assert (_ball(tmp_path, "unlit_shadows", "--ground", "on", "--light", "off", "--shadows", "on") == dark).all()


def test_shadows_on_es_are_those_of_desktop(qapp, tmp_path: Path) -> None:
    desktop = _ball(tmp_path, "desktop", "--ground", "on", "--shadows", "on", "--occlusion", "on", "--gl", "desktop")
    es = _ball(tmp_path, "es", "--ground", "on", "--shadows", "on", "--occlusion", "on", "--gl", "es")
    assert np.abs(desktop - es).max() <= 2


def _surface(metallic: float, roughness: float) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (1.0, 1.0, 1.0, 1.0), "metallic": metallic, "roughness": roughness})
    return graph


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_the_white_furnace_through_the_shadow_passes_is_still_one(request, gl_fixture: str) -> None:
    """A black key light still switches the shadow passes on (lit, unlit and emission frames, composite), and
    the sphere's geometry occludes nothing of itself: with nothing but a uniform white environment it reflects
    1 exactly, as without them."""
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_environment_maps(EnvironmentMaps.uniform((1.0, 1.0, 1.0)))
    renderer.set_light(color=(0.0, 0.0, 0.0), intensity=3.0)
    renderer.set_shadows(True, True, True)
    positions = None
    for metallic, roughness in itertools.product((1.0, 0.0), (0.0, 0.5, 1.0)):
        build(renderer, _surface(metallic, roughness), target)
        radiance = renderer.render_linear(48, 48)
        renderer.set_shadows(False, False)
        reference = renderer.render_linear(48, 48)
        renderer.set_shadows(True, True, True)
        if positions is None:
            positions = np.abs(reference[..., :3] - np.asarray(renderer.background)).sum(axis=2) > 1e-3
        assert positions.sum() > 500
        values = radiance[positions][:, :3].astype(np.float64)
        assert np.abs(values - reference[positions][:, :3]).max() < 1e-5
        assert values.max() <= 1.0 + 2e-3 and values.min() > 0.99, (metallic, roughness, values.min(), values.max())


def test_the_geometrys_occlusion_darkens_the_torus_hole_and_not_its_outside(qapp, tmp_path: Path) -> None:
    plastic = ROOT / "resources" / "examples" / "rough_plastic.vpl"

    def torus(name: str, *options: str) -> np.ndarray:
        png = tmp_path / f"{name}.png"
        assert main([str(plastic), "--preview-screenshot", str(png), "--size", f"{SIZE}x{SIZE}", "--mesh", "torus",
                     "--camera", "0,60,3.8", "--light", "off", *options]) == 0
        return load_image_rgba(str(png)).astype(int)[..., :3]

    plain = torus("plain", "--occlusion", "off")
    occluded = torus("occluded", "--occlusion", "on")
    covered = np.abs(plain - plain[0, 0]).sum(axis=2) > 0
    darker = (plain - occluded).sum(axis=2)
    assert (darker[covered] >= -1).all()  # never lighter
    assert (occluded[~covered] == plain[~covered]).all()
    # Seen from above, the ring's inner side (towards the hole) is occluded by the far side of the ring; the
    # outer rim sees open sky.
    middle = SIZE // 2
    row = covered[middle]
    columns = np.flatnonzero(row)
    outer = [columns[0] + 1, columns[-1] - 1]
    hole = np.flatnonzero(~row[columns[0]: columns[-1]]) + columns[0]
    inner = [hole[0] - 2, hole[-1] + 2]
    assert min(darker[middle, c] for c in inner) > 6
    assert max(darker[middle, c] for c in outer) <= 3
