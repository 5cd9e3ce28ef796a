"""Every question the main window asks the user, as replaceable functions.

The window never calls QMessageBox or QFileDialog directly; it calls the
functions of its `Prompts`. The defaults show the real dialogs; tests pass a
`Prompts` whose functions return canned answers and record their arguments,
so no test ever waits on a modal dialog.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLabel, QMessageBox, QWidget

from app.ui.export_dialog import ExportKind, ExportRequest, ask_export_target, choose_mtlx_path, show_notes
from app.ui.recovery import RecoveryEntry

VPL_FILTER = "VPL modules (*.vpl);;All files (*)"


class SaveChoice(enum.Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def _plain_box(icon: QMessageBox.Icon, title: str, text: str, buttons: QMessageBox.StandardButton,
               parent: QWidget | None, informative: str = "") -> QMessageBox:
    """A message box showing `text` and `informative` as written: they quote file names, node ids and
    messages, which Qt would otherwise guess to be rich text."""
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    if informative:
        box.setInformativeText(informative)
    for label in box.findChildren(QLabel):  # the informative text has a label of its own (AutoText)
        label.setTextFormat(Qt.TextFormat.PlainText)
    return box


def _ask(parent: QWidget | None, title: str, text: str, buttons: QMessageBox.StandardButton,
         default: QMessageBox.StandardButton) -> QMessageBox.StandardButton:
    box = _plain_box(QMessageBox.Icon.Question, title, text, buttons, parent)
    box.setDefaultButton(default)
    return QMessageBox.StandardButton(box.exec())


def ask_save_changes(parent: QWidget | None, document_name: str) -> SaveChoice:
    answer = _ask(
        parent,
        "Unsaved changes",
        f"Save the changes to {document_name} before closing?",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Save,
    )
    if answer == QMessageBox.StandardButton.Save:
        return SaveChoice.SAVE
    if answer == QMessageBox.StandardButton.Discard:
        return SaveChoice.DISCARD
    return SaveChoice.CANCEL


def show_error(parent: QWidget | None, title: str, message: str, details: Sequence[str]) -> None:
    # The first few lines are what the user needs; the rest are one click away.
    box = _plain_box(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, parent,
                     "\n".join(details[:5]))
    if details:
        box.setDetailedText("\n".join(details))  # a plain-text editor
    box.exec()


def offer_recovery(parent: QWidget | None, entries: Sequence[RecoveryEntry]) -> RecoveryEntry | None:
    if not entries:
        return None
    if len(entries) == 1:
        answer = _ask(
            parent,
            "Recover unsaved work",
            "The editor did not close cleanly last time.\n"
            f"Recover {entries[0].description}?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        return entries[0] if answer == QMessageBox.StandardButton.Yes else None
    labels = [entry.description for entry in entries]
    label, accepted = QInputDialog.getItem(
        parent, "Recover unsaved work", "The editor did not close cleanly. Recover:", labels, 0, False
    )
    return entries[labels.index(label)] if accepted and label in labels else None


def choose_open_path(parent: QWidget | None, directory: str) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Open material", directory, VPL_FILTER)
    return path or None


def choose_save_path(parent: QWidget | None, suggested: str) -> str | None:
    path, _ = QFileDialog.getSaveFileName(parent, "Save material", suggested, VPL_FILTER)
    if path and not path.endswith(".vpl"):
        path += ".vpl"
    return path or None


def choose_export_dir(parent: QWidget | None, directory: str) -> str | None:
    path = QFileDialog.getExistingDirectory(parent, "Export GLSL to folder", directory)
    return path or None


def choose_turntable_path(parent: QWidget | None, suggested: str) -> str | None:
    """Where File > Export Turntable... writes: a .gif or .mp4 file (.gif added when neither is given)."""
    path, _ = QFileDialog.getSaveFileName(parent, "Export turntable", suggested, "Animations (*.gif *.mp4)")
    if path and not path.lower().endswith((".gif", ".mp4")):
        path += ".gif"
    return path or None


def ask_text(parent: QWidget | None, title: str, label: str, initial: str) -> str | None:
    text, accepted = QInputDialog.getText(parent, title, label, text=initial)
    return text if accepted else None


def choose_mtlx_material(parent: QWidget | None, document: str, names: Sequence[str]) -> str | None:
    """Which of a MaterialX document's materials to import (an editor document holds one); None when cancelled."""
    name, accepted = QInputDialog.getItem(parent, "Import MaterialX", f"{document} has {len(names)} materials. Import:",
                                          list(names), 0, False)
    return name if accepted and name else None


def ask_update_functions(parent: QWidget | None, names: Sequence[str]) -> bool:
    """The library copies of functions this material uses changed: take the new versions?"""
    listed = "\n".join(f"  {name}" for name in names)
    answer = QMessageBox.question(
        parent,
        "Library functions changed",
        f"The function library has newer versions of functions this material uses:\n{listed}\n\n"
        "Update them here? (Undo takes the update back.)",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.Yes,
    )
    return answer == QMessageBox.StandardButton.Yes


@dataclass
class Prompts:
    """The window's questions; replace any of them (tests inject answers)."""

    ask_save_changes: Callable[[QWidget | None, str], SaveChoice] = ask_save_changes
    show_error: Callable[[QWidget | None, str, str, Sequence[str]], None] = show_error
    offer_recovery: Callable[[QWidget | None, Sequence[RecoveryEntry]], RecoveryEntry | None] = offer_recovery
    choose_open_path: Callable[[QWidget | None, str], str | None] = choose_open_path
    choose_save_path: Callable[[QWidget | None, str], str | None] = choose_save_path
    choose_export_dir: Callable[[QWidget | None, str], str | None] = choose_export_dir
    ask_text: Callable[[QWidget | None, str, str, str], str | None] = ask_text
    choose_export_target: Callable[[QWidget | None, ExportKind, str], ExportRequest | None] = ask_export_target
    show_notes: Callable[[QWidget | None, str, str, Sequence[str]], None] = show_notes
    choose_mtlx_path: Callable[[QWidget | None, str], str | None] = choose_mtlx_path
    ask_update_functions: Callable[[QWidget | None, Sequence[str]], bool] = ask_update_functions
    choose_turntable_path: Callable[[QWidget | None, str], str | None] = choose_turntable_path
    choose_mtlx_material: Callable[[QWidget | None, str, Sequence[str]], str | None] = choose_mtlx_material
