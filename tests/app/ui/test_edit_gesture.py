"""A slider drag through the real window: only the preview follows it; the rest catches up once, at its end.

Issue 20 item 3 (app/ui/edit_gesture.py): while a node property's slider is
dragged, every lowering reaches the preview, but the panels (diagnostics,
code view, port types and markers, node costs) and the node thumbnails are
not updated until the slider is released; then they are updated once, and
the window is exactly as if the value had been set in one discrete edit,
with the whole drag one undo step. The counts are of updates, never times.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QSlider

from app.material.traversal import connected_nodes
from app.preview.thumbnails import ThumbnailService
from app.ui.code_view import VPL_TAB
from app.ui.edit_gesture import EditGesture
from app.ui.node_thumbnails import THUMBNAILS_SETTING

pytestmark = pytest.mark.gl

#: The Fresnel node of the UI tests' example and its float property with a slider.
FRESNEL, POWER = "n7", "power"


def power_slider(window) -> QSlider:
    window.nodes.select_node(FRESNEL)
    sliders = window.properties_panel.findChildren(QSlider)
    assert len(sliders) == 1, "the Fresnel's properties have one slider (power)"
    return sliders[0]


def drag(window, slider: QSlider, positions: list[int]) -> None:
    """Press, move through `positions` (each move lowered, as the scheduler would while dragging), no release."""
    slider.setSliderDown(True)  # emits sliderPressed, as the mouse does
    for position in positions:
        slider.setValue(position)
        window.flush()


@pytest.fixture
def submitted(monkeypatch) -> list[object]:
    """The thumbnail jobs handed to the worker."""
    jobs: list[object] = []
    submit = ThumbnailService.submit

    def counting(service: ThumbnailService, job: object) -> None:
        jobs.append(job)
        submit(service, job)

    monkeypatch.setattr(ThumbnailService, "submit", counting)
    return jobs


def test_a_drag_updates_only_the_preview_until_the_slider_is_released(make_window, settings, submitted) -> None:
    settings.setValue(THUMBNAILS_SETTING, True)
    window = make_window()
    window.flush()
    assert window.thumbnails.wait(120)
    slider = power_slider(window)
    presenter = window.presenter
    start = slider.value()
    slider.setSliderDown(True)
    slider.setValue(start + 10)  # the first move of a drag is a step of its own (not continuing)
    window.flush()
    assert not window.gesture.active
    assert window.thumbnails.wait(120)
    code_before = window.code_view.text(VPL_TAB)
    assert code_before == window.session.result.text
    updates, jobs, results = presenter.panel_updates, len(submitted), []
    programs = []
    for position in (start + 20, start + 30, start + 40):
        slider.setValue(position)
        window.flush()
        results.append(window.session.result)
        programs.append(presenter._shown_artifact)
    # A refresh scheduled during the drag (by mistake) would run here and be counted below; none was, so this
    # returns at once (without it, a refresh scheduled by the last step would not have run before the count).
    assert window.thumbnails.wait(120)
    assert window.gesture.active
    assert presenter.panel_updates == updates, "the panels followed a continuing lowering"
    assert len(submitted) == jobs, "thumbnails were asked for during the drag"
    assert presenter.behind
    assert window.code_view.text(VPL_TAB) == code_before, "the code view followed the drag"
    assert len({id(result) for result in results}) == 3, "every step was lowered"
    # The first move made the power live (docs/editor.md, "Live values"): the steps reach the preview as values.
    assert programs[-1] is window.session.preview_program(window.preview.target).artifact
    assert len({id(program) for program in programs}) == 1, "a value step built a new program"
    uniform = window.session.live.program.result.live_values[(FRESNEL, POWER)].uniform
    assert window.preview.parameter_values[uniform] == pytest.approx(window.material.nodes[FRESNEL].properties[POWER],
                                                                     rel=1e-7), "the preview has the drag's last value"

    slider.setSliderDown(False)  # the release: sliderReleased
    assert not window.gesture.active
    assert presenter.panel_updates == updates + 1
    assert not presenter.behind
    assert window.thumbnails.wait(120)
    assert len(submitted) == jobs + 1, "one thumbnail request when the drag ended"
    assert window.code_view.text(VPL_TAB) == window.session.result.text != code_before


def test_after_the_drag_the_window_is_as_after_one_discrete_edit(make_window) -> None:
    window = make_window()
    window.flush()
    before = window.material
    stack = window.graph_editor.model.stack
    steps = stack.count
    slider = power_slider(window)
    start = slider.value()
    drag(window, slider, [start + 5, start + 15, start + 25, start + 35])
    slider.setSliderDown(False)
    window.flush()
    dragged = window.material
    dragged_text = window.session.result.text
    assert stack.count == steps + 1, "the whole drag is one undo step"

    assert window.code_view.text(VPL_TAB) == dragged_text, "the code view shows the drag's last value"

    # The same value set in one discrete edit on the original graph: the same document.
    other = make_window()
    other.flush()
    other.nodes.set_node_property(FRESNEL, POWER, dragged.nodes[FRESNEL].properties[POWER])
    other.flush()
    assert other.material == dragged
    assert other.session.result.text == dragged_text
    assert other.diagnostics_panel.rows == window.diagnostics_panel.rows
    assert other.code_view.text(VPL_TAB) == window.code_view.text(VPL_TAB)

    # One undo takes the whole drag back.
    stack.undo()
    window.flush()
    assert window.material == before


def test_a_gesture_ends_on_a_discrete_edit_and_when_idle(qtbot) -> None:
    gesture = EditGesture()
    ended: list[bool] = []
    gesture.ended.connect(lambda: ended.append(gesture.active))
    gesture.end()
    assert ended == [], "no gesture, nothing to end"
    gesture.continue_edit()
    gesture.continue_edit()
    assert gesture.active
    gesture.end()
    gesture.end()
    assert ended == [False], "ended once, after `active` turned False"
    gesture.continue_edit()
    qtbot.waitUntil(lambda: not gesture.active, timeout=5_000)  # IDLE_END_MS without a step
    assert ended == [False, False]


def test_after_a_discrete_edit_the_thumbnails_wait_for_the_previews_new_program(make_window, settings, submitted,
                                                                                 qtbot) -> None:
    settings.setValue(THUMBNAILS_SETTING, True)
    window = make_window()
    window.flush()
    assert window.thumbnails.wait(120)
    jobs, presenter = len(submitted), window.presenter
    artifact = presenter._shown_artifact
    at_ready: list[int] = []
    window.preview.programReady.connect(lambda: at_ready.append(len(submitted)))
    window.nodes.set_node_property(FRESNEL, POWER, 3.25)
    with qtbot.waitSignal(window.preview.programReady, timeout=60_000):
        window.flush()
        assert presenter._shown_artifact is not artifact, "the edit changed the module: a new program"
        # Pending here with the render thread (the default); drawn already when the window's thread draws.
        assert presenter.preview_pending or not window.preview.threaded
    assert at_ready == [jobs], "thumbnails were asked for before the preview drew the new program"
    assert not presenter.preview_pending
    assert window.thumbnails.wait(120)
    assert len(submitted) == jobs + 1


def test_while_live_values_settle_the_thumbnails_wait_for_the_lowering(make_window, settings, submitted, qtbot,
                                                                        monkeypatch) -> None:
    """A value the preview's live program shows needs no thumbnail work until the values stop changing.

    Each thumbnail refresh after such an edit lowered, linked and drew the thumbnails' module again on the
    worker (a value is a literal there), and its results repainted the graph view: CPU, GIL and window-thread
    time the value's own frame on the render thread waited for (docs/performance-history.md, section 4). Now the
    thumbnails wait for the lowering that follows the values once they stop (`LIVE_SETTLE_MS`), as the panels do.
    """
    monkeypatch.setattr("app.ui.main_window.LIVE_SETTLE_MS", 600_000)  # the values never settle by themselves here
    settings.setValue(THUMBNAILS_SETTING, True)
    window = make_window()
    window.flush()
    assert window.thumbnails.wait(120)
    window.nodes.set_node_property(FRESNEL, POWER, 3.25)  # the first edit of the value: its live program is built
    window.flush()
    assert window.thumbnails.wait(120)
    jobs, posts = len(submitted), window.presenter.live_posts
    window.thumbnails.schedule()  # a refresh on its way (a batch just arrived, the view moved) when the value changes
    window.nodes.set_node_property(FRESNEL, POWER, 3.5)
    assert window.presenter.live_posts == posts + 1, "the value went to the preview's live program"
    assert window.session.live_edit and window.session.needs_lowering, "the value is not lowered yet"
    window.thumbnails.schedule()  # and asked again while the value settles
    QCoreApplication.processEvents()  # a refresh scheduled would run now (a zero-delay timer)
    assert not window.thumbnails._timer.isActive()
    assert len(submitted) == jobs, "thumbnails were asked for while the value was still changing"
    window.flush()  # the values stopped: the lowering for the panels, then the thumbnails, once
    assert not window.session.needs_lowering
    assert window.thumbnails.wait(120)
    assert len(submitted) == jobs + 1
    downstream = connected_nodes(window.session.graph, [FRESNEL], upstream=False)
    assert set(submitted[-1].nodes) <= downstream and FRESNEL in submitted[-1].nodes
