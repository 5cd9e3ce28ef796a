"""A sample engine host: render an exported material with plain PyOpenGL (no Qt, no editor code).

    python tools/engine_host.py EXPORT_DIR/STEM.json [--size 256x256] [--out picture.png]

It reads what File > Export GLSL (or `vpl compile`) wrote: `<stem>.vert.glsl`,
`<stem>.frag.glsl` and `<stem>.json`, whose reflection names every binding
and whose `material` section gives the parameter values, the texture files,
how the colour output is shown, the environment samplers and the stage of
the editor's preview (light, environment files, exposure, tone mapper,
background), and, for a material made in texture space, the programs of
its texture passes (`<stem>.pass<N>.*`, `material.passes`), which it
draws first, in order, each into a texture the material then samples.
Following docs/engine-integration.md step by step, it draws
the material on the preview's default sphere (with tangents generated as
the page says), with the preview's default camera, into an offscreen
framebuffer: a display colour straight into RGBA8; linear radiance into
RGBA32F (behind it, when the stage says so, the environment), then the
post pass (exposure, tone mapper, sRGB) in numpy on the read-back pixels.
The result is the same picture as the editor's preview (a test checks
every example to 1/255).

It is written from the documentation, not from the editor's code, so it
shows what an engine has to do and checks that the documentation is
complete. The context is an EGL pbuffer context (OpenGL 4.2 core) made with
PyOpenGL's EGL bindings, on a display of a headless platform chosen by name
(`headless_display`: no window system, $DISPLAY not used); set
PYOPENGL_PLATFORM=egl before OpenGL is imported (this script does it when
run as a program). Image files are read with
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
#: What the float target is cleared to: no Surface Output writes negative radiance.
UNCOVERED = -1.0


def sphere(segments: int = SPHERE_SEGMENTS, rings: int = SPHERE_RINGS) -> dict[str, np.ndarray]:
    """Unit UV sphere: position, normal, texcoord, tangent (float32) by attribute name, and `indices` (uint32)."""
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
    return {"position": normals.astype(np.float32), "normal": normals.astype(np.float32),
            "texcoord": texcoords.astype(np.float32), "tangent": tangents(normals, normals, texcoords, indices),
            "indices": indices}


def _normalized(vectors: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(length > 0.0, length, 1.0)


def tangents(positions: np.ndarray, normals: np.ndarray, texcoords: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Per-vertex tangents (xyz along +u, w the handedness) as the page's "Tangents" says, for a mesh without
    mirrored texture coordinates (every triangle's UV area positive): (V, 4) float32."""
    p = np.asarray(positions, dtype=np.float64)
    n = np.asarray(normals, dtype=np.float64)
    t = np.asarray(texcoords, dtype=np.float64)
    triangles = np.asarray(indices, dtype=np.int64)
    e1, e2 = p[triangles[:, 1]] - p[triangles[:, 0]], p[triangles[:, 2]] - p[triangles[:, 0]]
    d1, d2 = t[triangles[:, 1]] - t[triangles[:, 0]], t[triangles[:, 2]] - t[triangles[:, 0]]
    area = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    if (area < 0.0).any():
        raise ValueError("this sample host handles meshes without mirrored texture coordinates only")
    along_u = (e1 * d2[:, 1:2] - e2 * d1[:, 1:2]) * np.sign(area)[:, None]
    summed = np.zeros_like(p)
    for corner in range(3):
        vertex = triangles[:, corner]
        normal = n[vertex]
        projected = _normalized(along_u - normal * np.sum(normal * along_u, axis=1, keepdims=True))
        to_next = _normalized(p[triangles[:, (corner + 1) % 3]] - p[vertex])
        to_previous = _normalized(p[triangles[:, (corner + 2) % 3]] - p[vertex])
        angle = np.arccos(np.clip(np.sum(to_next * to_previous, axis=1), -1.0, 1.0))
        np.add.at(summed, vertex, projected * np.where(area != 0.0, angle, 0.0)[:, None])
    summed -= n * np.sum(n * summed, axis=1, keepdims=True)
    result = np.zeros((p.shape[0], 4))
    result[:, :3] = _normalized(summed)
    result[:, 3] = 1.0
    return result.astype(np.float32)


def camera(width: int, height: int) -> dict[str, np.ndarray]:
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
            "normal_matrix": np.eye(4, dtype=np.float32), "camera_position": eye}


