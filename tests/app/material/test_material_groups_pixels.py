"""Grouping never changes a material's pixels (issue 19): real OpenGL (Mesa llvmpipe), the preview's renderer.

Every example is rendered flat, then with selections grouped (the whole
graph, every single node, connected pairs, seeded random subsets, and
nested groups: two groups grouped again), and with hypothesis-generated
graphs and selections. The grouped material lowers to helper functions and
calls; the pixels must be *equal*, float for float (RGBA32F read-back), not
merely close: a group is a packaging of the same computation. Ungrouping
gives back the original graph.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.material.catalog import NODE_TYPES
from app.material.connections import can_connect
from app.material.examples import EXAMPLE_GRAPHS
from app.material.graph import MaterialGraph
from app.material.groups import GROUP_TYPE, OUTPUT_TYPES, GroupingError, group_nodes, ungroup
from app.material.lowering import lower
from app.material.port_types import PortType
from app.material.texture_passes import has_pass_nodes, is_pass_node_type
from app.material.traversal import connected_nodes
from app.preview.renderer import Renderer
from vpl_core.backends.glsl import compile as compile_glsl

pytestmark = pytest.mark.gl

SIZE = 40
#: A fixed texture for every Texture Parameter (RGBA float, so sRGB decoding and filtering both show).
_TEXTURE = np.random.default_rng(19).random((16, 16, 4), dtype=np.float32)


def _render(renderer: Renderer, graph: MaterialGraph, target: str) -> np.ndarray:
    result = lower(graph)
    assert result.ok, [(d.node_id, d.scope, d.scoped_node, d.message) for d in result.errors]
    # Lowering compiled the GLSL 4.20 program already (what the preview draws): compile again only for ES.
    renderer.build_program(result.artifact if target == "glsl420" else compile_glsl(result.verified, target=target))
    for spec in result.parameters:
        if spec.kind.value == "texture":
            renderer.set_texture(spec.name, _TEXTURE)
        elif spec.default is not None:
            renderer.set_parameter(spec.name, spec.default)
    return renderer.render_linear(SIZE, SIZE)


def _selections(graph: MaterialGraph, seed: int) -> list[list[str]]:
    ids = sorted(graph.nodes)
    chosen: list[list[str]] = [ids]
    chosen += [[node_id] for node_id in ids]
    chosen += [[connection.source_node, connection.target_node] for connection in graph.connections[:6]]
    generator = random.Random(seed)
    for _ in range(4):
        chosen.append(generator.sample(ids, generator.randint(1, len(ids))))
    return chosen


def _stays_outside(graph: MaterialGraph, node_id: str) -> bool:
    """Nodes a group leaves outside: output nodes, and texture nodes whose texture leaves the selection."""
    return graph.nodes[node_id].type_name in OUTPUT_TYPES | {"texture_parameter"}


#: The examples these tests group: not those made in texture space. Texture Buffers and filters cannot sit inside
#: a group (grouping refuses them, docs/texture-space.md), and grouping nodes on both sides of one (upstream
#: of a buffer and downstream of its texture) makes a cycle through it.
GROUPABLE = sorted(name for name, build in EXAMPLE_GRAPHS.items() if not has_pass_nodes(build()))


@pytest.fixture
def renderer(current_gl) -> Iterator[tuple[Renderer, str]]:
    """The preview's renderer on the desktop context (its default sphere, light and environment)."""
    gl_renderer = Renderer()
    yield gl_renderer, "es320" if current_gl.is_es else "glsl420"
    current_gl.make_current()
    gl_renderer.release()


@pytest.mark.parametrize("name", GROUPABLE)
def test_grouping_any_selection_of_an_example_keeps_every_pixel(renderer, name: str) -> None:
    gl_renderer, target = renderer
    graph = EXAMPLE_GRAPHS[name]()
    reference = _render(gl_renderer, graph, target)
    assert np.isfinite(reference).all()
    for index, selection in enumerate(_selections(graph, seed=len(name))):
        try:
            edit = group_nodes(graph, None, selection)
        except GroupingError:
            assert all(_stays_outside(graph, node_id) for node_id in selection), selection
            continue
        pixels = _render(gl_renderer, edit.document, target)
        assert np.array_equal(pixels, reference), (name, index, selection)
        assert ungroup(edit.document, None, edit.instance_id) == graph, (name, selection)


