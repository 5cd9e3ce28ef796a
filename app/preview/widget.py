"""The preview widget: a thin QOpenGLWidget around `app.preview.renderer.Renderer`.

The widget owns the context, turns mouse input into camera moves, runs
the clock while playing, loads image files for samplers and paints the
error overlay; all GL work is the renderer's. It never lets a driver
failure escape: a program the driver rejects leaves the last good program
on screen, shows the log over it and emits `programFailed`.

Profiles. A widget runs one `app.preview.context.Profile`: desktop OpenGL
4.2 core or OpenGL ES 3.2. Its `target` ("glsl420" / "es320") is the GLSL
backend target hosts must compile the artifacts they hand it for;
`context_description` ("OpenGL 4.5 core (llvmpipe)", "OpenGL ES 3.2
(llvmpipe)") says what was actually created, and `contextCreated` carries it
once the context exists.

Availability. If the context Qt creates does not satisfy the profile,
`available` is False and the widget paints `unavailable_reason` as text.
When no GL context can be created at all, a QOpenGLWidget can take its
whole top-level window down with it on some platforms, so hosts should
build the preview with `create_preview_widget`, which resolves the profile
choice (`--gl` / `VPL_PREVIEW_GL`: desktop, es, auto) and returns an
`UnavailablePreview` (a plain label with the same methods) when no context
of the chosen profile can be made. Both implement `app.preview.host.PreviewHost`,
the only way the window reaches them; parameter values are the host's:
`set_artifact` takes the value of every parameter, nothing is carried over here.

Artifacts set before the widget is first shown are built when its context
exists (in `initializeGL`); `programReady`/`programFailed` come then.

Threads. The renderer runs on the preview's `RenderThread`
(app/preview/render_thread.py), in a context sharing this widget's objects:
every change (a parameter's value, a texture, the stage and its environment,
the clock's time, the camera, a new program) is recorded in the widget's
`PostedState` and posted to the thread, which draws the frames and hands
each finished one over; `paintGL` only copies the newest onto the screen and
paints the overlays. Compiling and linking a program, the driver's first
draw with it and every frame never block the window: while a new program is
built the last frame stays on screen, and `programReady` comes with the
first frame the new program drew (a program the driver rejects keeps the
old image, and `programFailed` says why). What must see the newest state
waits for the thread: `grab_preview`, `grab_shown_frame`,
`finish_rendering` and the `renderer` property (tests and tools; the widget
itself never waits). The preview's clock and stage (`PreviewClock`,
`PreviewStage`) change the `PostedState` as they change any state. With
`VPL_PREVIEW_RENDER_THREAD=0`, or when the thread's context cannot be made,
the widget draws in its own thread (`threaded` says which). Cyclic garbage
is collected on the window's thread only (`vpl_core.collector`).

Draft frames. When full frames are slow (a software rasteriser), the render
thread draws smaller frames while the camera, a value or the stage moves and
the full-resolution frame once they stop (docs/decisions.md, render_thread.py notes, "Draft frames");
the widget scales a draft up and says "Refining…" in the top-right corner
while it shows one (`refining`). `VPL_PREVIEW_DRAFT=0` turns drafts off.
"""

from __future__ import annotations

import os
import sys
import traceback
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRect, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont, QImage, QPainter
from PySide6.QtOpenGLWidgets import QOpenGLWidget
from PySide6.QtWidgets import QLabel, QWidget

from app.gui_post import deliver_posted
from app.material.parameters import ParameterSpec, specs_from_artifact
from app.preview.context import (
    DEFAULT_PROFILE,
    Profile,
    context_problem,
    describe,
    preview_surface_format,
    select_profile,
)
from app.preview.host_support import PreviewHostBase, paint_note
from app.preview.images import rgba_to_qimage
from app.preview.render_thread import (
    Command,
    DraftPolicy,
    Frame,
    PostedState,
    RenderThread,
    RenderThreadUnavailable,
)
from app.preview.renderer import ProgramBuildError, Renderer, clear_pending_errors, gl_strings
from app.preview.stage import Stage
from app.preview.texture_passes_gl import EMPTY_SCHEDULE, PassSchedule, schedule_for
from app.session.parameters import ParameterValues
from app.session.pass_programs import PassPrograms
from app.session.textures import TextureImage
from vpl_core.backends.glsl.artifact import ProgramArtifact

if TYPE_CHECKING:
    from app.preview.camera import OrbitCamera
    from app.preview.cpu_preview import CpuPreview
    from app.preview.preview_state import PreviewState

