"""A sample engine host: render an exported material with plain PyOpenGL (no Qt, no editor code).

    python tools/engine_host.py EXPORT_DIR/STEM.json [--size 256x256] [--out picture.png]

It reads what File > Export GLSL (or `vpl compile`) wrote: `<stem>.vert.glsl`,
`<stem>.frag.glsl` and `<stem>.json`, whose reflection names every binding
and whose `material` section gives the parameter values, the texture files
and the conventions of the editor's preview. Following
docs/engine-integration.md step by step, it draws the material on the
preview's default sphere, with the preview's default camera and light, into
an offscreen framebuffer, and gives back the pixels: the same picture as
the editor's preview (a test checks every example to 1/255).

It is written from the documentation, not from the editor's code, so it
shows what an engine has to do and checks that the documentation is
complete. The context is an EGL pbuffer context (OpenGL 4.2 core) made with
PyOpenGL's EGL bindings; set PYOPENGL_PLATFORM=egl before OpenGL is imported
(this script does it when run as a program). Image files are read with
OpenImageIO (any loader does: the export says which rows come first).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np

# --- the preview's defaults (docs/engine-integration.md, "Reproducing the preview") ------------------

FIELD_OF_VIEW = 45.0
COVERAGE = 2.0 / 3.0
NEAR, FAR = 0.05, 100.0
BACKGROUND = (0.18, 0.19, 0.21)
LIGHT_DIRECTION = (-0.45, 0.6, 0.66)
SPHERE_SEGMENTS, SPHERE_RINGS = 64, 32


def sphere(segments: int = SPHERE_SEGMENTS, rings: int = SPHERE_RINGS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unit UV sphere: positions, normals, texcoords (float32) and triangle indices (uint32)."""
    v, u = np.meshgrid(np.linspace(0.0, 1.0, rings + 1), np.linspace(0.0, 1.0, segments + 1), indexing="ij")
    polar, azimuth = (1.0 - v) * np.pi, (u - 0.5) * 2.0 * np.pi
    normals = np.stack([np.sin(polar) * np.sin(azimuth), np.cos(polar), np.sin(polar) * np.cos(azimuth)], axis=-1)
    normals = normals.reshape(-1, 3)
    texcoords = np.stack([u, v], axis=-1).reshape(-1, 2)
    row = segments + 1
    triangles = []
    for ring in range(rings):
        for segment in range(segments):
            a = ring * row + segment
            triangles += [(a, a + 1, a + row + 1), (a, a + row + 1, a + row)]
    indices = np.array(triangles, dtype=np.uint32)
    corners = normals[indices]
    area = np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]), axis=1)
    indices = indices[area > 1e-12]  # the degenerate triangles at the poles
    return normals.astype(np.float32), normals.astype(np.float32), texcoords.astype(np.float32), indices


def camera(width: int, height: int) -> dict[str, Any]:
    """The default orbit camera: from +z, looking at the origin, framing the unit sphere (float32 arithmetic)."""
    half_angle = math.atan(COVERAGE * math.tan(math.radians(FIELD_OF_VIEW) / 2.0))
    distance = 1.0 / math.sin(half_angle)
    eye = (np.zeros(3, dtype=np.float32) + distance * np.array([0.0, 0.0, 1.0], dtype=np.float32)).astype(np.float32)
    target, up = np.zeros(3, dtype=np.float32), np.array([0.0, 1.0, 0.0], dtype=np.float32)
    forward = target - eye
    forward = forward / np.linalg.norm(forward)
    side = np.cross(forward, up)
    side = side / np.linalg.norm(side)
    true_up = np.cross(side, forward)
    view = np.eye(4, dtype=np.float32)
    view[0, :3], view[1, :3], view[2, :3] = side, true_up, -forward
    view[:3, 3] = -view[:3, :3] @ eye
    aspect = max(width / max(height, 1), 1e-6)
    field_of_view = FIELD_OF_VIEW
    if aspect < 1.0:  # the field of view applies to the smaller side
        field_of_view = math.degrees(2.0 * math.atan(math.tan(math.radians(field_of_view) / 2.0) / aspect))
    f = 1.0 / math.tan(math.radians(field_of_view) / 2.0)
    projection = np.zeros((4, 4), dtype=np.float32)
    projection[0, 0], projection[1, 1] = f / aspect, f
    projection[2, 2], projection[2, 3] = (FAR + NEAR) / (NEAR - FAR), 2.0 * FAR * NEAR / (NEAR - FAR)
    projection[3, 2] = -1.0
    return {"model": np.eye(4, dtype=np.float32), "view": view, "projection": projection,
            "normal_matrix": np.eye(4, dtype=np.float32), "camera_position": eye, "time": 0.0,
            "light_direction": LIGHT_DIRECTION}


