"""`lower(graph, live=...)`: values lowered as loads of hidden uniforms instead of literals (issue 20 item 3).

The live program is the preview's only (docs/editor.md, "Live values"): it
must declare one hidden uniform per live value, say which and its value,
change nothing else, and never show as a parameter. The pixels it draws
against the canonical program's are compared on real GL in
tests/app/preview/test_live_values_gl.py.
"""

from __future__ import annotations

import pytest

from app.material.examples import EXAMPLE_GRAPHS, example_names
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.parameters import specs_from_artifact, specs_from_module
from app.material.scene import HIDDEN_UNIFORM_PREFIX, is_hidden_uniform
from app.session.live_values import CONSTANT_NODE_TYPES, MAX_LIVE_VALUES, LiveValues, live_candidates, value_changes


def example(name: str) -> MaterialGraph:
    """The shipped example's graph: what its file holds (test_material_examples.py), without reading and checking the
    file (as costly as a lowering)."""
    return EXAMPLE_GRAPHS[name]()


@pytest.mark.parametrize("name", example_names())
def test_live_values_become_hidden_uniforms_and_nothing_else_changes(name: str) -> None:
    graph = example(name)
    canonical = lower(graph)
    keys = live_candidates(graph)
    live = lower(graph, live=keys)
    assert live.ok == canonical.ok
    if not canonical.ok:
        return
    assert live.live_values, f"{name}: no value became live"
    assert set(live.live_values) <= keys
    assert not canonical.live_values, "a canonical lowering has no live values"
    hidden = [uniform.name for uniform in live.module.uniforms if is_hidden_uniform(uniform.name)]
    assert sorted(hidden) == sorted(value.uniform for value in live.live_values.values())
    assert all(name.startswith(HIDDEN_UNIFORM_PREFIX) for name in hidden)
    # Nothing else: the same parameters, and no hidden uniform in any parameter list.
    assert live.parameters == canonical.parameters
    assert [spec.name for spec in specs_from_module(live.module)] == [spec.name for spec in specs_from_module(canonical.module)]
    assert not any(is_hidden_uniform(spec.name) for spec in specs_from_artifact(live.artifact))
    # The value each says it has is what the canonical program's literal has.
    for value in live.live_values.values():
        assert value.value_in(graph) == value.value
    # The canonical lowering is untouched by the live one (same text before and after).
    assert lower(graph).text == canonical.text


def test_a_live_value_reads_what_the_literal_would() -> None:
    graph = example("lit_blinn_phong")
    constants = [node_id for node_id, node in graph.nodes.items() if node.type_name in CONSTANT_NODE_TYPES]
    keys = live_candidates(graph)
    live = lower(graph, live=keys)
    edited = graph.copy()
    for (node_id, name), value in live.live_values.items():
        node = edited.nodes[node_id]
        if isinstance(value.value, tuple):
            node.properties[name] = [component * 0.5 + 0.125 for component in value.value]
        else:
            node.properties[name] = value.value * 0.5 + 0.125
    assert value_changes(graph, edited) == frozenset(live.live_values)
    for value in live.live_values.values():
        expected = edited.nodes[value.node_id].properties[value.property_name]
        got = value.value_in(edited)
        assert (list(got) if isinstance(got, tuple) else got) == pytest.approx(expected)
    assert constants or any(value.from_input for value in live.live_values.values())


def test_a_parameter_may_not_take_a_hidden_uniform_name() -> None:
    graph = example("lit_blinn_phong")
    parameter = next(node for node in graph.nodes.values() if node.type_name == "color_parameter")
    parameter.properties["name"] = f"{HIDDEN_UNIFORM_PREFIX}0"
    result = lower(graph)
    assert not result.ok
    assert any(diagnostic.node_id == parameter.id and "reserved" in diagnostic.message for diagnostic in result.errors)


def test_structure_is_never_live() -> None:
    graph = example("lit_blinn_phong")
    # A parameter node's range, a choice, a wire, a node: structure (None), not values.
    parameter = next(node for node in graph.nodes.values() if node.type_name == "color_parameter")
    renamed = graph.copy()
    renamed.nodes[parameter.id].properties["name"] = "other_name"
    assert value_changes(graph, renamed) is None
    unwired = graph.copy()
    unwired.connections = unwired.connections[1:]
    assert value_changes(graph, unwired) is None
    # A parameter's value is not the lowering's (a uniform already): no change at all.
    valued = graph.copy()
    valued.nodes[parameter.id].properties["default"] = [0.5, 0.25, 0.125, 1.0]
    assert value_changes(graph, valued) == frozenset()
    # A node moved: nothing the lowering reads.
    moved = graph.copy()
    moved.nodes[parameter.id].position = (1.0, 2.0)
    assert value_changes(graph, moved) == frozenset()


def test_the_live_set_keeps_the_most_recent_values() -> None:
    graph = MaterialGraph()
    from app.material.graph import Node

    for index in range(MAX_LIVE_VALUES + 3):
        graph.nodes[f"n{index}"] = Node(f"n{index}", "constant_float", {"value": 0.0})
    live = LiveValues()
    for index in range(MAX_LIVE_VALUES + 3):
        edited = graph.copy()
        edited.nodes[f"n{index}"].properties["value"] = 1.0
        live.edited(graph, edited)
        graph = edited
    assert len(live.wanted) == MAX_LIVE_VALUES
    assert live.wanted[-1] == (f"n{MAX_LIVE_VALUES + 2}", "value") and ("n0", "value") not in live.wanted
    retyped = graph.copy()
    retyped.nodes["n0"].properties["value"] = "texcoord"
    live.edited(graph, retyped)
    assert live.wanted == () and live.program is None, "a value that is no longer a number is structure"
