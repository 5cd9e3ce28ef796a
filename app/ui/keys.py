"""Keyboard conventions shared by the window and its fields."""

from __future__ import annotations

import sys

from PySide6.QtGui import QKeyEvent, QKeySequence


def redo_keys() -> list[QKeySequence]:
    """The platform's standard Redo keys, plus Ctrl+Y except on macOS (where Cmd+Y is not Redo).

    Qt's X11 bindings give only Ctrl+Shift+Z; Windows users and most Linux
    applications (LibreOffice, GIMP, Krita, Inkscape) also redo with Ctrl+Y.
    """
    keys = list(QKeySequence.keyBindings(QKeySequence.StandardKey.Redo))
    control_y = QKeySequence("Ctrl+Y")
    if sys.platform != "darwin" and control_y not in keys:
        keys.append(control_y)
    return keys


def is_undo(event: QKeyEvent) -> bool:
    return event.matches(QKeySequence.StandardKey.Undo)


def is_redo(event: QKeyEvent) -> bool:
    return event.matches(QKeySequence.StandardKey.Redo) or QKeySequence(event.keyCombination()) in redo_keys()
