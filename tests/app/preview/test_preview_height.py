"""The Surface Output's height on real GL: parallax occlusion mapping against a numpy ray-heightfield
intersection, self-shadowing and the bump, and materials without a height unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from pbr_testing import CONTEXTS, build, renderer_on, surface_value

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from vpl_core.backends.glsl import compile as compile_glsl

CELLS = 4.0
SCALE = 0.1


def _checker_height_graph(scale: float = SCALE, mid_level: float = 0.0, shade: bool = False) -> MaterialGraph:
    """A checkerboard height (0 / 1, CELLS cells per UV unit) on the Surface Output; its emission is the same
    checker, so each pixel shows the cell the view ray hits (base black, no specular: nothing else lights)."""
    graph = MaterialGraph()
    properties = {"base_color": (0.0, 0.0, 0.0, 1.0), "specular": 0.0, "roughness": 1.0,
                  "height_scale": scale, "height_mid_level": mid_level}
    if shade:
        properties = {"base_color": (0.8, 0.8, 0.8, 1.0), "roughness": 0.6, "emissive_strength": 0.0,
                      "height_scale": scale, "height_mid_level": mid_level}
    output = graph.add_node("surface_output", properties=properties)
    checker = graph.add_node("checker", properties={"scale": CELLS, "color_a": (0.0, 0.0, 0.0, 1.0), "color_b": (1.0, 1.0, 1.0, 1.0)})
    graph.connect(checker.id, "out", output.id, "height")
    if not shade:
        graph.connect(checker.id, "out", output.id, "emissive_color")
    return graph


def _on_plane(base: np.ndarray) -> np.ndarray:
    """Pixels that show the plane (the unlit world-position frame is the background colour elsewhere)."""
    return (np.abs(base[..., 2]) < 1e-6) & (np.abs(base[..., :2]) <= 1.0).all(axis=-1)


def _checker(points: np.ndarray) -> np.ndarray:
    """The checker's value at plane points (x, y): u = (x + 1) / 2, v = (y + 1) / 2 on the preview's plane."""
    cells = np.floor((points[..., :2] + 1.0) * 0.5 * CELLS)
    return np.mod(cells[..., 0] + cells[..., 1], 2.0)


def _expected_hits(camera: np.ndarray, base: np.ndarray, scale: float, mid_level: float) -> tuple[np.ndarray, np.ndarray]:
    """March each view ray (camera through the pixel's point on the flat plane) through the height field
    z = (checker − mid) · scale in tiny steps: the checker value where it first goes under, and the distance of
    that hit from a cell border in UV (to leave out pixels that a rounding can put either side of a wall)."""
    direction = base - camera
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    top, bottom = (1.0 - mid_level) * scale, -mid_level * scale
    # From where the ray crosses the top of the field down to where it crosses the bottom.
    start = camera + direction * ((top - camera[..., 2]) / direction[..., 2])[..., None]
    end = camera + direction * ((bottom - camera[..., 2]) / direction[..., 2])[..., None]
    samples = 4000
    found = np.zeros(base.shape[:-1], dtype=bool)
    hit = end.copy()
    for index in range(samples + 1):
        point = start + (end - start) * (index / samples)
        under = (~found) & (point[..., 2] <= (_checker(point) - mid_level) * scale)
        hit[under] = point[under]
        found |= under
    uv = (hit[..., :2] + 1.0) * 0.5 * CELLS
    border = np.minimum(np.abs(uv - np.round(uv)).min(axis=-1), 1.0) / CELLS
    return _checker(hit), border


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_parallax_occlusion_of_a_checker_height_matches_the_ray_heightfield_intersection(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh("plane")
    renderer.camera.go_home((62.0, 10.0, 3.2))  # a grazing view: the plane tilted well away from the camera
    size = 160
    base = surface_value(renderer, target, "world_position", size)
    covered = _on_plane(base)
    build(renderer, _checker_height_graph(), target)
    frame = renderer.render_linear(size, size)
    camera = np.asarray(renderer.camera.position, dtype=np.float64)
    expected, border = _expected_hits(camera, base, SCALE, 0.0)
    shown = frame[..., 0] > 0.5
    usable = covered & (border > 0.004)
    assert usable.sum() > 0.4 * covered.sum()
    agreement = (shown == (expected > 0.5))[usable].mean()
    assert agreement > 0.99
    # The offset is real: without parallax (the flat plane's own checker) a good share of the pixels differs.
    flat = _checker(base) > 0.5
    assert (flat != (expected > 0.5))[usable].mean() > 0.1
    assert (shown != flat)[usable].mean() > 0.1


def test_mid_level_moves_the_field_and_scale_zero_is_flat(current_gl, request) -> None:
    """Mid level 1 sinks the cells into the surface (same walls, other places); scale 0 shows the flat checker."""
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_mesh("plane")
    renderer.camera.go_home((62.0, 10.0, 3.2))
    size = 96
    base = surface_value(renderer, target, "world_position", size)
    covered = _on_plane(base)
    camera = np.asarray(renderer.camera.position, dtype=np.float64)
    build(renderer, _checker_height_graph(mid_level=1.0), target)
    shown = renderer.render_linear(size, size)[..., 0] > 0.5
    expected, border = _expected_hits(camera, base, SCALE, 1.0)
    usable = covered & (border > 0.006)
    assert (shown == (expected > 0.5))[usable].mean() > 0.99
    build(renderer, _checker_height_graph(scale=0.0), target)
    flat = renderer.render_linear(size, size)[..., 0] > 0.5
    assert (flat == (_checker(base) > 0.5))[covered].mean() > 0.995


def test_self_shadowing_darkens_the_low_cells_beside_the_walls_away_from_the_light(current_gl, request) -> None:
    """Lit from the side at a low angle, the low cells are darker next to a raised cell that stands between
    them and the light than in the middle; the raised cells' tops are not shadowed."""
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_mesh("plane")
    renderer.camera.go_home((0.0, 0.0, 3.0))  # straight on: no parallax shift, the hit is the pixel's own cell
    renderer.set_light_direction((0.8, 0.0, 0.6))  # from +x, 37 degrees above the plane
    size = 128
    base = surface_value(renderer, target, "world_position", size)
    covered = _on_plane(base)
    build(renderer, _checker_height_graph(scale=0.1, shade=True), target)
    frame = renderer.render_linear(size, size)[..., 0]
    uv = (base[..., :2] + 1.0) * 0.5 * CELLS
    within = uv - np.floor(uv)
    low = covered & (_checker(base) < 0.5)
    high = covered & (_checker(base) > 0.5)
    # A low cell's neighbour towards +x (towards the light) is raised: its shadow reaches scale / tan(37°)
    # = 0.133 world units = 0.27 cells into the low cell from its +x side.
    shadowed = low & (within[..., 0] > 0.85) & (within[..., 1] > 0.2) & (within[..., 1] < 0.8)
    open_ground = low & (within[..., 0] > 0.2) & (within[..., 0] < 0.6) & (within[..., 1] > 0.2) & (within[..., 1] < 0.8)
    assert frame[shadowed].mean() < 0.6 * frame[open_ground].mean()
    tops = high & (np.abs(within - 0.5) < 0.3).all(axis=-1)
    assert frame[tops].std() < 0.02 * frame[tops].mean()


def test_a_material_without_height_lowers_to_the_same_code() -> None:
    """An unconnected height (whatever its scale) changes nothing: existing materials keep their GLSL."""
    graph = MaterialGraph()
    output = graph.add_node("surface_output")
    checker = graph.add_node("checker")
    graph.connect(checker.id, "out", output.id, "base_color")
    plain = compile_glsl(lower(graph).verified, target="glsl420").fragment_code
    output.properties["height_scale"] = 0.3
    assert compile_glsl(lower(graph).verified, target="glsl420").fragment_code == plain
    assert "dFdx" not in plain


def test_the_cpu_interpreter_draws_the_height_as_the_gpu_does(current_gl) -> None:
    """The loops, the refinement and the moved inputs run on the interpreter too."""
    from app.preview.cpu_renderer import CpuRenderer
    from app.preview.renderer import Renderer

    result = lower(_checker_height_graph())
    assert result.ok, result.diagnostics
    gpu = Renderer()
    try:
        gpu.set_mesh("plane")
        gpu.camera.go_home((62.0, 10.0, 3.2))
        gpu.build_program(compile_glsl(result.verified, target="glsl420"))
        expected = gpu.render_linear(40, 40)[:, :, :3]
    finally:
        gpu.release()
    cpu = CpuRenderer()
    cpu.set_program(result.verified)
    cpu.set_mesh("plane")
    cpu.camera.go_home((62.0, 10.0, 3.2))
    measured = cpu.render_linear(40, 40)[:, :, :3]
    assert (np.abs(measured - expected) < 1e-3).all(axis=2).mean() > 0.97
