"""Ambient occlusion of a preview mesh by its own geometry, per vertex: rays cast once in numpy, then cached.

The mesh is voxelised (points sampled densely on every triangle mark the
cells of a `GRID`-cell grid over its bounds); from each vertex, just off
the surface along its normal, `DIRECTIONS` rays spread evenly over the
sphere march through the grid up to `REACH` (scene units; the mesh has a
bounding radius of about 1). The occlusion is the cosine-weighted share of
the hemisphere around the normal whose ray reaches open space: 1 open, 0
closed. Works for any mesh (built-in or imported); meshes above
`MAX_VERTICES` get none (all 1) rather than a long wait.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict

import numpy as np

GRID = 64
DIRECTIONS = 32
REACH = 0.8
STEP = 1.0
START = 2.5
MAX_VERTICES = 400_000
CACHE_SIZE = 8

_cache: OrderedDict[str, np.ndarray] = OrderedDict()


def hemisphere_disc(count: int) -> np.ndarray:
    """`count` points spread evenly over the unit disc (a golden-angle spiral), (count, 2)."""
    index = np.arange(count, dtype=np.float64) + 0.5
    radius = np.sqrt(index / count)
    angle = index * math.pi * (3.0 - math.sqrt(5.0))
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)


def voxelize(positions: np.ndarray, indices: np.ndarray, origin: np.ndarray, cell: float, grid: int) -> np.ndarray:
    """A (grid, grid, grid) bool array: the cells the triangles pass through (points at most half a cell apart)."""
    occupied = np.zeros((grid, grid, grid), dtype=bool)
    corners = positions[indices.reshape(-1, 3)]  # (T, 3, 3)
    longest = np.max(np.linalg.norm(corners - np.roll(corners, 1, axis=1), axis=2), axis=1)
    steps = np.clip(np.ceil(longest / (0.5 * cell)), 1, 256).astype(int)
    for n in np.unique(steps):
        chosen = corners[steps == n]
        i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
        keep = (i + j) <= n
        a = (i[keep] / n)[None, :, None]
        b = (j[keep] / n)[None, :, None]
        points = chosen[:, None, 0] * (1.0 - a - b) + chosen[:, None, 1] * a + chosen[:, None, 2] * b
        cells = np.clip(np.floor((points.reshape(-1, 3) - origin) / cell).astype(int), 0, grid - 1)
        occupied[cells[:, 0], cells[:, 1], cells[:, 2]] = True
    return occupied


def dilate(occupied: np.ndarray) -> np.ndarray:
    """`occupied` grown by one cell along each axis (a one-cell shell becomes three cells thick)."""
    grown = occupied.copy()
    for axis in range(3):
        grown |= np.roll(occupied, 1, axis=axis) | np.roll(occupied, -1, axis=axis)
    return grown


def compute_vertex_occlusion(positions: np.ndarray, normals: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Per-vertex occlusion in [0, 1] (module docstring), float32 (N,)."""
    positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
    normals = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
    count = positions.shape[0]
    if count == 0 or count > MAX_VERTICES:
        return np.ones(count, dtype=np.float32)
    low, high = positions.min(axis=0), positions.max(axis=0)
    cell = float(np.max(high - low)) / (GRID - 4)
    origin = low - 2.0 * cell
    occupied = dilate(voxelize(positions, np.asarray(indices).reshape(-1), origin, cell, GRID)).ravel()
    unit_normals = normals / np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    # Distances along a ray, STEP cells apart: the walls are at least three cells thick after `dilate`, so a
    # ray cannot step over one.
    steps = (np.arange(1.0, REACH / (STEP * cell) + 1.0) * STEP).astype(np.float32)  # in cells
    # Vertices in the same cell with about the same normal (seams, poles, dense regions) are cast once.
    keys = np.round(np.hstack([positions / cell, unit_normals * 4.0])).astype(np.int64)
    _unique, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    normal = unit_normals[first]
    # Off the surface by more than the dilated shell, so a ray does not start inside its own surface.
    points = ((positions[first] + normal * (START * cell) - origin) / cell).astype(np.float32)
    # Cosine-weighted directions about each normal (Malley: an even disc lifted onto the hemisphere),
    # so the share of open rays is the cosine-weighted openness.
    disc = hemisphere_disc(DIRECTIONS)
    helper = np.where(np.abs(normal[:, :1]) > 0.9, np.array([[0.0, 1.0, 0.0]]), np.array([[1.0, 0.0, 0.0]]))
    tangent = np.cross(normal, helper)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    bitangent = np.cross(normal, tangent)
    lift = np.sqrt(np.maximum(1.0 - (disc ** 2).sum(axis=1), 0.0))
    result = np.ones(points.shape[0], dtype=np.float32)
    chunk = max(1, 3_000_000 // (DIRECTIONS * len(steps)))
    for start in range(0, points.shape[0], chunk):
        part = slice(start, start + chunk)
        directions = (tangent[part, None, :] * disc[None, :, :1] + bitangent[part, None, :] * disc[None, :, 1:]
                      + normal[part, None, :] * lift[None, :, None]).astype(np.float32)  # (C, D, 3)
        samples = points[part, None, None, :] + directions[:, :, None, :] * steps[None, None, :, None]
        cells = np.floor(samples).astype(np.int32)  # (C, D, S, 3)
        inside = ((cells >= 0) & (cells < GRID)).all(axis=3)
        np.clip(cells, 0, GRID - 1, out=cells)
        flat = (cells[..., 0] * GRID + cells[..., 1]) * GRID + cells[..., 2]
        blocked = (occupied[flat] & inside).any(axis=2)
        result[part] = 1.0 - blocked.mean(axis=1)
    return result[inverse.reshape(-1)]


def vertex_occlusion(positions: np.ndarray, normals: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """`compute_vertex_occlusion`, cached by the mesh's data (the last `CACHE_SIZE` meshes)."""
    digest = hashlib.blake2b(digest_size=16)
    for array in (positions, normals, indices):
        digest.update(np.ascontiguousarray(array).tobytes())
    key = digest.hexdigest()
    cached = _cache.get(key)
    if cached is not None:
        _cache.move_to_end(key)
        return cached
    occlusion = compute_vertex_occlusion(positions, normals, indices)
    _cache[key] = occlusion
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return occlusion
