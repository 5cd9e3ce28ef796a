"""The one kind of background work (`app.workers`): cancellation, ordering, errors and a bounded exit.

No Qt: results are posted to a queue the test drains, as the GUI thread's event loop would run them.
Every wait is on an event or a count, never on a sleep.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

import pytest

from app.workers import Cancelled, Job, Worker, close_all, running_workers

WAIT_S = 30.0


class Owner:
    """An owner with an event loop of its own: `post` queues, `drain` runs what was posted, in order."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[Callable[[], None]] = queue.Queue()
        self.results: list[object] = []
        self.errors: list[BaseException] = []

    def post(self, function: Callable[[], None]) -> None:
        self.inbox.put(function)

    def drain(self) -> None:
        while True:
            try:
                function = self.inbox.get_nowait()
            except queue.Empty:
                return
            function()

    def worker(self, name: str = "test-worker") -> Worker[object]:
        return Worker(name, self.results.append, self.errors.append, self.post)


def test_a_result_reaches_the_owner_through_its_post() -> None:
    owner = Owner()
    worker = owner.worker()
    worker.submit(lambda job: ("done", job.ticket, threading.current_thread().name))
    assert worker.wait_idle(WAIT_S)
    assert owner.results == []  # nothing is delivered on the worker's thread
    owner.drain()
    assert owner.results == [("done", 1, "test-worker")] and owner.errors == []
    assert worker.close(WAIT_S)


def test_an_outdated_result_is_dropped_never_delivered() -> None:
    owner = Owner()
    worker = owner.worker()
    started, release = threading.Event(), threading.Event()

    def slow(job: Job) -> str:
        started.set()
        assert release.wait(WAIT_S)
        return "old"

    worker.submit(slow)
    assert started.wait(WAIT_S)
    worker.submit(lambda job: "dropped before it started")   # replaced by the next one while waiting
    worker.submit(lambda job: "new")
    release.set()
    assert worker.wait_idle(WAIT_S)
    owner.drain()
    assert owner.results == ["new"]
    assert worker.dropped == 2  # the waiting job replaced, and the old job's result
    assert worker.close(WAIT_S)


def test_a_result_posted_before_a_newer_submit_is_dropped_at_delivery() -> None:
    owner = Owner()
    worker = owner.worker()
    worker.submit(lambda job: "first")
    assert worker.wait_idle(WAIT_S)   # posted, not yet delivered
    assert owner.inbox.qsize() == 1
    gate = threading.Event()
    worker.submit(lambda job: gate.wait(WAIT_S) and "second")
    owner.drain()                      # "first" is older than the newest job now
    assert owner.results == []
    gate.set()
    assert worker.wait_idle(WAIT_S)
    owner.drain()
    assert owner.results == ["second"]
    assert worker.close(WAIT_S)


def test_cancelling_stops_a_job_at_its_next_check_and_delivers_nothing() -> None:
    owner = Owner()
    worker = owner.worker()
    started = threading.Event()
    checks = []

    def long_job(job: Job) -> str:
        started.set()
        while True:
            checks.append(1)
            job.check()
            job._cancelled.wait(0.01)  # a chunk of work

    worker.submit(long_job)
    assert started.wait(WAIT_S)
    worker.cancel()
    assert worker.wait_idle(WAIT_S)
    owner.drain()
    assert owner.results == [] and owner.errors == [] and checks
    assert worker.close(WAIT_S)


def test_a_superseded_job_sees_it_and_can_stop() -> None:
    owner = Owner()
    worker = owner.worker()
    started, seen = threading.Event(), threading.Event()

    def watching(job: Job) -> None:
        started.set()
        while not job.superseded:
            job._cancelled.wait(0.005)
        seen.set()
        raise Cancelled

    worker.submit(watching)
    assert started.wait(WAIT_S)
    worker.submit(lambda job: "next")
    assert seen.wait(WAIT_S) and worker.wait_idle(WAIT_S)
    owner.drain()
    assert owner.results == ["next"]
    assert worker.close(WAIT_S)


