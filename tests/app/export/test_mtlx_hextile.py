"""MaterialX's `hextiledimage` onto the Hex Tiled Image and back.

The onyx example's two hextiledimages import with every input they set, and
a document that sets every input (color4, a Rec. 709 luminance, ranges,
contrast) imports each onto the node's same-named input and exports to the
same values; the export validates and MaterialX's own GLSL generator reads
it. The node's pixels are checked against MaterialX's formula in
tests/app/material/test_hextile.py, the imported onyx against MaterialX's
render in tests/app/export/test_mtlx_reference.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mtlx_documents import document

from app.export import mtlx
from app.material.graph import MaterialGraph
from app.material.lowering import lower

ROOT = Path(__file__).resolve().parents[3]
ONYX = ROOT / "tests" / "data" / "materialx" / "Materials" / "Examples" / "StandardSurface" / "standard_surface_onyx_hextiled.mtlx"
IMAGES = ROOT / "tests" / "data" / "materialx" / "Images"

EVERY_INPUT = document("""  <gltf_pbr name="shader" type="surfaceshader">
    <input name="base_color" type="color3" nodegraph="NG_hex" output="color_out" />
    <input name="roughness" type="float" nodegraph="NG_hex" output="alpha_out" />
  </gltf_pbr>""", nodegraph="""    <texcoord name="uv" type="vector2" />
    <multiply name="uv_half" type="vector2">
      <input name="in1" type="vector2" nodename="uv" />
      <input name="in2" type="float" value="0.5" />
    </multiply>
    <hextiledimage name="hex" type="color4">
      <input name="file" type="filename" value="{image}" colorspace="srgb_texture" />
      <input name="texcoord" type="vector2" nodename="uv_half" />
      <input name="tiling" type="vector2" value="3, 2" />
      <input name="rotation" type="float" value="0.25" />
      <input name="rotationrange" type="vector2" value="-30, 60" />
      <input name="scale" type="float" value="0.5" />
      <input name="scalerange" type="vector2" value="0.75, 1.5" />
      <input name="offset" type="float" value="0.3" />
      <input name="offsetrange" type="vector2" value="-0.5, 0.5" />
      <input name="falloff" type="float" value="0.6" />
      <input name="falloffcontrast" type="float" value="0.8" />
      <input name="lumacoeffs" type="color3" value="0.2126, 0.7152, 0.0722" />
    </hextiledimage>
    <extract name="alpha" type="float">
      <input name="in" type="color4" nodename="hex" />
      <input name="index" type="integer" value="3" />
    </extract>
    <convert name="rgb" type="color3">
      <input name="in" type="color4" nodename="hex" />
    </convert>
    <output name="color_out" type="color3" nodename="rgb" />
    <output name="alpha_out" type="float" nodename="alpha" />""", graph_name="NG_hex", shader="shader", material="M_hex",
                       colorspace=None)
EXPECTED = {"tiling": (3.0, 2.0), "rotation": 0.25, "rotation_range": (-30.0, 60.0), "scale": 0.5, "scale_range": (0.75, 1.5),
            "offset": 0.3, "offset_range": (-0.5, 0.5), "falloff": 0.6, "falloff_contrast": 0.8,
            "lumacoeffs": (0.2126, 0.7152, 0.0722)}


def _hex_nodes(graph: MaterialGraph) -> dict[str, dict[str, object]]:
    return {node.id: node.properties for node in graph.nodes.values() if node.type_name == "hextiled_image"}


def _texture_of(graph: MaterialGraph, node_id: str) -> dict[str, object]:
    connection = graph.connection_into(node_id, "texture")
    assert connection is not None
    return graph.nodes[connection.source_node].properties


def test_the_onyx_imports_its_hextiled_images_completely() -> None:
    imported = mtlx.import_mtlx(ONYX)
    assert imported.skipped == []
    graph = imported.graph
    nodes = _hex_nodes(graph)
    assert sorted(nodes) == ["image_color", "image_roughness"]
    for node_id, properties in nodes.items():
        assert properties["falloff"] == 0.75  # the interface input `falloff`
        tiling = graph.connection_into(node_id, "tiling")  # the `convert` of the float interface input `tiling`
        assert tiling is not None and graph.nodes[tiling.source_node].properties["value"] == (4.0, 4.0)
    color, roughness = _texture_of(graph, "image_color"), _texture_of(graph, "image_roughness")
    assert (Path(str(color["image"])).name, color["color_space"]) == ("onyx_color.jpg", "srgb")
    assert (Path(str(roughness["image"])).name, roughness["color_space"]) == ("onyx_roughness.jpg", "linear")  # colorspace none
    surface = next(node for node in graph.nodes.values() if node.type_name == "surface_output")
    assert graph.connection_into(surface.id, "base_color").source_node == "image_color"  # type: ignore[union-attr]
    lowered = lower(graph)
    assert lowered.ok, [diagnostic.message for diagnostic in lowered.diagnostics]


def test_every_hextiledimage_input_imports_and_exports_to_the_same_values(tmp_path: Path) -> None:
    document = tmp_path / "hex.mtlx"
    document.write_text(EVERY_INPUT.format(image=(IMAGES / "onyx_color.jpg").as_posix()))
    imported = mtlx.import_mtlx(document)
    assert imported.skipped == []
    graph = imported.graph
    (properties,) = _hex_nodes(graph).values()
    for name, value in EXPECTED.items():
        assert properties[name] == pytest.approx(value), name
    uv = graph.connection_into("hex", "uv")
    assert uv is not None and graph.nodes[uv.source_node].type_name == "multiply"
    alpha = graph.connection_into("alpha", "vector")
    assert alpha is not None and alpha.source_port == "rgba"
    assert lower(graph).ok

    exported = tmp_path / "out" / "hex.mtlx"
    exported.parent.mkdir()
    text = mtlx.export_mtlx(graph, exported, "hex").text
    assert mtlx.validate(text) == (True, "")
    _vertex, pixel = mtlx.generate_glsl(text)
    assert "mx_hextiledimage_color4" in pixel  # the alpha is read: the color4 variant
    again = _hex_nodes(mtlx.import_mtlx(exported).graph)
    assert list(again.values()) == [properties]


def test_an_exported_onyx_is_a_fixed_point_and_materialx_generates_it(tmp_path: Path) -> None:
    first, second = tmp_path / "first" / "onyx.mtlx", tmp_path / "second" / "onyx.mtlx"
    first.parent.mkdir()
    second.parent.mkdir()
    text = mtlx.export_mtlx(mtlx.import_mtlx(ONYX).graph, first, "onyx").text
    assert text.count("<hextiledimage") == 2 and 'type="color3"' in text
    assert mtlx.validate(text) == (True, "")
    _vertex, pixel = mtlx.generate_glsl(text)
    assert "mx_hextiledimage_color3" in pixel
    again = mtlx.import_mtlx(first)
    assert again.skipped == []
    mtlx.export_mtlx(again.graph, second, "onyx")
    assert second.read_text() == first.read_text()


def test_an_unlit_srgb_hextiledimage_is_shown_as_stored_and_round_trips(tmp_path: Path) -> None:
    """surface_unlit's emission from an sRGB hextiledimage: MaterialX blends the encoded texels, decodes the blend
    and the display encodes it again, so the Unlit Output shows the node's blend as it is (no encoding nodes)."""
    source = ONYX.read_text()
    start, end = source.index("  <standard_surface"), source.index("</materialx>")
    unlit = (source[:start] + '  <surface_unlit name="N_Unlit" type="surfaceshader">\n'
             '    <input name="emission_color" type="color3" nodegraph="NG_OnyxHextiled" output="out_color" />\n'
             '  </surface_unlit>\n  <surfacematerial name="M_Onyx" type="material">\n'
             '    <input name="surfaceshader" type="surfaceshader" nodename="N_Unlit" />\n  </surfacematerial>\n' + source[end:])
    document = tmp_path / "onyx_unlit.mtlx"
    document.write_text(unlit.replace('fileprefix="../../../Images/"', f'fileprefix="{IMAGES.as_posix()}/"'))
    first, second = tmp_path / "first" / "onyx.mtlx", tmp_path / "second" / "onyx.mtlx"
    first.parent.mkdir()
    second.parent.mkdir()
    imported = mtlx.import_mtlx(document)
    assert imported.skipped == []
    graph = imported.graph
    output = next(node for node in graph.nodes.values() if node.type_name == "material_output")
    feed = graph.connection_into(output.id, "base_color")
    assert feed is not None and (feed.source_node, feed.source_port) == ("image_color", "rgb")
    mtlx.export_mtlx(graph, first, "onyx")
    again = mtlx.import_mtlx(first)
    assert again.skipped == []
    mtlx.export_mtlx(again.graph, second, "onyx")
    assert second.read_text() == first.read_text()
