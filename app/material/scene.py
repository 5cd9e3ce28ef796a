"""The preview host contract (docs/architecture.md), as data shared by the lowering and the preview.

Materials lowered by the editor read the mesh through the vertex inputs below
(bound by location) and all scene data through one record uniform named
`scene` (a std140 block in GLSL, spec 12.1). Every other uniform is a
material parameter. The preview fills `scene` by field name; a module from
elsewhere may have any uniforms, which the preview then zero-fills (matrices:
identity).
"""

from __future__ import annotations

from dataclasses import dataclass

from vpl_core.ir.types import FLOAT, Type, mat, vec

SCENE_UNIFORM_NAME = "scene"
SCENE_RECORD_NAME = "Scene"

#: Fields of the scene record, in declaration order. Matrices are 4x4,
#: column-major as in GLSL; `normal_matrix` is the inverse transpose of the
#: model matrix (as a 4x4, so std140 packing stays simple). `light_direction`
#: is a unit vector in world space pointing from the surface towards the
#: light (the lighting nodes' L); `time` is in seconds.
SCENE_FIELDS: tuple[tuple[str, Type], ...] = (
    ("model", mat(4)),
    ("view", mat(4)),
    ("projection", mat(4)),
    ("normal_matrix", mat(4)),
    ("camera_position", vec(3)),
    ("time", FLOAT),
    ("light_direction", vec(3)),
)


@dataclass(frozen=True)
class VertexInput:
    location: int
    name: str
    type: Type
    semantic: str  # canonical semantic spelling: "none" or "texcoord"


VERTEX_INPUTS: tuple[VertexInput, ...] = (
    VertexInput(0, "position", vec(3), "none"),
    VertexInput(1, "normal", vec(3), "none"),
    VertexInput(2, "texcoord", vec(2), "texcoord"),
)
