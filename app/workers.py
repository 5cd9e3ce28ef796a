"""Background work: the one kind of worker the application runs off the GUI thread.

A `Worker` runs submitted jobs one at a time on a thread of its own and hands each result, or each
error, to its owner through a `Post` (the GUI thread's is `app.gui_post.gui_post`). Only the newest
job's results are delivered; `close` is bounded and `close_all` reports the workers left running.
The rules and why: docs/decisions.md, "One kind of background work". No Qt here.
"""

from __future__ import annotations

import atexit
import threading
import time
import traceback
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")

#: How long Python's exit waits for workers nobody closed (a program without `close_all` at its end).
EXIT_WAIT_S = 30.0

#: Runs a function on the owner's thread (for the GUI: `app.gui_post.gui_post()`); must not block.
Post = Callable[[Callable[[], None]], None]


def run_here(function: Callable[[], None]) -> None:
    """A `Post` for owners without an event loop: deliver on the worker's own thread, at once."""
    function()


class Cancelled(Exception):  # noqa: N818 - a condition, named for what it means
    """Raised by `Job.check` in a job that was cancelled or superseded: the job ends, nothing is delivered."""


class Thread(Protocol):
    """What a worker needs of a thread (`threading.Thread` and `app.gui_post.QtThread` are such)."""

    def start(self) -> None: ...
    def join(self, timeout: float | None = None) -> None: ...
    def is_alive(self) -> bool: ...


Spawn = Callable[[Callable[[], None], str], Thread]


def python_thread(target: Callable[[], None], name: str) -> Thread:
    """A daemon `threading.Thread` (the default `Spawn`)."""
    return threading.Thread(target=target, name=name, daemon=True)


class Job:
    """A running job's view of its state, passed to the job function."""

    def __init__(self, worker: Worker[object], ticket: int, function: Callable[[Job], object]) -> None:
        self._worker = worker
        self.ticket = ticket
        self.function = function
        self._cancelled = threading.Event()

    @property
    def cancelled(self) -> bool:
        """The worker was cancelled or closed: nothing of this job will be delivered."""
        return self._cancelled.is_set()

    @property
    def superseded(self) -> bool:
        """A newer job was submitted (or this one cancelled): the job should end at its next good point."""
        return self._cancelled.is_set() or self._worker.latest != self.ticket

    def check(self) -> None:
        """Raise `Cancelled` when `superseded`."""
        if self.superseded:
            raise Cancelled(f"{self._worker.name}: job {self.ticket} was superseded")

    def emit(self, value: object) -> None:
        """Deliver a partial result now (as `on_result`), unless a newer job was submitted by delivery time."""
        self._worker._post_outcome(self.ticket, value, None)


#: Workers whose thread is running (strong references: a worker left running is never freed under it).
_live: set[Worker[object]] = set()
_live_lock = threading.Lock()


