"""Material parameters: what the parameters panel shows and the preview uploads.

A parameter is a uniform that is not the scene record. The editor derives
specs from its parameter nodes (with ranges and colour flags); for a module
from elsewhere `specs_from_module` derives them from the uniform types alone.
Values are plain Python data: float, tuple of floats, or for textures an
image path (None means the default checker texture).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from app.material.scene import SCENE_UNIFORM_NAME
from vpl_core.ir.module import Module, UniformKind
from vpl_core.ir.types import SamplerType, ScalarKind, ScalarType, Type, VectorType

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


def zero_value(value_type: Type) -> ParameterValue:
    if isinstance(value_type, ScalarType):
        return 0.0
    if isinstance(value_type, VectorType):
        return (0.0,) * value_type.size
    return None


def specs_from_module(module: Module) -> list[ParameterSpec]:
    """Parameter specs for every non-scene uniform of a module from anywhere."""
    specs: list[ParameterSpec] = []
    for uniform in module.uniforms:
        if uniform.name == SCENE_UNIFORM_NAME:
            continue
        value_type = uniform.type
        if uniform.kind is UniformKind.SCALAR and isinstance(value_type, SamplerType):
            specs.append(ParameterSpec(uniform.name, ParameterKind.TEXTURE, value_type, None))
        elif uniform.kind is UniformKind.SCALAR and value_type == ScalarType(ScalarKind.FLOAT):
            specs.append(ParameterSpec(uniform.name, ParameterKind.FLOAT, value_type, 0.0))
        elif (
            uniform.kind is UniformKind.SCALAR
            and isinstance(value_type, VectorType)
            and value_type.kind is ScalarKind.FLOAT
        ):
            specs.append(ParameterSpec(uniform.name, ParameterKind.VECTOR, value_type, zero_value(value_type)))
        else:
            specs.append(ParameterSpec(uniform.name, ParameterKind.OTHER, value_type, None))
    return specs
