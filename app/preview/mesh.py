"""Preview meshes as numpy arrays, in the layout of the host contract.

Each mesh has per-vertex `positions` (N x 3), `normals` (N x 3, unit
length), `texcoords` (N x 2) as float32 and triangle `indices` (M x 3,
uint32), counter-clockwise when seen from outside. They feed the vertex
inputs at locations 0, 1 and 2 (app/material/scene.py). All meshes are centred
on the origin with an extent of about one unit, so one default camera frames
them all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MESH_NAMES = ("sphere", "cube", "plane")


@dataclass(frozen=True)
class Mesh:
    name: str
    positions: np.ndarray
    normals: np.ndarray
    texcoords: np.ndarray
    indices: np.ndarray

    @property
    def vertex_count(self) -> int:
        return int(self.positions.shape[0])

    @property
    def triangle_count(self) -> int:
        return int(self.indices.shape[0])

    def interleaved(self) -> np.ndarray:
        """position, normal, texcoord per vertex: 8 float32s (32 bytes)."""
        return np.ascontiguousarray(np.hstack([self.positions, self.normals, self.texcoords]), dtype=np.float32)


def uv_sphere(radius: float = 1.0, segments: int = 64, rings: int = 32) -> Mesh:
    """A latitude/longitude sphere; u runs around (seam duplicated, at -z), v from the south pole up."""
    ring = np.linspace(0.0, 1.0, rings + 1)
    around = np.linspace(0.0, 1.0, segments + 1)
    v, u = np.meshgrid(ring, around, indexing="ij")
    polar = (1.0 - v) * np.pi  # 0 at the north pole
    # u = 0.5 faces +z (the default camera), so the texture seam is at the back.
    azimuth = (u - 0.5) * 2.0 * np.pi
    normals = np.stack(
        [np.sin(polar) * np.sin(azimuth), np.cos(polar), np.sin(polar) * np.cos(azimuth)],
        axis=-1,
    ).reshape(-1, 3)
    texcoords = np.stack([u, v], axis=-1).reshape(-1, 2)
    row = segments + 1
    quads = []
    for r in range(rings):
        for s in range(segments):
            a = r * row + s
            b = a + 1
            c = a + row
            d = c + 1
            # v grows northwards and u eastwards, so (a, b, d) is counter-clockwise from outside.
            quads.append((a, b, d))
            quads.append((a, d, c))
    indices = np.array(quads, dtype=np.uint32)
    # The triangles touching the poles have zero area: drop them, they draw nothing.
    positions = normals * radius
    area = np.linalg.norm(
        np.cross(positions[indices[:, 1]] - positions[indices[:, 0]], positions[indices[:, 2]] - positions[indices[:, 0]]),
        axis=1,
    )
    indices = indices[area > 1e-12]
    return Mesh("sphere", positions.astype(np.float32), normals.astype(np.float32), texcoords.astype(np.float32), indices)


def cube(half_extent: float = 0.6) -> Mesh:
    """An axis-aligned cube with flat faces (4 own vertices per face) and 0..1 texcoords per face."""
    positions, normals, texcoords, indices = [], [], [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            normal = np.zeros(3)
            normal[axis] = sign
            # Any tangent perpendicular to the normal, and v = n x u, make (u, v, n)
            # right-handed, so the corners below run counter-clockwise seen from outside.
            tangent_u = np.roll(np.abs(normal), 1)
            tangent_v = np.cross(normal, tangent_u)
            base = len(positions)
            for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                corner = normal + (2 * du - 1) * tangent_u + (2 * dv - 1) * tangent_v
                positions.append(corner * half_extent)
                normals.append(normal)
                texcoords.append((du, dv))
            indices += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    return Mesh(
        "cube",
        np.array(positions, dtype=np.float32),
        np.array(normals, dtype=np.float32),
        np.array(texcoords, dtype=np.float32),
        np.array(indices, dtype=np.uint32),
    )


def plane(half_extent: float = 1.0) -> Mesh:
    """A square in the z = 0 plane facing +z (towards the default camera), texcoords 0..1."""
    positions = np.array([(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], dtype=np.float32) * half_extent
    normals = np.tile(np.array([0, 0, 1], dtype=np.float32), (4, 1))
    texcoords = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], dtype=np.float32)
    indices = np.array([(0, 1, 2), (0, 2, 3)], dtype=np.uint32)
    return Mesh("plane", positions, normals, texcoords, indices)


def make_mesh(name: str) -> Mesh:
    """The named preview mesh ('sphere', 'cube' or 'plane')."""
    if name == "sphere":
        return uv_sphere()
    if name == "cube":
        return cube()
    if name == "plane":
        return plane()
    raise ValueError(f"unknown preview mesh {name!r}; expected one of {', '.join(MESH_NAMES)}")