FRAME_INTERVAL_MS = 33          # ~30 frames per second while playing: enough for a preview, kind to a CPU renderer
#: `VPL_PREVIEW_RENDER_THREAD=0` draws in the window's thread; unset or anything else (the default), in a render thread.
RENDER_THREAD_VARIABLE = "VPL_PREVIEW_RENDER_THREAD"
#: `VPL_PREVIEW_DRAFT=0` draws every frame at full resolution; unset or anything else (the default), frames
#: are drawn smaller while things move when full frames are slow (docs/decisions.md, render_thread.py notes, "Draft frames").
DRAFT_VARIABLE = "VPL_PREVIEW_DRAFT"
#: `VPL_PREVIEW_REFINE=0` keeps the live split-sum frame when still; unset or anything else (the default), a still
#: frame of a Surface Output is refined (docs/lighting.md, "Refined environment light"), "Refining k/N" in the corner.
REFINE_VARIABLE = "VPL_PREVIEW_REFINE"
#: What the corner of the preview says while it shows a draft frame.
REFINING_NOTE = "Refining…"
#: The longest `finish_rendering` waits for the render thread.
RENDER_WAIT_S = 120.0


class PreviewWidget(PreviewHostBase, QOpenGLWidget):
    """Live material preview; see the module docstring for the contract (`PreviewHostBase`: what it shares
    with the CPU preview)."""

    programReady = Signal()
    programFailed = Signal(str)
    #: The context exists: its description ("OpenGL ES 3.2 (llvmpipe)").
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

    def __init__(self, parent: QWidget | None = None, profile: Profile = DEFAULT_PROFILE) -> None:
        super().__init__(parent)
        self._profile = profile
        self._context_description = ""
        self._gl_strings: dict[str, str] = {}
        self.setFormat(preview_surface_format(profile))
        self.setToolTip(f"Material preview ({profile.title})")
        self.setMinimumSize(120, 120)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self._renderer = Renderer()
        # The posted state reaches the widget through a weak reference: the state is the widget's, and a bound method would make the two a reference
        # cycle that only the collector frees (a closed preview and its timers would wait for it).
        widget = weakref.ref(self)

        def post(command: Command) -> None:
            live = widget()
            if live is not None:
                live._post(command)

        self._thread: RenderThread | None = None
        self._build_serial = 0            # the newest program build asked for
        self._building: int | None = None  # its serial until a frame drawn with it (or its failure) arrives
        self._frame: Frame | None = None  # the newest frame the thread handed over
        self._shown_frame: Frame | None = None  # the frame the last paint copied onto the screen
        self._frame_stale = False         # a frame was not asked for while hidden: ask when shown
        self._shown_texture = 0
        self._read_framebuffer = 0        # this context's framebuffer for copying frames onto the screen
        self._last_artifact: ProgramArtifact | None = None  # rebuilt when the context is made again
        self._initialized = False
        self._available = True
        self._unavailable_reason = ""
        self._pending: ProgramArtifact | None = None
        self._schedule: PassSchedule = EMPTY_SCHEDULE  # the texture passes of the artifact being built
        #: Makes the refined variant of the artifact being built (`Renderer.refined_source`); None: none.
        self._refined_source: Callable[[], ProgramArtifact | None] | None = None
        self._error = ""
        # What the widget asked for, posted to the renderer (on the render thread, or at once without one).
        self._posted = PostedState(post)
        self._start_host(self._posted, FRAME_INTERVAL_MS)

    # ---- properties -----------------------------------------------------------------------

    @property
    def context_description(self) -> str:
        """The context as created ("OpenGL 4.5 core (llvmpipe)"); the profile's title until then."""
        return self._context_description or self._profile.title

    @property
    def gl_strings(self) -> dict[str, str]:
        """GL_VENDOR, GL_RENDERER, GL_VERSION, GL_SHADING_LANGUAGE_VERSION of the context; {} until it exists."""
        return dict(self._gl_strings)

    @property
    def available(self) -> bool:
        return self._available

    @property
    def unavailable_reason(self) -> str:
        return self._unavailable_reason

    @property
    def renderer(self) -> Renderer:
        """The renderer, with everything posted so far applied (waits for the render thread: tests and tools)."""
        self.finish_rendering()
        return self._renderer

    @property
    def state(self) -> PreviewState:
        """What the widget asked the renderer to draw with (current at once; the renderer follows)."""
        return self._state

    @property
    def camera(self) -> OrbitCamera:
        """The camera the mouse moves (the renderer draws with a copy of it)."""
        return self._state.camera

    @property
    def shown_frame(self) -> Frame | None:
        """The render thread's frame the last paint showed (None before the first, or without the thread).

        Its `commands` against the thread's `posted` says whether a change posted earlier is on screen
        (tests, benchmarks): it is once `frameSwapped` comes after a paint of a frame with `commands >= posted`.
        """
        return self._shown_frame

    @property
    def refining(self) -> bool:
        """The preview shows a draft frame (drawn smaller while things move); the full one follows when still."""
        return self._thread is not None and self._shown_frame is not None and self._shown_frame.draft

    @property
    def refinement_note(self) -> str:
        """"Refining k/N" while the shown frame is a refinement of the environment light short of its last frame."""
        frame = self._shown_frame if self._thread is not None else None
        if frame is None or not frame.sample_frames or frame.sample_frame >= frame.sample_frames:
            return ""
        return f"Refining {frame.sample_frame}/{frame.sample_frames}"

    @property
    def posted_commands(self) -> int:
        """How many changes were posted to the render thread so far (0 without it)."""
        return self._thread.posted if self._thread is not None else 0

    @property
    def threaded(self) -> bool:
        """Frames are drawn on the render thread (False: in the window's thread, or no context yet)."""
        return self._thread is not None

    def finish_rendering(self, timeout_s: float = RENDER_WAIT_S) -> None:
        """Wait until the render thread has applied everything posted, drawn the frame asked for, and this
        widget has taken it (`programReady`/`programFailed` included); returns at once without a thread."""
        if self._thread is None:
            return
        if self._thread.wait_idle(timeout_s):
            # The thread's signals are queued to this widget: deliver them now, not at the next event loop turn.
            deliver_posted()  # what the thread handed over, through the GUI thread's post

    # ---- the host API ---------------------------------------------------------------------

    def set_artifact(self, artifact: ProgramArtifact, parameters: Sequence[ParameterSpec] | None = None,
                     values: Mapping[str, object] | None = None, passes: PassPrograms | None = None,
                     refined: Callable[[], ProgramArtifact | None] | None = None) -> None:
        """Compile and link `artifact` with `values` (by name) for its parameters, defaults for the rest.

        Texture parameters take a `TextureImage` (None: the checker). The
        preview carries nothing over by itself: the host passes every value
        it wants kept. `passes`: the material's texture passes, compiled for
        this preview's target, drawn into buffers its samplers read
        (app/preview/texture_passes_gl.py). `refined`: makes the material's
        refined variant for this preview's target, called (in the render
        thread) the first time a still frame is refined (None: frames stay live).
        """
        specs = list(parameters) if parameters is not None else specs_from_artifact(artifact)
        try:
            schedule = schedule_for(passes)
        except ValueError as error:
            self._fail(str(error))
            return
        self._take_artifact_values(artifact, specs, values)
        self._schedule = schedule
        self._refined_source = refined
        if not self._initialized:
            self._pending = artifact
            return
        self._build(artifact)

    def show_problem(self, message: str) -> None:
        """No artifact could be made for this preview (e.g. a target error): keep the last image, show why."""
        self._fail(message)

    def _state_changed(self) -> None:
        self.update()  # the change was posted to the renderer, which was asked for a frame (`_post`)

    def _camera_moved(self) -> None:
        self._posted.camera_changed()

    def grab_shown_frame(self) -> QImage:
        """The frame as shown, error overlay included (what `QWidget.grab` misses); null when unavailable."""
        if not self._available:
            return QImage()
        self.finish_rendering()
        return self.grabFramebuffer()

    def grab_preview(self) -> QImage:
        """The preview's own framebuffer (no overlay, no widget chrome) at the widget's pixel size."""
        if not self._initialized:
            self.grabFramebuffer()  # creates the context and runs initializeGL, even while hidden
        if not self._available or not self._initialized:
            return QImage()
        width, height = self._pixel_size()
        if self._thread is not None:
            pixels = self._thread.call(lambda renderer: renderer.render_image(width, height))
            self.finish_rendering()
            return rgba_to_qimage(pixels)
        self.makeCurrent()
        try:
            pixels = self._renderer.render_image(width, height)
        finally:
            self.doneCurrent()
        return rgba_to_qimage(pixels)

    # ---- internals ------------------------------------------------------------------------

    def _post(self, command: Command) -> None:
        """Change the renderer: on the render thread when there is one (a frame is asked for), else now."""
        if self._thread is not None:
            self._thread.post(command)
            self._request_frame()
        else:
            command(self._renderer)  # records only (no GL): safe before the context exists
            self.update()

    def _request_frame(self) -> None:
        if self._thread is None:
            self.update()
        elif self.isVisible() or self._building is not None:
            self._thread.request_frame(*self._pixel_size())
        else:
            self._frame_stale = True  # nobody sees it now; asked for when shown (paintGL)

    def _build(self, artifact: ProgramArtifact) -> None:
        self._last_artifact = artifact
        self._build_serial += 1
        if self._thread is not None:
            # The last frame stays on screen until one drawn with this program arrives (`_on_frame`).
            self._building = self._build_serial
            self._thread.build(self._build_serial, artifact, self._schedule, self._refined_source)
            self._request_frame()
            return
        self.makeCurrent()
        try:
            self._renderer.build_program(artifact, self._schedule, self._refined_source)
        except ProgramBuildError as error:
            self._fail(str(error))
            return
        except Exception as error:  # noqa: BLE001 - a driver/binding problem must not take the editor down
            self._fail(f"preview: {type(error).__name__}: {error}")
            traceback.print_exc()
            return
        finally:
            self.doneCurrent()
        self._error = ""
        self.update()
        self.programReady.emit()

    def _fail(self, message: str) -> None:
        self._error = message
        self.update()
        self.programFailed.emit(message)

    # ---- the render thread ----------------------------------------------------------------

    def _start_thread(self) -> None:
        """Move the drawing to a render thread sharing this context (unless asked not to, or it cannot be made)."""
        if os.environ.get(RENDER_THREAD_VARIABLE, "").strip() == "0":
            return
        context = self.context()
        try:
            # No Qt parent: the thread object outlives a widget Qt deletes first (it closes with the context).
            draft = None if os.environ.get(DRAFT_VARIABLE, "").strip() == "0" else DraftPolicy()
            thread = RenderThread(self._renderer, context, context.format(), draft=draft)
            thread.refine = os.environ.get(REFINE_VARIABLE, "").strip() != "0"
        except RenderThreadUnavailable as error:
            print(f"vpl-editor: the preview draws in the window's thread: {error}", file=sys.stderr)
            return
        # Also when Qt destroys the widget from C++ (its window closed), where `_release_gl`, a Python
        # method of the widget being destroyed, is not called any more: the thread stops and releases.
        context.aboutToBeDestroyed.connect(thread.close, Qt.ConnectionType.DirectConnection)
        thread.frame_ready.connect(self._on_frame)
        self.frameSwapped.connect(self._on_frame_swapped)
        thread.program_built.connect(self._on_program_built)
        thread.failed.connect(self._on_thread_failed)
        self._thread = thread

    # The thread's signals reach these slots queued to this thread; declared as slots (@Slot), so PySide
    # calls them through the class's own meta-object instead of adding slots to it at run time.
    @Slot(int, int, int, int, int, int, int, int, int, int)
    def _on_frame(self, texture: int, width: int, height: int, program: int, serial: int, commands: int,
                  full_width: int, full_height: int, sample_frame: int = 0, sample_frames: int = 0) -> None:
        if self._thread is None:
            return  # a frame of a thread closed since
        frame = Frame(texture, width, height, program, serial, commands, full_width, full_height, sample_frame, sample_frames)
        self._frame = frame
        self._thread.received(frame, self._shown_texture)
        self.update()
        if self._building is not None and frame.program >= self._building:
            # The first frame drawn with the newest program: it replaces the old image now.
            self._building = None
            self._error = ""
            self.programReady.emit()

    @Slot()
    def _on_frame_swapped(self) -> None:
        """The window is composed with the newest frame painted: the thread may draw the next one (pacing)."""
        if self._thread is not None and self._shown_frame is not None:
            self._thread.presented(self._shown_frame.serial)

    @Slot(int, str)
    def _on_program_built(self, serial: int, error: str) -> None:
        if error and serial == self._build_serial:
            self._building = None
            self._fail(error)

    @Slot(str)
    def _on_thread_failed(self, message: str) -> None:
        self._error = message
        self.update()

    def _show_frame(self) -> None:
        """Copy the newest frame the thread handed over onto this widget's framebuffer (scaled while resizing)."""
        from OpenGL import GL

        frame = self._frame
        width, height = self._pixel_size()
        # A draft is smaller on purpose (the thread refines it by itself): only the size it was asked for counts.
        if frame is None or frame.asked != (width, height) or self._frame_stale:
            self._frame_stale = False
            self._request_frame()
        if frame is None:
            red, green, blue = self._state.background
            GL.glClearColor(red, green, blue, 1.0)
            GL.glClear(GL.GL_COLOR_BUFFER_BIT)
            return
        if not self._read_framebuffer:
            self._read_framebuffer = int(GL.glGenFramebuffers(1))
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self._read_framebuffer)
        GL.glFramebufferTexture2D(GL.GL_READ_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, frame.texture, 0)
        GL.glReadBuffer(GL.GL_COLOR_ATTACHMENT0)
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, self.defaultFramebufferObject())
        same_size = (frame.width, frame.height) == (width, height)
        GL.glBlitFramebuffer(0, 0, frame.width, frame.height, 0, 0, width, height, GL.GL_COLOR_BUFFER_BIT,
                             GL.GL_NEAREST if same_size else GL.GL_LINEAR)
        GL.glFramebufferTexture2D(GL.GL_READ_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, 0, 0)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.defaultFramebufferObject())
        GL.glFinish()  # the texture is free for the thread once this widget shows another
        self._shown_texture = frame.texture
        self._shown_frame = frame
        if self._thread is not None:
            self._thread.shown(frame.texture, frame.texture)

    # ---- QOpenGLWidget --------------------------------------------------------------------

    def initializeGL(self) -> None:  # noqa: N802 - Qt override
        problem = context_problem(self.context(), self._profile)
        if problem:
            self._available = False
            self._unavailable_reason = problem
            return
        context = self.context()
        context.aboutToBeDestroyed.connect(self._release_gl)
        self._start_thread()
        if self._thread is None:
            self._renderer.initialize()
        self._initialized = True
        self._gl_strings = gl_strings()
        self._context_description = describe(context, self._gl_strings["renderer"])
        self.setToolTip(f"Material preview ({self._context_description})")
        self.contextCreated.emit(self._context_description)
        self._stage_host.activate()
        if self._pending is None and self._last_artifact is not None:
            self._pending = self._last_artifact  # the context was made again (the dock floated): rebuild
        if self._pending is not None:
            artifact, self._pending = self._pending, None
            # initializeGL runs with the context current; _build makes it current again, harmlessly.
            self._build(artifact)
            self.makeCurrent()

    def _release_gl(self) -> None:
        self.makeCurrent()
        if self._thread is not None:
            thread, self._thread = self._thread, None
            thread.close()  # releases the renderer's objects in its own context
            self._frame = None
            self._shown_frame = None
            self._building = None
            if self._read_framebuffer:
                from OpenGL import GL

                clear_pending_errors()
                GL.glDeleteFramebuffers(1, [self._read_framebuffer])
                self._read_framebuffer = 0
        else:
            self._renderer.release()
        self.doneCurrent()
        self._initialized = False

    def paintGL(self) -> None:  # noqa: N802 - Qt override
        if not self._available:
            self._paint_message(self._unavailable_reason, QColor(235, 235, 235), QColor(60, 60, 60))
            return
        width, height = self._pixel_size()
        try:
            if self._thread is not None:
                clear_pending_errors()
                self._show_frame()
            else:
                self._renderer.render(width, height)
        except Exception as error:  # noqa: BLE001 - a failing frame shows a message, never an exception
            self._error = f"preview: {type(error).__name__}: {error}"
        if self._error:
            self._paint_overlay(self._error)
        elif self._stale:
            self._paint_overlay(self._stale, "Out of date: showing the last version of the material that worked")
        if self._stage_host.note:
            paint_note(self, self._stage_host.note)
        if self.refining:
            paint_note(self, REFINING_NOTE, right=True)
        elif self.refinement_note:
            paint_note(self, self.refinement_note, right=True)

    def _paint_overlay(self, text: str, heading: str = "Shader error: showing the last program that worked") -> None:
        """The driver log over the last good image, in a dark band at the bottom."""
        lines = text.splitlines()
        shown = "\n".join(lines[:8] + (["…"] if len(lines) > 8 else []))
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        heading_font = QFont(self.font())
        heading_font.setPixelSize(13)
        heading_font.setBold(True)
        log_font = QFont("monospace")
        log_font.setStyleHint(QFont.StyleHint.Monospace)
        log_font.setPixelSize(12)
        margin = 8
        text_width = self.width() - 2 * margin
        painter.setFont(heading_font)
        heading_bounds = painter.boundingRect(QRect(0, 0, text_width, self.height()), int(Qt.TextFlag.TextWordWrap), heading)
        painter.setFont(log_font)
        log_bounds = painter.boundingRect(QRect(0, 0, text_width, self.height()), int(Qt.TextFlag.TextWordWrap), shown)
        band_height = min(self.height(), heading_bounds.height() + log_bounds.height() + 3 * margin)
        band = QRect(0, self.height() - band_height, self.width(), band_height)
        painter.fillRect(band, QColor(25, 4, 4, 215))
        painter.setPen(QColor(255, 140, 120))
        painter.setFont(heading_font)
        top = band.top() + margin
        painter.drawText(QRect(margin, top, text_width, heading_bounds.height()), int(Qt.TextFlag.TextWordWrap), heading)
        painter.setPen(QColor(255, 215, 205))
        painter.setFont(log_font)
        top += heading_bounds.height() + margin
        painter.drawText(QRect(margin, top, text_width, band.bottom() - top), int(Qt.TextFlag.TextWordWrap), shown)
        painter.end()

    def _paint_message(self, text: str, foreground: QColor, background: QColor) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), background)
        painter.setPen(foreground)
        painter.drawText(self.rect().adjusted(10, 10, -10, -10),
                         int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap), text)
        painter.end()

