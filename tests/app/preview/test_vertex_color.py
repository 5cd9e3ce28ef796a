"""Vertex colours (issue 17): the Vertex Color node reads vertex input 4, the preview binds a mesh's colours
there and the documented constant (opaque white) for a mesh without; meshes keep their colours through
tangent generation.

References are written from the definitions, not from the code under test:
on a plane whose vertex colours are an affine function of the object
position, the interpolated colour at a pixel is that function of the pixel's
object position (perspective-correct interpolation reproduces affine
functions of position exactly); a mesh without colours reads (1, 1, 1, 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from pbr_testing import CONTEXTS, build, renderer_on, surface_value

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.scene import DEFAULT_VERTEX_COLOR, VERTEX_INPUTS_BY_NAME
from app.preview.mesh import build_mesh
from vpl_core.backends.glsl import compile as compile_glsl

SIZE = 24


def _color_of(positions: np.ndarray) -> np.ndarray:
    """The test's vertex colour: affine in the object position, RGBA, alpha varying too."""
    x, y = positions[..., 0], positions[..., 1]
    return np.stack([(1.0 - x) / 2.0, (1.0 + x) / 2.0, 0.25 + 0.25 * y, 0.6 + 0.3 * y], axis=-1)


def _colored_plane(mirrored: bool = False):
    """A plane in z = 0 facing +z, 3 x 3 vertices, coloured by `_color_of`; `mirrored`: its right half's u
    runs backwards, so tangent generation splits the middle column's vertices."""
    xs, ys = np.meshgrid(np.linspace(-1.0, 1.0, 3), np.linspace(-1.0, 1.0, 3))
    positions = np.stack([xs, ys, np.zeros_like(xs)], axis=-1).reshape(-1, 3)
    u = 0.5 - np.abs(positions[:, 0]) / 2.0 if mirrored else (positions[:, 0] + 1.0) / 2.0
    texcoords = np.stack([u, (positions[:, 1] + 1.0) / 2.0], axis=-1)
    normals = np.tile([0.0, 0.0, 1.0], (9, 1))
    indices = [(r * 3 + c, r * 3 + c + 1, (r + 1) * 3 + c + 1) for r in range(2) for c in range(2)]
    indices += [(r * 3 + c, (r + 1) * 3 + c + 1, (r + 1) * 3 + c) for r in range(2) for c in range(2)]
    return build_mesh("coloured plane", positions, normals, texcoords, np.array(indices), colors=_color_of(positions))


def _vertex_color_graph(port: str) -> MaterialGraph:
    graph = MaterialGraph()
    vertex_color = graph.add_node("vertex_color")
    output = graph.add_node("material_output")
    graph.connect(vertex_color.id, port, output.id, "base_color")
    return graph


def test_the_node_declares_the_colour_input_only_when_used() -> None:
    location = VERTEX_INPUTS_BY_NAME["color"].location
    assert location == 4 and VERTEX_INPUTS_BY_NAME["color"].semantic == "color"
    with_node = compile_glsl(lower(_vertex_color_graph("color")).verified, target="glsl420")
    assert f"layout(location = {location}) in vec4" in with_node.vertex_code
    without = MaterialGraph()
    constant = without.add_node("constant_color", properties={"value": (0.5, 0.5, 0.5, 1.0)})
    output = without.add_node("material_output")
    without.connect(constant.id, "out", output.id, "base_color")
    assert f"layout(location = {location})" not in compile_glsl(lower(without).verified, target="glsl420").vertex_code


def test_colours_follow_vertices_split_by_tangent_generation() -> None:
    mesh = _colored_plane(mirrored=True)
    assert mesh.vertex_count > 9  # the middle column was split
    assert mesh.colors is not None and mesh.colors.dtype == np.float32 and mesh.colors.shape == (mesh.vertex_count, 4)
    assert np.allclose(mesh.colors, _color_of(mesh.positions), atol=1e-6)


def test_rgb_colours_get_alpha_one_and_wrong_shapes_are_refused() -> None:
    positions = np.array([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)])
    normals = np.tile([0.0, 0.0, 1.0], (3, 1))
    texcoords = positions[:, :2]
    rgb = np.array([(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)])
    mesh = build_mesh("rgb", positions, normals, texcoords, np.array([(0, 1, 2)]), colors=rgb)
    assert np.array_equal(mesh.colors, np.concatenate([rgb, np.ones((3, 1))], axis=1).astype(np.float32))
    with pytest.raises(ValueError, match="colors"):
        build_mesh("short", positions, normals, texcoords, np.array([(0, 1, 2)]), colors=rgb[:2])


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_the_preview_binds_the_mesh_colours_and_white_without(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh(_colored_plane())
    renderer.camera.distance = 3.0
    positions = surface_value(renderer, target, "object_position", SIZE)
    covered = (np.abs(positions[:, :, 2]) < 1e-6) & (np.abs(positions[:, :, :2]) < 1.0).all(axis=-1)
    assert covered.sum() > SIZE * SIZE // 4
    expected = _color_of(positions[covered])
    build(renderer, _vertex_color_graph("color"), target)
    colors = renderer.render_linear(SIZE, SIZE)
    assert np.allclose(colors[covered][:, :3], expected[:, :3], atol=2e-4)
    build(renderer, _vertex_color_graph("alpha"), target)
    alpha = renderer.render_linear(SIZE, SIZE)[covered][:, :3]
    assert np.allclose(alpha, np.repeat(expected[:, 3:4], 3, axis=1), atol=2e-4)
    # The built-in plane has no colours: the constant, with the previous mesh's array no longer read.
    renderer.set_mesh("plane")
    plain = surface_value(renderer, target, "object_position", SIZE)
    on_plane = np.abs(plain[:, :, 2]) < 1e-6
    build(renderer, _vertex_color_graph("color"), target)
    white = renderer.render_linear(SIZE, SIZE)[on_plane]
    assert on_plane.sum() > SIZE and np.array_equal(white, np.tile(np.float32(DEFAULT_VERTEX_COLOR), (len(white), 1)))


def test_the_cpu_renderer_binds_the_same() -> None:
    from app.preview.cpu_renderer import CpuRenderer

    renderer = CpuRenderer()
    renderer.set_mesh(_colored_plane())
    renderer.camera.distance = 3.0
    graph = MaterialGraph()
    position, output = graph.add_node("object_position"), graph.add_node("material_output")
    graph.connect(position.id, "out", output.id, "base_color")
    renderer.set_program(lower(graph).verified)
    positions = renderer.render_linear(SIZE, SIZE)[:, :, :3].astype(np.float64)
    covered = (np.abs(positions[:, :, 2]) < 1e-6) & (np.abs(positions[:, :, :2]) < 1.0).all(axis=-1)
    assert covered.sum() > SIZE * SIZE // 4
    renderer.set_program(lower(_vertex_color_graph("color")).verified)
    colors = renderer.render_linear(SIZE, SIZE)
    assert np.allclose(colors[covered][:, :3], _color_of(positions[covered])[:, :3], atol=2e-4)
    renderer.set_mesh("plane")
    white = renderer.render_linear(SIZE, SIZE)
    assert np.array_equal(white[SIZE // 2, SIZE // 2], np.float32(DEFAULT_VERTEX_COLOR))
