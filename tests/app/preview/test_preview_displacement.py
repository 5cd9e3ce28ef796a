"""The Surface Output's "Displacement and bump" on real GL: the vertex stage moves the preview plane by the height
rendered into its buffer, checked against a numpy intersection of the view rays with the displaced plane; the
shadow map and the mask passes see the displaced mesh."""

from __future__ import annotations

import numpy as np
import pytest
from pbr_testing import CONTEXTS, renderer_on, surface_value

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.pass_planner import plan_passes
from app.material.texture_passes import Displacement, displacement_key
from app.preview.cpu_passes import pass_textures, run_plan_cpu
from app.preview.cpu_renderer import CpuRenderer
from app.preview.mesh import plane
from app.preview.renderer import Renderer
from app.preview.texture_passes_gl import schedule_for
from app.session.pass_programs import PassProgramCache
from vpl_core.backends.glsl import compile as compile_glsl

SCALE = 0.3
MID_LEVEL = 0.25


def _ramp_graph(method: str = "displacement_and_bump") -> MaterialGraph:
    """Height = u (a ramp across the plane: the displaced plane is the tilted plane z = (u − mid) · scale); the
    emission is the world position, so each pixel shows where the view ray meets the drawn surface (base
    black, no specular: nothing else lights; the position is offset by +1 to keep it positive)."""
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties={
        "base_color": (0.0, 0.0, 0.0, 1.0), "specular": 0.0, "roughness": 1.0, "height_scale": SCALE,
        "height_mid_level": MID_LEVEL, "displacement_method": method})
    texcoord = graph.add_node("texcoord")
    split = graph.add_node("split")
    graph.connect(texcoord.id, "out", split.id, "vector")
    graph.connect(split.id, "x", output.id, "height")
    position = graph.add_node("world_position")
    offset = graph.add_node("add", properties={"b": (1.0, 1.0, 1.0)})
    graph.connect(position.id, "out", offset.id, "a")
    graph.connect(offset.id, "out", output.id, "emissive_color")
    return graph


def _build(renderer: Renderer, graph: MaterialGraph, target: str) -> None:
    lowered = lower(graph)
    assert lowered.ok, lowered.diagnostics
    renderer.build_program(compile_glsl(lowered.verified, target=target), schedule_for(PassProgramCache.for_graph(graph).get(target)))


