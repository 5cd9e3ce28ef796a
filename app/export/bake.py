"""Baking: a material's output channels (or any node's output) rendered into the mesh's UV space on the GPU.

How (docs/interchange.md, "Baking"):

1. For each pass (`surface.PASSES`: base, orm, normal, emissive; plus
   coverage) the graph is lowered again with an `OutputOverride`: the output
   node writes the pass's four values instead of shading, only the nodes
   feeding the pass are lowered, and the generated vertex stage places each
   vertex at its texture coordinate (clip = projection · (2·uv − 1, 0, 1)).
   Every other node lowers exactly as for the preview, so what is baked is
   what the preview computes: the same VPL, verifier, backend and driver.
   A Surface Output material's passes write `radiance` (so Texture Sample
   decodes sRGB as in the preview) but are read raw, never tone-mapped.
2. The program is drawn by the preview's own `Renderer` (mesh, parameters,
   textures, scene record, and the material's texture passes, drawn into
   their buffers once before the first target, as the preview draws them:
   `app.preview.texture_passes_gl`) into float framebuffers, tile by tile
   (`projection` selects the tile), at `supersampling`² samples per texel;
   a coverage pass says which samples fell on the mesh.
3. Samples are reduced per texel (mean of covered samples) and every pass is
   dilated across UV seams (`images.dilate`).

The scene while baking: model = identity (world space is the mesh's space,
as in the preview), the preview's default camera position (nodes that read
the view direction bake as seen from it), the default light, and
`settings.time`. Derivative-based nodes (Normal From Height, ddx/ddy) take
derivatives across texels instead of pixels; bump mapping (Mikkelsen's
method) does not depend on that parametrisation.

A tangent-space normal is baked from the Surface Output's world normal N
against the interpolated MikkTSpace frame (T, B = w·cross(Ng, T), Ng) the
Normal Map node uses: n = (N·T, N·B, N·Ng) (a file stores n/2 + 1/2, glTF's
normal texture, green up), so decoding it with the Normal Map node (or any
glTF viewer) gives N back.

Needs a current OpenGL context (`bake_context` makes an offscreen one);
`BakeError` carries a one-line reason for the artist, `BakeCancelled` ends
a bake whose progress callback returned False.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.export import images
from app.export.surface import NEUTRAL, NORMAL_CHANNELS, OPENPBR, SURFACE, ExportError, OutputDescription, describe_output
from app.material.catalog import NODE_TYPES
from app.material.graph import MaterialGraph
from app.material.lowering import NodeContext, OutputOverride, lower
from app.material.node_types import LoweringFailure
from app.material.nodes import height, pbr_functions
from app.material.parameters import ParameterKind, material_values
from app.material.port_types import PortType
from app.material.scene import DISPLAY_OUTPUT_NAME, RADIANCE_OUTPUT_NAME
from app.material.texture_passes import has_pass_nodes
from app.material.traversal import connected_nodes, node_id_key
from app.session.pass_programs import PassProgramCache, PassPrograms, with_pass_parameters
from vpl_core.ir.instructions import Builtin
from vpl_core.ir.types import vec
from vpl_core.ir.values import Operand
from vpl_core.numbers import NumberError, read_time

#: The sizes an artist may ask for (texels on a side).
MIN_SIZE, MAX_SIZE = 256, 4096
SUPERSAMPLING = (1, 2, 4)
#: Samples on a side of one rendered tile (a 2048² RGBA32F tile is 64 MiB).
TILE_SAMPLES = 2048
#: A baked channel whose covered texels all lie within this of each other is a constant.
CONSTANT_TOLERANCE = 0.5 / 255.0

Progress = Callable[[int, int, str], bool]
"""progress(done, total, what) -> False to cancel."""


class BakeError(ExportError):
    """A bake cannot run (no OpenGL, a material that does not lower, a bad setting)."""


class BakeCancelled(Exception):  # noqa: N818 - a user's decision, not an error
    """The progress callback asked to stop."""


@dataclass(frozen=True)
class BakeSettings:
    size: int = 1024
    supersampling: int = 1
    #: Rings of texels grown around every UV island before the rest is filled (None: size / 64, at least 4).
    padding: int | None = None
    #: A built-in mesh name (`app.preview.mesh.MESH_NAMES`) or a mesh file (OBJ, glTF, GLB).
    mesh: str = "sphere"
    time: float = 0.0

    def validated(self, *, any_size: bool = False) -> BakeSettings:
        """Self, or BakeError naming what is wrong. `any_size` lifts the 256..4096 rule (tests, thumbnails)."""
        if not isinstance(self.size, int) or self.size < 1 or (not any_size and not MIN_SIZE <= self.size <= MAX_SIZE):
            raise BakeError(f"the bake size must be between {MIN_SIZE} and {MAX_SIZE} texels, not {self.size}")
        if self.supersampling not in SUPERSAMPLING:
            raise BakeError(f"supersampling must be one of {', '.join(map(str, SUPERSAMPLING))}, not {self.supersampling}")
        if self.padding is not None and not 0 <= self.padding <= self.size:
            raise BakeError(f"the padding must be between 0 and the size, not {self.padding}")
        try:
            read_time(self.time, "--time")  # the preview's range: the scene time counts from 0
        except NumberError as error:
            raise BakeError(str(error)) from None
        return self

    @property
    def padding_texels(self) -> int:
        return self.padding if self.padding is not None else max(4, self.size // 64)


@dataclass
class BakedImage:
    """One baked target: values (H, W, 4) float32 top row first, dilated, and the coverage (H, W)."""

    values: np.ndarray
    coverage: np.ndarray


@dataclass
class BakedMaterial:
    """The channels of a material's output, baked (or constant)."""

    description: OutputDescription
    size: int
    coverage: np.ndarray
    passes: dict[str, np.ndarray] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def channel(self, name: str) -> np.ndarray | None:
        """The baked values of a channel (H, W, k) or None when it is constant."""
        channel = self.description.channel(name)
        if channel is None or channel.pass_name not in self.passes:
            return None
        return self.passes[channel.pass_name][:, :, list(channel.components)]

    def constant(self, name: str) -> tuple[float, ...] | None:
        """The channel's value when it is the same on every covered texel (to CONSTANT_TOLERANCE), else None."""
        if name in self.description.constants:
            return self.description.constants[name]
        values = self.channel(name)
        if values is None:
            return NEUTRAL.get(name)
        covered = self.coverage > 0.0
        if not covered.any():
            return NEUTRAL.get(name)
        inside = values[covered]
        low, high = inside.min(axis=0), inside.max(axis=0)
        if np.all(high - low <= CONSTANT_TOLERANCE):
            return tuple(float(v) for v in (low + high) / 2.0)
        return None


