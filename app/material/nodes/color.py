"""Colour nodes: colour ramp, blend modes, HSV, levels and the usual adjustments.

Colour inputs are rgba; every adjustment works on rgb and keeps the
input's alpha. Values are not clamped unless a node says so (a material may
carry light brighter than 1).

The colour ramp's stops are one property of kind "ramp": a tuple of
(position, r, g, b, a) tuples, stored in the file as JSON lists and edited
with the gradient widget (`app/ui/gradient_editor.py`). `ramp_stops` reads
any stored value tolerantly (bad entries are dropped, positions clamped to
[0, 1], stops sorted by position; no stops at all is black).
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

from app.material.node_types import LowerFunction, NodeType, PortSpec, PropertySpec, as_number, register
from app.material.nodes.noise import call as _call
from app.material.port_types import PortType
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import FLOAT, vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext, TrackingFunctionBuilder, _Lowering
    from vpl_core.ir.module import Function

CATEGORY = "Color"

#: Rec. 709 / sRGB luminance weights of linear rgb.
LUMINANCE_WEIGHTS = (0.2126, 0.7152, 0.0722)

RAMP_INTERPOLATIONS = ("linear", "ease", "constant")
DEFAULT_RAMP = ((0.0, 0.0, 0.0, 0.0, 1.0), (1.0, 1.0, 1.0, 1.0, 1.0))

RampStop = tuple[float, float, float, float, float]


def ramp_stops(value: Any) -> list[RampStop]:
    """The stops of a stored ramp value, sorted by position (stable), bad entries dropped."""
    stops: list[RampStop] = []
    if isinstance(value, (list, tuple)):
        for entry in value:
            if not isinstance(entry, (list, tuple)) or len(entry) not in (4, 5):
                continue
            numbers = [as_number(item, float("nan")) for item in entry]
            if any(number != number for number in numbers):  # NaN: not a finite number
                continue
            if len(numbers) == 4:
                numbers.append(1.0)
            position = min(max(numbers[0], 0.0), 1.0)
            stops.append((position, numbers[1], numbers[2], numbers[3], numbers[4]))
    return sorted(stops, key=lambda stop: stop[0])


def _vector(fn: TrackingFunctionBuilder, *values: float) -> Operand:
    return fn.construct(vec(len(values)), *(fn.f(value) for value in values))


def _rgb(ctx: NodeContext, name: str = "color") -> Operand:
    return ctx.fn.swizzle(ctx.input(name), "xyz")


def _with_alpha(ctx: NodeContext, rgb: Operand, name: str = "color") -> Operand:
    return ctx.fn.construct(vec(4), rgb, ctx.fn.swizzle(ctx.input(name), "w"))


def _splat3(fn: TrackingFunctionBuilder, value: float | Operand) -> Operand:
    return fn.construct(vec(3), fn.f(value) if isinstance(value, float) else value)


def _above(fn: TrackingFunctionBuilder, x: Operand, threshold: float) -> Operand:
    """1 where x > threshold, else 0, per component: 1 - step(x, threshold)."""
    return fn.subtract(_splat3(fn, 1.0), fn.builtin(Builtin.STEP, vec(3), x, _splat3(fn, threshold)))


# HSV helpers (branch-free: Sam Hocevar's formulation) -------------------------------------------


def rgb_to_hsv(lowering: _Lowering) -> Function:
    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        c = fn.load(fn.parameter(0))
        k = _vector(fn, 0.0, -1.0 / 3.0, 2.0 / 3.0, -1.0)
        p = fn.builtin(
            Builtin.MIX,
            vec(4),
            fn.construct(vec(4), fn.swizzle(c, "zy"), fn.swizzle(k, "wz")),
            fn.construct(vec(4), fn.swizzle(c, "yz"), fn.swizzle(k, "xy")),
            fn.builtin(Builtin.STEP, FLOAT, fn.swizzle(c, "z"), fn.swizzle(c, "y")),
        )
        q = fn.builtin(
            Builtin.MIX,
            vec(4),
            fn.construct(vec(4), fn.swizzle(p, "xyw"), fn.swizzle(c, "x")),
            fn.construct(vec(4), fn.swizzle(c, "x"), fn.swizzle(p, "yzx")),
            fn.builtin(Builtin.STEP, FLOAT, fn.swizzle(p, "x"), fn.swizzle(c, "x")),
        )
        chroma = fn.subtract(fn.swizzle(q, "x"), fn.builtin(Builtin.MIN, FLOAT, fn.swizzle(q, "w"), fn.swizzle(q, "y")))
        tiny = fn.f(1e-10)
        hue = fn.builtin(
            Builtin.ABS,
            FLOAT,
            fn.add(fn.swizzle(q, "z"), fn.divide(fn.subtract(fn.swizzle(q, "w"), fn.swizzle(q, "y")), fn.add(fn.multiply(chroma, fn.f(6.0)), tiny))),
        )
        saturation = fn.divide(chroma, fn.add(fn.swizzle(q, "x"), tiny))
        fn.ret(fn.construct(vec(3), hue, saturation, fn.swizzle(q, "x")))

    return lowering.helper("color_rgb_to_hsv", build, [vec(3)], vec(3))


def hsv_to_rgb(lowering: _Lowering) -> Function:
    def build(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
        c = fn.load(fn.parameter(0))
        hue = fn.construct(vec(3), fn.swizzle(c, "x"))
        wave = fn.builtin(Builtin.FRACT, vec(3), fn.add(hue, _vector(fn, 1.0, 2.0 / 3.0, 1.0 / 3.0)))
        p = fn.builtin(Builtin.ABS, vec(3), fn.subtract(fn.multiply(wave, fn.f(6.0)), _splat3(fn, 3.0)))
        ramp = fn.builtin(Builtin.CLAMP, vec(3), fn.subtract(p, _splat3(fn, 1.0)), fn.f(0.0), fn.f(1.0))
        mixed = fn.builtin(Builtin.MIX, vec(3), _splat3(fn, 1.0), ramp, fn.swizzle(c, "y"))
        fn.ret(fn.multiply(mixed, fn.swizzle(c, "z")))

    return lowering.helper("color_hsv_to_rgb", build, [vec(3)], vec(3))



_COLOR = PortSpec("color", PortType.COLOR, (0.8, 0.4, 0.2, 1.0))


def _color_node(
    type_name: str,
    display_name: str,
    description: str,
    extra_inputs: list[tuple[str, float, float, float]],
    lower: LowerFunction,
    notes: str,
    outputs: list[PortSpec] | None = None,
    color_input: PortSpec = _COLOR,
) -> None:
    """A node with a colour input, float inputs (name, default, minimum, maximum) with same-named properties."""
    register(
        NodeType(
            type_name,
            display_name,
            CATEGORY,
            description,
            inputs=[color_input, *(PortSpec(name, PortType.FLOAT, default) for name, default, _, _ in extra_inputs)],
            outputs=outputs or [PortSpec("out", PortType.COLOR)],
            # The colour's own value too, so an unconnected colour can be set on the node and in the panel.
            properties=[*([PropertySpec(color_input.name, "color", color_input.default)]
                          if color_input.type is PortType.COLOR and isinstance(color_input.default, tuple) else []),
                        *(PropertySpec(name, "float", default, low, high) for name, default, low, high in extra_inputs)],
            lower=lower,
            notes=notes,
        )
    )


# Colour ramp ------------------------------------------------------------------------------------


def _lower_color_ramp(ctx: NodeContext) -> None:
    fn = ctx.fn
    stops = ramp_stops(ctx.property("stops"))
    interpolation = ctx.choice("interpolation")
    if not stops:
        ctx.set_output("color", _vector(fn, 0.0, 0.0, 0.0, 1.0))
        ctx.set_output("alpha", fn.f(1.0))
        return
    factor = ctx.input("factor")
    result: Operand = _vector(fn, *stops[0][1:])
    for previous, stop in pairwise(stops):
        start, end = previous[0], stop[0]
        if interpolation == "constant" or end - start <= 1e-6:
            weight = fn.builtin(Builtin.STEP, FLOAT, fn.f(end), factor)
        elif interpolation == "ease":
            weight = fn.builtin(Builtin.SMOOTHSTEP, FLOAT, fn.f(start), fn.f(end), factor)
        else:
            ramp = fn.multiply(fn.subtract(factor, fn.f(start)), fn.f(1.0 / (end - start)))
            weight = fn.builtin(Builtin.CLAMP, FLOAT, ramp, fn.f(0.0), fn.f(1.0))
        result = fn.builtin(Builtin.MIX, vec(4), result, _vector(fn, *stop[1:]), weight)
    ctx.set_output("color", result)
    if ctx.output_used("alpha"):
        ctx.set_output("alpha", fn.swizzle(result, "w"))


register(
    NodeType(
        "color_ramp",
        "Color Ramp",
        CATEGORY,
        "Maps a factor in [0, 1] to a colour through a gradient of any number of stops.",
        inputs=[PortSpec("factor", PortType.FLOAT, 0.5)],
        outputs=[PortSpec("color", PortType.COLOR), PortSpec("alpha", PortType.FLOAT)],
        properties=[
            PropertySpec("factor", "float", 0.5, 0.0, 1.0),
            PropertySpec("stops", "ramp", DEFAULT_RAMP),
            PropertySpec("interpolation", "enum", "linear", choices=RAMP_INTERPOLATIONS),
        ],
        lower=_lower_color_ramp,
        notes=(
            "Stops sorted by position; starting from the first stop's colour, one `mix` per further stop with "
            "weight clamp((f - p0) / (p1 - p0), 0, 1) (linear), smoothstep(p0, p1, f) (ease) or step(p1, f) (constant)."
        ),
    )
)


# Blend modes ------------------------------------------------------------------------------------

BLEND_MODES = (
    "mix",
    "multiply",
    "screen",
    "overlay",
    "soft_light",
    "hard_light",
    "add",
    "subtract",
    "difference",
    "exclusion",
    "darken",
    "lighten",
    "color_dodge",
    "color_burn",
    "divide",
)


def _blend(fn: TrackingFunctionBuilder, mode: str, base: Operand, layer: Operand) -> Operand:
    """The W3C Compositing and Blending Level 1 formulas on rgb (B(cb, cs), cb the base, cs the layer)."""
    one = _splat3(fn, 1.0)

    def screen(a: Operand, b: Operand) -> Operand:
        return fn.subtract(one, fn.multiply(fn.subtract(one, a), fn.subtract(one, b)))

    def hard_light(backdrop: Operand, source: Operand) -> Operand:
        # source <= 0.5: multiply(backdrop, 2 source); else screen(backdrop, 2 source - 1).
        doubled = fn.multiply(source, fn.f(2.0))
        dark = fn.multiply(backdrop, doubled)
        light = screen(backdrop, fn.subtract(doubled, one))
        return fn.builtin(Builtin.MIX, vec(3), dark, light, _above(fn, source, 0.5))

    if mode == "mix":
        return layer
    if mode == "multiply":
        return fn.multiply(base, layer)
    if mode == "screen":
        return screen(base, layer)
    if mode == "overlay":
        return hard_light(layer, base)
    if mode == "hard_light":
        return hard_light(base, layer)
    if mode == "soft_light":
        # cs <= 0.5: cb - (1 - 2 cs) cb (1 - cb); else cb + (2 cs - 1)(D(cb) - cb),
        # D(cb) = ((16 cb - 12) cb + 4) cb for cb <= 0.25, else sqrt(cb).
        doubled = fn.multiply(layer, fn.f(2.0))
        darker = fn.subtract(base, fn.multiply(fn.multiply(fn.subtract(one, doubled), base), fn.subtract(one, base)))
        polynomial = fn.multiply(fn.add(fn.multiply(fn.subtract(fn.multiply(base, fn.f(16.0)), _splat3(fn, 12.0)), base), _splat3(fn, 4.0)), base)
        root = fn.builtin(Builtin.SQRT, vec(3), fn.builtin(Builtin.MAX, vec(3), base, fn.f(0.0)))
        curve = fn.builtin(Builtin.MIX, vec(3), polynomial, root, _above(fn, base, 0.25))
        lighter = fn.add(base, fn.multiply(fn.subtract(doubled, one), fn.subtract(curve, base)))
        return fn.builtin(Builtin.MIX, vec(3), darker, lighter, _above(fn, layer, 0.5))
    if mode == "add":
        return fn.add(base, layer)
    if mode == "subtract":
        return fn.subtract(base, layer)
    if mode == "difference":
        return fn.builtin(Builtin.ABS, vec(3), fn.subtract(base, layer))
    if mode == "exclusion":
        return fn.subtract(fn.add(base, layer), fn.multiply(fn.multiply(base, layer), fn.f(2.0)))
    if mode == "darken":
        return fn.builtin(Builtin.MIN, vec(3), base, layer)
    if mode == "lighten":
        return fn.builtin(Builtin.MAX, vec(3), base, layer)
    if mode == "color_dodge":
        # cb = 0: 0; cs = 1: 1; else min(1, cb / (1 - cs)).
        quotient = fn.divide(base, fn.builtin(Builtin.MAX, vec(3), fn.subtract(one, layer), fn.f(1e-6)))
        dodged = fn.builtin(Builtin.MIN, vec(3), quotient, fn.f(1.0))
        return fn.multiply(dodged, _above(fn, base, 0.0))
    if mode == "color_burn":
        # cb = 1: 1; cs = 0: 0; else 1 - min(1, (1 - cb) / cs).
        quotient = fn.divide(fn.subtract(one, base), fn.builtin(Builtin.MAX, vec(3), layer, fn.f(1e-6)))
        burned = fn.subtract(one, fn.builtin(Builtin.MIN, vec(3), quotient, fn.f(1.0)))
        return fn.builtin(Builtin.MAX, vec(3), burned, fn.builtin(Builtin.STEP, vec(3), _splat3(fn, 1.0), base))
    if mode == "divide":
        return fn.divide(base, fn.builtin(Builtin.MAX, vec(3), layer, fn.f(1e-6)))
    raise ValueError(mode)


def _lower_blend(ctx: NodeContext) -> None:
    fn = ctx.fn
    base = _rgb(ctx, "base")
    blended = _blend(fn, ctx.choice("mode"), base, _rgb(ctx, "layer"))
    mixed = fn.builtin(Builtin.MIX, vec(3), base, blended, ctx.input("factor"))
    ctx.set_output("out", _with_alpha(ctx, mixed, "base"))


register(
    NodeType(
        "blend",
        "Blend",
        CATEGORY,
        "Blends a layer colour over a base colour by a mode (multiply, screen, overlay, ...) and a factor.",
        inputs=[
            PortSpec("base", PortType.COLOR, (0.5, 0.5, 0.5, 1.0)),
            PortSpec("layer", PortType.COLOR, (1.0, 0.5, 0.0, 1.0)),
            PortSpec("factor", PortType.FLOAT, 1.0),
        ],
        outputs=[PortSpec("out", PortType.COLOR)],
        properties=[
            PropertySpec("mode", "enum", "multiply", choices=BLEND_MODES),
            PropertySpec("base", "color", (0.5, 0.5, 0.5, 1.0)),
            PropertySpec("layer", "color", (1.0, 0.5, 0.0, 1.0)),
            PropertySpec("factor", "float", 1.0, 0.0, 1.0),
        ],
        lower=_lower_blend,
        notes=(
            "The mode's W3C Compositing and Blending formula on rgb (selections by `step`, no branches), then "
            "mix(base, blended, factor); alpha from base. Results are not clamped."
        ),
    )
)


def _lower_mix_color(ctx: NodeContext) -> None:
    fn = ctx.fn
    weight = fn.construct(vec(4), ctx.input("t"))
    ctx.set_output("out", fn.builtin(Builtin.MIX, PortType.COLOR, ctx.input("a"), ctx.input("b"), weight))


register(
    NodeType(
        "mix_color",
        "Mix Color",
        CATEGORY,
        "Linear blend from colour a (t = 0) to colour b (t = 1), both picked as colours.",
        inputs=[
            PortSpec("a", PortType.COLOR, (0.0, 0.0, 0.0, 1.0)),
            PortSpec("b", PortType.COLOR, (1.0, 1.0, 1.0, 1.0)),
            PortSpec("t", PortType.FLOAT, 0.5),
        ],
        outputs=[PortSpec("out", PortType.COLOR)],
        properties=[
            PropertySpec("a", "color", (0.0, 0.0, 0.0, 1.0)),
            PropertySpec("b", "color", (1.0, 1.0, 1.0, 1.0)),
            PropertySpec("t", "float", 0.5, 0.0, 1.0),
        ],
        lower=_lower_mix_color,
        notes=("Math extension `mix` on all four channels (alpha too), t splat to a vec4. Blender's Mix in Color "
               "mode; Mix takes any width, but its unconnected inputs are numbers."),
    )
)


# HSV ------------------------------------------------------------------------------------------


def _lower_rgb_to_hsv(ctx: NodeContext) -> None:
    ctx.set_output("out", _call(ctx.fn, rgb_to_hsv(ctx.lowering), _rgb(ctx)))


_color_node(
    "rgb_to_hsv",
    "RGB to HSV",
    "A colour as hue, saturation and value (each in [0, 1]) in a vec3.",
    [],
    _lower_rgb_to_hsv,
    "A call of the shared `color_rgb_to_hsv` helper (branch-free).",
    outputs=[PortSpec("out", PortType.VEC3)],
)


def _lower_hsv_to_rgb(ctx: NodeContext) -> None:
    fn = ctx.fn
    ctx.set_output("out", fn.construct(vec(4), _call(fn, hsv_to_rgb(ctx.lowering), ctx.input("hsv")), fn.f(1.0)))


register(
    NodeType(
        "hsv_to_rgb",
        "HSV to RGB",
        CATEGORY,
        "A colour from hue, saturation and value (a vec3, each in [0, 1]); alpha 1.",
        inputs=[PortSpec("hsv", PortType.VEC3, (0.0, 1.0, 1.0))],
        outputs=[PortSpec("out", PortType.COLOR)],
        properties=[PropertySpec("hsv", "vector", (0.0, 1.0, 1.0))],
        lower=_lower_hsv_to_rgb,
        notes="A call of the shared `color_hsv_to_rgb` helper (branch-free).",
    )
)


def _adjust_hsv(ctx: NodeContext, hue_shift: Operand, saturation: Operand | None, value: Operand | None) -> None:
    fn = ctx.fn
    hsv = _call(fn, rgb_to_hsv(ctx.lowering), _rgb(ctx))
    hue = fn.builtin(Builtin.FRACT, FLOAT, fn.add(fn.swizzle(hsv, "x"), hue_shift))
    sat = fn.swizzle(hsv, "y")
    val = fn.swizzle(hsv, "z")
    if saturation is not None:
        sat = fn.builtin(Builtin.CLAMP, FLOAT, fn.multiply(sat, saturation), fn.f(0.0), fn.f(1.0))
    if value is not None:
        val = fn.multiply(val, value)
    rgb = _call(fn, hsv_to_rgb(ctx.lowering), fn.construct(vec(3), hue, sat, val))
    ctx.set_output("out", _with_alpha(ctx, rgb))


_color_node(
    "hsv_adjust",
    "HSV Adjust",
    "Shifts the hue (in turns) and scales saturation and value.",
    [("hue", 0.0, -1.0, 1.0), ("saturation", 1.0, 0.0, 2.0), ("value", 1.0, 0.0, 2.0)],
    lambda ctx: _adjust_hsv(ctx, ctx.input("hue"), ctx.input("saturation"), ctx.input("value")),
    "RGB to HSV, fract(h + hue), clamp(s * saturation, 0, 1), v * value, back to RGB (shared helpers).",
)
_color_node(
    "hue_shift",
    "Hue Shift",
    "Rotates the hue around the colour wheel by an angle in degrees.",
    [("degrees", 180.0, -360.0, 360.0)],
    lambda ctx: _adjust_hsv(ctx, ctx.fn.multiply(ctx.input("degrees"), ctx.fn.f(1.0 / 360.0)), None, None),
    "RGB to HSV, fract(h + degrees / 360), back to RGB (shared helpers).",
)


# Adjustments ----------------------------------------------------------------------------------


def _lower_brightness_contrast(ctx: NodeContext) -> None:
    fn = ctx.fn
    contrast = ctx.input("contrast")
    slope = fn.add(fn.f(1.0), contrast)
    offset = fn.subtract(ctx.input("brightness"), fn.multiply(contrast, fn.f(0.5)))
    rgb = fn.add(fn.multiply(_rgb(ctx), slope), fn.construct(vec(3), offset))
    ctx.set_output("out", _with_alpha(ctx, fn.builtin(Builtin.MAX, vec(3), rgb, fn.f(0.0))))


_color_node(
    "brightness_contrast",
    "Brightness/Contrast",
    "Adds brightness and stretches contrast around mid-grey.",
    [("brightness", 0.0, -1.0, 1.0), ("contrast", 0.0, -1.0, 1.0)],
    _lower_brightness_contrast,
    "max((1 + contrast) rgb + brightness - contrast / 2, 0) (Blender's formula).",
)


def _lower_levels(ctx: NodeContext) -> None:
    fn = ctx.fn
    black = ctx.input("in_black")
    span = fn.builtin(Builtin.MAX, FLOAT, fn.subtract(ctx.input("in_white"), black), fn.f(1e-5))
    normalized = fn.divide(fn.subtract(_rgb(ctx), fn.construct(vec(3), black)), span)
    clamped = fn.builtin(Builtin.CLAMP, vec(3), normalized, fn.f(0.0), fn.f(1.0))
    exponent = fn.divide(fn.f(1.0), fn.builtin(Builtin.MAX, FLOAT, ctx.input("gamma"), fn.f(1e-3)))
    curved = fn.builtin(Builtin.POW, vec(3), clamped, fn.construct(vec(3), exponent))
    out_black = fn.construct(vec(3), ctx.input("out_black"))
    out_white = fn.construct(vec(3), ctx.input("out_white"))
    ctx.set_output("out", _with_alpha(ctx, fn.builtin(Builtin.MIX, vec(3), out_black, out_white, curved)))


_color_node(
    "levels",
    "Levels",
    "Input black/white points, a midtone gamma and output black/white points, as in a paint program.",
    [("in_black", 0.0, 0.0, 1.0), ("in_white", 1.0, 0.0, 1.0), ("gamma", 1.0, 0.1, 10.0), ("out_black", 0.0, 0.0, 1.0), ("out_white", 1.0, 0.0, 1.0)],
    _lower_levels,
    "t = clamp((rgb - in_black) / max(in_white - in_black, 1e-5), 0, 1); mix(out_black, out_white, pow(t, 1 / gamma)).",
)


def _lower_gamma(ctx: NodeContext) -> None:
    fn = ctx.fn
    rgb = fn.builtin(Builtin.MAX, vec(3), _rgb(ctx), fn.f(0.0))
    ctx.set_output("out", _with_alpha(ctx, fn.builtin(Builtin.POW, vec(3), rgb, fn.construct(vec(3), ctx.input("gamma")))))


_color_node(
    "gamma",
    "Gamma",
    "Raises each channel to the power gamma (above 1 darkens midtones).",
    [("gamma", 2.2, 0.01, 10.0)],
    _lower_gamma,
    "pow(max(rgb, 0), gamma).",
)


def _lower_desaturate(ctx: NodeContext) -> None:
    fn = ctx.fn
    rgb = _rgb(ctx)
    grey = fn.construct(vec(3), fn.builtin(Builtin.DOT, FLOAT, rgb, _vector(fn, *LUMINANCE_WEIGHTS)))
    ctx.set_output("out", _with_alpha(ctx, fn.builtin(Builtin.MIX, vec(3), rgb, grey, ctx.input("factor"))))


_color_node(
    "desaturate",
    "Desaturate",
    "Blends a colour towards its grey (luminance) by factor.",
    [("factor", 1.0, 0.0, 1.0)],
    _lower_desaturate,
    "mix(rgb, dot(rgb, (0.2126, 0.7152, 0.0722)), factor).",
)


def _lower_invert(ctx: NodeContext) -> None:
    fn = ctx.fn
    rgb = _rgb(ctx)
    inverted = fn.subtract(_splat3(fn, 1.0), rgb)
    ctx.set_output("out", _with_alpha(ctx, fn.builtin(Builtin.MIX, vec(3), rgb, inverted, ctx.input("factor"))))


_color_node(
    "invert",
    "Invert Colors",
    "1 - rgb, blended in by factor (alpha kept).",
    [("factor", 1.0, 0.0, 1.0)],
    _lower_invert,
    "mix(rgb, 1 - rgb, factor).",
)


def _lower_posterize(ctx: NodeContext) -> None:
    fn = ctx.fn
    steps = fn.builtin(Builtin.MAX, FLOAT, ctx.input("steps"), fn.f(1.0))
    levels = fn.builtin(Builtin.FLOOR, vec(3), fn.multiply(_rgb(ctx), steps))
    ctx.set_output("out", _with_alpha(ctx, fn.divide(levels, fn.construct(vec(3), steps))))


_color_node(
    "posterize",
    "Posterize",
    "Reduces each channel to a number of flat steps.",
    [("steps", 4.0, 1.0, 64.0)],
    _lower_posterize,
    "floor(rgb * steps) / steps, steps at least 1.",
)


def _lower_exposure(ctx: NodeContext) -> None:
    fn = ctx.fn
    ctx.set_output("out", _with_alpha(ctx, fn.multiply(_rgb(ctx), fn.builtin(Builtin.EXP2, FLOAT, ctx.input("stops")))))


_color_node(
    "exposure",
    "Exposure",
    "Brightens or darkens by photographic stops (each stop doubles or halves).",
    [("stops", 0.0, -10.0, 10.0)],
    _lower_exposure,
    "rgb * exp2(stops).",
)


def _lower_set_alpha(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.fn.construct(vec(4), _rgb(ctx), ctx.input("alpha")))


_color_node(
    "set_alpha",
    "Set Alpha",
    "The colour with its alpha replaced.",
    [("alpha", 1.0, 0.0, 1.0)],
    _lower_set_alpha,
    "vec4(rgb, alpha).",
)


def _lower_color_mask(ctx: NodeContext) -> None:
    fn = ctx.fn
    distance = fn.builtin(Builtin.DISTANCE, FLOAT, _rgb(ctx), _rgb(ctx, "mask_color"))
    range_ = ctx.input("range")
    fuzz = fn.builtin(Builtin.MAX, FLOAT, ctx.input("fuzziness"), fn.f(1e-5))
    ctx.set_output("out", fn.subtract(fn.f(1.0), fn.builtin(Builtin.SMOOTHSTEP, FLOAT, range_, fn.add(range_, fuzz), distance)))


register(
    NodeType(
        "color_mask",
        "Color Mask",
        CATEGORY,
        "1 where a colour is close to the mask colour, fading to 0 with distance.",
        inputs=[
            _COLOR,
            PortSpec("mask_color", PortType.COLOR, (0.8, 0.4, 0.2, 1.0)),
            PortSpec("range", PortType.FLOAT, 0.1),
            PortSpec("fuzziness", PortType.FLOAT, 0.1),
        ],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[
            PropertySpec("color", "color", (0.8, 0.4, 0.2, 1.0)),
            PropertySpec("mask_color", "color", (0.8, 0.4, 0.2, 1.0)),
            PropertySpec("range", "float", 0.1, 0.0, 2.0),
            PropertySpec("fuzziness", "float", 0.1, 0.0, 2.0),
        ],
        lower=_lower_color_mask,
        notes="1 - smoothstep(range, range + fuzziness, distance(rgb, mask rgb)).",
    )
)
