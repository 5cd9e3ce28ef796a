"""Utility nodes: the Reroute (a dot that tidies wires; it passes its value through unchanged)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, register
from app.material.port_types import DYNAMIC

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

CATEGORY = "Utility"
REROUTE_TYPE = "reroute"


def _lower_reroute(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.input("in"))


register(
    NodeType(
        REROUTE_TYPE,
        "Reroute",
        CATEGORY,
        "A dot on a wire to route it tidily; passes its float, vector or colour through unchanged.",
        inputs=[PortSpec("in", DYNAMIC, 0.0)],
        outputs=[PortSpec("out", DYNAMIC)],
        properties=[],
        lower=_lower_reroute,
        notes="No instruction: its output is its input's value (the graph view draws it as a small dot).",
    )
)
