"""Walks over a material graph's connections (`app.material.traversal`): deterministic orders and reachability.

Every consumer (propagation, the drag check, the lowering, the adapter)
relies on these being deterministic and total: natural node-id order,
Kahn's order with ties by (priority, id), nodes on or behind a cycle listed
apart, and connections to missing nodes ignored.
"""

from __future__ import annotations

import itertools

from app.material.graph import Connection, MaterialGraph
from app.material.traversal import connected_nodes, node_id_key, reaches, topological_order


def chain(*node_ids: str) -> MaterialGraph:
    """Nodes of one type, each feeding the next (by id, in the order given)."""
    graph = MaterialGraph()
    for node_id in node_ids:
        graph.add_node("add", node_id=node_id)
    for source, target in itertools.pairwise(node_ids):
        graph.connections.append(Connection(source, "out", target, "a"))
    return graph


def test_node_ids_sort_naturally_and_any_string_is_accepted() -> None:
    ids = ["n10", "n2", "custom", "n1", "m3", ""]
    assert sorted(ids, key=node_id_key) == ["", "custom", "m3", "n1", "n2", "n10"]


def test_topological_order_breaks_ties_by_priority_then_natural_id() -> None:
    graph = chain("n10", "n11")
    for node_id in ("n9", "n2"):
        graph.add_node("add", node_id=node_id)
    order, cyclic = topological_order(graph)
    assert order == ["n2", "n9", "n10", "n11"] and cyclic == []
    order, _ = topological_order(graph, {"n10": -1})
    assert order == ["n10", "n2", "n9", "n11"]  # n11 waits for n10 however it is prioritised


def test_nodes_on_or_behind_a_cycle_are_listed_apart_and_missing_nodes_are_ignored() -> None:
    graph = chain("n1", "n2", "n3", "n4")
    graph.connections.append(Connection("n3", "out", "n2", "b"))  # n2 <-> n3; n4 is behind the cycle
    graph.connections.append(Connection("ghost", "out", "n1", "b"))
    order, cyclic = topological_order(graph)
    assert order == ["n1"] and cyclic == ["n2", "n3", "n4"]


def test_reachability_follows_connections_in_their_direction() -> None:
    graph = chain("n1", "n2", "n3")
    graph.add_node("add", node_id="n4")
    assert reaches(graph, "n1", "n3") and not reaches(graph, "n3", "n1") and not reaches(graph, "n1", "n4")
    assert connected_nodes(graph, ["n2"]) == {"n1", "n2"}
    assert connected_nodes(graph, ["n2"], upstream=False) == {"n2", "n3"}
    graph.connections.append(Connection("ghost", "out", "n1", "b"))
    assert connected_nodes(graph, ["n3"]) == {"n1", "n2", "n3"}  # a missing node is not part of the graph
