"""Native-driver helpers for the GLSL backend tests: build a program from an artifact, render, read pixels.

Everything goes through the artifact, as a host would: both code strings
are uploaded with explicit byte lengths, the primary fragment output is
bound with glBindFragDataLocation before linking (desktop GL; ES has no such
call and relies on the layout qualifier), std140 blocks are sized and
packed from the reflection, and non-block uniforms are found by their
reflected GLSL names. Rendering draws one full-screen triangle into an
RGBA8 framebuffer object and reads it back with glReadPixels.

Needs a current context (the `current_gl` / `current_gles` fixtures).
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from OpenGL import GL

from vpl_core.backends.glsl import std140
from vpl_core.backends.glsl.artifact import ProgramArtifact, UniformBinding
from vpl_core.ir.module import Direction
from vpl_core.ir.types import (
    ArrayType,
    MatrixType,
    RecordType,
    SamplerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)

#: A triangle covering the whole viewport, and texture coordinates that map the viewport to [0, 1]^2.
#: A vertex stage of module text (types Vec3, Vec4, Void): position input at location 0 to clip position.
PASS_THROUGH_VERTEX_STAGE = """
  (vertex main
    (interface
      (in position "position" Vec3 0 none)
      (out clip "clip" Vec4 -1 position))
    (functions
      (function main "vertex_main" Void
        (parameters)
        (registers (register r0 Vec3) (register r1 Vec4))
        (block entry
          (load r0 (stage position))
          (construct r1 r0 (float 1.0))
          (store (stage clip) r1)
          (return)))))