def scene_values(width: int, height: int, preview: dict[str, Any] | None) -> dict[str, Any]:
    """Every field of the scene record: the camera, time 0, the light and environment of the preview's stage."""
    values: dict[str, Any] = {**camera(width, height), "time": 0.0, "light_direction": LIGHT_DIRECTION}
    if preview is not None:
        light, environment = preview["light"], preview["environment"]
        values.update(light_direction=light["direction"], light_color=light["color"], light_intensity=light["intensity"],
                      environment_rotation=environment["rotation"], environment_intensity=environment["intensity"],
                      environment_max_lod=environment.get("max_lod", 0.0))
    return values


def checker(size: int, cells: int, light: list[int], dark: list[int]) -> np.ndarray:
    """The placeholder texture: (size, size, 4) uint8, top row first, the cell at texcoord (0, 0) light."""
    index = np.arange(size) // (size // cells)
    from_bottom = (cells - 1) - index
    dark_cells = (index[None, :] + from_bottom[:, None]) % 2 == 1
    image = np.empty((size, size, 4), dtype=np.uint8)
    image[...] = light
    image[dark_cells] = dark
    return image


# --- the post pass (docs/engine-integration.md, "Showing the colour") --------------------------------

def _times(rows: tuple[tuple[float, ...], ...], colors: np.ndarray) -> np.ndarray:
    """M c for every colour of (..., 3), M given by its rows."""
    return colors @ np.array(rows, dtype=np.float64).T


def pbr_neutral(c: np.ndarray) -> np.ndarray:
    x = c.min(axis=-1, keepdims=True)
    c = c - np.where(x < 0.08, x - 6.25 * x * x, 0.04)
    peak = c.max(axis=-1, keepdims=True)
    d = 0.24
    new_peak = 1.0 - d * d / (peak + d - 0.76)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = c * new_peak / peak
    g = 1.0 - 1.0 / (0.15 * (peak - new_peak) + 1.0)
    return np.where(peak < 0.76, c, scaled * (1.0 - g) + new_peak * g)


def aces(c: np.ndarray) -> np.ndarray:
    v = _times(((0.59719, 0.35458, 0.04823), (0.07600, 0.90834, 0.01566), (0.02840, 0.13383, 0.83777)), c / 0.6)
    w = (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.4329510) + 0.238081)
    return _times(((1.60475, -0.53108, -0.07367), (-0.10208, 1.10813, -0.00605), (-0.00327, -0.07276, 1.07602)), w)


def agx(c: np.ndarray) -> np.ndarray:
    to_2020 = ((0.6274, 0.3293, 0.0433), (0.0691, 0.9195, 0.0113), (0.0164, 0.0880, 0.8956))
    from_2020 = ((1.6605, -0.5876, -0.0728), (-0.1246, 1.1329, -0.0083), (-0.0182, -0.1006, 1.1187))
    inset = ((0.856627153315983, 0.0951212405381588, 0.0482516061458583),
             (0.137318972929847, 0.761241990602591, 0.101439036467562),
             (0.11189821299995, 0.0767994186031903, 0.811302368396859))
    outset = ((1.1271005818144368, -0.11060664309660323, -0.016493938717834573),
              (-0.1413297634984383, 1.157823702216272, -0.016493938717834257),
              (-0.14132976349843826, -0.11060664309660294, 1.2519364065950405))
    v = _times(inset, _times(to_2020, c))
    e = np.clip((np.log2(np.maximum(v, 1e-10)) + 12.47393) / (4.026069 + 12.47393), 0.0, 1.0)
    p = -0.00232 + 0.1191 * e + 0.4298 * e**2 - 6.868 * e**3 + 31.96 * e**4 - 40.14 * e**5 + 15.5 * e**6
    return _times(from_2020, np.maximum(_times(outset, p), 0.0) ** 2.2)


TONE_MAPPERS = {"pbr_neutral": pbr_neutral, "aces": aces, "agx": agx, "reinhard": lambda c: c / (1.0 + c),
                "none": lambda c: c}


def encode_srgb(c: np.ndarray) -> np.ndarray:
    return np.where(c < 0.0031308, 12.92 * c, 1.055 * np.maximum(c, 0.0) ** (1.0 / 2.4) - 0.055)


