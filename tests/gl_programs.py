"""Test support shared by the native-driver tests: build a GL program from a ProgramArtifact as a host would.

Both code strings are uploaded with explicit byte lengths (no terminator);
on desktop GL the primary fragment output is bound with
glBindFragDataLocation before linking (ES has no such call and relies on the
layout qualifier); block binding points are applied from the reflection,
which ESSL 3.00 blocks need because their code carries none.

Vertex inputs without data get a zero current value of their kind
(`set_default_attribute`; integer inputs through glVertexAttribI4i), as the
host contract in docs/glsl-backend.md requires of every host.

Needs a current context (the `current_gl` / `current_gles` fixtures).
"""

from __future__ import annotations

import ctypes
from typing import Any

from OpenGL import GL
from OpenGL.raw.GL.VERSION import GL_2_0 as raw_gl  # noqa: N811 - the raw GL 2.0 entry points

from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.types import MatrixType, ScalarKind, ScalarType, Type, VectorType


class ProgramError(AssertionError):
    pass


def _info_log(getter: Any, name: int) -> str:
    log = getter(name)
    return log.decode(errors="replace") if isinstance(log, bytes) else str(log)


def compile_shader(kind: int, code: str) -> int:
    """Compile one stage, passing the source with an explicit byte length (no terminator)."""
    shader = GL.glCreateShader(kind)
    data = code.encode("utf-8")
    strings = (ctypes.c_char_p * 1)(data)
    lengths = (GL.GLint * 1)(len(data))
    raw_gl.glShaderSource(shader, 1, ctypes.cast(strings, ctypes.POINTER(ctypes.POINTER(GL.GLchar))), lengths)
    GL.glCompileShader(shader)
    if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
        log = _info_log(GL.glGetShaderInfoLog, shader)
        GL.glDeleteShader(shader)
        stage = "vertex" if kind == GL.GL_VERTEX_SHADER else "fragment"
        raise ProgramError(f"{stage} shader failed to compile:\n{log}\n--- source ---\n{code}")
    return int(shader)


def build_program(artifact: ProgramArtifact, es: bool | None = None) -> int:
    """Compile and link both stages; raise ProgramError with the driver's log on failure.

    `es` defaults to what the artifact's target implies.
    """
    if es is None:
        es = artifact.target != "glsl420"
    vertex = compile_shader(GL.GL_VERTEX_SHADER, artifact.vertex_code)
    try:
        fragment = compile_shader(GL.GL_FRAGMENT_SHADER, artifact.fragment_code)
    except BaseException:
        GL.glDeleteShader(vertex)
        raise
    program = GL.glCreateProgram()
    GL.glAttachShader(program, vertex)
    GL.glAttachShader(program, fragment)
    if not es:
        output = next(
            binding for binding in artifact.fragment_interface if binding.gl_name == artifact.fragment_color_output
        )
        GL.glBindFragDataLocation(program, artifact.fragment_color_location, output.gl_name_bytes)
    GL.glLinkProgram(program)
    GL.glDeleteShader(vertex)
    GL.glDeleteShader(fragment)
    if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
        log = _info_log(GL.glGetProgramInfoLog, program)
        GL.glDeleteProgram(program)
        raise ProgramError(f"program failed to link:\n{log}")
    for binding in artifact.uniforms:
        if binding.block_binding >= 0 and binding.block_name is not None:
            index = GL.glGetUniformBlockIndex(program, binding.block_name.encode("ascii") + b"\0")
            if index != GL.GL_INVALID_INDEX:
                GL.glUniformBlockBinding(program, index, binding.block_binding)
    return int(program)


def set_default_attribute(location: int, value_type: Type) -> None:
    """Host contract (docs/glsl-backend.md): a vertex input without data gets a zero current value of its kind.

    An integer input needs glVertexAttribI4i: a float current value (what
    glVertexAttrib4f sets, and the initial (0, 0, 0, 1)) leaves an integer
    input undefined. A matrix input takes one location per column.
    """
    GL.glDisableVertexAttribArray(location)
    if isinstance(value_type, MatrixType):
        for column in range(value_type.columns):
            GL.glDisableVertexAttribArray(location + column)
            GL.glVertexAttrib4f(location + column, 0.0, 0.0, 0.0, 0.0)
    elif isinstance(value_type, (ScalarType, VectorType)) and value_type.kind is ScalarKind.INT:
        GL.glVertexAttribI4i(location, 0, 0, 0, 0)
    else:
        GL.glVertexAttrib4f(location, 0.0, 0.0, 0.0, 0.0)
