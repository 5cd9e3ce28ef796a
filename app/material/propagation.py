"""Type propagation: every port of a material graph resolved to a `PortType`, errors per node.

Dynamic inputs of one node must agree: every connected one is a float or
has the same width W (colour counts as 4), and the node's dynamic outputs
are `vecW` (`color` when one of the inputs is a colour and W is 4). Fixed
inputs accept what `port_types.conversion` allows. An unconnected input's
width is that of its default (`node_types.input_default`), except that an
unconnected vector takes the width of the vectors connected beside it.

`propagate(graph)` resolves the nodes in topological order
(`traversal.topological_order`) and reports per-node errors as strings; it
never raises for any graph. The lowering, the editor's port colours and the
drag check (`app.material.connections`) all read its `TypeResolution`.
Node types are looked up with `node_types.resolve_node_type` (not the
catalog: the group modules, which the catalog imports, propagate types);
the registry is complete once `app.material.catalog` has been imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.material.node_types import DEFAULT_SOURCES, OPTIONAL_TEXTURE, NodeType, Scope, input_default, resolve_node_type
from app.material.port_types import Constraint, PortType, float_type, refusal
from app.material.traversal import topological_order

if TYPE_CHECKING:
    from app.material.graph import MaterialGraph, Node


@dataclass
class TypeResolution:
    """What `propagate` found: resolved port types, per-node errors, and a deterministic order.

    `order` is the topological order of all nodes that are not on a cycle
    (ties broken by node id); `cyclic` lists the nodes on or behind a cycle.
    """

    port_types: dict[tuple[str, str], PortType] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    cyclic: list[str] = field(default_factory=list)
    blocked: set[str] = field(default_factory=set)

    def error(self, node_id: str, message: str) -> None:
        self.errors.setdefault(node_id, []).append(message)


def _default_width(node: Node, node_type: NodeType, port_name: str) -> int:
    """Width of an unconnected input's default (its same-named property, else the port default)."""
    value = input_default(node, node_type, port_name)
    if isinstance(value, (tuple, list)):
        return len(value) if 1 <= len(value) <= 4 else 1
    if isinstance(value, str):
        source_type = DEFAULT_SOURCES.get(value)
        return source_type.width if source_type is not None else 1
    return 1


def _adapts(node: Node, node_type: NodeType, port_name: str, width: int, connected: bool) -> bool:
    """Whether an input's width follows the connected vectors: an unconnected vector of numbers (not a source
    such as "world_normal", whose width is its own)."""
    return not connected and width > 1 and isinstance(input_default(node, node_type, port_name), (tuple, list))


def resolve_node(
    node: Node,
    node_type: NodeType,
    sources: dict[str, PortType | None],
    resolution: TypeResolution,
    used_outputs: frozenset[str] = frozenset(),
) -> dict[str, PortType] | None:
    """Resolve one node's input and output types from its connected source types.

    `sources` maps each connected input to its source's type (None when the
    source is unresolved). Records input types and errors in `resolution`;
    returns output types, or None when the node has an error.
    """
    node_id = node.id
    ok = True
    dynamic_width = 1
    dynamic_color = False
    dynamic_inputs: list[tuple[str, int, bool]] = []  # (port, width, connected)
    for port in node_type.inputs:
        source = sources.get(port.name)
        connected = port.name in sources
        if connected and source is None:
            ok = False  # upstream problem, reported there
            continue
        if isinstance(port.type, Constraint):
            if connected:
                assert source is not None
                problem = refusal(source, port.type, port.name)
                if problem is not None:
                    resolution.error(node_id, problem)
                    ok = False
                    continue
                width = source.width
                dynamic_color = dynamic_color or source is PortType.COLOR
            else:
                width = _default_width(node, node_type, port.name)
            dynamic_inputs.append((port.name, width, connected))
            dynamic_width = max(dynamic_width, width)
        else:
            if connected:
                assert source is not None
                problem = refusal(source, port.type, port.name)
                if problem is not None:
                    resolution.error(node_id, problem)
                    ok = False
                    continue
            elif port.type is PortType.TEXTURE and port.default != OPTIONAL_TEXTURE:
                resolution.error(node_id, f"input '{port.name}' needs a texture: connect a Texture Parameter, a "
                                          "Texture Buffer or a filter")
                ok = False
            resolution.port_types[(node_id, port.name)] = port.type
    # An unconnected vector value takes the width of the vectors connected beside it (its stored components
    # truncated or padded by the lowering, `lowering.default_numbers`), as a Blender socket does; with only
    # floats (or nothing) connected, its own width decides.
    connected_width = max((width for _, width, connected in dynamic_inputs if connected), default=1)
    if connected_width > 1:
        dynamic_inputs = [(name, connected_width if _adapts(node, node_type, name, width, connected) else width,
                           connected) for name, width, connected in dynamic_inputs]
        dynamic_width = max(width for _, width, _ in dynamic_inputs)
    for port_name, width, _connected in dynamic_inputs:
        if width not in (1, dynamic_width):
            widest = next(name for name, other, _ in dynamic_inputs if other == dynamic_width)
            resolution.error(
                node_id,
                f"inputs '{widest}' ({float_type(dynamic_width)}) and '{port_name}' ({float_type(width)}) "
                "have different widths; connect equal widths or a float",
            )
            ok = False
    unified = PortType.COLOR if (dynamic_color and dynamic_width == 4) else float_type(dynamic_width)
    for port_name, _, _ in dynamic_inputs:
        resolution.port_types[(node_id, port_name)] = unified
    if not ok:
        return None
    input_types = {port.name: resolution.port_types[(node_id, port.name)] for port in node_type.inputs}
    outputs: dict[str, PortType] = {}
    custom: dict[str, PortType] = {}
    if node_type.resolve is not None:
        resolved: dict[str, PortType] | str
        try:
            resolved = node_type.resolve(node, input_types, used_outputs)
        except Exception as error:  # noqa: BLE001 - a property of the wrong shape must not crash the editor
            resolved = f"invalid properties: {error}"
        if isinstance(resolved, str):
            resolution.error(node_id, resolved)
            return None
        custom = resolved
    for port in node_type.outputs:
        if port.name in custom:
            outputs[port.name] = custom[port.name]
        elif isinstance(port.type, Constraint):
            outputs[port.name] = unified
        else:
            outputs[port.name] = port.type
    for name, port_type in outputs.items():
        resolution.port_types[(node_id, name)] = port_type
    return outputs


