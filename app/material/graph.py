"""The material graph: plain data that the editor snapshots and the lowering reads (no Qt).

A `MaterialGraph` holds nodes by stable string id ("n1", "n2", ...), the
connections between their ports, and frames (backdrops grouping nodes). Node
ids are generated here, never reused while the node that holds them exists,
and survive save/load unchanged (the Qt view's own ids do not).

Invariants kept by the editing methods (a graph read from a file may break
them; the lowering diagnoses that instead of failing):

- an input port has at most one incoming connection (`connect` replaces);
- connections and frames only name nodes of the graph (`remove_node`
  removes both).

Equality ignores the order of connections and frames (they are sets in
meaning); `to_dict` writes them sorted, so equal graphs give equal JSON.

Parameter values: the value of a material parameter is its node's value
property (`default`, or `image` for a texture). `variants` are named sets
of values that override them by parameter name (material instances, as
Unreal's): `active_variant` names the one in use (None: the nodes' own
values). A graph with variants is written as format version 2 (version 1
plus `variants` and `active_variant`), so an editor that knows only
version 1 opens it read-only instead of dropping them; a graph without
variants is written as version 1, byte for byte as before.

Group definitions (node groups, material functions): `functions` maps a
definition id to a `GroupDefinition`, the one copy of a group's body (its
own nodes, connections and frames, with Group Input and Group Output
nodes) and interface (typed, ordered, named inputs with defaults and
outputs). A "group" node names its definition by id in its "function"
property; every instance shares the definition, and definitions live at
the document's top level only (a body's `functions` is empty; nested groups
are instances inside a body that name other top-level definitions). A graph
with definitions or Custom Code nodes is written as format version 3
(version 2 plus `functions`), so an editor that knows only versions 1-2
opens it read-only instead of dropping them. app/material/groups.py holds
the operations (group, ungroup, interface edits, the call graph).

`stage` is the preview stage saved with the document (mesh, environment,
light, exposure, ...: the preview's `Stage.to_dict()`), or None when the
artist did not ask for it. It is opaque here (a JSON object, normalised by
`stage_data`), written only when present (an optional key of either
version, so files without it read and write byte for byte as before), and
a malformed one is dropped on reading, never an error: it is view state.
"""

from __future__ import annotations

import copy as copy_module
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

# Imported for their effect: the node types with static ports (the categories, then Custom Code)
# registered, so `add_node` always finds their default properties. (Not the catalog: it imports
# the group modules, which import this one.)
from app.material import nodes as _nodes  # noqa: F401 - imported for its effect (registration)

# isort: split
from app.material import custom_code as _custom_code  # noqa: F401 - imported for its effect (registration)
from app.material.node_types import NODE_TYPES
from app.material.port_types import PortType
from app.material.traversal import node_id_key

GRAPH_FORMAT = "vpl-material-graph"
GRAPH_VERSION = 1
#: Version 1 plus parameter variants; written only for graphs that have variants.
GRAPH_VERSION_WITH_VARIANTS = 2
#: Version 2 plus group definitions (`functions`); written only for graphs that have definitions or
#: Custom Code nodes (node kinds an editor reading only versions 1-2 cannot show).
GRAPH_VERSION_WITH_FUNCTIONS = 3
READABLE_VERSIONS = (GRAPH_VERSION, GRAPH_VERSION_WITH_VARIANTS, GRAPH_VERSION_WITH_FUNCTIONS)
#: Node types whose presence makes a graph version 3 (app/material/custom_code.py).
VERSION_3_NODE_TYPES = frozenset({"custom_code"})


