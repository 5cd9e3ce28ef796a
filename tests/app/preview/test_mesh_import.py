"""Mesh files (app/preview/mesh_import.py): OBJ and glTF/GLB files the tests write, with and without
normals, texture coordinates and tangents; transforms, strips and fans; and every kind of bad file.

These check `read_mesh_file` (the file's triangles, normals and texture
coordinates, normalised to the view); tangent generation on imported
meshes, mirrored UVs included, is checked where the preview meshes are
built.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pygltflib
import pytest
from bounded import finishes, python_child
from tiers import fast_tier

from app.preview.mesh_import import (
    MAX_INSTANCES,
    MAX_NODE_VISITS,
    MAX_TRIANGLES,
    MeshImportError,
    box_projection,
    import_mesh,
    read_mesh_file,
)

# --- writing test files ---------------------------------------------------------------------------

QUAD_OBJ = """# a unit quad in the z = 0 plane, facing +z
v 0 0 0
v 2 0 0
v 2 2 0
v 0 2 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
f 1/1/1 2/2/1 3/3/1 4/4/1
"""

CUBE_OBJ_WITHOUT_NORMALS_OR_UVS = """mtllib nowhere.mtl
o Cube
v -1 -1 -1
v 1 -1 -1
v 1 1 -1
v -1 1 -1
v -1 -1 1
v 1 -1 1
v 1 1 1
v -1 1 1
usemtl missing
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
"""


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def write_gltf(
    path: Path,
    positions: np.ndarray,
    indices: np.ndarray | None,
    normals: np.ndarray | None = None,
    texcoords: np.ndarray | None = None,
    tangents: np.ndarray | None = None,
    node: dict | None = None,
    colors: np.ndarray | None = None,
    color_component_type: int = 5126,
    mode: int = 4,
    index_type: int = 5125,
) -> Path:
    """A glTF 2.0 file (.glb: one binary chunk; .gltf: an embedded data URI) with one mesh on one node."""
    chunks: list[bytes] = []
    views, accessors = [], []
    attributes = {}

    def add(array: np.ndarray, accessor_type: str, component_type: int = 5126, target: int = 34962, normalized: bool = False) -> int:
        data = np.ascontiguousarray(array).tobytes()
        offset = sum(len(chunk) for chunk in chunks)
        chunks.append(data + b"\0" * (-len(data) % 4))
        views.append(pygltflib.BufferView(buffer=0, byteOffset=offset, byteLength=len(data), target=target))
        extra = {}
        if accessor_type == "VEC3" and component_type == 5126:
            extra = {"min": array.min(axis=0).tolist(), "max": array.max(axis=0).tolist()}
        if normalized:
            extra["normalized"] = True
        accessors.append(pygltflib.Accessor(bufferView=len(views) - 1, componentType=component_type, count=len(array), type=accessor_type, **extra))
        return len(accessors) - 1

    attributes["POSITION"] = add(np.asarray(positions, np.float32), "VEC3")
    if normals is not None:
        attributes["NORMAL"] = add(np.asarray(normals, np.float32), "VEC3")
    if texcoords is not None:
        attributes["TEXCOORD_0"] = add(np.asarray(texcoords, np.float32), "VEC2")
    if tangents is not None:
        attributes["TANGENT"] = add(np.asarray(tangents, np.float32), "VEC4")
    if colors is not None:
        dtype = {5126: np.float32, 5121: np.uint8, 5123: np.uint16}[color_component_type]
        kind = {2: "VEC2", 3: "VEC3", 4: "VEC4"}[np.asarray(colors).shape[1]]
        attributes["COLOR_0"] = add(np.asarray(colors).astype(dtype), kind, color_component_type, normalized=color_component_type != 5126)
    index_accessor = None
    if indices is not None:
        dtype = {5121: np.uint8, 5123: np.uint16, 5125: np.uint32}[index_type]
        index_accessor = add(np.asarray(indices, dtype).reshape(-1), "SCALAR", index_type, 34963)
    blob = b"".join(chunks)
    primitive = pygltflib.Primitive(attributes=pygltflib.Attributes(**attributes), indices=index_accessor, mode=mode)
    document = pygltflib.GLTF2(
        scene=0,
        scenes=[pygltflib.Scene(nodes=[0])],
        nodes=[pygltflib.Node(mesh=0, **(node or {}))],
        meshes=[pygltflib.Mesh(primitives=[primitive])],
        accessors=accessors,
        bufferViews=views,
        buffers=[pygltflib.Buffer(byteLength=len(blob))],
    )
    document.set_binary_blob(blob)
    if path.suffix == ".gltf":
        document.convert_buffers(pygltflib.BufferFormat.DATAURI)
        document.save_json(str(path))
    else:
        document.save_binary(str(path))
    return path


def grid(columns: int, rows: int, mirrored_right_half: bool = False) -> tuple[np.ndarray, ...]:
    """A plane facing +z over [-1, 1]^2 as a grid; u follows x (mirrored on the right half when asked), v follows y."""
    xs, ys = np.meshgrid(np.linspace(-1.0, 1.0, columns + 1), np.linspace(-1.0, 1.0, rows + 1))
    positions = np.stack([xs, ys, np.zeros_like(xs)], axis=-1).reshape(-1, 3)
    u = (xs + 1.0) / 2.0
    if mirrored_right_half:
        u = 0.5 - np.abs(xs) / 2.0  # u grows towards the middle from both sides
    texcoords = np.stack([u, (ys + 1.0) / 2.0], axis=-1).reshape(-1, 2)
    normals = np.tile([0.0, 0.0, 1.0], (len(positions), 1))
    row = columns + 1
    cells = [(r * row + c, r * row + c + 1, (r + 1) * row + c + 1, (r + 1) * row + c) for r in range(rows) for c in range(columns)]
    indices = np.array([(a, b, c) for a, b, c, _ in cells] + [(a, c, d) for a, _, c, d in cells])
    return positions, normals, texcoords, indices


def face_normals(mesh) -> np.ndarray:
    p, i = mesh.positions, mesh.triangles
    normals = np.cross(p[i[:, 1]] - p[i[:, 0]], p[i[:, 2]] - p[i[:, 0]])
    return normals / np.linalg.norm(normals, axis=1, keepdims=True)


def assert_consistent(mesh) -> None:
    """Unit normals agreeing with the winding, unit bounding radius, given tangents orthogonal with w = +-1."""
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-6)
    corner_normals = mesh.normals[mesh.triangles].mean(axis=1)
    assert np.all(np.einsum("ij,ij->i", face_normals(mesh), corner_normals) > 0.0)
    assert np.linalg.norm(mesh.positions, axis=1).max() == pytest.approx(1.0, abs=1e-6)
    assert mesh.texcoords.shape == (len(mesh.positions), 2) and np.isfinite(mesh.texcoords).all()
    if mesh.tangents is not None:
        assert np.allclose(np.linalg.norm(mesh.tangents[:, :3], axis=1), 1.0, atol=1e-5)
        assert set(np.unique(mesh.tangents[:, 3])) <= {-1.0, 1.0}


# --- OBJ ------------------------------------------------------------------------------------------


def test_an_obj_with_normals_and_uvs_keeps_them_and_is_normalised(tmp_path: Path) -> None:
    mesh = read_mesh_file(write_text(tmp_path / "quad.obj", QUAD_OBJ))
    assert mesh.name == "quad" and len(mesh.triangles) == 2
    assert_consistent(mesh)
    assert np.allclose(mesh.normals, [0.0, 0.0, 1.0])
    # Centred: the 2x2 quad becomes [-0.707, 0.707]^2 (bounding radius 1).
    assert np.allclose(np.sort(np.unique(mesh.positions[:, 0])), [-np.sqrt(0.5), np.sqrt(0.5)], atol=1e-6)
    # u grows along +x, v along +y, as in the file.
    assert np.allclose(mesh.texcoords[np.argmin(mesh.positions.sum(axis=1))], [0.0, 0.0])
    assert mesh.tangents is None and mesh.notes == ()


def test_an_obj_without_normals_or_uvs_gets_flat_normals_and_a_box_projection(tmp_path: Path) -> None:
    mesh = read_mesh_file(write_text(tmp_path / "cube.obj", CUBE_OBJ_WITHOUT_NORMALS_OR_UVS))
    assert len(mesh.triangles) == 12
    assert_consistent(mesh)
    # Flat: every vertex normal is one of the six axes; 4 own vertices per face (welded).
    assert np.allclose(np.abs(mesh.normals).max(axis=1), 1.0)
    assert len(mesh.positions) == 24
    # Each face gets the whole [0, 1] square, unmirrored seen from outside: +u then +v turn
    # counter-clockwise about the outward normal.
    assert np.allclose(mesh.texcoords.min(axis=0), 0.0) and np.allclose(mesh.texcoords.max(axis=0), 1.0)
    t, i = mesh.texcoords, mesh.triangles
    signed_uv_area = (t[i[:, 1]] - t[i[:, 0]])[:, 0] * (t[i[:, 2]] - t[i[:, 0]])[:, 1] - (t[i[:, 2]] - t[i[:, 0]])[:, 0] * (t[i[:, 1]] - t[i[:, 0]])[:, 1]
    assert np.all(signed_uv_area > 0.0)
    assert mesh.notes == ("the file has no normals: flat normals were generated", "the file has no texture coordinates: a box projection was generated")


def test_obj_objects_polygons_and_negative_indices(tmp_path: Path) -> None:
    text = """o first
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0.5 1.5 0
o second
v 3 0 0
v 4 0 0
v 4 1 0
o first
f -8 -7 -6 -4 -5
o second
f 6 7 8
"""
    mesh = read_mesh_file(write_text(tmp_path / "objects.obj", text))
    assert len(mesh.triangles) == 4  # a pentagon fan and a triangle
    assert_consistent(mesh)
    two_sided = QUAD_OBJ + "vn 0 0 -1\nf 4/4/2 3/3/2 2/2/2 1/1/2\n"
    assert len(read_mesh_file(write_text(tmp_path / "quads.obj", two_sided)).triangles) == 4


def test_relative_indices_followed_by_more_vertices_are_refused(tmp_path: Path) -> None:
    """trimesh resolves them against the last vertex of the file (its issue 2364); a clear error, not a tangle."""
    text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 0 0\nv 6 0 0\nv 5 1 0\nf -3 -2 -1\n"
    with pytest.raises(MeshImportError, match=r"negative \(relative\) indices are followed by more vertices"):
        read_mesh_file(write_text(tmp_path / "interleaved.obj", text))



def _srgb_decoded(encoded: np.ndarray) -> np.ndarray:
    """IEC 61966-2-1: sRGB-encoded components to linear."""
    encoded = np.asarray(encoded, dtype=np.float64)
    return np.where(encoded <= 0.04045, encoded / 12.92, ((encoded + 0.055) / 1.055) ** 2.4)


@pytest.mark.parametrize(("written", "encoded"), [
    ("1 0 0|0 0.5 0|0 0 0.25", [(1, 0, 0), (0, 0.5, 0), (0, 0, 0.25)]),
    ("255 0 0|0 128 0|0 0 64", [(1, 0, 0), (0, 128 / 255, 0), (0, 0, 64 / 255)]),
])
def test_obj_vertex_colours_are_display_colours_decoded_to_linear(tmp_path: Path, written: str, encoded: list) -> None:
    rows = written.split("|")
    text = f"v 0 0 0 {rows[0]}\nv 1 0 0 {rows[1]}\nv 0 1 0 {rows[2]}\nf 1 2 3\n"
    mesh = read_mesh_file(write_text(tmp_path / "coloured.obj", text))
    assert mesh.colors is not None and mesh.colors.shape == (3, 4)
    by_corner = {tuple(p[:2] * np.sqrt(0.5) + 0.5): c for p, c in zip(mesh.positions, mesh.colors)}  # undo the normalisation
    for corner, rgb in zip([(0, 0), (1, 0), (0, 1)], encoded):
        color = next(c for key, c in by_corner.items() if np.allclose(key, corner, atol=1e-3))
        assert np.allclose(color, [*_srgb_decoded(rgb), 1.0], atol=1e-9)


def test_an_obj_without_colours_gives_a_mesh_without(tmp_path: Path) -> None:
    assert read_mesh_file(write_text(tmp_path / "quad.obj", QUAD_OBJ)).colors is None

# --- glTF -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_a_gltf_with_every_attribute_keeps_the_files_tangents(tmp_path: Path, suffix: str) -> None:
    positions, normals, texcoords, indices = grid(2, 2)
    # glTF texture coordinates start at the top left: v_gltf = 1 - v.
    gltf_uv = np.stack([texcoords[:, 0], 1.0 - texcoords[:, 1]], axis=-1)
    tangents = np.tile([0.0, 1.0, 0.0, -1.0], (len(positions), 1))  # deliberately unusual, to see it kept
    mesh = read_mesh_file(write_gltf(tmp_path / f"grid{suffix}", positions, indices, normals, gltf_uv, tangents))
    assert len(mesh.triangles) == 8 and mesh.notes == ()
    assert np.allclose(mesh.tangents, [0.0, 1.0, 0.0, -1.0])
    # Back in the preview's convention (v up): the texcoords are the grid's own.
    by_position = {tuple(np.round(p, 5)): t for p, t in zip(mesh.positions * np.sqrt(2.0), mesh.texcoords)}
    for position, texcoord in zip(positions, texcoords):
        assert np.allclose(by_position[tuple(np.round(position, 5))], texcoord, atol=1e-6)


def test_a_gltf_without_normals_ignores_its_tangents_and_gets_flat_normals(tmp_path: Path) -> None:
    positions, _normals, texcoords, indices = grid(1, 1)
    tangents = np.tile([0.0, 1.0, 0.0, -1.0], (len(positions), 1))
    mesh = read_mesh_file(write_gltf(tmp_path / "bare.glb", positions, indices, None, texcoords, tangents))
    assert np.allclose(mesh.normals, [0.0, 0.0, 1.0])
    assert mesh.tangents is None  # to be generated, not the file's
    assert mesh.notes == ("the file has no normals: flat normals were generated",)


def test_a_gltf_with_positions_only_gets_everything_generated(tmp_path: Path) -> None:
    positions, _normals, _texcoords, indices = grid(3, 3)
    mesh = read_mesh_file(write_gltf(tmp_path / "positions.glb", positions, indices))
    assert_consistent(mesh)
    assert len(mesh.notes) == 2 and mesh.tangents is None


def test_node_transforms_apply_and_a_mirroring_scale_rewinds_triangles(tmp_path: Path) -> None:
    positions, normals, texcoords, indices = grid(1, 1)
    node = {"rotation": [0.0, np.sin(np.pi / 4), 0.0, np.cos(np.pi / 4)], "scale": [-1.0, 1.0, 1.0], "translation": [5.0, 0.0, 0.0]}
    mesh = read_mesh_file(write_gltf(tmp_path / "mirrored-node.glb", positions, indices, normals, texcoords, node=node))
    # Scale x by -1 keeps the normal +z; a 90 degree turn about y takes +z to +x.
    assert np.allclose(mesh.normals, [1.0, 0.0, 0.0], atol=1e-6)
    assert_consistent(mesh)


@pytest.mark.parametrize(("mode", "index_type"), [(5, 5123), (6, 5121)])
def test_strips_and_fans_become_triangles(tmp_path: Path, mode: int, index_type: int) -> None:
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 2, 0]], dtype=np.float32)
    if mode == 6:
        positions = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [-1, 0.5, 0]], dtype=np.float32)
    mesh = read_mesh_file(write_gltf(tmp_path / "strip.glb", positions, np.arange(5), mode=mode, index_type=index_type))
    assert len(mesh.triangles) == 3
    assert_consistent(mesh)
    assert np.allclose(mesh.normals, [0.0, 0.0, 1.0])


# --- errors ---------------------------------------------------------------------------------------


def test_points_and_lines_only_have_no_triangles(tmp_path: Path) -> None:
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32)
    with pytest.raises(MeshImportError, match=r"points\.glb: the file has no triangles"):
        read_mesh_file(write_gltf(tmp_path / "points.glb", positions, None, mode=0))
    with pytest.raises(MeshImportError, match=r"lines\.obj: the file has no triangles"):
        read_mesh_file(write_text(tmp_path / "lines.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2 3\n"))
    with pytest.raises(MeshImportError, match="no triangles"):
        read_mesh_file(write_text(tmp_path / "degenerate.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n"))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.obj", None, r"missing\.obj: no such mesh file"),
        ("mesh.fbx", b"Kaydara FBX Binary", r"unsupported mesh format '\.fbx'; expected \.obj, \.gltf or \.glb"),
        ("empty.glb", b"", r"empty\.glb: not a readable glTF file"),
        ("garbage.glb", b"glTF\x02\x00\x00\x00" + bytes(range(256)) * 3, r"garbage\.glb: "),
        ("not-json.gltf", b"{ this is not json", r"not-json\.gltf: not a readable glTF file"),
        ("empty.obj", b"", r"empty\.obj: the file has no triangles"),
        ("bad-index.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", r"bad-index\.obj: "),
        ("binary.obj", bytes(range(256)) * 4, r"binary\.obj: "),
    ],
)
def test_bad_files_give_one_line_errors(tmp_path: Path, name: str, content: bytes | None, message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(MeshImportError, match=message) as caught:
        read_mesh_file(path)
    assert "\n" not in str(caught.value)


def test_malformed_gltf_structures_are_errors_not_crashes(tmp_path: Path) -> None:
    positions, normals, texcoords, indices = grid(1, 1)
    path = write_gltf(tmp_path / "good.gltf", positions, indices, normals, texcoords)
    document = pygltflib.GLTF2().load(str(path))
    cases = {
        "index out of range": lambda d: setattr(d.meshes[0].primitives[0], "indices", 42),
        "accessor past its view": lambda d: setattr(d.accessors[0], "count", 1000),
        "missing node": lambda d: setattr(d.scenes[0], "nodes", [7]),
        "no position": lambda d: setattr(d.meshes[0].primitives[0].attributes, "POSITION", None),
        "draco": lambda d: setattr(d, "extensionsRequired", ["KHR_draco_mesh_compression"]),
        "missing buffer file": lambda d: setattr(d.buffers[0], "uri", "nowhere.bin"),
    }
    for label, damage in cases.items():
        damaged = pygltflib.GLTF2().load(str(path))
        damage(damaged)
        target = tmp_path / f"damaged-{label.replace(' ', '-')}.gltf"
        damaged.save_json(str(target))
        with pytest.raises(MeshImportError, match=target.name.replace(".", r"\.")):
            read_mesh_file(target)
    assert document.meshes


def test_random_bytes_never_escape_as_another_exception(tmp_path: Path) -> None:
    rng = np.random.default_rng(20)
    path_obj, path_glb = tmp_path / "fuzz.obj", tmp_path / "fuzz.glb"
    positions, normals, texcoords, indices = grid(1, 1)
    good = write_gltf(tmp_path / "seed.glb", positions, indices, normals, texcoords).read_bytes()
    for _ in range(60):
        data = bytearray(good)
        for position in rng.integers(0, len(data), size=8):
            data[position] = rng.integers(0, 256)
        path_glb.write_bytes(bytes(data))
        path_obj.write_bytes(bytes(rng.integers(32, 127, size=200).astype(np.uint8)).replace(b"~", b"\n"))
        for path in (path_glb, path_obj):
            with contextlib.suppress(MeshImportError):  # anything else fails the test
                read_mesh_file(path)


def test_box_projection_splits_vertices_between_axes() -> None:
    from app.preview.mesh_import import _Part

    positions = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    part = _Part(positions, np.array([[0, 2, 1], [0, 1, 3]]))  # one triangle facing -z, one facing -y
    projected = box_projection(part)
    assert len(projected.positions) == 6 and projected.texcoords.shape == (6, 2)



@pytest.mark.parametrize(("component_type", "scale"), [(5126, 1.0), (5121, 255.0), (5123, 65535.0)])
def test_gltf_color_0_is_linear_rgba_floats_or_normalised_integers(tmp_path: Path, component_type: int, scale: float) -> None:
    positions, normals, texcoords, indices = grid(1, 1)
    colors = np.array([(1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 0.5), (0.0, 0.0, 1.0, 0.0), (0.2, 0.4, 0.6, 0.8)])
    stored = colors if scale == 1.0 else np.round(colors * scale)
    mesh = read_mesh_file(write_gltf(tmp_path / "coloured.glb", positions, indices, normals, texcoords,
                                     colors=stored, color_component_type=component_type))
    by_position = {tuple(np.round(p, 5)): c for p, c in zip(mesh.positions * np.sqrt(2.0), mesh.colors)}
    for position, color in zip(positions, stored / scale):
        assert np.allclose(by_position[tuple(np.round(position, 5))], color, atol=1e-7)  # linear: not decoded


def test_gltf_rgb_colours_get_alpha_one_and_a_two_component_color_is_an_error(tmp_path: Path) -> None:
    positions, normals, texcoords, indices = grid(1, 1)
    rgb = np.array([(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.5, 0.5, 0.5)])
    mesh = read_mesh_file(write_gltf(tmp_path / "rgb.gltf", positions, indices, normals, texcoords, colors=rgb))
    assert mesh.colors.shape == (4, 4) and np.array_equal(mesh.colors[:, 3], np.ones(4))
    assert read_mesh_file(write_gltf(tmp_path / "plain.glb", positions, indices, normals, texcoords)).colors is None
    with pytest.raises(MeshImportError, match="COLOR_0"):
        read_mesh_file(write_gltf(tmp_path / "bad.glb", positions, indices, normals, texcoords, colors=rgb[:, :2]))


def test_imported_colours_reach_the_mesh_the_preview_draws(tmp_path: Path) -> None:
    positions, normals, texcoords, indices = grid(2, 2, mirrored_right_half=True)
    colors = np.concatenate([(positions[:, :3] + 1.0) / 2.0, np.ones((len(positions), 1))], axis=1)
    imported = import_mesh(write_gltf(tmp_path / "mirrored.glb", positions, indices, normals, texcoords, colors=colors))
    mesh = imported.mesh
    assert mesh.vertex_count > len(positions)  # split on the mirrored seam, colours kept per vertex
    expected = np.concatenate([(mesh.positions * np.sqrt(2.0) + 1.0) / 2.0, np.ones((mesh.vertex_count, 1))], axis=1)
    assert np.allclose(mesh.colors, expected, atol=1e-5)


def _scene_json(instances: int, buffer_uri: str, corners: int = 3) -> str:
    """A .gltf placing one POSITION-only mesh (`corners` vertices, no indices) at `instances` nodes."""
    import json

    return json.dumps({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": list(range(instances))}],
        "nodes": [{"mesh": 0, "translation": [index * 0.001, 0, 0]} for index in range(instances)],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": corners, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 12 * corners}],
        "buffers": [{"byteLength": 12 * corners, "uri": buffer_uri}],
    })


def _import_in_child(path: Path, seconds: float = 120.0) -> str:
    child = python_child(f"""
