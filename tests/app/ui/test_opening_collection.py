"""Opening a document and Python's collector; the lowering after the view's first paint.

`vpl_core.collector.loading` freezes what an opening leaves alive and reclaims the
frozen objects' garbage once they have grown by a quarter; the lowering
scheduler starts a just-opened document's lowering once the graph view has
painted. Both are checked on their own (objects and their weak references,
the scheduler's `started` count) and through the real window.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from conftest import LOWERING_TIMEOUT_MS
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget

from app.material.graph import MaterialGraph
from app.preview.render_thread import close_all
from app.session import EditorSession
from app.ui.lowering_scheduler import LoweringScheduler
from app.ui.recovery import RecoveryStore
from vpl_core import collector
from vpl_core.collector import loading as paused_while_loading
from vpl_core.collector import reclaim_frozen_garbage


class Cycle:
    """An object that refers to itself: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.itself = self


@pytest.fixture
def collector_state() -> Iterator[None]:
    """The collector enabled and not taken over, as Python starts (a program without threads of its own),
    then given back as the test found it, nothing it froze left frozen, the baseline kept."""
    close_all()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    QCoreApplication.processEvents()
    baseline, taken_over = collector._State.baseline, collector._State.taken_over
    collector._State.taken_over = False
    enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    collector._State.baseline, collector._State.taken_over = baseline, taken_over
    if enabled and not taken_over:
        gc.enable()
    else:
        gc.disable()


def test_what_an_opening_leaves_alive_is_frozen_and_the_collector_is_back_on(collector_state) -> None:
    gc.unfreeze()
    with paused_while_loading():
        assert not gc.isenabled()
        kept = [Cycle() for _ in range(100)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)
    reference = weakref.ref(kept[0])
    del kept
    gc.collect()
    assert reference() is not None, "a frozen cycle is not collected until it is reclaimed"


def test_a_collector_already_off_stays_off_and_the_opening_is_still_frozen(collector_state) -> None:
    """The editor keeps the automatic collector off (`vpl_core.collector.take_over`): freezing still pays."""
    gc.unfreeze()
    gc.disable()
    with paused_while_loading():
        kept = [Cycle() for _ in range(100)]
    assert not gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)
    del kept


def test_nested_pauses_freeze_once_at_the_outermost_end(collector_state) -> None:
    gc.unfreeze()
    with paused_while_loading():
        with paused_while_loading():
            inner = Cycle()
        assert gc.get_freeze_count() == 0, "not frozen before the outermost opening ends"
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= 1
    del inner


def test_frozen_garbage_is_reclaimed_once_the_frozen_objects_grew_by_a_quarter(collector_state) -> None:
    gc.unfreeze()
    gc.collect()
    with paused_while_loading():
        garbage = Cycle()
    reference = weakref.ref(garbage)
    del garbage
    frozen = gc.get_freeze_count()

    collector._State.baseline = frozen  # not grown: nothing is collected
    assert not reclaim_frozen_garbage()
    assert reference() is not None

    # Grown: collected. A margin of objects, as frozen objects that other threads of the process (a previous
    # test's closing workers) let go of leave the permanent generation between these lines.
    collector._State.baseline = int(frozen / (1.0 + collector.GROWTH_BEFORE_COLLECTING)) - 1000
    assert reclaim_frozen_garbage()
    assert reference() is None
    assert collector._State.baseline >= gc.get_freeze_count()


def test_a_baseline_above_the_frozen_objects_comes_down_to_them(collector_state) -> None:
    gc.unfreeze()
    with paused_while_loading():
        pass
    frozen = gc.get_freeze_count()
    collector._State.baseline = frozen * 2
    assert not reclaim_frozen_garbage()
    # Down to the frozen objects of the moment (fewer than `frozen` if other threads let some go meanwhile).
    assert collector._State.baseline <= frozen


def _session_needing_lowering(tmp_path) -> EditorSession:
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    session.open_graph(MaterialGraph())
    assert session.needs_lowering
    return session


def test_the_lowering_waits_for_the_widgets_paint(qtbot, tmp_path) -> None:
    session = _session_needing_lowering(tmp_path)
    scheduler = LoweringScheduler(session)
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    QCoreApplication.processEvents()
    scheduler.request_after_paint(widget)
    assert scheduler.busy and scheduler.started == 0
    QCoreApplication.processEvents()  # no paint asked for: nothing starts
    assert scheduler.started == 0
    widget.update()
    qtbot.waitUntil(lambda: scheduler.started == 1, timeout=LOWERING_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not scheduler.busy, timeout=LOWERING_TIMEOUT_MS)
    assert session.result is not None
    scheduler.close()


def test_a_hidden_widget_does_not_hold_the_lowering_back(qtbot, tmp_path) -> None:
    session = _session_needing_lowering(tmp_path)
    scheduler = LoweringScheduler(session)
    widget = QWidget()
    qtbot.addWidget(widget)
    scheduler.request_after_paint(widget)
    qtbot.waitUntil(lambda: scheduler.started == 1, timeout=LOWERING_TIMEOUT_MS)
    scheduler.close()


def test_flush_does_not_wait_for_the_paint(qtbot, tmp_path) -> None:
    session = _session_needing_lowering(tmp_path)
    scheduler = LoweringScheduler(session)
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    scheduler.request_after_paint(widget)
    scheduler.flush()
    assert session.result is not None and not scheduler.busy
    widget.update()
    QCoreApplication.processEvents()
    assert scheduler.started == 0, "the lowering is current: the paint starts nothing"
    scheduler.close()


def test_an_opened_document_is_lowered_after_the_view_has_painted(window, qtbot) -> None:
    before = window.lowering.started
    window.load_example()
    assert window.lowering.started == before, "nothing starts before the view has painted"
    qtbot.waitUntil(lambda: window.lowering.started == before + 1, timeout=LOWERING_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.result is not None and not window.lowering.busy, timeout=LOWERING_TIMEOUT_MS)
    assert window.result.ok


def test_the_previous_documents_view_is_freed_when_another_opens(window, qtbot) -> None:
    """Nothing in the window keeps the previous document's view nodes: opening another frees them by reference
    counting, so no garbage of theirs is left frozen for a full collection."""
    window.load_example()
    window.flush()
    QCoreApplication.processEvents()
    nodes = window.graph_editor.graph.all_nodes()
    assert nodes
    references = [weakref.ref(node) for node in nodes]
    del nodes
    enabled = gc.isenabled()
    gc.disable()
    try:
        window.load_graph(MaterialGraph(), "empty")
        assert [reference for reference in references if reference() is not None] == []
    finally:
        if enabled:
            gc.enable()
    window.flush()
