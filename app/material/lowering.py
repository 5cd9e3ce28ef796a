"""Lowering a material graph to a VPL module, then verifying, publishing and compiling it.

`lower(graph)` reads a plain-data `MaterialGraph` (no Qt) and never raises:
every problem becomes a `NodeDiagnostic` naming the node it belongs to.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `app/material/lowering.py`.
"""

from __future__ import annotations

import copy as copy_module
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as dataclass_replace
from typing import Any

from app.material import group_lowering, texture_passes
from app.material.catalog import Scope, node_type_for
from app.material.graph import Connection, MaterialGraph, Node
from app.material.groups import GROUP_INPUT_TYPE
from app.material.node_types import (
    DEFAULT_SOURCES,
    LoweringFailure,
    NodeDiagnostic,
    NodeType,
    as_integer,
    as_number,
    as_numbers,
    input_default,
)
from app.material.parameters import PARAMETER_NODE_TYPES, ParameterKind, ParameterSpec
from app.material.port_types import LUMINANCE_WEIGHTS, PortType
from app.material.propagation import TypeResolution, propagate, scope_of
from app.material.scene import (
    DISPLAY_OUTPUT_NAME,
    HIDDEN_UNIFORM_PREFIX,
    OUTPUT_NODE_TYPES,
    RADIANCE_OUTPUT_NAME,
    REFINED_SCENE_FIELDS,
    RESERVED_UNIFORM_NAMES,
    SCENE_FIELDS,
    SCENE_RECORD_NAME,
    SCENE_UNIFORM_NAME,
    VERTEX_INPUTS_BY_NAME,
)
from app.material.traversal import connected_nodes, node_id_key, topological_order
from vpl_core import collector
from vpl_core.backends import glsl
from vpl_core.diagnostics import VplError
from vpl_core.ir import paths
from vpl_core.ir.builder import FunctionBuilder, StageBuilder, add_uniform, member, record
from vpl_core.ir.instructions import BinaryOperator, Builtin, Instruction, Terminator
from vpl_core.ir.module import Block, Function, Module, Semantic
from vpl_core.ir.types import FLOAT, INT, SAMPLER2D, VOID, Type, vec
from vpl_core.ir.values import ConstantValue, Operand, ReferenceValue, RegisterValue
from vpl_core.publish import VerifiedModule
from vpl_core.verify import VerificationError

#: The output node of new materials.
OUTPUT_NODE_TYPE = "surface_output"
VERTEX_ENTRY_NAME = "vertex_main"
FRAGMENT_ENTRY_NAME = "fragment_main"

DIAGNOSTIC_CATEGORIES = ("graph", "semantic", "target", "driver")
#: Port types a live value can have (`lower(live=...)`): float scalars, vectors and colours.
LIVE_PORT_TYPES = frozenset((PortType.FLOAT, PortType.VEC2, PortType.VEC3, PortType.VEC4, PortType.COLOR))
#: A (node id, property name) pair: a constant's `value`, or the property holding an unconnected input's default.
ValueKey = tuple[str, str]
#: The int uniform of a preview module with several outputs: draw k shows `PreviewOutputs.ports[k]`.
PREVIEW_SELECTOR = "preview_output"


@dataclass(frozen=True)
class PreviewOutputs:
    """Lower these node outputs as unlit results instead of the output node (the module docstring).

    `ports` are (node id, output port name); one port gives the sub-graph
    that feeds it alone ("Preview this node"), several give one module whose
    `PREVIEW_SELECTOR` uniform picks the port (the node thumbnails).
    `output_name` is the fragment colour output's name: `radiance` (linear,
    the host tone-maps it, as for a Surface Output material) or `color`
    (shown as it is, as for an Unlit Output material); None takes the
    material's own (its output node's; `color` without one).
    `exact` writes each value as it is (`preview_color`): nothing clamped,
    a four-component value's alpha kept; the texture view reads values
    from such a module.
    """

    ports: tuple[tuple[str, str], ...]
    output_name: str | None = None
    exact: bool = False


@dataclass(frozen=True)
class LiveValue:
    """A value lowered as a load of a hidden uniform instead of a literal (`lower(live=...)`).

    `node_id`/`property_name` is the value's place in the graph (a constant's
    `value`, or the property of an unconnected input's default:
    `from_input`), `uniform` the hidden uniform's name
    (`scene.HIDDEN_UNIFORM_PREFIX`), `port_type` the type it was lowered
    at, `value` the numbers the literal would have had (a float, or a tuple
    of `port_type.width` floats). `value_in(graph)` reads the same numbers
    from another graph, so a host can update the uniform without lowering.
    """

    node_id: str
    property_name: str
    uniform: str
    port_type: PortType
    value: float | tuple[float, ...]
    from_input: bool

    @property
    def key(self) -> ValueKey:
        return (self.node_id, self.property_name)

    @property
    def spec(self) -> ParameterSpec:
        """The uniform as the preview takes it (never shown: `parameters.is_hidden_uniform`)."""
        kind = ParameterKind.FLOAT if self.port_type is PortType.FLOAT else ParameterKind.VECTOR
        return ParameterSpec(self.uniform, kind, self.port_type.vpl_type, self.value)

    def value_in(self, graph: MaterialGraph) -> float | tuple[float, ...] | None:
        """The numbers this value has in `graph` (as the lowering would write its literal); None when it is
        gone or no longer a number (the edit changed the material's structure)."""
        node = graph.nodes.get(self.node_id)
        if node is None:
            return None
        node_type = node_type_for(node, scope_of(graph, None))
        if node_type is None:
            return None
        if self.from_input:
            numbers = default_numbers(input_default(node, node_type, self.property_name), self.port_type)
        else:
            spec = node_type.property(self.property_name)
            numbers = constant_numbers(node.properties.get(self.property_name, spec.default if spec is not None else 0.0),
                                       self.port_type)
        if numbers is None:
            return None
        return numbers[0] if self.port_type is PortType.FLOAT else numbers


def constant_numbers(value: Any, port_type: PortType) -> tuple[float, ...]:
    """The components of a constant node's literal of `port_type` (float: one; colour: alpha padded with 1)."""
    if port_type is PortType.FLOAT:
        return (as_number(value, 0.0),)
    return tuple(as_numbers(value, port_type.width, pad_alpha=port_type is PortType.COLOR))


def default_numbers(default: Any, target: PortType) -> tuple[float, ...] | None:
    """The components of the literal an unconnected input of type `target` reads (`_Lowering.default_operand`);
    None when the default is not a number (a source such as "texcoord", a bool) or `target` holds no floats."""
    if target not in LIVE_PORT_TYPES or isinstance(default, (str, bool)):
        return None
    if target.width == 1:
        return (as_numbers(default, 1)[0],)
    if not isinstance(default, (list, tuple)):
        return (as_number(default, 0.0),) * target.width
    return tuple(as_numbers(default, target.width, pad_alpha=target is PortType.COLOR))


