"""The recovery store with Qt's per-user application data folder (the store itself is Qt-free).

`app.session.recovery` holds the autosave slots and the orphan finder; this
module only supplies the default directory from QStandardPaths'
AppDataLocation (e.g. `~/.local/share/vpl-editor/recovery`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths

from app.session.recovery import AUTOSAVE_INTERVAL_MS, RECOVERY_DIR_ENV, RecoveryEntry
from app.session.recovery import RecoveryStore as _SessionRecoveryStore
from app.session.recovery import recovery_dir as _recovery_dir

__all__ = ["AUTOSAVE_INTERVAL_MS", "RECOVERY_DIR_ENV", "RecoveryEntry", "RecoveryStore", "recovery_dir"]


def recovery_dir() -> Path:
    return _recovery_dir(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))


class RecoveryStore(_SessionRecoveryStore):
    """`app.session.recovery.RecoveryStore` defaulting to the Qt application data folder."""

    def __init__(self, directory: Path | None = None) -> None:
        super().__init__(directory if directory is not None else recovery_dir())
