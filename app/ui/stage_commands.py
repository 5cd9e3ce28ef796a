"""File > Save Stage with Material: the preview's stage saved with the document (`MaterialGraph.stage`).

The stage is the user's (QSettings) unless the document carries its own
(docs/file-format.md). While the toggle is on, every change of the stage
toolbar is stored in the document (mesh and environment files relative to
its folder); opening a document shows its stage if it has one and sets the
toggle to say whether it does. The document's stage records the preview's
camera whenever it is written (the option checked, or the stage changed while
it is), so the document opens at that view.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction

from app.preview.camera import OrbitCamera
from app.preview.stage import Stage
from app.session.stage_files import resolved_stage, stored_stage

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class StageCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.session = window.session
        self.toolbar = window.preview_panel.toolbar
        self.save_stage_action = QAction("Save &Stage with Material", window, checkable=True)
        self.save_stage_action.setStatusTip("Save the preview's mesh, environment, light, exposure, tone mapper and "
                                            "background in the document, and show them whenever it is opened")
        self.save_stage_action.toggled.connect(self._save_stage_toggled)
        self.toolbar.stageChanged.connect(self._stage_changed)
        self._showing_document_stage = False
        #: What the last document's stage could not use (`Stage.from_dict`'s notes), for the status bar.
        self.notes: list[str] = []

    def _document_stage(self) -> dict[str, object]:
        """The toolbar's stage as the document stores it (mesh and environment files relative to its folder),
        with the preview's camera as it is now (the view the document opens with)."""
        stage = self.toolbar.stage
        camera = getattr(self.window.preview, "camera", None)  # the GL preview's; other previews keep the stage's view
        if isinstance(camera, OrbitCamera):
            stage.camera = (math.remainder(float(camera.yaw), 360.0), float(camera.pitch), float(camera.distance))
        return stored_stage(stage.to_dict(), self.session.document.directory)

    def _save_stage_toggled(self, checked: bool) -> None:
        if not self.session.read_only:
            self.window.graph_editor.set_saved_stage(self._document_stage() if checked else None)

    def _stage_changed(self, _stage: Stage) -> None:
        if self.save_stage_action.isChecked() and not self.session.read_only and not self._showing_document_stage:
            self.window.graph_editor.set_saved_stage(self._document_stage())

    def show_document_stage(self, saved: dict[str, object] | None) -> None:
        """A document was opened: show its stage if it has one (the toggle says whether it does)."""
        self.notes = []
        self.save_stage_action.blockSignals(True)
        self.save_stage_action.setChecked(saved is not None)
        self.save_stage_action.blockSignals(False)
        if saved is None:
            return
        self._showing_document_stage = True
        notes: list[str] = []
        try:
            self.toolbar.set_stage(Stage.from_dict(resolved_stage(saved, self.session.document.directory), notes))
        finally:
            self._showing_document_stage = False
        self.notes = notes
        if notes:  # values out of range or files gone: the defaults are shown instead
            self.window.statusBar().showMessage("; ".join(notes), 10000)
