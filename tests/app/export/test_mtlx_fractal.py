"""MaterialX's `fractal3d` imports onto MaterialX Fractal 3D with every input, exports back as fractal3d, and
import -> export -> import is a fixed point; forms and inputs without a counterpart are listed."""

from __future__ import annotations

from pathlib import Path

from mtlx_documents import document

from app.export import mtlx
from app.material.graph import MaterialGraph, Node
from app.material.lowering import lower

DOCUMENT = document("""  <standard_surface name="SR" type="surfaceshader">
    <input name="base_color" type="color3" nodegraph="NG" output="out" />
  </standard_surface>""", colorspace=None, nodegraph="""    <input name="count" type="integer" value="5" />
    <input name="gap" type="float" value="2.5" />
    <position name="pos" type="vector3"><input name="space" type="string" value="world" /></position>
    {nodes}
    <output name="out" type="color3" nodename="{output}" />""")
FLOAT = """<fractal3d name="noise" type="float">
      <input name="octaves" type="integer" interfacename="count" />
      <input name="lacunarity" type="float" interfacename="gap" />
      <input name="diminish" type="float" value="0.7" />
      <input name="amplitude" type="float" value="1.25" />
      <input name="position" type="vector3" nodename="pos" />
    </fractal3d>
    <convert name="grey" type="color3"><input name="in" type="float" nodename="noise" /></convert>"""


def _import(tmp_path: Path, nodes: str, output: str) -> mtlx.MtlxImport:
    path = tmp_path / "fractal.mtlx"
    path.write_text(DOCUMENT.format(nodes=nodes, output=output))
    return mtlx.import_mtlx(path)


def _fractal(graph: MaterialGraph) -> Node:
    (node,) = [node for node in graph.nodes.values() if node.type_name == "mtlx_fractal_3d"]
    return node


def test_every_input_is_imported_and_the_round_trip_is_a_fixed_point(tmp_path: Path) -> None:
    imported = _import(tmp_path, FLOAT, "grey")
    assert imported.skipped == []
    node = _fractal(imported.graph)
    assert [node.properties[name] for name in ("octaves", "amplitude", "lacunarity", "diminish")] == [5, 1.25, 2.5, 0.7]
    sources = {edge.target_port: imported.graph.nodes[edge.source_node].type_name
               for edge in imported.graph.connections if edge.target_node == node.id}
    assert sources == {"position": "world_position"}
    assert lower(imported.graph).ok
    first, second = tmp_path / "first.mtlx", tmp_path / "second.mtlx"
    mtlx.export_mtlx(imported.graph, first, "example")
    text = first.read_text()
    assert '<fractal3d name="noise" type="float"' in text and '<input name="octaves" type="integer" value="5" />' in text
    again = mtlx.import_mtlx(first)
    assert again.skipped == []
    mtlx.export_mtlx(again.graph, second, "example")
    assert second.read_text() == text


def test_the_vector_form_reads_object_space_by_default(tmp_path: Path) -> None:
    nodes = """<fractal3d name="noise" type="color3"><input name="amplitude" type="vector3" value="0.5, 0.5, 0.5" /></fractal3d>"""
    imported = _import(tmp_path, nodes, "noise")
    assert imported.skipped == []
    node = _fractal(imported.graph)
    assert (node.properties["octaves"], node.properties["amplitude"], node.properties["lacunarity"]) == (3, 0.5, 2.0)
    edges = {(edge.source_port, edge.target_port): imported.graph.nodes[edge.source_node].type_name
             for edge in imported.graph.connections if node.id in (edge.source_node, edge.target_node)}
    assert edges[("out", "position")] == "object_position"
    assert any(port == "vector" for port, _ in edges)
    first = tmp_path / "first.mtlx"
    mtlx.export_mtlx(imported.graph, first, "example")
    assert '<fractal3d name="noise_vector" type="vector3"' in first.read_text()
    assert mtlx.import_mtlx(first).skipped == []


def test_what_has_no_counterpart_is_listed(tmp_path: Path) -> None:
    nodes = """<fractal3d name="pair" type="vector2" />
    <fractal3d name="tinted" type="color3"><input name="amplitude" type="vector3" value="1, 0.5, 0.25" /></fractal3d>
    <combine3 name="mixed" type="color3">
      <input name="in1" type="float" nodename="pair_x" />
      <input name="in2" type="float" nodename="tinted_x" />
    </combine3>
    <extract name="pair_x" type="float"><input name="in" type="vector2" nodename="pair" /></extract>
    <extract name="tinted_x" type="float"><input name="in" type="color3" nodename="tinted" /></extract>"""
    skipped = _import(tmp_path, nodes, "mixed").skipped
    assert any("'pair' (fractal3d, vector2)" in line and "float, vector3 and color3" in line for line in skipped), skipped
    assert any("'tinted' (fractal3d, color3)" in line and "first channel" in line for line in skipped), skipped
