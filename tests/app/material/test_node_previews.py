"""Node previews without Qt or OpenGL (issue 18): which nodes get a thumbnail, on what geometry, which
ones animate, and which ones an edit makes out of date.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.material.examples import EXAMPLE_GRAPHS
from app.material.graph import MaterialGraph
from app.material.node_previews import (
    MESH,
    SQUARE,
    fingerprints,
    lower_thumbnails,
    material_output_name,
    structure_key,
)
from app.material.traversal import connected_nodes

EXAMPLES = sorted(EXAMPLE_GRAPHS)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_node_with_a_value_gets_a_thumbnail(name: str) -> None:
    graph = EXAMPLE_GRAPHS[name]()
    program = lower_thumbnails(graph)
    assert program.ok, program.problems
    assert program.problems == {}
    previewed = {node for node, _ in program.ports}
    assert previewed == set(program.geometry)
    for node_id, node in graph.nodes.items():
        if node.type_name in {"surface_output", "material_output", "reroute"}:
            assert node_id not in previewed
    assert program.result.preview_selector or len(program.ports) == 1
    assert program.output_name == material_output_name(graph)


def chain() -> tuple[MaterialGraph, dict[str, str]]:
    """texcoord -> noise -> multiply(time) ; normal -> fresnel ; both added, into the output."""
    graph = MaterialGraph()
    ids = {}
    for key, type_name in (("uv", "texcoord"), ("noise", "value_noise"), ("time", "time"), ("animate", "multiply"),
                           ("fresnel", "fresnel"), ("sum", "add"), ("constant", "constant_float")):
        ids[key] = graph.add_node(type_name, (0.0, 0.0)).id
    output = graph.add_node("material_output", (0.0, 0.0)).id
    graph.connect(ids["uv"], "out", ids["noise"], "uv")
    graph.connect(ids["noise"], "out", ids["animate"], "a")
    graph.connect(ids["time"], "out", ids["animate"], "b")
    graph.connect(ids["animate"], "out", ids["sum"], "a")
    graph.connect(ids["fresnel"], "out", ids["sum"], "b")
    graph.connect(ids["sum"], "out", output, "base_color")
    return graph, ids


def test_square_or_mesh_follows_what_the_sub_graph_reads() -> None:
    graph, ids = chain()
    program = lower_thumbnails(graph)
    assert program.ok, program.problems
    geometry = program.geometry
    assert geometry[ids["uv"]] == SQUARE
    assert geometry[ids["noise"]] == SQUARE
    assert geometry[ids["time"]] == SQUARE
    assert geometry[ids["constant"]] == SQUARE  # unconnected: still a swatch
    assert geometry[ids["animate"]] == SQUARE
    assert geometry[ids["fresnel"]] == MESH  # reads the normal and the view direction
    assert geometry[ids["sum"]] == MESH  # a mesh value anywhere upstream makes it a mesh value
    assert program.animated == {ids["time"], ids["animate"], ids["sum"]}


def test_an_edit_changes_the_fingerprints_downstream_of_it_only() -> None:
    graph, ids = chain()
    before = fingerprints(graph)
    graph.nodes[ids["noise"]].properties["scale"] = 17.0
    after = fingerprints(graph)
    changed = {node for node in graph.nodes if before[node] != after[node]}
    assert changed == connected_nodes(graph, [ids["noise"]], upstream=False)
    assert changed == {ids["noise"], ids["animate"], ids["sum"], *(n for n in graph.nodes if graph.nodes[n].type_name == "material_output")}


def test_rewiring_changes_the_target_and_downstream_only() -> None:
    graph, ids = chain()
    before = fingerprints(graph)
    graph.disconnect_input(ids["animate"], "b")
    after = fingerprints(graph)
    changed = {node for node in graph.nodes if before[node] != after[node]}
    assert ids["time"] not in changed and ids["uv"] not in changed and ids["fresnel"] not in changed
    assert {ids["animate"], ids["sum"]} <= changed


def test_parameter_values_change_drawings_not_the_module() -> None:
    graph = EXAMPLE_GRAPHS["rough_plastic"]()
    output_name = material_output_name(graph)
    key = structure_key(graph, output_name)
    parameters = [node for node in graph.nodes.values() if node.type_name in {"float_parameter", "color_parameter"}]
    assert parameters
    for node in parameters:
        node.properties["default"] = _nudge(node.properties["default"])
    assert fingerprints(graph) != fingerprints(EXAMPLE_GRAPHS["rough_plastic"]())  # new drawings...
    assert structure_key(graph, output_name) == key  # ...with the same module
    graph.add_node("constant_float", (0.0, 0.0))
    assert structure_key(graph, output_name) != key


def _nudge(value: object) -> object:
    if isinstance(value, (int, float)):
        return float(value) + 0.5
    return tuple(float(component) + 0.5 for component in value)  # type: ignore[union-attr]


def test_a_broken_node_and_what_reads_it_are_left_out_with_the_reason() -> None:
    graph, ids = chain()
    texture = graph.add_node("texture_parameter", (0.0, 0.0), {"name": "albedo"}).id
    graph.disconnect_input(ids["noise"], "uv")
    graph.connect(texture, "out", ids["noise"], "uv")  # a file may hold what the editor refuses
    program = lower_thumbnails(graph)
    assert program.ok
    shown = {node for node, _ in program.ports}
    assert not shown & {ids["noise"], ids["animate"], ids["sum"]}
    assert {ids["uv"], ids["time"], ids["constant"], ids["fresnel"], texture} <= shown
    assert "type mismatch" in program.problems[ids["noise"]]


def test_an_unknown_node_leaves_out_what_reads_it() -> None:
    graph, ids = chain()
    graph.nodes[ids["noise"]].type_name = "no_such_node"
    program = lower_thumbnails(graph)
    assert program.ok
    shown = {node for node, _ in program.ports}
    assert not shown & {ids["noise"], ids["animate"], ids["sum"]}
    assert {ids["uv"], ids["time"], ids["constant"], ids["fresnel"]} <= shown


def test_a_custom_code_node_previews_its_own_output_whatever_its_name() -> None:
    """The preview port comes from the node's own ports (a Custom Code node declares them), not from the type's
    defaults: an output named `result` is previewed, and the nodes it feeds are not left out."""
    graph = EXAMPLE_GRAPHS["custom_posterize"]()
    custom = next(node_id for node_id, node in graph.nodes.items() if node.type_name == "custom_code")
    properties = graph.nodes[custom].properties
    properties["outputs"] = [["result", "color"]]
    graph.connections = [replace(connection, source_port="result") if connection.source_node == custom else connection
                         for connection in graph.connections]
    program = lower_thumbnails(graph)
    assert program.ok, program.problems
    assert program.problems == {}
    assert (custom, "result") in program.ports
    downstream = connected_nodes(graph, [custom], upstream=False) - {custom}
    assert downstream and all(program.selector(node_id) is not None for node_id in downstream
                              if graph.nodes[node_id].type_name not in {"surface_output", "material_output"})


def test_a_group_node_shows_its_first_output() -> None:
    graph = EXAMPLE_GRAPHS["grouped_rock"]()
    program = lower_thumbnails(graph)
    assert program.ok, program.problems
    group = next(node_id for node_id, node in graph.nodes.items() if node.type_name == "group")
    assert program.selector(group) is not None
    # Its thumbnail is redrawn when the group's body changes (nested definitions included).
    before = fingerprints(graph)
    changed = graph.copy()
    strata = changed.functions["strata"].body
    stripes = next(node for node in strata.nodes.values() if node.type_name == "stripes")
    stripes.properties["frequency"] = 7.0
    after = fingerprints(changed)
    assert after[group] != before[group]
    assert all(after[node_id] == before[node_id] for node_id in graph.nodes
               if node_id not in connected_nodes(graph, [group], upstream=False))


def test_upstream_reads_are_the_reads_of_everything_upstream() -> None:
    """The one-pass gathering equals the definition (a walk upstream of each node), on every example, on a
    graph with a cycle (its nodes and those it feeds are walked alone) and for an id not in the graph."""
    from app.material.lowering import lower
    from app.material.node_previews import upstream_reads

    def walked(graph: MaterialGraph, reads: dict[str, frozenset[str]], node_id: str) -> frozenset[str]:
        return frozenset(name for upstream in connected_nodes(graph, [node_id]) for name in reads.get(upstream, ()))

    for name in EXAMPLES:
        graph = EXAMPLE_GRAPHS[name]()
        reads = {node_id: frozenset(names) for node_id, names in lower(graph).reads.items()}
        assert reads, name
        found = upstream_reads(graph, reads, graph.nodes)
        assert found == {node_id: walked(graph, reads, node_id) for node_id in graph.nodes}, name
    graph = MaterialGraph()
    uv = graph.add_node("texcoord", (0.0, 0.0)).id
    first = graph.add_node("add", (0.0, 0.0)).id
    second = graph.add_node("add", (0.0, 0.0)).id
    after = graph.add_node("one_minus", (0.0, 0.0)).id
    graph.connect(uv, "out", first, "a")
    graph.connect(first, "out", second, "a")
    graph.connect(second, "out", first, "b")  # a cycle
    graph.connect(second, "out", after, "x")
    reads = {uv: frozenset({"uv"}), first: frozenset({"time"}), after: frozenset({"world_normal"})}
    found = upstream_reads(graph, reads, [*graph.nodes, "missing"])
    assert found == {node_id: walked(graph, reads, node_id) for node_id in [*graph.nodes, "missing"]}
    assert found[after] == {"uv", "time", "world_normal"} and found["missing"] == frozenset()
