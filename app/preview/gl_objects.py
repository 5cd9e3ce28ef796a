"""OpenGL objects the preview's passes share: shader compilation and linking, the offscreen framebuffer,
reading pixels back and clearing (used by the renderer and by the stage passes around it)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np
from OpenGL import GL
from OpenGL.raw.GL.VERSION.GL_2_0 import glShaderSource as _raw_shader_source  # noqa: N813 - PyOpenGL's raw entry point
from OpenGL.raw.GL.VERSION.GL_4_1 import glClearDepthf as _clear_depthf  # noqa: N813 - the entry point both APIs load


class ProgramBuildError(Exception):
    """The driver rejected a program: `stage` is "vertex", "fragment" or "link"; `log` is the driver's log."""

    def __init__(self, stage: str, log: str) -> None:
        self.stage = stage
        self.log = log.strip() or "(the driver gave no log)"
        super().__init__(f"{stage} {'failed' if stage == 'link' else 'compilation failed'}: {self.log}")


def shader_log(shader: int) -> str:
    log = GL.glGetShaderInfoLog(shader)
    return log.decode("utf-8", "replace") if isinstance(log, bytes) else str(log or "")


def program_log(program: int) -> str:
    log = GL.glGetProgramInfoLog(program)
    return log.decode("utf-8", "replace") if isinstance(log, bytes) else str(log or "")


def compile_shader(kind: int, code: str, stage: str) -> int:
    shader = GL.glCreateShader(kind)
    data = code.encode("utf-8")
    # Spec 12.1: the code carries no terminator; pass its exact byte length.
    buffer = ctypes.create_string_buffer(data, len(data))
    strings = (ctypes.POINTER(ctypes.c_char) * 1)(ctypes.cast(buffer, ctypes.POINTER(ctypes.c_char)))
    lengths = (GL.GLint * 1)(len(data))
    _raw_shader_source(shader, 1, strings, lengths)
    GL.glCompileShader(shader)
    if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
        log = shader_log(shader)
        GL.glDeleteShader(shader)
        raise ProgramBuildError(stage, log)
    return shader


class Framebuffer:
    """An offscreen colour + depth framebuffer (tests, screenshots, `grab_preview`, the HDR pass).

    The colour buffer is attachment `color_index` and draw buffer
    `color_index` (the others draw nowhere), so a program whose colour output
    has location L draws into it when `color_index` is L. That is the only
    arrangement ES allows (draw buffer i may only be COLOR_ATTACHMENTi).
    `color_format` is GL_RGBA8 (default) or GL_RGBA32F (colour-renderable on
    desktop GL and in ES 3.2); `sampled` makes the colour buffer a texture
    (NEAREST, no mipmaps: `texture`) that a later pass can read, instead of
    a renderbuffer. `depth_format` is GL_DEPTH_COMPONENT24 (default) or
    GL_DEPTH24_STENCIL8 (what a QOpenGLWidget's framebuffer has).
    """

    def __init__(self, width: int, height: int, color_index: int = 0, color_format: int = GL.GL_RGBA8, sampled: bool = False,
                 depth_format: int = GL.GL_DEPTH_COMPONENT24) -> None:
        self.width, self.height = int(width), int(height)
        self.color_index = int(color_index)
        self.color_format = int(color_format)
        self.depth_format = int(depth_format)
        self.sampled = sampled
        self.color_attachment = GL.GL_COLOR_ATTACHMENT0 + self.color_index
        self.framebuffer = GL.glGenFramebuffers(1)
        self.color = self.texture = 0
        self.depth = int(GL.glGenRenderbuffers(1))
        if sampled:
            self.texture = int(GL.glGenTextures(1))
            GL.glBindTexture(GL.GL_TEXTURE_2D, self.texture)
            pixel_type = GL.GL_FLOAT if self.color_format == GL.GL_RGBA32F else GL.GL_UNSIGNED_BYTE
            GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, self.color_format, self.width, self.height, 0, GL.GL_RGBA, pixel_type, None)
            for parameter, value in ((GL.GL_TEXTURE_MIN_FILTER, GL.GL_NEAREST), (GL.GL_TEXTURE_MAG_FILTER, GL.GL_NEAREST),
                                     (GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE), (GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)):
                GL.glTexParameteri(GL.GL_TEXTURE_2D, parameter, value)
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        else:
            self.color = int(GL.glGenRenderbuffers(1))
            GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, self.color)
            GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, self.color_format, self.width, self.height)
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, self.depth)
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, self.depth_format, self.width, self.height)
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, 0)
        previous = GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.framebuffer)
        if sampled:
            GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, self.color_attachment, GL.GL_TEXTURE_2D, self.texture, 0)
        else:
            GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, self.color_attachment, GL.GL_RENDERBUFFER, self.color)
        depth_attachment = GL.GL_DEPTH_STENCIL_ATTACHMENT if self.depth_format == GL.GL_DEPTH24_STENCIL8 else GL.GL_DEPTH_ATTACHMENT
        GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, depth_attachment, GL.GL_RENDERBUFFER, self.depth)
        if self.color_index:
            buffers = [GL.GL_NONE] * self.color_index + [self.color_attachment]
            GL.glDrawBuffers(len(buffers), np.array(buffers, dtype=np.uint32))
            GL.glReadBuffer(self.color_attachment)
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, int(previous))
        if status != GL.GL_FRAMEBUFFER_COMPLETE:
            self.delete()
            raise RuntimeError(f"offscreen framebuffer incomplete (status 0x{int(status):x})")

    def matches(self, width: int, height: int, color_index: int, color_format: int, sampled: bool) -> bool:
        return (self.width, self.height, self.color_index, self.color_format, self.sampled) == (
            int(width), int(height), int(color_index), int(color_format), sampled)

    def bind(self) -> None:
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.framebuffer)

    def delete(self) -> None:
        GL.glDeleteFramebuffers(1, [self.framebuffer])
        GL.glDeleteRenderbuffers(1, [self.depth])
        if self.color:
            GL.glDeleteRenderbuffers(1, [self.color])
        if self.texture:
            GL.glDeleteTextures(1, [self.texture])


