"""Renderer on a real driver (Mesa llvmpipe under Xvfb): programs, uniforms, textures, attributes."""

from __future__ import annotations

import numpy as np
import pytest
from preview_helpers import (
    broken_artifact,
    color_parameter_artifact,
    constant_color_artifact,
    lambert_artifact,
    texcoord_artifact,
    texture_artifact,
)

from app.material.textures import checker_color_at
from app.preview.renderer import ProgramBuildError, Renderer

pytestmark = pytest.mark.gl

SIZE = 128


@pytest.fixture
def renderer(current_gl):
    renderer = Renderer()
    renderer.set_background((0.0, 0.0, 1.0))
    yield renderer
    current_gl.make_current()
    renderer.release()


def _rgb(pixel: np.ndarray) -> tuple[int, int, int]:
    return tuple(int(c) for c in pixel[:3])


def test_constant_colour_centre_and_background_corners(renderer: Renderer) -> None:
    renderer.build_program(constant_color_artifact((1.0, 0.5, 0.0, 1.0)))
    image = renderer.render_image(SIZE, SIZE)
    assert _rgb(image[SIZE // 2, SIZE // 2]) == (255, 128, 0)
    for y, x in ((0, 0), (0, SIZE - 1), (SIZE - 1, 0), (SIZE - 1, SIZE - 1)):
        assert _rgb(image[y, x]) == (0, 0, 255)


def test_no_program_clears_to_background(renderer: Renderer) -> None:
    renderer.set_background((1.0, 0.0, 0.0))
    image = renderer.render_image(16, 16)
    assert (image[:, :, :3] == (255, 0, 0)).all()


def test_parameter_change_changes_pixels_without_relinking(renderer: Renderer) -> None:
    renderer.build_program(color_parameter_artifact())
    renderer.set_parameter("tint", (1.0, 0.0, 0.0, 1.0))
    links = renderer.link_count
    first = renderer.render_image(SIZE, SIZE)
    renderer.set_parameter("tint", (0.0, 1.0, 0.0))  # RGB: alpha becomes 1
    second = renderer.render_image(SIZE, SIZE)
    assert _rgb(first[SIZE // 2, SIZE // 2]) == (255, 0, 0)
    assert _rgb(second[SIZE // 2, SIZE // 2]) == (0, 255, 0)
    assert renderer.link_count == links


def test_parameter_value_survives_a_rebuild(renderer: Renderer) -> None:
    renderer.set_parameter("tint", (0.0, 0.0, 0.0, 1.0))
    renderer.build_program(color_parameter_artifact())
    renderer.build_program(color_parameter_artifact())
    assert renderer.link_count == 1  # byte-identical GLSL: the program is reused (issue 20)
    assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2]) == (0, 0, 0)


def test_byte_identical_code_is_never_linked_again(renderer: Renderer) -> None:
    """Issue 20: only a change of code relinks; the recent programs are kept, so undo and redo relink nothing."""
    from app.preview.renderer import RECENT_PROGRAMS

    colors = [(1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)]
    for color in colors:
        renderer.build_program(constant_color_artifact(color))
    assert renderer.link_count == 3
    for color in reversed(colors):  # undo, undo, redo...
        renderer.build_program(constant_color_artifact(color))
        expected = tuple(round(255 * component) for component in color[:3])
        assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2]) == expected
    assert renderer.link_count == 3
    for index in range(RECENT_PROGRAMS + 1):  # more programs than are kept: the oldest go
        renderer.build_program(constant_color_artifact((0.5, 0.5, index / 8.0, 1.0)))
    renderer.build_program(constant_color_artifact(colors[0]))
    assert renderer.link_count == 3 + RECENT_PROGRAMS + 2
    assert len(renderer._linked) == RECENT_PROGRAMS


def test_a_program_linked_in_a_sharing_context_is_adopted(renderer: Renderer) -> None:
    from app.preview.renderer import link_program

    artifact = constant_color_artifact((0.0, 1.0, 1.0, 1.0))
    program, log = link_program(artifact, renderer.is_es)
    info = renderer.adopt_program(program, artifact, log)
    assert info.program == program and renderer.link_count == 0
    assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2]) == (0, 255, 255)
    renderer.build_program(artifact)  # known code: reused
    assert renderer.link_count == 0 and renderer.program is not None and renderer.program.program == program


def test_checker_texture_matches_numpy_sampling(renderer: Renderer) -> None:
    """Sample the checker at the texcoords the rasteriser reports (a texcoord pass) and compare."""
    renderer.set_mesh("plane")
    renderer.build_program(texcoord_artifact())
    coordinates = renderer.render_image(SIZE, SIZE).astype(np.float64) / 255.0
    renderer.build_program(texture_artifact())
    textured = renderer.render_image(SIZE, SIZE)
    compared = 0
    for y in range(0, SIZE, 3):
        for x in range(0, SIZE, 3):
            red, green, blue = coordinates[y, x, :3]
            if blue > 0.0:  # background
                continue
            u, v = red, green
            # Only where the texcoord is well inside a cell (8-bit texcoords are coarse).
            cell_u, cell_v = (u * 8) % 1.0, (v * 8) % 1.0
            if not (0.2 < cell_u < 0.8 and 0.2 < cell_v < 0.8):
                continue
            assert _rgb(textured[y, x]) == checker_color_at(u, v)[:3], (x, y, u, v)
            compared += 1
    assert compared > 200


