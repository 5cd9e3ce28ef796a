"""Region filters: Flood Fill (and its Random Colour, Random Greyscale and Gradient readers), Distance, Bevel.

All of them read a *mask* buffer: a texel is white when its luminance is at
least 0.5. They run as chains of texture passes (`texture_passes.
define_filter`) over float intermediates that hold whole texel counts and
texel offsets; every read of such a buffer is rounded to the nearest
integer, so bilinear filtering at (almost) exact texel centres cannot leak a
neighbour's value into a count or an offset. With the buffer's `tile`
wrap every neighbour read wraps around, so regions and distances continue
across the borders (the result tiles); with `clamp` nothing is read from
beyond an edge.

Distance (and Bevel) run jump flooding: each texel keeps the offset to the
nearest seed found so far; passes with steps N/2, N/4, ..., 1 look at the
eight texels one step away and keep the nearest of their seeds, then two
more passes with steps 2 and 1 ("JFA+2", Rong and Tan 2006) repair most of
the cases plain jump flooding gets wrong. Offsets are wrapped to the
nearest copy of the seed on the torus in `tile` mode.

Flood Fill labels 4-connected white regions by their bounding box. First
the lengths of the white runs through each texel in the four axis
directions are counted by jumps of growing reach (log_8 N passes: a run
count that has reached s texels adds the count s texels further on, which
adds the next if it has reached s too, up to 7 s ahead; the next pass
jumps 8 s). Then *sweeps* propagate each texel's bounding box (offsets x0,
y0, x1, y1 relative to the texel) along its horizontal run, then its
vertical run: log_8 N passes that merge the boxes s, 2 s, ..., 7 s texels
ahead when the run reaches that far (a suffix reduction), then one pass
that reads the box at the run's first texel, which covers the whole run.
Whole counts and offsets are kept in 16-bit buffers up to N = 2048
(binary16 holds every integer up to 2048), float beyond. Horizontal and vertical
sweeps alternate `sweeps` times each. A region is exact when every pixel
of it reaches its extreme pixels in at most 2 x `sweeps` straight runs:
every convex shape (rectangles, bricks, hexagons, discs) needs at most
four (two sweep rounds); thin diagonal or spiral shapes can need more.
A region is identified by its bounding box (its min corner, wrapped onto
the texture, and its size), so two regions with exactly the same box share
a colour. A region that spans a whole axis of a tiling buffer (a plank
across the texture) spans it from texel 0; one that winds around the torus
without a straight run across it may need more sweeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from app.material import texture_passes as tp
from app.material.node_types import PortSpec, PropertySpec
from app.material.nodes import texture_space  # noqa: F401 - the Texture Buffer and Blur come first in the palette
from app.material.port_types import LUMINANCE_WEIGHTS, PortType
from vpl_core.ir.instructions import BinaryOperator, Builtin
from vpl_core.ir.types import BOOL, FLOAT, INT, vec
from vpl_core.ir.values import Operand

#: A texel is white (inside a shape or region) when the mask's luminance is at least this.
WHITE_THRESHOLD = 0.5
#: The best-distance placeholder of a texel that has found no seed yet (squared texels; > 2 * 4096^2).
_FAR = 1.0e9


def _float_buffer(spec: tp.BufferSpec) -> tp.BufferSpec:
    """An intermediate of fractions: float texels, no mip-maps."""
    return replace(spec, format="float", mipmaps=False)


def _integer_buffer(spec: tp.BufferSpec) -> tp.BufferSpec:
    """An intermediate of whole texel counts and offsets (|value| <= N): 16-bit up to N = 2048 (binary16 holds every
    integer up to 2048 exactly, at half the memory), float beyond; no mip-maps."""
    return replace(spec, format="16-bit" if spec.resolution <= 2048 else "float", mipmaps=False)


#: Flood Fill's run and sweep passes look RADIX - 1 steps ahead at once: log_RADIX(N) passes instead of log2(N).
RADIX = 8


def _radix_steps(resolution: int) -> list[int]:
    """1, RADIX, RADIX^2, ... below N: the reach of each pass's steps."""
    steps, step = [], 1
    while step < resolution:
        steps.append(step)
        step *= RADIX
    return steps


def _steps(resolution: int) -> list[int]:
    """N/2, N/4, ..., 1: the doubling steps, largest first."""
    steps, step = [], resolution // 2
    while step >= 1:
        steps.append(step)
        step //= 2
    return steps


# Kernel helpers ----------------------------------------------------------------------------------


