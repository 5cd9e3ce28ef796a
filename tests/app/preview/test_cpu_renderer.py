"""`CpuRenderer`: the preview's host contract without OpenGL, kept equal to the GL renderer's.

The CPU preview must show the scene the GL preview shows: the scene record
values, defaults and value conventions are compared with `Renderer`'s own
(host-side methods, no context needed); the pixels are compared in
test_cpu_vs_gpu.py. The PNG reader `vpl run` uses is checked against Qt's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.preview import renderer as gl_renderer
from app.preview.cpu_renderer import DEFAULT_BACKGROUND, DEFAULT_LIGHT_DIRECTION, CpuRenderer
from app.preview.images import load_image_rgba
from vpl_core.interp.png import read_png
from vpl_core.publish import VerifiedModule

ROOT = Path(__file__).resolve().parents[3]
FOREIGN = Path(__file__).resolve().parent / "data" / "foreign-uniforms.vpl"


def test_defaults_are_the_gl_renderers() -> None:
    assert DEFAULT_BACKGROUND == gl_renderer.DEFAULT_BACKGROUND
    assert DEFAULT_LIGHT_DIRECTION == gl_renderer.DEFAULT_LIGHT_DIRECTION
    cpu, gpu = CpuRenderer(), gl_renderer.Renderer()
    assert (cpu.background, cpu.light_direction, cpu.time, cpu.mesh_name) == (gpu.background, gpu.light_direction, gpu.time, gpu.mesh_name)


@pytest.mark.parametrize(("yaw", "pitch", "zoom", "size"), [(0, 0, 1.0, (256, 256)), (40, 25, 0.6, (320, 200)), (300, -60, 3.0, (90, 160))])
def test_scene_values_are_the_gl_renderers(yaw: float, pitch: float, zoom: float, size: tuple[int, int]) -> None:
    cpu, gpu = CpuRenderer(), gl_renderer.Renderer()
    for renderer in (cpu, gpu):
        renderer.camera.orbit(yaw, pitch)
        renderer.camera.zoom(zoom)
        renderer.time = 2.5
        renderer.set_light_direction((1.0, 2.0, 3.0))
    expected = gpu.scene_values(*size)
    got = cpu.scene_values(*size)
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(value), err_msg=name)
    with pytest.raises(ValueError, match="zero vector"):
        cpu.set_light_direction((0.0, 0.0, 0.0))


def test_uniform_values_follow_the_renderers_upload_conventions() -> None:
    renderer = CpuRenderer()
    program = renderer.set_program(VerifiedModule.from_text(FOREIGN.read_text(encoding="utf-8"), FOREIGN.name))
    types = {uniform.name: uniform.type for uniform in program.module.uniforms}
    values = renderer.uniform_values(64, 64)
    assert set(values) == set(types)
    # Unset numbers are zero; matrices identity (in blocks and in the default block alike).
    for name, value_type in types.items():
        text = str(value_type)
        if text.startswith("matrix"):
            np.testing.assert_array_equal(np.asarray(values[name]), np.eye(value_type.rows, value_type.columns))


def test_a_colour_given_as_rgb_gets_alpha_one_and_a_wrong_shape_reads_the_default() -> None:
    from app.preview.cpu_renderer import _default_block_value
    from vpl_core.ir.types import mat, vec

    assert _default_block_value(vec(4), (0.25, 0.5, 0.75)) == [0.25, 0.5, 0.75, 1.0]
    assert _default_block_value(vec(3), 0.5) == [0.5, 0.5, 0.5]
    np.testing.assert_array_equal(_default_block_value(mat(3), None), np.eye(3))


@pytest.mark.parametrize("path", sorted((ROOT / "resources" / "icons").glob("*.png")), ids=lambda path: path.name)
def test_the_png_reader_agrees_with_qt(path: Path) -> None:
    np.testing.assert_array_equal(read_png(path), load_image_rgba(str(path)))
