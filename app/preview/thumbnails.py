"""Node thumbnails on the GPU: the renderer of one thumbnail module, and the worker thread that runs it.

What a thumbnail shows and which ones need drawing is decided without
OpenGL (`app.material.node_previews`); this module draws them.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `app/preview/thumbnails.py`.
"""

from __future__ import annotations

import functools
import math
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from app.material.graph import MaterialGraph
from app.material.lowering import lowering_equivalent
from app.material.node_previews import MESH, SQUARE, ThumbnailProgram, lower_thumbnails
from app.material.parameters import ParameterKind
from app.material.texture_passes import has_pass_nodes
from app.preview.camera import OrbitCamera
from app.preview.context import Profile
from app.preview.gl_worker import NoContextError, start_gl_worker
from app.preview.images import rgba_to_qimage
from app.preview.mesh import Mesh, build_mesh, uv_sphere
from app.preview.renderer import ProgramBuildError, Renderer, Tile
from app.preview.stage import Stage
from app.preview.texture_passes_gl import PassSchedule, schedule_for
from app.session.pass_programs import PassProgramCache, PassPrograms, with_pass_parameters
from app.workers import Job, Worker
from vpl_core.backends import glsl
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.diagnostics import VplError

#: Side of a thumbnail in pixels: the size a node draws it at zoom 1 (`app.graph.nodes.THUMBNAIL_SIZE`); the
#: draw cost grows with its area (docs/editor.md, "Node previews").
THUMBNAIL_PIXELS = 48
#: Tiles per row of the image thumbnails are drawn into.
ATLAS_COLUMNS = 16
#: Thumbnails drawn per round trip to the driver (and per `rendered` batch).
CHUNK = 64
#: Graphs up to this many nodes get one thumbnail module for all their nodes at first, so a pan or a value
#: edit never needs another. A larger graph's module holds the nodes asked for since its last structural
#: change (the ones in view), grown when others are asked for: every node of a 2,000-node graph took the
#: worker 1.4-2.4 s to lower, of 10,000 nodes about 20 s and a link of over 30 s. After a structural edit
#: every graph's module holds the nodes asked for (the edit's downstream in view), grown the same way.
WHOLE_GRAPH_NODES = 400


class FlatCamera:
    """The UV square's camera: identity view and projection, so the square's corners are the tile's."""

    position = np.array([0.0, 0.0, 1.0], dtype=np.float32)

    def view_matrix(self) -> np.ndarray:
        return np.eye(4, dtype=np.float32)

    def projection_matrix(self, _aspect: float) -> np.ndarray:
        return np.eye(4, dtype=np.float32)

    def reset(self) -> None:
        return None


@functools.cache
def square_mesh() -> Mesh:
    """The UV square: (-1, -1)..(1, 1) at z = 0, facing +z, texture coordinates (0, 0) at the bottom left."""
    positions = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], dtype=np.float32)
    normals = np.tile(np.array([0, 0, 1], dtype=np.float32), (4, 1))
    texcoords = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    indices = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32)
    return build_mesh("uv square", positions, normals, texcoords, indices)


#: Segments and rings of the thumbnails' sphere: smooth at thumbnail size, and a software rasteriser
#: sets up each triangle of every tile (the preview's 64 x 32 sphere made mesh tiles 8 times slower).
THUMBNAIL_SPHERE_SEGMENTS = (24, 12)


@functools.cache
def thumbnail_sphere() -> Mesh:
    """The mesh of MESH thumbnails: a unit sphere coarse enough for a thumbnail, whatever the stage shows."""
    segments, rings = THUMBNAIL_SPHERE_SEGMENTS
    return uv_sphere(1.0, segments, rings)


