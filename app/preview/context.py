"""The one place that decides which OpenGL context the preview asks for.

Two profiles:

- `Profile.DESKTOP`: OpenGL 4.2 core (or newer), programs compiled for the
  backend's `glsl420` target;
- `Profile.ES`: OpenGL ES 3.2, programs compiled for `es320`.

The user picks one with a *choice*: `desktop`, `es` or `auto` (desktop when
a 4.2 core context can be created, else ES 3.2). `choose` reads it from the
command line (`vpl-editor --gl ...`, which wins) or the `VPL_PREVIEW_GL`
environment variable; `select_profile` turns it into a profile, probing
context creation for `auto`.

Every context the preview creates (the widget's, the screenshot's offscreen
one, the probes) takes its format from `preview_surface_format` and is
judged by `context_problem`; probes and offscreen contexts are created by
`create_context`, which tests replace to simulate a machine without
desktop OpenGL.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from PySide6.QtGui import QOffscreenSurface, QOpenGLContext, QSurfaceFormat


class Profile(enum.Enum):
    DESKTOP = "desktop"   # OpenGL 4.2 core; the backend's glsl420 target
    ES = "es"             # OpenGL ES 3.2; the backend's es320 target

    @property
    def target(self) -> str:
        """The GLSL backend target whose artifacts this profile's contexts run."""
        return "es320" if self is Profile.ES else "glsl420"

    @property
    def title(self) -> str:
        """What the profile asks for, as shown before a context exists."""
        return "OpenGL ES 3.2" if self is Profile.ES else "OpenGL 4.2 core"

    @property
    def required_version(self) -> tuple[int, int]:
        return (3, 2) if self is Profile.ES else (4, 2)


DEFAULT_PROFILE = Profile.DESKTOP

#: The values of `--gl` and `VPL_PREVIEW_GL`.
CHOICES = ("desktop", "es", "auto")
DEFAULT_CHOICE = "auto"
ENVIRONMENT_VARIABLE = "VPL_PREVIEW_GL"


def choose(command_line: str | None = None, environment: Mapping[str, str] | None = None) -> str:
    """The profile choice: the command line's when given, else `VPL_PREVIEW_GL`, else "auto".

    Raises ValueError naming the source for a value that is not one of `CHOICES`.
    """
    if command_line is not None:
        value, source = command_line, "--gl"
    else:
        environment = os.environ if environment is None else environment
        value, source = environment.get(ENVIRONMENT_VARIABLE, ""), ENVIRONMENT_VARIABLE
        if not value.strip():
            return DEFAULT_CHOICE
    normalized = value.strip().lower()
    if normalized not in CHOICES:
        raise ValueError(f"{source} must be one of {', '.join(CHOICES)}, not {value!r}")
    return normalized


def preview_surface_format(profile: Profile = DEFAULT_PROFILE) -> QSurfaceFormat:
    """The surface format to request for `profile` (depth buffer, no multisampling, so pixels are exact)."""
    surface_format = QSurfaceFormat()
    if profile is Profile.ES:
        surface_format.setRenderableType(QSurfaceFormat.RenderableType.OpenGLES)
        surface_format.setVersion(3, 2)
    else:
        surface_format.setRenderableType(QSurfaceFormat.RenderableType.OpenGL)
        surface_format.setVersion(4, 2)
        surface_format.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    surface_format.setDepthBufferSize(24)
    surface_format.setSamples(0)
    return surface_format


PYOPENGL_PLATFORM = "PYOPENGL_PLATFORM"


def pyopengl_platform(qt_platform: str, environment: Mapping[str, str] | None = None) -> str | None:
    """PyOpenGL's name ("glx", "egl") for the window-system API Qt's contexts use on `qt_platform`; None if unknown."""
    environment = os.environ if environment is None else environment
    name = qt_platform.strip().lower()
    if name == "xcb":
        integration = environment.get("QT_XCB_GL_INTEGRATION", "").strip().lower()
        return "egl" if integration == "xcb_egl" else "glx"
    if name.startswith("wayland") or name in ("eglfs", "minimalegl"):
        return "egl"
    return None


def align_pyopengl_platform(qt_platform: str, environment: MutableMapping[str, str] | None = None) -> str | None:
    """Make PyOpenGL bind the same window-system API (GLX or EGL) as Qt's contexts; returns the choice.

    PyOpenGL picks GLX or EGL once, when `OpenGL` is first imported, from
    PYOPENGL_PLATFORM, else from XDG_SESSION_TYPE and WAYLAND_DISPLAY; Qt
    picks from its platform plugin. On a Wayland session with Qt on X11
    (QT_QPA_PLATFORM=xcb, or no usable Wayland plugin) PyOpenGL would take
    EGL while Qt's context is GLX, and the preview's first draw fails with
    "Attempt to retrieve context when no valid context". Call it once the
    QGuiApplication exists and before anything imports `OpenGL`. A
    PYOPENGL_PLATFORM the user set is kept; None when nothing was set.
    """
    if environment is None:
        environment = os.environ
    if environment.get(PYOPENGL_PLATFORM, "").strip():
        return environment[PYOPENGL_PLATFORM]
    choice = pyopengl_platform(qt_platform, environment)
    if choice is not None:
        environment[PYOPENGL_PLATFORM] = choice
    return choice


