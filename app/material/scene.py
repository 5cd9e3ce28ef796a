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

#: Names of the fragment colour output. `radiance` is linear, scene-referred HDR radiance (the
#: Surface Output): the host applies exposure, a tone mapper and the display encoding. Any
#: other name (`color`: the Unlit Output, and every module from elsewhere) is a display colour
#: the host shows as it is.
RADIANCE_OUTPUT_NAME = "radiance"
DISPLAY_OUTPUT_NAME = "color"
#: Output node types, and the name of the fragment colour output each writes (docs/preview.md:
#: `color` is display-referred and shown as is, `radiance` is linear HDR the host tone-maps).
OUTPUT_NODE_TYPES: dict[str, str] = {"material_output": DISPLAY_OUTPUT_NAME, "surface_output": RADIANCE_OUTPUT_NAME,
                                     "openpbr_surface": RADIANCE_OUTPUT_NAME}

#: Fields of the scene record, in declaration order. Matrices are 4x4,
#: column-major as in GLSL; `normal_matrix` is the inverse transpose of the
#: model matrix (as a 4x4, so std140 packing stays simple). `light_direction`
#: is a unit vector in world space pointing from the surface towards the
#: light (the lighting nodes' L); `time` is in seconds.
#:
#: The light of the Surface Output: one directional light of linear colour
#: `light_color` and `light_intensity` (illuminance on a surface facing it,
#: lux-like: a white Lambertian surface facing the light reflects radiance
#: intensity / pi), and the environment (image-based lighting, the
#: `HOST_SAMPLERS` below): `environment_rotation` (radians about +y,
#: counter-clockwise seen from above), `environment_intensity` (multiplies
#: every environment term) and `environment_max_lod` (the last level of the
#: specular chain). Fields are only ever appended, so older materials keep
#: their offsets.
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
    ("environment_rotation", FLOAT),
    ("environment_intensity", FLOAT),
    ("environment_max_lod", FLOAT),
)
#: The scene record of a material's refined variant (`lower(..., refined=True)`, docs/lighting.md, "Refined
#: environment light"): `SCENE_FIELDS` and, appended, `environment_sample_frame` (the frame k >= 1 of a
#: refinement: the sample set it draws; the host averages the frames). Only that variant declares it, so the
#: live program (and every saved or exported module) is the split-sum one.
REFINED_SCENE_FIELDS: tuple[tuple[str, Type], ...] = SCENE_FIELDS + (
    ("environment_sample_frame", FLOAT),
)

#: Samplers a host binds for the Surface Output's image-based lighting (declared by a material
#: only when it has a Surface Output; not material parameters). Their layout is docs/lighting.md's:
#: `environment_specular` the equirect radiance prefiltered for GGX into a mip chain (level k for
#: roughness r at lod = environment_max_lod * r * (2 - r)), `environment_irradiance` the equirect
#: irradiance / pi, `environment_brdf` the split-sum table (u = N.V, v = roughness) -> (A, B).
#: `environment_sampling` (the refined variant only) the environment's sampling distribution
#: (`app.preview.ibl.environment_sampling`): `SAMPLING_WIDTH` x `SAMPLING_HEIGHT` cells plus a marginal row.
HOST_SAMPLERS: tuple[str, ...] = ("environment_specular", "environment_irradiance", "environment_brdf",
                                  "environment_sampling")
#: Cells of `environment_sampling` across and down (equirect: twice as wide as high; 2.8 degrees a cell).
SAMPLING_WIDTH = 128
SAMPLING_HEIGHT = SAMPLING_WIDTH // 2

#: Uniform names a material parameter may not take.
RESERVED_UNIFORM_NAMES: frozenset[str] = frozenset((SCENE_UNIFORM_NAME, *HOST_SAMPLERS))
#: The prefix of the editor's hidden uniforms (live values, `lower(live=...)`: "__live_0", ...). A parameter
#: name may not start with it (the lowering reports one that does), and no parameters panel, export or saved
#: file lists such a uniform (`is_hidden_uniform`): only the preview's program of a live edit declares them.
HIDDEN_UNIFORM_PREFIX = "__live_"


#: The prefix of the uniforms texture passes add (samplers reading a pass's buffer, a filter's values;
#: `app.material.texture_passes`): never a material parameter, the host binds them from the pass plan.
PASS_UNIFORM_PREFIX = "__pass_"


def is_hidden_uniform(name: str) -> bool:
    """Whether `name` is one of the editor's hidden uniforms (never a material parameter)."""
    return name.startswith(HIDDEN_UNIFORM_PREFIX)

@dataclass(frozen=True)
class VertexInput:
    location: int
    name: str
    type: Type
    semantic: str  # canonical semantic spelling: "none", "texcoord" or "color"


#: The mesh attributes a host provides, by location. A material declares only the inputs it
#: reads (the lowering declares them on demand), so a host that provides fewer (no tangents)
#: still runs every material that does not read the missing ones. `tangent` is a vec4: xyz the
#: unit tangent along +u, w the handedness sign, bitangent = w * cross(normal, tangent.xyz)
#: (MikkTSpace / glTF convention, app/preview/tangents.py). `color` is the vertex colour,
#: linear RGBA (glTF's COLOR_0); a host whose mesh has none binds `DEFAULT_VERTEX_COLOR`.
VERTEX_INPUTS: tuple[VertexInput, ...] = (
    VertexInput(0, "position", vec(3), "none"),
    VertexInput(1, "normal", vec(3), "none"),
    VertexInput(2, "texcoord", vec(2), "texcoord"),
    VertexInput(3, "tangent", vec(4), "none"),
    VertexInput(4, "color", vec(4), "color"),
)

#: The vertex colour of a mesh without colours: opaque white, as glTF 2.0 specifies for a
#: primitive without COLOR_0, so a material that multiplies by the vertex colour looks the
#: same on every mesh that has none (GL: a constant attribute, `glVertexAttrib4f`).
DEFAULT_VERTEX_COLOR: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)
VERTEX_INPUTS_BY_NAME: dict[str, VertexInput] = {vertex_input.name: vertex_input for vertex_input in VERTEX_INPUTS}
