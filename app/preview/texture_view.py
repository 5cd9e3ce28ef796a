"""The texture view's images: a node's output drawn flat over the UV square, linear, on a worker thread.

The Texture View dock (`app.ui.texture_view`) shows one node's output as a
texture: `TextureViewService` draws it at the view's resolution on a
worker of its own (`app.workers.Worker`, its own OpenGL context, as the
thumbnails' worker), so the window never waits for a draw; a newer request
replaces one not yet drawn and an outdated image is never delivered.

**The seam** (`node_texture`): every image the view shows comes from that
one function, which takes a job and returns float32 RGBA pixels (top row
first, linear, unclamped). Today it lowers the sub-graph feeding the
node's preview port as an exact value (`node_previews.texture_program`)
and draws it over the UV square with the identity camera; a node whose
output *is* a texture of its own (a rendered buffer) returns that image
here instead, and the view, its readout and its tests need no change.

`display_pixels` is what the view paints: the sRGB encoding of the linear
colour clipped to [0, 1] (the encoding `app.material.colors` gives hex
codes), alpha as coverage.
"""

from __future__ import annotations

import functools
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.material.colors import display_hex
from app.material.graph import MaterialGraph
from app.material.lowering import lowering_equivalent
from app.material.node_previews import texture_program
from app.material.parameters import ParameterKind, ParameterSpec
from app.material.texture_passes import has_pass_nodes
from app.preview.context import Profile
from app.preview.gl_worker import NoContextError, start_gl_worker
from app.preview.renderer import ProgramBuildError, Renderer
from app.preview.texture_passes_gl import schedule_for
from app.preview.thumbnails import FlatCamera, square_mesh
from app.session.pass_programs import PassProgramCache, PassPrograms, with_pass_parameters
from app.workers import Job, Worker

#: Sides the view draws at (the dock's resolution menu); the first draw uses `DEFAULT_SIZE`.
SIZES = (256, 512, 1024)
DEFAULT_SIZE = 512


@dataclass(frozen=True)
class TextureViewJob:
    """Draw `node_id` of `graph` at `size` x `size` with these parameter values and images.

    `structure` keys the module: the worker lowers and links again only when
    it differs from the last job's (a parameter value or an image is a
    uniform, set per draw).
    """

    generation: int
    graph: MaterialGraph
    node_id: str
    structure: str
    size: int = DEFAULT_SIZE
    values: Mapping[str, object] = field(default_factory=dict)
    textures: Mapping[str, np.ndarray | None] = field(default_factory=dict)
    time: float = 0.0
    #: How messages name the node ("Checker (n1)"); its id without one.
    label: str = ""


@dataclass(frozen=True)
class TextureImage:
    """A job's image (`linear`, `display`) or why there is none (`problem`)."""

    generation: int
    node_id: str
    #: float32 (size, size, 4), top row first (v = 1 at the top): the node's value, linear and unclamped.
    linear: np.ndarray | None
    #: uint8 (size, size, 4): `display_pixels(linear)`.
    display: np.ndarray | None
    problem: str = ""
    seconds: float = 0.0


def display_pixels(linear: np.ndarray) -> np.ndarray:
    """uint8 RGBA of linear float RGBA: rgb clipped to [0, 1] and sRGB-encoded (IEC 61966-2-1), alpha clipped."""
    clipped = np.clip(np.nan_to_num(linear.astype(np.float64), nan=0.0), 0.0, 1.0)
    rgb = clipped[..., :3]
    encoded = np.where(rgb < 0.0031308, rgb * 12.92, 1.055 * np.power(rgb, 1.0 / 2.4) - 0.055)
    out = np.empty(linear.shape[:2] + (4,), dtype=np.uint8)
    out[..., :3] = np.round(encoded * 255.0).astype(np.uint8)
    out[..., 3] = np.round(clipped[..., 3] * 255.0).astype(np.uint8)
    return out