@dataclass
class LoweringResult:
    module: Module | None = None
    verified: Any = None  # VerifiedModule
    artifact: Any = None  # ProgramArtifact
    text: str = ""
    diagnostics: list[NodeDiagnostic] = field(default_factory=list)
    port_types: dict[tuple[str, str], PortType] = field(default_factory=dict)
    parameters: list[ParameterSpec] = field(default_factory=list)
    provenance: dict[int, str] = field(default_factory=dict)
    #: id() of objects a group's helper function holds -> (definition id, node id in its body; "" for the
    #: function as a whole).
    scoped_provenance: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: Resolved port types inside each group definition the material uses: definition id -> (node, port) -> type.
    scoped_port_types: dict[str, dict[tuple[str, str], PortType]] = field(default_factory=dict)
    #: The surface values each node asked for: source and varying names, "scene.<field>", host uniform names.
    reads: dict[str, frozenset[str]] = field(default_factory=dict)
    #: For a preview lowering: the ports it shows, in selector order (ports that could not be lowered are left out).
    preview_ports: tuple[tuple[str, str], ...] = ()
    #: For a preview lowering of several ports: the name of its selector uniform (PREVIEW_SELECTOR, made unique).
    preview_selector: str = ""
    #: Seconds spent per phase: types, lowering, publication (verification, canonical text
    #: and its read-back), glsl (materialization and generation).
    timings: dict[str, float] = field(default_factory=dict)
    #: With `lower(live=...)`: the values lowered as hidden uniforms, by (node id, property).
    live_values: dict[ValueKey, LiveValue] = field(default_factory=dict)
    #: Live values a node also read as a property (its code depends on the number itself): a change of one of
    #: these needs a new lowering even though the value is a uniform.
    live_structural: frozenset[ValueKey] = frozenset()

    @property
    def errors(self) -> list[NodeDiagnostic]:
        return [diagnostic for diagnostic in self.diagnostics if diagnostic.severity == "error"]

    @property
    def ok(self) -> bool:
        """A verified module was produced and nothing is in error."""
        return self.verified is not None and not self.errors

    def node_for(self, subject: Any, context: Sequence[Any] = ()) -> str | None:
        """The node that emitted `subject` (or the innermost object of `context` that it finds)."""
        for candidate in (subject, *reversed(tuple(context))):
            if candidate is not None and id(candidate) in self.provenance:
                return self.provenance[id(candidate)]
        return None

    def scoped_node_for(self, subject: Any, context: Sequence[Any] = ()) -> tuple[str, str | None] | None:
        """(definition id, node id in its body or None) when `subject` sits in a group's helper, else None."""
        for candidate in (subject, *reversed(tuple(context))):
            if candidate is not None and id(candidate) in self.provenance:
                found = self.scoped_provenance.get(id(candidate))
                return (found[0], found[1] or None) if found is not None else None
        return None

    def diagnostic(self, node_id: str | None, category: str, message: str, subject: Any = None,
                   context: Sequence[Any] = ()) -> NodeDiagnostic:
        """A diagnostic on `node_id`, placed inside a group when `subject` is part of a group's helper."""
        scoped = self.scoped_node_for(subject, context) if subject is not None else None
        if scoped is None:
            return NodeDiagnostic(node_id, category, message)
        return NodeDiagnostic(node_id, category, message, scope=scoped[0], scoped_node=scoped[1])


@dataclass(frozen=True)
class OutputOverride:
    """Lower a graph for another purpose than the preview (baking a channel or a node to a texture).

    `lower` replaces the output node's own lowering: it gets the output
    node's `NodeContext` and must store the fragment colour (`ctx.lowering.
    declare_fragment_output(output_name)`) and return. `roots`: the nodes whose
    upstream is lowered (None: the output node's, as usual); the output node is
    always lowered last. `clip_from_texcoord`: the vertex stage writes
    clip = scene.projection * vec4(texcoord * 2 - 1, 0, 1) instead of the
    camera's projection of the position, so the mesh is drawn in its UV layout
    (projection selects a tile of it); every varying keeps its meaning.
    """

    lower: Callable[[NodeContext], None]
    output_name: str = DISPLAY_OUTPUT_NAME
    roots: tuple[str, ...] | None = None
    clip_from_texcoord: bool = False


# The tracking builder -----------------------------------------------------------------------


class TrackingFunctionBuilder(FunctionBuilder):
    """A FunctionBuilder that records the current node as provenance of everything it creates.

    Its declarations are deferred (`FunctionBuilder`'s `defer_declarations`:
    a declaration made after code no longer moves the whole entry block) and
    put in place by `_Lowering.finish_functions`, which the lowering calls
    for every builder made for it before the module is published.
    """

    def __init__(self, function: Function, lowering: _Lowering) -> None:
        self._lowering = lowering
        super().__init__(function, defer_declarations=True)
        lowering.builders.append(self)
        lowering.record(function)
        lowering.record(self.entry)

    def register(self, type: Type, index: int | None = None) -> RegisterValue:
        register = super().register(type, index)
        self._lowering.record(self.last_declaration)
        return register

    def emit(self, instruction: Instruction) -> Instruction:
        self._lowering.record(instruction)
        return super().emit(instruction)

    def new_block(self) -> Block:
        block = super().new_block()
        self._lowering.record(block)
        return block

    def terminate(self, terminator: Terminator) -> None:
        self._lowering.record(terminator)
        super().terminate(terminator)

    # Conveniences used by the node lowerings.

    def builtin(self, builtin: Builtin, result_type: PortType | Type, *arguments: Operand) -> RegisterValue:
        vpl_type = result_type.vpl_type if isinstance(result_type, PortType) else result_type
        return self.call_builtin(builtin, vpl_type, *arguments)

    def splat(self, value: float, port_type: PortType) -> Operand:
        """The constant `value` in every component of `port_type` (a constant for floats)."""
        constant = ConstantValue.of_float(value)
        if port_type.width <= 1:
            return constant
        return self.construct(port_type.vpl_type, constant)

    def compare(self, operator: BinaryOperator, lhs: Operand, rhs: Operand) -> RegisterValue:
        return self.binary(operator, lhs, rhs)


# The per-node context -------------------------------------------------------------------------


