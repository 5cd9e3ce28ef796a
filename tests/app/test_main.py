"""The `vpl-editor` entry point: window screenshots, preview screenshots, bad files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from app.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
SPEC_EXAMPLES = ROOT / "tests" / "data" / "spec"


@pytest.fixture(autouse=True)
def isolated_recovery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VPL_EDITOR_RECOVERY_DIR", str(tmp_path / "recovery"))


def test_parser_knows_every_option() -> None:
    arguments = build_parser().parse_args(["m.vpl", "--screenshot", "a.png", "--preview-screenshot", "b.png",
                                           "--size", "64x32", "--timeout", "5"])
    assert (arguments.file, arguments.screenshot, arguments.preview_screenshot, arguments.size, arguments.timeout) == (
        "m.vpl", "a.png", "b.png", "64x32", 5.0)


@pytest.mark.gl  # the window with its OpenGL preview (without GL it draws on the CPU, far slower)
@pytest.mark.parametrize(("value", "reason"), [("1e999", "a finite number"), ("inf", "a finite number"), ("nan", "a finite number"),
                                               ("1e308", "between 0 and 86400"), ("-1", "between 0 and 86400"), ("soon", "a number")])
def test_a_timeout_that_is_not_finite_seconds_within_a_day_is_exit_2_with_the_reason(capsys, value: str, reason: str) -> None:
    # "--timeout 1e999" reached QTimer.singleShot(int(inf)): OverflowError, a traceback.
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--screenshot", "x.png", "--timeout", value])
    assert exited.value.code == 2
    assert f"argument --timeout: the wait (seconds) must be {reason}" in capsys.readouterr().err


def test_window_screenshot_of_the_default_example(qapp, tmp_path: Path) -> None:
    png = tmp_path / "editor.png"
    assert main(["--screenshot", str(png)]) == 0
    image = QImage(str(png))
    assert not image.isNull() and image.width() >= 800 and image.height() >= 600
    assert not [widget for widget in qapp.topLevelWidgets() if widget.isVisible() and widget.objectName() == "mainWindow"]


@pytest.mark.gl  # the window with its OpenGL preview (without GL it draws on the CPU, far slower)
def test_window_screenshot_of_a_read_only_spec_module(qapp, tmp_path: Path) -> None:
    png = tmp_path / "spec.png"
    assert main([str(SPEC_EXAMPLES / "canonical-example.vpl"), "--screenshot", str(png)]) == 0
    assert not QImage(str(png)).isNull()


def test_window_screenshot_of_an_invalid_file_fails(qapp, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.vpl"
    bad.write_text("(module 2)", encoding="utf-8")
    assert main([str(bad), "--screenshot", str(tmp_path / "never.png")]) == 1
    assert "bad.vpl" in capsys.readouterr().err
    assert not (tmp_path / "never.png").exists()


def test_preview_screenshot(qapp, tmp_path: Path) -> None:
    png = tmp_path / "preview.png"
    assert main([str(SPEC_EXAMPLES / "canonical-example.vpl"), "--preview-screenshot", str(png), "--size", "64x48"]) == 0
    image = QImage(str(png))
    assert (image.width(), image.height()) == (64, 48)


@pytest.mark.usefixtures("few_refined_frames")  # the sphere against the background: few refined frames show it
def test_preview_screenshot_without_a_file_renders_the_example(qapp, tmp_path: Path) -> None:
    png = tmp_path / "example.png"
    assert main(["--preview-screenshot", str(png), "--size", "96x96"]) == 0
    image = QImage(str(png))
    assert (image.width(), image.height()) == (96, 96)
    centre = image.pixelColor(48, 48)
    corner = image.pixelColor(1, 1)
    assert centre != corner  # the sphere is drawn over the background


def test_python_dash_m_app_runs_the_editor(tmp_path: Path) -> None:
    png = tmp_path / "cli.png"
    environment = dict(os.environ, QT_QPA_PLATFORM="xcb", VPL_EDITOR_RECOVERY_DIR=str(tmp_path / "recovery"))
    completed = subprocess.run([sys.executable, "-m", "app", "--screenshot", str(png)], cwd=ROOT, env=environment,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert png.is_file()


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM is a POSIX signal")
def test_a_screenshot_run_ended_by_sigterm_removes_its_settings_folder(tmp_path: Path) -> None:
    import signal
    import time

    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    environment = dict(os.environ, QT_QPA_PLATFORM="xcb", TMPDIR=str(scratch_root),
                       VPL_EDITOR_RECOVERY_DIR=str(tmp_path / "recovery"))
    editor = subprocess.Popen([sys.executable, "-m", "app", "--screenshot", str(tmp_path / "shot.png")], cwd=ROOT,
                              env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not list(scratch_root.glob("vpl-editor-settings-*")) and editor.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert list(scratch_root.glob("vpl-editor-settings-*")), "the run made no settings folder"
        editor.send_signal(signal.SIGTERM)
        assert editor.wait(timeout=120) == 128 + signal.SIGTERM, editor.stderr.read() if editor.stderr else ""
    finally:
        if editor.poll() is None:
            editor.kill()
    assert not list(scratch_root.glob("vpl-editor-settings-*"))