from app.preview.mesh_import import MeshImportError, read_mesh_file
try:
    read_mesh_file({str(path)!r})
    print("read")
except MeshImportError as error:
    print(error)
""", seconds)
    assert child.returncode == 0, child.stderr[-2000:]
    return child.stdout.strip()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this platform")
def test_a_buffer_uri_naming_dev_zero_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "zero.gltf").write_text(_scene_json(1, "/dev/zero"))
    assert _import_in_child(tmp_path / "zero.gltf") == (
        f"{tmp_path / 'zero.gltf'}: cannot read buffer file '/dev/zero': a device, not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_buffer_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.bin")
    (tmp_path / "pipe.gltf").write_text(_scene_json(1, "pipe.bin"))
    with pytest.raises(MeshImportError, match=r"cannot read buffer file 'pipe\.bin': a pipe \(FIFO\), not a regular file"):
        finishes(lambda: read_mesh_file(tmp_path / "pipe.gltf"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_mesh_file_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.obj")
    with pytest.raises(MeshImportError, match=r"pipe\.obj: a pipe \(FIFO\), not a regular file"):
        finishes(lambda: read_mesh_file(tmp_path / "pipe.obj"))


#: The share of the instance and triangle limits the fast tier checks them at (tests/tiers.py): the same checks in the
#: same order, in-process, on scenes a thousand times smaller. The full tier reads the full-size scenes in a guarded
#: child (a regression that expands them fails there instead of exhausting the test process).
FAST_TIER_LIMIT_SHARE = 1000


def _budget_refusal(path_of: Callable[[int], Path], monkeypatch: pytest.MonkeyPatch) -> tuple[str, int, int]:
    """The refusal of the scene `path_of(share)` writes (its sizes divided by `share`), and the instance and triangle
    limits it met: the real ones in a guarded child in the full tier, a `FAST_TIER_LIMIT_SHARE`th of them
    in-process in the fast tier."""
    if not fast_tier():
        return _import_in_child(path_of(1)), MAX_INSTANCES, MAX_TRIANGLES
    from app.preview import mesh_import

    instances, triangles = MAX_INSTANCES // FAST_TIER_LIMIT_SHARE, MAX_TRIANGLES // FAST_TIER_LIMIT_SHARE
    monkeypatch.setattr(mesh_import, "MAX_INSTANCES", instances)
    monkeypatch.setattr(mesh_import, "MAX_TRIANGLES", triangles)
    with pytest.raises(MeshImportError) as refused:
        read_mesh_file(path_of(FAST_TIER_LIMIT_SHARE))
    return str(refused.value), instances, triangles


def test_too_many_instances_are_refused_before_they_are_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crowd(share: int) -> Path:
        (tmp_path / "crowd.gltf").write_text(_scene_json(MAX_INSTANCES // share + 1, "missing.bin"))
        return tmp_path / "crowd.gltf"

    refusal, instances, _ = _budget_refusal(crowd, monkeypatch)
    assert refusal == (f"{tmp_path / 'crowd.gltf'}: the scene places more than {instances} mesh instances; "
                       f"the preview takes at most {instances}")


def test_a_scene_listing_more_nodes_than_the_walk_budget_is_refused_before_any_is_read(tmp_path: Path) -> None:
    # Two million listed nodes took a 4x4 matrix each before the walk began (about 20 s here). The node
    # popped first does not exist: the refusal must come from the list's length, before any node is read.
    import json

    document = json.loads(_scene_json(1, "missing.bin"))
    document["scenes"][0]["nodes"] = [0] * MAX_NODE_VISITS + [7]
    (tmp_path / "listed.gltf").write_text(json.dumps(document))
    with pytest.raises(MeshImportError, match=rf"the scene walks more than {MAX_NODE_VISITS} nodes"):
        read_mesh_file(tmp_path / "listed.gltf")
    # The same through children: a node listing more children than the budget.
    document["scenes"][0]["nodes"] = [1]
    document["nodes"].append({"children": [0] * MAX_NODE_VISITS + [7]})
    (tmp_path / "children.gltf").write_text(json.dumps(document))
    with pytest.raises(MeshImportError, match=rf"the scene walks more than {MAX_NODE_VISITS} nodes"):
        read_mesh_file(tmp_path / "children.gltf")


def test_the_triangle_budget_is_checked_before_any_buffer_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 50,000 instances of a 100-triangle mesh: 5 million triangles (50 in the fast tier: 5,000). The buffer file
    # does not exist: the refusal must come from the counts alone, before any buffer is read or any instance expanded.
    def dense(share: int) -> Path:
        (tmp_path / "dense.gltf").write_text(_scene_json(50_000 // share, "missing.bin", corners=300))
        return tmp_path / "dense.gltf"

    refusal, _, triangles = _budget_refusal(dense, monkeypatch)
    placed = 50_000 // (FAST_TIER_LIMIT_SHARE if fast_tier() else 1)
    assert refusal == (f"{tmp_path / 'dense.gltf'}: the scene places more than {triangles} triangles ({placed} mesh "
                       f"instances); the preview takes at most {triangles}")


def test_instances_of_one_mesh_are_placed_each_at_its_node(tmp_path: Path) -> None:
    import base64

    triangle = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32).tobytes()
    (tmp_path / "three.gltf").write_text(
        _scene_json(3, "data:application/octet-stream;base64," + base64.b64encode(triangle).decode()))
    data = read_mesh_file(tmp_path / "three.gltf")
    assert len(data.triangles) == 3  # three copies, not one moved three times


def test_instances_placed_at_once_equal_each_placed_alone() -> None:
    from app.preview.mesh_import import _instanced, _Part, _transformed

    generator = np.random.default_rng(5)
    part = _Part(generator.normal(size=(4, 3)), np.array([[0, 1, 2], [0, 2, 3]]), generator.normal(size=(4, 3)),
                 generator.random((4, 2)), np.concatenate([generator.normal(size=(4, 3)), [[1.0], [-1.0], [1.0], [1.0]]], axis=1),
                 generator.random((4, 4)))
    matrices = np.stack([np.eye(4)] * 3)
    matrices[1, :3, :3] = np.diag([-1.0, 2.0, 1.0])  # mirrored: re-wound, tangent sign flipped
    matrices[2, :3, :3] = generator.normal(size=(3, 3))
    matrices[:, :3, 3] = generator.normal(size=(3, 3))
    together = _instanced(part, matrices)
    alone = [_transformed(part, matrix) for matrix in matrices]
    for name in ("positions", "normals", "texcoords", "tangents", "colors"):
        np.testing.assert_allclose(getattr(together, name), np.concatenate([getattr(one, name) for one in alone]), err_msg=name)
    np.testing.assert_array_equal(together.triangles, np.concatenate([one.triangles + 4 * k for k, one in enumerate(alone)]))


def test_a_node_mesh_that_is_not_an_index_is_named(tmp_path: Path) -> None:
    # Found by tests/fuzz/run_files.py: a list there raised TypeError (unhashable) while counting triangles.
    import json

    document = json.loads(_scene_json(1, "missing.bin"))
    document["nodes"][0]["mesh"] = [0]
    (tmp_path / "odd.gltf").write_text(json.dumps(document))
    with pytest.raises(MeshImportError, match=r"odd\.gltf: node 0's mesh must be a non-negative integer, not \[0\]"):
        read_mesh_file(tmp_path / "odd.gltf")


def test_an_obj_face_index_beyond_int64_is_a_reading_error(tmp_path: Path) -> None:
    # Found by tests/fuzz/run_files.py: trimesh's face parser raised OverflowError.
    # A texture coordinate with one value sends trimesh to its fallback face parser, which overflows.
    (tmp_path / "huge.obj").write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt  0\nvt 1 1\nvt 0 1\nvn 0 0 1\n"
                                       f"f {'1' * 40}/1/1 2/2/1 3/3/1 4/4/1\nf 1 3 4\n")
    with pytest.raises(MeshImportError, match=r"huge\.obj: not a readable OBJ file \(OverflowError"):
        read_mesh_file(tmp_path / "huge.obj")
