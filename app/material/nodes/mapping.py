"""Mapping nodes, and the surface values they need: object/view spaces, screen position, triplanar projection.

Object-space values need no varying of their own: the world position is
an affine function of the object position (model matrix), so the
fragment stage takes the interpolated world position back through the
inverse of the model matrix and gets exactly the interpolated object
position. Inverses of the model and view matrices are computed per
fragment from the scene record with the adjugate of their upper 3x3
(rows cross(c1, c2), cross(c2, c0), cross(c0, c1) over det) and the
translation column; normals go from world to object space with the
transposed model matrix (the inverse of the normal matrix). Matrix
columns are read as M * e_i (VPL has no matrix indexing).

Tangent space (Transform, Parallax Offset) uses a tangent frame built from
screen-space derivatives of the position and UVs (Schüler, "Normal
mapping without precomputed tangents", 2013), so it works on any mesh and
host, with or without vertex tangents.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from app.material.node_types import LowerFunction, NodeType, PortSpec, PropertySpec, register
from app.material.nodes.noise import call as _call
from app.material.port_types import DYNAMIC, PortType
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import FLOAT, mat, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext, TrackingFunctionBuilder, _Lowering
    from vpl_core.ir.module import Function

CATEGORY = "Mapping"
INPUT_CATEGORY = "Input"
SPACES = ("world", "object", "view", "tangent")
VECTOR_KINDS = ("position", "direction", "normal")


# Matrix helpers (fragment helper functions) ----------------------------------------------------


def _columns(fn: TrackingFunctionBuilder, matrix: Operand) -> list[Operand]:
    """The xyz of the four columns of a 4x4 matrix, as M * e_i."""
    columns: list[Operand] = []
    for index in range(4):
        unit = fn.construct(vec(4), *(fn.f(1.0 if axis == index else 0.0) for axis in range(4)))
        columns.append(fn.swizzle(fn.multiply(matrix, unit), "xyz"))
    return columns


def inverse_transform(lowering: _Lowering, point: bool) -> Function:
    """inverse(M) applied to a point (translation undone) or a direction, M an affine 4x4."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        matrix = fn.load(fn.parameter(0))
        value = fn.load(fn.parameter(1))
        c0, c1, c2, translation = _columns(fn, matrix)
        if point:
            value = fn.subtract(value, translation)
        rows = [fn.builtin(Builtin.CROSS, vec(3), c1, c2), fn.builtin(Builtin.CROSS, vec(3), c2, c0), fn.builtin(Builtin.CROSS, vec(3), c0, c1)]
        determinant = fn.builtin(Builtin.DOT, FLOAT, c0, rows[0])
        inverse_determinant = fn.divide(fn.f(1.0), determinant)
        result = fn.construct(vec(3), *(fn.builtin(Builtin.DOT, FLOAT, row, value) for row in rows))
        fn.ret(fn.multiply(result, inverse_determinant))

    name = "inverse_transform_point" if point else "inverse_transform_direction"
    return lowering.helper(name, build, [mat(4), vec(3)], vec(3))


def transpose_transform(lowering: _Lowering) -> Function:
    """transpose(upper 3x3 of M) * v: takes world normals to object space for M = model."""

    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        matrix = fn.load(fn.parameter(0))
        value = fn.load(fn.parameter(1))
        c0, c1, c2, _ = _columns(fn, matrix)
        fn.ret(fn.construct(vec(3), *(fn.builtin(Builtin.DOT, FLOAT, column, value) for column in (c0, c1, c2))))

    return lowering.helper("transpose_transform", build, [mat(4), vec(3)], vec(3))



def _apply(fn: TrackingFunctionBuilder, matrix: Operand, value: Operand, w: float) -> Operand:
    return fn.swizzle(fn.multiply(matrix, fn.construct(vec(4), value, fn.f(w))), "xyz")


