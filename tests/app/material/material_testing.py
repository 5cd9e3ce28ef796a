"""Graph-building helpers shared by the material tests.

`node_cases()` lists, for every catalog node type, the variants the
catalog test lowers: defaults only, and for node types with dynamic inputs
each input width 1-4 (plus colour), each wired from constant nodes.
`wire_to_output` reduces every output of a node to one float (length of a
vector, select of a bool, a sample of a texture) and sums them into the
Material Output, so all of a node's outputs are live. `approved_graphs` is a
hypothesis strategy of random graphs built only from connections
`can_connect` approves.
"""

from __future__ import annotations

import functools
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from app.material.catalog import NODE_TYPES
from app.material.connections import can_connect
from app.material.graph import MaterialGraph
from app.material.node_types import NodeType
from app.material.port_types import PortType
from app.material.texture_passes import BUFFER_TYPE, FILTERS

if TYPE_CHECKING:
    from app.material.lowering import LoweringResult

CONSTANT_FOR: dict[PortType, tuple[str, str]] = {
    PortType.FLOAT: ("constant_float", "out"),
    PortType.VEC2: ("constant_vec2", "out"),
    PortType.VEC3: ("constant_vec3", "out"),
    PortType.VEC4: ("constant_vec4", "out"),
    PortType.COLOR: ("constant_color", "out"),
}
WIDTH_TYPES = {1: PortType.FLOAT, 2: PortType.VEC2, 3: PortType.VEC3, 4: PortType.VEC4, "color": PortType.COLOR}


@dataclass
class NodeCase:
    type_name: str
    variant: str
    dynamic: Any = None  # None: leave dynamic inputs unconnected; else a key of WIDTH_TYPES
    properties: dict[str, Any] = field(default_factory=dict)
    connect_fixed: bool = True
    #: Inputs left unconnected even when `connect_fixed` (values a choice reads as numbers).
    unconnected: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.type_name}-{self.variant}"


def _has_dynamic(node_type: NodeType) -> bool:
    return any(not isinstance(port.type, PortType) for port in node_type.inputs)


def node_cases() -> list[NodeCase]:
    cases: list[NodeCase] = []
    for type_name, node_type in NODE_TYPES.items():
        if type_name == "material_output":
            cases.append(NodeCase(type_name, "defaults", connect_fixed=False))
            cases.append(NodeCase(type_name, "connected"))
            cases.append(NodeCase(type_name, "clip", properties={"alpha_clip": 0.5}))
            continue
        cases.append(NodeCase(type_name, "defaults", connect_fixed=False))
        if node_type.inputs:
            cases.append(NodeCase(type_name, "connected"))
        if _has_dynamic(node_type):
            for width in (1, 2, 3, 4, "color"):
                # A float has only x to swizzle, a vec2 only x and y.
                properties = {"pattern": {1: "xx", 2: "yx"}[width]} if type_name == "swizzle" and width in (1, 2) else {}
                cases.append(NodeCase(type_name, f"dynamic-{width}", dynamic=width, properties=properties))
    # Properties that change types.
    for size in (2, 3, 4):
        cases.append(NodeCase("compose", f"size-{size}", properties={"size": size}))
        cases.append(NodeCase("vector_parameter", f"size-{size}", properties={"size": size}))
    for pattern in ("x", "yx", "zyx", "wzyx", "rgb"):
        cases.append(NodeCase("swizzle", f"pattern-{pattern}", dynamic=4, properties={"pattern": pattern}))
    for operator in ("<", "<=", ">", ">=", "==", "!="):
        cases.append(NodeCase("if", f"operator-{operator}", dynamic=3, properties={"operator": operator}))
    # Enum properties that select different code: every choice once (the default is covered above).
    for type_name, node_type in NODE_TYPES.items():
        for spec in node_type.properties:
            if spec.kind != "enum" or type_name == "if":
                continue
            # "Displacement and bump" moves the mesh in the vertex stage, which reads the scale and mid level as
            # numbers: connecting them is refused (height.lower_displacement).
            unconnected = ("height_scale", "height_mid_level") if spec.name == "displacement_method" else ()
            for choice in spec.choices:
                if choice != spec.default:
                    cases.append(NodeCase(type_name, f"{spec.name}-{choice}", properties={spec.name: choice},
                                          unconnected=unconnected))
    for interpolation in ("linear", "ease", "constant"):
        stops = ((0.0, 1.0, 0.0, 0.0, 1.0), (0.3, 0.0, 1.0, 0.0, 1.0), (0.3, 0.0, 0.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0, 0.5))
        cases.append(NodeCase("color_ramp", f"four-stops-{interpolation}", properties={"stops": stops, "interpolation": interpolation}))
    cases.append(NodeCase("color_ramp", "no-stops", properties={"stops": ()}))
    cases.append(NodeCase("remap", "clamped", dynamic=3, properties={"clamp": True}))
    return cases


