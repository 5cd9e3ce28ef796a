"""Math nodes: component-wise arithmetic and GLSL math functions on floats and vectors.

Every input is dynamic: connected values unify to one width, floats are
broadcast (an explicit splat construction) so each VPL instruction sees
matching operand types, and the output has the unified type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from app.material.node_types import NodeType, PortSpec, PropertySpec, register
from app.material.port_types import DYNAMIC
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
    result = fn.add(ctx.input("out_min"), fn.multiply(offset, scale))
    if ctx.property("clamp") is True:
        port_type = ctx.output_type("out")
        low = fn.builtin(Builtin.MIN, port_type, ctx.input("out_min"), ctx.input("out_max"))
        high = fn.builtin(Builtin.MAX, port_type, ctx.input("out_min"), ctx.input("out_max"))
        result = fn.builtin(Builtin.CLAMP, port_type, result, low, high)
    ctx.set_output("out", result)


_REMAP_INPUTS = [("x", 0.5), ("in_min", 0.0), ("in_max", 1.0), ("out_min", 0.0), ("out_max", 1.0)]
register(
    NodeType(
        "remap",
        "Remap",
        CATEGORY,
        "Maps x from [in_min, in_max] to [out_min, out_max] linearly; clamp keeps it inside.",
        inputs=[PortSpec(name, DYNAMIC, default) for name, default in _REMAP_INPUTS],
        outputs=[PortSpec("out", DYNAMIC)],
        properties=[*(PropertySpec(name, "float", default) for name, default in _REMAP_INPUTS), PropertySpec("clamp", "bool", False)],
        lower=_lower_remap,
        notes=(
            "out_min + (x - in_min) * (out_max - out_min) / (in_max - in_min): six arithmetic instructions; "
            "with clamp, a `clamp` to [min(out_min, out_max), max(out_min, out_max)]."
        ),
    )
)


# Remap with clamp, and the rest of the math extension ------------------------------------------


def _unary(type_name: str, display_name: str, description: str, builtin: Builtin, default: float = 0.0) -> None:
    _math_node(type_name, display_name, description, [("x", default)], _builtin(builtin, "x"), f"Math extension `{builtin.value}`.")


_unary("tan", "Tangent", "The tangent of x radians, component-wise.", Builtin.TAN)
_unary("asin", "Arcsine", "The angle (radians) whose sine is x; x in [-1, 1].", Builtin.ASIN)
_unary("acos", "Arccosine", "The angle (radians) whose cosine is x; x in [-1, 1].", Builtin.ACOS, 1.0)
_unary("atan", "Arctangent", "The angle (radians) whose tangent is x, in (-pi/2, pi/2).", Builtin.ATAN)
_math_node(
    "atan2",
    "Arctangent 2",
    "The angle (radians) of the point (x, y), in [-pi, pi].",
    [("y", 0.0), ("x", 1.0)],
    _builtin(Builtin.ATAN2, "y", "x"),
    "Math extension `atan2(y, x)`.",
)
_unary("exp", "Exponential", "e raised to x, component-wise.", Builtin.EXP)
_unary("exp2", "Exponential 2", "2 raised to x, component-wise.", Builtin.EXP2)
_unary("log", "Logarithm", "The natural logarithm of x (x > 0), component-wise.", Builtin.LOG, 1.0)
_unary("log2", "Logarithm 2", "The base-2 logarithm of x (x > 0), component-wise.", Builtin.LOG2, 1.0)
_unary("sign", "Sign", "-1, 0 or 1 by the sign of x, component-wise.", Builtin.SIGN)
_unary("ceil", "Ceiling", "x rounded up, component-wise.", Builtin.CEIL)
_unary("trunc", "Truncate", "x rounded towards zero, component-wise.", Builtin.TRUNC)
_unary("round", "Round", "x rounded to the nearest whole number (halves to even), component-wise.", Builtin.ROUND_EVEN)
_unary("inverse_sqrt", "Inverse Square Root", "1 / sqrt(x) (x > 0), component-wise.", Builtin.INVERSESQRT, 1.0)
_unary("radians", "Radians", "Degrees converted to radians, component-wise.", Builtin.RADIANS)
_unary("degrees", "Degrees", "Radians converted to degrees, component-wise.", Builtin.DEGREES)
_unary("ddx", "DDX", "How fast x changes to the next pixel across the screen (screen-space derivative).", Builtin.DFDX)
_unary("ddy", "DDY", "How fast x changes to the next pixel up the screen (screen-space derivative).", Builtin.DFDY)
_unary("fwidth", "Filter Width", "|ddx| + |ddy|: how much x changes per pixel; for anti-aliased edges.", Builtin.FWIDTH)


def _lower_reciprocal(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.fn.divide(ctx.fn.splat(1.0, ctx.output_type("out")), ctx.input("x")))


_math_node("reciprocal", "Reciprocal", "1 / x, component-wise.", [("x", 1.0)], _lower_reciprocal, "A splat of 1.0 and one `divide`.")


def _lower_ping_pong(ctx: NodeContext) -> None:
    fn = ctx.fn
    length = ctx.input("length")
    wrapped = fn.builtin(Builtin.MOD, ctx.output_type("out"), ctx.input("x"), fn.multiply(length, fn.splat(2.0, ctx.output_type("out"))))
    ctx.set_output("out", fn.subtract(length, fn.builtin(Builtin.ABS, ctx.output_type("out"), fn.subtract(wrapped, length))))


_math_node(
    "ping_pong",
    "Ping-Pong",
    "x bounced back and forth between 0 and length (a triangle wave).",
    [("x", 0.0), ("length", 1.0)],
    _lower_ping_pong,
    "length - |mod(x, 2 length) - length|.",
)


def _lower_wrap(ctx: NodeContext) -> None:
    fn = ctx.fn
    port_type = ctx.output_type("out")
    minimum = ctx.input("minimum")
    span = fn.subtract(ctx.input("maximum"), minimum)
    ctx.set_output("out", fn.add(minimum, fn.builtin(Builtin.MOD, port_type, fn.subtract(ctx.input("x"), minimum), span)))


_math_node(
    "wrap",
    "Wrap",
    "x wrapped into [minimum, maximum) (it repeats, like an angle).",
    [("x", 0.0), ("minimum", 0.0), ("maximum", 1.0)],
    _lower_wrap,
    "minimum + mod(x - minimum, maximum - minimum).",
)


def _lower_snap(ctx: NodeContext) -> None:
    fn = ctx.fn
    increment = ctx.input("increment")
    steps = fn.builtin(Builtin.FLOOR, ctx.output_type("out"), fn.divide(ctx.input("x"), increment))
    ctx.set_output("out", fn.multiply(steps, increment))


_math_node(
    "snap",
    "Snap",
    "x rounded down to a multiple of increment (stair steps).",
    [("x", 0.0), ("increment", 0.25)],
    _lower_snap,
    "floor(x / increment) * increment.",
)


def _lower_inverse_lerp(ctx: NodeContext) -> None:
    fn = ctx.fn
    a = ctx.input("a")
    ctx.set_output("out", fn.divide(fn.subtract(ctx.input("x"), a), fn.subtract(ctx.input("b"), a)))


_math_node(
    "inverse_lerp",
    "Inverse Mix",
    "Where x lies between a (0) and b (1): the t that Mix would need.",
    [("a", 0.0), ("b", 1.0), ("x", 0.5)],
    _lower_inverse_lerp,
    "(x - a) / (b - a).",
)


def _lower_smooth_min(ctx: NodeContext) -> None:
    fn = ctx.fn
    port_type = ctx.output_type("out")
    a, b, k = ctx.input("a"), ctx.input("b"), ctx.input("smoothness")
    k = fn.builtin(Builtin.MAX, port_type, k, fn.splat(1e-6, port_type))
    ratio = fn.add(fn.splat(0.5, port_type), fn.multiply(fn.divide(fn.subtract(b, a), k), fn.splat(0.5, port_type)))
    weight = fn.builtin(Builtin.CLAMP, port_type, ratio, fn.f(0.0), fn.f(1.0))
    blended = fn.builtin(Builtin.MIX, port_type, b, a, weight)
    bump = fn.multiply(fn.multiply(k, weight), fn.subtract(fn.splat(1.0, port_type), weight))
    ctx.set_output("out", fn.subtract(blended, bump))


_math_node(
    "smooth_min",
    "Smooth Minimum",
    "The smaller of a and b with a rounded transition of width smoothness.",
    [("a", 0.0), ("b", 1.0), ("smoothness", 0.1)],
    _lower_smooth_min,
    "Polynomial smooth minimum: h = clamp(0.5 + 0.5 (b - a) / k, 0, 1); mix(b, a, h) - k h (1 - h).",
)
