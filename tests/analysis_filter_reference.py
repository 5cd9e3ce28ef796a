"""Independent numpy references for Curvature, Ambient Occlusion (from height), Edge Detect, Levels,
Histogram Scan and Histogram Range (app/material/nodes/texture_space_analysis.py and texture_space_adjustments.py).

Images are float arrays indexed [row, column, channel] with row 0 at v = 0 (the texture's bottom, as GL
stores it) and texel (column i, row j) centred at uv ((i + 0.5) / width, (j + 0.5) / height). A filter reads
its input at the texel's centre moved by an offset; `sample_at` does that with bilinear filtering and the
buffer's tiling: "tile" wraps around (the texture repeats), "clamp" repeats the edge texels (GL's clamp to
edge). Everything is binary64, straight from the formulas the node docs state, sharing no code with the
lowering.
"""

from __future__ import annotations

import math

import numpy as np

TILINGS = ("tile", "clamp")


def _indices(index: np.ndarray, size: int, tiling: str) -> np.ndarray:
    wrapped: np.ndarray = np.mod(index, size) if tiling == "tile" else np.clip(index, 0, size - 1)
    return wrapped


def sample_at(image: np.ndarray, dx: float, dy: float, tiling: str) -> np.ndarray:
    """`image` read at every texel centre moved by (dx, dy) texels, bilinearly filtered (GL_LINEAR)."""
    height, width = image.shape[:2]
    columns = np.arange(width, dtype=np.float64) + dx
    rows = np.arange(height, dtype=np.float64) + dy
    c0 = np.floor(columns)
    r0 = np.floor(rows)
    fc = (columns - c0)[None, :]
    fr = (rows - r0)[:, None]
    ca = _indices(c0.astype(np.int64), width, tiling)
    cb = _indices(c0.astype(np.int64) + 1, width, tiling)
    ra = _indices(r0.astype(np.int64), height, tiling)
    rb = _indices(r0.astype(np.int64) + 1, height, tiling)
    if image.ndim == 3:
        fc = fc[..., None]
        fr = fr[..., None]
    top = image[ra][:, ca] * (1.0 - fc) + image[ra][:, cb] * fc
    bottom = image[rb][:, ca] * (1.0 - fc) + image[rb][:, cb] * fc
    result: np.ndarray = top * (1.0 - fr) + bottom * fr
    return result


# Curvature -------------------------------------------------------------------------------------------------


def curvature(height: np.ndarray, intensity: float, radius: float, tiling: str) -> np.ndarray:
    """0.5 + intensity x (h − mean of h on a ring of 8 taps `radius` away), clamped to [0, 1].

    `radius` is in texture-width units (the ring's taps sit radius x size texels from the centre).

    Convex places (a ridge, a bump's top, an outer edge) are brighter than their ring, concave ones (a
    groove, a cavity, an inner corner) darker, flat or evenly sloped ones mid-grey.
    """
    rows, columns = height.shape
    ring = np.zeros_like(height)
    for k in range(8):
        angle = k * math.pi / 4.0
        ring += sample_at(height, radius * columns * math.cos(angle), radius * rows * math.sin(angle), tiling)
    return np.clip(0.5 + intensity * (height - ring / 8.0), 0.0, 1.0)


# Ambient occlusion from a height (horizon based) -----------------------------------------------------------


def ambient_occlusion(height: np.ndarray, radius: float, depth: float, intensity: float, directions: int,
                      steps: int, tiling: str) -> np.ndarray:
    """Horizon-based occlusion of a height field (heights in [0, 1] rise `depth` texture widths).

    S(x) = x / sqrt(1 + x²) is the sine of the elevation of a rise x per unit of run. Along each of
    `directions` directions d (angles 2 pi k / directions) the tangent's sine is S(depth x the central
    difference of h one texel either side along d, per texture width), and the height is read at `steps`
    distances t_s = radius x s / steps (texture-width units, s = 1..steps). A direction's occlusion is the
    largest (S(depth (h_s − h) / t_s) − tangent) x (1 − ((s − 1) / steps)²), never below 0 (a horizon
    counts above the tangent plane; far occluders fade). The result is 1 − intensity x (the mean over the
    directions), clamped to [0, 1]. (Square textures: a texel is 1 / columns along both axes.)
    """
    rows, columns = height.shape

    def sine(x: np.ndarray) -> np.ndarray:
        result: np.ndarray = x / np.sqrt(1.0 + x * x)
        return result

    total = np.zeros_like(height)
    for k in range(directions):
        angle = 2.0 * math.pi * k / directions
        dx, dy = math.cos(angle), math.sin(angle)
        ahead = sample_at(height, dx, dy, tiling)
        behind = sample_at(height, -dx, -dy, tiling)
        tangent = sine(depth * (ahead - behind) * columns / 2.0)
        horizon = np.zeros_like(height)
        for s in range(1, steps + 1):
            t = radius * s / steps
            tap = sample_at(height, dx * t * columns, dy * t * rows, tiling)
            weight = 1.0 - ((s - 1) / steps) ** 2
            horizon = np.maximum(horizon, (sine(depth * (tap - height) / t) - tangent) * weight)
        total += horizon
    return np.clip(1.0 - intensity * total / directions, 0.0, 1.0)