def checker(size: int, cells: int, light: list[int], dark: list[int]) -> np.ndarray:
    """The placeholder texture: (size, size, 4) uint8, top row first, the cell at texcoord (0, 0) light."""
    index = np.arange(size) // (size // cells)
    from_bottom = (cells - 1) - index
    dark_cells = (index[None, :] + from_bottom[:, None]) % 2 == 1
    image = np.empty((size, size, 4), dtype=np.uint8)
    image[...] = light
    image[dark_cells] = dark
    return image


# --- std140 (OpenGL 4.6 section 7.6.2.2) for the types a scene record holds --------------------------

def _std140(type_body: str, types: dict[str, str]) -> tuple[int, int]:
    """(base alignment, size) of a reflected type body."""
    if type_body in ("float", "int", "uint", "bool"):
        return 4, 4
    parts = type_body.split()
    if parts[0] == "vector":
        count = int(parts[2])
        return (8 if count == 2 else 16), 4 * count
    if parts[0] == "matrix":
        rows, columns = int(parts[1]), int(parts[2])
        return 16, 16 * columns if rows > 1 else 16
    raise ValueError(f"this sample host packs scalars, vectors and matrices only, not {type_body!r}")


def pack_record(record_body: str, types: dict[str, str], values: dict[str, Any], size: int) -> bytes:
    """A record value in std140 layout: fields in order, each at its alignment (`record "Name" (field "n" tK) ...`)."""
    data = bytearray(size)
    offset = 0
    for name, type_id in _fields(record_body):
        body = types[type_id]
        alignment, field_size = _std140(body, types)
        offset = (offset + alignment - 1) // alignment * alignment
        value = np.asarray(values[name], dtype=np.float32)
        if body.startswith("matrix"):
            columns = value.T  # mathematically indexed -> column-major, each column padded to a vec4
            for index, column in enumerate(columns):
                data[offset + 16 * index: offset + 16 * index + 4 * len(column)] = column.tobytes()
        else:
            data[offset:offset + field_size] = value.reshape(-1).tobytes()
        offset += field_size
    return bytes(data)


def _fields(record_body: str) -> list[tuple[str, str]]:
    fields = []
    for chunk in record_body.split("(field ")[1:]:
        name_end = chunk.index('"', 1)
        fields.append((chunk[1:name_end], chunk[name_end + 1:].strip().rstrip(")").strip()))
    return fields


# --- the host --------------------------------------------------------------------------------------

def create_context() -> Any:
    """An OpenGL 4.2 core context on an EGL pbuffer, made current (PYOPENGL_PLATFORM must be egl)."""
    from OpenGL import EGL

    display = EGL.eglGetDisplay(EGL.EGL_DEFAULT_DISPLAY)
    major, minor = EGL.EGLint(), EGL.EGLint()
    if not EGL.eglInitialize(display, ctypes.pointer(major), ctypes.pointer(minor)):
        raise RuntimeError("no EGL display")
    wanted = [EGL.EGL_SURFACE_TYPE, EGL.EGL_PBUFFER_BIT, EGL.EGL_RENDERABLE_TYPE, EGL.EGL_OPENGL_BIT, EGL.EGL_NONE]
    config, count = EGL.EGLConfig(), EGL.EGLint()
    EGL.eglChooseConfig(display, (EGL.EGLint * len(wanted))(*wanted), ctypes.pointer(config), 1, ctypes.pointer(count))
    if count.value < 1:
        raise RuntimeError("no EGL configuration for desktop OpenGL")
    surface = EGL.eglCreatePbufferSurface(display, config, (EGL.EGLint * 5)(EGL.EGL_WIDTH, 1, EGL.EGL_HEIGHT, 1,
                                                                            EGL.EGL_NONE))
    EGL.eglBindAPI(EGL.EGL_OPENGL_API)
    attributes = [EGL.EGL_CONTEXT_MAJOR_VERSION, 4, EGL.EGL_CONTEXT_MINOR_VERSION, 2,
                  EGL.EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL.EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL.EGL_NONE]
    context = EGL.eglCreateContext(display, config, EGL.EGL_NO_CONTEXT, (EGL.EGLint * len(attributes))(*attributes))
    if not context or not EGL.eglMakeCurrent(display, surface, surface, context):
        raise RuntimeError("cannot make an OpenGL 4.2 core context current")
    return context


