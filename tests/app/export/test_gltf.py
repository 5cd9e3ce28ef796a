"""glTF 2.0 export: every PBR example through the Khronos glTF Validator, the material fields, the mesh.

The validator is the npm package `gltf-validator` that scripts/bootstrap.sh
installs into .venv/node (tools/validate_gltf.cjs runs it). Exports must
have 0 errors, 0 warnings, and here also 0 infos and hints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.export.bake import BakedMaterial, Baker, BakeSettings
from app.export.gltf import build_material, export_gltf
from app.export.surface import describe_output
from app.material.document import load_file
from app.material.graph import MaterialGraph
from app.preview.mesh import make_mesh
from app.preview.mesh_import import read_mesh_file

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "resources" / "examples"
PBR_EXAMPLES = ("painted_metal", "brushed_metal", "polished_gold", "rough_plastic", "glazed_ceramic", "material_chart",
                "lacquered_wood",
                "stone_wall", "rusted_metal", "wet_cobblestones", "scattered_pebbles")
NODE_MODULES = ROOT / ".venv" / "node" / "node_modules"


def validate(*files: Path) -> list[dict]:
    """The Khronos validator's reports, one per file."""
    assert (NODE_MODULES / "gltf-validator").is_dir(), "gltf-validator is missing: run scripts/bootstrap.sh"
    completed = subprocess.run(
        ["node", str(ROOT / "tools" / "validate_gltf.cjs"), *map(str, files)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "NODE_PATH": str(NODE_MODULES)},
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def issue_counts(report: dict) -> tuple[int, int, int, int]:
    issues = report["issues"]
    return issues["numErrors"], issues["numWarnings"], issues["numInfos"], issues["numHints"]


@pytest.mark.gl
def test_every_pbr_example_passes_the_khronos_validator(current_gl, tmp_path: Path) -> None:
    files = []
    for name in PBR_EXAMPLES:
        path = EXAMPLES / f"{name}.vpl"
        baker = Baker(load_file(path).graph, BakeSettings(size=256), document_dir=path.parent)
        baked = baker.bake_material()
        for suffix in (".glb", ".gltf"):
            folder = tmp_path / suffix[1:]
            folder.mkdir(exist_ok=True)
            written = export_gltf(baked, baker.mesh(), folder / f"{name}{suffix}", name)
            files.append(written[-1] if suffix == ".gltf" else written[0])
    reports = validate(*files)
    problems = {
        str(file.relative_to(tmp_path)): report["issues"]["messages"]
        for file, report in zip(files, reports) if issue_counts(report) != (0, 0, 0, 0)
    }
    assert problems == {}
    # The validator read every texture (the .gltf's external files too).
    painted = next(report for file, report in zip(files, reports) if file.name == "painted_metal.gltf")
    assert len(painted["info"]["resources"]) == 1 + 3  # buffer, base colour, ORM, normal
    wood = next(file for file in files if file.name == "lacquered_wood.gltf")
    extensions = json.loads(wood.read_text())["materials"][0]["extensions"]
    assert extensions["KHR_materials_clearcoat"] == {"clearcoatFactor": 1.0, "clearcoatRoughnessFactor": 0.04}


def test_the_validator_reports_a_broken_file(tmp_path: Path) -> None:
    """The harness can fail: a document whose accessor overruns its buffer has errors."""
    broken = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 4, "uri": "data:application/octet-stream;base64,AAAAAA=="}],
        "bufferViews": [{"buffer": 0, "byteLength": 4}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
    }
    path = tmp_path / "broken.gltf"
    path.write_text(json.dumps(broken))
    assert issue_counts(validate(path)[0])[0] > 0


# The material fields, from baked data made in numpy ---------------------------------------------


def baked_material(graph: MaterialGraph, passes: dict[str, np.ndarray] | None = None, size: int = 4) -> BakedMaterial:
    return BakedMaterial(describe_output(graph), size, np.ones((size, size), np.float32), passes or {})


