"""`EditorSession`: the editor's state and operations without Qt.

The session holds the current document (`GraphDocument` or
`ModuleDocument`, see `app.session.documents`), the lowering of the graph
it last lowered, the compiled programs per GLSL target (`ArtifactCache`),
the parameters (`ParameterModel`), and does everything with files: open,
save, autosave, recover, export. The Qt window (`app.ui.main_window`)
keeps the widgets in step by subscribing to the session's events, and
feeds edits in (`update_graph` with each snapshot of the graph view).

Events (`app.session.events.Event`), emitted after the state is consistent:

- `document_changed(Document)`: another document is current;
- `lowered(LoweringResult)`: a lowering of the current graph is ready
  (its programs and parameters are in place);
- `modified_changed(bool)`: the modified state flipped;
- `saved(Path)`: the document was written there.

Invariants: `result` is None or the lowering of exactly `lowered_graph`;
a `ModuleDocument` has no `result` and is never modified; the program
cache belongs to the verified module it compiles (a new lowering or
document replaces it).
"""

from __future__ import annotations

import os
from pathlib import Path

from app.material.document import LoadedDocument, load_text, save_file, save_text
from app.material.graph import MaterialGraph
from app.material.lowering import LoweringResult, lower
from app.material.parameters import ParameterSpec, specs_from_module
from app.session.artifacts import DEFAULT_TARGET, ArtifactCache, CompiledProgram
from app.session.documents import Document, GraphDocument, ModuleDocument
from app.session.events import Event
from app.session.parameters import ParameterModel
from app.session.recovery import RecoveryEntry, RecoveryStore
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.backends.glsl.export import export_artifact, file_stem

UNTITLED_EXPORT_STEM = "material"


