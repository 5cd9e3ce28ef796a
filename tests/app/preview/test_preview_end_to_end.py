"""Real compiled artifacts in the preview: the spec's examples, a foreign module, editor materials, screenshots.

Everything goes through the public pipeline: `vpl_core.text.read` ->
`VerifiedModule` -> `vpl_core.backends.glsl.compile`, or for materials
`app.material.lowering.lower(graph)`, then `Renderer.build_program` on
Mesa's llvmpipe.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.parameters import ParameterKind
from app.material.textures import CHECKER_DARK, CHECKER_LIGHT, checker_color_at
from app.preview import std140
from app.preview.images import load_image_rgba
from app.preview.renderer import Renderer
from app.preview.screenshot import preview_screenshot
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.ir.module import UniformKind
from vpl_core.publish import VerifiedModule

pytestmark = pytest.mark.gl

ROOT = Path(__file__).resolve().parents[3]
SPEC_EXAMPLES = sorted((ROOT / "tests" / "data" / "spec").glob("*.vpl"))
FOREIGN = Path(__file__).resolve().parent / "data" / "foreign-uniforms.vpl"
SIZE = 160


def _compile_file(path: Path):
    return compile_glsl(VerifiedModule.from_text(path.read_text(encoding="utf-8"), label=str(path)))


@pytest.fixture
def renderer(current_gl):
    renderer = Renderer()
    renderer.set_background((0.0, 0.0, 1.0))
    yield renderer
    current_gl.make_current()
    renderer.release()


def _rgb(pixel: np.ndarray) -> tuple[int, int, int]:
    return tuple(int(c) for c in pixel[:3])


def test_the_spec_examples_are_all_here() -> None:
    assert {path.name for path in SPEC_EXAMPLES} >= {
        "canonical-example.vpl", "loop-and-helper.vpl", "nested-aggregate-storage.vpl"}


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda path: path.stem)
def test_spec_example_previews(renderer: Renderer, path: Path) -> None:
    renderer.build_program(_compile_file(path))
    image = renderer.render_image(SIZE, SIZE)
    centre = _rgb(image[SIZE // 2, SIZE // 2])
    if path.stem == "canonical-example":
        # Every vertex lands on the same clip point (1, 1, 1, 1): nothing is drawn.
        assert (image[:, :, :3] == (0, 0, 255)).all()
    else:
        # No transforms: the unit sphere fills clip space; both fragment programs end in green.
        assert centre == (0, 255, 0)
        assert _rgb(image[2, 2]) == (0, 0, 255)


def test_foreign_module_is_bound_by_location_and_reflection(renderer: Renderer) -> None:
    artifact = _compile_file(FOREIGN)
    info = renderer.build_program(artifact)
    assert [(a.location, a.mesh_attribute) for a in info.attributes] == [(0, "position"), (5, None), (2, "texcoord")]
    image = renderer.render_image(SIZE, SIZE)
    red, green, _ = _rgb(image[SIZE // 2, SIZE // 2])
    blue = _rgb(image[SIZE // 2 + 12, SIZE // 2 + 12])[2]  # inside a checker cell, off the centre's cell corner
    # Zero-filled record/array/attribute, identity matrices, checker for the unknown sampler.
    assert (red, green) == (128, 128)
    assert (blue,) in {(CHECKER_LIGHT[0],), (CHECKER_DARK[0],)}
    # Record, array and array-of-record uploads through the reflected type, without relinking.
    links = renderer.link_count
    renderer.set_parameter("light", {"color": (0.25, 0.0, 0.0, 0.0), "transform": np.eye(4)})
    renderer.set_parameter("weights", [0.0, 0.0, 0.125])
    renderer.set_parameter("cells", [None, {"m": np.eye(2) * 2.0}])
    red, green, _ = _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2])
    assert (red, green) == (223, 255)  # 0.5 + 0.125 + 0.25 = 0.875; 2 * 0.5 = 1
    assert renderer.link_count == links


def test_backend_block_sizes_agree_with_the_packer_and_driver(renderer: Renderer) -> None:
    info = renderer.build_program(_compile_file(FOREIGN))
    for block in info.blocks:
        # A driver may report less than std140's rounded size (ANGLE: 284 for 288), never more.
        assert block.driver_size <= block.size == std140.size_of(block.binding.type)
        reported = getattr(block.binding, "block_size", -1)
        if reported >= 0:
            assert reported == block.size


# ---- editor materials -------------------------------------------------------------------


def _output_graph() -> tuple[MaterialGraph, str]:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    return graph, output.id


def _lowered(graph: MaterialGraph):
    result = lower(graph)
    assert result.ok, result.diagnostics
    return result


def _apply_defaults(renderer: Renderer, result) -> None:
    for spec in result.parameters:
        if spec.kind not in (ParameterKind.TEXTURE, ParameterKind.OTHER):
            renderer.set_parameter(spec.name, spec.default)


def test_constant_colour_material(renderer: Renderer) -> None:
    graph, output = _output_graph()
    colour = graph.add_node("constant_color", properties={"value": (1.0, 0.5, 0.0, 1.0)})
    graph.connect(colour.id, "out", output, "base_color")
    renderer.build_program(_lowered(graph).artifact)
    image = renderer.render_image(SIZE, SIZE)
    assert _rgb(image[SIZE // 2, SIZE // 2]) == (255, 128, 0)
    for y, x in ((0, 0), (0, SIZE - 1), (SIZE - 1, 0), (SIZE - 1, SIZE - 1)):
        assert _rgb(image[y, x]) == (0, 0, 255)


def test_default_camera_frames_the_sphere_at_two_thirds_of_the_height(renderer: Renderer) -> None:
    graph, output = _output_graph()
    colour = graph.add_node("constant_color", properties={"value": (1.0, 1.0, 1.0, 1.0)})
    graph.connect(colour.id, "out", output, "base_color")
    renderer.build_program(_lowered(graph).artifact)
    for width, height in ((300, 300), (420, 240)):
        image = renderer.render_image(width, height)
        covered = (image[:, :, :3] != (0, 0, 255)).any(axis=2)
        rows = np.flatnonzero(covered.any(axis=1))
        columns = np.flatnonzero(covered.any(axis=0))
        assert (rows[-1] - rows[0] + 1) / height == pytest.approx(2.0 / 3.0, abs=0.02)
        # Centred, and round (square pixels).
        assert (rows[0] + rows[-1]) / 2 == pytest.approx((height - 1) / 2, abs=1.0)
        assert (columns[0] + columns[-1]) / 2 == pytest.approx((width - 1) / 2, abs=1.0)
        assert columns[-1] - columns[0] == pytest.approx(rows[-1] - rows[0], abs=2)


def _lambert_graph() -> MaterialGraph:
    graph, output = _output_graph()
    lambert = graph.add_node("lambert")
    normal = graph.add_node("normal")
    light = graph.add_node("light_direction")
    graph.connect(normal.id, "out", lambert.id, "normal")
    graph.connect(light.id, "out", lambert.id, "light_direction")
    graph.connect(lambert.id, "out", output, "base_color")
    return graph


def test_lambert_material_follows_the_light(renderer: Renderer) -> None:
    renderer.build_program(_lowered(_lambert_graph()).artifact)
    row, left, right = SIZE // 2, SIZE // 2 - 35, SIZE // 2 + 35
    renderer.set_light_direction((1.0, 0.0, 0.4))
    image = renderer.render_image(SIZE, SIZE)
    assert int(image[row, right, 0]) > int(image[row, left, 0]) + 80
    renderer.set_light_direction((-1.0, 0.0, 0.4))
    image = renderer.render_image(SIZE, SIZE)
    assert int(image[row, left, 0]) > int(image[row, right, 0]) + 80
    # From above: the top is lit, the bottom dark.
    renderer.set_light_direction((0.0, 1.0, 0.4))
    image = renderer.render_image(SIZE, SIZE)
    assert int(image[SIZE // 2 - 35, SIZE // 2, 0]) > int(image[SIZE // 2 + 35, SIZE // 2, 0]) + 80


def _texture_graph() -> MaterialGraph:
    graph, output = _output_graph()
    texture = graph.add_node("texture_parameter", properties={"name": "albedo"})
    texcoord = graph.add_node("texcoord")
    sample = graph.add_node("sample_texture")
    graph.connect(texture.id, "out", sample.id, "texture")
    graph.connect(texcoord.id, "out", sample.id, "uv")
    graph.connect(sample.id, "rgba", output, "base_color")
    return graph


def _texcoord_graph() -> MaterialGraph:
    graph, output = _output_graph()
    texcoord = graph.add_node("texcoord")
    compose = graph.add_node("compose", properties={"size": 4, "z": 0.0, "w": 1.0})
    split = graph.add_node("split")
    graph.connect(texcoord.id, "out", split.id, "vector")
    graph.connect(split.id, "x", compose.id, "x")
    graph.connect(split.id, "y", compose.id, "y")
    graph.connect(compose.id, "out", output, "base_color")
    return graph


@pytest.mark.parametrize("mesh", ["plane", "sphere"])
def test_texture_material_matches_numpy_sampling(renderer: Renderer, mesh: str) -> None:
    """Each pixel's texcoord (from a texcoord material) sampled in numpy equals the textured pixel."""
    size = 384  # large enough that most of the surface is not minified (256 texels around)
    renderer.set_mesh(mesh)
    renderer.build_program(_lowered(_texcoord_graph()).artifact)
    coordinates = renderer.render_image(size, size).astype(np.float64) / 255.0
    textured_result = _lowered(_texture_graph())
    assert [spec.kind for spec in textured_result.parameters] == [ParameterKind.TEXTURE]
    renderer.build_program(textured_result.artifact)
    textured = renderer.render_image(size, size)
    # Texels per pixel, over +-3 pixels (8-bit texcoords are too coarse for neighbours). Where the
    # sphere is strongly minified, trilinear filtering rightly blends cells: compare only below 2.
    span = 3
    footprint = np.full((size, size), np.inf)
    u, v = coordinates[:, :, 0], coordinates[:, :, 1]
    inner = np.s_[span:-span, span:-span]
    for channel in (u, v):
        across = np.abs(channel[span:-span, 2 * span:] - channel[span:-span, :-2 * span]) / (2 * span)
        down = np.abs(channel[2 * span:, span:-span] - channel[:-2 * span, span:-span]) / (2 * span)
        footprint[inner] = np.where(np.isinf(footprint[inner]), 0.0, footprint[inner])
        footprint[inner] = np.maximum(footprint[inner], np.maximum(across, down) * 256)
    compared = 0
    for y in range(0, size, 3):
        for x in range(0, size, 3):
            red, green, blue = coordinates[y, x, :3]
            if blue > 0.5 or footprint[y, x] > 2.0:
                continue  # background, or strongly minified
            cell_u, cell_v = (red * 8) % 1.0, (green * 8) % 1.0
            if not (0.25 < cell_u < 0.75 and 0.25 < cell_v < 0.75):
                continue  # near a cell edge, 8-bit texcoords and filtering blur the answer
            assert _rgb(textured[y, x]) == checker_color_at(red, green)[:3], (x, y, red, green)
            compared += 1
    assert compared > 150