class NodeContext:
    """What a node's `lower` function sees: its inputs as operands, its properties, the builder.

    `input(name)` emits (once) whatever is needed to bring the connected
    value or the default to the input's resolved type; `set_output` makes a
    register or constant the value every consumer of that output reads.
    """

    def __init__(self, lowering: _Lowering, node: Node, node_type: NodeType) -> None:
        self.lowering = lowering
        self.node = node
        self.node_type = node_type
        self._inputs: dict[str, Operand] = {}

    # Builders and state.

    @property
    def fn(self) -> TrackingFunctionBuilder:
        """The builder of the fragment entry function, positioned at the current block."""
        return self.lowering.fragment_main

    @property
    def control_dependent(self) -> bool:
        """True when this node runs after an If node's branch (so: not in the entry block).

        Inside a group's helper, also when the node would run after a branch
        had the group not been made (`_Lowering.forced_control`: it depends on
        an If outside the group, or on a group whose output comes from one).
        """
        lowering = self.lowering
        return lowering.fragment_main.block is not lowering.fragment_main.entry or self.node.id in lowering.forced_control

    # Types and properties.

    def input_type(self, name: str) -> PortType:
        return self.lowering.resolution.port_types[(self.node.id, name)]

    def output_type(self, name: str) -> PortType:
        return self.lowering.resolution.port_types[(self.node.id, name)]

    def is_connected(self, name: str) -> bool:
        return (self.node.id, name) in self.lowering.incoming

    def source_node(self, name: str) -> Node | None:
        """The node whose output feeds input `name`, or None when it is unconnected."""
        connection = self.lowering.incoming.get((self.node.id, name))
        if connection is None:
            return None
        source = self.lowering.graph.nodes.get(connection.source_node)
        if source is not None and source.type_name == "group_input":
            # Inside a group: the node that feeds the instance (the helper is made per such origin).
            return self.lowering.outer_sources.get(connection.source_port)
        return source

    @property
    def radiance_output(self) -> bool:
        """True when the material's output writes linear radiance (Surface Output), False for display colour."""
        return self.lowering.output_name == RADIANCE_OUTPUT_NAME

    def output_used(self, name: str) -> bool:
        return (self.node.id, name) in self.lowering.used_outputs

    def property(self, name: str) -> Any:
        if self.lowering.live and self.lowering.top_owner is None and (self.node.id, name) in self.lowering.live:
            self.lowering.live_structural.add((self.node.id, name))  # the code depends on the number itself
        if name in self.node.properties:
            return self.node.properties[name]
        spec = self.node_type.property(name)
        return spec.default if spec is not None else None

    def number(self, name: str) -> float:
        """A float property; the catalog default when the stored value is not a finite number."""
        return as_number(self.property(name), self._property_default(name, 0.0))

    def integer(self, name: str) -> int:
        """An int property clamped to its catalog range; the catalog default when it is not a number."""
        spec = self.node_type.property(name)
        if spec is None:
            return as_integer(self.property(name), 0)
        return as_integer(self.property(name), int(spec.default), spec.minimum, spec.maximum)

    def choice(self, name: str) -> str:
        spec = self.node_type.property(name)
        value = self.property(name)
        if spec is not None and value not in spec.choices:
            return str(spec.default)
        return str(value)

    def _property_default(self, name: str, fallback: Any) -> Any:
        spec = self.node_type.property(name)
        return spec.default if spec is not None else fallback

    # Values.

    def input(self, name: str) -> Operand:
        """The input's value, converted to its resolved type (emitted once per node)."""
        if name in self._inputs:
            return self._inputs[name]
        target = self.input_type(name)
        connection = self.lowering.incoming.get((self.node.id, name))
        if connection is not None:
            value, source_type = self.lowering.values[(connection.source_node, connection.source_port)]
            if source_type is PortType.TEXTURE and target.is_numeric:
                value, source_type = self.sample_at_texcoord(value, self.source_node(name)), PortType.COLOR
            result = self.lowering.coerce(value, source_type, target)
        else:
            default = input_default(self.node, self.node_type, name)
            live = self.lowering.live_operand(self.node.id, name, default_numbers(default, target), target, True)
            result = live if live is not None else self.lowering.default_operand(default, target)
        self._inputs[name] = result
        return result

    def sample_at_texcoord(self, sampler: Operand, source: Node | None) -> Operand:
        """A texture read at the mesh's texture coordinates as Texture Sample reads it (a texture connected to a
        numeric input): `texture` in the entry block, `texture_lod` at level 0 after a branch; in a Surface
        Output material, rgb decoded from sRGB when `source` is a Texture Parameter whose colour space is sRGB."""
        fn = self.fn
        uv = self.lowering.source("texcoord")
        if self.control_dependent:
            rgba = fn.builtin(Builtin.TEXTURE_LOD, PortType.COLOR, sampler, uv, fn.f(0.0))
        else:
            rgba = fn.texture(sampler, uv)
        if (self.radiance_output and source is not None and source.type_name == "texture_parameter"
                and source.properties.get("color_space", "srgb") != "linear"):
            from app.material.nodes import pbr_functions  # the node modules import this one

            linear = fn.call(pbr_functions.srgb_to_linear(self.lowering), fn.swizzle(rgba, "xyz"))
            assert linear is not None
            rgba = fn.construct(vec(4), linear, fn.swizzle(rgba, "w"))
        return rgba

    def constant(self, name: str, port_type: PortType) -> Operand:
        """Property `name` as a constant of `port_type` (`constant_numbers`): a literal (a float operand, or one
        construct), or a load of its hidden uniform when it is live (`lower(live=...)`)."""
        spec = self.node_type.property(name)
        numbers = constant_numbers(self.node.properties.get(name, spec.default if spec is not None else 0.0), port_type)
        live = self.lowering.live_operand(self.node.id, name, numbers, port_type, False)
        if live is not None:
            return live
        if port_type is PortType.FLOAT:
            return self.fn.f(numbers[0])
        return self.fn.construct(port_type.vpl_type, *(self.fn.f(number) for number in numbers))

    def replace_input(self, name: str, value: Operand) -> None:
        """From now on `input(name)` is `value` (already converted to the input's type): the Surface Output's
        height computes its inputs again where the view ray meets the height field."""
        self._inputs[name] = value

    def set_output(self, name: str, value: Operand) -> None:
        self.lowering.values[(self.node.id, name)] = (value, self.output_type(name))

    def input_elsewhere(self, name: str, replace: Callable[[str], Operand]) -> Operand | None:
        """Input `name` computed again with the surface sources `SHIFTABLE_SOURCES` replaced by `replace(name)`
        (the value at another point of the surface); `_Lowering.relower_input` says when it is None."""
        return self.lowering.relower_input(self.node.id, name, self.input_type(name), replace)

    def source(self, name: str) -> Operand:
        return self.lowering.source(name)

    def scene(self, field_name: str) -> RegisterValue:
        return self.lowering.scene_field(field_name)

    def varying(self, name: str) -> RegisterValue:
        return self.lowering.varying(name)

    def helper(self, name: str, build: Callable[[_Lowering, TrackingFunctionBuilder], None], parameters: Sequence[Type], return_type: Type) -> Function:
        return self.lowering.helper(name, build, parameters, return_type)

    def parameter(self, spec: ParameterSpec) -> ReferenceValue:
        """Declare the uniform of a parameter node and list it for the parameters panel."""
        return self.lowering.add_parameter(spec)


#: The surface sources that `NodeContext.input_elsewhere` replaces (what differs from one point of the surface
#: to the next; the normal and tangents are taken as constant over a pixel), and the source computed from them.
SHIFTABLE_SOURCES = ("texcoord", "world_position", "vertex_color")
#: Their VPL types (a group's helper takes the ones its body reads as parameters of these types).
SHIFTABLE_SOURCE_TYPES: dict[str, Type] = {"texcoord": vec(2), "world_position": vec(3), "vertex_color": vec(4)}
_SHIFTED_DERIVED = {"view_direction": "world_position"}


# Surface values: varyings and sources ----------------------------------------------------------


class VertexStage:
    """The generated vertex stage while it is being built: vertex inputs and scene fields on demand.

    Every value is loaded or computed once (the whole stage is one block).
    """

    def __init__(self, lowering: _Lowering) -> None:
        self.lowering = lowering
        self.stage = StageBuilder(lowering.module.vertex)
        self.fn: TrackingFunctionBuilder = TrackingFunctionBuilder(self.stage.function(VERTEX_ENTRY_NAME, VOID, entry=True).function, lowering)
        self._inputs: dict[str, RegisterValue] = {}
        self._values: dict[str, RegisterValue] = {}

    def input(self, name: str) -> RegisterValue:
        """The vertex input `name` of scene.VERTEX_INPUTS (declared at its contract location on first use)."""
        loaded = self._inputs.get(name)
        if loaded is None:
            spec = VERTEX_INPUTS_BY_NAME[name]
            reference = self.stage.input(spec.name, spec.type, spec.location, Semantic(spec.semantic))
            self.lowering.record(self.lowering.module.vertex.interface[-1])
            loaded = self._inputs[name] = self.fn.load(reference)
        return loaded

    def scene(self, field_name: str) -> RegisterValue:
        key = f"scene.{field_name}"
        loaded = self._values.get(key)
        if loaded is None:
            loaded = self._values[key] = self.fn.load(member(self.lowering.scene, field_name))
        return loaded

    def world_position4(self) -> RegisterValue:
        """model * vec4(position, 1), moved along the world normal when the material displaces the mesh."""
        world = self._values.get("world4")
        if world is None:
            position4 = self.fn.construct(vec(4), self.input("position"), self.fn.f(1.0))
            world = self.fn.multiply(self.scene("model"), position4)
            if self.lowering.displacement is not None:
                world = self._displaced(world, self.lowering.displacement)
            self._values["world4"] = world
        return world

    def _displaced(self, world: RegisterValue, displacement: texture_passes.VertexDisplacement) -> RegisterValue:
        """world + normalize(world normal) * (clamp(height, 0, 1) - mid) * scale, the height read from the
        displacement buffer at the vertex's texture coordinates, level 0 (a vertex stage has no derivatives)."""
        fn = self.fn
        sampler = fn.load(self.lowering.host_uniform(displacement.sampler, SAMPLER2D))
        texel = fn.builtin(Builtin.TEXTURE_LOD, vec(4), sampler, self.input("texcoord"), fn.f(0.0))
        height = fn.builtin(Builtin.CLAMP, FLOAT, fn.swizzle(texel, "x"), fn.f(0.0), fn.f(1.0))
        distance = fn.multiply(fn.subtract(height, fn.f(displacement.mid_level)), fn.f(displacement.scale))
        normal = fn.builtin(Builtin.NORMALIZE, vec(3), self.transform_direction("normal_matrix", self.input("normal")))
        return fn.add(world, fn.construct(vec(4), fn.multiply(normal, distance), fn.f(0.0)))

    def transform_direction(self, matrix_field: str, direction: Operand) -> RegisterValue:
        """(scene.<matrix_field> * vec4(direction, 0)).xyz."""
        direction4 = self.fn.construct(vec(4), direction, self.fn.f(0.0))
        return self.fn.swizzle(self.fn.multiply(self.scene(matrix_field), direction4), "xyz")


@dataclass(frozen=True)
class Varying:
    """A per-vertex value the generated vertex stage writes and the fragment stage reads interpolated.

    Name, type, location and semantic are fixed (the same in every material
    that reads it); `compute` emits the vertex-stage code for its value from
    the vertex inputs named in `inputs` (scene.VERTEX_INPUTS).
    """

    name: str
    type: Type
    location: int
    semantic: Semantic
    inputs: tuple[str, ...]
    compute: Callable[[VertexStage], Operand]


