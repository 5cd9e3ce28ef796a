"""Platform guards: facts from docs/platform-notes.md that would break the editor if they regressed."""

from __future__ import annotations

import sys


def test_pyside_void_methods_keep_the_refcount_of_none() -> None:
    """PySide6 6.12.0 drops a reference to None on every void method call (process dies later).

    A thousand calls of a void method must leave None's reference count where it was.
    """
    from PySide6.QtCore import QRectF

    # On Python 3.12+ None is immortal and its count never moves, so this only bites on 3.11
    # (the project's interpreter); it must not skip there, since CI fails on skips.
    rectangle = QRectF(0.0, 0.0, 1.0, 1.0)
    before = sys.getrefcount(None)
    for step in range(1000):
        rectangle.setWidth(float(step))
    after = sys.getrefcount(None)
    assert after >= before - 10, f"refcount of None fell from {before} to {after}"


def test_pyside_is_pinned_below_6_12() -> None:
    import PySide6

    major, minor = (int(part) for part in PySide6.__version__.split(".")[:2])
    assert (major, minor) < (6, 12), PySide6.__version__
