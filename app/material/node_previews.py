"""Node previews without Qt or OpenGL: which output a node shows, on what, and when it must be redrawn.

Every node with a float, vector, colour, bool or texture output shows a
thumbnail of its first such output (the *preview port*). All thumbnails of
a graph come from one module (`lower_thumbnails`): the whole graph lowered
once with every preview port as an unlit result, `lowering.PREVIEW_SELECTOR`
picking which one a draw shows (`lowering.PreviewOutputs`). So a refresh
costs one lowering, one compile and one link, however many nodes there
are; each thumbnail is then one draw.

**Square or mesh** (`geometry`): a value is drawn on a flat UV square
filling the thumbnail when it depends only on the texture coordinates,
time, parameters, textures and constants, and on the preview mesh (the
sphere, lit by nothing: values are unlit) when the sub-graph feeding it
reads anything of the surface's geometry or of the view: world or object
position, normal, tangent, bitangent, the view direction, the camera or
the transforms, the environment (`MESH_READS`). The lowering records what
each node reads (`LoweringResult.reads`); a node's sub-graph reads what its
upstream nodes read. A constant is a flat swatch; a noise over UVs a flat
pattern; a Fresnel or a normal a sphere.

**Animated** (`animated`): a thumbnail whose sub-graph reads the time.

**Redrawing only what changed** (`fingerprints`): each node's fingerprint
hashes its type, its properties, the effective values of its parameters
(variants included) and of its textures, and, for each connected input,
the fingerprint and port of the node feeding it, so a node's fingerprint
changes exactly when something upstream of it (or itself) changed. A
thumbnail is redrawn when its fingerprint or the drawing settings (output
kind, exposure, tone mapper, size) changed.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.material.catalog import Scope, node_type_for
from app.material.graph import MaterialGraph, Node
from app.material.group_names import FUNCTION_PROPERTY
from app.material.groups import GROUP_INPUT_TYPE, GROUP_OUTPUT_TYPE, GROUP_TYPE, reachable, ungroup
from app.material.lowering import (
    LoweringResult,
    PreviewOutputs,
    lower,
)
from app.material.node_types import NodeDiagnostic
from app.material.parameters import ParameterSpec
from app.material.port_types import PortType
from app.material.propagation import propagate
from app.material.scene import DISPLAY_OUTPUT_NAME, OUTPUT_NODE_TYPES, RADIANCE_OUTPUT_NAME
from app.material.texture_passes import DEPENDS_ON_A_PROBLEM
from app.material.traversal import connected_nodes, node_id_key, topological_order
from vpl_core.backends import glsl
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.diagnostics import VplError
from vpl_core.text.reader import collector_paused

#: Port types a thumbnail can show (`lowering.preview_color` says how).
PREVIEWABLE_TYPES = frozenset({PortType.FLOAT, PortType.VEC2, PortType.VEC3, PortType.VEC4, PortType.COLOR, PortType.BOOL,
                               PortType.TEXTURE})
SQUARE = "square"
MESH = "mesh"
#: Reads (`LoweringResult.reads` names) that make a value depend on the surface's geometry or the view.
MESH_READS = frozenset({
    "world_position", "world_normal", "world_tangent", "world_tangent_raw", "world_bitangent", "view_direction",
    "scene.model", "scene.view", "scene.projection", "scene.normal_matrix", "scene.camera_position",
    "environment_specular", "environment_irradiance", "environment_brdf",
})
#: Reads that make a value change with time.
TIME_READS = frozenset({"time", "scene.time"})
#: Node types that never get a thumbnail (a reroute is a dot; its source has the thumbnail; a group's body
#: shows its Group Input's values on the nodes that read them).
NO_THUMBNAIL_TYPES = frozenset({"reroute", GROUP_INPUT_TYPE, GROUP_OUTPUT_TYPE})


def preview_port(graph: MaterialGraph, node_id: str, port_types: Mapping[tuple[str, str], PortType]) -> str | None:
    """The output a node's thumbnail shows: its first output of a previewable type (None: no thumbnail).

    The node's own ports: a Custom Code node or a group node declares its outputs (names and types), so its
    type is resolved for this node in the graph's scope, never taken from the type's defaults.
    """
    node = graph.nodes.get(node_id)
    if node is None or node.type_name in NO_THUMBNAIL_TYPES or node.type_name in OUTPUT_NODE_TYPES:
        return None
    node_type = node_type_for(node, Scope(graph.functions))
    if node_type is None:
        return None
    for port in node_type.outputs:
        resolved = port_types.get((node_id, port.name))
        if resolved is None and isinstance(port.type, PortType):
            resolved = port.type
        if resolved in PREVIEWABLE_TYPES:
            return port.name
    return None


def level_preview_graph(document: MaterialGraph, level: str | None) -> MaterialGraph:
    """The graph the thumbnails of one level are drawn from: the material (None), or a group's body alone.

    A body is not a material (its Group Input's values come from each call), so it is previewed as a lone
    instance of the group with its inputs unconnected, ungrouped: every inner node keeps its id and sees
    the interface's defaults (the texture coordinates, the world position, a default value), as a new
    instance of the group would compute.
    """
    if level is None or level not in document.functions:
        return document
    body = document.functions[level].body
    alone = MaterialGraph()
    alone.functions = dict(document.functions)
    instance = alone.add_node(GROUP_TYPE, (0.0, 0.0), {FUNCTION_PROPERTY: level}, node_id=body.new_node_id())
    return ungroup(alone, None, instance.id)


def upstream_reads(graph: MaterialGraph, reads: Mapping[str, Collection[str]], node_ids: Iterable[str]) -> dict[str, frozenset[str]]:
    """What the sub-graph feeding each node reads: its own reads and those of every node upstream.

    One pass in topological order (a node's set is its own reads and its sources' sets), linear in the
    graph; a node on or downstream of a cycle is walked alone.
    """
    sources: dict[str, list[str]] = {}
    for connection in graph.connections:
        if connection.source_node in graph.nodes and connection.target_node in graph.nodes:
            sources.setdefault(connection.target_node, []).append(connection.source_node)
    order, _ = topological_order(graph)
    gathered: dict[str, frozenset[str]] = {}
    for node_id in order:
        names = set(reads.get(node_id, ()))
        for source in sources.get(node_id, ()):
            names.update(gathered[source])
        gathered[node_id] = frozenset(names)
    found: dict[str, frozenset[str]] = {}
    for node_id in node_ids:
        known = gathered.get(node_id)
        if known is None:
            walked: set[str] = set()
            for upstream in connected_nodes(graph, [node_id]):
                walked.update(reads.get(upstream, ()))
            known = frozenset(walked)
        found[node_id] = known
    return found


def geometry(read: Collection[str]) -> str:
    """SQUARE or MESH for a sub-graph that reads `read` (module docstring)."""
    return MESH if not MESH_READS.isdisjoint(read) else SQUARE


def animated(read: Collection[str]) -> bool:
    return not TIME_READS.isdisjoint(read)


def material_output_name(graph: MaterialGraph) -> str:
    """The colour output kind of the material: its output node's (`color` without one)."""
    outputs = sorted((node_id for node_id, node in graph.nodes.items() if node.type_name in OUTPUT_NODE_TYPES), key=node_id_key)
    return OUTPUT_NODE_TYPES[graph.nodes[outputs[0]].type_name] if outputs else DISPLAY_OUTPUT_NAME


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr, separators=(",", ":"))