def post_pass(radiance: np.ndarray, exposure: float, tone_mapper: str, background: list[float]) -> np.ndarray:
    """RGBA float radiance (..., 4) -> RGBA8 display: exposure, tone mapper, clamp, sRGB; background where uncovered."""
    rgba = radiance.astype(np.float64)
    with np.errstate(all="ignore"):
        mapped = np.clip(TONE_MAPPERS[tone_mapper](rgba[..., :3] * 2.0**exposure), 0.0, 1.0)
    display = np.concatenate([encode_srgb(mapped), np.clip(rgba[..., 3:4], 0.0, 1.0)], axis=-1)
    display[rgba[..., 0] < UNCOVERED / 2.0] = [*background, 1.0]
    return np.rint(np.nan_to_num(display) * 255.0).astype(np.uint8)


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
        if name not in values:
            offset += field_size
            continue  # a field this host knows nothing about reads zero
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

#: EGL_MESA_platform_surfaceless's platform (the Khronos EGL registry; PyOpenGL names no constant for it).
EGL_PLATFORM_SURFACELESS_MESA = 0x31DD
#: What a display of each platform needs, as EGL names its client extensions.
DEVICE_EXTENSIONS = ("EGL_EXT_platform_device", "EGL_EXT_device_enumeration", "EGL_EXT_device_query")
SURFACELESS_EXTENSION = "EGL_MESA_platform_surfaceless"


def headless_display() -> tuple[Any, str]:
    """An initialized EGL display that needs no window system, and what it is (for messages).

    The platform is chosen explicitly, never EGL_DEFAULT_DISPLAY: Mesa's default display is its
    build-time window system (X11 on Debian) or the one $EGL_PLATFORM names, so with it eglInitialize
    fails with EGL_NOT_INITIALIZED wherever $DISPLAY is unset or names an X server that is gone or not
    up yet, or $EGL_PLATFORM names a compositor that is not running; and now and then under xvfb-run,
    where the host is the X server's only client: Mesa's X11 path opens and closes connections while it
    probes (DRI3, DRI2, then software), the server resets when its last client leaves, and a connection
    made during the reset fails. The client extensions decide, before anything is tried: the device
    platform (EGL_EXT_platform_device) on Mesa's software device (EGL_MESA_device_software, llvmpipe:
    the renderer the preview draws with under Xvfb, whatever GPU the machine has), else on its first
    device; else Mesa's surfaceless platform. The one chosen is tried once, and a failure names it.
    """
    from OpenGL import EGL

    offered = (EGL.eglQueryString(EGL.EGL_NO_DISPLAY, EGL.EGL_EXTENSIONS) or b"").decode().split()
    if all(name in offered for name in DEVICE_EXTENSIONS):
        from OpenGL.EGL.EXT.device_enumeration import eglQueryDevicesEXT
        from OpenGL.EGL.EXT.device_query import eglQueryDeviceStringEXT
        from OpenGL.raw.EGL.EXT.platform_device import EGL_PLATFORM_DEVICE_EXT

        devices, count = (EGL.EGLDeviceEXT * 16)(), EGL.EGLint()
        eglQueryDevicesEXT(len(devices), devices, ctypes.pointer(count))
        listed = [devices[index] for index in range(count.value)]
        if not listed:
            raise RuntimeError("EGL offers the device platform (EGL_EXT_platform_device) but lists no device")
        software = [device for device in listed
                    if b"EGL_MESA_device_software" in (eglQueryDeviceStringEXT(device, EGL.EGL_EXTENSIONS) or b"").split()]
        chosen = (software or listed)[0]
        what = ("the device platform on Mesa's software device" if software
                else f"the device platform on the first of {len(listed)} devices (none is Mesa's software device)")
        display = EGL.eglGetPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, chosen, None)
    elif SURFACELESS_EXTENSION in offered:
        what = "Mesa's surfaceless platform (EGL_MESA_platform_surfaceless)"
        display = EGL.eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL.EGL_DEFAULT_DISPLAY, None)
    else:
        raise RuntimeError(f"EGL offers no platform that needs no window system: this host needs "
                           f"{' + '.join(DEVICE_EXTENSIONS)} or {SURFACELESS_EXTENSION}; its client extensions are "
                           f"{' '.join(offered) or 'none'}")
    if display == EGL.EGL_NO_DISPLAY:
        raise RuntimeError(f"eglGetPlatformDisplay gave no display for {what}")
    major, minor = EGL.EGLint(), EGL.EGLint()
    try:
        initialized = EGL.eglInitialize(display, ctypes.pointer(major), ctypes.pointer(minor))
    except EGL.EGLError as error:
        raise RuntimeError(f"eglInitialize failed on {what}: {_egl_error_name(error.err)} "
                           "(with EGL_LOG_LEVEL=debug, Mesa's libEGL says why)") from error
    if not initialized:
        raise RuntimeError(f"eglInitialize failed on {what}: {_egl_error_name(EGL.eglGetError())} "
                           "(with EGL_LOG_LEVEL=debug, Mesa's libEGL says why)")
    return display, f"{what}, EGL {major.value}.{minor.value}"


