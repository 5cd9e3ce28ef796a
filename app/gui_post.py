"""The GUI thread's side of background work: how results reach it, threads Qt objects can move to, and
the timer that collects garbage there.

`gui_post()` is the one way a worker's result reaches the GUI thread (a queued call on an object that
lives there); making it takes the garbage collector over for the GUI thread (`vpl_core.collector`).
`QtThread` is a worker thread that is a QThread, so a QOpenGLContext made on the GUI thread can be
moved to it before it starts (making one on the worker deadlocks under llvmpipe).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import cast

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QThread, QTimer, Signal, Slot

from app.workers import Post
from vpl_core import collector

#: How often the GUI thread collects what is due (`vpl_core.collector.collect_due`).
COLLECT_TICK_MS = 100

_is_valid = cast(Callable[[object], bool], shiboken6.isValid)  # shiboken6's untyped helper, typed


class _Inbox(QObject):
    """Lives on the GUI thread; runs the functions posted to it there, in the order posted, and collects
    garbage there on a timer (the only collector once workers run: `vpl_core.collector`)."""

    posted = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.posted.connect(self._run, Qt.ConnectionType.QueuedConnection)
        collector.take_over()
        self._collecting = QTimer(self)
        self._collecting.setInterval(COLLECT_TICK_MS)
        self._collecting.timeout.connect(collector.collect_due)
        self._collecting.start()

    @Slot(object)
    def _run(self, function: Callable[[], None]) -> None:
        function()


_inboxes: list[_Inbox] = []


def gui_post() -> Post:
    """The `Post` that runs a function on the GUI thread at the event loop's next turn (call on the GUI thread;
    the first call takes the garbage collector over, `vpl_core.collector.take_over`)."""
    application = QCoreApplication.instance()
    if application is None:
        raise RuntimeError("gui_post needs a QCoreApplication")
    if not _inboxes or _inboxes[0].parent() is not application:
        _inboxes[:] = [_Inbox(application)]
    return _inboxes[0].posted.emit


def deliver_posted() -> None:
    """Run everything posted to the GUI thread so far, now (tests and `finish_rendering` use it)."""
    if _inboxes:
        QCoreApplication.sendPostedEvents(_inboxes[0], QEvent.Type.MetaCall)


class QtThread(QThread):
    """A worker's thread as a QThread (`app.workers.Spawn`): `qthread` is what `moveToThread` takes."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self._target: Callable[[], None] | None = target
        self._post = gui_post()
        self.ident: int | None = None

    @property
    def qthread(self) -> QThread:
        return self

    def run(self) -> None:
        self.ident = threading.get_ident()
        try:
            if self._target is not None:
                self._target()
        finally:
            # The target (its worker) refers to this object: no cycle is left, and this object's last reference
            # goes on the GUI thread once the thread has ended (a QThread deleted while it runs aborts).
            self._target = None
            self._post(self._ended)

    def _ended(self) -> None:
        self.wait()  # `run` has returned: this returns at once

    def join(self, timeout: float | None = None) -> None:
        if not _is_valid(self):  # deleted at the interpreter's exit: it ran no more
            return
        if timeout is None:
            self.wait()
        else:
            self.wait(max(0, int(timeout * 1000)))

    def is_alive(self) -> bool:
        return _is_valid(self) and self.isRunning()