"""

FULL_SCREEN_POSITIONS = np.array([[-1.0, -1.0, 0.0], [3.0, -1.0, 0.0], [-1.0, 3.0, 0.0]], dtype=np.float32)
FULL_SCREEN_TEXCOORDS = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]], dtype=np.float32)


# Program building is shared with the math driver tests.
from gl_programs import ProgramError, build_program, compile_shader, set_default_attribute  # noqa: E402,F401


def block_data_size(program: int, binding: UniformBinding) -> int | None:
    """The driver's GL_UNIFORM_BLOCK_DATA_SIZE of a record uniform's block; None if optimized away."""
    index = GL.glGetUniformBlockIndex(program, binding.block_name.encode("ascii") + b"\0")
    if index == GL.GL_INVALID_INDEX:
        return None
    value = np.zeros(1, dtype=np.int32)
    GL.glGetActiveUniformBlockiv(program, index, GL.GL_UNIFORM_BLOCK_DATA_SIZE, value)
    return int(value[0])


def block_member_offset(program: int, name: str) -> int | None:
    """GL_UNIFORM_OFFSET of a block member such as `vpl_Block0.vpl_m1`; None if inactive."""
    index = np.full(1, GL.GL_INVALID_INDEX, dtype=np.uint32)
    names = (ctypes.c_char_p * 1)(name.encode("ascii"))
    GL.glGetUniformIndices(program, 1, ctypes.cast(names, ctypes.POINTER(ctypes.POINTER(GL.GLchar))), index)
    if int(index[0]) == GL.GL_INVALID_INDEX:
        return None
    offset = np.zeros(1, dtype=np.int32)
    GL.glGetActiveUniformsiv(program, 1, index, GL.GL_UNIFORM_OFFSET, offset)
    return int(offset[0])


# Values -------------------------------------------------------------------------------------


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple, np.ndarray)):
        out: list[Any] = []
        for item in value:
            out.extend(_flat(item))
        return out
    return [value]


def _leaf_bytes(value_type: Type, value: Any) -> bytes:
    """std140 bytes of one scalar/vector/matrix leaf (matrices: columns, each padded to 16 bytes)."""
    if isinstance(value_type, MatrixType):
        columns = np.asarray(value, dtype=np.float32).reshape(value_type.columns, value_type.rows)
        return b"".join(column.tobytes() + b"\0" * (16 - 4 * value_type.rows) for column in columns)
    kind = value_type.kind  # type: ignore[union-attr]
    items = _flat(value)
    if kind is ScalarKind.FLOAT:
        return struct.pack(f"<{len(items)}f", *items)
    return struct.pack(f"<{len(items)}i", *[int(item) for item in items])


def pack_block(record: RecordType, values: Mapping[str, Any]) -> bytes:
    """A std140 buffer for `record`, leaves given by GLSL selector (`vpl_m0`, `vpl_m1[2].vpl_m0`)."""
    data = bytearray(std140.block_size(record))
    for selector, offset, leaf_type in std140.member_offsets(record):
        if selector in values:
            encoded = _leaf_bytes(leaf_type, values[selector])
            data[offset : offset + len(encoded)] = encoded
    return bytes(data)


def _set_uniform(program: int, name: str, value_type: Type, value: Any) -> None:
    """Upload a non-block uniform leaf by leaf (`vpl_u1[2]`, `vpl_u2[1].vpl_m0`)."""
    if isinstance(value_type, ArrayType):
        element = value_type.element
        values = list(value)
        for index in range(value_type.count):
            _set_uniform(program, f"{name}[{index}]", element, values[index])
        return
    if isinstance(value_type, RecordType):
        for position, record_field in enumerate(value_type.fields):
            if record_field.name in value:
                _set_uniform(program, f"{name}.vpl_m{position}", record_field.type, value[record_field.name])
        return
    location = GL.glGetUniformLocation(program, name.encode("ascii") + b"\0")
    if location < 0:
        return  # inactive: optimized away by the driver
    if isinstance(value_type, MatrixType):
        data = np.asarray(value, dtype=np.float32).reshape(-1)
        setter = {
            (2, 2): GL.glUniformMatrix2fv, (3, 3): GL.glUniformMatrix3fv, (4, 4): GL.glUniformMatrix4fv,
            (2, 3): GL.glUniformMatrix3x2fv, (2, 4): GL.glUniformMatrix4x2fv, (3, 2): GL.glUniformMatrix2x3fv,
            (3, 4): GL.glUniformMatrix4x3fv, (4, 2): GL.glUniformMatrix2x4fv, (4, 3): GL.glUniformMatrix3x4fv,
        }[(value_type.rows, value_type.columns)]
        setter(location, 1, GL.GL_FALSE, data)
        return
    if isinstance(value_type, (ScalarType, VectorType)):
        items = _flat(value)
        size = len(items)
        if value_type.kind is ScalarKind.FLOAT:
            getattr(GL, f"glUniform{size}f")(location, *[float(item) for item in items])
        else:
            getattr(GL, f"glUniform{size}i")(location, *[int(item) for item in items])
        return
    raise TypeError(f"cannot upload {value_type}")


# Textures -------------------------------------------------------------------------------------


@dataclass
class Texture:
    """A 2D RGBA8 texture with explicit mip levels and sampler state."""

    levels: Sequence[np.ndarray]          # each (height, width, 4) uint8, level 0 first
    wrap: int = GL.GL_REPEAT
    min_filter: int = GL.GL_NEAREST
    mag_filter: int = GL.GL_NEAREST

    def create(self) -> int:
        texture = GL.glGenTextures(1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        for level, pixels in enumerate(self.levels):
            height, width = pixels.shape[:2]
            GL.glTexImage2D(
                GL.GL_TEXTURE_2D, level, GL.GL_RGBA8, width, height, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE,
                np.ascontiguousarray(pixels, dtype=np.uint8),
            )
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, len(self.levels) - 1)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, self.wrap)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, self.wrap)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, self.min_filter)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, self.mag_filter)
        return int(texture)


def solid(width: int, height: int, rgba: Sequence[int]) -> np.ndarray:
    return np.tile(np.array(rgba, dtype=np.uint8), (height, width, 1))


# Rendering ------------------------------------------------------------------------------------


@dataclass
class Inputs:
    """What a test feeds a program, keyed by logical (module) names and locations."""

    uniforms: dict[str, Any] = field(default_factory=dict)   # non-block: value; block: {selector: value}
    textures: dict[str, Texture] = field(default_factory=dict)
    attributes: dict[int, np.ndarray] = field(default_factory=dict)  # location -> per-vertex data (3 rows)


def render(artifact: ProgramArtifact, inputs: Inputs | None = None, size: int = 4, es: bool = False) -> np.ndarray:
    """Draw a full-screen triangle with the artifact's program; the RGBA8 pixels, (size, size, 4), row 0 at the bottom."""
    inputs = inputs or Inputs()
    created_buffers: list[int] = []
    created_textures: list[int] = []
    program = build_program(artifact, es=es)
    framebuffer = GL.glGenFramebuffers(1)
    renderbuffer = GL.glGenRenderbuffers(1)
    vertex_array = GL.glGenVertexArrays(1)
    try:
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, renderbuffer)
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA8, size, size)
        # The colour output's location selects draw buffer L; ES requires buffer L
        # to be COLOR_ATTACHMENT<L>, so attach there (fine on desktop GL too).
        color_location = artifact.fragment_color_location
        attachment = GL.GL_COLOR_ATTACHMENT0 + color_location
        GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, attachment, GL.GL_RENDERBUFFER, renderbuffer)
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        assert status == GL.GL_FRAMEBUFFER_COMPLETE, f"framebuffer incomplete: {status:#x}"
        attachments = [GL.GL_NONE] * color_location + [attachment]
        GL.glDrawBuffers(len(attachments), np.array(attachments, dtype=np.uint32))
        GL.glViewport(0, 0, size, size)
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glClearColor(0.0, 0.0, 0.0, 0.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glUseProgram(program)
        GL.glBindVertexArray(vertex_array)

        unit = 0
        for binding in artifact.uniforms:
            if binding.block_binding >= 0:
                assert isinstance(binding.type, RecordType)
                data = pack_block(binding.type, inputs.uniforms.get(binding.name, {}))
                buffer = GL.glGenBuffers(1)
                created_buffers.append(buffer)
                GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, buffer)
                GL.glBufferData(GL.GL_UNIFORM_BUFFER, len(data), data, GL.GL_STATIC_DRAW)
                GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, binding.block_binding, buffer)
            elif isinstance(binding.type, SamplerType):
                texture = inputs.textures.get(binding.name)
                if texture is not None:
                    GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
                    created_textures.append(texture.create())
                    location = GL.glGetUniformLocation(program, binding.gl_name_bytes)
                    if location >= 0:
                        GL.glUniform1i(location, unit)
                    unit += 1
            elif binding.name in inputs.uniforms:
                _set_uniform(program, binding.gl_name, binding.type, inputs.uniforms[binding.name])

        for binding in artifact.vertex_interface:
            if binding.direction is not Direction.IN:
                continue
            location = binding.location
            data = inputs.attributes.get(location)
            if data is None and location == 0:
                data = FULL_SCREEN_POSITIONS
            if data is None:
                set_default_attribute(location, binding.type)
                continue
            data = np.ascontiguousarray(data)
            buffer = GL.glGenBuffers(1)
            created_buffers.append(buffer)
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, data, GL.GL_STATIC_DRAW)
            components = data.shape[1]
            if data.dtype == np.int32:
                GL.glVertexAttribIPointer(location, components, GL.GL_INT, 0, None)
            else:
                GL.glVertexAttribPointer(location, components, GL.GL_FLOAT, GL.GL_FALSE, 0, None)
            GL.glEnableVertexAttribArray(location)

        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
        GL.glFinish()
        GL.glReadBuffer(attachment)
        pixels = GL.glReadPixels(0, 0, size, size, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
        error = GL.glGetError()
        assert error == GL.GL_NO_ERROR, f"GL error {error:#x}"
        return np.frombuffer(bytes(pixels), dtype=np.uint8).reshape(size, size, 4).copy()
    finally:
        GL.glUseProgram(0)
        GL.glBindVertexArray(0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        GL.glDeleteVertexArrays(1, [vertex_array])
        GL.glDeleteRenderbuffers(1, [renderbuffer])
        GL.glDeleteFramebuffers(1, [framebuffer])
        if created_buffers:
            GL.glDeleteBuffers(len(created_buffers), created_buffers)
        if created_textures:
            GL.glDeleteTextures(created_textures)
        GL.glDeleteProgram(program)