@dataclass
class _ViewState:
    """The worker's renderer and the module it holds."""

    renderer: Renderer
    target: str
    structure: str | None = None
    parameters: tuple[ParameterSpec, ...] = ()
    problem: str = ""
    textures: dict[str, int] = field(default_factory=dict)
    #: The graph the texture passes were planned for, and its passes (planned again when its lowering changes).
    passes_graph: MaterialGraph | None = None
    passes: PassPrograms | None = None

    def passes_for(self, graph: MaterialGraph) -> PassPrograms | None:
        """`graph`'s texture passes for this context's target (a buffer or filter node shows its buffer)."""
        if self.passes_graph is None or not lowering_equivalent(self.passes_graph, graph):
            self.passes = PassProgramCache.for_graph(graph).get(self.target) if has_pass_nodes(graph) else None
            self.passes_graph = graph
        return self.passes


class TextureUnavailableError(RuntimeError):
    """The node has no image to show: why, in a sentence naming it."""


def node_texture(state: _ViewState, job: TextureViewJob) -> np.ndarray:
    """The seam of the view (module docstring): `job`'s node as float32 RGBA pixels, top row first.

    Raises `TextureUnavailableError` when the node has nothing to show or its module cannot be built.
    """
    renderer = state.renderer
    if job.structure != state.structure:
        state.structure, state.parameters, state.problem = job.structure, (), ""
        state.textures.clear()
        name = job.label or job.node_id
        program = texture_program(job.graph, job.node_id, state.target)
        if program is None:
            state.problem = f"{name} has no output to view"
        elif program.artifact is None:
            state.problem = f"{name} cannot be drawn: {program.problem}"
        else:
            try:
                renderer.build_program(program.artifact, renderer.passes.schedule)  # the passes stay (below)
                state.parameters = program.parameters
            except ProgramBuildError as error:
                state.problem = f"the driver refused the program of {name}: {error}"
    if state.problem:
        raise TextureUnavailableError(state.problem)
    specs = state.parameters
    # The material's texture passes, as the preview runs them: drawn again only when what they read changed.
    passes = state.passes_for(job.graph)
    renderer.initialize()
    try:
        renderer.passes.set_schedule(schedule_for(passes), renderer.is_es)
    except (ValueError, ProgramBuildError) as error:
        raise TextureUnavailableError(f"{job.label or job.node_id} cannot be drawn: texture passes: {error}") from None
    if passes is not None and job.node_id in passes.problems:  # a refused pass node, or one reading it
        raise TextureUnavailableError(f"{job.label or job.node_id} cannot be drawn: {passes.problems[job.node_id]}")
    if passes is not None:
        specs = tuple(with_pass_parameters(specs, passes.plan))
    # Every uniform gets a value: one the job does not name takes its default (the checker for a texture).
    values = {**{spec.name: spec.default for spec in specs if spec.kind not in (ParameterKind.TEXTURE, ParameterKind.OTHER)},
              **{name: value for name, value in job.values.items() if any(spec.name == name for spec in specs)}}
    renderer.set_values(renderer.parameters.replaced(values))
    for spec in specs:
        if spec.kind is ParameterKind.TEXTURE:
            image = job.textures.get(spec.name)
            key = id(image) if image is not None else 0
            if state.textures.get(spec.name) != key:
                state.textures[spec.name] = key
                renderer.set_texture(spec.name, image)
    renderer.time = float(job.time)
    return renderer.render_linear(job.size, job.size)


