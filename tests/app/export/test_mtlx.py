"""MaterialX export and import, checked by MaterialX itself and by rendering.

- Every example exports (nodes without a counterpart baked on real OpenGL),
  MaterialX's `validate()` accepts the document, its GLSL generator makes a
  shader, and glslangValidator compiles that shader.
- Export -> import -> export gives the same text for the mapped subset (the
  mapped PBR examples and a graph using every mapped node type).
- MaterialX documents written here import to graphs whose baked channels
  match numpy references computed from the documents' own formulas.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mtlx_documents import document

from app.export import mtlx
from app.export.bake import Baker, BakeSettings, bake_material
from app.export.surface import ExportError
from app.material.catalog import NODE_TYPES
from app.material.document import load_file
from app.material.graph import MaterialGraph

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "resources" / "examples"
ALL_EXAMPLES = sorted(path.stem for path in EXAMPLES.glob("*.vpl"))
#: Examples made only of nodes with a counterpart (nothing baked).
MAPPED_EXAMPLES = ("glazed_ceramic", "material_chart", "painted_metal", "polished_gold")
SIZE = 32


def example(name: str) -> MaterialGraph:
    graph = load_file(str(EXAMPLES / f"{name}.vpl")).graph
    assert graph is not None
    return graph


def compile_glsl(vertex: str, pixel: str, folder: Path) -> None:
    (folder / "shader.vert").write_text(vertex)
    (folder / "shader.frag").write_text(pixel)
    done = subprocess.run(["glslangValidator", str(folder / "shader.vert"), str(folder / "shader.frag")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.gl
def test_every_example_validates_and_generates_glsl(current_gl, tmp_path: Path) -> None:
    assert len(ALL_EXAMPLES) >= 15
    baked_any = False
    for name in ALL_EXAMPLES:
        graph = example(name)
        baker = Baker(graph, BakeSettings(size=SIZE, mesh="sphere"), document_dir=EXAMPLES, any_size=True)
        target = tmp_path / name / f"{name}.mtlx"
        target.parent.mkdir()
        result = mtlx.export_mtlx(graph, target, name, document_dir=EXAMPLES, bake=baker.bake_node_outputs)
        valid, message = mtlx.validate(target.read_text())
        assert valid, f"{name}: {message}"
        vertex, pixel = mtlx.generate_glsl(result.text)
        assert "gltf" in pixel.lower() or "surface_unlit" in pixel.lower() or "emission" in pixel.lower(), name
        compile_glsl(vertex, pixel, target.parent)
        # One note per baked output, naming its file, and the file is there with the node's values.
        assert len(result.notes) >= len(result.baked_files), name
        for file in result.baked_files:
            assert file.exists() and any(file.name in note for note in result.notes), (name, file)
            baked_any = True
        if name in MAPPED_EXAMPLES:
            assert result.baked_files == [], name
    assert baked_any


@pytest.mark.gl
def test_a_baked_image_holds_the_node_output(current_gl, tmp_path: Path) -> None:
    """The EXR behind an `image` node has the node's values on the plane's UVs (Value Noise of brushed_metal)."""
    graph = example("brushed_metal")
    noise = next(node.id for node in graph.nodes.values() if node.type_name == "value_noise")
    baker = Baker(graph, BakeSettings(size=SIZE, mesh="plane", padding=2), document_dir=EXAMPLES, any_size=True)
    result = mtlx.export_mtlx(graph, tmp_path / "brushed.mtlx", "brushed", document_dir=EXAMPLES, bake=baker.bake_node_outputs)
    file = tmp_path / f"brushed_{noise}_out.exr"
    assert file in result.baked_files
    reference = Baker(graph, BakeSettings(size=SIZE, mesh="plane", padding=2), document_dir=EXAMPLES,
                      any_size=True).bake_node_outputs([(noise, "out")])[(noise, "out")]
    import OpenImageIO as oiio  # noqa: N813 - the package's usual name

    pixels = oiio.ImageBuf(str(file)).get_pixels(oiio.FLOAT)
    assert np.abs(pixels[:, :, 0] - reference.values[:, :, 0]).max() < 1e-3  # EXR half floats
    assert float(pixels[:, :, 0].std()) > 0.05  # noise, not a constant


def test_without_a_baker_the_export_says_what_needs_baking(tmp_path: Path) -> None:
    with pytest.raises(mtlx.NeedsBaking, match="need baking"):
        mtlx.export_document(example("brushed_metal"), tmp_path / "x.mtlx")


def mapped_graph() -> MaterialGraph:
    """A Surface Output material using every node type the exporter maps (SIMPLE, If, Remap, ...)."""
    graph = MaterialGraph()
    uv = graph.add_node("texcoord", (0.0, 0.0))
    split = graph.add_node("split", (100.0, 0.0))
    graph.connect(uv.id, "out", split.id, "vector")
    amount = graph.add_node("float_parameter", (0.0, 200.0), {"name": "amount", "default": 0.3, "minimum": 0.0, "maximum": 2.0})
    tint = graph.add_node("color_parameter", (0.0, 300.0), {"name": "tint", "default": (0.8, 0.4, 0.2, 1.0)})
    vector = graph.add_node("compose", (200.0, 100.0), {"size": 3})
    for port, source in (("x", (split.id, "x")), ("y", (split.id, "y")), ("z", (amount.id, "out"))):
        graph.connect(*source, vector.id, port)
    total = ""
    x = 300.0

    def accumulate(node_id: str) -> None:
        nonlocal total
        if not total:
            total = node_id
            return
        add = graph.add_node("add", (x, 100.0))
        graph.connect(total, "out", add.id, "a")
        graph.connect(node_id, "out", add.id, "b")
        total = add.id

    for name in sorted(mtlx.SIMPLE):
        node = graph.add_node(name, (x, 0.0))
        x += 50.0
        for port in mtlx.SIMPLE[name].inputs:
            if name in ("cross", "normalize", "length", "distance", "dot"):
                graph.connect(vector.id, "out", node.id, port)
            else:
                graph.connect(split.id, "y" if port == "b" else "x", node.id, port)
        if name in ("cross", "normalize"):
            component = graph.add_node("swizzle", (x, 50.0), {"pattern": "y"})
            graph.connect(node.id, "out", component.id, "vector")
            accumulate(component.id)
        else:
            accumulate(node.id)
    for operator in mtlx.IF_OPERATORS:
        branch = graph.add_node("if", (x, 200.0), {"operator": operator})
        x += 50.0
        graph.connect(split.id, "x", branch.id, "a")
        graph.connect(amount.id, "out", branch.id, "b")
        graph.connect(split.id, "y", branch.id, "if_true")
        accumulate(branch.id)
    remap = graph.add_node("remap", (x, 300.0), {"clamp": False})
    graph.connect(total, "out", remap.id, "x")
    output = graph.add_node("surface_output", (x + 200.0, 0.0))
    graph.connect(remap.id, "out", output.id, "roughness")
    mix = graph.add_node("mix", (x, 400.0))
    graph.connect(tint.id, "out", mix.id, "a")
    graph.connect(split.id, "y", mix.id, "t")
    graph.connect(mix.id, "out", output.id, "base_color")
    tiling = graph.add_node("tiling_offset", (x, 500.0))
    graph.connect(uv.id, "out", tiling.id, "uv")
    tiled = graph.add_node("split", (x, 500.0))
    graph.connect(tiling.id, "out", tiled.id, "vector")
    graph.connect(tiled.id, "y", output.id, "specular")
    tangent_normal = graph.add_node("compose", (x, 600.0), {"size": 3})
    graph.connect(split.id, "x", tangent_normal.id, "x")
    normal_map = graph.add_node("normal_map", (x, 600.0))
    graph.connect(tangent_normal.id, "out", normal_map.id, "tangent_normal")
    graph.connect(normal_map.id, "normal_out", output.id, "normal")
    position = graph.add_node("world_position", (x, 700.0))
    length = graph.add_node("length", (x, 700.0))
    graph.connect(position.id, "out", length.id, "vector")
    graph.connect(length.id, "out", output.id, "metallic")
    return graph


def round_trip(graph: MaterialGraph, target: Path, document_dir: Path | None = None) -> tuple[mtlx.MtlxExport, mtlx.MtlxImport, str]:
    first = mtlx.export_mtlx(graph, target, target.stem, document_dir=document_dir)
    imported = mtlx.import_mtlx(target)
    second = mtlx.export_document(imported.graph, target, target.stem, document_dir=target.parent)
    return first, imported, second.text


@pytest.mark.parametrize("name", MAPPED_EXAMPLES)
def test_export_import_export_of_the_mapped_examples_is_stable(name: str, tmp_path: Path) -> None:
    first, imported, second = round_trip(example(name), tmp_path / f"{name}.mtlx", EXAMPLES)
    assert imported.skipped == []
    assert second == first.text


def test_every_mapped_node_type_survives_the_round_trip(tmp_path: Path) -> None:
    graph = mapped_graph()
    first, imported, second = round_trip(graph, tmp_path / "mapped.mtlx")
    assert mtlx.validate(first.text)[0]
    mtlx.generate_glsl(first.text)
    assert imported.skipped == [] and first.notes == []
    assert second == first.text
    # Node ids survive; types too, except the documented many-to-one cases.
    same_meaning = {("if", "step")}  # an If with branches 1 and 0 is a Step
    for node_id, node in graph.nodes.items():
        if node.type_name in ("split", "surface_output"):
            continue  # a Split becomes one Swizzle per component used; the output is named `surface`
        assert node_id in imported.graph.nodes, node_id
        pair = (node.type_name, imported.graph.nodes[node_id].type_name)
        assert pair[0] == pair[1] or pair in same_meaning, (node_id, pair)
    assert imported.graph.nodes["n3"].properties["name"] == "amount"
    assert imported.graph.nodes["n3"].properties["maximum"] == 2.0


def write_document(path: Path, body: str, shader: str) -> Path:
    path.write_text(document(shader, nodegraph=body))
    assert mtlx.validate(path.read_text())[0], mtlx.validate(path.read_text())[1]
    return path


def texel_centres(size: int) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) of every texel centre, top row first (as the baked images)."""
    centres = (np.arange(size) + 0.5) / size
    return np.broadcast_to(centres[None, :], (size, size)), np.broadcast_to(1.0 - centres[:, None], (size, size))


