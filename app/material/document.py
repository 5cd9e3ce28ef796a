"""The .vpl material document: canonical VPL text with the node graph in a leading comment block.

A file the editor saves looks like this (docs/file-format.md is the full
description)::

    // VPL material editor document
    // format: vpl-material-graph 1
    // module-sha256: 3f5a...            (hash of everything after the block)
    // graph-begin
    // {
    //  "connections": [ ...
    // }
    // graph-end
    (module 1
      ...canonical text from the writer...)

Comments are trivia to every VPL reader, so the whole file is a valid VPL
module that any conforming reader accepts. Opening:

- block present and the module text still hashes to the saved hash: the
  graph is restored exactly (editable document);
- no block, or the module was edited since (hash differs), or the block is
  unreadable: the module opens read-only (instruction view, preview,
  export) and nothing is dropped;
- not a valid module at all: diagnostics (category, line, column, message)
  and nothing else, except that a graph whose hash still matches is kept,
  so that a user's graph is never lost.

Saving never refuses: a graph that does not lower to a valid module is
saved with the module text of a placeholder material (magenta) and a note
line, so no work is lost; reopening restores the graph, whose diagnostics
reappear in the editor. Saving is atomic and keeps the file's mode and
symbolic links (`vpl_core.atomic_write`).

Hashes are over the module text with line endings normalized to LF, so a
checkout that converts line endings does not turn documents read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.material.graph import GraphFormatError, MaterialGraph
from vpl_core.atomic_write import write_atomically
from vpl_core.diagnostics import Diagnostic, VplError
from vpl_core.external_files import read_external
from vpl_core.ir.module import Module

MAGIC_LINE = "// VPL material editor document"
FORMAT_LINE = "// format: vpl-material-graph 1"
HASH_PREFIX = "// module-sha256: "
NOTE_PREFIX = "// note: "
BEGIN_LINE = "// graph-begin"
END_LINE = "// graph-end"
PLACEHOLDER_NOTE = "the graph did not lower to a valid module when saved; the module below is a placeholder material"

#: The colour of the placeholder module saved for a graph that does not lower.
PLACEHOLDER_COLOR = (1.0, 0.0, 1.0, 1.0)


@dataclass
class LoadedDocument:
    """What opening a .vpl file gave. `graph` is None for read-only and invalid files."""

    graph: MaterialGraph | None = None
    verified: Any = None  # VerifiedModule
    module: Module | None = None
    read_only: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
    message: str = ""
    label: str = ""
    #: Why the graph saved in the file is not used (the module opened read-only), "" when there is none to use:
    #: what tools that draw the module anyway (screenshots) say about it.
    graph_problem: str = ""

    @property
    def ok(self) -> bool:
        """A module was read (editable or read-only)."""
        return self.module is not None


def module_hash(module_text: str) -> str:
    return hashlib.sha256(_normalize_newlines(module_text).encode("utf-8")).hexdigest()


def _normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


_placeholder_text: str | None = None


def placeholder_module_text() -> str:
    """Canonical text of the material saved in place of a graph that does not lower."""
    global _placeholder_text
    if _placeholder_text is None:
        from app.material.lowering import lower

        graph = MaterialGraph()
        graph.add_node("material_output", properties={"base_color": PLACEHOLDER_COLOR})
        result = lower(graph)
        if not result.text:
            raise RuntimeError(f"the placeholder material does not lower: {result.diagnostics}")
        _placeholder_text = result.text
    return _placeholder_text


def save_text(graph: MaterialGraph, lowered: Any = None) -> str:
    """The document text for `graph`: graph block, hash, then the lowered module's canonical text.

    `lowered` may pass an existing `LoweringResult` of this graph to avoid
    lowering again.
    """
    if lowered is None:
        from app.material.lowering import lower

        lowered = lower(graph)
    module_text = lowered.text if (lowered.text and not lowered.errors) else ""
    note = None
    if not module_text:
        module_text = placeholder_module_text()
        note = PLACEHOLDER_NOTE
    if not module_text.endswith("\n"):
        module_text += "\n"
    graph_data = graph.to_dict()
    format_line = f"// format: {graph_data['format']} {graph_data['version']}"
    lines = [MAGIC_LINE, format_line, HASH_PREFIX + module_hash(module_text)]
    if note is not None:
        lines.append(NOTE_PREFIX + note)
    lines.append(BEGIN_LINE)
    lines.extend(f"// {line}" for line in graph_json_lines(graph_data))
    lines.append(END_LINE)
    return "\n".join(lines) + "\n" + module_text


def save_file(path: str | os.PathLike[str], graph: MaterialGraph, lowered: Any = None) -> None:
    """Save atomically (`vpl_core.atomic_write`): the previous file survives any failure.

    The file keeps its mode (a new one gets the umask's), a symbolic link
    stays a link to the file it names, and the error (OSError) propagates.
    """
    write_atomically(path, save_text(graph, lowered).encode("utf-8"))


def graph_json_lines(data: dict[str, Any]) -> list[str]:
    """The graph dictionary as JSON, one node, connection or frame per line (readable diffs).

    ASCII only (`ensure_ascii`), so no line separator can appear inside a
    comment line; keys sorted, so equal graphs give equal text.
    """

    def dump(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=True, allow_nan=False)

    lists = [key for key in sorted(data) if isinstance(data[key], list)]
    scalars = [key for key in sorted(data) if key not in lists]
    lines = ["{" + ", ".join(f"{dump(key)}: {dump(data[key])}" for key in scalars) + ("," if lists else "")]
    for list_index, key in enumerate(lists):
        items = data[key]
        closing = "]" + ("," if list_index < len(lists) - 1 else "")
        if not items:
            lines.append(f" {dump(key)}: []" + closing[1:])
            continue
        lines.append(f" {dump(key)}: [")
        lines.extend(f"  {dump(item)}" + ("," if index < len(items) - 1 else "") for index, item in enumerate(items))
        lines.append(" " + closing)
    lines.append("}")
    return lines


@dataclass
class _Header:
    graph_json: str
    saved_hash: str
    module_text: str


def _split_header(text: str) -> _Header | None:
    """The graph block, saved hash and module text of an editor document; None if there is no block."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != MAGIC_LINE:
        return None
    saved_hash = ""
    graph_lines: list[str] = []
    inside = False
    for index, raw in enumerate(lines[1:], start=1):
        line = raw.rstrip("\r\n")
        if inside:
            if line == END_LINE:
                return _Header("\n".join(graph_lines), saved_hash, "".join(lines[index + 1 :]))
            if not line.startswith("//"):
                return None
            graph_lines.append(line[3:] if line.startswith("// ") else line[2:])
        elif line.startswith(HASH_PREFIX):
            saved_hash = line[len(HASH_PREFIX) :].strip()
        elif line == BEGIN_LINE:
            inside = True
        elif not line.startswith("//"):
            return None
    return None


def parse_graph_block(graph_json: str) -> MaterialGraph:
    """The graph of a document's block; every way it can be unusable is a `GraphFormatError` with its reason."""
    try:
        data = json.loads(graph_json)
    except RecursionError as error:
        raise GraphFormatError("the graph JSON is nested too deeply") from error
    except ValueError as error:
        raise GraphFormatError(f"the graph is not valid JSON: {error}") from error
    return MaterialGraph.from_dict(data)


def load_text(data: bytes | str, label: str = "<document>") -> LoadedDocument:
    """Open a document from its bytes; see the module docstring for the cases.

    Every problem with the content is a diagnostic or a read-only opening,
    never an exception; an exception from here is a bug (tests look for
    them: no catch-all hides one).
    """
    from vpl_core.publish import VerifiedModule
    from vpl_core.text import read

    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    graph: MaterialGraph | None = None
    graph_message = ""
    try:
        text: str | None = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None  # the reader reports the exact position as a lexical error
    header = _split_header(text) if text is not None else None
    if header is None:
        graph_message = "no editor graph in this file: opened read-only"
    elif header.saved_hash != module_hash(header.module_text):
        graph_message = "the module was changed outside the editor since the graph was saved: opened read-only"
    else:
        try:
            graph = parse_graph_block(header.graph_json)
        except GraphFormatError as error:
            graph_message = f"the saved graph cannot be read ({error}): opened read-only"

    try:
        module = read(raw, label=label)
        verified = VerifiedModule.create(module, label=label)
    except VplError as error:
        diagnostic = error.diagnostic
        if diagnostic.label is None:
            diagnostic = Diagnostic(diagnostic.category, diagnostic.message, label, diagnostic.offset, diagnostic.line, diagnostic.column, diagnostic.subject)
        if graph is not None:
            # The graph is intact (its hash matches); keep it so nothing is lost.
            return LoadedDocument(
                graph=graph,
                diagnostics=[diagnostic],
                message=f"{label}: the saved module is not valid VPL here; the graph was restored",
                label=label,
            )
        return LoadedDocument(diagnostics=[diagnostic], message=f"{label} is not a valid VPL module", label=label)

    if graph is not None:
        return LoadedDocument(graph=graph, verified=verified, module=module, read_only=False, message="", label=label)
    return LoadedDocument(verified=verified, module=module, read_only=True, message=f"{label}: {graph_message}", label=label,
                          graph_problem=graph_message if header is not None else "")


def load_file(path: str | os.PathLike[str]) -> LoadedDocument:
    """Open a document from disk; an unreadable file gives a message, not an exception."""
    target = Path(path)
    try:
        data = read_external(target, "document")
    except OSError as error:
        return LoadedDocument(message=f"cannot read {target}: {error.strerror or error}", label=str(target))
    return load_text(data, label=str(target))
