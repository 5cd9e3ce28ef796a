"""MaterialX import and export as a new user meets them: node-definition defaults, alpha modes, colour spaces,
file prefixes, copied textures, positions, and hostile values or graphs (a note and a default, never a traceback).

Documents are the MaterialX repository's own examples (tests/data/materialx) or written here; MaterialX itself
(validation, its GLSL generator) checks what is exported.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from mtlx_documents import document as mtlx_document

from app.export import mtlx
from app.export.surface import ExportError, describe_output
from app.material.document import load_file, save_text
from app.material.graph import MaterialGraph, Node
from app.material.lowering import lower

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "resources" / "examples"
MX_EXAMPLES = ROOT / "tests" / "data" / "materialx" / "Materials" / "Examples"


def srgb_to_linear(value: float) -> float:
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def linear_to_srgb(value: float) -> float:
    return value * 12.92 if value <= 0.0031308 else 1.055 * value ** (1.0 / 2.4) - 0.055


def example(name: str) -> MaterialGraph:
    graph = load_file(str(EXAMPLES / f"{name}.vpl")).graph
    assert graph is not None
    return graph


def output(graph: MaterialGraph) -> Node:
    return next(node for node in graph.nodes.values() if node.type_name in ("surface_output", "material_output"))


def document(path: Path, shader: str, body: str = "", attributes: str = "") -> Path:
    path.write_text(mtlx_document(body, shader, attributes=attributes))
    return path


def compiles(graph: MaterialGraph) -> None:
    lowered = lower(graph)
    assert lowered.text and not lowered.errors, lowered.errors


# The importer and exporter defects ------------------------------------------------------------------


def test_missing_gltf_pbr_inputs_take_the_node_definitions_defaults() -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / "GltfPbr" / "gltf_pbr_gold.mtlx")
    surface = output(imported.graph)
    assert surface.properties["metallic"] == 1.0  # gltf_pbr's default, not the editor's 0
    assert surface.properties["roughness"] == pytest.approx(0.02)
    assert surface.properties["base_color"][:3] == pytest.approx((0.944, 0.776, 0.373))
    assert imported.skipped == []


def test_a_missing_alpha_mode_is_opaque_and_re_exports_as_opaque(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / "GltfPbr" / "gltf_pbr_plastic.mtlx")
    assert output(imported.graph).properties["alpha_clip"] == 0.0
    assert describe_output(imported.graph).alpha_mode == "OPAQUE"
    text = mtlx.export_document(imported.graph, tmp_path / "plastic.mtlx").text
    assert '<input name="alpha_mode" type="integer" value="0" />' in text


def test_the_srgb_colour_space_is_on_the_image_file_input_where_the_generator_reads_it(tmp_path: Path) -> None:
    exported = mtlx.export_mtlx(example("painted_metal"), tmp_path / "painted.mtlx", document_dir=EXAMPLES)
    import MaterialX as mx  # noqa: N813 - the package's name

    doc = mx.createDocument()
    mx.readFromXmlString(doc, exported.text)
    interface_spaces = [element.getColorSpace() for element in doc.getNodeGraphs()[0].getInputs() if element.getType() == "filename"]
    assert interface_spaces and not any(interface_spaces)
    file_spaces = {node.getName(): node.getInput("file").getColorSpace() for node in doc.getNodeGraphs()[0].getNodes("image")}
    assert "srgb_texture" in file_spaces.values(), file_spaces
    _vertex, pixel = mtlx.generate_glsl(exported.text)
    assert "srgb_texture_to_lin_rec709" in pixel  # MaterialX's generator now decodes the albedo


def test_the_unlit_colour_is_linear_in_materialx_and_display_referred_in_the_editor(tmp_path: Path) -> None:
    graph = MaterialGraph()
    graph.add_node("material_output", properties={"base_color": (0.5, 0.25, 1.0, 1.0)})
    text = mtlx.export_mtlx(graph, tmp_path / "unlit.mtlx").text
    import MaterialX as mx  # noqa: N813 - the package's name

    doc = mx.createDocument()
    mx.readFromXmlString(doc, text)
    color = doc.getNodes("surface_unlit")[0].getInputValue("emission_color")
    assert tuple(color) == pytest.approx(tuple(srgb_to_linear(v) for v in (0.5, 0.25, 1.0)), abs=1e-5)
    back = mtlx.import_mtlx(tmp_path / "unlit.mtlx")
    assert output(back.graph).properties["base_color"][:3] == pytest.approx((0.5, 0.25, 1.0), abs=1e-5)
    written = document(tmp_path / "linear.mtlx", """
  <surface_unlit name="SR" type="surfaceshader"><input name="emission_color" type="color3" value="0.2, 0.2, 0.2" /></surface_unlit>""")
    assert output(mtlx.import_mtlx(written).graph).properties["base_color"][0] == pytest.approx(linear_to_srgb(0.2))


@pytest.mark.gl
def test_toon_shading_round_trips_to_a_compiling_module_and_re_exports(current_gl, tmp_path: Path) -> None:
    from app.export.bake import Baker, BakeSettings

    graph = example("toon_shading")
    baker = Baker(graph, BakeSettings(size=256, mesh="sphere"), document_dir=EXAMPLES)
    mtlx.export_mtlx(graph, tmp_path / "toon.mtlx", document_dir=EXAMPLES, bake=baker.bake_node_outputs)
    imported = mtlx.import_mtlx(tmp_path / "toon.mtlx")
    compiles(imported.graph)
    again = Baker(imported.graph, BakeSettings(size=256, mesh="sphere"), document_dir=tmp_path)
    (tmp_path / "again").mkdir()
    second = mtlx.export_mtlx(imported.graph, tmp_path / "again" / "toon.mtlx", document_dir=tmp_path, bake=again.bake_node_outputs)
    assert mtlx.validate(second.text)[0], mtlx.validate(second.text)[1]


def test_an_empty_texture_file_name_stays_empty(tmp_path: Path) -> None:
    graph = MaterialGraph()
    texture = graph.add_node("texture_parameter", properties={"image": ""})
    sample = graph.add_node("sample_texture")
    surface = graph.add_node("surface_output")
    graph.connect(texture.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", surface.id, "base_color")
    text = mtlx.export_mtlx(graph, tmp_path / "textured.mtlx", document_dir=EXAMPLES).text
    assert 'value=""' not in text
    imported = mtlx.import_mtlx(tmp_path / "textured.mtlx")
    images = [node.properties["image"] for node in imported.graph.nodes.values() if node.type_name == "texture_parameter"]
    assert images == [""]


def test_a_missing_texture_file_is_listed_by_name(tmp_path: Path) -> None:
    path = document(tmp_path / "missing.mtlx", """  <gltf_pbr name="SR" type="surfaceshader">
    <input name="base_color" type="color3" nodegraph="NG" output="out" />
  </gltf_pbr>""", """  <nodegraph name="NG">
    <image name="albedo" type="color3"><input name="file" type="filename" value="absent.png" colorspace="srgb_texture" /></image>
    <output name="out" type="color3" nodename="albedo" />
  </nodegraph>""")
    imported = mtlx.import_mtlx(path)
    assert any("absent.png" in line and "not found" in line for line in imported.skipped), imported.skipped
    (tmp_path / "absent.png").write_bytes((MX_EXAMPLES.parent.parent / "Images" / "wood_color.jpg").read_bytes())
    assert mtlx.import_mtlx(path).skipped == []


def test_a_file_name_the_system_cannot_look_up_is_listed_not_raised(tmp_path: Path) -> None:
    # 2,000 characters: longer than a path component may be (ENAMETOOLONG from every lookup of it).
    name = "1, " * 666 + "1.png"
    path = document(tmp_path / "long.mtlx", """  <gltf_pbr name="SR" type="surfaceshader">
    <input name="base_color" type="color3" nodegraph="NG" output="out" />
  </gltf_pbr>""", f"""  <nodegraph name="NG">
    <image name="albedo" type="color3"><input name="file" type="filename" value="{name}" /></image>
    <output name="out" type="color3" nodename="albedo" />
  </nodegraph>""")
    imported = mtlx.import_mtlx(path)
    assert any(name in line and "not found" in line for line in imported.skipped), imported.skipped


def test_fileprefix_applies_to_file_names() -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / "GltfPbr" / "gltf_pbr_boombox.mtlx")
    images = sorted(Path(node.properties["image"]) for node in imported.graph.nodes.values() if node.type_name == "texture_parameter")
    assert [path.name for path in images] == ["BoomBox_baseColor.png", "BoomBox_emissive.png", "BoomBox_normal.png",
                                               "BoomBox_occlusionRoughnessMetallic.png"]
    assert all(path.is_file() for path in images), images  # found under the document's fileprefix="boombox/"


def test_a_colour_space_on_a_value_is_converted_to_linear(tmp_path: Path) -> None:
    written = document(tmp_path / "srgb.mtlx", """
  <gltf_pbr name="SR" type="surfaceshader">
    <input name="base_color" type="color3" value="0.5, 0.5, 0.5" colorspace="srgb_texture" />
    <input name="emissive" type="color3" value="1, 0, 0" colorspace="acescg" />
  </gltf_pbr>""")
    surface = output(mtlx.import_mtlx(written).graph)
    assert surface.properties["base_color"][:3] == pytest.approx((srgb_to_linear(0.5),) * 3)
    assert surface.properties["emissive_color"][:3] == pytest.approx((1.70505, -0.13026, -0.02400))


def test_exported_textures_are_copied_beside_the_document(tmp_path: Path) -> None:
    target = tmp_path / "export" / "painted.mtlx"
    target.parent.mkdir()
    exported = mtlx.export_mtlx(example("painted_metal"), target, document_dir=EXAMPLES)
    import MaterialX as mx  # noqa: N813 - the package's name

    doc = mx.createDocument()
    mx.readFromXmlString(doc, exported.text)
    names = [element.getValueString() for element in doc.getNodeGraphs()[0].getInputs() if element.getType() == "filename"]
    assert names and all("/" not in name and (target.parent / name).is_file() for name in names), names
    for name in names:
        assert (target.parent / name).read_bytes() == next((EXAMPLES / "textures").glob(f"*{name.split('_', 1)[1]}")).read_bytes()


def test_a_textured_import_exported_to_another_folder_is_a_fixed_point(tmp_path: Path) -> None:
    """A copied texture is already named after the material: exporting it again elsewhere keeps its name."""
    imported = mtlx.import_mtlx(MX_EXAMPLES / "StandardSurface" / "standard_surface_wood_tiled.mtlx")
    assert imported.skipped == []
    first, second = tmp_path / "first" / "oak.mtlx", tmp_path / "second" / "oak.mtlx"
    first.parent.mkdir()
    second.parent.mkdir()
    exported = mtlx.export_mtlx(imported.graph, first, "oak")
    assert sorted(exported.copies.values()) == ["oak_wood_color.jpg", "oak_wood_roughness.jpg"]
    mtlx.export_mtlx(mtlx.import_mtlx(first).graph, second, "oak")
    assert second.read_text() == first.read_text()
    assert sorted(path.name for path in second.parent.iterdir()) == sorted(path.name for path in first.parent.iterdir())


def test_an_opaque_material_with_a_connected_alpha_stays_opaque(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / "GltfPbr" / "gltf_pbr_boombox.mtlx")
    surface = output(imported.graph)
    assert imported.graph.connection_into(surface.id, "opacity") is None
    assert describe_output(imported.graph).alpha_mode == "OPAQUE"
    assert any("'alpha'" in line and "OPAQUE" in line for line in imported.skipped)


def test_nodes_without_positions_are_laid_out() -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / "GltfPbr" / "gltf_pbr_boombox.mtlx")
    positions = [node.position for node in imported.graph.nodes.values()]
    assert len(set(positions)) == len(positions), positions
    surface = output(imported.graph)
    assert all(node.position[0] < surface.position[0] for node in imported.graph.nodes.values() if node is not surface)


# Hostile values and graphs ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "&amp;lt;", "1, 2", "0.5, x, 1", ""])
def test_a_bad_value_is_a_note_naming_the_input_and_the_default(tmp_path: Path, value: str) -> None:
    written = document(tmp_path / "bad.mtlx", f"""
  <gltf_pbr name="SR" type="surfaceshader">
    <input name="base_color" type="color3" value="{value}" />
    <input name="roughness" type="float" value="{value}" />
  </gltf_pbr>""")
    imported = mtlx.import_mtlx(written)
    surface = output(imported.graph)
    assert surface.properties["base_color"][:3] == (1.0, 1.0, 1.0)  # gltf_pbr's default
    assert surface.properties["roughness"] == 1.0
    if value:
        assert any("'base_color'" in line for line in imported.skipped), imported.skipped
        assert any("'roughness'" in line for line in imported.skipped), imported.skipped
    save_text(imported.graph)  # JSON without NaN or infinities


def test_the_command_never_tracebacks_on_a_bad_value(tmp_path: Path) -> None:
    written = document(tmp_path / "nan.mtlx", """
  <gltf_pbr name="SR" type="surfaceshader" xpos="nan" ypos="1e999">
    <input name="metallic" type="float" value="1e999" />
  </gltf_pbr>""")
    done = subprocess.run([sys.executable, "-m", "vpl_core.cli", "import-mtlx", str(written), "--out", str(tmp_path / "out.vpl")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "metallic" in done.stderr
    assert (tmp_path / "out.vpl").is_file()


def chain_document(path: Path, length: int) -> Path:
    nodes = ['    <constant name="c0" type="float"><input name="value" type="float" value="0" /></constant>']
    nodes += [f'    <add name="a{k}" type="float"><input name="in1" type="float" nodename="{"c0" if k == 1 else f"a{k - 1}"}" />'
              f'<input name="in2" type="float" value="0.0001" /></add>' for k in range(1, length + 1)]
    return document(path, """
  <gltf_pbr name="SR" type="surfaceshader"><input name="roughness" type="float" nodegraph="NG" output="out" /></gltf_pbr>""",
                    "  <nodegraph name=\"NG\">\n" + "\n".join(nodes) + f'\n    <output name="out" type="float" nodename="a{length}" />\n  </nodegraph>')


@pytest.mark.heavy  # the scale limit itself: the fast tier keeps the short chains' tests
def test_a_ten_thousand_node_chain_imports_and_exports(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(chain_document(tmp_path / "chain.mtlx", 10_000))
    assert imported.skipped == []
    assert sum(node.type_name == "add" for node in imported.graph.nodes.values()) == 10_000
    exported = mtlx.export_document(imported.graph, tmp_path / "again.mtlx")
    assert exported.text.count("<add ") == 10_000


def test_a_cycle_is_an_error_naming_it(tmp_path: Path) -> None:
    written = document(tmp_path / "cycle.mtlx", """
  <gltf_pbr name="SR" type="surfaceshader"><input name="roughness" type="float" nodegraph="NG" output="out" /></gltf_pbr>""", """
  <nodegraph name="NG">
    <add name="first" type="float"><input name="in1" type="float" nodename="third" /><input name="in2" type="float" value="1" /></add>
    <multiply name="second" type="float"><input name="in1" type="float" nodename="first" /></multiply>
    <sin name="third" type="float"><input name="in" type="float" nodename="second" /></sin>
    <output name="out" type="float" nodename="third" />
  </nodegraph>""")
    with pytest.raises(ExportError, match=r"cycle.*third -> second -> first -> third"):
        mtlx.import_mtlx(written)


def test_an_unreadable_file_is_an_export_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="cannot be read"):
        mtlx.import_mtlx(tmp_path / "missing.mtlx")
    binary = tmp_path / "binary.mtlx"
    binary.write_bytes(b"\xff\xfe<materialx>")
    with pytest.raises(ExportError):
        mtlx.import_mtlx(binary)


def test_values_are_finite_after_import() -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / "StandardSurface" / "standard_surface_default.mtlx")
    for node in imported.graph.nodes.values():
        for value in node.properties.values():
            numbers = value if isinstance(value, tuple) else (value,)
            assert all(not isinstance(v, float) or math.isfinite(v) for v in numbers)


def test_gltf_pbr_dispersion_is_the_surface_outputs(tmp_path: Path) -> None:
    written = document(tmp_path / "dispersion.mtlx", """
  <gltf_pbr name="SR" type="surfaceshader">
    <input name="transmission" type="float" value="1" />
    <input name="thickness" type="float" value="0.5" />
    <input name="dispersion" type="float" value="0.75" />
  </gltf_pbr>""")
    imported = mtlx.import_mtlx(written)
    assert output(imported.graph).properties["dispersion"] == 0.75
    assert not any("dispersion" in line for line in imported.skipped), imported.skipped


def standard_glass(tmp_path: Path, extra: str) -> Path:
    return document(tmp_path / "glass.mtlx", f"""
  <standard_surface name="SR" type="surfaceshader">
    <input name="base" type="float" value="0" />
    <input name="transmission" type="float" value="1" />
    <input name="specular_IOR" type="float" value="1.52" />
{extra}
  </standard_surface>""")


def test_standard_surface_dispersion_is_twenty_over_its_abbe_number(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(standard_glass(tmp_path, '    <input name="transmission_dispersion" type="float" value="40" />'))
    surface = output(imported.graph).properties
    assert surface["dispersion"] == pytest.approx(0.5)  # KHR_materials_dispersion: 20 / V
    assert surface["transmission"] == 1.0 and surface["thickness"] > 0.0  # solid: a volume, which dispersion needs
    assert surface["ior"] == pytest.approx(1.52)
    assert surface["base_color"][:3] == pytest.approx((1.0, 1.0, 1.0))  # the tint: transmission_color, not base 0
    assert imported.skipped == []
    compiles(imported.graph)


def test_standard_surface_without_dispersion_has_none(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(standard_glass(tmp_path, '    <input name="transmission_dispersion" type="float" value="0" />'))
    assert output(imported.graph).properties.get("dispersion", 0.0) == 0.0  # V = 0 is standard_surface's "none"
    assert imported.skipped == []


def test_standard_surface_dispersion_on_a_thin_wall_is_listed(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(standard_glass(tmp_path, '    <input name="transmission_dispersion" type="float" value="40" />\n'
                                                         '    <input name="thin_walled" type="boolean" value="true" />'))
    surface = output(imported.graph).properties
    assert surface.get("dispersion", 0.0) == 0.0 and surface.get("thickness", 0.0) == 0.0
    assert any("'transmission_dispersion'" in line for line in imported.skipped), imported.skipped


def test_standard_surface_transmission_depth_is_the_attenuation(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(standard_glass(tmp_path, '    <input name="transmission_depth" type="float" value="0.25" />\n'
                                                         '    <input name="transmission_color" type="color3" value="0.2, 0.6, 0.9" />'))
    surface = output(imported.graph).properties
    assert surface["attenuation_distance"] == pytest.approx(0.25)
    assert surface["attenuation_color"][:3] == pytest.approx((0.2, 0.6, 0.9))
    assert surface["base_color"][:3] == pytest.approx((1.0, 1.0, 1.0))
    assert imported.skipped == []


def test_import_mtlx_chooses_a_material_by_name_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    chess = MX_EXAMPLES / "StandardSurface" / "standard_surface_chess_set.mtlx"
    command = [sys.executable, "-m", "vpl_core.cli", "import-mtlx", str(chess), "--out", str(tmp_path / "queen.vpl")]
    done = subprocess.run([*command, "--material", "M_Queen_W"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "'M_Bishop_B'" in done.stderr and "'M_Queen_W'" not in done.stderr
    assert (tmp_path / "queen.vpl").is_file()
    refused = subprocess.run([*command[:-1], str(tmp_path / "none.vpl"), "--material", "M_Queen"], capture_output=True,
                             text=True, timeout=120, cwd=ROOT)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "no material 'M_Queen'" in refused.stderr and "M_Queen_W" in refused.stderr
    assert not (tmp_path / "none.vpl").exists()
