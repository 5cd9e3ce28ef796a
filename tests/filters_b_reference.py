"""Independent numpy references for the warp, directional/non-uniform/slope blur and Tile Sampler filters.

Each function evaluates the published formula of its node (the node's
`notes`, docs/material-nodes.md) in binary64 from the node's input images,
with OpenGL's bilinear filtering (OpenGL 4.2 section 3.9.11: texel centres
at (i + 0.5) / size, repeat or clamp to edge). Nothing here is taken from the
product's code: the tests compare the product's passes, run on the CPU
interpreter (and on GL), with these.

Images are (height, width, 4) float arrays whose row 0 is v = 0 (as GL stores
a texture); `uv_grid` gives the texel-centre coordinates of an output of a
given size.
"""

from __future__ import annotations

import math

import numpy as np

#: Rec. 709 luminance weights (the product's colour-to-float conversion).
LUMINANCE = np.array([0.2126, 0.7152, 0.0722])
#: Distances given as "intensity" are in 1/256 of the texture (pixels of a 256 x 256 buffer).
UNIT = 1.0 / 256.0
GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))


def uv_grid(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Texel-centre coordinates (u, v) of a width x height output, each (height, width), row 0 at v = 0."""
    u = (np.arange(width) + 0.5) / width
    v = (np.arange(height) + 0.5) / height
    return np.meshgrid(u, v)


def sample(image: np.ndarray, u: np.ndarray, v: np.ndarray, tile: bool = True) -> np.ndarray:
    """Bilinear lookup (GL LINEAR, level 0) at (u, v); repeat when `tile`, else clamp to edge. Shape u.shape + (4,)."""
    height, width = image.shape[:2]
    x, y = np.asarray(u, dtype=np.float64) * width, np.asarray(v, dtype=np.float64) * height
    if not tile:
        x, y = np.clip(x, 0.0, float(width)), np.clip(y, 0.0, float(height))
    x0, y0 = np.floor(x - 0.5), np.floor(y - 0.5)
    alpha, beta = (x - 0.5 - x0)[..., None], (y - 0.5 - y0)[..., None]

    def wrap(index: np.ndarray, size: int) -> np.ndarray:
        index = index.astype(np.int64)
        return np.asarray(np.mod(index, size) if tile else np.clip(index, 0, size - 1))

    i0, i1 = wrap(x0, width), wrap(x0 + 1, width)
    j0, j1 = wrap(y0, height), wrap(y0 + 1, height)
    texels = np.asarray(image, dtype=np.float64)
    return np.asarray((1 - alpha) * (1 - beta) * texels[j0, i0] + alpha * (1 - beta) * texels[j0, i1]
            + (1 - alpha) * beta * texels[j1, i0] + alpha * beta * texels[j1, i1], dtype=np.float64)


def luminance(rgba: np.ndarray) -> np.ndarray:
    return np.asarray(rgba[..., :3] @ LUMINANCE)


def gradient(height_map: np.ndarray, u: np.ndarray, v: np.ndarray, tile: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Central differences of the map's luminance one texel either side, in height per UV unit."""
    rows, columns = height_map.shape[:2]
    du, dv = 1.0 / columns, 1.0 / rows
    gu = (luminance(sample(height_map, u + du, v, tile)) - luminance(sample(height_map, u - du, v, tile))) / (2 * du)
    gv = (luminance(sample(height_map, u, v + dv, tile)) - luminance(sample(height_map, u, v - dv, tile))) / (2 * dv)
    return gu, gv


def directional_blur(image: np.ndarray, angle_degrees: float, intensity: float, samples: int,
                     size: tuple[int, int] | None = None, tile: bool = True) -> np.ndarray:
    """Taps t_k = -1 + 2k/(n-1) along d = (cos a, sin a) * intensity / 256, weights exp(-2 t_k^2), normalised."""
    height, width = size if size is not None else image.shape[:2]
    u, v = uv_grid(width, height)
    angle = math.radians(angle_degrees)
    du, dv = math.cos(angle) * intensity * UNIT, math.sin(angle) * intensity * UNIT
    total = np.zeros((height, width, 4))
    weights = 0.0
    for k in range(samples):
        t = -1.0 + 2.0 * k / (samples - 1)
        weight = math.exp(-2.0 * t * t)
        total += weight * sample(image, u + t * du, v + t * dv, tile)
        weights += weight
    return np.asarray(total / weights)


def vogel_disc(samples: int) -> list[tuple[float, float, float]]:
    """(x, y, weight) of the non-uniform blur's taps: radius sqrt((k + 0.5) / n), angle k x golden angle,
    weight exp(-2 r^2)."""
    taps = []
    for k in range(samples):
        radius = math.sqrt((k + 0.5) / samples)
        angle = k * GOLDEN_ANGLE
        taps.append((radius * math.cos(angle), radius * math.sin(angle), math.exp(-2.0 * radius * radius)))
    return taps


def non_uniform_blur(image: np.ndarray, blur_map: np.ndarray, intensity: float, samples: int,
                     tile: bool = True) -> np.ndarray:
    """The Vogel-disc taps scaled by r = intensity / 256 x luminance(blur map), weighted average."""
    height, width = image.shape[:2]
    u, v = uv_grid(width, height)
    radius = intensity * UNIT * luminance(sample(blur_map, u, v, tile))
    total = np.zeros((height, width, 4))
    weights = 0.0
    for x, y, weight in vogel_disc(samples):
        total += weight * sample(image, u + radius * x, v + radius * y, tile)
        weights += weight
    return total / weights


def slope_blur(image: np.ndarray, slope: np.ndarray, intensity: float, samples: int, mode: str = "blur",
               tile: bool = True) -> np.ndarray:
    """Walk p_{k+1} = p_k - intensity / 256 / n x gradient(slope, p_k) from p_0 = uv; the source's samples at
    p_0..p_{n-1} averaged (blur), or their minimum / maximum."""
    height, width = image.shape[:2]
    u, v = uv_grid(width, height)
    step = intensity * UNIT / samples
    result: np.ndarray | None = None
    for _ in range(samples):
        value = sample(image, u, v, tile)
        if result is None:
            result = value
        elif mode == "blur":
            result = result + value
        elif mode == "min":
            result = np.minimum(result, value)
        else:
            result = np.maximum(result, value)
        gu, gv = gradient(slope, u, v, tile)
        u, v = u - step * gu, v - step * gv
    assert result is not None
    return np.asarray(result / samples if mode == "blur" else result)


def directional_warp(image: np.ndarray, intensity_map: np.ndarray, angle_degrees: float, intensity: float,
                     tile: bool = True) -> np.ndarray:
    """source(uv + (cos a, sin a) x intensity / 256 x luminance(intensity map at uv))."""
    height, width = image.shape[:2]
    u, v = uv_grid(width, height)
    amount = intensity * UNIT * luminance(sample(intensity_map, u, v, tile))
    angle = math.radians(angle_degrees)
    return sample(image, u + amount * math.cos(angle), v + amount * math.sin(angle), tile)


def warp(image: np.ndarray, gradient_map: np.ndarray, intensity: float, tile: bool = True) -> np.ndarray:
    """source(uv + intensity / 256 x gradient(gradient map, uv))."""
    height, width = image.shape[:2]
    u, v = uv_grid(width, height)
    gu, gv = gradient(gradient_map, u, v, tile)
    return sample(image, u + intensity * UNIT * gu, v + intensity * UNIT * gv, tile)


# Tile Sampler -------------------------------------------------------------------------------------


def permute(x: np.ndarray) -> np.ndarray:
    """((34 x + 1) x) mod 289 on integer values (exact in binary64 for x < 578)."""
    x = np.asarray(x, dtype=np.float64)
    return np.asarray(np.mod((34.0 * x + 1.0) * x, 289.0))


def tile_hash(cx: np.ndarray, cy: np.ndarray, seed: int) -> np.ndarray:
    """h = permute(permute(permute(cx) + cy) + seed) of a cell already wrapped to [0, X) x [0, Y)."""
    return permute(permute(permute(np.mod(cx, 289.0)) + np.mod(cy, 289.0)) + seed)


def tile_sampler(width: int, height: int, *, x_amount: int, y_amount: int, shape: str, size: float,
                 scale_random: float, rotation: float, rotation_random: float, position_random: float,
                 luminance_random: float, seed: int, image: np.ndarray | None = None,
                 image_tile: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Tile Sampler's (pattern, colour, grey) outputs, each (height, width, 4), by the formula in its notes.

    For each of the 3 x 3 cells around the pixel's (n = floor(uv * (X, Y)) + (di, dj), dj outer, di inner):
    h = tile_hash(n mod (X, Y)), r_k = permute(h + k) / 288; centre (n + 0.5 + position_random x
    (r_6 - 0.5, r_7 - 0.5)) in cell units; local q = (X, Y) * R(-theta) (uv - centre / (X, Y)) / s (the
    offset rotated in UV space, so a shape in a non-square cell turns without shearing), with
    theta = rotation + 360 x rotation_random x r_5 degrees and s = clamp(size, 0, 1) x (1 - scale_random x r_1);
    shape distance (square: max|q| - 0.5, disc: |q| - 0.5, brick: max(|qx| - 0.5, |qy| - 0.25),
    image: the square's) x s; coverage clamp(0.5 - d / (max(X, Y) x texel width), 0, 1); value = coverage x
    (1 - luminance_random x r_8) (x the image's luminance at clamp(q + 0.5, 0, 1), for the image shape).
    The neighbour with the largest value (first one on ties) wins: pattern = its value, colour = its
    random colour permute(h + (2, 3, 4)) / 288 x its coverage, grey = r_9 x its coverage.
    """
    u, v = uv_grid(width, height)
    counts = np.array([x_amount, y_amount], dtype=np.float64)
    px, py = u * x_amount, v * y_amount
    home_x, home_y = np.floor(px), np.floor(py)
    best_value = np.full(u.shape, -1.0)
    best_color = np.zeros(u.shape + (3,))
    best_grey = np.zeros(u.shape)
    texel = 1.0 / width
    for dj in (-1, 0, 1):
        for di in (-1, 0, 1):
            nx, ny = home_x + di, home_y + dj
            cx = nx - counts[0] * np.floor((nx + 0.5) / counts[0])
            cy = ny - counts[1] * np.floor((ny + 0.5) / counts[1])
            h = tile_hash(cx, cy, seed)

            def random(k: int, h: np.ndarray = h) -> np.ndarray:
                return np.asarray(permute(h + k) / 288.0)

            scale = min(max(size, 0.0), 1.0) * (1.0 - scale_random * random(1))
            theta = np.radians(rotation + 360.0 * rotation_random * random(5))
            centre_x = nx + 0.5 + position_random * (random(6) - 0.5)
            centre_y = ny + 0.5 + position_random * (random(7) - 0.5)
            dx, dy = (px - centre_x) / x_amount, (py - centre_y) / y_amount
            cos, sin = np.cos(theta), np.sin(theta)
            qx = (cos * dx + sin * dy) * x_amount / scale
            qy = (-sin * dx + cos * dy) * y_amount / scale
            if shape == "disc":
                distance = np.hypot(qx, qy) - 0.5
            elif shape == "brick":
                distance = np.maximum(np.abs(qx) - 0.5, np.abs(qy) - 0.25)
            else:
                distance = np.maximum(np.abs(qx), np.abs(qy)) - 0.5
            coverage = np.clip(0.5 - distance * scale / (max(x_amount, y_amount) * texel), 0.0, 1.0)
            value = coverage * (1.0 - luminance_random * random(8))
            if shape == "image":
                assert image is not None
                value = value * luminance(sample(image, np.clip(qx + 0.5, 0.0, 1.0), np.clip(qy + 0.5, 0.0, 1.0), image_tile))
            color = np.stack([permute(h + k) / 288.0 for k in (2, 3, 4)], axis=-1) * coverage[..., None]
            wins = value > best_value
            best_value = np.where(wins, value, best_value)
            best_color = np.where(wins[..., None], color, best_color)
            best_grey = np.where(wins, random(9) * coverage, best_grey)
    ones = np.ones(u.shape + (1,))
    pattern = np.concatenate([np.repeat(best_value[..., None], 3, axis=-1), ones], axis=-1)
    grey = np.concatenate([np.repeat(best_grey[..., None], 3, axis=-1), ones], axis=-1)
    return pattern, np.concatenate([best_color, ones], axis=-1), grey


def seam_jump(image: np.ndarray) -> float:
    """The largest step across the wrap-around borders relative to the largest step inside the image:
    about 1 or less for an image that tiles seamlessly."""
    across_x = np.abs(image[:, 0] - image[:, -1]).max()
    across_y = np.abs(image[0] - image[-1]).max()
    inside = max(np.abs(np.diff(image, axis=0)).max(), np.abs(np.diff(image, axis=1)).max(), 1e-9)
    return float(max(across_x, across_y) / inside)