def fingerprints(graph: MaterialGraph, extra: Mapping[str, object] | None = None) -> dict[str, str]:
    """A hash per node of everything its value depends on (module docstring).

    `extra` adds per-node data the graph does not hold (a parameter's
    effective value, an image's identity). Nodes on a cycle, and nodes fed
    by them, get a fingerprint from their own data only (they cannot be
    previewed anyway).
    """
    extra = extra or {}
    incoming: dict[str, list[tuple[str, str, str]]] = {}
    for connection in graph.connections:
        incoming.setdefault(connection.target_node, []).append((connection.target_port, connection.source_node, connection.source_port))
    order, cyclic = topological_order(graph)
    found: dict[str, str] = {}
    definitions: dict[str, str] = {}
    for node_id in order:
        node = graph.nodes[node_id]
        inputs = sorted((port, found.get(source, "missing"), source_port) for port, source, source_port in incoming.get(node_id, ()))
        text = _json([node.type_name, node.properties, extra.get(node_id), inputs, _definitions(graph, node, definitions)])
        found[node_id] = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    for node_id in cyclic:
        node = graph.nodes[node_id]
        text = _json(["cycle", node_id, node.type_name, node.properties, extra.get(node_id)])
        found[node_id] = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    return found


def _definitions(graph: MaterialGraph, node: Node, cache: dict[str, str]) -> str:
    """A group node's value depends on its definition and every definition its body uses: their hash ("" else)."""
    function_id = node.properties.get(FUNCTION_PROPERTY) if node.type_name == GROUP_TYPE else None
    if not isinstance(function_id, str):
        return ""
    if function_id not in cache:
        used = sorted(reachable(graph.functions, [function_id]))
        text = _json([graph.functions[used_id].to_dict() for used_id in used])
        cache[function_id] = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    return cache[function_id]


