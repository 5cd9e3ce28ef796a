"""What a material node type is: ports, properties, the lowering hook, and the registry they join.

A `NodeType` is the one implementation object of a node kind (MaterialX
style): typed ports for the editor and the type propagation, properties for
the properties panel, a one-line description for tooltips, and `lower`, the
function that emits the node's VPL through a `lowering.NodeContext` (and
raises `LoweringFailure` when the node cannot be lowered as configured).

Conventions every node type follows (the lowering relies on them):

- An unconnected input takes the node property of the same name when there
  is one, else its `PortSpec.default`: a float, a tuple of floats, a bool,
  or the name of a built-in source in `DEFAULT_SOURCES` ("texcoord",
  "world_normal", ...).
- `resolve`, when present, computes output types that depend on
  properties or input widths (Compose, Swizzle, Split, Vector Parameter);
  it returns a message string instead when the node is misconfigured.

The modules of `app.material.nodes` (one per category, in palette order)
declare their node types with `register`; `app.material.catalog` imports
them all. Read the registry through the catalog (`catalog.NODE_TYPES`):
imported from here alone, it holds only what has been registered so far.

Nodes whose ports depend on data (a group instance's on its definition, a
Custom Code node's on its own properties) have a *dynamic* type: a resolver
registered with `register_dynamic` (by `app.material.groups` and
`app.material.custom_code`, which the catalog imports too) builds their
`NodeType` from the node and its `Scope` (the document's group definitions
and the definition whose body holds the node). Everything that needs a
node's ports asks `node_type_for` / `resolve_node_type`, which live here
(not in the catalog) so the graph model, the type propagation and the group
modules can use them without importing the catalog that imports them.

The lowering context appears in annotations only (`TYPE_CHECKING`), so this
module sits below the node modules, the catalog and the lowering.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.material.port_types import PortConstraint, PortType
from vpl_core.ir.values import round_to_float32

if TYPE_CHECKING:
    from app.material.graph import GroupDefinition, Node
    from app.material.lowering import NodeContext


#: Category names in palette order.
CATEGORIES: tuple[str, ...] = (
    "Input", "Math", "Vector", "Color", "Texture", "Texture Space", "Mapping", "Logic", "Procedural", "Pattern", "Lighting", "PBR",
    "Output", "Utility",
)

#: The default of a texture input that may stay unconnected (the node reads it only when it is connected, and
#: its lowering says what it needs); any other unconnected texture input is refused by the type propagation.
OPTIONAL_TEXTURE = "optional"

#: Values an unconnected input can default to besides constants, with their types.
DEFAULT_SOURCES: dict[str, PortType] = {
    "texcoord": PortType.VEC2,
    "world_position": PortType.VEC3,
    "world_normal": PortType.VEC3,
    "world_tangent": PortType.VEC3,
    "view_direction": PortType.VEC3,
    "light_direction": PortType.VEC3,
    "time": PortType.FLOAT,
}

#: "ramp": colour ramp stops, a tuple of (position, r, g, b, a) tuples (app/material/nodes/color.py);
#: "ports": declared ports, a tuple of (name, type) pairs, and "code": VPL text (app/material/custom_code.py).
PROPERTY_KINDS = ("float", "vector", "color", "int", "bool", "enum", "string", "texture", "ramp", "ports", "code")

DefaultValue = float | tuple[float, ...] | bool | str | None


@dataclass(frozen=True)
class PortSpec:
    """An input or output port. `default` is used by unconnected inputs without a same-named property."""

    name: str
    type: PortConstraint
    default: DefaultValue = 0.0
    label: str = ""

    @property
    def display_name(self) -> str:
        return self.label or self.name.replace("_", " ")


@dataclass(frozen=True)
class PropertySpec:
    """A node property shown in the properties panel.

    `kind` is one of PROPERTY_KINDS. Vectors and colours are tuples (colour:
    4 floats, rgba); `minimum`/`maximum` bound floats and ints (the widget's
    range); `choices` lists the values of an enum.
    """

    name: str
    kind: str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        if self.kind not in PROPERTY_KINDS:
            raise ValueError(f"unknown property kind {self.kind!r}")

    @property
    def display_name(self) -> str:
        return self.label or self.name.replace("_", " ")


LowerFunction = Callable[["NodeContext"], None]
ResolveFunction = Callable[["Node", dict[str, PortType], frozenset[str]], dict[str, PortType] | str]


def _as_tuples(value: Any) -> Any:
    """A property value with lists as tuples (the view keeps colours JSON-like, as lists)."""
    return tuple(_as_tuples(item) for item in value) if isinstance(value, (list, tuple)) else value


@dataclass(frozen=True)
class InputSection:
    """A titled group of a node's inputs, drawn as a panel the artist can fold (Blender's node panels).

    Data only: the editor's graph (app/graph/nodes.py) draws a section as a
    one-line header followed by its inputs, and folds it to the header while
    none of its inputs is connected. Inputs a node type puts in no section
    are drawn first, always shown; sections follow in their order.
    """

    title: str
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class NodeType:
    type_name: str
    display_name: str
    category: str
    description: str
    inputs: list[PortSpec]
    outputs: list[PortSpec]
    properties: list[PropertySpec]
    lower: LowerFunction
    resolve: ResolveFunction | None = None
    notes: str = ""  # how the node lowers, for docs/material-nodes.md
    control: bool = False  # creates blocks and branches in the fragment entry (If)
    #: Foldable groups of inputs (`InputSection`); each input at most once.
    sections: tuple[InputSection, ...] = ()
    _inputs_by_name: dict[str, PortSpec] = field(default_factory=dict, compare=False, repr=False)
    _outputs_by_name: dict[str, PortSpec] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._inputs_by_name.update({port.name: port for port in self.inputs})
        self._outputs_by_name.update({port.name: port for port in self.outputs})
        grouped = [name for section in self.sections for name in section.inputs]
        unknown = [name for name in grouped if name not in self._inputs_by_name]
        if unknown or len(grouped) != len(set(grouped)):
            raise ValueError(f"{self.type_name}: sections name unknown or repeated inputs: {unknown or grouped}")

    def input(self, name: str) -> PortSpec | None:
        return self._inputs_by_name.get(name)

    def output(self, name: str) -> PortSpec | None:
        return self._outputs_by_name.get(name)

    def property(self, name: str) -> PropertySpec | None:
        for spec in self.properties:
            if spec.name == name:
                return spec
        return None

    def default_properties(self) -> dict[str, Any]:
        return {spec.name: spec.default for spec in self.properties}

    def unsectioned_inputs(self) -> list[str]:
        """The inputs in no section, in declaration order (drawn first, never folded)."""
        grouped = {name for section in self.sections for name in section.inputs}
        return [port.name for port in self.inputs if port.name not in grouped]

    def section_starts_open(self, section: InputSection, properties: Mapping[str, Any],
                            connected: Iterable[str] = ()) -> bool:
        """Whether `section` is unfolded when a node is shown: an input of it is connected (`connected`: input
        names) or holds a value other than its default (a folded section would hide that the lobe is on)."""
        wired = set(connected)
        for name in section.inputs:
            if name in wired:
                return True
            spec = self.property(name)
            if spec is not None and name in properties and _as_tuples(properties[name]) != _as_tuples(spec.default):
                return True
        return False

    def drawn_rows(self, open_sections: Iterable[str]) -> int:
        """Rows of inputs a node shows with the sections titled in `open_sections` unfolded: each section's header
        is a row, its inputs a row each when open (the example layout sizes nodes by this)."""
        unfolded = set(open_sections)
        rows = len(self.unsectioned_inputs())
        for section in self.sections:
            rows += 1 + (len(section.inputs) if section.title in unfolded else 0)
        return rows


#: Every registered node type by type name, in registration (palette) order; filled by `register`.
NODE_TYPES: dict[str, NodeType] = {}


class LoweringFailure(Exception):  # noqa: N818 - a control-flow signal inside the lowering, not an error type callers see
    """A node cannot be lowered as configured; becomes a 'graph' diagnostic on that node."""


@dataclass(frozen=True)
class NodeDiagnostic:
    """A problem shown on a node (or on the whole graph when `node_id` is None).

    Part of `lowering.LoweringResult` (and re-exported there); defined here so
    that `app.material.group_lowering` makes them without importing the lowering.

    `category` is 'graph' (types, connections, names), 'semantic' (the VPL
    verifier), 'target' (the GLSL backend) or 'driver' (the GL driver, from
    the preview). `severity` 'warning' marks problems of nodes that do not
    feed the output: they are shown but do not stop the material.
    """

    node_id: str | None
    category: str
    message: str
    severity: str = "error"
    #: For a problem inside a group: the definition whose body holds it, and the node there (None: the
    #: definition as a whole). `node_id` is then the node of the material that leads to it (an instance).
    scope: str | None = None
    scoped_node: str | None = None


# Property values as stored (possibly hand-edited): tolerant readers ---------------------------


def as_number(value: Any, fallback: float) -> float:
    """A stored property as a binary32-representable float; `fallback` when it is not a finite number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return float(fallback)
    try:
        number = float(value)
        if not math.isfinite(number):
            return float(fallback)
        return round_to_float32(number)
    except (ValueError, OverflowError):
        return float(fallback)


