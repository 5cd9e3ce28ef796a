"""Python's cyclic garbage collector around opening a document.

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
  or not). That collection runs when the heap is smallest (no document) and
  only when the frozen objects have grown by a quarter since the last one,
  the rule CPython itself uses for full collections: opening a large
  document over a small one does not pay it; opening a small one over a
  large one, or many openings, do. It traverses what is alive then,
  including the previous document's lowering result, which the session
  still holds (1.2-5.3 s after 2,000 nodes at load 5-6: docs/performance-history.md).
  The previous document's view is not garbage for it any more
  (`MaterialNodeGraph.clear_session` cuts the cycles between nodes and
  ports, so it is freed by reference counting); what still grows the frozen
  objects by a quarter is data alive when an opening ends, such as a large
  document's lowering (its IR and source maps) still held while a small one
  opens over it (docs/performance-history.md, "What is left").

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
from collections.abc import Iterator

#: How much the frozen objects may grow (as a fraction of their number after the last full collection)
#: before `reclaim_frozen_garbage` collects them: CPython's own ratio for full collections.
GROWTH_BEFORE_COLLECTING = 0.25


atexit.register(gc.unfreeze)


class _Frozen:
    """The collector's state that this module keeps: the frozen count after the last full collection."""

    baseline: int | None = None
    #: Inside `paused_while_loading` (nested uses do nothing more).
    loading = False


@contextlib.contextmanager
def paused_while_loading() -> Iterator[None]:
    """No collection inside; everything alive at the end is frozen (see the module docstring).

    The collector is left as it was found. It is often off already: the preview's render thread keeps
    the automatic collector off while it runs and collects from the window's thread instead
    (app/preview/collection.py, now the default); the freezing matters just as much then,
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


def reclaim_frozen_garbage() -> bool:
    """Collect the frozen objects' garbage when they have grown enough since the last time; True if it did."""
    frozen = gc.get_freeze_count()
    baseline = _Frozen.baseline
    if baseline is None or frozen <= baseline * (1.0 + GROWTH_BEFORE_COLLECTING):
        if baseline is not None and frozen < baseline:
            # The heap shrank (the baseline counted a previous document's data that is freed by now).
            _Frozen.baseline = frozen
        return False
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _Frozen.baseline = gc.get_freeze_count()
    return True
