"""Node groups: group definitions as node types, grouping and ungrouping, interface edits, the call graph.

A group is a `GroupDefinition` (app/material/graph.py) in the document's
`functions`: a body graph and an interface. Three node kinds use it, all
with *dynamic* types (node_types.register_dynamic) built from the definition:

- "group": an instance; its "function" property names the definition; its
  inputs and outputs are the interface's (an unconnected input reads the
  instance's own value for it, else the interface default);
- "group_input" (inside a body): outputs are the interface's inputs;
- "group_output" (inside a body): inputs are the interface's outputs.

Each definition lowers to one VPL helper function shared by all its
instances (app/material/group_lowering.py). Definitions may nest (a body
holds instances of other definitions), but the call graph must be acyclic:
an instance that would make a definition call itself has no type, and its
error names the cycle.

Operations are pure: each takes a document (the top-level `MaterialGraph`)
and returns a new one, leaving the argument untouched. A *level* is where
the editor shows nodes: None for the material's own graph, or a definition
id for that definition's body.

- `group_nodes` turns a selection into a new definition plus one instance
  that takes its place. Nodes on a path between two selected nodes join
  the selection (outside, they would make a cycle through the instance).
  Output nodes, Group Input/Output nodes and texture
  nodes whose texture leaves the selection stay outside (a VPL function
  cannot return a sampler). A Texture Buffer or filter that would go inside
  (or a group node holding one) refuses the grouping, naming it: a pass
  renders the whole UV square, a group's helper is called per point
  (docs/texture-space.md). Every wire that crossed the selection's
  boundary becomes an interface port, typed with the type the wire carried,
  so the material computes exactly what it did (the tests compare pixels).
- `ungroup` puts an instance's body back in its place (same node ids when
  they are free, same positions when the instance was not moved), so
  grouping then ungrouping gives back the original graph.
- `set_interface` renames, retypes, reorders, adds and removes interface
  ports, carrying every connection and instance value along by name.
- `prune_functions` keeps the definitions some instance still uses: a
  document holds exactly the groups its material reaches.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.material import group_names
from app.material.graph import Connection, Frame, GroupDefinition, InterfacePort, MaterialGraph, Node
from app.material.group_names import (
    FUNCTION_PROPERTY,
    PORT_NAME,
    VALUE_KINDS,
    port_name_problem,
    slug,
    unique,
    zero_value,
)
from app.material.node_types import (
    DEFAULT_SOURCES,
    NODE_TYPES,
    NodeType,
    PortSpec,
    PropertySpec,
    Scope,
    input_default,
    node_type_for,
    register_dynamic,
)
from app.material.port_types import PortType
from app.material.propagation import propagate
from app.material.texture_passes import grouped_pass_nodes, is_pass_node_type
from app.material.traversal import connected_nodes, node_id_key

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

GROUP_TYPE = group_names.GROUP_TYPE
GROUP_INPUT_TYPE = "group_input"
GROUP_OUTPUT_TYPE = "group_output"
GROUP_CATEGORY = "Group"
INTERFACE_NODE_TYPES = frozenset({GROUP_INPUT_TYPE, GROUP_OUTPUT_TYPE})
#: Output node types stay outside a group (they end the fragment stage; a function cannot).
OUTPUT_TYPES = frozenset({"material_output", "surface_output", "openpbr_surface"})
#: Distance between the selection's bounding box and the Group Input/Output nodes of a new body.
INTERFACE_NODE_MARGIN = 260.0
#: Interface port names: a letter, then letters, digits and underscores (they name VPL record fields,
#: instance properties and, for Custom Code, VPL parameter ids).
#: Port types an interface may use: textures only as inputs (a VPL function cannot return a sampler).
INPUT_TYPES = tuple(PortType)
OUTPUT_TYPES_ALLOWED = tuple(port_type for port_type in PortType if port_type is not PortType.TEXTURE)


class GroupingError(ValueError):
    """A group operation that cannot be done as asked; the message says why (shown to the artist)."""


def function_name(definition: GroupDefinition) -> str:
    """The VPL helper function's name: the definition's name as an identifier, starting with `group`.

    The prefix keeps group helpers apart from the node library's own helpers
    (`luminance`, `noise_mod`, ...), which never start with it.
    """
    name = slug(definition.name, "group")
    return name if name.startswith("group") else "group_" + name


# Levels and scopes ------------------------------------------------------------------------------


def level_graph(document: MaterialGraph, level: str | None) -> MaterialGraph:
    """The graph shown at `level`: the material (None) or a definition's body. KeyError when unknown."""
    if level is None:
        return document
    return document.functions[level].body


