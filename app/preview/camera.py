"""Orbit camera for the preview: yaw, pitch and distance around a target.

Matrices are numpy float32 arrays of shape (4, 4) indexed mathematically
(`m[row, column]`, column vectors: `clip = projection @ view @ model @ p`).
GL wants column-major data: `gl_column_major(m)` gives it, and the std140
packer takes these arrays as they are.

The default camera looks at the origin from +z and frames a unit sphere so
its silhouette covers `DEFAULT_COVERAGE` (two thirds) of the viewport
height; the distance follows from the field of view (see `framing_distance`).
A camera's `home` (yaw, pitch, distance) is where `reset` takes it: the
stage sets it to the mesh's three-quarter view (`MESH_VIEWS`) or the view
the stage saved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

DEFAULT_FIELD_OF_VIEW = 45.0   # vertical, degrees
DEFAULT_COVERAGE = 2.0 / 3.0   # fraction of the viewport height the unit sphere covers
NEAR_PLANE = 0.05
FAR_PLANE = 100.0
MIN_DISTANCE = 1.2
MAX_DISTANCE = 40.0
MAX_PITCH = 89.0
DEFAULT_DISTANCE = 1.0 / math.sin(math.atan(DEFAULT_COVERAGE * math.tan(math.radians(DEFAULT_FIELD_OF_VIEW) / 2.0)))

#: Each built-in mesh's default (yaw, pitch) in degrees, at `DEFAULT_DISTANCE`: a three-quarter view
#: that shows its form (three faces of the cube, the plane foreshortened, the torus's hole). The
#: sphere keeps the classic front view (from any side it looks the same; its texture seam stays
#: behind). Meshes from files get `FILE_MESH_VIEW`.
MESH_VIEWS: dict[str, tuple[float, float]] = {
    "sphere": (0.0, 0.0),
    "cube": (35.0, 25.0),
    "plane": (25.0, 35.0),
    "cylinder": (30.0, 20.0),
    "torus": (20.0, 35.0),
    "ball": (25.0, 15.0),
}
FILE_MESH_VIEW = (30.0, 20.0)


def mesh_view(mesh: str) -> tuple[float, float, float]:
    """(yaw, pitch, distance): the default camera for a built-in mesh name or a mesh file."""
    yaw, pitch = MESH_VIEWS.get(mesh, FILE_MESH_VIEW)
    return yaw, pitch, DEFAULT_DISTANCE


def framing_distance(radius: float, field_of_view: float, coverage: float) -> float:
    """Eye distance at which a sphere of `radius` spans `coverage` of the viewport height.

    A sphere at distance d subtends a half angle a with sin(a) = r / d; its
    silhouette's projected half height is tan(a) / tan(fov / 2) in NDC.
    """
    half_angle = math.atan(coverage * math.tan(math.radians(field_of_view) / 2.0))
    return radius / math.sin(half_angle)


def perspective(field_of_view: float, aspect: float, near: float, far: float) -> np.ndarray:
    """The OpenGL perspective projection (right-handed eye space, clip z in -w..w)."""
    f = 1.0 / math.tan(math.radians(field_of_view) / 2.0)
    m = np.zeros((4, 4), dtype=np.float32)
    m[0, 0] = f / aspect
    m[1, 1] = f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2.0 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


def look_at(eye: np.ndarray, target: np.ndarray, up: np.ndarray) -> np.ndarray:
    forward = target - eye
    forward = forward / np.linalg.norm(forward)
    side = np.cross(forward, up)
    side = side / np.linalg.norm(side)
    true_up = np.cross(side, forward)
    m = np.eye(4, dtype=np.float32)
    m[0, :3], m[1, :3], m[2, :3] = side, true_up, -forward
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def gl_column_major(matrix: np.ndarray) -> np.ndarray:
    """The matrix's 16 floats in GL's column-major order (for glUniformMatrix*fv without transpose)."""
    return np.ascontiguousarray(np.asarray(matrix, dtype=np.float32).T).reshape(-1)


def normal_matrix(model: np.ndarray) -> np.ndarray:
    """Inverse transpose of the model matrix, as a 4x4 (the scene record's normal_matrix)."""
    result = np.eye(4, dtype=np.float32)
    result[:3, :3] = np.linalg.inv(model[:3, :3].astype(np.float64)).T
    return result


@dataclass
class OrbitCamera:
    yaw: float = 0.0      # degrees around +y; 0 looks from +z
    pitch: float = 0.0    # degrees above the horizon
    distance: float = field(default_factory=lambda: framing_distance(1.0, DEFAULT_FIELD_OF_VIEW, DEFAULT_COVERAGE))
    target: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.float32))
    field_of_view: float = DEFAULT_FIELD_OF_VIEW
    #: (yaw, pitch, distance) that `reset` returns to.
    home: tuple[float, float, float] = (0.0, 0.0, DEFAULT_DISTANCE)

    def reset(self) -> None:
        self.yaw, self.pitch, self.distance = self.home
        self.target = np.zeros(3, dtype=np.float32)
        self.field_of_view = DEFAULT_FIELD_OF_VIEW

    def go_home(self, home: tuple[float, float, float]) -> None:
        """Make `home` the view `reset` returns to, and go there."""
        self.home = (float(home[0]), float(home[1]), float(home[2]))
        self.reset()

    def orbit(self, delta_yaw: float, delta_pitch: float) -> None:
        self.yaw = (self.yaw + delta_yaw) % 360.0
        self.pitch = max(-MAX_PITCH, min(MAX_PITCH, self.pitch + delta_pitch))

    def zoom(self, factor: float) -> None:
        """Multiply the distance by `factor` (< 1 moves closer), within sane bounds."""
        self.distance = max(MIN_DISTANCE, min(MAX_DISTANCE, self.distance * factor))

    @property
    def position(self) -> np.ndarray:
        yaw, pitch = math.radians(self.yaw), math.radians(self.pitch)
        offset = np.array(
            [math.cos(pitch) * math.sin(yaw), math.sin(pitch), math.cos(pitch) * math.cos(yaw)],
            dtype=np.float32,
        )
        return (np.asarray(self.target, dtype=np.float32) + self.distance * offset).astype(np.float32)

    def view_matrix(self) -> np.ndarray:
        return look_at(self.position, np.asarray(self.target, dtype=np.float32), np.array([0.0, 1.0, 0.0], dtype=np.float32))

    def projection_matrix(self, aspect: float) -> np.ndarray:
        """Perspective for a viewport of `aspect` (width / height).

        The field of view applies to the smaller viewport side, so a tall,
        narrow dock frames the sphere by its width instead of cutting it off.
        """
        aspect = max(aspect, 1e-6)
        field_of_view = self.field_of_view
        if aspect < 1.0:
            field_of_view = math.degrees(2.0 * math.atan(math.tan(math.radians(field_of_view) / 2.0) / aspect))
        return perspective(field_of_view, aspect, NEAR_PLANE, FAR_PLANE)
