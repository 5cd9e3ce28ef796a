"""Lowering material graphs to VPL: structure, determinism, provenance, and bad graphs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from material_testing import approved_graphs
from tiers import examples, fast_tier

from app.material.catalog import NODE_TYPES
from app.material.connections import can_connect
from app.material.graph import Connection, MaterialGraph, Node
from app.material.lowering import FRAGMENT_ENTRY_NAME, lower
from app.material.parameters import ParameterKind
from app.material.port_types import PortType
from app.material.scene import SCENE_UNIFORM_NAME, VERTEX_INPUTS
from vpl_core.ir.instructions import (
    BranchTerminator,
    Builtin,
    CallInstruction,
    ConditionalBranchTerminator,
    DeclareLocalInstruction,
    DiscardTerminator,
)
from vpl_core.ir.module import Block, Direction, Function, Module, Semantic


def function_named(module: Module, name: str) -> Function:
    for _, function in module.functions():
        if function.name == name:
            return function
    raise AssertionError(f"no function {name!r}")


def lit_graph() -> MaterialGraph:
    graph = MaterialGraph()
    color = graph.add_node("color_parameter", properties={"name": "tint"})
    lambert = graph.add_node("lambert")
    multiply = graph.add_node("multiply")
    output = graph.add_node("material_output")
    graph.connect(color.id, "out", multiply.id, "a")
    graph.connect(lambert.id, "out", multiply.id, "b")
    graph.connect(multiply.id, "out", output.id, "base_color")
    return graph


def if_graph() -> tuple[MaterialGraph, str]:
    graph = MaterialGraph()
    noise = graph.add_node("value_noise")
    branch = graph.add_node("if", properties={"operator": "<"})
    red = graph.add_node("constant_color", properties={"value": (1.0, 0.0, 0.0, 1.0)})
    blue = graph.add_node("constant_color", properties={"value": (0.0, 0.0, 1.0, 1.0)})
    output = graph.add_node("material_output")
    graph.connect(noise.id, "out", branch.id, "a")
    graph.connect(red.id, "out", branch.id, "if_true")
    graph.connect(blue.id, "out", branch.id, "if_false")
    graph.connect(branch.id, "out", output.id, "base_color")
    return graph, branch.id


# The generated module ---------------------------------------------------------------------------


def test_vertex_stage_follows_the_preview_host_contract() -> None:
    """Only what the material reads is declared: Lambert reads the normal, nothing else of the mesh."""
    result = lower(lit_graph())
    assert result.ok, result.diagnostics
    module = result.module
    assert module.uniforms[0].name == SCENE_UNIFORM_NAME
    inputs = [(v.location, v.name, v.type) for v in module.vertex.interface if v.direction is Direction.IN]
    assert inputs == [(spec.location, spec.name, spec.type) for spec in VERTEX_INPUTS if spec.name in ("position", "normal")]
    positions = [v for v in module.vertex.interface if v.semantic is Semantic.POSITION]
    assert len(positions) == 1 and positions[0].location == -1
    varyings = sorted((v.location, v.name) for v in module.vertex.interface if v.direction is Direction.OUT and v.location >= 0)
    fragment_inputs = sorted((v.location, v.name) for v in module.fragment.interface if v.direction is Direction.IN)
    assert varyings == fragment_inputs == [(1, "world_normal")]
    color = [v for v in module.fragment.interface if v.semantic is Semantic.FRAGMENT_COLOR]
    assert len(color) == 1 and color[0].location == 0
    assert result.artifact.fragment_color_location == 0


def _interface(module: Module) -> tuple[list[tuple[int, str]], list[tuple[int, str]], list[tuple[int, str]]]:
    """(vertex inputs, vertex varyings, fragment inputs) as sorted (location, name)."""
    vertex_inputs = sorted((v.location, v.name) for v in module.vertex.interface if v.direction is Direction.IN)
    varyings = sorted((v.location, v.name) for v in module.vertex.interface if v.direction is Direction.OUT and v.location >= 0)
    fragment_inputs = sorted((v.location, v.name) for v in module.fragment.interface if v.direction is Direction.IN)
    return vertex_inputs, varyings, fragment_inputs


def test_a_constant_material_reads_only_the_position() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    color = graph.add_node("constant_color")
    graph.connect(color.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    assert _interface(result.module) == ([(0, "position")], [], [])
    assert [binding.location for binding in result.artifact.vertex_interface if binding.direction is Direction.IN] == [0]


def test_surface_values_declare_their_inputs_and_varyings_at_fixed_locations() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    tangent = graph.add_node("tangent")
    uv = graph.add_node("texcoord")
    position = graph.add_node("world_position")
    sum_node = graph.add_node("add")
    compose = graph.add_node("compose", properties={"size": 3})
    split_uv = graph.add_node("split")
    graph.connect(uv.id, "out", split_uv.id, "vector")
    graph.connect(split_uv.id, "x", compose.id, "x")
    graph.connect(tangent.id, "out", sum_node.id, "a")
    graph.connect(position.id, "out", sum_node.id, "b")
    final = graph.add_node("add")
    graph.connect(sum_node.id, "out", final.id, "a")
    graph.connect(compose.id, "out", final.id, "b")
    graph.connect(final.id, "out", output.id, "emissive")
    result = lower(graph)
    assert result.ok, result.diagnostics
    vertex_inputs, varyings, fragment_inputs = _interface(result.module)
    # The tangent frame needs the normal too (Gram-Schmidt against it).
    assert vertex_inputs == [(0, "position"), (1, "normal"), (2, "texcoord"), (3, "tangent")]
    assert varyings == fragment_inputs == [(0, "world_position"), (1, "world_normal"), (2, "surface_texcoord"), (3, "world_tangent")]
    tangent_input = next(v for v in result.module.vertex.interface if v.name == "tangent")
    assert str(tangent_input.type) == "vector float 4"
    assert {b.location for b in result.artifact.vertex_interface if b.direction is Direction.IN} == {0, 1, 2, 3}


def test_the_varying_registry_rejects_clashes() -> None:
    from app.material.lowering import SURFACE_VARYINGS, Varying, register_varying
    from vpl_core.ir.types import vec

    existing = SURFACE_VARYINGS["world_normal"]
    with pytest.raises(ValueError, match="registered twice"):
        register_varying(existing)
    with pytest.raises(ValueError, match="location 1 is taken"):
        register_varying(Varying("another", vec(3), 1, Semantic.NONE, ("normal",), existing.compute))
    assert "another" not in SURFACE_VARYINGS


def test_parameters_become_uniforms_and_specs() -> None:
    graph = MaterialGraph()
    roughness = graph.add_node("float_parameter", properties={"name": "roughness", "default": 0.3, "minimum": 0.0, "maximum": 2.0})
    offset = graph.add_node("vector_parameter", properties={"name": "offset", "size": 2, "default": (0.5, 0.25, 9.0, 9.0)})
    tint = graph.add_node("color_parameter", properties={"name": "tint", "default": (1.0, 0.5, 0.25, 1.0)})
    image = graph.add_node("texture_parameter", properties={"name": "albedo"})
    sample = graph.add_node("sample_texture")
    add = graph.add_node("add")
    multiply = graph.add_node("multiply")
    scale = graph.add_node("multiply")
    output = graph.add_node("material_output")
    graph.connect(image.id, "out", sample.id, "texture")
    graph.connect(offset.id, "out", add.id, "a")
    graph.connect(add.id, "out", sample.id, "uv")  # add: vec2 + default float 0
    graph.connect(sample.id, "rgba", multiply.id, "a")
    graph.connect(tint.id, "out", multiply.id, "b")
    graph.connect(multiply.id, "out", scale.id, "a")
    graph.connect(roughness.id, "out", scale.id, "b")
    graph.connect(scale.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    specs = {spec.name: spec for spec in result.parameters}
    assert specs["roughness"].kind is ParameterKind.FLOAT
    assert (specs["roughness"].minimum, specs["roughness"].maximum) == (0.0, 2.0)
    assert abs(specs["roughness"].default - 0.3) < 1e-6
    assert specs["offset"].kind is ParameterKind.VECTOR and specs["offset"].default == (0.5, 0.25)
    assert specs["tint"].kind is ParameterKind.COLOR and specs["tint"].default == (1.0, 0.5, 0.25, 1.0)
    assert specs["albedo"].kind is ParameterKind.TEXTURE and specs["albedo"].default is None
    uniform_names = [uniform.name for uniform in result.module.uniforms]
    assert uniform_names[0] == SCENE_UNIFORM_NAME
    assert sorted(uniform_names[1:]) == sorted(specs)
    assert {binding.name for binding in result.artifact.uniforms} == set(uniform_names)


def test_if_node_lowers_to_conditional_branch_two_blocks_and_a_join() -> None:
    graph, branch_id = if_graph()
    result = lower(graph)
    assert result.ok, result.diagnostics
    main = function_named(result.module, FRAGMENT_ENTRY_NAME)
    branches = [
        block.terminator
        for block in main.blocks
        if isinstance(block.terminator, ConditionalBranchTerminator) and result.provenance[id(block.terminator)] == branch_id
    ]
    assert len(branches) == 1
    true_block, false_block = branches[0].true_target, branches[0].false_target
    assert true_block is not false_block
    for side in (true_block, false_block):
        assert isinstance(side.terminator, BranchTerminator)
        assert result.provenance[id(side)] == branch_id
    assert true_block.terminator.target is false_block.terminator.target
    join = true_block.terminator.target
    assert join not in (true_block, false_block)


def test_alpha_clip_branches_to_a_discard_block() -> None:
    graph = lit_graph()
    output = next(node for node in graph.nodes.values() if node.type_name == "material_output")
    noise = graph.add_node("value_noise")
    graph.connect(noise.id, "out", output.id, "opacity")
    output.properties["alpha_clip"] = 0.5
    result = lower(graph)
    assert result.ok, result.diagnostics
    main = function_named(result.module, FRAGMENT_ENTRY_NAME)
    discards = [block for block in main.blocks if isinstance(block.terminator, DiscardTerminator)]
    assert len(discards) == 1
    assert result.provenance[id(discards[0])] == output.id
    assert any(
        isinstance(block.terminator, ConditionalBranchTerminator) and discards[0] in block.terminator.successors()
        for block in main.blocks
    )
    assert "discard;" in result.artifact.fragment_code


def test_no_alpha_clip_means_no_discard_and_a_single_block() -> None:
    result = lower(lit_graph())
    main = function_named(result.module, FRAGMENT_ENTRY_NAME)
    assert len(main.blocks) == 1
    assert "discard" not in result.artifact.fragment_code


def _back_edges(function: Function) -> list[tuple[Block, Block]]:
    """Edges to a block that is on the current depth-first path (a loop's back-edge)."""
    found: list[tuple[Block, Block]] = []
    on_path: set[int] = set()
    done: set[int] = set()

    def visit(block: Block) -> None:
        on_path.add(id(block))
        for successor in block.terminator.successors() if block.terminator else []:
            if id(successor) in on_path:
                found.append((block, successor))
            elif id(successor) not in done:
                visit(successor)
        on_path.discard(id(block))
        done.add(id(block))

    visit(function.blocks[0])
    return found


def test_fractal_noise_is_a_helper_function_with_a_loop_back_edge() -> None:
    graph = MaterialGraph()
    noise = graph.add_node("fractal_noise", properties={"octaves": 4})
    output = graph.add_node("material_output")
    graph.connect(noise.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    helper = function_named(result.module, "fractal_noise")
    assert helper in result.module.fragment.functions and helper is not result.module.fragment.entry
    edges = _back_edges(helper)
    assert len(edges) == 1
    body, test = edges[0]
    assert isinstance(test.terminator, ConditionalBranchTerminator) and body in test.terminator.successors()
    assert result.provenance[id(body.terminator)] == noise.id
    # The entry calls the helper; the main function itself has no loop.
    main = function_named(result.module, FRAGMENT_ENTRY_NAME)
    calls = [i for b in main.blocks for i in b.instructions if isinstance(i, CallInstruction) and i.callee is helper]
    assert len(calls) == 1 and _back_edges(main) == []


def test_helpers_are_emitted_once_for_many_noise_nodes() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    total = None
    for _ in range(3):
        for type_name in ("fractal_noise", "value_noise"):
            node = graph.add_node(type_name)
            if total is None:
                total = (node.id, "out")
            else:
                add = graph.add_node("add")
                graph.connect(total[0], total[1], add.id, "a")
                graph.connect(node.id, "out", add.id, "b")
                total = (add.id, "out")
    graph.connect(total[0], total[1], output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    names = [function.name for function in result.module.fragment.functions]
    # The exact hash's helpers (noise_mod for floats and vec2, noise_permute, noise_hash) once each too.
    expected = [FRAGMENT_ENTRY_NAME, "fractal_noise", "signed_value", "value_noise", "noise_hash", "noise_permute", "noise_mod", "noise_mod_vec"]
    assert sorted(names) == sorted(expected)


def _texture_calls(module: Module) -> list[tuple[Function, Block, CallInstruction]]:
    return [
        (function, block, instruction)
        for _, function in module.functions()
        for block in function.blocks
        for instruction in block.instructions
        if isinstance(instruction, CallInstruction) and instruction.builtin in (Builtin.TEXTURE, Builtin.TEXTURE_LOD)
    ]


def _assert_no_implicit_sample_behind_a_branch(module: Module) -> None:
    for function, block, instruction in _texture_calls(module):
        if instruction.builtin is Builtin.TEXTURE:
            # The entry block runs before any branch of the function: uniform control flow.
            assert function is module.fragment.entry and block is function.blocks[0]


def test_texture_samples_stay_before_every_branch() -> None:
    graph, branch_id = if_graph()
    image = graph.add_node("texture_parameter")
    sample = graph.add_node("sample_texture")
    multiply = graph.add_node("multiply")
    output = next(node for node in graph.nodes.values() if node.type_name == "material_output")
    graph.connect(image.id, "out", sample.id, "texture")
    graph.connect(branch_id, "out", multiply.id, "a")
    graph.connect(sample.id, "rgba", multiply.id, "b")  # the sample feeds a node after the If
    graph.connect(multiply.id, "out", output.id, "base_color")
    output.properties["alpha_clip"] = 0.25
    result = lower(graph)
    assert result.ok, result.diagnostics
    calls = _texture_calls(result.module)
    assert [call.builtin for _, _, call in calls] == [Builtin.TEXTURE]
    _assert_no_implicit_sample_behind_a_branch(result.module)


def test_sample_with_coordinates_from_behind_a_branch_uses_explicit_lod() -> None:
    graph = MaterialGraph()
    noise = graph.add_node("value_noise")
    branch = graph.add_node("if")
    uv_a = graph.add_node("constant_vec2", properties={"value": (0.25, 0.25)})
    uv_b = graph.add_node("texcoord")
    image = graph.add_node("texture_parameter")
    sample = graph.add_node("sample_texture")
    output = graph.add_node("material_output")
    graph.connect(noise.id, "out", branch.id, "a")
    graph.connect(uv_a.id, "out", branch.id, "if_true")
    graph.connect(uv_b.id, "out", branch.id, "if_false")
    graph.connect(branch.id, "out", sample.id, "uv")
    graph.connect(image.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    assert [call.builtin for _, _, call in _texture_calls(result.module)] == [Builtin.TEXTURE_LOD]
    assert "textureLod(" in result.artifact.fragment_code


# Determinism and computing once -------------------------------------------------------------------


def test_lowering_is_deterministic() -> None:
    graph, _ = if_graph()
    assert lower(graph).text == lower(graph).text
    assert lower(graph).text == lower(MaterialGraph.from_dict(graph.to_dict())).text


def test_insertion_order_does_not_change_the_text() -> None:
    graph, _ = if_graph()
    extra = graph.add_node("fresnel")
    graph.add_node("constant_float")  # unreachable: must not matter either
    output = next(node for node in graph.nodes.values() if node.type_name == "material_output")
    graph.connect(extra.id, "out", output.id, "opacity")
    reordered = MaterialGraph(
        {node_id: graph.nodes[node_id] for node_id in reversed(list(graph.nodes))},
        list(reversed(graph.connections)),
        [],
    )
    first, second = lower(graph), lower(reordered)
    assert first.ok and second.ok
    assert first.text == second.text


def test_a_node_used_by_three_inputs_is_computed_once() -> None:
    graph = MaterialGraph()
    time = graph.add_node("time")
    wave = graph.add_node("sin")
    first, second, third = graph.add_node("add"), graph.add_node("add"), graph.add_node("multiply")
    output = graph.add_node("material_output")
    graph.connect(time.id, "out", wave.id, "x")
    graph.connect(wave.id, "out", first.id, "a")
    graph.connect(wave.id, "out", first.id, "b")
    graph.connect(wave.id, "out", second.id, "a")
    graph.connect(first.id, "out", second.id, "b")
    graph.connect(second.id, "out", third.id, "a")
    graph.connect(third.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    emitted = [
        instruction
        for block in result.module.fragment.entry.blocks
        for instruction in block.instructions
        if result.provenance.get(id(instruction)) == wave.id and not isinstance(instruction, DeclareLocalInstruction)
    ]
    assert len(emitted) == 1 and emitted[0].builtin is Builtin.SIN
    assert result.text.count("(sin ") == 1


def test_provenance_covers_every_instruction_terminator_and_block() -> None:
    graph, _ = if_graph()
    noise = graph.add_node("fractal_noise")
    output = next(node for node in graph.nodes.values() if node.type_name == "material_output")
    graph.connect(noise.id, "out", output.id, "opacity")
    output.properties["alpha_clip"] = 0.1
    result = lower(graph)
    assert result.ok, result.diagnostics
    for _, function in result.module.functions():
        assert result.provenance.get(id(function)) in graph.nodes
        for block in function.blocks:
            assert result.provenance.get(id(block)) in graph.nodes
            assert result.provenance.get(id(block.terminator)) in graph.nodes
            for instruction in block.instructions:
                assert result.provenance.get(id(instruction)) in graph.nodes, instruction
    for uniform in result.module.uniforms:
        assert result.provenance.get(id(uniform)) in graph.nodes


def test_port_types_cover_inputs_and_outputs_after_propagation() -> None:
    graph = lit_graph()
    result = lower(graph)
    by_type = {node.type_name: node.id for node in graph.nodes.values()}
    assert result.port_types[(by_type["multiply"], "a")] is PortType.COLOR
    assert result.port_types[(by_type["multiply"], "b")] is PortType.COLOR
    assert result.port_types[(by_type["multiply"], "out")] is PortType.COLOR
    assert result.port_types[(by_type["lambert"], "out")] is PortType.FLOAT
    assert result.port_types[(by_type["material_output"], "emissive")] is PortType.VEC3


# Bad graphs ---------------------------------------------------------------------------------------


def _errors(result) -> list[tuple]:
    return [(d.node_id, d.category, d.message) for d in result.diagnostics if d.severity == "error"]


def test_missing_output_node_is_a_graph_diagnostic() -> None:
    graph = MaterialGraph()
    graph.add_node("time")
    result = lower(graph)
    assert result.module is None and result.verified is None and result.text == ""
    assert _errors(result) and _errors(result)[0][0] is None and _errors(result)[0][1] == "graph"


def test_empty_graph_gives_a_diagnostic() -> None:
    result = lower(MaterialGraph())
    assert result.module is None and len(_errors(result)) == 1


def test_cycle_is_diagnosed_on_its_nodes() -> None:
    graph = MaterialGraph()
    first, second = graph.add_node("add"), graph.add_node("add")
    output = graph.add_node("material_output")
    graph.connect(first.id, "out", second.id, "a")
    graph.connect(second.id, "out", first.id, "a")
    graph.connect(second.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.module is None
    flagged = {node_id for node_id, _, message in _errors(result) if "cycle" in message}
    assert {first.id, second.id} <= flagged


def test_type_mismatch_is_diagnosed_on_the_target_node_naming_both_types() -> None:
    graph = MaterialGraph()
    uv = graph.add_node("texcoord")
    lambert = graph.add_node("lambert")
    output = graph.add_node("material_output")
    graph.connect(uv.id, "out", lambert.id, "normal")  # vec2 into vec3: refused by can_connect
    graph.connect(lambert.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.module is None
    (node_id, category, message), *_ = _errors(result)
    assert node_id == lambert.id and category == "graph" and "vec2" in message and "vec3" in message


def test_mismatched_dynamic_widths_are_diagnosed() -> None:
    graph = MaterialGraph()
    uv = graph.add_node("texcoord")
    position = graph.add_node("world_position")
    add = graph.add_node("add")
    output = graph.add_node("material_output")
    graph.connect(uv.id, "out", add.id, "a")
    graph.connect(position.id, "out", add.id, "b")
    graph.connect(add.id, "out", output.id, "base_color")
    result = lower(graph)
    assert [(n, c) for n, c, _ in _errors(result)] == [(add.id, "graph")]


def test_duplicate_and_empty_parameter_names_are_diagnosed() -> None:
    graph = MaterialGraph()
    first = graph.add_node("float_parameter", properties={"name": "gloss"})
    second = graph.add_node("color_parameter", properties={"name": "gloss"})
    empty = graph.add_node("float_parameter", properties={"name": "  "})
    reserved = graph.add_node("float_parameter", properties={"name": SCENE_UNIFORM_NAME})
    multiply, multiply2, multiply3 = graph.add_node("multiply"), graph.add_node("multiply"), graph.add_node("multiply")
    output = graph.add_node("material_output")
    graph.connect(first.id, "out", multiply.id, "a")
    graph.connect(second.id, "out", multiply.id, "b")
    graph.connect(multiply.id, "out", multiply2.id, "a")
    graph.connect(empty.id, "out", multiply2.id, "b")
    graph.connect(multiply2.id, "out", multiply3.id, "a")
    graph.connect(reserved.id, "out", multiply3.id, "b")
    graph.connect(multiply3.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.module is None
    flagged = {node_id for node_id, _, _ in _errors(result)}
    assert flagged == {first.id, second.id, empty.id, reserved.id}


def test_two_connections_into_one_input_from_a_file_are_a_diagnostic_on_the_node() -> None:
    """Issue 23 item 9: the format allows one connection per input; a file with two is not silently accepted."""
    graph = lit_graph()
    multiply = next(node_id for node_id, node in graph.nodes.items() if node.type_name == "multiply")
    extra = graph.add_node("constant_color")
    data = graph.to_dict()
    data["connections"].append(
        {"source_node": extra.id, "source_port": "out", "target_node": multiply, "target_port": "a"})
    loaded = MaterialGraph.from_dict(data)
    assert len(loaded.connections) == 4  # nothing the file holds is dropped
    result = lower(loaded)
    assert result.module is None and not result.ok
    errors = _errors(result)
    assert [(node_id, category) for node_id, category, _ in errors] == [(multiply, "graph")]
    assert "input 'a' has more than one connection" in errors[0][2]


def test_add_node_gives_parameters_unique_names() -> None:
    graph = MaterialGraph()
    names = [graph.add_node("float_parameter").properties["name"] for _ in range(3)]
    assert len(set(names)) == 3


def test_unknown_node_type_and_ports_are_diagnosed_without_exception() -> None:
    graph = MaterialGraph()
    alien = graph.add_node("alien_node", properties={"x": 1})
    time = graph.add_node("time")
    add = graph.add_node("add")
    output = graph.add_node("material_output")
    graph.connect(alien.id, "out", add.id, "a")
    graph.connect(time.id, "nonexistent", add.id, "b")
    graph.connect(add.id, "out", output.id, "no_such_input")
    graph.connect(add.id, "out", output.id, "base_color")
    result = lower(graph)
    assert result.module is None
    messages = {node_id: message for node_id, _, message in _errors(result)}
    assert "alien_node" in messages[alien.id]
    assert "nonexistent" in messages[add.id]
    assert "no_such_input" in messages[output.id]


def test_problems_in_nodes_that_do_not_reach_the_output_are_warnings() -> None:
    graph = lit_graph()
    stray = graph.add_node("lambert")
    graph.connect(graph.add_node("texcoord").id, "out", stray.id, "normal")
    result = lower(graph)
    assert result.ok
    assert [(d.node_id, d.severity) for d in result.diagnostics] == [(stray.id, "warning")]


def test_texture_input_must_be_connected() -> None:
    graph = MaterialGraph()
    sample = graph.add_node("sample_texture")
    output = graph.add_node("material_output")
    graph.connect(sample.id, "rgba", output.id, "base_color")
    result = lower(graph)
    assert [(n, c) for n, c, _ in _errors(result)] == [(sample.id, "graph")]


def test_properties_of_the_wrong_shape_fall_back_to_defaults() -> None:
    graph = MaterialGraph()
    compose = graph.add_node("compose", properties={"size": "many", "x": "nan"})
    noise = graph.add_node("fractal_noise", properties={"octaves": 1e300})
    swizzle = graph.add_node("swizzle", properties={"pattern": "xy"})
    output = graph.add_node("material_output", properties={"base_color": "red", "opacity": None})
    graph.connect(compose.id, "out", swizzle.id, "vector")
    graph.connect(swizzle.id, "out", output.id, "opacity")  # vec2 into float: a diagnostic
    graph.connect(noise.id, "out", output.id, "emissive")
    result = lower(graph)
    assert [(n, c) for n, c, _ in _errors(result)] == [(output.id, "graph")]
    graph.connect(noise.id, "out", output.id, "opacity")
    assert lower(graph).ok


def test_verifier_errors_map_back_to_the_emitting_node() -> None:
    from vpl_core.ir.types import vec

    graph = lit_graph()
    sine = graph.add_node("sin")
    output = next(node for node in graph.nodes.values() if node.type_name == "material_output")
    graph.connect(sine.id, "out", output.id, "opacity")

    def broken(ctx) -> None:
        ctx.set_output("out", ctx.fn.call_builtin(Builtin.SIN, vec(3), ctx.input("x")))

    original = NODE_TYPES["sin"].lower
    object.__setattr__(NODE_TYPES["sin"], "lower", broken)  # node types are frozen: patch for this test only
    try:
        result = lower(graph)
    finally:
        object.__setattr__(NODE_TYPES["sin"], "lower", original)
    assert result.verified is None
    semantic = [d for d in result.diagnostics if d.category == "semantic"]
    assert len(semantic) == 1 and semantic[0].node_id == sine.id


# Random graphs ------------------------------------------------------------------------------------

TYPE_NAMES = sorted(NODE_TYPES) + ["unknown_type"]


@st.composite
def random_graphs(draw) -> MaterialGraph:
    graph = MaterialGraph()
    count = draw(st.integers(min_value=0, max_value=12))
    for _ in range(count):
        graph.add_node(draw(st.sampled_from(TYPE_NAMES)))
    ids = list(graph.nodes)
    if ids:
        for _ in range(draw(st.integers(min_value=0, max_value=20))):
            source, target = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
            source_type = NODE_TYPES.get(graph.nodes[source].type_name)
            target_type = NODE_TYPES.get(graph.nodes[target].type_name)
            source_ports = [p.name for p in source_type.outputs] if source_type else []
            target_ports = [p.name for p in target_type.inputs] if target_type else []
            source_port = draw(st.sampled_from(source_ports + ["bogus"]))
            target_port = draw(st.sampled_from(target_ports + ["bogus"]))
            graph.connections.append(Connection(source, source_port, target, target_port))
    return graph


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_never_raise(graph: MaterialGraph) -> None:
    result = lower(graph)
    assert not any("internal error" in d.message for d in result.diagnostics), result.diagnostics
    ids = list(graph.nodes) + ["missing"]
    for source in ids[:4]:
        for target in ids[-4:]:
            allowed, reason = can_connect(graph, source, "out", target, "a")
            assert isinstance(allowed, bool) and isinstance(reason, str)
            assert allowed or reason


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(approved_graphs())
def test_graphs_of_approved_connections_have_no_type_errors_and_compile(graph: MaterialGraph) -> None:
    result = lower(graph)
    problems = [d for d in result.diagnostics if d.severity == "error"]
    # Only problems can_connect cannot prevent: unconnected texture inputs, Split/Swizzle
    # components (set by properties), and unique parameter names (add_node makes them unique).
    for diagnostic in problems:
        assert diagnostic.category == "graph", diagnostic
        assert "needs a texture" in diagnostic.message or "component" in diagnostic.message, diagnostic
    if not problems:
        assert result.ok and result.artifact is not None, result.diagnostics
        _assert_no_implicit_sample_behind_a_branch(result.module)


def test_node_dataclass_shape() -> None:
    node = Node("n1", "time", {}, (1.0, 2.0))
    assert (node.id, node.type_name, node.position) == ("n1", "time", (1.0, 2.0))


def test_backend_errors_map_back_by_position(monkeypatch) -> None:
    """glsl.compile reports objects of its own materialized copy; the lowering maps them by structural path."""
    from vpl_core.backends import glsl
    from vpl_core.backends.glsl.errors import SamplerRule
    from vpl_core.diagnostics import TargetError

    graph = MaterialGraph()
    image = graph.add_node("texture_parameter")
    sample = graph.add_node("sample_texture")
    output = graph.add_node("material_output")
    graph.connect(image.id, "out", sample.id, "texture")
    graph.connect(sample.id, "rgba", output.id, "base_color")

    def texture_call(module: Module) -> CallInstruction:
        return next(i for i in module.fragment.entry.blocks[0].instructions if isinstance(i, CallInstruction))

    def fake_generate(module: Module, *arguments: object) -> None:
        raise TargetError(SamplerRule.NOT_FROM_SAMPLER_ROOT, "this target cannot sample here", subject=texture_call(module))

    # The real compile runs on its own snapshot and raises through the patched generator.
    monkeypatch.setattr(glsl, "generate", fake_generate)
    result = lower(graph)
    assert result.artifact is None and result.verified is not None
    assert [(d.node_id, d.category) for d in result.diagnostics] == [(sample.id, "target")]


STRANGE_VALUES = (None, "x", float("nan"), float("inf"), 10**400, [1, 2, 3, 4, 5], {"k": 1})


def strange_values(index: int) -> tuple[object, ...]:
    """The strange values tried on a node type's `index`-th property: all of them; in the fast tier
    (tests/tiers.py) every third one, starting with the first, second or third by turns, so that each value
    still meets a third of the properties (4,452 lowerings in all: the fast tier's largest single cost)."""
    return STRANGE_VALUES[index % 3::3] if fast_tier() else STRANGE_VALUES


@pytest.mark.parametrize("type_name", sorted(NODE_TYPES))
def test_strange_property_values_never_raise(type_name: str) -> None:
    """Any value the properties panel or a hand-edited file could put in a property gives at worst a diagnostic."""
    for index, name in enumerate([spec.name for spec in NODE_TYPES[type_name].properties] + ["unexpected"]):
        for value in strange_values(index):
            graph = MaterialGraph()
            node = graph.add_node(type_name, properties={name: value})
            if type_name != "material_output":
                output = graph.add_node("material_output")
                for port in NODE_TYPES[type_name].outputs:
                    if can_connect(graph, node.id, port.name, output.id, "base_color")[0]:
                        graph.connect(node.id, port.name, output.id, "base_color")
                        break
            result = lower(graph)
            assert not any("internal error" in d.message for d in result.diagnostics), (name, value, result.diagnostics)
            can_connect(graph, node.id, "out", node.id, "a")


# Cost -------------------------------------------------------------------------------------------


def test_the_lowering_defers_every_register_declaration(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: a declaration inserted ahead of the entry block's body moves the whole body
    (quadratic in the material's size); every builder of the lowering defers them to one splice."""
    from vpl_core.ir.builder import FunctionBuilder

    eager: list[str] = []
    original = FunctionBuilder.register

    def register(self: FunctionBuilder, *arguments: object, **keywords: object) -> object:
        if getattr(self, "_pending", None) is None:
            eager.append(self.function.name)
        return original(self, *arguments, **keywords)

    monkeypatch.setattr(FunctionBuilder, "register", register)
    graph, _ = if_graph()
    lit = graph.add_node("lambert")  # a second, unconnected chain: warnings only
    assert lit is not None
    pbr = MaterialGraph()
    surface = pbr.add_node("surface_output")
    noise = pbr.add_node("value_noise")
    pbr.connect(noise.id, "out", surface.id, "roughness")
    for material in (graph, lit_graph(), pbr):
        result = lower(material)
        assert result.ok, result.diagnostics
        for _, function in result.module.functions():
            body = function.blocks[0].instructions
            declarations = [item for item in body if isinstance(item, DeclareLocalInstruction)]
            assert body[:len(declarations)] == declarations  # all in the prefix, after the splice
    assert eager == []
