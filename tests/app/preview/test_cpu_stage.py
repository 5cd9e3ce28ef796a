"""The CPU preview's stage (app/preview/cpu_stage.py): the key light's shadows on the mesh and the ground, the
ground's contact occlusion, the geometry's occlusion, the fill and rim lights, and the height's parallax
occlusion mapping, all drawn by the VPL interpreter. Checked against the same expectations as the GL preview's
(test_preview_shadows.py, test_preview_height.py: a numpy ray march through the height field) and, on real GL,
against the GL preview's frame."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import app.preview.context as context_module
import app.preview.screenshot as screenshot_module
from app.main import main
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.context import ENVIRONMENT_VARIABLE, clear_probes
from app.preview.cpu_renderer import CpuRenderer
from app.preview.cpu_stage import nearest_fragments
from app.preview.images import load_image_rgba
from app.preview.renderer import EnvironmentMaps
from app.preview.screenshot import read_program
from app.preview.stage import Stage

ROOT = Path(__file__).resolve().parents[3]
PAINTED = ROOT / "resources" / "examples" / "painted_metal.vpl"
SIZE = 72


def _ball(*, shadows: bool, ground: bool, occlusion: bool = False, light: bool = True) -> np.ndarray:
    """Painted metal on the ball with the default stage, drawn by the interpreter: RGB ints, top row first."""
    verified, _parameters = read_program(str(PAINTED))
    renderer = CpuRenderer()
    Stage().apply(renderer)
    renderer.set_mesh("ball")
    renderer.set_shadows(shadows, ground, occlusion)
    if not light:
        renderer.light_intensity = 0.0
    renderer.set_program(verified)
    return renderer.render_image(SIZE, SIZE)[..., :3].astype(int)


def test_the_ground_under_the_ball_is_darker_with_shadows_and_the_lit_side_is_not() -> None:
    plain = _ball(shadows=False, ground=False)
    mesh = np.abs(plain - plain[0, 0]).sum(axis=2) > 0
    without = _ball(shadows=False, ground=True)
    with_shadows = _ball(shadows=True, ground=True)
    ground = ~mesh
    darker = (without - with_shadows).sum(axis=2)
    # The cast shadow: a patch of ground clearly darker, to the right (the light is upper left, in front).
    shadowed = ground & (darker > 30)
    assert shadowed.sum() > 0.02 * SIZE * SIZE, shadowed.sum()
    assert np.flatnonzero(shadowed.any(axis=0)).mean() > SIZE / 2
    assert (darker[ground] >= -1).all()  # never lighter
    # The lit side of the ball (upper left, facing the light) is the same.
    rows, cols = np.nonzero(mesh)
    top, left = rows.min(), cols.min()
    lit_side = np.zeros_like(mesh)
    lit_side[top: top + (rows.max() - top) // 3, left: left + (cols.max() - left) // 2] = True
    lit_side &= mesh
    assert lit_side.sum() > 30
    assert np.abs(with_shadows[lit_side] - without[lit_side]).max() <= 1
    # The sphere shadows the pedestal below it: some of the ball's own pixels are darker, none lighter.
    change = (plain - _ball(shadows=True, ground=False)).sum(axis=2)
    assert (change[mesh] > 30).sum() > 10
    assert (change[mesh] >= -3).all()


def test_contact_occlusion_under_the_ball_without_the_key_light() -> None:
    plain = _ball(shadows=False, ground=False, light=False)
    mesh = np.abs(plain - plain[0, 0]).sum(axis=2) > 0
    dark = _ball(shadows=False, ground=True, light=False)
    rows = np.flatnonzero(mesh.any(axis=1))
    columns = np.flatnonzero(mesh[rows[-1]])
    below = dark[rows[-1] + 1, columns.min() + 2: columns.max() - 1]
    assert below.sum(axis=1).mean() < 0.8 * plain[0, 0].sum()
    assert (dark[0] == plain[0, 0]).all() and (dark[:, 0] == plain[0, 0]).all()
    assert (dark[mesh] == plain[mesh]).all()  # the catcher is not multiplied into the mesh


def _surface(metallic: float, roughness: float) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (1.0, 1.0, 1.0, 1.0), "metallic": metallic, "roughness": roughness})
    return graph


def test_the_white_furnace_is_one_with_and_without_the_stage_passes() -> None:
    """In a uniform white environment a white surface reflects 1 exactly with shadows and occlusion off, and
    still through the stage's passes (a black key light switches them on; the sphere occludes nothing of itself)."""
    renderer = CpuRenderer()
    renderer.set_environment_maps(EnvironmentMaps.uniform((1.0, 1.0, 1.0)))
    renderer.set_light(color=(0.0, 0.0, 0.0), intensity=3.0)
    positions = None
    for metallic, roughness in itertools.product((1.0, 0.0), (0.0, 1.0)):
        result = lower(_surface(metallic, roughness))
        assert result.ok, result.diagnostics
        renderer.set_program(result.verified)
        renderer.set_shadows(False, False, False)
        plain = renderer.render_linear(32, 32)
        renderer.set_shadows(True, True, True)
        staged = renderer.render_linear(32, 32)
        if positions is None:
            positions = np.abs(plain[..., :3] - np.asarray(renderer.background)).sum(axis=2) > 1e-3
        assert positions.sum() > 200
        for frame in (plain, staged):
            values = frame[positions][:, :3].astype(np.float64)
            assert values.max() <= 1.0 + 2e-3 and values.min() > 0.99, (metallic, roughness, values.min(), values.max())
        assert np.abs(staged[positions] - plain[positions]).max() < 1e-5


