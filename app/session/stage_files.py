"""The files a stage saved with a document names (a mesh, an environment), stored as texture paths are.

A document may carry the preview stage (`MaterialGraph.stage`, the
preview's `Stage.to_dict()`, docs/file-format.md). Its `mesh` and
`environment` hold either a built-in name (`sphere`, `studio`, `none`, ...:
never with a file extension) or the path of a file, which always has one
(the mesh and environment readers go by it: `.obj`, `.gltf`, `.glb`,
`.hdr`, `.exr`). File paths follow the texture rules
(`app.session.textures`): stored relative to the document's folder with
`/`, resolved against that folder when read, rewritten when the document
is saved into another folder. Qt-free and preview-free, so the session can
rebase them on save and `--preview-screenshot` can resolve them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any

from app.session.textures import rebase_texture_path, resolve_texture_path, stored_texture_path

#: Stage fields that name a file unless they hold a built-in name.
STAGE_FILE_FIELDS = ("mesh", "environment")


def names_a_file(value: Any) -> bool:
    """A stage value that is a file path (it has a file extension; built-in names have none)."""
    return isinstance(value, str) and bool(value) and bool(PurePath(value.replace("\\", "/")).suffix)


def _with_files(stage: Mapping[str, Any], change: Callable[[str], str]) -> dict[str, Any]:
    result = dict(stage)
    for key in STAGE_FILE_FIELDS:
        if names_a_file(result.get(key)):
            result[key] = change(result[key])
    return result


def stored_stage(stage: Mapping[str, Any], directory: Path | None) -> dict[str, Any]:
    """`stage` as a document in `directory` stores it: its files relative to that folder where possible."""
    return _with_files(stage, lambda path: stored_texture_path(path, directory))


def resolved_stage(stage: Mapping[str, Any], directory: Path | None) -> dict[str, Any]:
    """`stage` read from a document in `directory`: its files as paths that open from anywhere."""
    return _with_files(stage, lambda stored: str(resolve_texture_path(stored, directory)))


def rebased_stage(stage: Mapping[str, Any], old: Path | None, new: Path | None) -> dict[str, Any]:
    """`stage` with its relative file paths rewritten to mean the same files from `new`."""
    return _with_files(stage, lambda stored: rebase_texture_path(stored, old, new))