def surface(**properties) -> tuple[MaterialGraph, str]:
    graph = MaterialGraph()
    return graph, graph.add_node("surface_output", properties=properties).id


def test_constant_fields_become_factors_and_extensions() -> None:
    graph, _ = surface(base_color=(0.5, 0.25, 1.0, 1.0), metallic=1.0, roughness=0.25, emissive_color=(1.0, 0.5, 0.0, 1.0),
                       emissive_strength=8.0, specular=0.5, opacity=0.5)
    result = build_material(baked_material(graph), "m")
    material = result.material
    assert material["pbrMetallicRoughness"] == {"baseColorFactor": [0.5, 0.25, 1.0, 0.5], "metallicFactor": 1.0, "roughnessFactor": 0.25}
    assert material["emissiveFactor"] == [1.0, 0.5, 0.0]
    assert material["extensions"] == {
        "KHR_materials_emissive_strength": {"emissiveStrength": 8.0},
        "KHR_materials_specular": {"specularFactor": 0.5},
    }
    assert material["alphaMode"] == "BLEND" and "alphaCutoff" not in material
    assert result.images == {} and not result.needs_tangents
    assert sorted(result.extensions) == ["KHR_materials_emissive_strength", "KHR_materials_specular"]


def test_emission_up_to_one_needs_no_extension_and_clip_is_a_mask() -> None:
    graph, _ = surface(emissive_color=(0.5, 0.5, 0.5, 1.0), emissive_strength=2.0, alpha_clip=0.3)
    material = build_material(baked_material(graph), "m").material
    assert material["emissiveFactor"] == [1.0, 1.0, 1.0] and "extensions" not in material
    assert material["alphaMode"] == "MASK" and material["alphaCutoff"] == pytest.approx(0.3)


def test_varying_channels_share_one_orm_image() -> None:
    graph, output = surface()
    for port in ("roughness", "ambient_occlusion", "specular"):
        node = graph.add_node("float_parameter", properties={"name": port})
        graph.connect(node.id, "out", output, port)
    orm = np.zeros((4, 4, 4), np.float32)
    orm[..., 0] = np.linspace(0.2, 1.0, 16).reshape(4, 4)  # occlusion
    orm[..., 1] = 0.5
    orm[:, :2, 1] = 0.25  # roughness varies
    orm[..., 2] = 0.0  # metallic (a constant here)
    orm[..., 3] = np.linspace(0.0, 1.0, 16).reshape(4, 4)  # specular
    result = build_material(baked_material(graph, {"orm": orm}), "m")
    material = result.material
    pbr = material["pbrMetallicRoughness"]
    assert pbr["metallicRoughnessTexture"] == {"index": 0} and (pbr["metallicFactor"], pbr["roughnessFactor"]) == (1.0, 1.0)
    assert material["occlusionTexture"] == {"index": 0, "strength": 1.0}
    assert material["extensions"]["KHR_materials_specular"] == {"specularFactor": 1.0, "specularTexture": {"index": 0}}
    image = result.images["orm"]
    assert list(result.images) == ["orm"] and image.shape == (4, 4, 4) and image.dtype == np.uint8
    assert np.array_equal(image[..., 3], np.rint(orm[..., 3] * 255).astype(np.uint8))  # specular read from alpha
    assert np.array_equal(image[..., 1], np.rint(orm[..., 1] * 255).astype(np.uint8))


def test_hdr_emission_texture_is_normalised_by_its_peak() -> None:
    graph, output = surface()
    node = graph.add_node("color_parameter", properties={"name": "glow"})
    graph.connect(node.id, "out", output, "emissive_color")
    emissive = np.zeros((4, 4, 4), np.float32)
    emissive[0, 0, :3] = (6.0, 3.0, 0.0)
    emissive[1, 1, :3] = (1.0, 1.0, 1.0)
    result = build_material(baked_material(graph, {"emissive": emissive}), "m")
    material = result.material
    assert material["extensions"]["KHR_materials_emissive_strength"] == {"emissiveStrength": 6.0}
    image = result.images["emissive"]
    assert tuple(image[0, 0]) == (255, 188, 0)  # sRGB of (1, 0.5, 0)
    assert result.color_spaces["emissive"] == "srgb"