def test_float_parameter_changes_pixels_without_relinking(renderer: Renderer) -> None:
    graph, output = _output_graph()
    brightness = graph.add_node("float_parameter", properties={"name": "brightness", "default": 0.25})
    compose = graph.add_node("compose", properties={"size": 4, "w": 1.0})
    for port in ("x", "y", "z"):
        graph.connect(brightness.id, "out", compose.id, port)
    graph.connect(compose.id, "out", output, "base_color")
    result = _lowered(graph)
    _apply_defaults(renderer, result)
    renderer.build_program(result.artifact)
    links = renderer.link_count
    before = _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2])
    renderer.set_parameter("brightness", 0.75)
    after = _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2])
    assert before == (64, 64, 64) and after == (191, 191, 191)
    assert renderer.link_count == links


def test_time_reaches_the_shader(renderer: Renderer) -> None:
    graph, output = _output_graph()
    time = graph.add_node("time")
    fract = graph.add_node("fract")
    compose = graph.add_node("compose", properties={"size": 4, "y": 0.0, "z": 0.0, "w": 1.0})
    graph.connect(time.id, "out", fract.id, "x")
    graph.connect(fract.id, "out", compose.id, "x")
    graph.connect(compose.id, "out", output, "base_color")
    renderer.build_program(_lowered(graph).artifact)
    renderer.time = 10.25
    assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2])[0] == 64
    renderer.time = 3.5
    assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2])[0] == 128


