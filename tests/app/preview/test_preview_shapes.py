"""The geometry of the cylinder, torus and material ball (app/preview/shapes.py).

For every shape: unit normals that agree with the triangles' winding
(counter-clockwise from outside), texture coordinates in [0, 1] laid out
unmirrored (on every triangle, +u then +v turn counter-clockwise about the
outward normal, so MikkTSpace tangents get w = +1), u along the azimuth on
the surfaces of revolution, closed seams, the size the default camera
frames, and a material-ball outline without corners.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.preview import shapes

BUILDERS = {"cylinder": shapes.cylinder, "torus": shapes.torus, "ball": shapes.material_ball}


def triangle_frames(shape: shapes.Shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per triangle: the unit face normal, dP/du and the signed UV area."""
    p, t, i = shape.positions, shape.texcoords, shape.triangles
    e1, e2 = p[i[:, 1]] - p[i[:, 0]], p[i[:, 2]] - p[i[:, 0]]
    d1, d2 = t[i[:, 1]] - t[i[:, 0]], t[i[:, 2]] - t[i[:, 0]]
    signed_area = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    along_u = (e1 * d2[:, 1:2] - e2 * d1[:, 1:2]) / np.where(signed_area == 0.0, 1.0, signed_area)[:, None]
    normal = np.cross(e1, e2)
    return normal / np.linalg.norm(normal, axis=1, keepdims=True), along_u, signed_area


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_shape_normals_winding_and_size(name: str) -> None:
    shape = BUILDERS[name]()
    normal, _, _ = triangle_frames(shape)
    assert np.allclose(np.linalg.norm(shape.normals, axis=1), 1.0)
    assert np.all(np.einsum("ij,ij->i", normal, shape.normals[shape.triangles].mean(axis=1)) > 0.0)
    assert shape.texcoords.min() >= 0.0 and shape.texcoords.max() <= 1.0
    assert np.linalg.norm(shape.positions, axis=1).max() == pytest.approx(1.0)
    assert np.allclose(0.5 * (shape.positions.min(axis=0) + shape.positions.max(axis=0)), 0.0, atol=1e-12)
    assert shape.triangles.min() >= 0 and shape.triangles.max() < len(shape.positions)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_texture_coordinates_are_unmirrored_seen_from_outside(name: str) -> None:
    """+u then +v counter-clockwise about the outward normal on every triangle (none degenerate)."""
    shape = BUILDERS[name]()
    _, _, signed_area = triangle_frames(shape)
    assert np.all(signed_area > 0.0)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_u_follows_the_azimuth_on_the_sides_and_the_seam_closes(name: str) -> None:
    shape = BUILDERS[name]()
    _, along_u, _ = triangle_frames(shape)
    p = shape.positions
    centre = p[shape.triangles].mean(axis=1)
    ring = np.hypot(centre[:, 0], centre[:, 2])
    side = np.abs(shape.normals[shape.triangles].mean(axis=1)[:, 1]) < 0.99  # not a cap
    azimuthal = np.stack([centre[:, 2], np.zeros(len(centre)), -centre[:, 0]], axis=-1) / ring[:, None]
    u_direction = along_u / np.linalg.norm(along_u, axis=1, keepdims=True)
    assert np.all(np.einsum("ij,ij->i", u_direction[side], azimuthal[side]) > 0.99)
    away = (np.hypot(p[:, 0], p[:, 2]) > 1e-6) & (np.abs(shape.normals[:, 1]) < 0.99)  # caps have their own layout
    start = p[np.isclose(shape.texcoords[:, 0], 0.0) & away]
    end = p[np.isclose(shape.texcoords[:, 0], 1.0) & away]
    assert len(start) and np.allclose(np.sort(start, axis=0), np.sort(end, axis=0))
    # The seam is at -z, behind the object.
    assert np.all(start[:, 2] < 0.0) and np.allclose(start[:, 0], 0.0, atol=1e-12)


def test_cylinder_has_planar_caps_and_hard_rims() -> None:
    shape = shapes.cylinder()
    top = shape.positions[:, 1].max()
    at_top = np.isclose(shape.positions[:, 1], top)
    rim = at_top & (np.hypot(shape.positions[:, 0], shape.positions[:, 2]) > 0.5)
    # Rim vertices come twice: once with the side's normal, once with the cap's.
    assert set(np.round(shape.normals[rim, 1], 6)) == {0.0, 1.0}
    cap = at_top & (shape.normals[:, 1] > 0.5)
    # Planar: u follows x and v follows -z on the top cap.
    assert np.allclose(np.polyfit(shape.positions[cap, 0], shape.texcoords[cap, 0], 1)[0] > 0, True)
    assert np.corrcoef(shape.positions[cap, 2], shape.texcoords[cap, 1])[0, 1] < -0.999
    assert np.all(shape.normals[np.isclose(shape.positions[:, 1], -top) & (shape.normals[:, 1] < -0.5), 1] == -1.0)


def test_torus_tube_starts_on_its_inner_side() -> None:
    shape = shapes.torus()
    start = shape.texcoords[:, 1] == 0.0
    radius = np.hypot(shape.positions[:, 0], shape.positions[:, 2])
    assert np.allclose(radius[start], radius.min())


def test_material_ball_outline_has_no_corners_and_closes_on_the_axis() -> None:
    profile = shapes.material_ball_profile()
    segments = np.diff(profile, axis=0)
    lengths = np.linalg.norm(segments, axis=1)
    assert np.all(lengths > 0.0)
    directions = segments / lengths[:, None]
    turn = np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", directions[:-1], directions[1:]), -1.0, 1.0)))
    assert turn.max() <= 10.0 + 1e-9  # fillets everywhere: at most 10 degrees between two segments
    assert profile[0, 0] == 0.0 and profile[-1, 0] == 0.0
    # A groove: the outline's radius dips between two shoulders on the upper sphere.
    upper = profile[profile[:, 1] > 0.2]
    assert np.any(np.diff(np.sign(np.diff(upper[:, 0]))) > 0)
