"""The question File > Bake Textures / Export glTF / Export MaterialX ask: where, how big, on which mesh.

`ExportRequest` is the answer as plain data; `ask_export_target` shows the
dialog (the default of `Prompts.choose_export_target`, which tests replace);
`show_notes` lists what an export wants the artist to know (baked nodes,
view-dependent nodes). Importing this module is cheap: no export code, no GL.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class ExportKind(enum.Enum):
    BAKE = "bake"
    GLTF = "gltf"
    MTLX = "mtlx"

    @property
    def title(self) -> str:
        return {ExportKind.BAKE: "Bake Textures", ExportKind.GLTF: "Export glTF", ExportKind.MTLX: "Export MaterialX"}[self]


#: The sizes offered (texels on a side) and the default.
SIZES = (256, 512, 1024, 2048, 4096)
DEFAULT_SIZE = 1024
SUPERSAMPLING = (1, 2, 4)
#: Built-in meshes offered (app.preview.mesh.MESH_NAMES' usual ones); a file can be typed or browsed.
MESHES = ("sphere", "cube", "plane", "cylinder", "torus", "ball")


@dataclass(frozen=True)
class ExportRequest:
    """Where and how: `path` is a folder (bake) or the file to write (.glb/.gltf, .mtlx)."""

    path: Path
    size: int = DEFAULT_SIZE
    supersampling: int = 1
    mesh: str = "sphere"


def suggested_path(kind: ExportKind, directory: str, stem: str) -> str:
    if kind is ExportKind.BAKE:
        return os.path.join(directory, f"{stem}_textures")
    return os.path.join(directory, f"{stem}.glb" if kind is ExportKind.GLTF else f"{stem}.mtlx")


class ExportDialog(QDialog):
    """Path (with Browse...), size, supersampling and mesh."""

    def __init__(self, parent: QWidget | None, kind: ExportKind, suggested: str) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setWindowTitle(kind.title)
        self.path_edit = QLineEdit(suggested)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)
        self.size_box = QComboBox()
        for size in SIZES:
            self.size_box.addItem(f"{size} × {size}", size)
        self.size_box.setCurrentIndex(SIZES.index(DEFAULT_SIZE))
        self.supersampling_box = QComboBox()
        for factor in SUPERSAMPLING:
            self.supersampling_box.addItem("off" if factor == 1 else f"{factor} × {factor} samples per texel", factor)
        self.mesh_box = QComboBox()
        self.mesh_box.setEditable(True)  # a mesh file path may be typed
        self.mesh_box.addItems(MESHES)
        mesh_browse = QPushButton("File…")
        mesh_browse.clicked.connect(self._browse_mesh)
        mesh_row = QHBoxLayout()
        mesh_row.addWidget(self.mesh_box, 1)
        mesh_row.addWidget(mesh_browse)
        form = QFormLayout()
        form.addRow("Folder:" if kind is ExportKind.BAKE else "File:", path_row)
        form.addRow("Texture size:", self.size_box)
        form.addRow("Supersampling:", self.supersampling_box)
        form.addRow("Bake on mesh:", mesh_row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def _browse(self) -> None:
        current = self.path_edit.text()
        if self.kind is ExportKind.BAKE:
            chosen = QFileDialog.getExistingDirectory(self, "Bake textures to folder", current)
        elif self.kind is ExportKind.GLTF:
            chosen, _ = QFileDialog.getSaveFileName(self, "Export glTF", current, "glTF binary (*.glb);;glTF (*.gltf)")
        else:
            chosen, _ = QFileDialog.getSaveFileName(self, "Export MaterialX", current, "MaterialX (*.mtlx)")
        if chosen:
            self.path_edit.setText(chosen)

    def _browse_mesh(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Bake on mesh", "", "Meshes (*.obj *.gltf *.glb)")
        if chosen:
            self.mesh_box.setCurrentText(chosen)

    def request(self) -> ExportRequest | None:
        text = self.path_edit.text().strip()
        if not text:
            return None
        path = Path(text)
        if self.kind is ExportKind.GLTF and path.suffix.lower() not in (".glb", ".gltf"):
            path = path.with_name(path.name + ".glb")
        elif self.kind is ExportKind.MTLX and path.suffix.lower() != ".mtlx":
            path = path.with_name(path.name + ".mtlx")
        return ExportRequest(path, int(self.size_box.currentData()), int(self.supersampling_box.currentData()),
                             self.mesh_box.currentText().strip() or "sphere")


def ask_export_target(parent: QWidget | None, kind: ExportKind, suggested: str) -> ExportRequest | None:
    dialog = ExportDialog(parent, kind, suggested)
    return dialog.request() if dialog.exec() == QDialog.DialogCode.Accepted else None


def choose_mtlx_path(parent: QWidget | None, directory: str) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Import MaterialX", directory, "MaterialX (*.mtlx);;All files (*)")
    return path or None


def show_notes(parent: QWidget | None, title: str, message: str, notes: Sequence[str]) -> None:
    box = QMessageBox(QMessageBox.Icon.Information, title, message, QMessageBox.StandardButton.Ok, parent)
    if notes:
        box.setInformativeText("\n".join(notes[:5]) + ("\n…" if len(notes) > 5 else ""))
        box.setDetailedText("\n".join(notes))
    box.exec()
