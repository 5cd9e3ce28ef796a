"""Vector nodes: building, taking apart and rearranging vectors; geometric functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.catalog import NodeType, PortSpec, PropertySpec, as_integer, register
from app.material.types import DYNAMIC, PortType, float_type
from vpl_core.ir.instructions import Builtin

if TYPE_CHECKING:
    from app.material.graph import Node
    from app.material.lowering import NodeContext

CATEGORY = "Vector"
COMPONENTS = "xyzw"
COLOR_COMPONENTS = "rgba"


def _size(node: Node) -> int:
    return as_integer(node.properties.get("size", 3), 3, 2, 4)


def _resolve_compose(node: Node, inputs: dict[str, PortType], used: frozenset[str]) -> dict[str, PortType]:
    return {"out": float_type(_size(node))}


def _lower_compose(ctx: NodeContext) -> None:
    port_type = ctx.output_type("out")
    components = [ctx.input(name) for name in COMPONENTS[: port_type.width]]
    ctx.set_output("out", ctx.fn.construct(port_type.vpl_type, *components))


register(
    NodeType(
        "compose",
        "Compose",
        CATEGORY,
        "Builds a 2-4 component vector from numbers (size chooses how many).",
        inputs=[PortSpec(name, PortType.FLOAT, 0.0) for name in COMPONENTS],
        outputs=[PortSpec("out", PortType.VEC3)],
        properties=[PropertySpec("size", "int", 3, 2, 4), *(PropertySpec(name, "float", 0.0) for name in COMPONENTS)],
        lower=_lower_compose,
        resolve=_resolve_compose,
        notes="One `construct` of vecN from the first N inputs; the others are ignored.",
    )
)


def _resolve_split(node: Node, inputs: dict[str, PortType], used: frozenset[str]) -> dict[str, PortType] | str:
    width = inputs["vector"].width
    for index, name in enumerate(COMPONENTS):
        if name in used and index >= width:
            return f"output '{name}' is used but the input is a {inputs['vector']} (it has no '{name}' component)"
    return dict.fromkeys(COMPONENTS, PortType.FLOAT)


def _lower_split(ctx: NodeContext) -> None:
    source = ctx.input("vector")
    width = ctx.input_type("vector").width
    for _index, name in enumerate(COMPONENTS[:width]):
        if ctx.output_used(name):
            ctx.set_output(name, source if width == 1 else ctx.fn.swizzle(source, name))


register(
    NodeType(
        "split",
        "Split",
        CATEGORY,
        "Takes a vector or colour apart into its components.",
        inputs=[PortSpec("vector", DYNAMIC, (0.0, 0.0, 0.0, 0.0))],
        outputs=[PortSpec(name, PortType.FLOAT) for name in COMPONENTS],
        properties=[],
        lower=_lower_split,
        resolve=_resolve_split,
        notes="One single-component `swizzle` per used output.",
    )
)


def swizzle_pattern(pattern: object) -> str | None:
    """The xyzw spelling of a 1-4 letter xyzw or rgba pattern, None if it is not one."""
    if not isinstance(pattern, str) or not 1 <= len(pattern) <= 4:
        return None
    if all(letter in COMPONENTS for letter in pattern):
        return pattern
    if all(letter in COLOR_COMPONENTS for letter in pattern):
        return "".join(COMPONENTS[COLOR_COMPONENTS.index(letter)] for letter in pattern)
    return None


def _resolve_swizzle(node: Node, inputs: dict[str, PortType], used: frozenset[str]) -> dict[str, PortType] | str:
    pattern = swizzle_pattern(node.properties.get("pattern", "xyz"))
    if pattern is None:
        return "the swizzle pattern must be 1-4 letters of xyzw (or of rgba)"
    width = inputs["vector"].width
    for letter in pattern:
        if COMPONENTS.index(letter) >= width:
            return f"pattern component '{letter}' is not in the input, a {inputs['vector']}"
    return {"out": float_type(len(pattern))}


def _lower_swizzle(ctx: NodeContext) -> None:
    pattern = swizzle_pattern(ctx.property("pattern")) or "x"
    source = ctx.input("vector")
    if ctx.input_type("vector").width == 1:
        # A float has only x: "x" is the value itself, "xx.." a splat.
        result = source if len(pattern) == 1 else ctx.fn.construct(float_type(len(pattern)).vpl_type, source)
    else:
        result = ctx.fn.swizzle(source, pattern)
    ctx.set_output("out", result)


register(
    NodeType(
        "swizzle",
        "Swizzle",
        CATEGORY,
        "Picks and reorders components by a pattern such as xy, zyx or rgb.",
        inputs=[PortSpec("vector", DYNAMIC, (0.0, 0.0, 0.0, 0.0))],
        outputs=[PortSpec("out", PortType.VEC3)],
        properties=[PropertySpec("pattern", "string", "xyz")],
        lower=_lower_swizzle,
        resolve=_resolve_swizzle,
        notes="One `swizzle` (rgba is spelled as xyzw); a float input is splat instead.",
    )
)


def _geometric(
    type_name: str,
    display_name: str,
    description: str,
    builtin: Builtin,
    inputs: list[PortSpec],
    output: PortType | None,
) -> None:
    names = [port.name for port in inputs]

    def lower(ctx: NodeContext) -> None:
        ctx.set_output("out", ctx.fn.builtin(builtin, ctx.output_type("out"), *(ctx.input(name) for name in names)))

    register(
        NodeType(
            type_name,
            display_name,
            CATEGORY,
            description,
            inputs=inputs,
            outputs=[PortSpec("out", output if output is not None else DYNAMIC)],
            properties=[],
            lower=lower,
            notes=f"Math extension `{builtin.value}`.",
        )
    )


_geometric("dot", "Dot Product", "The dot product of a and b.", Builtin.DOT, [PortSpec("a", DYNAMIC, (0.0, 0.0, 1.0)), PortSpec("b", DYNAMIC, (0.0, 0.0, 1.0))], PortType.FLOAT)
_geometric(
    "cross",
    "Cross Product",
    "The cross product of two 3-component vectors.",
    Builtin.CROSS,
    [PortSpec("a", PortType.VEC3, (1.0, 0.0, 0.0)), PortSpec("b", PortType.VEC3, (0.0, 1.0, 0.0))],
    PortType.VEC3,
)
_geometric("length", "Length", "The Euclidean length of a vector.", Builtin.LENGTH, [PortSpec("vector", DYNAMIC, (0.0, 0.0, 1.0))], PortType.FLOAT)
_geometric("normalize", "Normalize", "The vector scaled to length 1.", Builtin.NORMALIZE, [PortSpec("vector", DYNAMIC, (0.0, 0.0, 1.0))], None)
_geometric(
    "reflect",
    "Reflect",
    "The incident direction mirrored about the (unit) normal.",
    Builtin.REFLECT,
    [PortSpec("incident", DYNAMIC, (0.0, 0.0, -1.0)), PortSpec("normal", DYNAMIC, "world_normal")],
    None,
)
