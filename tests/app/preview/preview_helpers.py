"""Hand-written program artifacts in the shape the GLSL backend emits (spec 12.1-12.2).

They let the renderer be tested on its own: the scene record uniform is
slot 0 (block vpl_Block0, instance vpl_u0, binding point 0), material
parameters follow as vpl_u<slot>, the mesh is read through vpl_attribute0/1/2
and the colour leaves through vpl_output0 at location 0.
"""

from __future__ import annotations

from app.material.scene import SCENE_FIELDS, SCENE_RECORD_NAME, SCENE_UNIFORM_NAME, VERTEX_INPUTS
from vpl_core.backends.glsl.artifact import InterfaceBinding, ProgramArtifact, UniformBinding
from vpl_core.ir.module import Direction, Semantic, UniformKind
from vpl_core.ir.types import Field, RecordType, Type, vec

GLSL_TYPES = {"float": "float", "vector float 2": "vec2", "vector float 3": "vec3", "vector float 4": "vec4",
              "matrix 4 4": "mat4", "sampler2D": "sampler2D", "int": "int"}


def scene_record() -> RecordType:
    return RecordType(SCENE_RECORD_NAME, [Field(name, field_type) for name, field_type in SCENE_FIELDS])


SCENE_BLOCK = "layout(std140) uniform vpl_Block0 {\n" + "".join(
    f"  {GLSL_TYPES[str(field_type)]} vpl_m{index};\n" for index, (_, field_type) in enumerate(SCENE_FIELDS)
) + "} vpl_u0;\n"

# vpl_u0.vpl_m0..m6: model, view, projection, normal_matrix, camera_position, time, light_direction
VERTEX_CODE = f"""#version 420 core
{SCENE_BLOCK}
layout(location = 0) in vec3 vpl_attribute0;
layout(location = 1) in vec3 vpl_attribute1;
layout(location = 2) in vec2 vpl_attribute2;
layout(location = 0) out vec3 vpl_varying0;
layout(location = 1) out vec2 vpl_varying1;
void main() {{
  vec4 world = vpl_u0.vpl_m0 * vec4(vpl_attribute0, 1.0);
  vpl_varying0 = (vpl_u0.vpl_m3 * vec4(vpl_attribute1, 0.0)).xyz;
  vpl_varying1 = vpl_attribute2;
  gl_Position = vpl_u0.vpl_m2 * (vpl_u0.vpl_m1 * world);
}}"""

FRAGMENT_HEADER = f"""#version 420 core
{SCENE_BLOCK}
layout(location = 0) in vec3 vpl_varying0;
layout(location = 1) in vec2 vpl_varying1;
layout(location = 0) out vec4 vpl_output0;
"""


def make_artifact(fragment_body: str, parameters: list[tuple[str, Type]] = (), vertex_code: str = VERTEX_CODE) -> ProgramArtifact:
    """A scene-reading program whose fragment `main` body is `fragment_body`.

    Parameters become `uniform <type> vpl_u<slot>;` with slots 1, 2, ...
    (the body refers to them by those names).
    """
    scene = scene_record()
    uniforms = [UniformBinding(SCENE_UNIFORM_NAME, "vpl_u0", scene, 0, -1, UniformKind.RECORD, 0, "vpl_Block0")]
    declarations = ""
    for slot, (name, value_type) in enumerate(parameters, start=1):
        uniforms.append(UniformBinding(name, f"vpl_u{slot}", value_type, slot, -1, UniformKind.SCALAR))
        declarations += f"uniform {GLSL_TYPES[str(value_type)]} vpl_u{slot};\n"
    fragment_code = FRAGMENT_HEADER + declarations + "void main() {\n" + fragment_body + "\n}"
    vertex_interface = tuple(
        InterfaceBinding(v.name, f"vpl_attribute{v.location}", v.type, v.location, v.location, Direction.IN,
                         Semantic(v.semantic))
        for v in VERTEX_INPUTS[:3]  # the vertex code below reads position, normal and texcoord
    ) + (
        InterfaceBinding("normal_out", "vpl_varying0", vec(3), 3, 0, Direction.OUT, Semantic.NONE),
        InterfaceBinding("texcoord_out", "vpl_varying1", vec(2), 4, 1, Direction.OUT, Semantic.TEXCOORD),
    )
    fragment_interface = (
        InterfaceBinding("normal_in", "vpl_varying0", vec(3), 0, 0, Direction.IN, Semantic.NONE),
        InterfaceBinding("texcoord_in", "vpl_varying1", vec(2), 1, 1, Direction.IN, Semantic.TEXCOORD),
        InterfaceBinding("color", "vpl_output0", vec(4), 2, 0, Direction.OUT, Semantic.FRAGMENT_COLOR),
    )
    return ProgramArtifact("glsl420", 420, vertex_code, fragment_code, tuple(uniforms), vertex_interface,
                           fragment_interface, "vpl_output0", 0)


def constant_color_artifact(rgba: tuple[float, float, float, float]) -> ProgramArtifact:
    return make_artifact("  vpl_output0 = vec4({}, {}, {}, {});".format(*rgba))


def color_parameter_artifact() -> ProgramArtifact:
    """Unlit colour from the parameter "tint" (vec4)."""
    return make_artifact("  vpl_output0 = vpl_u1;", [("tint", vec(4))])


def texture_artifact() -> ProgramArtifact:
    """Unlit texture(albedo, texcoord)."""
    from vpl_core.ir.types import SAMPLER2D

    return make_artifact("  vpl_output0 = texture(vpl_u1, vpl_varying1);", [("albedo", SAMPLER2D)])


def texcoord_artifact() -> ProgramArtifact:
    """Unlit texcoord as colour (red = u, green = v)."""
    return make_artifact("  vpl_output0 = vec4(vpl_varying1, 0.0, 1.0);")


def lambert_artifact() -> ProgramArtifact:
    """White Lambert: max(dot(n, light_direction), 0) with the light direction pointing at the light."""
    return make_artifact(
        "  float lit = max(dot(normalize(vpl_varying0), normalize(vpl_u0.vpl_m6)), 0.0);\n"
        "  vpl_output0 = vec4(vec3(lit), 1.0);"
    )


def broken_artifact() -> ProgramArtifact:
    return make_artifact("  vpl_output0 = vec4(this_is_not_declared, 1.0);")
