"""Procedural nodes: checker, value noise and fractal noise.

The noise nodes call fragment helper functions that are emitted once per
module however many nodes use them:

- `noise_hash(p: vec2) -> float`: fract(sin(dot(p, (127.1, 311.7))) * 43758.5453);
- `value_noise(p: vec2) -> float`: bilinear blend (smooth Hermite weights)
  of the hashes at the four lattice corners around p, in [0, 1];
- `fractal_noise(p: vec2, octaves: int, lacunarity: float, gain: float) -> float`:
  sums `octaves` layers of value noise with rising frequency and falling
  amplitude, divided by the total amplitude. Its loop is explicit VPL: a
  test block with a conditional branch, a body block, and a back-edge from
  the body to the test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.catalog import NodeType, PortSpec, PropertySpec, register
from app.material.types import PortType
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import FLOAT, INT, vec

if TYPE_CHECKING:
    from app.material.lowering import NodeContext, TrackingFunctionBuilder, _Lowering

CATEGORY = "Procedural"


def _build_hash(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
    point = fn.load(fn.parameter(0))
    weights = fn.construct(vec(2), fn.f(127.1), fn.f(311.7))
    wave = fn.builtin(Builtin.SIN, PortType.FLOAT, fn.builtin(Builtin.DOT, PortType.FLOAT, point, weights))
    fn.ret(fn.builtin(Builtin.FRACT, PortType.FLOAT, fn.multiply(wave, fn.f(43758.5453))))


def _hash(lowering: _Lowering) -> object:
    return lowering.helper("noise_hash", _build_hash, [vec(2)], FLOAT)


def _build_value_noise(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
    hash_function = _hash(lowering)
    point = fn.load(fn.parameter(0))
    cell = fn.builtin(Builtin.FLOOR, PortType.VEC2, point)
    local = fn.builtin(Builtin.FRACT, PortType.VEC2, point)
    # Hermite weights u = f * f * (3 - 2 f): smooth across cell borders.
    shaped = fn.multiply(fn.multiply(local, local), fn.subtract(fn.splat(3.0, PortType.VEC2), fn.multiply(fn.splat(2.0, PortType.VEC2), local)))
    corners = []
    for dx, dy in ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)):
        corner = cell if (dx, dy) == (0.0, 0.0) else fn.add(cell, fn.construct(vec(2), fn.f(dx), fn.f(dy)))
        corners.append(fn.call(hash_function, corner))  # type: ignore[arg-type]
    weight_x = fn.swizzle(shaped, "x")
    weight_y = fn.swizzle(shaped, "y")
    bottom = fn.builtin(Builtin.MIX, PortType.FLOAT, corners[0], corners[1], weight_x)
    top = fn.builtin(Builtin.MIX, PortType.FLOAT, corners[2], corners[3], weight_x)
    fn.ret(fn.builtin(Builtin.MIX, PortType.FLOAT, bottom, top, weight_y))


def _value_noise(lowering: _Lowering) -> object:
    return lowering.helper("value_noise", _build_value_noise, [vec(2)], FLOAT)


def _build_fractal_noise(lowering: _Lowering, fn: TrackingFunctionBuilder) -> None:
    noise = _value_noise(lowering)
    point = fn.load(fn.parameter(0))
    octaves = fn.load(fn.parameter(1))
    lacunarity = fn.load(fn.parameter(2))
    gain = fn.load(fn.parameter(3))
    total = fn.copy(fn.f(0.0))
    amplitude = fn.copy(fn.f(0.5))
    amplitude_sum = fn.copy(fn.f(0.0))
    frequency = fn.copy(fn.f(1.0))
    octave = fn.copy(fn.i(0))
    test, body, finish = fn.new_block(), fn.new_block(), fn.new_block()
    fn.branch(test)

    fn.position_at(test)
    fn.branch_if(fn.binary(BinaryOperator.LESS, octave, octaves), body, finish)

    fn.position_at(body)
    layer = fn.call(noise, fn.multiply(point, frequency))  # type: ignore[arg-type]
    fn.add(total, fn.multiply(layer, amplitude), result=total)  # type: ignore[arg-type]
    fn.add(amplitude_sum, amplitude, result=amplitude_sum)
    fn.multiply(frequency, lacunarity, result=frequency)
    fn.multiply(amplitude, gain, result=amplitude)
    fn.add(octave, fn.i(1), result=octave)
    fn.branch(test)  # the loop's back-edge

    fn.position_at(finish)
    # Dividing by the summed amplitude keeps the result in [0, 1]; max() guards octaves <= 0.
    fn.ret(fn.divide(total, fn.builtin(Builtin.MAX, PortType.FLOAT, amplitude_sum, fn.f(1e-6))))


def _fractal_noise(lowering: _Lowering) -> object:
    return lowering.helper("fractal_noise", _build_fractal_noise, [vec(2), INT, FLOAT, FLOAT], FLOAT)


def _scaled_uv(ctx: NodeContext):
    return ctx.fn.multiply(ctx.input("uv"), ctx.fn.construct(vec(2), ctx.input("scale")))


def _lower_value_noise(ctx: NodeContext) -> None:
    ctx.set_output("out", ctx.fn.call(_value_noise(ctx.lowering), _scaled_uv(ctx)))  # type: ignore[arg-type]


def _lower_fractal_noise(ctx: NodeContext) -> None:
    fn = ctx.fn
    helper = _fractal_noise(ctx.lowering)
    octaves = fn.i(ctx.integer("octaves"))
    ctx.set_output("out", fn.call(helper, _scaled_uv(ctx), octaves, ctx.input("lacunarity"), ctx.input("gain")))  # type: ignore[arg-type]


def _lower_checker(ctx: NodeContext) -> None:
    fn = ctx.fn
    cells = fn.builtin(Builtin.FLOOR, PortType.VEC2, _scaled_uv(ctx))
    parity = fn.builtin(Builtin.MOD, PortType.FLOAT, fn.add(fn.swizzle(cells, "x"), fn.swizzle(cells, "y")), fn.f(2.0))
    ctx.set_output("out", fn.builtin(Builtin.MIX, PortType.COLOR, ctx.input("color_a"), ctx.input("color_b"), parity))


_UV = PortSpec("uv", PortType.VEC2, "texcoord")

register(
    NodeType(
        "checker",
        "Checker",
        CATEGORY,
        "A checkerboard of two colours; scale squares per UV unit.",
        inputs=[_UV, PortSpec("scale", PortType.FLOAT, 8.0), PortSpec("color_a", PortType.COLOR), PortSpec("color_b", PortType.COLOR)],
        outputs=[PortSpec("out", PortType.COLOR)],
        properties=[
            PropertySpec("scale", "float", 8.0, 0.0, 64.0),
            PropertySpec("color_a", "color", (0.1, 0.1, 0.1, 1.0)),
            PropertySpec("color_b", "color", (0.9, 0.9, 0.9, 1.0)),
        ],
        lower=_lower_checker,
        notes="floor(uv * scale), mod(x + y, 2), mix of the two colours: data flow only.",
    )
)

register(
    NodeType(
        "value_noise",
        "Value Noise",
        CATEGORY,
        "Smooth random values in [0, 1] over UV space; scale sets the cell count.",
        inputs=[_UV, PortSpec("scale", PortType.FLOAT, 8.0)],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[PropertySpec("scale", "float", 8.0, 0.0, 64.0)],
        lower=_lower_value_noise,
        notes="A call of the shared `value_noise` helper (which calls `noise_hash` four times).",
    )
)

register(
    NodeType(
        "fractal_noise",
        "Fractal Noise",
        CATEGORY,
        "Layers of value noise (octaves) for cloudy, rocky detail, in [0, 1].",
        inputs=[
            _UV,
            PortSpec("scale", PortType.FLOAT, 4.0),
            PortSpec("lacunarity", PortType.FLOAT, 2.0),
            PortSpec("gain", PortType.FLOAT, 0.5),
        ],
        outputs=[PortSpec("out", PortType.FLOAT)],
        properties=[
            PropertySpec("octaves", "int", 5, 1, 8),
            PropertySpec("scale", "float", 4.0, 0.0, 64.0),
            PropertySpec("lacunarity", "float", 2.0, 1.0, 4.0),
            PropertySpec("gain", "float", 0.5, 0.0, 1.0),
        ],
        lower=_lower_fractal_noise,
        notes=(
            "A call of the shared `fractal_noise` helper: an explicit loop (test block, body block, "
            "back-edge) over the octaves, calling `value_noise` per octave."
        ),
    )
)
