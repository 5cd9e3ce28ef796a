"""A baked material as image files: one per channel, a packed ORM map and a manifest (no GL).

`save_maps(baked, directory)` writes (docs/interchange.md, "Baked maps"):

| file | contents | encoding |
|---|---|---|
| `base_color.png` | base colour | 8-bit sRGB |
| `opacity.png`, `occlusion.png`, `roughness.png`, `metallic.png`, `specular.png` | one value per texel | 8-bit grey, linear (no colour chunk) |
| `orm.png` | occlusion, roughness, metallic in R, G, B (glTF's packing) | 8-bit linear |
| `normal.png` | tangent-space normal, n/2 + 1/2, green up (OpenGL, glTF) | 8-bit linear |
| `emissive.exr` | emitted radiance (colour × strength), linear HDR | half-float OpenEXR |
| `height.png` | the Surface Output's height, 0..1 (only when it is connected; `normal.png` then holds its bump) | 8-bit linear |
| `coverage.png` | the fraction of each texel the mesh covers (the seams' mask) | 8-bit linear |
| `bake.json` | size, mesh, the files, each channel's constant value (or null), notes | JSON |

An Unlit Output material has `base_color.png` (display colour) and
`opacity.png` only. Constant channels are written as flat images too, so a
folder always holds the same set; `bake.json` tells which are constant.
Images are top row first, v = 1 at the top (the usual texture orientation).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from app.export.bake import BakedMaterial
from app.export.images import encode_srgb, quantize, write_image
from app.export.surface import SURFACE_EXTENSION_CHANNELS, extensions_in_use, require_channels
from vpl_core.atomic_write import write_atomically

MANIFEST = "bake.json"
#: (file name, channel names in its channels, encoding) per written image.
SURFACE_FILES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("base_color.png", ("base_color",), "srgb"),
    ("opacity.png", ("opacity",), "data"),
    ("occlusion.png", ("occlusion",), "data"),
    ("roughness.png", ("roughness",), "data"),
    ("metallic.png", ("metallic",), "data"),
    ("specular.png", ("specular",), "data"),
    ("orm.png", ("occlusion", "roughness", "metallic"), "data"),
    ("normal.png", ("normal",), "normal"),
    ("emissive.exr", ("emissive",), "linear"),
)
UNLIT_FILES = SURFACE_FILES[:2]
#: Written too when the Surface Output's height is connected (normal.png then holds its bump).
HEIGHT_FILE: tuple[str, tuple[str, ...], str] = ("height.png", ("height",), "data")


def channel_values(baked: BakedMaterial, name: str) -> np.ndarray:
    """The channel's values over the image (H, W, k) float32: baked, or its constant everywhere."""
    values: np.ndarray | None = baked.channel(name)
    if values is not None:
        return values
    constant = baked.constant(name)
    assert constant is not None
    filled: np.ndarray = np.broadcast_to(np.asarray(constant, dtype=np.float32), (baked.size, baked.size, len(constant))).copy()
    return filled


def unit_vectors(values: np.ndarray) -> np.ndarray:
    """Rows of (..., 3) scaled to unit length ((0, 0, 1) where a vector is zero): dilation averages shorten them."""
    length = np.linalg.norm(values, axis=-1, keepdims=True)
    unit: np.ndarray = np.divide(values, length, out=np.zeros_like(values), where=length > 1e-8)
    unit[..., 2] = np.where(length[..., 0] > 1e-8, unit[..., 2], 1.0)
    return unit


def encoded_image(baked: BakedMaterial, channels: tuple[str, ...], encoding: str) -> np.ndarray:
    """The pixels of one file: uint8 for PNG (sRGB-encoded colour, linear data, n/2 + 1/2 normals), float32 for EXR."""
    values = np.concatenate([channel_values(baked, name) for name in channels], axis=2)
    if encoding == "srgb":
        return quantize(encode_srgb(values))
    if encoding == "normal":
        return quantize(unit_vectors(values) * 0.5 + 0.5)
    if encoding == "linear":
        return values.astype(np.float32)
    return quantize(values)


def save_maps(baked: BakedMaterial, directory: str | Path, mesh: str = "", extra: dict[str, Any] | None = None) -> list[Path]:
    """Write the files of the module docstring into `directory` (created); returns their paths."""
    require_channels(baked.description)
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    files = UNLIT_FILES if baked.description.unlit else SURFACE_FILES
    if "height" in baked.description.connected and not baked.description.unlit:
        files = (*files, HEIGHT_FILE)
    written = []
    for file_name, channels, encoding in files:
        color_space = {"srgb": "srgb", "linear": "linear"}.get(encoding, "data")
        written.append(write_image(folder / file_name, encoded_image(baked, channels, encoding), color_space))
    written.append(write_image(folder / "coverage.png", quantize(baked.coverage), "data"))
    manifest = {
        "size": baked.size,
        "mesh": mesh,
        "output": baked.description.kind,
        "alpha_mode": baked.description.alpha_mode,
        "alpha_cutoff": baked.description.alpha_cutoff,
        "files": {file_name: {"channels": list(channels), "encoding": encoding} for file_name, channels, encoding in files},
        # The Surface Output's glTF extension inputs have no baked map (glTF export carries them).
        "constants": {channel.name: _rounded(baked.constant(channel.name)) for channel in baked.description.channels
                      if channel not in SURFACE_EXTENSION_CHANNELS},
        "notes": list(baked.notes) + [f"{name}: a glTF material extension input, which baked maps do not carry; "
                                      "export to glTF or MaterialX for it" for name in extensions_in_use(baked.description)],
        **(extra or {}),
    }
    manifest_path = folder / MANIFEST
    write_atomically(manifest_path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    written.append(manifest_path)
    return written


def _rounded(values: tuple[float, ...] | None) -> list[float] | None:
    return None if values is None else [round(float(value), 6) for value in values]