@dataclass(eq=False)
class Node:
    """A node instance. Vector and colour properties are tuples; lists compare equal to them
    (JSON has only lists), so a node survives a save/load round trip equal to itself."""

    id: str
    type_name: str
    properties: dict[str, Any] = field(default_factory=dict)
    position: tuple[float, float] = (0.0, 0.0)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return (
            self.id == other.id
            and self.type_name == other.type_name
            and tuple(self.position) == tuple(other.position)
            and _json_value(self.properties) == _json_value(other.properties)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable


@dataclass(frozen=True)
class Connection:
    """A wire from an output port of `source_node` to an input port of `target_node`."""

    source_node: str
    source_port: str
    target_node: str
    target_port: str

    def sort_key(self) -> tuple[tuple[str, int, str], str, tuple[str, int, str], str]:
        return (
            node_id_key(self.target_node),
            self.target_port,
            node_id_key(self.source_node),
            self.source_port,
        )


@dataclass
class Frame:
    """A titled backdrop around a group of nodes (purely visual).

    `color` is the backdrop's rgb (0-255); None is the editor's default and is
    not written, so files from before frames had colours read back equal.
    """

    id: str
    title: str
    position: tuple[float, float] = (0.0, 0.0)
    size: tuple[float, float] = (200.0, 150.0)
    node_ids: list[str] = field(default_factory=list)
    color: tuple[int, int, int] | None = None


@dataclass
class ParameterVariant:
    """A named set of parameter values (parameter name -> value) overriding the parameter nodes' own."""

    name: str
    values: dict[str, Any] = field(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParameterVariant):
            return NotImplemented
        return self.name == other.name and _json_value(self.values) == _json_value(other.values)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def copy(self) -> ParameterVariant:
        return ParameterVariant(self.name, copy_module.deepcopy(self.values))


class GraphFormatError(ValueError):
    """A graph dictionary that `from_dict` cannot read (wrong format, version or shape)."""


@dataclass(eq=False)
class InterfacePort:
    """One input or output of a group's interface.

    `type` is fixed (a group lowers to a VPL function with typed
    parameters). `default` (inputs only) is what an unconnected input of an
    instance reads when the instance holds no value of its own: a number, a
    tuple of 2-4 numbers, a bool, the name of a built-in source such as
    "texcoord" (node_types.DEFAULT_SOURCES), or None for the type's zero.
    """

    name: str
    type: PortType
    default: Any = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InterfacePort):
            return NotImplemented
        return self.name == other.name and self.type is other.type and _json_value(self.default) == _json_value(other.default)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def copy(self) -> InterfacePort:
        return InterfacePort(self.name, self.type, self.default)

    def to_dict(self, with_default: bool) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": self.type.value}
        if with_default:
            data["default"] = _json_value(self.default)
        return data


@dataclass(frozen=True)
class LibraryLink:
    """Where an embedded definition came from: a function file of a library folder.

    `folder` is "user" (the user's function library) or "project" (the
    `functions/` folder beside the material); `file` the file name there;
    `sha256` the hash of the definition as it was embedded (`definition_hash`),
    so the editor can tell when the library copy changed since.
    """

    folder: str
    file: str
    sha256: str

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "folder": self.folder, "sha256": self.sha256}


@dataclass(eq=False)
class GroupDefinition:
    """A node group: a body graph with an interface, lowered to one VPL helper function.

    `id` is the definition's stable key (instances name it; it never changes
    after creation, a rename changes `name`); `name` is what people see, and
    what the helper function is named after (groups.function_name).
    """

    id: str
    name: str
    inputs: list[InterfacePort] = field(default_factory=list)
    outputs: list[InterfacePort] = field(default_factory=list)
    body: MaterialGraph = field(default_factory=lambda: MaterialGraph())
    description: str = ""
    library: LibraryLink | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GroupDefinition):
            return NotImplemented
        return (
            self.id == other.id
            and self.name == other.name
            and self.description == other.description
            and self.inputs == other.inputs
            and self.outputs == other.outputs
            and self.library == other.library
            and self.body.same_nodes(other.body)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def input(self, name: str) -> InterfacePort | None:
        return next((port for port in self.inputs if port.name == name), None)

    def output(self, name: str) -> InterfacePort | None:
        return next((port for port in self.outputs if port.name == name), None)

    def copy(self) -> GroupDefinition:
        return GroupDefinition(
            self.id,
            self.name,
            [port.copy() for port in self.inputs],
            [port.copy() for port in self.outputs],
            self.body.copy(),
            self.description,
            self.library,
        )

    def to_dict(self) -> dict[str, Any]:
        """Interface and body as JSON-able data (the body's nodes, connections and frames sorted)."""
        body = self.body.to_dict()
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "inputs": [port.to_dict(with_default=True) for port in self.inputs],
            "outputs": [port.to_dict(with_default=False) for port in self.outputs],
            "nodes": body["nodes"],
            "connections": body["connections"],
            "frames": body["frames"],
        }
        if self.library is not None:
            data["library"] = self.library.to_dict()
        return data


