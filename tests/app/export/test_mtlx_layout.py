"""The importer's layout of nodes a MaterialX document gives no position (`_place`), on the model: the
estimated rectangles of every bundled document that imports are apart, a column is ordered by the rows its
nodes feed, and positions the document gives are kept. tests/app/ui/test_mtlx_import_layout.py checks the
same layouts on the real widget."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from mtlx_documents import document as mtlx_document

from app.export import mtlx
from app.material.graph import MaterialGraph
from app.material.node_extent import NODE_GAP, drawn_height, drawn_width
from app.material.node_types import Scope

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "materialx" / "Materials" / "Examples"


def document(path: Path, body: str) -> Path:
    path.write_text(mtlx_document(body, """  <gltf_pbr name="SR" type="surfaceshader">
    <input name="base_color" type="color3" nodename="zz" />
    <input name="roughness" type="float" nodename="aa" />
  </gltf_pbr>""", colorspace=None))
    return path


def rectangles(graph: MaterialGraph) -> dict[str, tuple[float, float, float, float]]:
    scope = Scope(graph.functions)
    return {node_id: (*node.position, drawn_width(node, scope), drawn_height(node, scope, graph))
            for node_id, node in graph.nodes.items()}


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.mtlx")), ids=lambda path: path.stem)
def test_estimated_rectangles_are_a_gap_apart(path: Path) -> None:
    imported = mtlx.import_mtlx(path)  # every bundled document imports
    boxes = rectangles(imported.graph)
    for (first, (x0, y0, w0, h0)), (second, (x1, y1, w1, h1)) in itertools.combinations(boxes.items(), 2):
        apart_x = x0 + w0 <= x1 or x1 + w1 <= x0
        apart_y = y0 + h0 + NODE_GAP - 1.0 <= y1 or y1 + h1 + NODE_GAP - 1.0 <= y0  # whole units: 1 off at most
        assert apart_x or apart_y, f"{first} and {second} overlap"
    assert all(float(value).is_integer() for node in imported.graph.nodes.values() for value in node.position)


def test_a_column_is_ordered_by_the_rows_its_nodes_feed_not_by_name(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(document(tmp_path / "order.mtlx", """
  <multiply name="zz" type="color3"><input name="in1" type="color3" value="0.5, 0.5, 0.5" /></multiply>
  <multiply name="aa" type="float"><input name="in1" type="float" value="0.5" /></multiply>"""))
    nodes = imported.graph.nodes
    assert nodes["zz"].position[0] + drawn_width(nodes["zz"], Scope({})) == nodes["aa"].position[0] + drawn_width(
        nodes["aa"], Scope({}))  # one column, right-aligned
    assert nodes["zz"].position[1] < nodes["aa"].position[1]  # base colour is drawn above roughness


def test_positions_the_document_gives_are_kept(tmp_path: Path) -> None:
    imported = mtlx.import_mtlx(document(tmp_path / "kept.mtlx", """
  <multiply name="zz" type="color3" xpos="-3.5" ypos="2"><input name="in1" type="color3" value="0.5, 0.5, 0.5" />
  </multiply>
  <multiply name="aa" type="float"><input name="in1" type="float" value="0.5" /></multiply>"""))
    nodes = imported.graph.nodes
    assert nodes["zz"].position == (-350.0, 200.0)
    assert nodes["aa"].position[0] < nodes[next(iter(n for n in nodes if n.startswith("surface")))].position[0]
