"""Files the desktop hands to a running editor.

macOS delivers a file opened from Finder, or dropped on the Dock icon,
to the running application as a `QFileOpenEvent` rather than on the
command line (the first one, at launch, reaches `sys.argv` through
PyInstaller's argv emulation). `FileOpenRelay`, installed as an event
filter on the application, opens each such file in the window the same
way File > Open does (asking about unsaved changes first). Other
platforms never send the event, so the relay is harmless there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QFileOpenEvent

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class FileOpenRelay(QObject):
    """Event filter on the QApplication: QFileOpenEvent -> `window.open_file(path)`."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() != QEvent.Type.FileOpen or not isinstance(event, QFileOpenEvent):
            return False
        path = event.file() or event.url().toLocalFile()
        if path:
            # Outside the event delivery: open_file may show dialogs (unsaved changes, errors).
            QTimer.singleShot(0, lambda: self._window.open_file(path))
        return True