def scope_for(document: MaterialGraph, level: str | None) -> Scope:
    return Scope(document.functions, document.functions[level] if level is not None else None)


def instances(graph: MaterialGraph, function_id: str | None = None) -> list[Node]:
    """Group instance nodes of `graph` (of one definition when `function_id` is given), by id."""
    found = [
        node for node in graph.nodes.values()
        if node.type_name == GROUP_TYPE and (function_id is None or node.properties.get(FUNCTION_PROPERTY) == function_id)
    ]
    return sorted(found, key=lambda node: node_id_key(node.id))


def callees(definition: GroupDefinition) -> set[str]:
    """Ids of the definitions the body instantiates (directly)."""
    return {str(node.properties.get(FUNCTION_PROPERTY)) for node in instances(definition.body)}


def reachable(functions: Mapping[str, GroupDefinition], roots: Iterable[str],
              called: Mapping[str, set[str]] | None = None) -> set[str]:
    """The definitions `roots` name and everything their bodies use, transitively (unknown ids skipped).

    `called`, when the caller has it, is each definition's `callees` (`callee_map`), not worked out again.
    """
    seen: set[str] = set()
    stack = [root for root in roots if root in functions]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        found = called[current] if called is not None else callees(functions[current])
        stack.extend(callee for callee in found if callee in functions and callee not in seen)
    return seen


def callee_map(functions: Mapping[str, GroupDefinition]) -> dict[str, set[str]]:
    """Each definition's `callees`, worked out once for the walks that need them all."""
    return {function_id: callees(definition) for function_id, definition in functions.items()}


def used_functions(document: MaterialGraph) -> set[str]:
    """The definitions the material's graph reaches through its instances."""
    return reachable(document.functions, (str(node.properties.get(FUNCTION_PROPERTY)) for node in instances(document)))


def call_path(functions: Mapping[str, GroupDefinition], start: str, goal: str) -> list[str] | None:
    """A chain of definitions from `start` to `goal` following instances (start and goal included), or None."""
    if start not in functions:
        return None
    previous: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        current = queue.pop(0)
        if current == goal:
            path = [current]
            step = previous[current]
            while step is not None:
                path.append(step)
                step = previous[step]
            return list(reversed(path))
        for callee in sorted(callees(functions[current])):
            if callee in functions and callee not in previous:
                previous[callee] = current
                queue.append(callee)
    return None


def recursion_problem(functions: Mapping[str, GroupDefinition], function_id: str, inside: str | None) -> str | None:
    """Why an instance of `function_id` inside the body of `inside` would make a recursive call, or None."""
    if inside is None or function_id not in functions:
        return None
    path = call_path(functions, function_id, inside)
    if path is None:
        return None
    names = " \u2192 ".join(functions[step].name for step in [inside, *path])
    return (
        f"group '{functions[function_id].name}' would call itself ({names}); groups cannot be recursive "
        "(a VPL function may not call itself, spec 6.3)"
    )


def call_cycles(functions: Mapping[str, GroupDefinition], called: Mapping[str, set[str]] | None = None) -> dict[str, int]:
    """Each definition on a call cycle -> the number of its cycle (strongly connected component).

    Two definitions call each other, directly or not, exactly when they have
    the same number; a definition not in the result is on no cycle. One pass
    over the definitions (Tarjan's algorithm with an explicit stack). `called` as for `reachable`.
    """
    called = called if called is not None else callee_map(functions)
    edges = {function_id: sorted(callee for callee in called[function_id] if callee in functions) for function_id in functions}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: dict[str, int] = {}
    components = 0
    for root in sorted(functions, key=node_id_key):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if position < len(edges[node]):
                work.append((node, position + 1))
                callee = edges[node][position]
                if callee not in index:
                    work.append((callee, 0))
                elif callee in on_stack:
                    low[node] = min(low[node], index[callee])
                continue
            if work:  # back in the caller: carry the lowest index up
                caller = work[-1][0]
                low[caller] = min(low[caller], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1 or node in edges[node]:
                    for member in members:
                        result[member] = components
                    components += 1
    return result


def callers(functions: Mapping[str, GroupDefinition], function_ids: Iterable[str]) -> set[str]:
    """`function_ids` and every definition that uses one of them, directly or through others (one pass)."""
    used_by: dict[str, set[str]] = {}
    for candidate, definition in functions.items():
        for callee in callees(definition):
            used_by.setdefault(callee, set()).add(candidate)
    found: set[str] = set()
    stack = [function_id for function_id in function_ids if function_id in functions]
    while stack:
        current = stack.pop()
        if current in found:
            continue
        found.add(current)
        stack.extend(used_by.get(current, ()))
    return found


def containing_functions(functions: Mapping[str, GroupDefinition], function_id: str) -> set[str]:
    """The definitions that use `function_id`, directly or through others (itself included)."""
    return callers(functions, [function_id])


def prune_functions(document: MaterialGraph) -> MaterialGraph:
    """`document` with only the definitions its material reaches (the argument is not changed)."""
    keep = used_functions(document)
    if keep == set(document.functions):
        return document
    pruned = document.copy()
    pruned.functions = {function_id: pruned.functions[function_id] for function_id in sorted(keep, key=node_id_key)}
    return pruned


# Dynamic node types ------------------------------------------------------------------------------


def fits(value: Any, port_type: PortType) -> bool:
    """Whether `value` is a usable default for a port of `port_type` (sources must match its type)."""
    if isinstance(value, str):
        source = DEFAULT_SOURCES.get(value)
        return source is not None and (source is port_type or (source.width == port_type.width and port_type.is_numeric))
    if port_type is PortType.BOOL:
        return isinstance(value, bool)
    if port_type is PortType.TEXTURE or isinstance(value, bool):
        return False
    if port_type.width == 1:
        return isinstance(value, (int, float))
    return (
        isinstance(value, (list, tuple))
        and len(value) == port_type.width
        and all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in value)
    )


