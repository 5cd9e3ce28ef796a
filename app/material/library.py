"""The material function library: node group definitions saved as `.vplf` files, and brought back.

A `.vplf` file holds one material function: a group definition and every
definition it calls (nested groups), as JSON, one node or connection per
line (docs/file-format.md, "Function files"):

    {"format": "vpl-material-function", "function": "wet_mask", "version": 1,
     "functions": [
      {... a definition, exactly as a material's `functions` entry ...},
      ...
     ]}

Two folders are searched (`library_folders`): the user's library
(`$VPL_FUNCTION_LIBRARY`, else the platform's data folder,
`~/.local/share/vpl-editor/functions` on Linux) and the project's, a
`functions/` folder beside the material file. The editor lists both in the
palette under "Functions".

A material never depends on the library to open: using a library function
(`import_function`) *embeds* its definitions in the material (saved with
it), each root definition carrying a `LibraryLink` (folder, file, and the
hash of what was embedded). `outdated` compares each link with the
library's current copy; `update_function` re-applies the library copy,
keeping the definition's id so every instance follows (inputs and outputs
that no longer exist lose their wires).

Nothing here raises on a bad file: `read_function_text` raises
`LibraryError` with the reason, and listing a folder reports unreadable
files as problems next to the usable entries.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.material.graph import (
    GRAPH_FORMAT,
    GRAPH_VERSION_WITH_FUNCTIONS,
    GraphFormatError,
    GroupDefinition,
    LibraryLink,
    MaterialGraph,
)
from app.material.group_names import FUNCTION_PROPERTY, slug, unique
from app.material.groups import GROUP_TYPE, instance_type, instances, reachable
from vpl_core.atomic_write import write_atomically
from vpl_core.external_files import ExternalFileError, read_external

FUNCTION_FILE_SUFFIX = ".vplf"
FUNCTION_FORMAT = "vpl-material-function"
FUNCTION_VERSION = 1
USER_LIBRARY_ENV = "VPL_FUNCTION_LIBRARY"
PROJECT_FOLDER_NAME = "functions"
USER = "user"
PROJECT = "project"


class LibraryError(ValueError):
    """A function file that cannot be used, with the reason."""


@dataclass(frozen=True)
class LibraryFunction:
    """One usable function file: where it is, its root definition's id, the definitions, their hash."""

    folder: str
    path: Path
    root: str
    functions: Mapping[str, GroupDefinition]
    sha256: str

    @property
    def definition(self) -> GroupDefinition:
        return self.functions[self.root]

    @property
    def name(self) -> str:
        return self.definition.name


# Folders ----------------------------------------------------------------------------------------


def user_library_folder() -> Path:
    """The user's function library (`$VPL_FUNCTION_LIBRARY`, else the platform's application data folder)."""
    configured = os.environ.get(USER_LIBRARY_ENV)
    if configured:
        return Path(configured).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "vpl-editor" / PROJECT_FOLDER_NAME


def project_library_folder(document_path: Path | None) -> Path | None:
    """The `functions/` folder beside a saved material (None for a document never saved)."""
    return document_path.parent / PROJECT_FOLDER_NAME if document_path is not None else None


def library_folders(document_path: Path | None) -> dict[str, Path]:
    """The folders searched, by kind ("user", "project")."""
    folders = {USER: user_library_folder()}
    project = project_library_folder(document_path)
    if project is not None:
        folders[PROJECT] = project
    return folders


# Files ------------------------------------------------------------------------------------------


def _closure(functions: Mapping[str, GroupDefinition], root: str) -> dict[str, GroupDefinition]:
    """`root` and every definition it calls, directly or not."""
    return {function_id: functions[function_id] for function_id in sorted(reachable(functions, [root]))}


