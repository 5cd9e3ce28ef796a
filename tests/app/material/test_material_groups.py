"""Node groups and Custom Code without a display: nesting, sharing, saving, recursion, diagnostics.

Pixels are compared in test_material_groups_pixels.py (real GL); here the
document model, the lowering's shape (one helper per definition) and the
diagnostics (at the right node, at the right line) are checked.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.material.custom_code import CUSTOM_CODE_TYPE, check
from app.material.document import load_text, save_text
from app.material.examples import EXAMPLE_GRAPHS
from app.material.graph import GRAPH_VERSION_WITH_FUNCTIONS, MaterialGraph
from app.material.groups import (
    FUNCTION_PROPERTY,
    GROUP_TYPE,
    GroupingError,
    add_instance,
    function_name,
    group_nodes,
    recursion_problem,
    ungroup,
)
from app.material.lowering import lower
from app.preview.renderer import Renderer
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.ir.types import Type
from vpl_core.ir.values import Operand


def _colour_chain() -> MaterialGraph:
    """texcoord -> multiply -> add -> power -> output: enough nodes to group three deep."""
    graph = MaterialGraph()
    coords = graph.add_node("texcoord", (0.0, 0.0))
    split = graph.add_node("split", (150.0, 0.0))
    scale = graph.add_node("multiply", (300.0, 0.0), {"a": 1.0, "b": 2.0})
    shift = graph.add_node("add", (450.0, 0.0), {"a": 0.0, "b": 0.25})
    curve = graph.add_node("power", (600.0, 0.0), {"base": 1.0, "exponent": 1.5})
    output = graph.add_node("material_output", (800.0, 0.0))
    graph.connect(coords.id, "out", split.id, "vector")
    graph.connect(split.id, "x", scale.id, "a")
    graph.connect(scale.id, "out", shift.id, "a")
    graph.connect(shift.id, "out", curve.id, "base")
    graph.connect(curve.id, "out", output.id, "opacity")
    return graph


def _nested_three_deep() -> tuple[MaterialGraph, list[str]]:
    """Groups three deep, the outer one used by three instances; returns the document and the definitions."""
    graph = _colour_chain()
    first = group_nodes(graph, None, ["n3"], name="Scale")
    second = group_nodes(first.document, None, [first.instance_id, "n4"], name="Scale and shift")
    third = group_nodes(second.document, None, [second.instance_id, "n5"], name="Curve")
    document = third.document
    for index in range(2):
        document, _ = add_instance(document, None, third.function_id, (600.0, 200.0 + 100.0 * index))
    return document, [first.function_id, second.function_id, third.function_id]


def test_the_chain_fixture_lowers() -> None:
    result = lower(_colour_chain())
    assert result.ok, [d.message for d in result.errors]


def test_groups_nested_three_deep_shared_by_instances_save_reopen_resave_equal() -> None:
    document, definitions = _nested_three_deep()
    assert len([node for node in document.nodes.values() if node.type_name == GROUP_TYPE]) == 3
    result = lower(document)
    assert result.ok, [d.message for d in result.errors]
    helpers = [function.name for function in result.module.fragment.functions if function.name.startswith("group")]
    assert sorted(helpers) == ["group_curve", "group_scale", "group_scale_and_shift"]  # one per definition
    assert result.text.count('"group_curve"') == 1

    text = save_text(document, result)
    assert f'"version": {GRAPH_VERSION_WITH_FUNCTIONS}' in text
    loaded = load_text(text)
    assert not loaded.read_only and loaded.graph is not None, loaded.message
    assert loaded.graph == document
    assert save_text(loaded.graph, lower(loaded.graph)) == text
    # The body of the outer definition calls the middle one, which calls the inner one.
    bodies = {function_id: document.functions[function_id].body for function_id in definitions}
    assert {node.properties[FUNCTION_PROPERTY] for node in bodies[definitions[2]].nodes.values()
            if node.type_name == GROUP_TYPE} == {definitions[1]}
    assert {node.properties[FUNCTION_PROPERTY] for node in bodies[definitions[1]].nodes.values()
            if node.type_name == GROUP_TYPE} == {definitions[0]}


def test_ungroup_restores_the_graph_for_every_example_node() -> None:
    for name, make in sorted(EXAMPLE_GRAPHS.items()):
        graph = make()
        for node_id in sorted(graph.nodes):
            try:
                edit = group_nodes(graph, None, [node_id])
            except GroupingError:
                continue
            assert ungroup(edit.document, None, edit.instance_id) == graph, (name, node_id)


def test_a_group_inside_itself_is_refused_with_the_reason() -> None:
    document, definitions = _nested_three_deep()
    inner, _middle, outer = definitions
    problem = recursion_problem(document.functions, outer, inner)
    assert problem is not None and "Curve" in problem
    with pytest.raises(GroupingError, match="Curve"):
        add_instance(document, inner, outer)
    # A file that holds such a cycle anyway is reported on the node, not lowered.
    cyclic = document.copy()
    cyclic.functions[inner].body.add_node(GROUP_TYPE, (0.0, 0.0), {FUNCTION_PROPERTY: outer})
    result = lower(cyclic)
    assert not result.ok
    messages = " ".join(diagnostic.message for diagnostic in result.errors)
    assert "Curve" in messages or "recurs" in messages or "itself" in messages, messages


def test_graphs_without_groups_keep_their_version() -> None:
    graph = _colour_chain()
    assert '"version": 1' in save_text(graph, lower(graph))


# Custom Code ------------------------------------------------------------------------------------

SCALE_CODE = """\
(registers (register r0 Vec4) (register r1 Float) (register r2 Vec4))
(block entry
  (load r0 (parameter color))
  (load r1 (parameter amount))
  (multiply r2 r0 r1)
  (return r2))
