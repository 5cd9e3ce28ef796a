"""The Sample Viewer's stored frames are keyed by what a `.glb` renders as (`sample_viewer.glb_content`), not by
its bytes: the same pixels compressed otherwise keep a stored frame valid; any change the engine could see does
not."""

from __future__ import annotations

import io
import json
import struct
import zlib
from typing import Any

import numpy as np
import reference_store
import sample_viewer
from PIL import Image


def _png(pixels: np.ndarray, level: int, srgb: bool = True) -> bytes:
    """`pixels` as PNG at zlib `level` (Pillow), with or without an sRGB chunk."""
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG", compress_level=level, optimize=False)
    data = out.getvalue()
    if srgb:  # after IHDR (8 + 25 bytes), as the editor's writer puts it
        body = b"sRGB\x00"
        chunk = struct.pack(">I", 1) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
        data = data[:33] + chunk + data[33:]
    return data


def _glb(png: bytes, factor: float = 1.0) -> bytes:
    """A binary glTF of one triangle and one embedded texture `png` (the image's view first, then the positions)."""
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32).tobytes()
    padded = png + b"\0" * (-len(png) % 4)
    document: dict[str, Any] = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(padded) + len(positions)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(png)},
                        {"buffer": 0, "byteOffset": len(padded), "byteLength": len(positions)}],
        "images": [{"bufferView": 0, "mimeType": "image/png"}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [factor, 1.0, 1.0, 1.0]}}],
    }
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    binary = padded + positions
    chunks = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(binary), b"BIN\0") + binary
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def _key(glb: bytes) -> str:
    return reference_store.digest(sample_viewer.glb_content(glb))


#: A texture with structure for the compressor to find (gradients and a little noise), 64 x 64.
PIXELS = (np.indices((64, 64)).sum(axis=0)[..., None] * np.array([1, 2, 3]) % 256
          + np.random.default_rng(7).integers(0, 3, (64, 64, 3))).astype(np.uint8)


def test_the_same_pixels_compressed_otherwise_keep_the_key() -> None:
    fast, small = _png(PIXELS, 1), _png(PIXELS, 9)
    assert fast != small and len(fast) != len(small)  # other bytes, other offsets after the image
    assert _glb(fast) != _glb(small)
    assert _key(_glb(fast)) == _key(_glb(small))


def test_what_the_engine_sees_changes_the_key() -> None:
    base = _key(_glb(_png(PIXELS, 9)))
    edited = PIXELS.copy()
    edited[3, 4, 1] ^= 1
    assert _key(_glb(_png(edited, 9))) != base  # one pixel's one level
    assert _key(_glb(_png(PIXELS, 9, srgb=False))) != base  # the colour chunk
    assert _key(_glb(_png(PIXELS, 9), factor=0.5)) != base  # the material's JSON
    assert _key(_glb(_png(np.dstack([PIXELS, PIXELS[..., :1]]), 9))) != base  # an alpha channel
