"""The File menu's flows: the questions (through the window's `Prompts`) around the session's file operations.

The session does the work (read, save, export, autosave, recovery) and
raises `OSError` when the disk says no; these flows ask what to do, report
what failed, and never lose the current document: a file that cannot be
read or is not a module leaves it untouched, a failed save leaves it
modified.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QStatusBar, QWidget

from app.export.glsl import export_glsl
from app.material import catalog
from app.material.document import LoadedDocument
from app.material.examples import DEFAULT_EXAMPLE, example_path, load_example
from app.material.graph import MaterialGraph
from app.material.lowering import OUTPUT_NODE_TYPE
from app.session.recovery import RecoveryEntry
from app.ui.dialogs import SaveChoice
from app.ui.directories import remember_directory, start_directory

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings, SignalInstance
    from PySide6.QtGui import QAction

    from app.preview.host import PreviewHostWidget
    from app.session import EditorSession
    from app.ui.diagnostics_panel import DiagnosticsPanel
    from app.ui.dialogs import Prompts
    from app.ui.recent_files import RecentFiles
    from app.ui.stage_commands import StageCommands


class FileWindow(Protocol):
    """What the file flows need of the window (`MainWindow` has it): its session, questions, graph loading."""

    @property
    def session(self) -> EditorSession: ...
    @property
    def prompts(self) -> Prompts: ...
    @property
    def recent(self) -> RecentFiles: ...
    @property
    def settings(self) -> QSettings: ...
    @property
    def documentOpened(self) -> SignalInstance[tuple[()]]: ...  # noqa: N802 - a Qt signal's name
    @property
    def copy_textures_action(self) -> QAction: ...
    @property
    def diagnostics_panel(self) -> DiagnosticsPanel: ...
    @property
    def preview(self) -> PreviewHostWidget: ...
    @property
    def stage_commands(self) -> StageCommands: ...
    def window(self) -> QWidget:
        """The top-level widget, the parent of every dialog (`QWidget.window`)."""
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name
    def flush(self) -> None: ...
    def load_graph(self, graph: MaterialGraph, name: str = ..., path: Path | None = ..., modified: bool = ...,
                   origin: Path | None = ...) -> list[str]: ...


class FileCommands:
    """See the module docstring."""

    def __init__(self, window: FileWindow) -> None:
        self.window = window
        self.session = window.session
        self.prompts = window.prompts

    def _status(self, message: str, timeout_ms: int = 4000) -> None:
        self.window.statusBar().showMessage(message, timeout_ms)

    def _error(self, title: str, message: str, details: list[str]) -> None:
        self.prompts.show_error(self.window.window(), title, message, details)

    def _start_directory(self) -> str:
        return start_directory(self.window.settings, self.session.path)

    # ---- opening --------------------------------------------------------------------------

    def load_example(self, name: str = DEFAULT_EXAMPLE) -> bool:
        """Open a shipped example as an untitled document (Save asks where: examples stay pristine)."""
        # Untitled (Save asks where), but its textures are beside the example's file.
        return self.open_document(load_example(name), None, f"{name} (example)", ask_to_save=False,
                                  origin=example_path(name).parent)

    def open_example_interactive(self, name: str) -> None:
        if self.maybe_save():
            self.load_example(name)

    def new_document(self) -> bool:
        """An untitled material holding just a Material Output (every material needs one)."""
        if not self.maybe_save():
            return False
        graph = MaterialGraph()
        if OUTPUT_NODE_TYPE in catalog.NODE_TYPES:
            graph.add_node(OUTPUT_NODE_TYPE, (0.0, 0.0))
        self.window.load_graph(graph)
        return True

    def open_dialog(self) -> bool:
        path = self.prompts.choose_open_path(self.window.window(), self._start_directory())
        if not path:
            return False
        remember_directory(self.window.settings, path)
        return self.open_file(path)

    def open_file(self, path: str | os.PathLike[str], ask_to_save: bool = True) -> bool:
        """Open a .vpl file. An unreadable or invalid file leaves the current document untouched."""
        path = Path(path)
        try:
            document = self.session.read_file(path)
        except OSError as error:
            self._error("Cannot open file", f"{path} could not be read.", [str(error)])
            return False
        if not self.open_document(document, path, path.name, ask_to_save):
            return False
        self.window.recent.add(path)
        notes = self.window.stage_commands.notes  # stage values not used: the defaults are shown
        self._status("; ".join([f"Opened {path}", *notes]), 10000 if notes else 4000)
        return True

    def open_document(self, document: LoadedDocument, path: Path | None, name: str, ask_to_save: bool = True,
                      origin: Path | None = None) -> bool:
        """Show a loaded document: editable graph, read-only module, or an error dialog (nothing changes)."""
        if document.graph is None and document.verified is None:
            details = [str(diagnostic) for diagnostic in document.diagnostics] or [document.message]
            self._error("Cannot open file", document.message or f"{name} is not a valid VPL module.", details)
            return False
        if ask_to_save and not self.maybe_save():
            return False
        if document.graph is not None and not document.read_only:
            problems = self.window.load_graph(document.graph, name, path, origin=origin)
            problems += [str(diagnostic) for diagnostic in document.diagnostics]
            if problems:
                self._error("Some of the file could not be shown",
                            document.message or f"{name} opened, but parts of it are not shown.", problems)
        else:
            self.session.open_module(document, path, name)
            self.window.documentOpened.emit()
        return True

    # ---- saving and exporting -------------------------------------------------------------

    def save(self) -> bool:
        if self.session.read_only:
            return False
        path = self.session.path
        return self.save_to(path) if path is not None else self.save_as()

    def save_as(self) -> bool:
        if self.session.read_only:
            return False
        path = self.session.path
        suggested = str(path) if path else os.path.join(self._start_directory(), "material.vpl")
        chosen = self.prompts.choose_save_path(self.window.window(), suggested)
        if not chosen:
            return False
        remember_directory(self.window.settings, chosen)
        return self.save_to(Path(chosen))

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        path = Path(path)
        try:
            self.session.save(path)
        except OSError as error:
            self._error("Cannot save", f"{path} could not be written.", [str(error)])
            return False
        self.window.recent.add(path)
        self._status(f"Saved {path}")
        return True

    def maybe_save(self) -> bool:
        """Ask about unsaved changes; True when it is fine to drop the current document."""
        if not self.session.is_modified:
            return True
        choice = self.prompts.ask_save_changes(self.window.window(), self.session.name)
        if choice is SaveChoice.SAVE:
            return self.save()
        return choice is SaveChoice.DISCARD

    def export_dialog(self) -> bool:
        out_dir = self.prompts.choose_export_dir(self.window.window(), self._start_directory())
        if not out_dir:
            return False
        remember_directory(self.window.settings, out_dir, is_folder=True)
        return self.export_to(out_dir)

    def export_to(self, out_dir: str | os.PathLike[str], stem: str | None = None, copy_textures: bool | None = None) -> bool:
        """Write <stem>.vert.glsl, <stem>.frag.glsl and <stem>.json (`vpl compile`'s, plus the material section).

        The material section records the preview's stage; a material whose
        colour is linear radiance also gets the stage's environment images.
        """
        self.window.flush()
        if copy_textures is None:
            copy_textures = self.window.copy_textures_action.isChecked()
        try:
            export = export_glsl(self.session, out_dir, self.window.preview.stage, stem, copy_textures)
        except OSError as error:
            self._error("Cannot export", f"Could not write to {out_dir}.", [str(error)])
            return False
        if export.refused:
            self._error("Cannot export", "The material cannot be exported whole; nothing was written.", [export.refused])
            return False
        if export.written is None:
            self._error("Cannot export", "The material does not compile; fix the errors first.",
                        [row.text for row in self.window.diagnostics_panel.rows])
            return False
        note = f" ({export.note})" if export.note else ""
        self._status(f"Exported GLSL to {out_dir}{note}", 8000 if note else 4000)
        return True

    # ---- autosave and recovery ------------------------------------------------------------

    def autosave_now(self) -> Path | None:
        """Write the recovery file (nothing to recover when the document is saved)."""
        try:
            return self.session.autosave()
        except OSError as error:
            self._status(f"Autosave failed: {error}", 8000)
            return None

    def check_recovery(self) -> bool:
        """Offer autosaves left by a crashed editor; True when one was recovered."""
        entries = self.session.recovery.orphans()
        if not entries:
            return False
        chosen = self.prompts.offer_recovery(self.window.window(), entries)
        recovered = False
        if chosen is not None:
            recovered = self._recover(chosen)
            if not recovered:
                # Possibly the only copy of the work: kept aside, never deleted.
                entries = [entry for entry in entries if entry is not chosen]
        for entry in entries:
            self.session.recovery.discard(entry)
        return recovered

    def _recover(self, chosen: RecoveryEntry) -> bool:
        try:
            document = self.session.recovery.read(chosen)
        except OSError as error:
            kept = self.session.recovery.keep_damaged(chosen)
            self._error("Cannot recover", f"The autosave could not be read; it was kept as {kept}.", [str(error)])
            return False
        if document.graph is None:
            kept = self.session.recovery.keep_damaged(chosen)
            details = [str(diagnostic) for diagnostic in document.diagnostics] or [document.message]
            self._error("Cannot recover", f"The autosave is damaged; it was kept as {kept}.", details)
            return False
        source = Path(chosen.source) if chosen.source else None
        self.window.load_graph(document.graph, source.name if source else "recovered", source, modified=True)
        self._status(f"Recovered {chosen.description}", 8000)
        return True
