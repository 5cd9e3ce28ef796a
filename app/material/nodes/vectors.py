"""Vector nodes: building, taking apart and rearranging vectors; geometric functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, as_integer, register
from app.material.port_types import DYNAMIC, PortType, float_type
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
        properties=[PropertySpec("vector", "vector", (0.0, 0.0, 0.0, 0.0))],
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
        properties=[PropertySpec("vector", "vector", (0.0, 0.0, 0.0, 0.0)), PropertySpec("pattern", "string", "xyz")],
        lower=_lower_swizzle,
        resolve=_resolve_swizzle,
        notes="One `swizzle` (rgba is spelled as xyzw); a float input is splat instead.",
    )
)


def value_properties(inputs: list[PortSpec]) -> list[PropertySpec]:
    """A same-named property per input with a number default (edited on the node); a source such as
    "world_normal" stays a source."""
    return [PropertySpec(port.name, "vector" if isinstance(port.default, tuple) else "float", port.default)
            for port in inputs if not isinstance(port.default, (str, bool))]


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
            properties=value_properties(inputs),
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
_geometric(
    "distance",
    "Distance",
    "The Euclidean distance between the points a and b.",
    Builtin.DISTANCE,
    [PortSpec("a", DYNAMIC, (0.0, 0.0, 0.0)), PortSpec("b", DYNAMIC, (0.0, 0.0, 0.0))],
    PortType.FLOAT,
)


def _lower_refract(ctx: NodeContext) -> None:
    port_type = ctx.output_type("out")
    ctx.set_output("out", ctx.fn.builtin(Builtin.REFRACT, port_type, ctx.input("incident"), ctx.input("normal"), ctx.input("eta")))


register(
    NodeType(
        "refract",
        "Refract",
        CATEGORY,
        "The incident direction bent through a surface; eta is the ratio of refractive indices.",
        inputs=[PortSpec("incident", DYNAMIC, (0.0, 0.0, -1.0)), PortSpec("normal", DYNAMIC, "world_normal"), PortSpec("eta", PortType.FLOAT, 0.75)],
        outputs=[PortSpec("out", DYNAMIC)],
        properties=[PropertySpec("incident", "vector", (0.0, 0.0, -1.0)), PropertySpec("eta", "float", 0.75, 0.0, 4.0)],
        lower=_lower_refract,
        notes="Math extension `refract` (the zero vector on total internal reflection).",
    )
)


def _lower_rotate(ctx: NodeContext) -> None:
    """Rodrigues' rotation: v cos t + (k x v) sin t + k (k . v)(1 - cos t), k the unit axis."""
    fn = ctx.fn
    vector = ctx.input("vector")
    axis = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input("axis"))
    angle = fn.builtin(Builtin.RADIANS, PortType.FLOAT, ctx.input("angle"))
    cosine = fn.builtin(Builtin.COS, PortType.FLOAT, angle)
    sine = fn.builtin(Builtin.SIN, PortType.FLOAT, angle)
    along = fn.multiply(axis, fn.multiply(fn.builtin(Builtin.DOT, PortType.FLOAT, axis, vector), fn.subtract(fn.f(1.0), cosine)))
    turned = fn.multiply(fn.builtin(Builtin.CROSS, PortType.VEC3, axis, vector), sine)
    ctx.set_output("out", fn.add(fn.add(fn.multiply(vector, cosine), turned), along))


register(
    NodeType(
        "vector_rotate",
        "Vector Rotate",
        CATEGORY,
        "Rotates a vector by an angle (degrees) about an axis through the origin.",
        inputs=[PortSpec("vector", PortType.VEC3, (1.0, 0.0, 0.0)), PortSpec("axis", PortType.VEC3, (0.0, 0.0, 1.0)), PortSpec("angle", PortType.FLOAT, 90.0)],
        outputs=[PortSpec("out", PortType.VEC3)],
        properties=[PropertySpec("vector", "vector", (1.0, 0.0, 0.0)), PropertySpec("axis", "vector", (0.0, 0.0, 1.0)),
                    PropertySpec("angle", "float", 90.0, -360.0, 360.0)],
        lower=_lower_rotate,
        notes="Rodrigues' formula: v cos t + (k x v) sin t + k (k . v)(1 - cos t) with k = normalize(axis), t = radians(angle).",
    )
)


def _lower_project(ctx: NodeContext) -> None:
    fn = ctx.fn
    a, b = ctx.input("a"), ctx.input("b")
    length_squared = fn.builtin(Builtin.MAX, PortType.FLOAT, fn.builtin(Builtin.DOT, PortType.FLOAT, b, b), fn.f(1e-12))
    ctx.set_output("out", fn.multiply(b, fn.divide(fn.builtin(Builtin.DOT, PortType.FLOAT, a, b), length_squared)))


register(
    NodeType(
        "project",
        "Project",
        CATEGORY,
        "The part of vector a that points along b.",
        inputs=[PortSpec("a", DYNAMIC, (1.0, 1.0, 0.0)), PortSpec("b", DYNAMIC, (1.0, 0.0, 0.0))],
        outputs=[PortSpec("out", DYNAMIC)],
        properties=[PropertySpec("a", "vector", (1.0, 1.0, 0.0)), PropertySpec("b", "vector", (1.0, 0.0, 0.0))],
        lower=_lower_project,
        notes="b * dot(a, b) / max(dot(b, b), 1e-12).",
    )
)


def _component_reduce(type_name: str, display_name: str, builtin: Builtin, word: str) -> None:
    def lower(ctx: NodeContext) -> None:
        fn = ctx.fn
        vector = ctx.input("vector")
        width = ctx.input_type("vector").width
        if width == 1:
            ctx.set_output("out", vector)
            return
        result = fn.swizzle(vector, "x")
        for letter in COMPONENTS[1:width]:
            result = fn.builtin(builtin, PortType.FLOAT, result, fn.swizzle(vector, letter))
        ctx.set_output("out", result)

    register(
        NodeType(
            type_name,
            display_name,
            CATEGORY,
            f"The {word} component of a vector or colour.",
            inputs=[PortSpec("vector", DYNAMIC, (0.0, 0.0, 0.0))],
            outputs=[PortSpec("out", PortType.FLOAT)],
            properties=[PropertySpec("vector", "vector", (0.0, 0.0, 0.0))],
            lower=lower,
            notes=f"A chain of `{builtin.value}` over the components (a float passes through).",
        )
    )


_component_reduce("component_min", "Smallest Component", Builtin.MIN, "smallest")
_component_reduce("component_max", "Largest Component", Builtin.MAX, "largest")


def _lower_component_sum(ctx: NodeContext) -> None:
    width = ctx.input_type("vector").width
    vector = ctx.input("vector")
    ctx.set_output("out", vector if width == 1 else ctx.fn.builtin(Builtin.DOT, PortType.FLOAT, vector, ctx.fn.splat(1.0, ctx.input_type("vector"))))


register(
    NodeType(
        "component_sum",
        "Sum Components",
        CATEGORY,
        "The sum of a vector's components (x + y + z ...).",
        inputs=[PortSpec("vector", DYNAMIC, (0.0, 0.0, 0.0))],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("vector", "vector", (0.0, 0.0, 0.0))],
        lower=_lower_component_sum,
        notes="dot(vector, 1) (a float passes through).",
    )
)
