"""Material parameters: what the parameters panel shows and the preview uploads.

A parameter is a uniform that is not the scene record. The editor derives
specs from its parameter nodes (with ranges and colour flags); for a module
from elsewhere, or an artifact, `spec_for_uniform` derives them from the
uniform's kind and type alone: one classification for both
(`specs_from_module`, `specs_from_artifact`). Values are plain Python data:
float, tuple of floats, or for textures an image path (None means the
default checker texture).

Where values live (docs/file-format.md): in the material. A parameter's
value is its node's value property (`default`; `image` for a texture); an
active variant (`MaterialGraph.active_variant`) overrides it by parameter
name. `material_values` reads them from a graph for a list of specs, with
the same coercion (`usable_value`) for node values and overrides, so a
value that no longer fits its parameter (a renamed, retyped or resized
one) is ignored rather than misused.

Who holds values at run time, and how values without a material (a
read-only module's) survive a recompile, is
`app.session.parameters.ParameterModel`'s business (one rule, `carry_over`
below).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.material.scene import HOST_SAMPLERS, PASS_UNIFORM_PREFIX, SCENE_UNIFORM_NAME, is_hidden_uniform
from app.material.traversal import node_id_key
from vpl_core.ir.module import Module, UniformKind
from vpl_core.ir.types import SamplerType, ScalarKind, ScalarType, Type, VectorType

if TYPE_CHECKING:
    from app.material.graph import MaterialGraph, Node
    from vpl_core.backends.glsl.artifact import ProgramArtifact

ParameterValue = float | tuple[float, ...] | str | None

#: Node types whose "name" property names a uniform (validated unique and nonempty; the nodes are in
#: `app.material.nodes.inputs`).
PARAMETER_NODE_TYPES = ("float_parameter", "vector_parameter", "color_parameter", "texture_parameter")
#: The property of each parameter node that holds the parameter's value (what the parameters panel edits).
PARAMETER_VALUE_PROPERTY = {
    "float_parameter": "default",
    "vector_parameter": "default",
    "color_parameter": "default",
    "texture_parameter": "image",
}


class ParameterKind(enum.Enum):
    FLOAT = "float"
    VECTOR = "vector"
    COLOR = "color"
    TEXTURE = "texture"
    OTHER = "other"  # a uniform the panel cannot edit (records, arrays, ints, matrices)


@dataclass(frozen=True)
class ParameterSpec:
    name: str                 # the uniform's name (logical name in the artifact's reflection)
    kind: ParameterKind
    type: Type
    default: ParameterValue
    minimum: float = 0.0
    maximum: float = 1.0
    label: str = ""           # shown in the panel; the name when empty

    @property
    def display_name(self) -> str:
        return self.label or self.name

    @property
    def editable(self) -> bool:
        return self.kind is not ParameterKind.OTHER


def zero_value(value_type: Type) -> ParameterValue:
    if isinstance(value_type, ScalarType):
        return 0.0
    if isinstance(value_type, VectorType):
        return (0.0,) * value_type.size
    return None


def spec_for_uniform(name: str, kind: UniformKind, value_type: Type) -> ParameterSpec:
    """The spec of a uniform known only by its declaration: zero defaults, [0, 1] ranges."""
    if kind is UniformKind.SCALAR and isinstance(value_type, SamplerType):
        return ParameterSpec(name, ParameterKind.TEXTURE, value_type, None)
    if kind is UniformKind.SCALAR and value_type == ScalarType(ScalarKind.FLOAT):
        return ParameterSpec(name, ParameterKind.FLOAT, value_type, 0.0)
    if kind is UniformKind.SCALAR and isinstance(value_type, VectorType) and value_type.kind is ScalarKind.FLOAT:
        return ParameterSpec(name, ParameterKind.VECTOR, value_type, zero_value(value_type))
    return ParameterSpec(name, ParameterKind.OTHER, value_type, None)


def _specs(uniforms: Iterable[tuple[str, UniformKind, Type]]) -> list[ParameterSpec]:
    return [
        spec_for_uniform(name, kind, value_type)
        for name, kind, value_type in uniforms
        if not (name == SCENE_UNIFORM_NAME and kind is UniformKind.RECORD)
        and not (name in HOST_SAMPLERS and isinstance(value_type, SamplerType))  # the preview's lighting
        and not is_hidden_uniform(name)  # the editor's live values: the preview's, never a parameter
        and not name.startswith(PASS_UNIFORM_PREFIX)  # texture passes' samplers and values: the host binds them
    ]


def specs_from_module(module: Module) -> list[ParameterSpec]:
    """Parameter specs for every non-scene uniform of a module from anywhere, in uniform order."""
    return _specs((uniform.name, uniform.kind, uniform.type) for uniform in module.uniforms)


def specs_from_artifact(artifact: ProgramArtifact) -> list[ParameterSpec]:
    """The same specs from an artifact's reflection (a host that has no module)."""
    return _specs((binding.name, binding.kind, binding.type) for binding in artifact.uniforms)


