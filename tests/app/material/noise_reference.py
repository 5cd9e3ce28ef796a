"""Numpy references of the noise nodes, written from the published formulas (not from the lowering).

- Hash: Gustavson and McEwan's permutation polynomial (webgl-noise):
  permute(x) = ((34 x + 1) x) mod 289 on integers, here in exact int64
  arithmetic; hash2(i, j) = permute(permute(i mod 289) + j mod 289),
  hash3 one more round with k.
- Value noise: corner hashes / 288 blended with Hermite weights 3t^2 - 2t^3.
- Gradient (Perlin) noise: Perlin, "Improving noise" (2002): quintic fade,
  dot products of corner gradients with the offsets; gradients are unit
  vectors at angle 2 pi h / 289 (2D), or z = 2h/288 - 1 and angle
  2 pi permute(h + 1) / 289 (3D).
- Simplex noise: Gustavson, "Simplex noise demystified" (2005): skew
  (sqrt(3) - 1) / 2 and unskew (3 - sqrt(3)) / 6 in 2D, 1/3 and 1/6 in 3D,
  radial falloff (r^2 - d^2)^4 with r^2 = 0.5 (2D) and 0.6 (3D), scaled by
  70 and 32.
- Voronoi (Worley, "A cellular texture basis function", 1996): one feature
  point per cell at the cell centre + jitter * (permute(h + k) / 289 - 0.5),
  nearest (F1) and second nearest (F2) over the 3x3 (3x3x3) cells around p.

Points are float64 arrays of shape (..., d); lattice cells come from
floor() of the float32 point, as on the GPU.
"""

from __future__ import annotations

import numpy as np

SQRT2 = np.sqrt(2.0)