@pytest.mark.gl
def test_a_written_gltf_pbr_document_imports_and_renders(current_gl, tmp_path: Path) -> None:
    """base = mix(blue, orange, u); roughness = 0.2 + 0.6 v; metallic from noise2d (not imported: stays default)."""
    document = write_document(tmp_path / "written.mtlx", """
    <texcoord name="uv" type="vector2" />
    <extract name="u" type="float"><input name="in" type="vector2" nodename="uv" /><input name="index" type="integer" value="0" /></extract>
    <extract name="v" type="float"><input name="in" type="vector2" nodename="uv" /><input name="index" type="integer" value="1" /></extract>
    <mix name="base" type="color3">
      <input name="bg" type="color3" value="0.1, 0.2, 0.9" />
      <input name="fg" type="color3" value="1, 0.5, 0" />
      <input name="mix" type="float" nodename="u" />
    </mix>
    <multiply name="scaled" type="float"><input name="in1" type="float" nodename="v" /><input name="in2" type="float" value="0.6" /></multiply>
    <add name="rough" type="float"><input name="in1" type="float" nodename="scaled" /><input name="in2" type="float" value="0.2" /></add>
    <noise2d name="grain" type="float"><input name="amplitude" type="float" value="1" /></noise2d>
    <output name="base_out" type="color3" nodename="base" />
    <output name="rough_out" type="float" nodename="rough" />
    <output name="metal_out" type="float" nodename="grain" />""", """
  <gltf_pbr name="SR" type="surfaceshader">
    <input name="base_color" type="color3" nodegraph="NG" output="base_out" />
    <input name="roughness" type="float" nodegraph="NG" output="rough_out" />
    <input name="metallic" type="float" nodegraph="NG" output="metal_out" />
    <input name="specular_color" type="color3" value="0.5, 0.5, 0.5" />
  </gltf_pbr>""")
    imported = mtlx.import_mtlx(document)
    assert any("grain" in line and "noise2d" in line and "metallic" in line for line in imported.skipped), imported.skipped
    assert any("specular_color" in line for line in imported.skipped), imported.skipped
    assert len(imported.skipped) == 2
    baked = bake_material(imported.graph, BakeSettings(size=SIZE, mesh="plane", padding=2), any_size=True)
    u, v = texel_centres(SIZE)
    blue, orange = np.array([0.1, 0.2, 0.9]), np.array([1.0, 0.5, 0.0])
    expected_base = blue + (orange - blue) * u[:, :, None]
    assert np.abs(baked.channel("base_color")[:, :, :3] - expected_base).max() < 1e-4
    assert np.abs(baked.channel("roughness")[:, :, 0] - (0.2 + 0.6 * v)).max() < 1e-4
    assert baked.constant("metallic") == (NODE_TYPES["surface_output"].property("metallic").default,)  # noise2d was not imported