"""

TYPE_ERROR_CODE = """\
(registers (register r0 Vec4) (register r1 Float) (register r2 Float))
(block entry
  (load r0 (parameter color))
  (load r1 (parameter amount))
  (add r2 r0 r1)
  (return r0))
"""

RECURSIVE_CODE = """\
(registers (register r0 Vec4) (register r1 Float) (register r2 Vec4))
(block entry
  (load r0 (parameter color))
  (load r1 (parameter amount))
  (call r2 custom r0 r1)
  (return r2))
"""


def _custom_material(code: str, color: tuple[float, ...] = (0.2, 0.4, 0.6, 1.0), amount: float = 0.5) -> MaterialGraph:
    graph = MaterialGraph()
    custom = graph.add_node(CUSTOM_CODE_TYPE, (0.0, 0.0), {
        "name": "scale", "inputs": (("color", "color"), ("amount", "float")), "outputs": (("out", "color"),),
        "code": code, "color": color, "amount": amount})
    output = graph.add_node("material_output", (300.0, 0.0))
    graph.connect(custom.id, "out", output.id, "base_color")
    return graph


def test_custom_code_type_error_is_reported_at_its_line_and_on_the_node() -> None:
    checked = check(_custom_material(TYPE_ERROR_CODE).nodes["n1"].properties)
    assert not checked.ok
    (problem,) = checked.diagnostics
    assert problem.line == 5, problem  # "(add r2 r0 r1)": a vec4 and a float into a float register
    result = lower(_custom_material(TYPE_ERROR_CODE))
    assert not result.ok
    assert any(diagnostic.node_id == "n1" and "line 5" in diagnostic.message for diagnostic in result.errors), \
        [(d.node_id, d.message) for d in result.errors]


def test_custom_code_recursive_call_is_refused_by_the_verifier() -> None:
    checked = check(_custom_material(RECURSIVE_CODE).nodes["n1"].properties)
    assert not checked.ok
    (problem,) = checked.diagnostics
    assert problem.line == 5
    assert "recurs" in problem.message.lower(), problem.message


ENDLESS_CODE = """\
(registers (register r0 Vec4))
(block entry
  (load r0 (parameter color))
  (branch spin))
(block spin
  (branch spin))