def definition_hash(functions: Mapping[str, GroupDefinition], root: str) -> str:
    """SHA-256 of a function's definitions as a library file holds them (library links left out)."""
    entries = []
    for function_id, definition in sorted(_closure(functions, root).items()):
        data = definition.to_dict()
        data.pop("library", None)
        entries.append([function_id, data])
    text = json.dumps([root, entries], sort_keys=True, ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def function_text(functions: Mapping[str, GroupDefinition], root: str) -> str:
    """The `.vplf` text of `root` and the definitions it calls (deterministic, one item per line)."""
    from app.material.document import graph_json_lines

    definitions = []
    for definition in _closure(functions, root).values():
        data = definition.to_dict()
        data.pop("library", None)
        definitions.append(data)
    data = {"format": FUNCTION_FORMAT, "version": FUNCTION_VERSION, "function": root, "functions": definitions}
    return "\n".join(graph_json_lines(data)) + "\n"


def read_function_text(text: str, path: Path, folder: str) -> LibraryFunction:
    """A function file's content; LibraryError with the reason when it cannot be used."""
    try:
        data = json.loads(text)
    except RecursionError as error:
        raise LibraryError(f"{path.name}: nested too deeply") from error
    except ValueError as error:
        raise LibraryError(f"{path.name}: not valid JSON ({error})") from error
    if not isinstance(data, dict) or data.get("format") != FUNCTION_FORMAT:
        raise LibraryError(f"{path.name}: not a material function file")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise LibraryError(f"{path.name}: the version must be a whole number such as {FUNCTION_VERSION}, "
                           f"not {_json_kind(version)}")
    if version != FUNCTION_VERSION:
        raise LibraryError(f"{path.name}: unsupported version {version} (this editor reads version {FUNCTION_VERSION})")
    root = data.get("function")
    try:
        graph = MaterialGraph.from_dict({"format": GRAPH_FORMAT, "version": GRAPH_VERSION_WITH_FUNCTIONS,
                                         "functions": data.get("functions", [])})
    except GraphFormatError as error:
        raise LibraryError(f"{path.name}: {error}") from error
    if not isinstance(root, str) or root not in graph.functions:
        raise LibraryError(f"{path.name}: the function {root!r} is not among its definitions")
    return LibraryFunction(folder, path, root, graph.functions, definition_hash(graph.functions, root))


def _json_kind(value: object) -> str:
    """How a JSON value is named in a message (short; a long text is cut)."""
    if value is None:
        return "missing"
    if isinstance(value, str):
        return f"the text {value[:20]!r}"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, float):
        return f"the number {value!r}"
    return "an object" if isinstance(value, dict) else "a list"


def read_function_file(path: Path, folder: str) -> LibraryFunction:
    """A function file from disk: a regular file within the `.vplf` budget (a pipe or device is refused unread)."""
    try:
        text = read_external(path, "vplf").decode("utf-8")
    except ExternalFileError as error:
        raise LibraryError(f"{path.name}: cannot be read ({error.reason})") from error
    except (OSError, UnicodeDecodeError) as error:
        raise LibraryError(f"{path.name}: cannot be read ({error})") from error
    return read_function_text(text, path, folder)


def list_library(folders: Mapping[str, Path]) -> tuple[list[LibraryFunction], list[str]]:
    """The usable function files of each folder (by name), and the problems of the others."""
    found: list[LibraryFunction] = []
    problems: list[str] = []
    for folder, directory in folders.items():
        try:
            if not directory.is_dir():
                continue
            paths = sorted(directory.glob(f"*{FUNCTION_FILE_SUFFIX}"))
        except OSError as error:  # a folder path the platform refuses (too long, a loop of links)
            problems.append(f"{folder} library: {directory}: cannot be listed ({error.strerror or error})")
            continue
        for path in paths:
            try:
                found.append(read_function_file(path, folder))
            except LibraryError as error:
                problems.append(f"{folder} library: {error}")
    found.sort(key=lambda entry: (entry.name.lower(), entry.folder))
    return found, problems


def save_function(document: MaterialGraph, function_id: str, directory: Path, folder: str) -> tuple[Path, MaterialGraph]:
    """Write `function_id` (and what it calls) to `directory` as `<name>.vplf`; the document, now linked to it.

    An existing file of the same name is replaced (saving again publishes
    the new version; materials that embedded the old one are offered the
    update when they are opened).
    """
    functions = document.functions
    if function_id not in functions:
        raise LibraryError(f"group '{function_id}' is not defined in this material")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{slug(functions[function_id].name)}{FUNCTION_FILE_SUFFIX}"
    write_atomically(path, function_text(functions, function_id).encode("ascii"))
    linked = document.copy()
    linked.functions[function_id].library = LibraryLink(folder, path.name, definition_hash(functions, function_id))
    return path, linked