@pytest.mark.parametrize("name", GROUPABLE)
def test_nested_groups_of_an_example_keep_every_pixel(renderer, name: str) -> None:
    """A group of half the nodes, a group of that and the rest, a group of that: helpers three deep."""
    gl_renderer, target = renderer
    graph = EXAMPLE_GRAPHS[name]()
    reference = _render(gl_renderer, graph, target)
    ids = [node_id for node_id in sorted(graph.nodes) if not _stays_outside(graph, node_id)]
    first = group_nodes(graph, None, ids[: max(1, len(ids) // 2)])
    rest = [node_id for node_id in ids if node_id in first.document.nodes]
    second = group_nodes(first.document, None, [first.instance_id, *rest])
    third = group_nodes(second.document, None, [second.instance_id])
    for edit in (first, second, third):
        assert np.array_equal(_render(gl_renderer, edit.document, target), reference), name
    functions = third.document.functions
    assert first.function_id in {node.properties["function"] for node in functions[second.function_id].body.nodes.values()
                                 if node.type_name == GROUP_TYPE}
    result = lower(third.document)
    helpers = sum(1 for function in result.module.fragment.functions if function.name.startswith("group"))
    assert helpers == len(graph.functions) + 3  # grouped_rock has groups of its own
    restored = ungroup(ungroup(ungroup(third.document, None, third.instance_id), None, second.instance_id), None,
                       first.instance_id)
    assert restored == graph


def _sharp_bump_graph(filter_width: float) -> tuple[MaterialGraph, dict[str, str]]:
    """A bump from a sharp mask: steps of a texture-coordinate noise, a world-position noise and the vertex
    colour, multiplied, into a Normal From Height (tilted steeply so that its bevels show)."""
    graph = MaterialGraph()
    ids: dict[str, str] = {}

    def add(key: str, type_name: str, properties: dict[str, float] | None = None) -> str:
        ids[key] = graph.add_node(type_name, properties=properties).id
        return ids[key]

    add("noise_uv", "gradient_noise", {"scale": 6.0})
    add("step_uv", "step")
    graph.connect(ids["noise_uv"], "out", ids["step_uv"], "x")
    add("noise_3d", "gradient_noise_3d", {"scale": 5.0})
    add("step_3d", "step")
    graph.connect(ids["noise_3d"], "out", ids["step_3d"], "x")
    add("vertex", "vertex_color")
    add("mask", "multiply")
    graph.connect(ids["step_uv"], "out", ids["mask"], "a")
    graph.connect(ids["step_3d"], "out", ids["mask"], "b")
    add("height", "multiply")
    graph.connect(ids["mask"], "out", ids["height"], "a")
    graph.connect(ids["vertex"], "alpha", ids["height"], "b")
    add("bump", "normal_from_height", {"strength": 0.05, "filter_width": filter_width})
    graph.connect(ids["height"], "out", ids["bump"], "height")
    add("output", "surface_output")
    graph.connect(ids["bump"], "normal_out", ids["output"], "normal")
    return graph, ids


def test_filtered_bump_through_groups_keeps_every_pixel(renderer: tuple[Renderer, str]) -> None:
    """A filtered Normal From Height whose sharp height is computed partly (or wholly) inside groups, nested
    too: the helpers take the surface sources as parameters, so the bump's taps move them through the calls
    and the grouped material keeps the flat one's filtered bevels, pixel for pixel."""
    gl_renderer, target = renderer
    graph, ids = _sharp_bump_graph(filter_width=2.0)
    reference = _render(gl_renderer, graph, target)
    # The filter shows: the unfiltered slope (what a group used to fall back to) gives other pixels.
    assert not np.array_equal(_render(gl_renderer, _sharp_bump_graph(filter_width=0.0)[0], target), reference)
    part = group_nodes(graph, None, [ids["noise_uv"], ids["step_uv"]])
    nested = group_nodes(part.document, None, [part.instance_id, ids["noise_3d"], ids["step_3d"], ids["mask"]])
    chain = group_nodes(graph, None, [ids[key] for key in ("noise_uv", "step_uv", "noise_3d", "step_3d", "vertex",
                                                           "mask", "height", "bump")])
    inner = chain.document.functions[chain.function_id]
    # The bump inside a group whose upstream is grouped again inside it.
    inner_ids = [node.id for node in inner.body.nodes.values() if node.type_name in ("gradient_noise_3d", "step")]
    assert len(inner_ids) == 3
    deep = group_nodes(chain.document, chain.function_id, inner_ids)
    for label, document in (("part", part.document), ("nested", nested.document), ("chain", chain.document),
                            ("chain nested", deep.document)):
        module = lower(document).module
        assert module is not None, label
        helpers = [function for function in module.fragment.functions if function.name.startswith("group")]
        assert helpers, label
        assert np.array_equal(_render(gl_renderer, document, target), reference), label


# Generated graphs ---------------------------------------------------------------------------------

#: Weighted towards what makes a group's lowering depend on its surroundings: Ifs, textures, derivatives.
_FAVOURED = ["if", "if", "sample_texture", "sample_texture", "texture_parameter", "texture_parameter", "select",
             "triplanar_texture", "normal_from_height", "gradient_noise", "mix", "add", "multiply", "texcoord"]
_KNOWN = sorted(name for name in NODE_TYPES if name not in ("material_output", "surface_output", "custom_code"))


@st.composite
def graphs_and_selections(draw) -> tuple[MaterialGraph, list[str]]:
    """A random DAG grown node by node, each input wired (or not) from an earlier node that fits; texture
    inputs always from a Texture Parameter (in sRGB or linear); the output fed from the last nodes."""
    graph = MaterialGraph()
    for _ in range(draw(st.integers(min_value=2, max_value=10))):
        type_name = draw(st.sampled_from(_FAVOURED) | st.sampled_from(_KNOWN))
        earlier = list(graph.nodes)
        node = graph.add_node(type_name)  # a Normal From Height with its default filtered bump
        for port in NODE_TYPES[type_name].inputs:
            if port.type is PortType.TEXTURE:
                texture = graph.add_node("texture_parameter", properties={
                    "color_space": draw(st.sampled_from(["srgb", "linear"]))})
                graph.connect(texture.id, "out", node.id, port.name)
                continue
            if not earlier or not draw(st.booleans()):
                continue
            source = draw(st.sampled_from(earlier))
            outputs = [candidate.name for candidate in NODE_TYPES[graph.nodes[source].type_name].outputs]
            if outputs:
                source_port = draw(st.sampled_from(outputs))
                if can_connect(graph, source, source_port, node.id, port.name)[0]:
                    graph.connect(source, source_port, node.id, port.name)
    ids = list(graph.nodes)
    output = graph.add_node(draw(st.sampled_from(["material_output", "surface_output"])))
    for target_port in ("base_color", "roughness" if output.type_name == "surface_output" else "opacity"):
        for node_id in reversed(ids):
            ports = [port.name for port in NODE_TYPES[graph.nodes[node_id].type_name].outputs]
            if ports and can_connect(graph, node_id, ports[0], output.id, target_port)[0]:
                graph.connect(node_id, ports[0], output.id, target_port)
                ids.remove(node_id)
                break
    selection = draw(st.lists(st.sampled_from(list(graph.nodes)[:-1]), min_size=1, unique=True))
    # A filtered bump inside the group takes its height's whole upstream with it: one fed through a Group
    # Input (other than a texture) falls back to the `dfdx` slope (docs/decisions.md, "Filtered bump").
    # A bump outside the group whose height is computed (partly) inside it stays as it is.
    for node_id in list(selection):
        connection = graph.connection_into(node_id, "height")
        if graph.nodes[node_id].type_name == "normal_from_height" and connection is not None:
            selection += sorted(connected_nodes(graph, [connection.source_node]) - set(selection))
    return graph, selection


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graphs_and_selections())
def test_grouping_generated_graphs_keeps_every_pixel(renderer, case: tuple[MaterialGraph, list[str]]) -> None:
    graph, selection = case
    flat = lower(graph)
    event("flat graph lowers" if flat.ok else "flat graph has errors")
    if not flat.ok:
        return  # a graph with errors (an unconnected texture input, ...) renders nothing to compare
    live = {node.type_name for node in graph.nodes.values()}
    event("with an If" if "if" in live else "without an If")
    event("with a texture sample" if live & {"sample_texture", "triplanar_texture"} else "without texture samples")
    event("with a bump" if "normal_from_height" in live else "without a bump")
    gl_renderer, target = renderer
    reference = _render(gl_renderer, graph, target)
    try:
        edit = group_nodes(graph, None, selection)
    except GroupingError as refusal:
        # Only when every selected node must stay outside (a texture leaving the selection), or when the
        # selection holds a Texture Buffer or filter (refused at grouping, docs/texture-space.md).
        assert "nothing to group" in str(refusal) or "cannot sit inside a group" in str(refusal)
        return
    body = edit.document.functions[edit.function_id].body
    if any(is_pass_node_type(node.type_name) for node in body.nodes.values()):
        # Texture-space nodes render the whole UV square: a group holding one is refused, with a message.
        assert "cannot sit inside a group" in " ".join(d.message for d in lower(edit.document).errors)
        event("grouped a texture-space node")
        return
    # Float rounding only: with every input a constant, the driver folds the flat graph's arithmetic at
    # compile time but the inlined helper's partly at run time (seen: 7e-7 on a few pixels of a roughness
    # of exactly 0). The examples, whose inputs vary per pixel, are compared for exact equality above.
    np.testing.assert_allclose(_render(gl_renderer, edit.document, target), reference, rtol=1e-6, atol=2e-6,
                               equal_nan=True, err_msg=str(selection))
    assert ungroup(edit.document, None, edit.instance_id) == graph


def _ignored_input_graph() -> MaterialGraph:
    """A texture read at the output and a Texture Sample, next to an If feeding only a dead If: grouping the sample
    with the dead If gives the group an input (from the live-looking If outside) that its body ignores."""
    from app.material.graph import Connection, Node

    graph = MaterialGraph()
    branch = {"operator": ">", "a": 0.0, "b": 0.5, "if_true": 1.0, "if_false": 0.0}
    for node_id, type_name, properties in (
            ("outer_if", "if", dict(branch)), ("dead_if", "if", dict(branch)), ("sample", "sample_texture", {}),
            ("albedo", "texture_parameter", {"name": "albedo", "image": "", "color_space": "srgb"}),
            ("out", "material_output", {"base_color": (0.8, 0.8, 0.8, 1.0), "emissive": (0.0, 0.0, 0.0, 1.0),
                                        "opacity": 1.0, "alpha_clip": 0.0})):
        graph.nodes[node_id] = Node(id=node_id, type_name=type_name, properties=properties)
    for connection in (("outer_if", "out", "dead_if", "b"), ("albedo", "out", "sample", "texture"),
                       ("albedo", "out", "out", "base_color"), ("sample", "rgba", "out", "opacity")):
        graph.connections.append(Connection(*connection))
    return graph


def test_a_group_input_the_body_ignores_lowers_nothing_and_keeps_every_pixel(renderer) -> None:
    graph = _ignored_input_graph()
    edit = group_nodes(graph, None, ["sample", "dead_if"])
    grouped = lower(edit.document)
    # The flat graph never lowers the If (it feeds nothing live); nor may the grouped one: its branch would move the
    # output's texture read out of the entry block (`texture_lod`, no mip filtering at the silhouette).
    assert "branch_if" not in grouped.text and "texture_lod" not in grouped.text
    gl_renderer, target = renderer
    assert np.array_equal(_render(gl_renderer, edit.document, target), _render(gl_renderer, graph, target))
