"""Independent numpy references for the Flood Fill, Distance and Bevel filters.

Nothing here shares code or method with the filters themselves (which run
as GPU-style passes): regions are labelled by a union-find over 4-connected
white pixels, distances are brute force over every seed pixel, and the bevel
applies its published formula to those exact distances.

Conventions (the same as docs/material-nodes.md states for the nodes):
images are (rows, columns) arrays indexed [y, x], one texel per pixel; a
pixel is white when its value is >= 0.5; distances are between pixel
centres, in texels; with `wrap` the image is a torus (the texture tiles).
"""

from __future__ import annotations

import numpy as np

WHITE_THRESHOLD = 0.5


def white(mask: np.ndarray) -> np.ndarray:
    return np.asarray(mask) >= WHITE_THRESHOLD


def label_regions(mask: np.ndarray, wrap: bool = True) -> np.ndarray:
    """Connected regions of white pixels (4-connected; across the borders when `wrap`).

    Returns int labels 0..count-1 for white pixels and -1 for black ones.
    """
    inside = white(mask)
    height, width = inside.shape
    parent = np.arange(height * width)

    def find(item: int) -> int:
        root = item
        while parent[root] != root:
            root = int(parent[root])
        while parent[item] != root:
            parent[item], item = root, int(parent[item])
        return root

    def union(a: int, b: int) -> None:
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)

    for y in range(height):
        for x in range(width):
            if not inside[y, x]:
                continue
            neighbours = []
            if x + 1 < width or wrap:
                neighbours.append((y, (x + 1) % width))
            if y + 1 < height or wrap:
                neighbours.append(((y + 1) % height, x))
            for ny, nx in neighbours:
                if inside[ny, nx]:
                    union(y * width + x, ny * width + nx)
    labels = np.full((height, width), -1, dtype=np.int64)
    roots: dict[int, int] = {}
    for y in range(height):
        for x in range(width):
            if inside[y, x]:
                labels[y, x] = roots.setdefault(find(y * width + x), len(roots))
    return labels


def exact_distance(seeds: np.ndarray, wrap: bool = True, no_seed: float = np.inf) -> np.ndarray:
    """Euclidean distance in texels from every pixel centre to the nearest seed pixel centre (brute force).

    `seeds` is a boolean image; with `wrap` the nearest copy of each seed on
    the torus counts. Pixels of an image without seeds get `no_seed`.
    """
    seeds = np.asarray(seeds, dtype=bool)
    height, width = seeds.shape
    result = np.full((height, width), no_seed, dtype=np.float64)
    sy, sx = np.nonzero(seeds)
    if sy.size == 0:
        return result
    ys, xs = np.mgrid[0:height, 0:width]
    flat_y, flat_x = ys.ravel().astype(np.float64), xs.ravel().astype(np.float64)
    best = np.full(flat_y.shape, np.inf)
    for start in range(0, sy.size, 512):
        dy = np.abs(flat_y[:, None] - sy[None, start:start + 512])
        dx = np.abs(flat_x[:, None] - sx[None, start:start + 512])
        if wrap:
            dy = np.minimum(dy, height - dy)
            dx = np.minimum(dx, width - dx)
        best = np.minimum(best, np.sqrt(dx * dx + dy * dy).min(axis=1))
    result[:] = best.reshape(height, width)
    return result


def distance_falloff(mask: np.ndarray, max_distance_texels: float, wrap: bool = True) -> np.ndarray:
    """The Distance node's value: 1 on white pixels, falling linearly to 0 at `max_distance_texels`."""
    distance = exact_distance(white(mask), wrap, no_seed=np.inf)
    return np.clip(1.0 - distance / max_distance_texels, 0.0, 1.0)


def bevel(mask: np.ndarray, width_texels: float, smoothness: float, corner: str, wrap: bool = True) -> np.ndarray:
    """The Bevel node's height from exact distances.

    d = distance from a white pixel to the nearest black pixel minus half a
    texel (the edge lies between the two centres). Angular corners:
    t = clamp(d / width, 0, 1). Round corners: the core is where d >= width;
    t = clamp(1 - e / width, 0, 1) with e the distance to the nearest core
    pixel (a shape thinner than twice the width has no core and stays 0).
    The height is mix(t, smoothstep(0, 1, t), smoothness) on white pixels and
    0 on black ones.
    """
    inside = white(mask)
    to_black = exact_distance(~inside, wrap, no_seed=np.inf) - 0.5
    if corner == "angular":
        t = np.clip(to_black / width_texels, 0.0, 1.0)
    else:
        core = inside & (to_black >= width_texels)
        t = np.clip(1.0 - exact_distance(core, wrap, no_seed=np.inf) / width_texels, 0.0, 1.0)
    t = np.where(inside, t, 0.0)
    smooth = t * t * (3.0 - 2.0 * t)
    return np.where(inside, t + (smooth - t) * smoothness, 0.0)
