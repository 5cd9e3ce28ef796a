"""Ambient occlusion of a mesh by its own geometry (app/preview/mesh_occlusion.py): convex meshes are open
everywhere, concave places are occluded, a closed box's inside is dark, and the result is cached."""

from __future__ import annotations

import numpy as np

from app.preview import mesh_occlusion
from app.preview.mesh import make_mesh


def test_convex_meshes_are_open_everywhere() -> None:
    for name in ("sphere", "cube", "plane"):
        mesh = make_mesh(name)
        occlusion = mesh_occlusion.compute_vertex_occlusion(mesh.positions, mesh.normals, mesh.indices)
        assert occlusion.shape == (mesh.vertex_count,) and (occlusion == 1.0).all(), name


def test_the_torus_is_occluded_on_its_inside_and_open_outside() -> None:
    mesh = make_mesh("torus")
    occlusion = mesh_occlusion.compute_vertex_occlusion(mesh.positions, mesh.normals, mesh.indices)
    radial = np.linalg.norm(mesh.positions[:, [0, 2]], axis=1)
    inner = occlusion[radial < radial.min() + 0.02]
    outer = occlusion[radial > radial.max() - 0.02]
    assert inner.mean() < 0.7 and outer.min() > 0.95, (inner.mean(), outer.min())


def test_the_inside_of_a_closed_box_is_dark() -> None:
    cube = make_mesh("cube")
    # The cube's faces turned inwards: every ray from inside hits a wall within reach.
    occlusion = mesh_occlusion.compute_vertex_occlusion(cube.positions * 0.5, -cube.normals, cube.indices)
    assert (occlusion == 0.0).all()


def test_results_are_cached_by_the_meshs_data() -> None:
    mesh = make_mesh("torus")
    first = mesh_occlusion.vertex_occlusion(mesh.positions, mesh.normals, mesh.indices)
    assert mesh_occlusion.vertex_occlusion(mesh.positions.copy(), mesh.normals, mesh.indices) is first
    assert mesh_occlusion.vertex_occlusion(mesh.positions * 0.5, mesh.normals, mesh.indices) is not first