def _shader(kind: int, source: str) -> int:
    from OpenGL import GL

    shader = GL.glCreateShader(kind)
    GL.glShaderSource(shader, source)
    GL.glCompileShader(shader)
    if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
        raise RuntimeError(GL.glGetShaderInfoLog(shader).decode(errors="replace"))
    return shader


def _texture(pixels: np.ndarray) -> int:
    """Upload RGBA pixels (top row first) so that v = 0 is the bottom row; uint8 -> RGBA8, float -> RGBA16F."""
    from OpenGL import GL

    texture = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    floating = pixels.dtype != np.uint8
    GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA16F if floating else GL.GL_RGBA8, pixels.shape[1], pixels.shape[0],
                    0, GL.GL_RGBA, GL.GL_FLOAT if floating else GL.GL_UNSIGNED_BYTE,
                    np.ascontiguousarray(pixels[::-1], dtype=np.float32 if floating else np.uint8))
    GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
    for parameter, value in ((GL.GL_TEXTURE_WRAP_S, GL.GL_REPEAT), (GL.GL_TEXTURE_WRAP_T, GL.GL_REPEAT),
                             (GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR),
                             (GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)):
        GL.glTexParameteri(GL.GL_TEXTURE_2D, parameter, value)
    return texture


def read_image(path: Path) -> np.ndarray:
    """An image file as RGBA, top row first: uint8 for 8-bit files, float32 (as stored) otherwise."""
    import OpenImageIO as oiio  # noqa: N813 - the library's own alias

    buffer = oiio.ImageBufAlgo.reorient(oiio.ImageBuf(str(path)))
    eight_bit = buffer.spec().format.basetype in (oiio.UINT8, oiio.INT8)
    pixels = np.asarray(buffer.get_pixels(oiio.UINT8 if eight_bit else oiio.FLOAT))
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.shape[2] < 3:
        pixels = np.concatenate([np.repeat(pixels[:, :, :1], 3, axis=2), pixels[:, :, 1:]], axis=2)
    if pixels.shape[2] == 3:
        pixels = np.concatenate([pixels, np.full(pixels.shape[:2] + (1,), 255 if eight_bit else 1.0, pixels.dtype)], 2)
    return pixels[:, :, :4]