def _world_tangent(vertex: VertexStage) -> Operand:
    tangent = vertex.input("tangent")
    direction = vertex.transform_direction("model", vertex.fn.swizzle(tangent, "xyz"))
    return vertex.fn.construct(vec(4), direction, vertex.fn.swizzle(tangent, "w"))


SURFACE_VARYINGS: dict[str, Varying] = {}


def register_varying(varying: Varying) -> Varying:
    """Add a surface varying (its location must be unused)."""
    if varying.name in SURFACE_VARYINGS:
        raise ValueError(f"varying {varying.name!r} registered twice")
    if any(other.location == varying.location for other in SURFACE_VARYINGS.values()):
        raise ValueError(f"varying location {varying.location} is taken")
    SURFACE_VARYINGS[varying.name] = varying
    return varying


register_varying(Varying("world_position", vec(3), 0, Semantic.NONE, ("position",), lambda v: v.fn.swizzle(v.world_position4(), "xyz")))
register_varying(
    Varying("world_normal", vec(3), 1, Semantic.NONE, ("normal",), lambda v: v.transform_direction("normal_matrix", v.input("normal")))
)
register_varying(Varying("surface_texcoord", vec(2), 2, Semantic.TEXCOORD, ("texcoord",), lambda v: v.input("texcoord")))
#: xyz: the model-space tangent taken to world space by `model`; w: the handedness sign.
register_varying(Varying("world_tangent", vec(4), 3, Semantic.NONE, ("tangent",), _world_tangent))
#: The mesh's vertex colour (vertex input 4, linear RGBA; scene.DEFAULT_VERTEX_COLOR when the mesh has none).
register_varying(Varying("vertex_color", vec(4), 4, Semantic.COLOR, ("color",), lambda v: v.input("color")))


#: Fragment-stage values nodes read by name (`NodeContext.source`, and inputs whose default names
#: one: node_types.DEFAULT_SOURCES): each computed once per material, on first use.
SURFACE_SOURCES: dict[str, Callable[[_Lowering], Operand]] = {}


def register_source(name: str, compute: Callable[[_Lowering], Operand]) -> None:
    if name in SURFACE_SOURCES:
        raise ValueError(f"source {name!r} registered twice")
    SURFACE_SOURCES[name] = compute


def _normalized(lowering: _Lowering, value: Operand) -> RegisterValue:
    return lowering.fragment_main.builtin(Builtin.NORMALIZE, PortType.VEC3, value)


def _view_direction(lowering: _Lowering) -> Operand:
    towards_camera = lowering.fragment_main.subtract(lowering.scene_field("camera_position"), lowering.source("world_position"))
    return _normalized(lowering, towards_camera)


def _unit_tangent(lowering: _Lowering) -> Operand:
    """The interpolated tangent made orthogonal to the unit normal again (Gram-Schmidt), unit length."""
    fn = lowering.fragment_main
    normal = lowering.source("world_normal")
    tangent = fn.swizzle(lowering.source("world_tangent_raw"), "xyz")
    along_normal = fn.multiply(normal, fn.builtin(Builtin.DOT, PortType.FLOAT, normal, tangent))
    return _normalized(lowering, fn.subtract(tangent, along_normal))


def _unit_bitangent(lowering: _Lowering) -> Operand:
    """handedness * cross(normal, tangent): the direction in which v grows (MikkTSpace)."""
    fn = lowering.fragment_main
    handedness = fn.swizzle(lowering.source("world_tangent_raw"), "w")
    cross = fn.builtin(Builtin.CROSS, PortType.VEC3, lowering.source("world_normal"), lowering.source("world_tangent"))
    return fn.multiply(cross, handedness)


register_source("texcoord", lambda lowering: lowering.varying("surface_texcoord"))
register_source("world_position", lambda lowering: lowering.varying("world_position"))
register_source("world_normal", lambda lowering: _normalized(lowering, lowering.varying("world_normal")))
register_source("world_tangent_raw", lambda lowering: lowering.varying("world_tangent"))
register_source("world_tangent", _unit_tangent)
register_source("world_bitangent", _unit_bitangent)
register_source("view_direction", _view_direction)
register_source("light_direction", lambda lowering: _normalized(lowering, lowering.scene_field("light_direction")))
register_source("time", lambda lowering: lowering.scene_field("time"))
register_source("vertex_color", lambda lowering: lowering.varying("vertex_color"))


# The lowering itself --------------------------------------------------------------------------