_GENERATED_ID = re.compile(r"^n(\d+)$")
_GENERATED_FRAME_ID = re.compile(r"^f(\d+)$")


#: Property values shared, not copied, by `MaterialGraph.copy`: nothing can change them in place.
_IMMUTABLE_VALUES = (str, int, float, bool, type(None))


def _copied_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """A node's properties for a copy of the graph: the usual values (numbers, strings, tuples of them) are shared,
    anything else deep-copied. `copy.deepcopy` of every node's properties was a fifth of copying a large graph,
    which the editor does several times per opening."""
    copied: dict[str, Any] = {}
    for name, value in properties.items():
        if isinstance(value, _IMMUTABLE_VALUES) or (
                type(value) is tuple and all(isinstance(item, _IMMUTABLE_VALUES) for item in value)):
            copied[name] = value
        else:
            copied[name] = copy_module.deepcopy(value)
    return copied


@dataclass(eq=False)
class MaterialGraph:
    nodes: dict[str, Node] = field(default_factory=dict)
    connections: list[Connection] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    variants: list[ParameterVariant] = field(default_factory=list)
    active_variant: str | None = None
    #: Group definitions by id (top-level graphs only; see the module docstring).
    functions: dict[str, GroupDefinition] = field(default_factory=dict)
    #: The preview stage saved with the document (a JSON object, see `stage_data`), or None.
    stage: dict[str, Any] | None = None

    # Equality ---------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MaterialGraph):
            return NotImplemented
        return (
            self.same_nodes(other)
            and self.variants == other.variants
            and self.active_variant == other.active_variant
            and self.stage == other.stage
        )

    def same_nodes(self, other: MaterialGraph) -> bool:
        """Equal apart from the variants: the same nodes, connections, frames and definitions (the same module)."""
        return (
            self.functions == other.functions
            and self.nodes == other.nodes
            and sorted(self.connections, key=Connection.sort_key) == sorted(other.connections, key=Connection.sort_key)
            and sorted(self.frames, key=lambda frame: node_id_key(frame.id))
            == sorted(other.frames, key=lambda frame: node_id_key(frame.id))
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    # Nodes ------------------------------------------------------------------------------

    def new_node_id(self) -> str:
        """A fresh "n<k>" id: one past the largest generated id in the graph."""
        largest = 0
        for node_id in self.nodes:
            match = _GENERATED_ID.match(node_id)
            if match is not None:
                largest = max(largest, int(match.group(1)))
        return f"n{largest + 1}"

    def add_node(
        self,
        type_name: str,
        position: tuple[float, float] = (0.0, 0.0),
        properties: dict[str, Any] | None = None,
        node_id: str | None = None,
    ) -> Node:
        """Add a node with the catalog's default properties, overridden by `properties`.

        Parameter nodes get a "name" unique in the graph unless one is given.
        An unknown type name is kept (with only the given properties) so that
        no user data is lost; the lowering reports it.
        """
        if node_id is None:
            node_id = self.new_node_id()
        elif node_id in self.nodes:
            raise ValueError(f"node id {node_id!r} is already used")
        node_type = NODE_TYPES.get(type_name)
        values: dict[str, Any] = {}
        if node_type is not None:
            values = node_type.default_properties()
            if "name" in values and not (properties and "name" in properties):
                values["name"] = self.unique_parameter_name(str(values["name"]))
        if properties:
            values.update(properties)
        node = Node(node_id, type_name, values, (float(position[0]), float(position[1])))
        self.nodes[node_id] = node
        return node

    def unique_parameter_name(self, base: str) -> str:
        """`base`, or `base_2`, `base_3`, ... whichever no node in the graph uses as its "name"."""
        used = {str(node.properties.get("name")) for node in self.nodes.values() if "name" in node.properties}
        if base not in used:
            return base
        number = 2
        while f"{base}_{number}" in used:
            number += 1
        return f"{base}_{number}"

    def remove_node(self, node_id: str) -> None:
        """Remove a node, its connections, and its membership in frames."""
        if node_id not in self.nodes:
            raise KeyError(node_id)
        del self.nodes[node_id]
        self.connections = [
            connection
            for connection in self.connections
            if connection.source_node != node_id and connection.target_node != node_id
        ]
        for frame in self.frames:
            if node_id in frame.node_ids:
                frame.node_ids = [member for member in frame.node_ids if member != node_id]

    # Connections ------------------------------------------------------------------------

    def connect(self, source_node: str, source_port: str, target_node: str, target_port: str) -> Connection:
        """Connect an output to an input, replacing the input's existing connection.

        Only checks that both nodes exist; types are the business of
        `connections.can_connect` (the editor asks it first) and of the lowering.
        """
        for node_id in (source_node, target_node):
            if node_id not in self.nodes:
                raise KeyError(f"unknown node {node_id!r}")
        self.disconnect_input(target_node, target_port)
        connection = Connection(source_node, source_port, target_node, target_port)
        self.connections.append(connection)
        return connection

    def disconnect(self, source_node: str, source_port: str, target_node: str, target_port: str) -> bool:
        """Remove exactly this connection; False when there was none."""
        connection = Connection(source_node, source_port, target_node, target_port)
        if connection not in self.connections:
            return False
        self.connections = [existing for existing in self.connections if existing != connection]
        return True

    def disconnect_input(self, target_node: str, target_port: str) -> Connection | None:
        """Remove whatever feeds this input; returns the removed connection."""
        removed = self.connection_into(target_node, target_port)
        if removed is not None:
            self.connections = [
                connection
                for connection in self.connections
                if not (connection.target_node == target_node and connection.target_port == target_port)
            ]
        return removed

    def connection_into(self, target_node: str, target_port: str) -> Connection | None:
        for connection in self.connections:
            if connection.target_node == target_node and connection.target_port == target_port:
                return connection
        return None

    def connections_from(self, source_node: str, source_port: str | None = None) -> list[Connection]:
        return [
            connection
            for connection in self.connections
            if connection.source_node == source_node and (source_port is None or connection.source_port == source_port)
        ]

    # Frames -----------------------------------------------------------------------------

    def add_frame(
        self,
        title: str,
        position: tuple[float, float] = (0.0, 0.0),
        size: tuple[float, float] = (200.0, 150.0),
        node_ids: list[str] | None = None,
        frame_id: str | None = None,
    ) -> Frame:
        if frame_id is None:
            largest = 0
            for frame in self.frames:
                match = _GENERATED_FRAME_ID.match(frame.id)
                if match is not None:
                    largest = max(largest, int(match.group(1)))
            frame_id = f"f{largest + 1}"
        elif any(frame.id == frame_id for frame in self.frames):
            raise ValueError(f"frame id {frame_id!r} is already used")
        frame = Frame(frame_id, title, (float(position[0]), float(position[1])), (float(size[0]), float(size[1])), list(node_ids or []))
        self.frames.append(frame)
        return frame

    def remove_frame(self, frame_id: str) -> None:
        self.frames = [frame for frame in self.frames if frame.id != frame_id]

    # Variants ---------------------------------------------------------------------------

    def variant(self, name: str | None) -> ParameterVariant | None:
        return next((variant for variant in self.variants if variant.name == name), None) if name else None

    @property
    def active(self) -> ParameterVariant | None:
        """The variant in use, or None for the parameter nodes' own values."""
        return self.variant(self.active_variant)

    # Copies and serialization -----------------------------------------------------------

    def copy(self) -> MaterialGraph:
        """A deep copy: editing it never changes this graph."""
        return MaterialGraph(
            {node_id: Node(node.id, node.type_name, _copied_properties(node.properties), node.position) for node_id, node in self.nodes.items()},
            list(self.connections),
            [Frame(frame.id, frame.title, frame.position, frame.size, list(frame.node_ids), frame.color) for frame in self.frames],
            [variant.copy() for variant in self.variants],
            self.active_variant,
            {function_id: definition.copy() for function_id, definition in self.functions.items()},
            copy_module.deepcopy(self.stage),
        )

    def format_version(self) -> int:
        """The format version `to_dict` writes: the lowest that holds everything this graph has."""
        if self.functions or any(node.type_name in VERSION_3_NODE_TYPES for node in self.nodes.values()):
            return GRAPH_VERSION_WITH_FUNCTIONS
        return GRAPH_VERSION_WITH_VARIANTS if self.variants else GRAPH_VERSION

    def walk_nodes(self) -> list[tuple[str | None, Node]]:
        """(definition id or None for this graph, node) for every node here and in every definition's body."""
        found: list[tuple[str | None, Node]] = [(None, node) for node in self.nodes.values()]
        for function_id in sorted(self.functions, key=node_id_key):
            found.extend((function_id, node) for node in self.functions[function_id].body.nodes.values())
        return found

    def to_dict(self) -> dict[str, Any]:
        """A deterministic, versioned, JSON-able dictionary (nodes, connections and frames sorted).

        Variants keep their order (the order the artist made them in).
        """
        data = {
            "format": GRAPH_FORMAT,
            "version": self.format_version(),
            "nodes": [
                {
                    "id": node.id,
                    "type": node.type_name,
                    "position": [node.position[0], node.position[1]],
                    "properties": {name: _json_value(value) for name, value in sorted(node.properties.items())},
                }
                for node in sorted(self.nodes.values(), key=lambda node: node_id_key(node.id))
            ],
            "connections": [
                {
                    "source_node": connection.source_node,
                    "source_port": connection.source_port,
                    "target_node": connection.target_node,
                    "target_port": connection.target_port,
                }
                for connection in sorted(self.connections, key=Connection.sort_key)
            ],
            "frames": [
                {
                    "id": frame.id,
                    "title": frame.title,
                    "position": [frame.position[0], frame.position[1]],
                    "size": [frame.size[0], frame.size[1]],
                    "node_ids": list(frame.node_ids),
                    **({"color": list(frame.color)} if frame.color is not None else {}),
                }
                for frame in sorted(self.frames, key=lambda frame: node_id_key(frame.id))
            ],
        }
        if self.functions:
            data["functions"] = [self.functions[function_id].to_dict() for function_id in sorted(self.functions, key=node_id_key)]
        if self.variants:
            data["variants"] = [
                {"name": variant.name, "values": {name: _json_value(value) for name, value in sorted(variant.values.items())}}
                for variant in self.variants
            ]
            data["active_variant"] = self.active_variant if self.variant(self.active_variant) else None
        if self.stage is not None:
            data["stage"] = self.stage
        return data

    @classmethod
    def from_dict(cls, data: Any) -> MaterialGraph:
        """Read `to_dict` output. Raises `GraphFormatError` for anything of the wrong shape.

        Unknown node types and ports are kept (the lowering reports them);
        list-valued properties come back as tuples, as the catalog makes them.
        """
        try:
            return _graph_from_dict(data)
        except GraphFormatError:
            raise
        except RecursionError as error:
            raise GraphFormatError("malformed material graph: values nested too deeply") from error
        except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as error:
            raise GraphFormatError(f"malformed material graph: {error}") from error


def _json_value(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_json_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _json_value(item) for key, item in value.items()}
    return value


def _finite(value: int | float, what: str) -> float:
    """`value` as a finite float; an int beyond the float range (JSON allows 10**400) is a format error."""
    try:
        number = float(value)
    except OverflowError:
        digits = len(str(abs(int(value))))
        raise GraphFormatError(f"{what} is out of range (a {digits}-digit integer, beyond the largest float)") from None
    if not math.isfinite(number):
        raise GraphFormatError(f"{what} must be finite, not {value}")
    return number


def _property_value(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_property_value(item) for item in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        _finite(value, "property value")
        return value
    if value is None or isinstance(value, (bool, str)):
        return value
    raise GraphFormatError(f"unsupported property value {value!r}")


def _pair(value: Any, what: str) -> tuple[float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise GraphFormatError(f"{what} must be a pair of numbers")
    first, second = value
    for item in (first, second):
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise GraphFormatError(f"{what} must be a pair of finite numbers")
    return (_finite(first, what), _finite(second, what))


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise GraphFormatError(f"{what} must be a string")
    return value


def _graph_from_dict(data: Any) -> MaterialGraph:
    if not isinstance(data, dict):
        raise GraphFormatError("a material graph is a JSON object")
    if data.get("format") != GRAPH_FORMAT:
        raise GraphFormatError(f"not a material graph (format {data.get('format')!r})")
    version = data.get("version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        readable = ", ".join(str(number) for number in READABLE_VERSIONS)
        raise GraphFormatError(f"unsupported material graph version {version!r} (this editor reads {readable})")
    graph = MaterialGraph()
    _read_body(graph, data)
    for entry in data.get("variants", []):
        if not isinstance(entry, dict) or not isinstance(entry.get("values", {}), dict):
            raise GraphFormatError("a variant is a JSON object with a name and a values object")
        name = _text(entry.get("name"), "variant name")
        if not name or graph.variant(name) is not None:
            raise GraphFormatError(f"variant name {name!r} is empty or repeated")
        values = {_text(key, "parameter name"): _property_value(value) for key, value in entry.get("values", {}).items()}
        graph.variants.append(ParameterVariant(name, values))
    active = data.get("active_variant")
    if active is not None:
        graph.active_variant = _text(active, "active variant")
        if graph.variant(graph.active_variant) is None:
            raise GraphFormatError(f"the active variant {graph.active_variant!r} is not one of the variants")
    functions = data.get("functions", [])
    if not isinstance(functions, list):
        raise GraphFormatError("functions is a list")
    for entry in functions:
        definition = _definition_from_dict(entry)
        if definition.id in graph.functions:
            raise GraphFormatError(f"function id {definition.id!r} is repeated")
        graph.functions[definition.id] = definition
    graph.stage = stage_data(data.get("stage"))
    return graph


def _read_body(graph: MaterialGraph, data: dict[str, Any]) -> None:
    """Nodes, connections and frames of a graph or a definition's body into `graph`."""
    for entry in data.get("nodes", []):
        if not isinstance(entry, dict):
            raise GraphFormatError("a node is a JSON object")
        node_id = _text(entry.get("id"), "node id")
        if not node_id or node_id in graph.nodes:
            raise GraphFormatError(f"node id {node_id!r} is empty or repeated")
        properties = entry.get("properties", {})
        if not isinstance(properties, dict):
            raise GraphFormatError("node properties are a JSON object")
        graph.nodes[node_id] = Node(
            node_id,
            _text(entry.get("type"), "node type"),
            {_text(name, "property name"): _property_value(value) for name, value in properties.items()},
            _pair(entry.get("position", [0.0, 0.0]), "node position"),
        )
    for entry in data.get("connections", []):
        if not isinstance(entry, dict):
            raise GraphFormatError("a connection is a JSON object")
        connection = Connection(
            _text(entry.get("source_node"), "connection source"),
            _text(entry.get("source_port"), "connection source port"),
            _text(entry.get("target_node"), "connection target"),
            _text(entry.get("target_port"), "connection target port"),
        )
        if connection.source_node not in graph.nodes or connection.target_node not in graph.nodes:
            raise GraphFormatError("a connection names a node that is not in the graph")
        graph.connections.append(connection)
    for entry in data.get("frames", []):
        if not isinstance(entry, dict):
            raise GraphFormatError("a frame is a JSON object")
        node_ids = entry.get("node_ids", [])
        if not isinstance(node_ids, list):
            raise GraphFormatError("frame node_ids is a list")
        graph.frames.append(
            Frame(
                _text(entry.get("id"), "frame id"),
                _text(entry.get("title", ""), "frame title"),
                _pair(entry.get("position", [0.0, 0.0]), "frame position"),
                _pair(entry.get("size", [200.0, 150.0]), "frame size"),
                [_text(node_id, "frame member") for node_id in node_ids],
                _frame_color(entry.get("color")),
            )
        )


def _port_type(value: Any, what: str) -> PortType:
    try:
        return PortType(_text(value, what))
    except ValueError:
        names = ", ".join(member.value for member in PortType)
        raise GraphFormatError(f"{what} {value!r} is not a port type ({names})") from None


def _interface(entries: Any, what: str, with_default: bool) -> list[InterfacePort]:
    if not isinstance(entries, list):
        raise GraphFormatError(f"function {what} is a list")
    ports: list[InterfacePort] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise GraphFormatError(f"a function {what[:-1]} is a JSON object")
        name = _text(entry.get("name"), f"function {what[:-1]} name")
        if not name or any(port.name == name for port in ports):
            raise GraphFormatError(f"function {what[:-1]} name {name!r} is empty or repeated")
        default = _property_value(entry.get("default")) if with_default else None
        ports.append(InterfacePort(name, _port_type(entry.get("type"), f"function {what[:-1]} type"), default))
    return ports


def _definition_from_dict(entry: Any) -> GroupDefinition:
    if not isinstance(entry, dict):
        raise GraphFormatError("a function is a JSON object")
    function_id = _text(entry.get("id"), "function id")
    if not function_id:
        raise GraphFormatError("a function id is empty")
    body = MaterialGraph()
    _read_body(body, entry)
    library = entry.get("library")
    link = None
    if library is not None:
        if not isinstance(library, dict):
            raise GraphFormatError("a function's library link is a JSON object")
        link = LibraryLink(
            _text(library.get("folder"), "library folder"),
            _text(library.get("file"), "library file"),
            _text(library.get("sha256", ""), "library hash"),
        )
    return GroupDefinition(
        function_id,
        _text(entry.get("name", function_id), "function name"),
        _interface(entry.get("inputs", []), "inputs", with_default=True),
        _interface(entry.get("outputs", []), "outputs", with_default=False),
        body,
        _text(entry.get("description", ""), "function description"),
        link,
    )


def stage_data(value: Any) -> dict[str, Any] | None:
    """A stage to keep in a graph: a JSON object with string keys and finite JSON values, as a fresh copy
    in JSON's own types (lists, not tuples, so a graph read back compares equal); None for anything else."""
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        return None
    try:
        normalised = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return None  # not JSON (a set, NaN, nesting too deep): dropped like any malformed stage
    return normalised if isinstance(normalised, dict) else None


def _frame_color(value: Any) -> tuple[int, int, int] | None:
    """A frame's stored colour: three integers 0-255, else None (the default look; never an error)."""
    if isinstance(value, list) and len(value) == 3 and all(isinstance(c, int) and not isinstance(c, bool) for c in value):
        red, green, blue = (min(max(component, 0), 255) for component in value)
        return (red, green, blue)
    return None