def as_integer(value: Any, fallback: int, minimum: float | None = None, maximum: float | None = None) -> int:
    """A stored property as an int within [minimum, maximum]; `fallback` when it is not a finite number."""
    number = fallback
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and math.isfinite(value):
        number = int(value)
    if minimum is not None:
        number = max(number, int(minimum))
    if maximum is not None:
        number = min(number, int(maximum))
    return number


def as_numbers(value: Any, width: int, pad_alpha: bool = False) -> list[float]:
    """`value` (a number or a sequence) as exactly `width` finite floats."""
    if isinstance(value, (list, tuple)):
        numbers = [as_number(item, 0.0) for item in value[:width]]
    else:
        numbers = [as_number(value, 0.0)] * width
    while len(numbers) < width:
        numbers.append(1.0 if (pad_alpha and len(numbers) == 3) else 0.0)
    return numbers


def _is_value(value: Any) -> bool:
    """A property value an input default can be: a number, bool, or a 1-4 sequence of numbers."""
    if isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, (list, tuple)) and 1 <= len(value) <= 4 and all(
        isinstance(item, (int, float)) and not isinstance(item, bool) for item in value
    )


def input_default(node: Node, node_type: NodeType, port_name: str) -> DefaultValue:
    """What an unconnected input reads: its same-named property (if well-formed), else the port default.

    Only `PortSpec.default` can name a source such as "texcoord"; a stored
    property of the wrong shape falls back to the property's catalog default.
    """
    spec = node_type.property(port_name)
    if spec is not None:
        # Stored properties are JSON data (a list where the catalog has a tuple): the same numbers.
        value: DefaultValue = node.properties.get(port_name, spec.default)
        fallback: DefaultValue = spec.default
        return value if _is_value(value) else fallback
    port = node_type.input(port_name)
    return port.default if port is not None else 0.0


