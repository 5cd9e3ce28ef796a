"""Watch the current material's texture files: a repainted image is read again, a deleted one is reported.

An artist keeps a texture open in a paint program beside the editor; saving
there must show in the preview, and deleting or moving the file must turn
into the usual "no such file" diagnostic on its Texture Parameter at once,
not at the next edit. A QFileSystemWatcher watches every texture file and
the folder it is in (paint programs often save by writing a new file and
renaming it over the old one, and a deleted file drops out of the watch;
its folder tells when it is back). Changes come in bursts while a file is
written, so they are gathered for `SETTLE_MS` before the session reads the
files again (`EditorSession.textures.refresh`, which reads only files whose
size or modification time changed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from app.session import EditorSession

#: How long after the last change on disk the files are read again (a paint program writes in several steps).
SETTLE_MS = 150


def _found(check: Callable[[], bool]) -> bool:
    """`check()` (Path.is_file or is_dir), False for a path the platform refuses, such as a name longer than it
    allows: the session reports that on the Texture Parameter, and there is nothing to watch."""
    try:
        return check()
    except OSError:
        return False


class TextureWatcher(QObject):
    """Keeps a QFileSystemWatcher on `session.textures.files` and refreshes the session when they change."""

    def __init__(self, session: EditorSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.watcher = QFileSystemWatcher(self)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._refresh)
        self.watcher.fileChanged.connect(self._changed)
        self.watcher.directoryChanged.connect(self._changed)
        session.textures.changed.connect(self._follow)
        session.document_changed.connect(self._follow)
        self._follow(None)

    def watched(self) -> set[str]:
        """The files and folders watched now."""
        return set(self.watcher.files()) | set(self.watcher.directories())

    def _follow(self, _payload: Any) -> None:
        """Watch exactly the current texture files (those that exist) and their folders."""
        files = self.session.textures.files
        wanted = {str(path) for path in files if _found(path.is_file)}
        wanted |= {str(path.parent) for path in files if _found(path.parent.is_dir)}
        current = self.watched()
        stale = sorted(current - wanted)
        if stale:
            self.watcher.removePaths(stale)
        new = sorted(wanted - current)
        if new:
            self.watcher.addPaths(new)

    def _changed(self, _path: str) -> None:
        self._settle.start()

    def _refresh(self) -> None:
        self.session.textures.refresh()
        self._follow(None)  # a file replaced by renaming, or back after a deletion, is watched again

    def close(self) -> None:
        self._settle.stop()
        self.session.textures.changed.disconnect(self._follow)
        self.session.document_changed.disconnect(self._follow)
        paths = sorted(self.watched())
        if paths:
            self.watcher.removePaths(paths)

