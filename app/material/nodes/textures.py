"""Texture nodes: sampling and texture-coordinate transforms.

Texture Sample is where spec 7.3.1 matters: implicit-derivative sampling is
undefined in non-uniform control flow. The lowering emits every node that
does not depend on an If node before the first branch, so an ordinary
sample lands in the fragment entry block. A sample whose coordinates come
from behind an If (the node runs after the join) uses `texture_lod` at
level 0 instead: well defined anywhere, at the cost of mip filtering.

Colour space: in a Surface Output material (linear light), a texture from
a Texture Parameter whose colour space is sRGB (the default; colour maps)
is decoded to linear right after sampling, by the VPL helper
`srgb_to_linear` (IEC 61966-2-1), so every host and export gets the same
values without any texture-format side channel; linear (data maps:
roughness, metallic, normal, ORM) is used as read. In an Unlit Output
material (display colour) texels are used as read either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, register
from app.material.nodes import pbr_functions
from app.material.port_types import PortType
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import vec

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

CATEGORY = "Texture"


def decodes_srgb(ctx: NodeContext) -> bool:
    """Whether the sampled texture's texels are sRGB-encoded colour that this material wants linear.

    Only a Surface Output material works in linear light; an Unlit Output
    material works in display colour, where texels are used as they are.
    """
    source = ctx.source_node("texture")
    return (
        ctx.radiance_output
        and source is not None
        and source.type_name == "texture_parameter"
        and source.properties.get("color_space", "srgb") != "linear"
    )


def _lower_sample(ctx: NodeContext) -> None:
    fn = ctx.fn
    sampler = ctx.input("texture")
    uv = ctx.input("uv")
    if ctx.control_dependent:
        rgba = fn.builtin(Builtin.TEXTURE_LOD, PortType.COLOR, sampler, uv, fn.f(0.0))
    else:
        rgba = fn.texture(sampler, uv)
    if decodes_srgb(ctx):
        linear = fn.call(pbr_functions.srgb_to_linear(ctx.lowering), fn.swizzle(rgba, "xyz"))
        assert linear is not None
        rgba = fn.construct(vec(4), linear, fn.swizzle(rgba, "w"))
    ctx.set_output("rgba", rgba)
    if ctx.output_used("rgb"):
        ctx.set_output("rgb", fn.swizzle(rgba, "xyz"))
    for letter, name in zip("xyzw", "rgba"):
        if ctx.output_used(name):
            ctx.set_output(name, fn.swizzle(rgba, letter))


#: A sampled texel's outputs: the colour, its rgb and each channel (Texture Sample; Hex Tiled Image too).
SAMPLE_OUTPUTS = (
    PortSpec("rgba", PortType.COLOR),
    PortSpec("rgb", PortType.VEC3),
    PortSpec("r", PortType.FLOAT),
    PortSpec("g", PortType.FLOAT),
    PortSpec("b", PortType.FLOAT),
    PortSpec("a", PortType.FLOAT),
)


register(
    NodeType(
        "sample_texture",
        "Texture Sample",
        CATEGORY,
        "Reads a texture's colour at texture coordinates (the mesh UVs by default).",
        inputs=[PortSpec("texture", PortType.TEXTURE, None), PortSpec("uv", PortType.VEC2, "texcoord")],
        outputs=list(SAMPLE_OUTPUTS),
        properties=[],
        lower=_lower_sample,
        notes=(
            "`texture` in the fragment entry block, before any branch; `texture_lod` at level 0 when its "
            "inputs come from behind an If; in a Surface Output material, `srgb_to_linear` on rgb when the "
            "Texture Parameter's colour space is sRGB; swizzles for the used channel outputs."
        ),
    )
)


def _lower_tiling_offset(ctx: NodeContext) -> None:
    fn = ctx.fn
    ctx.set_output("out", fn.add(fn.multiply(ctx.input("uv"), ctx.input("tiling")), ctx.input("offset")))


register(
    NodeType(
        "tiling_offset",
        "Tiling and Offset",
        CATEGORY,
        "uv * tiling + offset: repeats and shifts a texture.",
        inputs=[
            PortSpec("uv", PortType.VEC2, "texcoord"),
            PortSpec("tiling", PortType.VEC2, (1.0, 1.0)),
            PortSpec("offset", PortType.VEC2, (0.0, 0.0)),
        ],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[PropertySpec("tiling", "vector", (1.0, 1.0)), PropertySpec("offset", "vector", (0.0, 0.0))],
        lower=_lower_tiling_offset,
        notes="One `multiply` and one `add` on vec2.",
    )
)


def _lower_panner(ctx: NodeContext) -> None:
    fn = ctx.fn
    ctx.set_output("out", fn.add(ctx.input("uv"), fn.multiply(ctx.input("speed"), ctx.input("time"))))


register(
    NodeType(
        "panner",
        "Panner",
        CATEGORY,
        "Scrolls coordinates over time: uv + speed * time.",
        inputs=[
            PortSpec("uv", PortType.VEC2, "texcoord"),
            PortSpec("speed", PortType.VEC2, (0.1, 0.0)),
            PortSpec("time", PortType.FLOAT, "time"),
        ],
        outputs=[PortSpec("out", PortType.VEC2)],
        properties=[PropertySpec("speed", "vector", (0.1, 0.0))],
        lower=_lower_panner,
        notes="time defaults to scene.time; the float is splat to vec2, then `multiply` and `add`.",
    )
)
