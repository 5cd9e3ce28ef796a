"""The editor with the preview on OpenGL ES 3.2 (`vpl-editor --gl es`): real windows under Xvfb.

The ES window must show its profile, hand the preview artifacts compiled for
es320 (while the code view and export stay GLSL 4.20) and draw the same
picture as a desktop window, to within a couple of 1/255 steps.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from app.preview.context import ENVIRONMENT_VARIABLE, Profile, clear_probes
from app.preview.images import qimage_to_rgba
from app.ui.code_view import VERTEX_TAB

PREVIEW_TIMEOUT_MS = 30_000
TOLERANCE = 2
ROOT = Path(__file__).resolve().parents[3]
ES_REJECTS = ROOT / "tests" / "app" / "preview" / "data" / "varying-array-of-records.vpl"

pytestmark = pytest.mark.gl


@pytest.fixture(autouse=True)
def no_profile_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    clear_probes()


def _drawn(window, qtbot) -> np.ndarray:
    """The preview's pixels once its current artifact is built."""
    window.flush()
    qtbot.waitUntil(lambda: window.preview.renderer.program is not None and not window.preview.error_text,
                    timeout=PREVIEW_TIMEOUT_MS)
    return qimage_to_rgba(window.preview.grab_preview())


def _assert_same_picture(desktop: np.ndarray, es: np.ndarray) -> None:
    assert desktop.shape == es.shape
    assert int(np.abs(desktop.astype(np.int16) - es.astype(np.int16)).max()) <= TOLERANCE


def test_editor_on_es_shows_the_profile_and_the_same_preview(make_window, qtbot) -> None:
    es_window = make_window(preview_gl="es")
    preview = es_window.preview
    assert preview.profile is Profile.ES and preview.target == "es320"
    qtbot.waitUntil(lambda: es_window.preview_context_label.text().startswith("Preview: OpenGL ES 3.2 ("),
                    timeout=PREVIEW_TIMEOUT_MS)
    assert "llvmpipe" in es_window.preview_context_label.text()
    assert es_window.preview_context_label.isVisible()
    es_pixels = _drawn(es_window, qtbot)
    # The preview runs ES code; the code view and export keep GLSL 4.20.
    assert preview.renderer.is_es and preview.renderer.program.artifact.target == "es320"
    assert preview.renderer.program.artifact.vertex_code.startswith("#version 320 es")
    assert es_window.current_artifact.target == "glsl420"
    assert es_window.code_view.text(VERTEX_TAB).startswith("#version 420 core")
    assert es_window.diagnostics_panel.count() == 0

    desktop_window = make_window(preview_gl="desktop")
    for window in (es_window, desktop_window):
        window.preview.setFixedSize(300, 260)  # the same pixels to compare
    assert desktop_window.preview.target == "glsl420"
    qtbot.waitUntil(lambda: desktop_window.preview_context_label.text().startswith("Preview: OpenGL 4."),
                    timeout=PREVIEW_TIMEOUT_MS)
    desktop_pixels = _drawn(desktop_window, qtbot)
    _assert_same_picture(desktop_pixels, qimage_to_rgba(preview.grab_preview()))
    assert len({tuple(pixel) for pixel in es_pixels[::6, ::6, :3].reshape(-1, 3)}) > 20  # a lit sphere


def test_edits_reach_the_es_preview(make_window, qtbot) -> None:
    window = make_window(preview_gl="es")
    before = _drawn(window, qtbot)
    links = window.preview.renderer.link_count
    # A parameter from the panel: new pixels, no relink.
    window.parameters_panel.parameterChanged.emit("base_color", (0.1, 0.8, 0.1, 1.0))
    changed = qimage_to_rgba(window.preview.grab_preview())
    assert not np.array_equal(before, changed)
    assert window.preview.renderer.link_count == links
    # A graph edit: lowered again, compiled for es320 again, relinked.
    with qtbot.waitSignal(window.lowered, timeout=10_000):
        window.nodes.set_node_property("n7", "power", 0.5)
    after = _drawn(window, qtbot)
    assert window.preview.renderer.link_count > links
    assert window.preview.renderer.program.artifact.target == "es320"
    assert not np.array_equal(after, changed)


