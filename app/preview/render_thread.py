"""`RenderThread`: the preview's OpenGL work on a thread of its own, so the window never waits for it.

The widget posts changes (commands taking the `Renderer`, applied in order) and asks for frames; the
thread draws the newest frame into a texture shared with the widget and hands it over. `PostedState`
is the widget's record of the state. Details and reasons: docs/decisions.md, "Module notes".
"""

from __future__ import annotations

import copy
import math
import threading
import time
import traceback
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import shiboken6
from OpenGL import GL
from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QOffscreenSurface, QOpenGLContext, QSurfaceFormat

from app.gui_post import QtThread, gui_post
from app.material.textures import as_rgba_image
from app.preview.preview_state import PreviewState
from app.preview.renderer import Framebuffer, ProgramBuildError, Renderer, clear_pending_errors, refines
from app.preview.texture_passes_gl import EMPTY_SCHEDULE, PassSchedule
from app.session.parameters import ParameterValues
from app.workers import Job, Worker
from vpl_core.backends.glsl.artifact import ProgramArtifact

#: How long creating the thread waits for its context.
START_TIMEOUT_S = 10.0
#: The longest `call` waits for its result (a frame of a heavy material on llvmpipe takes well under a second).
CALL_TIMEOUT_S = 120.0
#: How long `close` waits for the command or frame in progress.
CLOSE_TIMEOUT_S = 60.0
#: Textures frames are drawn into: the one shown, the one handed over, the one being drawn.
FRAME_TEXTURES = 3
#: The longest the thread holds a frame back for the widget to put the previous one on screen (`presented`).
PACE_WAIT_S = 0.1

Command = Callable[[Renderer], object]


@dataclass(frozen=True)
class DraftPolicy:
    """When and how small the render thread draws draft frames (docs/decisions.md, render_thread.py notes).

    `budget_s`: a full frame slower than this makes moving frames drafts; `settle_s`: how long no command
    may be posted before the draft is refined; `motion_s`: a frame for new commands within this of the
    previous such frame counts as motion; `min_scale`: the smallest draft, as a fraction of each side.
    """

    budget_s: float = 1.0 / 30.0
    settle_s: float = 0.1
    motion_s: float = 0.25
    min_scale: float = 0.25
    #: Draft scales are multiples of this (the thread keeps textures per size: few sizes, few reallocations).
    step: float = 0.125

    def scale(self, frame_s: float, scale: float) -> float:
        """The draft scale (of each side) for the next draft, given a frame of `frame_s` drawn at `scale`.

        Frame time is taken as proportional to the pixels drawn (the fragment shader dominates on a
        software rasteriser), aiming at half the budget (the window's copy and composition of the frame
        take their share of it); 1.0 when a full frame fits the budget.
        """
        full_s = frame_s / (scale * scale)
        if full_s <= self.budget_s:
            return 1.0
        wanted = math.sqrt(0.5 * self.budget_s / full_s)
        stepped = math.floor(wanted / self.step) * self.step
        return max(self.min_scale, min(1.0 - self.step, stepped))

    def size(self, full: tuple[int, int], scale: float) -> tuple[int, int]:
        """A draft's size for a full frame of size `full`."""
        return max(1, round(full[0] * scale)), max(1, round(full[1] * scale))

#: shiboken6's untyped helpers, typed: delete a Qt object's C++ side now; whether it still exists.
_delete = cast(Callable[[QObject], None], shiboken6.delete)

#: Render threads still running (weak: a closed thread's renderer is not kept alive). The application's
#: exit closes them with every other worker (`app.workers.close_all`); `close_all` here is for tests.
_running: weakref.WeakSet[RenderThread] = weakref.WeakSet()


def close_all() -> None:
    """Stop every render thread (tests: threads of widgets still waiting for deletion)."""
    for thread in list(_running):
        thread.close()


class RenderThreadUnavailable(RuntimeError):  # noqa: N818 - a condition the widget handles, named for what it means
    """The thread's context could not be created, shared with the widget's, or made current."""