@dataclass
class ThumbnailProgram:
    """The one module all thumbnails of a graph are drawn with, and what each thumbnail is."""

    result: LoweringResult
    #: Preview ports in selector order: draw k shows `ports[k]`.
    ports: tuple[tuple[str, str], ...] = ()
    #: Why a node (with a preview port) has no thumbnail.
    problems: dict[str, str] = field(default_factory=dict)
    #: Per previewed node: SQUARE or MESH.
    geometry: dict[str, str] = field(default_factory=dict)
    #: Previewed nodes whose value changes with time.
    animated: frozenset[str] = frozenset()
    output_name: str = DISPLAY_OUTPUT_NAME

    @property
    def ok(self) -> bool:
        return self.result.verified is not None and bool(self.ports)

    def selector(self, node_id: str) -> int | None:
        """The selector value that draws `node_id`'s thumbnail (None: it has none)."""
        return self._selectors.get(node_id)

    @functools.cached_property
    def _selectors(self) -> dict[str, int]:
        """Node -> selector, built once: asked for every node of every refresh (a scan of `ports` each was
        quadratic in the graph's size: 1.7 s of the worker per refresh of 10,000 nodes, and as much of the window's
        thread per final batch)."""
        selectors: dict[str, int] = {}
        for position, (node, _) in enumerate(self.ports):
            selectors.setdefault(node, position)
        return selectors


def _first_messages(diagnostics: Iterable[NodeDiagnostic]) -> dict[str, str]:
    messages: dict[str, str] = {}
    for diagnostic in diagnostics:
        if diagnostic.node_id is not None:
            messages.setdefault(diagnostic.node_id, diagnostic.message)
    return messages


def lower_thumbnails(graph: MaterialGraph, nodes: Collection[str] | None = None, output_name: str | None = None,
                     attempts: int = 4) -> ThumbnailProgram:
    """The thumbnail module of `graph` for `nodes` (None: every node with a preview port).

    Nodes that cannot be lowered, and nodes fed by them, are left out with
    the reason (`problems`); should verification or the backend still fail
    on a node, it and its downstream nodes are left out and the lowering
    tried again (at most `attempts` times).
    """
    output_name = output_name or material_output_name(graph)
    port_types = propagate(graph).port_types
    candidates = sorted(graph.nodes if nodes is None else (node for node in nodes if node in graph.nodes), key=node_id_key)
    ports = [(node_id, port) for node_id in candidates if (port := preview_port(graph, node_id, port_types)) is not None]
    problems: dict[str, str] = {}
    # The cyclic collector is paused while the module is lowered, published and compiled: those steps keep
    # hundreds of thousands of new objects alive until they end, and the collections their allocations would
    # start (each over the editor's whole heap, at the oldest generation) find nothing to free.
    with collector_paused():
        result, ports = _lower_leaving_out_failures(graph, ports, output_name, problems, attempts)
    if not result.ok:
        return ThumbnailProgram(result, (), {**problems, **{node: problems.get(node, "no preview") for node, _ in ports}},
                                output_name=output_name)
    reads = upstream_reads(graph, result.reads, (node_id for node_id, _ in result.preview_ports))
    return ThumbnailProgram(
        result,
        result.preview_ports,
        problems,
        {node_id: geometry(read) for node_id, read in reads.items()},
        frozenset(node_id for node_id, read in reads.items() if animated(read)),
        output_name,
    )