def atlas_layout(count: int, size: int, columns: int = ATLAS_COLUMNS) -> tuple[int, int, list[tuple[int, int]]]:
    """(width, height, GL origins of `count` tiles), tiles row by row from the top left."""
    columns = max(1, min(columns, count))
    rows = max(1, math.ceil(count / columns))
    width, height = columns * size, rows * size
    origins = [((index % columns) * size, height - (index // columns + 1) * size) for index in range(count)]
    return width, height, origins


class ThumbnailRenderer:
    """Draws the thumbnails of one thumbnail module (see the module docstring); one current context."""

    def __init__(self) -> None:
        self.renderer = Renderer()
        self.mesh_camera = OrbitCamera()
        self.flat_camera = FlatCamera()
        #: Takes the stage's camera view (`Stage.apply`), which is the main preview's: the thumbnails draw with
        #: the two cameras above, so a mesh thumbnail's sphere is seen from the front whatever the stage.
        self.stage_camera = OrbitCamera()
        self.selector = ""
        self.stage = Stage()
        self.draw_count = 0  # tiles drawn since creation (tests and the benchmark count them)
        self._textures: dict[str, int] = {}

    def set_program(self, artifact: ProgramArtifact, selector: str) -> None:
        """Build the thumbnail module's program (the texture passes stay); raises ProgramBuildError with the driver's log."""
        self.renderer.build_program(artifact, self.renderer.passes.schedule)
        self.selector = selector

    def set_passes(self, passes: PassSchedule) -> None:
        """The material's texture passes, whose buffers a buffer or filter node's thumbnail shows flat (and any
        node downstream reads); drawn again only when what they read changed. Raises `PassError`."""
        self.renderer.initialize()
        self.renderer.passes.set_schedule(passes, self.renderer.is_es)

    def set_values(self, values: Mapping[str, object]) -> None:
        """These values (by name) changed; the others stay."""
        self.renderer.set_values(self.renderer.parameters.replaced(values))

    def set_textures(self, images: Mapping[str, np.ndarray | None]) -> None:
        """Texture parameters' pixels (None: the checker); uploaded only when an image changed."""
        for name, image in images.items():
            key = id(image) if image is not None else 0
            if self._textures.get(name) != key:
                self._textures[name] = key
                self.renderer.set_texture(name, image)

    def set_stage(self, stage: Stage, time_seconds: float = 0.0) -> None:
        self.stage = stage
        self.renderer.camera = self.stage_camera  # `render` left the flat or the mesh camera there
        stage.apply(self.renderer)
        self.renderer.set_background_mode("color")
        self.renderer.time = float(time_seconds)

    def render(self, items: Sequence[tuple[int, str]], size: int = THUMBNAIL_PIXELS) -> dict[int, np.ndarray]:
        """The thumbnail (size x size RGBA8, top row first) of each (selector value, SQUARE or MESH)."""
        images: dict[int, np.ndarray] = {}
        for geometry in (SQUARE, MESH):
            selectors = [selector for selector, kind in items if kind == geometry]
            if not selectors:
                continue
            if geometry == SQUARE:
                self.renderer.set_mesh(square_mesh())
                self.renderer.camera = self.flat_camera  # type: ignore[assignment]  # duck-typed: the renderer only asks a camera for its matrices and position
            else:
                self.renderer.set_mesh(thumbnail_sphere())
                self.renderer.camera = self.mesh_camera
            width, height, origins = atlas_layout(len(selectors), size)
            tiles = [Tile(x, y, size, {self.selector: selector} if self.selector else {})
                     for selector, (x, y) in zip(selectors, origins)]
            atlas = self.renderer.render_tiles(width, height, tiles)
            self.draw_count += len(tiles)
            for selector, (x, y) in zip(selectors, origins):
                top = height - y - size
                images[selector] = atlas[top:top + size, x:x + size].copy()
        return images

    def release(self) -> None:
        self.renderer.release()


# The worker -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThumbnailJob:
    """One refresh: draw `nodes` of `graph` with these values, textures and stage.

    `structure` keys the thumbnail module: the worker lowers `graph` again
    only when it differs from the last job's. `fingerprints` travel with the
    images, so the caller knows what each image shows.
    """

    generation: int
    graph: MaterialGraph
    structure: str
    output_name: str
    nodes: tuple[str, ...]
    values: Mapping[str, object] = field(default_factory=dict)
    textures: Mapping[str, np.ndarray | None] = field(default_factory=dict)
    stage: Mapping[str, Any] = field(default_factory=dict)
    time: float = 0.0
    size: int = THUMBNAIL_PIXELS
    fingerprints: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ThumbnailBatch:
    """Images of some of a job's nodes (`rendered`), or why there are none (`problem`)."""

    generation: int
    images: Mapping[str, QImage]
    #: The images' nodes, and on a job's last batch also its nodes the module cannot draw (no image: see
    #: `program.problems`), each with the fingerprint the job asked for.
    fingerprints: Mapping[str, str]
    #: The module these were drawn with (its ports, geometry, animation, per-node problems).
    program: ThumbnailProgram | None
    problem: str = ""
    #: True on the last batch of a job (also when it was interrupted by a newer one).
    final: bool = False
    seconds: float = 0.0
    #: Nodes the module could draw but the texture passes cannot serve (a refused pass node, or one that reads
    #: it: `PassPrograms.problems`), by id: why (no image; the others are drawn).
    problems: Mapping[str, str] = field(default_factory=dict)


class _RefreshError(RuntimeError):
    """A job failed: its generation, and the error (the job's `__cause__`)."""

    def __init__(self, generation: int, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.generation = generation


class ThumbnailService(QObject):
    """The thumbnail worker (module docstring). Create, `start`, `submit`; `stop` before the app quits."""

    rendered = Signal(object)  # ThumbnailBatch
    #: The worker cannot draw at all (no context of the profile): why.
    failed = Signal(str)

    def __init__(self, profile: Profile, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.profile = profile
        self._worker: Worker[ThumbnailBatch | None] | None = None
        self.problem = ""
        #: Counters for tests and the benchmark: modules lowered, programs linked, tiles drawn.
        self.lowerings = 0
        self.links = 0
        self.draws = 0
        self.last_seconds: dict[str, float] = {}

    @property
    def started(self) -> bool:
        return self._worker is not None

    def start(self) -> None:
        """Create the offscreen surface and the context here (the GUI thread) and start the worker with them
        (`gl_worker.start_gl_worker`: a context constructed on the worker deadlocks under llvmpipe)."""
        if self._worker is not None:
            return
        target = self.profile.target
        self._worker, self._states = start_gl_worker(
            self, self.profile, "the thumbnails'", "vpl-thumbnails",
            lambda: _WorkerState(ThumbnailRenderer(), target), lambda state: state.thumbnails.release(),
            self._deliver, self._on_error)

    def submit(self, job: ThumbnailJob) -> None:
        """Draw `job` next (an older job not yet started is dropped; one being drawn stops at its next chunk)."""
        if self._worker is not None and self._worker.closed:  # closed from outside: `app.workers.close_all`
            self._worker = None
        if self._worker is None:
            self.start()
        assert self._worker is not None
        self._worker.submit(functools.partial(self._run_job, states=self._states, request=job))

    @property
    def busy(self) -> bool:
        """A job is waiting or being drawn."""
        return self._worker is not None and self._worker.busy

    def stop(self, timeout_ms: int = 30_000) -> bool:
        """End the worker after the stage it is in; True when it has ended within `timeout_ms` (idempotent).

        Nothing is delivered after this call. A worker that has not ended in time runs on until it does
        (`app.workers.running_workers` names it; the application's exit waits for it, bounded): the
        service can be started again at once, with a new worker.
        """
        worker, self._worker = self._worker, None
        if worker is None:
            return True
        return worker.close(max(0, timeout_ms) / 1000.0)

    # ---- the GUI thread ------------------------------------------------------------------------

    def _deliver(self, batch: ThumbnailBatch | None) -> None:
        if batch is not None:
            self.rendered.emit(batch)

    def _on_error(self, error: BaseException) -> None:
        if isinstance(error, NoContextError):
            self.problem = str(error)
            self.failed.emit(self.problem)
            return
        traceback.print_exception(error)  # a failing refresh is shown on the nodes; the worker lives on
        generation = error.generation if isinstance(error, _RefreshError) else 0
        self.rendered.emit(ThumbnailBatch(generation, {}, {}, None, str(error), True))

    # ---- the worker thread ------------------------------------------------------------------

    def _run_job(self, job: Job, *, states: list[_WorkerState], request: ThumbnailJob) -> ThumbnailBatch | None:
        try:
            return self._draw(request, states[0], job)
        except Exception as error:
            raise _RefreshError(request.generation, error) from error

    def _draw(self, job: ThumbnailJob, state: _WorkerState, work: Job) -> ThumbnailBatch | None:
        """Lower, link and draw `job`; batches go out through `work.emit`, the last one is returned."""
        started = time.perf_counter()
        if job.structure != state.structure or not state.covers(job.nodes):
            covered: frozenset[str] | None = None
            # The module of the nodes asked for: always for a large graph; for any graph once it had a module
            # (a structural edit asks for the nodes it changed, so only their part is lowered and linked; a
            # later job asking for others grows that module, as for a large graph).
            if len(job.graph.nodes) > WHOLE_GRAPH_NODES or state.structure is not None:
                covered = frozenset(job.nodes)
                if job.structure == state.structure and state.covered is not None:
                    covered |= state.covered  # the nodes drawn before stay drawable without another module
            state.structure, state.covered = job.structure, covered
            state.program, state.problem = None, ""
            program = lower_thumbnails(job.graph, covered, output_name=job.output_name)
            self.lowerings += 1
            self.last_seconds["lowering"] = time.perf_counter() - started
            if work.cancelled:  # linking a large module takes the driver long: not for nobody
                state.structure = state.covered = None
                return None
            state.program = program
            if not program.ok:
                state.problem = next((message for message in program.problems.values()), "nothing to preview")
            else:
                linking = time.perf_counter()
                try:
                    artifact = program.result.artifact
                    if artifact is None or artifact.target != state.target:
                        artifact = glsl.compile(program.result.verified, target=state.target, finishing=True)
                    state.thumbnails.set_program(artifact, program.result.preview_selector)
                    self.links += 1
                except (ProgramBuildError, VplError) as error:
                    state.problem = f"the driver refused the thumbnails' program: {error}"
                self.last_seconds["link"] = time.perf_counter() - linking
        current = state.program
        if work.cancelled:
            return None
        if current is None or state.problem:
            return ThumbnailBatch(job.generation, {}, dict(job.fingerprints), current, state.problem, True,
                                  time.perf_counter() - started)
        program = current
        thumbnails = state.thumbnails
        # Every uniform of this module gets a value: one the job does not name takes its default (the checker for
        # a texture), never what an earlier module of the same uniform name left in the renderer.
        specs = program.result.parameters
        # The texture passes, as the preview runs them: a pass node's thumbnail samples its buffer. Planned for
        # every job (a filter's value edit changes no thumbnail module); a pass draws again only when what it
        # reads changed, and a program of unchanged GLSL never links again.
        passes = state.passes_for(job.graph)
        try:
            thumbnails.set_passes(schedule_for(passes))
        except (ValueError, ProgramBuildError) as error:
            return ThumbnailBatch(job.generation, {}, dict(job.fingerprints), current, f"texture passes: {error}", True,
                                  time.perf_counter() - started)
        if passes is not None:
            specs = with_pass_parameters(specs, passes.plan)
        thumbnails.set_values({**{spec.name: spec.default for spec in specs
                                  if spec.kind not in (ParameterKind.TEXTURE, ParameterKind.OTHER)}, **job.values})
        thumbnails.set_textures({**{spec.name: None for spec in specs if spec.kind is ParameterKind.TEXTURE},
                                 **job.textures})
        thumbnails.set_stage(Stage.from_dict(job.stage), job.time)
        # The nodes asked for that the module cannot draw (a problem upstream, no preview port after all) are
        # named in the last batch, so the caller marks them (`program.problems` says why) instead of waiting.
        items: list[tuple[str, int]] = []
        undrawable: dict[str, str] = {}
        refused = passes.problems if passes is not None else {}
        for node in job.nodes:
            selector = program.selector(node)
            if selector is None or node in refused:
                undrawable[node] = job.fingerprints.get(node, "")
            else:
                items.append((node, selector))
        drawing = time.perf_counter()
        for first in range(0, max(1, len(items)), CHUNK):
            chunk = items[first:first + CHUNK]
            pixels = thumbnails.render([(selector, program.geometry.get(node, SQUARE)) for node, selector in chunk], job.size)
            self.draws += len(chunk)
            images = {node: rgba_to_qimage(pixels[selector]) for node, selector in chunk}
            last = first + CHUNK >= len(items)
            if work.superseded:  # a newer job waits (or the worker closes): this one's images are outdated
                return None
            self.last_seconds["drawing"] = time.perf_counter() - drawing
            fingerprints = {node: job.fingerprints.get(node, "") for node, _ in chunk}
            if last:
                fingerprints.update(undrawable)
            batch = ThumbnailBatch(job.generation, images, fingerprints, program, "", last, time.perf_counter() - started,
                                   {node: refused[node] for node in undrawable if node in refused} if last else {})
            if last:
                return batch
            work.emit(batch)
        return None


@dataclass
class _WorkerState:
    thumbnails: ThumbnailRenderer
    target: str
    structure: str | None = None
    #: The nodes the module was lowered for (None: all of the graph's).
    covered: frozenset[str] | None = None
    program: ThumbnailProgram | None = None
    problem: str = ""

    #: The graph the texture passes were last planned for, and its passes (planning takes ~0.1 s: not per job).
    passes_graph: MaterialGraph | None = None
    passes: PassPrograms | None = None

    def covers(self, nodes: Sequence[str]) -> bool:
        return self.covered is None or self.covered.issuperset(nodes)

    def passes_for(self, graph: MaterialGraph) -> PassPrograms | None:
        """The texture passes of `graph` for this context's target: planned again only when the lowering of
        `graph` differs from that of the graph they were planned for (a parameter's value or a move does not)."""
        if self.passes_graph is None or not lowering_equivalent(self.passes_graph, graph):
            self.passes = PassProgramCache.for_graph(graph).get(self.target) if has_pass_nodes(graph) else None
            self.passes_graph = graph
        return self.passes


def wait_until(condition: Callable[[], bool], process_events: Callable[[], None], timeout_seconds: float) -> bool:
    """Run `process_events` until `condition()` (True) or the timeout (False): tests and the benchmark."""
    deadline = time.monotonic() + timeout_seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        process_events()
        time.sleep(0.002)
    return True