def permute(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    return ((34 * x + 1) * x) % 289


def hash_cells(cells: np.ndarray) -> np.ndarray:
    """hash2 / hash3 of integer cells, shape (..., d) -> (...), integers in [0, 289)."""
    cells = np.asarray(cells, dtype=np.int64) % 289
    value = permute(cells[..., 0])
    for axis in range(1, cells.shape[-1]):
        value = permute(value + cells[..., axis])
    return value


def _cells(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    points32 = np.asarray(points, dtype=np.float32)
    cells = np.floor(points32)
    return cells.astype(np.int64), (points32 - cells).astype(np.float64)


def _corners(dimensions: int) -> list[tuple[int, ...]]:
    if dimensions == 2:
        return [(0, 0), (1, 0), (0, 1), (1, 1)]
    return [(x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)]


def _blend(values: list[np.ndarray], weights: np.ndarray) -> np.ndarray:
    level = values
    for axis in range(weights.shape[-1]):
        t = weights[..., axis]
        level = [level[i] + (level[i + 1] - level[i]) * t for i in range(0, len(level), 2)]
    return level[0]


def white_noise(points: np.ndarray) -> np.ndarray:
    cells, _ = _cells(points)
    return hash_cells(cells) / 288.0


def value_noise(points: np.ndarray) -> np.ndarray:
    cells, local = _cells(points)
    dimensions = cells.shape[-1]
    values = [hash_cells(cells + np.array(corner)) / 288.0 for corner in _corners(dimensions)]
    return _blend(values, local * local * (3.0 - 2.0 * local))


def gradients(hashed: np.ndarray, dimensions: int) -> np.ndarray:
    if dimensions == 2:
        angle = hashed * (2.0 * np.pi / 289.0)
        return np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    z = hashed * (2.0 / 288.0) - 1.0
    angle = permute(hashed + 1) * (2.0 * np.pi / 289.0)
    radius = np.sqrt(np.maximum(1.0 - z * z, 0.0))
    return np.stack([radius * np.cos(angle), radius * np.sin(angle), z], axis=-1)


def gradient_noise(points: np.ndarray) -> np.ndarray:
    """Signed, about [-1, 1]."""
    cells, local = _cells(points)
    dimensions = cells.shape[-1]
    values = []
    for corner in _corners(dimensions):
        offset = local - np.array(corner, dtype=np.float64)
        values.append(np.sum(gradients(hash_cells(cells + np.array(corner)), dimensions) * offset, axis=-1))
    fade = local * local * local * (local * (local * 6.0 - 15.0) + 10.0)
    scale = SQRT2 if dimensions == 2 else 1.0 / 0.8660254
    return _blend(values, fade) * scale


def simplex_noise(points: np.ndarray) -> np.ndarray:
    """Signed, about [-1, 1]."""
    points = np.asarray(points, dtype=np.float64)
    dimensions = points.shape[-1]
    if dimensions == 2:
        skew, unskew, radius, scale = 0.5 * (np.sqrt(3.0) - 1.0), (3.0 - np.sqrt(3.0)) / 6.0, 0.5, 70.0
    else:
        skew, unskew, radius, scale = 1.0 / 3.0, 1.0 / 6.0, 0.6, 32.0
    cells = np.floor(points + points.sum(axis=-1, keepdims=True) * skew)
    first = points - cells + cells.sum(axis=-1, keepdims=True) * unskew
    # The simplex containing the point: walk the axes in decreasing order of the offset.
    order = np.argsort(-first, axis=-1, kind="stable")
    steps = [np.zeros_like(first)]
    for k in range(dimensions):
        step = steps[-1].copy()
        np.put_along_axis(step, order[..., k : k + 1], 1.0, axis=-1)
        steps.append(step)
    total = np.zeros(points.shape[:-1])
    for k, step in enumerate(steps):
        offset = first - step + k * unskew
        falloff = np.maximum(radius - np.sum(offset * offset, axis=-1), 0.0)
        direction = gradients(hash_cells((cells + step).astype(np.int64)), dimensions)
        total += falloff**4 * np.sum(direction * offset, axis=-1)
    return total * scale


def voronoi(points: np.ndarray, jitter: float = 1.0, metric: str = "euclidean") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(F1, F2, hash of the nearest cell)."""
    cells, local = _cells(points)
    dimensions = cells.shape[-1]
    nearest = np.full(cells.shape[:-1], 8.0)
    second = np.full(cells.shape[:-1], 8.0)
    nearest_hash = np.zeros(cells.shape[:-1], dtype=np.int64)
    ranges = [(-1, 0, 1)] * dimensions
    offsets = [tuple(o) for o in np.array(np.meshgrid(*ranges, indexing="ij")).reshape(dimensions, -1).T]
    # Search order: x fastest, then y, then z (ties go to the first found).
    offsets.sort(key=lambda o: tuple(reversed(o)))
    for offset in offsets:
        hashed = hash_cells(cells + np.array(offset))
        random = np.stack([permute(hashed + k) / 289.0 for k in range(dimensions)], axis=-1)
        feature = np.array(offset, dtype=np.float64) + 0.5 + jitter * (random - 0.5)
        delta = feature - local
        if metric == "manhattan":
            distance = np.abs(delta).sum(axis=-1)
        elif metric == "chebyshev":
            distance = np.abs(delta).max(axis=-1)
        else:
            distance = np.sqrt((delta * delta).sum(axis=-1))
        closer = distance < nearest
        second = np.minimum(second, np.maximum(nearest, distance))
        nearest_hash = np.where(closer, hashed, nearest_hash)
        nearest = np.minimum(nearest, distance)
    return nearest, second, nearest_hash


def cell_color(hashed: np.ndarray) -> np.ndarray:
    return np.stack([permute(hashed + k) / 288.0 for k in (2, 3, 4)], axis=-1)


def fractal(points: np.ndarray, basis, mode: str, octaves: int, lacunarity: float = 2.0, gain: float = 0.5) -> np.ndarray:
    """fBm (0.5 + 0.5 n), turbulence (|n|) or ridged ((1 - |n|)^2) sums of a signed basis, normalised."""
    total = np.zeros(np.asarray(points).shape[:-1])
    amplitude, amplitude_sum, frequency = 0.5, 0.0, 1.0
    for _ in range(octaves):
        signed = basis(np.asarray(points, dtype=np.float32) * np.float32(frequency))
        if mode == "turbulence":
            layer = np.abs(signed)
        elif mode == "ridged":
            layer = (1.0 - np.abs(signed)) ** 2
        else:
            layer = 0.5 + 0.5 * signed
        total += layer * amplitude
        amplitude_sum += amplitude
        frequency *= lacunarity
        amplitude *= gain
    return total / max(amplitude_sum, 1e-6)