class UnavailablePreview(QLabel):
    """Stands in for `PreviewWidget` when no OpenGL context exists: says so, accepts every call."""

    programReady = Signal()
    programFailed = Signal(str)
    contextCreated = Signal(str)
    playingChanged = Signal(bool)
    environmentReady = Signal(str)
    environmentFailed = Signal(str)

    def __init__(self, reason: str, parent: QWidget | None = None, profile: Profile = DEFAULT_PROFILE) -> None:
        super().__init__(reason, parent)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setMinimumSize(120, 120)
        self._reason = reason
        self._profile = profile

    profile = property(lambda self: self._profile)
    target = property(lambda self: self._profile.target)
    context_description = property(lambda self: "off (no OpenGL context)")
    gl_strings = property(lambda self: {})
    available = property(lambda self: False)
    unavailable_reason = property(lambda self: self._reason)
    error_text = property(lambda self: "")
    playing = property(lambda self: False)
    time = property(lambda self: 0.0)
    stage = property(lambda self: Stage())
    preparing_environment = property(lambda self: False)

    def set_artifact(self, artifact: ProgramArtifact, parameters: Sequence[ParameterSpec] | None = None,
                     values: Mapping[str, object] | None = None, passes: PassPrograms | None = None,
                     refined: Callable[[], ProgramArtifact | None] | None = None) -> None:
        pass

    def show_problem(self, message: str) -> None:
        pass

    def set_stale(self, reason: str) -> None:
        pass

    stale_text = property(lambda self: "")

    parameter_values = property(lambda self: ParameterValues())

    def set_values(self, values: Mapping[str, Any]) -> None:
        pass

    def set_parameter(self, name: str, value: Any) -> None:
        pass

    def set_texture(self, name: str, image: TextureImage | None) -> None:
        pass

    def set_mesh(self, name: str) -> None:
        pass

    def reset_camera(self) -> None:
        pass

    def set_playing(self, playing: bool) -> None:
        pass

    def reset_time(self) -> None:
        pass

    def set_stage(self, stage: Stage) -> None:
        pass

    def set_background(self, rgb: Sequence[float]) -> None:
        pass

    def set_light_direction(self, direction: Sequence[float]) -> None:
        pass

    def grab_preview(self) -> QImage:
        return QImage()

    def grab_shown_frame(self) -> QImage:
        return QImage()


def create_preview_widget(parent: QWidget | None = None, choice: str | None = None) -> PreviewWidget | CpuPreview:
    """A `PreviewWidget` of the chosen profile or, when no context of it can be made, the CPU preview.

    `choice` is "desktop", "es" or "auto"; None reads `VPL_PREVIEW_GL` (default auto).
    An invalid value is a ValueError. The `CpuPreview` (app/preview/cpu_preview.py)
    draws the same scene with the VPL interpreter, at a reduced rate, and says why.
    """
    selection = select_profile(choice)
    if selection.problem:
        from app.preview.cpu_preview import CpuPreview  # the interpreter's rasteriser: only without OpenGL

        return CpuPreview(selection.problem, parent, selection.profile)
    return PreviewWidget(parent, selection.profile)