def port_default(port: InterfacePort) -> Any:
    """What an unconnected input of `port` reads: its default when that fits its type, else zero."""
    if port.default is not None and fits(port.default, port.type):
        return tuple(port.default) if isinstance(port.default, list) else port.default
    return None if port.type is PortType.TEXTURE else zero_value(port.type)


def _frozen(value: Any) -> Any:
    """`value` with its lists turned into tuples (hashable)."""
    return tuple(_frozen(item) for item in value) if isinstance(value, (list, tuple)) else value


def _interface_key(ports: list[InterfacePort], with_default: bool) -> tuple[Any, ...]:
    # `_frozen` is a module function: a nested recursive one would be a reference cycle (function, cell) left
    # for the collector on every call, thousands per lowering of a deep group chain.
    return tuple((port.name, port.type, _frozen(port_default(port)) if with_default else None) for port in ports)


# The lowering (which imports app.material.group_lowering, which imports this module) does the work:
# importing group_lowering from here would be an import cycle.


def _lower_instance(ctx: NodeContext) -> None:
    ctx.lowering.lower_group_node("instance", ctx)


def _lower_group_input(ctx: NodeContext) -> None:
    ctx.lowering.lower_group_node("input", ctx)


def _lower_group_output(ctx: NodeContext) -> None:
    ctx.lowering.lower_group_node("output", ctx)


@functools.lru_cache(maxsize=512)
def _instance_type(name: str, description: str, inputs: tuple[Any, ...], outputs: tuple[Any, ...]) -> NodeType:
    ports = [PortSpec(port_name, port_type, default) for port_name, port_type, default in inputs]
    properties = [
        PropertySpec(port_name, VALUE_KINDS[port_type], default)
        for port_name, port_type, default in inputs
        if port_type in VALUE_KINDS and not isinstance(default, str)
    ]
    return NodeType(
        GROUP_TYPE,
        name,
        GROUP_CATEGORY,
        description or f"The node group '{name}' (Tab to edit its nodes).",
        inputs=ports,
        outputs=[PortSpec(port_name, port_type) for port_name, port_type, _ in outputs],
        properties=properties,
        lower=_lower_instance,
        notes="A call of the group's VPL helper function (one per definition, shared by its instances).",
    )


def instance_type(definition: GroupDefinition) -> NodeType:
    """The node type of an instance of `definition` (cached per interface)."""
    return _instance_type(
        definition.name, definition.description, _interface_key(definition.inputs, True), _interface_key(definition.outputs, False)
    )


@functools.lru_cache(maxsize=512)
def _group_input_type(outputs: tuple[Any, ...]) -> NodeType:
    return NodeType(
        GROUP_INPUT_TYPE,
        "Group Input",
        GROUP_CATEGORY,
        "The group's inputs, as the instance receives them.",
        inputs=[],
        outputs=[PortSpec(port_name, port_type) for port_name, port_type, _ in outputs],
        properties=[],
        lower=_lower_group_input,
        notes="Loads the helper function's parameters.",
    )


