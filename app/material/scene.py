"""The preview host contract (ARCHITECTURE.md), as data shared by the lowering and the preview.

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

#: Names of the fragment colour output. `radiance` is linear, scene-referred HDR radiance (the
#: Surface Output): the host applies exposure, a tone mapper and the display encoding. Any
#: other name (`color`: the Unlit Output, and every module from elsewhere) is a display colour
#: the host shows as it is.
RADIANCE_OUTPUT_NAME = "radiance"
DISPLAY_OUTPUT_NAME = "color"

#: Fields of the scene record, in declaration order. Matrices are 4x4,
#: column-major as in GLSL; `normal_matrix` is the inverse transpose of the
#: model matrix (as a 4x4, so std140 packing stays simple). `light_direction`
#: is a unit vector in world space pointing from the surface towards the
#: light (the lighting nodes' L); `time` is in seconds.
#:
#: The light of the Surface Output: one directional light of linear colour
#: `light_color` and `light_intensity` (illuminance on a surface facing it,
#: lux-like: a white Lambertian surface facing the light reflects radiance
#: intensity / pi), and `ambient_color`, the linear radiance of a uniform
#: environment. Fields are only ever appended, so older materials keep their
#: offsets.
SCENE_FIELDS: tuple[tuple[str, Type], ...] = (
    ("model", mat(4)),
    ("view", mat(4)),
    ("projection", mat(4)),
    ("normal_matrix", mat(4)),
    ("camera_position", vec(3)),
    ("time", FLOAT),
    ("light_direction", vec(3)),
    ("light_intensity", FLOAT),
    ("light_color", vec(3)),
    ("ambient_color", vec(3)),
)

@dataclass(frozen=True)
class VertexInput:
    location: int
    name: str
    type: Type
    semantic: str  # canonical semantic spelling: "none" or "texcoord"


#: The mesh attributes a host provides, by location. A material declares only the inputs it
#: reads (the lowering declares them on demand), so a host that provides fewer (no tangents)
#: still runs every material that does not read the missing ones. `tangent` is a vec4: xyz the
#: unit tangent along +u, w the handedness sign, bitangent = w * cross(normal, tangent.xyz)
#: (MikkTSpace / glTF convention, app/preview/tangents.py).
VERTEX_INPUTS: tuple[VertexInput, ...] = (
    VertexInput(0, "position", vec(3), "none"),
    VertexInput(1, "normal", vec(3), "none"),
    VertexInput(2, "texcoord", vec(2), "texcoord"),
    VertexInput(3, "tangent", vec(4), "none"),
)
VERTEX_INPUTS_BY_NAME: dict[str, VertexInput] = {vertex_input.name: vertex_input for vertex_input in VERTEX_INPUTS}
