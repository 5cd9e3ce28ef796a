"""The preview refines a still frame of a Surface Output with the refined environment light (real GL, llvmpipe).

After a full frame, once nothing is posted for the draft policy's settle time, the render thread draws
frames 1..N of the refined environment light, each the mean so far (docs/lighting.md, "Refined
environment light"); the widget says "Refining k/N" until the last; anything posted stops it and the
next frame is a live one again.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.render_thread import DraftPolicy
from app.preview.widget import REFINE_VARIABLE, RENDER_THREAD_VARIABLE, PreviewWidget
from vpl_core.backends.glsl import compile as compile_glsl

pytestmark = pytest.mark.gl

FRAMES = 4


def _gold(roughness: float) -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (1.0, 0.766, 0.336, 1.0), "metallic": 1.0,
                                                 "roughness": roughness})
    return graph


def test_a_still_frame_is_refined_and_a_change_stops_it(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RENDER_THREAD_VARIABLE, raising=False)
    monkeypatch.setenv(REFINE_VARIABLE, "1")
    widget = PreviewWidget()
    widget.resize(96, 80)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    thread = widget._thread
    assert thread is not None and thread.refine
    thread.set_draft_policy(DraftPolicy(settle_s=0.0))
    thread.post(lambda renderer: setattr(renderer, "refine_frames", FRAMES))
    handed: list[tuple[int, ...]] = []
    thread.frame_ready.connect(lambda *fields: handed.append(fields), Qt.ConnectionType.DirectConnection)
    result = lower(_gold(0.6))
    assert result.ok, result.diagnostics
    with qtbot.waitSignal(widget.programReady, timeout=30_000):
        widget.set_artifact(compile_glsl(result.verified, target="glsl420"))
    assert thread.wait_refined(60.0)
    widget.finish_rendering()  # delivers what the thread handed over
    samples = [(fields[8], fields[9]) for fields in handed]
    assert samples[-FRAMES - 1:] == [(0, FRAMES)] + [(frame, FRAMES) for frame in range(1, FRAMES + 1)], samples
    qtbot.waitUntil(lambda: widget.shown_frame is not None and widget.shown_frame.serial == thread.frames_drawn,
                    timeout=10_000)
    assert widget.shown_frame is not None and widget.shown_frame.sample_frame == FRAMES
    assert widget.refinement_note == ""  # converged: nothing to say

    # A frame part way shows its count.
    shown = widget.shown_frame
    widget._shown_frame = type(shown)(shown.texture, shown.width, shown.height, shown.program, shown.serial,
                                      shown.commands, shown.full_width, shown.full_height, 2, FRAMES)
    assert widget.refinement_note == f"Refining 2/{FRAMES}"
    widget._shown_frame = shown

    # A change: the next frame is live, then the refinement starts again from frame 1.
    handed.clear()
    widget._state.camera.orbit(5.0, 0.0)
    widget._state.camera_changed()
    assert thread.wait_refined(60.0)
    widget.finish_rendering()  # delivers what the thread handed over
    samples = [(fields[8], fields[9]) for fields in handed]
    assert samples[0] == (0, FRAMES) and samples[-1] == (FRAMES, FRAMES), samples