def _egl_error_name(code: int) -> str:
    from OpenGL import EGL

    names = {int(getattr(EGL, name)): name for name in dir(EGL) if name.startswith("EGL_") and name.isupper()
             and isinstance(getattr(EGL, name), int) and 0x3000 <= int(getattr(EGL, name)) <= 0x300E}
    return names.get(int(code), hex(int(code)))


def create_context() -> Any:
    """An OpenGL 4.2 core context on an EGL pbuffer of `headless_display()`, made current (PYOPENGL_PLATFORM
    must be egl)."""
    from OpenGL import EGL

    display, what = headless_display()
    wanted = [EGL.EGL_SURFACE_TYPE, EGL.EGL_PBUFFER_BIT, EGL.EGL_RENDERABLE_TYPE, EGL.EGL_OPENGL_BIT, EGL.EGL_NONE]
    config, count = EGL.EGLConfig(), EGL.EGLint()
    EGL.eglChooseConfig(display, (EGL.EGLint * len(wanted))(*wanted), ctypes.pointer(config), 1, ctypes.pointer(count))
    if count.value < 1:
        raise RuntimeError(f"no EGL configuration for desktop OpenGL on {what}")
    surface = EGL.eglCreatePbufferSurface(display, config, (EGL.EGLint * 5)(EGL.EGL_WIDTH, 1, EGL.EGL_HEIGHT, 1,
                                                                            EGL.EGL_NONE))
    EGL.eglBindAPI(EGL.EGL_OPENGL_API)
    attributes = [EGL.EGL_CONTEXT_MAJOR_VERSION, 4, EGL.EGL_CONTEXT_MINOR_VERSION, 2,
                  EGL.EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL.EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL.EGL_NONE]
    context = EGL.eglCreateContext(display, config, EGL.EGL_NO_CONTEXT, (EGL.EGLint * len(attributes))(*attributes))
    if not context or not EGL.eglMakeCurrent(display, surface, surface, context):
        raise RuntimeError(f"cannot make an OpenGL 4.2 core context current on {what}")
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


def _program(vertex_source: str, fragment_source: str) -> int:
    from OpenGL import GL

    program = GL.glCreateProgram()
    for kind, source in ((GL.GL_VERTEX_SHADER, vertex_source), (GL.GL_FRAGMENT_SHADER, fragment_source)):
        GL.glAttachShader(program, _shader(kind, source))
    GL.glLinkProgram(program)
    if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
        raise RuntimeError(GL.glGetProgramInfoLog(program).decode(errors="replace"))
    return int(program)


def _environment_texture(images: list[np.ndarray], state: dict[str, Any]) -> int:
    """Float images (top row first), one per level, as an RGB16F texture with the sampler state of the export."""
    from OpenGL import GL

    names = {"repeat": GL.GL_REPEAT, "clamp_to_edge": GL.GL_CLAMP_TO_EDGE, "linear": GL.GL_LINEAR,
             "linear_mipmap_linear": GL.GL_LINEAR_MIPMAP_LINEAR}
    texture = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    for level, image in enumerate(images):
        rgb = np.ascontiguousarray(image[::-1, :, :3], dtype=np.float32)  # rows bottom first
        GL.glTexImage2D(GL.GL_TEXTURE_2D, level, GL.GL_RGB16F, rgb.shape[1], rgb.shape[0], 0, GL.GL_RGB, GL.GL_FLOAT, rgb)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, len(images) - 1)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, names[state["wrap"][0]])
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, names[state["wrap"][1]])
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, names[state["min_filter"]])
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, names[state["mag_filter"]])
    return texture