def _round(ctx: tp.PassContext, value: Operand, width: int) -> Operand:
    """floor(value + 0.5): stored whole numbers back exactly (see the module docstring)."""
    fn = ctx.fn
    kind = FLOAT if width == 1 else vec(width)
    half = fn.f(0.5) if width == 1 else fn.construct(vec(width), fn.f(0.5))
    return fn.builtin(Builtin.FLOOR, kind, fn.add(value, half))


def _white(ctx: tp.PassContext, texel: Operand) -> Operand:
    fn = ctx.fn
    weights = fn.construct(vec(3), *(fn.f(weight) for weight in LUMINANCE_WEIGHTS))
    luminance = fn.builtin(Builtin.DOT, FLOAT, fn.swizzle(texel, "xyz"), weights)
    return fn.binary(BinaryOperator.GREATER_EQUAL, luminance, fn.f(WHITE_THRESHOLD))


def _pixel(ctx: tp.PassContext) -> Operand:
    """This texel's integer coordinates (vec2): floor(uv * N)."""
    fn = ctx.fn
    return fn.builtin(Builtin.FLOOR, vec(2), fn.multiply(ctx.uv, fn.f(float(ctx.spec.resolution))))


def _and(ctx: tp.PassContext, a: Operand, b: Operand) -> Operand:
    return ctx.fn.builtin(Builtin.LOGICAL_AND, BOOL, a, b)


def _inside(ctx: tp.PassContext, dx: int, dy: int) -> Operand | None:
    """Whether this texel moved by (dx, dy) lies on the buffer; None (always) in `tile` mode, which wraps."""
    if ctx.spec.wrap == "tile":
        return None
    fn = ctx.fn
    pixel = _pixel(ctx)
    last = fn.f(float(ctx.spec.resolution - 1))
    result: Operand | None = None
    for axis, delta in (("x", dx), ("y", dy)):
        if delta == 0:
            continue
        moved = fn.add(fn.swizzle(pixel, axis), fn.f(float(delta)))
        test = (fn.binary(BinaryOperator.GREATER_EQUAL, moved, fn.f(0.0)) if delta < 0
                else fn.binary(BinaryOperator.LESS_EQUAL, moved, last))
        result = test if result is None else _and(ctx, result, test)
    return result


def _select(ctx: tp.PassContext, condition: Operand, if_true: Operand, if_false: Operand, width: int) -> Operand:
    return ctx.fn.builtin(Builtin.SELECT, FLOAT if width == 1 else vec(width), condition, if_true, if_false)


def _v(ctx: tp.PassContext, *values: float) -> Operand:
    fn = ctx.fn
    return fn.construct(vec(len(values)), *(fn.f(value) for value in values))


# Jump flooding (Distance, Bevel) ------------------------------------------------------------------

#: A seed buffer texel: xy = offset in texels from this texel to its nearest seed, z = 1 when it has one.


def _seed_kernel(seed: Callable[[tp.PassContext], Operand], ctx: tp.PassContext) -> Operand:
    """The seed buffer: offset 0 and z = 1 where `seed` holds, nothing found elsewhere."""
    fn = ctx.fn
    found = _select(ctx, seed(ctx), fn.f(1.0), fn.f(0.0), 1)
    return fn.construct(vec(4), fn.f(0.0), fn.f(0.0), found, fn.f(1.0))


def _jump_kernel(source: str, step: int, ctx: tp.PassContext) -> Operand:
    """One jump flooding pass: the nearest of the seeds known here and at the eight texels `step` away."""
    fn = ctx.fn
    size = float(ctx.spec.resolution)
    here = ctx.sample(source, ctx.uv)
    best: Operand = _round(ctx, fn.swizzle(here, "xy"), 2)
    known = fn.binary(BinaryOperator.GREATER, fn.swizzle(here, "z"), fn.f(0.5))
    best_distance = _select(ctx, known, fn.builtin(Builtin.DOT, FLOAT, best, best), fn.f(_FAR), 1)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == 0 and dy == 0:
                continue
            there = ctx.sample_offset(source, dx * step, dy * step)
            candidate = fn.add(_round(ctx, fn.swizzle(there, "xy"), 2), _v(ctx, dx * step, dy * step))
            if ctx.spec.wrap == "tile":
                # The nearest copy of the seed on the torus: subtract N * round(offset / N).
                copies = fn.builtin(Builtin.FLOOR, vec(2), fn.add(fn.multiply(candidate, fn.f(1.0 / size)), _v(ctx, 0.5, 0.5)))
                candidate = fn.subtract(candidate, fn.multiply(copies, fn.f(size)))
            distance = fn.builtin(Builtin.DOT, FLOAT, candidate, candidate)
            usable: Operand = fn.binary(BinaryOperator.GREATER, fn.swizzle(there, "z"), fn.f(0.5))
            inside = _inside(ctx, dx * step, dy * step)
            if inside is not None:
                usable = _and(ctx, usable, inside)
            better = _and(ctx, usable, fn.binary(BinaryOperator.LESS, distance, best_distance))
            best = _select(ctx, better, candidate, best, 2)
            best_distance = _select(ctx, better, distance, best_distance, 1)
            known = fn.builtin(Builtin.LOGICAL_OR, BOOL, known, better)
    return fn.construct(vec(4), best, _select(ctx, known, fn.f(1.0), fn.f(0.0), 1), fn.f(1.0))


