"""The Surface Output's height in exports: glTF's normal map holds its bump (checked against a numpy central
difference of the baked height), the height image is written beside the file and the file passes the Khronos
validator; MaterialX gets a `displacement` shader that MaterialX's own library validates, and imports it back
onto the height."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_gltf import issue_counts, validate

from app.export import mtlx
from app.export.bake import Baker, BakeSettings
from app.export.gltf import build_material, export_gltf
from app.export.mtlx_import import import_mtlx
from app.material.graph import MaterialGraph, Node
from app.material.lowering import lower

SCALE = 0.05
MID = 0.5
SIZE = 256


def _brick_height_graph() -> MaterialGraph:
    """Bricks whose soft mask (smoothstep bevels 0.05 UV wide) is the height."""
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties={"height_scale": SCALE, "height_mid_level": MID})
    bricks = graph.add_node("bricks", properties={"count": (2.0, 4.0), "mortar": 0.08, "softness": 0.06})
    graph.connect(bricks.id, "color", output.id, "base_color")
    graph.connect(bricks.id, "mask", output.id, "height")
    return graph


@pytest.mark.gl
def test_the_gltf_normal_map_is_the_bump_of_the_baked_height(current_gl, tmp_path: Path) -> None:
    baker = Baker(_brick_height_graph(), BakeSettings(size=SIZE, mesh="plane"))
    baked = baker.bake_material()
    result = build_material(baked, "bricks")
    assert "normalTexture" in result.material and result.needs_tangents
    assert result.material["extras"]["height"] == {"scale": SCALE, "midLevel": MID}
    height_values = baked.channel("height")
    assert height_values is not None
    height = height_values[:, :, 0].astype(np.float64)  # top row first: row i is v = 1 - (i + 0.5) / SIZE
    assert height.min() < 0.05 and height.max() > 0.95
    np.testing.assert_array_equal(result.side_images["height"][:, :, 0], np.round(np.clip(height, 0, 1) * 255).astype(np.uint8))
    # The plane spans 2 world units per UV unit, tangent +x, bitangent +y: the displacement (h - mid) * scale has
    # the slope d/dx = dh/du * scale / 2, and the bumped tangent-space normal is normalize(-dd/dx, -dd/dy, 1).
    texel = 1.0 / SIZE
    dh_du = (np.roll(height, -1, axis=1) - np.roll(height, 1, axis=1)) / (2.0 * texel)
    dh_dv = -(np.roll(height, -1, axis=0) - np.roll(height, 1, axis=0)) / (2.0 * texel)
    expected = np.stack([-dh_du * SCALE / 2.0, -dh_dv * SCALE / 2.0, np.ones_like(height)], axis=-1)
    expected /= np.linalg.norm(expected, axis=-1, keepdims=True)
    stored = result.images["normal"].astype(np.float64) / 255.0 * 2.0 - 1.0
    stored /= np.linalg.norm(stored, axis=-1, keepdims=True)
    inner = (slice(2, -2), slice(2, -2))  # central differences wrap at the border
    cosine = np.sum(stored[inner] * expected[inner], axis=-1)
    tilted = expected[inner][..., 2] < np.cos(np.radians(5.0))
    assert tilted.mean() > 0.1  # the bevels are a good share of the image
    angle = np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))
    # 8-bit storage alone is up to ~0.4 degrees; where the bevel bends sharpest, the 2-texel taps the bump is
    # fitted to round the slope a little more than a central difference does.
    assert np.median(angle) < 0.5 and np.percentile(angle, 99) < 4.0 and angle.max() < 6.0, np.percentile(angle, [50, 90, 99, 100])
    assert angle[tilted].mean() < 1.0
    # Without the height the normal map would be flat: the bump is what is stored.
    assert np.degrees(np.arccos(np.clip(stored[inner][..., 2], -1, 1)))[tilted].mean() > 5.0

    written = export_gltf(baked, baker.mesh(), tmp_path / "bricks.glb", "bricks")
    beside = tmp_path / "bricks_height.png"
    assert beside in written and beside.is_file()
    report = validate(tmp_path / "bricks.glb")[0]
    assert issue_counts(report) == (0, 0, 0, 0), report["issues"]
    (tmp_path / "text").mkdir()
    export_gltf(baked, baker.mesh(), tmp_path / "text" / "bricks.gltf", "bricks")
    assert (tmp_path / "text" / "bricks_height.png").is_file()
    report = validate(tmp_path / "text" / "bricks.gltf")[0]
    assert issue_counts(report) == (0, 0, 0, 0), report["issues"]


def test_materialx_export_writes_a_displacement_shader_the_library_validates(tmp_path: Path) -> None:
    graph = MaterialGraph()
    output = graph.add_node("surface_output", (600.0, 0.0), {"height_scale": 0.08, "height_mid_level": 0.25})
    uv = graph.add_node("texcoord", (0.0, 0.0))
    split = graph.add_node("split", (200.0, 0.0))
    graph.connect(uv.id, "out", split.id, "vector")
    graph.connect(split.id, "x", output.id, "height")
    target = tmp_path / "height.mtlx"
    text = mtlx.export_document(graph, target).text
    valid, message = mtlx.validate(text)
    assert valid, message
    import MaterialX as mx  # noqa: N813 - the package's name

    document = mx.createDocument()
    mx.readFromXmlString(document, text)
    shader = document.getNode("DS_height")
    assert shader is not None and shader.getCategory() == "displacement" and shader.getType() == "displacementshader"
    assert shader.getInputValue("scale") == pytest.approx(0.08)
    material = document.getMaterialNodes()[0]
    assert material.getInput("displacementshader").getNodeName() == "DS_height"
    # displacement = clamp(height, 0, 1) - mid level, read from the node graph.
    centred = document.getNodeGraphs()[0].getNode(f"{output.id}_height_centred")
    assert centred.getCategory() == "subtract"
    assert centred.getInputValue("in2") == pytest.approx(0.25)
    clamp = document.getNodeGraphs()[0].getNode(f"{output.id}_height")
    assert clamp.getCategory() == "clamp"


def test_a_material_without_height_exports_no_displacement(tmp_path: Path) -> None:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"height_scale": 0.2})
    text = mtlx.export_document(graph, tmp_path / "plain.mtlx").text
    assert "displacement" not in text


def _height_graph(scale: float, mid_level: float) -> MaterialGraph:
    graph = MaterialGraph()
    output = graph.add_node("surface_output", (600.0, 0.0), {"height_scale": scale, "height_mid_level": mid_level})
    uv = graph.add_node("texcoord", (0.0, 0.0))
    split = graph.add_node("split", (200.0, 0.0))
    graph.connect(uv.id, "out", split.id, "vector")
    graph.connect(split.id, "y", output.id, "height")
    return graph


def _surface(graph: MaterialGraph) -> Node:
    return next(node for node in graph.nodes.values() if node.type_name == "surface_output")


def test_a_materialx_displacement_imports_back_onto_the_height(tmp_path: Path) -> None:
    """Export -> import -> export: the displacement shader becomes the Surface Output's height (the same v ramp),
    scale and mid level, and the second export is the first one, both validated by MaterialX's library."""
    graph = _height_graph(0.07, 0.3)
    first = mtlx.export_document(graph, tmp_path / "height.mtlx")
    assert mtlx.validate(first.text)[0]
    (tmp_path / "height.mtlx").write_text(first.text)
    imported = import_mtlx(tmp_path / "height.mtlx")
    assert imported.skipped == []
    surface = _surface(imported.graph)
    assert surface.properties["height_scale"] == pytest.approx(0.07)
    assert surface.properties["height_mid_level"] == pytest.approx(0.3)
    sources = [edge for edge in imported.graph.connections if edge.target_node == surface.id and edge.target_port == "height"]
    assert len(sources) == 1
    # Upstream of the height: the texture coordinate, through the component read.
    upstream = {connection.source_node for connection in imported.graph.connections
                if connection.target_node == sources[0].source_node}
    assert [imported.graph.nodes[node].type_name for node in upstream] == ["texcoord"]
    assert lower(imported.graph).ok
    second = mtlx.export_document(imported.graph, tmp_path / "height.mtlx")
    assert mtlx.validate(second.text)[0]
    # The same document but for the output's id in the clamp's and the subtract's names; stable from then on.
    renamed = first.text.replace(f"{_surface(graph).id}_height", f"{surface.id}_height")
    assert sorted(second.text.splitlines()) == sorted(renamed.splitlines())
    (tmp_path / "height.mtlx").write_text(second.text)
    assert mtlx.export_document(import_mtlx(tmp_path / "height.mtlx").graph, tmp_path / "height.mtlx").text == second.text


