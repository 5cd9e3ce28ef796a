"""`PreviewHost`: what the editor window may ask of a preview, as a typed protocol.

The window talks to its preview only through this protocol, never through
`getattr` probes, so any preview (the OpenGL `PreviewWidget`, the
`UnavailablePreview` shown when no context can be made, a CPU fallback)
implements all of it. Every implementation is a QWidget as well (the window
docks it).

Parameter values are not the preview's state: the session's `ParameterModel`
owns them. The host hands the preview the session's immutable snapshot
(`ParameterValues`) with each program (`set_artifact`) and after each change
(`set_values`); the preview draws with that object and keeps no copy, so
nothing it holds can disagree with the model. Texture files are the host's
too: it resolves and reads them (`app.session.textures`) and the snapshot
carries decoded images.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QImage

from app.material.parameters import ParameterSpec
from app.preview.stage import Stage
from app.session.pass_programs import PassPrograms
from vpl_core.backends.glsl.artifact import ProgramArtifact

if TYPE_CHECKING:
    from app.preview.cpu_preview import CpuPreview
    from app.preview.widget import PreviewWidget, UnavailablePreview

#: A preview the window docks: a QWidget that is a `PreviewHost` (`widget.create_preview_widget` makes one).
#: Python has no intersection type, so the implementations are named.
PreviewHostWidget: TypeAlias = "PreviewWidget | CpuPreview | UnavailablePreview"


@runtime_checkable
class PreviewHost(Protocol):
    #: The program was built and is on screen.
    programReady: SignalInstance[tuple[()]]
    #: The program could not be built (driver log, or the host's `show_problem` message).
    programFailed: SignalInstance[tuple[str]]
    #: The context exists; carries `context_description`.
    contextCreated: SignalInstance[tuple[str]]
    #: The animation started or stopped (a call, or a material that uses Time playing by itself).
    playingChanged: SignalInstance[tuple[bool]]
    #: The stage's environment is in use (its name or path) / could not be loaded (why, one line).
    environmentReady: SignalInstance[tuple[str]]
    environmentFailed: SignalInstance[tuple[str]]

    @property
    def target(self) -> str:
        """The GLSL backend target the host must compile for: "glsl420" or "es320"."""

    @property
    def available(self) -> bool:
        """False when the preview cannot draw at all (no context); `unavailable_reason` says why."""

    @property
    def unavailable_reason(self) -> str: ...

    @property
    def context_description(self) -> str:
        """The context as created ("OpenGL 4.5 core (llvmpipe)"), or why there is none."""

    @property
    def gl_strings(self) -> dict[str, str]:
        """GL_VENDOR, GL_RENDERER, GL_VERSION, GL_SHADING_LANGUAGE_VERSION; {} without a context."""

    @property
    def error_text(self) -> str:
        """What the preview shows over a stale image ("" while the shown program is current)."""

    @property
    def playing(self) -> bool: ...

    @property
    def time(self) -> float:
        """The scene time (seconds) the preview shows; known at once (no waiting for a render thread)."""

    def set_artifact(self, artifact: ProgramArtifact, parameters: Sequence[ParameterSpec] | None = None,
                     values: Mapping[str, object] | None = None, passes: PassPrograms | None = None,
                     refined: Callable[[], ProgramArtifact | None] | None = None) -> None:
        """Build `artifact`; `values` (by name; defaults for the rest) for its `parameters`.

        A texture parameter's value is a `TextureImage` (None: the checker texture). `passes`: the
        material's texture passes for this preview's target (`EditorSession.preview_passes`), run
        before it into the buffers its pass samplers read; None when it has none. `refined`: makes
        the material's refined variant (`EditorSession.refined_source`), drawn to refine a still
        frame; a preview that draws no refinement ignores it.
        """

    def show_problem(self, message: str) -> None:
        """No program can be made for this preview: keep the last image and show why."""

    def set_stale(self, reason: str) -> None:
        """The material cannot be built now: keep the last image, visibly marked with `reason` ("" clears it)."""

    @property
    def stale_text(self) -> str:
        """The stale mark's reason ("" while the picture is current)."""

    def set_values(self, values: Mapping[str, object]) -> None:
        """Draw with `values` (by name; the session's `ParameterValues`, kept as given, never copied); no relink.

        A texture parameter's value is a decoded `TextureImage` (None: the
        checker): `image.pixels` is uint8 or float32 RGBA, top row first."""

    @property
    def parameter_values(self) -> Mapping[str, object]:
        """The values the preview draws with: the snapshot it was handed last."""

    def set_mesh(self, name: str) -> None: ...

    def reset_camera(self) -> None: ...

    def set_playing(self, playing: bool) -> None:
        """The user's play/pause; a material that reads Time plays by itself unless paused."""

    def reset_time(self) -> None: ...

    @property
    def stage(self) -> Stage: ...

    @property
    def preparing_environment(self) -> bool:
        """True while the stage's environment is being prepared in a worker thread."""

    def set_stage(self, stage: Stage) -> None:
        """Mesh, environment, light, exposure, tone mapper and background (`app.preview.stage`)."""

    def set_background(self, rgb: Sequence[float]) -> None: ...

    def set_light_direction(self, direction: Sequence[float]) -> None: ...

    def grab_preview(self) -> QImage:
        """The preview's own frame without overlay; a null image when there is none."""

    def grab_shown_frame(self) -> QImage:
        """The frame as the user sees it (error overlay included); a null image when there is none."""
