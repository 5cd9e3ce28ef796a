"""Python's cyclic garbage collection on the window's thread only, while threads of ours run Python code.

Why (docs/preview.md, "The render thread"): CPython runs
its cyclic collector in whichever thread happens to allocate past the
collector's threshold. A thread running Python code (the preview's render
thread draws with PyOpenGL and builds meshes with numpy: thousands of
allocations a frame) therefore collects, now and then, garbage the
window's thread left behind: Qt objects in reference cycles (a timer, a
graphics scene, an offscreen surface, any QObject with no parent). Their
C++ destructors then run on the wrong thread, which Qt documents as unsafe
("Calling delete on a QObject from a thread other than the one that owns
the object ... is unsafe"; a QOffscreenSurface's "destruction must always
happen on the main (GUI) thread"). PySide defers only QWidget and QWindow
deletions to the main thread. What follows is a timer Qt still fires for a
deleted QTimer ("QObject::killTimer: Timers cannot be stopped from another
thread", then SIGSEGV in `QTimerInfoList::activateTimers`), or a heap
corrupted under the window's thread's own collection: the crash of two
full test suites. `tests/app/preview/render_thread_stress.py` reproduces it.

So while a `hold()` is in force, the automatic collector is off
(`gc.disable()`) and a timer on the window's thread collects instead,
following the collector's own thresholds (`gc.get_threshold()`, the
counts of `gc.get_count()`): the youngest generation whose count passed
its threshold, like CPython. Garbage then waits at most one tick
(`TICK_MS`). Reference counting frees everything else at once, on any
thread, as before; only cycles wait.

Invariants: `hold` and `release` are called on the window's thread (the
thread of the QCoreApplication), in pairs; the collector is enabled again
after the last `release` only if it was enabled before the first `hold`,
and only at the event loop's next turn (`release` explains why).
Code that disables the collector for a while itself (`vpl_core` reading a
large file, the window opening a document) finds it disabled and leaves it
so; should anything enable it while a hold is in force, the next tick
disables it again (and the last release leaves it enabled). A collection
that starts on another thread all the same is counted
(`off_thread_collections`; the tests check it stays zero).

Who holds: the preview's render thread while it runs; the editor's window
from its creation until it closes (`hold_for`: its lowering worker, the
CPU preview's and the environment's prefiltering run Python code whether
or not the preview has a render thread), or is destroyed unclosed; the
node thumbnails' worker from its start until it has ended (it can outlive
its window: app/preview/thumbnails.py). Not until the window is destroyed:
a closed window can stay alive long after (its opening froze it with
`gc.freeze()`, app/ui/collection.py), and would keep the collector off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import cast

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer, Slot

_is_valid = cast(Callable[[QObject], bool], shiboken6.isValid)  # shiboken6's untyped helper, typed

#: How often the window's thread checks the collector's counts while a hold is in force.
TICK_MS = 100


class WindowThreadCollection(QObject):
    """The one object that moves cyclic collection to the window's thread (module docstring)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._holds = 0
        self._was_enabled = False
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.collect_due)
        self._restore = QTimer(self)  # enables the automatic collector again after the last release
        self._restore.setSingleShot(True)
        self._restore.setInterval(0)
        self._restore.timeout.connect(self._give_back)
        #: Collections that ran on another thread while a hold was in force (should stay 0).
        self.off_thread_collections = 0
        #: Collections run by this object's timer (or by `collect_due` called directly).
        self.collections = 0

    @property
    def holding(self) -> bool:
        return self._holds > 0

    @property
    def holds(self) -> int:
        """`hold`s not yet released (tests)."""
        return self._holds

    def hold(self) -> None:
        """Collect on the window's thread only, until the matching `release`."""
        if self._holds == 0:
            if not self._restore.isActive():  # else: still disabled by the previous holds, and noted
                self._was_enabled = gc.isenabled()
            self._restore.stop()
            gc.disable()
            self._timer.start()
        self._holds += 1

    def release(self) -> None:
        """End one `hold`; after the last, the automatic collector is back as it was, from the event loop.

        Not at once: a release can come from deep inside Qt (a render thread closes when its widget's
        context is destroyed, inside the widget's C++ destructor), where Qt holds its locks; an automatic
        collection started there by the next allocation can delete a QObject that needs one of those locks
        (a deadlock seen in this project's tests). The event loop's next turn is a safe place.
        """
        if self._holds == 0:
            return
        self._holds -= 1
        if self._holds == 0:
            self._timer.stop()
            self._restore.start()

    @Slot()
    def _give_back(self) -> None:
        if self._holds == 0 and (self._was_enabled or gc.isenabled()):
            gc.enable()

    @Slot()
    def collect_due(self) -> None:
        """Collect the generation the automatic collector would have collected by now (none if none is due)."""
        if gc.isenabled():  # something enabled it meanwhile: take over again, and enable it after the last release
            self._was_enabled = True
            gc.disable()
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if not thresholds[0] or counts[0] <= thresholds[0]:
            return
        generation = 0
        if counts[1] > thresholds[1]:
            generation = 1
            if counts[2] > thresholds[2]:
                generation = 2
        gc.collect(generation)
        self.collections += 1


_instance: list[WindowThreadCollection] = []


def _watch(phase: str, info: dict[str, int]) -> None:
    """`gc.callbacks` entry: count a collection that starts off the main thread while a hold is in force."""
    if phase == "start" and _instance and _instance[0].holding and threading.current_thread() is not threading.main_thread():
        _instance[0].off_thread_collections += 1


gc.callbacks.append(_watch)


class Hold:
    """One `hold` of the application's collection, released once (`release`, idempotent)."""

    def __init__(self) -> None:
        self._collection: WindowThreadCollection | None = window_thread_collection()
        self._collection.hold()

    def release(self) -> None:
        collection, self._collection = self._collection, None
        if collection is not None and _is_valid(collection):
            collection.release()


def hold_for(owner: QObject) -> Hold:
    """A `Hold` for an object whose workers run Python code: released by the caller when they have stopped,
    or when `owner` is destroyed, whichever comes first (the editor's window: its lowering, node
    thumbnails, CPU preview, environment prefiltering)."""
    hold = Hold()
    owner.destroyed.connect(lambda *_: hold.release())  # from the C++ destructor: `release` defers what it must
    return hold


def window_thread_collection() -> WindowThreadCollection:
    """The application's `WindowThreadCollection` (made on first use on the window's thread, a child of the application)."""
    application = QCoreApplication.instance()
    if application is None:
        raise RuntimeError("window_thread_collection needs a QCoreApplication")
    if not _instance or not _is_valid(_instance[0]) or _instance[0].parent() is not application:
        _instance[:] = [WindowThreadCollection(application)]
    return _instance[0]
