"""Port types of material nodes, the connection rules between them, and type propagation.

A port carries one of seven types: `float`, `vec2`, `vec3`, `vec4` (float
scalars and vectors), `color` (a float vec4 that prefers a colour widget),
`texture` (a sampler2D) or `bool`. An input port either has one of these
fixed types or is *dynamic*: it takes the width of what is connected, and
all dynamic inputs of one node unify to one width that the node's dynamic
outputs also take (add, multiply, mix, ...).

Connection rules (the editor refuses a drag that breaks them, naming both
types):

- equal types always connect;
- `float` connects to every float-valued input (vec2/3/4, colour, dynamic):
  the scalar is broadcast to every component (an explicit splat
  construction, as GLSL's `vecN(x)`);
- `color` and `vec4` connect to each other freely (same VPL type, vec4);
- `color` into a `vec3` input drops alpha (`.xyz`); `vec3` into a `color`
  input gains alpha 1.0. No other width changes are implicit: a vec4 into a
  vec3 input, or a vec2 into a vec3 input, is refused (use Swizzle/Split/
  Compose);
- `texture` connects only to `texture`, `bool` only to `bool`.

Dynamic inputs of one node must agree: every connected one is a float or
has the same width W (colour counts as 4), and the node's dynamic outputs
are `vecW` (`color` when one of the inputs is a colour and W is 4).

`propagate(graph)` resolves every port in a topological order and reports
per-node errors as strings; it never raises for any graph. `can_connect`
answers the editor's "may I drop this wire here?" with a reason.
"""

from __future__ import annotations

import enum
import heapq
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vpl_core.ir.types import BOOL as VPL_BOOL
from vpl_core.ir.types import FLOAT as VPL_FLOAT
from vpl_core.ir.types import SAMPLER2D, Type, vec

if TYPE_CHECKING:
    from app.material.catalog import NodeType, Scope
    from app.material.graph import MaterialGraph, Node


class PortType(enum.Enum):
    """A resolved port type; the value is the spelling shown to users and saved in files."""

    FLOAT = "float"
    VEC2 = "vec2"
    VEC3 = "vec3"
    VEC4 = "vec4"
    COLOR = "color"
    TEXTURE = "texture"
    BOOL = "bool"

    @property
    def is_numeric(self) -> bool:
        """Float scalars, vectors and colours: the types arithmetic nodes accept."""
        return self not in (PortType.TEXTURE, PortType.BOOL)

    @property
    def width(self) -> int:
        """Float components (colour: 4); 0 for texture and bool."""
        return _WIDTHS[self]

    @property
    def vpl_type(self) -> Type:
        return _VPL_TYPES[self]

    def __str__(self) -> str:
        return self.value


_WIDTHS = {
    PortType.FLOAT: 1,
    PortType.VEC2: 2,
    PortType.VEC3: 3,
    PortType.VEC4: 4,
    PortType.COLOR: 4,
    PortType.TEXTURE: 0,
    PortType.BOOL: 0,
}

_VPL_TYPES: dict[PortType, Type] = {
    PortType.FLOAT: VPL_FLOAT,
    PortType.VEC2: vec(2),
    PortType.VEC3: vec(3),
    PortType.VEC4: vec(4),
    PortType.COLOR: vec(4),
    PortType.TEXTURE: SAMPLER2D,
    PortType.BOOL: VPL_BOOL,
}


def float_type(width: int) -> PortType:
    """The float scalar (1) or vector (2-4) port type of a width."""
    return {1: PortType.FLOAT, 2: PortType.VEC2, 3: PortType.VEC3, 4: PortType.VEC4}[width]


class Constraint(enum.Enum):
    """A port whose type is decided by what is connected."""

    DYNAMIC = "dynamic"

    def __str__(self) -> str:
        return "float or vector (dynamic)"


DYNAMIC = Constraint.DYNAMIC
PortConstraint = PortType | Constraint


def conversion(source: PortType, target: PortType) -> str | None:
    """How a value of `source` type reaches a fixed `target` input, or None if it cannot.

    Returns "same", "broadcast" (float splat), "drop_alpha" (colour to vec3)
    or "add_alpha" (vec3 to colour).
    """
    if source is target:
        return "same"
    if {source, target} == {PortType.COLOR, PortType.VEC4}:
        return "same"
    if source is PortType.FLOAT and target.is_numeric:
        return "broadcast"
    if source is PortType.COLOR and target is PortType.VEC3:
        return "drop_alpha"
    if source is PortType.VEC3 and target is PortType.COLOR:
        return "add_alpha"
    return None


def refusal(source: PortType, target: PortConstraint, target_port: str) -> str | None:
    """Why `source` cannot feed an input of `target` type, or None when it can (ignoring siblings)."""
    if isinstance(target, Constraint):
        if source.is_numeric:
            return None
        return f"type mismatch: {source} cannot connect to input '{target_port}', which takes a float or vector"
    if conversion(source, target) is None:
        return f"type mismatch: {source} cannot connect to input '{target_port}' of type {target}"
    return None


# Propagation ------------------------------------------------------------------------------


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


_ID_PATTERN = re.compile(r"^(.*?)(\d+)$")