def register(node_type: NodeType) -> NodeType:
    if node_type.type_name in NODE_TYPES:
        raise ValueError(f"node type {node_type.type_name!r} registered twice")
    if node_type.category not in CATEGORIES:
        raise ValueError(f"unknown category {node_type.category!r}")
    NODE_TYPES[node_type.type_name] = node_type
    return node_type



@dataclass(frozen=True, eq=False)
class Scope:
    """Where a node sits: the document's group definitions, and the definition whose body holds it.

    `definition` is None for the material's own graph. Group Input and
    Group Output nodes take their ports from `definition`'s interface, group
    instances from the definition they name in `functions`. `cycles`, when
    a caller computed it for `functions` (`groups.call_cycles`), lets an
    instance's recursion check look up instead of walking the definitions.
    `types`, when a caller hands one (the scopes of one lowering share it;
    the definitions must not change while it is in use), keeps the types the
    group resolvers build from a definition's interface, by (node kind,
    definition id): a deep chain of groups resolves each of them many times.
    """

    functions: Mapping[str, GroupDefinition] = field(default_factory=dict)
    definition: GroupDefinition | None = None
    cycles: Mapping[str, int] | None = None
    types: dict[tuple[str, str], NodeType] | None = None


#: A dynamic type's resolver: the node's `NodeType`, or a message saying why it has none.
DynamicResolver = Callable[["Node", Scope], "NodeType | str"]
DYNAMIC_NODE_TYPES: dict[str, DynamicResolver] = {}


def register_dynamic(type_name: str, resolver: DynamicResolver) -> None:
    """Node type `type_name` gets its ports from `resolver` (see the module docstring)."""
    if type_name in DYNAMIC_NODE_TYPES:
        raise ValueError(f"dynamic node type {type_name!r} registered twice")
    DYNAMIC_NODE_TYPES[type_name] = resolver


def resolve_node_type(node: Node, scope: Scope | None = None) -> NodeType | str:
    """The node's type (a dynamic one built for this node and scope), or why it has none."""
    resolver = DYNAMIC_NODE_TYPES.get(node.type_name)
    if resolver is not None:
        return resolver(node, scope if scope is not None else Scope())
    found = NODE_TYPES.get(node.type_name)
    return found if found is not None else f"unknown node type '{node.type_name}'"


def node_type_for(node: Node, scope: Scope | None = None) -> NodeType | None:
    """The node's type, or None when it has none (`resolve_node_type` says why)."""
    resolved = resolve_node_type(node, scope)
    return resolved if isinstance(resolved, NodeType) else None
