"""The CPU preview: the fallback `create_preview_widget` gives when no OpenGL context can be made.

Real widgets under Xvfb; the frames are the interpreter's (checked against
the GPU in test_cpu_vs_gpu.py). Here: the fallback is chosen, it draws what
the host hands it, re-renders on changes at a reduced resolution, shows its
notice, reports what it cannot run, survives runaway loops, orbits, applies
the stage (environments prepared in a worker, failures reported) and plays
materials that read the time.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QMouseEvent

import app.preview.context as context_module
from app.material.parameters import ParameterKind
from app.preview.context import Profile, clear_probes
from app.preview.cpu_preview import DRAG_SIDE, MAX_SIDE, NOTICE, NOTICE_HEIGHT, CpuPreview
from app.preview.cpu_renderer import CpuFrame, CpuRenderer
from app.preview.host import PreviewHost
from app.preview.images import qimage_to_rgba
from app.preview.preview_state import prepare_environment
from app.preview.screenshot import read_program
from app.preview.stage import Stage
from app.preview.widget import create_preview_widget
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.publish import VerifiedModule

ROOT = Path(__file__).resolve().parents[3]
LIT = ROOT / "app" / "material" / "examples" / "lit_blinn_phong.vpl"

RUNAWAY = """
(module 1
  (types (type Void void) (type Bool bool) (type Vec3 vector float 3) (type Vec4 vector float 4))
  (uniforms)
  (vertex main (interface (in p "position" Vec3 0 none) (out clip "clip" Vec4 -1 position))
    (functions (function main "main" Void (parameters) (registers (register r0 Vec3) (register r1 Vec4))
      (block entry (load r0 (stage p)) (construct r1 r0 (float 1.0)) (store (stage clip) r1) (return)))))
  (fragment main (interface (out c "color" Vec4 0 fragment_color))
    (functions (function main "main" Void (parameters) (registers (register r0 Vec4) (register r1 Bool))
      (block entry (construct r0 (float 1.0)) (store (stage c) r0) (copy r1 (bool true)) (branch spin))
      (block spin (branch_if r1 spin done))
      (block done (return))))))