# ---- screenshots ------------------------------------------------------------------------


@pytest.mark.parametrize("path", SPEC_EXAMPLES + [FOREIGN], ids=lambda path: path.stem)
def test_screenshot_writes_exactly_the_framebuffer(current_gl, tmp_path: Path, path: Path, capsys) -> None:
    png = tmp_path / "shot.png"
    assert preview_screenshot(str(path), str(png), (96, 64)) == 0
    assert capsys.readouterr().err == ""
    image = load_image_rgba(str(png))
    assert image.shape == (64, 96, 4)


def test_screenshot_of_a_material_file(current_gl, tmp_path: Path) -> None:
    graph, output = _output_graph()
    colour = graph.add_node("constant_color", properties={"value": (0.0, 1.0, 0.0, 1.0)})
    graph.connect(colour.id, "out", output, "base_color")
    source = tmp_path / "green.vpl"
    source.write_text(_lowered(graph).text, encoding="utf-8")
    png = tmp_path / "green.png"
    assert preview_screenshot(str(source), str(png), (120, 90)) == 0
    image = load_image_rgba(str(png))
    assert image.shape == (90, 120, 4)
    assert _rgb(image[45, 60]) == (0, 255, 0)
    # Uniform background: the corners all have one colour, which is not the material's.
    corners = {_rgb(image[y, x]) for y, x in ((0, 0), (0, 119), (89, 0), (89, 119))}
    assert len(corners) == 1 and corners != {(0, 255, 0)}


