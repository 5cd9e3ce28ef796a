"""tests/mtlx_noise_reference.py (MaterialX's fractal3d in numpy) against MaterialX's own GLSL noise library
run by the GPU: the same values on a grid of points spanning many lattice cells, both signs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mtlx_noise_reference
import numpy as np
import pytest
from gl_programs import compile_shader
from OpenGL import GL

pytestmark = pytest.mark.gl

SIZE = 32
VERTEX = """#version 420 core
void main() { gl_Position = vec4(vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0), 0.0, 1.0); }
"""
#: Points whose products are exact in binary32, so that both sides round the same sums.
FRAGMENT = """#version 420 core
{library}
layout(location = 0) out vec4 color;
void main() {{
    vec2 c = gl_FragCoord.xy - 0.5;
    vec3 p = vec3(c.x * 0.1875 - 2.9, c.y * 0.15625 + 0.61, (c.x - c.y) * 0.09375 + 7.3);
    color = vec4(mx_fractal3d_noise_vec3(p, {octaves}, {lacunarity}, {diminish}).yz,
                 mx_fractal3d_noise_float(p, {octaves}, {lacunarity}, {diminish}), 1.0);
}}
"""


def _points() -> np.ndarray:
    row, column = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    return np.stack([column * np.float32(0.1875) - np.float32(2.9), row * np.float32(0.15625) + np.float32(0.61),
                     (column - row) * np.float32(0.09375) + np.float32(7.3)], axis=-1)


def _materialx_glsl(octaves: int, lacunarity: float, diminish: float) -> np.ndarray:
    import MaterialX

    library = (Path(MaterialX.__file__).parent / "libraries" / "stdlib" / "genglsl" / "lib" / "mx_noise.glsl").read_text()
    program = GL.glCreateProgram()
    shaders = [compile_shader(GL.GL_VERTEX_SHADER, VERTEX),
               compile_shader(GL.GL_FRAGMENT_SHADER, FRAGMENT.format(library=library, octaves=octaves,
                                                                     lacunarity=f"{lacunarity:.1f}", diminish=f"{diminish:.2f}"))]
    for shader in shaders:
        GL.glAttachShader(program, shader)
    GL.glLinkProgram(program)
    assert GL.glGetProgramiv(program, GL.GL_LINK_STATUS), GL.glGetProgramInfoLog(program)
    texture = GL.glGenTextures(1)
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, SIZE, SIZE, 0, GL.GL_RGBA, GL.GL_FLOAT, None)
    framebuffer = GL.glGenFramebuffers(1)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, texture, 0)
    vertex_array = GL.glGenVertexArrays(1)
    try:
        GL.glBindVertexArray(vertex_array)
        GL.glViewport(0, 0, SIZE, SIZE)
        GL.glDisable(GL.GL_BLEND)
        GL.glUseProgram(program)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
        pixels = GL.glReadPixels(0, 0, SIZE, SIZE, GL.GL_RGBA, GL.GL_FLOAT)
        return np.frombuffer(pixels, np.float32).reshape(SIZE, SIZE, 4)
    finally:
        GL.glUseProgram(0)
        GL.glBindVertexArray(0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        GL.glDeleteVertexArrays(1, [vertex_array])
        GL.glDeleteFramebuffers(1, [framebuffer])
        GL.glDeleteTextures(1, [texture])
        for shader in shaders:
            GL.glDeleteShader(shader)
        GL.glDeleteProgram(program)


@pytest.mark.parametrize(("octaves", "lacunarity", "diminish"), [(3, 2.0, 0.5), (1, 2.0, 0.5), (5, 3.0, 0.65)])
def test_the_numpy_fractal3d_is_materialx_glsl(current_gl: Any, octaves: int, lacunarity: float, diminish: float) -> None:
    drawn = _materialx_glsl(octaves, lacunarity, diminish)
    points = _points()
    single = mtlx_noise_reference.fractal3d(points, octaves, lacunarity, diminish)
    triple = mtlx_noise_reference.fractal3d(points, octaves, lacunarity, diminish, channels=3)
    assert np.abs(single).max() > 0.3 and np.std(single) > 0.1  # a pattern, not a constant
    assert np.abs(drawn[..., 2] - single).max() < 1e-5, np.abs(drawn[..., 2] - single).max()
    assert np.abs(drawn[..., :2] - triple[..., 1:]).max() < 1e-5, np.abs(drawn[..., :2] - triple[..., 1:]).max()
    assert np.array_equal(triple[..., 0], single)  # the first channel reads the same hash bits as the float form