def cotangent_frame(ctx: NodeContext, uv: Operand | None = None) -> tuple[Operand, Operand, Operand, Operand]:
    """(tangent, bitangent, normal, 1 / scale) of the surface from screen-space derivatives.

    Tangent and bitangent follow +u and +v of `uv` (the mesh UVs by
    default), scaled by 1/scale to unit length of the longer one (Schüler's
    cotangent frame); normal is the unit world normal.
    """
    fn = ctx.fn
    uv = uv if uv is not None else ctx.source("texcoord")
    position = ctx.source("world_position")
    normal = ctx.source("world_normal")
    dp1 = fn.builtin(Builtin.DFDX, vec(3), position)
    dp2 = fn.builtin(Builtin.DFDY, vec(3), position)
    duv1 = fn.builtin(Builtin.DFDX, vec(2), uv)
    duv2 = fn.builtin(Builtin.DFDY, vec(2), uv)
    dp2_perpendicular = fn.builtin(Builtin.CROSS, vec(3), dp2, normal)
    dp1_perpendicular = fn.builtin(Builtin.CROSS, vec(3), normal, dp1)
    tangent = fn.add(fn.multiply(dp2_perpendicular, fn.swizzle(duv1, "x")), fn.multiply(dp1_perpendicular, fn.swizzle(duv2, "x")))
    bitangent = fn.add(fn.multiply(dp2_perpendicular, fn.swizzle(duv1, "y")), fn.multiply(dp1_perpendicular, fn.swizzle(duv2, "y")))
    largest = fn.builtin(Builtin.MAX, FLOAT, fn.builtin(Builtin.DOT, FLOAT, tangent, tangent), fn.builtin(Builtin.DOT, FLOAT, bitangent, bitangent))
    scale = fn.builtin(Builtin.INVERSESQRT, FLOAT, fn.builtin(Builtin.MAX, FLOAT, largest, fn.f(1e-20)))
    return fn.multiply(tangent, scale), fn.multiply(bitangent, scale), normal, scale


def to_world(ctx: NodeContext, value: Operand, space: str, kind: str) -> Operand:
    fn = ctx.fn
    if space == "world":
        return value
    if space == "tangent":
        tangent, bitangent, normal, _ = cotangent_frame(ctx)
        along = fn.add(fn.multiply(tangent, fn.swizzle(value, "x")), fn.multiply(bitangent, fn.swizzle(value, "y")))
        result: Operand = fn.add(along, fn.multiply(normal, fn.swizzle(value, "z")))
        if kind == "position":
            return fn.add(result, ctx.source("world_position"))
        return fn.builtin(Builtin.NORMALIZE, vec(3), result) if kind == "normal" else result
    if space == "object":
        if kind == "normal":
            return fn.builtin(Builtin.NORMALIZE, vec(3), _apply(fn, ctx.scene("normal_matrix"), value, 0.0))
        return _apply(fn, ctx.scene("model"), value, 1.0 if kind == "position" else 0.0)
    # view -> world: the inverse of the view matrix (normals: a rigid view keeps them, rotation only).
    inverse = inverse_transform(ctx.lowering, kind == "position")
    result = _call(fn, inverse, ctx.scene("view"), value)
    return fn.builtin(Builtin.NORMALIZE, vec(3), result) if kind == "normal" else result


def from_world(ctx: NodeContext, value: Operand, space: str, kind: str) -> Operand:
    fn = ctx.fn
    if space == "world":
        return value
    if space == "tangent":
        tangent, bitangent, normal, _ = cotangent_frame(ctx)
        if kind == "position":
            value = fn.subtract(value, ctx.source("world_position"))
        result: Operand = fn.construct(vec(3), *(fn.builtin(Builtin.DOT, FLOAT, value, axis) for axis in (tangent, bitangent, normal)))
        return fn.builtin(Builtin.NORMALIZE, vec(3), result) if kind == "normal" else result
    if space == "object":
        if kind == "normal":
            return fn.builtin(Builtin.NORMALIZE, vec(3), _call(fn, transpose_transform(ctx.lowering), ctx.scene("model"), value))
        return _call(fn, inverse_transform(ctx.lowering, kind == "position"), ctx.scene("model"), value)
    result = _apply(fn, ctx.scene("view"), value, 1.0 if kind == "position" else 0.0)
    return fn.builtin(Builtin.NORMALIZE, vec(3), result) if kind == "normal" else result