def test_screenshot_of_a_bad_file_reports_diagnostics(current_gl, tmp_path: Path, capsys) -> None:
    source = tmp_path / "broken.vpl"
    source.write_text("(module 1\n  (types)\n  (uniforms)\n  (vertex v\n", encoding="utf-8")
    png = tmp_path / "broken.png"
    assert preview_screenshot(str(source), str(png)) == 1
    error = capsys.readouterr().err.strip().splitlines()
    assert error and error[0].startswith(f"{source}:")
    location, _, rest = error[0][len(str(source)) + 1:].partition(": ")
    line, column = location.split(":")
    assert line.isdigit() and column.isdigit() and rest.split()[1] == "error:"
    assert not png.exists()


def test_screenshot_of_a_missing_file(current_gl, tmp_path: Path, capsys) -> None:
    assert preview_screenshot(str(tmp_path / "nope.vpl"), str(tmp_path / "nope.png")) == 1
    assert "nope.vpl" in capsys.readouterr().err


def test_every_uniform_kind_is_reflected(renderer: Renderer) -> None:
    info = renderer.build_program(_compile_file(FOREIGN))
    kinds = {binding.name: binding.kind for binding in info.artifact.uniforms}
    assert kinds == {"light": UniformKind.RECORD, "weights": UniformKind.ARRAY, "cells": UniformKind.ARRAY,
                     "pattern": UniformKind.SCALAR}
    assert info.samplers == {"pattern": 0}
    assert {slot.selector for slot in info.uniforms} >= {"vpl_u1", "vpl_u2[1].vpl_m0", "vpl_u3"}


EXAMPLES = sorted((ROOT / "app" / "material" / "examples").glob("*.vpl"))


def test_the_editor_examples_are_here() -> None:
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
@pytest.mark.usefixtures("few_refined_frames")  # the frame covers the sphere: few refined frames show it
def test_editor_example_screenshots(current_gl, tmp_path: Path, path: Path, capsys) -> None:
    png = tmp_path / "example.png"
    assert preview_screenshot(str(path), str(png), (128, 128)) == 0, capsys.readouterr().err
    image = load_image_rgba(str(png))
    background = _rgb(image[0, 0])
    covered = (image[:, :, :3] != background).any(axis=2)
    assert 0.2 < covered.mean() < 0.5  # a sphere of 2/3 the height covers about 35% of the frame


def test_screenshot_uses_the_saved_graphs_parameter_defaults(current_gl, tmp_path: Path) -> None:
    from app.material.document import save_text

    graph, output = _output_graph()
    tint = graph.add_node("color_parameter", properties={"name": "tint", "default": (0.0, 0.0, 1.0, 1.0)})
    graph.connect(tint.id, "out", output, "base_color")
    source = tmp_path / "tinted.vpl"
    source.write_text(save_text(graph), encoding="utf-8")
    png = tmp_path / "tinted.png"
    assert preview_screenshot(str(source), str(png), (64, 64)) == 0
    assert _rgb(load_image_rgba(str(png))[32, 32]) == (0, 0, 255)  # not black: the default came from the graph
