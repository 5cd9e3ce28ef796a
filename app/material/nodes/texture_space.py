"""Texture-space nodes: the Texture Buffer and the filters that read buffers at other texels.

Every node here renders a texture in UV space over the unit square (a
*pass*, `app.material.texture_passes`); its texture output feeds Texture
Sample, other filters, or any colour/float/vector input (read at the mesh's
texture coordinates). The filters are written with the filter-authoring API
(`texture_passes.define_filter`, docs/texture-space.md).
"""

from __future__ import annotations

from app.material import texture_passes
from app.material.node_types import NodeType, PortSpec, PropertySpec, register
from app.material.port_types import DYNAMIC, PortType
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand

register(
    NodeType(
        texture_passes.BUFFER_TYPE,
        "Texture Buffer",
        texture_passes.CATEGORY,
        "Renders its input over the UV square into a texture that filters can read at neighbouring texels.",
        inputs=[PortSpec("input", DYNAMIC, label="colour")],
        outputs=[PortSpec("out", PortType.TEXTURE)],
        properties=list(texture_passes.BUFFER_PROPERTIES),
        lower=texture_passes.lower_pass_outputs,
        notes=(
            "A pass of its own: the upstream sub-graph is lowered into its own module, drawn over the UV square "
            "(texcoord = the texel's uv; world position (2u-1, 2v-1, 0) and normal +Z: a flat plane facing +Z); "
            "float f is stored as (f, f, f, 1), vec2 as (x, y, 0, 1), vec3 with alpha 1. Where it is read, one "
            "load of the pass's sampler uniform. Unconnected, the buffer holds its colour property."
        ),
    )
)


# Blur ---------------------------------------------------------------------------------------------

#: Taps on each side of the blur's centre tap, by bucket: the smallest holding 3 sigma in texels (so a radius
#: edit relinks only when it crosses a bucket; within one, the radius is a uniform).
BLUR_TAP_BUCKETS = (4, 8, 16, 32, 64)
BLUR_MAX_RADIUS = 0.25


def blur_taps(radius: float, resolution: int) -> int:
    """Taps on each side for a blur `radius` (UV units) at `resolution`: the smallest bucket >= radius in texels
    (64 at most: wider blurs space their taps radius/64 apart)."""
    reach = radius * resolution
    return next((taps for taps in BLUR_TAP_BUCKETS if taps >= reach), BLUR_TAP_BUCKETS[-1])


def _blur_kernel(source: str, horizontal: bool, taps: int) -> texture_passes.Kernel:
    def kernel(ctx: texture_passes.PassContext) -> Operand:
        fn = ctx.fn
        size = 1.0 / ctx.input_texel(source)
        # sigma and the tap spacing in texels of the source, from the radius uniform (UV units).
        reach = fn.multiply(ctx.value("radius"), fn.f(size))
        sigma = fn.builtin(Builtin.MAX, PortType.FLOAT, fn.multiply(reach, fn.f(1.0 / 3.0)), fn.f(1e-3))
        step = fn.builtin(Builtin.MAX, PortType.FLOAT, fn.multiply(reach, fn.f(1.0 / taps)), fn.f(1.0))
        scale = fn.divide(step, sigma)  # tap k sits k * step texels out: (k * step / sigma)^2 / 2 in the exponent
        offset_unit = fn.multiply(step, fn.f(1.0 / size))  # one step in UV units
        axis = fn.construct(vec(2), offset_unit, fn.f(0.0)) if horizontal else fn.construct(vec(2), fn.f(0.0), offset_unit)
        total: Operand = ctx.sample(source, ctx.uv)
        weights: Operand = fn.f(1.0)
        for k in range(1, taps + 1):
            distance = fn.multiply(scale, fn.f(float(k)))
            weight = fn.builtin(Builtin.EXP, PortType.FLOAT, fn.multiply(fn.multiply(distance, distance), fn.f(-0.5)))
            shift = fn.multiply(axis, fn.f(float(k)))
            pair = fn.add(ctx.sample(source, fn.add(ctx.uv, shift)), ctx.sample(source, fn.subtract(ctx.uv, shift)))
            total = fn.add(total, fn.multiply(pair, weight))
            weights = fn.add(weights, fn.multiply(weight, fn.f(2.0)))
        return fn.divide(total, weights)

    return kernel


def _blur_passes(setup: texture_passes.FilterSetup) -> list[texture_passes.FilterPass]:
    # A parameter may set any radius: then the widest kernel (64 taps a side, weights from the uniform).
    radius = BLUR_MAX_RADIUS if "radius" in setup.connected else min(max(setup.number("radius"), 0.0), BLUR_MAX_RADIUS)
    taps = blur_taps(radius, setup.spec.resolution)

    def intermediate(spec: texture_passes.BufferSpec) -> texture_passes.BufferSpec:
        # The horizontal result keeps more than 8 bits, so the two passes round once, as one 2D convolution would.
        return texture_passes.BufferSpec(spec.resolution, "16-bit" if spec.format == "8-bit" else spec.format,
                                         spec.wrap, False)

    return [
        texture_passes.FilterPass("horizontal", _blur_kernel("image", True, taps), spec=intermediate, reads=("image",)),
        texture_passes.FilterPass("vertical", _blur_kernel("horizontal", False, taps), reads=("horizontal",)),
    ]