#: The specular chain's sampling, for the background pass (docs/engine-integration.md, "Image-based lighting").
SPECULAR_STATE = {"wrap": ["repeat", "clamp_to_edge"], "min_filter": "linear_mipmap_linear", "mag_filter": "linear"}

BACKGROUND_VERTEX = """#version 420 core
layout(location = 0) in vec2 corner;
out vec2 ndc;
void main() { ndc = corner; gl_Position = vec4(corner, 0.0, 1.0); }
"""
BACKGROUND_FRAGMENT = """#version 420 core
in vec2 ndc;
uniform mat4 ray_matrix;
uniform sampler2D environment;
uniform float rotation;
uniform float intensity;
uniform float lod;
layout(location = 0) out vec4 radiance;
void main() {
    vec3 d = normalize((ray_matrix * vec4(ndc, 1.0, 1.0)).xyz);
    vec3 r = vec3(cos(rotation) * d.x - sin(rotation) * d.z, d.y, sin(rotation) * d.x + cos(rotation) * d.z);
    float u = (r.x * r.x + r.z * r.z > 0.0) ? 0.5 + atan(r.x, -r.z) / 6.283185307179586 : 0.5;
    float t = 0.5 + asin(clamp(r.y, -1.0, 1.0)) / 3.141592653589793;
    radiance = vec4(intensity * textureLod(environment, vec2(u, t), lod).rgb, 1.0);
}
"""


def draw_environment_background(width: int, height: int, specular: int, environment: dict[str, Any], lod: float) -> None:
    """The environment seen through every pixel, into the bound float target, without depth writes."""
    from OpenGL import GL

    program = _program(BACKGROUND_VERTEX, BACKGROUND_FRAGMENT)
    view = camera(width, height)
    rotation_only = view["view"].astype(np.float64)
    rotation_only[:3, 3] = 0.0
    ray_matrix = np.linalg.inv(view["projection"].astype(np.float64) @ rotation_only).astype(np.float32)
    GL.glUseProgram(program)
    GL.glUniformMatrix4fv(GL.glGetUniformLocation(program, "ray_matrix"), 1, GL.GL_TRUE, ray_matrix)
    GL.glUniform1i(GL.glGetUniformLocation(program, "environment"), 0)
    GL.glUniform1f(GL.glGetUniformLocation(program, "rotation"), float(environment["rotation"]))
    GL.glUniform1f(GL.glGetUniformLocation(program, "intensity"), float(environment["intensity"]))
    GL.glUniform1f(GL.glGetUniformLocation(program, "lod"), float(lod))
    GL.glActiveTexture(GL.GL_TEXTURE0)
    GL.glBindTexture(GL.GL_TEXTURE_2D, specular)
    triangle = np.array([(-1.0, -1.0), (3.0, -1.0), (-1.0, 3.0)], dtype=np.float32)
    vertex_array = GL.glGenVertexArrays(1)
    GL.glBindVertexArray(vertex_array)
    buffer = GL.glGenBuffers(1)
    GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
    GL.glBufferData(GL.GL_ARRAY_BUFFER, triangle.nbytes, triangle, GL.GL_STATIC_DRAW)
    GL.glEnableVertexAttribArray(0)
    GL.glVertexAttribPointer(0, 2, GL.GL_FLOAT, GL.GL_FALSE, 0, None)
    GL.glDisable(GL.GL_DEPTH_TEST)
    GL.glDepthMask(GL.GL_FALSE)
    GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
    GL.glDepthMask(GL.GL_TRUE)
    GL.glBindVertexArray(0)


# --- texture passes (docs/engine-integration.md, "Texture passes") ------------------------------------

PASS_FORMATS = {"rgba8": ("GL_RGBA8", "GL_UNSIGNED_BYTE"), "rgba16f": ("GL_RGBA16F", "GL_HALF_FLOAT"),
                "rgba32f": ("GL_RGBA32F", "GL_FLOAT")}


def _set_uniform(program: int, gl_name: str | None, value: Any) -> None:
    """A float or vec2-vec4 uniform by its GLSL name (nothing when the program does not declare it)."""
    from OpenGL import GL

    if gl_name is None:
        return
    location = GL.glGetUniformLocation(program, gl_name)
    if isinstance(value, (list, tuple)):
        components = [float(item) for item in value]
        (GL.glUniform2f, GL.glUniform3f, GL.glUniform4f)[len(components) - 2](location, *components)
    else:
        GL.glUniform1f(location, float(value))