def source_for(graph: MaterialGraph, port_type: PortType) -> tuple[str, str]:
    """A new node producing a value of `port_type`; returns (node id, output port)."""
    if port_type is PortType.TEXTURE:
        node = graph.add_node("texture_parameter")
        return node.id, "out"
    if port_type is PortType.BOOL:
        node = graph.add_node("compare", properties={"operator": "<"})
        return node.id, "out"
    type_name, port = CONSTANT_FOR[port_type]
    node = graph.add_node(type_name, properties={"value": (0.25, 0.5, 0.75, 1.0)[: port_type.width] if port_type.width > 1 else 0.5})
    return node.id, port


def to_float(graph: MaterialGraph, node_id: str, port: str, port_type: PortType) -> tuple[str, str]:
    """A float derived from an output, so that every output can reach the Material Output."""
    if port_type is PortType.FLOAT:
        return node_id, port
    if port_type is PortType.BOOL:
        select = graph.add_node("select")
        graph.connect(node_id, port, select.id, "condition")
        return select.id, "out"
    if port_type is PortType.TEXTURE:
        sample = graph.add_node("sample_texture")
        graph.connect(node_id, port, sample.id, "texture")
        return sample.id, "a"
    length = graph.add_node("length")
    graph.connect(node_id, port, length.id, "vector")
    return length.id, "out"


def wire_to_output(graph: MaterialGraph, node_id: str, port_types: dict[tuple[str, str], PortType]) -> str:
    """Sum every output of the node (as floats) into a new Material Output; returns its id."""
    node_type = NODE_TYPES[graph.nodes[node_id].type_name]
    output = graph.add_node("material_output")
    total: tuple[str, str] | None = None
    for port in node_type.outputs:
        port_type = port_types.get((node_id, port.name), port.type if isinstance(port.type, PortType) else PortType.FLOAT)
        if graph.nodes[node_id].type_name == "split":
            width = port_types[(node_id, "vector")].width
            if "xyzw".index(port.name) >= width:
                continue  # a component the input does not have
        value = to_float(graph, node_id, port.name, port_type)
        if total is None:
            total = value
        else:
            add = graph.add_node("add")
            graph.connect(total[0], total[1], add.id, "a")
            graph.connect(value[0], value[1], add.id, "b")
            total = (add.id, "out")
    if total is not None:
        graph.connect(total[0], total[1], output.id, "base_color")
    return output.id