def _jump_flood(prefix: str, seed: Callable[[tp.PassContext], Operand], seed_reads: tuple[str, ...],
                resolution: int) -> list[tp.FilterPass]:
    """The passes of one jump flood: seeds (`seed` reads `seed_reads`), then steps N/2 .. 1, then 2 and 1 again;
    the last is named `prefix`."""
    passes = [tp.FilterPass(f"{prefix}_seeds", partial(_seed_kernel, seed), spec=_integer_buffer, reads=seed_reads)]
    steps = [*_steps(resolution), *(step for step in (2, 1) if step < resolution)]
    for position, step in enumerate(steps):
        last = position == len(steps) - 1
        name = prefix if last else f"{prefix}_jump{position}"
        passes.append(tp.FilterPass(name, partial(_jump_kernel, passes[-1].name, step), spec=_integer_buffer,
                                    reads=(passes[-1].name,)))
    return passes


def _found_distance(ctx: tp.PassContext, flood: str) -> tuple[Operand, Operand]:
    """(distance in texels to the nearest seed, whether there is one) from a finished jump flood."""
    fn = ctx.fn
    texel = ctx.sample(flood, ctx.uv)
    offset = _round(ctx, fn.swizzle(texel, "xy"), 2)
    known = fn.binary(BinaryOperator.GREATER, fn.swizzle(texel, "z"), fn.f(0.5))
    return fn.builtin(Builtin.LENGTH, FLOAT, offset), known


def _grey(ctx: tp.PassContext, value: Operand) -> Operand:
    fn = ctx.fn
    return fn.construct(vec(4), value, value, value, fn.f(1.0))


# Distance ------------------------------------------------------------------------------------------


def _mask_is_white(ctx: tp.PassContext) -> Operand:
    return _white(ctx, ctx.sample("mask", ctx.uv))


def _mask_is_black(ctx: tp.PassContext) -> Operand:
    return ctx.fn.builtin(Builtin.LOGICAL_NOT, BOOL, _mask_is_white(ctx))


def _distance_output(ctx: tp.PassContext) -> Operand:
    """1 - distance / max distance, clamped to 0..1 (0 where the mask has no white texel at all)."""
    fn = ctx.fn
    distance, known = _found_distance(ctx, "nearest")
    reach = fn.builtin(Builtin.MAX, FLOAT, fn.multiply(ctx.value("max_distance"), fn.f(float(ctx.spec.resolution))),
                       fn.f(1e-6))
    falloff = fn.builtin(Builtin.CLAMP, FLOAT, fn.subtract(fn.f(1.0), fn.divide(distance, reach)), fn.f(0.0), fn.f(1.0))
    return _grey(ctx, _select(ctx, known, falloff, fn.f(0.0), 1))


def _distance_passes(setup: tp.FilterSetup) -> list[tp.FilterPass]:
    return [*_jump_flood("nearest", _mask_is_white, ("mask",), setup.spec.resolution),
            tp.FilterPass("falloff", _distance_output, reads=("nearest",))]


_MASK = PortSpec("mask", PortType.TEXTURE, None)

tp.define_filter(
    "mask_distance", "Distance",
    "Spreads a mask's white shapes outwards: 1 on them, falling to 0 at the max distance (UV units).",
    inputs=[_MASK],
    properties=[PropertySpec("max_distance", "float", 0.1, 0.0, 1.0, label="max distance")],
    passes=_distance_passes,
    notes=(
        "Jump flooding on a buffer of texel offsets (16-bit up to 2048², float beyond) to the nearest white texel "
        "(luminance >= 0.5): "
        "log2(N) passes of steps N/2 .. 1, plus steps 2 and 1 again (JFA+2), each reading 9 texels; offsets "
        "wrap to the nearest copy on the torus when the buffer tiles. Then clamp(1 - d / max distance, 0, 1). "
        "![Distance: a brick mask (left) spread by 0.06](images/distance.png)"
    ),
)


