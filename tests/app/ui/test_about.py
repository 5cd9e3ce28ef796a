"""Help > About, the application icon, the version, and files the desktop opens: real windows under Xvfb.

The version has one source (the package metadata); About shows it with the
Qt version and the OpenGL context and renderer the preview really got, and
`vpl-editor --about` prints the same facts without opening a window.
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import PySide6
import pytest
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QApplication

from app.preview.context import ENVIRONMENT_VARIABLE, clear_probes
from app.preview.widget import UnavailablePreview
from app.ui.about import AboutDialog, about_facts, facts_text
from app.ui.icons import PNG_SIZES, application_icon
from vpl_core import version as version_module

ROOT = Path(__file__).resolve().parents[3]
VERSION = metadata.version("vpl-material-editor")
PREVIEW_TIMEOUT_MS = 30_000


@pytest.fixture(autouse=True)
def no_profile_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    clear_probes()


def test_the_version_comes_from_the_package_metadata_and_pyproject() -> None:
    assert version_module.version() == VERSION
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nversion = "{VERSION}"\n' in pyproject


def test_without_metadata_the_source_tree_pyproject_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(_name: str) -> str:
        raise metadata.PackageNotFoundError(_name)

    monkeypatch.setattr(metadata, "version", missing)
    monkeypatch.setattr(version_module, "_version_from_dist_info", lambda: None)  # the fast METADATA lookup
    version_module.version.cache_clear()
    try:
        assert version_module.version() == VERSION
        monkeypatch.setattr(version_module, "_version_from_source_tree", lambda: None)
        version_module.version.cache_clear()
        assert version_module.version() == version_module.UNKNOWN
    finally:
        version_module.version.cache_clear()


@pytest.mark.parametrize("command", [["-m", "vpl_core.cli"], ["-m", "app.main"]])
def test_both_commands_print_the_version(command: list[str]) -> None:
    result = subprocess.run([sys.executable, *command, "--version"], capture_output=True, text=True, cwd=ROOT,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    name = "vpl" if "vpl_core.cli" in command else "vpl-editor"
    assert result.stdout.strip() == f"{name} {VERSION}"


def test_the_application_icon_has_every_shipped_size(qapp) -> None:
    icon = application_icon()
    assert not icon.isNull()
    assert sorted(size.width() for size in icon.availableSizes()) == sorted(PNG_SIZES)
    image = icon.pixmap(64, 64).toImage()
    assert image.pixelColor(0, 0).alpha() == 0 and image.pixelColor(32, 32).alpha() == 255


@pytest.mark.gl
def test_about_shows_version_qt_and_the_preview_renderer(window, qtbot) -> None:
    assert not window.windowIcon().isNull()
    help_menu = next(action.menu() for action in window.menuBar().actions() if action.text() == "&Help")
    assert window.about_action in help_menu.actions()

    qtbot.waitUntil(lambda: bool(window.preview.gl_strings), timeout=PREVIEW_TIMEOUT_MS)
    dialog = window.show_about()
    qtbot.waitExposed(dialog)
    assert isinstance(dialog, AboutDialog) and dialog.isVisible()
    shown = {label: widget.text() for label, widget in dialog.value_labels.items()}
    assert shown["Version"] == VERSION
    assert shown["Qt"] == f"{qVersion()} (PySide6 {PySide6.__version__})"
    assert shown["OpenGL renderer"] == window.preview.gl_strings["renderer"] != ""
    assert shown["OpenGL version"] == window.preview.gl_strings["version"] != ""
    assert shown["OpenGL context"] == window.preview.context_description
    assert shown["Installed"].startswith("Python environment at ")

    dialog.copy_button.click()
    copied = QApplication.clipboard().text()
    assert copied == dialog.text
    assert "Version:" in copied and VERSION in copied and shown["OpenGL renderer"] in copied
    dialog.close()


def test_about_says_why_there_is_no_opengl(qapp) -> None:
    facts = dict(about_facts(UnavailablePreview("No OpenGL 4.2 core context could be created.")))
    assert facts["OpenGL"] == "unavailable: No OpenGL 4.2 core context could be created."
    assert facts["Version"] == VERSION


def test_facts_text_aligns_labels() -> None:
    text = facts_text([("Version", "1.2.3"), ("OpenGL renderer", "llvmpipe")])
    assert text == "VPL Material Editor\nVersion:         1.2.3\nOpenGL renderer: llvmpipe\n"


@pytest.mark.gl
def test_about_on_the_command_line_probes_the_preview_context(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "app.main", "--about"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    facts = dict(re.findall(r"^([A-Za-z ]+):\s+(.*)$", result.stdout, re.MULTILINE))
    assert facts["Version"] == VERSION
    assert facts["OpenGL context"].startswith("OpenGL 4.")
    assert facts["OpenGL renderer"] not in ("", "unknown")
    assert facts["Shading language"].startswith("4.")


def test_a_windowed_build_without_standard_streams_still_answers_version(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.main import main

    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert sys.stdout is not None and sys.stderr is not None


def test_a_file_the_desktop_opens_while_running_opens_in_the_window(window, qtbot, tmp_path: Path) -> None:
    """macOS sends QFileOpenEvent to the application; the relay opens the file like File > Open."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QFileOpenEvent

    from app.ui.file_open import FileOpenRelay

    material = tmp_path / "textured.vpl"
    material.write_bytes((ROOT / "resources" / "examples" / "textured.vpl").read_bytes())
    relay = FileOpenRelay(window)
    application = QCoreApplication.instance()
    application.installEventFilter(relay)
    try:
        QCoreApplication.sendEvent(application, QFileOpenEvent(str(material)))
        qtbot.waitUntil(lambda: window.path == material, timeout=10_000)
    finally:
        application.removeEventFilter(relay)
