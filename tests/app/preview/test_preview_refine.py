"""The preview refines a still frame of a Surface Output with the refined environment light (real GL, llvmpipe).

After a full frame, once nothing is posted for the draft policy's settle time, the render thread draws
frames 1..N of the refined environment light, each the mean so far (docs/lighting.md, "Refined
environment light"); the widget says "Refining k/N" until the last; anything posted stops it and the
next frame is a live one again.
"""

from __future__ import annotations

import pytest
from pbr_testing import CONTEXTS, renderer_on, shown_preview
from PySide6.QtCore import Qt

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.render_thread import DraftPolicy
from app.preview.renderer import refines
from app.preview.widget import REFINE_VARIABLE, RENDER_THREAD_VARIABLE
from app.session.artifacts import refined_maker
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl.artifact import ProgramArtifact

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
    widget, thread = shown_preview(qtbot, (96, 80), DraftPolicy(settle_s=0.0))
    assert thread.refine
    thread.post(lambda renderer: setattr(renderer, "refine_frames", FRAMES))
    handed: list[tuple[int, ...]] = []
    thread.frame_ready.connect(lambda *fields: handed.append(fields), Qt.ConnectionType.DirectConnection)
    result = lower(_gold(0.6))
    assert result.ok, result.diagnostics
    with qtbot.waitSignal(widget.programReady, timeout=30_000):
        widget.set_artifact(compile_glsl(result.verified, target="glsl420"), refined=refined_maker(_gold(0.6)))
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


def test_only_the_refined_variant_has_the_sampling_loop() -> None:
    live, refined = lower(_gold(0.6)), lower(_gold(0.6), refined=True)
    assert live.ok and refined.ok, (live.diagnostics, refined.diagnostics)
    assert live.artifact is not None and refined.artifact is not None
    # The live program: no refined helper, no sampling fields, no loop for the GPU to run masked.
    assert "refined_specular" not in live.text and "environment_sample_frame" not in live.text
    assert "while" not in live.artifact.fragment_code
    assert "refined_specular" in refined.text and "environment_sample_frame" in refined.text
    assert "while" in refined.artifact.fragment_code


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_the_refined_variant_is_linked_on_first_need_once_per_structure(request: pytest.FixtureRequest, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    renderer.refine_frames = 2
    made: list[int] = []
    maker = refined_maker(_gold(0.6), target)

    def counting() -> ProgramArtifact | None:
        made.append(1)
        return maker()

    result = lower(_gold(0.6))
    assert result.verified is not None
    renderer.build_program(compile_glsl(result.verified, target=target), refined=counting)
    links = renderer.link_count
    live = renderer.render_linear(32, 32)
    assert renderer.link_count == links and made == []  # live frames never make the variant
    assert refines(renderer)
    refined = renderer.render_linear_refined(32, 32)
    assert renderer.link_count == links + 1 and made == [1]
    assert not (refined == live).all()  # the refined frames drew another program
    renderer.render_final(32, 32)
    again = lower(_gold(0.6)).verified
    assert again is not None
    renderer.build_program(compile_glsl(again, target=target), refined=counting)
    renderer.render_linear_refined(32, 32)  # the same program built again: its variant is kept
    assert renderer.link_count == links + 1 and made == [1]
