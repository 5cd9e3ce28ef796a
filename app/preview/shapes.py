"""Geometry of the preview shapes beyond sphere, cube and plane: cylinder, torus and a material ball.

Each function returns a `Shape`: float64 `positions`, unit `normals`,
`texcoords` in [0, 1] (N, 2) and int64 `triangles` (M, 3),
counter-clockwise from outside, centred on the origin and scaled to a
bounding radius of 1 (the extent the default camera frames, like the unit
sphere). `app/preview/mesh.py` turns them into `Mesh`es (which adds the
tangents); keeping the geometry here, as arrays, keeps it independent of
the vertex layout.

The three are surfaces of revolution about +y (`lathe`: a (radius, height)
outline, counter-clockwise around the solid, turned about the axis), so u
follows the azimuth exactly as on the sphere (u = 0.5 faces +z, the seam at
-z is duplicated) and v runs along the outline by arc length. The
cylinder's caps are separate discs with planar texture coordinates and hard
rims.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Shape:
    positions: np.ndarray
    normals: np.ndarray
    texcoords: np.ndarray
    triangles: np.ndarray


def _normalized(positions: np.ndarray) -> np.ndarray:
    """Centred on the bounding box's centre with a bounding radius of 1 (what the default camera frames)."""
    centre = 0.5 * (positions.min(axis=0) + positions.max(axis=0))
    centred = positions - centre
    return centred / np.linalg.norm(centred, axis=1).max()


def _profile_normals(profile: np.ndarray) -> np.ndarray:
    """Unit normals of a profile polyline in the (radius, height) plane, on the right of its direction of travel.

    A profile that runs counter-clockwise around the solid (up the outside,
    from the bottom axis to the top axis) gets outward normals. Interior
    points average their two segments' normals; a repeated point (a hard
    edge) must not occur inside one strip.
    """
    segments = np.diff(profile, axis=0)
    segment_normals = np.stack([segments[:, 1], -segments[:, 0]], axis=-1)
    segment_normals /= np.linalg.norm(segment_normals, axis=1, keepdims=True)
    normals = np.empty_like(profile)
    normals[0] = segment_normals[0]
    normals[-1] = segment_normals[-1]
    normals[1:-1] = segment_normals[:-1] + segment_normals[1:]
    return normals / np.linalg.norm(normals, axis=1, keepdims=True)


def lathe(profile: np.ndarray, segments: int, normals: np.ndarray | None = None) -> Shape:
    """A surface of revolution about +y: positions, normals, texcoords and triangles.

    `profile` (K, 2) holds (radius, height) points, counter-clockwise around
    the solid; u runs around (u = 0.5 faces +z, the seam at -z duplicated, as
    on the sphere), v along the profile by arc length. Triangles are
    counter-clockwise from outside; those with zero area (at the axis) are
    dropped.
    """
    profile = np.asarray(profile, dtype=np.float64)
    if normals is None:
        normals = _profile_normals(profile)
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(profile, axis=0), axis=1))])
    v = arc / arc[-1]
    u = np.linspace(0.0, 1.0, segments + 1)
    azimuth = (u - 0.5) * 2.0 * np.pi
    sin_a, cos_a = np.sin(azimuth)[None, :], np.cos(azimuth)[None, :]
    radius, height = profile[:, 0:1], profile[:, 1:2]
    positions = np.stack([radius * sin_a, np.broadcast_to(height, (len(profile), segments + 1)), radius * cos_a], axis=-1)
    vertex_normals = np.stack(
        [normals[:, 0:1] * sin_a, np.broadcast_to(normals[:, 1:2], (len(profile), segments + 1)), normals[:, 0:1] * cos_a], axis=-1
    )
    texcoords = np.stack(np.meshgrid(u, v, indexing="xy"), axis=-1)
    row = segments + 1
    ring, step = np.meshgrid(np.arange(len(profile) - 1), np.arange(segments), indexing="ij")
    a = (ring * row + step).reshape(-1)
    b, c = a + 1, a + row
    d = c + 1
    triangles = np.concatenate([np.stack([a, b, d], axis=-1), np.stack([a, d, c], axis=-1)])
    positions = positions.reshape(-1, 3)
    area = np.linalg.norm(np.cross(positions[triangles[:, 1]] - positions[triangles[:, 0]], positions[triangles[:, 2]] - positions[triangles[:, 0]]), axis=1)
    return Shape(positions, vertex_normals.reshape(-1, 3), texcoords.reshape(-1, 2), triangles[area > 1e-12])


def _disc(radius: float, height: float, facing_up: bool, segments: int) -> Shape:
    """A cap: a fan around its centre, planar texcoords read unmirrored from outside."""
    angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    x, z = radius * np.sin(angle), radius * np.cos(angle)
    positions = np.concatenate([[[0.0, height, 0.0]], np.stack([x, np.full(segments, height), z], axis=-1)])
    normals = np.tile([0.0, 1.0 if facing_up else -1.0, 0.0], (segments + 1, 1))
    # Seen from above (+y) the right is +x and up is -z; from below, right +x and up +z.
    v_sign = -1.0 if facing_up else 1.0
    texcoords = 0.5 + 0.5 * np.stack([positions[:, 0], v_sign * positions[:, 2]], axis=-1) / radius
    ring = np.arange(1, segments + 1)
    following = np.roll(ring, -1)
    # The ring turns from +z towards +x: (centre, this, next) faces up.
    centre = np.zeros(segments, dtype=np.int64)
    triangles = np.stack([centre, ring, following] if facing_up else [centre, following, ring], axis=-1)
    return Shape(positions, normals, texcoords, triangles)


