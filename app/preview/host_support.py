"""What every preview host does the same way, whatever draws: the clock, the stage's environment, the corner note.

The OpenGL `PreviewWidget` and the `CpuPreview` implement the same
`app.preview.host.PreviewHost` protocol over a `PreviewState` (the GL
`Renderer` or the `CpuRenderer`); they differ in how a frame is drawn, not
in how time runs or environments are prepared. Those parts live here once:

- `PreviewClock` advances the state's `time` while playing and says when it
  starts or stops (`playingChanged`). The user's play/pause is remembered:
  a material that reads the time plays by itself when it is set (`follow`)
  unless the user paused. Each preview chooses its frame interval.
- `PreviewStage` applies a stage to the state (`Stage.apply`, a mesh file
  read with `load_stage_mesh`) and puts its environment into it: "none" at
  once (the uniform grey), anything else through
  `app.preview.ibl_assets.PrefilterJob` on an `app.workers.Worker` (cache,
  load, prefilter) while the previous environment stays in use, its progress
  `note` polled every `ENVIRONMENT_POLL_MS`; `ready(name)` or
  `failed(message)` say how it ended. Asking for another environment
  supersedes a job still running (its result is never delivered). Nothing is
  prepared before the preview `activate`s it (a preview never shown never
  spends time on an environment).
- `paint_note` draws a one-line note (the environment's progress or
  problem) in a corner of a preview.
- `PreviewHostBase` is the host API both previews share: the material's
  values, the stage, camera, light, mesh, clock, the stale mark and the
  mouse. Each preview adds only how a change reaches its frames
  (`_state_changed`, `_camera_moved`).
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QElapsedTimer, QObject, QPoint, QRect, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QWidget

from app.material.parameters import ParameterKind, ParameterSpec
from app.preview.context import Profile
from app.preview.preview_state import PreviewState, artifact_reads_scene_field, environment_maps
from app.preview.stage import DEFAULT_AMBIENT_COLOR, NO_ENVIRONMENT, Stage, load_stage_mesh
from app.session.parameters import ParameterValues
from app.session.textures import TextureImage
from app.workers import Job, Worker
from vpl_core.backends.glsl.artifact import ProgramArtifact

ENVIRONMENT_POLL_MS = 50        # how often the progress of an environment being prepared is shown
ORBIT_DEGREES_PER_PIXEL = 0.5   # a mouse drag over a preview turns the object this much per pixel
ZOOM_PER_WHEEL_STEP = 0.9


class PreviewClock(QObject):
    """The scene time of `state` while playing (seconds since play, from where it was paused)."""

    #: Started (True) or stopped (False), by a call or by a material that reads the time.
    playingChanged = Signal(bool)
    #: The time advanced: the preview draws a new frame.
    ticked = Signal()

    def __init__(self, state: PreviewState, interval_ms: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._elapsed = QElapsedTimer()
        self._base = 0.0
        self._paused_by_user = False
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def set_playing(self, playing: bool) -> None:
        """The user's play/pause: pausing keeps a material that reads the time still until play is asked for."""
        self._paused_by_user = not playing
        self._run(playing)

    def follow(self, uses_time: bool) -> None:
        """A new program: play while it reads the time (unless the user paused), stop otherwise."""
        self._run(uses_time and not self._paused_by_user)

    def reset(self) -> None:
        """Time back to 0 (playing or not)."""
        self._state.time = 0.0
        self._base = 0.0
        if self._timer.isActive():
            self._elapsed.start()

    def _run(self, playing: bool) -> None:
        if playing and not self._timer.isActive():
            self._base = self._state.time
            self._elapsed.start()
            self._timer.start()
            self.playingChanged.emit(True)
        elif not playing and self._timer.isActive():
            self._timer.stop()
            self._state.time = self._base + self._elapsed.elapsed() / 1000.0
            self.playingChanged.emit(False)

    def _tick(self) -> None:
        self._state.time = self._base + self._elapsed.elapsed() / 1000.0
        self.ticked.emit()


