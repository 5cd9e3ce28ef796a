"""Tangents in the MikkTSpace convention: against analytic derivatives, on mirrored UVs, degenerate input.

The references here are computed from the geometry directly (the exact
dP/du and dP/dv of a surface whose texture mapping is known), not from the
generator's own per-triangle formulas.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.preview.mesh import MESH_NAMES, build_mesh, make_mesh, uv_sphere
from app.preview.tangents import generate_tangents, orthonormal_tangent


def _frames(mesh) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    normals = mesh.normals.astype(np.float64)
    tangents = mesh.tangents[:, :3].astype(np.float64)
    handedness = mesh.tangents[:, 3].astype(np.float64)
    bitangents = handedness[:, None] * np.cross(normals, tangents)
    return normals, tangents, handedness, bitangents


@pytest.mark.parametrize("name", MESH_NAMES)
def test_tangents_are_unit_orthogonal_to_the_normal_with_a_sign(name: str) -> None:
    mesh = make_mesh(name)
    normals, tangents, handedness, _ = _frames(mesh)
    assert np.allclose(np.linalg.norm(tangents, axis=1), 1.0, atol=1e-5)
    assert np.abs(np.einsum("ij,ij->i", normals, tangents)).max() < 1e-5
    assert set(np.unique(handedness)) <= {-1.0, 1.0}


def test_sphere_tangent_follows_u_and_bitangent_follows_v() -> None:
    """On the UV sphere u is the azimuth and v the latitude: compare with the analytic dP/du, dP/dv."""
    sphere = uv_sphere(segments=64, rings=32)
    _, tangents, handedness, bitangents = _frames(sphere)
    u, v = sphere.texcoords[:, 0].astype(np.float64), sphere.texcoords[:, 1].astype(np.float64)
    azimuth = (u - 0.5) * 2.0 * np.pi
    polar = (1.0 - v) * np.pi
    # P = (sin(polar) sin(az), cos(polar), sin(polar) cos(az)); dP/daz and dP/dpolar, with dpolar/dv < 0.
    along_u = np.stack([np.cos(azimuth), np.zeros_like(azimuth), -np.sin(azimuth)], axis=1)
    along_v = -np.stack([np.cos(polar) * np.sin(azimuth), -np.sin(polar), np.cos(polar) * np.cos(azimuth)], axis=1)
    away_from_poles = np.abs(sphere.positions[:, 1]) < 0.95
    assert (handedness == 1.0).all()
    # Inside the mesh the averaged chords match the derivative closely; at the texture seam a vertex
    # sees one side only, whose chord is off by half a segment.
    half_segment = np.cos(np.pi / 64) - 1e-6
    inside = away_from_poles & (u > 0.0) & (u < 1.0)
    assert np.einsum("ij,ij->i", tangents, along_u)[inside].min() > 0.99999
    assert np.einsum("ij,ij->i", tangents, along_u)[away_from_poles].min() > half_segment
    assert np.einsum("ij,ij->i", bitangents, along_v)[away_from_poles].min() > half_segment


def test_cube_faces_follow_their_texture_axes() -> None:
    cube = make_mesh("cube")
    _, tangents, handedness, bitangents = _frames(cube)
    for face in range(6):
        corners = cube.positions[4 * face: 4 * face + 4].astype(np.float64)
        uvs = cube.texcoords[4 * face: 4 * face + 4].astype(np.float64)
        # Corners (0,0), (1,0), (1,1), (0,1): dP/du and dP/dv from the corner positions.
        du = corners[np.argmax(uvs[:, 0] - uvs[:, 1])] - corners[np.argmin(uvs.sum(axis=1))]
        dv = corners[np.argmax(uvs[:, 1] - uvs[:, 0])] - corners[np.argmin(uvs.sum(axis=1))]
        for vertex in range(4 * face, 4 * face + 4):
            assert np.dot(tangents[vertex], du / np.linalg.norm(du)) > 0.9999
            assert np.dot(bitangents[vertex], dv / np.linalg.norm(dv)) > 0.9999
    assert (handedness == 1.0).all()


def test_skewed_affine_mapping_on_a_random_triangulation() -> None:
    """A flat surface with a sheared UV map: T is the projection of the exact dP/du onto the plane."""
    rng = np.random.default_rng(7)
    points2d = rng.uniform(-1.0, 1.0, size=(40, 2))
    from_uv = np.array([[1.3, 0.4], [-0.2, 0.9]])  # (x, y) = from_uv @ (u, v): a sheared, scaled map
    uvs = points2d @ np.linalg.inv(from_uv).T
    positions = np.column_stack([points2d, np.zeros(len(points2d))])
    normals = np.tile([0.0, 0.0, 1.0], (len(points2d), 1))
    triangles = []
    for _ in range(60):
        a, b, c = rng.choice(len(points2d), 3, replace=False)
        cross = np.cross(positions[b] - positions[a], positions[c] - positions[a])[2]
        if abs(cross) > 1e-3:
            triangles.append((a, b, c) if cross > 0 else (a, c, b))
    result = generate_tangents(positions, normals, uvs, np.array(triangles))
    exact_u = np.array([from_uv[0, 0], from_uv[1, 0], 0.0])
    exact_v = np.array([from_uv[0, 1], from_uv[1, 1], 0.0])
    used = np.unique(result.indices)
    tangent = result.tangents[used, :3].astype(np.float64)
    assert np.allclose(tangent, exact_u / np.linalg.norm(exact_u), atol=1e-5)
    bitangent = result.tangents[used, 3:4] * np.cross(result.normals[used], tangent)
    # B is unit and orthogonal to T; on a sheared map it is the part of dP/dv orthogonal to T.
    assert (np.einsum("ij,j->i", bitangent, exact_v) > 0).all()


def _mirrored_strip() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Two quads side by side sharing the middle column; the right one's texture is mirrored in u."""
    positions = np.array([(-1, -1, 0), (0, -1, 0), (1, -1, 0), (-1, 1, 0), (0, 1, 0), (1, 1, 0)], dtype=np.float64)
    # u runs 0 -> 1 left to right on the left quad, and back 1 -> 0 on the right quad.
    uvs = np.array([(0, 0), (1, 0), (0, 0), (0, 1), (1, 1), (0, 1)], dtype=np.float64)
    normals = np.tile([0.0, 0.0, 1.0], (6, 1))
    triangles = np.array([(0, 1, 4), (0, 4, 3), (1, 2, 5), (1, 5, 4)])
    return positions, normals, uvs, triangles