@functools.lru_cache(maxsize=512)
def _group_output_type(inputs: tuple[Any, ...]) -> NodeType:
    return NodeType(
        GROUP_OUTPUT_TYPE,
        "Group Output",
        GROUP_CATEGORY,
        "The group's outputs: what the instance hands on.",
        inputs=[PortSpec(port_name, port_type, zero_value(port_type)) for port_name, port_type, _ in inputs],
        outputs=[],
        properties=[],
        lower=_lower_group_output,
        notes="Returns the connected values (a record when the group has several outputs).",
    )


def _resolve_instance(node: Node, scope: Scope) -> NodeType | str:
    function_id = node.properties.get(FUNCTION_PROPERTY)
    if not isinstance(function_id, str) or function_id not in scope.functions:
        return f"group '{function_id}' is not defined in this material"
    inside = scope.definition.id if scope.definition else None
    if scope.cycles is not None and (inside is None or scope.cycles.get(inside, -1) != scope.cycles.get(function_id, -2)):
        problem = None  # not on one cycle with the definition holding it: no recursion (the instance is in its body)
    else:
        problem = recursion_problem(scope.functions, function_id, inside)
    if problem is not None:
        return problem
    return _scoped_type(scope, GROUP_TYPE, scope.functions[function_id])


def _resolve_group_input(_node: Node, scope: Scope) -> NodeType | str:
    if scope.definition is None:
        return "a Group Input belongs inside a group (Tab into a group to use its inputs)"
    return _scoped_type(scope, GROUP_INPUT_TYPE, scope.definition)


def _resolve_group_output(_node: Node, scope: Scope) -> NodeType | str:
    if scope.definition is None:
        return "a Group Output belongs inside a group (Tab into a group to use its outputs)"
    return _scoped_type(scope, GROUP_OUTPUT_TYPE, scope.definition)


def _scoped_type(scope: Scope, kind: str, definition: GroupDefinition) -> NodeType:
    """The `kind` node type `definition`'s interface gives, kept in `scope.types` when the scope has one.

    Without it each resolution rebuilds the interface key (every port's
    default checked) and looks it up in a cache of 512 interfaces, which a
    chain of more definitions than that misses every time.
    """
    types = scope.types
    key = (kind, definition.id)
    if types is not None:
        found = types.get(key)
        if found is not None:
            return found
    if kind == GROUP_TYPE:
        node_type = instance_type(definition)
    elif kind == GROUP_INPUT_TYPE:
        node_type = _group_input_type(_interface_key(definition.inputs, False))
    else:
        node_type = _group_output_type(_interface_key(definition.outputs, False))
    if types is not None:
        types[key] = node_type
    return node_type


register_dynamic(GROUP_TYPE, _resolve_instance)
register_dynamic(GROUP_INPUT_TYPE, _resolve_group_input)
register_dynamic(GROUP_OUTPUT_TYPE, _resolve_group_output)


def view_types() -> list[NodeType]:
    """Placeholder types of the three group node kinds (what the view registers; ports come per node)."""
    empty: tuple[Any, ...] = ()
    return [_instance_type("Group", "", empty, empty), _group_input_type(empty), _group_output_type(empty)]


# Grouping ---------------------------------------------------------------------------------------


@dataclass
class GroupEdit:
    """What `group_nodes` made: the new document, the definition and the instance that replaced the selection."""

    document: MaterialGraph
    function_id: str
    instance_id: str


def _centroid(nodes: Iterable[Node]) -> tuple[float, float]:
    ordered = sorted(nodes, key=lambda node: node_id_key(node.id))
    if not ordered:
        return (0.0, 0.0)
    return (sum(node.position[0] for node in ordered) / len(ordered), sum(node.position[1] for node in ordered) / len(ordered))


def _position_key(graph: MaterialGraph, node_id: str) -> tuple[float, float, tuple[str, int, str]]:
    node = graph.nodes[node_id]
    return (node.position[1], node.position[0], node_id_key(node_id))


_GENERIC_OUTPUTS = frozenset({"out", "result", "value", "rgba", "color"})


def _port_type_of(resolution_types: Mapping[tuple[str, str], PortType], node: Node, port: str, scope: Scope,
                  output: bool) -> PortType:
    """The type a wire at this port carries: the resolved one, else the declared fixed one, else float."""
    resolved = resolution_types.get((node.id, port))
    if resolved is not None:
        return resolved
    node_type = node_type_for(node, scope)
    spec = (node_type.output(port) if output else node_type.input(port)) if node_type is not None else None
    return spec.type if spec is not None and isinstance(spec.type, PortType) else PortType.FLOAT


