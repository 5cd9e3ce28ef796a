"""Lowering walks a graph's connections a fixed number of times, whatever its size (issue 23 item 8).

Two steps scanned every connection once per node (the group analysis's
"which inputs are fed by controlled nodes", and the check for nodes fed by
ones that failed): quadratic, half a second of opening 2,000 nodes. Counted,
not timed: the graph's connection list counts how often it is walked.
"""

from __future__ import annotations

from collections.abc import Iterator

from app.material.graph import Connection, MaterialGraph
from app.material.lowering import lower


class CountedConnections(list[Connection]):
    """A connection list that counts the walks over it."""

    def __init__(self, connections: list[Connection]) -> None:
        super().__init__(connections)
        self.walks = 0

    def __iter__(self) -> Iterator[Connection]:
        self.walks += 1
        return super().__iter__()


def _chain(size: int) -> MaterialGraph:
    """A constant through `size` Add nodes into the output's base colour."""
    graph = MaterialGraph()
    previous = graph.add_node("constant_float", (0.0, 0.0), {"value": 0.25})
    for index in range(size):
        node = graph.add_node("add", (float(index + 1) * 200.0, 0.0))
        graph.connect(previous.id, "out", node.id, "a")
        previous = node
    output = graph.add_node("material_output", (float(size + 1) * 200.0, 0.0))
    graph.connect(previous.id, "out", output.id, "base_color")
    return graph


def _walks(size: int) -> int:
    graph = _chain(size)
    counted = CountedConnections(graph.connections)
    graph.connections = counted
    result = lower(graph)
    assert result.ok, result.diagnostics
    return counted.walks


def test_lowering_walks_the_connections_a_fixed_number_of_times() -> None:
    small, large = _walks(50), _walks(200)
    assert large <= small + 2, (small, large)  # before: a walk per node (about 58 for 50 nodes, 208 for 200)
