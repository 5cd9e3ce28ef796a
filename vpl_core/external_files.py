"""Reading a file an artist was handed: regular files only, within a size budget per kind.

`read_external(path, kind)` is how every reader of an outside file gets its
bytes (documents, `.vplf` functions, MaterialX, OBJ, glTF and its buffers,
images, environments, `--set NAME=@file`); `check_file(path, kind)` makes
the same checks for readers that hand the path to a library (OpenImageIO,
the MaterialX parser). Both resolve symbolic links first, accept only a
regular file (a FIFO, a device such as /dev/zero or a folder is refused
without blocking: the file is opened with O_NONBLOCK and checked with fstat),
refuse a file over its kind's budget (`BUDGETS`) before reading it, and turn
a path the platform refuses (too long, a loop of links) into
`ExternalFileError`, an OSError whose message names the file.
"""

from __future__ import annotations

import errno
import os
import stat

_MiB = 1 << 20

#: The largest file read, by kind (bytes). Generous for real assets, far below what exhausts memory.
BUDGETS: dict[str, int] = {
    "document": 256 * _MiB,  # a .vpl material document (module text and graph)
    "vplf": 64 * _MiB,  # a function library file
    "mtlx": 64 * _MiB,  # a MaterialX document
    "obj": 512 * _MiB,  # a Wavefront OBJ mesh (text; 4 million triangles take about 300 MB)
    "gltf": 256 * _MiB,  # a .gltf JSON document (with any base64 data: URIs inside it)
    "glb": 1024 * _MiB,  # a binary .glb
    "buffer": 1024 * _MiB,  # a glTF buffer file beside its .gltf
    "image": 512 * _MiB,  # a texture (PNG, JPEG, TIFF, ...)
    "environment": 1024 * _MiB,  # a Radiance .hdr or OpenEXR .exr environment
    "set-file": 256 * _MiB,  # a file named by `--set NAME=@file`
}

#: What each kind is called in messages.
KIND_NAMES: dict[str, str] = {
    "document": "document",
    "vplf": "function file",
    "mtlx": "MaterialX document",
    "obj": "OBJ file",
    "gltf": "glTF file",
    "glb": "glTF binary file",
    "buffer": "glTF buffer file",
    "image": "image",
    "environment": "environment",
    "set-file": "file",
}

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_READ_PIECE = 16 * _MiB


class ExternalFileError(OSError):
    """A file that cannot be read as the kind asked for; `str()` is one line naming the file and the reason."""

    def __init__(self, path: str | os.PathLike[str], reason: str, error_number: int = 0) -> None:
        super().__init__(error_number, reason, os.fspath(path))
        self.path = os.fspath(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def format_size(size: int) -> str:
    if size >= _MiB:
        return f"{size / _MiB:.0f} MiB" if size % _MiB == 0 else f"{size / _MiB:.1f} MiB"
    return f"{size} bytes"


def _budget(kind: str, budget: int | None) -> int:
    if budget is not None:
        return budget
    if kind not in BUDGETS:
        raise ValueError(f"unknown file kind {kind!r} (known: {', '.join(BUDGETS)})")
    return BUDGETS[kind]


def _refusal(path: str | os.PathLike[str], error: OSError, kind: str) -> ExternalFileError:
    """An OSError from the platform as an `ExternalFileError` saying what it means for this file."""
    name = KIND_NAMES.get(kind, "file")
    if error.errno == errno.ENAMETOOLONG:
        reason = f"the path of the {name} is longer than this system allows"
    elif error.errno == errno.ENOENT:
        reason = "no such file"
    elif error.errno == errno.ELOOP:
        reason = "a loop of symbolic links"
    elif error.errno == errno.EACCES:
        reason = f"the {name} cannot be read (permission denied)"
    elif error.errno == errno.ENOTDIR:
        reason = "a part of the path is not a folder"
    else:
        reason = f"the {name} cannot be read ({error.strerror or error})"
    return ExternalFileError(path, reason, error.errno or 0)


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_regular(path: str | os.PathLike[str], kind: str, budget: int | None) -> tuple[int, int]:
    """An open descriptor of the regular file at `path` (links resolved) and its size; raises ExternalFileError."""
    limit = _budget(kind, budget)
    name = KIND_NAMES.get(kind, "file")
    try:
        resolved = os.path.realpath(path)
        # O_NONBLOCK: opening a FIFO for reading would wait for a writer; a regular file ignores the flag.
        descriptor = os.open(resolved, os.O_RDONLY | _O_NONBLOCK | _O_BINARY)
    except (OSError, ValueError) as error:
        if isinstance(error, ValueError):  # a NUL byte in the path
            raise ExternalFileError(path, f"the path of the {name} is not a valid file name") from error
        raise _refusal(path, error, kind) from error
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise ExternalFileError(path, f"{_describe(info.st_mode)}, not a regular file", errno.EINVAL)
        if info.st_size > limit:
            raise ExternalFileError(
                path, f"the {name} is {format_size(info.st_size)}; at most {format_size(limit)} is read", errno.EFBIG)
        if _O_NONBLOCK and hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor, info.st_size


def check_file(path: str | os.PathLike[str], kind: str, budget: int | None = None) -> int:
    """Check that `path` is a regular file within `kind`'s budget without reading it; returns its size.

    For readers that open the file themselves (image and XML libraries).
    The check and their open are not one step; it keeps pipes, devices and
    oversized files away from them, which is what it is for.
    """
    descriptor, size = _open_regular(path, kind, budget)
    os.close(descriptor)
    return size


def read_external(path: str | os.PathLike[str], kind: str, budget: int | None = None) -> bytes:
    """The bytes of the regular file at `path`, at most `kind`'s budget; raises ExternalFileError (an OSError)."""
    descriptor, _ = _open_regular(path, kind, budget)
    limit = _budget(kind, budget)
    try:
        pieces = []
        total = 0
        while True:
            # The file may grow after fstat; reading stops one byte past the budget either way.
            piece = os.read(descriptor, min(_READ_PIECE, limit + 1 - total))
            if not piece:
                break
            pieces.append(piece)
            total += len(piece)
            if total > limit:
                name = KIND_NAMES.get(kind, "file")
                raise ExternalFileError(path, f"the {name} grew past {format_size(limit)} while it was read", errno.EFBIG)
    except ExternalFileError:
        raise
    except OSError as error:
        raise _refusal(path, error, kind) from error
    finally:
        os.close(descriptor)
    return b"".join(pieces)


def path_problem(path: str | os.PathLike[str], kind: str) -> str | None:
    """Why `path` cannot be read as `kind` (one line naming the file), or None when it can."""
    try:
        check_file(path, kind)
    except ExternalFileError as error:
        return str(error)
    return None


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether `path` names a regular file (through links); False for anything the platform refuses."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False