def node_id_key(node_id: str) -> tuple[str, int, str]:
    """Sort key for node ids: "n2" before "n10" (natural order), any string accepted."""
    match = _ID_PATTERN.match(node_id)
    if match is None:
        return (node_id, -1, node_id)
    return (match.group(1), int(match.group(2)), node_id)


def topological_order(graph: MaterialGraph, priority: dict[str, int] | None = None) -> tuple[list[str], list[str]]:
    """Kahn's algorithm over connections; ties broken by (priority, node id).

    Returns (ordered node ids, node ids on or downstream of a cycle).
    Connections naming missing nodes are ignored (they are diagnosed elsewhere).
    """
    priority = priority or {}
    indegree: dict[str, int] = dict.fromkeys(graph.nodes, 0)
    successors: dict[str, list[str]] = {node_id: [] for node_id in graph.nodes}
    for connection in graph.connections:
        if connection.source_node in indegree and connection.target_node in indegree:
            indegree[connection.target_node] += 1
            successors[connection.source_node].append(connection.target_node)
    heap = [(priority.get(node_id, 0), node_id_key(node_id)) for node_id, count in indegree.items() if count == 0]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        _, key = heapq.heappop(heap)
        node_id = key[2]
        order.append(node_id)
        for successor in successors[node_id]:
            indegree[successor] -= 1
            if indegree[successor] == 0:
                heapq.heappush(heap, (priority.get(successor, 0), node_id_key(successor)))
    placed = set(order)
    cyclic = sorted((node_id for node_id in graph.nodes if node_id not in placed), key=node_id_key)
    return order, cyclic


def _default_width(node: Node, node_type: NodeType, port_name: str) -> int:
    """Width of an unconnected input's default (its same-named property, else the port default)."""
    from app.material.catalog import DEFAULT_SOURCES, input_default

    value = input_default(node, node_type, port_name)
    if isinstance(value, (tuple, list)):
        return len(value) if 1 <= len(value) <= 4 else 1
    if isinstance(value, str):
        source_type = DEFAULT_SOURCES.get(value)
        return source_type.width if source_type is not None else 1
    return 1


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
            elif port.type is PortType.TEXTURE:
                resolution.error(node_id, f"input '{port.name}' needs a texture: connect a Texture Parameter")
                ok = False
            resolution.port_types[(node_id, port.name)] = port.type
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
    custom: dict[str, PortType] | str | None = None
    if node_type.resolve is not None:
        try:
            custom = node_type.resolve(node, input_types, used_outputs)
        except Exception as error:  # noqa: BLE001 - a property of the wrong shape must not crash the editor
            custom = f"invalid properties: {error}"
        if isinstance(custom, str):
            resolution.error(node_id, custom)
            return None
    for port in node_type.outputs:
        if custom is not None and port.name in custom:
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
    from app.material.catalog import Scope

    return scope if scope is not None else Scope(graph.functions)


def propagate(graph: MaterialGraph, restrict: set[str] | None = None, scope: Scope | None = None) -> TypeResolution:
    """Resolve every port of the graph; errors become per-node messages, never exceptions.

    `restrict`, a set of node ids closed under "feeds into" (every source of
    a member is a member), limits the work to those nodes. `scope` says
    where the graph sits (catalog.Scope: a group's body needs its
    definition); by default the graph is a material with its own definitions.
    """
    from app.material.catalog import resolve_node_type

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


# The editor's drag check ----------------------------------------------------------------------


def _reaches(graph: MaterialGraph, start: str, goal: str) -> bool:
    """Whether `goal` is reachable from `start` along connections (source to target)."""
    successors: dict[str, list[str]] = {}
    for connection in graph.connections:
        successors.setdefault(connection.source_node, []).append(connection.target_node)
    seen = {start}
    stack = [start]
    while stack:
        current = stack.pop()
        if current == goal:
            return True
        for successor in successors.get(current, ()):
            if successor not in seen:
                seen.add(successor)
                stack.append(successor)
    return False


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
    from app.material.catalog import resolve_node_type

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
    if _reaches(graph, target_node, source_node):
        return False, "this connection would create a cycle"

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


def connected_nodes(graph: MaterialGraph, roots: Iterable[str], upstream: bool = True) -> set[str]:
    """The roots and every node of the graph reachable from them against the
    connections (`upstream`: everything they depend on) or along them (what depends on them)."""
    neighbours: dict[str, list[str]] = {}
    for connection in graph.connections:
        if upstream:
            neighbours.setdefault(connection.target_node, []).append(connection.source_node)
        else:
            neighbours.setdefault(connection.source_node, []).append(connection.target_node)
    seen = set(roots)
    stack = list(seen)
    while stack:
        for neighbour in neighbours.get(stack.pop(), ()):
            if neighbour not in seen and neighbour in graph.nodes:
                seen.add(neighbour)
                stack.append(neighbour)
    return seen


def _describe(graph: MaterialGraph, node_id: str, scope: Scope | None = None) -> str:
    from app.material.catalog import node_type_for

    node = graph.nodes.get(node_id)
    if node is None:
        return node_id
    node_type = node_type_for(node, scope)
    name = node_type.display_name if node_type is not None else node.type_name
    return f"{name} ({node_id})"
