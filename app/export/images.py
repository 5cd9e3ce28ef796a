"""Image work of the baker: supersample reduction, dilation across UV seams, and image files.

Conventions: images are float32 (height, width, channels), **top row first**
(the first row is v = 1, as an image file is stored and as the renderer's
textures read it: v = 0 is the bottom row); coverage is float32 (height,
width) in [0, 1], the fraction of a texel's samples that fell on the mesh.

- `reduce_supersampled`: a block of s × s samples becomes one texel, the
  average of the *covered* samples (so the empty UV space around an island
  never darkens its edge); coverage is the covered fraction.
- `dilate`: texels outside the UV islands take values from inside, so
  bilinear filtering and mip-mapping across a seam read the island's
  colour, not the background: first `padding` rings grown outwards, each
  texel the mean of its already-filled 8-neighbours (the classic bake
  "margin"), then everything left filled by OpenImageIO's push-pull
  (`ImageBufAlgo.fillholes_pushpull`), so coarse mip levels stay plausible.
  Covered texels are never changed. Work is proportional to the band
  grown, not to the image (only frontier texels are visited).
- Files through OpenImageIO: 8-bit PNG with an sRGB chunk for colour, 8- or
  16-bit PNG with no colour chunk for data (normals, ORM, opacity), and
  half-float OpenEXR for HDR (emission).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

#: 8-neighbourhood offsets (dy, dx).
_NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


class ImageWriteError(OSError):
    """An image file could not be written; the message names the file and the reason."""


def reduce_supersampled(samples: np.ndarray, covered: np.ndarray, factor: int) -> tuple[np.ndarray, np.ndarray]:
    """(values, coverage) of `factor` × `factor` blocks: the mean of covered samples, the covered fraction.

    `samples` is (H·f, W·f, C), `covered` (H·f, W·f) of 0/1 (or weights).
    Texels without a covered sample get 0.
    """
    if factor == 1:
        weights = covered.astype(np.float32)
        return samples * weights[..., None], weights
    height, width = covered.shape[0] // factor, covered.shape[1] // factor
    channels = samples.shape[2]
    weights = covered.astype(np.float32).reshape(height, factor, width, factor)
    weighted = (samples.reshape(height, factor, width, factor, channels) * weights[..., None]).sum(axis=(1, 3))
    total = weights.sum(axis=(1, 3))
    values = np.divide(weighted, total[..., None], out=np.zeros_like(weighted), where=total[..., None] > 0)
    return values.astype(np.float32), (total / float(factor * factor)).astype(np.float32)


def _initial_frontier(filled: np.ndarray) -> np.ndarray:
    """Linear indices of unfilled texels with a filled 8-neighbour."""
    padded = np.pad(filled, 1)
    height, width = filled.shape
    near = np.zeros_like(filled)
    for dy, dx in _NEIGHBOURS:
        near |= padded[1 + dy: 1 + dy + height, 1 + dx: 1 + dx + width]
    return np.flatnonzero(near & ~filled)


def dilate(values: np.ndarray, coverage: np.ndarray, padding: int, fill_rest: bool = True) -> np.ndarray:
    """`values` with the texels outside the islands filled (see the module docstring); a new array.

    A texel counts as inside when its coverage is above 0. `padding` rings are
    grown by neighbour averaging; with `fill_rest` the remaining texels are
    filled by push-pull.
    """
    result = np.array(values, dtype=np.float32, copy=True)
    height, width, channels = result.shape
    flat = result.reshape(-1, channels)
    filled = coverage > 0.0
    if not filled.any():
        return result
    filled_flat = filled.reshape(-1)
    frontier = _initial_frontier(filled)
    for _ in range(max(int(padding), 0)):
        if frontier.size == 0:
            break
        rows, columns = np.divmod(frontier, width)
        total = np.zeros((frontier.size, channels), dtype=np.float32)
        count = np.zeros(frontier.size, dtype=np.float32)
        candidates = []
        for dy, dx in _NEIGHBOURS:
            r, c = rows + dy, columns + dx
            inside = (r >= 0) & (r < height) & (c >= 0) & (c < width)
            index = np.where(inside, r * width + c, 0)
            use = inside & filled_flat[index]
            total[use] += flat[index[use]]
            count[use] += 1.0
            candidates.append(index[inside & ~filled_flat[index]])
        flat[frontier] = total / np.maximum(count, 1.0)[:, None]
        filled_flat[frontier] = True
        following = np.unique(np.concatenate(candidates))
        frontier = following[~filled_flat[following]]
    if fill_rest and not filled_flat.all():
        result = _push_pull(result, filled)
    return result


def _push_pull(values: np.ndarray, filled: np.ndarray) -> np.ndarray:
    import OpenImageIO as oiio  # noqa: N813 - the library's own documented alias

    height, width, channels = values.shape
    spec = oiio.ImageSpec(width, height, channels + 1, oiio.FLOAT)
    spec.channelnames = tuple(f"c{index}" for index in range(channels)) + ("A",)
    spec.alpha_channel = channels
    source = oiio.ImageBuf(spec)
    source.set_pixels(oiio.ROI(), np.concatenate([values, filled[..., None].astype(np.float32)], axis=2))
    result = oiio.ImageBufAlgo.fillholes_pushpull(source)
    if result.has_error:
        raise RuntimeError(f"push-pull fill failed: {result.geterror()}")
    filled_values = np.asarray(result.get_pixels(oiio.FLOAT), dtype=np.float32)[:, :, :channels]
    # Texels inside (and the grown rings) stay exactly as they were.
    return np.where(filled[..., None], values, filled_values).astype(np.float32)


# Encodings ------------------------------------------------------------------------------------


def encode_srgb(linear: np.ndarray) -> np.ndarray:
    """IEC 61966-2-1 encoding of linear values (clamped to [0, 1])."""
    c = np.clip(np.asarray(linear, dtype=np.float64), 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1.0 / 2.4) - 0.055)


def decode_srgb(encoded: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(encoded, dtype=np.float64), 0.0, 1.0)
    return np.where(c <= 0.04045, c / 12.92, np.power((c + 0.055) / 1.055, 2.4))


def quantize(values: np.ndarray, bits: int = 8) -> np.ndarray:
    """[0, 1] floats to unsigned integers of `bits` (8 or 16), rounded to nearest."""
    top = (1 << bits) - 1
    scaled = np.rint(np.clip(np.asarray(values, dtype=np.float64), 0.0, 1.0) * top)
    return scaled.astype(np.uint8 if bits == 8 else np.uint16)


# Files ----------------------------------------------------------------------------------------


def write_image(path: str | os.PathLike[str], pixels: np.ndarray, color_space: str) -> Path:
    """Write `pixels` (H, W, C; uint8, uint16 or float32, top row first) to `path`.

    `color_space` is "srgb" (an sRGB PNG chunk), "data" (no colour chunk:
    normals, ORM, masks) or "linear" (scene-linear HDR, OpenEXR). The format
    follows the file's suffix (.png, .exr). Raises ImageWriteError.
    """
    import OpenImageIO as oiio  # noqa: N813 - the library's own documented alias

    target = Path(path)
    array = np.ascontiguousarray(pixels)
    if array.ndim == 2:
        array = array[..., None]
    height, width, channels = array.shape
    formats = {np.dtype(np.uint8): oiio.UINT8, np.dtype(np.uint16): oiio.UINT16, np.dtype(np.float32): oiio.FLOAT}
    base = formats.get(array.dtype)
    if base is None:
        raise ValueError(f"cannot write {array.dtype} pixels")
    spec = oiio.ImageSpec(width, height, channels, base)
    if channels == 2:
        spec.channelnames = ("Y", "A")
        spec.alpha_channel = 1
    buffer = oiio.ImageBuf(spec)
    buffer.set_pixels(oiio.ROI(), array)
    names = {"srgb": "sRGB", "data": "raw", "linear": "lin_rec709"}
    buffer.specmod().attribute("oiio:ColorSpace", names[color_space])
    if target.suffix.lower() == ".exr":
        buffer.specmod().attribute("compression", "zip")
        written = buffer.write(str(target), "half")
    else:
        written = buffer.write(str(target))
    if not written or buffer.has_error:
        raise ImageWriteError(f"{target}: cannot write the image ({buffer.geterror() or 'unknown error'})")
    return target
