"""WebGL 2 test support: draw recipes, a loopback page server, headless Chromium, and a native replay.

A *recipe* is everything one draw needs, as plain data both sides execute
identically: the es300 code, std140 block bytes, per-leaf uniform calls, one
texture per sampler, vertex input arrays or current values (integer inputs
through `vertexAttribI4i`, the host contract), and the framebuffer
attachment of the colour output. The browser (WebGL 2 in headless Chromium,
ANGLE on SwiftShader) and Mesa's ES 3.2 context (llvmpipe) each run every
recipe; the test compares the two pixels, so the reference is an independent
GL implementation, not the backend.

The page is served on 127.0.0.1 only and posts its results back to the same
server; tests/headless_chromium.py starts Chromium on it (the flags this
machine needs, its own process group, ended by that group's id).
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from headless_chromium import chromium_page

from vpl_core.backends.glsl import std140
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.module import Direction
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, SamplerType, ScalarKind, ScalarType, Type, VectorType

SIZE = 4
PIXEL = (2, 2)
POSITIONS = [[-1.0, -1.0, 0.0, 1.0], [3.0, -1.0, 0.0, 1.0], [-1.0, 3.0, 0.0, 1.0]]
TEXTURE = [255, 64, 0, 255, 0, 200, 80, 255, 30, 90, 255, 255, 250, 250, 250, 255]  # 2x2 RGBA8

@dataclass
class Recipe:
    name: str
    vertex: str
    fragment: str
    color_location: int
    blocks: list[dict[str, Any]] = field(default_factory=list)
    uniforms: list[dict[str, Any]] = field(default_factory=list)
    textures: list[dict[str, Any]] = field(default_factory=list)
    attributes: list[dict[str, Any]] = field(default_factory=list)
    block_sizes: dict[str, int] = field(default_factory=dict)
    attribute_locations: dict[str, int] = field(default_factory=dict)


def _value(value_type: Type) -> Any:
    """The value every recipe feeds: floats 0.5, ints 1, bools true, matrices identity."""
    if isinstance(value_type, ScalarType):
        return {ScalarKind.FLOAT: 0.5, ScalarKind.INT: 1, ScalarKind.BOOL: 1}[value_type.kind]
    if isinstance(value_type, VectorType):
        return [_value(ScalarType(value_type.kind))] * value_type.size
    if isinstance(value_type, MatrixType):
        return np.eye(value_type.columns, value_type.rows, dtype=np.float32).reshape(-1).tolist()  # column-major
    raise TypeError(value_type)


def _uniform_calls(name: str, value_type: Type) -> list[dict[str, Any]]:
    """One call per basic leaf (`vpl_u1[2]`, `vpl_u2[1].vpl_m0`), as hosts upload non-block uniforms."""
    if isinstance(value_type, ArrayType):
        return [call for index in range(value_type.count) for call in _uniform_calls(f"{name}[{index}]", value_type.element)]
    if isinstance(value_type, RecordType):
        return [
            call
            for position, record_field in enumerate(value_type.fields)
            for call in _uniform_calls(f"{name}.vpl_m{position}", record_field.type)
        ]
    if isinstance(value_type, MatrixType):
        shape = str(value_type.rows) if value_type.rows == value_type.columns else f"{value_type.columns}x{value_type.rows}"
        return [{"name": name, "setter": f"Matrix{shape}fv", "values": _value(value_type)}]
    assert isinstance(value_type, (ScalarType, VectorType))
    values = _value(value_type)
    values = values if isinstance(values, list) else [values]
    kind = "f" if value_type.kind is ScalarKind.FLOAT else "i"
    return [{"name": name, "setter": f"{len(values)}{kind}", "values": values}]


def _block_bytes(record: RecordType) -> bytes:
    data = bytearray(std140.block_size(record))
    for _, offset, leaf in std140.member_offsets(record):
        if isinstance(leaf, MatrixType):
            columns = np.eye(leaf.columns, leaf.rows, dtype=np.float32)
            for column in range(leaf.columns):
                start = offset + 16 * column
                data[start : start + 4 * leaf.rows] = columns[column].tobytes()
        else:
            values = _value(leaf)
            values = values if isinstance(values, list) else [values]
            kind = leaf.kind  # type: ignore[union-attr]
            encoded = np.array(values, dtype=np.float32 if kind is ScalarKind.FLOAT else np.int32).tobytes()
            data[offset : offset + len(encoded)] = encoded
    return bytes(data)


def recipe(name: str, artifact: ProgramArtifact) -> Recipe:
    assert artifact.target == "es300", artifact.target
    result = Recipe(name, artifact.vertex_code, artifact.fragment_code, artifact.fragment_color_location)
    unit = 0
    for binding in artifact.uniforms:
        if binding.block_binding >= 0:
            assert isinstance(binding.type, RecordType) and binding.block_name is not None
            data = _block_bytes(binding.type)
            result.blocks.append(
                {"name": binding.block_name, "binding": binding.block_binding, "data": base64.b64encode(data).decode()}
            )
            result.block_sizes[binding.block_name] = binding.block_size
        elif isinstance(binding.type, SamplerType):
            result.textures.append({"name": binding.gl_name, "unit": unit})
            unit += 1
        else:
            result.uniforms += _uniform_calls(binding.gl_name, binding.type)
    for binding in artifact.vertex_interface:
        if binding.direction is not Direction.IN or binding.location < 0:
            continue
        result.attribute_locations[binding.gl_name] = binding.location
        value_type = binding.type
        if binding.location == 0 and isinstance(value_type, VectorType) and value_type.kind is ScalarKind.FLOAT:
            rows = [row[: value_type.size] for row in POSITIONS]  # w = 1 when there are four components
            result.attributes.append({"location": 0, "array": [x for row in rows for x in row], "size": value_type.size})
        elif isinstance(value_type, MatrixType):
            identity = np.eye(value_type.columns, 4, dtype=np.float32)
            for column in range(value_type.columns):
                result.attributes.append(
                    {"location": binding.location + column, "value": identity[column].tolist(), "integer": False}
                )
        else:
            integer = isinstance(value_type, (ScalarType, VectorType)) and value_type.kind is ScalarKind.INT
            # (0, 0, 1, 1): unit normals, texture coordinates at the origin, where sin-based hashes
            # of procedural noise are exact (their large arguments differ between GL implementations).
            value = [1, 1, 1, 1] if integer else [0.0, 0.0, 1.0, 1.0]
            result.attributes.append({"location": binding.location, "value": value, "integer": integer})
    return result


# The browser side ------------------------------------------------------------------------------

PAGE = Path(__file__).with_name("webgl_page.html")


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _PageServer

    def do_GET(self) -> None:
        if self.path == "/recipes.json":
            body = self.server.recipes_json
        elif self.path in ("/", "/index.html"):
            body = PAGE.read_bytes()
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json" if self.path.endswith(".json") else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.server.results = json.loads(self.rfile.read(length).decode("utf-8"))
        self.send_response(204)
        self.end_headers()
        self.server.done.set()

    def log_message(self, *_: Any) -> None:
        pass


class _PageServer(http.server.ThreadingHTTPServer):
    def __init__(self, recipes: list[Recipe]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.recipes_json = json.dumps([recipe.__dict__ for recipe in recipes]).encode("utf-8")
        self.results: Any = None
        self.done = threading.Event()


def run_in_browser(recipes: list[Recipe], timeout: float = 180.0) -> dict[str, Any]:
    """Run every recipe in headless Chromium; returns {"context": {...}, "results": {name: {...}}}."""
    server = _PageServer(recipes)
    with chromium_page(server, profile_prefix="vpl-webgl-") as chromium_said:
        if not server.done.wait(timeout):
            raise AssertionError(f"the page posted no results in {timeout} s; Chromium said:\n{chromium_said()}")
        results: dict[str, Any] = server.results
        return results


# The native side: the same recipe on Mesa's ES 3.2 context ---------------------------------------


def render_native(recipe: Recipe, artifact: ProgramArtifact) -> list[int]:
    """Run `recipe` on the current (ES) context exactly as the page does; the RGBA8 pixel at PIXEL."""
    from gl_programs import build_program
    from OpenGL import GL

    program = build_program(artifact, es=True)  # also applies the block binding points
    buffers: list[int] = []
    textures: list[int] = []
    framebuffer = GL.glGenFramebuffers(1)
    renderbuffer = GL.glGenRenderbuffers(1)
    vertex_array = GL.glGenVertexArrays(1)
    try:
        for block in recipe.blocks:
            data = base64.b64decode(block["data"])
            buffer = GL.glGenBuffers(1)
            buffers.append(buffer)
            GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, buffer)
            GL.glBufferData(GL.GL_UNIFORM_BUFFER, len(data), data, GL.GL_STATIC_DRAW)
            GL.glBindBufferBase(GL.GL_UNIFORM_BUFFER, block["binding"], buffer)
        GL.glUseProgram(program)
        for call in recipe.uniforms:
            location = GL.glGetUniformLocation(program, call["name"].encode("ascii") + b"\0")
            if location < 0:
                continue
            setter = getattr(GL, "glUniform" + call["setter"])
            if call["setter"].startswith("Matrix"):
                setter(location, 1, GL.GL_FALSE, np.array(call["values"], dtype=np.float32))
            else:
                setter(location, *call["values"])
        for sampler in recipe.textures:
            texture = GL.glGenTextures(1)
            textures.append(texture)
            GL.glActiveTexture(GL.GL_TEXTURE0 + sampler["unit"])
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
            GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
            GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA8, 2, 2, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE,
                            np.array(TEXTURE, dtype=np.uint8))
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, 0)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_NEAREST)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_NEAREST)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_REPEAT)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_REPEAT)
            location = GL.glGetUniformLocation(program, sampler["name"].encode("ascii") + b"\0")
            if location >= 0:
                GL.glUniform1i(location, sampler["unit"])
        GL.glBindVertexArray(vertex_array)
        for attribute in recipe.attributes:
            if "array" in attribute:
                data = np.array(attribute["array"], dtype=np.float32)
                buffer = GL.glGenBuffers(1)
                buffers.append(buffer)
                GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
                GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, data, GL.GL_STATIC_DRAW)
                GL.glVertexAttribPointer(attribute["location"], attribute["size"], GL.GL_FLOAT, GL.GL_FALSE, 0, None)
                GL.glEnableVertexAttribArray(attribute["location"])
            elif attribute["integer"]:
                GL.glDisableVertexAttribArray(attribute["location"])
                GL.glVertexAttribI4i(attribute["location"], *attribute["value"])
            else:
                GL.glDisableVertexAttribArray(attribute["location"])
                GL.glVertexAttrib4f(attribute["location"], *attribute["value"])
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, renderbuffer)
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA8, SIZE, SIZE)
        attachment = GL.GL_COLOR_ATTACHMENT0 + recipe.color_location
        GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, attachment, GL.GL_RENDERBUFFER, renderbuffer)
        draw_buffers = [GL.GL_NONE] * recipe.color_location + [attachment]
        GL.glDrawBuffers(len(draw_buffers), np.array(draw_buffers, dtype=np.uint32))
        GL.glViewport(0, 0, SIZE, SIZE)
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glClearColor(0.0, 0.0, 0.0, 0.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
        GL.glReadBuffer(attachment)
        pixel = GL.glReadPixels(PIXEL[0], PIXEL[1], 1, 1, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
        assert GL.glGetError() == GL.GL_NO_ERROR
        return list(bytes(pixel))
    finally:
        GL.glUseProgram(0)
        GL.glBindVertexArray(0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        for location in range(16):
            GL.glDisableVertexAttribArray(location)
        GL.glDeleteVertexArrays(1, [vertex_array])
        GL.glDeleteRenderbuffers(1, [renderbuffer])
        GL.glDeleteFramebuffers(1, [framebuffer])
        if buffers:
            GL.glDeleteBuffers(len(buffers), buffers)
        if textures:
            GL.glDeleteTextures(textures)
        GL.glDeleteProgram(program)