# The lowering of each pass ------------------------------------------------------------------


def _store(ctx: NodeContext, color: Operand) -> None:
    fn = ctx.fn
    fn.store(ctx.lowering.declare_fragment_output(ctx.lowering.output_name), color)
    fn.ret()


def _opacity(ctx: NodeContext, description: OutputDescription) -> Operand:
    fn = ctx.fn
    opacity = ctx.input("opacity")
    if description.clip_connected:
        # visible <=> opacity >= threshold <=> opacity - threshold + 0.5 >= 0.5 (the exported cutoff)
        opacity = fn.add(fn.subtract(opacity, ctx.input("alpha_clip")), fn.f(0.5))
    return pbr_functions.saturate(fn, opacity)


def _emit_base(description: OutputDescription) -> Callable[[NodeContext], None]:
    def emit(ctx: NodeContext) -> None:
        fn = ctx.fn
        rgb = fn.swizzle(ctx.input("base_color"), "xyz")
        if description.unlit:
            rgb = fn.add(rgb, ctx.input("emissive"))
        else:
            rgb = pbr_functions.saturate(fn, rgb)
        _store(ctx, fn.construct(vec(4), rgb, _opacity(ctx, description)))

    return emit


def _emit_orm(ctx: NodeContext) -> None:
    fn = ctx.fn
    values = [pbr_functions.saturate(fn, ctx.input(name)) for name in ("ambient_occlusion", "roughness", "metallic", "specular")]
    _store(ctx, fn.construct(vec(4), *values))


def _emit_normal(ctx: NodeContext) -> None:
    fn = ctx.fn
    if height.height_active(ctx):
        normal = height.bumped_normal(ctx)  # the preview's bump, with taps across texels instead of pixels
    else:
        normal = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, ctx.input("normal"))
    frame = (ctx.source("world_tangent"), ctx.source("world_bitangent"), ctx.source("world_normal"))
    x, y, z = (fn.builtin(Builtin.DOT, PortType.FLOAT, normal, axis) for axis in frame)
    _store(ctx, fn.construct(vec(4), x, y, z, fn.f(1.0)))


