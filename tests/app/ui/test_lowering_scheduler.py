"""The lowering on its worker (`LoweringScheduler` on `app.workers.Worker`): errors reach the window, outcomes
are applied on the window's thread, and closing ends the worker. Waits are on signals and counts."""

from __future__ import annotations

import threading

from conftest import LOWERING_TIMEOUT_MS

from app.material import examples
from app.session import EditorSession
from app.session.session import LoweringJob
from app.ui.lowering_scheduler import LoweringScheduler
from app.ui.recovery import RecoveryStore
from app.workers import running_workers


def _session(tmp_path) -> EditorSession:
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    session.open_graph(examples.triplanar_rock())
    assert session.needs_lowering
    return session


def test_a_lowering_that_raises_is_reported_and_the_next_edit_lowers_again(qtbot, tmp_path, monkeypatch) -> None:
    session = _session(tmp_path)
    scheduler = LoweringScheduler(session)
    run = LoweringJob.run
    threads: list[str] = []

    def failing(job: LoweringJob) -> object:
        threads.append(threading.current_thread().name)
        raise RuntimeError("a bug in the compiler")

    monkeypatch.setattr(LoweringJob, "run", failing)
    with qtbot.waitSignal(scheduler.failed, timeout=LOWERING_TIMEOUT_MS) as failed:
        scheduler.request()
    assert failed.args == ["lowering failed: RuntimeError: a bug in the compiler"]
    assert threads == ["vpl-lowering"] and not scheduler.busy and session.result is None

    monkeypatch.setattr(LoweringJob, "run", run)
    with qtbot.waitSignal(scheduler.applied, timeout=LOWERING_TIMEOUT_MS):
        scheduler.request()
    assert session.result is not None and session.result.ok
    scheduler.close()


def test_an_outcome_is_applied_on_the_windows_thread_and_close_ends_the_worker(qtbot, tmp_path) -> None:
    session = _session(tmp_path)
    scheduler = LoweringScheduler(session)
    applied_on: list[str] = []
    session.lowered.connect(lambda _result: applied_on.append(threading.current_thread().name))
    before = running_workers().count("vpl-lowering")
    with qtbot.waitSignal(scheduler.applied, timeout=LOWERING_TIMEOUT_MS):
        scheduler.request()
    assert applied_on == [threading.main_thread().name]
    assert running_workers().count("vpl-lowering") == before + 1
    scheduler.close()
    assert running_workers().count("vpl-lowering") == before
    scheduler.request()  # closed: nothing starts
    assert not scheduler.busy


def test_flush_applies_the_running_lowering_once(qtbot, tmp_path, monkeypatch) -> None:
    session = _session(tmp_path)
    scheduler = LoweringScheduler(session)
    entered, release = threading.Event(), threading.Event()
    run = LoweringJob.run

    def held(job: LoweringJob) -> object:
        entered.set()
        assert release.wait(60)
        return run(job)

    monkeypatch.setattr(LoweringJob, "run", held)
    lowered: list[object] = []
    session.lowered.connect(lowered.append)
    scheduler.request()
    qtbot.waitUntil(entered.is_set, timeout=LOWERING_TIMEOUT_MS)
    release.set()
    scheduler.flush()  # waits for the running job and applies its outcome here
    assert len(lowered) == 1 and not session.needs_lowering
    qtbot.waitUntil(lambda: not scheduler.busy, timeout=LOWERING_TIMEOUT_MS)
    from app.gui_post import deliver_posted

    deliver_posted()  # the worker's own delivery of that outcome is dropped: applied once
    assert len(lowered) == 1
    scheduler.close()