@pytest.mark.gl
def test_a_written_unlit_document_with_a_texture_imports_and_renders(current_gl, tmp_path: Path) -> None:
    """surface_unlit reading a tiled image through an interface filename input: a Sample Texture with Tiling Offset."""
    from app.export.images import write_image

    texels = np.zeros((4, 4, 3), dtype=np.float32)
    texels[:, :2] = (1.0, 0.0, 0.0)
    texels[:, 2:] = (0.0, 0.0, 1.0)
    write_image(tmp_path / "halves.exr", texels, "linear")
    document = write_document(tmp_path / "unlit.mtlx", """
    <input name="picture" type="filename" value="halves.exr" />
    <multiply name="t_tiling" type="vector2"><input name="in1" type="vector2" nodename="default_texcoord" /><input name="in2" type="vector2" value="2, 1" /></multiply>
    <texcoord name="default_texcoord" type="vector2" />
    <add name="t" type="vector2"><input name="in1" type="vector2" nodename="t_tiling" /><input name="in2" type="vector2" value="0, 0" /></add>
    <image name="img" type="color3">
      <input name="file" type="filename" interfacename="picture" />
      <input name="texcoord" type="vector2" nodename="t" />
    </image>
    <output name="color_out" type="color3" nodename="img" />""", """
  <surface_unlit name="SR" type="surfaceshader">
    <input name="emission_color" type="color3" nodegraph="NG" output="color_out" />
  </surface_unlit>""")
    imported = mtlx.import_mtlx(document)
    assert imported.skipped == []
    types = {node.type_name for node in imported.graph.nodes.values()}
    # The linear image is encoded for the display-referred Unlit Output (0 and 1 stay 0 and 1).
    assert {"material_output", "sample_texture", "texture_parameter", "tiling_offset", "power", "mix"} <= types
    baked = bake_material(imported.graph, BakeSettings(size=SIZE, mesh="plane", padding=2), any_size=True)
    u, _v = texel_centres(SIZE)
    red = (np.floor(u * 2.0 * 4.0) % 4) < 2  # tiled twice: the left half of each tile is red
    base = baked.channel("base_color")[:, :, :3]
    margin = np.abs(((u * 8.0) % 2.0) - 1.0) < 1.0 - 2.0 * 8.0 / SIZE  # away from the texel edges (linear filtering)
    assert np.abs(base[red & margin] - (1.0, 0.0, 0.0)).max() < 1e-3
    assert np.abs(base[~red & margin] - (0.0, 0.0, 1.0)).max() < 1e-3