def test_a_module_es_cannot_express_is_reported_on_es_and_previewed_on_desktop(make_window, qtbot) -> None:
    es_window = make_window(preview_gl="es")
    _drawn(es_window, qtbot)
    with qtbot.waitSignal(es_window.preview.programFailed, timeout=PREVIEW_TIMEOUT_MS) as failed:
        assert es_window.open_file(str(ES_REJECTS))
    assert "es320" in failed.args[0] and "array of records" in failed.args[0]
    assert "es320" in es_window.preview.error_text
    # The overlay is painted with QPainter, which leaves a GL error on the ES context; the
    # next frames must not report it as theirs: three frames painted and shown, each with its overlay.
    for _ in range(3):
        with qtbot.waitSignal(es_window.preview.frameSwapped, timeout=PREVIEW_TIMEOUT_MS):
            es_window.preview.update()
        es_window.preview.grabFramebuffer()
    assert es_window.preview.error_text.startswith("es320 target error"), es_window.preview.error_text
    rows = es_window.diagnostics_panel.rows
    assert any("es320" in row.message for row in rows), [row.message for row in rows]
    assert es_window.current_artifact is not None and es_window.export_action.isEnabled()  # GLSL 4.20 export works

    desktop_window = make_window(load_example=False, preview_gl="desktop")
    with qtbot.waitSignal(desktop_window.preview.programReady, timeout=PREVIEW_TIMEOUT_MS):
        assert desktop_window.open_file(str(ES_REJECTS))
    assert desktop_window.diagnostics_panel.count() == 0


RECORDING_MAIN = """
import sys
import app.ui.main_window as main_window_module
from app.main import main


class RecordingWindow(main_window_module.MainWindow):
    def close(self):  # main closes the window right after the grab
        preview = self.preview
        program = preview.renderer.program
        print("RESULT", preview.profile.value, program.artifact.target if program else "-",
              repr(preview.error_text), self.preview_context_label.text(), sep="|")
        return super().close()


main_window_module.MainWindow = RecordingWindow
sys.exit(main(sys.argv[1:]))
"""


def _run_editor(tmp_path: Path, *arguments: str, gl_environment: str | None = None) -> list[str]:
    """`vpl-editor ARGUMENTS` in a fresh process (nothing resolved in PyOpenGL yet); the window's RESULT fields."""
    environment = dict(os.environ, QT_QPA_PLATFORM="xcb", VPL_EDITOR_RECOVERY_DIR=str(tmp_path / "recovery"))
    environment.pop(ENVIRONMENT_VARIABLE, None)
    if gl_environment is not None:
        environment[ENVIRONMENT_VARIABLE] = gl_environment
    completed = subprocess.run([sys.executable, "-c", RECORDING_MAIN, *arguments], cwd=ROOT, env=environment,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    results = [line for line in completed.stdout.splitlines() if line.startswith("RESULT|")]
    assert len(results) == 1, completed.stdout
    return results[0].split("|")[1:]


def test_vpl_editor_dash_dash_gl_es(tmp_path: Path) -> None:
    """`vpl-editor --gl es --screenshot PNG`: the window main builds runs ES and draws the preview."""
    png = tmp_path / "editor-es.png"
    profile, target, error, label = _run_editor(tmp_path, "--gl", "es", "--screenshot", str(png))
    assert (profile, target, error) == ("es", "es320", "''")
    assert label.startswith("Preview: OpenGL ES 3.2 (")
    image = QImage(str(png))
    assert not image.isNull() and image.width() >= 800


def test_vpl_preview_gl_environment_variable_and_the_command_line(tmp_path: Path) -> None:
    png = tmp_path / "editor.png"
    assert _run_editor(tmp_path, "--screenshot", str(png), gl_environment="es")[:2] == ["es", "es320"]
    assert _run_editor(tmp_path, "--gl", "desktop", "--screenshot", str(png), gl_environment="es")[:2] == [
        "desktop", "glsl420"]
