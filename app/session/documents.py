"""The two kinds of document the editor shows, as two explicit types.

- `GraphDocument`: a material graph the user edits (opened from a file the
  editor saved, an example, a recovered autosave, or new). It is modified
  while its graph differs from `baseline`, the graph last opened or saved,
  so undoing back to the saved state clears the mark; `baseline` None
  means "differs from every file" (a graph the view could not show whole).
- `ModuleDocument`: a module without a usable graph (written by hand or by
  another tool, or edited since the editor saved it). Read-only: never
  modified, never saved; preview, code and export still work.

Both are plain data; `EditorSession` owns the current one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.material.document import LoadedDocument
from app.material.graph import MaterialGraph
from vpl_core.diagnostics import Diagnostic
from vpl_core.ir.module import Module
from vpl_core.publish import VerifiedModule


@dataclass
class GraphDocument:
    graph: MaterialGraph = field(default_factory=MaterialGraph)
    path: Path | None = None
    name: str = "untitled"
    baseline: MaterialGraph | None = field(default_factory=MaterialGraph)

    read_only = False

    @property
    def modified(self) -> bool:
        return self.baseline is None or self.graph != self.baseline


@dataclass
class ModuleDocument:
    verified: VerifiedModule
    module: Module
    path: Path | None = None
    name: str = "untitled"
    #: Why there is no graph ("no editor graph in this file: opened read-only", ...).
    reason: str = ""
    #: Notes from opening (e.g. why the saved graph could not be used).
    diagnostics: list[Diagnostic] = field(default_factory=list)

    read_only = True
    modified = False

    @classmethod
    def from_loaded(cls, loaded: LoadedDocument, path: Path | None, name: str) -> ModuleDocument:
        if loaded.verified is None:
            raise ValueError("a read-only document needs a verified module")
        module = loaded.module if loaded.module is not None else loaded.verified.materialize()
        return cls(loaded.verified, module, path, name, loaded.message, list(loaded.diagnostics))


Document = GraphDocument | ModuleDocument