# Using and updating -----------------------------------------------------------------------------


def linked_definition(document: MaterialGraph, entry: LibraryFunction) -> str | None:
    """The definition of `document` embedded from `entry`'s file, if any."""
    for function_id, definition in document.functions.items():
        link = definition.library
        if link is not None and link.folder == entry.folder and link.file == entry.path.name:
            return function_id
    return None


def _embed(document: MaterialGraph, entry: LibraryFunction, keep_root_id: str | None) -> str:
    """Copy `entry`'s definitions into `document` (in place) under fresh ids; returns the root's id there."""
    renamed: dict[str, str] = {}
    taken = set(document.functions)
    for function_id in entry.functions:
        if function_id == entry.root and keep_root_id is not None:
            renamed[function_id] = keep_root_id
            continue
        fresh = unique(function_id, taken)
        taken.add(fresh)
        renamed[function_id] = fresh
    for function_id, definition in entry.functions.items():
        copy = definition.copy()
        copy.id = renamed[function_id]
        copy.library = None
        for node in copy.body.nodes.values():
            if node.type_name == GROUP_TYPE and node.properties.get(FUNCTION_PROPERTY) in renamed:
                node.properties[FUNCTION_PROPERTY] = renamed[node.properties[FUNCTION_PROPERTY]]
        document.functions[copy.id] = copy
    root = renamed[entry.root]
    document.functions[root].library = LibraryLink(entry.folder, entry.path.name, entry.sha256)
    return root


def import_function(document: MaterialGraph, entry: LibraryFunction) -> tuple[MaterialGraph, str]:
    """`document` with `entry` embedded (or the definition already embedded from that file); its id."""
    existing = linked_definition(document, entry)
    if existing is not None:
        return document, existing
    result = document.copy()
    return result, _embed(result, entry, None)


def outdated(document: MaterialGraph, entries: Iterable[LibraryFunction]) -> list[tuple[str, LibraryFunction]]:
    """(definition id, library copy) for each embedded function whose library file changed since."""
    changed = []
    for entry in entries:
        function_id = linked_definition(document, entry)
        if function_id is not None and document.functions[function_id].library.sha256 != entry.sha256:  # type: ignore[union-attr]  # `linked_definition` only returns definitions with a library link
            changed.append((function_id, entry))
    return changed


def update_function(document: MaterialGraph, function_id: str, entry: LibraryFunction) -> MaterialGraph:
    """`document` with definition `function_id` replaced by the library copy (same id: instances follow).

    Wires into or out of ports the new interface no longer has are
    removed; definitions only the old version called are dropped.
    """
    from app.material.groups import level_graph

    result = document.copy()
    # Definitions only the old version called go first (so the new ones can take their ids back).
    old_callees = reachable(result.functions, [function_id]) - {function_id}
    others = [other for other in result.functions if other not in old_callees and other != function_id]
    for stale in old_callees - reachable(result.functions, others):
        del result.functions[stale]
    _embed(result, entry, function_id)
    definition = result.functions[function_id]
    node_type = instance_type(definition)
    inputs = {port.name for port in node_type.inputs}
    outputs = {port.name for port in node_type.outputs}
    for level in [None, *result.functions]:
        graph = level_graph(result, level)
        ids = {node.id for node in instances(graph, function_id)}
        graph.connections = [
            connection for connection in graph.connections
            if not (connection.target_node in ids and connection.target_port not in inputs)
            and not (connection.source_node in ids and connection.source_port not in outputs)
        ]
    return result


def describe(entry: LibraryFunction) -> dict[str, Any]:
    """What the palette shows of an entry."""
    return {"name": entry.name, "description": entry.definition.description, "folder": entry.folder,
            "file": entry.path.name}
