"""Baking on real OpenGL: texel placement, tiles, supersampling, coverage, seams, channels, cancelling.

References are numpy, from the meshes' own definitions: the plane maps
(u, v) to (2u − 1, 2v − 1, 0), so a texel's value is known at its centre
((i + ½)/N, 1 − (r + ½)/N for column i, row r counted from the top).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.export import bake as bake_module
from app.export.bake import BakeCancelled, BakeError, Baker, BakeSettings, bake_material
from app.export.surface import ExportError
from app.material.graph import MaterialGraph
from app.preview.mesh import build_mesh, make_mesh

pytestmark = pytest.mark.gl

CONTEXTS = ["current_gl", "current_gles"]
SIZE = 64


def texel_centres(size: int) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) of every texel centre, top row first (as the baked images)."""
    centres = (np.arange(size) + 0.5) / size
    u = np.broadcast_to(centres[None, :], (size, size))
    v = np.broadcast_to(1.0 - centres[:, None], (size, size))
    return u, v


def unlit_world_position() -> MaterialGraph:
    graph = MaterialGraph()
    position = graph.add_node("world_position")
    output = graph.add_node("material_output", properties={"emissive": (0.0, 0.0, 0.0, 1.0)})
    graph.connect(position.id, "out", output.id, "base_color")
    return graph


def settings(**changes) -> BakeSettings:
    values = {"size": SIZE, "mesh": "plane", "padding": 2}
    values.update(changes)
    return BakeSettings(**values)


@pytest.mark.parametrize("context", CONTEXTS)
def test_texels_hold_the_value_at_their_centre(request, context: str) -> None:
    request.getfixturevalue(context)
    baked = bake_material(unlit_world_position(), settings(), any_size=True)
    u, v = texel_centres(SIZE)
    expected = np.stack([2 * u - 1, 2 * v - 1, np.zeros_like(u)], axis=-1)
    assert np.abs(baked.channel("base_color") - expected).max() < 1e-4
    assert np.all(baked.coverage == 1.0)  # the plane fills the UV square


def test_tiles_and_supersampling_give_the_same_texels(current_gl, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = bake_material(unlit_world_position(), settings(), any_size=True)
    monkeypatch.setattr(bake_module, "TILE_SAMPLES", 24)  # 3 x 3 tiles, the last ones partial
    tiled = bake_material(unlit_world_position(), settings(), any_size=True)
    assert np.abs(tiled.passes["base"] - whole.passes["base"]).max() < 1e-6
    supersampled = bake_material(unlit_world_position(), settings(supersampling=4), any_size=True)
    # A linear function: the mean of a texel's 16 samples is its value at the centre.
    assert np.abs(supersampled.passes["base"] - whole.passes["base"]).max() < 1e-4


def half_square() -> object:
    """One triangle covering the half u + v < 1 of the UV square."""
    positions = np.array([[-1, -1, 0], [1, -1, 0], [-1, 1, 0]], dtype=np.float32)
    normals = np.tile(np.array([0, 0, 1], dtype=np.float32), (3, 1))
    texcoords = np.array([[0, 0], [1, 0], [0, 1]], dtype=np.float32)
    return build_mesh("half", positions, normals, texcoords, np.array([[0, 1, 2]]))


def test_coverage_supersampling_and_dilation_across_the_edge(current_gl) -> None:
    baked = bake_material(unlit_world_position(), settings(supersampling=4, padding=3), any_size=True, mesh=half_square())
    u, v = texel_centres(SIZE)
    inside = u + v < 1.0 - 1.5 / SIZE
    outside = u + v > 1.0 + 1.5 / SIZE
    assert np.all(baked.coverage[inside] == 1.0) and np.all(baked.coverage[outside] == 0.0)
    edge = ~inside & ~outside
    assert np.any((baked.coverage[edge] > 0.0) & (baked.coverage[edge] < 1.0))  # partial texels on the diagonal
    values = baked.passes["base"][:, :, :3]
    expected = np.stack([2 * u - 1, 2 * v - 1, np.zeros_like(u)], axis=-1)
    assert np.abs(values[inside] - expected[inside]).max() < 1e-4
    # Outside: every texel filled (rings, then push-pull) with values from inside, never the black background.
    assert np.isfinite(values).all()
    assert values[outside][:, 0].min() >= -1.0 and values[outside][:, 0].max() <= 1.0
    first_ring = outside & (u + v < 1.0 + 3.0 / SIZE)
    # Next to the diagonal the fill continues the island's values (close to the edge's own).
    edge_value = 2 * u - 1
    assert np.abs(values[first_ring][:, 0] - edge_value[first_ring]).max() < 4.0 / SIZE * 2


def surface_graph(**inputs) -> tuple[MaterialGraph, str]:
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties=inputs)
    return graph, output.id


def test_a_material_without_connections_is_all_constants(current_gl) -> None:
    graph, _ = surface_graph(base_color=(0.2, 0.4, 0.6, 1.0), metallic=1.0, roughness=0.3, emissive_color=(1.0, 0.5, 0.0, 1.0),
                             emissive_strength=4.0, specular=0.5)
    baked = bake_material(graph, settings(), any_size=True)
    assert baked.passes == {}
    assert baked.constant("base_color") == pytest.approx((0.2, 0.4, 0.6))  # properties are binary32 values
    assert baked.constant("metallic") == (1.0,) and baked.constant("roughness") == pytest.approx((0.3,))
    assert baked.constant("emissive") == (4.0, 2.0, 0.0) and baked.constant("specular") == (0.5,)
    assert baked.constant("normal") == (0.0, 0.0, 1.0) and baked.description.alpha_mode == "OPAQUE"
    assert np.all(baked.coverage == 1.0)