def _combined(pieces: list[Shape]) -> Shape:
    """One shape from pieces, normalised to the view."""
    positions, normals, texcoords, triangles = [], [], [], []
    offset = 0
    for piece in pieces:
        positions.append(piece.positions)
        normals.append(piece.normals)
        texcoords.append(piece.texcoords)
        triangles.append(piece.triangles + offset)
        offset += len(piece.positions)
    return Shape(_normalized(np.concatenate(positions)), np.concatenate(normals), np.concatenate(texcoords), np.concatenate(triangles))


def cylinder(segments: int = 64, radius: float = 0.6, height: float = 1.5) -> Shape:
    """A capped cylinder along y: u around the side (seam at -z), v up; planar caps; hard edges at the rims."""
    half = height / 2.0
    side = lathe(np.array([[radius, -half], [radius, half]]), segments, normals=np.array([[1.0, 0.0], [1.0, 0.0]]))
    return _combined([side, _disc(radius, half, True, segments), _disc(radius, -half, False, segments)])


def torus(major_segments: int = 64, minor_segments: int = 32, major_radius: float = 0.7, minor_radius: float = 0.3) -> Shape:
    """A ring about y: u around the ring (seam at -z), v around the tube starting on its inner side."""
    angle = np.linspace(-np.pi, np.pi, minor_segments + 1)
    circle = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    profile = np.array([major_radius, 0.0]) + minor_radius * circle
    return _combined([lathe(profile, major_segments, normals=circle)])


def _arc(centre: tuple[float, float], radius: float, start_degrees: float, end_degrees: float, steps: int) -> np.ndarray:
    angle = np.radians(np.linspace(start_degrees, end_degrees, steps))
    return np.asarray(centre) + radius * np.stack([np.cos(angle), np.sin(angle)], axis=-1)


def _line(start: tuple[float, float], end: tuple[float, float], steps: int) -> np.ndarray:
    return np.linspace(start, end, steps)


def material_ball_profile() -> np.ndarray:
    """The material ball's outline (radius, height): a round pedestal, a neck, a sphere with a rounded groove.

    Counter-clockwise around the solid, from the bottom centre to the top,
    tangent-continuous everywhere (lines joined by fillet arcs), so one set
    of smooth normals serves the whole shape.
    """
    sphere_centre, sphere_radius = np.array([0.0, 0.15]), 0.8
    neck, fillet = 0.34, 0.06
    # The concave fillet between the neck (r = neck) and the sphere: its circle touches both from outside.
    fillet_centre = np.array([neck + fillet, 0.0])
    fillet_centre[1] = sphere_centre[1] - np.sqrt((sphere_radius + fillet) ** 2 - fillet_centre[0] ** 2)
    towards_sphere = np.degrees(np.arctan2(*(sphere_centre - fillet_centre)[::-1]))
    join = fillet_centre + fillet * np.array([np.cos(np.radians(towards_sphere)), np.sin(np.radians(towards_sphere))])
    join_angle = np.degrees(np.arctan2(join[1] - sphere_centre[1], join[0]))
    # The sphere, with a groove between 15 and 35 degrees of elevation: the radius dips by `depth`
    # with smoothstep shoulders, so the groove's edges are rounded.
    # Denser where the groove bends the outline.
    angle = np.concatenate([np.linspace(join_angle, 12.0, 60, endpoint=False), np.linspace(12.0, 38.0, 160, endpoint=False), np.linspace(38.0, 90.0, 60)])
    edge = 6.0
    inside = np.clip((angle - 15.0) / edge, 0.0, 1.0) * np.clip((35.0 - angle) / edge, 0.0, 1.0)
    shoulder = inside * inside * (3.0 - 2.0 * inside)
    radius = sphere_radius - 0.04 * shoulder
    sphere = sphere_centre + radius[:, None] * np.stack([np.cos(np.radians(angle)), np.sin(np.radians(angle))], axis=-1)
    sphere[-1, 0] = 0.0  # exactly on the axis at the top
    pieces = [
        _line((0.0, -1.0), (0.5, -1.0), 12),  # bottom
        _arc((0.5, -0.92), 0.08, -90.0, 0.0, 10)[1:],  # rounded lower edge
        _line((0.58, -0.92), (0.58, -0.86), 3)[1:],  # pedestal side
        _arc((0.5, -0.86), 0.08, 0.0, 90.0, 10)[1:],  # rounded upper edge
        _line((0.5, -0.78), (0.42, -0.78), 4)[1:],  # pedestal top
        _arc((0.42, -0.70), 0.08, -90.0, -180.0, 10)[1:],  # concave: into the neck
        _line((neck, -0.70), (neck, fillet_centre[1]), 4)[1:],  # neck
        _arc(tuple(fillet_centre), fillet, 180.0, towards_sphere, 8)[1:],  # concave: into the sphere
        sphere[1:],
    ]
    return np.concatenate(pieces)


def material_ball(segments: int = 96) -> Shape:
    """A rounded "material ball": a sphere with a groove on a round pedestal (see `material_ball_profile`)."""
    return _combined([lathe(material_ball_profile(), segments)])
