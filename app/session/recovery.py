"""Autosave files and crash recovery.

Every editor window owns one `RecoveryStore` slot in the recovery directory:
`autosave-<pid>-<token>.vpl` (a full document as `save_text` writes it, so
recovering is just opening it) beside a `.json` note of where the document
came from. A clean close removes the slot. A slot left behind by a process
that is no longer running, or by a window of this process that no longer
exists, is an orphan: the next window offers it for recovery.

The directory is `$VPL_EDITOR_RECOVERY_DIR` when set (tests), otherwise
`<application data>/recovery` (the Qt layer passes QStandardPaths'
AppDataLocation: `app.ui.recovery`), otherwise
`~/.local/share/vpl-editor/recovery`. No Qt here: the session autosaves and
recovers through this store.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from app.material.document import LoadedDocument, load_text
from vpl_core.atomic_write import write_atomically
from vpl_core.external_files import read_external

RECOVERY_DIR_ENV = "VPL_EDITOR_RECOVERY_DIR"
AUTOSAVE_INTERVAL_MS = 30_000

#: Tokens of the stores alive in this process: a slot with our pid but an
#: unknown token belongs to a window that went away without cleaning up.
_ACTIVE_TOKENS: set[str] = set()


def recovery_dir(application_data: str | None = None) -> Path:
    """Where autosaves go: the environment override, else `<application_data>/recovery`, else ~/.local/share."""
    override = os.environ.get(RECOVERY_DIR_ENV)
    if override:
        return Path(override)
    if application_data:
        return Path(application_data) / "recovery"
    return Path.home() / ".local" / "share" / "vpl-editor" / "recovery"


@dataclass(frozen=True)
class RecoveryEntry:
    document_path: Path        # the autosaved document (.vpl)
    note_path: Path            # its .json note
    source: str | None         # the file the work belonged to; None for an untitled document
    saved_at: float            # seconds since the epoch
    pid: int
    token: str

    @property
    def description(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.saved_at))
        return f"{self.source or 'untitled material'} (autosaved {when})"


def _process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data)


class RecoveryStore:
    """One window's autosave slot, and the finder of other windows' orphans."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else recovery_dir()
        self.pid = os.getpid()
        self.token = uuid.uuid4().hex[:12]
        _ACTIVE_TOKENS.add(self.token)
        stem = f"autosave-{self.pid}-{self.token}"
        self.document_path = self.directory / f"{stem}.vpl"
        self.note_path = self.directory / f"{stem}.json"

    def write(self, document_text: str, source: str | None) -> Path:
        """Autosave: the document first, then the note that makes it recoverable."""
        _atomic_write(self.document_path, document_text.encode("utf-8"))
        note = {"source": source, "saved_at": time.time(), "pid": self.pid, "token": self.token}
        _atomic_write(self.note_path, json.dumps(note, sort_keys=True).encode("utf-8"))
        return self.document_path

    def clear(self) -> None:
        """Forget this window's autosave (nothing left to recover)."""
        self.note_path.unlink(missing_ok=True)
        self.document_path.unlink(missing_ok=True)

    def close(self) -> None:
        """Clean exit: remove the slot and retire the token."""
        self.clear()
        _ACTIVE_TOKENS.discard(self.token)

    def orphans(self) -> list[RecoveryEntry]:
        """Slots whose owner is gone, newest first."""
        if not self.directory.is_dir():
            return []
        entries: list[RecoveryEntry] = []
        for note_path in self.directory.glob("autosave-*.json"):
            entry = self._read_entry(note_path)
            if entry is None or entry.token in _ACTIVE_TOKENS:
                continue
            if entry.pid != self.pid and _process_alive(entry.pid):
                continue  # another editor is running and owns it
            entries.append(entry)
        entries.sort(key=lambda entry: entry.saved_at, reverse=True)
        return entries

    @staticmethod
    def _read_entry(note_path: Path) -> RecoveryEntry | None:
        document_path = note_path.with_suffix(".vpl")
        try:
            note = json.loads(note_path.read_text(encoding="utf-8"))
            if not document_path.is_file():
                return None
            return RecoveryEntry(
                document_path=document_path,
                note_path=note_path,
                source=note.get("source"),
                saved_at=float(note.get("saved_at", 0.0)),
                pid=int(note.get("pid", 0)),
                token=str(note.get("token", "")),
            )
        except (OSError, ValueError, TypeError, AttributeError):
            return None

    @staticmethod
    def read(entry: RecoveryEntry) -> LoadedDocument:
        """The autosaved document of `entry` (raises OSError when it cannot be read)."""
        return load_text(read_external(entry.document_path, "document"), str(entry.document_path))

    @staticmethod
    def keep_damaged(entry: RecoveryEntry) -> Path:
        """Set aside an autosave that could not be recovered (never deleted: it may be the only copy).

        The document is renamed `damaged-<name>.vpl` in the same directory,
        so it is no longer offered, and its note is removed. Returns where
        it now is (where it was, if even the rename fails).
        """
        kept = entry.document_path.with_name(f"damaged-{entry.document_path.name}")
        try:
            os.replace(entry.document_path, kept)
        except OSError:
            return entry.document_path
        entry.note_path.unlink(missing_ok=True)
        return kept

    @staticmethod
    def discard(entry: RecoveryEntry) -> None:
        entry.note_path.unlink(missing_ok=True)
        entry.document_path.unlink(missing_ok=True)
