"""The preview's render thread with the real GL (Xvfb, llvmpipe): issue 20 item 3.

Compiling, linking and the driver's first draw run off the window's thread;
the old image stays until the new program has drawn its first frame, and
`programReady` comes with that frame; a program the driver rejects (at
compile or at link) keeps the old image and reports; closing the widget
stops the thread and releases its objects; with
`VPL_PREVIEW_RENDER_THREAD=0` and with a context that cannot share, the
window's thread draws. While a thread runs, the window thread's garbage is
collected on the window's thread (`render_thread_stress.py` drives the
thread beside such garbage; it crashed before, docs/preview.md). No timed
assertions: a slow driver is simulated by a build that waits for an event.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from preview_helpers import broken_artifact, color_parameter_artifact, constant_color_artifact, make_artifact
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QImage, QOpenGLContext

from app.gui_post import deliver_posted
from app.material.parameters import ParameterKind, ParameterSpec
from app.preview import render_thread
from app.preview.images import qimage_to_rgba
from app.preview.render_thread import RenderThread
from app.preview.renderer import Renderer
from app.preview.widget import DRAFT_VARIABLE, RENDER_THREAD_VARIABLE, PreviewWidget
from vpl_core import collector
from vpl_core.ir.types import vec

pytestmark = pytest.mark.gl

RED, GREEN, BLUE = (1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)


@pytest.fixture(autouse=True)
def render_thread_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the thread, the default: the variable unset (a test of the fallback sets it).

    They count frames: every frame at full resolution here (draft frames, which a slow frame, such as one
    held by a test, would start, have tests of their own in test_preview_draft_frames.py)."""
    monkeypatch.delenv(RENDER_THREAD_VARIABLE, raising=False)
    monkeypatch.setenv(DRAFT_VARIABLE, "0")


def _make_widget(qtbot, tracked: bool = True) -> PreviewWidget:
    """A shown preview; `tracked=False` leaves its deletion to the test (qtbot would close it again)."""
    widget = PreviewWidget()
    widget.resize(200, 160)
    if tracked:
        qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def widget(qtbot) -> PreviewWidget:
    return _make_widget(qtbot)


def _centre(image: QImage) -> tuple[int, int, int]:
    pixels = qimage_to_rgba(image)
    height, width = pixels.shape[:2]
    return tuple(int(c) for c in pixels[height // 2, width // 2, :3])


def _link_failure_artifact():
    """Compiles, but cannot link: `main` calls a function no stage defines."""
    artifact = make_artifact("  vpl_output0 = vpl_nowhere();")
    code = artifact.fragment_code.replace("void main() {", "vec4 vpl_nowhere();\nvoid main() {", 1)
    return replace(artifact, fragment_code=code)


@pytest.fixture
def slow_builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[threading.Thread], threading.Event]]:
    """Builds wait for the event (a driver taking its time over a big program); the threads they ran on."""
    builders: list[threading.Thread] = []
    release = threading.Event()
    original = Renderer.build_program

    def slow_build(renderer: Renderer, artifact, *passes):
        builders.append(threading.current_thread())
        assert release.wait(30.0)
        return original(renderer, artifact, *passes)

    monkeypatch.setattr(Renderer, "build_program", slow_build)
    yield builders, release
    release.set()


def _show(qtbot, widget: PreviewWidget, rgba) -> None:
    with qtbot.waitSignal(widget.programReady, timeout=10_000):
        widget.set_artifact(constant_color_artifact(rgba))
    widget.finish_rendering()


def test_the_thread_is_used_here(widget: PreviewWidget) -> None:
    assert widget.threaded  # llvmpipe shares contexts: the default path is the thread


