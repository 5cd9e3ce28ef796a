"""Texture files: where a stored path points, reading the image, and why it could not be read.

Paths. A Texture Parameter stores its image path as the artist chose it,
made relative to the document's folder when the document has one
(`stored_texture_path`, POSIX separators, `..` allowed), absolute
otherwise. A relative path is resolved against the document's folder
(`resolve_texture_path`), never the working directory, so a material opens
with its textures from anywhere. Saving a document into a folder rewrites
its paths so they still name the same files, relative to the new folder
(`rebase_texture_path`: absolute paths of a never-saved document too).

Reading. OpenImageIO (the Academy Software Foundation's image library)
reads every format the editor accepts (`SUPPORTED_FORMATS`): 8-bit images
come back as uint8 RGBA; 16-bit PNG/TIFF, Radiance HDR and OpenEXR as
float32 RGBA with their values as stored (16-bit integers scaled to 0..1,
HDR and EXR linear and unclamped), for data maps that need the precision.
Grey images are spread to RGB, a missing alpha is 1, the file's own
orientation (EXIF, TGA origin) is applied, and the top row comes first.
Anything unreadable raises `TextureLoadError` with the reason: a file that
is not a regular file or is over the image budget
(`vpl_core.external_files`), a path the platform refuses, an image larger
than `MAX_TEXTURE_SIZE` on a side or with more than `MAX_TEXTURE_PIXELS`
pixels (read from the header, before decoding).

`TextureCache` reads each file once and reads it again when its size or
modification time changes.
"""

from __future__ import annotations

import ntpath
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from vpl_core.external_files import ExternalFileError, check_file

#: What the editor reads, by the name an artist knows, with the file name endings.
SUPPORTED_FORMATS: dict[str, tuple[str, ...]] = {
    "PNG (8 or 16 bits per channel)": (".png",),
    "JPEG": (".jpg", ".jpeg"),
    "Targa": (".tga",),
    "BMP": (".bmp",),
    "TIFF (8, 16 or 32 bits)": (".tif", ".tiff"),
    "WebP": (".webp",),
    "Radiance HDR": (".hdr",),
    "OpenEXR": (".exr",),
}
SUPPORTED_EXTENSIONS = tuple(extension for extensions in SUPPORTED_FORMATS.values() for extension in extensions)
#: The largest image side read (larger is a mistake, not a texture).
MAX_TEXTURE_SIZE = 16384
#: The most pixels read (16384 x 4096, 8192 x 8192: 1 GiB as float RGBA), checked from the header before decoding.
MAX_TEXTURE_PIXELS = 8192 * 8192


class TextureLoadError(Exception):
    """An image that cannot be used, with the reason for the artist."""


@dataclass(frozen=True, eq=False)
class TextureImage:
    """A decoded image: (height, width, 4) RGBA, top row first; uint8, or float32 for high-precision sources."""

    pixels: np.ndarray
    path: Path
    #: The Texture Parameter's colour space ("srgb" or "linear"): how the renderer must decode the values.
    color_space: str = "srgb"

    @property
    def high_precision(self) -> bool:
        return self.pixels.dtype == np.float32

    @property
    def size(self) -> tuple[int, int]:
        return int(self.pixels.shape[1]), int(self.pixels.shape[0])


def image_filter() -> str:
    """A file dialog filter for the supported formats (Qt's "Name (*.a *.b);;All files (*)" syntax)."""
    patterns = " ".join(f"*{extension}" for extension in SUPPORTED_EXTENSIONS)
    return f"Images ({patterns});;All files (*)"


def supported_formats_text() -> str:
    """One line naming every accepted format (docs, tooltips, diagnostics)."""
    return ", ".join(f"{name} ({' '.join(extensions)})" for name, extensions in SUPPORTED_FORMATS.items())


# Paths ------------------------------------------------------------------------------------------


def _is_absolute(stored: str) -> bool:
    return os.path.isabs(stored) or ntpath.isabs(stored)


def resolve_texture_path(stored: str, directory: Path | None) -> Path:
    """The file a stored path names: relative paths against the document's folder (`directory`).

    A relative path in a document without a folder (never saved) can only be
    taken as it stands, relative to the working directory.
    """
    path = Path(stored.replace("\\", "/")) if not _is_absolute(stored) else Path(stored)
    if path.is_absolute() or directory is None:
        return path
    return Path(os.path.normpath(directory / path))


