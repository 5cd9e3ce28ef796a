"""Per-vertex tangents for normal mapping, in the MikkTSpace convention (numpy, no GL).

A tangent is a vec4: `xyz` is the unit tangent T, the direction in which
the texture coordinate u grows, orthogonal to the vertex normal N; `w` is
the handedness sign (+1 or -1) such that the bitangent, the direction in
which v grows, is

    B = w * cross(N, T)

This is the convention of MikkTSpace (Mikkelsen 2008, the tangent space of
Blender, Substance, Unreal, Unity and glTF: the glTF 2.0 specification
requires `TANGENT` to be a vec4 with exactly this meaning), so a normal map
baked by any of those tools decodes correctly on our meshes. A shader
rebuilds the frame from the interpolated, renormalized N and T:
`T' = normalize(T - N * dot(N, T))`, `B = w * cross(N, T')`.

How it is computed (the parts of MikkTSpace that matter for indexed meshes):

- per triangle, the derivatives of position with respect to u and v
  (`dP/du`, `dP/dv`) from the edges and the texture-coordinate deltas; the
  triangle's orientation is the sign of its signed UV area (negative when
  the texture is mirrored on it);
- per corner, dP/du projected onto the plane orthogonal to that vertex's
  normal, normalized, and weighted by the corner's angle (so a vertex's
  tangent does not depend on how its fan is triangulated);
- a vertex shared by triangles of both orientations (the seam of a
  mirrored texture) is split into one vertex per orientation, as
  MikkTSpace does: averaging +u and -u across a mirror would cancel;
- a vertex whose triangles all have degenerate texture coordinates (zero UV
  area) gets an arbitrary unit tangent orthogonal to its normal, w = +1.

`generate_tangents` returns the (possibly larger) vertex arrays together
with the tangents; `remap` says which input vertex each output vertex
copies, so any further per-vertex attribute can follow the split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: UV areas below this (in uv units squared, relative) count as degenerate.
DEGENERATE_UV_AREA = 1e-20


@dataclass(frozen=True)
class TangentResult:
    """Vertex arrays after splitting, and the tangents.

    `remap[i]` is the input vertex that output vertex i copies; `indices`
    refer to output vertices (same triangles, same order and winding).
    """

    positions: np.ndarray  # (V, 3) float32
    normals: np.ndarray  # (V, 3) float32
    texcoords: np.ndarray  # (V, 2) float32
    tangents: np.ndarray  # (V, 4) float32: xyz unit tangent, w handedness (+1 or -1)
    indices: np.ndarray  # (M, 3) uint32
    remap: np.ndarray  # (V,) int64


def orthonormal_tangent(normals: np.ndarray) -> np.ndarray:
    """A unit vector orthogonal to each unit normal (Duff et al. 2017, "Building an Orthonormal Basis, Revisited")."""
    n = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
    sign = np.where(n[:, 2] >= 0.0, 1.0, -1.0)
    a = -1.0 / (sign + n[:, 2])
    b = n[:, 0] * n[:, 1] * a
    return np.stack([1.0 + sign * n[:, 0] * n[:, 0] * a, sign * b, -sign * n[:, 0]], axis=1)


def _unit(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(vectors / length, length); zero vectors stay zero."""
    length = np.linalg.norm(vectors, axis=-1)
    safe = np.where(length > 0.0, length, 1.0)
    return vectors / safe[..., None], length