class PreviewStage(QObject):
    """The stage of a preview and the environment `state` is lit by (see the module docstring)."""

    #: The environment is in use (its name or path).
    ready = Signal(str)
    #: It could not be loaded: one line saying why (the previous one stays in use).
    failed = Signal(str)
    #: `note` changed (progress, a problem, or "" when the environment is in use): repaint.
    noteChanged = Signal()

    def __init__(self, state: PreviewState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._stage = Stage(environment=NO_ENVIRONMENT)
        self._active = False
        self._pending: str | None = None  # asked for before the preview was active
        self._name = NO_ENVIRONMENT  # what the state is lit by, or is being prepared
        self._job: Any = None
        self._worker: Worker[Any] | None = None
        self._note = ""
        self._timer = QTimer(self)
        self._timer.setInterval(ENVIRONMENT_POLL_MS)
        self._timer.timeout.connect(self._poll)

    @property
    def stage(self) -> Stage:
        return self._stage

    def set_stage(self, stage: Stage) -> str:
        """Apply `stage` to the state and ask for its environment; the mesh file's problem ("" when none).

        A mesh file that cannot be read leaves the previous mesh; invalid
        values were refused by `Stage`'s setters already.
        """
        self._stage = stage
        stage.apply(self._state)
        problem = ""
        try:
            mesh = load_stage_mesh(stage.mesh)
        except ValueError as error:
            problem = str(error)
        else:
            if mesh is not None:
                self._state.set_mesh(mesh)
        self.request(stage.environment)
        return problem

    def activate(self) -> None:
        """The preview can draw now: prepare the environment asked for meanwhile."""
        self._active = True
        if self._pending is not None:
            name, self._pending = self._pending, None
            self.request(name)

    @property
    def name(self) -> str:
        return self._name

    @property
    def note(self) -> str:
        """What the preview's corner says about the environment ("" when it is in use)."""
        return self._note

    @property
    def preparing(self) -> bool:
        return self._job is not None

    def request(self, name: str) -> None:
        """Use the stage environment `name` ("none", a bundled name or a file); nothing when it is in use already."""
        if not self._active:
            self._pending = name
            return
        if name == self._name:
            return
        if self._job is not None:
            self._job.cancel()  # the worker stops at its next check; its result is never delivered
            self._job = None
            if self._worker is not None:
                self._worker.cancel()
        self._name = name
        if name == NO_ENVIRONMENT:
            self._timer.stop()
            self._set_note("")
            self._state.set_ambient(DEFAULT_AMBIENT_COLOR)
            self.ready.emit(name)
            return
        try:
            from app.preview.ibl_assets import PrefilterJob
        except ImportError:
            self._fail(f"cannot use the environment {name!r}: image-based lighting is not available")
            return
        job = self._job = PrefilterJob(name)
        if self._worker is None or self._worker.closed:  # closed from outside: `app.workers.close_all`
            from app.gui_post import gui_post

            worker: Worker[Any] = Worker("ibl-prefilter", self._prepared, self._prepare_failed, gui_post())
            self._worker = worker
            self.destroyed.connect(lambda *_: worker.close(0.0))  # a job in progress ends unseen

        def prepare(handle: Job) -> object:
            return job.run(handle)

        self._worker.submit(prepare)
        self._set_note(f"Preparing the environment {_short(name)}…")
        self._timer.start()

    def _poll(self) -> None:
        job = self._job
        if job is None:
            self._timer.stop()
            return
        self._set_note(f"Preparing the environment {_short(self._name)}… {round(100 * job.progress)} %")

    def _prepare_failed(self, error: BaseException) -> None:
        """The newest job failed (on the GUI thread)."""
        self._timer.stop()
        self._job = None
        from app.preview.environment import EnvironmentLoadError
        from app.preview.ibl_assets import PrefilterCancelledError

        if isinstance(error, PrefilterCancelledError):
            return
        if isinstance(error, ImportError):  # a component the IBL code needs is missing from this installation
            self._fail(f"image-based lighting is not available ({error})")
        elif isinstance(error, (EnvironmentLoadError, OSError, ValueError, MemoryError)):
            self._fail(str(error))
        else:  # a bug: shown as the environment's problem, its trace logged
            traceback.print_exception(error)
            self._fail(f"{type(error).__name__}: {error}")

    def _prepared(self, prepared: Any) -> None:
        """The newest job's environment is ready (on the GUI thread)."""
        self._timer.stop()
        self._job = None
        self._state.set_environment_maps(environment_maps(prepared))
        self._state.set_brdf_table(prepared.brdf_lut)
        # What loading changed (replaced NaN texels, a downscaled file) stays in view: the artist should know.
        self._set_note(f"Environment {_short(self._name)}: {'; '.join(prepared.notes)}" if prepared.notes else "")
        self.ready.emit(self._name)

    def _fail(self, message: str) -> None:
        self._set_note(f"Environment: {message}")
        self.failed.emit(message)

    def _set_note(self, note: str) -> None:
        if note != self._note:
            self._note = note
            self.noteChanged.emit()


def _short(name: str) -> str:
    """An environment's name, or a file's base name."""
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def paint_note(widget: QWidget, text: str, top: int = 0, right: bool = False) -> None:
    """A note (one line, wrapped if narrow) in the top-left (`right`: top-right) corner of `widget`, `top` pixels
    down, on a dark band."""
    painter = QPainter(widget)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    font = QFont(widget.font())
    font.setPixelSize(12)
    painter.setFont(font)
    margin = 6
    bounds = painter.boundingRect(QRect(0, 0, widget.width() - 2 * margin, widget.height()), int(Qt.TextFlag.TextWordWrap), text)
    band_width = min(widget.width(), bounds.width() + 2 * margin)
    band = QRect(widget.width() - band_width if right else 0, top, band_width, bounds.height() + 2 * margin)
    painter.fillRect(band, QColor(0, 0, 0, 160))
    painter.setPen(QColor(235, 235, 235))
    painter.drawText(band.adjusted(margin, margin, -margin, -margin), int(Qt.TextFlag.TextWordWrap), text)
    painter.end()


def values_with_defaults(specs: Sequence[ParameterSpec], values: Mapping[str, Any] | None) -> ParameterValues:
    """`values` with each spec's default where it has none (None for a texture: the checker).

    A complete `ParameterValues` (the session's) is returned as is; otherwise the
    defaults are a layer under the values given, which are shared, not copied.
    """
    given = values if values is not None else ParameterValues()
    missing = {spec.name: None if spec.kind is ParameterKind.TEXTURE else spec.default
               for spec in specs if spec.name not in given}
    if not missing and isinstance(given, ParameterValues):
        return given
    return ParameterValues.chain(given, missing)


class PreviewHostBase:
    """The `app.preview.host.PreviewHost` API both previews implement the same way (a mixin before their Qt class).

    Everything is held once, in the preview's `PreviewState` (`_state`): the
    material's values are the snapshot the host handed over (`set_values`;
    the session's `ParameterModel` owns them), the stage's settings, the
    camera, the time. A subclass calls `_start_host` in its constructor and
    says how a change reaches its frames: `_state_changed` (a value, the
    stage, the time) and `_camera_moved`.
    """

    playingChanged: SignalInstance[tuple[bool]]
    environmentReady: SignalInstance[tuple[str]]
    environmentFailed: SignalInstance[tuple[str]]
    stageEdited: SignalInstance[tuple[object]]
    _state: PreviewState
    _profile: Profile
    _error: str

    def _start_host(self, state: PreviewState, frame_interval_ms: int) -> None:
        assert isinstance(self, QWidget)
        self._state = state
        self._stale = ""
        self._drag_origin: QPoint | None = None
        self._dragging = False
        self._clock = PreviewClock(state, frame_interval_ms, self)
        self._clock.playingChanged.connect(self.playingChanged)
        self._stage_host = PreviewStage(state, self)
        self._stage_host.noteChanged.connect(self.update)
        self._stage_host.ready.connect(self._environment_ready)
        self._stage_host.failed.connect(self.environmentFailed)

    # ---- what a preview adds --------------------------------------------------------------

    def _state_changed(self) -> None:
        """A value, the stage or the time changed: draw a new frame."""
        raise NotImplementedError

    def _camera_moved(self) -> None:
        """The camera was orbited, zoomed or reset: draw a new frame."""
        raise NotImplementedError

    def _drag_ended(self) -> None:
        """The orbit drag is over (a preview that draws smaller frames while dragging draws the full one)."""

    def _fail(self, message: str) -> None:
        raise NotImplementedError

    # ---- properties -----------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        return self._profile

    @property
    def target(self) -> str:
        """The GLSL backend target the host compiles for: "glsl420" or "es320"."""
        return self._profile.target

    @property
    def error_text(self) -> str:
        """The overlay's text: the last failure, "" while the shown program is current."""
        return self._error

    @property
    def stale_text(self) -> str:
        """Why the picture is out of date ("" while it shows the current material)."""
        return self._stale

    @property
    def playing(self) -> bool:
        return self._clock.playing

    @property
    def time(self) -> float:
        """The scene time (seconds) of the frames being drawn."""
        return self._state.time

    @property
    def parameter_values(self) -> ParameterValues:
        """The values the preview draws with: the snapshot it was handed (not a copy)."""
        return self._state.parameters

    @property
    def stage(self) -> Stage:
        return self._stage_host.stage

    @property
    def environment_note(self) -> str:
        """What the corner of the preview says about the environment ("" when it is in use)."""
        return self._stage_host.note

    @property
    def preparing_environment(self) -> bool:
        return self._stage_host.preparing

    # ---- the material's values ------------------------------------------------------------

    def _take_artifact_values(self, artifact: ProgramArtifact, specs: Sequence[ParameterSpec],
                              values: Mapping[str, Any] | None) -> None:
        """A new program's values (defaults for the ones not given); play while it reads the time."""
        self._state.set_values(values_with_defaults(specs, values))
        self._clock.follow(artifact_reads_scene_field(artifact, "time"))

    def set_values(self, values: Mapping[str, Any]) -> None:
        """Draw with `values` (by name): the session's snapshot, kept as given; no relink.

        A `TextureImage` value is its sampler's image (None: the checker).
        """
        self._state.set_values(values)
        self._state_changed()

    def set_parameter(self, name: str, value: Any) -> None:
        """One value changed, for a preview driven without a session (tests, tools): a new snapshot with it."""
        self.set_values(self._state.parameters.replaced({name: value}))

    def set_texture(self, name: str, image: TextureImage | None) -> None:
        """The image for sampler `name` (None: the checker), for a preview driven without a session."""
        self.set_parameter(name, image)

    def set_stale(self, reason: str) -> None:
        """The material cannot be built now: keep the last image, marked with `reason` ("" clears the mark)."""
        if reason != self._stale:
            self._stale = reason
            self._widget().update()

    # ---- the stage, camera and clock ------------------------------------------------------

    def set_stage(self, stage: Stage) -> None:
        """Mesh, environment, light, exposure, tone mapper and background from `stage`; no relink.

        A new environment is prepared (loaded, taken from the cache or
        prefiltered) in a worker thread while the previous one stays in use;
        progress shows in a corner of the preview, `environmentReady` or
        `environmentFailed` says how it ended. A mesh file that cannot be
        read leaves the previous mesh (and says why in the overlay); invalid
        values were refused by `Stage`'s setters already.
        """
        problem = self._stage_host.set_stage(stage)
        if problem:
            self._fail(problem)
        self._state_changed()

    def _environment_ready(self, name: str) -> None:
        self._state_changed()
        self.environmentReady.emit(name)

    def set_mesh(self, name: str) -> None:
        self._state.set_mesh(name)
        self._state_changed()

    def set_background(self, rgb: Sequence[float]) -> None:
        self._state.set_background(rgb)
        self._state_changed()

    def set_light_direction(self, direction: Sequence[float]) -> None:
        """Unit vector from the surface towards the light, in world space (normalised here).

        A zero or malformed vector is ignored: the light keeps its direction.
        """
        try:
            self._state.set_light_direction(direction)
        except (TypeError, ValueError):
            return
        self._state_changed()

    def reset_camera(self) -> None:
        self._state.camera.reset()
        self._camera_moved()

    def set_playing(self, playing: bool) -> None:
        """Animate `time` (seconds) while playing; pausing freezes it where it is.

        A call is the user's choice: pausing keeps a material that reads the
        time still until play is asked for again.
        """
        self._clock.set_playing(playing)

    def reset_time(self) -> None:
        """Time back to 0 (playing or not)."""
        self._clock.reset()
        self._state_changed()

    def _widget(self) -> QWidget:
        assert isinstance(self, QWidget)
        return self

    def _pixel_size(self) -> tuple[int, int]:
        widget = self._widget()
        ratio = widget.devicePixelRatioF()
        return max(1, round(widget.width() * ratio)), max(1, round(widget.height() * ratio))

    # ---- mouse: orbit (drag), zoom (wheel), home (double click) ---------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_origin = event.position().toPoint()
        QWidget.mousePressEvent(self._widget(), event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._drag_origin is not None and event.buttons() & Qt.MouseButton.LeftButton:
            position = event.position().toPoint()
            delta = position - self._drag_origin
            self._drag_origin = position
            modifiers = event.modifiers()
            if modifiers & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier):
                # Ctrl-drag moves the key light, Shift-drag turns the environment (as in Substance Painter).
                stage = copy.deepcopy(self.stage)
                if modifiers & Qt.KeyboardModifier.ControlModifier:
                    stage.drag_light(delta.x(), delta.y())
                else:
                    stage.drag_environment(delta.x())
                self.set_stage(stage)
                self.stageEdited.emit(stage)
                QWidget.mouseMoveEvent(self._widget(), event)
                return
            self._dragging = True
            # Dragging right turns the object right, i.e. the camera left around it.
            self._state.camera.orbit(-delta.x() * ORBIT_DEGREES_PER_PIXEL, delta.y() * ORBIT_DEGREES_PER_PIXEL)
            self._camera_moved()
        QWidget.mouseMoveEvent(self._widget(), event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_origin = None
            if self._dragging:
                self._dragging = False
                self._drag_ended()
        QWidget.mouseReleaseEvent(self._widget(), event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        self.reset_camera()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        steps = event.angleDelta().y() / 120.0
        if steps:
            self._state.camera.zoom(ZOOM_PER_WHEEL_STEP ** steps)
            self._camera_moved()
        event.accept()
