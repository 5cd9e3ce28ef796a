"""Math nodes: component-wise arithmetic and GLSL math functions on floats and vectors.

Every input is dynamic: connected values unify to one width, floats are
broadcast (an explicit splat construction) so each VPL instruction sees
matching operand types, and the output has the unified type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from app.material.catalog import NodeType, PortSpec, PropertySpec, register
from app.material.types import DYNAMIC
from vpl_core.ir.instructions import Builtin

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

CATEGORY = "Math"


def _math_node(
    type_name: str,
    display_name: str,
    description: str,
    inputs: Sequence[tuple[str, float]],
    lower: Callable[[NodeContext], None],
    notes: str,
) -> None:
    """A node whose inputs are dynamic, each with a same-named float property as its default."""
    register(
        NodeType(
            type_name,
            display_name,
            CATEGORY,
            description,
            inputs=[PortSpec(name, DYNAMIC, default) for name, default in inputs],
            outputs=[PortSpec("out", DYNAMIC)],
            properties=[PropertySpec(name, "float", default) for name, default in inputs],
            lower=lower,
            notes=notes,
        )
    )


def _binary_operator(method: str) -> Callable[[NodeContext], None]:
    def lower(ctx: NodeContext) -> None:
        ctx.set_output("out", getattr(ctx.fn, method)(ctx.input("a"), ctx.input("b")))

    return lower


_math_node("add", "Add", "a + b, component-wise.", [("a", 0.0), ("b", 0.0)], _binary_operator("add"), "One `add`.")
_math_node(
    "subtract", "Subtract", "a - b, component-wise.", [("a", 0.0), ("b", 0.0)], _binary_operator("subtract"), "One `subtract`."
)
_math_node(
    "multiply", "Multiply", "a * b, component-wise.", [("a", 1.0), ("b", 1.0)], _binary_operator("multiply"), "One `multiply`."
)
_math_node(
    "divide",
    "Divide",
    "a / b, component-wise (division by zero follows GLSL).",
    [("a", 1.0), ("b", 1.0)],
    _binary_operator("divide"),
    "One `divide`.",
)


def _builtin(builtin: Builtin, *names: str) -> Callable[[NodeContext], None]:
    def lower(ctx: NodeContext) -> None:
        ctx.set_output("out", ctx.fn.builtin(builtin, ctx.output_type("out"), *(ctx.input(name) for name in names)))

    return lower


def _lower_one_minus(ctx: NodeContext) -> None:
    port_type = ctx.output_type("out")
    ctx.set_output("out", ctx.fn.subtract(ctx.fn.splat(1.0, port_type), ctx.input("x")))


_math_node("one_minus", "One Minus", "1 - x, component-wise (inverts masks and colours).", [("x", 0.0)], _lower_one_minus, "A splat of 1.0 and one `subtract`.")
_math_node("negate", "Negate", "-x, component-wise.", [("x", 0.0)], _builtin(Builtin.NEGATE, "x"), "Math extension `negate`.")
_math_node("abs", "Absolute", "|x|, component-wise.", [("x", 0.0)], _builtin(Builtin.ABS, "x"), "Math extension `abs`.")
_math_node("min", "Minimum", "The smaller of a and b, component-wise.", [("a", 0.0), ("b", 1.0)], _builtin(Builtin.MIN, "a", "b"), "Math extension `min`.")
_math_node("max", "Maximum", "The larger of a and b, component-wise.", [("a", 0.0), ("b", 0.0)], _builtin(Builtin.MAX, "a", "b"), "Math extension `max`.")
_math_node(
    "clamp",
    "Clamp",
    "x limited to [minimum, maximum], component-wise.",
    [("x", 0.0), ("minimum", 0.0), ("maximum", 1.0)],
    _builtin(Builtin.CLAMP, "x", "minimum", "maximum"),
    "Math extension `clamp`.",
)


def _lower_saturate(ctx: NodeContext) -> None:
    fn = ctx.fn
    ctx.set_output("out", fn.builtin(Builtin.CLAMP, ctx.output_type("out"), ctx.input("x"), fn.f(0.0), fn.f(1.0)))


_math_node("saturate", "Saturate", "x limited to [0, 1], component-wise.", [("x", 0.0)], _lower_saturate, "`clamp(x, 0.0, 1.0)` with scalar bounds.")
_math_node(
    "mix",
    "Mix",
    "Linear blend from a (t = 0) to b (t = 1).",
    [("a", 0.0), ("b", 1.0), ("t", 0.5)],
    _builtin(Builtin.MIX, "a", "b", "t"),
    "Math extension `mix`.",
)
_math_node(
    "power",
    "Power",
    "base raised to exponent (undefined for negative bases, as in GLSL).",
    [("base", 1.0), ("exponent", 2.0)],
    _builtin(Builtin.POW, "base", "exponent"),
    "Math extension `pow`.",
)
_math_node("sqrt", "Square Root", "The square root of x, component-wise.", [("x", 1.0)], _builtin(Builtin.SQRT, "x"), "Math extension `sqrt`.")
_math_node("floor", "Floor", "x rounded down, component-wise.", [("x", 0.0)], _builtin(Builtin.FLOOR, "x"), "Math extension `floor`.")
_math_node("fract", "Fraction", "x - floor(x), component-wise.", [("x", 0.0)], _builtin(Builtin.FRACT, "x"), "Math extension `fract`.")
_math_node(
    "mod", "Modulo", "a - b * floor(a / b), component-wise.", [("a", 0.0), ("b", 1.0)], _builtin(Builtin.MOD, "a", "b"), "Math extension `mod`."
)
_math_node("sin", "Sine", "The sine of x radians, component-wise.", [("x", 0.0)], _builtin(Builtin.SIN, "x"), "Math extension `sin`.")
_math_node("cos", "Cosine", "The cosine of x radians, component-wise.", [("x", 0.0)], _builtin(Builtin.COS, "x"), "Math extension `cos`.")
_math_node(
    "step",
    "Step",
    "0 where x < edge, else 1, component-wise.",
    [("edge", 0.5), ("x", 0.0)],
    _builtin(Builtin.STEP, "edge", "x"),
    "Math extension `step`.",
)
_math_node(
    "smoothstep",
    "Smooth Step",
    "Smooth 0-to-1 transition of x between edge0 and edge1.",
    [("edge0", 0.0), ("edge1", 1.0), ("x", 0.5)],
    _builtin(Builtin.SMOOTHSTEP, "edge0", "edge1", "x"),
    "Math extension `smoothstep`.",
)


def _lower_remap(ctx: NodeContext) -> None:
    fn = ctx.fn
    offset = fn.subtract(ctx.input("x"), ctx.input("in_min"))
    scale = fn.divide(fn.subtract(ctx.input("out_max"), ctx.input("out_min")), fn.subtract(ctx.input("in_max"), ctx.input("in_min")))
    ctx.set_output("out", fn.add(ctx.input("out_min"), fn.multiply(offset, scale)))


_math_node(
    "remap",
    "Remap",
    "Maps x from [in_min, in_max] to [out_min, out_max] linearly.",
    [("x", 0.5), ("in_min", 0.0), ("in_max", 1.0), ("out_min", 0.0), ("out_max", 1.0)],
    _lower_remap,
    "out_min + (x - in_min) * (out_max - out_min) / (in_max - in_min): six arithmetic instructions.",
)