def test_unlit_materials_use_khr_materials_unlit() -> None:
    graph = MaterialGraph()
    graph.add_node("material_output", properties={"base_color": (0.5, 0.5, 0.5, 1.0), "emissive": (0.0, 0.0, 0.0, 1.0)})
    material = build_material(baked_material(graph), "m").material
    assert material["extensions"] == {"KHR_materials_unlit": {}}
    # A display colour of 0.5 is sRGB 0.5: linear 0.214
    assert material["pbrMetallicRoughness"]["baseColorFactor"][:3] == pytest.approx([0.214041] * 3, abs=1e-6)


def read_attributes(path: Path) -> dict[str, np.ndarray]:
    """The first primitive's float attributes and indices, decoded with pygltflib and numpy."""
    import pygltflib

    gltf = pygltflib.GLTF2().load(str(path))
    data = gltf.binary_blob() if path.suffix == ".glb" else (path.parent / gltf.buffers[0].uri).read_bytes()
    primitive = gltf.meshes[0].primitives[0]
    widths = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
    dtypes = {5126: np.float32, 5123: np.uint16, 5125: np.uint32}

    def accessor(index: int) -> np.ndarray:
        item = gltf.accessors[index]
        view = gltf.bufferViews[item.bufferView]
        raw = np.frombuffer(data, dtypes[item.componentType], item.count * widths[item.type], view.byteOffset + (item.byteOffset or 0))
        return raw.reshape(item.count, widths[item.type])

    named = {name: accessor(index) for name, index in primitive.attributes.__dict__.items() if isinstance(index, int)}
    named["indices"] = accessor(primitive.indices)
    return named


def test_the_mesh_reads_back(tmp_path: Path) -> None:
    """Exported geometry decoded again: the mesh's arrays, v flipped (glTF's origin is the top left)."""
    graph, output = surface()
    node = graph.add_node("color_parameter", properties={"name": "tint"})
    graph.connect(node.id, "out", output, "base_color")
    base = np.zeros((4, 4, 4), np.float32)
    base[..., 0] = np.linspace(0, 1, 16).reshape(4, 4)
    mesh = make_mesh("cube")
    for suffix in (".glb", ".gltf"):
        target = tmp_path / f"cube{suffix}"
        export_gltf(baked_material(graph, {"base": base}), mesh, target, "cube")
        attributes = read_attributes(target)
        assert np.array_equal(attributes["POSITION"], mesh.positions)
        assert np.allclose(attributes["NORMAL"], mesh.normals, atol=1e-7)
        assert np.array_equal(attributes["TEXCOORD_0"][:, 0], mesh.texcoords[:, 0])
        assert np.array_equal(attributes["TEXCOORD_0"][:, 1], 1.0 - mesh.texcoords[:, 1])
        assert np.array_equal(attributes["indices"].reshape(-1, 3), mesh.indices)
        assert "TANGENT" not in attributes  # no normal texture
        # The preview's own glTF importer reads it as the same surface (it normalises to the view).
        data = read_mesh_file(target)
        assert len(data.triangles) == len(mesh.indices)


@pytest.mark.gl  # `vpl export-gltf` bakes with OpenGL, in a process of its own
def test_the_export_command(tmp_path: Path) -> None:
    """`vpl export-gltf` end to end, and its usage errors."""
    vpl = [str(Path(sys.executable).parent / "vpl")]
    target = tmp_path / "gold.glb"
    done = subprocess.run([*vpl, "export-gltf", str(EXAMPLES / "polished_gold.vpl"), "--out", str(target), "--size", "256"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert issue_counts(validate(target)[0]) == (0, 0, 0, 0)
    wrong = subprocess.run([*vpl, "export-gltf", str(EXAMPLES / "polished_gold.vpl"), "--out", str(tmp_path / "x.obj")],
                           capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and "--out must name a .glb or .gltf file" in wrong.stderr
