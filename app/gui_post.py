"""The GUI thread's side of background work: how results reach it, and threads Qt objects can move to.

`gui_post()` is the one way a worker's result reaches the GUI thread (a queued call on an object that
lives there). `QtThread` is a worker thread that is a QThread, so a QOpenGLContext made on the GUI
thread can be moved to it before it starts (making one on the worker deadlocks under llvmpipe).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot

from app.workers import Post


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


class QtThread(QThread):
    """A worker's thread as a QThread (`app.workers.Spawn`): `qthread` is what `moveToThread` takes."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self._target = target
        self.ident: int | None = None

    @property
    def qthread(self) -> QThread:
        return self

    def run(self) -> None:
        self.ident = threading.get_ident()
        self._target()

    def join(self, timeout: float | None = None) -> None:
        if timeout is None:
            self.wait()
        else:
            self.wait(max(0, int(timeout * 1000)))

    def is_alive(self) -> bool:
        return self.isRunning()
