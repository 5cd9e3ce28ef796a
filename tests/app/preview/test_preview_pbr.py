"""The Surface Output on real OpenGL (desktop 4.2+ core and ES 3.2, Mesa llvmpipe) against numpy references.

The references (`pbr_reference.py`) are written from the glTF 2.0 Appendix B
formulas, IEC 61966-2-1 and the tone mappers' published formulas, never
from the project's VPL or GLSL. Radiance is read back as float32 from an
RGBA32F framebuffer (`Renderer.render_linear`); displayed pixels (post
pass) as RGBA8.
"""

from __future__ import annotations

import itertools

import numpy as np
import pbr_reference as reference
import pytest
from pbr_testing import CONTEXTS, build, renderer_on, surface_value

from app.material.document import load_text, save_text
from app.material.graph import MaterialGraph
from app.material.groups import group_nodes
from app.material.lowering import lower
from app.preview.cpu_renderer import CpuRenderer
from app.preview.mesh import build_mesh
from app.preview.renderer import Renderer
from vpl_core.backends.glsl import compile as compile_glsl

pytestmark = pytest.mark.gl

LIGHT_INTENSITY = 2.5
RELATIVE = 1e-3
#: Values below this are compared absolutely (a relative error of 1e-3 of ~0 means nothing).
ABSOLUTE_FLOOR = 1e-5


def _world_positions(renderer: Renderer, target: str, size: int) -> np.ndarray:
    """World position per pixel: an unlit material writing it, read back as floats."""
    return surface_value(renderer, target, "world_position", size)


def _surface_graph() -> MaterialGraph:
    """Surface Output with base colour, metallic, roughness and a world-space normal from parameters."""
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties={"emissive_strength": 0.0})
    base = graph.add_node("color_parameter", properties={"name": "base", "default": (0.8, 0.8, 0.8, 1.0)})
    metallic = graph.add_node("float_parameter", properties={"name": "metallic", "default": 0.0})
    roughness = graph.add_node("float_parameter", properties={"name": "roughness", "default": 0.5})
    normal = graph.add_node("vector_parameter", properties={"name": "normal_direction", "default": (0.0, 0.0, 1.0, 0.0), "minimum": -1.0})
    graph.connect(base.id, "out", output.id, "base_color")
    graph.connect(metallic.id, "out", output.id, "metallic")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(normal.id, "out", output.id, "normal")
    return graph


def _assert_close(measured: np.ndarray, expected: np.ndarray, what: str) -> None:
    error = np.abs(measured - expected)
    allowed = np.maximum(RELATIVE * np.abs(expected), ABSOLUTE_FLOOR)
    worst = np.unravel_index(np.argmax(error / allowed), error.shape)
    assert (error <= allowed).all(), (
        f"{what}: at {worst} measured {measured[worst]!r}, reference {expected[worst]!r} "
        f"(relative error {error[worst] / max(abs(expected[worst]), 1e-30):.2e})"
    )


def _directions(theta_degrees: float, phi_degrees: float) -> tuple[float, float, float]:
    theta, phi = np.radians(theta_degrees), np.radians(phi_degrees)
    return (float(np.sin(theta) * np.cos(phi)), float(np.sin(theta) * np.sin(phi)), float(np.cos(theta)))


# The BRDF grid -------------------------------------------------------------------------------

