"""Material parameters: what the parameters panel shows and the preview uploads.

A parameter is a uniform that is not the scene record. The editor derives
specs from its parameter nodes (with ranges and colour flags); for a module
from elsewhere, or an artifact, `spec_for_uniform` derives them from the
uniform's kind and type alone: one classification for both
(`specs_from_module`, `specs_from_artifact`). Values are plain Python data:
float, tuple of floats, or for textures an image path (None means the
default checker texture).

Who holds values, and how they survive a recompile, is
`app.session.parameters.ParameterModel`'s business (one rule, `carry_over`
below).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.material.scene import HOST_SAMPLERS, SCENE_UNIFORM_NAME
from vpl_core.ir.module import Module, UniformKind
from vpl_core.ir.types import SamplerType, ScalarKind, ScalarType, Type, VectorType

if TYPE_CHECKING:
    from vpl_core.backends.glsl.artifact import ProgramArtifact

ParameterValue = float | tuple[float, ...] | str | None


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