@dataclass(frozen=True)
class Frame:
    """A finished frame: the texture that holds it and its size, the newest program build it shows, its number
    (`serial`, from 1), how many commands had been applied when it was drawn (`commands`: a frame shows
    everything posted while `RenderThread.posted` was at most that) and the size asked for (`full_width`,
    `full_height`: larger than the texture for a draft)."""

    texture: int
    width: int
    height: int
    program: int
    serial: int
    commands: int
    full_width: int = field(default=0)
    full_height: int = field(default=0)
    #: A frame of the refined environment light: its number k (0: a live frame) of `sample_frames`; it shows
    #: the mean of frames 1..k (`Renderer.sample_frame`).
    sample_frame: int = field(default=0)
    sample_frames: int = field(default=0)

    @property
    def asked(self) -> tuple[int, int]:
        """The size the frame was asked for (its own size unless it is a draft)."""
        return (self.full_width or self.width, self.full_height or self.height)

    @property
    def draft(self) -> bool:
        """Drawn at a reduced size while things move; a full-resolution frame follows when they stop."""
        return (self.width, self.height) != self.asked


def _posting(method: Callable[..., None]) -> Callable[..., None]:
    """`PostedState`'s version of a `PreviewState` setter: record here (validating), then post the same call."""
    name = method.__name__

    def posting(self: PostedState, *arguments: Any, **keywords: Any) -> None:
        self._depth += 1
        try:
            method(self, *arguments, **keywords)
        finally:
            self._depth -= 1
        if self._depth == 0:  # a setter calling another (set_ambient -> set_environment_maps) posts once
            self._post(lambda renderer: getattr(renderer, name)(*arguments, **keywords))

    posting.__name__ = name
    posting.__doc__ = method.__doc__
    return posting


class PostedState(PreviewState):
    """The widget's record of the preview state; every change is also posted to the renderer.

    `post` takes a command (a callable taking the `Renderer`): the widget
    hands it to the render thread, or applies it at once when there is none.
    Setter arguments are taken as immutable (images, meshes and environments
    are not changed after they are handed over). The material's values are
    the host's `ParameterValues` snapshot: this record and the renderer hold
    the same object (`set_values`), never a copy. Texture images are
    validated here but kept by the renderer only (this record's `_images`
    stays empty). The camera is this object's; `camera_changed` posts a copy
    of it.
    """

    def __init__(self, post: Callable[[Command], None]) -> None:
        object.__setattr__(self, "_depth", 1)  # assignments made by PreviewState.__init__ are not posted
        super().__init__()
        self._post = post
        self._depth = 0

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if self._depth == 0 and not name.startswith("_"):  # a host assigning public state (the clock's `time`)
            self._post(lambda renderer: setattr(renderer, name, value))

    def camera_changed(self) -> None:
        """The camera was moved (orbit, zoom, reset): the renderer's follows."""
        camera = copy.deepcopy(self.camera)
        self._post(lambda renderer: setattr(renderer, "camera", camera))

    def set_texture(self, name: str, image: np.ndarray | None) -> None:
        """Validated and converted here (`as_rgba_image`), kept by the renderer only: no second copy here."""
        converted = None if image is None else as_rgba_image(image)
        self._post(lambda renderer: renderer.set_texture(name, converted))

    def set_values(self, values: Mapping[str, Any]) -> None:
        """The snapshot is recorded and posted as is (immutable: the renderer holds the same object)."""
        snapshot = values if isinstance(values, ParameterValues) else ParameterValues(values)
        object.__setattr__(self, "parameters", snapshot)
        self._post(lambda renderer: renderer.set_values(snapshot))

    set_mesh = _posting(PreviewState.set_mesh)
    set_background = _posting(PreviewState.set_background)
    set_background_mode = _posting(PreviewState.set_background_mode)
    set_light_direction = _posting(PreviewState.set_light_direction)
    set_light = _posting(PreviewState.set_light)
    set_ambient = _posting(PreviewState.set_ambient)
    set_environment_maps = _posting(PreviewState.set_environment_maps)
    set_brdf_table = _posting(PreviewState.set_brdf_table)
    set_environment_settings = _posting(PreviewState.set_environment_settings)
    set_exposure = _posting(PreviewState.set_exposure)
    set_tone_mapper = _posting(PreviewState.set_tone_mapper)
    set_shadows = _posting(PreviewState.set_shadows)
    set_stage_lights = _posting(PreviewState.set_stage_lights)
    set_camera_home = _posting(PreviewState.set_camera_home)