def _expected(camera: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Where the ray from the camera through each flat-plane point `base` meets z = ((x + 1) / 2 − mid) · scale."""
    direction = base - camera
    slope = 0.5 * SCALE
    t = ((camera[0] + 1.0) * slope - MID_LEVEL * SCALE - camera[2]) / (direction[..., 2] - direction[..., 0] * slope)
    return np.asarray(camera + direction * t[..., None], dtype=np.float64)


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_displaced_plane_matches_the_tilted_plane_numpy_intersects(request: pytest.FixtureRequest, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh("plane")
    renderer.camera.go_home((35.0, 20.0, 3.4))  # three-quarters: the ramp rises towards +x, away from the camera
    size = 96
    base = surface_value(renderer, target, "world_position", size)
    flat = (np.abs(base[..., 2]) < 1e-6) & (np.abs(base[..., :2]) <= 1.0).all(axis=-1)
    camera = np.asarray(renderer.camera.position, dtype=np.float64)
    # The rays of the pixels that show the flat plane, from the camera through it (the frame's pixel rays).
    expected = _expected(camera, np.where(flat[..., None], base, camera + 1.0))
    renderer.set_background((0.0, 0.0, 0.0))  # the surface values' background is grey: z = 0 is the plane there
    _build(renderer, _ramp_graph(), target)
    shown = renderer.render_linear(size, size)[..., :3].astype(np.float64) - 1.0
    inside = flat & (np.abs(expected[..., :2]) < 0.97).all(axis=-1)
    assert inside.sum() > 0.3 * flat.sum()
    error = np.abs(shown - expected)[inside].max(axis=-1)
    # Linear interpolation of the position across a pixel footprint; the ramp itself is exact.
    assert np.quantile(error, 0.99) < 4e-3, np.quantile(error, 0.99)
    # The move is real: the drawn surface is up to (1 − mid) · scale off the flat plane, and where the flat plane
    # would be seen the drawn z differs by far more than the tolerance.
    assert np.abs(shown[..., 2][inside]).max() > 0.6 * (1.0 - MID_LEVEL) * SCALE
    # The silhouette moved: the far edge (x = 1) rises by 0.75 · scale, so rows the flat plane leaves empty show it.
    drawn = np.abs(shown + 1.0).sum(axis=-1) > 1e-3  # the background is black (before the offset)
    assert (drawn & ~flat).sum() > 20


def test_bump_only_leaves_the_mesh_where_it_is(current_gl: object, request: pytest.FixtureRequest) -> None:
    """The default method draws the plane flat (parallax occlusion mapping moves the shading, not the mesh):
    the pixels it covers are those of the flat plane."""
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_mesh("plane")
    renderer.camera.go_home((35.0, 20.0, 3.4))
    size = 64
    base = surface_value(renderer, target, "world_position", size)
    flat = (np.abs(base[..., 2]) < 1e-6) & (np.abs(base[..., :2]) <= 1.0).all(axis=-1)
    renderer.set_background((0.0, 0.0, 0.0))  # the surface values' background is grey: z = 0 is the plane there
    _build(renderer, _ramp_graph("bump_only"), target)
    assert not renderer.fine_mesh
    frame = renderer.render_linear(size, size)
    shown = frame[..., :3].astype(np.float64)
    drawn = np.abs(shown).sum(axis=-1) > 1e-3
    assert (drawn != flat).mean() < 0.01


def test_the_cpu_preview_displaces_the_plane_as_the_gl_preview_does() -> None:
    """The interpreter runs the vertex stage too: with the height buffer `run_plan_cpu` renders, the CPU preview
    shows the same tilted plane (the same numpy intersection)."""
    renderer = CpuRenderer()
    renderer.set_mesh("plane")
    renderer.camera.go_home((35.0, 20.0, 3.4))
    size = 24
    positions = MaterialGraph()
    value = positions.add_node("world_position")
    unlit = positions.add_node("material_output")
    positions.connect(value.id, "out", unlit.id, "base_color")
    renderer.set_program(lower(positions).verified)
    base = renderer.render_linear(size, size)[..., :3].astype(np.float64)
    flat = (np.abs(base[..., 2]) < 1e-6) & (np.abs(base[..., :2]) <= 1.0).all(axis=-1)
    camera = np.asarray(renderer.camera.position, dtype=np.float64)
    expected = _expected(camera, np.where(flat[..., None], base, camera + 1.0))
    graph = _ramp_graph()
    lowered = lower(graph)
    plan = plan_passes(graph)
    assert lowered.verified is not None and [each.key for each in plan.passes] == [displacement_key("n1")]
    renderer.set_program(lowered.verified)
    renderer.set_pass_textures(pass_textures(plan, run_plan_cpu(plan, renderer.parameters)), plan.displacement)
    # What the shadow and ground passes draw: the mesh moved as the vertex stage moves it.
    mesh = renderer.mesh()
    moved = renderer.displaced_positions()
    assert np.abs(moved[:, :2] - mesh.positions[:, :2]).max() < 1e-6
    inner = np.abs(mesh.texcoords[:, 0] - 0.5) < 0.49
    assert np.abs(moved[:, 2] - (mesh.texcoords[:, 0] - MID_LEVEL) * SCALE)[inner].max() < 1e-4
    shown = renderer.render_linear(size, size)[..., :3].astype(np.float64) - 1.0
    inside = flat & (np.abs(expected[..., :2]) < 0.95).all(axis=-1)
    assert inside.sum() > 0.3 * flat.sum()
    assert np.quantile(np.abs(shown - expected)[inside].max(axis=-1), 0.99) < 4e-3
    assert np.abs(shown[..., 2][inside]).max() > 0.6 * (1.0 - MID_LEVEL) * SCALE


CELLS = 4.0


def test_the_shadow_map_sees_the_displaced_mesh(current_gl: object, request: pytest.FixtureRequest) -> None:
    """A checker height raises every other cell by the scale; lit from +x at 37 degrees, each raised cell casts a
    shadow scale / tan(37°) long onto the low cell before it (towards -x). With the key light's shadows on, the
    low cells are dark there and not farther away: only a displaced shadow map has those walls."""
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_mesh("plane")
    renderer.camera.go_home((0.0, 0.0, 3.0))
    renderer.set_light_direction((0.8, 0.0, 0.6))
    size = 128
    base = surface_value(renderer, target, "world_position", size)
    flat = (np.abs(base[..., 2]) < 1e-6) & (np.abs(base[..., :2]) <= 1.0).all(axis=-1)
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties={
        "base_color": (0.8, 0.8, 0.8, 1.0), "roughness": 0.7, "height_scale": 0.1, "height_mid_level": 0.0,
        "displacement_method": "displacement_and_bump"})
    checker = graph.add_node("checker", properties={"scale": CELLS, "color_a": (0.0, 0.0, 0.0, 1.0),
                                                    "color_b": (1.0, 1.0, 1.0, 1.0)})
    graph.connect(checker.id, "out", output.id, "height")
    _build(renderer, graph, target)
    assert renderer.fine_mesh  # the schedule displaces: the built-in meshes' finer versions are drawn
    renderer.set_shadows(False, False)
    open_frame = renderer.render_linear(size, size)[..., :3].mean(axis=-1)
    renderer.set_shadows(True, False)
    shadowed = renderer.render_linear(size, size)[..., :3].mean(axis=-1)
    uv = (base[..., :2] + 1.0) * 0.5 * CELLS
    low = np.mod(np.floor(uv[..., 0]) + np.floor(uv[..., 1]), 2.0) == 0.0
    to_wall = (np.floor(uv[..., 0]) + 1.0 - uv[..., 0]) / CELLS * 2.0  # world units to the raised cell at +x
    inside_row = np.abs(uv[..., 1] - np.round(uv[..., 1])) > 0.12  # away from the cells' other walls
    has_wall = np.floor(uv[..., 0]) + 1.0 < CELLS
    length = 0.1 / 0.75
    candidates = flat & low & inside_row & has_wall & (to_wall > 0.04)
    dark = candidates & (to_wall < 0.6 * length)
    lit = candidates & (to_wall > 1.6 * length)
    assert dark.sum() > 50 and lit.sum() > 50
    assert np.median(shadowed[dark] / open_frame[dark]) < 0.7
    # A new height (other cells raised) draws the shadow map again: the frame is the one fresh passes draw.
    checker.properties["scale"] = CELLS * 2.0
    _build(renderer, graph, target)
    moved = renderer.render_linear(size, size)[..., :3]
    assert renderer._stage_passes is not None
    renderer._stage_passes.release()
    renderer._stage_passes = None
    fresh = renderer.render_linear(size, size)[..., :3]
    assert np.abs(moved.mean(axis=-1) - shadowed).max() > 0.1
    assert np.abs(moved - fresh).max() < 1e-5
    assert np.median(shadowed[lit] / open_frame[lit]) > 0.95


def test_a_displacing_material_draws_the_finer_sphere() -> None:
    renderer = CpuRenderer()
    renderer.set_mesh("sphere")
    coarse = renderer.mesh().vertex_count
    renderer.set_pass_textures({}, Displacement("n1/displacement", 0.1, 0.5))
    assert renderer.mesh().vertex_count == 257 * 129 and coarse == 65 * 33
    renderer.set_pass_textures({})
    assert renderer.mesh().vertex_count == coarse
    imported = plane(segments=2)
    renderer.set_mesh(imported)
    renderer.set_pass_textures({}, Displacement("n1/displacement", 0.1, 0.5))
    assert renderer.mesh() is imported  # an imported mesh is displaced at its own vertices