def test_partial_results_are_delivered_in_order_while_the_job_is_newest() -> None:
    owner = Owner()
    worker = owner.worker()

    def batches(job: Job) -> str:
        for index in range(3):
            job.emit(index)
        return "last"

    worker.submit(batches)
    assert worker.wait_idle(WAIT_S)
    owner.drain()
    assert owner.results == [0, 1, 2, "last"]
    assert worker.close(WAIT_S)


def test_an_exception_in_a_job_is_delivered_as_an_error_and_the_worker_goes_on() -> None:
    owner = Owner()
    worker = owner.worker()

    def failing(job: Job) -> None:
        raise ValueError("bad input 7")

    worker.submit(failing)
    assert worker.wait_idle(WAIT_S)
    owner.drain()
    assert [str(error) for error in owner.errors] == ["bad input 7"] and owner.results == []
    worker.submit(lambda job: "still works")
    assert worker.wait_idle(WAIT_S)
    owner.drain()
    assert owner.results == ["still works"]
    assert worker.close(WAIT_S)


def test_a_failing_setup_is_delivered_and_the_thread_ends() -> None:
    owner = Owner()

    def setup() -> None:
        raise RuntimeError("no context")

    worker: Worker[object] = Worker("setup-fails", owner.results.append, owner.errors.append, owner.post, setup=setup)
    worker.start()
    worker.thread.join(WAIT_S)
    assert not worker.thread.is_alive()
    owner.drain()
    assert [str(error) for error in owner.errors] == ["no context"]
    assert "setup-fails" not in running_workers()


def test_setup_and_teardown_run_on_the_workers_thread() -> None:
    owner = Owner()
    threads: list[str] = []
    worker: Worker[object] = Worker("with-setup", owner.results.append, owner.errors.append, owner.post,
                                    setup=lambda: threads.append(threading.current_thread().name),
                                    teardown=lambda: threads.append(threading.current_thread().name))
    worker.submit(lambda job: None)
    assert worker.close(WAIT_S)
    assert threads == ["with-setup", "with-setup"]


def test_exit_is_bounded_with_a_hung_job_and_reports_what_is_left() -> None:
    owner = Owner()
    hung = owner.worker("hung-worker")
    quick = owner.worker("quick-worker")
    started, release = threading.Event(), threading.Event()

    def hangs(job: Job) -> None:
        started.set()
        release.wait()   # ignores cancellation, as a driver call that never returns would

    hung.submit(hangs)
    quick.submit(lambda job: None)
    assert started.wait(WAIT_S)
    ended = threading.Event()
    left: list[str] = []

    def quit_application() -> None:
        left.extend(close_all(0.2))
        ended.set()

    quitting = threading.Thread(target=quit_application)
    quitting.start()
    try:
        assert ended.wait(WAIT_S), "close_all did not return while a job hung"
        assert "hung-worker" in left and "quick-worker" not in left
        assert hung.closed and quick.closed
    finally:
        release.set()
        quitting.join(WAIT_S)
    hung.thread.join(WAIT_S)
    assert "hung-worker" not in running_workers()
    owner.drain()
    assert owner.results == []  # closed: the hung job's end is never delivered


def test_a_closed_worker_refuses_jobs() -> None:
    owner = Owner()
    worker = owner.worker()
    assert worker.close(WAIT_S)
    with pytest.raises(RuntimeError, match="closed"):
        worker.submit(lambda job: None)


EXIT_SCRIPT = """
import sys, threading
from app import main
from app.workers import Worker
main.QUIT_WAIT_S = 0.2
started = threading.Event()
worker = Worker("hung-at-exit", lambda value: None, lambda error: None)
worker.submit(lambda job: (started.set(), threading.Event().wait()))
started.wait(30)
main._end_background_work(3)
print("not reached: the editor would have waited for the hung job")
"""


def test_the_editor_quits_within_its_bound_with_a_hung_job_and_names_it() -> None:
    """`app.main._end_background_work`, as the editor runs it after its event loop: bounded, and it says what is left."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 3, done.stderr
    assert "hung-at-exit" in done.stderr and "not reached" not in done.stdout