# Surface values (Input category) ---------------------------------------------------------------


def _lower_object_position(ctx: NodeContext) -> None:
    ctx.set_output("out", from_world(ctx, ctx.source("world_position"), "object", "position"))


def _lower_object_normal(ctx: NodeContext) -> None:
    ctx.set_output("out", from_world(ctx, ctx.source("world_normal"), "object", "normal"))


def _lower_screen_position(ctx: NodeContext) -> None:
    fn = ctx.fn
    world = fn.construct(vec(4), ctx.source("world_position"), fn.f(1.0))
    clip = fn.multiply(ctx.scene("projection"), fn.multiply(ctx.scene("view"), world))
    ndc = fn.divide(fn.swizzle(clip, "xy"), fn.swizzle(clip, "w"))
    ctx.set_output("out", fn.add(fn.multiply(ndc, fn.f(0.5)), fn.construct(vec(2), fn.f(0.5))))


def _lower_camera_distance(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.fn.builtin(Builtin.DISTANCE, FLOAT, ctx.scene("camera_position"), ctx.source("world_position")))


def _lower_camera_position(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.scene("camera_position"))


def _surface_node(type_name: str, display: str, port_type: PortType, description: str, lower: LowerFunction, notes: str) -> None:
    register(NodeType(type_name, display, INPUT_CATEGORY, description, [], [PortSpec("out", port_type)], [], lower, notes=notes))


_surface_node(
    "object_position",
    "Object Position",
    PortType.VEC3,
    "The surface point in the object's own space: textures that stick to the object as it moves.",
    _lower_object_position,
    "inverse(model) applied to the world_position varying (adjugate of the upper 3x3, translation undone): no extra varying.",
)
_surface_node(
    "object_normal",
    "Object Normal",
    PortType.VEC3,
    "The unit surface normal in the object's own space.",
    _lower_object_normal,
    "normalize(transpose(model) * world normal), the inverse of the normal matrix.",
)
_surface_node(
    "screen_position",
    "Screen Position",
    PortType.VEC2,
    "Where the surface point lands on screen: (0, 0) bottom left to (1, 1) top right.",
    _lower_screen_position,
    "clip = projection * view * (world_position, 1); clip.xy / clip.w * 0.5 + 0.5.",
)
_surface_node(
    "camera_distance",
    "Camera Distance",
    PortType.FLOAT,
    "Distance from the camera to the surface point, in world units.",
    _lower_camera_distance,
    "distance(scene.camera_position, world_position).",
)
_surface_node(
    "camera_position",
    "Camera Position",
    PortType.VEC3,
    "The camera's position in world space.",
    _lower_camera_position,
    "Loads scene.camera_position.",
)

MATH_CONSTANTS = {"pi": math.pi, "tau": 2.0 * math.pi, "e": math.e, "golden_ratio": (1.0 + math.sqrt(5.0)) / 2.0, "sqrt2": math.sqrt(2.0)}


def _lower_math_constant(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.fn.f(MATH_CONSTANTS[ctx.choice("constant")]))


register(
    NodeType(
        "math_constant",
        "Math Constant",
        INPUT_CATEGORY,
        "pi, tau (2 pi), e, the golden ratio or the square root of 2.",
        inputs=[],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("constant", "enum", "pi", choices=tuple(MATH_CONSTANTS))],
        lower=_lower_math_constant,
        notes="A float constant operand (binary32-rounded), no instruction.",
    )
)


# Space transforms -------------------------------------------------------------------------------


def _lower_transform(ctx: NodeContext) -> None:
    kind = ctx.choice("kind")
    world = to_world(ctx, ctx.input("vector"), ctx.choice("source"), kind)
    ctx.set_output("out", from_world(ctx, world, ctx.choice("target"), kind))


