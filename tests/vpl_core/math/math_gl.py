"""A small OpenGL harness for the math driver tests: float framebuffers, uniform arrays, mip textures.

Everything is driven from the `ProgramArtifact`, as a host would use it:
both code strings are uploaded with explicit byte lengths, uniforms are
found by their reflected GLSL names, vertex inputs are bound at their
reflected locations, and fragment outputs land in the colour attachment of
their reflected location. Results are read back as float32 from GL_RGBA32F
attachments, so values are compared exactly as the shader wrote them (no
8-bit quantization).

Needs a current OpenGL 4.2+ core context (the `current_gl` fixture).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from OpenGL import GL

from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.module import Direction
from vpl_core.ir.types import ArrayType, ScalarKind, VectorType, element_kind

#: A triangle that covers the whole viewport.
FULL_SCREEN_TRIANGLE = np.array([[-1.0, -1.0, 0.0], [3.0, -1.0, 0.0], [-1.0, 3.0, 0.0]], dtype=np.float32)
#: Value the attachments are cleared to: a pixel the draw missed cannot pass as a result.
SENTINEL = -12345.0


# Program building is shared with the backend's driver tests.
from gl_programs import ProgramError, build_program, set_default_attribute  # noqa: E402,F401


@dataclass
class MipTexture:
    """A 2D RGBA32F texture with one explicitly given image per mip level."""

    levels: Sequence[np.ndarray]  # each (height, width, 4) float32, level 0 first
    min_filter: int = GL.GL_NEAREST_MIPMAP_NEAREST
    mag_filter: int = GL.GL_NEAREST

    def create(self) -> int:
        texture = GL.glGenTextures(1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        for level, pixels in enumerate(self.levels):
            height, width = pixels.shape[:2]
            GL.glTexImage2D(
                GL.GL_TEXTURE_2D, level, GL.GL_RGBA32F, width, height, 0, GL.GL_RGBA, GL.GL_FLOAT,
                np.ascontiguousarray(pixels, dtype=np.float32),
            )  # fmt: skip
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, len(self.levels) - 1)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, self.min_filter)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, self.mag_filter)
        return int(texture)


@dataclass
class Draw:
    """What to feed a program: uniform values by logical name, textures, and per-vertex attributes.

    `attributes` maps a vertex input location to (vertex count, components)
    float32 data; location 0 defaults to the full-screen triangle. With
    `points` the vertices are drawn as GL_POINTS (one per case), else as
    triangles.
    """

    uniforms: dict[str, np.ndarray] = field(default_factory=dict)
    textures: dict[str, MipTexture] = field(default_factory=dict)
    attributes: dict[int, np.ndarray] = field(default_factory=dict)
    points: bool = False


def _upload_uniform(program: int, gl_name: str, value_type: object, value: np.ndarray) -> None:
    location = GL.glGetUniformLocation(program, gl_name.encode("ascii") + b"\0")
    if location < 0:
        return  # optimized away: the shader does not read it
    element = value_type.element if isinstance(value_type, ArrayType) else value_type
    count = value_type.count if isinstance(value_type, ArrayType) else 1
    size = element.size if isinstance(element, VectorType) else 1
    data = np.ascontiguousarray(value).reshape(count * size)
    if element.kind is ScalarKind.FLOAT:  # type: ignore[union-attr]
        getattr(GL, f"glUniform{size}fv")(location, count, data.astype(np.float32))
    else:
        getattr(GL, f"glUniform{size}iv")(location, count, data.astype(np.int32))


def render(artifact: ProgramArtifact, draw: Draw, width: int, height: int = 1) -> dict[int, np.ndarray]:
    """Draw once; returns {output location: (height, width, 4) float32 pixels}, row 0 at the bottom."""
    outputs = sorted(
        binding.location for binding in artifact.fragment_interface if binding.direction is Direction.OUT
    )
    program = build_program(artifact)
    framebuffer = GL.glGenFramebuffers(1)
    vertex_array = GL.glGenVertexArrays(1)
    textures: list[int] = []
    buffers: list[int] = []
    try:
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        for location in outputs:
            texture = GL.glGenTextures(1)
            textures.append(int(texture))
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
            GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, width, height, 0, GL.GL_RGBA, GL.GL_FLOAT, None)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_NEAREST)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_NEAREST)
            GL.glFramebufferTexture2D(
                GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0 + location, GL.GL_TEXTURE_2D, texture, 0
            )
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        assert status == GL.GL_FRAMEBUFFER_COMPLETE, f"framebuffer incomplete: {status:#x}"
        # Draw buffer i receives fragment output location i.
        draw_buffers = [GL.GL_NONE] * (max(outputs) + 1)
        for location in outputs:
            draw_buffers[location] = GL.GL_COLOR_ATTACHMENT0 + location
        GL.glDrawBuffers(len(draw_buffers), np.array(draw_buffers, dtype=np.uint32))
        for location in outputs:
            GL.glClearBufferfv(GL.GL_COLOR, location, np.full(4, SENTINEL, dtype=np.float32))
        GL.glViewport(0, 0, width, height)
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glUseProgram(program)
        GL.glBindVertexArray(vertex_array)

        unit = 0
        for binding in artifact.uniforms:
            if binding.name in draw.textures:
                GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
                textures.append(draw.textures[binding.name].create())
                location = GL.glGetUniformLocation(program, binding.gl_name_bytes)
                if location >= 0:
                    GL.glUniform1i(location, unit)
                unit += 1
            elif binding.name in draw.uniforms:
                _upload_uniform(program, binding.gl_name, binding.type, draw.uniforms[binding.name])
        GL.glActiveTexture(GL.GL_TEXTURE0)

        vertex_count = 3
        for binding in artifact.vertex_interface:
            if binding.direction is not Direction.IN:
                continue
            data = draw.attributes.get(binding.location)
            if data is None and binding.location == 0:
                data = FULL_SCREEN_TRIANGLE
            if data is None:
                # Host contract: inputs without data get a zero value of their kind (int: glVertexAttribI4i).
                set_default_attribute(binding.location, binding.type)
                continue
            integer = element_kind(binding.type) is ScalarKind.INT
            data = np.ascontiguousarray(data, dtype=np.int32 if integer else np.float32)
            vertex_count = data.shape[0]
            buffer = GL.glGenBuffers(1)
            buffers.append(int(buffer))
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, data, GL.GL_STATIC_DRAW)
            if integer:
                GL.glVertexAttribIPointer(binding.location, data.shape[1], GL.GL_INT, 0, None)
            else:
                GL.glVertexAttribPointer(binding.location, data.shape[1], GL.GL_FLOAT, GL.GL_FALSE, 0, None)
            GL.glEnableVertexAttribArray(binding.location)

        GL.glDrawArrays(GL.GL_POINTS if draw.points else GL.GL_TRIANGLES, 0, vertex_count)
        GL.glFinish()
        results: dict[int, np.ndarray] = {}
        for location in outputs:
            GL.glReadBuffer(GL.GL_COLOR_ATTACHMENT0 + location)
            pixels = GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_FLOAT)
            results[location] = np.array(pixels, dtype=np.float32).reshape(height, width, 4)
        error = GL.glGetError()
        assert error == GL.GL_NO_ERROR, f"GL error {error:#x}"
        return results
    finally:
        GL.glUseProgram(0)
        GL.glBindVertexArray(0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        GL.glDeleteVertexArrays(1, [vertex_array])
        GL.glDeleteFramebuffers(1, [framebuffer])
        if buffers:
            GL.glDeleteBuffers(len(buffers), buffers)
        if textures:
            GL.glDeleteTextures(len(textures), textures)
        GL.glDeleteProgram(program)