def build_case(case: NodeCase) -> tuple[MaterialGraph, str]:
    """The graph of one catalog case and the id of the node under test."""
    from app.material.propagation import propagate

    graph = MaterialGraph()
    node = graph.add_node(case.type_name, properties=dict(case.properties))
    node_type = NODE_TYPES[case.type_name]
    for port in node_type.inputs:
        if port.name in case.unconnected:
            continue
        if isinstance(port.type, PortType):
            if case.type_name in FILTERS and port.type is PortType.TEXTURE:
                # A filter reads buffers (docs/texture-space.md): a Texture Buffer of the default colour.
                source = (graph.add_node(BUFFER_TYPE, properties={"resolution": "256"}).id, "out")
                allowed = FILTERS[case.type_name].input_sources.get(port.name)
                if allowed:  # an input that reads one kind of filter (Flood Fill's readers): that filter between
                    between = graph.add_node(allowed[0])
                    graph.connect(source[0], source[1], between.id, FILTERS[allowed[0]].main_input)
                    source = (between.id, NODE_TYPES[allowed[0]].outputs[0].name)
                graph.connect(source[0], source[1], node.id, port.name)
            elif case.type_name in FILTERS:
                if case.connect_fixed:  # a filter's value input takes a parameter
                    parameter = {PortType.FLOAT: "float_parameter", PortType.COLOR: "color_parameter"}.get(
                        port.type, "vector_parameter")
                    properties = {"size": port.type.width} if parameter == "vector_parameter" else {}
                    graph.connect(graph.add_node(parameter, properties=properties).id, "out", node.id, port.name)
            elif case.connect_fixed or port.type is PortType.TEXTURE:
                source = source_for(graph, port.type)
                graph.connect(source[0], source[1], node.id, port.name)
        elif case.dynamic is not None:
            source = source_for(graph, WIDTH_TYPES[case.dynamic])
            graph.connect(source[0], source[1], node.id, port.name)
    if case.type_name == "material_output":
        return graph, node.id
    port_types = propagate(graph).port_types
    wire_to_output(graph, node.id, port_types)
    return graph, node.id


def glslang_check(validator: str, directory: Path, stem: str, vertex_code: str, fragment_code: str) -> None:
    """Write both stages and link them with glslangValidator (`-l` compiles each stage, then links); assert
    success. Many programs at once: glslang_programs.check_programs."""
    vertex = directory / f"{stem}.vert.glsl"
    fragment = directory / f"{stem}.frag.glsl"
    vertex.write_text(vertex_code)
    fragment.write_text(fragment_code)
    completed = subprocess.run([validator, "-l", str(vertex), str(fragment)], capture_output=True, text=True)
    assert completed.returncode == 0, f"glslangValidator failed for {stem}:\n{completed.stdout}\n{completed.stderr}"


@st.composite
def approved_graphs(draw) -> MaterialGraph:
    """Graphs built only from connections can_connect approves, with one output node."""
    graph = MaterialGraph()
    known = sorted(name for name in NODE_TYPES if name != "material_output")
    for _ in range(draw(st.integers(min_value=1, max_value=10))):
        graph.add_node(draw(st.sampled_from(known)))
    output = graph.add_node("material_output")
    ids = list(graph.nodes)
    for _ in range(draw(st.integers(min_value=0, max_value=25))):
        source, target = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        source_type = NODE_TYPES[graph.nodes[source].type_name]
        target_type = NODE_TYPES[graph.nodes[target].type_name]
        if not source_type.outputs or not target_type.inputs:
            continue
        source_port = draw(st.sampled_from([p.name for p in source_type.outputs]))
        target_port = draw(st.sampled_from([p.name for p in target_type.inputs]))
        if can_connect(graph, source, source_port, target, target_port)[0]:
            graph.connect(source, source_port, target, target_port)
    for node_id in ids[:-1]:
        node_type = NODE_TYPES[graph.nodes[node_id].type_name]
        for port in node_type.outputs:
            if can_connect(graph, node_id, port.name, output.id, "base_color")[0]:
                graph.connect(node_id, port.name, output.id, "base_color")
                return graph
    return graph


@functools.cache
def lowered_example(name: str) -> LoweringResult:
    """The lowering of the built-in example `name` (`EXAMPLE_GRAPHS`), once per test process: several test
    modules read the same lowerings, and none changes them."""
    from app.material.examples import EXAMPLE_GRAPHS
    from app.material.lowering import lower

    return lower(EXAMPLE_GRAPHS[name]())