def _emit_raw(description: OutputDescription, pass_name: str) -> Callable[[NodeContext], None]:
    """An OpenPBR Surface pass: its channels' inputs as they are (normals in the tangent frame, as `_emit_normal`)."""
    channels = [channel for channel in description.channels if channel.pass_name == pass_name]

    def emit(ctx: NodeContext) -> None:
        fn = ctx.fn
        slots: list[Operand] = [fn.f(0.0)] * 4
        for channel in channels:
            (name,) = channel.inputs
            value = ctx.input(name)
            if channel.name in NORMAL_CHANNELS:
                normal = fn.builtin(Builtin.NORMALIZE, PortType.VEC3, value)
                frame = (ctx.source("world_tangent"), ctx.source("world_bitangent"), ctx.source("world_normal"))
                for index, axis in zip(channel.components, frame):
                    slots[index] = fn.builtin(Builtin.DOT, PortType.FLOAT, normal, axis)
            elif len(channel.components) == 3:
                rgb = fn.swizzle(value, "xyz")
                for index, component in zip(channel.components, "xyz"):
                    slots[index] = fn.swizzle(rgb, component)
            else:
                slots[channel.components[0]] = value
        _store(ctx, fn.construct(vec(4), *slots))

    return emit


def _emit_emissive(ctx: NodeContext) -> None:
    fn = ctx.fn
    color = fn.builtin(Builtin.MAX, PortType.VEC3, fn.swizzle(ctx.input("emissive_color"), "xyz"), pbr_functions.splat3(fn, 0.0))
    strength = fn.builtin(Builtin.MAX, PortType.FLOAT, ctx.input("emissive_strength"), fn.f(0.0))
    _store(ctx, fn.construct(vec(4), fn.multiply(color, strength), fn.f(1.0)))


def _emit_height(ctx: NodeContext) -> None:
    fn = ctx.fn
    value = pbr_functions.saturate(fn, ctx.input("height"))
    _store(ctx, fn.construct(vec(4), value, fn.f(0.0), fn.f(0.0), fn.f(1.0)))


def _emit_coverage(ctx: NodeContext) -> None:
    fn = ctx.fn
    _store(ctx, fn.construct(vec(4), fn.f(1.0)))


def _emit_node_output(node_id: str, port: str) -> Callable[[NodeContext], None]:
    """The value of output `port` of node `node_id` as (x, y, z, w): floats splat to rgb, vec2 (x, y, 0)."""

    def emit(ctx: NodeContext) -> None:
        fn = ctx.fn
        value, port_type = ctx.lowering.values[(node_id, port)]
        color: Operand
        if port_type is PortType.FLOAT:
            color = fn.construct(vec(4), value, value, value, fn.f(1.0))
        elif port_type is PortType.VEC2:
            color = fn.construct(vec(4), value, fn.f(0.0), fn.f(1.0))
        elif port_type is PortType.VEC3:
            color = fn.construct(vec(4), value, fn.f(1.0))
        elif port_type in (PortType.VEC4, PortType.COLOR):
            color = value
        else:
            raise LoweringFailure(f"the output {port!r} of {node_id} ({port_type}) cannot be baked to an image")
        _store(ctx, color)

    return emit


@dataclass(frozen=True)
class BakeTarget:
    """One image to bake: what the output node emits and which nodes it needs."""

    key: str
    emit: Callable[[NodeContext], None]
    roots: tuple[str, ...]


def _sources(graph: MaterialGraph, node_id: str, inputs: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted({c.source_node for c in graph.connections if c.target_node == node_id and c.target_port in inputs}))


def pass_targets(graph: MaterialGraph, description: OutputDescription) -> list[BakeTarget]:
    """The passes a material needs baked, in `surface.PASSES` order."""
    emitters: dict[str, Callable[[NodeContext], None]] = {
        "base": _emit_base(description), "orm": _emit_orm, "normal": _emit_normal, "emissive": _emit_emissive,
        "height": _emit_height,
    }
    targets = []
    for pass_name in description.passes_to_bake():
        inputs = [name for channel in description.channels if channel.pass_name == pass_name for name in channel.inputs]
        # The OpenPBR Surface's passes and the Surface Output's extension passes hold raw inputs.
        raw = description.kind == OPENPBR or pass_name not in emitters
        emit = _emit_raw(description, pass_name) if raw else emitters[pass_name]
        targets.append(BakeTarget(pass_name, emit, _sources(graph, description.node_id, inputs)))
    return targets


# View-dependent and time-dependent nodes: what the bake fixes (a note per node) ---------------

