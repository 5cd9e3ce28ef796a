"""The MaterialX repository's example materials (tests/data/materialx) import onto the editor's outputs.

standard_surface, UsdPreviewSurface (with UsdUVTexture, UsdPrimvarReader and
UsdTransform2d), gltf_pbr and surface_unlit map onto the Surface Output where
the glTF metallic-roughness model can represent them; every input that cannot
be represented is listed by name, and every import compiles. open_pbr_surface
maps onto the OpenPBR Surface input for input, a standard_surface beyond the
glTF model onto the OpenPBR Surface through the Standard Surface mapping, and
import -> export -> import is a fixed point for both.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from mtlx_documents import document

from app.export import mtlx
from app.export.bake import BakeSettings, bake_material
from app.material.graph import MaterialGraph, Node
from app.material.lowering import lower

ROOT = Path(__file__).resolve().parents[3]
MX_EXAMPLES = ROOT / "tests" / "data" / "materialx" / "Materials" / "Examples"
ALL = sorted(path.relative_to(MX_EXAMPLES).as_posix() for path in MX_EXAMPLES.glob("*/*.mtlx"))
OPEN_PBR = sorted(name for name in ALL if name.startswith("OpenPbr/"))
#: Examples whose every input the Surface Output represents (nothing listed).
COMPLETE = ("GltfPbr/gltf_pbr_carpaint.mtlx", "GltfPbr/gltf_pbr_default.mtlx", "GltfPbr/gltf_pbr_glass.mtlx",
            "GltfPbr/gltf_pbr_gold.mtlx", "GltfPbr/gltf_pbr_plastic.mtlx",
            "StandardSurface/standard_surface_chrome.mtlx", "StandardSurface/standard_surface_default.mtlx",
            "StandardSurface/standard_surface_glass.mtlx", "StandardSurface/standard_surface_glass_tinted.mtlx",
            "StandardSurface/standard_surface_greysphere.mtlx", "StandardSurface/standard_surface_greysphere_calibration.mtlx",
            "StandardSurface/standard_surface_brick_procedural.mtlx", "StandardSurface/standard_surface_plastic.mtlx",
            "StandardSurface/standard_surface_onyx_hextiled.mtlx",
            "UsdPreviewSurface/usd_preview_surface_brass_tiled.mtlx", "UsdPreviewSurface/usd_preview_surface_default.mtlx", "UsdPreviewSurface/usd_preview_surface_gold.mtlx",
            "UsdPreviewSurface/usd_preview_surface_plastic.mtlx", "UsdPreviewSurface/usd_preview_surface_carpaint.mtlx",
            "UsdPreviewSurface/usd_preview_surface_glass.mtlx", *OPEN_PBR)
#: standard_surface examples that use what the Surface Output cannot represent (coat, sheen, subsurface, thin
#: film, anisotropy, a metal's edge colour): onto the OpenPBR Surface, every input mapped.
STANDARD_OPEN_PBR = ("StandardSurface/standard_surface_brass_tiled.mtlx", "StandardSurface/standard_surface_carpaint.mtlx", "StandardSurface/standard_surface_copper.mtlx",
                     "StandardSurface/standard_surface_gold.mtlx", "StandardSurface/standard_surface_jade.mtlx",
                     "StandardSurface/standard_surface_metal_brushed.mtlx", "StandardSurface/standard_surface_thin_film.mtlx",
                     "StandardSurface/standard_surface_velvet.mtlx", "StandardSurface/standard_surface_wood_tiled.mtlx",
                     "StandardSurface/standard_surface_marble_solid.mtlx")
COMPLETE = (*COMPLETE, *STANDARD_OPEN_PBR)
#: What is listed for the others (each line names the input).
LISTED = {
    # Documents of several materials: the first is imported, each other one is named.
    "StandardSurface/standard_surface_chess_set.mtlx": ["M_Bishop_W", "M_Chessboard", "M_Pawn_Body_B", "M_Pawn_Top_W",
                                                        *(f"M_{piece}_{side}" for piece in ("Castle", "King", "Knight", "Queen") for side in "BW")],
    "StandardSurface/standard_surface_look_brass_tiled.mtlx": ["Greysphere_Calibration"],
    "StandardSurface/standard_surface_look_wood_tiled.mtlx": ["Greysphere_Calibration"],
}


def surface(graph: MaterialGraph) -> Node:
    return next(node for node in graph.nodes.values() if node.type_name == "surface_output")


@pytest.mark.parametrize("name", ALL)
def test_every_example_imports_to_a_compiling_graph(name: str) -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / name)
    lowered = lower(imported.graph)
    assert lowered.text and not lowered.errors, lowered.errors
    if name in COMPLETE:
        assert imported.skipped == [], imported.skipped
    for listed in LISTED.get(name, []):
        assert any(f"'{listed}'" in line for line in imported.skipped), (listed, imported.skipped)


def test_each_material_of_a_document_of_several_imports_when_named() -> None:
    chess = MX_EXAMPLES / "StandardSurface" / "standard_surface_chess_set.mtlx"
    names = mtlx.mtlx_material_names(chess)
    assert len(names) == 15 and names[0] == "M_Bishop_B"
    surfaces: set[str] = set()
    for name in names:
        imported = mtlx.import_mtlx(chess, name)
        lowered = lower(imported.graph)
        assert lowered.text and not lowered.errors, (name, lowered.errors)
        listed = [line for line in imported.skipped if line.startswith("material '")]
        assert len(listed) == 14 and not any(f"'{name}'" in line for line in listed), (name, listed)
        surfaces.add(repr(sorted(repr(sorted(node.properties.items())) for node in imported.graph.nodes.values())))
    assert len(surfaces) == 15  # every material's graph differs: each import read its own shader
    with pytest.raises(mtlx.ExportError, match=r"no material 'M_Bishop' .*M_Bishop_B, M_Bishop_W"):
        mtlx.import_mtlx(chess, "M_Bishop")


@pytest.mark.parametrize("name", OPEN_PBR)
def test_open_pbr_surface_imports_input_for_input_and_round_trips(name: str, tmp_path: Path) -> None:
    import MaterialX as mx  # noqa: N813 - the package's name

    document = mx.createDocument()
    mx.readFromXmlFile(document, str(MX_EXAMPLES / name))
    shader = next(node for node in document.getNodes() if node.getCategory() == "open_pbr_surface")
    graph = mtlx.import_mtlx(MX_EXAMPLES / name).graph
    (output,) = [node for node in graph.nodes.values() if node.type_name == "openpbr_surface"]
    for element in shader.getInputs():
        value = element.getValue()
        ours = output.properties[element.getName()]
        if isinstance(value, bool):
            assert ours is value, element.getName()
        elif isinstance(value, (int, float)):
            assert ours == pytest.approx(value), element.getName()
        else:
            assert tuple(ours)[:3] == pytest.approx(tuple(value.asTuple())), element.getName()
    first, second = tmp_path / "first.mtlx", tmp_path / "second.mtlx"
    mtlx.export_mtlx(graph, first, "example")
    assert "<open_pbr_surface" in first.read_text()
    mtlx.export_mtlx(mtlx.import_mtlx(first).graph, second, "example")
    assert second.read_text() == first.read_text()


@pytest.mark.parametrize("name", STANDARD_OPEN_PBR)
def test_standard_surface_beyond_gltf_imports_onto_open_pbr_and_round_trips(name: str, tmp_path: Path) -> None:
    graph = mtlx.import_mtlx(MX_EXAMPLES / name).graph
    assert [node.type_name for node in graph.nodes.values() if node.type_name in ("openpbr_surface", "surface_output")] == ["openpbr_surface"]
    first, second = tmp_path / "first.mtlx", tmp_path / "second.mtlx"
    mtlx.export_mtlx(graph, first, "example")
    assert "<open_pbr_surface" in first.read_text()
    mtlx.export_mtlx(mtlx.import_mtlx(first).graph, second, "example")
    assert second.read_text() == first.read_text()


@pytest.mark.parametrize("name", [name for name in COMPLETE if name not in OPEN_PBR and name not in STANDARD_OPEN_PBR])
def test_the_surface_output_examples_that_import_completely_round_trip(name: str, tmp_path: Path) -> None:
    first, second = tmp_path / "first" / "example.mtlx", tmp_path / "second" / "example.mtlx"
    first.parent.mkdir()
    second.parent.mkdir()
    mtlx.export_mtlx(mtlx.import_mtlx(MX_EXAMPLES / name).graph, first, "example")
    assert "<gltf_pbr" in first.read_text()
    again = mtlx.import_mtlx(first)
    assert again.skipped == []
    mtlx.export_mtlx(again.graph, second, "example")
    assert second.read_text() == first.read_text()


def test_standard_surface_lobes_map_onto_their_open_pbr_inputs() -> None:
    def openpbr(name: str) -> Node:
        graph = mtlx.import_mtlx(MX_EXAMPLES / "StandardSurface" / name).graph
        found: Node = next(node for node in graph.nodes.values() if node.type_name == "openpbr_surface")
        return found

    velvet = openpbr("standard_surface_velvet.mtlx").properties
    assert (velvet["fuzz_weight"], velvet["specular_weight"], velvet["base_weight"]) == pytest.approx((1.0, 0.0, 0.8))
    assert velvet["fuzz_color"][:3] == pytest.approx((0.404, 0.058, 1.0))
    jade = openpbr("standard_surface_jade.mtlx").properties
    assert (jade["subsurface_weight"], jade["specular_ior"], jade["specular_roughness_anisotropy"]) == pytest.approx((0.4, 2.418, 0.5))
    assert jade["subsurface_color"][:3] == pytest.approx((0.0603, 0.4398, 0.1916))
    film = openpbr("standard_surface_thin_film.mtlx").properties
    assert (film["thin_film_weight"], film["thin_film_thickness"], film["thin_film_ior"]) == pytest.approx((1.0, 0.55, 1.5))  # nm -> um
    copper = openpbr("standard_surface_copper.mtlx").properties
    assert (copper["coat_weight"], copper["coat_roughness"], copper["coat_ior"], copper["coat_darkening"]) == pytest.approx((1.0, 0.2, 1.5, 0.0))
    assert copper["coat_color"][:3] == pytest.approx((0.96467984, 0.37626296, 0.25818297))
    assert copper["specular_weight"] == 1.0  # standard_surface's specular 0 does not dim a metal; OpenPBR's would
    # A coated dielectric's base reflects against the coat in OpenPBR: the IOR relative to the coat stays 1.5.
    carpaint = openpbr("standard_surface_carpaint.mtlx").properties
    assert carpaint["specular_ior"] / carpaint["coat_ior"] == pytest.approx(1.5)
    assert velvet["fuzz_roughness"] == pytest.approx(0.725 * 0.3**0.158)  # the albedo-matched fuzz roughness


def test_a_coated_base_keeps_its_roughness_after_openpbr_s_coat_roughening() -> None:
    from app.export.mtlx_import import standard_coated_roughness

    for roughness, coat, coat_roughness in ((0.25, 1.0, 0.2), (0.4, 0.5, 0.3), (0.6, 1.0, 0.1)):
        r = standard_coated_roughness(roughness, coat, coat_roughness)
        effective = r + (min(1.0, r**4 + 2 * coat_roughness**4) ** 0.25 - r) * coat  # OpenPBR's effective_specular_roughness
        assert effective == pytest.approx(roughness, abs=1e-6)
    assert standard_coated_roughness(0.1, 1.0, 0.5) == 0.0  # a rough coat roughens a smooth base past it: as near as it goes


def test_a_partly_coated_base_keeps_its_ior_relative_to_what_lies_above() -> None:
    from app.export.mtlx_import import standard_coated_ior

    for ior, coat, coat_ior in ((1.5, 1.0, 1.5), (1.5, 0.1, 1.5), (2.0, 0.5, 1.3), (1.33, 0.0, 1.6)):
        x = standard_coated_ior(ior, coat, coat_ior)
        assert x * (1 - coat) + x / coat_ior * coat == pytest.approx(ior)  # OpenPBR's modulated_eta_s


def test_a_standard_surface_metal_s_edge_colour_is_the_f82_tint_that_meets_its_conductor() -> None:
    """OpenPBR's F82-tint curve of F0 = reflectivity and the mapped tint equals standard_surface's artistic-IOR
    conductor at normal incidence and at mu = 1/7 (where the tint, at most 1 as OpenPBR's colours, is not clamped),
    and stays near it in between."""
    from app.export.mtlx_import import conductor_fresnel, standard_metal_edge_tint

    for r, g in ((0.944, 0.998), (0.776, 0.981), (0.373, 0.751), (0.5, 0.0), (0.9, 1.0)):
        (tint,) = standard_metal_edge_tint([r], [g])
        n = (1 + math.sqrt(r)) / (1 - math.sqrt(r)) + ((1 - r) / (1 + r) - (1 + math.sqrt(r)) / (1 - math.sqrt(r))) * g
        k = math.sqrt(max(((n + 1) ** 2 * r - (n - 1) ** 2) / (1 - r), 0.0))
        bar = 1.0 / 7.0
        dip = (r + (1 - r) * (1 - bar) ** 5) * (1 - tint) / (bar * (1 - bar) ** 6)

        def f82(mu: float, r: float = r, dip: float = dip) -> float:
            return r + (1 - r) * (1 - mu) ** 5 - dip * mu * (1 - mu) ** 6

        assert conductor_fresnel(1.0, n, k) == pytest.approx(r, abs=1e-6)
        if tint < 1.0:
            assert f82(bar) == pytest.approx(conductor_fresnel(bar, n, k), abs=1e-6)
        else:
            assert f82(bar) < conductor_fresnel(bar, n, k) < f82(bar) + 0.05
        assert max(abs(f82(mu) - conductor_fresnel(mu, n, k)) for mu in np.linspace(0.02, 1.0, 50)) < 0.08


def test_standard_surface_anisotropic_roughness_keeps_both_alphas() -> None:
    from app.export.mtlx_import import standard_roughness_scale

    for roughness, anisotropy in ((0.4, 0.5), (0.25, 0.65), (0.3, 0.0), (0.5, 0.98)):
        aspect = math.sqrt(1 - anisotropy)
        theirs = (roughness**2 / aspect, roughness**2 * aspect)
        ours_r = roughness * standard_roughness_scale(anisotropy)
        alpha_t = ours_r**2 * math.sqrt(2 / (1 + (1 - anisotropy) ** 2))
        assert (alpha_t, (1 - anisotropy) * alpha_t) == pytest.approx(theirs)


def test_standard_surface_maps_base_weight_metalness_and_roughness() -> None:
    default = surface(mtlx.import_mtlx(MX_EXAMPLES / "StandardSurface" / "standard_surface_default.mtlx").graph)
    assert default.properties["base_color"][:3] == pytest.approx((0.8, 0.8, 0.8))  # base 0.8 × base_color 1
    assert default.properties["roughness"] == pytest.approx(0.2)
    assert default.properties["metallic"] == 0.0
    chrome = surface(mtlx.import_mtlx(MX_EXAMPLES / "StandardSurface" / "standard_surface_chrome.mtlx").graph)
    assert chrome.properties["metallic"] == 1.0


def test_usd_preview_surface_gold_is_a_metal() -> None:
    gold = surface(mtlx.import_mtlx(MX_EXAMPLES / "UsdPreviewSurface" / "usd_preview_surface_gold.mtlx").graph)
    assert gold.properties["metallic"] == 1.0
    assert gold.properties["base_color"][:3] == pytest.approx((0.944, 0.776, 0.373))


def test_usd_preview_surface_clearcoat_is_the_surface_outputs_clearcoat() -> None:
    """MaterialX's UsdPreviewSurface coat is Schlick with F0 from `ior` and F90 1: KHR_materials_clearcoat at IOR 1.5."""
    carpaint = surface(mtlx.import_mtlx(MX_EXAMPLES / "UsdPreviewSurface" / "usd_preview_surface_carpaint.mtlx").graph)
    assert carpaint.properties["clearcoat"] == 1.0
    assert carpaint.properties["clearcoat_roughness"] == 0.0
    assert carpaint.properties["roughness"] == pytest.approx(0.4)


def test_usd_preview_surface_ior_above_one_and_a_half_is_the_surface_outputs_ior() -> None:
    glass = surface(mtlx.import_mtlx(MX_EXAMPLES / "UsdPreviewSurface" / "usd_preview_surface_glass.mtlx").graph)
    assert glass.properties["ior"] == pytest.approx(1.52)
    assert glass.properties["specular"] == 1.0


def test_usd_preview_surface_clearcoat_over_another_ior_is_listed(tmp_path: Path) -> None:
    path = tmp_path / "coat.mtlx"
    path.write_text(document("""  <UsdPreviewSurface name="SR" type="surfaceshader">
    <input name="clearcoat" type="float" value="1" />
    <input name="ior" type="float" value="1.33" />
  </UsdPreviewSurface>""", colorspace=None))
    imported = mtlx.import_mtlx(path)
    assert surface(imported.graph).properties["clearcoat"] == 1.0
    assert any("'clearcoat'" in line and "1.33" in line for line in imported.skipped), imported.skipped


def test_a_tiled_standard_surface_reads_its_images_through_fileprefix() -> None:
    imported = mtlx.import_mtlx(MX_EXAMPLES / "StandardSurface" / "standard_surface_wood_tiled.mtlx")
    images = sorted(Path(node.properties["image"]).name for node in imported.graph.nodes.values() if node.type_name == "texture_parameter")
    assert images == ["wood_color.jpg", "wood_roughness.jpg"]
    assert all(Path(node.properties["image"]).is_file() for node in imported.graph.nodes.values() if node.type_name == "texture_parameter")
    assert any(node.type_name == "tiling_offset" for node in imported.graph.nodes.values())  # uvtiling 4, 4


def test_the_procedural_brick_reads_its_hue_variation_and_its_connected_uv_tiling() -> None:
    """rgbtohsv / hsvtorgb onto the HSV nodes; a tiledimage's `uvtiling` from a node onto its Tiling and Offset."""
    graph = mtlx.import_mtlx(MX_EXAMPLES / "StandardSurface" / "standard_surface_brick_procedural.mtlx").graph
    types = [node.type_name for node in graph.nodes.values()]
    assert types.count("rgb_to_hsv") == 1 and types.count("hsv_to_rgb") == 1
    tilings = [node.id for node in graph.nodes.values() if node.type_name == "tiling_offset"]
    sources = {connection.source_node for node_id in tilings if (connection := graph.connection_into(node_id, "tiling"))}
    assert len(tilings) == 6 and sources == {"node_convert_1"}
    assert graph.nodes["node_convert_1"].properties["value"] == (3.0, 3.0)  # the interface input `uvtiling` it converts


@pytest.mark.gl
def test_usd_uv_texture_with_primvar_reader_transform_scale_and_bias_bakes_its_formula(current_gl, tmp_path: Path) -> None:
    """base = texel(st × (2, 1) + (0.25, 0)) × 0.5 + 0.25 on red/blue halves; the rotation is listed."""
    from app.export.images import write_image

    texels = np.zeros((4, 4, 3), dtype=np.float32)
    texels[:, :2] = (1.0, 0.0, 0.0)
    texels[:, 2:] = (0.0, 0.0, 1.0)
    write_image(tmp_path / "halves.exr", texels, "linear")
    (tmp_path / "usd.mtlx").write_text(document("""  <UsdPreviewSurface name="SR" type="surfaceshader">
    <input name="diffuseColor" type="color3" nodegraph="NG" output="color" />
    <input name="roughness" type="float" nodegraph="NG" output="roughness" />
  </UsdPreviewSurface>""", nodegraph="""    <UsdPrimvarReader name="reader" type="vector2"><input name="varname" type="string" value="st" /></UsdPrimvarReader>
    <UsdTransform2d name="transform" type="vector2">
      <input name="in" type="vector2" nodename="reader" />
      <input name="scale" type="vector2" value="2, 1" />
      <input name="translation" type="vector2" value="0.25, 0" />
    </UsdTransform2d>
    <UsdUVTexture name="texture" type="multioutput">
      <input name="file" type="filename" value="halves.exr" />
      <input name="st" type="vector2" nodename="transform" />
      <input name="scale" type="color4" value="0.5, 0.5, 0.5, 1" />
      <input name="bias" type="color4" value="0.25, 0.25, 0.25, 0" />
    </UsdUVTexture>
    <UsdTransform2d name="turned" type="vector2"><input name="rotation" type="float" value="30" /></UsdTransform2d>
    <UsdUVTexture name="rough" type="multioutput">
      <input name="file" type="filename" value="halves.exr" />
      <input name="st" type="vector2" nodename="turned" />
    </UsdUVTexture>
    <output name="color" type="color3" nodename="texture" output="rgb" />
    <output name="roughness" type="float" nodename="rough" output="g" />"""))
    assert mtlx.validate((tmp_path / "usd.mtlx").read_text())[0], mtlx.validate((tmp_path / "usd.mtlx").read_text())[1]
    imported = mtlx.import_mtlx(tmp_path / "usd.mtlx")
    assert len(imported.skipped) == 1 and "'rotation'" in imported.skipped[0], imported.skipped
    size = 32
    baked = bake_material(imported.graph, BakeSettings(size=size, mesh="plane", padding=2), any_size=True)
    u = np.broadcast_to(((np.arange(size) + 0.5) / size)[None, :], (size, size))
    texture_u = (u * 2.0 + 0.25) % 1.0
    red = texture_u < 0.5
    margin = np.abs(((texture_u * 4.0) % 2.0) - 1.0) < 1.0 - 2.0 * 8.0 / size
    base = baked.channel("base_color")[:, :, :3]
    assert np.abs(base[red & margin] - (0.75, 0.25, 0.25)).max() < 2e-3
    assert np.abs(base[~red & margin] - (0.25, 0.25, 0.75)).max() < 2e-3


def test_a_value_on_an_input_with_a_geometric_default_reads_the_geometry_as_materialx_does() -> None:
    """gltf_pbr_default gives `normal` the value (0, 0, 1); MaterialX shades with Nworld (defaultgeomprop) anyway."""
    imported = mtlx.import_mtlx(MX_EXAMPLES / "GltfPbr" / "gltf_pbr_default.mtlx")
    assert imported.graph.connection_into(surface(imported.graph).id, "normal") is None


def _place2d(u: np.ndarray, v: np.ndarray, pivot: tuple[float, float], scale: tuple[float, float], degrees: float,
             offset: tuple[float, float], trs: bool) -> tuple[np.ndarray, np.ndarray]:
    """MaterialX's place2d (stdlib NG_place2d_vector2): rotate2d turns clockwise by `degrees`."""
    x, y = u - pivot[0], v - pivot[1]
    if trs:
        x, y = x - offset[0], y - offset[1]
    else:
        x, y = x / scale[0], y / scale[1]
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    x, y = c * x + s * y, -s * x + c * y
    if trs:
        x, y = x / scale[0], y / scale[1]
    else:
        x, y = x - offset[0], y - offset[1]
    return x + pivot[0], y + pivot[1]


@pytest.mark.gl
@pytest.mark.parametrize("order", [0, 1])
def test_place2d_and_clamp_addressing_bake_materialx_s_formula(current_gl, tmp_path: Path, order: int) -> None:
    """image(place2d(uv)) with a rotation, both operation orders, clamp addressing: each texel read is where
    MaterialX's place2d puts it, limited to the edge texels (a ramp in u: the red channel reads the u)."""
    from app.export.images import write_image

    width = 64
    texels = np.zeros((4, width, 3), dtype=np.float32)
    texels[:, :, 0] = (np.arange(width) + 0.5) / width
    write_image(tmp_path / "ramp.exr", texels, "linear")
    (tmp_path / "placed.mtlx").write_text(document("""  <standard_surface name="SR" type="surfaceshader">
    <input name="base_color" type="color3" nodegraph="NG" output="color" />
  </standard_surface>""", nodegraph=f"""    <texcoord name="uv" type="vector2" />
    <place2d name="placed" type="vector2">
      <input name="texcoord" type="vector2" nodename="uv" />
      <input name="pivot" type="vector2" value="0.5, 0.5" />
      <input name="scale" type="vector2" value="0.5, 0.8" />
      <input name="rotate" type="float" value="30" />
      <input name="offset" type="vector2" value="0.1, -0.05" />
      <input name="operationorder" type="integer" value="{order}" />
    </place2d>
    <image name="ramp" type="color3">
      <input name="file" type="filename" value="ramp.exr" />
      <input name="texcoord" type="vector2" nodename="placed" />
      <input name="uaddressmode" type="string" value="clamp" />
      <input name="vaddressmode" type="string" value="clamp" />
    </image>
    <output name="color" type="color3" nodename="ramp" />"""))
    imported = mtlx.import_mtlx(tmp_path / "placed.mtlx")
    assert imported.skipped == []
    assert any(node.type_name == "rotate_uv" for node in imported.graph.nodes.values())
    size = 128  # a texel or less per pixel: the ramp's full-resolution level is read (coarser levels wrap at the edges)
    baked = bake_material(imported.graph, BakeSettings(size=size, mesh="plane", padding=2), any_size=True)
    centres = (np.arange(size) + 0.5) / size
    u, v = np.meshgrid(centres, 1.0 - centres)  # the baked image's top row is v = 1
    x, _ = _place2d(u, v, (0.5, 0.5), (0.5, 0.8), 30.0, (0.1, -0.05), trs=order == 1)
    expected = np.clip(x, 0.5 / width, 1.0 - 0.5 / width)
    red = baked.channel("base_color")[:, :, 0]
    error = np.abs(red - expected)
    assert error.max() < 3e-3, np.argwhere(error > 3e-3).tolist()
    assert (x < 0.0).any() and (x > 1.0).any()  # both clamped ends are read