register(
    NodeType(
        "transform_vector",
        "Transform",
        CATEGORY,
        "Takes a position, direction or normal between world, object, view and tangent space.",
        inputs=[PortSpec("vector", PortType.VEC3, (0.0, 0.0, 1.0))],
        outputs=[PortSpec("out", PortType.VEC3)],
        properties=[
            PropertySpec("vector", "vector", (0.0, 0.0, 1.0)),
            PropertySpec("source", "enum", "object", choices=SPACES, label="from"),
            PropertySpec("target", "enum", "world", choices=SPACES, label="to"),
            PropertySpec("kind", "enum", "direction", choices=VECTOR_KINDS),
        ],
        lower=_lower_transform,
        notes=(
            "Through world space: model / view matrices (w = 1 for positions, 0 for directions), the normal "
            "matrix or its transpose for normals, adjugate inverses the other way; tangent space by a "
            "derivative-based tangent frame; normals renormalised."
        ),
    )
)


def _lower_matcap(ctx: NodeContext) -> None:
    fn = ctx.fn
    normal = ctx.input("normal")
    view_normal = fn.builtin(Builtin.NORMALIZE, vec(3), _apply(fn, ctx.scene("view"), normal, 0.0))
    ctx.set_output("out", fn.add(fn.multiply(fn.swizzle(view_normal, "xy"), fn.f(0.5)), fn.construct(vec(2), fn.f(0.5))))


register(
    NodeType(
        "matcap_uv",
        "Matcap UV",
        CATEGORY,
        "UVs for a matcap (lit-sphere) texture from the view-space normal.",
        inputs=[PortSpec("normal", PortType.VEC3, "world_normal")],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[],
        lower=_lower_matcap,
        notes="normalize(view * (normal, 0)).xy * 0.5 + 0.5.",
    )
)


# UV transforms ----------------------------------------------------------------------------------


def _rotate(fn: TrackingFunctionBuilder, value: Operand, degrees: Operand) -> Operand:
    angle = fn.builtin(Builtin.RADIANS, FLOAT, degrees)
    cosine = fn.builtin(Builtin.COS, FLOAT, angle)
    sine = fn.builtin(Builtin.SIN, FLOAT, angle)
    x, y = fn.swizzle(value, "x"), fn.swizzle(value, "y")
    return fn.construct(
        vec(2), fn.subtract(fn.multiply(x, cosine), fn.multiply(y, sine)), fn.add(fn.multiply(x, sine), fn.multiply(y, cosine))
    )


def _lower_rotate_uv(ctx: NodeContext) -> None:
    fn = ctx.fn
    center = ctx.input("center")
    ctx.set_output("out", fn.add(_rotate(fn, fn.subtract(ctx.input("uv"), center), ctx.input("degrees")), center))


register(
    NodeType(
        "rotate_uv",
        "Rotate UV",
        CATEGORY,
        "Rotates texture coordinates about a centre by an angle in degrees (counter-clockwise).",
        inputs=[PortSpec("uv", PortType.VEC2, "texcoord"), PortSpec("center", PortType.VEC2, (0.5, 0.5)), PortSpec("degrees", PortType.FLOAT, 45.0)],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[PropertySpec("center", "vector", (0.5, 0.5)), PropertySpec("degrees", "float", 45.0, -360.0, 360.0)],
        lower=_lower_rotate_uv,
        notes="center + R(degrees) (uv - center), R the 2D rotation matrix written out.",
    )
)


def _lower_transform_uv(ctx: NodeContext) -> None:
    fn = ctx.fn
    pivot = ctx.input("pivot")
    rotated = fn.add(_rotate(fn, fn.subtract(ctx.input("uv"), pivot), ctx.input("rotation")), pivot)
    ctx.set_output("out", fn.add(fn.multiply(rotated, ctx.input("tiling")), ctx.input("offset")))


