"""Texture-space graphs: buffers and filters that render in UV space, lowered to one module per pass.

A *pass node* is a node whose outputs are textures rendered in UV space
over the unit square: a Texture Buffer (`BUFFER_TYPE`), which renders its
upstream per-point sub-graph, or a *filter* (`define_filter`), whose kernel
reads other pass nodes' textures at offsets (blur, height to normal, ...).
A pass node's texture output feeds Texture Sample, other filters, or any
colour/float/vector input (read at the mesh's texture coordinates, as
Texture Sample reads it).

How a material with pass nodes is lowered (docs/texture-space.md):

- the material module: `lowering.lower` lowers `material_view(graph)`,
  where every pass node's incoming connections are cut and the node lowers
  to a load of a sampler uniform `pass_sampler_name(key)`, which the host
  binds to that pass's buffer;
- one module per pass (`app.material.pass_planner.plan_passes`): a Texture Buffer's upstream
  sub-graph (itself cut at pass nodes, which are sampler loads again),
  drawn in UV space (`OutputOverride.clip_from_texcoord`), or a filter
  pass's kernel. Each is verified, published and compiled exactly as the
  material module is (`lowering._verify_publish_compile`): no unverified
  code reaches the GPU.

A pass module is drawn like a bake: a quad covering the UV square
(`pass_quad_mesh`: position (2u-1, 2v-1, 0), normal +Z, tangent +X,
texcoord (u, v)), with the scene record `PASS_SCENE` (identity matrices), into
an N x N target of the pass's `BufferSpec`. Texel (i, j) is shaded at
uv = ((i + 0.5) / N, (j + 0.5) / N).

Parameter nodes used inside a pass's sub-graph become that pass module's
uniforms with the same names (one value edit applies to every module that
declares the name). A filter's numeric properties read through
`PassContext.value` are uniforms too (`TexturePass.values`), so a value
edit re-renders without relinking.

Writing a filter: see `define_filter`, `FilterPass` and `PassContext`, and
the "How to write a filter" section of docs/texture-space.md.

This module is what the node modules (which register the pass nodes) and
the lowering need: data types, the filter-authoring API and the structural
checks. It imports neither the lowering nor the graph at run time, since
both import the node registry; the planner that lowers the passes is
`app.material.pass_planner`, above the lowering.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from app.material.group_names import FUNCTION_PROPERTY, GROUP_TYPE
from app.material.node_types import (
    NODE_TYPES,
    NodeDiagnostic,
    NodeType,
    PortSpec,
    PropertySpec,
    as_integer,
    as_number,
    as_numbers,
    node_type_for,
    register,
)
from app.material.parameters import ParameterSpec
from app.material.port_types import PortType
from app.material.scene import OUTPUT_NODE_TYPES
from app.material.scene import PASS_UNIFORM_PREFIX as SCENE_PASS_UNIFORM_PREFIX
from app.material.traversal import connected_nodes, node_id_key, topological_order
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import FLOAT, SAMPLER2D, Type, vec
from vpl_core.ir.values import Operand, RegisterValue

if TYPE_CHECKING:
    from app.material.graph import GroupDefinition, MaterialGraph, Node
    from app.material.lowering import NodeContext, TrackingFunctionBuilder, _Lowering
    from vpl_core.publish import VerifiedModule

#: The palette category of buffers and filters.
CATEGORY = "Texture Space"
#: The Texture Buffer node type.
BUFFER_TYPE = "texture_buffer"
#: Prefix of the uniforms the texture passes add: samplers reading a pass's buffer and a filter's value
#: uniforms. No material parameter may take a name with it (the lowering refuses one), the parameters panel
#: never lists such a uniform (`is_pass_uniform`); the host fills them from the `PassPlan`.
PASS_UNIFORM_PREFIX = SCENE_PASS_UNIFORM_PREFIX
#: Prefix of a filter's value uniforms inside its pass modules (`PassContext.value`).
PASS_VALUE_PREFIX = PASS_UNIFORM_PREFIX + "value_"

#: Resolutions a buffer may have (power-of-two square textures).
RESOLUTIONS: tuple[int, ...] = (256, 512, 1024, 2048, 4096)
DEFAULT_RESOLUTION = 1024
#: Buffer formats: RGBA8 (unsigned normalised: values clamped to 0..1, 1/255 steps), RGBA16F, RGBA32F.
FORMATS: tuple[str, ...] = ("8-bit", "16-bit", "float")
#: A new buffer's format: 16-bit, so that a height filtered into normals or curvature does not come out
#: stair-stepped in 1/255 steps (8-bit suits colour).
DEFAULT_FORMAT = "16-bit"
BYTES_PER_TEXEL = {"8-bit": 4, "16-bit": 8, "float": 16}
#: Tiling modes: `tile` repeats the buffer (GL REPEAT: a filter reading past an edge reads the opposite edge,
#: so the result tiles seamlessly), `clamp` repeats the edge texels (GL CLAMP_TO_EDGE).
TILINGS: tuple[str, ...] = ("tile", "clamp")
#: Why a node shows no texture when a node it reads was refused (the thumbnails' wording for the same case).
DEPENDS_ON_A_PROBLEM = "depends on a node that has a problem"
#: The most memory every buffer of one material may take together (mip levels included); a plan beyond it is
#: refused, naming the node whose buffer crosses it. 1 GiB: four 4096^2 float buffers with mip-maps fit
#: (each 4096 * 4096 * 16 * 4/3 bytes = 341 MiB... three of them), a 2 GB GPU keeps room to draw.
MEMORY_BUDGET_BYTES = 1 << 30


def is_pass_uniform(name: str) -> bool:
    """Whether `name` is a uniform the texture passes add (a pass sampler or a filter value), never a parameter."""
    return name.startswith(PASS_UNIFORM_PREFIX)


# Data types of a plan ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BufferSpec:
    """What a pass renders into: an N x N RGBA texture.

    `format` is one of FORMATS, `wrap` one of TILINGS (how every reader
    samples it: repeat or clamp to edge), `mipmaps` whether the buffer gets
    a full mip chain after it is rendered (readers then filter trilinearly;
    kernels read level 0: `PassContext.sample`).
    """

    resolution: int = DEFAULT_RESOLUTION
    format: str = DEFAULT_FORMAT
    wrap: str = "tile"
    mipmaps: bool = False

    @property
    def texel(self) -> float:
        """The size of one texel in UV units: 1 / resolution."""
        return 1.0 / self.resolution

    @property
    def memory_bytes(self) -> int:
        """GPU memory of the buffer: resolution^2 texels of BYTES_PER_TEXEL, with mip levels when asked."""
        total, size = 0, self.resolution
        while True:
            total += size * size * BYTES_PER_TEXEL[self.format]
            if not self.mipmaps or size == 1:
                return total
            size //= 2


@dataclass(frozen=True)
class PassInput:
    """One sampler uniform of a module that reads a pass's buffer: `uniform` reads the buffer of pass `key`."""

    uniform: str
    key: str


