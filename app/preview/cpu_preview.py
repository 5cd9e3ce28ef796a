"""The CPU preview: the editor's preview drawn by the VPL interpreter when no OpenGL context can be made.

`create_preview_widget` returns a `CpuPreview` instead of the OpenGL
`PreviewWidget` when the chosen profile cannot be created (no GPU, no GL
driver, a remote session). It implements the same `app.preview.host.PreviewHost`
protocol, so the window drives it exactly like the GL preview, and draws
the same scene (`app.preview.cpu_renderer.CpuRenderer`: same mesh, camera,
light, parameters and textures) with `vpl_core.interp` instead of a driver.

Because the CPU is slower, it works at a reduced rate and resolution, and
says so:

- frames are rendered at most `MAX_SIDE` pixels on the longer side (half
  that while the camera is being dragged) and scaled up to the widget;
- changes are coalesced: a frame is rendered `SETTLE_MS` after the last
  change, on an `app.workers.Worker`, so the editor stays responsive while the
  interpreter works (0.1-0.5 s for the shipped examples at 256x256): the
  state is taken on the GUI thread (`CpuRenderer.frame`), drawn in the
  worker, and shown when it is done; changes made meanwhile are drawn
  next, in one frame;
- while playing, `time` advances at `PLAY_INTERVAL_MS` (4 frames per second
  instead of the GL preview's 30); as in the GL preview, a material that
  reads the time plays by itself unless the user paused
  (`host_support.PreviewClock`);
- a banner at the top says "CPU preview (no OpenGL)" with the reason in its
  tooltip, and `context_description` (the status bar's "Preview: ...")
  says the same.

The stage (`set_stage`: mesh, environment, background, exposure, tone
mapper, light) is applied to the renderer as the GL preview applies it;
the environment is prepared in a worker thread while the previous one
stays in use (`host_support.PreviewStage`), its progress shown in a
corner under the banner.

The widget takes the module from the artifact it is given
(`ProgramArtifact.source`, the `VerifiedModule` the backend compiled): the
interpreter runs verified modules, never GLSL. A module it cannot run, or
a frame that fails, leaves the last image on screen with the message over
it and emits `programFailed`, as the GL preview does with a driver error.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPaintEvent, QShowEvent
from PySide6.QtWidgets import QWidget

from app.gui_post import gui_post
from app.material.parameters import ParameterSpec, specs_from_artifact
from app.preview.context import DEFAULT_PROFILE, Profile
from app.preview.cpu_passes import pass_textures, run_plan_cpu
from app.preview.cpu_renderer import CpuRenderer
from app.preview.host_support import PreviewHostBase, paint_note
from app.preview.images import rgba_to_qimage
from app.session.parameters import ParameterValues
from app.session.pass_programs import PassPrograms
from app.workers import Worker
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.interp import InterpreterError
from vpl_core.publish import VerifiedModule

MAX_SIDE = 256              # longest side of a rendered frame, in pixels
DRAG_SIDE = 128             # while the camera is being dragged
SETTLE_MS = 60              # a frame is rendered this long after the last change
PLAY_INTERVAL_MS = 250      # `time` steps while playing: 4 frames per second
#: Block executions a stage may take per frame before the preview gives up (a runaway loop).
STEP_LIMIT = 20_000
NOTICE = "CPU preview (no OpenGL): reduced rate"
NOTICE_HEIGHT = 20          # pixels of the banner at the top


class CpuPreview(PreviewHostBase, QWidget):
    """The preview on the CPU; see the module docstring. `reason` says why there is no OpenGL context.

    `PreviewHostBase` is what it shares with the OpenGL preview."""

    programReady = Signal()
    programFailed = Signal(str)
    contextCreated = Signal(str)
    #: The animation started (True) or stopped (False), by a call or by a material that uses Time.
    playingChanged = Signal(bool)
    #: The stage's environment is prepared and in use (its name or path).
    environmentReady = Signal(str)
    #: The stage's environment could not be loaded: one line saying why (the previous one stays).
    environmentFailed = Signal(str)
    #: The stage was changed on the preview itself (Ctrl-drag: the key light; Shift-drag: the environment's
    #: rotation): carries the new Stage, already applied; the toolbar shows and keeps it.
    stageEdited = Signal(object)

    def __init__(self, reason: str = "", parent: QWidget | None = None, profile: Profile = DEFAULT_PROFILE) -> None:
        super().__init__(parent)
        self._reason = reason
        self._profile = profile
        self._renderer = CpuRenderer()
        self._frame = QImage()
        self._error = ""
        self._frame_failed = False
        self._announced = False
        self.frames_rendered = 0
        self.setMinimumSize(120, 120)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setToolTip(f"Material preview on the CPU: no OpenGL context ({reason or 'none could be created'}). "
                        "Drawn by the VPL interpreter at a reduced rate and resolution.")
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._render_frame)
        # Frames are drawn on this worker; only the newest one submitted is shown (`app.workers`).
        worker: Worker[Any] = Worker("cpu-preview", self._frame_drawn, self._frame_error, gui_post())
        self._worker = worker
        self._drawing: int | None = None  # the ticket of the frame being drawn
        self._redraw = False
        self._generation = 0  # counts programs, so a frame of a replaced one is not shown
        #: The material's texture passes, and the (passes, values) the renderer's pass buffers were made with.
        self._passes: PassPrograms | None = None
        self._pass_textures_made: tuple[PassPrograms, ParameterValues] | None = None
        self._drawing_generation = 0
        self.destroyed.connect(lambda *_: worker.close(0.0))  # a frame in progress ends unseen
        self._start_host(self._renderer, PLAY_INTERVAL_MS)
        self._clock.ticked.connect(self._request_frame)

    # ---- PreviewHost properties ---------------------------------------------------------------

    @property
    def available(self) -> bool:
        return True

    @property
    def unavailable_reason(self) -> str:
        return ""

    @property
    def no_context_reason(self) -> str:
        """Why there is no OpenGL context (the reason this preview runs on the CPU)."""
        return self._reason

    @property
    def context_description(self) -> str:
        return "CPU interpreter (no OpenGL context)"

    @property
    def gl_strings(self) -> dict[str, str]:
        return {}

    @property
    def renderer(self) -> CpuRenderer:
        return self._renderer

    # ---- the host API ---------------------------------------------------------------------------

    def set_artifact(self, artifact: ProgramArtifact, parameters: Sequence[ParameterSpec] | None = None,
                     values: Mapping[str, object] | None = None, passes: PassPrograms | None = None,
                     refined: Callable[[], ProgramArtifact | None] | None = None) -> None:
        """Run the module `artifact` was compiled from, with `values` (by name) for its parameters.

        `passes`: the material's texture passes, run on the interpreter before it (`app.preview.cpu_passes`).
        `refined` is not used: the interpreter draws no refinement (`CpuRenderer.render_final`).
        """
        if passes is not None and not passes.ok:
            self._fail(f"CPU preview: {passes.problem}")
            return
        self._passes = passes
        self._pass_textures_made = None
        self._renderer.set_pass_textures({})
        specs = list(parameters) if parameters is not None else specs_from_artifact(artifact)
        self._take_artifact_values(artifact, specs, values)
        source = artifact.source
        if not isinstance(source, VerifiedModule):
            self._fail("CPU preview: this program came without its verified module; nothing to run")
            return
        self._generation += 1
        try:
            self._renderer.set_program(source)
        except (InterpreterError, ValueError, TypeError) as error:
            self._fail(f"CPU preview: {error}")
            return
        self._error = ""
        self._frame_failed = False
        self.programReady.emit()
        self._request_frame()

    def show_problem(self, message: str) -> None:
        self._fail(message)

    def _state_changed(self) -> None:
        self._request_frame()

    def _camera_moved(self) -> None:
        self._request_frame()

    def _drag_ended(self) -> None:
        self._request_frame()  # the full-resolution frame

    def grab_preview(self) -> QImage:
        """A frame at the widget's full pixel size (not reduced), without notice or overlay."""
        if self._renderer.program is None:
            return QImage()
        width, height = self._pixel_size()
        try:
            self._run_passes_now()
            return rgba_to_qimage(self._renderer.render_image(width, height))
        except (InterpreterError, ValueError) as error:
            self._fail(f"CPU preview: {error}")
            return QImage()

    def grab_shown_frame(self) -> QImage:
        """What the widget shows: the scaled frame, the notice and any error."""
        return self.grab().toImage()

    def render_now(self) -> None:
        """Render the pending frame at once, in the calling thread (tests, screenshots)."""
        self._settle.stop()
        if self._renderer.program is None:
            self.update()
            return
        width, height = self.frame_size()
        try:
            self._run_passes_now()
            pixels = self._renderer.render_image(width, height, step_limit=STEP_LIMIT)
        except (InterpreterError, ValueError) as error:
            self._fail(f"CPU preview: {error}", frame=True)
            return
        self._show(pixels)

    @property
    def shown_frame(self) -> QImage:
        """The last frame drawn, at its reduced size, before it is scaled to the widget (null before the first)."""
        return QImage(self._frame)

    @property
    def drawing(self) -> bool:
        """Whether a frame is being drawn in the worker thread."""
        return self._drawing is not None

    @property
    def frame_owed(self) -> bool:
        """Whether a change came while a frame was being drawn: one more frame follows that one."""
        return self._redraw

    @property
    def frame_requested(self) -> bool:
        """Whether a frame is asked for and not started yet (its settle delay runs, or one is owed)."""
        return self._settle.isActive() or self._redraw

    # ---- rendering ------------------------------------------------------------------------------

    def frame_size(self) -> tuple[int, int]:
        """The reduced size frames are rendered at: the widget's aspect, the longer side at most MAX_SIDE."""
        width, height = self._pixel_size()
        limit = DRAG_SIDE if self._dragging else MAX_SIDE
        scale = min(1.0, limit / max(width, height))
        return max(1, round(width * scale)), max(1, round(height * scale))

    def _request_frame(self) -> None:
        if not self._settle.isActive():
            self._settle.start()

    def _render_frame(self) -> None:
        """Take the state and draw it in the worker (or once the frame in progress is done)."""
        if self._renderer.program is None:
            self.update()
            return
        if self._drawing is not None and self._drawing_generation == self._generation:
            self._redraw = True  # drawn once the frame in progress is shown
            return
        width, height = self.frame_size()
        try:
            frame = self._renderer.frame(width, height)
        except (InterpreterError, ValueError) as error:
            self._fail(f"CPU preview: {error}", frame=True)
            return
        # A frame of a replaced program still being drawn is superseded: its pixels are never delivered.
        self._drawing_generation = self._generation
        if self._worker.closed:  # closed from outside (`app.workers.close_all`): a new one
            worker: Worker[Any] = Worker("cpu-preview", self._frame_drawn, self._frame_error, gui_post())
            self._worker = worker
            self.destroyed.connect(lambda *_: worker.close(0.0))
        passes, values = self._passes, self._renderer.parameters
        if passes is None or not self._passes_stale():
            self._drawing = self._worker.submit(lambda _job: (frame.draw_image(step_limit=STEP_LIMIT), None))
            return

        def draw_with_passes(_job: Any) -> tuple[Any, tuple[Any, Any, dict[str, Any]]]:
            # The texture passes first, in plan order (app/preview/cpu_passes.py), into the buffers the material
            # samples; again only when the plan or the values changed since they were last run.
            textures = pass_textures(passes.plan, run_plan_cpu(passes.plan, values))
            frame.uniforms.update({name: texture for name, texture in textures.items() if name in frame.uniforms})
            return frame.draw_image(step_limit=STEP_LIMIT), (passes, values, textures)

        self._drawing = self._worker.submit(draw_with_passes)

    def _passes_stale(self) -> bool:
        """Whether the pass buffers the renderer samples were made for another plan, or with other values of a
        parameter a pass reads (a value downstream of every buffer runs no pass)."""
        passes, made = self._passes, self._pass_textures_made
        if passes is None:
            return False
        if made is None or made[0] is not passes:
            return True
        read = {spec.name for each in passes.plan.passes for spec in each.parameters}
        return bool(read & self._renderer.parameters.changed_names(made[1]))

    def _run_passes_now(self) -> None:
        """Run stale texture passes in the calling thread (a frame drawn at once: tests, screenshots)."""
        if self._passes is not None and self._passes_stale():
            values = self._renderer.parameters
            self._renderer.set_pass_textures(pass_textures(self._passes.plan, run_plan_cpu(self._passes.plan, values)),
                                             self._passes.plan.displacement)
            self._pass_textures_made = (self._passes, values)

    def _frame_drawn(self, drawn: Any) -> None:
        """The newest frame is drawn (on the GUI thread), with the pass buffers it made, if any."""
        self._drawing = None
        pixels, made = drawn
        if made is not None and self._passes is not None and made[0] is self._passes:
            self._pass_textures_made = (self._passes, made[1])
            self._renderer.set_pass_textures(made[2], self._passes.plan.displacement)
        self._show(pixels)
        self._after_frame()

    def _frame_error(self, error: BaseException) -> None:
        self._drawing = None
        if not isinstance(error, (InterpreterError, ValueError)):  # an interpreter bug: shown, and its trace logged
            traceback.print_exception(error)
            self._fail(f"CPU preview: {type(error).__name__}: {error}", frame=True)
        else:
            self._fail(f"CPU preview: {error}", frame=True)
        self._after_frame()

    def _after_frame(self) -> None:
        if self._redraw:
            self._redraw = False
            self._render_frame()

    def _show(self, pixels: Any) -> None:
        self._frame = rgba_to_qimage(pixels)
        self.frames_rendered += 1
        if self._frame_failed:
            # The frame works again; a host's problem (show_problem) stays until the next program.
            self._error = ""
            self._frame_failed = False
        self.update()

    def _fail(self, message: str, *, frame: bool = False) -> None:
        self._error = message
        self._frame_failed = frame
        self.update()
        self.programFailed.emit(message)

    # ---- painting -------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._announced:
            self._announced = True
            self.contextCreated.emit(self.context_description)
            self._stage_host.activate()
        self._request_frame()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._request_frame()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        background = QColor.fromRgbF(*self._renderer.background)
        painter.fillRect(self.rect(), background)
        if not self._frame.isNull():
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(self.rect(), self._frame)
        self._paint_notice(painter)
        if self._error:
            self._paint_error(painter, self._error)
        elif self._stale:
            self._paint_error(painter, f"Out of date: showing the last version of the material that worked\n{self._stale}")
        painter.end()
        if self._stage_host.note:
            paint_note(self, self._stage_host.note, top=NOTICE_HEIGHT)

    def _paint_notice(self, painter: QPainter) -> None:
        font = QFont(self.font())
        font.setPixelSize(12)
        painter.setFont(font)
        band = QRect(0, 0, self.width(), NOTICE_HEIGHT)
        painter.fillRect(band, QColor(20, 20, 24, 190))
        painter.setPen(QColor(235, 215, 140))
        painter.drawText(band.adjusted(8, 0, -8, 0), int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), NOTICE)

    def _paint_error(self, painter: QPainter, text: str) -> None:
        lines = text.splitlines()
        shown = "\n".join(lines[:8] + (["…"] if len(lines) > 8 else []))
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        font.setPixelSize(12)
        painter.setFont(font)
        margin = 8
        bounds = painter.boundingRect(QRect(0, 0, self.width() - 2 * margin, self.height()), int(Qt.TextFlag.TextWordWrap), shown)
        band = QRect(0, self.height() - bounds.height() - 2 * margin, self.width(), bounds.height() + 2 * margin)
        painter.fillRect(band, QColor(25, 4, 4, 215))
        painter.setPen(QColor(255, 215, 205))
        painter.drawText(band.adjusted(margin, margin, -margin, -margin), int(Qt.TextFlag.TextWordWrap), shown)