def test_set_texture_uses_the_image_upright(renderer: Renderer) -> None:
    image = np.zeros((64, 64, 4), dtype=np.uint8)
    image[..., 3] = 255
    image[:32, :, 0] = 255   # top half red
    image[32:, :, 1] = 255   # bottom half green
    renderer.set_mesh("plane")
    renderer.build_program(texture_artifact())
    renderer.set_texture("albedo", image)
    shown = renderer.render_image(SIZE, SIZE)
    centre = SIZE // 2
    assert _rgb(shown[centre - 20, centre]) == (255, 0, 0)
    assert _rgb(shown[centre + 20, centre]) == (0, 255, 0)
    renderer.set_texture("albedo", None)
    # 256 px: the plane spans about 170 px, so a checker cell is about 21 px; sample cell (4, 4)'s centre.
    shown = renderer.render_image(256, 256)
    assert _rgb(shown[128 - 11, 128 + 11]) == checker_color_at(0.5625, 0.5625)[:3]
    assert _rgb(shown[128 - 11, 128 - 11]) == checker_color_at(0.4375, 0.5625)[:3]


def test_lambert_lit_side_follows_the_light(renderer: Renderer) -> None:
    renderer.set_background((0.0, 0.0, 0.0))
    renderer.build_program(lambert_artifact())
    renderer.set_light_direction((1.0, 0.0, 0.3))
    image = renderer.render_image(SIZE, SIZE)
    row = SIZE // 2
    left, right = int(image[row, SIZE // 2 - 30, 0]), int(image[row, SIZE // 2 + 30, 0])
    assert right > left + 60
    renderer.set_light_direction((-1.0, 0.0, 0.3))
    image = renderer.render_image(SIZE, SIZE)
    left, right = int(image[row, SIZE // 2 - 30, 0]), int(image[row, SIZE // 2 + 30, 0])
    assert left > right + 60


def test_broken_program_raises_and_keeps_the_previous_one(renderer: Renderer) -> None:
    renderer.build_program(constant_color_artifact((0.0, 1.0, 0.0, 1.0)))
    with pytest.raises(ProgramBuildError) as raised:
        renderer.build_program(broken_artifact())
    assert raised.value.stage == "fragment"
    assert "this_is_not_declared" in raised.value.log
    assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2]) == (0, 255, 0)


def test_shared_state_is_left_at_defaults_for_qpainter(renderer: Renderer) -> None:
    """QPainter overlays draw with the same context: a leaked unpack alignment shears its glyphs."""
    from OpenGL import GL

    renderer.build_program(texture_artifact())
    renderer.set_texture("albedo", np.full((3, 5, 4), 200, dtype=np.uint8))  # odd row length
    renderer.render_image(32, 32)
    assert GL.glGetIntegerv(GL.GL_UNPACK_ALIGNMENT) == 4
    assert GL.glGetIntegerv(GL.GL_PACK_ALIGNMENT) == 4
    assert GL.glGetIntegerv(GL.GL_VERTEX_ARRAY_BINDING) == 0
    assert GL.glGetIntegerv(GL.GL_CURRENT_PROGRAM) == 0
    assert GL.glGetIntegerv(GL.GL_ACTIVE_TEXTURE) == GL.GL_TEXTURE0


def test_link_failure_is_reported_as_link(renderer: Renderer) -> None:
    from preview_helpers import make_artifact

    # The fragment stage reads a varying the vertex stage does not write: both compile, linking fails.
    artifact = make_artifact("  vpl_output0 = vec4(missing_varying, 1.0);")
    artifact = type(artifact)(**{**artifact.__dict__, "fragment_code": artifact.fragment_code.replace(
        "layout(location = 0) out vec4 vpl_output0;",
        "layout(location = 0) out vec4 vpl_output0;\nin vec3 missing_varying;")})
    with pytest.raises(ProgramBuildError) as raised:
        renderer.build_program(artifact)
    assert raised.value.stage == "link" and "missing_varying" in raised.value.log
    assert renderer.program is None and renderer.link_count == 1


def test_malformed_parameter_values_fall_back_to_defaults(renderer: Renderer) -> None:
    renderer.build_program(color_parameter_artifact())
    renderer.set_parameter("tint", "not a colour")
    assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2]) == (0, 0, 0)  # zero, no exception
    renderer.set_parameter("tint", (0.0, 1.0, 0.0, 1.0))
    assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2]) == (0, 255, 0)