def test_the_fill_and_rim_lights_add_light_on_the_cpu() -> None:
    verified, _parameters = read_program(str(PAINTED))
    renderer = CpuRenderer()
    renderer.set_program(verified)
    renderer.light_intensity = 0.0
    dark = renderer.render_linear(32, 32)
    stage = Stage()
    stage.set_extra_light("fill", enabled=True)
    stage.set_extra_light("rim", enabled=True)
    stage.apply(renderer)
    renderer.light_intensity = 0.0
    assert len(renderer.extra_lights) == 2
    lit = renderer.render_linear(32, 32)
    covered = np.abs(dark[..., :3] - np.asarray(renderer.background)).sum(axis=2) > 1e-3
    gain = (lit - dark)[..., :3].sum(axis=2)
    assert (gain[covered] >= -1e-5).all()
    assert (gain[covered] > 1e-3).mean() > 0.5
    assert (gain[~covered] == 0).all()


CELLS = 4.0
HEIGHT_SCALE = 0.1


def test_parallax_occlusion_of_a_checker_height_on_the_cpu_matches_the_ray_march() -> None:
    """A checker height under parallax occlusion mapping, seen at a grazing angle: each pixel shows the cell the
    view ray hits in the height field (numpy ray march, as the GL test), not the flat plane's cell."""
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties={
        "base_color": (0.0, 0.0, 0.0, 1.0), "specular": 0.0, "roughness": 1.0,
        "height_scale": HEIGHT_SCALE, "height_mid_level": 0.0})
    checker = graph.add_node("checker", properties={"scale": CELLS, "color_a": (0.0, 0.0, 0.0, 1.0),
                                                    "color_b": (1.0, 1.0, 1.0, 1.0)})
    graph.connect(checker.id, "out", output.id, "height")
    graph.connect(checker.id, "out", output.id, "emissive_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    renderer = CpuRenderer()
    renderer.set_mesh("plane")
    renderer.camera.go_home((62.0, 10.0, 3.2))
    renderer.set_program(result.verified)
    size = 64
    frame = renderer.render_linear(size, size)
    # The flat plane's point under each pixel (the rasteriser's nearest fragment, top row first).
    mesh = renderer.mesh()
    scene = renderer.scene_values(size, size)
    matrix = np.asarray(scene["projection"], dtype=np.float64) @ np.asarray(scene["view"], dtype=np.float64)
    points = np.hstack([mesh.positions.astype(np.float64), np.ones((mesh.vertex_count, 1))]) @ matrix.T
    triangles = mesh.indices.reshape(-1, 3).astype(np.int64)
    fragments = nearest_fragments(points, triangles, size, size)
    base = np.full((size, size, 3), np.nan)
    base[size - 1 - fragments.y, fragments.x] = np.einsum("nk,nkj->nj", fragments.weights,
                                                          mesh.positions.astype(np.float64)[triangles[fragments.triangle]])
    covered = ~np.isnan(base[..., 0])
    camera = np.asarray(renderer.camera.position, dtype=np.float64)
    expected, border = _expected_hits(camera, np.where(covered[..., None], base, 0.0), HEIGHT_SCALE)
    shown = frame[..., 0] > 0.5
    usable = covered & (border > 0.006)
    assert usable.sum() > 0.4 * covered.sum()
    assert (shown == (expected > 0.5))[usable].mean() > 0.98
    flat = _checker(base) > 0.5
    assert (flat != (expected > 0.5))[usable].mean() > 0.1  # the offset is real
    assert (shown != flat)[usable].mean() > 0.1


def _checker(points: np.ndarray) -> np.ndarray:
    cells = np.floor((points[..., :2] + 1.0) * 0.5 * CELLS)
    values: np.ndarray = np.mod(cells[..., 0] + cells[..., 1], 2.0)
    return values


def _expected_hits(camera: np.ndarray, base: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The checker value where each view ray first goes under z = checker * scale, and that hit's distance from
    a cell border in UV (test_preview_height.py's march)."""
    direction = base - camera
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        start = camera + direction * ((scale - camera[..., 2]) / direction[..., 2])[..., None]
        end = camera + direction * ((0.0 - camera[..., 2]) / direction[..., 2])[..., None]
    samples = 2000
    found = np.zeros(base.shape[:-1], dtype=bool)
    hit = end.copy()
    for index in range(samples + 1):
        point = start + (end - start) * (index / samples)
        under = (~found) & (point[..., 2] <= _checker(point) * scale)
        hit[under] = point[under]
        found |= under
    uv = (hit[..., :2] + 1.0) * 0.5 * CELLS
    border = np.minimum(np.abs(uv - np.round(uv)).min(axis=-1), 1.0) / CELLS
    return _checker(hit), border


@pytest.mark.gl
def test_the_cpu_stage_draws_the_gl_stage(qapp: object, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The same frame of painted metal with shadows, ground, occlusion, fill and rim from `--preview-screenshot`
    on GL and with no OpenGL context (the CPU interpreter): the same picture but for the penumbrae (the CPU's
    shadow map is half the GL one's resolution)."""
    options = ("--size", f"{SIZE}x{SIZE}", "--mesh", "ball", "--shadows", "on", "--ground", "on", "--occlusion", "on",
               "--fill", "on", "--rim", "on")

    def shot(name: str) -> np.ndarray:
        png = tmp_path / f"{name}.png"
        assert main([str(PAINTED), "--preview-screenshot", str(png), *options]) == 0
        return load_image_rgba(str(png)).astype(int)[..., :3]

    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    # The interpreter draws the live frame (the split sum); so does the GPU here, without the refined variant.
    monkeypatch.setattr(screenshot_module, "document_refined", lambda source_path, target: None)
    clear_probes()
    try:
        gpu = shot("gpu")
        monkeypatch.setattr(context_module, "create_context", lambda profile: None)
        clear_probes()
        cpu = shot("cpu")
    finally:
        clear_probes()
    error = capsys.readouterr().err
    assert "rendering with the CPU interpreter" in error
    assert "draws no shadows" not in error and "key light only" not in error
    # Painted metal alone differs by up to 15 levels in a few per cent of the pixels (its texture noise and
    # highlights); the stage's passes add a little on the ball's edges and the penumbrae.
    difference = np.abs(gpu - cpu).max(axis=2)
    assert (difference <= 3).mean() > 0.9, (difference <= 3).mean()
    assert np.percentile(difference, 99.5) <= 12
    # The cast shadow and the contact shadow are the GL ones: the ground right of the ball (row by row mean).
    ground = slice(SIZE * 3 // 4, SIZE), slice(SIZE // 2, SIZE)
    assert np.abs(gpu[ground].mean(axis=(1, 2)) - cpu[ground].mean(axis=(1, 2))).max() < 2.0
