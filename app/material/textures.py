"""Texture images as numpy arrays: the default checker, layout and colour conventions.

An image is an array of shape (height, width, 4), RGBA (uint8, or float32
for high-precision sources: 16-bit, HDR, EXR), first row at the top (as QImage and `Renderer.read_pixels` have it). The renderer flips
rows on upload so that texcoord v = 0 samples the image's bottom row, the
usual convention the preview meshes' texcoords follow.
"""

from __future__ import annotations

import numpy as np

CHECKER_SIZE = 256
CHECKER_CELLS = 8
CHECKER_LIGHT = (214, 214, 214, 255)
CHECKER_DARK = (64, 64, 64, 255)


def checker_rgba(size: int = CHECKER_SIZE, cells: int = CHECKER_CELLS) -> np.ndarray:
    """A light/dark checker board; the cell at texcoord (0, 0) is light.

    Cells are whole texels, so sampling well inside a cell gives exactly
    one of the two colours at every mip level down to one texel per cell.
    """
    cell = size // cells
    index = np.arange(size) // cell
    # Row 0 is the top of the image, which maps to v close to 1.
    from_bottom = (cells - 1) - index
    dark = (index[None, :] + from_bottom[:, None]) % 2 == 1
    image = np.empty((size, size, 4), dtype=np.uint8)
    image[...] = CHECKER_LIGHT
    image[dark] = CHECKER_DARK
    return image


def checker_color_at(u: float, v: float, cells: int = CHECKER_CELLS) -> tuple[int, int, int, int]:
    """The checker's colour at texcoord (u, v) with repeat addressing."""
    column = int(np.floor(u * cells)) % cells
    row = int(np.floor(v * cells)) % cells
    return CHECKER_DARK if (column + row) % 2 else CHECKER_LIGHT


def as_rgba_image(image: np.ndarray) -> np.ndarray:
    """Validate and normalise an image to contiguous (h, w, 4): uint8, or float32 for high precision.

    8-bit images stay uint8. Floating-point images (HDR, EXR, 16-bit sources
    decoded to 0..1) become float32, values as they are (the renderer keeps
    them in a half-float texture); 16-bit integers are scaled to 0..1.
    """
    array = np.asarray(image)
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[2] not in (1, 3, 4) or array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(f"expected an RGBA image of shape (h, w, 4), got {array.shape}")
    if array.shape[2] == 1:
        array = np.repeat(array, 3, axis=2)
    if array.dtype == np.uint16:
        array = array.astype(np.float32) / 65535.0
    elif np.issubdtype(array.dtype, np.floating):
        array = array.astype(np.float32)
    elif array.dtype != np.uint8:
        array = np.clip(array, 0, 255).astype(np.uint8)
    if array.shape[2] == 3:
        opaque = 255 if array.dtype == np.uint8 else 1.0
        array = np.concatenate([array, np.full(array.shape[:2] + (1,), opaque, array.dtype)], axis=2)
    return np.ascontiguousarray(array)


def srgb_to_linear(values: np.ndarray | float) -> np.ndarray:
    """sRGB-encoded components in [0, 1] to linear ones: the IEC 61966-2-1 decoding curve, elementwise."""
    encoded = np.asarray(values, dtype=np.float64)
    return np.where(encoded <= 0.04045, encoded / 12.92, ((encoded + 0.055) / 1.055) ** 2.4)
