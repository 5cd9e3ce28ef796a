"""glTF export and import of the Surface Output's extension inputs (KHR clearcoat, sheen, transmission, volume,
dispersion, ior, iridescence, anisotropy): constants as factors, connected inputs as baked textures, the Khronos validator's 0 errors
and 0 warnings, and the factors read back by `material_graph`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from test_gltf import baked_material, issue_counts, validate

from app.export.gltf import build_material, export_gltf, material_graph
from app.export.surface import SURFACE_EXTENSION_CHANNELS
from app.material.graph import MaterialGraph
from app.preview.mesh import make_mesh

CONSTANTS: dict[str, object] = {
    "clearcoat": 0.8, "clearcoat_roughness": 0.2, "sheen_color": (0.6, 0.3, 0.2, 1.0), "sheen_roughness": 0.4,
    "transmission": 0.9, "thickness": 0.5, "attenuation_color": (0.9, 0.5, 0.2, 1.0), "attenuation_distance": 2.0,
    "ior": 1.45, "iridescence": 0.7, "iridescence_ior": 1.35, "iridescence_thickness": 320.0,
    "anisotropy_strength": 0.6, "anisotropy_rotation": 0.5, "dispersion": 0.4,
}


def _surface(**properties: object) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties=properties)
    return graph


def test_neutral_inputs_write_no_extension() -> None:
    assert "extensions" not in build_material(baked_material(_surface()), "m").material


def test_constants_become_the_extensions_factors(tmp_path: Path) -> None:
    result = build_material(baked_material(_surface(**CONSTANTS)), "m")
    extensions = result.material["extensions"]
    assert extensions == {
        "KHR_materials_clearcoat": {"clearcoatFactor": 0.8, "clearcoatRoughnessFactor": 0.2},
        "KHR_materials_sheen": {"sheenColorFactor": [0.6, 0.3, 0.2], "sheenRoughnessFactor": 0.4},
        "KHR_materials_transmission": {"transmissionFactor": 0.9},
        "KHR_materials_volume": {"thicknessFactor": 0.5, "attenuationColor": [0.9, 0.5, 0.2], "attenuationDistance": 2.0},
        "KHR_materials_dispersion": {"dispersion": 0.4},
        "KHR_materials_ior": {"ior": 1.45},
        "KHR_materials_iridescence": {"iridescenceIor": 1.35, "iridescenceFactor": 0.7, "iridescenceThicknessMinimum": 320.0,
                                      "iridescenceThicknessMaximum": 320.0},
        "KHR_materials_anisotropy": {"anisotropyStrength": 0.6, "anisotropyRotation": 0.5},
    }
    files = [export_gltf(baked_material(_surface(**CONSTANTS)), make_mesh("sphere"), tmp_path / "c.gltf", "c")[-1]]
    files.append(export_gltf(baked_material(_surface(**CONSTANTS)), make_mesh("sphere"), tmp_path / "c.glb", "c")[0])
    reports = validate(*files)
    assert [issue_counts(report)[:2] for report in reports] == [(0, 0), (0, 0)], [report["issues"]["messages"] for report in reports]
    # Read back: the same inputs.
    graph = material_graph(files[0])
    (output,) = [node for node in graph.nodes.values() if node.type_name == "surface_output"]
    for name, value in CONSTANTS.items():
        got = output.properties[name]
        expected = value
        if isinstance(value, tuple):
            assert np.allclose(got[:3], value[:3], atol=1e-6), name
        else:
            assert float(got) == float(expected), name  # type: ignore[arg-type]


def test_connected_inputs_bake_to_valid_textures(tmp_path: Path) -> None:
    graph = _surface(**CONSTANTS)
    (output,) = graph.nodes
    for index, channel in enumerate(SURFACE_EXTENSION_CHANNELS):
        (port,) = channel.inputs
        node = graph.add_node("float_parameter", properties={"name": f"p{index}"})
        graph.connect(node.id, "out", output, port)
    ramp = np.linspace(0.1, 0.9, 16, dtype=np.float32).reshape(4, 4)
    passes = {}
    for pass_name in {channel.pass_name for channel in SURFACE_EXTENSION_CHANNELS}:
        values = np.stack([ramp, ramp[::-1], ramp.T, 1.0 - ramp], axis=2)
        if pass_name == "coat_normal":
            values[..., :2] = (values[..., :2] - 0.5) * 0.5
            values[..., 2] = 1.0
        passes[pass_name] = values
    passes["film"][..., 0] *= 500.0  # iridescence thickness in nm
    passes["film"][..., 2] += 1.0  # ior
    result = build_material(baked_material(graph, passes), "m")
    extensions = result.material["extensions"]
    assert "clearcoatTexture" in extensions["KHR_materials_clearcoat"] and "clearcoatNormalTexture" in extensions["KHR_materials_clearcoat"]
    assert "sheenColorTexture" in extensions["KHR_materials_sheen"] and "sheenRoughnessTexture" in extensions["KHR_materials_sheen"]
    assert "transmissionTexture" in extensions["KHR_materials_transmission"]
    assert "thicknessTexture" in extensions["KHR_materials_volume"]
    assert "iridescenceThicknessTexture" in extensions["KHR_materials_iridescence"]
    assert "anisotropyTexture" in extensions["KHR_materials_anisotropy"]
    assert {note.split(" ")[0] for note in result.notes} >= {"ior", "attenuation_color/attenuation_distance", "iridescence_ior",
                                                               "dispersion"}
    # The clearcoat texture holds the factor in R and the roughness in G, texel by texel.
    image = result.images["clearcoat"] / 255.0
    assert np.abs(image[..., 0] - passes["coat"][..., 0]).max() <= 0.5 / 255 + 1e-6
    assert np.abs(image[..., 1] - passes["coat"][..., 1]).max() <= 0.5 / 255 + 1e-6
    files = []
    for suffix in (".glb", ".gltf"):
        written = export_gltf(baked_material(graph, passes), make_mesh("sphere"), tmp_path / f"all{suffix}", "all")
        files.append(written[-1] if suffix == ".gltf" else written[0])
    reports = validate(*files)
    assert [issue_counts(report)[:2] for report in reports] == [(0, 0), (0, 0)], [report["issues"]["messages"] for report in reports]


def test_dispersion_is_written_with_a_volume_only() -> None:
    """KHR_materials_dispersion applies to a volume: without a thickness there is none to write (nor shade)."""
    thin = build_material(baked_material(_surface(transmission=1.0, dispersion=1.0)), "m").material["extensions"]
    assert "KHR_materials_dispersion" not in thin
    solid = build_material(baked_material(_surface(transmission=1.0, thickness=1.0, dispersion=1.0)), "m").material["extensions"]
    assert solid["KHR_materials_dispersion"] == {"dispersion": 1.0}


def test_materialx_export_writes_the_extension_inputs_gltf_pbr_has(tmp_path: Path) -> None:
    from app.export import mtlx

    target = tmp_path / "m.mtlx"
    result = mtlx.export_mtlx(_surface(**CONSTANTS), target, "m")
    valid, message = mtlx.validate(target.read_text())
    assert valid, message
    import MaterialX as mx  # noqa: N813 - the package's name

    document = mx.createDocument()
    mx.readFromXmlString(document, result.text)
    (shader,) = document.getNodes("gltf_pbr")
    for name, value in CONSTANTS.items():
        written = shader.getInput(name).getValue()
        expected = value[:3] if isinstance(value, tuple) else value
        got = tuple(written.asTuple()) if hasattr(written, "asTuple") else written
        assert np.allclose(got, expected, atol=1e-6), name
    assert shader.getInput("clearcoat_normal") is None  # unconnected: gltf_pbr's default, the interpolated normal
    # Neutral values write nothing more than before.
    plain = mtlx.export_mtlx(_surface(), tmp_path / "p.mtlx", "p").text
    assert not any(f'name="{name}"' in plain for name in CONSTANTS)


def test_baked_maps_name_the_extension_inputs_they_do_not_carry(tmp_path: Path) -> None:
    import json

    from app.export.maps import save_maps

    save_maps(baked_material(_surface(clearcoat=0.5, ior=1.6)), tmp_path / "a")
    notes = json.loads((tmp_path / "a" / "bake.json").read_text())["notes"]
    assert [note.split(":")[0] for note in notes] == ["clearcoat", "ior"]
    save_maps(baked_material(_surface()), tmp_path / "b")
    assert json.loads((tmp_path / "b" / "bake.json").read_text())["notes"] == []