texture_passes.define_filter(
    "blur",
    "Blur",
    "A high-quality Gaussian blur of a buffer (separable); tiles seamlessly when the buffer tiles.",
    inputs=[PortSpec("image", PortType.TEXTURE, None), PortSpec("radius", PortType.FLOAT, 0.01)],
    properties=[PropertySpec("radius", "float", 0.01, 0.0, BLUR_MAX_RADIUS)],
    passes=_blur_passes,
    notes=(
        "Two passes (horizontal into a 16-bit or wider intermediate, then vertical), each 2T+1 `texture_lod` "
        "taps at whole-texel offsets weighted exp(-x^2 / 2 sigma^2) and normalised; sigma = radius / 3 in UV "
        "units (radius: a fraction of the texture's width, where the blur fades out), a uniform. T is the "
        "smallest of 4, 8, 16, 32, 64 texels holding the radius (a radius edit relinks only when T changes); "
        "beyond 64 texels the taps are spread radius/64 apart (bilinear between texels). A Float Parameter on "
        "`radius` drives it from the parameters panel (then T = 64 whatever the radius). "
        "![A brick mask in a Texture Buffer, its Blur, and Height to Normal of the blur, each tiled 2 x 2]"
        "(images/texture-space-filters.png)"
    ),
)


# Height to Normal -----------------------------------------------------------------------------------

#: Sobel taps (dx, dy, weight) of the derivative along x; the one along y is the transpose.
_SOBEL_X = ((1, -1, 1.0), (1, 0, 2.0), (1, 1, 1.0), (-1, -1, -1.0), (-1, 0, -2.0), (-1, 1, -1.0))


def _height_to_normal(ctx: texture_passes.PassContext) -> Operand:
    fn = ctx.fn
    heights: dict[tuple[int, int], Operand] = {}

    def height(dx: int, dy: int) -> Operand:
        if (dx, dy) not in heights:
            heights[(dx, dy)] = fn.swizzle(ctx.sample_offset("height", dx, dy), "x")
        return heights[(dx, dy)]

    def derivative(along_x: bool) -> Operand:
        total: Operand | None = None
        for dx, dy, weight in _SOBEL_X:
            tap = height(dx, dy) if along_x else height(dy, dx)
            term = fn.multiply(tap, fn.f(weight))
            total = term if total is None else fn.add(total, term)
        assert total is not None
        return total

    size = 1.0 / ctx.input_texel("height")
    # Sobel over 8 texel widths: dh per texel; times N: dh per UV unit.
    to_uv = fn.multiply(ctx.value("intensity"), fn.f(size / 8.0))
    slope_u = fn.multiply(derivative(True), to_uv)
    slope_v = fn.multiply(derivative(False), to_uv)
    if ctx.choice("convention") == "directx":
        slope_v = fn.multiply(slope_v, fn.f(-1.0))
    zero = fn.f(0.0)
    normal = fn.builtin(Builtin.NORMALIZE, PortType.VEC3,
                        fn.construct(vec(3), fn.subtract(zero, slope_u), fn.subtract(zero, slope_v), fn.f(1.0)))
    if ctx.choice("encoding") == "encoded":
        half = fn.f(0.5)
        normal = fn.add(fn.multiply(normal, half), fn.construct(vec(3), half))
    return fn.construct(vec(4), normal, fn.f(1.0))


texture_passes.define_filter(
    "height_to_normal",
    "Height to Normal",
    "A tangent-space normal map from a height buffer (Sobel, in texture space, tiling-aware).",
    inputs=[PortSpec("height", PortType.TEXTURE, None), PortSpec("intensity", PortType.FLOAT, 0.05)],
    properties=[
        PropertySpec("intensity", "float", 0.05, 0.0, 1.0),
        PropertySpec("convention", "enum", "opengl", choices=("opengl", "directx")),
        PropertySpec("encoding", "enum", "encoded", choices=("encoded", "linear")),
    ],
    passes=lambda setup: [texture_passes.FilterPass("normal", _height_to_normal)],
    notes=(
        "One pass, 8 `texture_lod` taps of the height's red channel (3x3 Sobel around the texel); with dh/du, "
        "dh/dv per UV unit, n = normalize(-intensity dh/du, -intensity dh/dv, 1) (intensity: how deep a height of "
        "1 is, in UV units; a uniform). OpenGL convention (+y where v grows; DirectX flips y). Encoded: "
        "n * 0.5 + 0.5 (as normal map images store it), alpha 1; linear: n itself (use a 16-bit or float buffer). "
        "![A brick mask, its Blur, and Height to Normal of the blur (right), each tiled 2 x 2]"
        "(images/texture-space-filters.png)"
    ),
)