def test_the_old_image_stays_until_the_new_program_drew_its_first_frame(qtbot, widget: PreviewWidget,
                                                                        slow_builds) -> None:
    builders, release = slow_builds
    release.set()
    _show(qtbot, widget, RED)
    ready: list[tuple[int, int, int]] = []
    # What is on screen at the moment programReady comes.
    widget.programReady.connect(lambda: ready.append(_centre(widget.grabFramebuffer())))
    release.clear()
    widget.set_artifact(constant_color_artifact(BLUE))  # returns at once: the build is posted
    qtbot.waitUntil(lambda: len(builders) == 2, timeout=10_000)
    assert builders[-1] is not threading.main_thread()
    # While the new program builds (held), the window's thread goes on and shows the old image (red), with no
    # error: everything the thread handed over so far is delivered and painted.
    deliver_posted()
    QCoreApplication.processEvents()
    assert _centre(widget.grabFramebuffer()) == (255, 0, 0) and not ready and widget.error_text == ""
    release.set()
    qtbot.waitUntil(lambda: bool(ready), timeout=10_000)
    # programReady came with the first frame of the new program: that frame was on screen already.
    assert ready == [(0, 0, 255)]


def test_program_ready_comes_once_for_the_newest_of_several_builds(qtbot, widget: PreviewWidget, slow_builds) -> None:
    builders, release = slow_builds
    release.set()
    _show(qtbot, widget, RED)
    release.clear()
    ready: list[tuple[int, int, int]] = []
    failed: list[str] = []
    widget.programReady.connect(lambda: ready.append(_centre(widget.grabFramebuffer())))
    widget.programFailed.connect(failed.append)
    widget.set_artifact(constant_color_artifact(GREEN))  # overtaken before it is drawn
    widget.set_artifact(constant_color_artifact(BLUE))
    qtbot.waitUntil(lambda: len(builders) >= 2, timeout=10_000)
    release.set()
    qtbot.waitUntil(lambda: bool(ready), timeout=10_000)
    widget.finish_rendering()  # everything done, and everything handed over delivered
    # The intermediate program never announced itself; the newest did, with its own pixels on screen.
    assert ready == [(0, 0, 255)] and not failed
    assert _centre(widget.grab_preview()) == (0, 0, 255)


@pytest.mark.parametrize("rejected", [broken_artifact, _link_failure_artifact], ids=["compile", "link"])
def test_a_rejected_program_keeps_the_old_image_and_reports(qtbot, widget: PreviewWidget, rejected) -> None:
    widget.resize(300, 400)  # room for the image above the log's band
    _show(qtbot, widget, GREEN)
    links = widget.renderer.link_count
    ready: list[int] = []
    widget.programReady.connect(lambda: ready.append(1))
    with qtbot.waitSignal(widget.programFailed, timeout=10_000) as failed:
        widget.set_artifact(rejected())
    message = failed.args[0]
    assert ("this_is_not_declared" in message) if rejected is broken_artifact else message.startswith("link failed")
    assert widget.error_text == message and not ready
    if rejected is _link_failure_artifact:
        assert widget.renderer.link_count == links + 1  # it was linked, and failed there
    # The old program still draws, on screen and in a fresh frame, with the log over the screen's image.
    assert _centre(widget.grab_preview()) == (0, 255, 0)
    widget.finish_rendering()
    on_screen, image = qimage_to_rgba(widget.grab_shown_frame()), qimage_to_rgba(widget.grab_preview())
    differing_rows = np.flatnonzero((on_screen[:, :, :3] != image[:, :, :3]).any(axis=(1, 2)))
    assert differing_rows.size and differing_rows[-1] == image.shape[0] - 1  # the log's band at the bottom...
    above = on_screen[:differing_rows[0], :, :3]
    assert (above == (0, 255, 0)).all(axis=2).any()                           # ...under the old image
    # The thread goes on: the next good program is shown.
    _show(qtbot, widget, BLUE)
    assert widget.error_text == "" and _centre(widget.grabFramebuffer()) == (0, 0, 255)


