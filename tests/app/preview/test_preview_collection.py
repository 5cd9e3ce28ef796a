"""Cyclic garbage collection kept on the window's thread while the preview's threads run Python (issue 20).

`app.preview.collection` turns CPython's automatic collector off while a
hold is in force and collects on the window's thread by the collector's own
thresholds; these tests check that garbage made on the window's thread is
freed there even while another thread allocates heavily (without the hold,
that thread runs the collections: the render thread's crash,
docs/preview.md "The render thread"), and that the collector's state is
given back as it was found.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest
from PySide6.QtCore import QCoreApplication, QEvent

from app.preview.collection import window_thread_collection
from app.preview.render_thread import close_all


@pytest.fixture
def collector_state() -> Iterator[None]:
    """No render thread left running by earlier tests (their widgets may wait for deletion), the collector
    enabled (as Python starts), and both given back as the test found them."""
    close_all()
    # Widgets of earlier tests waiting for deletion, and the collection's own queued work, are done with first.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    assert not window_thread_collection().holding
    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.enable()
    yield
    gc.set_threshold(*thresholds)
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


class _Cycle:
    """Garbage that only the cyclic collector frees; records the thread that freed it."""

    freed_on: ClassVar[list[str]] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.freed_on.append(threading.current_thread().name)


def _allocate_in_a_thread(count: int) -> threading.Thread:
    """A thread allocating `count` container objects (each one the collector counts), as the render thread does."""

    def work() -> None:
        junk = [[index] for index in range(count)]
        del junk

    thread = threading.Thread(target=work, name="allocating")
    thread.start()
    return thread


def _garbage_freed_on(qtbot, *, hold: bool) -> list[str]:
    collection = window_thread_collection()
    _Cycle.freed_on.clear()
    gc.collect()
    gc.set_threshold(100, 10, 10)  # collections are due often: the allocating thread passes the threshold many times
    if hold:
        collection.hold()
    try:
        for _ in range(200):
            _Cycle()
        thread = _allocate_in_a_thread(5_000)  # passes the threshold 50 times
        thread.join()
        if hold:
            qtbot.waitUntil(lambda: len(_Cycle.freed_on) == 200, timeout=10_000)  # the window's timer collects
    finally:
        if hold:
            collection.release()
    gc.collect()
    return list(_Cycle.freed_on)


def test_without_a_hold_another_thread_collects_the_window_threads_garbage(qtbot, collector_state) -> None:
    """What the hold is for: CPython collects in whichever thread allocates past the threshold."""
    freed = _garbage_freed_on(qtbot, hold=False)
    assert len(freed) == 200 and "allocating" in freed


def test_with_a_hold_the_window_thread_collects_all_of_it(qtbot, collector_state) -> None:
    collection = window_thread_collection()
    off_thread = collection.off_thread_collections
    freed = _garbage_freed_on(qtbot, hold=True)
    assert freed == ["MainThread"] * 200
    assert collection.off_thread_collections == off_thread


def test_holds_nest_and_the_collector_is_given_back_as_it_was(qtbot, collector_state) -> None:
    collection = window_thread_collection()
    collection.hold()
    collection.hold()
    assert not gc.isenabled() and collection.holding
    collection.release()
    assert not gc.isenabled() and collection.holding
    collection.release()
    assert not collection.holding and not gc.isenabled()  # given back at the event loop's next turn, not here
    collection.hold()                                     # a new hold meanwhile: still off, and still owed
    collection.release()
    qtbot.waitUntil(gc.isenabled, timeout=5_000)
    collection.release()  # one release too many changes nothing
    assert gc.isenabled() and not collection.holding
    gc.disable()  # a caller that had it off (a large read, a document opening) keeps it off
    collection.hold()
    collection.release()
    qtbot.wait(50)
    assert not gc.isenabled()


def test_a_collector_enabled_during_a_hold_is_taken_over_again(qtbot, collector_state) -> None:
    """Code that pauses the collector itself and enables it afterwards: the next tick disables it again."""
    collection = window_thread_collection()
    collection.hold()
    try:
        gc.enable()
        qtbot.waitUntil(lambda: not gc.isenabled(), timeout=5_000)
    finally:
        collection.release()
    qtbot.waitUntil(gc.isenabled, timeout=5_000)  # it was enabled when last seen: so it is given back


def test_only_a_due_generation_is_collected(qtbot, collector_state) -> None:
    collection = window_thread_collection()
    collection.hold()
    try:
        gc.collect()
        gc.set_threshold(10_000, 10, 10)
        collections = collection.collections
        collection.collect_due()  # nothing allocated: nothing due
        assert collection.collections == collections
        garbage = [_Cycle() for _ in range(20_000)]
        del garbage
        collection.collect_due()
        assert collection.collections == collections + 1 and gc.get_count()[0] < 10_000
    finally:
        collection.release()
