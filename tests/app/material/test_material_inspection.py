"""Issue 18 without Qt: the source map of every example and of random material graphs ties every GLSL
line of a function body to the node that produced it or to documented scaffolding; the VPL text's lines
link to nodes the same way; node costs add up to the stage totals read from the canonical text.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from material_testing import approved_graphs, lowered_example
from source_map_checks import check_source_map
from tiers import examples

from app.material.code_links import CodeLinks, line_ranges, vpl_line_nodes
from app.material.cost import Count, describe_count, describe_node, describe_totals, material_cost
from app.material.examples import EXAMPLE_GRAPHS
from app.material.graph import MaterialGraph
from app.material.lowering import LoweringResult, lower
from vpl_core.backends.glsl.source_map import LineKind, SourceMap

EXAMPLES = sorted(EXAMPLE_GRAPHS)
#: Scaffolding kinds a function body may hold (docs/glsl-backend.md, "The source map").
BODY_SCAFFOLDING = {LineKind.DISPATCH, LineKind.FALLBACK}


def lowered(name: str) -> LoweringResult:
    result = lowered_example(name)
    assert result.ok, result.diagnostics
    return result


def assert_every_body_line_has_a_node_or_is_scaffolding(result: LoweringResult) -> None:
    """Every line inside a GLSL function body: a node's instruction/terminator, or dispatch/fallback scaffolding."""
    check_source_map(result.artifact, result.module)
    links = CodeLinks.of(result)
    for stage in ("vertex", "fragment"):
        stage_map = result.artifact.source_map.stage(stage)
        code = (result.artifact.vertex_code if stage == "vertex" else result.artifact.fragment_code).split("\n")
        frames = [source_range for source_range in stage_map.ranges if source_range.kind is LineKind.FUNCTION]
        definitions = [(frames[index], frames[index + 1]) for index in range(len(frames)) if code[frames[index].first - 1].endswith("{")]
        assert definitions
        for opening, closing in definitions:
            for line in range(opening.last + 1, closing.first):
                source_range = stage_map.at_line(line)
                assert source_range is not None
                node = links.node_at(stage, line)
                if source_range.kind in (LineKind.INSTRUCTION, LineKind.TERMINATOR):
                    assert node is not None and node in result_graph_nodes(result), (stage, line, code[line - 1])
                else:
                    assert source_range.kind in BODY_SCAFFOLDING and node is None, (stage, line, source_range)


def result_graph_nodes(result: LoweringResult) -> set[str]:
    return set(result.provenance.values())


def assert_vpl_lines_link(result: LoweringResult) -> None:
    """Every instruction line of the canonical text (inside `(block ...)`) and every register line links to a node."""
    links = CodeLinks.of(result)
    lines = result.text.split("\n")
    instruction = re.compile(r"^\s+\((?!block|function|parameters|registers|functions|interface|vertex|fragment|types|"
                             r"type |uniforms|extensions|module|parameter )")
    linked = links.line_nodes("vpl")
    for number, text in enumerate(lines, start=1):
        if instruction.match(text):
            assert number in linked, (number, text)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_links_every_body_line(name: str) -> None:
    result = lowered(name)
    assert_every_body_line_has_a_node_or_is_scaffolding(result)
    assert_vpl_lines_link(result)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(approved_graphs())
def test_random_graphs_link_every_body_line(graph: MaterialGraph) -> None:
    result = lower(graph)
    if not result.ok:
        return  # the diagnostics say why; what compiles is what has code to link
    assert_every_body_line_has_a_node_or_is_scaffolding(result)
    assert_vpl_lines_link(result)


def test_links_go_both_ways() -> None:
    result = lowered("stylised_lava")
    links = CodeLinks.of(result)
    for view in ("vpl", "vertex", "fragment"):
        for line, node in links.line_nodes(view).items():
            assert line in links.lines_of(view, [node])
    ramp = next(node.id for node in EXAMPLE_GRAPHS["stylised_lava"]().nodes.values() if node.type_name == "color_ramp")
    fragment_lines = links.lines_of("fragment", [ramp])
    assert fragment_lines and all(links.node_at("fragment", line) == ramp for line in fragment_lines)
    assert links.lines_of("fragment", []) == []
    with pytest.raises(ValueError):
        links.line_nodes("metal")


