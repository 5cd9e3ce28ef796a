"""Writing a file atomically without changing what the user set up around it.

`write_atomically(path, data)` is the one way the project replaces a file
(the editor's documents and autosaves, `vpl compile` exports):

- **Atomic**: the bytes go to a temporary file in the target's directory
  (`.<name>.<host>-<pid>-<random>.tmp`: whose it is), are flushed and fsynced, and the temporary file
  is renamed over the target (`os.replace`; the directory is fsynced after,
  where the platform allows). A reader sees the old file or the new one,
  never a mixture; on any failure the temporary file is removed, the old
  file is untouched and the error propagates.
- **Permissions**: an existing target keeps its mode; a new file gets the
  mode any program's `open()` would give it, 0666 less the process umask
  (0644 with the usual umask 022), not `mkstemp`'s private 0600.
- **Symbolic links**: writing through a link replaces the file the link
  points to (resolved fully), and the link stays a link.
- **Orphans**: a process killed between creating and renaming its
  temporary file leaves it behind; writing the same target again removes
  those of writers on this host that are no longer running at once, and
  any other (another host's, an older naming) once it is older than
  `ORPHAN_AGE_SECONDS` (a live writer renames its file within milliseconds).

Owner and group of an existing file are not carried over (that needs
privileges); the file belongs to the user who saved it, as with any editor
that saves by rename.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

TEMPORARY_SUFFIX = ".tmp"
#: A temporary file of ours this old belongs to a writer that died before renaming it.
ORPHAN_AGE_SECONDS = 600.0
DEFAULT_FILE_MODE = 0o666


def current_umask() -> int:
    """The process umask, read without changing it where the system says (Linux), else set and restored."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to `path` must replace: `path` itself, or what its symbolic link(s) point to."""
    target = Path(path)
    if target.is_symlink():
        return Path(os.path.realpath(target))
    return target


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return DEFAULT_FILE_MODE & ~current_umask()


def _temporary_prefix(target: Path) -> str:
    return f".{target.name}."


def _host() -> str:
    """This machine's name as it goes into temporary file names (no path separators; '-' kept)."""
    uname = getattr(os, "uname", None)
    name = uname().nodename if uname is not None else os.environ.get("COMPUTERNAME", "")
    return "".join(character if character.isalnum() or character in "-_" else "_" for character in name) or "host"


def _writer_gone(owner: str) -> bool:
    """Whether the `<host>-<pid>` of a temporary file's name is a process of this host that no longer runs."""
    host, _, pid_text = owner.rpartition("-")
    if host != _host() or not pid_text.isdigit() or os.name != "posix":
        return False  # another machine's (or a platform where os.kill(pid, 0) is not a probe): age decides
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False  # running under another user, or not a pid at all
    return False


def remove_orphans(target: Path, older_than: float = ORPHAN_AGE_SECONDS) -> list[Path]:
    """Delete temporary files a killed writer of `target` left behind; returns what was removed."""
    removed: list[Path] = []
    now = time.time()
    prefix = _temporary_prefix(target)
    try:
        candidates = list(target.parent.iterdir())
    except OSError:
        return removed
    for candidate in candidates:
        name = candidate.name
        if not (name.startswith(prefix) and name.endswith(TEMPORARY_SUFFIX)) or len(name) <= len(prefix) + len(TEMPORARY_SUFFIX):
            continue
        owner = name[len(prefix) : -len(TEMPORARY_SUFFIX)].rpartition("-")[0]  # <host>-<pid> of <host>-<pid>-<random>
        with contextlib.suppress(OSError):
            info = candidate.lstat()
            if stat.S_ISREG(info.st_mode) and (now - info.st_mtime > older_than or _writer_gone(owner)):
                candidate.unlink()
                removed.append(candidate)
    return removed


def _fsync_directory(directory: Path) -> None:
    # Makes the rename durable; not every platform can open a directory (Windows), which is fine.
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


_TEMPORARY_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_NAME_ATTEMPTS = 100


def _create_temporary(directory: Path, prefix: str) -> tuple[int, str]:
    """A new file `<prefix><random>.tmp` in `directory`, created exclusively (mode 0600): descriptor and path.

    What `tempfile.mkstemp` does, without importing `tempfile` (which brings
    `shutil`, `random` and their imports: about 5 ms of every `vpl compile`).
    """
    for _ in range(_NAME_ATTEMPTS):
        path = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{TEMPORARY_SUFFIX}")
        try:
            return os.open(path, _TEMPORARY_FLAGS, 0o600), path
        except FileExistsError:
            continue
        except PermissionError:
            # Windows reports a directory of that name as a permission error.
            if os.name == "nt" and os.path.isdir(path):
                continue
            raise
    raise FileExistsError(f"no unused temporary file name in {directory}")


def write_atomically(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace the file at `path` (through symbolic links) with `data`; see the module docstring.

    Returns the path of the file actually written. Raises OSError (the
    target's directory is missing or not writable, the disk is full, ...).
    """
    target = resolve_target(path)
    directory = target.parent if str(target.parent) else Path(".")
    mode = _mode_for(target)
    remove_orphans(target)
    handle, temporary = _create_temporary(directory, f"{_temporary_prefix(target)}{_host()}-{os.getpid()}-")
    try:
        with os.fdopen(handle, "wb") as stream:
            if hasattr(os, "fchmod"):
                os.fchmod(stream.fileno(), mode)
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if not hasattr(os, "fchmod"):
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_directory(directory)
    return target
