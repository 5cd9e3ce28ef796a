"""Where the file dialogs start: the document's folder, else the folder last used, else the user's Documents.

Never the editor's working directory: for an untitled material that is
wherever the program happened to be started (often its install folder).
The folder of the last file opened, saved, exported or baked is kept in
QSettings (`files/lastDirectory`), so the next untitled material starts there.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

LAST_DIRECTORY_KEY = "files/lastDirectory"


def documents_directory() -> str:
    """The user's Documents folder (the home folder where the platform has none)."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return location if location and os.path.isdir(location) else str(Path.home())


def start_directory(settings: QSettings, document_path: Path | None) -> str:
    """The folder a dialog opens in for a document saved at `document_path` (None: untitled)."""
    if document_path is not None:
        return str(document_path.parent)
    last = settings.value(LAST_DIRECTORY_KEY, "")
    if isinstance(last, str) and last and os.path.isdir(last):
        return last
    return documents_directory()


def remember_directory(settings: QSettings, chosen: str | os.PathLike[str], is_folder: bool = False) -> None:
    """Keep the folder `chosen` is in (a file, or a bake's output folder), or with `is_folder` the
    folder `chosen` itself (a folder picked to export into)."""
    path = Path(chosen)
    folder = path if is_folder else path.parent
    settings.setValue(LAST_DIRECTORY_KEY, str(folder.resolve()))
