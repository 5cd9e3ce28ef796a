"""PyOpenGL must bind the same window-system API (GLX or EGL) as Qt's contexts.

PyOpenGL chooses once, at import, from PYOPENGL_PLATFORM or else the
session type; on a Wayland session with Qt on X11 it took EGL while Qt's
context was GLX, and the preview failed at its first draw ("Attempt to
retrieve context when no valid context"). The editor now sets
PYOPENGL_PLATFORM from Qt's platform before OpenGL is imported.
Subprocesses, because the choice is made once per process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from app.preview.context import PYOPENGL_PLATFORM, align_pyopengl_platform, pyopengl_platform

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "lit_blinn_phong.vpl"


@pytest.mark.parametrize(
    ("qt_platform", "environment", "expected"),
    [
        ("xcb", {}, "glx"),
        ("xcb", {"QT_XCB_GL_INTEGRATION": "xcb_egl"}, "egl"),
        ("xcb", {"QT_XCB_GL_INTEGRATION": "xcb_glx"}, "glx"),
        ("wayland", {}, "egl"),
        ("wayland-egl", {}, "egl"),
        ("eglfs", {}, "egl"),
        ("offscreen", {}, None),
        ("windows", {}, None),
        ("cocoa", {}, None),
    ],
)
def test_the_binding_follows_qts_platform(qt_platform: str, environment: dict[str, str], expected: str | None) -> None:
    assert pyopengl_platform(qt_platform, environment) == expected


def test_alignment_sets_the_variable_and_keeps_a_users_choice() -> None:
    environment: dict[str, str] = {"XDG_SESSION_TYPE": "wayland"}
    assert align_pyopengl_platform("xcb", environment) == "glx"
    assert environment[PYOPENGL_PLATFORM] == "glx"
    chosen = {PYOPENGL_PLATFORM: "egl"}
    assert align_pyopengl_platform("xcb", chosen) == "egl" and chosen[PYOPENGL_PLATFORM] == "egl"
    unknown: dict[str, str] = {}
    assert align_pyopengl_platform("offscreen", unknown) is None and PYOPENGL_PLATFORM not in unknown


def _preview_in(environment: dict[str, str], tmp_path: Path) -> np.ndarray:
    shot = tmp_path / "shot.png"
    env = {key: value for key, value in os.environ.items() if key != PYOPENGL_PLATFORM}
    env.update(environment)
    result = subprocess.run(
        [sys.executable, "-m", "app.main", str(EXAMPLE), "--preview-screenshot", str(shot), "--size", "96x96"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    image = QImage(str(shot)).convertToFormat(QImage.Format.Format_RGB888)
    return np.array([[image.pixelColor(x, y).red() for x in range(0, 96, 8)] for y in range(0, 96, 8)])


@pytest.mark.gl
@pytest.mark.parametrize(
    "session",
    [
        pytest.param({"XDG_SESSION_TYPE": "wayland", "QT_QPA_PLATFORM": "xcb"}, id="wayland-session-qt-on-x11"),
        pytest.param({"QT_QPA_PLATFORM": "xcb", "QT_XCB_GL_INTEGRATION": "xcb_egl"}, id="qt-xcb-over-egl"),
    ],
)
def test_the_preview_draws_when_session_and_qt_disagree(session: dict[str, str], tmp_path: Path) -> None:
    reds = _preview_in(session, tmp_path)
    assert reds.max() > 150 and reds[0, 0] < 80  # the red sphere on the dark background


@pytest.mark.gl
def test_the_editor_window_previews_on_a_wayland_session_with_qt_on_x11(tmp_path: Path) -> None:
    shot = tmp_path / "window.png"
    env = {key: value for key, value in os.environ.items() if key != PYOPENGL_PLATFORM}
    env.update({"XDG_SESSION_TYPE": "wayland", "QT_QPA_PLATFORM": "xcb"})
    result = subprocess.run([sys.executable, "-m", "app.main", str(EXAMPLE), "--screenshot", str(shot)],
                            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    image = QImage(str(shot)).convertToFormat(QImage.Format.Format_RGB888)
    width, height = image.width(), image.height()
    pixels = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    pixels = pixels.reshape(height, image.bytesPerLine())[:, : width * 3].reshape(height, width, 3).astype(int)
    # The lit sphere's saturated red (the broken preview showed black under a pink error text).
    sphere_red = (pixels[..., 0] > 150) & (pixels[..., 1] < 60) & (pixels[..., 2] < 60)
    assert sphere_red.sum() > 2000, sphere_red.sum()


@pytest.mark.gl
def test_the_preview_draws_on_a_real_wayland_compositor(wayland_session: dict[str, str], tmp_path: Path) -> None:
    """Qt's own Wayland platform (no X server in the environment), contexts through EGL."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in (PYOPENGL_PLATFORM, "DISPLAY", "QT_QPA_PLATFORM")}
    environment.update(wayland_session)
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [sys.executable, "-m", "app.main", str(EXAMPLE), "--preview-screenshot", str(shot), "--size", "96x96"],
        env=environment, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    about = subprocess.run([sys.executable, "-m", "app.main", "--about"], env=environment, cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert "Window system:    wayland" in about.stdout, about.stdout + about.stderr
    image = QImage(str(shot)).convertToFormat(QImage.Format.Format_RGB888)
    reds = np.array([[image.pixelColor(x, y).red() for x in range(0, 96, 8)] for y in range(0, 96, 8)])
    assert reds.max() > 150 and reds[0, 0] < 80