def _pass_nodes_named(document: MaterialGraph, graph: MaterialGraph, node_ids: Iterable[str], scope: Scope) -> list[str]:
    """The texture-space nodes among `node_ids` (and group nodes holding one), named for the artist."""
    named = []
    for node_id in sorted(node_ids, key=node_id_key):
        node = graph.nodes[node_id]
        node_type = node_type_for(node, scope)
        title = f"{node_type.display_name if node_type is not None else node.type_name} {node_id}"
        if is_pass_node_type(node.type_name):
            named.append(title)
        elif node.type_name == GROUP_TYPE and isinstance(function_id := node.properties.get(FUNCTION_PROPERTY), str):
            found = grouped_pass_nodes(document.functions, function_id)
            if found is not None:
                named.append(f"{title} (it holds {', '.join(found[1])})")
    return named


def group_nodes(document: MaterialGraph, level: str | None, node_ids: Iterable[str], name: str | None = None,
                reserved_ids: Iterable[str] = ()) -> GroupEdit:
    """Group the nodes `node_ids` of `level` into a new definition and one instance (see the module docstring).

    `reserved_ids` are definition ids not to use (the editor keeps ids of
    definitions an undo removed). Raises `GroupingError` when nothing can
    be grouped.
    """
    result = document.copy()
    graph = level_graph(result, level)
    scope = scope_for(result, level)
    requested = [node_id for node_id in dict.fromkeys(node_ids) if node_id in graph.nodes]
    # A node on a path between two selected nodes joins them: left outside it would feed the instance
    # and be fed by it, a cycle.
    between = connected_nodes(graph, requested, upstream=False) & connected_nodes(graph, requested, upstream=True)
    requested += sorted(between - set(requested), key=node_id_key)
    resolution = propagate(graph, scope=scope)
    types = resolution.port_types

    def keeps_outside(node_id: str) -> bool:
        node = graph.nodes[node_id]
        if node.type_name in OUTPUT_TYPES or node.type_name in INTERFACE_NODE_TYPES:
            return True
        # A texture that would leave the group: a function cannot return a sampler.
        return any(
            connection.target_node not in requested and _port_type_of(types, node, connection.source_port, scope, True)
            is PortType.TEXTURE
            for connection in graph.connections_from(node_id)
        )

    selected = {node_id for node_id in requested if not keeps_outside(node_id)}
    if not selected:
        if requested:
            raise GroupingError(
                "nothing to group: output nodes, Group Input/Output nodes and texture nodes whose texture leaves the "
                "selection stay outside a group"
            )
        raise GroupingError("select the nodes to group first")
    refused = _pass_nodes_named(result, graph, selected, scope)
    if refused:
        raise GroupingError(
            "Texture Buffers and filters render the whole UV square and cannot sit inside a group (a group is "
            f"computed per shading point): leave {', '.join(refused)} out of the selection"
        )

    taken_ids = set(result.functions) | set(reserved_ids)
    names = {definition.name for definition in result.functions.values()}
    if name is None or not name.strip():
        number = 1
        while f"Group {number}" in names:
            number += 1
        name = f"Group {number}"
    name = name.strip()
    function_id = unique(slug(name), taken_ids)
    instance_id = graph.new_node_id()

    # Boundary wires, grouped by the port they come from (one interface port each).
    incoming: dict[tuple[str, str], list[Connection]] = {}
    outgoing: dict[tuple[str, str], list[Connection]] = {}
    for connection in sorted(graph.connections, key=Connection.sort_key):
        inside_source = connection.source_node in selected
        inside_target = connection.target_node in selected
        if inside_target and not inside_source:
            incoming.setdefault((connection.source_node, connection.source_port), []).append(connection)
        elif inside_source and not inside_target:
            outgoing.setdefault((connection.source_node, connection.source_port), []).append(connection)

    inputs: list[InterfacePort] = []
    input_of: dict[tuple[str, str], str] = {}
    for key in sorted(incoming, key=lambda key: (_position_key(graph, key[0]), key[1])):
        source = graph.nodes[key[0]]
        first = incoming[key][0]
        parameter_name = source.properties.get("name") if source.type_name.endswith("_parameter") else None
        base = parameter_name if isinstance(parameter_name, str) and PORT_NAME.match(parameter_name) else first.target_port
        port_name = unique(base if port_name_problem(base) is None else "input", [port.name for port in inputs])
        port_type = _port_type_of(types, source, key[1], scope, True)
        target = graph.nodes[first.target_node]
        target_type = node_type_for(target, scope)
        default = input_default(target, target_type, first.target_port) if target_type is not None else None
        inputs.append(InterfacePort(port_name, port_type, default if default is not None and fits(default, port_type) else None))
        input_of[key] = port_name

    outputs: list[InterfacePort] = []
    output_of: dict[tuple[str, str], str] = {}
    for key in sorted(outgoing, key=lambda key: (_position_key(graph, key[0]), key[1])):
        source = graph.nodes[key[0]]
        base = key[1]
        if base in _GENERIC_OUTPUTS or port_name_problem(base) is not None:
            label = source.properties.get("name") if source.type_name.endswith("_parameter") else source.type_name
            base = slug(f"{label}" if base in ("out", "result", "value") else f"{label}_{base}", "output")
        port_name = unique(base, [port.name for port in outputs])
        outputs.append(InterfacePort(port_name, _port_type_of(types, source, key[1], scope, True)))
        output_of[key] = port_name

    # The body: the selected nodes as they are, their inner wires, frames wholly inside, and the interface nodes.
    body = MaterialGraph()
    for node_id in sorted(selected, key=node_id_key):
        node = graph.nodes[node_id]
        body.nodes[node_id] = Node(node.id, node.type_name, dict(node.properties), node.position)
    body.connections = [
        connection for connection in graph.connections
        if connection.source_node in selected and connection.target_node in selected
    ]
    # A frame wholly inside moves into the body; one that holds some selected nodes leaves a copy around
    # them there (same id, title and place), which ungrouping merges back.
    moved_frames = [frame for frame in graph.frames if frame.node_ids and set(frame.node_ids) <= selected]
    body.frames = [
        Frame(frame.id, frame.title, frame.position, frame.size, [member for member in frame.node_ids if member in selected],
              frame.color)
        for frame in graph.frames if set(frame.node_ids) & selected
    ]
    xs = [graph.nodes[node_id].position[0] for node_id in selected]
    centre = _centroid(graph.nodes[node_id] for node_id in selected)
    group_input = body.add_node(GROUP_INPUT_TYPE, (min(xs) - INTERFACE_NODE_MARGIN, centre[1]))
    group_output = body.add_node(GROUP_OUTPUT_TYPE, (max(xs) + INTERFACE_NODE_MARGIN, centre[1]))
    for key, connections in incoming.items():
        for connection in connections:
            body.connections.append(Connection(group_input.id, input_of[key], connection.target_node, connection.target_port))
    for key in outgoing:
        body.connections.append(Connection(key[0], key[1], group_output.id, output_of[key]))

    definition = GroupDefinition(function_id, name, inputs, outputs, body)
    result.functions[function_id] = definition

    # The level: the instance replaces the selection.
    outside_connections = [
        connection for connection in graph.connections
        if connection.source_node not in selected and connection.target_node not in selected
    ]
    for node_id in selected:
        del graph.nodes[node_id]
    graph.frames = [frame for frame in graph.frames if frame not in moved_frames]
    for frame in graph.frames:
        frame.node_ids = [member for member in frame.node_ids if member not in selected]
    graph.nodes[instance_id] = Node(instance_id, GROUP_TYPE, {FUNCTION_PROPERTY: function_id}, centre)
    graph.connections = outside_connections
    for key in incoming:
        graph.connections.append(Connection(key[0], key[1], instance_id, input_of[key]))
    for key, connections in outgoing.items():
        for connection in connections:
            graph.connections.append(Connection(instance_id, output_of[key], connection.target_node, connection.target_port))
    return GroupEdit(result, function_id, instance_id)