#: Node types whose value depends on the camera, the light or the screen: baked for one view.
VIEW_DEPENDENT = frozenset({
    "view_direction", "light_direction", "camera_position", "camera_distance", "screen_position", "fresnel",
    "fresnel_schlick", "lambert", "blinn_phong", "matcap_uv", "parallax_offset",
})


def bake_notes(graph: MaterialGraph, roots: Sequence[str], settings: BakeSettings) -> list[str]:
    """One line per node whose baked value is frozen: view- or light-dependent nodes, time."""

    notes = []
    for node_id in sorted(connected_nodes(graph, roots), key=node_id_key):
        node = graph.nodes[node_id]
        node_type = NODE_TYPES.get(node.type_name)
        name = node_type.display_name if node_type is not None else node.type_name
        if node.type_name in VIEW_DEPENDENT:
            notes.append(f"{node_id} ({name}): depends on the view or the light; baked as seen from the preview's default camera and light")
        elif node.type_name in ("time", "panner"):
            notes.append(f"{node_id} ({name}): animated; baked at time {settings.time:g} s")
    return notes


# GL ------------------------------------------------------------------------------------------


def apply_parameters(
    renderer: Any, parameters: Sequence[Any], graph: MaterialGraph, document_dir: Path | None, values: dict[str, Any] | None = None,
) -> list[str]:
    """Give `renderer` the material's parameter values and textures (relative paths: against `document_dir`).

    `values` overrides the graph's own (`material_values`: nodes, active
    variant). A texture that cannot be read leaves the checker and is
    returned as a note.
    """
    from app.session.textures import TextureLoadError, load_texture, resolve_texture_path

    chosen = values if values is not None else material_values(parameters, graph)[0]
    notes = []
    for spec in parameters:
        value = chosen.get(spec.name, spec.default)
        if spec.kind is ParameterKind.TEXTURE:
            if isinstance(value, str) and value:
                try:
                    texture = load_texture(resolve_texture_path(value, document_dir))
                except TextureLoadError as error:
                    notes.append(f"texture {spec.name}: {error}; baked with the checker texture")
                    continue
                renderer.set_texture(spec.name, texture.pixels)
        elif spec.kind is not ParameterKind.OTHER and value is not None:
            renderer.set_parameter(spec.name, value)
    return notes


@contextlib.contextmanager
def bake_context() -> Iterator[Any]:
    """A current offscreen OpenGL context for baking (desktop 4.2 core, else ES 3.2); BakeError without one."""
    from app.preview.screenshot import ensure_gui_application

    if ensure_gui_application() is None:
        raise BakeError("baking needs OpenGL: no display was found (set DISPLAY, or run under xvfb-run)")
    from app.preview.context import OffscreenContext, select_profile

    selection = select_profile()
    if selection.problem:
        raise BakeError(f"baking needs OpenGL: {selection.problem}")
    try:
        context = OffscreenContext(selection.profile)
    except RuntimeError as error:
        raise BakeError(f"baking needs OpenGL: {error}") from None
    try:
        yield context
    finally:
        context.done()


def _tile_projection(size_samples: int, x0: int, y0: int, width: int, height: int) -> np.ndarray:
    """The clip-space transform that shows the sample rectangle (x0, y0, width, height) of the full UV square."""
    scale_x, scale_y = size_samples / width, size_samples / height
    center_x = -1.0 + (2.0 * x0 + width) / size_samples
    center_y = -1.0 + (2.0 * y0 + height) / size_samples
    matrix = np.eye(4, dtype=np.float32)
    matrix[0, 0], matrix[1, 1] = scale_x, scale_y
    matrix[0, 3], matrix[1, 3] = -center_x * scale_x, -center_y * scale_y
    return matrix


def _renderer_class() -> type:
    from app.preview.renderer import Renderer

    class BakeRenderer(Renderer):
        """The preview renderer with the bake's scene: identity model and view, a tile as projection."""

        tile_projection: np.ndarray = np.eye(4, dtype=np.float32)

        def scene_values(self, width: int, height: int) -> dict[str, Any]:
            values = super().scene_values(width, height)
            values["view"] = np.eye(4, dtype=np.float32)
            values["projection"] = self.tile_projection
            return values

    return BakeRenderer


