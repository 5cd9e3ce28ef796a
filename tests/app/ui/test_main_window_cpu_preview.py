"""The editor on a machine without any OpenGL context: the preview falls back to the CPU interpreter.

Context creation is made to fail for both profiles (as on a machine with no
GL driver); the window must come up with a `CpuPreview`, say so in the
status bar, draw the example material and follow parameter edits.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import app.preview.context as context_module
from app.material.parameters import ParameterKind
from app.preview.context import ENVIRONMENT_VARIABLE, clear_probes
from app.preview.cpu_preview import CpuPreview
from app.preview.images import qimage_to_rgba
from app.ui.window_layout import grab_window

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT_MS = 30_000


@pytest.fixture
def no_opengl(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setattr(context_module, "create_context", lambda profile: None)
    clear_probes()
    yield
    clear_probes()


def test_editor_without_opengl_previews_on_the_cpu(no_opengl, make_window, qtbot) -> None:
    window = make_window()
    preview = window.preview
    assert isinstance(preview, CpuPreview)
    assert window.preview_context_label.text() == "Preview: CPU interpreter (no OpenGL context)"
    window.flush()
    qtbot.waitUntil(lambda: preview.frames_rendered > 0, timeout=TIMEOUT_MS)
    assert not preview.error_text
    before = qimage_to_rgba(preview.grab_preview())
    centre = before[before.shape[0] // 2, before.shape[1] // 2]
    assert int(centre[:3].max()) > 60, "the sphere is drawn"
    specs = window.session.parameters.specs
    color = next(spec for spec in specs if spec.kind is ParameterKind.COLOR)
    rendered = preview.frames_rendered
    window.session.parameters.set_value(color.name, (0.0, 0.0, 1.0, 1.0))
    qtbot.waitUntil(lambda: preview.frames_rendered > rendered, timeout=TIMEOUT_MS)
    after = qimage_to_rgba(preview.grab_preview())
    assert np.abs(after.astype(int) - before.astype(int)).max() > 40
    if os.environ.get("VPL_WRITE_DOC_IMAGES") == "1":
        # The documentation's picture: a physically based example in the stage's environment.
        assert window.load_example("painted_metal")
        window.flush()
        qtbot.waitUntil(lambda: not preview.preparing_environment, timeout=TIMEOUT_MS)
        shown = preview.frames_rendered
        preview.render_now()
        assert preview.frames_rendered > shown and not preview.error_text
        grab_window(window).save(str(ROOT / "docs" / "images" / "editor-cpu-preview.png"))