def test_mirrored_uvs_split_the_seam_and_flip_handedness() -> None:
    positions, normals, uvs, triangles = _mirrored_strip()
    result = generate_tangents(positions, normals, uvs, triangles)
    # The two seam vertices (1 and 4) are used by both orientations: one copy each.
    assert len(result.positions) == 8
    assert np.allclose(result.positions, positions[result.remap])
    for triangle_index, triangle in enumerate(result.indices):
        corners = result.tangents[triangle]
        left = triangle_index < 2
        expected_tangent = (1.0, 0.0, 0.0) if left else (-1.0, 0.0, 0.0)  # u grows to the right on the left quad
        assert np.allclose(corners[:, :3], expected_tangent, atol=1e-6)
        assert np.allclose(corners[:, 3], 1.0 if left else -1.0)
        bitangent = corners[:, 3:4] * np.cross(result.normals[triangle], corners[:, :3])
        assert np.allclose(bitangent, (0.0, 1.0, 0.0), atol=1e-6)  # v grows upwards on both quads


def test_build_mesh_keeps_given_tangents_and_generates_missing_ones() -> None:
    positions, normals, uvs, triangles = _mirrored_strip()
    generated = build_mesh("strip", positions, normals, uvs, triangles)
    assert generated.vertex_count == 8
    given = build_mesh("strip", positions, normals, uvs, triangles, tangents=np.tile([1.0, 0.0, 0.0, 1.0], (6, 1)))
    assert given.vertex_count == 6 and (given.tangents[:, 3] == 1.0).all()
    with pytest.raises(ValueError, match="one row per vertex"):
        build_mesh("strip", positions, normals, uvs, triangles, tangents=np.zeros((5, 4)))


def test_degenerate_texture_coordinates_get_an_orthogonal_fallback() -> None:
    positions = np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0), (5, 5, 5)], dtype=np.float64)
    normals = np.tile([0.0, 0.0, 1.0], (4, 1))
    uvs = np.zeros((4, 2))  # all the same: no texture direction at all
    result = generate_tangents(positions, normals, uvs, np.array([(0, 1, 2)]))
    assert len(result.positions) == 4  # the unused vertex 3 is kept, in place
    assert np.allclose(result.positions, positions)
    assert np.isfinite(result.tangents).all()
    assert np.allclose(np.linalg.norm(result.tangents[:, :3], axis=1), 1.0, atol=1e-6)
    assert np.abs(result.tangents[:, :3] @ np.array([0.0, 0.0, 1.0])).max() < 1e-6


def test_orthonormal_tangent_for_every_direction() -> None:
    rng = np.random.default_rng(3)
    normals = rng.normal(size=(500, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.vstack([normals, [(0, 0, 1), (0, 0, -1), (1, 0, 0), (0, -1, 0)]])
    tangents = orthonormal_tangent(normals)
    assert np.allclose(np.linalg.norm(tangents, axis=1), 1.0, atol=1e-9)
    assert np.abs(np.einsum("ij,ij->i", tangents, normals)).max() < 1e-9


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ((np.zeros((3, 3)), np.zeros((2, 3)), np.zeros((3, 2)), np.array([(0, 1, 2)])), "one row per vertex"),
        ((np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 2)), np.array([(0, 1, 3)])), "indices must lie"),
    ],
)
def test_inconsistent_input_is_refused(arrays, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_tangents(*arrays)
