"""The one place that decides which OpenGL context the preview asks for.

The preview needs OpenGL 4.2 core (the backend emits `#version 420 core`).
Every context the preview creates (the widget's, the screenshot's offscreen
one) takes its format from `preview_surface_format` and is judged by
`context_problem`, so adding the OpenGL ES 3.2 profile (a later issue) means
adding a profile here, not hunting for `setVersion` calls.
"""

from __future__ import annotations

import enum
from typing import Optional

from PySide6.QtGui import QOffscreenSurface, QOpenGLContext, QSurfaceFormat


class Profile(enum.Enum):
    CORE_420 = "glsl420"   # desktop OpenGL 4.2 core, the backend's only target today


DEFAULT_PROFILE = Profile.CORE_420


def preview_surface_format(profile: Profile = DEFAULT_PROFILE) -> QSurfaceFormat:
    """The surface format to request for `profile` (depth buffer, no multisampling, so pixels are exact)."""
    surface_format = QSurfaceFormat()
    surface_format.setRenderableType(QSurfaceFormat.RenderableType.OpenGL)
    surface_format.setVersion(4, 2)
    surface_format.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    surface_format.setDepthBufferSize(24)
    surface_format.setSamples(0)
    return surface_format


def context_problem(context: Optional[QOpenGLContext], profile: Profile = DEFAULT_PROFILE) -> str:
    """Why `context` cannot run the preview, or "" when it can."""
    if context is None or not context.isValid():
        return "No OpenGL context could be created, so the material preview is off."
    made = context.format()
    version = (made.majorVersion(), made.minorVersion())
    if context.isOpenGLES():
        return f"The preview needs OpenGL 4.2 core; this system offers only OpenGL ES {version[0]}.{version[1]}."
    if version < (4, 2) or made.profile() != QSurfaceFormat.OpenGLContextProfile.CoreProfile:
        return f"The preview needs OpenGL 4.2 core; this system offers OpenGL {version[0]}.{version[1]}."
    return ""


class OffscreenContext:
    """A current context on an offscreen surface (screenshots, benchmarks); needs a QGuiApplication."""

    def __init__(self, profile: Profile = DEFAULT_PROFILE) -> None:
        self.context = QOpenGLContext()
        self.context.setFormat(preview_surface_format(profile))
        created = self.context.create()
        problem = context_problem(self.context if created else None, profile)
        if problem:
            raise RuntimeError(problem)
        self.surface = QOffscreenSurface()
        self.surface.setFormat(self.context.format())
        self.surface.create()
        if not self.context.makeCurrent(self.surface):
            raise RuntimeError("The OpenGL context could not be made current on an offscreen surface.")

    def make_current(self) -> None:
        self.context.makeCurrent(self.surface)

    def done(self) -> None:
        self.context.doneCurrent()


_probe_result: Optional[str] = None


def probe(profile: Profile = DEFAULT_PROFILE) -> str:
    """Try once per process to create a suitable context; "" if it works, else the reason."""
    global _probe_result
    if _probe_result is None:
        context = QOpenGLContext()
        context.setFormat(preview_surface_format(profile))
        _probe_result = context_problem(context if context.create() else None, profile)
    return _probe_result