def test_unreadable_documents_raise_export_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.mtlx"
    broken.write_text("<materialx version='1.39'><nodegraph name='x'>")
    with pytest.raises(ExportError, match="cannot read"):
        mtlx.import_mtlx(broken)
    empty = tmp_path / "empty.mtlx"
    empty.write_text("<?xml version='1.0'?><materialx version='1.39'></materialx>")
    with pytest.raises(ExportError, match="no surfacematerial"):
        mtlx.import_mtlx(empty)
    other = write_document(tmp_path / "standard.mtlx", "", """
  <disney_principled name="SR" type="surfaceshader"><input name="metallic" type="float" value="1" /></disney_principled>""")
    with pytest.raises(ExportError, match="is a disney_principled"):
        mtlx.import_mtlx(other)


def test_the_unmapped_node_types_are_the_documented_ones() -> None:
    """docs/interchange.md lists the mapped node types; every other type is baked."""
    text = (ROOT / "docs" / "interchange.md").read_text()
    for name in NODE_TYPES:
        graph = MaterialGraph()
        node = graph.add_node(name)
        if mtlx.exportable(node) and name not in ("surface_output", "material_output", "reroute"):
            assert f"`{name}`" in text, f"{name} is mapped but not in docs/interchange.md"


@pytest.mark.gl  # `vpl export-mtlx` bakes with OpenGL, in a process of its own
def test_the_commands(tmp_path: Path) -> None:
    """`vpl export-mtlx` (with baking) and `vpl import-mtlx` end to end, and their usage errors."""
    vpl = [str(Path(sys.executable).parent / "vpl")]
    target = tmp_path / "brushed.mtlx"
    done = subprocess.run([*vpl, "export-mtlx", str(EXAMPLES / "brushed_metal.vpl"), "--out", str(target), "--size", "256"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Value Noise" in done.stderr and "baked to brushed_metal_n2_out.exr" in done.stderr
    assert mtlx.validate(target.read_text())[0] and (tmp_path / "brushed_metal_n2_out.exr").exists()
    material = tmp_path / "back.vpl"
    done = subprocess.run([*vpl, "import-mtlx", str(target), "--out", str(material)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert load_file(str(material)).graph is not None
    wrong = subprocess.run([*vpl, "export-mtlx", str(EXAMPLES / "polished_gold.vpl"), "--out", str(tmp_path / "x.xml")],
                           capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and "--out must name a .mtlx file" in wrong.stderr


#: example -> (largest mean, largest 95th percentile) in 1/255, as for the baked glTF twin (test_bake_rerender.py).
RENDER_TOLERANCES = {"brushed_metal": (4.0, 14.0), "rough_plastic": (2.0, 10.0)}


@pytest.mark.gl
@pytest.mark.parametrize("name", sorted(RENDER_TOLERANCES))
def test_an_exported_and_reimported_material_renders_like_the_original(current_gl, name: str, tmp_path: Path) -> None:
    """Noise and Normal From Height baked to EXR, the rest mapped; the import read back renders as the original.

    Both are drawn by the preview (512², default stage) and compared outside
    the seam mask of the baked images' coverage (docs/interchange.md, "Checking a bake").
    """
    import rerender

    graph = example(name)
    baker = Baker(graph, BakeSettings(size=1024), document_dir=EXAMPLES)
    coverage = []

    def bake(outputs):
        images = baker.bake_node_outputs(outputs)
        coverage.append(next(iter(images.values())).coverage)
        return images

    result = mtlx.export_mtlx(graph, tmp_path / f"{name}.mtlx", name, document_dir=EXAMPLES, bake=bake)
    assert result.baked_files and coverage
    imported = mtlx.import_mtlx(tmp_path / f"{name}.mtlx")
    assert imported.skipped == []
    assert {node.type_name for node in imported.graph.nodes.values()} >= {"sample_texture", "texture_parameter"}
    uv = rerender.uv_image(512)
    mask = rerender.seam_mask(uv, coverage[0])
    measured = rerender.difference(rerender.render(graph, EXAMPLES, 512), rerender.render(imported.graph, None, 512),
                                   mask, uv, factor=2)
    mean, p95 = RENDER_TOLERANCES[name]
    assert measured["mean"] <= mean and measured["p95"] <= p95, measured


def test_a_colour_into_a_float_is_exported_as_its_rec709_luminance(tmp_path: Path) -> None:
    """The editor's implicit colour-to-float conversion (luminance, Rec. 709 weights) becomes MaterialX nodes with
    those weights (MaterialX's own default weights are ACEScg's), never a bare `convert`."""
    graph = MaterialGraph()
    tint = graph.add_node("color_parameter", (0.0, 0.0), {"name": "tint", "default": (0.8, 0.4, 0.2, 1.0)})
    vector = graph.add_node("compose", (200.0, 0.0), {"size": 3})
    output = graph.add_node("surface_output", (400.0, 0.0))
    graph.connect(tint.id, "out", vector.id, "x")
    graph.connect(vector.id, "out", output.id, "base_color")
    target = tmp_path / "luminance.mtlx"
    text = mtlx.export_document(graph, target).text
    assert mtlx.validate(text)[0], mtlx.validate(text)[1]
    assert "<luminance" in text and "0.2126, 0.7152, 0.0722" in text and "<extract" in text