@dataclass
class TexturePass:
    """One pass of a plan: a verified module that renders `spec` in UV space.

    `key` is unique in the plan and stable across edits (the node id, with
    `/<pass name>` for a filter's internal passes and `:<output>` for a
    filter output other than its first). `node_id` is the node that owns
    it. `inputs` says which sampler uniform of this module reads which
    pass. `verified`/`artifact`/`text` are as `LoweringResult`'s (the
    artifact holds the GLSL of every target). `parameters` are the material
    parameters the module declares (uniforms named as the parameter nodes);
    `values` the filter value uniforms' numbers (`PASS_VALUE_PREFIX`).
    `code_fingerprint` changes exactly when the module's text does (relink);
    `value_fingerprint` when the numbers it is drawn with do (`values` and
    its parameters' values in the graph); `content_fingerprint` when the
    buffer's content may: its own code, values and spec and every input's
    content fingerprint (a scheduler re-renders a pass when it changed).
    """

    key: str
    node_id: str
    spec: BufferSpec
    inputs: tuple[PassInput, ...] = ()
    verified: VerifiedModule | None = None
    artifact: Any = None  # ProgramArtifact
    text: str = ""
    parameters: list[ParameterSpec] = field(default_factory=list)
    values: dict[str, float | tuple[float, ...]] = field(default_factory=dict)
    code_fingerprint: str = ""
    value_fingerprint: str = ""
    content_fingerprint: str = ""
    #: The node output whose texture this pass is (None for a filter's internal pass).
    output: str | None = None
    #: With `plan_passes(live=...)`: the values lowered as hidden uniforms (`lowering.LiveValue`), by
    #: (node id, property); their numbers are part of `value_fingerprint`.
    live_values: dict[tuple[str, str], Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Displacement:
    """The mesh moved along the normal by (height − mid_level) × scale, the height the red channel of pass `key`."""

    key: str
    scale: float
    mid_level: float


@dataclass(frozen=True)
class VertexDisplacement:
    """The vertex stage moves every vertex along its world normal by (height − mid_level) × scale, the height
    read from the buffer of sampler uniform `sampler` (a texture pass of the material) at its texture
    coordinates. Set by the Surface Output's "Displacement and bump" (`height.lower_displacement`; the lowering reads it)."""

    sampler: str
    scale: float
    mid_level: float


@dataclass
class PassPlan:
    """Every pass a material needs, in run order, and what reads them.

    `passes` are in run order (every pass after the passes it reads).
    `material_inputs`: which sampler uniforms of the material module (or of
    a preview lowering of it) read which pass; `outputs`: (node id, output
    port) -> the key of the pass whose buffer that output is.
    `diagnostics` name nodes (`ok` is False with any error); a refused pass node
    and those reading it are left out (`refused`), every other pass is planned.
    """

    passes: list[TexturePass] = field(default_factory=list)
    material_inputs: tuple[PassInput, ...] = ()
    outputs: dict[tuple[str, str], str] = field(default_factory=dict)
    diagnostics: list[NodeDiagnostic] = field(default_factory=list)
    #: The Surface Output's displacement of the mesh ("Displacement and bump"): which pass holds the height, and
    #: the scale and mid level the material's vertex stage moves by (a host's shadow passes move the same way).
    displacement: Displacement | None = None
    #: The pass nodes left out of the plan, each with why: its own first problem, or `DEPENDS_ON_A_PROBLEM` for
    #: one that reads a refused node. Every other pass node's passes are in `passes` and run.
    refused: dict[str, str] = field(default_factory=dict)
    #: The sampler uniforms (`pass_sampler_name`) of the refused nodes' outputs, to their node: a module declaring
    #: one reads a buffer no pass makes.
    refused_samplers: dict[str, str] = field(default_factory=dict)

    @property
    def errors(self) -> list[NodeDiagnostic]:
        return [diagnostic for diagnostic in self.diagnostics if diagnostic.severity == "error"]

    @property
    def ok(self) -> bool:
        """No problem at all: every pass node is in the plan (`refused` names those that are not)."""
        return not self.errors and all(each.verified is not None for each in self.passes)

    @property
    def memory_bytes(self) -> int:
        """GPU memory the plan's buffers take: node outputs each their own, a filter's internal passes sharing
        buffers where their lifetimes do not overlap (`assign_slots`, as the GL runner allocates them)."""
        return allocated_bytes(slot_requests(self.passes), {each.key: each.spec.memory_bytes for each in self.passes})

    def pass_for(self, key: str) -> TexturePass | None:
        for each in self.passes:
            if each.key == key:
                return each
        return None


@dataclass(frozen=True)
class SlotRequest:
    """One pass as `assign_slots` sees it: `name`, what its buffer must be (`kind`: any hashable, equal for
    interchangeable buffers), the passes it reads (`reads`), and `keep`: its buffer is read after the run (a node
    output: the material, thumbnails and the Texture View read it), so it is never shared."""

    name: str
    kind: Any
    reads: tuple[str, ...] = ()
    keep: bool = True


def assign_slots(requests: Sequence[SlotRequest]) -> dict[str, int]:
    """Buffers for passes run in this order, reused where lifetimes do not overlap: pass name -> slot number.

    A pass that is not kept lives from its own draw to the last draw that reads it; a later pass of the same
    `kind` whose draw comes after that takes its slot (the slot freed longest ago first). A kept pass has a slot
    of its own. A pass never shares with a pass it reads (both live at its draw), so no draw reads its target.
    """
    last_read = {request.name: index for index, request in enumerate(requests)}
    for index, request in enumerate(requests):
        for source in request.reads:
            if source in last_read:
                last_read[source] = max(last_read[source], index)
    slots: dict[str, int] = {}
    free: dict[Any, list[int]] = {}
    ending: dict[int, list[tuple[Any, int]]] = {}  # draw index -> slots freed after that draw
    count = 0
    for index, request in enumerate(requests):
        pool = free.setdefault(request.kind, [])
        if not request.keep and pool:
            slot = pool.pop(0)
        else:
            slot, count = count, count + 1
        slots[request.name] = slot
        if not request.keep:
            ending.setdefault(last_read[request.name], []).append((request.kind, slot))
        for kind, freed in ending.pop(index, ()):
            free.setdefault(kind, []).append(freed)
    return slots


def allocated_bytes(requests: Sequence[SlotRequest], sizes: Mapping[str, int]) -> int:
    """The memory `assign_slots` allocates for `requests`: each slot's bytes once (`sizes`: bytes by pass name)."""
    slots = assign_slots(requests)
    by_slot = {slot: sizes[name] for name, slot in slots.items()}
    return sum(by_slot.values())


def slot_requests(passes: Sequence[TexturePass]) -> list[SlotRequest]:
    """A plan's passes as `assign_slots` takes them: a filter's internal passes (no `output`) may share."""
    return [SlotRequest(each.key, each.spec, tuple(item.key for item in each.inputs), each.output is not None)
            for each in passes]


def pass_sampler_name(key: str) -> str:
    """The sampler uniform that reads the buffer of pass `key` (the same in every module that reads it)."""
    safe = re.sub(r"[^A-Za-z0-9_]", "_", key)
    if safe != key:
        safe += "_" + hashlib.sha256(key.encode()).hexdigest()[:6]
    return f"{PASS_UNIFORM_PREFIX}{safe}"


def output_key(node_id: str, output: str, first_output: str) -> str:
    """The key of the pass whose buffer is output `output` of pass node `node_id`."""
    return node_id if output == first_output else f"{node_id}:{output}"


# Writing filters ---------------------------------------------------------------------------------

#: A pass's kernel: given the context, returns the texel's colour (an operand of type vec4).
Kernel = Callable[["PassContext"], Operand]


@dataclass(frozen=True)
class FilterPass:
    """One internal pass of a filter.

    `name` is unique within the filter; later passes of the same filter read
    this one by name (`PassContext.sample(name, uv)`). `kernel` returns the
    colour of each texel. `output` names the filter output whose buffer this
    pass is (at most one pass per output; a filter output no pass names is
    its last pass's buffer). `spec`, when given, derives this pass's buffer
    from the filter's output spec (e.g. a half-resolution intermediate).
    `reads` names the texture inputs and earlier passes the kernel samples
    (their samplers are loaded in the entry block); empty: every one
    available, so a pass that reads fewer should say which.
    """

    name: str
    kernel: Kernel
    output: str | None = None
    spec: Callable[[BufferSpec], BufferSpec] | None = None
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class FilterSetup:
    """What `FilterDefinition.passes` sees to decide a filter's passes: the node, its property values
    (`property`, with the catalog defaults) and the spec of its output buffer."""

    node: Node
    node_type: NodeType
    spec: BufferSpec
    #: The value inputs a parameter drives (their values are unknown when the passes are decided).
    connected: frozenset[str] = frozenset()

    def property(self, name: str) -> Any:
        if name in self.node.properties:
            return self.node.properties[name]
        spec = self.node_type.property(name)
        return spec.default if spec is not None else None

    def number(self, name: str) -> float:
        spec = self.node_type.property(name)
        return as_number(self.property(name), spec.default if spec is not None else 0.0)

    def integer(self, name: str) -> int:
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


@dataclass(frozen=True)
class FilterDefinition:
    """A filter's passes (`define_filter` makes it and registers the node type).

    `passes(setup)` lists the internal passes in run order (it may depend on
    properties and on the output resolution: jump flooding runs log2(N)
    passes). `main_input` is the texture input whose buffer spec the output
    inherits (resolution, format, tiling, mip-maps; the node's
    `OVERRIDE_PROPERTIES` may override resolution and format).
    """

    type_name: str
    main_input: str
    texture_inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    passes: Callable[[FilterSetup], Sequence[FilterPass]]
    #: Value inputs (float, vector, colour ports named as a property): unconnected, `PassContext.value` reads
    #: the property; connected to a Float, Vector or Colour Parameter, that parameter's uniform (the same name
    #: in every module, so the parameters panel drives the filter). Nothing else may feed them.
    value_inputs: tuple[str, ...] = ()
    #: Texture inputs that read only some node types' outputs (input -> those type names): Flood Fill's readers
    #: take a Flood Fill's buffer, whose texels are data, not an image. Other inputs take any pass node.
    input_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


#: Every filter by node type name (`define_filter`).
FILTERS: dict[str, FilterDefinition] = {}

#: Properties every filter has: its output's resolution and format ("input": the main input's).
OVERRIDE_PROPERTIES: tuple[PropertySpec, ...] = (
    PropertySpec("resolution", "enum", "input", choices=("input", *(str(size) for size in RESOLUTIONS))),
    PropertySpec("format", "enum", "input", choices=("input", *FORMATS)),
)


#: The parameter nodes that may drive a filter's value input.
VALUE_PARAMETER_TYPES = ("float_parameter", "vector_parameter", "color_parameter")


def is_pass_node_type(type_name: str) -> bool:
    """Whether nodes of this type are pass nodes (a Texture Buffer or a filter)."""
    return type_name == BUFFER_TYPE or type_name in FILTERS


class PassContext:
    """What a filter pass's kernel sees: the builder, the texel's uv, its inputs, the filter's values.

    - `fn`: the `TrackingFunctionBuilder` of the pass's fragment entry (every
      instruction emitted is attributed to the filter node);
    - `uv` (vec2): this texel's centre in UV space; `texel` (float): 1/N of
      this pass's output, `input_texel(name)` of an input's buffer;
    - `sample(name, uv)` (vec4): input `name` (a texture input of the
      filter, or an earlier internal pass) at `uv`, level 0, with the
      buffer's wrap (tile: repeat; clamp: clamp to edge), bilinear between
      texels; `sample_offset(name, dx, dy)` reads it at this texel's centre
      moved by (dx, dy) texels of that input (integer offsets read texel
      centres exactly when the input has this pass's resolution);
    - `value(name)`: a numeric property as a uniform (float, vecN or colour
      by the property's kind), so value edits do not relink; `number`,
      `integer`, `choice`, `property` read properties as constants of the
      code (a change relinks: use them for what shapes the code, e.g. a tap count);
    - `spec`, `input_spec(name)`: buffer specs.
    """

    def __init__(self, node_ctx: NodeContext, node: Node, node_type: NodeType, spec: BufferSpec,
                 sources: Mapping[str, tuple[str, BufferSpec]], values: dict[str, float | tuple[float, ...]],
                 inputs: list[PassInput], parameter_inputs: Mapping[str, str] | None = None) -> None:
        self._ctx = node_ctx
        self._parameter_inputs = dict(parameter_inputs or {})  # value input -> the parameter node feeding it
        self.node = node
        self.node_type = node_type
        self.spec = spec
        self._sources = sources  # input or pass name -> (pass key, spec)
        self._values = values
        self._inputs = inputs
        self._samplers: dict[str, Operand] = {}
        self._value_operands: dict[str, Operand] = {}
        self._setup = FilterSetup(node, node_type, spec)
        # Load every sampler once, in the entry block (a sampler's single alias definition).
        for name in sources:
            self._sampler(name)

    @property
    def fn(self) -> TrackingFunctionBuilder:
        return self._ctx.fn

    @property
    def lowering(self) -> _Lowering:
        return self._ctx.lowering

    @property
    def uv(self) -> Operand:
        return self._ctx.source("texcoord")

    @property
    def texel(self) -> float:
        return self.spec.texel

    def input_spec(self, name: str) -> BufferSpec:
        return self._source(name)[1]

    def input_texel(self, name: str) -> float:
        return self._source(name)[1].texel

    def _source(self, name: str) -> tuple[str, BufferSpec]:
        found = self._sources.get(name)
        if found is None:
            from app.material.node_types import LoweringFailure

            raise LoweringFailure(f"the filter reads {name!r}, which is neither one of its texture inputs nor an "
                                  "earlier pass of it")
        return found

    def _sampler(self, name: str) -> Operand:
        loaded = self._samplers.get(name)
        if loaded is None:
            key = self._source(name)[0]
            uniform = pass_sampler_name(key)
            reference = self.lowering.host_uniform(uniform, SAMPLER2D)
            if all(each.uniform != uniform for each in self._inputs):
                self._inputs.append(PassInput(uniform, key))
            loaded = self._samplers[name] = self.fn.load(reference)
        return loaded

    def sample(self, name: str, uv: Operand) -> RegisterValue:
        """Input `name` at `uv` (vec4), level 0 (see the class docstring)."""
        fn = self.fn
        return fn.builtin(Builtin.TEXTURE_LOD, PortType.COLOR, self._sampler(name), uv, fn.f(0.0))

    def offset_uv(self, name: str, dx: float, dy: float) -> Operand:
        """This texel's uv moved by (dx, dy) texels of input `name`."""
        if dx == 0.0 and dy == 0.0:
            return self.uv
        fn = self.fn
        step = self.input_texel(name)
        return fn.add(self.uv, fn.construct(vec(2), fn.f(dx * step), fn.f(dy * step)))

    def sample_offset(self, name: str, dx: float, dy: float) -> RegisterValue:
        """Input `name` at this texel moved by (dx, dy) of its texels (vec4)."""
        return self.sample(name, self.offset_uv(name, dx, dy))

    def value(self, name: str) -> Operand:
        """Numeric property `name` as a load of a uniform of this pass (float; vecN for vectors; vec4 for colours);
        for a value input connected to a parameter, that parameter's uniform (of the input's type)."""
        loaded = self._value_operands.get(name)
        if loaded is not None:
            return loaded
        spec = self.node_type.property(name)
        parameter = self._parameter_inputs.get(name)
        if parameter is not None:
            # The parameter node was lowered into this module (its uniform, named as in the material).
            value, source_type = self.lowering.values[(parameter, "out")]
            port = self.node_type.input(name)
            target = port.type if port is not None and isinstance(port.type, PortType) else source_type
            loaded = self._value_operands[name] = self.lowering.coerce(value, source_type, target)
            return loaded
        raw = self._setup.property(name)
        numbers: float | tuple[float, ...]
        value_type: Type
        if spec is not None and spec.kind == "color":
            numbers = tuple(as_numbers(raw, 4, pad_alpha=True))
            value_type = vec(4)
        elif spec is not None and spec.kind == "vector" and isinstance(spec.default, tuple):
            numbers = tuple(as_numbers(raw, len(spec.default)))
            value_type = vec(len(spec.default))
        else:
            numbers = self._setup.number(name) if spec is None or spec.kind != "int" else float(self._setup.integer(name))
            value_type = FLOAT
        uniform = PASS_VALUE_PREFIX + re.sub(r"[^A-Za-z0-9_]", "_", name)
        reference = self.lowering.host_uniform(uniform, value_type)
        self._values[uniform] = numbers
        loaded = self._value_operands[name] = self.fn.load(reference)
        return loaded

    def property(self, name: str) -> Any:
        return self._setup.property(name)

    def number(self, name: str) -> float:
        return self._setup.number(name)

    def integer(self, name: str) -> int:
        return self._setup.integer(name)

    def choice(self, name: str) -> str:
        return self._setup.choice(name)


def lower_pass_outputs(ctx: NodeContext) -> None:
    """A pass node in a module that reads it: each texture output read there is a load of its pass's sampler.

    An output only filters read (their passes sample it, not this module) declares nothing, so a material
    module declares the samplers it samples and no more (a fragment shader may have as few as 16).
    """
    outputs = ctx.node_type.outputs
    lowering = ctx.lowering
    for port in outputs:
        key = (ctx.node.id, port.name)
        readers = [lowering.graph.nodes.get(c.target_node) for c in lowering.graph.connections
                   if c.source_node == ctx.node.id and c.source_port == port.name]
        if key not in lowering.preview_ports and all(
                reader is not None and is_pass_node_type(reader.type_name) for reader in readers):
            continue
        uniform = pass_sampler_name(output_key(ctx.node.id, port.name, outputs[0].name))
        ctx.set_output(port.name, ctx.fn.load(lowering.host_uniform(uniform, SAMPLER2D)))


def define_filter(type_name: str, display_name: str, description: str, *, inputs: Sequence[PortSpec],
                  properties: Sequence[PropertySpec], passes: Callable[[FilterSetup], Sequence[FilterPass]],
                  outputs: Sequence[str] = ("out",), main_input: str | None = None, notes: str = "",
                  input_sources: Mapping[str, tuple[str, ...]] | None = None) -> NodeType:
    """Register a filter node type in the "Texture Space" category and return it.

    `inputs`: its ports; the TEXTURE ones are buffers it reads (each must be
    connected to a pass node's output). Any other input is a *value input*:
    a float, vector or colour port with a property of the same name, read by
    `PassContext.value(name)` (the property's value, or the uniform of the
    Float/Vector/Colour Parameter connected to it: a material parameter
    driving the filter). `main_input` (default: the first texture input)
    gives the output's buffer spec. `outputs` are texture outputs. The node
    also gets `OVERRIDE_PROPERTIES` (resolution, format). `input_sources`
    restricts texture inputs to the outputs of the node types it names (a
    plan refuses anything else, naming the filter).
    """
    texture_inputs = tuple(port.name for port in inputs if port.type is PortType.TEXTURE)
    if not texture_inputs:
        raise ValueError(f"filter {type_name!r} has no texture input")
    property_names = {spec.name for spec in properties}
    value_inputs = tuple(port.name for port in inputs if port.type is not PortType.TEXTURE)
    for port in inputs:
        if port.type is PortType.TEXTURE:
            continue
        if port.type not in (PortType.FLOAT, PortType.VEC2, PortType.VEC3, PortType.VEC4, PortType.COLOR) \
                or port.name not in property_names:
            raise ValueError(f"filter {type_name!r}: value input {port.name!r} must be a float, vector or colour "
                             "port with a property of the same name")
    main = main_input or texture_inputs[0]
    if main not in texture_inputs:
        raise ValueError(f"filter {type_name!r}: main input {main!r} is not a texture input")
    node_type = register(NodeType(
        type_name, display_name, CATEGORY, description,
        inputs=list(inputs),
        outputs=[PortSpec(name, PortType.TEXTURE) for name in outputs],
        properties=[*properties, *OVERRIDE_PROPERTIES],
        lower=lower_pass_outputs,
        notes=notes,
    ))
    sources = dict(input_sources or {})
    if any(name not in texture_inputs for name in sources):
        raise ValueError(f"filter {type_name!r}: input_sources names an input that is not a texture input")
    FILTERS[type_name] = FilterDefinition(type_name, main, texture_inputs, tuple(outputs), passes, value_inputs,
                                          sources)
    return node_type


# The Texture Buffer node ------------------------------------------------------------------------

#: The Texture Buffer's properties (its buffer spec).
BUFFER_PROPERTIES: tuple[PropertySpec, ...] = (
    PropertySpec("resolution", "enum", str(DEFAULT_RESOLUTION), choices=tuple(str(size) for size in RESOLUTIONS)),
    PropertySpec("format", "enum", DEFAULT_FORMAT, choices=FORMATS),
    PropertySpec("tiling", "enum", "tile", choices=TILINGS),
    PropertySpec("mipmaps", "bool", False, label="mip-maps"),
    PropertySpec("input", "color", (0.0, 0.0, 0.0, 1.0), label="colour"),
)


def buffer_spec_of(node: Node) -> BufferSpec:
    """A Texture Buffer node's spec from its properties (stored values out of range take the defaults)."""
    def choice(name: str, choices: Sequence[str], default: str) -> str:
        value = node.properties.get(name, default)
        return str(value) if str(value) in choices else default

    resolution = int(choice("resolution", [str(size) for size in RESOLUTIONS], str(DEFAULT_RESOLUTION)))
    return BufferSpec(resolution, choice("format", FORMATS, DEFAULT_FORMAT), choice("tiling", TILINGS, "tile"),
                      node.properties.get("mipmaps") is True)


def fingerprint(data: Any) -> str:
    """A short stable hash of JSON-able data (floats exact: `repr`)."""
    text = json.dumps(data, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]



# Drawing a pass ---------------------------------------------------------------------------------

_IDENTITY = ((1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0))
#: The scene record a pass module is drawn with (fields by name, as the preview's `scene_values`): identity
#: matrices (the pass quad is its own world; clip space comes from the texture coordinates), a camera
#: and the light straight above the plane (+Z), time 0.
PASS_SCENE: dict[str, Any] = {
    "model": _IDENTITY, "view": _IDENTITY, "projection": _IDENTITY, "normal_matrix": _IDENTITY,
    "camera_position": (0.0, 0.0, 4.0), "time": 0.0, "light_direction": (0.0, 0.0, 1.0), "light_intensity": 1.0,
    "light_color": (1.0, 1.0, 1.0), "environment_rotation": 0.0, "environment_intensity": 1.0,
    "environment_max_lod": 0.0,
}  # fmt: skip


def pass_quad_mesh() -> dict[str, list[tuple[float, ...]]]:
    """The quad a pass is drawn with: vertex arrays by vertex input name (scene.VERTEX_INPUTS) and `indices`
    (two triangles). Position (2u-1, 2v-1, 0): a flat plane facing +Z; normal +Z, tangent +X (handedness 1)."""
    uvs: list[tuple[float, ...]] = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    return {
        "position": [(2.0 * u - 1.0, 2.0 * v - 1.0, 0.0) for u, v in uvs],
        "normal": [(0.0, 0.0, 1.0)] * 4,
        "texcoord": uvs,
        "tangent": [(1.0, 0.0, 0.0, 1.0)] * 4,
        "color": [(1.0, 1.0, 1.0, 1.0)] * 4,
        "indices": [(0, 1, 2), (0, 2, 3)],
    }


# Planning ---------------------------------------------------------------------------------------

_UNCONNECTED = "must be connected"
#: The id of the output node a pass module is lowered with (its diagnostics are the pass node's).
_PASS_OUTPUT_ID = "__pass_output"


def material_view(graph: MaterialGraph) -> MaterialGraph:
    """`graph` with every connection into a Texture Buffer cut: what the material module lowers. Pass nodes
    lower to loads of their samplers there, so nothing upstream of a buffer reaches the material module (a
    filter's inputs are pass nodes: sampler loads too). The graph itself when it has no buffer."""
    buffers = {node_id for node_id, node in graph.nodes.items() if node.type_name == BUFFER_TYPE}
    if not buffers:
        return graph
    return replace(graph, connections=[c for c in graph.connections if c.target_node not in buffers])


def has_pass_nodes(graph: MaterialGraph) -> bool:
    """Whether the material needs texture passes: one of its nodes (or of its group definitions) is a pass node,
    or its Surface Output displaces the mesh (`displacing_output`: its height is rendered into a buffer)."""
    return (any(is_pass_node_type(node.type_name) for _, node in graph.walk_nodes())
            or displacing_output(graph) is not None)


#: The Surface Output's property choosing how its height is drawn, and its choices: "bump_only" (parallax
#: occlusion mapping and bump in the fragment stage) or "displacement_and_bump" (the vertex stage moves the mesh
#: by the height read from a buffer, the fragment stage bumps the shading normal by the same height).
DISPLACEMENT_PROPERTY = "displacement_method"
DISPLACEMENT_CHOICES = ("bump_only", "displacement_and_bump")
#: The buffer the displaced height is rendered into: float texels for a smooth surface, clamped at the UV
#: square's edges (the mesh's texture coordinates are read as they are), read at level 0 by the vertex stage.
DISPLACEMENT_SPEC = BufferSpec(resolution=512, format="float", wrap="clamp", mipmaps=False)


def displacement_key(node_id: str) -> str:
    """The key of the pass that renders the height Surface Output `node_id` displaces the mesh by."""
    return f"{node_id}/displacement"


def displacing_output(graph: MaterialGraph) -> Node | None:
    """The material's Surface Output when it displaces the mesh: displacement method "displacement_and_bump",
    the height connected and a scale that is connected or above 0 (as `height.height_active`)."""
    for node_id in sorted(graph.nodes, key=node_id_key):
        node = graph.nodes[node_id]
        if node.type_name != "surface_output" or node.properties.get(DISPLACEMENT_PROPERTY) != DISPLACEMENT_CHOICES[1]:
            continue
        connected = {c.target_port for c in graph.connections if c.target_node == node_id}
        scale = node.properties.get("height_scale", 0.05)
        if "height" in connected and ("height_scale" in connected or (isinstance(scale, (int, float)) and scale > 0.0)):
            return node
    return None


def pass_node_problems(graph: MaterialGraph, unconnected: bool = True) -> list[NodeDiagnostic]:
    """Structural refusals of pass nodes that need no lowering: cycles, pass nodes inside groups, filter inputs
    that are not buffers (the `plan_passes` diagnostics; the material lowering reports them too, but for
    `unconnected` filter inputs, which its type propagation reports already)."""
    problems = _analyse(graph)[2]
    if unconnected:
        return problems
    return [problem for problem in problems if _UNCONNECTED not in problem.message]


def grouped_pass_nodes(functions: Mapping[str, GroupDefinition], function_id: str) -> tuple[str, list[str]] | None:
    """The pass nodes an instance of `function_id` would hold: (the definition whose body holds them, their ids),
    looking in its body, then in the bodies of the groups it calls, depth first; None when there are none.

    Grouping refuses such nodes (`groups.group_nodes`) and the planner names the group node of a file that has
    them: a pass renders the whole UV square, which a group's helper function, called per point, cannot do."""
    seen: set[str] = set()
    pending = [function_id]
    while pending:
        current = pending.pop()
        definition = functions.get(current)
        if current in seen or definition is None:
            continue
        seen.add(current)
        inside = sorted((node_id for node_id, node in definition.body.nodes.items() if is_pass_node_type(node.type_name)),
                        key=node_id_key)
        if inside:
            return current, inside
        called = [node.properties.get(FUNCTION_PROPERTY) for _, node in sorted(definition.body.nodes.items(),
                  key=lambda item: node_id_key(item[0])) if node.type_name == GROUP_TYPE]
        pending.extend(reversed([callee for callee in called if isinstance(callee, str)]))
    return None


@dataclass
class _Analysis:
    order: list[str]                       # pass nodes, run order
    specs: dict[tuple[str, str], BufferSpec]  # (node, output) -> spec


def _analyse(graph: MaterialGraph) -> tuple[_Analysis, set[str], list[NodeDiagnostic]]:
    problems: list[NodeDiagnostic] = []
    failed: set[str] = set()
    order, cyclic = topological_order(graph)
    outputs = [node_id for node_id, node in graph.nodes.items() if node.type_name in OUTPUT_NODE_TYPES]
    feeding = connected_nodes(graph, outputs)

    def refuse(node_id: str, message: str) -> None:
        severity = "error" if node_id in feeding else "warning"
        problems.append(NodeDiagnostic(node_id, "graph", message, severity))
        failed.add(node_id)

    for node_id, node in graph.nodes.items():
        function_id = node.properties.get(FUNCTION_PROPERTY) if node.type_name == GROUP_TYPE else None
        if not isinstance(function_id, str) or function_id not in graph.functions:
            continue
        found = grouped_pass_nodes(graph.functions, function_id)
        if found is None:
            continue
        holder, inside = found
        definition = graph.functions[function_id]
        where = "" if holder == function_id else f", in group '{graph.functions[holder].name}' inside it"
        problems.append(NodeDiagnostic(
            node_id, "graph", f"group '{definition.name}' holds a texture-space node ({', '.join(inside)}{where}); "
            "Texture Buffers and filters render the whole UV square and cannot sit inside a group: "
            "move them out of the group", scope=holder, scoped_node=inside[0]))

    incoming = {(c.target_node, c.target_port): c for c in graph.connections}
    cycle = set(cyclic)
    for node_id in sorted(cycle, key=node_id_key):
        node = graph.nodes[node_id]
        if not is_pass_node_type(node.type_name):
            continue
        if _reads_itself(graph, node_id):
            refuse(node_id, "this node reads its own output; a buffer cannot read itself (render it into a second "
                            "Texture Buffer first)")
        else:
            refuse(node_id, "this node is part of a cycle: its output feeds back into its own input")
    analysis = _Analysis([], {})
    for node_id in order:
        node = graph.nodes[node_id]
        if node_id in cycle or not is_pass_node_type(node.type_name):
            continue
        node_type = node_type_for(node)
        if node_type is None:
            continue
        if node.type_name == BUFFER_TYPE:
            spec = buffer_spec_of(node)
            connection = incoming.get((node_id, "input"))
            if connection is not None and connection.source_node in failed:
                failed.add(node_id)
                continue
        else:
            filter_definition = FILTERS[node.type_name]
            main_spec: BufferSpec | None = None
            broken = False
            for port in filter_definition.texture_inputs:
                connection = incoming.get((node_id, port))
                source = graph.nodes.get(connection.source_node) if connection is not None else None
                if connection is None or source is None:
                    refuse(node_id, f"input '{port}' {_UNCONNECTED} to a Texture Buffer or another filter's output")
                    broken = True
                elif not is_pass_node_type(source.type_name):
                    refuse(node_id, f"input '{port}' reads {connection.source_node}, which is not a texture-space "
                                    "node: a filter reads Texture Buffers and other filters (render the value into a "
                                    "Texture Buffer first)")
                    broken = True
                elif port in filter_definition.input_sources and \
                        source.type_name not in filter_definition.input_sources[port]:
                    wanted = " or ".join(_display_name(type_name) for type_name in filter_definition.input_sources[port])
                    refuse(node_id, f"input '{port}' reads {connection.source_node}, a {_display_name(source.type_name)}: "
                                    f"it takes the output of a {wanted}")
                    broken = True
                elif connection.source_node in failed:
                    failed.add(node_id)
                    broken = True
                elif port == filter_definition.main_input:
                    main_spec = analysis.specs.get((connection.source_node, connection.source_port))
            for port in filter_definition.value_inputs:
                connection = incoming.get((node_id, port))
                source = graph.nodes.get(connection.source_node) if connection is not None else None
                if connection is not None and (source is None or source.type_name not in VALUE_PARAMETER_TYPES):
                    refuse(node_id, f"input '{port}' reads {connection.source_node}, which is not a Float, Vector or "
                                    "Colour Parameter: a filter's values are the same at every texel (use its "
                                    "property, or a parameter to drive it from the parameters panel)")
                    broken = True
            if broken or main_spec is None:
                failed.add(node_id)
                continue
            spec = _overridden(main_spec, node)
        for output_port in node_type.outputs:
            analysis.specs[(node_id, output_port.name)] = spec
        analysis.order.append(node_id)
    return analysis, failed, problems


def _reads_itself(graph: MaterialGraph, node_id: str) -> bool:
    """Whether the output of pass node `node_id` comes back to its inputs through per-point nodes alone."""
    consumers: dict[str, set[str]] = {}
    for connection in graph.connections:
        consumers.setdefault(connection.source_node, set()).add(connection.target_node)
    seen: set[str] = set()
    pending = list(consumers.get(node_id, ()))
    while pending:
        current = pending.pop()
        if current == node_id:
            return True
        node = graph.nodes.get(current)
        if current in seen or node is None or is_pass_node_type(node.type_name):
            continue
        seen.add(current)
        pending.extend(consumers.get(current, ()))
    return False


def _display_name(type_name: str) -> str:
    found = NODE_TYPES.get(type_name)
    return found.display_name if found is not None else type_name


def _overridden(spec: BufferSpec, node: Node) -> BufferSpec:
    resolution = node.properties.get("resolution", "input")
    if str(resolution) in [str(size) for size in RESOLUTIONS]:
        spec = replace(spec, resolution=int(str(resolution)))
    found = node.properties.get("format", "input")
    if found in FORMATS:
        spec = replace(spec, format=str(found))
    return spec