class _Lowering:
    def __init__(self, graph: MaterialGraph, resolution: TypeResolution, scope: Scope | None = None) -> None:
        self.graph = graph
        self.resolution = resolution
        #: The group definitions and, in a function lowering, the definition being lowered.
        self.scope = scope_of(graph, scope)
        self.owner: str = ""
        self.provenance: dict[int, str] = {}
        self.scoped_provenance: dict[int, tuple[str, str]] = {}
        #: In a function lowering: the material's node that led here (its provenance for everything made).
        self.top_owner: str | None = None
        #: The last (definition id, node id) recorded in `scoped_provenance`, shared by every item of that node.
        self._scoped_key: tuple[str, str] = ("", "")
        self.values: dict[tuple[str, str], tuple[Operand, PortType]] = {}
        self.incoming = {(c.target_node, c.target_port): c for c in graph.connections}
        self.used_outputs = {(c.source_node, c.source_port) for c in graph.connections}
        self.parameters: list[ParameterSpec] = []
        #: The refined variant (`lower(..., refined=True)`): `environment_light` samples the lobe per pixel.
        self.refined = False
        self.helpers: dict[str, Function] = {}
        self.sources: dict[str, Operand] = {}
        #: Nodes that count as control dependent wherever they are emitted (NodeContext.control_dependent).
        self.forced_control: set[str] = set()
        #: In a function lowering: the node feeding each instance input at the call site (NodeContext.source_node).
        self.outer_sources: dict[str, Node | None] = {}
        #: Per-group state of app.material.group_lowering (its analyses, helpers, the current call's data).
        self.groups: Any = None
        self.module = Module()
        #: Every builder made for this lowering (shared with its function lowerings); `finish_functions` completes them.
        self.builders: list[FunctionBuilder] = []
        self.report: Callable[[str | None, str], None] = lambda _node_id, _message: None
        self.reads: dict[str, set[str]] = {}
        #: Values to lower as hidden uniforms (`lower(live=...)`), and what became of them.
        self.live: frozenset[ValueKey] = frozenset()
        self.live_values: dict[ValueKey, LiveValue] = {}
        self.live_references: dict[ValueKey, ReferenceValue] = {}
        self.live_structural: set[ValueKey] = set()
        #: In a preview lowering: the ports it shows.
        self.preview_ports: frozenset[tuple[str, str]] = frozenset()
        #: The Surface Output's displacement of the mesh in the vertex stage (None: the mesh as it is).
        self.displacement: texture_passes.VertexDisplacement | None = None
        #: In a function lowering: where the body's `SHIFTABLE_SOURCES` come from (group_lowering makes them
        #: the helper's parameters, so that a call can pass them moved: `relower_input`); None: computed here.
        self.shiftable_source: Callable[[str, Type], Operand] | None = None

    def node_context(self, node: Node, node_type: NodeType) -> NodeContext:
        """The context `node_type.lower` gets for `node` (group_lowering makes them without importing this module)."""
        return NodeContext(self, node, node_type)

    def lower_group_node(self, role: str, ctx: NodeContext) -> None:
        """Lower a group instance, Group Input or Group Output node (`role`); app.material.groups' types call this."""
        lowerers = {
            "instance": group_lowering.lower_instance,
            "input": group_lowering.lower_group_input,
            "output": group_lowering.lower_group_output,
        }
        lowerers[role](ctx)

    def record(self, item: Any) -> None:
        if self.top_owner is None:
            self.provenance.setdefault(id(item), self.owner)
            return
        self.provenance.setdefault(id(item), self.top_owner)
        definition = self.scope.definition
        key = self._scoped_key
        definition_id = definition.id if definition is not None else ""
        if key[1] != self.owner or key[0] != definition_id:
            key = self._scoped_key = (definition_id, self.owner)
        self.scoped_provenance.setdefault(id(item), key)

    def function_lowering(self, graph: MaterialGraph, resolution: TypeResolution, scope: Scope, function: Function,
                          top_owner: str) -> _Lowering:
        """A lowering of `graph` (a group's body in `scope`) into `function`, sharing this lowering's module.

        Shared: the module, its uniforms, parameters, helpers, host uniforms,
        varyings and provenance. Its own: the graph, types, values, sources
        (each function computes what it reads) and the builder, which
        `fragment_main` names in both so every node lowers unchanged.
        """
        child = copy_module.copy(self)
        child.graph = graph
        child.resolution = resolution
        child.scope = scope
        child.top_owner = top_owner
        child.owner = ""
        child.values = {}
        child.incoming = {(c.target_node, c.target_port): c for c in graph.connections}
        child.used_outputs = {(c.source_node, c.source_port) for c in graph.connections}
        child.sources = {}
        child.forced_control = set()
        child.outer_sources = {}
        child.shiftable_source = None
        child.fragment_main = TrackingFunctionBuilder(function, child)
        return child

    def finish_functions(self) -> None:
        """Put every builder's deferred register declarations in place (one splice per function)."""
        for builder in self.builders:
            builder.finish()

    def note_read(self, name: str) -> None:
        """The current node asked for surface value `name` (cached or not: `LoweringResult.reads`)."""
        self.reads.setdefault(self.owner, set()).add(name)

    # Module skeleton.

    def build_skeleton(self, output_node: str, override: OutputOverride | None = None,
                       output_name: str | None = None) -> None:
        """The scene uniform and the fragment entry; the vertex stage comes last (`finish_vertex_stage`)."""
        self.owner = output_node
        self.override = override
        self.output_name = output_name or (override.output_name if override is not None
                                           else OUTPUT_NODE_TYPES[self.graph.nodes[output_node].type_name])
        module = self.module
        scene_type = record(SCENE_RECORD_NAME, REFINED_SCENE_FIELDS if self.refined else SCENE_FIELDS)
        self.scene = add_uniform(module, SCENE_UNIFORM_NAME, scene_type)
        self.record(module.uniforms[-1])
        self.record(scene_type)
        self.fragment_stage = StageBuilder(module.fragment)
        self.varying_inputs: dict[str, ReferenceValue] = {}
        self.fragment_output: ReferenceValue | None = None
        self.fragment_main = TrackingFunctionBuilder(self.fragment_stage.function(FRAGMENT_ENTRY_NAME, VOID, entry=True).function, self)
        self.host_uniforms: dict[str, ReferenceValue] = {}

    def declare_fragment_output(self, name: str) -> ReferenceValue:
        """The output node's colour output (location 0, FragmentColor); declared once."""
        if self.fragment_output is None:
            self.fragment_output = self.fragment_stage.output(name, vec(4), 0, Semantic.FRAGMENT_COLOR)
            self.record(self.module.fragment.interface[-1])
        return self.fragment_output

    def finish_vertex_stage(self, output_node: str) -> None:
        """Generate the vertex stage: clip position, and exactly the varyings the fragment stage read."""
        self.owner = output_node
        vertex = VertexStage(self)
        varyings = sorted((SURFACE_VARYINGS[name] for name in self.varying_inputs), key=lambda varying: varying.location)
        clip_from_texcoord = self.override is not None and self.override.clip_from_texcoord
        needed = {"position", *(("texcoord",) if clip_from_texcoord else ()),
                  *(("normal", "texcoord") if self.displacement is not None else ())}.union(*(varying.inputs for varying in varyings))
        # Interface in a readable order: inputs by location, then Position, then varyings by location.
        for spec in sorted((VERTEX_INPUTS_BY_NAME[name] for name in needed), key=lambda spec: spec.location):
            vertex.input(spec.name)
        clip = vertex.stage.output("clip_position", vec(4), -1, Semantic.POSITION)
        self.record(self.module.vertex.interface[-1])
        outputs = []
        for varying in varyings:
            outputs.append(vertex.stage.output(varying.name, varying.type, varying.location, varying.semantic))
            self.record(self.module.vertex.interface[-1])
        if clip_from_texcoord:
            # The UV square [0, 1]^2 onto clip space [-1, 1]^2; `projection` picks a tile of it.
            fn = vertex.fn
            uv = fn.subtract(fn.multiply(vertex.input("texcoord"), fn.f(2.0)), fn.construct(vec(2), fn.f(1.0)))
            eye = fn.construct(vec(4), uv, fn.f(0.0), fn.f(1.0))
        else:
            world = vertex.world_position4()
            eye = vertex.fn.multiply(vertex.scene("view"), world)
        vertex.fn.store(clip, vertex.fn.multiply(vertex.scene("projection"), eye))
        for varying, output in zip(varyings, outputs):
            vertex.fn.store(output, varying.compute(vertex))
        vertex.fn.ret()

    def host_uniform(self, name: str, value_type: Type) -> ReferenceValue:
        """A uniform the host fills (not a material parameter; scene.HOST_UNIFORMS), declared once."""
        self.note_read(name)
        reference = self.host_uniforms.get(name)
        if reference is None:
            reference = self.host_uniforms[name] = add_uniform(self.module, name, value_type)
            self.record(self.module.uniforms[-1])
        return reference

    # Values shared by nodes.

    def scene_field(self, field_name: str) -> RegisterValue:
        self.note_read(f"scene.{field_name}")
        return self.fragment_main.load(member(self.scene, field_name))

    def varying(self, name: str) -> RegisterValue:
        """Load the interpolated varying `name` (one of SURFACE_VARYINGS), declaring it on first use."""
        self.note_read(name)
        reference = self.varying_inputs.get(name)
        if reference is None:
            varying = SURFACE_VARYINGS.get(name)
            if varying is None:
                raise LoweringFailure(f"unknown surface varying {name!r}")
            reference = self.fragment_stage.input(varying.name, varying.type, varying.location, varying.semantic)
            self.record(self.module.fragment.interface[-1])
            self.varying_inputs[name] = reference
        return self.fragment_main.load(reference)

    def source(self, name: str) -> Operand:
        """A scene/surface value, computed once per material.

        Safe to share across nodes: nodes are emitted in a chain of blocks
        (entry, then each If's join) in which every block dominates the later
        ones, so a register assigned in an earlier block is assigned on every
        path to a later use.
        """
        self.note_read(name)
        cached = self.sources.get(name)
        if cached is None:
            if self.shiftable_source is not None and name in SHIFTABLE_SOURCES:
                cached = self.sources[name] = self.shiftable_source(name, SHIFTABLE_SOURCE_TYPES[name])
                return cached
            compute = SURFACE_SOURCES.get(name)
            if compute is None:
                raise LoweringFailure(f"unknown default source {name!r}")
            cached = self.sources[name] = compute(self)
        return cached

    def coerce(self, value: Operand, source: PortType, target: PortType) -> Operand:
        """Convert a value between port types by the rules of app/material/port_types.py."""
        fn = self.fragment_main
        if source is target or (source.width == target.width and source.is_numeric and target.is_numeric):
            return value
        if source is PortType.FLOAT and target.is_numeric:
            return fn.construct(target.vpl_type, value)
        if source is PortType.COLOR and target is PortType.VEC3:
            return fn.swizzle(value, "xyz")
        if source is PortType.VEC3 and target is PortType.COLOR:
            return fn.construct(vec(4), value, fn.f(1.0))
        if source is PortType.COLOR and target is PortType.FLOAT:
            weights = fn.construct(vec(3), *(fn.f(weight) for weight in LUMINANCE_WEIGHTS))
            return fn.builtin(Builtin.DOT, PortType.FLOAT, fn.swizzle(value, "xyz"), weights)
        if source is PortType.TEXTURE and target.is_numeric:
            # Read at the mesh's texture coordinates, level 0 (well defined wherever this runs).
            texel = fn.builtin(Builtin.TEXTURE_LOD, PortType.COLOR, value, self.source("texcoord"), fn.f(0.0))
            return self.coerce(texel, PortType.COLOR, target)
        raise LoweringFailure(f"cannot convert {source} to {target}")

    def default_operand(self, default: Any, target: PortType) -> Operand:
        fn = self.fragment_main
        if target is PortType.BOOL:
            return fn.b(bool(default) if isinstance(default, (bool, int, float)) else False)
        if target is PortType.TEXTURE:
            raise LoweringFailure("a texture input must be connected (to a Texture Parameter)")
        if isinstance(default, str):
            source_type = DEFAULT_SOURCES.get(default)
            if source_type is None:
                raise LoweringFailure(f"unknown default source {default!r}")
            return self.coerce(self.source(default), source_type, target)
        if target.width == 1:
            return fn.f(as_numbers(default, 1)[0])
        if not isinstance(default, (list, tuple)):
            return fn.splat(as_number(default, 0.0), target)
        numbers = as_numbers(default, target.width, pad_alpha=target is PortType.COLOR)
        return fn.construct(target.vpl_type, *(fn.f(number) for number in numbers))

    def live_operand(self, node_id: str, name: str, numbers: tuple[float, ...] | None, port_type: PortType,
                     from_input: bool) -> Operand | None:
        """A load of the hidden uniform of live value (node_id, name), declared here; None when it is not live.

        Only the material's own nodes (not a group's body) have live values, and only numbers of a float
        type (`numbers` None: the value is not one).
        """
        key = (node_id, name)
        if numbers is None or key not in self.live or self.top_owner is not None or port_type not in LIVE_PORT_TYPES:
            return None
        if key in self.live_references:  # a node lowered again (`relower_input`) reads the same uniform
            return self.fragment_main.load(self.live_references[key])
        uniform = f"{HIDDEN_UNIFORM_PREFIX}{len(self.live_values)}"
        reference = add_uniform(self.module, uniform, port_type.vpl_type)
        self.record(self.module.uniforms[-1])
        value = numbers[0] if port_type is PortType.FLOAT else tuple(numbers)
        self.live_values[key] = LiveValue(node_id, name, uniform, port_type, value, from_input)
        self.live_references[key] = reference
        return self.fragment_main.load(reference)

    def relower_input(self, node_id: str, port: str, target: PortType,
                      replace: Callable[[str], Operand]) -> Operand | None:
        """Input `port` of `node_id` with its upstream lowered again, the sources `SHIFTABLE_SOURCES` it reads
        replaced by `replace(name)`.

        Only the upstream nodes that read such a source, or are fed by one that does, are lowered again (into
        fresh registers; the rest, parameters included, keep their values). A group instance is lowered again
        as a second call of its helper, which takes the sources its body reads (through nested groups too) as
        parameters (app.material.group_lowering): the call passes the replaced ones. An unconnected input is
        its own value. None when the upstream holds an If node or a Group Input passing anything but a
        texture (the caller's values cannot be computed at other points from inside the helper); the caller
        then falls back to something else.
        """
        connection = self.incoming.get((node_id, port))
        if connection is None:
            return None
        upstream = connected_nodes(self.graph, [connection.source_node])
        order = [other for other in topological_order(self.graph)[0] if other in upstream]
        shifted_names = set(SHIFTABLE_SOURCES) | set(_SHIFTED_DERIVED)
        feeds: dict[str, set[str]] = {}
        for incoming in self.graph.connections:
            feeds.setdefault(incoming.target_node, set()).add(incoming.source_node)
        moved: list[str] = []
        read: set[str] = set()
        for other in order:
            node = self.graph.nodes[other]
            node_type = node_type_for(node, self.scope)
            if node.type_name == GROUP_INPUT_TYPE and self._group_input_uniform(other, upstream, (node_id, port)):
                continue  # only textures (uniform samplers) from it: the same everywhere
            if node_type is None or node.type_name == GROUP_INPUT_TYPE or node_type.control:
                return None
            if node.type_name in PARAMETER_NODE_TYPES:
                continue  # a uniform: the same everywhere (and declared once)
            reads = self.reads.get(other, set()) & shifted_names
            if reads or not feeds.get(other, set()).isdisjoint(moved):
                moved.append(other)
                read |= reads
        if not moved:
            return None
        sources = {name: value for name, value in self.sources.items() if name not in _SHIFTED_DERIVED}
        for name in sorted(read):
            base = _SHIFTED_DERIVED.get(name, name)
            sources[base] = replace(base)
        saved = (self.values, self.sources, self.owner)
        self.values = dict(self.values)
        self.sources = sources
        try:
            for other in moved:
                node = self.graph.nodes[other]
                node_type = node_type_for(node, self.scope)
                assert node_type is not None  # checked above
                self.owner = other
                node_type.lower(NodeContext(self, node, node_type))
            value, source_type = self.values[(connection.source_node, connection.source_port)]
            self.owner = saved[2]
            return self.coerce(value, source_type, target)
        finally:
            self.values, self.sources, self.owner = saved

    def _group_input_uniform(self, group_input: str, upstream: set[str], target: tuple[str, str]) -> bool:
        """Whether the ports of Group Input `group_input` that feed `upstream` (or input `target`) are all
        textures: a texture input is fed by a Texture Parameter, a uniform, so it is the same at every point."""
        definition = self.scope.definition
        if definition is None:
            return False
        types = {port.name: port.type for port in definition.inputs}
        return all(types.get(connection.source_port) is PortType.TEXTURE for connection in self.graph.connections
                   if connection.source_node == group_input
                   and (connection.target_node in upstream or (connection.target_node, connection.target_port) == target))

    def helper(
        self,
        name: str,
        build: Callable[[_Lowering, TrackingFunctionBuilder], None],
        parameters: Sequence[Type],
        return_type: Type,
    ) -> Function:
        """The fragment helper function `name`, built by `build` the first time it is asked for."""
        existing = self.helpers.get(name)
        if existing is not None:
            return existing
        function = self.fragment_stage.function(name, return_type, parameters).function
        self.helpers[name] = function
        build(self, TrackingFunctionBuilder(function, self))
        return function

    def add_parameter(self, spec: ParameterSpec) -> ReferenceValue:
        reference = add_uniform(self.module, spec.name, spec.type)
        self.record(self.module.uniforms[-1])
        self.parameters.append(spec)
        return reference