register(
    NodeType(
        "transform_uv",
        "Transform UV",
        CATEGORY,
        "Tiling, offset and rotation (degrees, about a pivot) of texture coordinates in one node.",
        inputs=[
            PortSpec("uv", PortType.VEC2, "texcoord"),
            PortSpec("tiling", PortType.VEC2, (1.0, 1.0)),
            PortSpec("offset", PortType.VEC2, (0.0, 0.0)),
            PortSpec("rotation", PortType.FLOAT, 0.0),
            PortSpec("pivot", PortType.VEC2, (0.5, 0.5)),
        ],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[
            PropertySpec("tiling", "vector", (1.0, 1.0)),
            PropertySpec("offset", "vector", (0.0, 0.0)),
            PropertySpec("rotation", "float", 0.0, -360.0, 360.0),
            PropertySpec("pivot", "vector", (0.5, 0.5)),
        ],
        lower=_lower_transform_uv,
        notes="(pivot + R(rotation) (uv - pivot)) * tiling + offset.",
    )
)


def _lower_parallax(ctx: NodeContext) -> None:
    fn = ctx.fn
    uv = ctx.input("uv")
    tangent, bitangent, normal, _ = cotangent_frame(ctx, uv)
    view = ctx.source("view_direction")
    tangent_view = fn.builtin(
        Builtin.NORMALIZE,
        vec(3),
        fn.construct(
            vec(3),
            fn.builtin(Builtin.DOT, FLOAT, view, tangent),
            fn.builtin(Builtin.DOT, FLOAT, view, bitangent),
            fn.builtin(Builtin.DOT, FLOAT, view, normal),
        ),
    )
    depth = ctx.input("depth")
    height = fn.subtract(fn.multiply(ctx.input("height"), depth), fn.multiply(depth, fn.f(0.5)))
    lifted = fn.add(fn.swizzle(tangent_view, "z"), fn.f(0.42))
    offset = fn.multiply(fn.divide(fn.swizzle(tangent_view, "xy"), lifted), height)
    ctx.set_output("out", fn.add(uv, offset))


register(
    NodeType(
        "parallax_offset",
        "Parallax Offset",
        CATEGORY,
        "Shifts UVs by a height map towards the viewer for a cheap illusion of depth.",
        inputs=[PortSpec("uv", PortType.VEC2, "texcoord"), PortSpec("height", PortType.FLOAT, 0.5), PortSpec("depth", PortType.FLOAT, 0.05)],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[PropertySpec("height", "float", 0.5, 0.0, 1.0), PropertySpec("depth", "float", 0.05, 0.0, 0.3)],
        lower=_lower_parallax,
        notes=(
            "Tangent-space view v from a derivative-based cotangent frame; uv + v.xy / (v.z + 0.42) * "
            "(height * depth - depth / 2) (the classic single-step offset)."
        ),
    )
)


# Triplanar --------------------------------------------------------------------------------------


def _triplanar_parts(ctx: NodeContext) -> tuple[Operand, Operand, Operand, Operand]:
    """(uv of the x, y and z projections, normalised blend weights)."""
    fn = ctx.fn
    position = fn.multiply(ctx.input("position"), ctx.input("scale"))
    normal = fn.builtin(Builtin.ABS, vec(3), ctx.input("normal"))
    sharpness = fn.builtin(Builtin.MAX, FLOAT, ctx.input("sharpness"), fn.f(1.0))
    weights = fn.builtin(Builtin.POW, vec(3), normal, fn.construct(vec(3), sharpness))
    total = fn.builtin(Builtin.MAX, FLOAT, fn.builtin(Builtin.DOT, FLOAT, weights, fn.construct(vec(3), fn.f(1.0))), fn.f(1e-6))
    weights = fn.divide(weights, fn.construct(vec(3), total))
    return fn.swizzle(position, "zy"), fn.swizzle(position, "xz"), fn.swizzle(position, "xy"), weights


_TRIPLANAR_INPUTS = [
    PortSpec("position", PortType.VEC3, "world_position"),
    PortSpec("normal", PortType.VEC3, "world_normal"),
    PortSpec("scale", PortType.FLOAT, 1.0),
    PortSpec("sharpness", PortType.FLOAT, 4.0),
]
_TRIPLANAR_PROPERTIES = [PropertySpec("scale", "float", 1.0, 0.0, 64.0), PropertySpec("sharpness", "float", 4.0, 1.0, 64.0)]


