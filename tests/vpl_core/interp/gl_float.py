"""Render a `ProgramArtifact` on the real driver with the inputs the interpreter takes, outputs read back exactly.

Every fragment output gets colour attachments at its reflected locations
(one per location it spans): GL_RGBA32F for float outputs, GL_RGBA32I for
int outputs, cleared to a sentinel first; the full-screen triangle of
`vpl_core.interp.fullscreen_mesh()` is drawn once (no depth test, no
blending) and every attachment is read back as float32 / int32, so values
are compared exactly as the shader wrote them. The inputs are the
interpreter's: uniform values by name as Python values (`lanes.from_python`
conventions: matrices as (rows, columns) arrays, records as dicts, arrays
as sequences), `Texture2D` objects for samplers (uploaded as RGBA8 levels
with the texture's sampler state), vertex attributes by location.

Everything goes through the artifact as a host would use it (explicit code
lengths, glBindFragDataLocation on desktop, block binding points applied,
uniforms found by their reflected GLSL names). Needs a current context
(`current_gl` / `current_gles`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gl_programs import build_program
from OpenGL import GL

from app.preview import std140 as packer
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.interp import MeshData, Texture2D, fullscreen_mesh
from vpl_core.interp.texture import Filter, Wrap
from vpl_core.ir.module import Direction
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, SamplerType, ScalarKind, ScalarType, Type, VectorType

FLOAT_SENTINEL = -12345.0
INT_SENTINEL = -1234567

_WRAP = {Wrap.REPEAT: GL.GL_REPEAT, Wrap.CLAMP_TO_EDGE: GL.GL_CLAMP_TO_EDGE, Wrap.MIRRORED_REPEAT: GL.GL_MIRRORED_REPEAT}
_FILTER = {
    Filter.NEAREST: GL.GL_NEAREST, Filter.LINEAR: GL.GL_LINEAR,
    Filter.NEAREST_MIPMAP_NEAREST: GL.GL_NEAREST_MIPMAP_NEAREST, Filter.LINEAR_MIPMAP_NEAREST: GL.GL_LINEAR_MIPMAP_NEAREST,
    Filter.NEAREST_MIPMAP_LINEAR: GL.GL_NEAREST_MIPMAP_LINEAR, Filter.LINEAR_MIPMAP_LINEAR: GL.GL_LINEAR_MIPMAP_LINEAR,
}  # fmt: skip


def _upload_texture(texture: Texture2D) -> int:
    name = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, name)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    for level, pixels in enumerate(texture.levels):
        height, width = pixels.shape[:2]
        data = np.rint(np.clip(pixels, 0.0, 1.0) * 255.0).astype(np.uint8)  # levels hold exact k / 255 values
        GL.glTexImage2D(GL.GL_TEXTURE_2D, level, GL.GL_RGBA8, width, height, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE,
                        np.ascontiguousarray(data))
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
    state = texture.sampler
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, state.base_level)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, min(state.max_level, len(texture.levels) - 1))
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, _WRAP[state.wrap_s])
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, _WRAP[state.wrap_t])
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, _FILTER[state.min_filter])
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, _FILTER[state.mag_filter])
    return name


def _set_leaf(program: int, selector: str, value_type: Type, value: Any) -> None:
    location = GL.glGetUniformLocation(program, selector.encode("ascii") + b"\0")
    if location < 0:
        return  # inactive
    if isinstance(value_type, MatrixType):
        matrix = np.asarray(value, dtype=np.float32).reshape(value_type.rows, value_type.columns)
        setter = getattr(GL, "glUniformMatrix{}fv".format(
            str(value_type.columns) if value_type.rows == value_type.columns else f"{value_type.columns}x{value_type.rows}"))
        setter(location, 1, GL.GL_FALSE, np.ascontiguousarray(matrix.T).reshape(-1))
        return
    size = value_type.size if isinstance(value_type, VectorType) else 1
    data = np.asarray(value).reshape(size)
    kind = value_type.kind  # type: ignore[union-attr]
    if kind is ScalarKind.FLOAT:
        getattr(GL, f"glUniform{size}fv")(location, 1, data.astype(np.float32))
    else:
        getattr(GL, f"glUniform{size}iv")(location, 1, data.astype(np.int32))


def _set_uniform(program: int, selector: str, value_type: Type, value: Any) -> None:
    if value is None:
        return  # GL's initial value: zero
    if isinstance(value_type, ArrayType):
        for index, element in enumerate(list(value)):
            _set_uniform(program, f"{selector}[{index}]", value_type.element, element)
    elif isinstance(value_type, RecordType):
        for position, record_field in enumerate(value_type.fields):
            _set_uniform(program, f"{selector}.vpl_m{position}", record_field.type, value.get(record_field.name))
    elif isinstance(value_type, (ScalarType, VectorType, MatrixType)):
        _set_leaf(program, selector, value_type, value)


def _leaf_kinds(value_type: Type) -> list[tuple[ScalarKind, int]]:
    """(kind, components) per location an output occupies."""
    if isinstance(value_type, ArrayType):
        return _leaf_kinds(value_type.element) * value_type.count
    size = value_type.size if isinstance(value_type, VectorType) else 1
    return [(value_type.kind, size)]  # type: ignore[union-attr]


def _set_initial_attribute(location: int, value_type: Type) -> None:
    """An input without data reads (0, 0, 0, 1) per location, as the interpreter assumes.

    That is GL's *initial* current value; the context is shared by the whole
    test session and other harnesses set other current values (the preview's
    host contract gives zero), so it is set here rather than inherited.
    """
    columns = value_type.columns if isinstance(value_type, MatrixType) else 1
    integer = isinstance(value_type, (ScalarType, VectorType)) and value_type.kind is not ScalarKind.FLOAT
    for column in range(columns):
        GL.glDisableVertexAttribArray(location + column)
        if integer:
            GL.glVertexAttribI4i(location + column, 0, 0, 0, 1)
        else:
            GL.glVertexAttrib4f(location + column, 0.0, 0.0, 0.0, 1.0)


def render_outputs(artifact: ProgramArtifact, width: int, height: int, *, uniforms: Mapping[str, Any] | None = None,
                   mesh: MeshData | None = None) -> dict[int, np.ndarray]:
    """Draw once; {output location: (height, width, 4) float32 or int32}, top row first (as the interpreter's images)."""
    uniforms = dict(uniforms or {})
    mesh = mesh or fullscreen_mesh()
    attachments: dict[int, ScalarKind] = {}
    for binding in artifact.fragment_interface:
        if binding.direction is not Direction.OUT:
            continue
        for offset, (kind, _) in enumerate(_leaf_kinds(binding.type)):
            attachments[binding.location + offset] = kind
    program = build_program(artifact)
    framebuffer = GL.glGenFramebuffers(1)
    vertex_array = GL.glGenVertexArrays(1)
    textures: list[int] = []
    buffers: list[int] = []
    renderbuffers: list[int] = []
    try:
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        for location, kind in attachments.items():
            renderbuffer = int(GL.glGenRenderbuffers(1))
            renderbuffers.append(renderbuffer)
            GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, renderbuffer)
            GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA32F if kind is ScalarKind.FLOAT else GL.GL_RGBA32I, width, height)
            GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0 + location, GL.GL_RENDERBUFFER, renderbuffer)
        draw_buffers = [GL.GL_NONE] * (max(attachments) + 1)
        for location in attachments:
            draw_buffers[location] = GL.GL_COLOR_ATTACHMENT0 + location
        GL.glDrawBuffers(len(draw_buffers), np.array(draw_buffers, dtype=np.uint32))
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        assert status == GL.GL_FRAMEBUFFER_COMPLETE, f"framebuffer incomplete: {status:#x}"
        for location, kind in attachments.items():
            if kind is ScalarKind.FLOAT:
                GL.glClearBufferfv(GL.GL_COLOR, location, np.full(4, FLOAT_SENTINEL, dtype=np.float32))
            else:
                GL.glClearBufferiv(GL.GL_COLOR, location, np.full(4, INT_SENTINEL, dtype=np.int32))
        GL.glViewport(0, 0, width, height)
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glUseProgram(program)
        GL.glBindVertexArray(vertex_array)
        unit = 0
        for binding in artifact.uniforms:
            value = uniforms.get(binding.name)
            if isinstance(binding.type, SamplerType):
                if value is None:
                    continue
                GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
                textures.append(_upload_texture(value))
                location = GL.glGetUniformLocation(program, binding.gl_name_bytes)
                if location >= 0:
                    GL.glUniform1i(location, unit)
                unit += 1
            elif binding.block_binding >= 0:
                data = bytearray(max(binding.block_size, 16))
                packer.pack_into(data, binding.type, value)
                buffer = int(GL.glGenBuffers(1))
                buffers.append(buffer)
                GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, buffer)
                GL.glBufferData(GL.GL_UNIFORM_BUFFER, len(data), bytes(data), GL.GL_STATIC_DRAW)
                GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, binding.block_binding, buffer)
            else:
                _set_uniform(program, binding.gl_name, binding.type, value)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        for binding in artifact.vertex_interface:
            if binding.direction is not Direction.IN:
                continue
            data = mesh.attributes.get(binding.location)
            if data is None:
                _set_initial_attribute(binding.location, binding.type)
                continue
            data = np.ascontiguousarray(data, dtype=np.float32)
            buffer = int(GL.glGenBuffers(1))
            buffers.append(buffer)
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, data, GL.GL_STATIC_DRAW)
            GL.glVertexAttribPointer(binding.location, data.shape[1], GL.GL_FLOAT, GL.GL_FALSE, 0, None)
            GL.glEnableVertexAttribArray(binding.location)
            if isinstance(binding.type, MatrixType):
                # The mesh's data feeds the first column only; the other columns read the
                # initial value, as the interpreter assumes (another harness on this shared
                # context may have left identity columns there: CI failed on golden/locations).
                for column in range(1, binding.type.columns):
                    GL.glDisableVertexAttribArray(binding.location + column)
                    GL.glVertexAttrib4f(binding.location + column, 0.0, 0.0, 0.0, 1.0)
        indices = np.ascontiguousarray(mesh.indices, dtype=np.uint32)
        index_buffer = int(GL.glGenBuffers(1))
        buffers.append(index_buffer)
        GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, index_buffer)
        GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, indices.nbytes, indices, GL.GL_STATIC_DRAW)
        GL.glDrawElements(GL.GL_TRIANGLES, int(indices.size), GL.GL_UNSIGNED_INT, None)
        GL.glFinish()
        results: dict[int, np.ndarray] = {}
        for location, kind in attachments.items():
            GL.glReadBuffer(GL.GL_COLOR_ATTACHMENT0 + location)
            GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 4)
            if kind is ScalarKind.FLOAT:
                raw = GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_FLOAT)
                pixels = np.frombuffer(bytes(raw), dtype=np.float32)
            else:
                raw = GL.glReadPixels(0, 0, width, height, GL.GL_RGBA_INTEGER, GL.GL_INT)
                pixels = np.frombuffer(bytes(raw), dtype=np.int32)
            results[location] = pixels.reshape(height, width, 4)[::-1].copy()
        error = GL.glGetError()
        assert error == GL.GL_NO_ERROR, f"GL error {error:#x}"
        return results
    finally:
        GL.glUseProgram(0)
        GL.glBindVertexArray(0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        GL.glDeleteVertexArrays(1, [vertex_array])
        GL.glDeleteFramebuffers(1, [framebuffer])
        if renderbuffers:
            GL.glDeleteRenderbuffers(len(renderbuffers), renderbuffers)
        if buffers:
            GL.glDeleteBuffers(len(buffers), buffers)
        if textures:
            GL.glDeleteTextures(textures)
        GL.glDeleteProgram(program)
