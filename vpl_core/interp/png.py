"""PNG files for `vpl run` without Qt: writing RGBA8 images and reading 8-bit ones (standard library + numpy).

Writing: 8-bit RGBA, no interlace, filter type 0 per row, zlib level 6.
Reading (for `--set NAME=@image.png` textures): 8-bit greyscale, grey +
alpha, RGB, RGBA and palette images (with tRNS alpha), non-interlaced, all
five row filters (PNG specification, sections 7-9 and 11). Anything else
(16-bit channels, interlacing) is a `PngError` with a message saying so.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class PngError(ValueError):
    """A file that is not a PNG this reader handles."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(image: np.ndarray) -> bytes:
    """The PNG bytes of a uint8 (height, width, 4) RGBA image, first row at the top."""
    array = np.asarray(image)
    if array.ndim != 3 or array.shape[2] != 4 or array.dtype != np.uint8 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(f"expected a uint8 (height, width, 4) image, got {array.dtype} {array.shape}")
    height, width = array.shape[:2]
    rows = np.concatenate([np.zeros((height, 1), dtype=np.uint8), np.ascontiguousarray(array).reshape(height, width * 4)], axis=1)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + _chunk(b"IEND", b"")


def write_png(path: str | Path, image: np.ndarray) -> None:
    Path(path).write_bytes(encode_png(image))


def _unfilter(data: bytes, height: int, stride: int, pixel_bytes: int) -> np.ndarray:
    expected = height * (stride + 1)
    if len(data) < expected:
        raise PngError(f"image data too short ({len(data)} bytes for {height} rows of {stride})")
    raw = np.frombuffer(data[:expected], dtype=np.uint8).reshape(height, stride + 1)
    result = np.zeros((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.int32)
    for row in range(height):
        kind = int(raw[row, 0])
        line = raw[row, 1:].astype(np.int32)
        if kind == 0:
            current = line
        elif kind == 2:
            current = (line + previous) & 0xFF
        elif kind == 1 and stride % pixel_bytes == 0:
            current = (np.cumsum(line.reshape(-1, pixel_bytes), axis=0) & 0xFF).reshape(-1)
        elif kind in (1, 3, 4):
            current = np.zeros(stride, dtype=np.int32)
            for index in range(stride):
                left = current[index - pixel_bytes] if index >= pixel_bytes else 0
                up = previous[index]
                if kind == 1:
                    predictor = left
                elif kind == 3:
                    predictor = (left + up) // 2
                else:
                    upper_left = previous[index - pixel_bytes] if index >= pixel_bytes else 0
                    estimate = left + up - upper_left
                    distances = (abs(estimate - left), abs(estimate - up), abs(estimate - upper_left))
                    predictor = (left, up, upper_left)[distances.index(min(distances))]
                current[index] = (line[index] + predictor) & 0xFF
        else:
            raise PngError(f"unknown PNG row filter {kind}")
        result[row] = current
        previous = current
    return result


def decode_png(data: bytes) -> np.ndarray:
    """A uint8 (height, width, 4) RGBA image, first row at the top."""
    if not data.startswith(_SIGNATURE):
        raise PngError("not a PNG file (wrong signature)")
    position = len(_SIGNATURE)
    header: tuple[int, ...] | None = None
    palette: np.ndarray | None = None
    transparency: bytes = b""
    compressed = bytearray()
    while position + 8 <= len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if len(body) != length:
            raise PngError("truncated PNG chunk")
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, dtype=np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            transparency = body
        elif kind == b"IDAT":
            compressed += body
        elif kind == b"IEND":
            break
    if header is None:
        raise PngError("PNG without an IHDR chunk")
    width, height, depth, color_type, _, _, interlace = header
    if depth != 8:
        raise PngError(f"only 8-bit PNG images are supported, this one has {depth}-bit channels")
    if interlace:
        raise PngError("interlaced PNG images are not supported")
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(color_type)
    if channels is None:
        raise PngError(f"unknown PNG colour type {color_type}")
    try:
        raw = zlib.decompress(bytes(compressed))
    except zlib.error as error:
        raise PngError(f"corrupt PNG image data: {error}") from error
    pixels = _unfilter(raw, height, width * channels, channels).reshape(height, width, channels)
    rgba = np.empty((height, width, 4), dtype=np.uint8)
    if color_type == 3:
        if palette is None:
            raise PngError("palette PNG without a PLTE chunk")
        alpha = np.full(len(palette), 255, dtype=np.uint8)
        alpha[: len(transparency)] = np.frombuffer(transparency, dtype=np.uint8)[: len(palette)]
        index = np.clip(pixels[..., 0], 0, len(palette) - 1)
        rgba[..., :3] = palette[index]
        rgba[..., 3] = alpha[index]
    elif channels in (1, 2):
        rgba[..., :3] = pixels[..., :1]
        rgba[..., 3] = pixels[..., 1] if channels == 2 else 255
    else:
        rgba[..., :3] = pixels[..., :3]
        rgba[..., 3] = pixels[..., 3] if channels == 4 else 255
    return rgba


def read_png(path: str | Path) -> np.ndarray:
    """The image of a PNG file named on a command line (`--set NAME=@file`); OSError or PngError."""
    from vpl_core.external_files import read_external

    return decode_png(read_external(path, "set-file"))