def scope_of(graph: MaterialGraph, scope: Scope | None) -> Scope:
    """`scope`, or the top-level scope of `graph` (its own group definitions)."""
    return scope if scope is not None else Scope(graph.functions)


def propagate(graph: MaterialGraph, restrict: set[str] | None = None, scope: Scope | None = None) -> TypeResolution:
    """Resolve every port of the graph; errors become per-node messages, never exceptions.

    `restrict`, a set of node ids closed under "feeds into" (every source of
    a member is a member), limits the work to those nodes. `scope` says
    where the graph sits (`node_types.Scope`: a group's body needs its
    definition); by default the graph is a material with its own definitions.
    """
    scope = scope_of(graph, scope)
    resolution = TypeResolution()
    order, cyclic = topological_order(graph)
    if restrict is not None:
        order = [node_id for node_id in order if node_id in restrict]
        cyclic = [node_id for node_id in cyclic if node_id in restrict]
    resolution.order = order
    resolution.cyclic = cyclic
    for node_id in cyclic:
        resolution.error(node_id, "this node is part of (or fed by) a cycle; material graphs must be acyclic")
    incoming: dict[str, list[Any]] = {}
    used: dict[str, set[str]] = {}
    for connection in graph.connections:
        incoming.setdefault(connection.target_node, []).append(connection)
        used.setdefault(connection.source_node, set()).add(connection.source_port)
    outputs_by_node: dict[str, dict[str, PortType]] = {}
    for node_id in order:
        node = graph.nodes[node_id]
        node_type = resolve_node_type(node, scope)
        if isinstance(node_type, str):
            resolution.error(node_id, node_type)
            resolution.blocked.add(node_id)
            continue
        sources: dict[str, PortType | None] = {}
        for connection in incoming.get(node_id, []):
            if node_type.input(connection.target_port) is None:
                resolution.error(node_id, f"unknown input port '{connection.target_port}'")
                continue
            if connection.target_port in sources:
                resolution.error(node_id, f"input '{connection.target_port}' has more than one connection")
                continue
            source_node = graph.nodes.get(connection.source_node)
            source_outputs = outputs_by_node.get(connection.source_node)
            if source_node is None:
                resolution.error(node_id, f"input '{connection.target_port}' is connected to a missing node")
                continue
            source_type: PortType | None = None
            if source_outputs is not None:
                source_type = source_outputs.get(connection.source_port)
                if source_type is None:
                    resolution.error(
                        node_id,
                        f"input '{connection.target_port}' is connected to unknown output "
                        f"'{connection.source_port}' of {connection.source_node}",
                    )
                    continue
            sources[connection.target_port] = source_type
        outputs = resolve_node(node, node_type, sources, resolution, frozenset(used.get(node_id, ())))
        if outputs is None:
            resolution.blocked.add(node_id)
        else:
            outputs_by_node[node_id] = outputs
    resolution.blocked.update(cyclic)
    return resolution
