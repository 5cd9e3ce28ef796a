"""Input nodes: constants, parameters (uniforms with panel widgets), scene and surface values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, as_integer, as_numbers, register
from app.material.parameters import ParameterKind, ParameterSpec
from app.material.port_types import PortType, float_type
from vpl_core.ir.types import SAMPLER2D

if TYPE_CHECKING:
    from app.material.graph import Node
    from app.material.lowering import NodeContext

CATEGORY = "Input"


# Constants ------------------------------------------------------------------------------------


def _constant(type_name: str, display_name: str, port_type: PortType, kind: str, default: object, description: str) -> None:
    def lower(ctx: NodeContext) -> None:
        # A literal; in the editor's preview, while its value is edited, a hidden uniform (`lower(live=...)`).
        ctx.set_output("out", ctx.constant("value", port_type))

    register(
        NodeType(
            type_name,
            display_name,
            CATEGORY,
            description,
            inputs=[],
            outputs=[PortSpec("out", port_type)],
            properties=[PropertySpec("value", kind, default)],
            lower=lower,
            notes="Float: a constant operand, no instruction; vectors and colours: one construct.",
        )
    )


_constant("constant_float", "Float", PortType.FLOAT, "float", 1.0, "A constant number.")
_constant("constant_vec2", "Vector 2", PortType.VEC2, "vector", (0.0, 0.0), "A constant 2-component vector.")
_constant("constant_vec3", "Vector 3", PortType.VEC3, "vector", (0.0, 0.0, 0.0), "A constant 3-component vector.")
_constant("constant_vec4", "Vector 4", PortType.VEC4, "vector", (0.0, 0.0, 0.0, 0.0), "A constant 4-component vector.")
_constant("constant_color", "Color", PortType.COLOR, "color", (1.0, 1.0, 1.0, 1.0), "A constant RGBA colour.")


# Parameters -----------------------------------------------------------------------------------


def _name(ctx: NodeContext) -> str:
    return str(ctx.property("name"))


def _lower_float_parameter(ctx: NodeContext) -> None:
    minimum, maximum = ctx.number("minimum"), ctx.number("maximum")
    default = ctx.number("default")
    spec = ParameterSpec(_name(ctx), ParameterKind.FLOAT, PortType.FLOAT.vpl_type, default, minimum, maximum)
    ctx.set_output("out", ctx.fn.load(ctx.parameter(spec)))


register(
    NodeType(
        "float_parameter",
        "Float Parameter",
        CATEGORY,
        "A number the artist tunes with a slider; becomes a float uniform.",
        inputs=[],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[
            PropertySpec("name", "string", "value"),
            PropertySpec("default", "float", 0.5),
            PropertySpec("minimum", "float", 0.0),
            PropertySpec("maximum", "float", 1.0),
        ],
        lower=_lower_float_parameter,
        notes="A float uniform named by the node's name; one load.",
    )
)


def _vector_size(node: Node) -> int:
    return as_integer(node.properties.get("size", 3), 3, 2, 4)


def _resolve_vector_parameter(node: Node, inputs: dict[str, PortType], used: frozenset[str]) -> dict[str, PortType]:
    return {"out": float_type(_vector_size(node))}


def _lower_vector_parameter(ctx: NodeContext) -> None:
    port_type = ctx.output_type("out")
    default = tuple(as_numbers(ctx.property("default"), port_type.width))
    spec = ParameterSpec(_name(ctx), ParameterKind.VECTOR, port_type.vpl_type, default, ctx.number("minimum"), ctx.number("maximum"))
    ctx.set_output("out", ctx.fn.load(ctx.parameter(spec)))


register(
    NodeType(
        "vector_parameter",
        "Vector Parameter",
        CATEGORY,
        "A 2-4 component vector the artist tunes; becomes a vector uniform.",
        inputs=[],
        outputs=[PortSpec("out", PortType.VEC3)],
        properties=[
            PropertySpec("name", "string", "vector"),
            PropertySpec("size", "int", 3, 2, 4),
            PropertySpec("default", "vector", (0.0, 0.0, 0.0, 0.0)),
            PropertySpec("minimum", "float", 0.0),
            PropertySpec("maximum", "float", 1.0),
        ],
        lower=_lower_vector_parameter,
        resolve=_resolve_vector_parameter,
        notes="A vecN uniform (N = size; the default's first N components); one load.",
    )
)


def _lower_color_parameter(ctx: NodeContext) -> None:
    default = tuple(as_numbers(ctx.property("default"), 4, pad_alpha=True))
    spec = ParameterSpec(_name(ctx), ParameterKind.COLOR, PortType.COLOR.vpl_type, default, 0.0, 1.0)
    ctx.set_output("out", ctx.fn.load(ctx.parameter(spec)))


register(
    NodeType(
        "color_parameter",
        "Color Parameter",
        CATEGORY,
        "A colour the artist picks; becomes a vec4 (rgba) uniform.",
        inputs=[],
        outputs=[PortSpec("out", PortType.COLOR)],
        properties=[PropertySpec("name", "string", "color"), PropertySpec("default", "color", (1.0, 1.0, 1.0, 1.0))],
        lower=_lower_color_parameter,
        notes="A vec4 uniform (rgba); one load.",
    )
)


def _lower_texture_parameter(ctx: NodeContext) -> None:
    image = ctx.property("image")
    default = image if isinstance(image, str) and image else None
    spec = ParameterSpec(_name(ctx), ParameterKind.TEXTURE, SAMPLER2D, default)
    ctx.set_output("out", ctx.fn.load(ctx.parameter(spec)))


register(
    NodeType(
        "texture_parameter",
        "Texture Parameter",
        CATEGORY,
        "An image the artist chooses; becomes a sampler2D uniform (a checker until one is chosen).",
        inputs=[],
        outputs=[PortSpec("out", PortType.TEXTURE)],
        properties=[
            PropertySpec("name", "string", "albedo"),
            PropertySpec("image", "texture", ""),
            # sRGB for colour maps (albedo, emission); linear for data (roughness, metallic, normal, ORM).
            PropertySpec("color_space", "enum", "srgb", choices=("srgb", "linear"), label="colour space"),
        ],
        lower=_lower_texture_parameter,
        notes=(
            "A sampler2D uniform; one load in the entry block (the sampler's single alias definition, spec 12.4). "
            "Colour space sRGB: in a Surface Output material, Texture Sample decodes what it reads to linear."
        ),
    )
)


# Scene and surface values ---------------------------------------------------------------------


def _source_node(type_name: str, display_name: str, source: str, port_type: PortType, description: str, notes: str) -> None:
    def lower(ctx: NodeContext) -> None:
        ctx.set_output("out", ctx.source(source))

    register(
        NodeType(type_name, display_name, CATEGORY, description, [], [PortSpec("out", port_type)], [], lower, notes=notes)
    )


_source_node("time", "Time", "time", PortType.FLOAT, "Seconds since the preview started (scene.time).", "Loads scene.time.")
_source_node(
    "texcoord",
    "Texture Coordinate",
    "texcoord",
    PortType.VEC2,
    "The mesh's UV coordinates.",
    "Loads the surface_texcoord varying (vertex input 2, passed through).",
)
_source_node(
    "world_position",
    "World Position",
    "world_position",
    PortType.VEC3,
    "The surface point in world space.",
    "Loads the world_position varying (model * position).",
)
_source_node(
    "normal",
    "Normal",
    "world_normal",
    PortType.VEC3,
    "The unit surface normal in world space.",
    "normalize(world_normal varying); the vertex stage applies scene.normal_matrix.",
)
_source_node(
    "tangent",
    "Tangent",
    "world_tangent",
    PortType.VEC3,
    "Unit surface tangent in world space: the direction in which the texture's u grows.",
    "The world_tangent varying (vertex input 3, MikkTSpace), orthogonalized against the normal, normalized.",
)
_source_node(
    "bitangent",
    "Bitangent",
    "world_bitangent",
    PortType.VEC3,
    "Unit bitangent in world space: the direction in which the texture's v grows.",
    "handedness * cross(normal, tangent), the handedness from the world_tangent varying's w (MikkTSpace).",
)


def _lower_vertex_color(ctx: NodeContext) -> None:
    color = ctx.source("vertex_color")
    ctx.set_output("color", color)
    ctx.set_output("alpha", ctx.fn.swizzle(color, "w"))


register(
    NodeType(
        "vertex_color",
        "Vertex Color",
        CATEGORY,
        "The mesh's vertex colour (linear RGBA, as glTF's COLOR_0); opaque white on a mesh without colours.",
        [],
        [PortSpec("color", PortType.COLOR), PortSpec("alpha", PortType.FLOAT)],
        [],
        _lower_vertex_color,
        notes=(
            "Loads the vertex_color varying (vertex input 4, semantic color, passed through); the host binds the "
            "constant (1, 1, 1, 1) when the mesh has no colours (docs/preview.md)."
        ),
    )
)
_source_node(
    "view_direction",
    "View Direction",
    "view_direction",
    PortType.VEC3,
    "Unit vector from the surface towards the camera.",
    "normalize(scene.camera_position - world_position).",
)
_source_node(
    "light_direction",
    "Light Direction",
    "light_direction",
    PortType.VEC3,
    "Unit vector from the surface towards the light (scene.light_direction).",
    "normalize(scene.light_direction).",
)
