"""File > Export Turntable...: the preview's material turning once, written as a GIF or MP4 (`app.preview.turntable`).

The material is the session's current graph with its live parameter values,
on the stage the preview shows (the camera where the user left it); the
frames are drawn offscreen on the GUI thread under a window-modal progress
dialog whose Cancel stops before anything is written.
"""

from __future__ import annotations

import io
import math
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QProgressDialog

from app.preview.camera import OrbitCamera
from app.preview.turntable import DEFAULT_FRAMES

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

TURNTABLE_SIZE = (512, 512)


class TurntableCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.session = window.session
        self.action = QAction("Export &Turntable…", window)
        self.action.setStatusTip("Render the mesh turning once under the preview's stage and save it as .gif or .mp4")
        self.action.triggered.connect(lambda _checked=False: self.export_dialog())
        #: The progress dialog of the turntable being rendered (None otherwise); tests press its Cancel.
        self.progress_dialog: QProgressDialog | None = None

    def export_dialog(self) -> bool:
        directory = str(self.session.path.parent) if self.session.path else os.getcwd()
        stem = self.session.path.stem if self.session.path else "material"
        path = self.window.prompts.choose_turntable_path(self.window, str(Path(directory) / f"{stem}-turntable.gif"))
        return self.export_to(path) if path else False

    def export_to(self, path: str | os.PathLike[str], frames: int = DEFAULT_FRAMES,
                  size: tuple[int, int] = TURNTABLE_SIZE) -> bool:
        """Render and write the turntable; False (and the reason shown) when it could not be written."""
        from app.material.document import save_text
        from app.preview.turntable import turntable
        from app.session.session import rebase_textures

        self.window.flush()
        stage = replace(self.window.preview_panel.toolbar.stage, extra=dict(self.window.preview_panel.toolbar.stage.extra))
        camera = getattr(self.window.preview, "camera", None)  # the GL preview's; other previews keep the stage's view
        if isinstance(camera, OrbitCamera):
            stage.camera = (math.remainder(float(camera.yaw), 360.0), float(camera.pitch), float(camera.distance))
        values = {name: value for name, value in self.session.parameters.values.items()
                  if value is not None and not isinstance(value, str)}  # textures come from the graph's paths
        dialog = QProgressDialog("Rendering the turntable…", "Cancel", 0, frames, self.window)
        dialog.setWindowTitle("Export Turntable")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        self.progress_dialog = dialog

        def progress(done: int, total: int) -> bool:
            dialog.setValue(done)
            QApplication.processEvents()  # paint the dialog, take the Cancel click
            return not dialog.wasCanceled()

        messages = io.StringIO()
        try:
            with tempfile.TemporaryDirectory(prefix="vpl-turntable-") as scratch:
                source = Path(scratch) / "material.vpl"
                graph = rebase_textures(self.session.graph, self.session.directory, Path(scratch))
                graph.stage = None  # the preview's stage is passed as it is
                source.write_text(save_text(graph), encoding="utf-8")
                status = turntable(str(source), str(path), size, frames, stage=stage, values=values,
                                   stderr=messages, progress=progress)
        finally:
            self.progress_dialog = None
            dialog.close()
            dialog.deleteLater()
        if status != 0:
            if dialog.wasCanceled():
                self.window.statusBar().showMessage("Turntable cancelled; nothing was written", 4000)
            else:
                self.window.prompts.show_error(self.window, "Cannot export the turntable", f"{path} was not written.",
                                               messages.getvalue().splitlines())
            return False
        self.window.statusBar().showMessage(f"Exported the turntable to {path}", 6000)
        return True