def read_pixels(x: int, y: int, width: int, height: int) -> np.ndarray:
    """RGBA8 pixels of the bound read framebuffer as (height, width, 4), top row first.

    `x`, `y` are GL window coordinates (origin bottom left) of the region.
    """
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
    data = GL.glReadPixels(x, y, width, height, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 4)
    pixels = np.frombuffer(data, dtype=np.uint8).reshape(height, width, 4)
    return np.ascontiguousarray(pixels[::-1])


def read_float_pixels(x: int, y: int, width: int, height: int) -> np.ndarray:
    """RGBA float32 pixels of the bound (RGBA32F) read framebuffer, (height, width, 4), top row first.

    GL_RGBA / GL_FLOAT is the combination ES 3.2 guarantees for floating-point colour buffers.
    """
    data = GL.glReadPixels(x, y, width, height, GL.GL_RGBA, GL.GL_FLOAT)
    pixels = np.frombuffer(data, dtype=np.float32).reshape(height, width, 4)
    return np.ascontiguousarray(pixels[::-1])




def clear(background: Sequence[float]) -> None:
    """Clear colour (rgb, alpha 1 unless given) and depth of the bound framebuffer."""
    alpha = float(background[3]) if len(background) > 3 else 1.0
    GL.glClearColor(float(background[0]), float(background[1]), float(background[2]), alpha)
    # glClearDepth (double) is desktop-only. The glClearDepthf in OpenGL.GL is PyOpenGL's
    # ARB_ES2_compatibility entry, which it refuses to load on an ES context
    # (no such extension there); the GL 4.1 core entry loads on both.
    _clear_depthf(1.0)
    GL.glDisable(GL.GL_SCISSOR_TEST)
    GL.glDepthMask(GL.GL_TRUE)
    GL.glColorMask(GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE)
    GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)


def link_shaders(vertex_code: str, fragment_code: str, color_location: int, color_output: str, is_es: bool) -> tuple[int, str]:
    """Compile and link a program; (program, link log). Raises ProgramBuildError."""
    vertex = compile_shader(GL.GL_VERTEX_SHADER, vertex_code, "vertex")
    try:
        fragment = compile_shader(GL.GL_FRAGMENT_SHADER, fragment_code, "fragment")
    except ProgramBuildError:
        GL.glDeleteShader(vertex)
        raise
    program = GL.glCreateProgram()
    GL.glAttachShader(program, vertex)
    GL.glAttachShader(program, fragment)
    if not is_es:
        # Spec 12.5: bind the resolved primary output before linking. ES has no such
        # call; the layout(location) qualifier the backend always writes says the same.
        GL.glBindFragDataLocation(program, color_location, color_output.encode("ascii") + b"\0")
    GL.glLinkProgram(program)
    linked = GL.glGetProgramiv(program, GL.GL_LINK_STATUS)
    log = program_log(program)
    GL.glDetachShader(program, vertex)
    GL.glDetachShader(program, fragment)
    GL.glDeleteShader(vertex)
    GL.glDeleteShader(fragment)
    if not linked:
        GL.glDeleteProgram(program)
        raise ProgramBuildError("link", log)
    return int(program), log
