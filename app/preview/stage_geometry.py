"""The geometry of the preview's shadows and ground, shared by the OpenGL passes (`app.preview.shadows`) and the
CPU preview's (`app.preview.cpu_stage`): the light's and the height maps' cameras, the ground's size and the
irradiance its catcher weighs. numpy only (no OpenGL), so the CPU preview runs without a driver.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.preview.camera import look_at

if TYPE_CHECKING:
    from app.preview.preview_state import PreviewState

#: Half the side of the ground square (scene units; the mesh has a bounding radius of about 1).
GROUND_EXTENT = 8.0
#: Shadow-map texels between the PCF taps (5 x 5 taps, each a bilinear compare): the penumbra's width.
FILTER_SPACING_TEXELS = 2.0
#: How far the contact occlusion reaches from the mesh (scene units) and its samples per direction.
OCCLUSION_RADII = (0.02, 0.06, 0.12, 0.22, 0.36, 0.55, 0.8)
OCCLUSION_REACH = 1.0
OCCLUSION_DIRECTIONS = 10
#: Extra lights (besides the key light) one frame adds (the stage has two: fill and rim).
MAX_EXTRA_LIGHTS = 2


@dataclass(frozen=True)
class MeshExtent:
    """What the passes need of a mesh: its bounding radius about the origin and its lowest and highest y."""

    radius: float
    bottom: float
    top: float

    @classmethod
    def of(cls, positions: np.ndarray) -> MeshExtent:
        points = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        return cls(float(np.linalg.norm(points, axis=1).max()), float(points[:, 1].min()), float(points[:, 1].max()))


def light_matrix(direction: Sequence[float], radius: float) -> tuple[np.ndarray, float]:
    """(world -> clip of the orthographic light camera covering a sphere of `radius` and the ground, depth span)."""
    towards = np.asarray(direction, dtype=np.float64)
    towards = towards / np.linalg.norm(towards)
    distance = 3.0 * radius
    up = np.array([0.0, 1.0, 0.0]) if abs(towards[1]) < 0.99 else np.array([0.0, 0.0, 1.0])
    view = look_at((towards * distance).astype(np.float32), np.zeros(3, dtype=np.float32), up.astype(np.float32))
    near, far = 0.01, distance + radius + 2.0 * GROUND_EXTENT
    projection = np.eye(4)
    projection[0, 0] = projection[1, 1] = 1.0 / radius
    projection[2, 2] = -2.0 / (far - near)
    projection[2, 3] = -(far + near) / (far - near)
    return (projection @ view.astype(np.float64)).astype(np.float32), far - near


def height_matrix(extent: float, low: float, high: float, from_below: bool) -> np.ndarray:
    """World -> clip of an orthographic view along +y (from below: depth 0 at `low`) or -y (from above: depth 0 at `high`).

    x maps to clip x and z to clip y, so the map's uv is (x, z) / (2 extent) + 0.5 either way.
    """
    m = np.zeros((4, 4))
    m[0, 0] = 1.0 / extent
    m[1, 2] = 1.0 / extent
    span = high - low
    if from_below:
        m[2, 1], m[2, 3] = 2.0 / span, -2.0 * low / span - 1.0
    else:
        m[2, 1], m[2, 3] = -2.0 / span, 2.0 * high / span - 1.0
    m[3, 3] = 1.0
    return m.astype(np.float32)


def ground_irradiance(renderer: PreviewState) -> tuple[float, float]:
    """(the environment's, the key light's) irradiance on open ground facing up, as luminance."""
    weights = np.array([0.2126, 0.7152, 0.0722])
    irradiance = np.asarray(renderer.environment_maps.irradiance, dtype=np.float64)
    zenith = irradiance[-1].mean(axis=0)  # the last row is t = 1: straight up (docs/lighting.md)
    environment = math.pi * float(zenith @ weights) * float(renderer.environment_intensity)
    light_y = max(float(np.asarray(renderer.light_direction, dtype=np.float64)[1]), 0.0)
    light = float(renderer.light_intensity) * light_y * float(np.asarray(renderer.light_color) @ weights)
    return environment, light
