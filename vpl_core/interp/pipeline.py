"""The graphics pipeline around the interpreter: vertex stage, rasterisation, fragment stage, framebuffer.

`render(program, mesh, width, height, ...)` draws `mesh` (vertex attributes
by location and triangles) with the module, as an OpenGL host with the
GLSL backend's bindings would:

- **vertex inputs** are bound by location (explicit, or allocated as spec
  12.2 describes; a matrix takes one location per column); a location with
  no attribute data reads GL's initial current attribute (0, 0, 0, 1), and
  data with fewer components than the input is completed from it, as in
  GL; integer inputs take the data as integers;
- **uniforms** are given by name as Python values (`lanes.from_python`);
  a uniform without a value reads zero, as GL initialises them; samplers
  take a `Texture2D`; an unbound sampler reads (0, 0, 0, 1), GL's result
  for an incomplete texture;
- **varyings** link by spec 3.1 (explicit locations, else names) and are
  interpolated perspective-correctly; a varying with an integer leaf is
  flat as a whole (spec 12.2), taking the last vertex of the triangle (GL's
  default provoking vertex);
- **fragments** run in complete 2x2 quads of one triangle (the helper lanes
  give derivatives, as on a GPU); `gl_FragCoord` is the pixel centre, the
  window depth and 1/w;
- **depth test** LESS against a buffer cleared to 1.0 (optional): each
  pixel shows the nearest fragment that is not discarded, the earliest
  triangle on ties, exactly GL's result for opaque drawing in order; with
  the test off, the last triangle's fragment. Discarding shaders are run
  layer by layer (the next candidate of a pixel whose fragment discarded).

`fullscreen_mesh()` is the full-screen pass: one triangle covering the
viewport, positions at location 0 (x, y, 0), normals (0, 0, 1) at 1 and
texture coordinates mapping the viewport to [0, 1]^2 at 2.

The result's images are top row first (image order), like
`app.preview.renderer.read_pixels`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from vpl_core.backends.glsl.locations import contains_integer
from vpl_core.interp import numeric as nm
from vpl_core.interp.lanes import (
    MAX_ELEMENTS,
    InterpreterError,
    Tree,
    Value,
    from_python,
    leaves,
    rebuild,
    zero_errors,
    zeros,
)
from vpl_core.interp.machine import DEFAULT_STEP_LIMIT, Machine, Program, StageResult, uniform_values
from vpl_core.interp.raster import Coverage, Primitives, assemble, quad_weights, rasterize
from vpl_core.interp.texture import Texture2D
from vpl_core.ir.module import Direction, InterfaceVariable, Semantic, StageKind
from vpl_core.ir.types import (
    MatrixType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
)

#: Interpolation precision GL leaves to the implementation; the tracking allows this much of the
#: largest vertex value (relative) per interpolated component.
INTERPOLATION_RELATIVE = 2.0**-16
#: Lanes a fragment batch may have (bounds memory; larger frames run in several batches).
MAX_FRAGMENT_LANES = 1 << 18


@dataclass
class MeshData:
    """Vertex attributes by location ((V, components) arrays) and triangles ((T, 3) vertex indices)."""

    attributes: dict[int, np.ndarray]
    indices: np.ndarray

    @property
    def vertex_count(self) -> int:
        counts = {int(np.asarray(data).shape[0]) for data in self.attributes.values()}
        if len(counts) > 1:
            raise InterpreterError(f"vertex attributes of different lengths: {sorted(counts)}")
        if counts:
            return counts.pop()
        return int(np.asarray(self.indices).max()) + 1 if np.asarray(self.indices).size else 0


def fullscreen_mesh() -> MeshData:
    positions = np.array([[-1.0, -1.0, 0.0], [3.0, -1.0, 0.0], [-1.0, 3.0, 0.0]], dtype=np.float32)
    normals = np.tile(np.array([0.0, 0.0, 1.0], dtype=np.float32), (3, 1))
    texcoords = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    return MeshData({0: positions, 1: normals, 2: texcoords}, np.array([[0, 1, 2]], dtype=np.int64))


@dataclass
class RenderResult:
    """One frame. Images are (height, width, ...) with the top row first.

    `outputs[name]` is each fragment output's tree of images (an array per
    leaf); `color` is the FragmentColor output where a fragment was written
    and the background elsewhere; `written` marks those pixels. When the
    frame was rendered with precision tracking, `errors[name]` holds the
    radii per component and `unstable` the pixels whose value another
    conforming implementation may compute differently for reasons the radii
    do not bound (see docs/interpreter.md).
    """

    outputs: dict[str, Tree]
    color: np.ndarray
    written: np.ndarray
    errors: dict[str, Tree] | None = None
    unstable: np.ndarray | None = None
    stats: dict[str, int] = field(default_factory=dict)

    def color_error(self) -> np.ndarray | None:
        if self.errors is None:
            return None
        return self.errors.get("__color__")  # type: ignore[return-value]  # the colour output is a vector: its error tree is one array


def vertex_input_locations(program: Program) -> dict[int, int]:
    """Vertex-input slot -> location, allocated as spec 12.2 (explicit kept, others in source order)."""
    from vpl_core.backends.glsl.locations import resolve_interfaces
    from vpl_core.diagnostics import VplError

    try:
        vertex, _ = resolve_interfaces(program.module)
    except VplError as error:
        raise InterpreterError(f"cannot bind the vertex inputs: {error}") from error
    return {
        assignment.slot: assignment.location
        for assignment in vertex.assignments
        if assignment.variable.direction is Direction.IN and not assignment.builtin
    }


#: GL's initial current vertex attribute: what an input without an enabled array reads.
DEFAULT_ATTRIBUTE = np.array([0.0, 0.0, 0.0, 1.0])


def _location_data(attributes: Mapping[int, np.ndarray], location: int, size: int, dtype: type, count: int) -> np.ndarray:
    data = attributes.get(location)
    if data is None:
        return np.broadcast_to(DEFAULT_ATTRIBUTE[:size].astype(dtype), (count, size))
    return _components(np.asarray(data), size, dtype)


def _attribute_value(value_type: Type, location: int, attributes: Mapping[int, np.ndarray], count: int) -> Tree:
    """Per-vertex data of one vertex input (GL: one location per matrix column, components completed from (0, 0, 0, 1))."""
    if isinstance(value_type, MatrixType):
        columns = [_location_data(attributes, location + column, value_type.rows, np.float32, count)
                   for column in range(value_type.columns)]
        return np.ascontiguousarray(np.stack(columns, axis=1), dtype=np.float32)
    if isinstance(value_type, (ScalarType, VectorType)) and value_type.kind is not ScalarKind.BOOL:
        size = 1 if isinstance(value_type, ScalarType) else value_type.size
        dtype = np.float32 if value_type.kind is ScalarKind.FLOAT else np.int32
        values = np.ascontiguousarray(_location_data(attributes, location, size, dtype, count))
        return values[:, 0] if isinstance(value_type, ScalarType) else values
    return zeros(value_type, (count,))


def _components(data: np.ndarray, size: int, dtype: type) -> np.ndarray:
    data = data.reshape(data.shape[0], -1)
    if data.shape[1] >= size:
        return np.ascontiguousarray(data[:, :size]).astype(dtype)
    fill = np.array([0, 0, 0, 1], dtype=np.float64)[data.shape[1] : size]
    return np.concatenate([data.astype(np.float64), np.broadcast_to(fill, (data.shape[0], fill.size))], axis=1).astype(dtype)


def _linked_slot(program: Program, variable: InterfaceVariable) -> int | None:
    """The vertex output a fragment input links to (spec 3.1)."""
    for slot, candidate in enumerate(program.vertex.stage.interface):
        if candidate.direction is not Direction.OUT or candidate.semantic is Semantic.POSITION:
            continue
        if variable.location != -1:
            if candidate.location == variable.location:
                return slot
        elif candidate.location == -1 and candidate.name == variable.name:
            return slot
    return None


class TextureTable:
    """Sampler values: textures by object identity -> index (the lane value of a sampler)."""

    def __init__(self) -> None:
        self.textures: list[Texture2D] = []
        self._ids: dict[int, int] = {}

    def id_of(self, texture: object) -> int:
        if texture is None:
            return -1
        if not isinstance(texture, Texture2D):
            raise ValueError(f"a sampler takes a Texture2D, not {type(texture).__name__}")
        key = id(texture)
        if key not in self._ids:
            self._ids[key] = len(self.textures)
            self.textures.append(texture)
        return self._ids[key]


def prepare_uniforms(program: Program, uniforms: Mapping[str, object]) -> tuple[dict[str, Tree], TextureTable]:
    """Python values by uniform name -> per-invocation trees; unknown names are an error (a typo would hide)."""
    table = TextureTable()
    known = {uniform.name for uniform in program.module.uniforms}
    unknown = sorted(set(uniforms) - known)
    if unknown:
        raise InterpreterError(f"the module has no uniform {unknown[0]!r} (uniforms: {', '.join(sorted(known)) or 'none'})")
    trees: dict[str, Tree] = {}
    for uniform in program.module.uniforms:
        if uniform.name not in uniforms:
            continue
        try:
            trees[uniform.name] = from_python(uniform.type, uniforms[uniform.name], sampler_ids=table.id_of)
        except ValueError as error:
            raise InterpreterError(f"uniform {uniform.name!r}: {error}") from error
    return trees, table


def run_vertex_stage(program: Program, mesh: MeshData, uniform_trees: dict[str, Tree], table: TextureTable,
                     tracked: bool, step_limit: int = DEFAULT_STEP_LIMIT) -> StageResult:
    count = mesh.vertex_count
    locations = vertex_input_locations(program)
    inputs: dict[int, Value] = {}
    for slot, variable in enumerate(program.vertex.stage.interface):
        if variable.direction is not Direction.IN:
            continue
        data = _attribute_value(variable.type, locations.get(slot, -1), mesh.attributes, count)
        inputs[slot] = Value(data, zero_errors(variable.type, (count,)) if tracked else None)
    machine = Machine(program, StageKind.VERTEX, count, inputs, uniform_values(program, uniform_trees, count, tracked),
                      table.textures, tracked=tracked, step_limit=step_limit)
    return machine.run()


def _interpolate(value: Value, value_type: Type, flat: bool, corners: np.ndarray, weights: np.ndarray,
                 provoking: np.ndarray, tracked: bool) -> Value:
    """A vertex output at fragment lanes: perspective weights (n, 3) of the vertices `corners` (n, 3)."""
    data_leaves = leaves(value.data)
    error_leaves = leaves(value.error) if value.error is not None else [None] * len(data_leaves)
    out_data, out_error = [], []
    for leaf, error in zip(data_leaves, error_leaves):
        if flat or leaf.dtype.kind != "f":
            out_data.append(leaf[provoking])
            if tracked:
                out_error.append(error[provoking] if error is not None else np.zeros(leaf[provoking].shape))
            continue
        at_corners = leaf[corners].astype(np.float64)  # (n, 3, ...)
        shape = weights.shape + (1,) * (at_corners.ndim - 2)
        w = weights.reshape(shape)
        out_data.append(nm.f32(np.sum(w * at_corners, axis=1)))
        if tracked:
            corner_error = error[corners] if error is not None else np.zeros(at_corners.shape)
            spread = np.sum(np.abs(w) * corner_error, axis=1)
            allowance = INTERPOLATION_RELATIVE * np.max(np.abs(at_corners), axis=1) * np.sum(np.abs(w), axis=1)
            out_error.append(spread + allowance)
    result = Value(rebuild(value.data, iter(out_data)), rebuild(value.data, iter(out_error)) if tracked else None)
    return result


def render(
    program: Program,
    mesh: MeshData,
    width: int,
    height: int,
    *,
    uniforms: Mapping[str, object] | None = None,
    background: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
    depth_test: bool = True,
    tracked: bool = False,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> RenderResult:
    """Draw `mesh` with the program into a width x height frame (see the module docstring)."""
    with np.errstate(all="ignore"):  # NaN and infinity are values here (spec 4.1), not events
        return _render(program, mesh, width, height, uniforms=uniforms, background=background, depth_test=depth_test,
                       tracked=tracked, step_limit=step_limit)


def _render(
    program: Program,
    mesh: MeshData,
    width: int,
    height: int,
    *,
    uniforms: Mapping[str, object] | None,
    background: tuple[float, float, float, float],
    depth_test: bool,
    tracked: bool,
    step_limit: int,
) -> RenderResult:
    if width < 1 or height < 1:
        raise InterpreterError(f"the frame size must be positive, not {width}x{height}")
    if program.lanes_per_batch(4) < 4:
        raise InterpreterError(f"the module's largest value has {program.largest_value} components, more than the "
                               f"interpreter holds ({MAX_ELEMENTS // 4} per lane)")
    uniform_trees, table = prepare_uniforms(program, uniforms or {})
    indices = np.asarray(mesh.indices, dtype=np.int64).reshape(-1, 3)
    vertex = run_vertex_stage(program, mesh, uniform_trees, table, tracked, step_limit)
    position_slot = program.vertex.position_output
    if position_slot is None:
        raise InterpreterError("the vertex stage has no Position output")
    clip = np.asarray(vertex.outputs[position_slot].data, dtype=np.float32)
    if indices.size and (indices.min() < 0 or indices.max() >= clip.shape[0]):
        raise InterpreterError("triangle indices outside the vertex range")
    primitives = assemble(clip, indices, width, height)
    coverage = rasterize(primitives, width, height)
    fragment_stage = program.fragment
    outputs_types = {slot: variable for slot, variable in enumerate(fragment_stage.stage.interface) if variable.direction is Direction.OUT}
    images = {slot: zeros(variable.type, (height, width)) for slot, variable in outputs_types.items()}
    image_errors = {slot: zero_errors(variable.type, (height, width)) for slot, variable in outputs_types.items()} if tracked else None
    written = np.zeros((height, width), dtype=bool)
    unstable = np.zeros((height, width), dtype=bool)
    stats = {"vertices": clip.shape[0], "triangles": int(indices.shape[0]), "fragments": int(coverage.x.size),
             "lanes": 0, "passes": 0, "steps": vertex.steps, "step_limit": step_limit}
    # Vertex lanes whose computation is uncertain make every fragment of their triangles unstable.
    vertex_unstable = vertex.unstable if tracked else None

    # Candidate order: per pixel, the fragment GL keeps first.
    pixel = coverage.y * width + coverage.x
    if depth_test:
        passing = coverage.depth < 1.0
        order = np.lexsort((coverage.primitive, coverage.depth, pixel))
    else:
        passing = np.ones(coverage.x.size, dtype=bool)
        order = np.lexsort((-coverage.primitive, pixel))
    order = order[passing[order]]
    remaining = order
    can_discard = fragment_stage.can_discard
    while remaining.size:
        stats["passes"] += 1
        sorted_pixels = pixel[remaining]
        first = np.ones(remaining.size, dtype=bool)
        first[1:] = sorted_pixels[1:] != sorted_pixels[:-1]
        chosen = remaining[first]
        survivors = _shade(program, primitives, coverage, chosen, indices, vertex, uniform_trees, table, tracked,
                           images, image_errors, written, unstable, width, stats, vertex_unstable)
        if not can_discard:
            break
        discarded_pixels = np.unique(pixel[chosen[~survivors]])
        rest = remaining[~first]
        remaining = rest[np.isin(pixel[rest], discarded_pixels)]

    color_slot = fragment_stage.color_output
    names = {slot: outputs_types[slot].name for slot in outputs_types}
    flipped = {names[slot]: _flip(image) for slot, image in images.items()}
    color = np.empty((height, width, 4), dtype=np.float32)
    color[...] = np.asarray(background, dtype=np.float32)
    if color_slot is not None:
        primary = images[color_slot]
        assert isinstance(primary, np.ndarray)
        color[written] = primary[written]
    result_errors = None
    if image_errors is not None:
        result_errors = {names[slot]: _flip(tree) for slot, tree in image_errors.items()}
        if color_slot is not None:
            primary_error = image_errors[color_slot]
            assert isinstance(primary_error, np.ndarray)
            result_errors["__color__"] = np.where(written[..., None], primary_error, 0.0)[::-1]
    return RenderResult(flipped, color[::-1].copy(), written[::-1].copy(), result_errors,
                        unstable[::-1].copy() if tracked else None, stats)


def _flip(tree: Tree) -> Tree:
    if isinstance(tree, tuple):
        return tuple(_flip(item) for item in tree)
    return np.ascontiguousarray(tree[::-1])


def _shade(program: Program, primitives: Primitives, coverage: Coverage, chosen: np.ndarray, indices: np.ndarray, vertex: StageResult,
           uniform_trees: dict[str, Tree], table: TextureTable, tracked: bool, images: dict[int, Tree],
           image_errors: dict[int, Tree] | None, written: np.ndarray, unstable: np.ndarray, width: int,
           stats: dict[str, int], vertex_unstable: np.ndarray | None) -> np.ndarray:
    """Run the fragment stage for the chosen fragments (in quads); write the survivors; per chosen: survived."""
    survived = np.zeros(chosen.size, dtype=bool)
    primitive = coverage.primitive[chosen]
    qx, qy = coverage.x[chosen] // 2, coverage.y[chosen] // 2
    # One int64 key per (primitive, quad row, quad column), in that order of significance.
    rows, columns = int(qy.max(initial=0)) + 1, int(qx.max(initial=0)) + 1
    keys = (primitive.astype(np.int64) * rows + qy) * columns + qx
    unique_keys, quad_of = np.unique(keys, return_inverse=True)
    quad_of = quad_of.reshape(-1)
    quads = np.stack([unique_keys // (rows * columns), (unique_keys // columns) % rows, unique_keys % columns], axis=1)
    corner = (coverage.x[chosen] & 1) + 2 * (coverage.y[chosen] & 1)
    lane_of = quad_of * 4 + corner
    batch_quads = program.lanes_per_batch(MAX_FRAGMENT_LANES) // 4
    if batch_quads < 1:
        raise InterpreterError(f"the module's largest value has {program.largest_value} components: too large to run even one 2x2 quad")
    for start in range(0, quads.shape[0], batch_quads):
        stop = min(start + batch_quads, quads.shape[0])
        selected = (quad_of >= start) & (quad_of < stop)
        survived[selected] = _shade_batch(program, primitives, quads[start:stop], lane_of[selected] - 4 * start,
                                          chosen[selected], coverage, indices, vertex, uniform_trees, table, tracked,
                                          images, image_errors, written, unstable, stats, vertex_unstable)
    return survived


def _shade_batch(program: Program, primitives: Primitives, quads: np.ndarray, lanes_real: np.ndarray, chosen: np.ndarray,
                 coverage: Coverage, indices: np.ndarray, vertex: StageResult, uniform_trees: dict[str, Tree],
                 table: TextureTable, tracked: bool, images: dict[int, Tree], image_errors: dict[int, Tree] | None,
                 written: np.ndarray, unstable: np.ndarray, stats: dict[str, int],
                 vertex_unstable: np.ndarray | None) -> np.ndarray:
    count = quads.shape[0] * 4
    stats["lanes"] += count
    corner = np.tile(np.arange(4), quads.shape[0])
    primitive = np.repeat(quads[:, 0], 4)
    x = np.repeat(quads[:, 2], 4) * 2 + (corner & 1)
    y = np.repeat(quads[:, 1], 4) * 2 + (corner >> 1)
    weights, depth, inverse_w = quad_weights(primitives, primitive, x, y)
    source = primitives.source[primitive]
    corners = indices[source]          # (n, 3) vertex indices
    provoking = corners[:, 2]
    fragment_stage = program.fragment
    inputs: dict[int, Value] = {}
    for slot, variable in enumerate(fragment_stage.stage.interface):
        if variable.direction is not Direction.IN:
            continue
        if variable.semantic is Semantic.POSITION:
            frag_coord = np.stack([x + 0.5, y + 0.5, depth, inverse_w], axis=1).astype(np.float32)
            error = None
            if tracked:
                error = np.zeros(frag_coord.shape)
                error[:, 2] = 2.0**-20
                error[:, 3] = np.abs(inverse_w) * INTERPOLATION_RELATIVE
            inputs[slot] = Value(frag_coord, error)
            continue
        linked = _linked_slot(program, variable)
        if linked is None:
            raise InterpreterError(f"fragment input {variable.name!r} has no vertex output")
        inputs[slot] = _interpolate(vertex.outputs[linked], variable.type, contains_integer(variable.type), corners,
                                    weights, provoking, tracked)
    machine = Machine(program, StageKind.FRAGMENT, count, inputs, uniform_values(program, uniform_trees, count, tracked),
                      table.textures, tracked=tracked, quads=True, step_limit=stats["step_limit"])
    result = machine.run()
    stats["steps"] += result.steps
    alive_real = result.alive[lanes_real]
    px, py = coverage.x[chosen], coverage.y[chosen]
    keep = alive_real
    kx, ky, klanes = px[keep], py[keep], lanes_real[keep]
    for slot, value in result.outputs.items():
        images[slot] = _write(images[slot], value.data, ky, kx, klanes)
        if image_errors is not None and value.error is not None:
            image_errors[slot] = _write(image_errors[slot], value.error, ky, kx, klanes)
    written[ky, kx] = True
    if tracked:
        lane_unstable = result.unstable[lanes_real]
        if vertex_unstable is not None:
            lane_unstable = lane_unstable | vertex_unstable[corners[lanes_real]].any(axis=1)
        # A discard decision that may go the other way changes which fragment a pixel shows.
        unstable[py, px] |= lane_unstable
    return alive_real


def _write(image: Tree, lanes_tree: Tree, ky: np.ndarray, kx: np.ndarray, lanes: np.ndarray) -> Tree:
    image_leaves = leaves(image)
    value_leaves = leaves(lanes_tree)
    updated = []
    for target, source in zip(image_leaves, value_leaves):
        copy = np.array(target, copy=True)
        copy[ky, kx] = np.asarray(source)[lanes].astype(copy.dtype)
        updated.append(copy)
    return rebuild(image, iter(updated))


def to_rgba8(color: np.ndarray) -> np.ndarray:
    """Float colours to an RGBA8 image as GL converts to a normalized fixed-point buffer (NaN -> 0)."""
    values = np.nan_to_num(np.asarray(color, dtype=np.float64), nan=0.0)
    return np.rint(np.clip(values, 0.0, 1.0) * 255.0).astype(np.uint8)

