"""`LoweringScheduler`: when, and on which thread, the window's session lowers.

When (an adaptive debounce instead of a fixed delay):

- a discrete edit (a click, a committed value, a wire, an undo) lowers at
  once: on the next turn of the event loop, so the signals of one edit
  coalesce into one lowering;
- while a gesture continues (a slider being dragged: `continuing` edits)
  at most one lowering runs at a time, and the next starts no sooner than
  `THROTTLE_MS` after the previous one started; the newest graph wins and
  the ones in between are never lowered. The drag's last value is lowered
  as soon as the worker is free, so releasing the slider waits for nothing;
- edits the lowering does not read (moving nodes, a parameter's value)
  start nothing at all: `EditorSession.start_lowering` returns None;
- an edit whose pixels need no lowering (a value the preview's live program
  takes as a uniform: app/session/live_values.py) asks with a `delay_ms`:
  the lowering for the panels starts once such edits have stopped for that
  long (each one restarts the wait), so a run of value edits is lowered
  once and the window's thread is free to show each value; any other edit
  cuts the wait short.

Where: `LoweringJob.run` (lowering, publication, GLSL for the preview's
target; pure Python on plain data) runs on one worker thread
(`concurrent.futures`, a single worker, so lowerings never overlap); its end
reaches Qt through a queued signal and `EditorSession.finish_lowering`
applies the outcome on the window's thread. Lowering holds the GIL, so the
worker and the window take turns every `sys.getswitchinterval()` (5 ms):
painting and input go on while a 200-node graph lowers.

A document that just opened lowers once the graph view has painted
(`request_after_paint`): the first paint of 2,000 nodes and the lowering
of 2,000 nodes would otherwise take turns on the GIL, and the graph would
show later by the lowering's share. If no paint comes
(a hidden or minimised window), the lowering starts after
`PAINT_WAIT_MS` anyway.

`flush()` does everything pending now, on the calling thread (tests,
screenshots, saving and exporting use it instead of waiting).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

from app.session import EditorSession
from app.session.session import LoweringJob, LoweringOutcome

#: Shortest time between the starts of two lowerings while a gesture continues.
THROTTLE_MS = 40
#: How long value edits the preview shows without a lowering (live values) must stop before the panels' lowering.
LIVE_SETTLE_MS = 250
#: Longest wait of `request_after_paint` for the paint (a window that is shown but never painted).
PAINT_WAIT_MS = 1000


class LoweringScheduler(QObject):
    """See the module docstring."""

    #: A job's outcome was applied (the session has emitted `lowered`, or dropped a stale outcome).
    applied = Signal()
    #: Internal: a job ended on the worker thread (delivered queued, on this object's thread).
    _ended = Signal(object)

    def __init__(self, session: EditorSession, targets: Callable[[], tuple[str, ...]] = tuple,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._targets = targets
        self._executor: ThreadPoolExecutor | None = None
        self._running: tuple[LoweringJob, Future[LoweringOutcome]] | None = None
        self._continuing = False
        self._delay_ms = 0
        self._last_start = float("-inf")
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        self._ended.connect(self._on_ended, Qt.ConnectionType.QueuedConnection)
        #: The widget whose next paint starts the lowering (`request_after_paint`), and the wait's bound.
        self._paint_watched: QWidget | None = None
        self._paint_wait = QTimer(self)
        self._paint_wait.setSingleShot(True)
        self._paint_wait.timeout.connect(self._painted)
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
        """The graph was edited: lower it soon (see the module docstring for how soon; `delay_ms`: once edits
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
        lowering takes its turns on the GIL (see the module docstring).
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
        if running is not None:
            job, future = running
            self.session.finish_lowering(job, future.result())
        if not self._closed:
            self.session.lower(self._targets())

    def close(self) -> None:
        """Stop: nothing more is started or applied (waits for a running lowering to end)."""
        self._closed = True
        self._stop_waiting_for_paint()
        self._timer.stop()
        self._running = None
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    # ---- internals ------------------------------------------------------------------------

    def _start(self) -> None:
        if self._running is not None or self._closed:
            return
        job = self.session.start_lowering(self._targets())
        if job is None:
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vpl-lowering")
        self._last_start = time.monotonic()
        self.started += 1
        future = self._executor.submit(job.run)
        self._running = (job, future)

        def ended(_future: Future[LoweringOutcome], finished: LoweringJob = job) -> None:
            self._ended.emit(finished)

        future.add_done_callback(ended)

    def _on_ended(self, job: LoweringJob) -> None:
        running = self._running
        if running is None or running[0] is not job:
            return  # flushed (applied already) or closed
        self._running = None
        self.session.finish_lowering(job, running[1].result())
        self.applied.emit()
        if self.session.needs_lowering:
            self.request(self._continuing, self._delay_ms)
