"""Tangents on every preview mesh (MikkTSpace convention, app/preview/tangents.py through mesh.build_mesh):
the built-in shapes, and imported files including a mirrored-UV mesh for the handedness."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_mesh_import import grid, write_gltf

from app.preview import mesh as meshes
from app.preview.mesh_import import import_mesh, load_mesh


def assert_consistent(mesh) -> None:
    """Unit normals agreeing with the winding, tangents orthogonal to them with w = +-1, unit bounding radius."""
    p, i = mesh.positions.astype(np.float64), mesh.indices.astype(np.int64)
    face = np.cross(p[i[:, 1]] - p[i[:, 0]], p[i[:, 2]] - p[i[:, 0]])
    assert np.all(np.einsum("ij,ij->i", face, mesh.normals[i].mean(axis=1)) > 0.0)
    assert np.allclose(np.linalg.norm(mesh.tangents[:, :3], axis=1), 1.0, atol=1e-4)
    assert np.all(np.abs(np.einsum("ij,ij->i", mesh.tangents[:, :3], mesh.normals)) < 1e-3)
    assert set(np.unique(mesh.tangents[:, 3])) <= {-1.0, 1.0}


SHAPES = ("sphere", "cube", "plane", "cylinder", "torus", "ball")


def triangle_frames(mesh) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per triangle: unit face normal, dP/du and dP/dv (unnormalised), and whether the UVs are degenerate."""
    p = mesh.positions.astype(np.float64)
    t = mesh.texcoords.astype(np.float64)
    i = mesh.indices.astype(np.int64)
    e1, e2 = p[i[:, 1]] - p[i[:, 0]], p[i[:, 2]] - p[i[:, 0]]
    d1, d2 = t[i[:, 1]] - t[i[:, 0]], t[i[:, 2]] - t[i[:, 0]]
    determinant = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    safe = np.where(np.abs(determinant) > 1e-12, determinant, 1.0)
    along_u = (e1 * d2[:, 1:2] - e2 * d1[:, 1:2]) / safe[:, None]
    along_v = (e2 * d1[:, 0:1] - e1 * d2[:, 0:1]) / safe[:, None]
    normal = np.cross(e1, e2)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    return normal, along_u, along_v, np.abs(determinant) <= 1e-12


def test_every_name_builds_a_mesh() -> None:
    assert set(SHAPES) <= set(meshes.MESH_NAMES)
    for name in meshes.MESH_NAMES:
        assert meshes.make_mesh(name).name == name
    with pytest.raises(ValueError, match="unknown preview mesh 'teapot'"):
        meshes.make_mesh("teapot")


@pytest.mark.parametrize("name", SHAPES)
def test_shape_is_consistent(name: str) -> None:
    mesh = meshes.make_mesh(name)
    normal, along_u, along_v, degenerate = triangle_frames(mesh)
    index = mesh.indices.astype(np.int64)
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-5)
    # Winding: counter-clockwise from outside, where the vertex normals point.
    assert np.all(np.einsum("ij,ij->i", normal, mesh.normals[index].mean(axis=1)) > 0.0)
    assert mesh.texcoords.min() >= 0.0 and mesh.texcoords.max() <= 1.0
    tangents = mesh.tangents.astype(np.float64)
    assert np.allclose(np.linalg.norm(tangents[:, :3], axis=1), 1.0, atol=1e-5)
    assert np.all(np.abs(np.einsum("ij,ij->i", tangents[:, :3], mesh.normals)) < 1e-4)
    # On every triangle with proper UVs: T follows +u and w cross(N, T) follows +v.
    useful = ~degenerate
    corner_tangents = tangents[index[useful]]
    corner_normals = mesh.normals[index[useful]].astype(np.float64)
    u_direction = along_u[useful] / np.linalg.norm(along_u[useful], axis=1, keepdims=True)
    v_direction = along_v[useful] / np.linalg.norm(along_v[useful], axis=1, keepdims=True)
    for corner in range(3):
        assert np.all(np.einsum("ij,ij->i", corner_tangents[:, corner, :3], u_direction) > 0.7)
        bitangent = corner_tangents[:, corner, 3:4] * np.cross(corner_normals[:, corner], corner_tangents[:, corner, :3])
        assert np.all(np.einsum("ij,ij->i", bitangent, v_direction) > 0.5)


@pytest.mark.parametrize("name", ["cylinder", "torus", "ball"])
def test_new_shapes_fill_the_view_like_the_sphere(name: str) -> None:
    mesh = meshes.make_mesh(name)
    radius = np.linalg.norm(mesh.positions, axis=1)
    assert radius.max() == pytest.approx(1.0, abs=1e-5)
    centre = 0.5 * (mesh.positions.min(axis=0) + mesh.positions.max(axis=0))
    assert np.allclose(centre, 0.0, atol=1e-5)