def render(export_json: Path, width: int = 256, height: int = 256, variant: str | None = None) -> np.ndarray:
    """Draw the exported material; returns (height, width, 4) uint8, top row first. Needs a current context."""
    from OpenGL import GL

    reflection = json.loads(export_json.read_text(encoding="utf-8"))
    material = reflection["material"]
    stem = export_json.name[: -len(".json")]
    program = GL.glCreateProgram()
    for kind, suffix in ((GL.GL_VERTEX_SHADER, ".vert.glsl"), (GL.GL_FRAGMENT_SHADER, ".frag.glsl")):
        GL.glAttachShader(program, _shader(kind, (export_json.parent / f"{stem}{suffix}").read_text(encoding="utf-8")))
    GL.glLinkProgram(program)
    if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
        raise RuntimeError(GL.glGetProgramInfoLog(program).decode(errors="replace"))
    GL.glUseProgram(program)

    # Framebuffer: RGBA8 colour, 24-bit depth.
    framebuffer = GL.glGenFramebuffers(1)
    color, depth = GL.glGenRenderbuffers(2)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, color)
    GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA8, width, height)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, depth)
    GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_DEPTH_COMPONENT24, width, height)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, color)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_DEPTH_ATTACHMENT, GL.GL_RENDERBUFFER, depth)

    # Mesh: vertex inputs by the locations the reflection gives.
    positions, normals, texcoords, indices = sphere()
    vertex_array = GL.glGenVertexArrays(1)
    GL.glBindVertexArray(vertex_array)
    by_name = {"position": positions, "normal": normals, "texcoord": texcoords}
    for entry in material["vertex_inputs"]:
        data = by_name[entry["name"]]
        binding = next((item for item in reflection["vertex_interface"]
                        if item["direction"] == "in" and item["location"] == entry["location"]), None)
        if binding is None:
            continue  # the program does not read this input
        buffer = GL.glGenBuffers(1)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, data, GL.GL_STATIC_DRAW)
        GL.glEnableVertexAttribArray(entry["location"])
        GL.glVertexAttribPointer(entry["location"], data.shape[1], GL.GL_FLOAT, GL.GL_FALSE, 0, None)
    index_buffer = GL.glGenBuffers(1)
    GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, index_buffer)
    GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, indices.nbytes, indices, GL.GL_STATIC_DRAW)

    # The scene record: a std140 block at the binding point the reflection gives.
    uniforms = {binding["name"]: binding for binding in reflection["uniforms"]}
    scene = uniforms.get(material["scene"]["uniform"])
    if scene is not None and scene["kind"] == "record":
        data = pack_record(reflection["types"][scene["type"]], reflection["types"], camera(width, height),
                           scene["block_size"])
        block = GL.glGenBuffers(1)
        GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, block)
        GL.glBufferData(GL.GL_UNIFORM_BUFFER, len(data), data, GL.GL_STATIC_DRAW)
        GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, scene["block_binding"], block)

    # Parameters: the chosen variant's values, else the active one's ("value").
    chosen = next((item for item in material["variants"] if item["name"] == variant), None) if variant else None
    default_texture = material["default_texture"]
    placeholder = checker(default_texture["size"], default_texture["cells"], default_texture["light"],
                          default_texture["dark"])
    unit = 0
    for parameter in material["parameters"]:
        value = chosen["values"].get(parameter["name"], parameter["default"]) if chosen else parameter["value"]
        location = GL.glGetUniformLocation(program, parameter["gl_name"])
        if parameter["kind"] == "texture":
            pixels = read_image(export_json.parent / value) if value else placeholder
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, _texture(pixels))
            GL.glUniform1i(location, unit)
            unit += 1
        elif parameter["kind"] == "float":
            GL.glUniform1f(location, float(value))
        elif parameter["kind"] in ("vector", "color"):
            components = [float(item) for item in value]
            (GL.glUniform2f, GL.glUniform3f, GL.glUniform4f)[len(components) - 2](location, *components)
    GL.glActiveTexture(GL.GL_TEXTURE0)

    # Draw: clear to the background, depth test, both faces, no blending.
    GL.glViewport(0, 0, width, height)
    GL.glClearColor(*BACKGROUND, 1.0)
    GL.glClearDepth(1.0)
    GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
    GL.glEnable(GL.GL_DEPTH_TEST)
    GL.glDepthFunc(GL.GL_LESS)
    GL.glDisable(GL.GL_CULL_FACE)
    GL.glDisable(GL.GL_BLEND)
    GL.glDrawElements(GL.GL_TRIANGLES, len(indices) * 3, GL.GL_UNSIGNED_INT, None)
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
    pixels = np.frombuffer(GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE), dtype=np.uint8)
    return np.ascontiguousarray(pixels.reshape(height, width, 4)[::-1])


def write_png(path: Path, pixels: np.ndarray) -> None:
    """An 8-bit RGBA PNG (zlib and the PNG specification; no image library needed to write one)."""
    height, width = pixels.shape[:2]
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", type=Path, help="the exported <stem>.json")
    parser.add_argument("--size", default="256x256", help="WIDTHxHEIGHT")
    parser.add_argument("--variant", default=None, help="a variant's values instead of the active ones")
    parser.add_argument("--out", type=Path, default=None, help="PNG to write (default: <stem>.host.png beside it)")
    parser.add_argument("--raw", type=Path, default=None, help="also write the pixels as a .npy array")
    arguments = parser.parse_args(argv)
    width, height = (int(part) for part in arguments.size.lower().split("x"))
    create_context()
    pixels = render(arguments.export, width, height, arguments.variant)
    out = arguments.out or arguments.export.with_name(arguments.export.name.replace(".json", ".host.png"))
    write_png(out, pixels)
    if arguments.raw is not None:
        np.save(arguments.raw, pixels)
    print(out)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    sys.exit(main())
