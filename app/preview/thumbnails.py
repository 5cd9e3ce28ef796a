"""Node thumbnails on the GPU: the renderer of one thumbnail module, and the worker thread that runs it.

What a thumbnail shows and which ones need drawing is decided without
OpenGL (`app.material.node_previews`); this module draws them.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `app/preview/thumbnails.py`.
"""

from __future__ import annotations

import atexit
import functools
import math
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import shiboken6
from PySide6.QtCore import QObject, QThread, Signal, Slot
from PySide6.QtGui import QImage, QOffscreenSurface, QOpenGLContext

from app.material.graph import MaterialGraph
from app.material.node_previews import MESH, SQUARE, ThumbnailProgram, lower_thumbnails
from app.material.parameters import ParameterKind
from app.preview.camera import OrbitCamera
from app.preview.collection import WindowThreadCollection, window_thread_collection
from app.preview.context import Profile, context_problem, create_context, preview_surface_format
from app.preview.images import rgba_to_qimage
from app.preview.mesh import Mesh, build_mesh, uv_sphere
from app.preview.renderer import ProgramBuildError, Renderer, Tile
from app.preview.stage import Stage
from vpl_core.backends import glsl
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.diagnostics import VplError

_is_valid = cast(Callable[[QObject], bool], shiboken6.isValid)  # shiboken6's untyped helper, typed
_delete = cast(Callable[[QObject], None], shiboken6.delete)  # shiboken6's untyped helper, typed

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
        """Build the thumbnail module's program; raises ProgramBuildError with the driver's log."""
        self.renderer.build_program(artifact)
        self.selector = selector

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


class _Worker(QThread):
    def __init__(self, service: ThumbnailService, surface: QOffscreenSurface, profile: Profile) -> None:
        super().__init__()
        self.service = service
        self.surface = surface
        self.profile = profile
        #: The worker's context, made on the window's thread and moved to this one (`ThumbnailService.start`).
        self.context: QOpenGLContext | None = None
        #: Set by `ThumbnailService.stop`: this worker's own flag, so a worker still ending never takes the
        #: jobs of the one a restarted service made after it.
        self.stopping = threading.Event()

    def run(self) -> None:
        context, self.context = self.context, None
        self.service._run(self.surface, context, self.profile, self.stopping)