class Worker(Generic[T]):
    """One thread running jobs in turn; see the module docstring.

    `on_result(value)` / `on_error(exception)` run through `post`, on the owner's thread, only for the
    newest job and only while the worker is open. `setup` and `teardown` run on the worker's thread
    before the first job and after the last (a GL context made current and released); an exception in
    `setup` is delivered to `on_error` and the worker takes no jobs. `interrupt` is called (on the
    caller's thread) by `cancel` and `close`, for a long job that waits on a condition of its own.
    """

    def __init__(self, name: str, on_result: Callable[[T], None], on_error: Callable[[BaseException], None],
                 post: Post = run_here, *, spawn: Spawn = python_thread,
                 setup: Callable[[], None] | None = None, teardown: Callable[[], None] | None = None,
                 interrupt: Callable[[], None] | None = None) -> None:
        self.name = name
        self._interrupt = interrupt
        self._on_result = on_result
        self._on_error = on_error
        self._post = post
        self._setup = setup
        self._teardown = teardown
        self._condition = threading.Condition()
        self._pending: tuple[int, Callable[[Job], T]] | None = None
        self._running: Job | None = None
        self._tickets = 0
        self._closed = False
        self._started = False
        #: Results and errors delivered, and dropped as outdated (tests read them).
        self.delivered = 0
        self.dropped = 0
        self.thread = spawn(self._main, name)

    # ---- the owner's side ---------------------------------------------------------------------

    @property
    def latest(self) -> int:
        """The newest ticket handed out by `submit` (0 before the first)."""
        return self._tickets

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def busy(self) -> bool:
        """A job is waiting or running."""
        with self._condition:
            return self._pending is not None or self._running is not None

    def start(self) -> None:
        """Start the thread (`submit` does it when needed; GL owners move their context to it first)."""
        with self._condition:
            if self._started or self._closed:
                return
            self._started = True
        with _live_lock:
            _live.add(self)  # type: ignore[arg-type]  # the registry does not care about the result type
        self.thread.start()

    def submit(self, job: Callable[[Job], T]) -> int:
        """Run `job` next; a job waiting and not started is dropped. Returns the job's ticket."""
        with self._condition:
            if self._closed:
                raise RuntimeError(f"{self.name}: the worker is closed")
            self._tickets += 1
            if self._pending is not None:
                self.dropped += 1
            self._pending = (self._tickets, job)
            self._condition.notify_all()
            ticket = self._tickets
        self.start()
        return ticket

    def cancel(self) -> None:
        """Drop the waiting job and cancel the running one: nothing submitted so far is delivered."""
        with self._condition:
            self._tickets += 1  # no job has this ticket: every outcome on its way is outdated
            self._pending = None
            if self._running is not None:
                self._running._cancelled.set()
            self._condition.notify_all()
        if self._interrupt is not None:
            self._interrupt()

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no job is waiting or running (True), or `timeout_s` (False)."""
        deadline = time.monotonic() + timeout_s
        with self._condition:
            while self._pending is not None or self._running is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._condition.wait(remaining)
        return True

    def close(self, timeout_s: float) -> bool:
        """Cancel everything, deliver nothing more, end the thread; True when it ended within `timeout_s`.

        A thread that has not ended (a job that hangs) stays in `running_workers` until it does.
        """
        with self._condition:
            self._closed = True
            started = self._started
        self.cancel()
        # Nothing is delivered any more: the owner's callbacks go, so no reference cycle through the owner is left.
        self._on_result = self._on_error = _ignore
        self._interrupt = None
        if not started:
            return True
        if self.thread is not _current(self.thread):
            self.thread.join(max(0.0, timeout_s))
        return not self.thread.is_alive()

    # ---- the worker's thread ------------------------------------------------------------------

    def _post_outcome(self, ticket: int, value: object, error: BaseException | None) -> None:
        if ticket != self._tickets or self._closed:
            self.dropped += 1
            return

        def deliver() -> None:  # on the owner's thread: still the newest job, and the worker still open?
            if ticket != self._tickets or self._closed:
                self.dropped += 1
                return
            self.delivered += 1
            if error is not None:
                self._on_error(error)
            else:
                self._on_result(value)  # type: ignore[arg-type]  # a job's emit and return both give T

        self._post(deliver)

    def _take(self) -> Job | None:
        with self._condition:
            while self._pending is None and not self._closed:
                self._condition.wait()
            if self._closed or self._pending is None:
                return None
            ticket, function = self._pending
            self._pending = None
            self._running = Job(self, ticket, function)  # type: ignore[arg-type]  # the job's view is untyped in T
            return self._running

    def _main(self) -> None:
        try:
            try:
                if self._setup is not None:
                    self._setup()
            except Exception as error:  # noqa: BLE001 - delivered to the owner, who shows it
                traceback.print_exc()
                self._post_outcome(self._tickets, None, error)
                return
            while (job := self._take()) is not None:
                try:
                    value = job.function(job)
                except Cancelled:
                    pass
                except Exception as error:  # noqa: BLE001 - delivered to the owner as an error, never lost
                    self._post_outcome(job.ticket, None, error)
                else:
                    self._post_outcome(job.ticket, value, None)
                finally:
                    with self._condition:
                        self._running = None
                        self._condition.notify_all()
        finally:
            try:
                if self._teardown is not None:
                    self._teardown()
            finally:
                self._setup = self._teardown = None  # they refer to the owner: no cycle outlives the thread
                with self._condition:
                    self._running = None
                    self._condition.notify_all()
                with _live_lock:
                    _live.discard(self)


def _ignore(_: object) -> None:
    """A closed worker's callbacks."""


def _current(thread: Thread) -> Thread | None:
    """`thread` when the caller runs on it (a worker closing itself), else None."""
    return thread if getattr(thread, "ident", None) == threading.get_ident() else None


def running_workers() -> list[str]:
    """Names of the workers whose thread is running."""
    with _live_lock:
        return sorted(worker.name for worker in _live)


def wait_ended(timeout_s: float, name: str | None = None) -> bool:
    """Wait until every closed worker (named `name`, if given) has ended; False after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    with _live_lock:
        workers = [worker for worker in _live if worker.closed and (name is None or worker.name == name)]
    for worker in workers:
        worker.thread.join(max(0.0, deadline - time.monotonic()))
    return not any(worker.thread.is_alive() for worker in workers)


def close_all(timeout_s: float) -> list[str]:
    """Close every worker, waiting at most `timeout_s` in all; the names of those still running after it."""
    deadline = time.monotonic() + timeout_s
    with _live_lock:
        workers = list(_live)
    for worker in workers:  # every one told first, so they end side by side
        worker.close(0.0)
    for worker in workers:
        if worker.thread is not _current(worker.thread):
            worker.thread.join(max(0.0, deadline - time.monotonic()))
    return running_workers()


@atexit.register
def _close_left_at_exit() -> None:
    """Workers nobody closed end before the interpreter tears down (a thread running then aborts it)."""
    left = close_all(EXIT_WAIT_S)
    if left:
        import os
        import sys

        print(f"background work still running at exit: {', '.join(left)}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(1)