class EditorSession:
    """See the module docstring."""

    def __init__(self, recovery: RecoveryStore | None = None) -> None:
        self.recovery = recovery if recovery is not None else RecoveryStore()
        self.parameters = ParameterModel()
        self.document_changed: Event[Document] = Event("document_changed")
        self.lowered: Event[LoweringResult] = Event("lowered")
        self.modified_changed: Event[bool] = Event("modified_changed")
        self.saved: Event[Path] = Event("saved")
        self._document: Document = GraphDocument()
        self._result: LoweringResult | None = None
        self._lowered_graph: MaterialGraph | None = None
        self._programs = ArtifactCache(None)
        self._was_modified = False

    # ---- state ----------------------------------------------------------------------------

    @property
    def document(self) -> Document:
        return self._document

    @property
    def read_only(self) -> bool:
        return isinstance(self._document, ModuleDocument)

    @property
    def path(self) -> Path | None:
        return self._document.path

    @property
    def name(self) -> str:
        return self._document.name

    @property
    def graph(self) -> MaterialGraph:
        """The current graph (empty for a read-only document). The session's own: copy before changing."""
        return self._document.graph if isinstance(self._document, GraphDocument) else MaterialGraph()

    @property
    def is_modified(self) -> bool:
        return self._document.modified

    @property
    def result(self) -> LoweringResult | None:
        """The lowering of `lowered_graph` (None before the first, and for read-only documents)."""
        return self._result

    @property
    def needs_lowering(self) -> bool:
        return (
            isinstance(self._document, GraphDocument)
            and (self._result is None or self._lowered_graph is None or self._lowered_graph != self._document.graph)
        )

    def program(self, target: str = DEFAULT_TARGET) -> CompiledProgram:
        """The current module compiled for `target` (compiled once per module and target)."""
        return self._programs.get(target)

    @property
    def current_artifact(self) -> ProgramArtifact | None:
        """The GLSL 4.20 program of the current document (code view, export); None when there is none."""
        if isinstance(self._document, GraphDocument) and (self._result is None or self._result.verified is None):
            return None
        return self.program(DEFAULT_TARGET).artifact

    # ---- documents ------------------------------------------------------------------------

    def open_graph(self, graph: MaterialGraph, path: Path | None = None, name: str = "untitled",
                   modified: bool = False) -> GraphDocument:
        """Make `graph` the current, editable document; `modified` when it differs from its file."""
        document = GraphDocument(graph.copy(), path, name, None if modified else graph.copy())
        # No parameters until the graph is lowered: values of the previous document must not carry over.
        self._set_document(document, ArtifactCache(None), [])
        return document

    def open_module(self, loaded: LoadedDocument, path: Path | None = None, name: str = "untitled") -> ModuleDocument:
        """Make a module without a usable graph the current, read-only document."""
        document = ModuleDocument.from_loaded(loaded, path, name)
        self._set_document(document, ArtifactCache(document.verified), specs_from_module(document.module))
        return document

    def _set_document(self, document: Document, programs: ArtifactCache, specs: list[ParameterSpec]) -> None:
        self._document = document
        self._result = None
        self._lowered_graph = None
        self._programs = programs
        self.parameters.clear()
        if specs:
            self.parameters.set_specs(specs)
        self.document_changed.emit(document)
        self._notify_modified()

    @staticmethod
    def read_file(path: str | os.PathLike[str]) -> LoadedDocument:
        """Read and classify a file (raises OSError when it cannot be read; never for its content)."""
        path = Path(path)
        return load_text(path.read_bytes(), str(path))

    # ---- edits and lowering ---------------------------------------------------------------

    def update_graph(self, graph: MaterialGraph) -> None:
        """The graph after an edit (the view's snapshot); lowering waits for `lower`."""
        if not isinstance(self._document, GraphDocument):
            raise RuntimeError("a read-only document has no graph to edit")
        self._document.graph = graph.copy()
        self._notify_modified()

    def lower(self) -> LoweringResult | None:
        """Lower the current graph unless its lowering is current; emits `lowered` when it lowered."""
        if not self.needs_lowering:
            return self._result
        assert isinstance(self._document, GraphDocument)
        graph = self._document.graph.copy()
        result = lower(graph)
        self._result = result
        self._lowered_graph = graph
        self._programs = ArtifactCache(result.verified, seed=result.artifact)
        if result.verified is not None and result.artifact is None:
            # The lowering already met this target error; do not compile again to meet it twice.
            problem = next((d.message for d in result.errors if d.category == "target"), "does not compile")
            self._programs.record(CompiledProgram(DEFAULT_TARGET, None, problem))
        self.parameters.set_specs(result.parameters)
        self.lowered.emit(result)
        return result

    def _current_lowering(self) -> LoweringResult | None:
        """The lowering of exactly the current graph, if there is one (saving need not lower again)."""
        return None if self.needs_lowering else self._result

    # ---- files ----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the graph document to `path` (atomically); raises OSError. It is then unmodified."""
        document = self._document
        if not isinstance(document, GraphDocument):
            raise RuntimeError("a read-only document cannot be saved")
        path = Path(path)
        graph = document.graph.copy()
        save_file(path, graph, self._current_lowering())
        document.path = path
        document.name = path.name
        document.baseline = graph
        self.recovery.clear()
        self.saved.emit(path)
        self._notify_modified()
        return path

    def export_stem(self) -> str:
        """The file stem `vpl compile` derives from the document's file name."""
        return file_stem(self._document.path) if self._document.path is not None else UNTITLED_EXPORT_STEM

    def export(self, out_dir: str | os.PathLike[str], stem: str | None = None) -> list[Path] | None:
        """Write <stem>.vert.glsl, .frag.glsl and .json as `vpl compile` does; None when nothing compiles.

        Raises OSError when the files cannot be written.
        """
        self.lower()
        artifact = self.current_artifact
        if artifact is None:
            return None
        return export_artifact(artifact, Path(out_dir), stem or self.export_stem())

    # ---- autosave and recovery ------------------------------------------------------------

    def autosave(self) -> Path | None:
        """Write the recovery file of a modified graph; clear it otherwise. Raises OSError."""
        document = self._document
        if not isinstance(document, GraphDocument) or not document.modified:
            self.recovery.clear()
            return None
        text = save_text(document.graph.copy(), self._current_lowering())
        return self.recovery.write(text, str(document.path) if document.path else None)

    def recovery_candidates(self) -> list[RecoveryEntry]:
        """Autosaves left by editors that are gone, newest first."""
        return self.recovery.orphans()

    @staticmethod
    def read_recovery(entry: RecoveryEntry) -> LoadedDocument:
        """The autosaved document of `entry` (raises OSError when it cannot be read)."""
        return load_text(entry.document_path.read_bytes(), str(entry.document_path))

    @staticmethod
    def discard_recovery(entry: RecoveryEntry) -> None:
        RecoveryStore.discard(entry)

    def close(self) -> None:
        """Clean exit: nothing is left to recover."""
        self.recovery.close()

    # ---- internals ------------------------------------------------------------------------

    def _notify_modified(self) -> None:
        modified = self.is_modified
        if modified != self._was_modified:
            self._was_modified = modified
            self.modified_changed.emit(modified)
