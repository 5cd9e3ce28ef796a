"""Parameter specs for an artifact that came without them, and value carry-over across recompiles.

The editor passes the specs it derived from its parameter nodes; a module
from elsewhere has only its reflection, so the same rules as
`app.material.parameters.specs_from_module` apply to the artifact's uniform
bindings. `carry_over` keeps the artist's values for parameters whose name
and type survive a recompile.
"""

from __future__ import annotations

from typing import Any

from app.material.parameters import ParameterKind, ParameterSpec, zero_value
from app.material.scene import SCENE_UNIFORM_NAME
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.module import UniformKind
from vpl_core.ir.types import SamplerType, ScalarKind, ScalarType, VectorType


def specs_from_artifact(artifact: ProgramArtifact) -> list[ParameterSpec]:
    """One spec per uniform except the scene record, in uniform order."""
    specs: list[ParameterSpec] = []
    for binding in artifact.uniforms:
        if binding.name == SCENE_UNIFORM_NAME and binding.kind is UniformKind.RECORD:
            continue
        value_type = binding.type
        if binding.kind is UniformKind.SCALAR and isinstance(value_type, SamplerType):
            specs.append(ParameterSpec(binding.name, ParameterKind.TEXTURE, value_type, None))
        elif binding.kind is UniformKind.SCALAR and value_type == ScalarType(ScalarKind.FLOAT):
            specs.append(ParameterSpec(binding.name, ParameterKind.FLOAT, value_type, 0.0))
        elif binding.kind is UniformKind.SCALAR and isinstance(value_type, VectorType) and value_type.kind is ScalarKind.FLOAT:
            specs.append(ParameterSpec(binding.name, ParameterKind.VECTOR, value_type, zero_value(value_type)))
        else:
            specs.append(ParameterSpec(binding.name, ParameterKind.OTHER, value_type, None))
    return specs


def same_parameter(old: ParameterSpec | None, new: ParameterSpec) -> bool:
    """Whether a value set for `old` still means the same for `new` (same name, kind and type)."""
    return old is not None and old.name == new.name and old.kind is new.kind and old.type == new.type


def carry_over(
    old_specs: dict[str, ParameterSpec], old_values: dict[str, Any], new_specs: list[ParameterSpec]
) -> dict[str, Any]:
    """Values for `new_specs`: the old value where the parameter is unchanged, else the new default."""
    values: dict[str, Any] = {}
    for spec in new_specs:
        if same_parameter(old_specs.get(spec.name), spec) and spec.name in old_values:
            values[spec.name] = old_values[spec.name]
        else:
            values[spec.name] = spec.default
    return values