def same_parameter(old: ParameterSpec | None, new: ParameterSpec) -> bool:
    """Whether a value set for `old` still means the same for `new`.

    Same name, kind and type, and the same default: a changed default means
    the material itself changed the value (its node was edited), and that
    is what must show.
    """
    return (
        old is not None
        and old.name == new.name
        and old.kind is new.kind
        and old.type == new.type
        and old.default == new.default
    )


def carry_over(
    old_specs: Mapping[str, ParameterSpec], old_values: Mapping[str, ParameterValue], new_specs: Iterable[ParameterSpec]
) -> dict[str, ParameterValue]:
    """Values for `new_specs`: the old value where `same_parameter` holds, else the new default.

    The editor's one carry-over rule (`ParameterModel.set_specs` applies it).
    """
    values: dict[str, ParameterValue] = {}
    for spec in new_specs:
        if same_parameter(old_specs.get(spec.name), spec) and spec.name in old_values:
            values[spec.name] = old_values[spec.name]
        else:
            values[spec.name] = spec.default
    return values


# Values in the material ------------------------------------------------------------------------

#: `usable_value`'s answer for a stored value that does not fit the parameter.
UNUSABLE = object()


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def usable_value(spec: ParameterSpec, stored: Any) -> Any:
    """`stored` (a node's value property or a variant's override) as a value of `spec`, else `UNUSABLE`.

    Floats need a finite number; vectors and colours a sequence of the
    parameter's width (a colour's missing alpha is 1); textures a path
    (an empty path is the checker, None).
    """
    if spec.kind is ParameterKind.FLOAT:
        number = _number(stored)
        return UNUSABLE if number is None else number
    if spec.kind in (ParameterKind.VECTOR, ParameterKind.COLOR):
        width = spec.type.size if isinstance(spec.type, VectorType) else 0
        if not isinstance(stored, (list, tuple)) or not width:
            return UNUSABLE
        numbers = [_number(item) for item in stored[:width]]
        if any(number is None for number in numbers):
            return UNUSABLE
        if spec.kind is ParameterKind.COLOR and len(numbers) == 3 and width == 4:
            numbers.append(1.0)
        return tuple(numbers) if len(numbers) == width else UNUSABLE
    if spec.kind is ParameterKind.TEXTURE:
        if stored is None or stored == "":
            return None
        return stored if isinstance(stored, str) else UNUSABLE
    return UNUSABLE


def parameter_nodes(graph: MaterialGraph) -> dict[str, Node]:
    """Parameter name -> its node (the first by node id when a name is taken twice)."""
    nodes: dict[str, Node] = {}
    for node_id in sorted(graph.nodes, key=node_id_key):
        node = graph.nodes[node_id]
        name = node.properties.get("name")
        if node.type_name in PARAMETER_VALUE_PROPERTY and isinstance(name, str):
            nodes.setdefault(name, node)
    return nodes


def node_value_property(node: Node) -> str | None:
    """The property of a parameter node that holds its value (None for other nodes)."""
    return PARAMETER_VALUE_PROPERTY.get(node.type_name)


def material_values(specs: Iterable[ParameterSpec], graph: MaterialGraph) -> tuple[dict[str, ParameterValue], frozenset[str]]:
    """The value of every spec in `graph`, and the names the active variant overrides.

    A spec's value is its node's value property when that fits the spec
    (else the spec's default), unless the active variant holds a fitting
    value for its name.
    """
    nodes = parameter_nodes(graph)
    active = graph.active
    values: dict[str, ParameterValue] = {}
    overridden: set[str] = set()
    for spec in specs:
        value: Any = spec.default
        node = nodes.get(spec.name)
        prop = node_value_property(node) if node is not None else None
        if node is not None and prop is not None and prop in node.properties:
            stored = usable_value(spec, node.properties[prop])
            if stored is not UNUSABLE:
                value = stored
        if active is not None and spec.name in active.values:
            override = usable_value(spec, active.values[spec.name])
            if override is not UNUSABLE:
                value = override
                overridden.add(spec.name)
        values[spec.name] = value
    return values, frozenset(overridden)
