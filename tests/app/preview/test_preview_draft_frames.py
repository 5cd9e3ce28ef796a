"""Draft frames with the real GL (Xvfb, llvmpipe): smaller frames while things move when full frames are slow.

No timed assertions: "slow" is a policy whose budget every frame exceeds
(`budget_s=0`), and stillness is a settle time the test chooses (an hour:
the draft stays; zero: it is refined at once).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from pbr_testing import shown_preview
from preview_helpers import color_parameter_artifact

from app.material.parameters import ParameterKind, ParameterSpec
from app.preview.images import qimage_to_rgba
from app.preview.render_thread import DraftPolicy, RenderThread
from app.preview.widget import DRAFT_VARIABLE, RENDER_THREAD_VARIABLE, PreviewWidget
from vpl_core.ir.types import vec

pytestmark = pytest.mark.gl

RED = (1.0, 0.0, 0.0, 1.0)
#: Every full frame is over this budget; motion and stillness as the test says.
ALWAYS_SLOW = DraftPolicy(budget_s=0.0, settle_s=3600.0, motion_s=3600.0)


@pytest.fixture(autouse=True)
def defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RENDER_THREAD_VARIABLE, raising=False)
    monkeypatch.delenv(DRAFT_VARIABLE, raising=False)


def _widget(qtbot, policy: DraftPolicy | None) -> tuple[PreviewWidget, RenderThread]:
    """A shown preview drawing drafts by `policy`, its first frame (a red parameter colour) on screen."""
    widget, thread = shown_preview(qtbot, (200, 160), policy)
    spec = ParameterSpec("tint", ParameterKind.COLOR, vec(4), RED)
    with qtbot.waitSignal(widget.programReady, timeout=10_000):
        widget.set_artifact(color_parameter_artifact(), [spec])
    widget.finish_rendering()
    qtbot.waitUntil(lambda: widget.shown_frame is not None and widget.shown_frame.serial == thread.frames_drawn,
                    timeout=10_000)
    return widget, thread


def _orbit(widget: PreviewWidget, degrees: float = 5.0) -> None:
    """What a mouse drag does to the camera."""
    widget._state.camera.orbit(degrees, 0.0)
    widget._state.camera_changed()


def _newest_shown(qtbot, widget: PreviewWidget, thread: RenderThread) -> None:
    """Wait until the newest frame the thread drew is the one painted on screen."""
    qtbot.waitUntil(lambda: thread.frames_drawn > 0 and widget.shown_frame is not None
                    and widget.shown_frame.serial == thread.frames_drawn
                    and widget.shown_frame.commands == thread.posted, timeout=10_000)
    widget.repaint()


def _top_right(widget: PreviewWidget) -> np.ndarray:
    pixels = qimage_to_rgba(widget.grabFramebuffer())
    return pixels[:20, -60:, :3].astype(int)


def test_the_scale_fits_the_budget() -> None:
    policy = DraftPolicy()
    assert policy.scale(0.010, 1.0) == 1.0  # a frame within the budget: no drafts
    scale = policy.scale(0.057, 1.0)
    assert policy.min_scale <= scale < 1.0 and (scale / policy.step).is_integer()
    assert 0.057 * scale * scale <= policy.budget_s  # the draft's expected time fits
    assert policy.scale(10.0, 1.0) == policy.min_scale  # however slow: never below the smallest draft
    # Measured on a draft: the same frame drawn at half size gives the same answer as drawn full.
    assert policy.scale(0.057 / 4, 0.5) == scale
    assert policy.size((200, 160), 0.25) == (50, 40)


def test_moving_while_frames_are_slow_draws_drafts_and_says_so(qtbot) -> None:
    widget, thread = _widget(qtbot, ALWAYS_SLOW)
    clean = _top_right(widget)
    assert not widget.refining
    _orbit(widget)
    _newest_shown(qtbot, widget, thread)
    frame = widget.shown_frame
    assert frame is not None and frame.draft and frame.asked == (200, 160)
    assert (frame.width, frame.height) == ALWAYS_SLOW.size((200, 160), ALWAYS_SLOW.min_scale)
    assert widget.refining
    badge = _top_right(widget)
    # The "Refining…" note: a dark band with light text in the top-right corner.
    assert np.abs(badge - clean).max() > 60 and badge.max() > 180


def test_a_draft_is_refined_to_full_resolution_once_things_are_still(qtbot) -> None:
    widget, thread = _widget(qtbot, ALWAYS_SLOW)
    clean = _top_right(widget)
    _orbit(widget)
    _orbit(widget)
    _newest_shown(qtbot, widget, thread)
    assert widget.refining
    drawn = thread.frames_drawn
    thread.set_draft_policy(replace(ALWAYS_SLOW, settle_s=0.0))  # still for long enough now
    widget.finish_rendering()  # waits for the refined frame: a draft waiting to be refined is not idle
    _newest_shown(qtbot, widget, thread)
    frame = widget.shown_frame
    assert frame is not None and not frame.draft and (frame.width, frame.height) == (200, 160)
    assert thread.frames_drawn == drawn + 1  # one full frame, asked for by nobody but the thread
    assert not widget.refining
    assert np.abs(_top_right(widget) - clean).max() <= 3


def test_one_change_after_stillness_gets_a_full_frame(qtbot) -> None:
    widget, thread = _widget(qtbot, replace(ALWAYS_SLOW, motion_s=0.0))  # every change comes after stillness
    for _ in range(3):
        _orbit(widget)
        _newest_shown(qtbot, widget, thread)
        assert widget.shown_frame is not None and not widget.shown_frame.draft


def test_fast_frames_are_never_drafts(qtbot) -> None:
    widget, thread = _widget(qtbot, replace(ALWAYS_SLOW, budget_s=3600.0))
    for _ in range(3):
        _orbit(widget)
        _newest_shown(qtbot, widget, thread)
        assert widget.shown_frame is not None and not widget.shown_frame.draft


def test_the_variable_turns_drafts_off(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DRAFT_VARIABLE, "0")
    widget = PreviewWidget()
    widget.resize(200, 160)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget._thread is not None and widget._thread.draft_policy is None
    monkeypatch.setenv(DRAFT_VARIABLE, "1")
    other = PreviewWidget()
    qtbot.addWidget(other)
    other.show()
    qtbot.waitExposed(other)
    assert other._thread is not None and other._thread.draft_policy == DraftPolicy()


def test_a_drag_upstream_of_a_buffer_draws_draft_passes_then_full_ones(qtbot) -> None:
    """A value dragged upstream of a Texture Buffer, on the render thread: the draft frames draw the passes at
    draft resolution (`Renderer.draft_passes`), the full passes wait; the refined frame draws them once at full
    size, with the last value."""
    from test_texture_passes_gl import SIZE, stone_graph

    from app.material.lowering import lower
    from app.session.pass_programs import PassProgramCache, with_pass_parameters

    widget, thread = shown_preview(qtbot, (96, 96), ALWAYS_SLOW)
    graph = stone_graph()
    lowered = lower(graph)
    passes = PassProgramCache.for_graph(graph, draft=True).get("glsl420")
    assert passes is not None and passes.draft is not None
    with qtbot.waitSignal(widget.programReady, timeout=30_000):
        widget.set_artifact(lowered.artifact, with_pass_parameters(lowered.parameters, passes.plan),
                            {"lift": 0.0, "tint": 1.0}, passes)
    widget.finish_rendering()
    renderer = widget.renderer
    full, draft = renderer.passes, renderer.draft_passes
    assert full.pass_renders == 4
    for step in (0.1, 0.2, 0.3):
        widget.set_parameter("lift", step)
        _newest_shown(qtbot, widget, thread)
    assert widget.shown_frame is not None and widget.shown_frame.draft
    assert full.pass_renders == 4 and draft.pass_renders >= 4
    assert {draw.resolution for draw in draft.schedule.passes} == {SIZE // 2}
    thread.set_draft_policy(replace(ALWAYS_SLOW, settle_s=0.0))  # the gesture ended
    widget.finish_rendering()
    _newest_shown(qtbot, widget, thread)
    assert widget.shown_frame is not None and not widget.shown_frame.draft
    assert full.pass_renders == 8
