"""Lighting nodes: Lambert diffuse, Blinn-Phong specular and a Fresnel rim term.

Each produces a float factor; multiply it with a colour and feed the
Material Output's base colour (the output adds emissive and does no
lighting of its own). Directions default to the scene: the interpolated
normal, the direction towards the camera, and `scene.light_direction`,
which points from the surface towards the light. Every input direction is
normalized again, so any connected vector works.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, register
from app.material.port_types import PortType
from vpl_core.ir.instructions import Builtin

if TYPE_CHECKING:
    from app.material.lowering import NodeContext
    from vpl_core.ir.values import Operand, RegisterValue

CATEGORY = "Lighting"

_NORMAL = PortSpec("normal", PortType.VEC3, "world_normal")
_LIGHT = PortSpec("light_direction", PortType.VEC3, "light_direction")
_VIEW = PortSpec("view_direction", PortType.VEC3, "view_direction")


def _unit(ctx: NodeContext, name: str) -> RegisterValue:
    return ctx.fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input(name))


def _clamped_dot(ctx: NodeContext, first: Operand, second: Operand) -> RegisterValue:
    fn = ctx.fn
    return fn.builtin(Builtin.MAX, PortType.FLOAT, fn.builtin(Builtin.DOT, PortType.FLOAT, first, second), fn.f(0.0))


def _lower_lambert(ctx: NodeContext) -> None:
    ctx.set_output("out", _clamped_dot(ctx, _unit(ctx, "normal"), _unit(ctx, "light_direction")))


def _lower_blinn_phong(ctx: NodeContext) -> None:
    fn = ctx.fn
    normal = _unit(ctx, "normal")
    light = _unit(ctx, "light_direction")
    halfway = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, fn.add(light, _unit(ctx, "view_direction")))
    highlight = fn.builtin(Builtin.POW, PortType.FLOAT, _clamped_dot(ctx, normal, halfway), ctx.input("shininess"))
    # No highlight on faces turned away from the light.
    facing = fn.builtin(Builtin.STEP, PortType.FLOAT, fn.f(0.0), fn.builtin(Builtin.DOT, PortType.FLOAT, normal, light))
    ctx.set_output("out", fn.multiply(highlight, facing))


def _lower_fresnel(ctx: NodeContext) -> None:
    fn = ctx.fn
    facing = _clamped_dot(ctx, _unit(ctx, "normal"), _unit(ctx, "view_direction"))
    ctx.set_output("out", fn.builtin(Builtin.POW, PortType.FLOAT, fn.subtract(fn.f(1.0), facing), ctx.input("power")))


register(
    NodeType(
        "lambert",
        "Lambert",
        CATEGORY,
        "Diffuse light: max(dot(normal, light direction), 0).",
        inputs=[_NORMAL, _LIGHT],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[],
        lower=_lower_lambert,
        notes="normalize both directions, `dot`, `max` with 0.",
    )
)

register(
    NodeType(
        "blinn_phong",
        "Blinn-Phong Specular",
        CATEGORY,
        "Specular highlight: max(dot(normal, half vector), 0) ^ shininess.",
        inputs=[_NORMAL, _LIGHT, _VIEW, PortSpec("shininess", PortType.FLOAT, 32.0)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("shininess", "float", 32.0, 1.0, 256.0)],
        lower=_lower_blinn_phong,
        notes="half = normalize(L + V); pow(max(dot(N, half), 0), shininess) * step(0, dot(N, L)).",
    )
)

register(
    NodeType(
        "fresnel",
        "Fresnel",
        CATEGORY,
        "Rim factor, strong at grazing angles: (1 - max(dot(normal, view), 0)) ^ power.",
        inputs=[_NORMAL, _VIEW, PortSpec("power", PortType.FLOAT, 5.0)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("power", "float", 5.0, 0.0, 16.0)],
        lower=_lower_fresnel,
        notes="pow(1 - max(dot(N, V), 0), power) (Schlick's falloff without F0).",
    )
)