def test_surfaces_of_revolution_have_azimuthal_tangents_and_closed_seams() -> None:
    for name in ("sphere", "torus", "ball"):
        mesh = meshes.make_mesh(name)
        p = mesh.positions.astype(np.float64)
        ring = np.hypot(p[:, 0], p[:, 2])
        away_from_axis = ring > 1e-3
        azimuthal = np.stack([p[:, 2], np.zeros(len(p)), -p[:, 0]], axis=-1)[away_from_axis] / ring[away_from_axis, None]
        # u grows with the azimuth: the direction (z, 0, -x). Per-triangle tangents follow the chords, so a
        # seam vertex (triangles on one side only) is off by half a segment: under 3 degrees.
        cosine = np.einsum("ij,ij->i", mesh.tangents[away_from_axis, :3], azimuthal)
        assert cosine.min() > np.cos(np.radians(3.0)), name
        # The seam: vertices at u = 0 and u = 1 sit at the same places.
        seam_start = p[np.isclose(mesh.texcoords[:, 0], 0.0) & away_from_axis]
        seam_end = p[np.isclose(mesh.texcoords[:, 0], 1.0) & away_from_axis]
        assert len(seam_start) and len(seam_start) == len(seam_end)
        assert np.allclose(np.sort(seam_start, axis=0), np.sort(seam_end, axis=0), atol=1e-6)


def test_cube_and_cylinder_have_hard_edges() -> None:
    cube = meshes.make_mesh("cube")
    assert cube.vertex_count == 24 and cube.triangle_count == 12
    # Each corner position appears with three different face normals.
    corner = np.isclose(cube.positions, cube.positions[0], atol=1e-6).all(axis=1)
    assert len({tuple(n) for n in cube.normals[corner].round(5)}) == 3
    cylinder = meshes.make_mesh("cylinder")
    top = cylinder.positions[:, 1].max()
    rim = np.isclose(cylinder.positions[:, 1], top) & (np.hypot(cylinder.positions[:, 0], cylinder.positions[:, 2]) > 0.5)
    normals_at_rim = {tuple(n) for n in cylinder.normals[rim].round(3)[:, [1]].tolist()}
    assert (0.0,) in normals_at_rim and (1.0,) in normals_at_rim  # side and cap vertices




def test_imported_meshes_get_tangents_or_keep_the_files(tmp_path: Path) -> None:
    positions, normals, texcoords, indices = grid(2, 2)
    generated = import_mesh(write_gltf(tmp_path / "plain.glb", positions, indices, normals, np.stack([texcoords[:, 0], 1 - texcoords[:, 1]], axis=-1)))
    assert np.allclose(generated.mesh.tangents, [1.0, 0.0, 0.0, 1.0], atol=1e-6)
    assert generated.notes == ("tangents were generated (MikkTSpace convention)",)
    given = np.tile([0.0, 1.0, 0.0, -1.0], (len(positions), 1))
    kept = import_mesh(write_gltf(tmp_path / "given.glb", positions, indices, normals, texcoords, given))
    assert np.allclose(kept.mesh.tangents, [0.0, 1.0, 0.0, -1.0]) and kept.notes == ()


def test_mirrored_uvs_give_tangents_of_both_handedness(tmp_path: Path) -> None:
    """Left half: u grows to the right (tangent +x); right half: u grows to the left (tangent -x).

    v grows up on both halves, so B = w cross(N, T) must be +y everywhere:
    w = +1 on the left (z x +x = +y) and -1 on the right (z x -x = -y).
    """
    positions, normals, texcoords, indices = grid(4, 2, mirrored_right_half=True)
    gltf_uv = np.stack([texcoords[:, 0], 1.0 - texcoords[:, 1]], axis=-1)
    mesh = load_mesh(write_gltf(tmp_path / "mirrored.glb", positions, indices, normals, gltf_uv))
    assert_consistent(mesh)
    index = mesh.indices.astype(np.int64)
    centre_x = mesh.positions[index].mean(axis=1)[:, 0]
    for side, expected_tangent, expected_w in ((centre_x < 0.0, 1.0, 1.0), (centre_x > 0.0, -1.0, -1.0)):
        corners = index[side].reshape(-1)
        assert np.allclose(mesh.tangents[corners, 0], expected_tangent, atol=1e-5)
        assert np.all(mesh.tangents[corners, 3] == expected_w)
        bitangents = mesh.tangents[corners, 3:4] * np.cross(mesh.normals[corners], mesh.tangents[corners, :3])
        assert np.allclose(bitangents, [0.0, 1.0, 0.0], atol=1e-5)


