"""File > Open Recent: the last files opened or saved, kept in QSettings (newest first, at most 8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu

MAX_RECENT_FILES = 8
RECENT_FILES_KEY = "recentFiles"


class RecentFiles:
    """Keeps the list in `settings` and `menu` in step with it; choosing an entry calls `open_file`."""

    def __init__(self, settings: QSettings, menu: QMenu, open_file: Callable[[str], object]) -> None:
        self.settings = settings
        self.menu = menu
        self._open_file = open_file
        self._rebuild()

    def files(self) -> list[str]:
        value = self.settings.value(RECENT_FILES_KEY, [])
        return [str(item) for item in ([value] if isinstance(value, str) else (value or []))]

    def add(self, path: Path) -> None:
        entry = str(path.resolve())
        files = [entry] + [item for item in self.files() if item != entry]
        self.settings.setValue(RECENT_FILES_KEY, files[:MAX_RECENT_FILES])
        self._rebuild()

    def _rebuild(self) -> None:
        self.menu.clear()
        files = self.files()
        for entry in files:
            action = self.menu.addAction(entry)
            action.triggered.connect(lambda _checked=False, path=entry: self._open_file(path))
        self.menu.setEnabled(bool(files))