def _lower_leaving_out_failures(graph: MaterialGraph, ports: list[tuple[str, str]], output_name: str,
                                problems: dict[str, str], attempts: int) -> tuple[LoweringResult, list[tuple[str, str]]]:
    """`lower_thumbnails`' lowering and the ports left: nodes that fail (and their downstream) go to `problems`."""
    result = LoweringResult()
    for _ in range(max(1, attempts)):
        if not ports:
            break
        result = lower(graph, PreviewOutputs(tuple(ports), output_name))
        shown = set(result.preview_ports)
        messages = _first_messages(result.diagnostics)
        for node_id, _port in ports:
            if (node_id, _port) not in shown and node_id not in problems:
                problems[node_id] = messages.get(node_id, DEPENDS_ON_A_PROBLEM)
        if result.ok:
            break
        failing = {diagnostic.node_id for diagnostic in result.errors if diagnostic.node_id is not None}
        if not failing:
            reason = result.errors[0].message if result.errors else "the preview could not be built"
            problems.update({node_id: reason for node_id, _ in ports if node_id not in problems})
            ports = []
            break
        dropped = connected_nodes(graph, failing, upstream=False)
        for node_id in dropped:
            problems.setdefault(node_id, messages.get(node_id, DEPENDS_ON_A_PROBLEM))
        ports = [port for port in result.preview_ports or ports if port[0] not in dropped]
    return result, ports


def structure_key(graph: MaterialGraph, output_name: str) -> str:
    """What the thumbnail module depends on: the graph without its parameter values, and the output kind.

    Parameter values and images are uniforms, set per draw: changing one
    needs new drawings, not a new module.
    """
    from app.material.parameters import node_value_property

    stripped = graph.copy()
    for node in stripped.nodes.values():
        value_property = node_value_property(node)
        if value_property is not None:
            node.properties.pop(value_property, None)
    stripped.variants, stripped.active_variant = [], None
    prints = fingerprints(stripped)
    text = _json([output_name, sorted(prints.items())])
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class NodeProgram:
    """One node's output as a program of its own ("Preview This Node"): the artifact, or why there is none."""

    port: str
    artifact: ProgramArtifact | None
    problem: str = ""
    #: The module's parameters (uniforms a host sets: material parameters, textures).
    parameters: tuple[ParameterSpec, ...] = ()


def node_program(graph: MaterialGraph, node_id: str, target: str, *, output_name: str | None = None,
                 exact: bool = False) -> NodeProgram | None:
    """The sub-graph feeding `node_id`'s preview port lowered alone, compiled for `target`; None: nothing to show.

    `output_name` defaults to the material's; `exact` keeps the value unclamped with its alpha
    (`PreviewOutputs.exact`): the texture view's module is `texture_program`.
    """
    port = preview_port(graph, node_id, propagate(graph).port_types) if node_id in graph.nodes else None
    if port is None:
        return None
    result = lower(graph, PreviewOutputs(((node_id, port),), output_name or material_output_name(graph), exact))
    if not result.ok or result.verified is None:
        return NodeProgram(port, None, _why_not(result, node_id))
    artifact = result.artifact
    if artifact is None or artifact.target != target:
        try:
            artifact = glsl.compile(result.verified, target=target, finishing=True)
        except VplError as error:
            return NodeProgram(port, None, str(error))
    return NodeProgram(port, artifact, parameters=tuple(result.parameters))


def _why_not(result: LoweringResult, node_id: str) -> str:
    """Why a node's sub-graph was not lowered: its first error, and the problem upstream that caused it."""
    errors = [d for d in result.diagnostics if d.severity == "error"]
    first = errors[0] if errors else (result.diagnostics[0] if result.diagnostics else None)
    if first is None:
        return "it cannot be lowered"
    upstream = next((d for d in result.diagnostics if d.node_id not in (None, node_id, first.node_id)), None)
    if upstream is not None and first.node_id in (None, node_id):
        return f"{first.message} ({upstream.node_id}: {upstream.message})"
    return first.message


def texture_program(graph: MaterialGraph, node_id: str, target: str) -> NodeProgram | None:
    """The texture view's module of `node_id`: its preview port's exact value, linear (`node_program`).

    Lowered as a `radiance` result whatever the material's output, so a
    texture parameter's texels are decoded from sRGB as a Texture Sample node
    decodes them: the view reads linear values and encodes them for display
    itself. Drawn over the UV square, a node is seen in texture space.
    """
    return node_program(graph, node_id, target, output_name=RADIANCE_OUTPUT_NAME, exact=True)
