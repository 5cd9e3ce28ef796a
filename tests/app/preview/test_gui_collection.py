"""Cyclic garbage is collected on the GUI thread only (`vpl_core.collector`, taken over by `app.gui_post`).

Garbage made on the GUI thread is freed there even while another thread allocates heavily (without the
rule that thread runs the collections, over the GUI thread's Qt objects: the render thread's crash,
docs/decisions.md "One collector policy"); the control runs in a process of its own, where nothing took
the collector over. Every wait is on a count or an event.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest

from app.gui_post import gui_post
from vpl_core import collector


@pytest.fixture
def small_thresholds(qapp) -> Iterator[None]:
    """The GUI thread's collector in force, with thresholds passed often; given back as found."""
    gui_post()
    thresholds = gc.get_threshold()
    gc.collect()
    gc.set_threshold(100, 10, 10)
    yield
    gc.set_threshold(*thresholds)


class _Cycle:
    """Garbage only the cyclic collector frees; records the thread that freed it."""

    freed_on: ClassVar[list[str]] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.freed_on.append(threading.current_thread().name)


def _allocate_in_a_thread(count: int) -> None:
    """A thread allocating `count` container objects (each one the collector counts), as a worker does."""

    def work() -> None:
        junk = [[index] for index in range(count)]
        del junk

    thread = threading.Thread(target=work, name="allocating")
    thread.start()
    thread.join()


CONTROL = """
import gc, threading
freed = []
class Cycle:
    def __init__(self): self.me = self
    def __del__(self): freed.append(threading.current_thread().name)
gc.collect()
gc.set_threshold(100, 10, 10)
gc.disable()  # the garbage is made first; the collector is on again only while the other thread allocates
for _ in range(200):
    Cycle()
def work():
    gc.enable()
    junk = [[index] for index in range(5000)]
thread = threading.Thread(target=work, name="allocating")
thread.start(); thread.join()
gc.collect()
print(freed.count("allocating"), len(freed))
"""


def test_without_the_rule_another_thread_collects_the_main_threads_garbage() -> None:
    """The control, in a process of its own: CPython collects in whichever thread allocates past the threshold."""
    output = subprocess.run([sys.executable, "-c", CONTROL], capture_output=True, text=True, check=True).stdout
    on_other, total = (int(word) for word in output.split())
    assert total == 200 and on_other > 0


def test_with_the_rule_the_gui_thread_collects_all_of_it(qtbot, small_thresholds) -> None:
    off_thread = collector.off_thread_collections()
    _Cycle.freed_on.clear()
    for _ in range(200):
        _Cycle()
    _allocate_in_a_thread(5_000)  # passes the threshold 50 times
    assert _Cycle.freed_on == [], "nothing was collected on the allocating thread"
    assert collector.collect_due()  # what the GUI thread's timer calls
    gc.collect()  # whatever that generation did not hold, on this thread too
    assert _Cycle.freed_on == ["MainThread"] * 200
    assert collector.off_thread_collections() == off_thread


def test_something_enabling_the_collector_is_overruled(qtbot, small_thresholds) -> None:
    gc.enable()
    garbage = [_Cycle() for _ in range(300)]
    del garbage
    qtbot.waitUntil(lambda: not gc.isenabled(), timeout=5_000)


def test_only_a_due_generation_is_collected(small_thresholds) -> None:
    gc.collect()
    gc.set_threshold(10_000, 10, 10)
    collections = collector.collections()
    assert not collector.collect_due()  # nothing allocated: nothing due
    garbage = [_Cycle() for _ in range(20_000)]
    del garbage
    assert collector.collect_due()
    assert collector.collections() == collections + 1 and gc.get_count()[0] < 10_000


def test_nothing_is_collected_while_paused_and_only_the_main_thread_collects(small_thresholds) -> None:
    garbage = [_Cycle() for _ in range(500)]
    del garbage
    with collector.paused():
        assert not collector.collect_due()
    due: list[bool] = []
    thread = threading.Thread(target=lambda: due.append(collector.collect_due()))
    thread.start()
    thread.join()
    assert due == [False]
    assert collector.collect_due()


def test_a_worker_reading_meanwhile_does_not_hold_the_gui_threads_collection_back(small_thresholds) -> None:
    """A worker's `paused` (it reads and writes VPL text) changes nothing once the GUI thread collects: a worker
    blocked inside one never stops the GUI thread's collections."""
    inside, release = threading.Event(), threading.Event()

    def reading() -> None:
        with collector.paused():
            inside.set()
            release.wait(30)

    thread = threading.Thread(target=reading, name="reading")
    thread.start()
    try:
        assert inside.wait(30)
        garbage = [_Cycle() for _ in range(500)]
        del garbage
        assert collector.collect_due()
    finally:
        release.set()
        thread.join()
