"""Large, realistic material graphs for the overview's tests, screenshots and benchmark.

`tiled_examples(copies)` lays copies of the example materials out on a
grid, each inside a frame titled with its name: the look of a big
production graph (several sections, every category's colours), made of
graphs the project already knows to be valid. Only the first copy keeps
its output node, so the material still compiles; the other sections are
unused chains, as in a graph being worked on.
"""

from __future__ import annotations

from app.material import examples
from app.material.graph import MaterialGraph

#: The examples tiled, in order (all of them build without texture files).
SECTIONS = ("triplanar_rock", "stylised_lava", "tiled_floor", "animated", "procedural_noise", "toon_shading")
OUTPUT_TYPES = frozenset({"material_output", "surface_output"})
COLUMNS = 3
SECTION_GAP = 260.0


def tiled_examples(copies: int) -> MaterialGraph:
    """`copies` example sections (cycling through `SECTIONS`) on a grid of `COLUMNS` columns."""
    graph = MaterialGraph()
    offset_x = offset_y = row_height = 0.0
    for index in range(copies):
        name = SECTIONS[index % len(SECTIONS)]
        section = getattr(examples, name)()
        xs = [node.position[0] for node in section.nodes.values()]
        ys = [node.position[1] for node in section.nodes.values()]
        left, top = min(xs), min(ys)
        width, height = max(xs) - left + 260.0, max(ys) - top + 200.0
        if index % COLUMNS == 0 and index:
            offset_x, offset_y, row_height = 0.0, offset_y + row_height + SECTION_GAP, 0.0
        ids: dict[str, str] = {}
        for node in section.nodes.values():
            if index and node.type_name in OUTPUT_TYPES:
                continue
            position = (node.position[0] - left + offset_x, node.position[1] - top + offset_y)
            ids[node.id] = graph.add_node(node.type_name, position, dict(node.properties)).id
        for connection in section.connections:
            if connection.source_node in ids and connection.target_node in ids:
                graph.connect(ids[connection.source_node], connection.source_port,
                              ids[connection.target_node], connection.target_port)
        graph.add_frame(name.replace("_", " ").title(), (offset_x - 30.0, offset_y - 70.0),
                        (width + 60.0, height + 100.0), list(ids.values()))
        offset_x += width + SECTION_GAP
        row_height = max(row_height, height)
    return graph


def add_parameter_clash(graph: MaterialGraph, second_name: str = "sheen") -> list[str]:
    """Two Float Parameters named "sheen" and `second_name`, added into the output's emissive input (their ids).

    With the default name they clash: two error nodes.
    """
    output = next(node for node in graph.nodes.values() if node.type_name in OUTPUT_TYPES)
    x, y = output.position
    first = graph.add_node("float_parameter", (x - 520.0, y + 360.0), {"name": "sheen", "default": 0.0})
    second = graph.add_node("float_parameter", (x - 520.0, y + 480.0), {"name": second_name, "default": 0.0})
    total = graph.add_node("add", (x - 260.0, y + 420.0))
    graph.connect(first.id, "out", total.id, "a")
    graph.connect(second.id, "out", total.id, "b")
    # Surface Output (the examples' output since they moved to it) names the input "emissive_color".
    graph.connect(total.id, "out", output.id, "emissive_color" if output.type_name == "surface_output" else "emissive")
    return [first.id, second.id]