def test_tangent_space_normals_round_trip_the_normal_map(current_gl) -> None:
    """Normal Map(t) into the Surface Output bakes to normalize(2t − 1) wherever the tangent frame is defined."""
    graph, output = surface_graph()
    texel = graph.add_node("constant_vec3", properties={"value": (0.8, 0.3, 0.9)})
    normal_map = graph.add_node("normal_map")
    graph.connect(texel.id, "out", normal_map.id, "tangent_normal")
    graph.connect(normal_map.id, "normal_out", output, "normal")
    baked = bake_material(graph, settings(mesh="sphere", size=128), any_size=True)
    expected = np.array([0.6, -0.4, 0.8]) / np.linalg.norm([0.6, -0.4, 0.8])
    normals = baked.channel("normal")
    band = normals[8:-8]  # away from the poles, where the sphere's tangent frame degenerates
    assert np.abs(band - expected).max() < 2e-3


def test_emission_above_one_and_a_connected_alpha_clip(current_gl) -> None:
    graph, output = surface_graph(emissive_color=(1.0, 0.5, 0.25, 1.0))
    strength = graph.add_node("float_parameter", properties={"name": "glow", "default": 5.0, "maximum": 10.0})
    graph.connect(strength.id, "out", output, "emissive_strength")
    position = graph.add_node("world_position")
    split = graph.add_node("split")
    graph.connect(position.id, "out", split.id, "vector")
    threshold = graph.add_node("constant_float", properties={"value": 0.2})
    graph.connect(split.id, "x", output, "opacity")
    graph.connect(threshold.id, "out", output, "alpha_clip")
    baked = bake_material(graph, settings(), any_size=True)
    assert baked.constant("emissive") == pytest.approx((5.0, 2.5, 1.25), abs=1e-5)
    assert baked.description.alpha_mode == "MASK" and baked.description.alpha_cutoff == 0.5
    u, _ = texel_centres(SIZE)
    # kept <=> opacity >= threshold <=> opacity - threshold + 0.5 >= cutoff 0.5
    expected = np.clip((2 * u - 1) - 0.2 + 0.5, 0.0, 1.0)
    assert np.abs(baked.channel("opacity")[:, :, 0] - expected).max() < 1e-4


def test_cancelling_stops_the_bake(current_gl) -> None:
    calls = []

    def progress(done: int, total: int, what: str) -> bool:
        calls.append((done, total, what))
        return len(calls) < 2

    with pytest.raises(BakeCancelled):
        bake_material(unlit_world_position(), settings(), any_size=True, progress=progress)
    assert len(calls) == 2
    # The context is usable afterwards: the next bake works.
    assert bake_material(unlit_world_position(), settings(), any_size=True).size == SIZE


def test_progress_reaches_the_total(current_gl, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bake_module, "TILE_SAMPLES", 32)
    calls = []
    bake_material(unlit_world_position(), settings(), any_size=True, progress=lambda *call: calls.append(call) or True)
    assert calls[-1][0] == calls[-1][1] == 2 * 4  # coverage and base, four tiles each
    assert [done for done, _, _ in calls] == sorted(done for done, _, _ in calls)


def test_bad_settings_and_materials_are_reported() -> None:
    with pytest.raises(BakeError, match="between 256 and 4096"):
        BakeSettings(size=100).validated()
    with pytest.raises(BakeError, match="supersampling"):
        BakeSettings(supersampling=3).validated()
    for time in (1e308, -1.0):  # 1e308 overflowed a 32-bit float deep in the bake; the scene time counts from 0
        with pytest.raises(BakeError, match=r"^--time \(seconds\) must be between 0 and 86400, not "):
            BakeSettings(time=time).validated()
    with pytest.raises(BakeError, match=r"^--time \(seconds\) must be a finite number, not inf"):
        BakeSettings(time=float("inf")).validated()
    assert BakeSettings(time=86400.0).validated().time == 86400.0  # the editor's --time takes the same range
    with pytest.raises(ExportError, match="no output node"):
        Baker(MaterialGraph(), BakeSettings())
    with pytest.raises(BakeError, match="cannot read the mesh file"):
        Baker(unlit_world_position(), BakeSettings(mesh="/no/such/mesh.obj")).mesh()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this platform")
def test_a_bake_mesh_whose_buffer_is_dev_zero_is_refused_unread(tmp_path: Path) -> None:
    # `vpl bake --mesh scene.gltf` with a buffer URI of /dev/zero ended in MemoryError.
    import json

    (tmp_path / "zero.gltf").write_text(json.dumps({
        "asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}], "buffers": [{"byteLength": 36, "uri": "/dev/zero"}]}))
    with pytest.raises(BakeError, match=r"cannot read buffer file '/dev/zero': a device, not a regular file"):
        Baker(unlit_world_position(), BakeSettings(mesh=str(tmp_path / "zero.gltf"))).mesh()


def test_a_material_that_does_not_lower_names_the_node(current_gl) -> None:
    graph, output = surface_graph()
    broken = graph.add_node("sample_texture")  # its texture input is not connected
    graph.connect(broken.id, "rgba", output, "base_color")
    with pytest.raises(BakeError, match=f"cannot bake base: {broken.id}: input 'texture' needs a texture"):
        bake_material(graph, settings(), any_size=True)


def test_meshes_bake_with_their_seams_covered(current_gl) -> None:
    """Every built-in mesh bakes; the cube's islands leave uncovered texels, which dilation fills."""
    for name in ("cube", "torus", "ball"):
        baked = bake_material(unlit_world_position(), settings(mesh=name, size=128), any_size=True)
        assert 0.05 < float(baked.coverage.mean()) <= 1.0, name
        assert np.isfinite(baked.passes["base"]).all()
    assert make_mesh("cube").vertex_count > 0
