"""Fixtures for driving the real main window under Xvfb.

`prompts` answers every question the window asks and records the calls;
`window` is a shown MainWindow on `WINDOW_EXAMPLE` with its settings,
recovery directory and prompts isolated in the test's temporary directory.
Teardown answers "discard" to any unsaved-changes question and closes the
window, so no test leaves a top-level window behind, then deletes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings

from app.ui.dialogs import Prompts, SaveChoice
from app.ui.recovery import RECOVERY_DIR_ENV, RecoveryStore

LOWERING_TIMEOUT_MS = 20_000
#: The material the UI tests drive: they name its nodes (n1 base colour, n4 the shininess parameter, n7 the
#: Fresnel), so it is fixed here rather than following `examples.DEFAULT_EXAMPLE` (the editor's first impression).
WINDOW_EXAMPLE = "lit_blinn_phong"


class RecordingPrompts:
    """Canned answers for every dialog, with a record of what was asked."""

    def __init__(self) -> None:
        self.save_choice = SaveChoice.DISCARD
        self.open_path: str | None = None
        self.save_path: str | None = None
        self.export_dir: str | None = None
        self.recovery_choice: Any = "first"  # "first": take the first entry offered; None: decline
        self.text_answers: list[str | None] = []  # answers to ask_text, in order (None: cancelled)
        self.export_request: Any = None  # the answer to choose_export_target (an ExportRequest; None: cancelled)
        self.mtlx_path: str | None = None  # the answer to choose_mtlx_path
        self.mtlx_material: str | None = None  # the answer to choose_mtlx_material (None: cancelled)
        self.update_functions = False  # the answer to "library functions changed: update them?"
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def named(self, name: str) -> list[tuple[Any, ...]]:
        return [arguments for called, arguments in self.calls if called == name]

    def as_prompts(self) -> Prompts:
        def ask_save_changes(_parent: object, name: str) -> SaveChoice:
            self.calls.append(("ask_save_changes", (name,)))
            return self.save_choice

        def show_error(_parent: object, title: str, message: str, details: Any) -> None:
            self.calls.append(("show_error", (title, message, list(details))))

        def offer_recovery(_parent: object, entries: Any) -> Any:
            self.calls.append(("offer_recovery", (list(entries),)))
            if self.recovery_choice == "first":
                return next(iter(entries)) if entries else None
            return self.recovery_choice

        def choose_open_path(_parent: object, directory: str) -> str | None:
            self.calls.append(("choose_open_path", (directory,)))
            return self.open_path

        def choose_save_path(_parent: object, suggested: str) -> str | None:
            self.calls.append(("choose_save_path", (suggested,)))
            return self.save_path

        def choose_export_dir(_parent: object, directory: str) -> str | None:
            self.calls.append(("choose_export_dir", (directory,)))
            return self.export_dir

        def ask_text(_parent: object, title: str, label: str, initial: str) -> str | None:
            self.calls.append(("ask_text", (title, label, initial)))
            return self.text_answers.pop(0) if self.text_answers else None

        def choose_export_target(_parent: object, kind: Any, suggested: str) -> Any:
            self.calls.append(("choose_export_target", (kind, suggested)))
            return self.export_request

        def show_notes(_parent: object, title: str, message: str, notes: Any) -> None:
            self.calls.append(("show_notes", (title, message, list(notes))))

        def choose_mtlx_path(_parent: object, _directory: str) -> str | None:
            self.calls.append(("choose_mtlx_path", ()))
            return self.mtlx_path

        def choose_mtlx_material(_parent: object, document: str, names: Any) -> str | None:
            self.calls.append(("choose_mtlx_material", (document, list(names))))
            return self.mtlx_material

        def ask_update_functions(_parent: object, names: Any) -> bool:
            self.calls.append(("ask_update_functions", (list(names),)))
            return self.update_functions

        return Prompts(ask_save_changes, show_error, offer_recovery, choose_open_path, choose_save_path,
                       choose_export_dir, ask_text, choose_export_target, show_notes, choose_mtlx_path,
                       ask_update_functions, choose_mtlx_material=choose_mtlx_material)


@pytest.fixture(autouse=True)
def no_leaked_windows(qapp):
    """Fail a test that leaves a main window open (autouse: set up first, torn down last), then delete the
    widgets the test closed. pytest-qt closes each widget a test registered and calls its `deleteLater`, but a
    deferred deletion happens only in a running event loop, and between tests none runs (`processEvents` does not
    deliver it): every closed window stayed alive to the end of the worker's run, with its environment worker's
    thread, its timers and its signal connections, and each new window cost more than the last (docs/testing.md,
    "What was cut")."""
    yield
    from app.ui.main_window import MainWindow

    leaked = [widget for widget in qapp.topLevelWidgets() if isinstance(widget, MainWindow) and widget.isVisible()]
    for widget in leaked:
        widget.prompts.ask_save_changes = lambda _parent, _name: SaveChoice.DISCARD
        widget.close()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not leaked, f"{len(leaked)} main window(s) left open"


@pytest.fixture(autouse=True)
def function_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's function library, in the test's temporary directory (never the real one)."""
    from app.material.library import USER_LIBRARY_ENV

    directory = tmp_path / "function-library"
    monkeypatch.setenv(USER_LIBRARY_ENV, str(directory))
    return directory


@pytest.fixture
def recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "recovery"
    monkeypatch.setenv(RECOVERY_DIR_ENV, str(directory))
    return directory


@pytest.fixture
def prompts() -> RecordingPrompts:
    return RecordingPrompts()


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    from app.ui.node_thumbnails import THUMBNAILS_SETTING

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    # Node thumbnails draw on a worker thread with its own OpenGL context: only the tests that
    # set this (tests/app/ui/test_node_thumbnails_ui.py) pay for them on the shared machine.
    settings.setValue(THUMBNAILS_SETTING, False)
    return settings


@pytest.fixture
def make_window(qtbot, prompts: RecordingPrompts, settings: QSettings, recovery_dir: Path):
    """Builds shown main windows on `example` (None: the editor's default example); all are closed at teardown."""
    from app.ui.main_window import MainWindow

    windows: list[MainWindow] = []

    def make(load_example: bool = True, preview_gl: str | None = None, example: str | None = WINDOW_EXAMPLE) -> MainWindow:
        window = MainWindow(prompts=prompts.as_prompts(), settings=settings, recovery=RecoveryStore(recovery_dir),
                            preview_gl=preview_gl)
        qtbot.addWidget(window)
        if load_example:
            if example is None:
                window.load_example()
            else:
                window.load_example(example)
            window.flush()  # opening lowers on the worker: the panels fill when it is done
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield make
    prompts.save_choice = SaveChoice.DISCARD
    for window in windows:
        window.close()


@pytest.fixture
def window_example() -> str:
    """The example the `window` fixture (and `make_window()`) opens."""
    return WINDOW_EXAMPLE


@pytest.fixture
def window(make_window) -> Iterator[Any]:
    return make_window()