# What the lowering reads -----------------------------------------------------------------------


def lowering_equivalent(first: MaterialGraph, second: MaterialGraph) -> bool:
    """Whether `lower` reads the same from both graphs, so their modules are the same text.

    The lowering reads nodes (ids, types, properties) and connections. It
    does not read positions, frames, variants, nor a parameter node's value
    (`PARAMETER_VALUE_PROPERTY`: a uniform's value is the host's, never in
    the module; only `LoweringResult.parameters`' defaults show it). The
    session skips lowering for edits of those alone (docs/performance.md).
    Anything a later change makes the lowering read must be compared here.
    """
    from app.material.graph import Connection, _json_value
    from app.material.parameters import PARAMETER_VALUE_PROPERTY

    if first.nodes.keys() != second.nodes.keys():
        return False
    for node_id, node in first.nodes.items():
        other = second.nodes[node_id]
        if node.type_name != other.type_name:
            return False
        if node.properties == other.properties:
            continue
        ignored = PARAMETER_VALUE_PROPERTY.get(node.type_name)
        mine = {name: value for name, value in node.properties.items() if name != ignored}
        theirs = {name: value for name, value in other.properties.items() if name != ignored}
        if mine != theirs and _json_value(mine) != _json_value(theirs):  # lists read back from JSON equal tuples
            return False
    if len(first.connections) != len(second.connections):
        return False
    return first.connections == second.connections or (
        sorted(first.connections, key=Connection.sort_key) == sorted(second.connections, key=Connection.sort_key))


# Entry point ----------------------------------------------------------------------------------


