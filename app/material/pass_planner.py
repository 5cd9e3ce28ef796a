"""Planning a material's texture passes: one verified, compiled module per pass, in run order.

`plan_passes(graph)` lowers every pass node of a material (Texture Buffers
and filters, `app.material.texture_passes`) to its own module, each
verified, published and compiled exactly as the material module is, and
returns a `PassPlan`; `refresh_values` recomputes a plan's value
fingerprints after a parameter-only edit without lowering again.

The planner sits above the lowering (it calls `lowering._lower` per pass);
the data types, the filter API and the structural checks it uses live in
`texture_passes`, below it, where the node modules can import them.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.material.graph import Connection, MaterialGraph, Node
from app.material.lowering import LoweringResult, NodeContext, OutputOverride, _lower
from app.material.node_types import LoweringFailure, NodeDiagnostic, NodeType, as_number, node_type_for
from app.material.parameters import material_values
from app.material.port_types import PortType
from app.material.scene import DISPLAY_OUTPUT_NAME
from app.material.texture_passes import (
    _PASS_OUTPUT_ID,
    BUFFER_TYPE,
    DEPENDS_ON_A_PROBLEM,
    DISPLACEMENT_SPEC,
    FILTERS,
    MEMORY_BUDGET_BYTES,
    PASS_VALUE_PREFIX,
    BufferSpec,
    Displacement,
    FilterSetup,
    Kernel,
    PassContext,
    PassInput,
    PassPlan,
    TexturePass,
    _analyse,
    _Analysis,
    allocated_bytes,
    displacement_key,
    displacing_output,
    fingerprint,
    is_pass_node_type,
    is_pass_uniform,
    material_view,
    output_key,
    pass_sampler_name,
    slot_requests,
)
from app.material.traversal import connected_nodes, node_id_key
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand


def _value_fingerprint(graph: MaterialGraph, each: TexturePass) -> str:
    values, _ = material_values(each.parameters, graph)
    live = {live_value.uniform: live_value.value for live_value in each.live_values.values()}
    return fingerprint({"values": each.values, "parameters": values, "live": live})


#: A draft plan's buffers (`plan_passes(draft=True)`): this fraction of each side (a quarter of the texels), never
#: below `DRAFT_MIN_RESOLUTION`.
DRAFT_DIVISOR = 2
DRAFT_MIN_RESOLUTION = 64


def draft_spec(spec: BufferSpec) -> BufferSpec:
    """The buffer a pass of `spec` draws into in a draft plan."""
    return replace(spec, resolution=max(min(spec.resolution, DRAFT_MIN_RESOLUTION), spec.resolution // DRAFT_DIVISOR))


def plan_passes(graph: MaterialGraph, live: frozenset[tuple[str, str]] = frozenset(), draft: bool = False) -> PassPlan:
    """Lower every pass of `graph` (every pass node's, whether or not the output reads it: the node thumbnails
    show them too) to verified, compiled modules, in run order. Never raises.

    `live`: as `lowering.lower(live=...)`, values of the nodes in Texture Buffers' sub-graphs lowered as hidden
    uniforms instead of literals (`TexturePass.live_values`), so that dragging a constant upstream of a buffer
    re-renders it without relinking; such modules are the preview's only.

    `draft`: every buffer at `draft_spec` (half of each side): the preview draws these while a value is dragged,
    each filter lowered for its draft resolution (its texel size, tap counts and pass counts follow it).
    """
    plan = PassPlan()
    try:
        _plan(graph, plan, frozenset(live), draft)
    except Exception as error:  # noqa: BLE001 - a bug must show as a diagnostic, not take the editor down
        detail = traceback.format_exception_only(type(error), error)[-1].strip()
        plan.diagnostics.append(NodeDiagnostic(None, "graph", f"internal error while planning texture passes: {detail}"))
    return plan


def _plan(graph: MaterialGraph, plan: PassPlan, live: frozenset[tuple[str, str]], draft: bool) -> None:
    analysis, failed, problems = _analyse(graph)
    if draft:
        analysis.specs = {key: draft_spec(spec) for key, spec in analysis.specs.items()}
    plan.diagnostics.extend(problems)
    # Every output's pass key, so that any module's pass samplers can be named back.
    keys_by_uniform: dict[str, str] = {}
    for node_id in analysis.order:
        node_type = node_type_for(graph.nodes[node_id])
        assert node_type is not None
        first = node_type.outputs[0].name
        for port in node_type.outputs:
            key = output_key(node_id, port.name, first)
            plan.outputs[(node_id, port.name)] = key
            keys_by_uniform[pass_sampler_name(key)] = key
    incoming = {(c.target_node, c.target_port): c for c in graph.connections}
    content: dict[str, str] = {}
    for node_id in analysis.order:
        node = graph.nodes[node_id]
        if node_id in failed or any(c.source_node in failed for (target, _), c in incoming.items() if target == node_id):
            failed.add(node_id)
            continue
        node_type = node_type_for(node)
        assert node_type is not None
        spec = analysis.specs[(node_id, node_type.outputs[0].name)]
        if node.type_name == BUFFER_TYPE:
            made = [_buffer_pass(graph, node, node_type, spec, plan, live)]
        else:
            made = _filter_passes(graph, node, node_type, spec, incoming, analysis, plan)
        if any(each.verified is None for each in made):
            failed.add(node_id)
            continue
        # The memory the buffers take as allocated: a filter's internal passes share buffers (`assign_slots`).
        candidates = [*plan.passes, *made]
        total = allocated_bytes(slot_requests(candidates), {each.key: each.spec.memory_bytes for each in candidates})
        if total > MEMORY_BUDGET_BYTES:
            plan.diagnostics.append(NodeDiagnostic(node_id, "graph", (
                f"the texture buffers need {_mebibytes(total)} with this node's, beyond the budget of "
                f"{_mebibytes(MEMORY_BUDGET_BYTES)}: lower a resolution, use 8-bit or 16-bit, or turn mip-maps off")))
            failed.add(node_id)
            continue
        for each in made:
            each.inputs = tuple(PassInput(uniform, keys_by_uniform.get(uniform, key)) for uniform, key in
                                ((each_input.uniform, each_input.key) for each_input in each.inputs))
            each.code_fingerprint = fingerprint(each.text)
            _fingerprint_values(graph, each, content)
            plan.passes.append(each)
    displaced = displacing_output(graph)
    readers: list[PassInput] = []
    if displaced is not None:
        made_height = _displacement_pass(graph, displaced, plan, live, failed)
        if made_height is not None:
            made_height.inputs = tuple(PassInput(each_input.uniform, keys_by_uniform.get(each_input.uniform, each_input.key))
                                       for each_input in made_height.inputs)
            made_height.code_fingerprint = fingerprint(made_height.text)
            _fingerprint_values(graph, made_height, content)
            plan.passes.append(made_height)
            readers.append(PassInput(pass_sampler_name(made_height.key), made_height.key))
            plan.displacement = Displacement(made_height.key, max(_number(displaced, "height_scale", 0.05), 0.0),
                                             _number(displaced, "height_mid_level", 0.5))
    plan.material_inputs = tuple(PassInput(pass_sampler_name(key), key) for key in sorted(set(plan.outputs.values()))
                                 if plan.pass_for(key) is not None) + tuple(readers)
    # The pass nodes left out, each with its own first problem, or the one it inherits from a node it reads.
    messages: dict[str, str] = {}
    for diagnostic in plan.diagnostics:
        if diagnostic.node_id is not None:
            messages.setdefault(diagnostic.node_id, diagnostic.message)
    plan.refused = {node_id: messages.get(node_id, DEPENDS_ON_A_PROBLEM)
                    for node_id in sorted(failed, key=node_id_key) if node_id in graph.nodes}
    for node_id in plan.refused:
        refused_type = node_type_for(graph.nodes[node_id])
        ports = [port.name for port in refused_type.outputs] if refused_type is not None else []
        for port_name in ports:
            plan.refused_samplers[pass_sampler_name(output_key(node_id, port_name, ports[0]))] = node_id


def _fingerprint_values(graph: MaterialGraph, each: TexturePass, content: dict[str, str]) -> None:
    """Set the value and content fingerprints of `each` (`content`: the earlier passes' content fingerprints)."""
    each.value_fingerprint = _value_fingerprint(graph, each)
    each.content_fingerprint = fingerprint({
        "code": each.code_fingerprint, "values": each.value_fingerprint,
        "spec": [each.spec.resolution, each.spec.format, each.spec.wrap, each.spec.mipmaps],
        "inputs": [content.get(each_input.key, "") for each_input in each.inputs]})
    content[each.key] = each.content_fingerprint


def refresh_values(plan: PassPlan, graph: MaterialGraph) -> PassPlan:
    """`plan` for `graph`, a graph the lowering reads the same (`lowering.lowering_equivalent`: only parameter
    values differ), without lowering again: the same modules, value and content fingerprints (and live values'
    numbers) recomputed, so a host re-renders exactly the passes whose content fingerprint changed."""
    refreshed = PassPlan(material_inputs=plan.material_inputs, outputs=dict(plan.outputs),
                         diagnostics=list(plan.diagnostics), displacement=plan.displacement,
                         refused=dict(plan.refused), refused_samplers=dict(plan.refused_samplers))
    content: dict[str, str] = {}
    for each in plan.passes:
        copied = replace(each, parameters=list(each.parameters), values=dict(each.values),
                         live_values={key: _live_value_in(value, graph) for key, value in each.live_values.items()})
        _fingerprint_values(graph, copied, content)
        refreshed.passes.append(copied)
    return refreshed


def _live_value_in(value: Any, graph: MaterialGraph) -> Any:
    numbers = value.value_in(graph)
    return value if numbers is None else replace(value, value=numbers)


def _mebibytes(count: int) -> str:
    return f"{count / (1 << 20):.0f} MiB"


def _pass_result_into(plan: PassPlan, node_id: str, result: Any) -> None:
    """A pass lowering's diagnostics, as the pass node's (the synthetic output node is the pass node)."""
    for diagnostic in result.diagnostics:
        owner = diagnostic.node_id if diagnostic.node_id not in (None, _PASS_OUTPUT_ID) else node_id
        plan.diagnostics.append(replace(diagnostic, node_id=owner))


def _pass_inputs(module: Any) -> list[PassInput]:
    return [PassInput(uniform.name, "") for uniform in module.uniforms
            if is_pass_uniform(uniform.name) and not uniform.name.startswith(PASS_VALUE_PREFIX)]


def _as_rgba(ctx: NodeContext, value: Operand, port_type: PortType) -> Operand:
    """A buffer's input as the texel it stores: float f (f, f, f, 1), vec2 (x, y, 0, 1), vec3 (x, y, z, 1)."""
    fn = ctx.fn
    if port_type is PortType.FLOAT:
        return fn.construct(vec(4), value, value, value, fn.f(1.0))
    if port_type is PortType.VEC2:
        return fn.construct(vec(4), value, fn.f(0.0), fn.f(1.0))
    if port_type is PortType.VEC3:
        return fn.construct(vec(4), value, fn.f(1.0))
    return value


def _buffer_pass(graph: MaterialGraph, node: Node, node_type: NodeType, spec: BufferSpec, plan: PassPlan,
                 live: frozenset[tuple[str, str]]) -> TexturePass:
    others = {node_id for node_id, other in graph.nodes.items() if is_pass_node_type(other.type_name) and node_id != node.id}
    cut = [c for c in graph.connections if c.target_node not in others]
    upstream = connected_nodes(replace(graph, connections=cut), [node.id])
    # A Texture Sample in the sub-graph may read another pass (a filter's output): that pass node lowers to a
    # load of its sampler, but it must still see its texture inputs connected to pass nodes (not their
    # sub-graphs), or it would be refused as unconnected.
    kept = [c for c in cut if c.target_node in upstream and c.source_node in upstream]
    readers = upstream & others
    while True:
        textures = [c for c in graph.connections if c.target_node in readers and c.source_node in others
                    and c.source_node != node.id and c not in kept]
        if not textures:
            break
        kept.extend(textures)
        readers = {c.source_node for c in textures} - upstream
        upstream = upstream | readers
    nodes = {node_id: graph.nodes[node_id] for node_id in sorted(upstream)}
    nodes[_PASS_OUTPUT_ID] = Node(_PASS_OUTPUT_ID, "material_output")
    pass_graph = MaterialGraph(nodes=nodes, connections=kept, functions=graph.functions)
    connection = next((c for c in cut if c.target_node == node.id and c.target_port == "input"), None)

    def store(ctx: NodeContext) -> None:
        buffer_ctx = ctx.lowering.node_context(node, node_type)
        ctx.lowering.owner = node.id
        if connection is not None and (connection.source_node, connection.source_port) not in ctx.lowering.values:
            # The node feeding the buffer could not be lowered (its own diagnostic says why).
            raise LoweringFailure(f"its input cannot be rendered: {connection.source_node} has a problem")
        color = _as_rgba(ctx, buffer_ctx.input("input"), buffer_ctx.input_type("input"))
        fn = ctx.fn
        fn.store(ctx.lowering.declare_fragment_output(ctx.lowering.output_name), color)
        fn.ret()

    roots = (connection.source_node,) if connection is not None else ()
    result = LoweringResult()
    _lower(pass_graph, result, override=OutputOverride(store, DISPLAY_OUTPUT_NAME, roots, clip_from_texcoord=True),
           live_keys=live)
    _pass_result_into(plan, node.id, result)
    made = TexturePass(node.id, node.id, spec, output=node_type.outputs[0].name)
    if result.ok:
        made.verified, made.artifact, made.text = result.verified, result.artifact, result.text
        made.parameters = list(result.parameters)
        made.live_values = dict(result.live_values)
        assert result.module is not None
        made.inputs = tuple(_pass_inputs(result.module))
    return made


def _number(node: Node, name: str, default: float) -> float:
    """A float property as the lowering reads it (`NodeContext.number`): the stored number, else the default."""
    return as_number(node.properties.get(name), default)


def _displacement_pass(graph: MaterialGraph, output: Node, plan: PassPlan, live: frozenset[tuple[str, str]],
                       failed: set[str]) -> TexturePass | None:
    """The pass rendering the height the Surface Output `output` displaces the mesh by into a buffer
    (`DISPLACEMENT_SPEC`): the height input's upstream drawn in UV space, as the material module sees it
    (`material_view`: pass nodes lower to loads of their buffers), the value converted to a float as the height
    input converts it (a texture is read at the texture coordinates). None when it cannot be made (a pass node
    it reads failed, or its lowering did: reported on the Surface Output)."""
    height = next(c for c in graph.connections if c.target_node == output.id and c.target_port == "height")
    if height.source_node in failed:
        return None
    viewed = material_view(graph)
    upstream = connected_nodes(viewed, [height.source_node])
    nodes = {node_id: graph.nodes[node_id] for node_id in sorted(upstream)}
    nodes[_PASS_OUTPUT_ID] = Node(_PASS_OUTPUT_ID, "material_output")
    # The Unlit Output's float input `opacity` carries the height into the pass's output (never drawn as such).
    feeding = Connection(height.source_node, height.source_port, _PASS_OUTPUT_ID, "opacity")
    pass_graph = MaterialGraph(nodes=nodes, functions=graph.functions, connections=[
        *(c for c in viewed.connections if c.target_node in upstream and c.source_node in upstream), feeding])

    def store(ctx: NodeContext) -> None:
        value = ctx.input("opacity")
        fn = ctx.fn
        fn.store(ctx.lowering.declare_fragment_output(ctx.lowering.output_name),
                 fn.construct(vec(4), value, value, value, fn.f(1.0)))
        fn.ret()

    result = LoweringResult()
    _lower(pass_graph, result, override=OutputOverride(store, DISPLAY_OUTPUT_NAME, (height.source_node,),
                                                       clip_from_texcoord=True), live_keys=live)
    _pass_result_into(plan, output.id, result)
    if not result.ok:
        return None
    made = TexturePass(displacement_key(output.id), output.id, DISPLACEMENT_SPEC)
    made.verified, made.artifact, made.text = result.verified, result.artifact, result.text
    made.parameters = list(result.parameters)
    made.live_values = dict(result.live_values)
    assert result.module is not None
    made.inputs = tuple(_pass_inputs(result.module))
    return made


def _filter_passes(graph: MaterialGraph, node: Node, node_type: NodeType, spec: BufferSpec, incoming: Mapping[tuple[str, str], Connection],
                   analysis: _Analysis, plan: PassPlan) -> list[TexturePass]:
    definition = FILTERS[node.type_name]
    parameter_inputs: dict[str, str] = {}
    for port in definition.value_inputs:
        feeding = incoming.get((node.id, port))
        if feeding is not None:
            parameter_inputs[port] = feeding.source_node
    setup = FilterSetup(node, node_type, spec, frozenset(parameter_inputs))
    declared = list(definition.passes(setup))
    names = [each.name for each in declared]
    if not declared or len(set(names)) != len(names):
        plan.diagnostics.append(NodeDiagnostic(node.id, "graph", "the filter declares no passes, or two with one name"))
        return [TexturePass(node.id, node.id, spec)]
    sources: dict[str, tuple[str, BufferSpec]] = {}
    for port in definition.texture_inputs:
        connection = incoming[(node.id, port)]
        key = plan.outputs[(connection.source_node, connection.source_port)]
        sources[port] = (key, analysis.specs[(connection.source_node, connection.source_port)])
    claimed = {each.output for each in declared if each.output is not None}
    made: list[TexturePass] = []
    for position, declared_pass in enumerate(declared):
        last = position == len(declared) - 1
        output = declared_pass.output
        if output is None and last:
            unclaimed = [name for name in definition.outputs if name not in claimed]
            output = unclaimed[0] if unclaimed else None
        key = (output_key(node.id, output, definition.outputs[0]) if output is not None
               else f"{node.id}/{declared_pass.name}")
        pass_spec = declared_pass.spec(spec) if declared_pass.spec is not None else spec
        values: dict[str, float | tuple[float, ...]] = {}
        inputs: list[PassInput] = []
        available = dict(sources) if not declared_pass.reads else {
            name: sources[name] for name in declared_pass.reads if name in sources}
        unknown = [name for name in declared_pass.reads if name not in sources]
        if unknown:
            plan.diagnostics.append(NodeDiagnostic(node.id, "graph", f"pass {declared_pass.name!r} reads "
                                                   f"{', '.join(unknown)}: neither a texture input nor an earlier pass"))
            made.append(TexturePass(f"{node.id}/{declared_pass.name}", node.id, spec))
            return made

        def run(ctx: NodeContext, kernel: Kernel = declared_pass.kernel, pass_spec: BufferSpec = pass_spec,
                available: dict[str, tuple[str, BufferSpec]] = available,
                values: dict[str, float | tuple[float, ...]] = values, inputs: list[PassInput] = inputs) -> None:
            ctx.lowering.owner = node.id
            context = PassContext(ctx, node, node_type, pass_spec, available, values, inputs, parameter_inputs)
            color = kernel(context)
            fn = ctx.fn
            fn.store(ctx.lowering.declare_fragment_output(ctx.lowering.output_name), color)
            fn.ret()

        nodes = {node_id: graph.nodes[node_id] for node_id in sorted(set(parameter_inputs.values()))}
        nodes[_PASS_OUTPUT_ID] = Node(_PASS_OUTPUT_ID, "material_output")
        pass_graph = MaterialGraph(nodes=nodes)
        result = LoweringResult()
        _lower(pass_graph, result, override=OutputOverride(run, DISPLAY_OUTPUT_NAME, tuple(sorted(parameter_inputs.values())),
                                                           clip_from_texcoord=True))
        _pass_result_into(plan, node.id, result)
        each = TexturePass(key, node.id, pass_spec, output=output)
        if result.ok:
            each.verified, each.artifact, each.text = result.verified, result.artifact, result.text
            each.inputs = tuple(inputs)
            each.values = dict(values)
            each.parameters = list(result.parameters)
        made.append(each)
        if each.verified is None:
            return made
        sources[declared_pass.name] = (key, pass_spec)
        if output is not None:
            plan.outputs[(node.id, output)] = key
    return made