def _quad(quad: dict[str, list[list[float]]], reflection: dict[str, Any], vertex_inputs: list[dict[str, Any]]) -> int:
    """A vertex array of the passes' square, bound by the pass program's vertex inputs."""
    from OpenGL import GL

    vertex_array = int(GL.glGenVertexArrays(1))
    GL.glBindVertexArray(vertex_array)
    for entry in vertex_inputs:
        declared = any(item["direction"] == "in" and item["location"] == entry["location"]
                       for item in reflection["vertex_interface"])
        if not declared:
            continue
        data = np.asarray(quad[entry["name"]], dtype=np.float32)
        buffer = GL.glGenBuffers(1)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, data, GL.GL_STATIC_DRAW)
        GL.glEnableVertexAttribArray(entry["location"])
        GL.glVertexAttribPointer(entry["location"], data.shape[1], GL.GL_FLOAT, GL.GL_FALSE, 0, None)
    indices = np.asarray(quad["indices"], dtype=np.uint32)
    index_buffer = GL.glGenBuffers(1)
    GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, index_buffer)
    GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, indices.nbytes, indices, GL.GL_STATIC_DRAW)
    return vertex_array


def _pass_scene(scene: dict[str, Any]) -> dict[str, Any]:
    """The passes' scene record values: "identity" is the 4x4 identity; the fields not given read zero."""
    return {name: np.eye(4, dtype=np.float32) if value == "identity" else value for name, value in scene.items()}


def run_passes(export_json: Path, material: dict[str, Any], texture: Any, value: Any) -> list[int]:
    """Draw every texture pass in order into its own texture; returns the textures by pass index.

    `texture(parameter)` binds nothing and gives a texture parameter's GL texture; `value(parameter)` a
    parameter's value (the chosen variant's): the passes take the material's parameter values.
    """
    from OpenGL import GL

    passes = material.get("passes")
    if not passes:
        return []
    parameters = {entry["name"]: entry for entry in material["parameters"]}
    scene_values = _pass_scene(passes["scene"])
    textures: list[int] = []
    for entry in passes["run"]:
        reflection = json.loads((export_json.parent / entry["reflection"]).read_text(encoding="utf-8"))
        program = _program(*((export_json.parent / entry[name]).read_text(encoding="utf-8")
                             for name in ("vertex", "fragment")))
        buffer = entry["buffer"]
        resolution = int(buffer["resolution"])
        internal, pixel_type = (getattr(GL, name) for name in PASS_FORMATS[buffer["internal_format"]])
        wrap = GL.GL_REPEAT if buffer["wrap"] == "repeat" else GL.GL_CLAMP_TO_EDGE
        levels = math.floor(math.log2(resolution)) + 1 if buffer["mipmaps"] else 1
        target = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, target)
        size = resolution
        for level in range(levels):
            GL.glTexImage2D(GL.GL_TEXTURE_2D, level, internal, size, size, 0, GL.GL_RGBA, pixel_type, None)
            size = max(1, size // 2)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, levels - 1)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER,
                           GL.GL_LINEAR_MIPMAP_LINEAR if buffer["mipmaps"] else GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, wrap)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, wrap)
        framebuffer = GL.glGenFramebuffers(1)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        location = int(entry["output"]["location"])
        attachment = GL.GL_COLOR_ATTACHMENT0 + location
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, attachment, GL.GL_TEXTURE_2D, target, 0)
        GL.glDrawBuffers(location + 1, [GL.GL_NONE] * location + [attachment])
        if GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER) != GL.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"{entry['label']}: its buffer cannot be drawn into here")
        GL.glViewport(0, 0, resolution, resolution)
        for capability in (GL.GL_DEPTH_TEST, GL.GL_BLEND, GL.GL_CULL_FACE):
            GL.glDisable(capability)
        GL.glClearColor(*passes["clear"])
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glUseProgram(program)
        # The scene record: the UV square's, at its own binding point.
        uniforms = {binding["name"]: binding for binding in reflection["uniforms"]}
        scene = uniforms.get(material["scene"]["uniform"])
        if scene is not None and scene["kind"] == "record":
            data = pack_record(reflection["types"][scene["type"]], reflection["types"], scene_values, scene["block_size"])
            block = GL.glGenBuffers(1)
            GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, block)
            GL.glBufferData(GL.GL_UNIFORM_BUFFER, len(data), data, GL.GL_STATIC_DRAW)
            GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, scene["block_binding"], block)
        unit = 0
        for item in entry["inputs"]:  # earlier passes' textures
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, textures[item["pass"]])
            GL.glUniform1i(GL.glGetUniformLocation(program, item["gl_name"]), unit)
            unit += 1
        for item in entry["parameters"]:  # the material's parameter values
            parameter = parameters[item["name"]]
            if parameter["kind"] == "texture":
                GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
                GL.glBindTexture(GL.GL_TEXTURE_2D, texture(parameter))
                GL.glUniform1i(GL.glGetUniformLocation(program, item["gl_name"]), unit)
                unit += 1
            elif parameter["kind"] in ("float", "vector", "color"):
                _set_uniform(program, item["gl_name"], value(parameter))
        for item in entry["values"]:  # the filter's own numbers
            _set_uniform(program, item["gl_name"], item["value"])
        GL.glBindVertexArray(_quad(passes["quad"], reflection, material["vertex_inputs"]))
        GL.glDrawElements(GL.GL_TRIANGLES, len(passes["quad"]["indices"]) * 3, GL.GL_UNSIGNED_INT, None)
        GL.glBindVertexArray(0)
        if buffer["mipmaps"]:
            GL.glBindTexture(GL.GL_TEXTURE_2D, target)
            GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        textures.append(target)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
    return textures