def lower(graph: MaterialGraph, preview: PreviewOutputs | None = None, *,
          override: OutputOverride | None = None, live: frozenset[ValueKey] = frozenset(),
          refined: bool = False) -> LoweringResult:
    """Lower, verify, publish and compile a material graph (or, with `preview`, node outputs; re-targeted by
    `override`). Never raises.

    `refined`: the material's refined variant (docs/lighting.md, "Refined environment light"): the Surface
    Output's environment light integrates the GGX lobe per pixel (`pbr_functions.refined_specular`) in the
    frames of a refinement, and the scene record is `REFINED_SCENE_FIELDS`. The preview draws it only to
    refine a still frame and for final frames; the live program (the default) keeps the split-sum read, so
    its loop costs nothing in the frames drawn while editing. Like `live`, such a module is never saved or
    exported.

    `live` (the editor's preview during value edits, docs/editor.md): each listed (node id, property) that
    lowers to a literal (a constant's `value`, an unconnected input's default, of a float type, in the
    material's own graph) is lowered as a load of a hidden uniform instead (`LoweringResult.live_values`
    says which and its value); everything else is the same, so the program draws the same pixels as the
    canonical one with those uniforms set. Such a module is the preview's only: it is never saved or
    exported (`scene.is_hidden_uniform`).
    """
    result = LoweringResult()
    # The cyclic collector is paused while the module is built, published and compiled: those steps keep
    # every object they make alive until they end (about 75 per level of a nested group chain), so the
    # collections their allocations would start walk the whole growing heap and free nothing; that walk
    # made the time grow faster than the graph. Reference counting still frees what is dropped, and the
    # cycles a lowering leaves wait for the next collection (docs/decisions.md, "One collector policy").
    with collector.paused():
        try:
            if texture_passes.has_pass_nodes(graph):
                # Pass nodes are sources here (loads of their buffers' samplers); their passes are
                # `pass_planner.plan_passes`'s. A preview shows what it can: their problems are warnings there.
                for problem in texture_passes.pass_node_problems(graph, unconnected=False):
                    result.diagnostics.append(problem if preview is None else dataclass_replace(problem, severity="warning"))
                graph = texture_passes.material_view(graph)
            _lower(graph, result, preview, override, frozenset(live), refined)
        except Exception as error:  # noqa: BLE001 - a bug must show as a diagnostic, not take the editor down
            result.module = result.verified = result.artifact = None
            result.text = ""
            detail = traceback.format_exception_only(type(error), error)[-1].strip()
            result.diagnostics.append(NodeDiagnostic(None, "graph", f"internal error while lowering: {detail}"))
    return result


def _parameter_name_problems(graph: MaterialGraph, scopes: Sequence[str] = ()) -> dict[tuple[str | None, str], str]:
    """Per parameter node: why its uniform name is unusable (empty, reserved, or taken).

    Keys are (definition id or None for the material, node id): parameter
    nodes inside the group definitions `scopes` declare uniforms too, one
    per definition however many instances it has, so names must be unique
    across the material and those bodies.
    """
    problems: dict[tuple[str | None, str], str] = {}
    users: dict[str, list[tuple[str | None, str]]] = {}
    places: list[tuple[str | None, MaterialGraph]] = [(None, graph)]
    places += [(function_id, graph.functions[function_id].body) for function_id in scopes if function_id in graph.functions]
    for scope, place in places:
        for node_id in sorted(place.nodes, key=node_id_key):
            node = place.nodes[node_id]
            if node.type_name not in PARAMETER_NODE_TYPES:
                continue
            name = node.properties.get("name")
            if not isinstance(name, str) or not name.strip():
                problems[(scope, node_id)] = "a parameter needs a nonempty name"
            elif name in RESERVED_UNIFORM_NAMES:
                problems[(scope, node_id)] = f"the parameter name '{name}' is reserved for the scene data"
            elif texture_passes.is_pass_uniform(name):
                problems[(scope, node_id)] = (f"the parameter name '{name}' is reserved: names starting with "
                                              f"'{texture_passes.PASS_UNIFORM_PREFIX}' are the texture passes'")
            elif name.startswith(HIDDEN_UNIFORM_PREFIX):
                problems[(scope, node_id)] = (f"the parameter name '{name}' is reserved: names starting with "
                                              f"'{HIDDEN_UNIFORM_PREFIX}' are the editor's")
            else:
                users.setdefault(name, []).append((scope, node_id))

    def where(key: tuple[str | None, str]) -> str:
        return key[1] if key[0] is None else f"{key[1]} in group '{graph.functions[key[0]].name}'"

    for name, keys in users.items():
        if len(keys) > 1:
            for key in keys:
                others = ", ".join(where(other) for other in keys if other != key)
                problems[key] = f"parameter name '{name}' is also used by {others}; names must be unique"
    return problems


def _lower(graph: MaterialGraph, result: LoweringResult, preview: PreviewOutputs | None = None,
           override: OutputOverride | None = None, live_keys: frozenset[ValueKey] = frozenset(),
           refined: bool = False) -> None:
    started = time.perf_counter()
    resolution = propagate(graph)
    result.port_types = dict(resolution.port_types)
    scope = scope_of(graph, None)
    result.timings["types"] = time.perf_counter() - started

    outputs = sorted((node_id for node_id, node in graph.nodes.items() if node.type_name in OUTPUT_NODE_TYPES), key=node_id_key)
    output_node = outputs[0] if outputs else None
    if preview is not None:
        missing = [node_id for node_id, _ in preview.ports if node_id not in graph.nodes]
        if not preview.ports or missing:
            result.diagnostics.append(NodeDiagnostic(None, "graph", f"nothing to preview: no node {', '.join(missing)}"
                                                     if missing else "nothing to preview"))
            return
        roots = [node_id for node_id, _ in preview.ports]
    else:
        roots = [output_node] if output_node is not None else []
    live_roots, live_extra = roots, set()
    if preview is None and override is not None and override.roots is not None and output_node is not None:
        live_roots, live_extra = [root for root in override.roots if root in graph.nodes], {output_node}
    live = connected_nodes(graph, live_roots) | live_extra

    def report(node_id: str | None, message: str, category: str = "graph") -> None:
        # A preview leaves out what cannot be lowered (`preview_ports` says what it shows): warnings only.
        severity = "error" if preview is None and (node_id is None or node_id in live) else "warning"
        result.diagnostics.append(NodeDiagnostic(node_id, category, message, severity))

    if preview is None and output_node is None:
        report(None, "the material has no output node; add a Surface Output (or an Unlit Output) and connect its inputs")
    for extra in outputs[1:]:
        report(extra, f"a material has one output node; this one is ignored ({output_node} is the output)")
    for node_id in sorted(resolution.errors, key=node_id_key):
        for message in resolution.errors[node_id]:
            report(node_id, message)
    groups = group_lowering.GroupState(graph, live)
    too_deep = groups.depth_diagnostic()
    if too_deep is not None:  # refused before the bodies are analysed (their analyses cost the chain's length)
        result.diagnostics.append(too_deep)
        return
    groups.check(result)
    name_problems = _parameter_name_problems(graph, groups.used)
    for (where, node_id), message in sorted(name_problems.items(),
                                            key=lambda item: (item[0][0] or "", node_id_key(item[0][1]))):
        if where is None:
            report(node_id, message)
        else:
            result.diagnostics.append(groups.scoped_diagnostic(where, node_id, message))
    if not roots or result.errors:
        return
    # What is lowered: a node feeding only an input a group's body ignores is left out, as in the flat graph.
    live = groups.read_nodes(graph, scope, live_roots) | live_extra

    control_nodes = {node_id for node_id in live if _is_control(graph.nodes[node_id], scope)}
    controlled = connected_nodes(graph, control_nodes, upstream=False) & live
    priority = {node_id: (1 if node_id in controlled else 0) for node_id in live}
    if preview is None:
        priority[roots[0]] = 2
    order, _ = topological_order(graph, priority)
    order = [node_id for node_id in order if node_id in live]
    # A preview skips nodes that cannot be lowered and everything that reads them.
    failed = ((set(resolution.errors) | {node_id for (where, node_id) in name_problems if where is None}) & live
              if preview is not None else set())
    sources: dict[str, set[str]] = {}
    for connection in graph.connections:
        sources.setdefault(connection.target_node, set()).add(connection.source_node)

    started = time.perf_counter()
    lowering = _Lowering(graph, resolution)
    lowering.live = live_keys
    lowering.refined = refined
    lowering.groups = groups
    lowering.report = report
    groups.prepare(lowering, control_nodes)
    if preview is None:
        lowering.build_skeleton(roots[0], override)
    else:
        own_output = OUTPUT_NODE_TYPES[graph.nodes[output_node].type_name] if output_node is not None else DISPLAY_OUTPUT_NAME
        lowering.build_skeleton(roots[0], output_name=preview.output_name or own_output)
        lowering.used_outputs.update(preview.ports)  # nodes compute only the outputs something reads
        lowering.preview_ports = frozenset(preview.ports)
    # The connections `lowering.incoming` keeps (one per input), per target node: scanning them all per node was
    # quadratic.
    incoming_of: dict[str, list[Connection]] = {}
    for (target_node, _port), connection in lowering.incoming.items():
        incoming_of.setdefault(target_node, []).append(connection)
    for node_id in order:
        if node_id in failed or not failed.isdisjoint(sources.get(node_id, ())):
            failed.add(node_id)
            continue
        node = graph.nodes[node_id]
        node_type = node_type_for(node, scope)
        assert node_type is not None  # resolved without errors above
        if failed and any(connection.source_node in failed for connection in incoming_of.get(node_id, ())):
            failed.add(node_id)  # fed by a node that could not be lowered (reported there)
            continue
        lowering.owner = node_id
        lower_node = override.lower if override is not None and node_id == output_node else node_type.lower
        try:
            lower_node(NodeContext(lowering, node, node_type))
        except LoweringFailure as failure:
            report(node_id, str(failure))
            failed.add(node_id)
    if preview is not None:
        shown = tuple(port for port in preview.ports if port[0] not in failed)
        if not shown:
            result.diagnostics.append(NodeDiagnostic(roots[0], "graph", "nothing here can be previewed"))
        else:
            try:
                result.preview_ports, result.preview_selector = _store_preview(lowering, shown, preview.exact)
            except LoweringFailure as failure:
                result.diagnostics.append(NodeDiagnostic(lowering.owner, "graph", str(failure)))
    if not result.errors:
        lowering.finish_vertex_stage(roots[0])
    lowering.finish_functions()
    result.parameters = list(lowering.parameters)
    result.provenance = lowering.provenance
    result.scoped_provenance = lowering.scoped_provenance
    result.reads = {node_id: frozenset(names) for node_id, names in lowering.reads.items()}
    result.live_values = dict(lowering.live_values)
    result.live_structural = frozenset(lowering.live_structural & set(lowering.live_values))
    result.timings["lowering"] = time.perf_counter() - started
    if result.errors:
        return
    result.module = lowering.module
    _verify_publish_compile(result)