"""


@pytest.fixture(autouse=True)
def fresh_probes():
    clear_probes()
    yield
    clear_probes()


def _preview(qtbot, size: tuple[int, int] = (200, 160)) -> CpuPreview:
    preview = CpuPreview("no OpenGL 4.2 core context (test)")
    qtbot.addWidget(preview)
    preview.resize(*size)
    preview.show()
    qtbot.waitExposed(preview)
    return preview


def _lit(preview: CpuPreview, qtbot) -> None:
    verified, specs = read_program(str(LIT))
    values = {spec.name: spec.default for spec in specs}
    with qtbot.waitSignal(preview.programReady, timeout=5000):
        preview.set_artifact(compile_glsl(verified), specs, values)
    preview.render_now()


def test_factory_falls_back_to_the_cpu_preview(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "create_context", lambda profile: None)
    clear_probes()
    widget = create_preview_widget(choice="auto")
    qtbot.addWidget(widget)
    assert isinstance(widget, CpuPreview)
    assert widget.available and widget.context_description == "CPU interpreter (no OpenGL context)"
    assert "OpenGL 4.2 core" in widget.no_context_reason and "OpenGL ES 3.2" in widget.no_context_reason
    assert widget.target == "glsl420"


def test_draws_the_module_it_is_handed(qtbot) -> None:
    preview = _preview(qtbot)
    _lit(preview, qtbot)
    assert preview.frames_rendered == 1 and not preview.error_text
    width, height = preview.frame_size()
    assert max(width, height) <= MAX_SIDE
    shown = qimage_to_rgba(preview.grab_preview())
    verified, specs = read_program(str(LIT))
    reference = CpuRenderer()
    reference.set_program(verified)
    for spec in specs:
        reference.set_parameter(spec.name, spec.default)
    expected = reference.render_image(shown.shape[1], shown.shape[0])
    np.testing.assert_array_equal(shown, expected)
    centre = shown[shown.shape[0] // 2, shown.shape[1] // 2]
    assert int(centre[0]) > 60  # the lit sphere, not the background


def test_a_parameter_change_renders_a_new_frame(qtbot) -> None:
    preview = _preview(qtbot)
    _lit(preview, qtbot)
    before = qimage_to_rgba(preview.grab_preview())
    color = next(spec.name for spec in read_program(str(LIT))[1] if spec.kind is ParameterKind.COLOR)
    preview.set_parameter(color, (0.0, 0.0, 1.0, 1.0))
    qtbot.waitUntil(lambda: preview.frames_rendered == 2, timeout=5000)
    after = qimage_to_rgba(preview.grab_preview())
    assert np.abs(after.astype(int) - before.astype(int)).max() > 40


def test_the_notice_is_shown(qtbot) -> None:
    preview = _preview(qtbot)
    _lit(preview, qtbot)
    shown = qimage_to_rgba(preview.grab_shown_frame())
    band = shown[2:18, 4:150, :3].astype(int)
    yellowish = (band[..., 0] > 150) & (band[..., 2] < 160)
    assert yellowish.sum() > 20, "the notice text is not visible"
    assert "CPU" in NOTICE and "reduced" in NOTICE
    assert "no OpenGL" in preview.toolTip()


def test_an_artifact_without_its_module_is_reported(qtbot) -> None:
    preview = _preview(qtbot)
    verified, _ = read_program(str(LIT))
    artifact = compile_glsl(verified)
    from dataclasses import replace

    with qtbot.waitSignal(preview.programFailed, timeout=5000) as failed:
        preview.set_artifact(replace(artifact, source=None))
    assert "verified module" in failed.args[0] and preview.error_text == failed.args[0]


def test_a_runaway_loop_fails_the_frame_not_the_editor(qtbot) -> None:
    preview = _preview(qtbot, (40, 40))
    verified = VerifiedModule.from_text(RUNAWAY, "runaway.vpl")
    with qtbot.waitSignal(preview.programFailed, timeout=60_000) as failed:
        preview.set_artifact(compile_glsl(verified))
        preview.render_now()
    assert "did not finish" in failed.args[0]
    _lit(preview, qtbot)
    assert not preview.error_text and preview.frames_rendered == 1


def test_dragging_orbits_at_a_lower_resolution(qtbot) -> None:
    preview = _preview(qtbot, (300, 300))
    _lit(preview, qtbot)
    yaw = preview.renderer.camera.yaw

    def mouse(kind, x: int, buttons) -> None:
        event = QMouseEvent(kind, QPointF(QPoint(x, 100)), QPointF(QPoint(x, 100)), Qt.MouseButton.LeftButton, buttons,
                            Qt.KeyboardModifier.NoModifier)
        getattr(preview, {QMouseEvent.Type.MouseButtonPress: "mousePressEvent", QMouseEvent.Type.MouseMove: "mouseMoveEvent",
                          QMouseEvent.Type.MouseButtonRelease: "mouseReleaseEvent"}[kind])(event)

    mouse(QMouseEvent.Type.MouseButtonPress, 100, Qt.MouseButton.LeftButton)
    mouse(QMouseEvent.Type.MouseMove, 140, Qt.MouseButton.LeftButton)
    assert preview.renderer.camera.yaw != yaw
    assert max(preview.frame_size()) == DRAG_SIDE
    mouse(QMouseEvent.Type.MouseButtonRelease, 140, Qt.MouseButton.NoButton)
    assert max(preview.frame_size()) == MAX_SIDE


def test_playing_advances_time_at_the_reduced_rate(qtbot) -> None:
    preview = _preview(qtbot, (60, 60))
    _lit(preview, qtbot)
    preview.set_playing(True)
    assert preview.playing
    qtbot.waitUntil(lambda: preview.renderer.time > 0.2 and preview.frames_rendered >= 2, timeout=10_000)
    preview.set_playing(False)
    frozen = preview.renderer.time
    # The clock advances only on its timer's ticks: stopped, nothing changes the time any more.
    assert not preview.playing and preview.renderer.time == frozen


def test_es_profile_fallback_keeps_the_es_target(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "create_context", lambda profile: None)
    clear_probes()
    widget = create_preview_widget(choice="es")
    qtbot.addWidget(widget)
    assert isinstance(widget, CpuPreview) and widget.profile is Profile.ES and widget.target == "es320"


def test_it_implements_the_whole_host_protocol(qtbot) -> None:
    """The window and the stage toolbar drive every preview through `PreviewHost`; a missing member
    was a window that failed on start on a machine without OpenGL."""
    preview = _preview(qtbot, (60, 60))
    members = sorted(name for name in {*vars(PreviewHost), *PreviewHost.__annotations__} if not name.startswith("_"))
    assert "set_stage" in members and "playingChanged" in members
    assert [name for name in members if not hasattr(preview, name)] == []
    assert isinstance(preview, PreviewHost)


def _example(preview: CpuPreview, qtbot, name: str) -> tuple[object, list]:
    verified, specs = read_program(str(ROOT / "app" / "material" / "examples" / f"{name}.vpl"))
    with qtbot.waitSignal(preview.programReady, timeout=5000):
        preview.set_artifact(compile_glsl(verified), specs, {spec.name: spec.default for spec in specs})
    return verified, specs


def test_the_stage_reaches_the_renderer_and_the_environment_is_prepared_in_a_worker(qtbot) -> None:
    preview = _preview(qtbot, (96, 80))
    verified, specs = _example(preview, qtbot, "polished_gold")
    stage = Stage()
    stage.set_environment("neutral", rotation=30.0, intensity=1.5)
    stage.set_exposure(0.5)
    stage.set_tone_mapper("aces")
    stage.set_background("blurred")
    stage.set_light(azimuth=40.0, elevation=10.0, intensity=5.0)
    stage.set_mesh("cube")
    with qtbot.waitSignal(preview.environmentReady, timeout=60_000) as ready:
        preview.set_stage(stage)
        assert preview.preparing_environment and "neutral" in preview.environment_note
    assert ready.args == ["neutral"] and not preview.preparing_environment and not preview.environment_note
    renderer = preview.renderer
    assert preview.stage is stage
    assert (renderer.exposure, renderer.tone_mapper, renderer.background_mode, renderer.mesh_name) == (0.5, "aces", "blurred", "cube")
    assert renderer.environment_intensity == 1.5 and len(renderer.environment_maps.specular) == 6
    # The frame is the CPU renderer's with the same stage and the prepared environment.
    shown = qimage_to_rgba(preview.grab_preview())
    reference = CpuRenderer()
    reference.set_program(verified)
    stage.apply(reference)
    maps, table = prepare_environment("neutral")
    reference.set_environment_maps(maps)
    reference.set_brdf_table(table)
    for spec in specs:
        reference.set_parameter(spec.name, spec.default)
    np.testing.assert_array_equal(shown, reference.render_image(shown.shape[1], shown.shape[0]))
    corner = shown[2, 2, :3].astype(int)
    assert np.abs(corner - np.round(np.array(stage.background_color) * 255)).max() > 10, "the blurred environment behind"


def test_an_environment_that_cannot_be_read_is_reported_and_the_previous_one_stays(qtbot, tmp_path: Path) -> None:
    preview = _preview(qtbot)
    _lit(preview, qtbot)
    broken = tmp_path / "broken.hdr"
    broken.write_bytes(b"not a radiance file")
    stage = Stage()
    stage.set_environment(str(broken))
    before = preview.renderer.environment_maps
    with qtbot.waitSignal(preview.environmentFailed, timeout=30_000) as failed:
        preview.set_stage(stage)
    assert "broken.hdr" in failed.args[0]
    assert preview.environment_note.startswith("Environment: ") and preview.renderer.environment_maps is before
    shown = qimage_to_rgba(preview.grab_shown_frame())
    # Left of the sphere, under the banner: the background colour, but for the note's light text.
    assert (shown[NOTICE_HEIGHT + 4: NOTICE_HEIGHT + 14, 4:40, :3].min(axis=2) > 200).any(), "the note is drawn under the banner"


def test_a_material_that_reads_the_time_plays_by_itself_unless_paused(qtbot) -> None:
    preview = _preview(qtbot, (40, 40))
    with qtbot.waitSignal(preview.playingChanged, timeout=5000) as started:
        _example(preview, qtbot, "animated")
    assert started.args == [True] and preview.playing
    with qtbot.waitSignal(preview.playingChanged, timeout=5000) as stopped:
        preview.set_playing(False)
    assert stopped.args == [False]
    _example(preview, qtbot, "animated")
    assert not preview.playing, "the user paused: a new program does not start the clock"
    preview.renderer.time = 3.0
    preview.reset_time()
    assert preview.renderer.time == 0.0
    _lit(preview, qtbot)
    preview.set_playing(True)
    with qtbot.waitSignal(preview.playingChanged, timeout=5000) as stopped:
        _example(preview, qtbot, "lit_blinn_phong")
    assert stopped.args == [False], "a material that does not read the time stops the clock"


def test_frames_are_drawn_in_a_worker_and_changes_meanwhile_make_one_more_frame(qtbot, monkeypatch) -> None:
    preview = _preview(qtbot, (256, 256))
    _, specs = _example(preview, qtbot, "polished_gold")
    # The stage's environment arrives from a worker (at once when an earlier test prepared it) and draws
    # again: let that settle first, so the frames counted below are the edits' alone.
    if preview.preparing_environment:
        with qtbot.waitSignal(preview.environmentReady, timeout=60_000):
            pass
    qtbot.waitUntil(lambda: not preview.drawing and not preview.frame_requested, timeout=30_000)
    # The worker's frame waits until the test lets it go: "while a frame is drawn" is a state, not a race.
    entered, release = threading.Event(), threading.Event()
    draw_image = CpuFrame.draw_image

    def held_draw_image(frame: CpuFrame, **options: object) -> object:
        entered.set()
        assert release.wait(60), "the test never released the frame"
        return draw_image(frame, **options)

    monkeypatch.setattr(CpuFrame, "draw_image", held_draw_image)
    before = preview.frames_rendered
    color = next(spec.name for spec in specs if spec.kind is ParameterKind.COLOR)
    preview.set_parameter(color, (0.0, 0.0, 0.1, 1.0))  # no render_now: the settle timer starts a worker frame
    qtbot.waitUntil(entered.is_set, timeout=5000)
    assert preview.drawing
    turns: list[int] = []
    QTimer.singleShot(0, lambda: turns.append(1))
    for blue in (0.2, 0.5, 1.0):  # while that frame is being drawn
        preview.set_parameter(color, (0.0, 0.0, blue, 1.0))
    # The last edit's settle timer fires while the frame is still held: it owes one more frame.
    qtbot.waitUntil(lambda: preview.frame_owed, timeout=5000)
    assert turns, "the GUI thread ran its events while the worker drew"
    assert preview.drawing and preview.frames_rendered == before
    release.set()
    qtbot.waitUntil(lambda: preview.frames_rendered == before + 2 and not preview.drawing, timeout=30_000)
    assert not preview.frame_requested and preview.frames_rendered == before + 2, "the three edits made one more frame"
    shown = qimage_to_rgba(preview.shown_frame)[64:192, 64:192]
    expected = _reference_frame("polished_gold", (256, 256), **{color: (0.0, 0.0, 1.0, 1.0)})
    np.testing.assert_array_equal(shown, expected[64:192, 64:192])


def _reference_frame(name: str, size: tuple[int, int], **values: object) -> np.ndarray:
    verified, specs = read_program(str(ROOT / "app" / "material" / "examples" / f"{name}.vpl"))
    reference = CpuRenderer()
    reference.set_program(verified)
    for spec in specs:
        if spec.default is not None and not isinstance(spec.default, str):
            reference.set_parameter(spec.name, spec.default)
    for parameter, value in values.items():
        reference.set_parameter(parameter, value)
    return reference.render_image(*size)


def test_a_frame_of_a_replaced_program_is_not_shown(qtbot) -> None:
    preview = _preview(qtbot, (256, 256))
    _example(preview, qtbot, "polished_gold")
    qtbot.waitUntil(lambda: preview.drawing, timeout=5000)
    _example(preview, qtbot, "lit_blinn_phong")  # while the gold frame is being drawn
    qtbot.waitUntil(lambda: preview.frames_rendered == 1 and not preview.drawing, timeout=30_000)
    assert preview.frames_rendered == 1 and not preview.frame_requested, "no frame of the replaced program follows"
    shown = qimage_to_rgba(preview.shown_frame)[64:192, 64:192]
    np.testing.assert_array_equal(shown, _reference_frame("lit_blinn_phong", (256, 256))[64:192, 64:192])


def test_an_environment_with_nan_texels_loads_and_the_note_says_so(qtbot, tmp_path: Path) -> None:
    import OpenImageIO

    preview = _preview(qtbot)
    _lit(preview, qtbot)
    image = np.ones((64, 128, 3), np.float32)  # the smallest the prefilter takes
    image[3, 4] = np.nan
    image[5, 6, 1] = np.inf
    path = tmp_path / "spotty.exr"
    output = OpenImageIO.ImageOutput.create(str(path))
    assert output.open(str(path), OpenImageIO.ImageSpec(128, 64, 3, OpenImageIO.FLOAT)) and output.write_image(image)
    output.close()
    stage = Stage()
    stage.set_environment(str(path))
    with qtbot.waitSignal(preview.environmentReady, timeout=60_000):
        preview.set_stage(stage)
    assert preview.environment_note == "Environment spotty.exr: 2 texel(s) were NaN or infinite and were set to 0"