"""


def test_custom_code_with_an_endless_loop_is_refused_on_the_node() -> None:
    # The desktop target compiled it ("Material OK") and llvmpipe drew garbage; es300 refuses it.
    checked = check(_custom_material(ENDLESS_CODE).nodes["n1"].properties)
    assert not checked.ok
    (problem,) = checked.diagnostics
    assert problem.line == 2 and "never finishes" in problem.message and "ES 3.00" in problem.message, problem
    result = lower(_custom_material(ENDLESS_CODE))
    assert not result.ok and result.artifact is None
    assert [d.node_id for d in result.errors] == ["n1"]


def test_custom_code_storage_of_the_module_is_refused() -> None:
    code = SCALE_CODE.replace("(load r1 (parameter amount))", "(load r1 (uniform time))")
    checked = check(_custom_material(code).nodes["n1"].properties)
    assert not checked.ok


def test_custom_code_lowers_to_one_helper() -> None:
    result = lower(_custom_material(SCALE_CODE))
    assert result.ok, [d.message for d in result.errors]
    assert '"custom_scale"' in result.text


@pytest.mark.gl
def test_custom_code_renders_the_expected_pixels(current_gl) -> None:
    """The Unlit Output shows base colour + emissive (0) as is: colour * amount, computed here with numpy."""
    color, amount = (0.2, 0.4, 0.6, 1.0), 0.5
    result = lower(_custom_material(SCALE_CODE, color, amount))
    assert result.ok
    renderer = Renderer()
    try:
        renderer.build_program(compile_glsl(result.verified, target="es320" if current_gl.is_es else "glsl420"))
        pixels = renderer.render_linear(32, 32)
    finally:
        current_gl.make_current()
        renderer.release()
    expected = np.float32(color[:3]) * np.float32(amount)
    centre = pixels[16, 16]
    np.testing.assert_allclose(centre[:3], expected, rtol=0, atol=1e-6)


def _calls_of(function_name: str, graph: MaterialGraph) -> tuple[list[list[Operand]], list[Type]]:
    """The argument lists of every call of helper `function_name` in `graph`'s lowering, and its parameter types."""
    from vpl_core.ir.instructions import CallInstruction

    result = lower(graph)
    assert result.ok and result.module is not None, [d.message for d in result.errors]
    functions = {function.name: function for function in result.module.fragment.functions}
    callee = functions[function_name]
    calls = [list(instruction.arguments) for function in functions.values() for block in function.blocks
             for instruction in block.instructions
             if isinstance(instruction, CallInstruction) and instruction.callee is callee]
    return calls, [parameter.type for parameter in callee.parameters]


def test_a_helper_takes_the_surface_sources_its_body_reads_and_a_filtered_bump_moves_them() -> None:
    """A body reading texcoord gets it as a parameter (nested groups pass it on); one reading no surface
    source keeps only its interface inputs; a filtered bump downstream calls the helper once more per tap."""
    from vpl_core.ir.types import FLOAT, vec

    graph = MaterialGraph()
    noise = graph.add_node("gradient_noise").id
    step = graph.add_node("step").id
    graph.connect(noise, "out", step, "x")
    bump = graph.add_node("normal_from_height").id  # a new node: filtered bump
    graph.connect(step, "out", bump, "height")
    output = graph.add_node("surface_output").id
    graph.connect(bump, "normal_out", output, "normal")

    reads = group_nodes(graph, None, [noise, step])
    calls, parameters = _calls_of("group_1", reads.document)
    assert parameters == [vec(2)]
    assert len(calls) == 1 + 8  # the material's point and the bump's 8 taps, each with its own texcoord
    assert len({id(arguments[0]) for arguments in calls}) == 9

    nested = group_nodes(reads.document, None, [reads.instance_id])
    calls, parameters = _calls_of(function_name(nested.document.functions[nested.function_id]), nested.document)
    assert parameters == [vec(2)] and len(calls) == 9

    pure = group_nodes(graph, None, [step])
    calls, parameters = _calls_of("group_1", pure.document)
    assert parameters == [FLOAT]  # its interface input only
    assert len(calls) == 9  # fed by moved noise: lowered again per tap too