def _is_control(node: Node, scope: Scope) -> bool:
    node_type = node_type_for(node, scope)
    return node_type is not None and node_type.control


def preview_color(lowering: _Lowering, value: Operand, port_type: PortType, exact: bool = False) -> Operand:
    """A node output's value as the vec4 colour a preview shows: rgb clamped at 0, alpha 1.

    float f: (f, f, f); vec2 (x, y): (x, y, 0); vec3: itself; vec4 and
    colour: rgb (alpha is not shown); bool: white or black; a texture: its
    texels at the mesh's texture coordinates, decoded from sRGB in a
    radiance material as a Texture Sample node would. Negative components
    show black (no display shows negative light, and the preview's post pass
    reserves negative radiance for pixels no surface covers).

    `exact`: the value as it is, for reading rather than showing: no clamp,
    and the alpha of a vec4, a colour or a texel kept (1 for the others).
    """
    fn = lowering.fragment_main
    one, zero = fn.f(1.0), fn.f(0.0)
    rgb: Operand
    alpha: Operand = one
    if port_type is PortType.BOOL:
        value, port_type = fn.call_builtin(Builtin.SELECT, PortType.FLOAT.vpl_type, value, one, zero), PortType.FLOAT
    if port_type is PortType.TEXTURE:
        uv = lowering.source("texcoord")
        if fn.block is not fn.entry:
            texel = fn.builtin(Builtin.TEXTURE_LOD, PortType.COLOR, value, uv, zero)
        else:
            texel = fn.texture(value, uv)
        rgb = fn.swizzle(texel, "xyz")
        if exact:
            alpha = fn.swizzle(texel, "w")
        node = lowering.graph.nodes.get(lowering.owner)
        if (lowering.output_name == RADIANCE_OUTPUT_NAME and node is not None and node.type_name == "texture_parameter"
                and node.properties.get("color_space", "srgb") != "linear"):
            from app.material.nodes import pbr_functions  # the node modules import this one

            linear = fn.call(pbr_functions.srgb_to_linear(lowering), rgb)
            assert linear is not None
            rgb = linear
    elif port_type is PortType.FLOAT:
        rgb = fn.construct(vec(3), value, value, value)
    elif port_type is PortType.VEC2:
        rgb = fn.construct(vec(3), value, zero)
    elif port_type is PortType.VEC3:
        rgb = value
    else:
        rgb = fn.swizzle(value, "xyz")
        if exact:
            alpha = fn.swizzle(value, "w")
    if exact:
        return fn.construct(vec(4), rgb, alpha)
    clamped = fn.builtin(Builtin.MAX, PortType.VEC3, rgb, fn.construct(vec(3), zero))
    return fn.construct(vec(4), clamped, one)


def _store_preview(lowering: _Lowering, ports: Sequence[tuple[str, str]],
                   exact: bool = False) -> tuple[tuple[tuple[str, str], ...], str]:
    """Write the previewed outputs' colours to the fragment output (picked by `PREVIEW_SELECTOR` when several).

    Returns the ports and the selector uniform's name ("" for one port).
    """
    fn = lowering.fragment_main
    colors: list[Operand] = []
    for node_id, port in ports:
        lowering.owner = node_id
        entry = lowering.values.get((node_id, port))
        if entry is None:
            raise LoweringFailure(f"the output {port!r} has no value to preview")
        colors.append(preview_color(lowering, *entry, exact=exact))
    color = colors[0]
    name = ""
    if len(colors) > 1:
        lowering.owner = ports[0][0]
        taken = {spec.name for spec in lowering.parameters} | set(lowering.host_uniforms)
        name = PREVIEW_SELECTOR
        while name in taken:
            name += "_"
        selector = add_uniform(lowering.module, name, INT)
        lowering.record(lowering.module.uniforms[-1])
        chosen = fn.load(selector)
        for position, value in enumerate(colors[1:], start=1):
            lowering.owner = ports[position][0]
            color = fn.call_builtin(Builtin.SELECT, vec(4), fn.binary(BinaryOperator.EQUAL, chosen, ConstantValue.of_int(position)),
                                    value, color)
    fn.store(lowering.declare_fragment_output(lowering.output_name), color)
    fn.ret()
    return tuple(ports), name


def _verify_publish_compile(result: LoweringResult) -> None:
    """Publish (verify and write) the lowered module and compile it; errors become node diagnostics."""
    module = result.module
    assert module is not None
    # Publication runs the verifier on our module first (the writer verifies before writing),
    # so verifier errors name our objects and map straight back through provenance.
    started = time.perf_counter()
    try:
        result.verified = VerifiedModule.create(module, label="material")
    except VerificationError as error:
        node_id = result.node_for(error.subject, error.context)
        result.diagnostics.append(result.diagnostic(node_id, "semantic", error.message, error.subject, error.context))
        return
    except VplError as error:
        result.diagnostics.append(result.diagnostic(result.node_for(error.subject), "semantic", error.message, error.subject))
        return
    finally:
        result.timings["publication"] = time.perf_counter() - started
    result.text = result.verified.text

    started = time.perf_counter()
    try:
        # The publication was made just above and is not handed out yet: its own verified parse is compiled,
        # not a materialized copy verified a third time.
        result.artifact = glsl.compile_new_publication(result.verified, finishing=True)
    except VplError as error:
        node_id, ours = _map_target_subject(result, error)
        result.diagnostics.append(result.diagnostic(node_id, "target", error.message, ours))
    finally:
        result.timings["glsl"] = time.perf_counter() - started


def _map_target_subject(result: LoweringResult, error: VplError) -> tuple[str | None, Any]:
    """The node behind a backend diagnostic, and the object of our module it found it through.

    The backend works on the publication's own parse of its canonical text
    (`glsl.compile_new_publication`), so its subject is not one of our objects; the error carries the
    subject's structural path (`vpl_core.ir.paths`), which names the
    corresponding object of our module. Operands and references have no
    provenance of their own, so the path is shortened until it reaches an
    object that has one (the instruction, block or function around it).
    """
    node_id = result.node_for(error.subject)
    subject_path = error.subject_path
    if node_id is not None or subject_path is None or result.module is None:
        return node_id, error.subject
    for length in range(len(subject_path), 0, -1):
        ours = paths.object_at(result.module, subject_path[:length])
        if ours is not None:
            node_id = result.node_for(ours)
            if node_id is not None:
                return node_id, ours
    return None, None