def _blend3(fn: TrackingFunctionBuilder, values: Sequence[Operand], weights: Operand) -> Operand:
    total = fn.multiply(values[0], fn.swizzle(weights, "x"))
    total = fn.add(total, fn.multiply(values[1], fn.swizzle(weights, "y")))
    return fn.add(total, fn.multiply(values[2], fn.swizzle(weights, "z")))


def _lower_triplanar_texture(ctx: NodeContext) -> None:
    fn = ctx.fn
    sampler = ctx.input("texture")
    *uvs, weights = _triplanar_parts(ctx)
    samples = []
    for uv in uvs:
        if ctx.control_dependent:
            samples.append(fn.builtin(Builtin.TEXTURE_LOD, vec(4), sampler, uv, fn.f(0.0)))
        else:
            samples.append(fn.texture(sampler, uv))
    ctx.set_output("out", _blend3(fn, samples, weights))


register(
    NodeType(
        "triplanar_texture",
        "Triplanar Texture",
        CATEGORY,
        "Projects a texture along the three axes and blends by the normal: no UVs, no stretching.",
        inputs=[PortSpec("texture", PortType.TEXTURE, None), *_TRIPLANAR_INPUTS],
        outputs=[PortSpec("out", PortType.COLOR)],
        properties=list(_TRIPLANAR_PROPERTIES),
        lower=_lower_triplanar_texture,
        notes=(
            "Three `texture` samples at position.zy, .xz, .xy times scale (`texture_lod` behind an If), weights "
            "|n|^sharpness normalised to sum 1."
        ),
    )
)


def _lower_triplanar_coordinates(ctx: NodeContext) -> None:
    uv_x, uv_y, uv_z, weights = _triplanar_parts(ctx)
    ctx.set_output("uv_x", uv_x)
    ctx.set_output("uv_y", uv_y)
    ctx.set_output("uv_z", uv_z)
    ctx.set_output("weights", weights)


register(
    NodeType(
        "triplanar_coordinates",
        "Triplanar Coordinates",
        CATEGORY,
        "The three planar UVs and blend weights of a triplanar projection, for procedural inputs.",
        inputs=list(_TRIPLANAR_INPUTS),
        outputs=[
            PortSpec("uv_x", PortType.VEC2, label="uv (x axis)"),
            PortSpec("uv_y", PortType.VEC2, label="uv (y axis)"),
            PortSpec("uv_z", PortType.VEC2, label="uv (z axis)"),
            PortSpec("weights", PortType.VEC3),
        ],
        properties=list(_TRIPLANAR_PROPERTIES),
        lower=_lower_triplanar_coordinates,
        notes="position.zy, .xz, .xy times scale; weights |n|^sharpness / sum. Feed three noises, then Triplanar Blend.",
    )
)


def _lower_triplanar_blend(ctx: NodeContext) -> None:
    fn = ctx.fn
    ctx.set_output("out", _blend3(fn, [ctx.input("x"), ctx.input("y"), ctx.input("z")], ctx.input("weights")))


register(
    NodeType(
        "triplanar_blend",
        "Triplanar Blend",
        CATEGORY,
        "Blends three projected values (x, y, z axes) with Triplanar Coordinates' weights.",
        inputs=[PortSpec("x", DYNAMIC, 0.0), PortSpec("y", DYNAMIC, 0.0), PortSpec("z", DYNAMIC, 0.0), PortSpec("weights", PortType.VEC3, (0.33, 0.33, 0.34))],
        outputs=[PortSpec("out", DYNAMIC)],
        properties=[
            *(PropertySpec(name, "float", 0.0) for name in "xyz"),
            PropertySpec("weights", "vector", (0.33, 0.33, 0.34), 0.0, 1.0),
        ],
        lower=_lower_triplanar_blend,
        notes="x * w.x + y * w.y + z * w.z.",
    )
)
