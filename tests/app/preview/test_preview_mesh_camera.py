"""Meshes (counts, unit normals, outward winding) and the orbit camera (framing, bounds, matrices)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.preview.camera import (
    DEFAULT_COVERAGE,
    MAX_PITCH,
    OrbitCamera,
    framing_distance,
    gl_column_major,
    normal_matrix,
)
from app.preview.mesh import MESH_NAMES, cube, make_mesh, plane, uv_sphere


@pytest.mark.parametrize("name", MESH_NAMES)
def test_mesh_arrays_are_consistent(name: str) -> None:
    mesh = make_mesh(name)
    n = mesh.vertex_count
    assert mesh.positions.shape == (n, 3) and mesh.normals.shape == (n, 3) and mesh.texcoords.shape == (n, 2)
    assert mesh.positions.dtype == mesh.normals.dtype == mesh.texcoords.dtype == np.float32
    assert mesh.indices.dtype == np.uint32 and mesh.indices.shape[1] == 3
    assert mesh.indices.min() >= 0 and mesh.indices.max() < n
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-5)
    assert (mesh.texcoords >= 0).all() and (mesh.texcoords <= 1).all()
    assert mesh.tangents.shape == (n, 4) and mesh.tangents.dtype == np.float32
    assert mesh.interleaved().shape == (n, 12)


@pytest.mark.parametrize("name", MESH_NAMES)
def test_triangles_wind_counter_clockwise_seen_from_outside(name: str) -> None:
    mesh = make_mesh(name)
    a, b, c = (mesh.positions[mesh.indices[:, k]].astype(np.float64) for k in range(3))
    face_normals = np.cross(b - a, c - a)
    vertex_normals = mesh.normals[mesh.indices].mean(axis=1)
    assert (np.einsum("ij,ij->i", face_normals, vertex_normals) > 0).all()


def test_sphere_counts_and_shape() -> None:
    sphere = uv_sphere(radius=1.0, segments=16, rings=8)
    assert sphere.vertex_count == 17 * 9
    # Two triangles per quad, minus the zero-area one of each quad touching a pole.
    assert sphere.triangle_count == 2 * 16 * 8 - 2 * 16
    assert np.allclose(np.linalg.norm(sphere.positions, axis=1), 1.0, atol=1e-6)
    assert np.allclose(sphere.positions, sphere.normals, atol=1e-6)


def test_cube_and_plane_counts() -> None:
    assert (cube().vertex_count, cube().triangle_count) == (24, 12)
    assert (plane().vertex_count, plane().triangle_count) == (129 * 129, 2 * 128 * 128)
    assert (plane(segments=1).vertex_count, plane(segments=1).triangle_count) == (4, 2)
    assert np.allclose(plane().normals, (0, 0, 1))


def test_unknown_mesh_is_rejected() -> None:
    with pytest.raises(ValueError, match="teapot"):
        make_mesh("teapot")


def _project(camera: OrbitCamera, point: np.ndarray, aspect: float = 1.0) -> np.ndarray:
    clip = camera.projection_matrix(aspect) @ camera.view_matrix() @ np.append(point, 1.0)
    return clip[:3] / clip[3]


def test_default_camera_frames_the_unit_sphere_at_two_thirds() -> None:
    camera = OrbitCamera()
    # The silhouette's top: the point p of the unit sphere where the eye ray is tangent,
    # p . (p - eye) = 0 with eye = (0, 0, d), so p = (0, sqrt(1 - 1/d^2), 1/d).
    d = camera.distance
    tangent = np.array([0.0, math.sqrt(1.0 - 1.0 / d**2), 1.0 / d])
    top = _project(camera, tangent)
    assert top[1] == pytest.approx(DEFAULT_COVERAGE, abs=1e-3)
    assert np.allclose(_project(camera, np.zeros(3))[:2], 0.0, atol=1e-6)
    assert camera.distance == pytest.approx(framing_distance(1.0, camera.field_of_view, DEFAULT_COVERAGE))


def test_orbit_zoom_and_reset() -> None:
    camera = OrbitCamera()
    default = (camera.yaw, camera.pitch, camera.distance)
    camera.orbit(30.0, 200.0)
    assert camera.pitch == MAX_PITCH and camera.yaw == 30.0
    camera.zoom(1e-3)
    assert camera.distance > 1.0  # never inside the sphere
    camera.zoom(1e6)
    assert camera.distance < 100.0  # never beyond the far plane
    eye = camera.position
    assert np.linalg.norm(eye - camera.target) == pytest.approx(camera.distance, rel=1e-5)
    camera.reset()
    assert (camera.yaw, camera.pitch, camera.distance) == default


def test_view_matrix_puts_the_target_in_front() -> None:
    camera = OrbitCamera(yaw=40.0, pitch=20.0)
    eye_space = camera.view_matrix() @ np.array([0.0, 0.0, 0.0, 1.0])
    assert np.allclose(eye_space[:3], (0.0, 0.0, -camera.distance), atol=1e-5)


def test_narrow_viewports_frame_by_width() -> None:
    camera = OrbitCamera()
    wide_right = _project(camera, np.array([1.0, 0.0, 0.0]), aspect=2.0)[0]
    tall_right = _project(camera, np.array([1.0, 0.0, 0.0]), aspect=0.5)[0]
    assert wide_right < 0.5 and 0.5 < tall_right < 0.8


def test_column_major_and_normal_matrix() -> None:
    m = np.arange(16, dtype=np.float32).reshape(4, 4)
    assert list(gl_column_major(m)[:4]) == [0.0, 4.0, 8.0, 12.0]
    model = np.diag([2.0, 1.0, 1.0, 1.0]).astype(np.float32)
    assert np.allclose(normal_matrix(model)[:3, :3], np.diag([0.5, 1.0, 1.0]))