BASE_COLOURS = [(1.0, 1.0, 1.0), (0.9, 0.6, 0.2), (0.05, 0.3, 0.8)]
METALLIC = [0.0, 0.5, 1.0]
ROUGHNESS = [0.0, 0.2, 0.5, 1.0]
#: (normal, light) directions: N·V from 1 to grazing (the camera looks along -z), N·L from 1 to
#: behind the surface, and an off-specular configuration.
GEOMETRY = [
    (_directions(0, 0), _directions(0, 0)),
    (_directions(0, 0), _directions(50, 90)),
    (_directions(35, 0), _directions(70, 180)),
    (_directions(60, 90), _directions(20, -90)),
    (_directions(80, 0), _directions(80, 0)),
    (_directions(45, 45), _directions(120, 0)),  # light behind the surface: black
]


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_surface_output_matches_the_appendix_b_reference(request, gl_fixture: str) -> None:
    size = 12
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh("plane")
    renderer.set_light(color=(1.0, 1.0, 1.0), intensity=LIGHT_INTENSITY)
    renderer.set_ambient((0.0, 0.0, 0.0))
    positions = _world_positions(renderer, target, size)
    covered = np.abs(positions[:, :, 2]) < 1e-6  # pixels on the plane (z = 0); the rest is background
    assert covered.mean() > 0.3
    view = positions[covered]
    view = reference._unit(np.asarray(renderer.camera.position, dtype=np.float64) - view)
    build(renderer, _surface_graph(), target)
    links = renderer.link_count
    compared = 0
    for base, metallic, roughness, (normal, light) in itertools.product(BASE_COLOURS, METALLIC, ROUGHNESS, GEOMETRY):
        renderer.set_parameter("base", (*base, 1.0))
        renderer.set_parameter("metallic", metallic)
        renderer.set_parameter("roughness", roughness)
        renderer.set_parameter("normal_direction", normal)
        renderer.set_light_direction(light)
        measured = renderer.render_linear(size, size)[covered][:, :3].astype(np.float64)
        expected = reference.direct_radiance(
            np.broadcast_to(normal, view.shape), view, np.asarray(light) / np.linalg.norm(light),
            base, metallic, roughness, LIGHT_INTENSITY)
        _assert_close(measured, expected, f"base {base}, metallic {metallic}, roughness {roughness}, N {normal}, L {light}")
        compared += measured.size
    assert renderer.link_count == links  # every case is a parameter change
    assert compared > 10_000


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_no_nan_or_inf_on_a_sphere_at_the_extremes(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    graph = MaterialGraph()
    output = graph.add_node("surface_output")
    base = graph.add_node("color_parameter", properties={"name": "base"})
    metallic = graph.add_node("float_parameter", properties={"name": "metallic"})
    roughness = graph.add_node("float_parameter", properties={"name": "roughness"})
    graph.connect(base.id, "out", output.id, "base_color")
    graph.connect(metallic.id, "out", output.id, "metallic")
    graph.connect(roughness.id, "out", output.id, "roughness")
    build(renderer, graph, target)
    camera_direction = tuple(np.asarray(renderer.camera.position) / np.linalg.norm(renderer.camera.position))
    lights = [(0.0, 1.0, 0.0), camera_direction, tuple(-c for c in camera_direction), (1.0, 0.0, 0.0), (0.0, 0.0, -1.0)]
    for base_value, metallic_value, roughness_value, light in itertools.product(
        [(0.0, 0.0, 0.0, 1.0), (1.0, 1.0, 1.0, 1.0)], [0.0, 1.0], [0.0, 1.0], lights
    ):
        renderer.set_parameter("base", base_value)
        renderer.set_parameter("metallic", metallic_value)
        renderer.set_parameter("roughness", roughness_value)
        renderer.set_light_direction(light)
        radiance = renderer.render_linear(96, 96)
        assert np.isfinite(radiance).all(), (base_value, metallic_value, roughness_value, light)
        assert (radiance[:, :, :3] >= 0.0).all()


# Colour: sRGB and the tone mappers ------------------------------------------------------------


def _emissive_graph(texture: bool) -> MaterialGraph:
    """A black Surface Output whose emissive colour is a parameter or a texture sample at a parameter uv."""
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties={"base_color": (0.0, 0.0, 0.0, 1.0), "specular": 0.0})
    if texture:
        image = graph.add_node("texture_parameter", properties={"name": "levels", "color_space": "srgb"})
        uv = graph.add_node("vector_parameter", properties={"name": "uv", "size": 2, "default": (0.5, 0.5)})
        sample = graph.add_node("sample_texture")
        graph.connect(image.id, "out", sample.id, "texture")
        graph.connect(uv.id, "out", sample.id, "uv")
        graph.connect(sample.id, "rgba", output.id, "emissive_color")
    else:
        emission = graph.add_node("vector_parameter", properties={"name": "emission", "default": (0.5, 0.5, 0.5, 0.0), "maximum": 100.0})
        graph.connect(emission.id, "out", output.id, "emissive_color")
    return graph