class RenderThread(QObject):
    """See the module docstring and docs/decisions.md, "Module notes"."""

    #: A `Frame`'s fields (texture, width, height, program, serial, commands, full width, full height, sample frame,
    #: sample frames), delivered on the thread that made this object: plain integers, so the queued call copies C++
    #: values, never a Python object between threads.
    frame_ready: Signal[tuple[int, int, int, int, int, int, int, int, int, int]] = Signal(
        int, int, int, int, int, int, int, int, int, int)
    #: (build serial, "" or the driver's message): a program was built, or failed to build.
    program_built = Signal(int, str)
    #: A command or a frame failed: the message to show.
    failed = Signal(str)

    def __init__(self, renderer: Renderer, share: QOpenGLContext, surface_format: QSurfaceFormat,
                 parent: QObject | None = None, draft: DraftPolicy | None = None) -> None:
        super().__init__(parent)
        self.renderer = renderer
        #: When to draw draft frames (None: always full resolution); read by the thread at each frame.
        self.draft_policy = draft
        self._surface: QOffscreenSurface | None = QOffscreenSurface()  # made on the widget's (GUI) thread, as Qt asks; used by the worker
        self._surface.setFormat(surface_format)
        self._surface.create()
        self._condition = threading.Condition()
        self._commands: deque[Command] = deque()
        self._posted = 0        # commands posted so far
        self._applied = 0       # of which the thread has taken this many (applied before its next frame)
        self._frame_size: tuple[int, int] | None = None
        self._closing = False
        self._idle = threading.Event()
        self._idle.set()
        self._ready = threading.Event()
        self._problem = ""
        #: Textures the widget shows or was handed last: never drawn into (docs/decisions.md, render_thread.py notes).
        self._protected: tuple[int, int] = (0, 0)
        self._program = 0       # the newest build whose program is drawn
        self._frames = 0
        self._presented = 0     # the newest frame's serial the widget has put on screen (`presented`)
        self._unreceived = 0    # frames emitted that the widget has not received yet (queued to it)
        self._changed_at = 0.0  # when the newest command was posted (monotonic)
        self._refine: tuple[int, int] | None = None  # a draft is the newest frame: the full size to draw when still
        self._full_s: float | None = None   # how long the last full-resolution frame took
        self._draft_scale = 1.0             # the next draft's scale (of each side)
        self._motion_frame_at: float | None = None  # when the last frame drawn for new commands started
        self._drawn_commands = 0            # commands applied when the last frame was drawn
        #: Refine a still frame with the refined environment light (docs/lighting.md, "Refined environment
        #: light"): after a full frame, when nothing is posted for the draft policy's settle time, frames
        #: 1..`Renderer.refine_frames` follow, each showing the mean so far; anything posted stops it.
        self.refine = False
        self._refine_next = 0               # the refinement frame to draw when still (0: none)
        self._refine_size: tuple[int, int] | None = None
        self._sampling = 0                  # the frame being drawn is this refinement frame (0: a live one)
        self._converged = threading.Event()  # the newest full frame is refined to the end (`wait_refined`)
        self._job: Job | None = None
        # The context is made here, on the GUI thread, and moved to the worker's thread: constructing it on
        # the worker deadlocks under llvmpipe (docs/decisions.md, "One kind of background work").
        context = QOpenGLContext()
        self._context: QOpenGLContext | None = context
        context.setFormat(surface_format)
        context.setShareContext(share)
        if not context.create() or not QOpenGLContext.areSharing(context, share):
            _delete(context)
            self._context = None
            self._release_surface()
            raise RenderThreadUnavailable("no OpenGL context sharing the preview's objects could be created")
        self._renderer_ready = False
        self._worker: Worker[Any] = Worker(
            "vpl-preview-render", self._deliver, self._on_worker_error, gui_post(), spawn=QtThread,
            setup=self._setup, teardown=self._teardown, interrupt=self._interrupt)
        context.moveToThread(cast(QtThread, self._worker.thread).qthread)
        self._thread = cast(QtThread, self._worker.thread)
        self._worker.submit(self._loop)
        if not self._ready.wait(START_TIMEOUT_S) or self._problem:
            problem = self._problem or "the preview's render thread did not start"
            self.close()
            raise RenderThreadUnavailable(problem)
        _running.add(self)

    # ---- the widget's side ----------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _emit(self, kind: str, *arguments: Any) -> None:
        """On the thread: hand a signal's arguments to the GUI thread (`app.workers`: the one way)."""
        if self._job is not None:
            self._job.emit((kind, arguments))

    def _deliver(self, item: tuple[str, tuple[Any, ...]] | None) -> None:
        """On the GUI thread: emit what the thread handed over (None: the loop's end)."""
        if item is None:
            return
        kind, arguments = item
        if kind == "frame":
            self.frame_ready.emit(*arguments)
        elif kind == "built":
            self.program_built.emit(*arguments)
        elif kind == "failed":
            self.failed.emit(*arguments)

    def _on_worker_error(self, error: BaseException) -> None:
        traceback.print_exception(error)
        self.failed.emit(f"preview: {type(error).__name__}: {error}")

    @property
    def frames_drawn(self) -> int:
        return self._frames

    @property
    def posted(self) -> int:
        """How many commands were posted so far: the first frame whose `Frame.commands` is at least this shows them."""
        return self._posted

    def post(self, command: Command) -> None:
        """Apply `command` to the renderer on the thread, after everything posted before it."""
        with self._condition:
            if self._closing:
                return
            self._commands.append(command)
            self._posted += 1
            self._changed_at = time.monotonic()
            self._refine_next = 0
            self._converged.clear()
            self._idle.clear()
            self._condition.notify()

    def build(self, serial: int, artifact: ProgramArtifact, passes: PassSchedule = EMPTY_SCHEDULE,
              refined: Callable[[], ProgramArtifact | None] | None = None) -> None:
        """Make `artifact` the drawn program (reusing a program of the same code) with its texture `passes`
        and its refined variant's maker `refined` (`Renderer.build_program`); `program_built` says how it went."""

        def build(renderer: Renderer) -> None:
            try:
                renderer.build_program(artifact, passes, refined)
            except ProgramBuildError as error:
                self._emit("built", serial, str(error))
                return
            except Exception as error:  # noqa: BLE001 - a driver/binding problem is this build's failure, reported
                traceback.print_exc()
                self._emit("built", serial, f"preview: {type(error).__name__}: {error}")
                return
            self._program = serial
            self._emit("built", serial, "")

        self.post(build)

    def set_draft_policy(self, policy: DraftPolicy | None) -> None:
        """Draw drafts by `policy` from now on (None: full resolution only); a draft waiting is refined by it."""
        with self._condition:
            self.draft_policy = policy
            self._condition.notify()

    def request_frame(self, width: int, height: int) -> None:
        """Draw a frame of this size once the commands posted so far are applied (requests coalesce)."""
        with self._condition:
            if self._closing:
                return
            self._frame_size = (max(1, int(width)), max(1, int(height)))
            self._refine_next = 0
            self._converged.clear()
            self._idle.clear()
            self._condition.notify()

    def call(self, function: Callable[[Renderer], Any]) -> Any:
        """Run `function(renderer)` on the thread (after everything posted) and return its result; re-raises."""
        future: Future[Any] = Future()

        def run(renderer: Renderer) -> None:
            try:
                future.set_result(function(renderer))
            except BaseException as error:  # noqa: BLE001 - handed to the caller, who re-raises it
                future.set_exception(error)

        if self._closing:
            raise RuntimeError("the preview's render thread has stopped")
        self.post(run)
        return future.result(timeout=CALL_TIMEOUT_S)

    def shown(self, shown: int, handed: int) -> None:
        """The widget shows texture `shown` and was handed `handed` last: neither may be drawn into."""
        with self._condition:
            self._protected = (shown, handed)

    def received(self, frame: Frame, shown: int) -> None:
        """The widget took `frame` (it shows texture `shown` until it paints the new one)."""
        with self._condition:
            self._unreceived = max(0, self._unreceived - 1)
            self._protected = (shown, frame.texture)

    def presented(self, serial: int) -> None:
        """The widget's window has put frame `serial` (and every older one) on screen: the next may be drawn."""
        with self._condition:
            if serial > self._presented:
                self._presented = serial
                self._condition.notify()

    def wait_refined(self, timeout_s: float) -> bool:
        """Wait until the newest full frame is refined to its last frame (benchmarks); False on timeout."""
        return self._converged.wait(timeout_s)

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until every command and frame asked for so far is done; False on timeout."""
        return self._idle.wait(timeout_s)

    @Slot()
    def close(self) -> None:
        """Stop after the current command or frame; the thread releases its GL objects and its context.

        Called on the window's thread (the widget, or its context's `aboutToBeDestroyed`; the application's
        exit closes every worker). Once the thread has ended, the offscreen surface is destroyed here, on
        the thread that created it, as QOffscreenSurface requires.
        """
        _running.discard(self)
        ended = self._worker.close(CLOSE_TIMEOUT_S)
        self._idle.set()
        if not ended or threading.current_thread() is not threading.main_thread():
            return  # still drawing (a driver that hangs): its surface stays; never freed under it
        self._release_surface()

    def _release_surface(self) -> None:
        if self._surface is not None:
            surface, self._surface = self._surface, None
            surface.destroy()
            _delete(surface)

    def _interrupt(self) -> None:
        """The worker is closing (any thread): the loop ends after the command or frame in progress."""
        with self._condition:
            self._closing = True
            self._commands.clear()
            self._frame_size = None
            self._refine = None
            self._condition.notify()

    # ---- the thread -----------------------------------------------------------------------

    def _setup(self) -> None:
        context = self._context
        if context is None or self._surface is None or not context.makeCurrent(self._surface):
            self._problem = "the preview's render context could not be made current"
            self._ready.set()
            raise RenderThreadUnavailable(self._problem)
        try:
            self.renderer.initialize()
        except Exception as error:
            self._problem = f"the preview's renderer could not start: {type(error).__name__}: {error}"
            self._ready.set()
            raise
        self._renderer_ready = True

    def _teardown(self) -> None:
        # The context is this thread's: done and deleted here, explicitly, whatever still refers to its
        # Python wrapper.
        context, self._context = self._context, None
        try:
            if self._renderer_ready:
                clear_pending_errors()
                self.renderer.release()
            if context is not None:
                context.doneCurrent()
        finally:
            if context is not None:
                _delete(context)
            self._ready.set()
            self._idle.set()

    def _loop(self, job: Job) -> None:
        self._job = job
        targets: dict[tuple[int, int], list[Framebuffer]] = {}  # per size: the full one and the draft one
        retired: list[Framebuffer] = []
        try:
            self._ready.set()
            pacing: float | None = None  # while a frame waits for the previous one's presentation: until when
            while True:
                with self._condition:
                    while not self._closing and not self._commands and not self._frame_due(pacing):
                        if self._frame_size is None and self._refine is not None:
                            policy = self.draft_policy
                            still_at = self._changed_at + (policy.settle_s if policy is not None else 0.0)
                            if time.monotonic() >= still_at:  # nothing posted for a while: the full frame
                                self._frame_size, self._refine = self._refine, None
                            else:
                                self._condition.wait(still_at - time.monotonic())
                        elif self._frame_size is None and self._refine_next > 0:
                            # Refining runs in the background: what was asked for is drawn (idle).
                            self._idle.set()
                            policy = self.draft_policy
                            still_at = self._changed_at + (policy.settle_s if policy is not None else DraftPolicy.settle_s)
                            if time.monotonic() >= still_at:
                                self._frame_size, self._sampling, self._refine_next = self._refine_size, self._refine_next, 0
                            else:
                                self._condition.wait(still_at - time.monotonic())
                        elif self._frame_size is None:
                            self._idle.set()
                            self._condition.wait()
                        else:
                            pacing = time.monotonic() + PACE_WAIT_S if pacing is None else pacing
                            self._condition.wait(max(0.0, pacing - time.monotonic()))
                    if self._closing:
                        break
                    commands = list(self._commands)
                    self._commands.clear()
                    self._applied = self._posted
                    size = None
                    if self._frame_due(pacing):
                        size, self._frame_size, pacing = self._frame_size, None, None
                for command in commands:
                    self._apply(command)
                if size is not None:
                    self._draw(size, targets, retired)
        finally:
            self._job = None  # the job refers to this loop: no cycle through this object is left
            clear_pending_errors()
            for framebuffer in [framebuffer for frames in targets.values() for framebuffer in frames] + retired:
                framebuffer.delete()
            self._idle.set()

    def _frame_due(self, pacing: float | None) -> bool:
        """A frame is asked for, and the previous one is on screen or was waited for until `pacing` (under the lock)."""
        return self._frame_size is not None and (
            self._presented >= self._frames or (pacing is not None and time.monotonic() >= pacing))

    def _apply(self, command: Command) -> None:
        try:
            command(self.renderer)
        except Exception as error:  # noqa: BLE001 - reported over the image; the thread must go on
            traceback.print_exc()
            clear_pending_errors()
            self._emit("failed", f"preview: {type(error).__name__}: {error}")

    def _draft_size(self, size: tuple[int, int], applied: int) -> tuple[int, int]:
        """The size to draw a frame asked for at `size`: a draft while things move and full frames are slow."""
        policy = self.draft_policy
        now = time.monotonic()
        changed = applied > self._drawn_commands
        moving = changed and self._motion_frame_at is not None and now - self._motion_frame_at < (
            policy.motion_s if policy is not None else 0.0)
        if changed:
            self._motion_frame_at = now
        self._drawn_commands = applied
        if policy is None or not moving or self._full_s is None or self._full_s <= policy.budget_s:
            return size
        return policy.size(size, self._draft_scale) if self._draft_scale < 1.0 else size

    def _measured(self, size: tuple[int, int], drawn: tuple[int, int], seconds: float) -> None:
        """Record a frame's time: the next draft's scale follows it (see `DraftPolicy.scale`)."""
        policy = self.draft_policy
        if policy is None:
            return
        if drawn == size:
            self._full_s = seconds
            self._draft_scale = policy.scale(seconds, 1.0)
        elif not 0.3 * policy.budget_s <= seconds <= 0.7 * policy.budget_s:  # out of its band: a new scale
            scale = drawn[0] / size[0]
            self._draft_scale = policy.scale(seconds, scale)

    def _draw(self, size: tuple[int, int], targets: dict[tuple[int, int], list[Framebuffer]],
              retired: list[Framebuffer]) -> None:
        with self._condition:
            protected, unreceived, applied = self._protected, self._unreceived, self._applied
            sampling, self._sampling = self._sampling, 0
        drawn = size if sampling else self._draft_size(size, applied)
        for other in [other for other in targets if other not in (size, drawn)]:
            retired.extend(targets.pop(other))
        if not unreceived:  # no frame naming a retired texture is still on its way to the widget
            for framebuffer in [framebuffer for framebuffer in retired if framebuffer.texture not in protected]:
                framebuffer.delete()
                retired.remove(framebuffer)
        try:
            frames = targets.setdefault(drawn, [])
            while len(frames) < FRAME_TEXTURES:
                frames.append(Framebuffer(drawn[0], drawn[1], sampled=True))
            target = next(framebuffer for framebuffer in frames if framebuffer.texture not in protected)
            target.bind()
            started = time.perf_counter()
            # A draft frame draws the texture passes at draft resolution too (`Renderer.drafting`); the full frame
            # that refines it draws them at full size with the values of then.
            self.renderer.drafting = drawn != size
            self.renderer.sample_frame = sampling
            try:
                self.renderer.render(*drawn)
            finally:
                self.renderer.drafting = False
                self.renderer.sample_frame = 0
            GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
            GL.glFinish()
            self._measured(size, drawn, time.perf_counter() - started)
        except Exception as error:  # noqa: BLE001 - a failing frame shows a message, never an exception
            traceback.print_exc()
            clear_pending_errors()
            self._emit("failed", f"preview: {type(error).__name__}: {error}")
            return
        self._frames += 1
        with self._condition:
            self._protected = (self._protected[0], target.texture)
            self._unreceived += 1
            self._refine = size if drawn != size else None
            sample_frames = self.renderer.refine_frames if self.refine and drawn == size and refines(self.renderer) else 0
            converged = False
            if sample_frames and applied == self._posted and self._frame_size is None:
                if sampling < sample_frames:
                    self._refine_next, self._refine_size = sampling + 1, size
                else:
                    converged = True
        self._emit("frame", target.texture, drawn[0], drawn[1], self._program, self._frames, applied, size[0], size[1],
                   sampling, sample_frames)
        if converged:
            self._converged.set()
