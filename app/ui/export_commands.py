"""File > Bake Textures..., Export glTF..., Export MaterialX..., Import MaterialX...: the window's side of app.export.

Import MaterialX opens the mapped subset of a document as an untitled
material (Save asks where) and lists what was not imported (`show_notes`).

Each flow asks `Prompts.choose_export_target` where and how (an
`ExportRequest`), takes the session's current graph, folder and parameter
values (what the preview shows, not only what is saved), and runs the export
on the GUI thread in an offscreen OpenGL context (`bake_context`; the
baker's GL work must stay on the thread that owns the context) under a
window-modal progress dialog: the baker reports after every tile and the
dialog's Cancel stops it there (`BakeCancelled`; nothing is written). Failures
go to `Prompts.show_error` with the one-line reason; notes (baked nodes,
view-dependent nodes) to `Prompts.show_notes`. Files are written only when
everything succeeded.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProgressDialog

from app.ui.directories import remember_directory, start_directory
from app.ui.export_dialog import ExportKind, ExportRequest, suggested_path

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class ExportCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.session = window.session
        self.prompts = window.prompts
        #: The progress dialog of the export running now (None between exports); tests press its Cancel.
        self.progress_dialog: QProgressDialog | None = None
        #: The offscreen context of the running bake: the preview may paint (and make its own context
        #: current) while the progress dialog processes events, so the bake makes its own current again.
        self._bake_context: Any = None

    # ---- the menu's entry points ------------------------------------------------------------

    def bake_dialog(self) -> bool:
        request = self._ask(ExportKind.BAKE)
        return self.bake_to(request) if request is not None else False

    def export_gltf_dialog(self) -> bool:
        request = self._ask(ExportKind.GLTF)
        return self.export_gltf_to(request) if request is not None else False

    def export_mtlx_dialog(self) -> bool:
        request = self._ask(ExportKind.MTLX)
        return self.export_mtlx_to(request) if request is not None else False

    def import_mtlx_dialog(self) -> bool:
        path = self.prompts.choose_mtlx_path(self.window, start_directory(self.window.settings, self.session.path))
        if not path:
            return False
        remember_directory(self.window.settings, path)
        return self.import_mtlx_from(path)

    def import_mtlx_from(self, path: str | os.PathLike[str]) -> bool:
        """Open the mapped subset of a MaterialX document as an untitled material; list what was not imported. A
        document of several materials asks which (an editor document holds one)."""
        from app.export.mtlx import import_mtlx, mtlx_material_names
        from app.export.surface import ExportError
        from app.material.document import LoadedDocument

        source = Path(path)
        try:
            names = mtlx_material_names(source)
            material = None
            if len(names) > 1:
                material = self.prompts.choose_mtlx_material(self.window, source.name, names)
                if material is None:
                    return False
            imported = import_mtlx(source, material)
        except ExportError as error:
            self.prompts.show_error(self.window, "Cannot import MaterialX", str(error), [])
            return False
        title = f"{source.stem} (MaterialX)" if material is None else f"{source.stem}: {material} (MaterialX)"
        opened = self.window.files.open_document(LoadedDocument(graph=imported.graph), None, title, origin=source.parent)
        if opened and imported.skipped:
            self.prompts.show_notes(self.window, "Import MaterialX", "Parts of the document were not imported:", imported.skipped)
        return opened

    def _ask(self, kind: ExportKind) -> ExportRequest | None:
        directory = start_directory(self.window.settings, self.session.path)
        stem = self.session.path.stem if self.session.path else "material"
        request = self.prompts.choose_export_target(self.window, kind, suggested_path(kind, directory, stem))
        if request is not None:  # a bake's path is the maps' own folder: its parent is where the artist went
            remember_directory(self.window.settings, request.path)
        return request

    # ---- the work ----------------------------------------------------------------------------

    def bake_to(self, request: ExportRequest) -> bool:
        """Bake the material's channels into image files in the folder `request.path` (docs/interchange.md)."""
        from app.export.maps import save_maps

        def work(baker: Any) -> list[str]:
            with self._context():
                baked = baker.bake_material()
            save_maps(baked, request.path, mesh=baker.settings.mesh, extra={"supersampling": baker.settings.supersampling})
            return baked.notes

        return self._run(ExportKind.BAKE, request, work, f"Baked textures to {request.path}")

    def export_gltf_to(self, request: ExportRequest) -> bool:
        """Bake and write the material with the mesh as glTF 2.0 (`.glb` or `.gltf`)."""
        from app.export.gltf import export_gltf

        def work(baker: Any) -> list[str]:
            with self._context():
                baked = baker.bake_material()
                mesh = baker.mesh()
            export_gltf(baked, mesh, request.path, name=self._name())
            return baked.notes

        return self._run(ExportKind.GLTF, request, work, f"Exported glTF to {request.path}")

    def export_mtlx_to(self, request: ExportRequest) -> bool:
        """Write a MaterialX document (nodes without a counterpart baked beside it)."""
        from app.export.mtlx import NeedsBaking, export_mtlx

        def work(baker: Any) -> list[str]:
            directory = self.session.directory
            try:  # without nodes to bake no OpenGL is needed
                result = export_mtlx(baker.graph, request.path, self._name(), document_dir=directory)
            except NeedsBaking:
                with self._context():
                    result = export_mtlx(baker.graph, request.path, self._name(), document_dir=directory,
                                         bake=baker.bake_node_outputs)
            return [*result.notes, *baker.notes]

        return self._run(ExportKind.MTLX, request, work, f"Exported MaterialX to {request.path}")

    @contextlib.contextmanager
    def _context(self) -> Iterator[Any]:
        from app.export.bake import bake_context

        with bake_context() as context:
            self._bake_context = context
            try:
                yield context
            finally:
                self._bake_context = None

    def _name(self) -> str:
        return self.session.path.stem if self.session.path else "material"

    def _run(self, kind: ExportKind, request: ExportRequest, work: Callable[[Any], list[str]], done: str) -> bool:
        from app.export.bake import BakeCancelled, Baker, BakeSettings
        from app.export.images import ImageWriteError
        from app.export.surface import ExportError

        self.window.flush()
        graph = self.session.graph.copy()
        settings = BakeSettings(request.size, request.supersampling, None, request.mesh)
        dialog = QProgressDialog(f"{kind.title}…", "Cancel", 0, 100, self.window)
        dialog.setWindowTitle(kind.title)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        self.progress_dialog = dialog
        dialog.show()

        def progress(finished: int, total: int, label: str) -> bool:
            dialog.setMaximum(max(total, 1))
            dialog.setValue(min(finished, max(total, 1)))
            dialog.setLabelText(f"{kind.title}: {label}")
            QApplication.processEvents()  # paint the dialog, take the Cancel click
            if self._bake_context is not None:
                self._bake_context.make_current()
            return not dialog.wasCanceled()

        try:
            baker = Baker(graph, settings, document_dir=self.session.directory,
                          values=dict(self.session.parameters.values), progress=progress)
            notes = work(baker)
        except BakeCancelled:
            self.window.statusBar().showMessage(f"{kind.title} cancelled; nothing was written", 4000)
            return False
        except ExportError as error:
            self.prompts.show_error(self.window, f"Cannot {kind.title.lower()}", str(error), [])
            return False
        except (ImageWriteError, OSError) as error:
            self.prompts.show_error(self.window, f"Cannot {kind.title.lower()}", f"Could not write {request.path}.", [str(error)])
            return False
        finally:
            self.progress_dialog = None
            dialog.close()
            dialog.deleteLater()
        self.window.statusBar().showMessage(done, 6000)
        if notes:
            self.prompts.show_notes(self.window, kind.title, f"{done}. Notes:", notes)
        return True