def test_state_changes_reach_the_thread_in_order(qtbot, widget: PreviewWidget) -> None:
    spec = ParameterSpec("tint", ParameterKind.COLOR, vec(4), RED)
    with qtbot.waitSignal(widget.programReady, timeout=10_000):
        widget.set_artifact(color_parameter_artifact(), [spec])
    for step in range(20):  # a slider: many values, the last one wins
        widget.set_parameter("tint", (0.0, step / 19.0, 1.0 - step / 19.0, 1.0))
    widget.set_background((0.25, 0.5, 0.75))
    widget.set_mesh("cube")
    widget.finish_rendering()
    assert _centre(widget.grabFramebuffer()) == (0, 255, 0)
    renderer = widget.renderer
    assert renderer.parameters["tint"] == (0.0, 1.0, 0.0, 1.0) and renderer.mesh_name == "cube"
    assert renderer.background == (0.25, 0.5, 0.75) == widget.state.background
    # Invalid values are refused in the caller's thread, before anything is posted.
    with pytest.raises(ValueError, match="mesh"):
        widget.set_mesh("no such mesh")
    assert widget.renderer.mesh_name == "cube"


def test_a_value_posted_during_a_frame_is_in_the_next_frame_and_frames_say_which_changes_they_show(
        qtbot, widget: PreviewWidget, monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame counts the changes applied before it was drawn (`Frame.commands`): the one in progress when a
    value was posted says it does not show it, the next one does, and no frame more is drawn."""
    spec = ParameterSpec("tint", ParameterKind.COLOR, vec(4), RED)
    with qtbot.waitSignal(widget.programReady, timeout=10_000):
        widget.set_artifact(color_parameter_artifact(), [spec])
    widget.finish_rendering()
    drawing, release = threading.Event(), threading.Event()
    render = Renderer.render

    def held_render(renderer: Renderer, width: int, height: int) -> None:
        if not release.is_set():
            drawing.set()
            assert release.wait(30.0)
        render(renderer, width, height)

    monkeypatch.setattr(Renderer, "render", held_render)
    handed: list[tuple[int, ...]] = []
    thread = widget._thread
    assert thread is not None
    thread.frame_ready.connect(lambda *fields: handed.append(fields), Qt.ConnectionType.DirectConnection)
    drawn = thread.frames_drawn
    widget.set_parameter("tint", GREEN)
    assert drawing.wait(30.0)  # the thread is drawing the green frame
    with_green = widget.posted_commands
    widget.set_parameter("tint", BLUE)  # posted while that frame is drawn
    with_blue = widget.posted_commands
    assert with_blue == with_green + 1
    release.set()
    widget.finish_rendering()
    assert [(fields[4], fields[5]) for fields in handed] == [(drawn + 1, with_green), (drawn + 2, with_blue)]
    assert thread.frames_drawn == drawn + 2
    qtbot.waitUntil(lambda: widget.shown_frame is not None and widget.shown_frame.commands == with_blue, timeout=10_000)
    assert _centre(widget.grabFramebuffer()) == (0, 0, 255)


def test_the_next_frame_waits_until_the_window_has_shown_the_last(qtbot, widget: PreviewWidget,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Pacing: the thread draws no frame while the window has not yet put the last one on screen (at most
    `PACE_WAIT_S`), so its drawing and the window's composition never compete for the cores."""
    spec = ParameterSpec("tint", ParameterKind.COLOR, vec(4), RED)
    with qtbot.waitSignal(widget.programReady, timeout=10_000):
        widget.set_artifact(color_parameter_artifact(), [spec])
    thread = widget._thread
    assert thread is not None
    qtbot.waitUntil(lambda: widget.shown_frame is not None and widget.shown_frame.serial == thread.frames_drawn,
                    timeout=10_000)
    qtbot.waitUntil(lambda: thread._presented >= thread.frames_drawn, timeout=10_000)  # its composition reported
    monkeypatch.setattr(render_thread, "PACE_WAIT_S", 60.0)
    widget.frameSwapped.disconnect(widget._on_frame_swapped)  # the window shows frames, the thread is not told
    try:
        drawn = thread.frames_drawn
        widget.set_parameter("tint", GREEN)
        qtbot.waitUntil(lambda: thread.frames_drawn == drawn + 1, timeout=10_000)  # the last one was shown
        widget.set_parameter("tint", BLUE)
        # The thread has taken the blue command; had it not waited, it would have taken the frame asked for with it.
        qtbot.waitUntil(lambda: thread._applied == thread.posted, timeout=10_000)
        assert thread._frame_size is not None, "the blue frame waits: the green one is not known to be on screen"
        assert thread.frames_drawn == drawn + 1
        thread.presented(drawn + 1)
        qtbot.waitUntil(lambda: thread.frames_drawn == drawn + 2, timeout=10_000)
        qtbot.waitUntil(lambda: widget.shown_frame is not None and widget.shown_frame.serial == drawn + 2, timeout=10_000)
        assert _centre(widget.grabFramebuffer()) == (0, 0, 255)

        monkeypatch.setattr(render_thread, "PACE_WAIT_S", 0.05)  # a window that never composes holds nothing long
        widget.set_parameter("tint", RED)
        qtbot.waitUntil(lambda: thread.frames_drawn == drawn + 3, timeout=10_000)
    finally:
        widget.frameSwapped.connect(widget._on_frame_swapped)


def test_camera_and_time_are_the_widgets_and_the_renderer_follows(qtbot, widget: PreviewWidget) -> None:
    _show(qtbot, widget, RED)
    widget.camera.orbit(30.0, 10.0)
    widget.state.camera_changed()
    widget.reset_time()
    assert widget.renderer.camera is not widget.camera  # a copy: the thread never reads what the mouse moves
    assert (widget.renderer.camera.yaw, widget.renderer.camera.pitch) == (30.0, 10.0)
    assert widget.time == widget.renderer.time == 0.0


def test_closing_the_widget_stops_the_thread_and_releases_its_objects(qtbot) -> None:
    widget = _make_widget(qtbot, tracked=False)
    _show(qtbot, widget, RED)
    thread: RenderThread = widget._thread
    renderer = widget._renderer
    assert thread.running and renderer.program is not None
    assert collector.taken_over() and not gc.isenabled()  # the window's thread alone collects
    widget.close()
    widget.deleteLater()  # Qt destroys it (and its context) from C++, as a closed window does
    qtbot.waitUntil(lambda: not thread.running, timeout=10_000)
    assert renderer.program is None and not renderer._initialized  # every GL object was deleted, in its context
    assert not any(t.name == "vpl-preview-render" and t.ident == thread._thread.ident for t in threading.enumerate())
    # Its offscreen surface was destroyed on this (the GUI) thread.
    assert thread._surface is None



def test_many_widgets_leave_no_thread_behind(qtbot) -> None:
    threads = []
    for colour in (RED, GREEN, BLUE):
        widget = _make_widget(qtbot, tracked=False)
        _show(qtbot, widget, colour)
        threads.append(widget._thread)
        widget.close()
        widget.deleteLater()
    qtbot.waitUntil(lambda: not any(thread.running for thread in threads), timeout=10_000)


@pytest.mark.parametrize("value", ["", "1", "yes"])
def test_the_thread_is_the_default(qtbot, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(RENDER_THREAD_VARIABLE, value)
    widget = _make_widget(qtbot)
    _show(qtbot, widget, RED)
    assert widget.threaded and _centre(widget.grab_preview()) == (255, 0, 0)


def test_without_the_thread_the_window_thread_draws(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RENDER_THREAD_VARIABLE, "0")
    widget = _make_widget(qtbot)
    ready: list[int] = []
    widget.programReady.connect(lambda: ready.append(1))
    widget.set_artifact(constant_color_artifact(RED))
    assert not widget.threaded and ready == [1]  # built and announced in the call
    assert _centre(widget.grab_preview()) == (255, 0, 0)
    with qtbot.waitSignal(widget.programFailed, timeout=5000):
        widget.set_artifact(broken_artifact())
    assert _centre(widget.grab_preview()) == (255, 0, 0)


def test_a_context_that_cannot_share_falls_back_to_the_window_thread(qtbot, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys) -> None:
    monkeypatch.setattr(QOpenGLContext, "areSharing", staticmethod(lambda first, second: False))
    widget = _make_widget(qtbot)
    _show(qtbot, widget, BLUE)
    assert not widget.threaded
    assert _centre(widget.grab_preview()) == (0, 0, 255)
    assert "draws in the window's thread" in capsys.readouterr().err


def test_quitting_stops_every_render_thread(qtbot) -> None:
    """`close_all` runs on the application's aboutToQuit: no thread is left drawing while Python shuts down."""
    from app.preview.render_thread import close_all

    widget = _make_widget(qtbot)
    _show(qtbot, widget, RED)
    thread: RenderThread = widget._thread
    close_all()
    assert not thread.running and not widget.renderer._initialized


def test_frames_still_on_their_way_keep_their_textures_through_a_resize(
        qtbot, widget: PreviewWidget, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resize retires the thread's textures; one named by a frame still queued to the widget stays alive
    until the widget has received it (it may paint it while the new size's first frame is drawn)."""
    _show(qtbot, widget, RED)
    thread: RenderThread = widget._thread
    widget.set_background((0.1, 0.1, 0.1))
    widget.finish_rendering()
    widget.grabFramebuffer()            # that frame is painted: the widget shows its texture
    widget.set_background((0.2, 0.2, 0.2))
    assert thread.wait_idle(30.0)       # a second frame is handed over, still queued to the widget
    widget.grabFramebuffer()            # a paint meanwhile (the first frame again)
    drawing, release = threading.Event(), threading.Event()
    original = Renderer.render

    def slow_render(renderer: Renderer, width: int, height: int) -> None:
        if width == 170:  # the new size's first frame takes its time
            drawing.set()
            assert release.wait(30.0)
        original(renderer, width, height)

    monkeypatch.setattr(Renderer, "render", slow_render)
    widget.resize(170, 140)
    widget.set_background((0.3, 0.3, 0.3))
    assert drawing.wait(30.0)           # the thread retired the old size's textures and draws the new size
    deliver_posted()                    # the second frame arrives now...
    widget.grabFramebuffer()            # ...and is painted: its texture must still exist
    release.set()
    widget.finish_rendering()
    assert widget.error_text == "" and _centre(widget.grabFramebuffer()) == (255, 0, 0)


def test_the_window_threads_garbage_is_collected_on_it_while_threads_draw(qtbot) -> None:
    """The crash of full suites, reproduced: cyclic garbage holding the window thread's Qt objects (active
    timers, scenes, offscreen surfaces) made while render threads build meshes and programs, draw, resize,
    close and start again (`render_thread_stress.py`). Before the fix, CPython's collector ran on the render
    thread too and deleted those objects there; this crashed within 60 iterations (a timer fired for a
    QTimer deleted off its thread)."""
    from render_thread_stress import stress


    off_thread = collector.off_thread_collections()
    report = stress(iterations=60, previews_every=20)
    assert report.widgets == 4 and report.frames > 0
    assert report.freed_off_the_window_thread == 0, report.summary()
    assert set(report.collections) == {threading.main_thread().name}, report.summary()
    assert collector.off_thread_collections() == off_thread
    assert collector.taken_over() and not gc.isenabled()  # the rule holds for the rest of the process


def test_previews_and_their_threads_leave_no_qt_object_in_a_reference_cycle(qtbot) -> None:
    """What made collection off the GUI thread dangerous: Qt objects kept alive only by reference cycles, freed
    by whichever thread collects. Previews made, drawn and closed (the stress run without its own garbage)
    leave none: everything the collector finds (`gc.DEBUG_SAVEALL` keeps it) is plain Python."""
    import shiboken6
    from render_thread_stress import stress

    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        report = stress(iterations=20, previews_every=10, garbage_per_iteration=0)
        gc.collect()
        in_cycles = sorted(type(item).__name__ for item in gc.garbage if isinstance(item, shiboken6.Shiboken.Object))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert report.widgets == 3 and report.frames > 0
    assert in_cycles == []