# Ungrouping -------------------------------------------------------------------------------------


def _new_frame_id(graph: MaterialGraph, wanted: str, taken: set[str]) -> str:
    if wanted not in taken:
        return wanted
    number = 1
    while f"f{number}" in taken:
        number += 1
    return f"f{number}"


def ungroup(document: MaterialGraph, level: str | None, instance_id: str) -> MaterialGraph:
    """Replace the instance `instance_id` of `level` by its definition's body (see the module docstring).

    Body nodes keep their ids where the level does not use them and move by
    the instance's offset from the body's centre. The instance's inputs feed
    what the Group Input fed (an unconnected one leaves those inputs
    unconnected); consumers of an output take what fed the Group Output.
    A definition no instance uses any more is dropped. Raises
    `GroupingError` when the node is not an instance of a known group.
    """
    result = document.copy()
    graph = level_graph(result, level)
    instance = graph.nodes.get(instance_id)
    if instance is None or instance.type_name != GROUP_TYPE:
        raise GroupingError("select one group node to ungroup")
    function_id = instance.properties.get(FUNCTION_PROPERTY)
    definition = result.functions.get(str(function_id))
    if definition is None:
        raise GroupingError(f"group '{function_id}' is not defined in this material")
    body = definition.body
    inner = {node_id: node for node_id, node in body.nodes.items() if node.type_name not in INTERFACE_NODE_TYPES}
    inner_ids = sorted(inner, key=node_id_key)

    into_instance = {connection.target_port: connection for connection in graph.connections if connection.target_node == instance_id}
    from_instance = [connection for connection in graph.connections if connection.source_node == instance_id]
    graph.connections = [
        connection for connection in graph.connections
        if connection.source_node != instance_id and connection.target_node != instance_id
    ]
    del graph.nodes[instance_id]
    for frame in graph.frames:
        frame.node_ids = [member for member in frame.node_ids if member != instance_id]

    centre = _centroid(inner.values())
    dx, dy = instance.position[0] - centre[0], instance.position[1] - centre[1]
    mapping: dict[str, str] = {}
    for node_id in inner_ids:
        new_id = node_id if node_id not in graph.nodes else graph.new_node_id()
        node = inner[node_id]
        graph.nodes[new_id] = Node(new_id, node.type_name, dict(node.properties), (node.position[0] + dx, node.position[1] + dy))
        mapping[node_id] = new_id

    instance_type_ = instance_type(definition)
    for connection in body.connections:
        source = body.nodes.get(connection.source_node)
        target = body.nodes.get(connection.target_node)
        if source is None or target is None or target.type_name == GROUP_OUTPUT_TYPE:
            continue
        if source.type_name == GROUP_INPUT_TYPE:
            if target.type_name == GROUP_INPUT_TYPE:
                continue
            feed = into_instance.get(connection.source_port)
            if feed is not None:
                graph.connections.append(Connection(feed.source_node, feed.source_port, mapping[connection.target_node],
                                                    connection.target_port))
            else:
                _carry_value(graph.nodes[mapping[connection.target_node]], connection.target_port, instance,
                             instance_type_, connection.source_port)
            continue
        graph.connections.append(Connection(mapping[connection.source_node], connection.source_port,
                                            mapping[connection.target_node], connection.target_port))
    outputs_fed = {
        connection.target_port: connection for connection in body.connections
        if connection.target_node in body.nodes and body.nodes[connection.target_node].type_name == GROUP_OUTPUT_TYPE
        and body.nodes.get(connection.source_node) is not None
    }
    for connection in from_instance:
        fed = outputs_fed.get(connection.source_port)
        if fed is None:
            continue
        source_node = body.nodes[fed.source_node]
        if source_node.type_name == GROUP_INPUT_TYPE:
            feed = into_instance.get(fed.source_port)
            if feed is not None:
                graph.connections.append(Connection(feed.source_node, feed.source_port, connection.target_node,
                                                    connection.target_port))
            continue
        graph.connections.append(Connection(mapping[fed.source_node], fed.source_port, connection.target_node,
                                            connection.target_port))

    frame_ids = {frame.id for frame in graph.frames}
    for frame in body.frames:
        members = [mapping[member] for member in frame.node_ids if member in mapping]
        same = next((outer for outer in graph.frames if outer.id == frame.id and outer.title == frame.title
                     and outer.position == frame.position and outer.size == frame.size), None)
        if same is not None and (dx, dy) == (0.0, 0.0):
            # The frame the nodes came from (grouping left a copy of it around them): they go back into it.
            same.node_ids = sorted(set(same.node_ids) | set(members), key=node_id_key)
            continue
        frame_id = _new_frame_id(graph, frame.id, frame_ids)
        frame_ids.add(frame_id)
        graph.frames.append(Frame(frame_id, frame.title, (frame.position[0] + dx, frame.position[1] + dy), frame.size,
                                  members, frame.color))
    return prune_functions(result)


