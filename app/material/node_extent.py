"""How large the editor draws a node, from the model alone (no Qt), for code that lays graphs out.

The node editor (`app/graph/nodes.py`) draws a node as a title, one row per port row (inputs and
outputs side by side; a folded input section is one header row, an open one a row per input), and
under them the thumbnail and the cost footer. The figures below were measured on the real NodeGraphQt
items with thumbnails shown, the editor's default and the tallest a node gets; the example generator
(`app/material/examples.py`) and the MaterialX importer stack nodes by them, and
tests/app/ui/test_example_layout.py and tests/app/ui/test_mtlx_import_layout.py check them against the
real widget, so they fail when a node grows and these were not told.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from app.material.graph import MaterialGraph, Node
from app.material.node_types import NodeType, Scope, node_type_for

#: A node's height in the editor with its thumbnail shown: title, thumbnail and cost footer, plus one
#: row per port row (inputs and outputs side by side).
NODE_BASE_HEIGHT = 80.0
NODE_PORT_ROW_HEIGHT = 23.5
#: The space left between two nodes of a column.
NODE_GAP = 30.0
#: The widest a node is drawn (a thumbnail's width sets most nodes' width).
NODE_WIDTH = 240.0
#: The narrowest a node is drawn (NodeGraphQt's minimum), and an upper bound of one character's width in its
#: title and port labels (the editor's fonts average 6.6; DejaVu Sans, measured under Xvfb).
NODE_MIN_WIDTH = 160.0
CHAR_WIDTH = 7.5
#: Around the title: its margins and the node's; beside the port labels: the ports, the label margins and the
#: gaps around an input's value field.
TITLE_MARGINS = 40.0
ROW_MARGINS = 70.0
#: The value fields drawn on an unconnected input (app/graph/input_values.py): a number, a colour swatch, a
#: check box, and a vector's field per component (counted at four: a dynamic input may resolve to a vec4).
VALUE_WIDTHS = {"float": 44.0, "color": 28.0, "bool": 13.0, "vector": 4 * 32.0 + 3 * 1.0}


def wired_inputs(graph: MaterialGraph) -> dict[str, set[str]]:
    """Each node's connected inputs by node id (one pass over the connections, for laying out many nodes)."""
    wired: dict[str, set[str]] = {}
    for connection in graph.connections:
        wired.setdefault(connection.target_node, set()).add(connection.target_port)
    return wired


def _open_sections(node: Node, node_type: NodeType, graph: MaterialGraph,
                   wired: Mapping[str, Collection[str]] | None) -> list[str]:
    """The titles of the sections the editor opens `node` with: those with an input wired or set away from its
    default (app/graph/sections.py; a folded section is one header row)."""
    if wired is None:
        wired = wired_inputs(graph)
    return [section.title for section in node_type.sections
            if node_type.section_starts_open(section, node.properties, wired.get(node.id, ()))]


def drawn_height(node: Node, scope: Scope, graph: MaterialGraph,
                 wired: Mapping[str, Collection[str]] | None = None) -> float:
    """The height the editor draws `node` at in `graph`, sections folded or open as the editor opens them
    (`wired`: `wired_inputs(graph)`, when the caller sizes many nodes)."""
    node_type = node_type_for(node, scope)
    if node_type is None:
        rows = 1
    elif node_type.sections:
        rows = max(node_type.drawn_rows(_open_sections(node, node_type, graph, wired)), len(node_type.outputs))
    else:
        rows = max(len(node_type.inputs), len(node_type.outputs))
    return NODE_BASE_HEIGHT + NODE_PORT_ROW_HEIGHT * max(rows, 1)


def drawn_width(node: Node, scope: Scope) -> float:
    """An upper estimate of the width the editor draws `node` at: the title (a parameter node's shows its name,
    "Texture Parameter: albedo"), or the widest input label beside the widest output label and the widest value
    field, whichever is wider (NodeGraphQt's `calc_size` with the editor's value fields)."""
    node_type = node_type_for(node, scope)
    if node_type is None:
        return NODE_WIDTH
    if node_type.property("name") is not None:
        title = f"{node_type.display_name}: {node.properties.get('name', '')}"
    else:
        title = f"{node_type.display_name} 99"  # the view numbers a type's nodes: "Multiply 12"
    inputs = max((len(port.display_name) for port in node_type.inputs), default=0)
    outputs = max((len(port.display_name) for port in node_type.outputs), default=0)
    values = [VALUE_WIDTHS.get(spec.kind, 0.0) for port in node_type.inputs
              if (spec := node_type.property(port.name)) is not None]
    rows = CHAR_WIDTH * (inputs + outputs) + ROW_MARGINS + max(values, default=0.0)
    return max(NODE_MIN_WIDTH, CHAR_WIDTH * len(title) + TITLE_MARGINS, rows)


def input_rows(node: Node, scope: Scope, graph: MaterialGraph,
               wired: Mapping[str, Collection[str]] | None = None) -> dict[str, int]:
    """The row (from 0 at the top) each shown input of `node` is drawn on: the inputs outside any section in
    declaration order, then each section's header row followed by its inputs while it is open. An input of a
    folded section is on its header's row (the editor draws its wires into the header)."""
    node_type = node_type_for(node, scope)
    if node_type is None:
        return {}
    grouped = {name for section in node_type.sections for name in section.inputs}
    rows = {port.name: row for row, port in enumerate(port for port in node_type.inputs if port.name not in grouped)}
    row = len(rows)
    opened = set(_open_sections(node, node_type, graph, wired)) if node_type.sections else set()
    for section in node_type.sections:
        header = row
        row += 1
        for name in section.inputs:
            if section.title in opened:
                rows[name] = row
                row += 1
            else:
                rows[name] = header
    return rows