def render(export_json: Path, width: int = 256, height: int = 256, variant: str | None = None) -> np.ndarray:
    """Draw the exported material; returns (height, width, 4) uint8, top row first. Needs a current context."""
    from OpenGL import GL

    reflection = json.loads(export_json.read_text(encoding="utf-8"))
    material = reflection["material"]
    preview = material.get("preview")
    output = material["output"]
    radiance = bool(output["radiance"])
    background = preview["background"] if preview else {"mode": "color", "color": list(BACKGROUND), "lod": 0.0}
    stem = export_json.name[: -len(".json")]

    # Parameters: the chosen variant's values, else the active one's ("value"); each texture uploaded once.
    chosen = next((item for item in material["variants"] if item["name"] == variant), None) if variant else None
    default_texture = material["default_texture"]
    placeholder = checker(default_texture["size"], default_texture["cells"], default_texture["light"],
                          default_texture["dark"])
    uploaded: dict[str | None, int] = {}

    def value(parameter: dict[str, Any]) -> Any:
        return chosen["values"].get(parameter["name"], parameter["default"]) if chosen else parameter["value"]

    def texture(parameter: dict[str, Any]) -> int:
        file = value(parameter)
        if file not in uploaded:
            uploaded[file] = _texture(read_image(export_json.parent / file) if file else placeholder)
        return uploaded[file]

    # The texture passes, in order, before the material (which samples their textures).
    pass_textures = run_passes(export_json, material, texture, value)
    program = _program(*((export_json.parent / f"{stem}{suffix}").read_text(encoding="utf-8")
                         for suffix in (".vert.glsl", ".frag.glsl")))

    # Framebuffer: the colour at attachment `output.location` (RGBA32F for radiance, else RGBA8), 24-bit depth.
    framebuffer = GL.glGenFramebuffers(1)
    color, depth = GL.glGenRenderbuffers(2)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, color)
    GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA32F if radiance else GL.GL_RGBA8, width, height)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, depth)
    GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_DEPTH_COMPONENT24, width, height)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
    attachment = GL.GL_COLOR_ATTACHMENT0 + int(output["location"])
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, attachment, GL.GL_RENDERBUFFER, color)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_DEPTH_ATTACHMENT, GL.GL_RENDERBUFFER, depth)
    GL.glDrawBuffers(int(output["location"]) + 1, [GL.GL_NONE] * int(output["location"]) + [attachment])
    GL.glReadBuffer(attachment)

    # Clear: the background colour, or for radiance a value no surface writes.
    GL.glViewport(0, 0, width, height)
    GL.glClearColor(*((UNCOVERED, UNCOVERED, UNCOVERED, 0.0) if radiance else (*background["color"], 1.0)))
    GL.glClearDepth(1.0)
    GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)

    # The environment's textures (a Surface Output material's samplers; the background pass).
    environment = preview["environment"] if preview else None
    files = environment.get("files") if environment else None
    samplers = {entry["name"]: entry for entry in material["environment_samplers"]}
    textures: dict[str, int] = {}
    if files:
        textures["environment_specular"] = _environment_texture(
            [read_image(export_json.parent / name) for name in files["environment_specular"]],
            samplers.get("environment_specular", SPECULAR_STATE))
        for name in ("environment_irradiance", "environment_brdf"):
            if name in samplers:
                textures[name] = _environment_texture([read_image(export_json.parent / files[name])], samplers[name])
    elif samplers:
        raise RuntimeError("the material reads the environment but the export has no environment files")
    if radiance and background["mode"] != "color":
        draw_environment_background(width, height, textures["environment_specular"], environment, background["lod"])

    GL.glUseProgram(program)
    # Mesh: vertex inputs by the locations the reflection gives.
    mesh = sphere()
    indices = mesh["indices"]
    vertex_array = GL.glGenVertexArrays(1)
    GL.glBindVertexArray(vertex_array)
    for entry in material["vertex_inputs"]:
        binding = next((item for item in reflection["vertex_interface"]
                        if item["direction"] == "in" and item["location"] == entry["location"]), None)
        if binding is None:
            continue  # the program does not read this input
        data = mesh.get(entry["name"])
        if data is None:
            # This sphere has no vertex colours: the contract's constant, opaque white (array disabled).
            GL.glDisableVertexAttribArray(entry["location"])
            GL.glVertexAttrib4f(entry["location"], 1.0, 1.0, 1.0, 1.0)
            continue
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
        data = pack_record(reflection["types"][scene["type"]], reflection["types"], scene_values(width, height, preview),
                           scene["block_size"])
        block = GL.glGenBuffers(1)
        GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, block)
        GL.glBufferData(GL.GL_UNIFORM_BUFFER, len(data), data, GL.GL_STATIC_DRAW)
        GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, scene["block_binding"], block)

    unit = 0
    for parameter in material["parameters"]:
        if parameter["gl_name"] is None:
            continue  # a parameter only texture passes read
        location = GL.glGetUniformLocation(program, parameter["gl_name"])
        if parameter["kind"] == "texture":
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture(parameter))
            GL.glUniform1i(location, unit)
            unit += 1
        elif parameter["kind"] in ("float", "vector", "color"):
            _set_uniform(program, parameter["gl_name"], value(parameter))
    # The texture passes' buffers the material samples, on the next units.
    for entry in material["passes"]["material_inputs"] if material.get("passes") else ():
        GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
        GL.glBindTexture(GL.GL_TEXTURE_2D, pass_textures[entry["pass"]])
        GL.glUniform1i(GL.glGetUniformLocation(program, entry["gl_name"]), unit)
        unit += 1
    # The environment samplers, on the next units.
    for name, entry in samplers.items():
        GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
        GL.glBindTexture(GL.GL_TEXTURE_2D, textures[name])
        GL.glUniform1i(GL.glGetUniformLocation(program, entry["gl_name"]), unit)
        unit += 1
    GL.glActiveTexture(GL.GL_TEXTURE0)

    # Draw: depth test, both faces, no blending.
    GL.glEnable(GL.GL_DEPTH_TEST)
    GL.glDepthFunc(GL.GL_LESS)
    GL.glDisable(GL.GL_CULL_FACE)
    GL.glDisable(GL.GL_BLEND)
    GL.glDrawElements(GL.GL_TRIANGLES, len(indices) * 3, GL.GL_UNSIGNED_INT, None)
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
    if not radiance:
        pixels = np.frombuffer(GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE), dtype=np.uint8)
        return np.ascontiguousarray(pixels.reshape(height, width, 4)[::-1])
    # Linear radiance: the post pass with the preview's exposure and tone mapper.
    floats = np.frombuffer(GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_FLOAT), dtype=np.float32)
    exposure, tone_mapper = (preview["exposure"], preview["tone_mapper"]) if preview else (0.0, "pbr_neutral")
    return post_pass(floats.reshape(height, width, 4)[::-1], exposure, tone_mapper, background["color"])


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
