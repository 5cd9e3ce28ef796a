"""Live values through the real window (issue 20 item 3; docs/editor.md, "Live values").

An edit of a value (a constant's value, an unconnected input's default)
makes it live for the preview: one build of a program that reads it from a
hidden uniform; after that every edit that changes only live values, a
slider's drag steps and discrete edits and undo alike, posts the new value
to the preview without a new program, while the canonical lowering goes on
for everything else. Counted, never timed: programs linked, live builds,
values posted, lowerings. Both ways the preview can draw (the window's
thread, the render thread). Hidden uniforms never show in the parameters
panel, and every export and the saved file are byte-identical with and
without them.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel

from app.material.lowering import lower
from app.material.scene import HIDDEN_UNIFORM_PREFIX, is_hidden_uniform
from app.preview.images import qimage_to_rgba
from app.preview.widget import RENDER_THREAD_VARIABLE
from app.ui.code_view import FRAGMENT_TAB, VPL_TAB
from app.ui.export_dialog import ExportRequest

pytestmark = pytest.mark.gl

#: The Fresnel node of the UI tests' example: its `power` is an unconnected input's default (a float).
FRESNEL, POWER = "n7", "power"
PREVIEW_TIMEOUT_MS = 30_000


@pytest.fixture(params=["0", "1"], ids=["window-thread", "render-thread"])
def render_mode(request, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both ways the preview draws; garbage is collected while no render thread runs (docs/preview.md)."""
    gc.collect()
    monkeypatch.setenv(RENDER_THREAD_VARIABLE, request.param)
    yield request.param
    gc.collect()


def settled(window, qtbot) -> None:
    """Everything lowered, and the preview has drawn its newest program and state."""
    window.flush()
    qtbot.waitUntil(lambda: not window.presenter.preview_pending, timeout=PREVIEW_TIMEOUT_MS)
    window.preview.finish_rendering()


def pixels(window) -> np.ndarray:
    return qimage_to_rgba(window.preview.grab_preview()).astype(np.int16)


def test_value_edits_reach_the_preview_without_a_new_program(make_window, qtbot, render_mode: str) -> None:
    window = make_window()
    settled(window, qtbot)
    session, presenter, renderer = window.session, window.presenter, window.preview.renderer
    assert window.preview.threaded == (render_mode == "1")
    links = renderer.link_count
    lowerings: list[object] = []
    session.lowered.connect(lowerings.append)

    # The first edit of the value: one build of the live program (the value as a uniform).
    window.nodes.set_node_property(FRESNEL, POWER, 3.0)
    settled(window, qtbot)
    assert session.live.builds == 1 and session.live.current
    assert renderer.link_count == links + 1
    live_artifact = renderer.program.artifact
    assert any(binding.name.startswith(HIDDEN_UNIFORM_PREFIX) for binding in live_artifact.uniforms)
    first = pixels(window)

    # Discrete edits, then a drag: values posted, no program built, the canonical lowering still runs.
    posts = presenter.live_posts
    for value in (2.5, 2.0, 1.5):
        window.nodes.set_node_property(FRESNEL, POWER, value)
        settled(window, qtbot)
    for step in range(8):
        window.nodes.set_node_property(FRESNEL, POWER, 1.0 + step * 0.25, continuing=True)
        window.flush()
    window.gesture.end()
    settled(window, qtbot)
    assert renderer.link_count == links + 1, "a value edit built a program"
    assert session.live.builds == 1
    assert presenter.live_posts == posts + 3 + 8
    assert renderer.program.artifact is live_artifact
    assert len(lowerings) == 1 + 3 + 8, "every edit is lowered canonically (code view, diagnostics, exports)"
    # The canonical lowering is what the code view and the session show: literals, no hidden uniform.
    canonical = lower(window.material)
    assert session.result.text == canonical.text
    assert window.code_view.text(VPL_TAB) == canonical.text and HIDDEN_UNIFORM_PREFIX not in canonical.text
    assert window.code_view.text(FRAGMENT_TAB) == canonical.artifact.fragment_code
    live_pixels = pixels(window)
    assert np.abs(live_pixels - first).max() > 0, "the value edits did not reach the pixels"

    # Undo of a value edit is a value edit.
    stack = window.graph_editor.model.stack
    stack.undo()
    settled(window, qtbot)
    assert renderer.link_count == links + 1 and presenter.live_posts == posts + 12
    stack.redo()
    settled(window, qtbot)
    assert renderer.link_count == links + 1
    assert np.abs(pixels(window) - live_pixels).max() == 0

    # An edit of the structure drops the live set: the canonical program, and the same picture.
    window.nodes.set_node_property(FRESNEL, POWER, 1.75)
    settled(window, qtbot)
    before_structure = pixels(window)
    stack_count = stack.count
    window.nodes.add_node_from_palette("constant_float")
    settled(window, qtbot)
    assert stack.count == stack_count + 1
    assert not session.live.current and session.live.program is None
    stack.undo()  # the structure is back; the preview draws the canonical program of the same material
    settled(window, qtbot)
    assert renderer.program.artifact is not live_artifact
    assert not any(binding.name.startswith(HIDDEN_UNIFORM_PREFIX) for binding in renderer.program.artifact.uniforms)
    assert int(np.abs(pixels(window) - before_structure).max()) <= 1, "live and canonical programs draw differently"