def _carry_value(target: Node, port: str, instance: Node, instance_type_: NodeType, interface_port: str) -> None:
    """An unconnected instance input: its value moves to the inner node's same-named property, when it has one."""
    spec = instance_type_.property(interface_port)
    target_type = NODE_TYPES.get(target.type_name)
    target_spec = target_type.property(port) if target_type is not None else None
    if spec is None or target_spec is None:
        return
    value = instance.properties.get(interface_port, spec.default)
    if target_spec.kind == spec.kind:
        target.properties[port] = value


# Interface edits --------------------------------------------------------------------------------


def interface_problem(inputs: list[InterfacePort], outputs: list[InterfacePort]) -> str | None:
    """Why this interface cannot be used (names, types), or None."""
    for what, ports, allowed in (("input", inputs, INPUT_TYPES), ("output", outputs, OUTPUT_TYPES_ALLOWED)):
        seen: list[str] = []
        for port in ports:
            problem = port_name_problem(port.name, seen)
            if problem is not None:
                return f"{what} {problem}"
            if port.type not in allowed:
                return f"output '{port.name}' cannot be a {port.type}: a VPL function cannot return a sampler"
            seen.append(port.name)
    return None


def set_interface(document: MaterialGraph, function_id: str, name: str, inputs: list[InterfacePort],
                  outputs: list[InterfacePort], renamed_inputs: Mapping[str, str] | None = None,
                  renamed_outputs: Mapping[str, str] | None = None, description: str | None = None) -> MaterialGraph:
    """The document with definition `function_id`'s name and interface replaced (see the module docstring).

    `renamed_*` map old port names to new ones: connections and instance
    values follow a rename; those of a removed port go; a port whose type
    changed keeps its wires (a mismatch is then a diagnostic) but not the
    instance values stored for it. Raises `GroupingError` for a bad interface.
    """
    problem = interface_problem(inputs, outputs)
    if problem is not None:
        raise GroupingError(problem)
    if not name.strip():
        raise GroupingError("a group needs a name")
    result = document.copy()
    definition = result.functions.get(function_id)
    if definition is None:
        raise GroupingError(f"group '{function_id}' is not defined in this material")
    renamed_inputs = dict(renamed_inputs or {})
    renamed_outputs = dict(renamed_outputs or {})
    new_inputs = {port.name: port for port in inputs}
    new_outputs = {port.name: port for port in outputs}
    old_inputs = {port.name: port for port in definition.inputs}

    def input_after(old: str) -> str | None:
        new = renamed_inputs.get(old, old)
        return new if new in new_inputs else None

    def output_after(old: str) -> str | None:
        new = renamed_outputs.get(old, old)
        return new if new in new_outputs else None

    def rewire(graph: MaterialGraph, sources: set[str], source_after: Callable[[str], str | None],
               targets: set[str], target_after: Callable[[str], str | None]) -> None:
        """Rename the ports of wires leaving `sources` and entering `targets`; drop wires whose port is gone."""
        rewired: list[Connection] = []
        for connection in graph.connections:
            source_port, target_port = connection.source_port, connection.target_port
            if connection.source_node in sources:
                source_port = source_after(source_port) or ""
            if connection.target_node in targets:
                target_port = target_after(target_port) or ""
            if source_port and target_port:
                rewired.append(Connection(connection.source_node, source_port, connection.target_node, target_port))
        graph.connections = rewired

    for graph in [result, *(other.body for other in result.functions.values())]:
        users = instances(graph, function_id)
        ids = {node.id for node in users}
        rewire(graph, ids, output_after, ids, input_after)
        for node in users:
            values = {key: value for key, value in node.properties.items() if key != FUNCTION_PROPERTY}
            kept: dict[str, Any] = {FUNCTION_PROPERTY: function_id}
            for old_name, value in values.items():
                new_name = input_after(old_name)
                old_port = old_inputs.get(old_name)
                if new_name is not None and old_port is not None and new_inputs[new_name].type is old_port.type:
                    kept[new_name] = value
            node.properties = kept
    body = definition.body
    group_outputs = {node.id for node in body.nodes.values() if node.type_name == GROUP_OUTPUT_TYPE}
    group_inputs = {node.id for node in body.nodes.values() if node.type_name == GROUP_INPUT_TYPE}
    # Inside the body the sides swap: Group Input's outputs are the inputs, Group Output's inputs the outputs.
    rewire(body, group_inputs, input_after, group_outputs, output_after)
    definition.name = name.strip()
    definition.inputs = [port.copy() for port in inputs]
    definition.outputs = [InterfacePort(port.name, port.type) for port in outputs]
    if description is not None:
        definition.description = description
    return result


def add_instance(document: MaterialGraph, level: str | None, function_id: str,
                 position: tuple[float, float] = (0.0, 0.0)) -> tuple[MaterialGraph, str]:
    """The document with a new instance of `function_id` at `level`; refused (GroupingError) when recursive."""
    if function_id not in document.functions:
        raise GroupingError(f"group '{function_id}' is not defined in this material")
    problem = recursion_problem(document.functions, function_id, level)
    if problem is not None:
        raise GroupingError(problem)
    result = document.copy()
    graph = level_graph(result, level)
    node = graph.add_node(GROUP_TYPE, position, {FUNCTION_PROPERTY: function_id})
    return result, node.id