# Bevel ---------------------------------------------------------------------------------------------

CORNERS = ("round", "angular")


def _edge_distance(ctx: tp.PassContext) -> tuple[Operand, Operand]:
    """(distance in texels from this texel's centre to the shape's edge, whether the mask has a black texel)."""
    fn = ctx.fn
    distance, known = _found_distance(ctx, "to_edge")
    return fn.subtract(distance, fn.f(0.5)), known


def _width_texels(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    return fn.builtin(Builtin.MAX, FLOAT, fn.multiply(ctx.value("width"), fn.f(float(ctx.spec.resolution))), fn.f(1e-6))


def _in_core(ctx: tp.PassContext) -> Operand:
    """A white texel at least the bevel's width from the edge (or in a mask without black texels)."""
    fn = ctx.fn
    edge, known = _edge_distance(ctx)
    far = fn.builtin(Builtin.LOGICAL_OR, BOOL, fn.builtin(Builtin.LOGICAL_NOT, BOOL, known),
                     fn.binary(BinaryOperator.GREATER_EQUAL, edge, _width_texels(ctx)))
    return _and(ctx, _mask_is_white(ctx), far)


def _bevel_output(corner: str, ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    width = _width_texels(ctx)
    one, zero = fn.f(1.0), fn.f(0.0)
    if corner == "angular":
        edge, known = _edge_distance(ctx)
        ramp = _select(ctx, known, fn.builtin(Builtin.CLAMP, FLOAT, fn.divide(edge, width), zero, one), one, 1)
    else:
        distance, known = _found_distance(ctx, "to_core")
        ramp = _select(ctx, known, fn.builtin(Builtin.CLAMP, FLOAT, fn.subtract(one, fn.divide(distance, width)), zero, one),
                       zero, 1)
    smooth = fn.builtin(Builtin.SMOOTHSTEP, FLOAT, zero, one, ramp)
    height = fn.builtin(Builtin.MIX, FLOAT, ramp, smooth, ctx.value("smoothness"))
    return _grey(ctx, _select(ctx, _mask_is_white(ctx), height, zero, 1))


def _bevel_passes(setup: tp.FilterSetup) -> list[tp.FilterPass]:
    resolution = setup.spec.resolution
    corner = setup.choice("corner")
    passes = _jump_flood("to_edge", _mask_is_black, ("mask",), resolution)
    if corner == "round":
        passes += _jump_flood("to_core", _in_core, ("mask", "to_edge"), resolution)
    reads = ("mask", "to_edge") if corner == "angular" else ("mask", "to_core")
    return [*passes, tp.FilterPass("height", partial(_bevel_output, corner), reads=reads)]


tp.define_filter(
    "bevel", "Bevel",
    "A height from a mask: each shape rises from 0 at its edge to 1 at the width (UV units) inside.",
    inputs=[_MASK],
    properties=[
        PropertySpec("width", "float", 0.03, 0.0, 0.5),
        PropertySpec("smoothness", "float", 0.0, 0.0, 1.0),
        PropertySpec("corner", "enum", "round", choices=CORNERS, label="corner type"),
    ],
    passes=_bevel_passes,
    notes=(
        "Distance's jump flooding from the black texels gives d, the distance to the edge (minus half a texel). "
        "Angular: t = clamp(d / width, 0, 1). Round: a second jump flood from the core (d >= width) gives e, "
        "t = clamp(1 - e / width, 0, 1) (a shape thinner than twice the width stays flat at 0). "
        "Height = mix(t, smoothstep(0, 1, t), smoothness) on white texels, 0 on black ones. "
        "![Bevel: a brick mask (left), round corners, width 0.04, smoothness 0.3](images/bevel.png)"
    ),
)


# Flood Fill ------------------------------------------------------------------------------------------

#: Run buffer channels: white texels in a row from this one towards +x, -x, +y, -y (this one included).
_RUN_AXES = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _runs_init(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    one = _select(ctx, _mask_is_white(ctx), fn.f(1.0), fn.f(0.0), 1)
    return fn.construct(vec(4), one, one, one, one)


def _runs_double(source: str, step: int, ctx: tp.PassContext) -> Operand:
    """Runs counted up to `step` texels grow to RADIX x `step`: a run that has reached `step` adds the count `step`
    texels further on, which adds the next if it too has reached `step`, ... (capped at N)."""
    fn = ctx.fn
    reach = fn.construct(vec(4), fn.f(step - 0.5))
    ahead: Operand | None = None
    for multiple in range(RADIX - 1, -1, -1):
        if multiple == 0:
            counts = _round(ctx, ctx.sample(source, ctx.uv), 4)
        else:
            further = []
            for channel, (dx, dy) in zip("xyzw", _RUN_AXES):
                offset = (dx * step * multiple, dy * step * multiple)
                value = fn.swizzle(_round(ctx, ctx.sample_offset(source, *offset), 4), channel)
                inside = _inside(ctx, *offset)
                further.append(value if inside is None else _select(ctx, inside, value, fn.f(0.0), 1))
            counts = fn.construct(vec(4), *further)
        ahead = counts if ahead is None else fn.add(counts, fn.multiply(fn.builtin(Builtin.STEP, vec(4), reach, counts), ahead))
    assert ahead is not None
    return fn.builtin(Builtin.MIN, vec(4), ahead, fn.construct(vec(4), fn.f(float(ctx.spec.resolution))))


def _run_counts(ctx: tp.PassContext, axis: str) -> tuple[Operand, Operand, Operand]:
    """(texels ahead of this one in its run, texels behind it, whether it is white) along `axis`: a run that
    covers the whole row or column counts from this texel (N - 1 ahead, 0 behind)."""
    fn = ctx.fn
    counts = _round(ctx, ctx.sample("runs", ctx.uv), 4)
    forward, backward = (fn.swizzle(counts, "x"), fn.swizzle(counts, "y")) if axis == "x" else (
        fn.swizzle(counts, "z"), fn.swizzle(counts, "w"))
    size = float(ctx.spec.resolution)
    whole = fn.binary(BinaryOperator.GREATER_EQUAL, forward, fn.f(size))
    ahead = _select(ctx, whole, fn.f(size - 1.0), fn.subtract(forward, fn.f(1.0)), 1)
    behind = _select(ctx, whole, fn.f(0.0), fn.subtract(backward, fn.f(1.0)), 1)
    white = fn.binary(BinaryOperator.GREATER, forward, fn.f(0.5))
    return ahead, behind, white


def _merge_boxes(ctx: tp.PassContext, a: Operand, b: Operand) -> Operand:
    fn = ctx.fn
    low = fn.builtin(Builtin.MIN, vec(2), fn.swizzle(a, "xy"), fn.swizzle(b, "xy"))
    high = fn.builtin(Builtin.MAX, vec(2), fn.swizzle(a, "zw"), fn.swizzle(b, "zw"))
    return fn.construct(vec(4), low, high)


def _sweep_double(source: str | None, axis: str, step: int, ctx: tp.PassContext) -> Operand:
    """Boxes merged over `step` texels of the run grow to RADIX x `step`: merge the boxes 1 .. RADIX - 1 times
    `step` texels ahead that the run reaches (source None: every box is its texel's own)."""
    fn = ctx.fn
    ahead, _, white = _run_counts(ctx, axis)
    zero = _v(ctx, 0.0, 0.0, 0.0, 0.0)
    box = _round(ctx, ctx.sample(source, ctx.uv), 4) if source is not None else zero
    for multiple in range(1, RADIX):
        dx, dy = (step * multiple, 0) if axis == "x" else (0, step * multiple)
        there = _round(ctx, ctx.sample_offset(source, dx, dy), 4) if source is not None else zero
        there = fn.add(there, _v(ctx, dx, dy, dx, dy))
        reaches = _and(ctx, white, fn.binary(BinaryOperator.LESS_EQUAL, fn.f(float(step * multiple)), ahead))
        box = _select(ctx, reaches, _merge_boxes(ctx, box, there), box, 4)
    return box


def _sweep_gather(source: str, axis: str, ctx: tp.PassContext) -> Operand:
    """The box of the run's first texel (which covers the whole run), moved to this texel."""
    fn = ctx.fn
    _, behind, white = _run_counts(ctx, axis)
    back = fn.multiply(behind, fn.f(-1.0))
    texel = ctx.input_texel(source)
    shift = fn.construct(vec(2), back, fn.f(0.0)) if axis == "x" else fn.construct(vec(2), fn.f(0.0), back)
    first = _round(ctx, ctx.sample(source, fn.add(ctx.uv, fn.multiply(shift, fn.f(texel)))), 4)
    moved = fn.add(first, fn.construct(vec(4), shift, shift))
    return _select(ctx, white, moved, _v(ctx, 0.0, 0.0, 0.0, 0.0), 4)


def _flood_output(source: str, ctx: tp.PassContext) -> Operand:
    """xy: from this texel's centre to the region's bounding box min corner, zw: the box size (UV units)."""
    fn = ctx.fn
    _, _, white = _run_counts(ctx, "x")
    box = _round(ctx, ctx.sample(source, ctx.uv), 4)
    low = fn.swizzle(box, "xy")
    extent = fn.add(fn.subtract(fn.swizzle(box, "zw"), low), _v(ctx, 1.0, 1.0))
    # A region as wide (or tall) as the texture, such as a plank running across a tiling buffer, has no box of
    # its own on the torus: it spans the whole axis, from texel 0 whichever texel looks.
    size_n = float(ctx.spec.resolution)
    whole = fn.builtin(Builtin.STEP, vec(2), _v(ctx, size_n, size_n), extent)
    low = fn.builtin(Builtin.MIX, vec(2), low, fn.multiply(_pixel(ctx), fn.f(-1.0)), whole)
    extent = fn.builtin(Builtin.MIN, vec(2), extent, _v(ctx, size_n, size_n))
    texel = fn.f(ctx.texel)
    corner = fn.multiply(fn.subtract(low, _v(ctx, 0.5, 0.5)), texel)
    size = fn.multiply(extent, texel)
    return _select(ctx, white, fn.construct(vec(4), corner, size), _v(ctx, 0.0, 0.0, 0.0, 0.0), 4)


def _flood_passes(setup: tp.FilterSetup) -> list[tp.FilterPass]:
    steps = _radix_steps(setup.spec.resolution)
    passes = [tp.FilterPass("runs0", _runs_init, spec=_integer_buffer, reads=("mask",))]
    for position, step in enumerate(steps):
        name = "runs" if position == len(steps) - 1 else f"runs{position + 1}"
        passes.append(tp.FilterPass(name, partial(_runs_double, passes[-1].name, step), spec=_integer_buffer,
                                    reads=(passes[-1].name,)))
    source: str | None = None
    for sweep in range(setup.integer("sweeps")):
        for axis in "xy":
            for step in steps:
                name = f"sweep{sweep}{axis}_{step}"
                reads = ("runs",) if source is None else ("runs", source)
                passes.append(tp.FilterPass(name, partial(_sweep_double, source, axis, step), spec=_integer_buffer,
                                            reads=reads))
                source = name
            gathered = f"sweep{sweep}{axis}"
            passes.append(tp.FilterPass(gathered, partial(_sweep_gather, name, axis), spec=_integer_buffer,
                                        reads=("runs", name)))
            source = gathered
    assert source is not None
    passes.append(tp.FilterPass("regions", partial(_flood_output, source), spec=_float_buffer, reads=("runs", source)))
    return passes


tp.define_filter(
    "flood_fill", "Flood Fill",
    "Finds a mask's separate white regions (tiles, bricks) for the Flood Fill to ... nodes.",
    inputs=[_MASK],
    properties=[PropertySpec("sweeps", "int", 2, 1, 8, label="sweeps (safety / speed)")],
    passes=_flood_passes,
    notes=(
        "A float buffer: xy = offset from the texel to its region's bounding-box corner, zw = box size (UV "
        "units; 0 on black texels). Run lengths by jumps of 1..7 x 8^k texels (log_8 N passes, 16-bit up to "
        "2048²), then `sweeps` rounds of a horizontal and a vertical sweep (log_8 N + 1 passes each) that spread "
        "the box along the runs. Exact "
        "for regions whose pixels reach one another in 2 x sweeps straight runs (every convex shape at 2). Its "
        "readers show it: ![Flood Fill of a brick mask (left) to Random Colour](images/flood-fill-to-random-colour.png)"
    ),
)


# Flood Fill readers ----------------------------------------------------------------------------------


def _region(ctx: tp.PassContext) -> tuple[Operand, Operand, Operand, Operand]:
    """(offset to the box corner, box size (UV), whether the texel is in a region, the region's int32 hash of its
    corner texel (wrapped onto the texture), its size in texels and the seed)."""
    fn = ctx.fn
    data = ctx.sample("regions", ctx.uv)
    offset, size = fn.swizzle(data, "xy"), fn.swizzle(data, "zw")
    inside = fn.binary(BinaryOperator.GREATER, fn.swizzle(size, "x"), fn.f(0.0))
    resolution = 1.0 / ctx.input_texel("regions")
    # The corner's texel, wrapped onto the texture, and the size in texels: whole numbers.
    corner = _round(ctx, fn.multiply(fn.add(ctx.uv, offset), fn.f(resolution)), 2)
    corner = fn.builtin(Builtin.MOD, vec(2), corner, fn.construct(vec(2), fn.f(resolution)))
    texels = _round(ctx, fn.multiply(size, fn.f(resolution)), 2)
    seed = fn.builtin(Builtin.FLOOR, FLOAT, ctx.value("seed"))
    hashed: Operand = _integer(ctx, seed)
    for part in (fn.swizzle(corner, "x"), fn.swizzle(corner, "y"), fn.swizzle(texels, "x"), fn.swizzle(texels, "y")):
        hashed = _mix(ctx, fn.add(hashed, fn.multiply(_integer(ctx, part), fn.i(668265261))))
    return offset, size, inside, hashed


def _integer(ctx: tp.PassContext, value: Operand) -> Operand:
    return ctx.fn.builtin(Builtin.FLOAT_TO_INT, INT, value)


#: Odd multipliers of the integer mix (murmur3's finaliser and the golden ratio, as int32).
_MIX_MULTIPLIERS = (-1640531535, -2048144789, -1028477387)


def _mix(ctx: tp.PassContext, value: Operand) -> Operand:
    """Scramble an int32 (wrapping products, VPL 4.1): multiply by odd constants, folding high bits down by adding
    the value divided by 2^16 or 2^13 (VPL has no shifts or xor); the same integers on every target."""
    fn = ctx.fn
    for multiplier, fold in zip(_MIX_MULTIPLIERS, (65536, 8192, 65536)):
        value = fn.multiply(value, fn.i(multiplier))
        value = fn.add(value, fn.divide(value, fn.i(fold)))
    return value


def _random(ctx: tp.PassContext, hashed: Operand, offset: int) -> Operand:
    """A value in [0, 1) with 2^24 levels from the region's hash (another one for each `offset`)."""
    fn = ctx.fn
    # Two rounds: with one, the channels of neighbouring regions' colours stay measurably correlated.
    mixed = _mix(ctx, _mix(ctx, fn.add(hashed, fn.i(offset * 374761393))))
    high = fn.construct(FLOAT, fn.divide(mixed, fn.i(256)))  # |value| < 2^23: exact as a float
    return fn.builtin(Builtin.FRACT, FLOAT, fn.multiply(high, fn.f(2.0**-23)))


def _random_color(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    _, _, inside, hashes = _region(ctx)
    rgb = fn.construct(vec(3), *(_random(ctx, hashes, offset) for offset in (1, 2, 3)))
    black = _v(ctx, 0.0, 0.0, 0.0)
    return fn.construct(vec(4), _select(ctx, inside, rgb, black, 3), fn.f(1.0))


def _random_grey(ctx: tp.PassContext) -> Operand:
    fn = ctx.fn
    _, _, inside, hashes = _region(ctx)
    return _grey(ctx, _select(ctx, inside, _random(ctx, hashes, 0), fn.f(0.0), 1))


def _gradient(ctx: tp.PassContext) -> Operand:
    """0 to 1 across each region's bounding box along the angle (plus a random turn of up to variation x 180°)."""
    fn = ctx.fn
    offset, size, inside, hashes = _region(ctx)
    turn = fn.multiply(fn.subtract(fn.multiply(_random(ctx, hashes, 4), fn.f(2.0)), fn.f(1.0)),
                       fn.multiply(ctx.value("angle_variation"), fn.f(180.0)))
    angle = fn.builtin(Builtin.RADIANS, FLOAT, fn.add(ctx.value("angle"), turn))
    direction = fn.construct(vec(2), fn.builtin(Builtin.COS, FLOAT, angle), fn.builtin(Builtin.SIN, FLOAT, angle))
    # From the box's centre to this texel, and the box's extent along the direction.
    centred = fn.subtract(fn.multiply(offset, fn.f(-1.0)), fn.multiply(size, fn.f(0.5)))
    extent = fn.builtin(Builtin.DOT, FLOAT, size, fn.builtin(Builtin.ABS, vec(2), direction))
    along = fn.add(fn.divide(fn.builtin(Builtin.DOT, FLOAT, centred, direction),
                             fn.builtin(Builtin.MAX, FLOAT, extent, fn.f(1e-9))), fn.f(0.5))
    value = fn.builtin(Builtin.CLAMP, FLOAT, along, fn.f(0.0), fn.f(1.0))
    return _grey(ctx, _select(ctx, inside, value, fn.f(0.0), 1))


_REGIONS = PortSpec("regions", PortType.TEXTURE, None, label="flood fill")
#: The readers take a Flood Fill's buffer (boxes, not an image): anything else is refused naming the reader.
_FROM_FLOOD_FILL = {"regions": ("flood_fill",)}
_SEED = PropertySpec("seed", "int", 0, 0, 1000)

tp.define_filter(
    "flood_fill_to_color", "Flood Fill to Random Colour",
    "A random colour per region of a Flood Fill (black between regions).",
    inputs=[_REGIONS], input_sources=_FROM_FLOOD_FILL, properties=[_SEED],
    passes=lambda setup: [tp.FilterPass("color", _random_color, reads=("regions",))],
    notes="One pass: the region's box corner (wrapped) and size hashed with the seed (an int32 mix), "
          "three values. ![A brick mask (left) to Random Colour](images/flood-fill-to-random-colour.png)",
)
tp.define_filter(
    "flood_fill_to_grayscale", "Flood Fill to Random Greyscale",
    "A random grey per region of a Flood Fill (black between regions).",
    inputs=[_REGIONS], input_sources=_FROM_FLOOD_FILL, properties=[_SEED],
    passes=lambda setup: [tp.FilterPass("grey", _random_grey, reads=("regions",))],
    notes="One pass: the region's box corner (wrapped) and size hashed with the seed (an int32 mix), one value. "
          "![A brick mask (left) to Random Greyscale](images/flood-fill-to-random-greyscale.png)",
)
tp.define_filter(
    "flood_fill_to_gradient", "Flood Fill to Gradient",
    "A 0 to 1 gradient across each region of a Flood Fill, along an angle (optionally random per region).",
    inputs=[_REGIONS], input_sources=_FROM_FLOOD_FILL,
    properties=[
        PropertySpec("angle", "float", 0.0, -180.0, 180.0),
        PropertySpec("angle_variation", "float", 0.0, 0.0, 1.0, label="angle variation"),
        _SEED,
    ],
    passes=lambda setup: [tp.FilterPass("gradient", _gradient, reads=("regions",))],
    notes="One pass: t = dot(p - box centre, (cos a, sin a)) / (|w cos a| + |h sin a|) + 0.5, clamped; a = angle "
          "+ (2 r - 1) x variation x 180 with r the region's random value. "
          "![A brick mask (left) to Gradient, angle 0, variation 0.5](images/flood-fill-to-gradient.png)",
)


def _position(ctx: tp.PassContext) -> Operand:
    """rg: the UV of the region's bounding-box centre (wrapped onto the texture); b 0, a 1."""
    fn = ctx.fn
    offset, size, inside, _ = _region(ctx)
    centre = fn.builtin(Builtin.FRACT, vec(2), fn.add(fn.add(ctx.uv, offset), fn.multiply(size, fn.f(0.5))))
    return fn.construct(vec(4), _select(ctx, inside, centre, _v(ctx, 0.0, 0.0), 2), fn.f(0.0), fn.f(1.0))


def _box_size(ctx: tp.PassContext) -> Operand:
    """rg: the region's bounding-box width and height in UV units; b 0, a 1."""
    fn = ctx.fn
    data = ctx.sample("regions", ctx.uv)
    return fn.construct(vec(4), fn.swizzle(data, "zw"), fn.f(0.0), fn.f(1.0))


tp.define_filter(
    "flood_fill_to_position", "Flood Fill to Position",
    "The UV of each Flood Fill region's centre (red, green): one point per region, for per-tile effects.",
    inputs=[_REGIONS], input_sources=_FROM_FLOOD_FILL, properties=[],
    passes=lambda setup: [tp.FilterPass("position", _position, reads=("regions",))],
    notes="One pass: rg = fract(texel uv + offset to the box corner + box size / 2), the centre of the region's "
          "bounding box, wrapped onto the texture (black between regions). Use a 16-bit or float format for "
          "positions finer than 1/255. ![A brick mask (left) to Position: red grows with u, green with v]"
          "(images/flood-fill-to-position.png)",
)
tp.define_filter(
    "flood_fill_to_bbox_size", "Flood Fill to BBox Size",
    "The width and height (red, green; UV units) of each Flood Fill region's bounding box.",
    inputs=[_REGIONS], input_sources=_FROM_FLOOD_FILL, properties=[],
    passes=lambda setup: [tp.FilterPass("size", _box_size, reads=("regions",))],
    notes="One pass: rg = the box size the Flood Fill stores (0 between regions). ![A brick mask (left) to BBox "
          "Size: every brick 0.29 x 0.17](images/flood-fill-to-bbox-size.png)",
)