def _centre(image: np.ndarray) -> np.ndarray:
    return image[image.shape[0] // 2, image.shape[1] // 2]


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_srgb_texture_decodes_and_the_display_encodes_back_every_level_exactly(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    levels = np.arange(256)
    image = np.zeros((1, 256, 4), dtype=np.uint8)
    image[0, :, 0] = levels
    image[0, :, 1] = levels[::-1]
    image[0, :, 2] = (levels * 7) % 256
    image[0, :, 3] = 255
    renderer.set_texture("levels", image)
    renderer.set_light(intensity=0.0)
    renderer.set_ambient((0.0, 0.0, 0.0))
    renderer.set_tone_mapper("none")
    build(renderer, _emissive_graph(texture=True), target)
    for level in range(256):
        renderer.set_parameter("uv", ((level + 0.5) / 256.0, 0.5))
        expected_rgb = image[0, level, :3]
        linear = _centre(renderer.render_linear(4, 4))[:3].astype(np.float64)
        assert np.allclose(linear, reference.srgb_decode(expected_rgb / 255.0), rtol=2e-5, atol=1e-7), level
        shown = _centre(renderer.render_image(4, 4))[:3]
        assert (shown == expected_rgb).all(), (level, shown, expected_rgb)


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
@pytest.mark.parametrize("tone_mapper", list(reference.TONE_MAPPERS))
def test_tone_mappers_match_their_published_formulas(request, gl_fixture: str, tone_mapper: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_light(intensity=0.0)
    renderer.set_ambient((0.0, 0.0, 0.0))
    renderer.set_tone_mapper(tone_mapper)
    build(renderer, _emissive_graph(texture=False), target)
    radiances = [(0.0, 0.0, 0.0), (0.02, 0.05, 0.01), (0.18, 0.18, 0.18), (0.5, 0.2, 0.1), (0.9, 0.8, 0.7),
                 (1.0, 1.0, 1.0), (2.5, 1.0, 0.3), (8.0, 8.0, 8.0), (40.0, 3.0, 0.5)]
    for radiance, exposure in itertools.product(radiances, (0.0, -1.5, 2.0)):
        renderer.set_parameter("emission", radiance)
        renderer.set_exposure(exposure)
        shown = _centre(renderer.render_image(4, 4))[:3].astype(np.float64)
        expected = reference.display(tone_mapper, radiance, exposure) * 255.0
        # One 8-bit step: the float32 shader and the float64 reference may round to neighbours.
        assert np.abs(shown - expected).max() <= 1.0, (radiance, exposure, shown, expected)


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_the_background_of_a_surface_material_is_the_colour_picked(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_background((0.25, 0.5, 0.75))
    renderer.set_exposure(3.0)
    renderer.set_tone_mapper("aces")
    build(renderer, _emissive_graph(texture=False), target)
    image = renderer.render_image(32, 32)
    assert tuple(int(c) for c in image[0, 0]) == (64, 128, 191, 255)


# Normal maps and tangents ---------------------------------------------------------------------


def _encoded_normal(direction) -> tuple[np.ndarray, np.ndarray]:
    """(RGBA8 texel of a tangent-space normal, the normal it decodes to exactly)."""
    unit = np.asarray(direction, dtype=np.float64) / np.linalg.norm(direction)
    texel = np.rint((unit * 0.5 + 0.5) * 255.0).astype(np.uint8)
    return np.append(texel, 255).astype(np.uint8), texel / 255.0 * 2.0 - 1.0


def _normal_map_graph(convention: str = "opengl", strength: float = 1.0, lit: bool = True) -> MaterialGraph:
    graph = MaterialGraph()
    image = graph.add_node("texture_parameter", properties={"name": "normal_map", "color_space": "linear"})
    sample = graph.add_node("sample_texture")
    normal_map = graph.add_node("normal_map", properties={"convention": convention, "strength": strength})
    graph.connect(image.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgb", normal_map.id, "tangent_normal")
    if lit:
        output = graph.add_node("surface_output", properties={"base_color": (0.7, 0.5, 0.3, 1.0), "roughness": 0.4})
        graph.connect(normal_map.id, "normal_out", output.id, "normal")
    else:
        output = graph.add_node("material_output")
        graph.connect(normal_map.id, "normal_out", output.id, "base_color")
    return graph


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
@pytest.mark.parametrize(("convention", "strength"), [("opengl", 1.0), ("directx", 1.0), ("opengl", 0.5)])
def test_a_tilted_normal_map_on_a_plane_lights_like_the_reference(request, gl_fixture: str, convention: str, strength: float) -> None:
    size = 12
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh("plane")
    renderer.set_light(intensity=LIGHT_INTENSITY)
    renderer.set_ambient((0.0, 0.0, 0.0))
    renderer.set_light_direction(_directions(40, 200))
    positions = _world_positions(renderer, target, size)
    covered = np.abs(positions[:, :, 2]) < 1e-6
    texel, tangent_normal = _encoded_normal((0.45, -0.3, 1.0))
    renderer.set_texture("normal_map", np.tile(texel, (8, 8, 1)))
    build(renderer, _normal_map_graph(convention, strength), target)
    measured = renderer.render_linear(size, size)[covered][:, :3].astype(np.float64)
    # The plane's frame: T = +x (u grows rightwards), B = +y, N = +z.
    green = -1.0 if convention == "directx" else 1.0
    tilted = tangent_normal * np.array([strength, green * strength, 1.0])
    normal = tilted / np.linalg.norm(tilted)
    view = reference._unit(np.asarray(renderer.camera.position) - positions[covered])
    light = np.asarray(_directions(40, 200))
    expected = reference.direct_radiance(np.broadcast_to(normal, view.shape), view, light, (0.7, 0.5, 0.3), 0.0, 0.4, LIGHT_INTENSITY)
    _assert_close(measured, expected, f"{convention} normal map, strength {strength}")


def _mirrored_plane():
    """A plane whose right half has its texture mirrored in u, sharing the middle vertices."""
    positions = np.array([(-1, -1, 0), (0, -1, 0), (1, -1, 0), (-1, 1, 0), (0, 1, 0), (1, 1, 0)], dtype=np.float64)
    texcoords = np.array([(0, 0), (1, 0), (0, 0), (0, 1), (1, 1), (0, 1)], dtype=np.float64)
    normals = np.tile([0.0, 0.0, 1.0], (6, 1))
    return build_mesh("mirrored", positions, normals, texcoords, np.array([(0, 1, 4), (0, 4, 3), (1, 2, 5), (1, 5, 4)]))


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_tangent_handedness_on_a_mirrored_uv_mesh(request, gl_fixture: str) -> None:
    """A normal tilted towards +u points left-to-right on the left half and back on the mirrored
    right half; one tilted towards +v points up on both (the bitangent keeps its direction)."""
    size = 64
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh(_mirrored_plane())
    renderer.camera.distance = 2.5
    positions = _world_positions(renderer, target, size)
    covered = np.abs(positions[:, :, 2]) < 1e-6
    left = covered & (positions[:, :, 0] < -0.05)
    right = covered & (positions[:, :, 0] > 0.05)
    assert left.sum() > 100 and right.sum() > 100
    build(renderer, _normal_map_graph(lit=False), target)
    for tilt, left_expected, right_expected in (
        ((0.6, 0.0, 1.0), (1, 0), (-1, 0)),   # towards +u: x flips with the mirrored u
        ((0.0, 0.6, 1.0), (0, 1), (0, 1)),    # towards +v: y up on both halves
    ):
        texel, _ = _encoded_normal(tilt)
        renderer.set_texture("normal_map", np.tile(texel, (4, 4, 1)))
        world = renderer.render_linear(size, size)[:, :, :3]
        for mask, (sign_x, sign_y) in ((left, left_expected), (right, right_expected)):
            normals = world[mask]
            assert (normals[:, 2] > 0.7).all()
            if sign_x:
                assert (np.sign(normals[:, 0]) == sign_x).all() and (np.abs(normals[:, 0]) > 0.4).all()
            if sign_y:
                assert (np.sign(normals[:, 1]) == sign_y).all() and (np.abs(normals[:, 1]) > 0.4).all()


# The PBR helper nodes, through an unlit output into RGBA32F -------------------------------------


def _unlit(renderer: Renderer, target: str, make) -> np.ndarray:
    """Render a graph whose Unlit Output base colour is what `make(graph)` returns (node, port); centre pixel."""
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    node, port = make(graph)
    graph.connect(node.id, port, output.id, "base_color")
    build(renderer, graph, target)
    return _centre(renderer.render_linear(8, 8)).astype(np.float64)


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_colour_nodes_match_their_formulas(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    colour = (0.02, 0.3, 0.9, 0.5)

    def through(type_name: str):
        def make(graph):
            source = graph.add_node("constant_color", properties={"value": colour})
            node = graph.add_node(type_name)
            graph.connect(source.id, "out", node.id, "color")
            return node, "out"
        return make

    encoded = _unlit(renderer, target, through("linear_to_srgb"))
    assert np.allclose(encoded[:3], reference.srgb_encode(colour[:3]), rtol=2e-5)
    decoded = _unlit(renderer, target, through("srgb_to_linear"))
    assert np.allclose(decoded[:3], reference.srgb_decode(colour[:3]), rtol=2e-5)
    luminance = _unlit(renderer, target, through("luminance"))
    assert np.allclose(luminance[:3], 0.2126 * colour[0] + 0.7152 * colour[1] + 0.0722 * colour[2], rtol=1e-6)


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_orm_unpack_glossiness_and_schlick_fresnel(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)

    def unpack(port: str):
        def make(graph):
            source = graph.add_node("constant_color", properties={"value": (0.25, 0.5, 0.75, 1.0)})
            node = graph.add_node("orm_unpack")
            graph.connect(source.id, "out", node.id, "orm")
            return node, port
        return make

    assert _unlit(renderer, target, unpack("occlusion"))[0] == 0.25
    assert _unlit(renderer, target, unpack("roughness"))[0] == 0.5
    assert _unlit(renderer, target, unpack("metallic"))[0] == 0.75

    def glossiness(graph):
        return graph.add_node("roughness_from_glossiness", properties={"glossiness": 0.3}), "out"

    assert np.isclose(_unlit(renderer, target, glossiness)[0], 0.7)

    renderer.set_mesh("plane")
    f0 = (0.9, 0.6, 0.2)

    def fresnel(graph):
        normal = graph.add_node("constant_vec3", properties={"value": (0.0, 0.6, 0.8)})
        node = graph.add_node("fresnel_schlick", properties={"f0": (*f0, 1.0)})
        graph.connect(normal.id, "out", node.id, "normal")
        return node, "out"

    positions = _world_positions(renderer, target, 8)
    view = reference._unit(np.asarray(renderer.camera.position) - positions[4, 4])
    n_dot_v = abs(float(np.dot(view, (0.0, 0.6, 0.8))))
    expected = np.asarray(f0) + (1.0 - np.asarray(f0)) * (1.0 - n_dot_v) ** 5
    assert np.allclose(_unlit(renderer, target, fresnel)[:3], expected, rtol=1e-5)


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
@pytest.mark.parametrize("filter_width", [0.0, 2.0])
def test_normal_from_height_of_a_ramp_tilts_the_normal_exactly(request, gl_fixture: str, filter_width: float) -> None:
    """h = k·x on the z = 0 plane: the bumped normal is normalize(−strength·k, 0, 1) wherever derivatives exist."""
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh("plane")
    positions = _world_positions(renderer, target, 16)
    covered = np.abs(positions[:, :, 2]) < 1e-6
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    position = graph.add_node("world_position")
    split = graph.add_node("split")
    ramp = graph.add_node("multiply", properties={"b": 0.4})
    bump = graph.add_node("normal_from_height", properties={"strength": 1.5, "filter_width": filter_width})
    graph.connect(position.id, "out", split.id, "vector")
    graph.connect(split.id, "x", ramp.id, "a")
    graph.connect(ramp.id, "out", bump.id, "height")
    graph.connect(bump.id, "normal_out", output.id, "base_color")
    build(renderer, graph, target)
    normals = renderer.render_linear(16, 16)[covered][:, :3].astype(np.float64)
    expected = np.array([-1.5 * 0.4, 0.0, 1.0]) / np.linalg.norm([-1.5 * 0.4, 0.0, 1.0])
    assert np.allclose(normals, expected, atol=2e-4)


def _step_bump_tilt(renderer: Renderer, target: str, size: int, direction: np.ndarray,
                    properties: dict[str, float], graph: MaterialGraph | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Normal From Height of step(0.05, P·direction) on the z = 0 plane: per pixel, the bumped normal's tilt
    away from the edge, and the pixel's distance from the edge in pixels (NaN off the plane)."""
    positions = _world_positions(renderer, target, size)
    covered = np.abs(positions[:, :, 2]) < 1e-6
    build(renderer, graph if graph is not None else _step_bump_graph(direction, properties), target)
    normals = renderer.render_linear(size, size)[:, :, :3].astype(np.float64)
    tilt = np.where(covered, -(normals[..., 0] * direction[0] + normals[..., 1] * direction[1]), np.nan)
    pixel = float(np.linalg.norm(positions[1:, :, :2] - positions[:-1, :, :2], axis=-1)[covered[1:] & covered[:-1]].mean())
    offset = np.where(covered, (positions[..., :2] @ direction[:2] - 0.05) / pixel, np.nan)
    return tilt, offset


def _step_bump_graph(direction: np.ndarray, properties: dict[str, float]) -> MaterialGraph:
    """Unlit: the Normal From Height (`properties`) of step(0.05, P·direction)."""
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    position = graph.add_node("world_position")
    split = graph.add_node("split")
    along_x = graph.add_node("multiply", properties={"b": float(direction[0])})
    along_y = graph.add_node("multiply", properties={"b": float(direction[1])})
    distance = graph.add_node("add")
    step = graph.add_node("step", properties={"edge": 0.05})
    bump = graph.add_node("normal_from_height", properties=properties)
    graph.connect(position.id, "out", split.id, "vector")
    graph.connect(split.id, "x", along_x.id, "a")
    graph.connect(split.id, "y", along_y.id, "a")
    graph.connect(along_x.id, "out", distance.id, "a")
    graph.connect(along_y.id, "out", distance.id, "b")
    graph.connect(distance.id, "out", step.id, "x")
    graph.connect(step.id, "out", bump.id, "height")
    graph.connect(bump.id, "normal_out", output.id, "base_color")
    return graph


def _staircase(tilt: np.ndarray, offset: np.ndarray) -> float:
    """How much the tilt varies along the edge: the RMS, over pixels within 6 px of the edge, of the tilt's
    departure from the mean of the pixels at the same distance (1/16 px bins), relative to the largest tilt.
    A bevel that depends only on the distance from the edge scores ~0."""
    near = np.abs(np.nan_to_num(offset, nan=np.inf)) < 6.0
    bins = np.round(offset[near] * 16.0)
    values = tilt[near]
    departures = [values[bins == key] - values[bins == key].mean() for key in np.unique(bins)]
    return float(np.sqrt(np.mean(np.concatenate(departures) ** 2)) / values.max())


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_normal_from_height_of_a_sharp_step_is_a_smooth_bevel(request, gl_fixture: str) -> None:
    """A step mask at a slant: `dfdx` differences whole 2×2 quads, so the bevel follows the quads (steps along
    the edge); the slope fitted to taps 2 px apart depends on the distance from the edge only."""
    renderer, target = renderer_on(request, gl_fixture)
    renderer.set_mesh("plane")
    direction = np.array([1.0, 0.35, 0.0]) / np.linalg.norm([1.0, 0.35, 0.0])
    filtered, offset = _step_bump_tilt(renderer, target, 96, direction, {"strength": 0.02, "filter_width": 2.0})
    quads, _ = _step_bump_tilt(renderer, target, 96, direction, {"strength": 0.02, "filter_width": 0.0})
    assert np.nanmax(filtered) > 0.2 and np.nanmax(quads) > 0.2  # both bump
    assert _staircase(quads, offset) > 0.1
    assert _staircase(filtered, offset) < 0.04
    # The bevel keeps the step's height: the tilt summed across the edge is the same (to within the wider
    # bevel's smaller normalisation loss).
    assert np.nansum(filtered) == pytest.approx(np.nansum(quads), rel=0.25)


def test_a_new_normal_from_height_bevels_a_sharp_mask_without_stair_steps(request) -> None:
    """A node as the palette makes it (catalog defaults) filters its slope: on a slanted step mask the tilt
    depends on the distance from the edge only (numpy: its spread across pixels at the same distance), while a
    saved node that stored `filter_width` 0 keeps the quad-stepped `dfdx` bevel it was saved with."""
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_mesh("plane")
    direction = np.array([1.0, 0.35, 0.0]) / np.linalg.norm([1.0, 0.35, 0.0])
    new, offset = _step_bump_tilt(renderer, target, 64, direction, {"strength": 0.02})
    assert np.nanmax(new) > 0.2
    assert _staircase(new, offset) < 0.04
    saved = load_text(save_text(_step_bump_graph(direction, {"strength": 0.02, "filter_width": 0.0})))
    assert saved.graph is not None
    bump = next(node for node in saved.graph.nodes.values() if node.type_name == "normal_from_height")
    assert bump.properties["filter_width"] == 0.0
    stored, _ = _step_bump_tilt(renderer, target, 64, direction, {}, graph=saved.graph)
    assert _staircase(stored, offset) > 0.1


def test_filtered_normal_from_height_on_the_cpu_interpreter_matches_the_gpu(current_gl) -> None:
    """The taps' moved sources and the plane fit run on the interpreter (derivatives over its quads) too."""
    direction = np.array([1.0, 0.35, 0.0]) / np.linalg.norm([1.0, 0.35, 0.0])
    result = lower(_step_bump_graph(direction, {"strength": 0.02, "filter_width": 2.0}))
    assert result.ok, result.diagnostics
    gpu = Renderer()
    try:
        gpu.set_mesh("plane")
        gpu.build_program(compile_glsl(result.verified, target="glsl420"))
        expected = gpu.render_linear(48, 48)[:, :, :3]
    finally:
        gpu.release()
    cpu = CpuRenderer()
    cpu.set_program(result.verified)
    cpu.set_mesh("plane")
    measured = cpu.render_linear(48, 48)[:, :, :3]
    assert (np.abs(measured[..., :2]) > 0.1).any()  # the bevel is there
    # A tap that lands on the step itself may round to the other side on one of them: a few pixels.
    assert (np.abs(measured - expected) < 1e-3).all(axis=2).mean() > 0.99


@pytest.mark.parametrize("inside", [False, True], ids=["upstream-grouped", "bump-grouped"])
def test_filtered_normal_from_height_through_a_group_keeps_the_dfdx_slope(request, inside: bool) -> None:
    """A group's helper reads its own sources, so a height computed in one, or a bump reading it through a
    Group Input, cannot be moved to the taps: the bump keeps the `dfdx` slope (documented in its notes)."""
    renderer, target = renderer_on(request, "current_gl")
    renderer.set_mesh("plane")
    direction = np.array([1.0, 0.35, 0.0]) / np.linalg.norm([1.0, 0.35, 0.0])
    frames = {}
    for name, width in (("dfdx", 0.0), ("filtered", 2.0)):
        build(renderer, _step_bump_graph(direction, {"strength": 0.02, "filter_width": width}), target)
        frames[name] = renderer.render_linear(32, 32)
    graph = _step_bump_graph(direction, {"strength": 0.02, "filter_width": 2.0})
    kinds = {"normal_from_height"} if inside else {"split", "multiply", "add", "step"}
    grouped = group_nodes(graph, None, [node.id for node in graph.nodes.values() if node.type_name in kinds]).document
    build(renderer, grouped, target)
    assert not np.array_equal(frames["dfdx"], frames["filtered"])
    assert np.array_equal(renderer.render_linear(32, 32), frames["dfdx"])


def test_normal_from_height_refuses_to_follow_an_if() -> None:
    graph = MaterialGraph()
    output = graph.add_node("surface_output")
    branch = graph.add_node("if", properties={"operator": ">"})
    noise = graph.add_node("value_noise")
    bump = graph.add_node("normal_from_height")
    graph.connect(noise.id, "out", branch.id, "a")
    graph.connect(branch.id, "out", bump.id, "height")
    graph.connect(bump.id, "normal_out", output.id, "normal")
    result = lower(graph)
    assert not result.ok
    assert any(d.node_id == bump.id and "derivatives" in d.message for d in result.diagnostics)