def test_a_foreign_displacement_is_the_height_with_mid_level_zero(tmp_path: Path) -> None:
    """A displacement shader written by another tool: a float (here a node's result, then a constant) along the
    normal times a scale reads as height = displacement, mid level 0; a vector displacement is a note."""
    def document(displacement: str, extra: str = "") -> Path:
        path = tmp_path / "foreign.mtlx"
        path.write_text(f"""<?xml version="1.0"?>
<materialx version="1.39">
  {extra}
  <gltf_pbr name="SR" type="surfaceshader" />
  {displacement}
  <surfacematerial name="M" type="material">
    <input name="surfaceshader" type="surfaceshader" nodename="SR" />
    <input name="displacementshader" type="displacementshader" nodename="DS" />
  </surfacematerial>
</materialx>
""")
        valid, message = mtlx.validate(path.read_text())  # with MaterialX's own library
        assert valid, message
        return path

    ramp = document('<displacement name="DS" type="displacementshader">'
                    '<input name="displacement" type="float" nodename="ramp" /><input name="scale" type="float" value="0.2" />'
                    '</displacement>', '<multiply name="ramp" type="float"><input name="in1" type="float" value="0.5" />'
                    '<input name="in2" type="float" value="3" /></multiply>')
    imported = import_mtlx(ramp)
    surface = _surface(imported.graph)
    assert surface.properties["height_scale"] == pytest.approx(0.2)
    assert surface.properties["height_mid_level"] == 0.0
    assert any(edge.target_node == surface.id and edge.target_port == "height" for edge in imported.graph.connections)
    assert imported.skipped == ["displacement shader 'DS' input 'displacement': read as the height with mid level 0; "
                                "the preview clamps the height to 0..1"]
    constant = document('<displacement name="DS" type="displacementshader">'
                        '<input name="displacement" type="float" value="0.4" /></displacement>')
    imported = import_mtlx(constant)
    assert imported.skipped == []
    surface = _surface(imported.graph)
    assert surface.properties["height_mid_level"] == 0.0 and surface.properties["height_scale"] == pytest.approx(1.0)
    vector = document('<displacement name="DS" type="displacementshader">'
                      '<input name="displacement" type="vector3" value="0, 0.1, 0" /></displacement>')
    imported = import_mtlx(vector)
    assert any("vector3 displacement" in line and "'DS'" in line for line in imported.skipped)
    assert not any(edge.target_port == "height" for edge in imported.graph.connections)


def test_an_empty_displacement_input_is_no_displacement_and_a_dangling_one_a_note(tmp_path: Path) -> None:
    """MaterialX's own examples declare `displacementshader` with `value=""`: no displacement, nothing to say.
    A reference to a node the document does not have is a note."""
    def imported(attribute: str) -> Any:
        path = tmp_path / "empty.mtlx"
        path.write_text(f"""<?xml version="1.0"?>
<materialx version="1.39">
  <gltf_pbr name="SR" type="surfaceshader" />
  <surfacematerial name="M" type="material">
    <input name="surfaceshader" type="surfaceshader" nodename="SR" />
    <input name="displacementshader" type="displacementshader" {attribute} />
  </surfacematerial>
</materialx>
""")
        return import_mtlx(path)

    empty = imported('value=""')
    assert empty.skipped == []
    assert not any(edge.target_port == "height" for edge in empty.graph.connections)
    dangling = imported('nodename="missing"')
    assert dangling.skipped == ["material 'M' input 'displacementshader': reads no node; no height imported"]
