"""Fuzz targets for the file readers: glTF (JSON and buffers, GLB), OBJ, `.vplf` function files, Radiance HDR headers.

Each target writes one input to a file and reads it the way the editor
does; the only outcomes allowed are a result or the reader's own error
(`MeshImportError`, `LibraryError`, `EnvironmentLoadError`), anything else
is a finding. Inputs are mutations of small valid seeds: token-level for
the text formats (a number made extreme, a value swapped for another of
the same file, a piece deleted or duplicated) and byte-level for all.
`mutate(data, choices)` consumes integers, so hypothesis and a seeded
random generator (`run_files.py`) drive the same mutations.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

INTERESTING = [b"0", b"-1", b"1e999", b"-1e999", b"NaN", b"4294967295", b"2147483648", b"99999999999999999999",
               b"1.5", b"null", b"[]", b"{}", b'"1"', b"true", b"-0", b"65536"]


def _triangle_buffer() -> bytes:
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=np.float32)
    normals = np.tile(np.array([0, 0, 1], dtype=np.float32), (4, 1))
    uvs = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.float32)
    indices = np.array([0, 1, 2, 2, 1, 3], dtype=np.uint16)
    return positions.tobytes() + normals.tobytes() + uvs.tobytes() + indices.tobytes()


def _gltf_document(uri: str | None) -> dict[str, object]:
    data = _triangle_buffer()
    buffer: dict[str, object] = {"byteLength": len(data)}
    if uri is not None:
        buffer["uri"] = uri
    return {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0, "children": [1]}, {"mesh": 0, "translation": [2, 0, 0], "rotation": [0, 0, 0.7071, 0.7071]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "mode": 4}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 3, "componentType": 5123, "count": 6, "type": "SCALAR"},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 48},
            {"buffer": 0, "byteOffset": 96, "byteLength": 32},
            {"buffer": 0, "byteOffset": 128, "byteLength": 12},
        ],
        "buffers": [buffer],
    }


def gltf_seed() -> bytes:
    uri = "data:application/octet-stream;base64," + base64.b64encode(_triangle_buffer()).decode()
    return json.dumps(_gltf_document(uri)).encode()


def glb_seed() -> bytes:
    text = json.dumps(_gltf_document(None)).encode()
    text += b" " * (-len(text) % 4)
    binary = _triangle_buffer()
    binary += b"\0" * (-len(binary) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", len(binary), 0x004E4942) + binary
    return b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks


OBJ_SEED = b"""# a quad with normals and texture coordinates
o quad
v 0 0 0
v 1 0 0
v 1 1 0 0.5 0.5 0.5
v 0 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
f 1/1/1 2/2/1 3/3/1 4/4/1
f 1 3 4
"""


def vplf_seed() -> bytes:
    """A function file as the editor saves it: a group with one multiply node."""
    node = {"id": "n1", "type": "multiply", "position": [0, 0], "properties": {}}
    function = {"id": "scale", "name": "Scale", "inputs": [{"name": "value", "type": "float"}],
                "outputs": [{"name": "result", "type": "float"}], "nodes": [node], "connections": []}
    return json.dumps({"format": "vpl-material-function", "function": "scale", "version": 1,
                       "functions": [function]}, sort_keys=True).encode()


def hdr_seed() -> bytes:
    """A 64x32 flat (not run-length encoded) Radiance RGBE image with a gradient."""
    rows = []
    for row in range(32):
        pixels = bytearray()
        for column in range(64):
            pixels += bytes([column * 4 % 256, row * 8 % 256, 128, 128])
        rows.append(bytes(pixels))
    return b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1.0\n\n-Y 32 +X 64\n" + b"".join(rows)


_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|[A-Za-z_]+|[\[\]{}(),:/]|\S')


def mutate(data: bytes, choices: list[int]) -> bytes:
    """One mutation of `data` chosen by the integers in `choices` (consumed from the front)."""

    def choose(limit: int) -> int:
        return choices.pop(0) % limit if choices and limit > 0 else 0

    operation = choose(8)
    if operation >= 5 or not data:  # bytes: flip, insert, delete a run
        position = choose(max(len(data), 1))
        if operation == 5:
            return data[:position] + bytes([choose(256)]) + data[position + 1 :]
        if operation == 6:
            return data[:position] + bytes([choose(256)]) * (1 + choose(64)) + data[position:]
        return data[:position] + data[position + 1 + choose(64) :]
    # The header of a binary file (before its first NUL or high byte) is where its text is.
    text_end = next((index for index, byte in enumerate(data) if byte == 0 or byte > 126), len(data))
    found = list(_TOKEN.finditer(data, 0, text_end))
    if not found:
        return data
    token = found[choose(len(found))]
    start, end = token.span()
    if operation == 0:  # a number (or any token) becomes an interesting value
        numbers = [match for match in found if re.fullmatch(rb"-?[0-9][0-9.eE+-]*", match.group(0))]
        if numbers:
            start, end = numbers[choose(len(numbers))].span()
        return data[:start] + INTERESTING[choose(len(INTERESTING))] + data[end:]
    if operation == 1:  # a token becomes another token of the same input
        other = found[choose(len(found))].group(0)
        return data[:start] + other + data[end:]
    if operation == 2:  # delete a run of tokens
        stop = found[min(len(found) - 1, found.index(token) + choose(8))].end()
        return data[:start] + data[stop:]
    if operation == 3:  # duplicate a run of tokens
        stop = found[min(len(found) - 1, found.index(token) + choose(16))].end()
        return data[:stop] + data[start:stop] + data[stop:]
    return data[:start] + data[start:end] * (2 + choose(200)) + data[end:]  # repeat one token (deep nesting)


@dataclass(frozen=True)
class Target:
    """A reader under test: the file name an input is written as, its seeds, and the read (raising only `expected`)."""

    name: str
    file_name: str
    seeds: tuple[bytes, ...]
    read: Callable[[Path], object]
    expected: tuple[type[BaseException], ...]


def _read_mesh(path: Path) -> object:
    from app.preview.mesh_import import read_mesh_file

    return read_mesh_file(path)


def _read_vplf(path: Path) -> object:
    from app.material.library import read_function_file

    return read_function_file(path, "user")


def _read_hdr(path: Path) -> object:
    from app.preview.environment import load_environment

    return load_environment(path)


def targets() -> dict[str, Target]:
    from app.material.library import LibraryError
    from app.preview.environment import EnvironmentLoadError
    from app.preview.mesh_import import MeshImportError

    return {
        "gltf": Target("gltf", "input.gltf", (gltf_seed(),), _read_mesh, (MeshImportError,)),
        "glb": Target("glb", "input.glb", (glb_seed(),), _read_mesh, (MeshImportError,)),
        "obj": Target("obj", "input.obj", (OBJ_SEED,), _read_mesh, (MeshImportError,)),
        "vplf": Target("vplf", "input.vplf", (vplf_seed(),), _read_vplf, (LibraryError,)),
        "hdr": Target("hdr", "input.hdr", (hdr_seed(),), _read_hdr, (EnvironmentLoadError,)),
    }


def check(target: Target, data: bytes, folder: Path) -> bool:
    """Read `data` as `target` from a file in `folder`; True when it was accepted. Anything unexpected propagates."""
    path = folder / target.file_name
    path.write_bytes(data)
    try:
        target.read(path)
    except target.expected:
        return False
    return True
