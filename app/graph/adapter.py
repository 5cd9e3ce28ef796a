"""The adapter between the NodeGraphQt view and `app.material`'s `MaterialGraph`.

`populate(view, graph)` builds the view from a `MaterialGraph`, `show_nodes`
and `show_frames` add to it; `read_node`, `read_wires` and `read_frames` read
single items back (what a gesture touched, app/ui/gesture_reader.py), and
`snapshot(view)` the whole view (tests compare it with the record). The
record is the session's `DocumentModel`; nothing else converts between it
and the view.

Identity: a view node's `vpl_node_id` property is its `MaterialGraph` id.
NodeGraphQt copies it along with every other property on paste and
duplicate, so `renew_duplicate_ids` gives a fresh id to every node whose id
is taken by another (the node that already had it keeps it) or is empty.
Renewed ids are written outside the undo stack: undoing a paste removes the
nodes, redoing re-adds the same node objects, which still carry their ids.

Frames are NodeGraphQt backdrops (`FrameNode`), with their id in
`vpl_frame_id` and the title as the backdrop's name. A frame's members are
the ones the document stored, changed only by what the artist does: a node
that moves into the backdrop's rectangle joins it, a node that moves out
leaves it (compared with the nodes the rectangle enclosed when the document
was loaded). So a loaded graph snapshots back exactly as stored even when a
file's member list and the drawn geometry disagree, and a frame the artist
draws has the nodes it encloses.

Values: NodeGraphQt stores property values JSON-like (its clipboard is
JSON, so tuples come back as lists); the snapshot turns lists back into the
tuples the catalog uses, so a pasted node compares equal to its original.
"""

from __future__ import annotations

from typing import Any

from app.graph.nodes import (
    EXTRA_PROPERTIES,
    FRAME_ENCLOSED_PROPERTY,
    FRAME_ID_PROPERTY,
    FRAME_MEMBERS_PROPERTY,
    FrameNode,
    MaterialNode,
    deferred_layout,
    property_key,
    to_view_value,
)
from app.graph.view import MaterialNodeGraph
from app.material.catalog import DYNAMIC_NODE_TYPES, Scope, resolve_node_type
from app.material.graph import Connection, Frame, MaterialGraph, Node
from app.material.parameters import PARAMETER_NODE_TYPES
from app.material.traversal import node_id_key