class Baker:
    """Bakes targets of one material on one mesh; needs a current OpenGL context for `bake`."""

    def __init__(
        self,
        graph: MaterialGraph,
        settings: BakeSettings,
        *,
        document_dir: Path | None = None,
        values: dict[str, Any] | None = None,
        progress: Progress | None = None,
        any_size: bool = False,
        mesh: Any = None,
    ) -> None:
        """`mesh`: an `app.preview.mesh.Mesh` to bake on instead of `settings.mesh` (the preview's current one)."""
        self.graph = graph
        self.settings = settings.validated(any_size=any_size)
        self.document_dir = document_dir
        self.values = values
        self.progress = progress
        self._pass_programs: PassPrograms | None = None
        self.description = describe_output(graph)
        self.notes: list[str] = []
        self._mesh: Any = mesh

    def mesh(self) -> Any:
        """The mesh baked on (`app.preview.mesh.Mesh`); BakeError when its file cannot be read."""
        if self._mesh is None:
            from app.preview.mesh import MESH_NAMES, make_mesh
            from app.preview.stage import load_stage_mesh

            name = self.settings.mesh
            if name in MESH_NAMES:
                self._mesh = make_mesh(name)
            else:
                try:
                    loaded = load_stage_mesh(name)
                except ValueError as error:
                    raise BakeError(str(error)) from None
                if loaded is None:
                    raise BakeError(f"unknown mesh {name!r}: one of {', '.join(MESH_NAMES)} or a mesh file (.obj, .gltf, .glb)")
                self._mesh = loaded
        return self._mesh

    def _output_name(self) -> str:
        return RADIANCE_OUTPUT_NAME if self.description.kind in (SURFACE, OPENPBR) else DISPLAY_OUTPUT_NAME

    def _program(self, target: BakeTarget, gl_target: str) -> tuple[Any, list[Any]]:
        override = OutputOverride(target.emit, self._output_name(), target.roots, clip_from_texcoord=True)
        lowered = lower(self.graph, override=override)
        if not lowered.ok:
            problems = "; ".join(
                f"{d.node_id or 'material'}: {d.message}" for d in lowered.errors) or "the material does not lower"
            raise BakeError(f"cannot bake {target.key}: {problems}")
        if gl_target == "glsl420":
            artifact = lowered.artifact
        else:
            from vpl_core.backends.glsl import compile as compile_glsl

            artifact = compile_glsl(lowered.verified, target=gl_target, finishing=True)
        return artifact, lowered.parameters

    def _passes(self, gl_target: str) -> tuple[Any, Any]:
        """(the GL schedule of the material's texture passes, their plan); (empty schedule, None) without any."""
        # The GL runner with the renderer (imported when a bake runs, as `_renderer_class` does).
        from app.preview.texture_passes_gl import EMPTY_SCHEDULE, schedule_for

        if not has_pass_nodes(self.graph):
            return EMPTY_SCHEDULE, None
        programs = PassProgramCache.for_graph(self.graph).get(gl_target)
        if programs is None:
            return EMPTY_SCHEDULE, None
        self._pass_programs = programs  # a bake program reading a refused pass node is refused (`_check_reads`)
        try:
            return schedule_for(programs), programs.plan
        except ValueError as error:  # no program for this target
            raise BakeError(f"cannot bake the texture passes: {error}") from None

    def _set_parameters(self, renderer: Any, parameters: list[Any]) -> None:
        for note in apply_parameters(renderer, parameters, self.graph, self.document_dir, self.values):
            if note not in self.notes:
                self.notes.append(note)

    def bake(self, targets: Sequence[BakeTarget]) -> dict[str, BakedImage]:
        """Render `targets` (plus the coverage) on the mesh; a current OpenGL context is needed."""
        from app.preview.renderer import ProgramBuildError

        settings = self.settings
        factor = settings.supersampling
        samples = settings.size * factor
        tile = max(1, min(samples, TILE_SAMPLES) // factor) * factor  # whole texels per tile
        tiles = [(x, y) for y in range(0, samples, tile) for x in range(0, samples, tile)]
        all_targets = [BakeTarget("coverage", _emit_coverage, ()), *targets]
        total = len(all_targets) * len(tiles)
        done = 0
        renderer = _renderer_class()()
        renderer.set_mesh(self.mesh())
        renderer.time = float(settings.time)
        renderer.set_background((0.0, 0.0, 0.0))
        gl_target = "glsl420"
        raw: dict[str, np.ndarray] = {}
        try:
            renderer.initialize()
            if renderer.is_es:
                gl_target = "es320"
            passes, pass_plan = self._passes(gl_target)
            for target in all_targets:
                artifact, parameters = self._program(target, gl_target)
                if self._pass_programs is not None:
                    # A refused pass node this program samples would leave its buffer empty; one nothing of the
                    # output reads does not disturb the bake.
                    blocked = self._pass_programs.reads_refused([binding.name for binding in artifact.uniforms])
                    if blocked:
                        raise BakeError(f"cannot bake the texture passes: {blocked}")
                if pass_plan is not None:
                    parameters = with_pass_parameters(parameters, pass_plan)
                self._set_parameters(renderer, parameters)
                try:
                    # The texture passes run before the first target and again only when something they read
                    # changed: every target samples the same buffers.
                    renderer.build_program(artifact, passes)
                except ProgramBuildError as error:
                    raise BakeError(f"the OpenGL driver rejected the {target.key} bake program ({error.stage}): {error.log}") from None
                size = settings.size
                result = np.zeros((size, size, 4), dtype=np.float32) if target.key != "coverage" else np.zeros((size, size), np.float32)
                for x, y in tiles:
                    if self.progress is not None and not self.progress(done, total, f"baking {target.key}"):
                        raise BakeCancelled()
                    width, height = min(tile, samples - x), min(tile, samples - y)
                    renderer.tile_projection = _tile_projection(samples, x, y, width, height)
                    pixels = renderer.render_linear(width, height)  # top row first
                    texel_x, texel_y, texel_w, texel_h = x // factor, y // factor, width // factor, height // factor
                    rows = slice(size - texel_y - texel_h, size - texel_y)
                    columns = slice(texel_x, texel_x + texel_w)
                    if target.key == "coverage":
                        covered = (pixels[:, :, 0] > 0.5).astype(np.float32)
                        result[rows, columns] = images.reduce_supersampled(pixels[:, :, :1], covered, factor)[1]
                    else:
                        covered = raw["coverage_samples"][rows.start * factor: rows.stop * factor, columns.start * factor: columns.stop * factor]
                        result[rows, columns] = images.reduce_supersampled(pixels, covered, factor)[0]
                    if target.key == "coverage":
                        samples_image = raw.setdefault("coverage_samples", np.zeros((samples, samples), np.float32))
                        samples_image[samples - y - height: samples - y, x: x + width] = covered
                    done += 1
                raw[target.key] = result
        finally:
            renderer.release()
        if self.progress is not None and not self.progress(done, total, "filling seams"):
            raise BakeCancelled()
        coverage = raw["coverage"]
        baked = {}
        for target in targets:
            baked[target.key] = BakedImage(images.dilate(raw[target.key], coverage, settings.padding_texels), coverage)
        if self.progress is not None:
            self.progress(total, total, "done")
        return baked

    def bake_material(self) -> BakedMaterial:
        """Every varying channel of the output, baked; constants from the output node (a current GL context is needed)."""
        targets = pass_targets(self.graph, self.description)
        roots = sorted({root for target in targets for root in target.roots})
        self.notes.extend(bake_notes(self.graph, roots, self.settings))
        baked = self.bake(targets)
        coverage = baked[targets[0].key].coverage if targets else self._coverage_only()
        return BakedMaterial(
            self.description, self.settings.size, coverage, {key: image.values for key, image in baked.items()}, list(self.notes))

    def _coverage_only(self) -> np.ndarray:
        """The coverage alone (a material with nothing to bake still has a UV layout)."""
        baked = self.bake([BakeTarget("uv", _emit_coverage, ())])
        return baked["uv"].coverage

    def bake_node_outputs(self, outputs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], BakedImage]:
        """The values of node outputs (node id, port) over the mesh (a current GL context is needed)."""
        targets = [BakeTarget(f"{node_id}.{port}", _emit_node_output(node_id, port), (node_id,)) for node_id, port in outputs]
        self.notes.extend(bake_notes(self.graph, [node_id for node_id, _ in outputs], self.settings))
        baked = self.bake(targets)
        return {output: baked[target.key] for output, target in zip(outputs, targets)}


def bake_material(
    graph: MaterialGraph,
    settings: BakeSettings,
    *,
    document_dir: Path | None = None,
    values: dict[str, Any] | None = None,
    progress: Progress | None = None,
    any_size: bool = False,
    mesh: Any = None,
) -> BakedMaterial:
    """Bake the output channels of `graph` (a current OpenGL context is needed; see `bake_context`)."""
    baker = Baker(graph, settings, document_dir=document_dir, values=values, progress=progress, any_size=any_size, mesh=mesh)
    return baker.bake_material()
