"""`vpl-editor FILE --preview-screenshot PNG` without OpenGL (issue 22): the CPU interpreter draws the frame.

Context creation is made to fail (as `test_preview_es.py` does): the
command still writes the PNG, says on stderr that the CPU interpreter drew
it, and the picture is the GL one (the same scene, stage and post pass) to
within the tolerance the CPU/GPU comparison uses (`test_cpu_vs_gpu.py`).
Without a display at all (a fresh process with no X server named) it
works too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import app.preview.context as context_module
import app.preview.screenshot as screenshot_module
from app.main import main
from app.preview.context import ENVIRONMENT_VARIABLE, clear_probes
from app.preview.images import load_image_rgba

pytestmark = pytest.mark.gl

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "resources" / "examples"
TOLERANCE = 2      # 1/255 steps per channel
SHARE = 0.99       # of the pixels (edges may round to the other side of a pixel centre)
NOTE = "rendering with the CPU interpreter"


@pytest.fixture(autouse=True)
def fresh_probes(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    clear_probes()
    yield
    clear_probes()


def _shot(tmp_path: Path, name: str, source: Path, *options: str) -> np.ndarray:
    png = tmp_path / f"{name}.png"
    assert main([str(source), "--preview-screenshot", str(png), "--size", "48x48", *options]) == 0
    return load_image_rgba(str(png)).astype(int)


def _assert_same_picture(expected: np.ndarray, actual: np.ndarray) -> None:
    assert expected.shape == actual.shape
    close = (np.abs(expected - actual) <= TOLERANCE).all(axis=-1)
    assert close.mean() >= SHARE, f"{close.mean():.4f} of the pixels agree"


@pytest.mark.parametrize(("name", "options"), [
    ("lit_blinn_phong", ()),                                          # Unlit Output
    ("polished_gold", ("--mesh", "cube", "--exposure", "0.5")),       # Surface Output: IBL, post pass, stage flags
])
def test_without_an_opengl_context_the_cpu_interpreter_draws_the_same_picture(
        qapp, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, name: str, options: tuple[str, ...]) -> None:
    source = EXAMPLES / f"{name}.vpl"
    # The interpreter draws the live frame (the split sum); so does the GPU here, without the refined variant.
    monkeypatch.setattr(screenshot_module, "document_refined", lambda source_path, target: None)
    gpu = _shot(tmp_path, "gpu", source, *options)
    assert NOTE not in capsys.readouterr().err
    monkeypatch.setattr(context_module, "create_context", lambda profile: None)
    clear_probes()
    cpu = _shot(tmp_path, "cpu", source, *options)
    error = capsys.readouterr().err
    assert NOTE in error and "no OpenGL context" in error
    assert cpu[24, 24, :3].max() > 40  # the object is drawn, not only the background
    _assert_same_picture(gpu, cpu)


def test_a_context_that_cannot_be_made_current_falls_back_too(qapp, tmp_path: Path, capsys,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(_profile: object) -> None:
        raise RuntimeError("The OpenGL context could not be made current on an offscreen surface.")

    monkeypatch.setattr(context_module.OffscreenContext, "__init__", lambda self, profile=None: refuse(profile))
    _shot(tmp_path, "cpu", EXAMPLES / "lit_blinn_phong.vpl")
    assert "could not be made current" in capsys.readouterr().err


def test_without_a_display_in_a_fresh_process(tmp_path: Path) -> None:
    png = tmp_path / "headless.png"
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", ENVIRONMENT_VARIABLE)}
    completed = subprocess.run(
        [sys.executable, "-m", "app", str(EXAMPLES / "lit_blinn_phong.vpl"), "--preview-screenshot", str(png),
         "--size", "32x32"], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert NOTE in completed.stderr and "no display" in completed.stderr
    image = load_image_rgba(str(png))
    assert image.shape == (32, 32, 4) and image[16, 16, :3].max() > 40