class TextureViewService(QObject):
    """The texture view's worker (module docstring). Create, `submit`; `stop` before the app quits."""

    rendered = Signal(object)  # TextureImage
    #: The worker cannot draw at all: why.
    failed = Signal(str)

    def __init__(self, profile: Profile, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.profile = profile
        self._worker: Worker[TextureImage | None] | None = None
        self._states: list[_ViewState] = []
        self.problem = ""
        #: Images drawn, modules built, and the thread the last image was drawn on (tests read them).
        self.draws = 0
        self.builds = 0
        self.drawn_on: int | None = None

    def start(self) -> None:
        """Create the surface and the context here (the GUI thread) and start the worker with them.

        As for the thumbnails' worker: a context constructed on the worker deadlocks under llvmpipe.
        """
        if self._worker is not None:
            return
        target = self.profile.target

        def make_state() -> _ViewState:  # on the worker's thread, its context current
            renderer = Renderer()
            renderer.set_mesh(square_mesh())
            renderer.camera = FlatCamera()  # type: ignore[assignment]  # duck-typed: the renderer only asks a camera for its matrices and position
            renderer.set_shadows(False, False, False)
            renderer.set_background_mode("color")
            return _ViewState(renderer, target)

        self._worker, self._states = start_gl_worker(
            self, self.profile, "the texture view's", "vpl-texture-view", make_state,
            lambda state: state.renderer.release(), self._deliver, self._on_error)

    def submit(self, job: TextureViewJob) -> None:
        """Draw `job` next (an older job not yet started is dropped, one being drawn is not delivered)."""
        if self._worker is not None and self._worker.closed:  # closed from outside: `app.workers.close_all`
            self._worker = None
        if self._worker is None:
            self.start()
        assert self._worker is not None
        self._worker.submit(functools.partial(self._run, states=self._states, request=job))

    @property
    def busy(self) -> bool:
        return self._worker is not None and self._worker.busy

    def stop(self, timeout_ms: int = 30_000) -> bool:
        """End the worker; True when it ended within `timeout_ms` (idempotent; nothing is delivered after it)."""
        worker, self._worker = self._worker, None
        if worker is None:
            return True
        return worker.close(max(0, timeout_ms) / 1000.0)

    # ---- the GUI thread ------------------------------------------------------------------------

    def _deliver(self, image: TextureImage | None) -> None:
        if image is not None:
            self.rendered.emit(image)

    def _on_error(self, error: BaseException) -> None:
        if isinstance(error, NoContextError):
            self.problem = str(error)
            self.failed.emit(self.problem)
            return
        traceback.print_exception(error)  # shown in the dock; the worker lives on
        self.rendered.emit(TextureImage(0, "", None, None, f"{type(error).__name__}: {error}"))

    # ---- the worker thread ------------------------------------------------------------------

    def _run(self, work: Job, *, states: list[_ViewState], request: TextureViewJob) -> TextureImage | None:
        started = time.perf_counter()
        self.drawn_on = threading.get_ident()
        state = states[0]
        before = state.structure
        try:
            linear = node_texture(state, request)
        except TextureUnavailableError as error:
            return TextureImage(request.generation, request.node_id, None, None, str(error), time.perf_counter() - started)
        finally:
            if state.structure != before:
                self.builds += 1
        self.draws += 1
        if work.superseded:
            return None
        return TextureImage(request.generation, request.node_id, linear, display_pixels(linear), "",
                            time.perf_counter() - started)


@dataclass(frozen=True)
class Readout:
    """The value of one texel: where it is, its linear value and how the view displays it."""

    #: Column from the left and row from the top of the image.
    x: int
    y: int
    #: Texture coordinates of the texel's centre (v = 0 at the bottom, as the UV square has it).
    u: float
    v: float
    linear: tuple[float, float, float, float]
    #: `display_pixels` of it: sRGB-encoded red, green, blue and alpha in 0-255.
    display: tuple[int, int, int, int]
    #: `#rrggbb` as the editor writes colours (`app.material.colors.display_hex`).
    hex: str

    def text(self) -> str:
        """Three lines for the dock: pixel and UV; linear RGBA; display 0-255, hex and alpha."""
        linear = " ".join(f"{component:.4f}" for component in self.linear)
        display = " ".join(str(component) for component in self.display[:3])
        return (f"pixel   {self.x}, {self.y}   UV {self.u:.4f}, {self.v:.4f}\n"
                f"linear  {linear}\n"
                f"display {display}  {self.hex}  \u03b1 {self.display[3]}")


def readout_at(linear: np.ndarray, x: int, y: int) -> Readout:
    """The readout of texel (`x`, `y`) (column, row from the top) of a `TextureImage.linear`."""
    height, width = linear.shape[:2]
    value = tuple(float(component) for component in linear[y, x, :4])
    shown = display_pixels(linear[y:y + 1, x:x + 1])[0, 0]
    r, g, b, a = (int(component) for component in shown)
    return Readout(x, y, (x + 0.5) / width, 1.0 - (y + 0.5) / height,
                   (value[0], value[1], value[2], value[3]), (r, g, b, a), display_hex(value[:3]))
