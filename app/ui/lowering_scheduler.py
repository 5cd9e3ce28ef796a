"""`LoweringScheduler`: when, and on which thread, the window's session lowers.

A discrete edit lowers at the event loop's next turn, a continuing gesture at most every `THROTTLE_MS`,
live value edits once they settle; the lowering runs on an `app.workers.Worker` and its outcome is
applied on the window's thread. Details and reasons: docs/decisions.md, "Module notes".
"""

from __future__ import annotations

import functools
import threading
import time
import traceback
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from app.gui_post import gui_post
from app.session import EditorSession
from app.session.session import LoweringJob, LoweringOutcome
from app.workers import Job, Worker

#: Shortest time between the starts of two lowerings while a gesture continues.
THROTTLE_MS = 40
#: How long value edits the preview shows without a lowering (live values) must stop before the panels' lowering.
LIVE_SETTLE_MS = 250
#: Longest wait of `request_after_paint` for the paint (a window that is shown but never painted).
PAINT_WAIT_MS = 1000
#: How long `flush` and `close` wait for a running lowering (a lowering never blocks; this bounds a bug).
FINISH_WAIT_S = 600.0


class LoweringScheduler(QObject):
    """See the module docstring and docs/decisions.md, "Module notes"."""

    #: A job's outcome was applied (the session has emitted `lowered`, or dropped a stale outcome).
    applied = Signal()
    #: A lowering raised (a bug in the compiler): its message; the previous result stays.
    failed = Signal(str)

    def __init__(self, session: EditorSession, targets: Callable[[], tuple[str, ...]] = tuple,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._targets = targets
        self._worker: Worker[tuple[LoweringJob, LoweringOutcome]] | None = None
        self._running: LoweringJob | None = None
        #: The last job the worker finished and its outcome (set on the worker's thread; `flush` takes it).
        self._finished: tuple[LoweringJob, LoweringOutcome] | None = None
        self._finished_lock = threading.Lock()
        self._continuing = False
        self._delay_ms = 0
        self._last_start = float("-inf")
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        #: The widget whose next paint starts the lowering (`request_after_paint`), and the wait's bound.
        self._paint_watched: QWidget | None = None
        self._paint_wait = QTimer(self)
        self._paint_wait.setSingleShot(True)
        self._paint_wait.timeout.connect(self._painted)
        self._worker_error: BaseException | None = None
        #: Lowerings started on the worker (tests and benchmarks read it).
        self.started = 0

    @property
    def busy(self) -> bool:
        """A lowering is running or about to start."""
        return self._running is not None or self._timer.isActive() or self._paint_watched is not None

    @property
    def settling(self) -> bool:
        """Waiting for value edits (a request with `delay_ms`) to stop before lowering."""
        return self._timer.isActive() and self._delay_ms > 0 and self._running is None

    def request(self, continuing: bool = False, delay_ms: int = 0) -> None:
        """The graph was edited: lower it soon (docs/decisions.md, lowering_scheduler.py notes, says how soon; `delay_ms`: once edits
        asking with a delay have stopped for that long)."""
        if self._closed:
            return
        self._continuing = continuing
        settling = self._timer.isActive() and self._delay_ms > 0
        self._delay_ms = delay_ms
        if self._running is not None:
            return  # the newest graph is taken when the running lowering ends
        if delay_ms > 0 and (settling or not self._timer.isActive()):
            self._timer.start(delay_ms)  # a run of value edits: wait until it stops
            return
        delay = 0
        if continuing:
            since = (time.monotonic() - self._last_start) * 1000.0
            delay = max(0, round(THROTTLE_MS - min(since, THROTTLE_MS)))
        if self._timer.isActive() and self._timer.remainingTime() <= delay:
            return
        self._timer.start(delay)

    def request_after_paint(self, widget: QWidget) -> None:
        """As `request`, once `widget` has painted (at most `PAINT_WAIT_MS` from now); at once if it is hidden.

        For a document just opened: the view's first paint comes before the
        lowering takes its turns on the GIL (docs/decisions.md, lowering_scheduler.py notes).
        """
        self._stop_waiting_for_paint()
        if self._closed:
            return
        if not widget.isVisible():
            self.request()
            return
        self._paint_watched = widget
        widget.installEventFilter(self)
        self._paint_wait.start(PAINT_WAIT_MS)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self._paint_watched and event.type() == QEvent.Type.Paint:
            # Before the paint is handled: the lowering's timer fires on a later turn of the event loop.
            self._painted()
        return False

    def _painted(self) -> None:
        self._stop_waiting_for_paint()
        self.request()

    def _stop_waiting_for_paint(self) -> None:
        self._paint_wait.stop()
        if self._paint_watched is not None:
            self._paint_watched.removeEventFilter(self)
            self._paint_watched = None

    def flush(self) -> None:
        """Finish the running lowering and lower whatever is left, now, on this thread."""
        self._stop_waiting_for_paint()
        self._timer.stop()
        self._delay_ms = 0
        running, self._running = self._running, None
        if running is not None and self._worker is not None:
            if not self._worker.wait_idle(FINISH_WAIT_S):
                raise TimeoutError(f"the lowering did not end within {FINISH_WAIT_S:.0f} s")
            error = self._worker_error
            self._worker.cancel()  # its outcome, posted to this thread, is applied here instead
            with self._finished_lock:
                finished, self._finished = self._finished, None
            if finished is not None and finished[0] is running:
                self.session.finish_lowering(*finished)
            elif error is not None:
                raise error
        if not self._closed:
            self.session.lower(self._targets())

    def close(self) -> None:
        """Stop: nothing more is started or applied (waits for a running lowering to end)."""
        self._closed = True
        self._stop_waiting_for_paint()
        self._timer.stop()
        self._running = None
        if self._worker is not None:
            self._worker.close(FINISH_WAIT_S)
            self._worker = None

    # ---- internals ------------------------------------------------------------------------

    def _start(self) -> None:
        if self._running is not None or self._closed:
            return
        job = self.session.start_lowering(self._targets())
        if job is None:
            return
        if self._worker is None or self._worker.closed:  # closed from outside: `app.workers.close_all`
            worker: Worker[tuple[LoweringJob, LoweringOutcome]] = Worker(
                "vpl-lowering", self._on_ended, self._on_failed, gui_post())
            self._worker = worker
            self.destroyed.connect(lambda *_: worker.close(0.0))  # a window destroyed without closing
        self._last_start = time.monotonic()
        self.started += 1
        self._running = job
        self._worker_error = None
        self._worker.submit(functools.partial(self._run, job=job))

    def _run(self, _handle: Job, *, job: LoweringJob) -> tuple[LoweringJob, LoweringOutcome]:
        """On the worker's thread."""
        try:
            finished = (job, job.run())
        except Exception as error:
            self._worker_error = error
            raise
        with self._finished_lock:
            self._finished = finished
        return finished

    def _on_ended(self, finished: tuple[LoweringJob, LoweringOutcome]) -> None:
        job, outcome = finished
        if self._running is not job:
            return  # flushed (applied already) or closed
        self._running = None
        with self._finished_lock:
            self._finished = None
        self.session.finish_lowering(job, outcome)
        self.applied.emit()
        if self.session.needs_lowering:
            self.request(self._continuing, self._delay_ms)

    def _on_failed(self, error: BaseException) -> None:
        traceback.print_exception(error)
        self._running = None
        self.failed.emit(f"lowering failed: {type(error).__name__}: {error}")