# Edge detect ------------------------------------------------------------------------------------------------

#: How far (texels, along each axis) Edge Detect looks for the other side of the outline.
EDGE_REACH = 16


def edge_distance(mask: np.ndarray, threshold: float, tiling: str, reach: int = EDGE_REACH) -> np.ndarray:
    """Per texel: the distance (texels, Euclidean) to the nearest texel on the other side of the mask's
    outline (`mask` >= threshold is inside), looking at most `reach` texels along each axis; inf if none.

    Brute force over the whole (2 reach + 1)² window, so the two-pass (separable) lowering is checked
    against the definition itself.
    """
    rows, columns = mask.shape
    inside = mask >= threshold
    best = np.full(mask.shape, np.inf)
    row_index = np.arange(rows)
    column_index = np.arange(columns)
    for dy in range(-reach, reach + 1):
        shifted_rows = _indices(row_index + dy, rows, tiling)
        for dx in range(-reach, reach + 1):
            shifted_columns = _indices(column_index + dx, columns, tiling)
            other = inside[shifted_rows][:, shifted_columns]
            differs = other != inside
            best = np.where(differs, np.minimum(best, math.hypot(dx, dy)), best)
    return best


def edge_detect(mask: np.ndarray, threshold: float, width: float, softness: float, tiling: str) -> np.ndarray:
    """1 on the mask's outline fading to 0 `width` texels from it (on both sides).

    The outline lies halfway between a texel and its nearest texel on the other side, so a texel is
    b = distance − 0.5 from it; the result is clamp((width − b) / max(softness x width, 1e-3), 0, 1).
    """
    boundary = edge_distance(mask, threshold, tiling) - 0.5
    ramp = max(softness * width, 1e-3)
    return np.clip((width - boundary) / ramp, 0.0, 1.0)


# Levels and the histogram adjustments ----------------------------------------------------------------------


def levels(value: np.ndarray, in_black: float, in_white: float, gamma: float, out_black: float,
           out_white: float) -> np.ndarray:
    """t = clamp((v − in_black) / max(in_white − in_black, 1e-5), 0, 1); out_black + t^(1/gamma) (out_white − out_black)."""
    t = np.clip((value - in_black) / max(in_white - in_black, 1e-5), 0.0, 1.0)
    return out_black + np.power(t, 1.0 / gamma) * (out_white - out_black)


def histogram_scan(value: np.ndarray, position: float, contrast: float) -> np.ndarray:
    """Substance's Histogram Scan: levels with an input window of width w = 1 − contrast sliding from
    [1, 1 + w] (position 0: all black) through [0, 1] (position 0.5, contrast 0: unchanged) to [−w, 0]
    (position 1: all white). Contrast 1 is a hard threshold at 1 − position."""
    w = max(1.0 - contrast, 1e-5)
    low = (1.0 - position) * (1.0 + w) - w
    return np.clip((value - low) / w, 0.0, 1.0)


def histogram_range(value: np.ndarray, range_: float, position: float) -> np.ndarray:
    """Substance's Histogram Range: [0, 1] squeezed to a window `range` wide that slides from [0, range]
    (position 0) to [1 − range, 1] (position 1): position (1 − range) + v range."""
    return position * (1.0 - range_) + value * range_


# Test inputs ------------------------------------------------------------------------------------------------


def tileable_height(size: int, seed: int = 7) -> np.ndarray:
    """A smooth height in [0, 1] that tiles (a sum of integer-frequency waves) with a few bumps and pits."""
    rng = np.random.default_rng(seed)
    v, u = np.meshgrid((np.arange(size) + 0.5) / size, (np.arange(size) + 0.5) / size, indexing="ij")
    field = np.zeros((size, size))
    for _ in range(6):
        fu, fv = rng.integers(1, 5, size=2)
        phase = rng.uniform(0.0, 2.0 * math.pi)
        field += rng.uniform(0.3, 1.0) * np.sin(2.0 * math.pi * (fu * u + fv * v) + phase)
    field -= field.min()
    result: np.ndarray = field / field.max()
    return result


def tileable_mask(size: int) -> np.ndarray:
    """A hard-edged mask in {0, 1} whose shapes cross the texture's borders (so wrap-around matters)."""
    v, u = np.meshgrid((np.arange(size) + 0.5) / size, (np.arange(size) + 0.5) / size, indexing="ij")
    # A disc centred on the corner (it shows as four quarter discs) and a bar across the left/right border.
    du = np.minimum(u, 1.0 - u)
    dv = np.minimum(v, 1.0 - v)
    disc = du * du + dv * dv < 0.2 ** 2
    across = np.abs(u - 0.98)
    bar = (np.minimum(across, 1.0 - across) < 0.07) & (np.abs(v - 0.55) < 0.12)
    ring = np.abs(np.hypot(u - 0.55, v - 0.45) - 0.18) < 0.04
    mask: np.ndarray = (disc | bar | ring).astype(np.float64)
    return mask
