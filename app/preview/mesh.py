"""Preview meshes as numpy arrays, in the layout of the host contract.

Each mesh has per-vertex `positions` (N x 3), `normals` (N x 3, unit
length), `texcoords` (N x 2), `tangents` (N x 4: unit tangent along +u and
the handedness sign, MikkTSpace convention, `app/preview/tangents.py`) as
float32 and triangle `indices` (M x 3, uint32), counter-clockwise when seen
from outside; `colors` (N x 4, linear RGBA) only when the source has vertex
colours (an imported file's), else None. They feed the vertex inputs at
locations 0, 1, 2, 3 and 4 (`app/material/scene.py`; a mesh without colours
feeds location 4 the constant `scene.DEFAULT_VERTEX_COLOR`). All meshes are
centred on the origin with an extent of about one unit, so one default
camera frames them all.

Build meshes with `build_mesh`, which generates the tangents (splitting
vertices on mirrored-texture seams, so the vertex count can grow) unless
they are given; that is the one way in for generated shapes and imported
files alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from app.preview import shapes
from app.preview.tangents import generate_tangents

#: Floats per vertex in `Mesh.interleaved`: position 3, normal 3, texcoord 2, tangent 4.
VERTEX_FLOATS = 12
#: (components, byte offset) of each vertex attribute inside one interleaved vertex.
ATTRIBUTE_LAYOUT: dict[str, tuple[int, int]] = {"position": (3, 0), "normal": (3, 12), "texcoord": (2, 24), "tangent": (4, 32)}
VERTEX_STRIDE = VERTEX_FLOATS * 4

MESH_NAMES = ("sphere", "cube", "plane", "cylinder", "torus", "ball")


@dataclass(frozen=True)
class Mesh:
    name: str
    positions: np.ndarray
    normals: np.ndarray
    texcoords: np.ndarray
    indices: np.ndarray
    tangents: np.ndarray
    colors: np.ndarray | None = None  # (N, 4) float32 linear RGBA, or None: no vertex colours

    @property
    def vertex_count(self) -> int:
        return int(self.positions.shape[0])

    @property
    def triangle_count(self) -> int:
        return int(self.indices.shape[0])

    def interleaved(self) -> np.ndarray:
        """position, normal, texcoord, tangent per vertex: 12 float32s (48 bytes, `ATTRIBUTE_LAYOUT`)."""
        return np.ascontiguousarray(np.hstack([self.positions, self.normals, self.texcoords, self.tangents]), dtype=np.float32)


def build_mesh(
    name: str,
    positions: np.ndarray,
    normals: np.ndarray,
    texcoords: np.ndarray,
    indices: np.ndarray,
    tangents: np.ndarray | None = None,
    colors: np.ndarray | None = None,
) -> Mesh:
    """A `Mesh` with float32/uint32 arrays; tangents generated (MikkTSpace convention) when None.

    Generating tangents may split vertices (mirrored-texture seams), so the
    returned mesh can have more vertices than given (split vertices keep
    their colour). Given tangents must be (N, 4) with w = +1 or -1; given
    colours (N, 3) or (N, 4) linear RGB(A), alpha 1 when absent.
    """
    vertex_count = np.asarray(positions).reshape(-1, 3).shape[0]
    if colors is not None:
        colors = np.asarray(colors, dtype=np.float32)
        if colors.ndim != 2 or colors.shape[0] != vertex_count or colors.shape[1] not in (3, 4):
            raise ValueError("colors must have one RGB or RGBA row per vertex")
        if colors.shape[1] == 3:
            colors = np.concatenate([colors, np.ones((vertex_count, 1), dtype=np.float32)], axis=1)
        colors = np.ascontiguousarray(colors)
    if tangents is None:
        generated = generate_tangents(positions, normals, texcoords, indices)
        return Mesh(name, generated.positions, generated.normals, generated.texcoords, generated.indices, generated.tangents,
                    None if colors is None else np.ascontiguousarray(colors[generated.remap]))
    tangents = np.asarray(tangents, dtype=np.float32).reshape(-1, 4)
    if tangents.shape[0] != vertex_count:
        raise ValueError("tangents must have one row per vertex")
    return Mesh(
        name,
        np.ascontiguousarray(positions, dtype=np.float32).reshape(-1, 3),
        np.ascontiguousarray(normals, dtype=np.float32).reshape(-1, 3),
        np.ascontiguousarray(texcoords, dtype=np.float32).reshape(-1, 2),
        np.ascontiguousarray(indices, dtype=np.uint32).reshape(-1, 3),
        np.ascontiguousarray(tangents),
        colors,
    )


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
    return build_mesh("sphere", positions, normals, texcoords, indices)


def cube(half_extent: float = 0.6) -> Mesh:
    """An axis-aligned cube with flat faces (4 own vertices per face) and 0..1 texcoords per face."""
    positions: list[np.ndarray] = []
    normals: list[np.ndarray] = []
    texcoords: list[tuple[float, float]] = []
    indices: list[tuple[int, int, int]] = []
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
    return build_mesh("cube", np.array(positions), np.array(normals), np.array(texcoords), np.array(indices))


#: Quads along each side of the preview plane: fine enough for "Displacement and bump" (the vertex stage moves
#: the vertices, so the displaced shape is as detailed as the mesh: 128 cells per UV unit).
PLANE_SEGMENTS = 128


def plane(half_extent: float = 1.0, segments: int = PLANE_SEGMENTS) -> Mesh:
    """A square in the z = 0 plane facing +z (towards the default camera), texcoords 0..1, a grid of
    `segments` x `segments` quads (two triangles each, counter-clockwise seen from +z)."""
    steps = np.linspace(0.0, 1.0, segments + 1)
    v, u = np.meshgrid(steps, steps, indexing="ij")
    texcoords = np.stack([u, v], axis=-1).reshape(-1, 2)
    positions = np.concatenate([(texcoords * 2.0 - 1.0) * half_extent, np.zeros((len(texcoords), 1))], axis=1)
    normals = np.tile(np.array([0.0, 0.0, 1.0]), (len(texcoords), 1))
    row = segments + 1
    corner = (np.arange(segments)[:, None] * row + np.arange(segments)[None, :]).reshape(-1)
    indices = np.concatenate([np.stack([corner, corner + 1, corner + row + 1], axis=1),
                              np.stack([corner, corner + row + 1, corner + row], axis=1)]).astype(np.uint32)
    tangents = np.tile(np.array([1.0, 0.0, 0.0, 1.0]), (len(texcoords), 1))  # u grows along +x, v along +y
    return build_mesh("plane", positions.astype(np.float32), normals.astype(np.float32), texcoords.astype(np.float32), indices,
                      tangents)


def _from_shape(name: str, shape: shapes.Shape) -> Mesh:
    return build_mesh(name, shape.positions, shape.normals, shape.texcoords, shape.triangles)


def cylinder() -> Mesh:
    """A capped cylinder (`shapes.cylinder`)."""
    return _from_shape("cylinder", shapes.cylinder())


def torus() -> Mesh:
    """A torus (`shapes.torus`)."""
    return _from_shape("torus", shapes.torus())


def material_ball() -> Mesh:
    """The material ball (`shapes.material_ball`)."""
    return _from_shape("ball", shapes.material_ball())


def make_mesh(name: str, fine: bool = False) -> Mesh:
    """The named preview mesh (`MESH_NAMES`). `fine`: the version drawn under a material that displaces the mesh
    (the displaced shape is as detailed as the mesh): the sphere 256 x 128 instead of 64 x 32, the torus
    192 x 96 instead of 64 x 32; the others as they are (the plane is a 128 x 128 grid already)."""
    builders: dict[str, Callable[[], Mesh]] = {"sphere": uv_sphere, "cube": cube, "plane": plane, "cylinder": cylinder, "torus": torus, "ball": material_ball}
    if name not in builders:
        raise ValueError(f"unknown preview mesh {name!r}; expected one of {', '.join(MESH_NAMES)}")
    if fine and name == "sphere":
        return uv_sphere(segments=256, rings=128)
    if fine and name == "torus":
        return _from_shape("torus", shapes.torus(major_segments=192, minor_segments=96))
    return builders[name]()
