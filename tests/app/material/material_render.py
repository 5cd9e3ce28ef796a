"""Draw a lowered material on a screen-filling quad and read the pixels back as float32 (RGBA32F).

The quad covers clip space with identity scene matrices, so at pixel (i, j)
(j counted from the bottom, as glReadPixels returns rows) the surface
values are: texcoord = ((i + 0.5) / size, (j + 0.5) / size), world (and
object) position = (2 u - 1, 2 v - 1, 0), normal = (0, 0, 1). `pixel_uv`
gives the same coordinates for numpy references. Needs a current context
(`current_gl` or `current_gles`); the material is compiled for the target
that context runs (glsl420 on desktop, es320 on ES unless told).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
from gl_programs import build_program
from OpenGL import GL

from app.material.lowering import LoweringResult
from app.preview import std140
from vpl_core.backends import glsl

# position (3), normal (3), texcoord (2), tangent (4): the preview's vertex layout, locations 0-3.
_CORNERS = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
_VERTICES = np.array(
    [[x, y, 0.0, 0.0, 0.0, 1.0, (x + 1.0) / 2.0, (y + 1.0) / 2.0, 1.0, 0.0, 0.0, 1.0] for x, y in _CORNERS], dtype=np.float32
)
_ATTRIBUTES = ((0, 3, 0), (1, 3, 3), (2, 2, 6), (3, 4, 8))  # (location, components, float offset)


def pixel_uv(size: int) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) arrays of shape (size, size), row-major with row 0 at the bottom, in float32."""
    centres = (np.arange(size, dtype=np.float32) + np.float32(0.5)) / np.float32(size)
    u, v = np.meshgrid(centres, centres)
    return u.astype(np.float32), v.astype(np.float32)


def scene_values() -> dict[str, Any]:
    identity = np.eye(4, dtype=np.float32)
    return {
        "model": identity,
        "view": identity,
        "projection": identity,
        "normal_matrix": identity,
        "camera_position": (0.0, 0.0, 2.0),
        "time": 0.0,
        "light_direction": (0.0, 0.0, 1.0),
    }


class MaterialQuad:
    """A material's program, a screen-filling quad and an RGBA32F target, ready to draw repeatedly.

    Use as a context manager (it deletes its GL objects on exit); `draw()`
    renders one frame and waits for it (glFinish), `pixels()` reads it back.
    """

    def __init__(self, result: LoweringResult, size: int, target: str, uniforms: dict[str, Any] | None = None) -> None:
        assert result.ok, result.diagnostics
        self.size = size
        self.artifact = glsl.compile(result.verified, target=target)
        self.program = build_program(self.artifact)
        self.framebuffer = GL.glGenFramebuffers(1)
        self.texture = GL.glGenTextures(1)
        self.vertex_array = GL.glGenVertexArrays(1)
        buffers = GL.glGenBuffers(2)
        self.vertex_buffer, self.uniform_buffer = int(buffers[0]), int(buffers[1])
        GL.glBindTexture(GL.GL_TEXTURE_2D, self.texture)
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, size, size, 0, GL.GL_RGBA, GL.GL_FLOAT, None)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.framebuffer)
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, self.texture, 0)
        assert GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER) == GL.GL_FRAMEBUFFER_COMPLETE
        GL.glBindVertexArray(self.vertex_array)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vertex_buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, _VERTICES.nbytes, _VERTICES, GL.GL_STATIC_DRAW)
        stride = _VERTICES.shape[1] * 4
        for location, components, offset in _ATTRIBUTES:
            GL.glEnableVertexAttribArray(location)
            GL.glVertexAttribPointer(location, components, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset * 4))
        GL.glUseProgram(self.program)
        for binding in self.artifact.uniforms:
            if binding.block_binding >= 0:
                value = scene_values() if binding.name == "scene" else (uniforms or {}).get(binding.name)
                data = std140.pack(binding.type, value)
                GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, self.uniform_buffer)
                GL.glBufferData(GL.GL_UNIFORM_BUFFER, max(len(data), binding.block_size), data, GL.GL_STATIC_DRAW)
                GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, binding.block_binding, self.uniform_buffer)
            elif uniforms and binding.name in uniforms:
                location = GL.glGetUniformLocation(self.program, binding.gl_name_bytes)
                value = np.asarray(uniforms[binding.name], dtype=np.float32).ravel()
                setter = {1: GL.glUniform1fv, 2: GL.glUniform2fv, 3: GL.glUniform3fv, 4: GL.glUniform4fv}[value.size]
                setter(location, 1, value)
        GL.glViewport(0, 0, size, size)
        GL.glDisable(GL.GL_BLEND)
        GL.glDisable(GL.GL_DEPTH_TEST)

    def draw(self) -> None:
        GL.glClearColor(0.0, 0.0, 0.0, 0.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 6)
        GL.glFinish()

    def pixels(self) -> np.ndarray:
        pixels = GL.glReadPixels(0, 0, self.size, self.size, GL.GL_RGBA, GL.GL_FLOAT)
        error = GL.glGetError()
        assert error == GL.GL_NO_ERROR, f"GL error {error:#x}"
        return np.frombuffer(pixels, dtype=np.float32).reshape(self.size, self.size, 4).copy()

    def __enter__(self) -> MaterialQuad:
        return self

    def __exit__(self, *_exception: object) -> None:
        GL.glUseProgram(0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        GL.glDeleteFramebuffers(1, [self.framebuffer])
        GL.glDeleteTextures(1, [self.texture])
        GL.glDeleteVertexArrays(1, [self.vertex_array])
        GL.glDeleteBuffers(2, [self.vertex_buffer, self.uniform_buffer])
        GL.glDeleteProgram(self.program)


def render_material(result: LoweringResult, size: int, target: str, uniforms: dict[str, Any] | None = None) -> np.ndarray:
    """RGBA float32 pixels, shape (size, size, 4), of the material compiled for `target`."""
    with MaterialQuad(result, size, target, uniforms) as quad:
        quad.draw()
        return quad.pixels()