def test_links_of_a_module_that_is_not_the_text_give_nothing() -> None:
    result = lowered("textured")
    assert vpl_line_nodes(result.module, result.provenance, "(module 2)") == {}
    empty = CodeLinks(None, {}, "", None)
    assert empty.node_at("fragment", 3) is None and empty.lines_of("vpl", ["n1"]) == []


def test_line_ranges() -> None:
    assert line_ranges([9, 3, 4, 5]) == [(3, 5), (9, 9)]
    assert line_ranges([]) == []


def test_source_map_round_trips_through_the_editor_export_json(tmp_path) -> None:
    import json

    from vpl_core.backends.glsl.export import artifact_json

    result = lowered("painted_metal")
    assert SourceMap.from_json(json.loads(artifact_json(result.artifact))["source_map"]) == result.artifact.source_map


# Cost ----------------------------------------------------------------------------------------------

def counted_from_text(text: str) -> dict[str, Count]:
    """Per stage: instruction lines of the canonical text inside blocks (not registers or terminators), samples."""
    counts: dict[str, Count] = {}
    stage = None
    in_block = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("(vertex ", "(fragment ")):
            stage = stripped[1:].split(" ", 1)[0]
            in_block = False
        if stripped.startswith("(block "):
            in_block = True
            continue
        if stripped.startswith(("(function ", "(parameters", "(registers")):
            in_block = False
        if not in_block or stage is None or not stripped.startswith("("):
            continue
        opcode = stripped[1:].split(" ", 1)[0].rstrip(")")
        if opcode in ("return", "branch", "branch_if", "discard"):
            continue
        sample = 1 if opcode in ("texture", "texture_lod") else 0
        counts[stage] = counts.get(stage, Count()) + Count(1, sample)
    return counts


@pytest.mark.parametrize("name", EXAMPLES)
def test_costs_add_up_to_the_totals_counted_in_the_text(name: str) -> None:
    result = lowered(name)
    cost = material_cost(result.module, result.provenance)
    assert cost.stages == counted_from_text(result.text)
    per_node = Count()
    for node_cost in cost.nodes.values():
        per_node += node_cost.total
    assert per_node == cost.total
    for stage in ("vertex", "fragment"):
        stage_sum = Count()
        for node_cost in cost.nodes.values():
            stage_sum += node_cost.stage_total(stage)
        assert stage_sum == cost.stages[stage]


def test_shared_helpers_are_counted_once_on_their_first_user() -> None:
    graph = MaterialGraph()
    first = graph.add_node("gradient_noise")
    second = graph.add_node("gradient_noise", properties={"scale": 3.0})
    add = graph.add_node("add")
    output = graph.add_node("material_output")
    graph.connect(first.id, "out", add.id, "a")
    graph.connect(second.id, "out", add.id, "b")
    graph.connect(add.id, "out", output.id, "opacity")
    result = lower(graph)
    assert result.ok, result.diagnostics
    cost = material_cost(result.module, result.provenance)
    one, two = cost.node(first.id), cost.node(second.id)
    assert one.owned_helpers and not two.owned_helpers
    assert {helper.name for helper in one.called_helpers} == {helper.name for helper in two.called_helpers}
    shared = one.called_helpers[0]
    assert shared.owner == first.id and shared.users >= {first.id, second.id}
    # The first also loads the texture coordinates, which both read (a source is loaded once per material).
    helpers = sum(helper.count.instructions for helper in one.owned_helpers)
    assert one.total.instructions == two.total.instructions + helpers + 1
    tooltip = describe_node(two, lambda node_id: f"Gradient Noise ({node_id})")
    assert any(f"counted on Gradient Noise ({first.id})" in line for line in tooltip)
    assert any("counted here" in line for line in describe_node(one))


def test_descriptions() -> None:
    assert describe_count(Count(12, 0)) == "12 instr"
    assert describe_count(Count(12, 2)) == "12 instr \u00b7 2 tex"
    result = lowered("textured")
    cost = material_cost(result.module, result.provenance)
    assert describe_totals(cost).startswith(f"VS {cost.stages['vertex'].instructions} \u00b7 FS ")
    sampler = next(node for node in cost.nodes.values() if node.total.samples)
    assert "texture sample" in describe_node(sampler)[0]
    output = next(node for node in cost.nodes.values() if node.stage_total("vertex").instructions)
    assert "(vertex " in describe_node(output)[0]