def test_value_edits_are_lowered_for_the_panels_once_they_stop(make_window, qtbot) -> None:
    """The preview shows each value at once; the canonical lowering waits until the values stop changing."""
    window = make_window()
    settled(window, qtbot)
    window.nodes.set_node_property(FRESNEL, POWER, 3.0)  # the live build
    settled(window, qtbot)
    scheduler, session = window.lowering, window.session
    lowered = lambda: not session.needs_lowering and not scheduler.busy  # noqa: E731 - a condition to wait for

    started, posts = scheduler.started, window.presenter.live_posts
    for step in range(6):  # a drag: nothing is lowered while it goes on
        window.nodes.set_node_property(FRESNEL, POWER, 2.0 + step * 0.1, continuing=True)
        assert scheduler.settling
    assert scheduler.started == started and session.needs_lowering
    assert window.presenter.live_posts == posts + 6
    window.gesture.end()  # the release: lowered at once
    qtbot.waitUntil(lowered, timeout=PREVIEW_TIMEOUT_MS)
    assert scheduler.started == started + 1

    started = scheduler.started
    for value in (1.25, 1.5, 1.75, 2.0):  # discrete edits in a quick run: one lowering, after the last
        window.nodes.set_node_property(FRESNEL, POWER, value)
        assert scheduler.settling
    assert scheduler.started == started
    qtbot.waitUntil(lowered, timeout=PREVIEW_TIMEOUT_MS)
    assert scheduler.started == started + 1
    assert session.result.text == lower(window.material).text == window.code_view.text(VPL_TAB)
    # Any other edit is lowered at once.
    window.nodes.add_node_from_palette("constant_float")
    assert scheduler.busy and not scheduler.settling and session.needs_lowering
    qtbot.waitUntil(lowered, timeout=PREVIEW_TIMEOUT_MS)
    assert scheduler.started == started + 2


def test_hidden_uniforms_never_show_and_exports_are_unchanged(make_window, qtbot, prompts, tmp_path: Path) -> None:
    window = make_window()
    settled(window, qtbot)
    for value in (3.0, 2.25):
        window.nodes.set_node_property(FRESNEL, POWER, value)
        settled(window, qtbot)
    assert window.session.live.current
    assert window.session.preview_program(window.preview.target).artifact is window.preview.renderer.program.artifact
    # The parameters panel lists the material's parameters only; no widget of the window names a hidden uniform.
    panel = window.parameters_panel
    assert panel.specs == window.session.parameters.specs
    assert not any(is_hidden_uniform(spec.name) for spec in panel.specs)
    assert not any(is_hidden_uniform(name) for name in panel.values())
    assert not any(HIDDEN_UNIFORM_PREFIX in label.text() for label in window.findChildren(QLabel))

    # The same material opened in a window that never edited it live: every file byte for byte the same.
    other = make_window(load_example=False)
    other.load_graph(window.material, "untitled")
    settled(other, qtbot)
    assert not other.session.live.current
    for name, target in (("live", window), ("plain", other)):
        folder = tmp_path / name
        folder.mkdir()
        assert target.save_to(folder / "material.vpl")
        assert target.export_to(folder / "glsl", "material")
        assert target.exports.export_mtlx_to(ExportRequest(folder / "material.mtlx", size=256)), prompts.named("show_error")
        assert target.exports.export_gltf_to(ExportRequest(folder / "material.gltf", size=256))
        assert target.exports.bake_to(ExportRequest(folder / "maps", size=256))
    live_files = sorted(path.relative_to(tmp_path / "live") for path in (tmp_path / "live").rglob("*") if path.is_file())
    plain_files = sorted(path.relative_to(tmp_path / "plain") for path in (tmp_path / "plain").rglob("*") if path.is_file())
    assert live_files == plain_files and len(live_files) >= 6
    for relative in live_files:
        data = (tmp_path / "live" / relative).read_bytes()
        assert without_date(data) == without_date((tmp_path / "plain" / relative).read_bytes()), f"{relative} differs"
        assert HIDDEN_UNIFORM_PREFIX.encode() not in data, f"{relative} names a hidden uniform"


def without_date(data: bytes) -> bytes:
    """An OpenEXR file's header carries the time it was written (`capDate`, "YYYY:MM:DD hh:mm:ss"): blanked."""
    return re.sub(rb"capDate\x00string\x00\x13\x00\x00\x00.{19}", b"capDate", data, flags=re.DOTALL)