class ThumbnailService(QObject):
    """The thumbnail worker thread (module docstring). Create, `start`, `submit`; `stop` before the app quits."""

    rendered = Signal(object)  # ThumbnailBatch
    #: The worker cannot draw at all (no context of the profile): why.
    failed = Signal(str)

    def __init__(self, profile: Profile, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.profile = profile
        self._lock = threading.Condition()
        self._pending: ThumbnailJob | None = None
        self._running_generation: int | None = None
        self._worker: _Worker | None = None
        #: What the running worker leaves to release when it has ended (its surface, its collection hold).
        self._leftover: _Leftover | None = None
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
        """Create the offscreen surface (here, in the UI thread, as Qt requires) and start the worker."""
        if self._worker is not None:
            return
        _reap_ended_workers()
        surface = QOffscreenSurface()
        surface.setFormat(preview_surface_format(self.profile))
        surface.create()
        collection = window_thread_collection()
        collection.hold()  # released when the worker has ended (`_Leftover.release`)
        worker = self._worker = _Worker(self, surface, self.profile)
        # The context is made here and moved to the worker: constructing a QOpenGLContext connects it to its
        # screen, which takes Qt's connection locks while the constructing thread holds the GIL. On the worker
        # that deadlocked with the window's thread, which can hold those locks while it waits for the GIL (a
        # QObject destroyed there calls back into Python).
        context = create_context(self.profile)
        if context is not None:
            context.moveToThread(worker)
        worker.context = context
        leftover = self._leftover = _Leftover(worker, surface, collection)
        _started_services.add(self)
        self.destroyed.connect(functools.partial(_orphaned, leftover, self._lock))
        worker.start()

    def submit(self, job: ThumbnailJob) -> None:
        """Draw `job` next (an older job not yet started is dropped)."""
        if self._worker is None:
            self.start()
        with self._lock:
            self._pending = job
            self._lock.notify_all()

    @property
    def busy(self) -> bool:
        """A job is waiting or being drawn."""
        with self._lock:
            return self._pending is not None or self._running_generation is not None

    def stop(self, timeout_ms: int = 30_000) -> bool:
        """End the worker after the stage it is in; True when it has ended within `timeout_ms` (idempotent).

        Nothing is drawn or emitted after this call. A worker that has not ended in time is kept until it
        does (module docstring): the service can be started again at once, with a new worker.
        """
        worker, leftover = self._worker, self._leftover
        if worker is None or leftover is None:
            return True
        self._worker = self._leftover = None
        with self._lock:
            self._pending = None
        _ask_to_stop(worker, self._lock)
        ended = worker.wait(max(0, timeout_ms))
        if ended:
            leftover.release()
        else:
            _ending.append(leftover)
        return ended

    # ---- the worker thread ------------------------------------------------------------------

    def _take(self, stopping: threading.Event) -> ThumbnailJob | None:
        with self._lock:
            while self._pending is None and not stopping.is_set():
                self._lock.wait()
            if stopping.is_set():
                return None
            job, self._pending = self._pending, None
            assert job is not None  # the loop above waited for one
            self._running_generation = job.generation
            return job

    def _interrupted(self, stopping: threading.Event) -> bool:
        with self._lock:
            return self._pending is not None or stopping.is_set()

    def _done(self, generation: int) -> None:
        with self._lock:
            if self._running_generation == generation:
                self._running_generation = None

    def _run(self, surface: QOffscreenSurface, context: QOpenGLContext | None, profile: Profile,
             stopping: threading.Event) -> None:
        try:
            self._run_in(surface, context, profile, stopping)
        finally:
            if context is not None:
                _delete(context)  # on its own thread, whatever still refers to the wrapper

    def _run_in(self, surface: QOffscreenSurface, context: QOpenGLContext | None, profile: Profile,
                stopping: threading.Event) -> None:
        problem = context_problem(context, profile)
        if not problem and context is not None and not context.makeCurrent(surface):
            problem = "the thumbnails' OpenGL context could not be made current"
        if problem:
            self.problem = problem
            self.failed.emit(problem)
            return
        assert context is not None
        thumbnails = ThumbnailRenderer()
        state = _WorkerState(thumbnails, profile.target, stopping)
        try:
            while (job := self._take(stopping)) is not None:
                try:
                    self._draw(job, state)
                except Exception as error:  # noqa: BLE001 - a failing refresh is shown on the nodes; the thread lives on
                    traceback.print_exc()
                    if not stopping.is_set():
                        self.rendered.emit(ThumbnailBatch(job.generation, {}, {}, None, f"{type(error).__name__}: {error}", True))
                finally:
                    self._done(job.generation)
        finally:
            thumbnails.release()
            context.doneCurrent()

    def _draw(self, job: ThumbnailJob, state: _WorkerState) -> None:
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
            if state.stopping.is_set():  # linking a large module takes the driver long: not for nobody
                state.structure = state.covered = None
                return
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
        if state.stopping.is_set():
            return
        if current is None or state.problem:
            self.rendered.emit(ThumbnailBatch(job.generation, {}, dict(job.fingerprints), current, state.problem, True,
                                              time.perf_counter() - started))
            return
        program = current
        thumbnails = state.thumbnails
        # Every uniform of this module gets a value: one the job does not name takes its default (the checker for
        # a texture), never what an earlier module of the same uniform name left in the renderer.
        specs = program.result.parameters
        thumbnails.set_values({**{spec.name: spec.default for spec in specs
                                  if spec.kind not in (ParameterKind.TEXTURE, ParameterKind.OTHER)}, **job.values})
        thumbnails.set_textures({**{spec.name: None for spec in specs if spec.kind is ParameterKind.TEXTURE},
                                 **job.textures})
        thumbnails.set_stage(Stage.from_dict(job.stage), job.time)
        # The nodes asked for that the module cannot draw (a problem upstream, no preview port after all) are
        # named in the last batch, so the caller marks them (`program.problems` says why) instead of waiting.
        items: list[tuple[str, int]] = []
        undrawable: dict[str, str] = {}
        for node in job.nodes:
            selector = program.selector(node)
            if selector is None:
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
            if state.stopping.is_set():
                return
            interrupted = not last and self._interrupted(state.stopping)
            self.last_seconds["drawing"] = time.perf_counter() - drawing
            fingerprints = {node: job.fingerprints.get(node, "") for node, _ in chunk}
            if last:
                fingerprints.update(undrawable)
            self.rendered.emit(ThumbnailBatch(job.generation, images, fingerprints, program, "", last or interrupted,
                                              time.perf_counter() - started))
            if interrupted:
                return


@dataclass
class _Leftover:
    """What a stopped worker leaves to release on the window's thread once it has ended."""

    worker: _Worker
    surface: QOffscreenSurface | None
    collection: WindowThreadCollection | None

    def release(self) -> None:
        if self.surface is not None:
            self.surface.destroy()  # on the window's thread, as Qt requires
        if self.collection is not None and _is_valid(self.collection):
            self.collection.release()
        self.surface = self.collection = None


#: Stopped workers that had not ended when `stop` returned, oldest first (module docstring).
_ending: list[_Leftover] = []


def _ask_to_stop(worker: _Worker, lock: threading.Condition) -> None:
    """Tell `worker` to end after the stage it is in; once it has, the reaper releases what it leaves."""
    worker.finished.connect(_reaper().reap)  # queued: the reaper lives on the window's thread
    with lock:
        worker.stopping.set()
        lock.notify_all()


def _orphaned(leftover: _Leftover, lock: threading.Condition, *_: object) -> None:
    """The service was destroyed with its parent (a window deleted without closing) and never stopped its
    worker: stop it as `stop(0)` would (the worker keeps the service's Python side; it emits nothing more)."""
    if leftover.worker.stopping.is_set():
        return  # stopped by `stop`, which took care of the rest
    _ask_to_stop(leftover.worker, lock)
    _ending.append(leftover)  # released by the reaper once the worker has ended


class _Reaper(QObject):
    """Receives a stopped worker's `finished` on the window's thread and releases what it leaves."""

    @Slot()
    def reap(self) -> None:
        sender = self.sender()
        if isinstance(sender, QThread):
            sender.wait()  # it emitted `finished` as its last act: this returns at once
        _reap_ended_workers()


_reapers: list[_Reaper] = []


def _reaper() -> _Reaper:
    if not _reapers:
        _reapers.append(_Reaper())  # no parent: it must outlive every window, made on the window's thread
    return _reapers[0]


def _reap_ended_workers() -> None:
    """Release what every stopped worker that has ended leaves (on the window's thread)."""
    for leftover in list(_ending):
        if leftover.worker.isFinished():
            leftover.worker.wait()  # returns at once; makes sure `run` has returned
            _ending.remove(leftover)
            leftover.release()


#: Services whose worker was started: stopped, and their workers waited for, when Python exits.
_started_services: weakref.WeakSet[ThumbnailService] = weakref.WeakSet()


@atexit.register
def _stop_started_services() -> None:
    """A worker thread still running when Python exits would abort it: stop every one left, wait for them."""
    for service in list(_started_services):
        service.stop(0)
    wait_for_ending_workers()


def ending_workers() -> int:
    """Stopped workers still running (tests)."""
    _reap_ended_workers()
    return len(_ending)


def wait_for_ending_workers(timeout_seconds: float | None = None) -> bool:
    """Wait until every stopped worker has ended (True), or `timeout_seconds` (False); on the window's thread.

    The application calls this before it quits: a worker still in a stage of a large graph ends when that
    stage does, and destroying it while it runs would abort the process.
    """
    deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds
    for leftover in list(_ending):
        if deadline is None:
            leftover.worker.wait()
        else:
            leftover.worker.wait(max(0, int((deadline - time.monotonic()) * 1000)))
    _reap_ended_workers()
    return not _ending


@dataclass
class _WorkerState:
    thumbnails: ThumbnailRenderer
    target: str
    stopping: threading.Event
    structure: str | None = None
    #: The nodes the module was lowered for (None: all of the graph's).
    covered: frozenset[str] | None = None
    program: ThumbnailProgram | None = None
    problem: str = ""

    def covers(self, nodes: Sequence[str]) -> bool:
        return self.covered is None or self.covered.issuperset(nodes)


def wait_until(condition: Callable[[], bool], process_events: Callable[[], None], timeout_seconds: float) -> bool:
    """Run `process_events` until `condition()` (True) or the timeout (False): tests and the benchmark."""
    deadline = time.monotonic() + timeout_seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        process_events()
        time.sleep(0.002)
    return True
