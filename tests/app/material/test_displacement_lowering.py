"""The Surface Output's displacement method in the lowering and the pass planner (no OpenGL): "Bump only" is
the code of a material saved before the option existed; "Displacement and bump" adds a height pass and a
vertex-stage displacement; what the vertex stage cannot read is refused naming the node."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.material.examples import EXAMPLE_GRAPHS, example_names
from app.material.graph import MaterialGraph, Node
from app.material.lowering import lower
from app.material.pass_planner import plan_passes
from app.material.texture_passes import displacement_key, has_pass_nodes, pass_sampler_name
from vpl_core.backends.glsl import compile as compile_glsl


def _codes(graph: MaterialGraph, targets: tuple[str, ...]) -> list[str]:
    """The code of the graph's program for each target (one lowering, one compilation per target)."""
    lowered = lower(graph)
    assert lowered.verified is not None, lowered.diagnostics
    artifacts = [compile_glsl(lowered.verified, target=target) for target in targets]
    return [artifact.vertex_code + artifact.fragment_code for artifact in artifacts]


def _with_method(graph: MaterialGraph, method: str | None) -> MaterialGraph:
    nodes: dict[str, Node] = {}
    for node_id, node in graph.nodes.items():
        properties = dict(node.properties)
        if node.type_name == "surface_output":
            properties.pop("displacement_method", None)
            if method is not None:
                properties["displacement_method"] = method
        nodes[node_id] = replace(node, properties=properties)
    return replace(graph, nodes=nodes)


@pytest.mark.parametrize("name", example_names())
def test_bump_only_is_the_code_of_a_material_without_the_option(name: str) -> None:
    graph = EXAMPLE_GRAPHS[name]()  # the shipped file's graph (test_material_examples.py), without reading it
    targets = ("glsl420", "es320")
    assert _codes(_with_method(graph, "bump_only"), targets) == _codes(_with_method(graph, None), targets)
    assert not has_pass_nodes(_with_method(graph, "bump_only")) or has_pass_nodes(_with_method(graph, None))


def _height_graph(method: str, scale: float = 0.1) -> tuple[MaterialGraph, str]:
    graph = MaterialGraph()
    output = graph.add_node("surface_output", properties={"height_scale": scale, "displacement_method": method})
    checker = graph.add_node("checker", properties={"scale": 4.0})
    graph.connect(checker.id, "out", output.id, "height")
    return graph, output.id


def test_displacement_and_bump_reads_a_height_pass_in_the_vertex_stage() -> None:
    graph, output = _height_graph("displacement_and_bump")
    assert has_pass_nodes(graph)
    lowered = lower(graph)
    assert lowered.ok and lowered.verified is not None and lowered.module is not None
    artifact = compile_glsl(lowered.verified, target="glsl420")
    assert "textureLod" in artifact.vertex_code
    assert pass_sampler_name(displacement_key(output)) in {uniform.name for uniform in lowered.module.uniforms}
    plan = plan_passes(graph)
    assert plan.ok and [each.key for each in plan.passes] == [displacement_key(output)]
    assert [reader.key for reader in plan.material_inputs] == [displacement_key(output)]
    # No parallax: the fragment stage is much shorter than bump only's (which marches the height 32 + 5 + 12 times).
    bump_only = compile_glsl(lower(_height_graph("bump_only")[0]).verified, target="glsl420")
    assert len(artifact.fragment_code) < 0.5 * len(bump_only.fragment_code)
    assert "textureLod" not in bump_only.vertex_code
    # Scale 0 displaces nothing: no pass, the code of bump only at scale 0.
    flat, _ = _height_graph("displacement_and_bump", scale=0.0)
    assert not has_pass_nodes(flat)
    assert _codes(flat, ("glsl420",)) == _codes(_height_graph("bump_only", scale=0.0)[0], ("glsl420",))


def test_a_connected_scale_is_refused_naming_the_surface_output() -> None:
    graph, output = _height_graph("displacement_and_bump")
    value = graph.add_node("float_parameter", properties={"name": "depth", "default": 0.1})
    graph.connect(value.id, "out", output, "height_scale")
    lowered = lower(graph)
    assert not lowered.ok
    assert any(diagnostic.node_id == output and "vertex stage" in diagnostic.message for diagnostic in lowered.errors)


def test_a_height_from_a_filter_is_rendered_from_its_buffer() -> None:
    """Bricks' mask in a Texture Buffer, bevelled, as the height: the displacement pass runs after the Bevel's
    passes and reads the Bevel's buffer (a texture output converted to a float as the height input converts it)."""
    graph = MaterialGraph()
    bricks = graph.add_node("bricks")
    buffer = graph.add_node("texture_buffer", properties={"resolution": "256"})
    bevel = graph.add_node("bevel")
    output = graph.add_node("surface_output", properties={"displacement_method": "displacement_and_bump"})
    graph.connect(bricks.id, "mask", buffer.id, "input")
    graph.connect(buffer.id, "out", bevel.id, "mask")
    graph.connect(bevel.id, "out", output.id, "height")
    assert lower(graph).ok
    plan = plan_passes(graph)
    assert plan.ok, plan.diagnostics
    assert plan.passes[-1].key == displacement_key(output.id)
    assert [reader.key for reader in plan.passes[-1].inputs] == [bevel.id]
    assert plan.displacement is not None and plan.displacement.key == displacement_key(output.id)
    assert (plan.displacement.scale, plan.displacement.mid_level) == pytest.approx((0.05, 0.5))
