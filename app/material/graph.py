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
"""

from __future__ import annotations

import copy as copy_module
import math
import re
from dataclasses import dataclass, field
from typing import Any

from app.material.catalog import NODE_TYPES
from app.material.traversal import node_id_key

GRAPH_FORMAT = "vpl-material-graph"
GRAPH_VERSION = 1
#: Version 1 plus parameter variants; written only for graphs that have variants.
GRAPH_VERSION_WITH_VARIANTS = 2
READABLE_VERSIONS = (GRAPH_VERSION, GRAPH_VERSION_WITH_VARIANTS)


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


_GENERATED_ID = re.compile(r"^n(\d+)$")
_GENERATED_FRAME_ID = re.compile(r"^f(\d+)$")


@dataclass(eq=False)
class MaterialGraph:
    nodes: dict[str, Node] = field(default_factory=dict)
    connections: list[Connection] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    variants: list[ParameterVariant] = field(default_factory=list)
    active_variant: str | None = None

    # Equality ---------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MaterialGraph):
            return NotImplemented
        return self.same_nodes(other) and self.variants == other.variants and self.active_variant == other.active_variant

    def same_nodes(self, other: MaterialGraph) -> bool:
        """Equal apart from the variants: the same nodes, connections and frames (the same module)."""
        return (
            self.nodes == other.nodes
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
            {node_id: Node(node.id, node.type_name, copy_module.deepcopy(node.properties), node.position) for node_id, node in self.nodes.items()},
            list(self.connections),
            [Frame(frame.id, frame.title, frame.position, frame.size, list(frame.node_ids), frame.color) for frame in self.frames],
            [variant.copy() for variant in self.variants],
            self.active_variant,
        )

    def to_dict(self) -> dict[str, Any]:
        """A deterministic, versioned, JSON-able dictionary (nodes, connections and frames sorted).

        Variants keep their order (the order the artist made them in).
        """
        data = {
            "format": GRAPH_FORMAT,
            "version": GRAPH_VERSION_WITH_VARIANTS if self.variants else GRAPH_VERSION,
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
        if self.variants:
            data["variants"] = [
                {"name": variant.name, "values": {name: _json_value(value) for name, value in sorted(variant.values.items())}}
                for variant in self.variants
            ]
            data["active_variant"] = self.active_variant if self.variant(self.active_variant) else None
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
        readable = " and ".join(str(number) for number in READABLE_VERSIONS)
        raise GraphFormatError(f"unsupported material graph version {version!r} (this editor reads {readable})")
    graph = MaterialGraph()
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
    return graph


def _frame_color(value: Any) -> tuple[int, int, int] | None:
    """A frame's stored colour: three integers 0-255, else None (the default look; never an error)."""
    if isinstance(value, list) and len(value) == 3 and all(isinstance(c, int) and not isinstance(c, bool) for c in value):
        red, green, blue = (min(max(component, 0), 255) for component in value)
        return (red, green, blue)
    return None
