"""The editor's drag check: may a wire go from this output to that input, and if not, why.

`can_connect` refuses self-connections, unknown nodes and ports, cycles,
a filter input fed by anything but a Texture Buffer or another filter (docs/texture-space.md),
type mismatches (naming both types, `port_types.refusal`) and wires that
would break a type somewhere downstream (a dynamic node changing width:
the graph is propagated with and without the wire and new errors are
reported). It never raises: the editor asks it while a pipe hovers a port.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material import texture_passes
from app.material.catalog import NODE_TYPES, Scope, node_type_for, resolve_node_type
from app.material.node_types import NodeType
from app.material.port_types import Constraint, refusal
from app.material.propagation import propagate, scope_of
from app.material.traversal import connected_nodes, reaches

if TYPE_CHECKING:
    from app.material.graph import MaterialGraph


def can_connect(
    graph: MaterialGraph, source_node: str, source_port: str, target_node: str, target_port: str,
    scope: Scope | None = None,
) -> tuple[bool, str]:
    """Whether a wire from an output to an input may be made; the reason when refused.

    Refuses self-connections, unknown nodes/ports, cycles, type mismatches
    (naming both types), and connections that would break a type somewhere
    downstream (a dynamic node changing width). An existing connection into
    the target input is replaced, so it is ignored. Never raises.
    """
    try:
        return _can_connect(graph, source_node, source_port, target_node, target_port, scope_of(graph, scope))
    except Exception as error:  # noqa: BLE001 - the editor must get an answer, not a traceback
        return False, f"cannot check this connection: {error}"


def _can_connect(
    graph: MaterialGraph, source_node: str, source_port: str, target_node: str, target_port: str, scope: Scope
) -> tuple[bool, str]:
    if source_node == target_node:
        return False, "a node cannot connect to itself"
    source = graph.nodes.get(source_node)
    target = graph.nodes.get(target_node)
    if source is None:
        return False, f"unknown node '{source_node}'"
    if target is None:
        return False, f"unknown node '{target_node}'"
    source_type_spec = resolve_node_type(source, scope)
    target_type_spec = resolve_node_type(target, scope)
    if isinstance(source_type_spec, str):
        return False, source_type_spec
    if isinstance(target_type_spec, str):
        return False, target_type_spec
    if source_type_spec.output(source_port) is None:
        return False, f"{source_type_spec.display_name} has no output '{source_port}'"
    target_spec = target_type_spec.input(target_port)
    if target_spec is None:
        return False, f"{target_type_spec.display_name} has no input '{target_port}'"
    if reaches(graph, target_node, source_node):
        return False, "this connection would create a cycle"
    if target.type_name in texture_passes.FILTERS:
        if target_port in texture_passes.FILTERS[target.type_name].texture_inputs:
            if not texture_passes.is_pass_node_type(source.type_name):
                return False, (f"{target_type_spec.display_name} reads Texture Buffers and other filters: render "
                               f"{source_type_spec.display_name} into a Texture Buffer first")
            wanted = texture_passes.FILTERS[target.type_name].input_sources.get(target_port)
            if wanted is not None and source.type_name not in wanted:
                names = " or ".join(NODE_TYPES[name].display_name for name in wanted)
                return False, f"'{target_port}' of {target_type_spec.display_name} takes the output of a {names}"
        elif source.type_name not in texture_passes.VALUE_PARAMETER_TYPES:
            return False, (f"'{target_port}' of {target_type_spec.display_name} is the same at every texel: it takes "
                           "a Float, Vector or Colour Parameter (or set it in the properties)")

    if not _can_change_types(target_type_spec, source_type_spec):
        # Nothing downstream can change: only the source's type matters.
        source_type = propagate(graph, connected_nodes(graph, [source_node]), scope).port_types.get((source_node, source_port))
        if source_type is not None:
            problem = refusal(source_type, target_spec.type, target_port)
            if problem is not None:
                return False, problem
        return True, ""

    trial = graph.copy()
    trial.connections = [
        connection
        for connection in trial.connections
        if not (connection.target_node == target_node and connection.target_port == target_port)
    ]
    before = propagate(trial, scope=scope)
    source_type = before.port_types.get((source_node, source_port))
    if source_type is not None:
        problem = refusal(source_type, target_spec.type, target_port)
        if problem is not None:
            return False, problem
    trial.connect(source_node, source_port, target_node, target_port)
    after = propagate(trial, scope=scope)
    for node_id in [target_node, *after.order]:
        new_errors = [message for message in after.errors.get(node_id, []) if message not in before.errors.get(node_id, [])]
        if new_errors:
            where = "" if node_id == target_node else f" at {_describe(graph, node_id, scope)}"
            return False, f"{new_errors[0]}{where}"
    return True, ""


def _can_change_types(target: NodeType, source: NodeType) -> bool:
    """Whether a new wire can change types or errors beyond the target input itself.

    A dynamic input can change the target's width and so everything
    downstream; a source whose outputs are checked against their use
    (Split) can gain an error. Fixed inputs of other nodes cannot.
    """
    return source.resolve is not None or any(isinstance(port.type, Constraint) for port in target.inputs)


def _describe(graph: MaterialGraph, node_id: str, scope: Scope | None = None) -> str:
    node = graph.nodes.get(node_id)
    if node is None:
        return node_id
    node_type = node_type_for(node, scope)
    name = node_type.display_name if node_type is not None else node.type_name
    return f"{name} ({node_id})"
