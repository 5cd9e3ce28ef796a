"""The key light's shadows and the ground (app/preview/shadows.py) on real OpenGL, desktop 4.2 core and ES 3.2:
the ground under the material ball is darker with shadows than without and the lit side is not; the mesh
shadows itself; the ground's contact occlusion; nothing changes where there is nothing to shadow; the white
furnace through the shadow passes is still 1."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


#: Frames of the refined environment light in these screenshots (the application's is
#: `app.preview.preview_state.REFINE_FRAMES`, 64). The shadow and occlusion passes run alike in every refined
#: frame and the frames compared share their sample sets, so a few frames check the same; at 64 the frames
#: were nearly all of the file's time.
REFINE_FRAMES = 4

Shot = Callable[..., np.ndarray]


@pytest.fixture(scope="module")
def screenshot(qapp: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shot]:
    """`screenshot(document, *options)`: `vpl-editor DOCUMENT --preview-screenshot` at SIZE with these options
    (RGB, int), drawn once per module: the tests compare several of the same frames (the mesh mask, the ground
    without shadows)."""
    from app.preview import preview_state

    directory = tmp_path_factory.mktemp("shadows")
    frames: dict[tuple[str, ...], np.ndarray] = {}

    def draw(document: Path, *options: str) -> np.ndarray:
        key = (str(document), *options)
        if key not in frames:
            png = directory / f"frame{len(frames)}.png"
            assert main([str(document), "--preview-screenshot", str(png), "--size", f"{SIZE}x{SIZE}", *options]) == 0
            frames[key] = load_image_rgba(str(png)).astype(int)[..., :3]
        return frames[key].copy()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(preview_state, "REFINE_FRAMES", REFINE_FRAMES)
        yield draw


Ball = Callable[..., np.ndarray]


@pytest.fixture
def ball(screenshot: Shot) -> Ball:
    """`ball(*options)`: the painted-metal material ball's screenshot with these options."""
    return lambda *options: screenshot(PAINTED, "--mesh", "ball", *options)


def _mesh_mask(ball: Ball) -> np.ndarray:
    """The ball's pixels: where the frame differs from the background with the ground off."""
    plain = ball("--ground", "off", "--shadows", "off")
    return np.abs(plain - plain[0, 0]).sum(axis=2) > 0


def test_the_ground_under_the_ball_is_darker_with_shadows_and_the_lit_side_is_not(ball: Ball) -> None:
    mesh = _mesh_mask(ball)
    without = ball("--ground", "on", "--shadows", "off")
    with_shadows = ball("--ground", "on", "--shadows", "on")
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


def test_the_ball_shadows_itself_and_the_ground_leaves_it_alone(ball: Ball) -> None:
    mesh = _mesh_mask(ball)
    plain = ball("--ground", "off", "--shadows", "off")
    shadows = ball("--ground", "off", "--shadows", "on")
    # The sphere shadows the pedestal below it: some of the ball's pixels are clearly darker, none lighter.
    change = (plain - shadows).sum(axis=2)
    assert (change[mesh] > 30).sum() > 20
    assert (change[mesh] >= -3).all()
    assert (shadows[~mesh] == plain[~mesh]).all()  # without a ground the background is untouched
    ground = ball("--ground", "on", "--shadows", "off")
    assert (ground[mesh] == plain[mesh]).all()  # the ground's catcher is not multiplied into the mesh


def test_contact_occlusion_without_the_key_light(ball: Ball) -> None:
    mesh = _mesh_mask(ball)
    dark = ball("--ground", "on", "--light", "off")
    background = ball("--ground", "off", "--light", "off")[0, 0]
    # Right under the pedestal the open ground is occluded by the ball; far from it, not at all.
    rows = np.flatnonzero(mesh.any(axis=1))
    columns = np.flatnonzero(mesh[rows[-1]])
    below = dark[rows[-1] + 2, columns.min() + 2: columns.max() - 1]
    assert below.sum(axis=1).mean() < 0.8 * background.sum()
    assert (dark[0] == background).all() and (dark[:, 0] == background).all()
    # Without a key light there is nothing to shadow: shadows on or off give the same frame.
    assert (ball("--ground", "on", "--light", "off", "--shadows", "on") == dark).all()


def test_shadows_on_es_are_those_of_desktop(ball: Ball) -> None:
    desktop = ball("--ground", "on", "--shadows", "on", "--occlusion", "on", "--gl", "desktop")
    es = ball("--ground", "on", "--shadows", "on", "--occlusion", "on", "--gl", "es")
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


def test_the_geometrys_occlusion_darkens_the_torus_hole_and_not_its_outside(screenshot: Shot) -> None:
    plastic = ROOT / "resources" / "examples" / "rough_plastic.vpl"

    def torus(*options: str) -> np.ndarray:
        return screenshot(plastic, "--mesh", "torus", "--camera", "0,60,3.8", "--light", "off", *options)

    plain = torus("--occlusion", "off")
    occluded = torus("--occlusion", "on")
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


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_still_refined_frames_draw_the_depth_passes_once(request, gl_fixture: str) -> None:
    """The shadow map and the ground's two height maps read neither the camera nor the frame's jitter: the
    refined frames of a still view draw them once, and a new light direction draws the shadow map alone again."""
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_shadows(True, True, True)
    build(renderer, _surface(0.0, 0.5), target)
    renderer.render_linear_refined(32, 32, frames=4)
    stage = renderer._stage_passes
    assert stage is not None
    assert stage.depth_renders == 3  # shadow map, height maps below and above
    renderer.render_linear_refined(32, 32, frames=4)
    assert stage.depth_renders == 3
    renderer.set_light_direction((-0.5, 0.6, 0.4))
    renderer.render_linear_refined(32, 32, frames=4)
    assert stage.depth_renders == 4


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_a_new_light_direction_moves_the_kept_shadow(request, gl_fixture: str) -> None:
    """The frame after a light edit is the one a fresh renderer draws with that light (the kept shadow map is
    not reused), and differs from the frame before (the shadow on the ground moved)."""
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_shadows(True, True)
    renderer.set_light(intensity=3.0)
    renderer.set_mesh("cube")  # a sphere's shadow map is the same from every direction
    renderer.set_camera_home((0.0, 50.0, 4.0))  # looking down on the ground
    build(renderer, _surface(0.0, 0.5), target)
    renderer.set_light_direction((1.0, 0.5, 0.3))
    before = renderer.render_image(48, 48)[..., :3].astype(int)
    renderer.set_light_direction((-1.0, 0.5, 0.2))
    after = renderer.render_image(48, 48)[..., :3].astype(int)
    stage = renderer._stage_passes
    assert stage is not None
    stage.release()
    renderer._stage_passes = None
    fresh = renderer.render_image(48, 48)[..., :3].astype(int)
    renderer.set_shadows(False, True)
    plain = renderer.render_image(48, 48)[..., :3].astype(int)
    assert (np.abs(plain - fresh).sum(axis=-1) > 15).sum() > 20  # the shadow is in the frame
    assert (np.abs(after - before).sum(axis=-1) > 15).sum() > 100  # it moved
    assert np.abs(after - fresh).max() <= 1
