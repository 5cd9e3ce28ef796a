"""Python's cyclic garbage collector around opening a document (issue 23 item 8).

Opening 2,000 nodes allocates several hundred thousand objects that live as
long as the document (nodes, ports, their Qt wrappers, the snapshot). Left
to the collector's thresholds, every one of them is traversed again by the
young collections that follow the opening and by one or more full
collections (each 0.2-0.3 s on a quiet machine, seconds on a loaded
one, during the view's first paint or the first edits). So:

- `paused_while_loading()`: no collection while the document is built, and
  at its end `gc.freeze()` moves every object alive into the collector's
  permanent generation, which no collection traverses (the CPython docs
  recommend it for long-lived objects); what is allocated
  afterwards is collected as usual.
- `reclaim_frozen_garbage()`, called once the previous document is torn
  down and before the new one is built: a frozen object that later becomes
  part of unreachable cycles is only freed by a full collection after
  `gc.unfreeze()` (objects freed by their reference count go at once, frozen
  or not). Whether one is due is decided there, when the heap is smallest
  (no document): only when the frozen objects have grown by a quarter since
  the last one, the rule CPython itself uses for full collections: opening
  a large document over a small one does not pay it; opening a small one
  over a large one, or many openings, do (a closed 2,000-node view leaves
  about 110,000 objects in cycles: NodeGraphQt's nodes and ports refer to
  each other). With `after_paint_of` (the graph view, when it is shown) the
  collection itself waits until that widget has painted, so the new
  document shows first (the collection traverses everything alive and frees
  the old document's objects: 0.4-0.9 s after 2,000 nodes at load 2-3, was
  the opening's; docs/performance.md); a hidden widget, or none, collects at
  once.

At exit everything is unfrozen (`atexit`), so that the interpreter's
final collection sees all objects again: extension modules that count
their objects at exit (nanobind's, OpenImageIO's) would report frozen ones
as leaked.

Invariant: between openings, the objects frozen are those alive at the
end of the last opening, less those freed since; the garbage they hold is
bounded by a quarter of the heap after the last reclaiming collection.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
from collections.abc import Callable, Iterator
from typing import cast

import shiboken6
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

_is_valid = cast(Callable[[QObject], bool], shiboken6.isValid)  # shiboken6's untyped helper, typed

#: How much the frozen objects may grow (as a fraction of their number after the last full collection)
#: before `reclaim_frozen_garbage` collects them: CPython's own ratio for full collections.
GROWTH_BEFORE_COLLECTING = 0.25
#: Longest wait of a reclaiming collection for the paint of `after_paint_of` (a window shown but never painted).
PAINT_WAIT_MS = 1000


atexit.register(gc.unfreeze)


class _Frozen:
    """The collector's state that this module keeps: the frozen count after the last full collection."""

    baseline: int | None = None
    #: Runs a reclaiming collection after a paint (`reclaim_frozen_garbage(after_paint_of=...)`), made when first needed.
    watcher: _AfterPaint | None = None
    #: Inside `paused_while_loading` (nested uses do nothing more).
    loading = False


@contextlib.contextmanager
def paused_while_loading() -> Iterator[None]:
    """No collection inside; everything alive at the end is frozen (see the module docstring).

    The collector is left as it was found. It is often off already: the preview's render thread keeps
    the automatic collector off while it runs and collects from the window's thread instead
    (app/preview/collection.py, the default since issue 20); the freezing matters just as much then,
    since those collections traverse the same generations. Nested uses freeze once, at the outermost end.
    """
    if _Frozen.loading:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    _Frozen.loading = True
    try:
        yield
    finally:
        _Frozen.loading = False
        gc.freeze()
        if _Frozen.baseline is None:
            _Frozen.baseline = gc.get_freeze_count()
        if was_enabled:
            gc.enable()


def reclaim_frozen_garbage(after_paint_of: QWidget | None = None) -> bool:
    """Collect the frozen objects' garbage when they have grown enough since the last time; True if it is due.

    The collection runs at once, or, with `after_paint_of` visible, on the event loop's turn after that
    widget's next paint (at most `PAINT_WAIT_MS` from now; `collect_pending_garbage` runs it sooner)."""
    frozen = gc.get_freeze_count()
    baseline = _Frozen.baseline
    if baseline is None or frozen <= baseline * (1.0 + GROWTH_BEFORE_COLLECTING):
        if baseline is not None and frozen < baseline:
            # The heap shrank (the baseline counted a previous document's data that is freed by now).
            _Frozen.baseline = frozen
        return False
    if after_paint_of is None or not after_paint_of.isVisible():
        _collect_frozen()
    else:
        _after_paint().watch(after_paint_of)
    return True


def collect_pending_garbage() -> bool:
    """Run a reclaiming collection that waits for a paint now; True if one was waiting."""
    watcher = _Frozen.watcher
    if watcher is None or not watcher.pending:
        return False
    watcher.stop()
    _collect_frozen()
    return True


def _collect_frozen() -> None:
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _Frozen.baseline = gc.get_freeze_count()


class _AfterPaint(QObject):
    """Runs the reclaiming collection on the event loop's turn after a widget's next paint (or a timeout)."""

    def __init__(self) -> None:
        super().__init__()
        self._widget: QWidget | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._due)

    @property
    def pending(self) -> bool:
        return self._timer.isActive()

    def watch(self, widget: QWidget) -> None:
        self._stop_watching()
        self._widget = widget
        widget.installEventFilter(self)
        self._timer.start(PAINT_WAIT_MS)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            # Before the paint is handled: the collection comes on a later turn of the event loop.
            self._stop_watching()
            self._timer.start(0)
        return False

    def _due(self) -> None:
        self._stop_watching()
        _collect_frozen()

    def _stop_watching(self) -> None:
        widget, self._widget = self._widget, None
        if widget is not None and _is_valid(widget):  # (a widget destroyed meanwhile has no filters)
            widget.removeEventFilter(self)

    def stop(self) -> None:
        self._stop_watching()
        self._timer.stop()


def _after_paint() -> _AfterPaint:
    if _Frozen.watcher is None:
        _Frozen.watcher = _AfterPaint()
    return _Frozen.watcher