def context_problem(context: QOpenGLContext | None, profile: Profile = DEFAULT_PROFILE) -> str:
    """Why `context` cannot run the preview with `profile`, or "" when it can."""
    if context is None or not context.isValid():
        return f"No {profile.title} context could be created, so the material preview is off."
    made = context.format()
    version = (made.majorVersion(), made.minorVersion())
    offered = f"OpenGL ES {version[0]}.{version[1]}" if context.isOpenGLES() else f"OpenGL {version[0]}.{version[1]}"
    if profile is Profile.ES:
        if not context.isOpenGLES() or version < profile.required_version:
            return f"The preview's ES profile needs OpenGL ES 3.2; this system offers {offered}."
        return ""
    if context.isOpenGLES():
        return f"The preview needs OpenGL 4.2 core; this system offers only {offered}."
    if version < profile.required_version or made.profile() != QSurfaceFormat.OpenGLContextProfile.CoreProfile:
        return f"The preview needs OpenGL 4.2 core; this system offers {offered}."
    return ""


def describe(context: QOpenGLContext, renderer: str = "") -> str:
    """"OpenGL 4.5 core (llvmpipe)" / "OpenGL ES 3.2 (llvmpipe)": the context as made, and the GL renderer's short name."""
    made = context.format()
    version = f"{made.majorVersion()}.{made.minorVersion()}"
    if context.isOpenGLES():
        text = f"OpenGL ES {version}"
    else:
        core = made.profile() == QSurfaceFormat.OpenGLContextProfile.CoreProfile
        text = f"OpenGL {version}{' core' if core else ''}"
    short = renderer.split(" (", 1)[0].strip()
    return f"{text} ({short})" if short else text


def create_context(profile: Profile) -> QOpenGLContext | None:
    """A new context with `profile`'s format, or None when the platform cannot create one.

    Probes and offscreen contexts come from here (tests replace it to make
    one profile fail); the widget's context is created by Qt from the same
    format.
    """
    context = QOpenGLContext()
    context.setFormat(preview_surface_format(profile))
    if not context.create():
        return None
    return context


class OffscreenContext:
    """A current context on an offscreen surface (screenshots, benchmarks); needs a QGuiApplication."""

    def __init__(self, profile: Profile = DEFAULT_PROFILE) -> None:
        self.profile = profile
        context = create_context(profile)
        problem = context_problem(context, profile)
        if problem:
            raise RuntimeError(problem)
        assert context is not None
        self.context = context
        self.surface = QOffscreenSurface()
        self.surface.setFormat(self.context.format())
        self.surface.create()
        if not self.context.makeCurrent(self.surface):
            raise RuntimeError("The OpenGL context could not be made current on an offscreen surface.")

    def make_current(self) -> None:
        self.context.makeCurrent(self.surface)

    def done(self) -> None:
        self.context.doneCurrent()


_probe_results: dict[Profile, str] = {}


def probe(profile: Profile = DEFAULT_PROFILE) -> str:
    """Try once per process and profile to create a suitable context; "" if it works, else the reason."""
    if profile not in _probe_results:
        context = create_context(profile)
        _probe_results[profile] = context_problem(context, profile)
    return _probe_results[profile]


def clear_probes() -> None:
    """Forget the probe results (tests that change what `create_context` can do)."""
    _probe_results.clear()


@dataclass(frozen=True)
class Selection:
    """The profile a choice resolved to; `problem` is "" when a context of it can be created."""

    choice: str
    profile: Profile
    problem: str


def select_profile(choice: str | None = None) -> Selection:
    """Resolve a choice (None: `choose()`, i.e. `VPL_PREVIEW_GL` or "auto") to a profile.

    `desktop` and `es` are taken as asked (the problem says why the preview
    will be off if that profile cannot be had); `auto` is desktop when a 4.2
    core context can be created, else ES 3.2 when that can, else desktop
    with both reasons.
    """
    choice = choose(choice)
    if choice == "desktop":
        return Selection(choice, Profile.DESKTOP, probe(Profile.DESKTOP))
    if choice == "es":
        return Selection(choice, Profile.ES, probe(Profile.ES))
    desktop_problem = probe(Profile.DESKTOP)
    if not desktop_problem:
        return Selection(choice, Profile.DESKTOP, "")
    es_problem = probe(Profile.ES)
    if not es_problem:
        return Selection(choice, Profile.ES, "")
    return Selection(choice, Profile.DESKTOP, f"{desktop_problem} {es_problem}")