def stored_texture_path(chosen: str | os.PathLike[str], directory: Path | None) -> str:
    """How a chosen file is stored: relative to the document's folder with `/`, else absolute."""
    path = Path(chosen)
    if directory is None:
        return str(path.absolute()) if not path.is_absolute() else str(path)
    if not path.is_absolute():
        path = directory / path
    try:
        relative = os.path.relpath(path, directory)
    except ValueError:  # another drive (Windows): no relative path exists
        return str(path)
    return PurePosixPath(*Path(relative).parts).as_posix()


def rebase_texture_path(stored: str, old_directory: Path | None, new_directory: Path | None) -> str:
    """A stored path as it must read from `new_directory` to name the same file.

    Relative wherever possible (an absolute path chosen while the document
    had no folder becomes relative once it has one); a document without a
    folder keeps what it has.
    """
    if not stored or new_directory is None:
        return stored
    if not _is_absolute(stored) and old_directory == new_directory:
        return stored
    return stored_texture_path(resolve_texture_path(stored, old_directory), new_directory)


# Reading ----------------------------------------------------------------------------------------


def _rgba(pixels: np.ndarray) -> np.ndarray:
    channels = pixels.shape[2]
    if channels == 1:
        pixels = np.repeat(pixels, 3, axis=2)
    elif channels == 2:  # grey and alpha
        pixels = np.concatenate([np.repeat(pixels[:, :, :1], 3, axis=2), pixels[:, :, 1:2]], axis=2)
    if pixels.shape[2] == 3:
        opaque = np.full(pixels.shape[:2] + (1,), 255 if pixels.dtype == np.uint8 else 1.0, dtype=pixels.dtype)
        pixels = np.concatenate([pixels, opaque], axis=2)
    return np.ascontiguousarray(pixels[:, :, :4])


def load_texture(path: Path, color_space: str = "srgb") -> TextureImage:
    """Read an image file; raises `TextureLoadError` with the reason."""
    import OpenImageIO as oiio  # noqa: N813 - the library's own documented alias

    try:
        # A regular file within the image budget; a pipe, a device or a path the platform refuses
        # (longer than it allows) is a reason, not an exception.
        check_file(path, "image")
    except ExternalFileError as error:
        raise TextureLoadError(str(error)) from error
    if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
        raise TextureLoadError(f"{path}: not a supported image format (supported: {supported_formats_text()})")
    buffer = oiio.ImageBuf(str(path))
    if buffer.has_error:
        message = buffer.geterror().removeprefix("Could not open file: ")
        raise TextureLoadError(f"{path}: cannot read the image ({message})")
    spec = buffer.spec()
    if spec.width < 1 or spec.height < 1 or spec.nchannels < 1:
        raise TextureLoadError(f"{path}: the image is empty")
    if max(spec.width, spec.height) > MAX_TEXTURE_SIZE:
        raise TextureLoadError(f"{path}: {spec.width}x{spec.height} is larger than {MAX_TEXTURE_SIZE} pixels on a side")
    if spec.width * spec.height * max(spec.depth, 1) > MAX_TEXTURE_PIXELS:
        raise TextureLoadError(f"{path}: {spec.width}x{spec.height} has more than {MAX_TEXTURE_PIXELS} pixels "
                               "(the header is read before any pixel)")
    eight_bit = spec.format.basetype in (oiio.UINT8, oiio.INT8)
    buffer = oiio.ImageBufAlgo.reorient(buffer)
    pixels = buffer.get_pixels(oiio.UINT8 if eight_bit else oiio.FLOAT)
    if buffer.has_error or pixels is None:
        raise TextureLoadError(f"{path}: cannot read the image ({buffer.geterror() or 'no pixels'})")
    pixels = np.asarray(pixels)
    if pixels.ndim == 4:  # a volume: its first slice
        pixels = pixels[0]
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if not eight_bit and not np.isfinite(pixels).all():
        pixels = np.nan_to_num(pixels, nan=0.0, posinf=65504.0, neginf=-65504.0)  # what a half-float texture holds
    return TextureImage(_rgba(pixels.astype(np.uint8 if eight_bit else np.float32, copy=False)), path, color_space)


class TextureCache:
    """Images by file, read again only when the file's size or modification time changes."""

    def __init__(self) -> None:
        self._entries: dict[tuple[Path, str], tuple[tuple[int, int], TextureImage]] = {}
        self.reads = 0

    def get(self, path: Path, color_space: str = "srgb") -> TextureImage:
        """The image at `path`; raises `TextureLoadError`."""
        try:
            info = path.stat()
            stamp = (info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = (-1, -1)
        key = (path, color_space)
        cached = self._entries.get(key)
        if cached is not None and cached[0] == stamp and stamp != (-1, -1):
            return cached[1]
        self.reads += 1
        image = load_texture(path, color_space)
        self._entries[key] = (stamp, image)
        return image
