"""Python's cyclic garbage collector: the one module that changes it, and the one rule it follows.

The rule: only the main thread collects cycles. A program running threads of its own beside objects
that must be freed on the main thread (the editor: Qt objects) calls `take_over()` once, on the main
thread; from then on the automatic collector stays off and the main thread collects by calling
`collect_due()` regularly (the editor: a timer of its event loop). `paused()` and `loading()` defer
collection while large structures are built. Why: docs/decisions.md, "One collector policy".
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import threading
from collections.abc import Iterator

#: How much the frozen objects may grow (as a fraction of their number after the last full collection)
#: before `reclaim_frozen_garbage` collects them: CPython's own ratio for full collections.
GROWTH_BEFORE_COLLECTING = 0.25


class _State:
    taken_over = False
    paused = 0
    #: The frozen count after the last full collection (`reclaim_frozen_garbage`).
    baseline: int | None = None
    loading = False
    #: Collections that started on another thread after `take_over` (the rule says none; tests check it).
    off_thread_collections = 0
    #: Collections run by `collect_due`.
    collections = 0


def taken_over() -> bool:
    return _State.taken_over


def off_thread_collections() -> int:
    return _State.off_thread_collections


def collections() -> int:
    return _State.collections


def take_over() -> None:
    """From now on the main thread alone collects, by `collect_due` (idempotent; on the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("only the main thread may take the garbage collector over")
    _State.taken_over = True
    gc.disable()


def collect_due() -> bool:
    """Collect the generation the automatic collector would have collected by now; True if it did.

    On the main thread, after `take_over`; nothing while `paused`.
    """
    if not _State.taken_over or _State.paused or threading.current_thread() is not threading.main_thread():
        return False
    gc.disable()  # whatever enabled it meanwhile: the rule stands
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if not thresholds[0] or counts[0] <= thresholds[0]:
        return False
    generation = 0
    if counts[1] > thresholds[1]:
        generation = 1
        if counts[2] > thresholds[2]:
            generation = 2
    gc.collect(generation)
    _State.collections += 1
    return True


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside (reading a large file: the collector would traverse what stays alive).

    On a worker's thread after `take_over` nothing changes (that thread never collects), and the main
    thread's collections are not held back by it.
    """
    main = threading.current_thread() is threading.main_thread()
    if not main and _State.taken_over:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    if main:
        _State.paused += 1
    try:
        yield
    finally:
        if main:
            _State.paused -= 1
        if was_enabled and not _State.paused and not _State.taken_over:
            gc.enable()


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """`paused`, and everything alive at the end is frozen (`gc.freeze`): a document's objects live as long as
    it does, and no later collection traverses them. Nested uses freeze once, at the outermost end."""
    if _State.loading:
        yield
        return
    _State.loading = True
    try:
        with paused():
            yield
    finally:
        _State.loading = False
        gc.freeze()
        if _State.baseline is None:
            _State.baseline = gc.get_freeze_count()


def reclaim_frozen_garbage() -> bool:
    """Between documents: collect the frozen objects' garbage when they have grown by a quarter since the
    last time (CPython's own rule for full collections); True if it did. On the main thread."""
    frozen = gc.get_freeze_count()
    baseline = _State.baseline
    if baseline is None or frozen <= baseline * (1.0 + GROWTH_BEFORE_COLLECTING):
        if baseline is not None and frozen < baseline:
            _State.baseline = frozen  # the baseline counted a previous document's data, freed by now
        return False
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _State.baseline = gc.get_freeze_count()
    return True


def off_for_short_process() -> None:
    """A command-line run: no cyclic collection at all (reference counting frees what it drops)."""
    gc.disable()


def _watch(phase: str, _info: dict[str, int]) -> None:
    if phase == "start" and _State.taken_over and threading.current_thread() is not threading.main_thread():
        _State.off_thread_collections += 1


gc.callbacks.append(_watch)
# At exit everything is unfrozen, so the interpreter's final collection sees every object again: extension
# modules that count their objects at exit (nanobind's, OpenImageIO's) would report frozen ones as leaked.
atexit.register(gc.unfreeze)