def from_view_value(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(from_view_value(item) for item in value)
    return value


def _position(node: Any) -> tuple[float, float]:
    x, y = node.pos()
    return (float(x), float(y))


def read_node(view_node: MaterialNode) -> Node:
    """One view node as a `Node` (its stable id, catalog properties, extra properties and position)."""
    node_type = view_node.CATALOG_TYPE
    properties: dict[str, Any] = {}
    extra = view_node.get_property(EXTRA_PROPERTIES)
    if isinstance(extra, dict):
        properties.update({name: from_view_value(value) for name, value in extra.items()})
    for spec in node_type.properties:
        properties[spec.name] = from_view_value(view_node.get_property(property_key(spec.name)))
    return Node(view_node.stable_id, node_type.type_name, properties, _position(view_node))


def read_wires(view_node: MaterialNode) -> list[Connection]:
    """The wires into and out of one view node, between material nodes."""
    wires: list[Connection] = []
    for port in view_node.input_ports():
        for source_port in port.connected_ports():
            source = source_port.node()
            if isinstance(source, MaterialNode):
                wires.append(Connection(source.stable_id, source_port.name(), view_node.stable_id, port.name()))
    for port in view_node.output_ports():
        for target_port in port.connected_ports():
            target = target_port.node()
            if isinstance(target, MaterialNode):
                wires.append(Connection(view_node.stable_id, port.name(), target.stable_id, target_port.name()))
    return wires


def read_frames(view: MaterialNodeGraph, node_ids: set[str]) -> list[Frame]:
    """The view's frames, with their members among `node_ids`."""
    frames: list[Frame] = []
    for frame_node in _frame_nodes(view):
        members = sorted(_frame_members(frame_node) & node_ids, key=node_id_key)
        width, height = frame_node.size()
        frames.append(Frame(str(frame_node.get_property(FRAME_ID_PROPERTY)), frame_node.name(), _position(frame_node),
                            (float(width), float(height)), members, _frame_color(frame_node)))
    return frames


def snapshot(view: MaterialNodeGraph) -> MaterialGraph:
    """The view as a new MaterialGraph (ids must be unique: call renew_duplicate_ids first)."""
    graph = MaterialGraph()
    for view_node in view.material_nodes():
        graph.nodes[view_node.stable_id] = read_node(view_node)
    for view_node in view.material_nodes():
        for port in view_node.input_ports():
            for source_port in port.connected_ports():
                source = source_port.node()
                if isinstance(source, MaterialNode):
                    graph.connections.append(
                        Connection(source.stable_id, source_port.name(), view_node.stable_id, port.name())
                    )
    graph.frames = read_frames(view, set(graph.nodes))
    return graph


def _frame_color(frame_node: FrameNode) -> tuple[int, int, int] | None:
    """The backdrop's colour when the artist changed it from the default, else None."""
    red, green, blue = (int(component) for component in list(frame_node.color())[:3])
    if (red, green, blue) == tuple(FrameNode.DEFAULT_COLOR):
        return None
    return (red, green, blue)


def _enclosed_ids(frame_node: FrameNode) -> set[str]:
    return {node.stable_id for node in frame_node.nodes() if isinstance(node, MaterialNode)}


def _id_set(value: Any) -> set[str]:
    return {str(item) for item in value} if isinstance(value, (list, tuple)) else set()


def _frame_members(frame_node: FrameNode) -> set[str]:
    """Stored members, plus nodes moved into the rectangle, minus nodes moved out of it."""
    stored = _id_set(frame_node.get_property(FRAME_MEMBERS_PROPERTY))
    enclosed_at_load = _id_set(frame_node.get_property(FRAME_ENCLOSED_PROPERTY))
    enclosed = _enclosed_ids(frame_node)
    return (stored | (enclosed - enclosed_at_load)) - (enclosed_at_load - enclosed)


def _frame_nodes(view: MaterialNodeGraph) -> list[FrameNode]:
    return [node for node in view.all_nodes() if isinstance(node, FrameNode)]


def populate(view: MaterialNodeGraph, graph: MaterialGraph, scope: Scope | None = None) -> list[str]:
    """Replace the view's content with `graph` (no undo entries; the undo stack is cleared).

    `scope` says where `graph` sits (inside which group definition, with
    which definitions around): dynamic node types (group instances, Group
    Input/Output, Custom Code) take their ports from it.

    Returns problems found: nodes of types the catalog does not know cannot
    be shown (NodeGraphQt would drop them silently), so they are reported,
    along with connections to them or to ports that do not exist, and every
    connection after the first into one input (a file may hold them; the view
    shows one, the lowering reports the node).
    """
    assert view.registry is not None, "register_catalog first"
    view.clear_session()
    with view.unindexed_scene():
        problems = _build(view, graph, scope if scope is not None else Scope(graph.functions), push_undo=False)
    view.clear_selection()
    view.undo_stack().clear()
    view.refresh_constraint_tables()
    return problems


def _build(view: MaterialNodeGraph, graph: MaterialGraph, scope: Scope, push_undo: bool) -> list[str]:
    assert view.registry is not None, "register_catalog first"
    problems: list[str] = []
    created: dict[str, MaterialNode] = {}
    with view.bulk_naming(), deferred_layout():
        _create_nodes(view, graph, scope, created, problems, push_undo)
    for view_node in created.values():
        # NodeGraphQt's add command copied the size before the (deferred) layout.
        view_node.model.width, view_node.model.height = view_node.view.width, view_node.view.height
    for connection in graph.connections:
        source = created.get(connection.source_node)
        target = created.get(connection.target_node)
        output = source.outputs().get(connection.source_port) if source else None
        input_ = target.inputs().get(connection.target_port) if target else None
        if output is None or input_ is None:
            problems.append(
                f"connection {connection.source_node}.{connection.source_port} -> "
                f"{connection.target_node}.{connection.target_port} cannot be shown"
            )
            continue
        if not input_.multi_connection() and input_.connected_ports():
            # NodeGraphQt would silently replace the first connection; the lowering diagnoses the node.
            problems.append(
                f"connection {connection.source_node}.{connection.source_port} -> "
                f"{connection.target_node}.{connection.target_port} cannot be shown: the input is already connected"
            )
            continue
        output.connect_to(input_, push_undo=push_undo, emit_signal=False)
    _create_frames(view, graph.frames, push_undo)
    return problems


def _create_frames(view: MaterialNodeGraph, frames: list[Frame], push_undo: bool) -> None:
    for frame in frames:
        frame_node = view.create_node(FrameNode.type_, name=frame.title or "Frame", pos=frame.position,
                                      push_undo=push_undo, selected=False)
        frame_node.model.set_property(FRAME_ID_PROPERTY, frame.id)
        if frame.color is not None:
            frame_node.set_color(*frame.color)
        frame_node.view.width, frame_node.view.height = frame.size
        frame_node.model.width, frame_node.model.height = frame.size
        frame_node.model.set_property(FRAME_MEMBERS_PROPERTY, list(frame.node_ids))
        frame_node.model.set_property(FRAME_ENCLOSED_PROPERTY, sorted(_enclosed_ids(frame_node), key=node_id_key))


def show_nodes(view: MaterialNodeGraph, nodes: list[Node], scope: Scope) -> tuple[dict[str, MaterialNode], list[str]]:
    """Add view nodes for `nodes` (outside the undo stack); returns them by id, and what cannot be shown."""
    problems: list[str] = []
    created: dict[str, MaterialNode] = {}
    with view.bulk_naming(), deferred_layout():
        _create_nodes(view, MaterialGraph({node.id: node for node in nodes}), scope, created, problems, False)
    for view_node in created.values():
        view_node.model.width, view_node.model.height = view_node.view.width, view_node.view.height
    return created, problems


def show_frames(view: MaterialNodeGraph, frames: list[Frame]) -> None:
    """Replace the view's frames with `frames` (outside the undo stack)."""
    for frame_node in _frame_nodes(view):
        view.remove_node(frame_node, push_undo=False)
    _create_frames(view, frames, False)


def _create_nodes(view: MaterialNodeGraph, graph: MaterialGraph, scope: Scope, created: dict[str, MaterialNode],
                  problems: list[str], push_undo: bool) -> None:
    """The view's nodes for `graph`'s (in id order), into `created`; unknown types go to `problems`.

    Dynamic node types (group instances, Group Input/Output, Custom Code)
    take their ports from `scope`.
    """
    assert view.registry is not None, "register_catalog first"
    for node_id in sorted(graph.nodes, key=node_id_key):
        node = graph.nodes[node_id]
        resolved = resolve_node_type(node, scope) if node.type_name in DYNAMIC_NODE_TYPES else None
        if node.type_name not in view.registry:
            problems.append(f"node {node_id}: unknown node type '{node.type_name}' (not shown)")
            continue
        if isinstance(resolved, str):
            # Shown with its placeholder ports (its wires cannot be drawn); the lowering reports why.
            problems.append(f"node {node_id}: {resolved}")
            resolved = None
        view_node = view.create_material_node(node.type_name, position=node.position, push_undo=push_undo,
                                              selected=False, node_type=resolved)
        view_node.set_stable_id(node_id)
        known = {spec.name for spec in view_node.CATALOG_TYPE.properties}
        extra = {name: to_view_value(value) for name, value in node.properties.items() if name not in known}
        if extra:
            view_node.model.set_property(EXTRA_PROPERTIES, extra)
        for name, value in node.properties.items():
            if name in known:
                view_node.set_property(property_key(name), to_view_value(value), push_undo=False)
        view_node.refresh_title()  # "Color Parameter: base_color" from the start, not after the next lowering
        view_node.settle_sections()  # sections whose values are not neutral start open (wires open theirs)
        created[node_id] = view_node


def renew_duplicate_ids(view: MaterialNodeGraph, graph_hint: MaterialGraph | None = None) -> list[MaterialNode]:
    """Give every node with an empty or already taken stable id a fresh one; returns the renewed nodes.

    Which of two nodes sharing an id keeps it: the one that had it in
    `graph_hint` (the previous snapshot) at the same position, else the
    first found. Pasted and duplicated nodes are new objects at new
    positions, so the original always keeps its id.
    """
    nodes = view.material_nodes()
    by_id: dict[str, list[MaterialNode]] = {}
    for node in nodes:
        by_id.setdefault(node.stable_id, []).append(node)
    taken = MaterialGraph()
    for node_id in by_id:
        if node_id:
            taken.nodes[node_id] = Node(node_id, "", {}, (0.0, 0.0))
    renewed: list[MaterialNode] = []
    for node_id, holders in by_id.items():
        if node_id and len(holders) == 1:
            continue
        keeper: MaterialNode | None = None
        if node_id:
            keeper = holders[0]
            if graph_hint is not None and node_id in graph_hint.nodes:
                previous = graph_hint.nodes[node_id].position
                for holder in holders:
                    if _position(holder) == previous:
                        keeper = holder
                        break
        for holder in holders:
            if holder is keeper:
                continue
            fresh = taken.new_node_id()
            taken.nodes[fresh] = Node(fresh, "", {}, (0.0, 0.0))
            holder.set_stable_id(fresh)
            renewed.append(holder)
    _renew_parameter_names(nodes, renewed)
    _renew_frame_ids(view)
    return renewed


def _renew_parameter_names(nodes: list[MaterialNode], renewed: list[MaterialNode]) -> None:
    """A pasted or duplicated parameter node whose name is taken gets a fresh one (`shininess2`).

    Two parameters may not share a name, so a copy that kept its original's
    name would break the material the moment it was made. Written outside
    the undo stack, like the ids: undoing the paste removes the node.
    """
    key = property_key("name")
    fresh_nodes = {id(node) for node in renewed}
    used = {node.get_property(key) for node in nodes
            if node.CATALOG_TYPE.type_name in PARAMETER_NODE_TYPES and id(node) not in fresh_nodes}
    for node in renewed:
        if node.CATALOG_TYPE.type_name not in PARAMETER_NODE_TYPES:
            continue
        name = node.get_property(key)
        if isinstance(name, str) and name and name in used:
            base = name.rstrip("0123456789") or name
            counter = 2
            while f"{base}{counter}" in used:
                counter += 1
            name = f"{base}{counter}"
            node.model.set_property(key, name)
        used.add(name)


def _renew_frame_ids(view: MaterialNodeGraph) -> None:
    frames = _frame_nodes(view)
    seen: set[str] = set()
    used = {str(frame.get_property(FRAME_ID_PROPERTY) or "") for frame in frames}
    counter = 1
    for frame in frames:
        frame_id = str(frame.get_property(FRAME_ID_PROPERTY) or "")
        if frame_id and frame_id not in seen:
            seen.add(frame_id)
            continue
        while f"f{counter}" in used or f"f{counter}" in seen:
            counter += 1
        fresh = f"f{counter}"
        frame.model.set_property(FRAME_ID_PROPERTY, fresh)
        # A pasted or duplicated frame starts with the nodes it encloses.
        frame.model.set_property(FRAME_MEMBERS_PROPERTY, [])
        frame.model.set_property(FRAME_ENCLOSED_PROPERTY, [])
        seen.add(fresh)
        used.add(fresh)