def generate_tangents(
    positions: np.ndarray,
    normals: np.ndarray,
    texcoords: np.ndarray,
    indices: np.ndarray,
) -> TangentResult:
    """MikkTSpace-convention tangents for an indexed triangle mesh (see the module docstring).

    `positions` (N, 3), `normals` (N, 3, unit length), `texcoords` (N, 2),
    `indices` (M, 3). Raises ValueError for inconsistent shapes or indices
    out of range.
    """
    points = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
    vertex_normals = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
    uvs = np.asarray(texcoords, dtype=np.float64).reshape(-1, 2)
    triangles = np.asarray(indices).reshape(-1, 3).astype(np.int64)
    count = points.shape[0]
    if vertex_normals.shape[0] != count or uvs.shape[0] != count:
        raise ValueError(
            f"positions, normals and texcoords must have one row per vertex ({count}, {vertex_normals.shape[0]}, {uvs.shape[0]})"
        )
    if triangles.size and (triangles.min() < 0 or triangles.max() >= count):
        raise ValueError(f"triangle indices must lie in 0..{count - 1}")

    p0, p1, p2 = (points[triangles[:, k]] for k in range(3))
    t0, t1, t2 = (uvs[triangles[:, k]] for k in range(3))
    edge1, edge2 = p1 - p0, p2 - p0
    duv1, duv2 = t1 - t0, t2 - t0
    signed_uv_area = duv1[:, 0] * duv2[:, 1] - duv2[:, 0] * duv1[:, 1]
    scale = np.maximum(np.abs(duv1).max(axis=1), np.abs(duv2).max(axis=1)) ** 2
    degenerate = np.abs(signed_uv_area) <= DEGENERATE_UV_AREA * np.maximum(scale, 1e-30)
    orientation = np.where(signed_uv_area < 0.0, -1.0, 1.0)
    # dP/du times the signed area; multiplying by the orientation gives dP/du times |area|,
    # which points along +u whatever the orientation (its length does not matter: normalized per corner).
    along_u = (edge1 * duv2[:, 1:2] - edge2 * duv1[:, 1:2]) * orientation[:, None]

    corners = triangles.reshape(-1)  # corner c = 3 * triangle + k
    corner_triangle = np.repeat(np.arange(triangles.shape[0]), 3)
    corner_normal = vertex_normals[corners]
    corner_u = along_u[corner_triangle]
    projected = corner_u - corner_normal * np.einsum("ij,ij->i", corner_normal, corner_u)[:, None]
    projected, projected_length = _unit(projected)

    # The angle of each corner between its two edges.
    corner_points = np.stack([p0, p1, p2], axis=1)
    towards_next = _unit(np.roll(corner_points, -1, axis=1) - corner_points)[0].reshape(-1, 3)
    towards_previous = _unit(np.roll(corner_points, 1, axis=1) - corner_points)[0].reshape(-1, 3)
    angle = np.arccos(np.clip(np.einsum("ij,ij->i", towards_next, towards_previous), -1.0, 1.0))

    contributes = ~degenerate[corner_triangle] & (projected_length > 0.0)
    # Split vertices by the orientation of the triangles around them. Corners that contribute
    # nothing (degenerate texture coordinates) join the vertex's +1 copy if it has one, else its
    # -1 copy, so that they add no copy of their own.
    corner_orientation = np.where(contributes, orientation[corner_triangle], 0.0)
    has_positive = np.zeros(count, dtype=bool)
    has_positive[corners[corner_orientation > 0.0]] = True
    has_negative = np.zeros(count, dtype=bool)
    has_negative[corners[corner_orientation < 0.0]] = True
    vertex_default = np.where(has_negative & ~has_positive, -1.0, 1.0)
    corner_orientation = np.where(contributes, corner_orientation, vertex_default[corners])
    keys = corners * 2 + (corner_orientation < 0.0)
    # Vertices no triangle uses are kept (a caller may keep other per-vertex data by index).
    unused = np.flatnonzero(np.bincount(corners, minlength=count) == 0)
    unique_keys, inverse = np.unique(np.concatenate([keys, unused * 2]), return_inverse=True)
    new_corners = inverse[: keys.size]
    remap = unique_keys // 2
    handedness = np.where(unique_keys % 2 == 1, -1.0, 1.0)

    summed = np.zeros((unique_keys.size, 3))
    weights = np.where(contributes, angle, 0.0)
    np.add.at(summed, new_corners, projected * weights[:, None])
    out_normals = vertex_normals[remap]
    # Re-orthogonalize (corner projections were exact, but their sum need not be) and normalize.
    summed -= out_normals * np.einsum("ij,ij->i", out_normals, summed)[:, None]
    tangent, length = _unit(summed)
    fallback = length <= 1e-12
    if fallback.any():
        tangent[fallback] = orthonormal_tangent(out_normals[fallback])
        handedness[fallback] = 1.0

    tangents = np.concatenate([tangent, handedness[:, None]], axis=1)
    return TangentResult(
        positions=np.ascontiguousarray(points[remap], dtype=np.float32),
        normals=np.ascontiguousarray(vertex_normals[remap], dtype=np.float32),
        texcoords=np.ascontiguousarray(uvs[remap], dtype=np.float32),
        tangents=np.ascontiguousarray(tangents, dtype=np.float32),
        indices=np.ascontiguousarray(new_corners.reshape(-1, 3), dtype=np.uint32),
        remap=remap.astype(np.int64),
    )
