"""The GUI thread's side of background work: how results reach it, and threads Qt objects can move to.

`gui_post()` is the one way a worker's result reaches the GUI thread (a queued call on an object that
lives there). `QtThread` is a worker thread that is a QThread, so a QOpenGLContext made on the GUI
thread can be moved to it before it starts (making one on the worker deadlocks under llvmpipe).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import cast

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QThread, Signal, Slot

from app.workers import Post

_is_valid = cast(Callable[[object], bool], shiboken6.isValid)  # shiboken6's untyped helper, typed


class _Inbox(QObject):
    """Lives on the GUI thread; runs the functions posted to it there, in the order posted."""

    posted = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.posted.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _run(self, function: Callable[[], None]) -> None:
        function()


_inboxes: list[_Inbox] = []


def gui_post() -> Post:
    """The `Post` that runs a function on the GUI thread at the event loop's next turn (call on the GUI thread)."""
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
