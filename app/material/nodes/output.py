"""The Material Output node: the fragment colour, and the alpha clip that discards.

FragmentColor = vec4(base_color.rgb + emissive, opacity). The base colour is
whatever the graph computed (lighting nodes multiply into it; the output
adds no lighting of its own). When alpha clipping is on (its input is
connected or its threshold is above 0) the output branches on
`opacity < alpha_clip` to a block that discards the fragment, and stores
the colour in the other block before returning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.catalog import NodeType, PortSpec, PropertySpec, register
from app.material.types import PortType
from vpl_core.ir.instructions import BinaryOperator
from vpl_core.ir.types import vec

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

CATEGORY = "Output"


def _lower_output(ctx: NodeContext) -> None:
    fn = ctx.fn
    rgb = fn.add(fn.swizzle(ctx.input("base_color"), "xyz"), ctx.input("emissive"))
    opacity = ctx.input("opacity")
    color = fn.construct(vec(4), rgb, opacity)
    if ctx.is_connected("alpha_clip") or ctx.number("alpha_clip") > 0.0:
        clipped = fn.binary(BinaryOperator.LESS, opacity, ctx.input("alpha_clip"))
        discard_block, keep_block = fn.new_block(), fn.new_block()
        fn.branch_if(clipped, discard_block, keep_block)
        fn.position_at(discard_block)
        fn.discard()
        fn.position_at(keep_block)
    fn.store(ctx.lowering.fragment_output, color)
    fn.ret()


register(
    NodeType(
        "material_output",
        "Material Output",
        CATEGORY,
        "The final surface: base colour + emissive, opacity, and an alpha-clip threshold.",
        inputs=[
            PortSpec("base_color", PortType.COLOR),
            PortSpec("emissive", PortType.VEC3),
            PortSpec("opacity", PortType.FLOAT, 1.0),
            PortSpec("alpha_clip", PortType.FLOAT, 0.0),
        ],
        outputs=[],
        properties=[
            PropertySpec("base_color", "color", (0.8, 0.8, 0.8, 1.0)),
            PropertySpec("emissive", "color", (0.0, 0.0, 0.0, 1.0)),
            PropertySpec("opacity", "float", 1.0, 0.0, 1.0),
            PropertySpec("alpha_clip", "float", 0.0, 0.0, 1.0),
        ],
        lower=_lower_output,
        notes=(
            "Stores vec4(base.rgb + emissive, opacity) to FragmentColor and returns; with alpha clip, "
            "first `branch_if (less opacity threshold)` to a `discard` block."
        ),
    )
)
