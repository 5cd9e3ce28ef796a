"""Procedural nodes: the noise family (value, gradient, simplex, Voronoi, white), fractal sums and domain warp.

Every noise comes in a 2D form over UV space (`uv`, default the mesh
texture coordinates) and a 3D form over a position (`position`, default
the world position; connect Object Position for noise that sticks to the
object). 3D noise on a sphere has no pinching at the poles, unlike UV
noise on a sphere's UV layout. The point in noise space is
`uv * scale` (`position * scale`).

The kernels, and the exact hash that makes every target and GPU draw the
same pattern, are in `app/material/nodes/noise.py`. Outputs in [0, 1]
unless stated; Voronoi distances are in cells.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.material.node_types import LowerFunction, NodeType, PortSpec, PropertySpec, register
from app.material.nodes import mtlx_noise, noise
from app.material.port_types import PortType
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand

if TYPE_CHECKING:
    from app.material.lowering import NodeContext

CATEGORY = "Procedural"

_UV = PortSpec("uv", PortType.VEC2, "texcoord")
_POSITION = PortSpec("position", PortType.VEC3, "world_position")


def _point(ctx: NodeContext, dimensions: int) -> Operand:
    """uv * scale or position * scale."""
    source = ctx.input("uv" if dimensions == 2 else "position")
    return ctx.fn.multiply(source, ctx.input("scale"))


def _coordinates(dimensions: int) -> PortSpec:
    return _UV if dimensions == 2 else _POSITION


def _suffix(dimensions: int) -> str:
    return "" if dimensions == 2 else "_3d"


def _label(dimensions: int) -> str:
    return "" if dimensions == 2 else " 3D"


def _space(dimensions: int) -> str:
    return "over UV space" if dimensions == 2 else "over 3D space"


def _lower_checker(ctx: NodeContext) -> None:
    fn = ctx.fn
    cells = fn.builtin(Builtin.FLOOR, PortType.VEC2, _point(ctx, 2))
    parity = fn.builtin(Builtin.MOD, PortType.FLOAT, fn.add(fn.swizzle(cells, "x"), fn.swizzle(cells, "y")), fn.f(2.0))
    ctx.set_output("out", fn.builtin(Builtin.MIX, PortType.COLOR, ctx.input("color_a"), ctx.input("color_b"), parity))


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


# Lattice noises ---------------------------------------------------------------------------------


def _lattice_node(kind: str, display: str, description: str, dimensions: int, default_scale: float, notes: str) -> None:
    def lower(ctx: NodeContext) -> None:
        fn = ctx.fn
        point = _point(ctx, dimensions)
        if kind == "value":
            ctx.set_output("out", noise.call(fn, noise.value_noise(ctx.lowering, dimensions), point))
        elif kind == "gradient":
            ctx.set_output("out", noise.to_unit(fn, noise.call(fn, noise.gradient_noise(ctx.lowering, dimensions), point)))
        else:
            ctx.set_output("out", noise.to_unit(fn, noise.call(fn, noise.simplex_noise(ctx.lowering, dimensions), point)))

    register(
        NodeType(
            f"{kind}_noise{_suffix(dimensions)}",
            f"{display}{_label(dimensions)}",
            CATEGORY,
            description,
            inputs=[_coordinates(dimensions), PortSpec("scale", PortType.FLOAT, default_scale)],
            outputs=[PortSpec("out", PortType.FLOAT)],
            properties=[PropertySpec("scale", "float", default_scale, 0.0, 64.0)],
            lower=lower,
            notes=notes,
        )
    )


for _dimensions in (2, 3):
    _plane = "" if _dimensions == 2 else "_space"
    _lattice_node(
        "value",
        "Value Noise",
        f"Smooth random values in [0, 1] {_space(_dimensions)}; scale sets the cell count.",
        _dimensions,
        8.0,
        f"A call of the shared `value_noise{_plane}` helper: exact lattice hashes blended with Hermite weights.",
    )
    _lattice_node(
        "gradient",
        "Gradient Noise",
        f"Perlin gradient noise in [0, 1] {_space(_dimensions)}: smooth, organic variation.",
        _dimensions,
        8.0,
        f"`gradient_noise{_plane}` (unit gradients from the exact hash, quintic fade), then 0.5 + 0.5 n.",
    )
    _lattice_node(
        "simplex",
        "Simplex Noise",
        f"Simplex noise in [0, 1] {_space(_dimensions)}: like gradient noise, fewer grid artefacts.",
        _dimensions,
        8.0,
        f"`simplex_noise{_plane}` (Gustavson's skewed simplex grid, exact hash), then 0.5 + 0.5 n.",
    )


# Voronoi ----------------------------------------------------------------------------------------


def _voronoi_lower(dimensions: int) -> LowerFunction:
    def lower(ctx: NodeContext) -> None:
        fn = ctx.fn
        metric = ctx.choice("metric")
        result = noise.call(fn, noise.voronoi(ctx.lowering, dimensions, metric), _point(ctx, dimensions), ctx.input("jitter"))
        nearest = fn.swizzle(result, "x")
        second = fn.swizzle(result, "y")
        hashed = fn.swizzle(result, "z")
        ctx.set_output("f1", nearest)
        ctx.set_output("f2", second)
        if ctx.output_used("edge"):
            ctx.set_output("edge", fn.subtract(second, nearest))
        if ctx.output_used("cell_id"):
            ctx.set_output("cell_id", fn.multiply(hashed, fn.f(1.0 / 288.0)))
        if ctx.output_used("cell_color"):
            rgb = noise.call(fn, noise.cell_color(ctx.lowering), hashed)
            ctx.set_output("cell_color", fn.construct(vec(4), rgb, fn.f(1.0)))

    return lower


for _dimensions in (2, 3):
    _plane = "" if _dimensions == 2 else "_space"
    register(
        NodeType(
            f"voronoi{_suffix(_dimensions)}",
            f"Voronoi{_label(_dimensions)}",
            CATEGORY,
            f"Cellular noise {_space(_dimensions)}: distances to the nearest points, edges, cell ids and colours.",
            inputs=[_coordinates(_dimensions), PortSpec("scale", PortType.FLOAT, 5.0), PortSpec("jitter", PortType.FLOAT, 1.0)],
            outputs=[
                PortSpec("f1", PortType.FLOAT, label="F1 (nearest)"),
                PortSpec("f2", PortType.FLOAT, label="F2 (second)"),
                PortSpec("edge", PortType.FLOAT, label="edge (F2 - F1)"),
                PortSpec("cell_id", PortType.FLOAT, label="cell id"),
                PortSpec("cell_color", PortType.COLOR, label="cell colour"),
            ],
            properties=[
                PropertySpec("scale", "float", 5.0, 0.0, 64.0),
                PropertySpec("jitter", "float", 1.0, 0.0, 1.0),
                PropertySpec("metric", "enum", "euclidean", choices=noise.METRICS),
            ],
            lower=_voronoi_lower(_dimensions),
            notes=(
                f"A call of `voronoi_<metric>{_plane}` (the {'3x3' if _dimensions == 2 else '3x3x3'} neighbouring cells "
                "unrolled, jittered points from the exact hash) returning (F1, F2, nearest cell's hash); edge = F2 - F1, "
                "cell id = hash / 288, cell colour from `noise_cell_color`."
            ),
        )
    )


# White noise ------------------------------------------------------------------------------------


def _white_lower(dimensions: int) -> LowerFunction:
    def lower(ctx: NodeContext) -> None:
        fn = ctx.fn
        cell = fn.builtin(Builtin.FLOOR, vec(dimensions), _point(ctx, dimensions))
        hashed = noise.call(fn, noise.hash_cell(ctx.lowering, dimensions), cell)
        ctx.set_output("out", fn.multiply(hashed, fn.f(1.0 / 288.0)))
        if ctx.output_used("color"):
            rgb = noise.call(fn, noise.cell_color(ctx.lowering), hashed)
            ctx.set_output("color", fn.construct(vec(4), rgb, fn.f(1.0)))

    return lower


for _dimensions in (2, 3):
    register(
        NodeType(
            f"white_noise{_suffix(_dimensions)}",
            f"White Noise{_label(_dimensions)}",
            CATEGORY,
            f"An independent random value (and colour) per cell {_space(_dimensions)}; scale sets the cell count.",
            inputs=[_coordinates(_dimensions), PortSpec("scale", PortType.FLOAT, 64.0)],
            outputs=[PortSpec("out", PortType.FLOAT), PortSpec("color", PortType.COLOR)],
            properties=[PropertySpec("scale", "float", 64.0, 0.0, 1024.0)],
            lower=_white_lower(_dimensions),
            notes="The exact lattice hash of floor(p) / 288 (289 levels); colour from `noise_cell_color`.",
        )
    )


# Fractal sums -----------------------------------------------------------------------------------


def _fractal_lower(dimensions: int) -> LowerFunction:
    def lower(ctx: NodeContext) -> None:
        fn = ctx.fn
        helper = noise.fractal(ctx.lowering, ctx.choice("basis"), ctx.choice("mode"), dimensions)
        octaves = fn.i(ctx.integer("octaves"))
        ctx.set_output(
            "out", noise.call(fn, helper, _point(ctx, dimensions), octaves, ctx.input("lacunarity"), ctx.input("gain"))
        )

    return lower


for _dimensions in (2, 3):
    register(
        NodeType(
            f"fractal_noise{_suffix(_dimensions)}",
            f"Fractal Noise{_label(_dimensions)}",
            CATEGORY,
            f"Octaves of a noise {_space(_dimensions)}: fBm, turbulence or ridged, in [0, 1].",
            inputs=[
                _coordinates(_dimensions),
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
                PropertySpec("basis", "enum", "value", choices=noise.BASES),
                PropertySpec("mode", "enum", "fbm", choices=noise.MODES),
            ],
            lower=_fractal_lower(_dimensions),
            notes=(
                "A call of a shared `fractal_<basis>_<mode>` helper: an explicit loop (test block, body block, "
                "back-edge) over the octaves; fBm sums 0.5 + 0.5 n, turbulence |n|, ridged (1 - |n|)^2, "
                "divided by the summed amplitudes."
            ),
        )
    )


# MaterialX's fractal noise ----------------------------------------------------------------------


def _lower_mtlx_fractal(ctx: NodeContext) -> None:
    fn = ctx.fn
    arguments = (ctx.input("position"), fn.i(ctx.integer("octaves")), ctx.input("lacunarity"), ctx.input("diminish"))
    for port, channels in (("out", 1), ("vector", 3)):
        if ctx.output_used(port):
            summed = noise.call(fn, mtlx_noise.fractal(ctx.lowering, channels), *arguments)
            ctx.set_output(port, fn.multiply(summed, ctx.input("amplitude")))


register(
    NodeType(
        "mtlx_fractal_3d",
        "MaterialX Fractal 3D",
        CATEGORY,
        "MaterialX's fractal3d: signed octaves of its Perlin noise in 3D; the same pattern as MaterialX.",
        inputs=[
            _POSITION,
            PortSpec("amplitude", PortType.FLOAT, 1.0),
            PortSpec("lacunarity", PortType.FLOAT, 2.0),
            PortSpec("diminish", PortType.FLOAT, 0.5),
        ],
        outputs=[PortSpec("out", PortType.FLOAT), PortSpec("vector", PortType.VEC3)],
        properties=[
            PropertySpec("octaves", "int", 3, 1, 8),
            PropertySpec("amplitude", "float", 1.0, 0.0, 4.0),
            PropertySpec("lacunarity", "float", 2.0, 1.0, 4.0),
            PropertySpec("diminish", "float", 0.5, 0.0, 1.0),
        ],
        lower=_lower_mtlx_fractal,
        notes=(
            "A call of `mtlx_fractal` (`_vecthree` for vector): MaterialX's mx_fractal3d_noise loop over its Perlin "
            "noise, with Jenkins' lookup3 hash in int32 arithmetic (XOR bit by bit: no bit operators in VPL), times "
            "amplitude; the float and vector outputs are each computed only when connected."
        ),
    )
)


# Domain warp ------------------------------------------------------------------------------------

#: Offsets that decorrelate the warp's components (any irrational-looking constants do).
_WARP_OFFSETS = ((0.0, 0.0, 0.0), (5.2, 1.3, 2.8), (1.7, 9.2, 4.1))


def _warp_lower(dimensions: int) -> LowerFunction:
    def lower(ctx: NodeContext) -> None:
        fn = ctx.fn
        source = ctx.input("uv" if dimensions == 2 else "position")
        point = fn.multiply(source, ctx.input("scale"))
        helper = noise.gradient_noise(ctx.lowering, dimensions)
        components = []
        for offset in _WARP_OFFSETS[:dimensions]:
            shifted = point if not any(offset) else fn.add(point, noise.vector(fn, *offset[:dimensions]))
            components.append(noise.call(fn, helper, shifted))
        displacement = fn.construct(vec(dimensions), *components)
        ctx.set_output("out", fn.add(source, fn.multiply(displacement, ctx.input("strength"))))

    return lower


for _dimensions in (2, 3):
    _coordinate = "uv" if _dimensions == 2 else "position"
    _type = PortType.VEC2 if _dimensions == 2 else PortType.VEC3
    register(
        NodeType(
            f"domain_warp{_suffix(_dimensions)}",
            f"Domain Warp{_label(_dimensions)}",
            CATEGORY,
            f"Displaces the {_coordinate} by gradient noise; feed it to another noise for swirls and marble.",
            inputs=[_coordinates(_dimensions), PortSpec("scale", PortType.FLOAT, 3.0), PortSpec("strength", PortType.FLOAT, 0.1)],
            outputs=[PortSpec("out", _type)],
            properties=[PropertySpec("scale", "float", 3.0, 0.0, 64.0), PropertySpec("strength", "float", 0.1, 0.0, 2.0)],
            lower=_warp_lower(_dimensions),
            notes=(
                f"{_coordinate} + strength * (one signed `gradient_noise` per component at {_coordinate} * scale, "
                "each at a fixed offset)."
            ),
        )
    )
