"""Fill and rim lights, the key light's size (soft shadows), dragging the light and the environment, and the
stage keeping all of it. Real GL; the lights' radiance against a numpy Lambert reference."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from pbr_testing import CONTEXTS, build, renderer_on, surface_value

from app.main import main
from app.material.document import save_file
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.preview.camera import DEFAULT_DISTANCE
from app.preview.images import load_image_rgba
from app.preview.stage import EXTRA_LIGHTS, ExtraLight, Stage, light_vector


def _lambert_graph() -> MaterialGraph:
    """White and rough with no specular: the Surface Output reflects exactly albedo / pi of a light (glTF's
    diffuse with F0 = F90 = 0)."""
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (1.0, 1.0, 1.0, 1.0), "roughness": 1.0, "specular": 0.0,
                                                 "metallic": 0.0, "emissive_strength": 0.0})
    return graph


@pytest.mark.parametrize("gl_fixture", CONTEXTS)
def test_fill_and_rim_add_their_lambert_light(request, gl_fixture: str) -> None:
    renderer, target = renderer_on(request, gl_fixture)
    size = 48
    normals = surface_value(renderer, target, "normal", size)
    covered = np.abs(np.linalg.norm(normals, axis=-1) - 1.0) < 1e-3
    build(renderer, _lambert_graph(), target)
    renderer.set_light(intensity=0.0)  # the key light off: the environment's uniform grey alone
    base = renderer.render_linear(size, size)[..., :3].astype(np.float64)
    lights = [ExtraLight(light_vector(60.0, 10.0), (0.5, 0.7, 1.0), 2.0), ExtraLight(light_vector(160.0, 35.0), (1.0, 0.9, 0.8), 4.0)]
    for chosen in ([lights[0]], [lights[1]], lights):
        renderer.set_stage_lights(chosen)
        frame = renderer.render_linear(size, size)[..., :3].astype(np.float64)
        expected = np.zeros_like(base)
        for light in chosen:
            facing = np.clip(normals @ np.asarray(light.direction), 0.0, None)
            expected += facing[..., None] * np.asarray(light.color) * light.intensity / math.pi
        added = frame - base
        assert np.abs(added - expected)[covered].max() < 2e-3 * max(expected.max(), 1.0)
        assert (expected[covered] > 0.05).any()
        assert np.abs(added[~covered]).max() < 1e-6  # the background is untouched
    renderer.set_stage_lights([])
    assert np.abs(renderer.render_linear(size, size)[..., :3] - base).max() < 1e-6


def test_white_furnace_with_the_new_stage_defaults_is_one(current_gl, request) -> None:
    """A uniform environment of 1, white metal, the key light off, shadows and occlusion off: 1.0 everywhere on
    the sphere through the stage (fill and rim off, a light size set)."""
    renderer, target = renderer_on(request, "current_gl")
    graph = MaterialGraph()
    graph.add_node("surface_output", properties={"base_color": (1.0, 1.0, 1.0, 1.0), "metallic": 1.0, "roughness": 0.5,
                                                 "emissive_strength": 0.0})
    build(renderer, graph, target)
    stage = Stage(environment="none", light_enabled=False, light_size=12.0)
    stage.apply(renderer)
    renderer.set_ambient((1.0, 1.0, 1.0))
    normals = surface_value(renderer, target, "normal", 32)
    build(renderer, graph, target)
    covered = np.abs(np.linalg.norm(normals, axis=-1) - 1.0) < 1e-3
    frame = renderer.render_linear(32, 32)[..., :3]
    assert renderer.extra_lights == () and renderer.light_size == 12.0
    assert np.allclose(frame[covered], 1.0, atol=5e-3)


def _shot(tmp_path: Path, source: Path, name: str, *options: str, size: int = 96) -> np.ndarray:
    png = tmp_path / f"{name}.png"
    assert main([str(source), "--preview-screenshot", str(png), "--size", f"{size}x{size}", "--environment", "none",
                 *options]) == 0
    return load_image_rgba(str(png)).astype(int)


@pytest.mark.gl
def test_each_light_option_changes_the_frame_as_documented(qapp, current_gl, request, tmp_path: Path,
                                                           few_refined_frames: int) -> None:
    """--fill on brightens what faces the fill light (low, right) and nothing else; --rim on brightens the edge
    the rim light (behind, above) reaches; --light-size widens the ground shadow's penumbra. The screenshots
    compare frames drawn alike, with few refined frames: the shadow passes run alike in each, and the penumbrae
    measure the same at 4 frames as at 64 (docs/testing.md, "What was cut")."""
    source = tmp_path / "white.vpl"
    graph = _lambert_graph()
    save_file(source, graph, lower(graph))
    camera = ("--camera", f"0,0,{DEFAULT_DISTANCE!r}", "--light", "off")  # the key light off: nothing saturates
    renderer, target = renderer_on(request, "current_gl")
    normals = surface_value(renderer, target, "normal", 96)
    covered = np.abs(np.linalg.norm(normals, axis=-1) - 1.0) < 1e-3
    plain = _shot(tmp_path, source, "plain", *camera)
    for which in ("fill", "rim"):
        lit = _shot(tmp_path, source, which, *camera, f"--{which}", "on")
        assert (_shot(tmp_path, source, f"{which}_off", *camera, f"--{which}", "off") == plain).all()
        azimuth, elevation = EXTRA_LIGHTS[which][:2]
        facing = normals @ np.asarray(light_vector(azimuth, elevation))
        brighter = (lit[..., :3] - plain[..., :3]).sum(axis=-1)
        assert (brighter[covered & (facing > 0.3)] > 3).all()
        assert (np.abs(brighter[covered & (facing < -0.05)]) <= 3).all()
        assert (lit[~covered] == plain[~covered]).all()
    # The rim light, behind the sphere, reaches only a thin crescent of what the camera sees.
    rim_facing = normals @ np.asarray(light_vector(*EXTRA_LIGHTS["rim"][:2]))
    assert (covered & (rim_facing > 0.0)).sum() < 0.35 * covered.sum()

    ball = ("--mesh", "ball", "--shadows", "on", "--ground", "on")
    sharp = _shot(tmp_path, source, "sharp", *ball, "--light-size", "0", size=128)
    soft = _shot(tmp_path, source, "soft", *ball, "--light-size", "15", size=128)
    open_ground = sharp[0, 0, :3].sum()  # no mesh in the corner: the background (the catcher leaves it)
    def penumbra(image: np.ndarray) -> int:
        darkening = open_ground - image[..., :3].sum(axis=-1)
        return int(((darkening > 6) & (darkening < 0.7 * darkening.max())).sum())
    assert penumbra(soft) > 1.5 * penumbra(sharp)


@pytest.mark.parametrize(("options", "message"), [
    (["--fill", "dim"], "the fill light must be on or off"),
    (["--rim", "2"], "the rim light must be on or off"),
    (["--light-size", "45"], "the light size"),
    (["--light-size", "-1"], "the light size"),
    (["--background", "fuzzy"], "unknown background"),
])
def test_a_wrong_light_option_is_one_line_and_exit_2(qapp, tmp_path: Path, capsys, options: list[str], message: str) -> None:
    source = Path(__file__).resolve().parents[3] / "resources" / "examples" / "polished_gold.vpl"
    assert main([str(source), "--preview-screenshot", str(tmp_path / "x.png"), *options]) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and "\n" not in error
    assert not (tmp_path / "x.png").exists()


def test_the_stage_keeps_the_lights_and_refuses_bad_values() -> None:
    stage = Stage()
    stage.set_extra_light("fill", enabled="on", azimuth=75, elevation=-5, color=(0.2, 0.4, 0.9), intensity=2.5)
    stage.set_extra_light("rim", enabled=True, intensity=7)
    stage.set_light_size(8.5)
    stage.drag_light(20, -10)  # right and up: azimuth + 10, elevation + 5
    stage.drag_environment(-30)
    back = Stage.from_dict(stage.to_dict())
    assert back == stage
    assert (back.fill_enabled, back.fill_azimuth, back.fill_elevation, back.fill_color, back.fill_intensity) == (
        True, 75.0, -5.0, (0.2, 0.4, 0.9), 2.5)
    assert back.rim_enabled and back.rim_intensity == 7.0 and back.light_size == 8.5
    assert back.environment_rotation == -15.0
    assert back.light_azimuth == pytest.approx(Stage().light_azimuth + 10.0)
    assert back.light_elevation == pytest.approx(Stage().light_elevation + 5.0)
    for call, message in (
        (lambda: stage.set_extra_light("top"), "unknown light 'top'"),
        (lambda: stage.set_extra_light("fill", intensity=-1), "the fill light's intensity"),
        (lambda: stage.set_extra_light("rim", elevation=120), "the rim light's elevation"),
        (lambda: stage.set_extra_light("rim", color=(1, 2)), "the rim light's colour"),
        (lambda: stage.set_light_size(float("nan")), "the light size"),
    ):
        with pytest.raises(ValueError, match=message):
            call()
    notes: list[str] = []
    damaged = Stage.from_dict({"fill_intensity": "bright", "rim_enabled": "maybe", "light_size": 99}, notes)
    assert damaged.fill_intensity == EXTRA_LIGHTS["fill"][3] and not damaged.rim_enabled and damaged.light_size == 0.0
    assert len(notes) == 3 and all(note.startswith("the stage's ") for note in notes)
    # Dragging keeps the elevation within +-89 degrees.
    high = Stage()
    high.drag_light(0, -10_000)
    assert high.light_elevation == 89.0


@pytest.mark.gl
def test_dragging_on_the_preview_moves_the_key_light_and_turns_the_environment(qapp) -> None:
    """Ctrl-drag moves the key light, Shift-drag turns the environment, a plain drag still orbits; each edit is
    applied and announced (stageEdited) for the toolbar to keep."""
    from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from app.preview.widget import PreviewWidget

    widget = PreviewWidget()
    widget.resize(200, 200)
    widget.show()
    QTest.qWaitForWindowExposed(widget)
    edited: list[Stage] = []
    widget.stageEdited.connect(edited.append)
    try:
        before = widget.stage
        yaw = widget.camera.yaw

        def send(kind: QEvent.Type, point: QPoint, buttons: Qt.MouseButton, modifier: Qt.KeyboardModifier) -> None:
            position = QPointF(point)
            event = QMouseEvent(kind, position, widget.mapToGlobal(position), Qt.MouseButton.LeftButton, buttons, modifier)
            QApplication.sendEvent(widget, event)

        def drag(modifier: Qt.KeyboardModifier, dx: int, dy: int) -> None:
            left = Qt.MouseButton.LeftButton
            send(QEvent.Type.MouseButtonPress, QPoint(100, 100), left, modifier)
            send(QEvent.Type.MouseMove, QPoint(100 + dx, 100 + dy), left, modifier)
            send(QEvent.Type.MouseButtonRelease, QPoint(100 + dx, 100 + dy), Qt.MouseButton.NoButton, modifier)

        drag(Qt.KeyboardModifier.ControlModifier, 40, 0)
        assert edited and edited[-1].light_azimuth == pytest.approx(before.light_azimuth + 20.0)
        assert widget.stage.light_azimuth == pytest.approx(before.light_azimuth + 20.0)
        assert widget.camera.yaw == yaw
        drag(Qt.KeyboardModifier.ShiftModifier, -20, 0)
        assert widget.stage.environment_rotation == pytest.approx(before.environment_rotation - 10.0)
        count = len(edited)
        drag(Qt.KeyboardModifier.NoModifier, 30, 0)
        assert len(edited) == count and widget.camera.yaw != yaw
    finally:
        widget.close()
        widget.deleteLater()


@pytest.mark.gl
def test_the_cpu_fallback_draws_the_fill_light_too(qapp: object, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import app.preview.context as context_module
    from app.preview.context import ENVIRONMENT_VARIABLE, clear_probes

    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setattr(context_module, "create_context", lambda profile: None)
    clear_probes()
    try:
        source = Path(__file__).resolve().parents[3] / "resources" / "examples" / "polished_gold.vpl"
        frames = []
        for fill in ("off", "on"):
            png = tmp_path / f"cpu-{fill}.png"
            assert main([str(source), "--preview-screenshot", str(png), "--size", "16x16", "--fill", fill]) == 0
            frames.append(load_image_rgba(str(png)).astype(int))
        error = capsys.readouterr().err
        assert "rendering with the CPU interpreter" in error and "key light only" not in error
        assert (frames[1][..., :3] >= frames[0][..., :3] - 1).all() and (frames[1] > frames[0] + 2).any()
    finally:
        clear_probes()
