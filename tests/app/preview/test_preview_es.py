"""The preview on OpenGL ES 3.2: profile choice, the renderer on an ES context, the widget, screenshots.

Everything that can be compared is compared with the desktop (4.2 core)
path: the same verified module compiled for `glsl420` and for `es320`,
drawn by the same `Renderer` on the session's 4.5 core context and on its
ES 3.2 context (both Mesa llvmpipe), must give the same pixels to within
TOLERANCE (a couple of 1/255 steps: highp float on both, but different
shader compilers may round a last bit differently).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QOpenGLContext

import app.preview.context as context_module
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.parameters import ParameterKind
from app.preview.context import (
    CHOICES,
    ENVIRONMENT_VARIABLE,
    OffscreenContext,
    Profile,
    choose,
    clear_probes,
    preview_surface_format,
    select_profile,
)
from app.preview.cpu_preview import CpuPreview
from app.preview.images import load_image_rgba, qimage_to_rgba
from app.preview.renderer import ProgramBuildError, Renderer
from app.preview.screenshot import preview_screenshot, read_program
from app.preview.widget import PreviewWidget, create_preview_widget
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.publish import VerifiedModule

#: The screenshots compare the ES frame with the desktop one, drawn alike: few refined frames show the same
#: (`few_refined_frames`, tests/conftest.py); no test here checks the refinement.
pytestmark = [pytest.mark.gl, pytest.mark.usefixtures("few_refined_frames")]

ROOT = Path(__file__).resolve().parents[3]
DATA = Path(__file__).resolve().parent / "data"
SPEC_EXAMPLES = sorted((ROOT / "tests" / "data" / "spec").glob("*.vpl"))
EXAMPLES = sorted((ROOT / "app" / "material" / "examples").glob("*.vpl"))
FOREIGN = DATA / "foreign-uniforms.vpl"
COLOR_AT_LOCATION_1 = DATA / "color-at-location-1.vpl"
ES_REJECTS = DATA / "varying-array-of-records.vpl"
SIZE = 160
TOLERANCE = 2  # in 1/255 steps, per channel


@pytest.fixture(autouse=True)
def fresh_probes():
    """Probe results are cached per process; tests that fake failures must not leak them."""
    clear_probes()
    yield
    clear_probes()


@pytest.fixture(autouse=True)
def no_profile_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)


def _rgb(pixel: np.ndarray) -> tuple[int, int, int]:
    return tuple(int(c) for c in pixel[:3])


def _render(gl, verified: VerifiedModule, target: str, parameters=(), size=(SIZE, SIZE), light=None):
    """One frame of `verified` compiled for `target`, drawn by a fresh Renderer on context `gl`."""
    gl.make_current()
    renderer = Renderer()
    renderer.set_background((0.0, 0.0, 1.0))
    try:
        for spec in parameters:
            if spec.kind not in (ParameterKind.TEXTURE, ParameterKind.OTHER) and spec.default is not None:
                renderer.set_parameter(spec.name, spec.default)
        if light is not None:
            renderer.set_light_direction(light)
        renderer.build_program(compile_glsl(verified, target=target))
        return renderer.render_image(*size)
    finally:
        gl.make_current()
        renderer.release()


def _both(gl_context, gles_context, verified, parameters=(), light=None):
    desktop = _render(gl_context, verified, "glsl420", parameters, light=light)
    es = _render(gles_context, verified, "es320", parameters, light=light)
    return desktop, es


def _assert_same_picture(desktop: np.ndarray, es: np.ndarray) -> None:
    difference = np.abs(desktop.astype(np.int16) - es.astype(np.int16))
    worst = np.unravel_index(int(np.argmax(difference)), difference.shape)
    assert int(difference.max()) <= TOLERANCE, f"pixel {worst[:2]}: desktop {desktop[worst[:2]]}, ES {es[worst[:2]]}"


def _material(graph: MaterialGraph):
    result = lower(graph)
    assert result.ok, result.diagnostics
    return result


def _constant_colour_graph(rgba=(1.0, 0.5, 0.0, 1.0)) -> MaterialGraph:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    colour = graph.add_node("constant_color", properties={"value": rgba})
    graph.connect(colour.id, "out", output.id, "base_color")
    return graph


def _lambert_graph() -> MaterialGraph:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    lambert = graph.add_node("lambert")
    normal = graph.add_node("normal")
    light = graph.add_node("light_direction")
    graph.connect(normal.id, "out", lambert.id, "normal")
    graph.connect(light.id, "out", lambert.id, "light_direction")
    graph.connect(lambert.id, "out", output.id, "base_color")
    return graph


# ---- the renderer on an ES context ------------------------------------------------------------


def test_the_renderer_knows_which_api_it_runs_on(current_gl, current_gles) -> None:
    for gl, expected in ((current_gl, False), (current_gles, True)):
        gl.make_current()
        renderer = Renderer()
        renderer.initialize()
        assert renderer.is_es is expected and renderer.target_family == ("es" if expected else "glsl")
        renderer.release()


def test_constant_colour_material_on_es_matches_desktop(gl_context, gles_context) -> None:
    verified = _material(_constant_colour_graph()).verified
    desktop, es = _both(gl_context, gles_context, verified)
    assert _rgb(es[SIZE // 2, SIZE // 2]) == (255, 128, 0)
    assert _rgb(es[0, 0]) == (0, 0, 255)
    assert np.array_equal(desktop, es)


@pytest.mark.parametrize("light", [(-0.45, 0.6, 0.66), (1.0, 0.0, 0.4), (0.0, -1.0, 0.2)])
def test_lambert_material_on_es_matches_desktop(gl_context, gles_context, light) -> None:
    verified = _material(_lambert_graph()).verified
    desktop, es = _both(gl_context, gles_context, verified, light=light)
    _assert_same_picture(desktop, es)
    assert len({_rgb(pixel) for pixel in es[::8, ::8].reshape(-1, 4)}) > 10  # shaded, not flat


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_editor_examples_on_es_match_desktop(gl_context, gles_context, path: Path) -> None:
    """Lit (Blinn-Phong), textured (checker, mipmaps), noise, alpha clip (discard), branches, time."""
    verified, parameters = read_program(str(path))
    desktop, es = _both(gl_context, gles_context, verified, parameters)
    _assert_same_picture(desktop, es)
    covered = (es[:, :, :3] != (0, 0, 255)).any(axis=2)
    assert 0.2 < covered.mean() < 0.5


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda path: path.stem)
def test_spec_examples_preview_on_es(gl_context, gles_context, path: Path) -> None:
    verified = VerifiedModule.from_text(path.read_text(encoding="utf-8"), label=str(path))
    desktop, es = _both(gl_context, gles_context, verified)
    assert np.array_equal(desktop, es)
    if path.stem == "canonical-example":
        assert (es[:, :, :3] == (0, 0, 255)).all()  # every vertex lands on one clip point
    else:
        assert _rgb(es[SIZE // 2, SIZE // 2]) == (0, 255, 0)
        assert _rgb(es[2, 2]) == (0, 0, 255)


def test_foreign_module_on_es(current_gles) -> None:
    """Records, arrays, arrays of records, an unknown sampler and an unfed input, bound on ES."""
    verified = VerifiedModule.from_text(FOREIGN.read_text(encoding="utf-8"), label=str(FOREIGN))
    renderer = Renderer()
    try:
        info = renderer.build_program(compile_glsl(verified, target="es320"))
        assert [(a.location, a.mesh_attribute) for a in info.attributes] == [(0, "position"), (5, None), (2, "texcoord")]
        for block in info.blocks:
            assert block.size == block.driver_size
        image = renderer.render_image(SIZE, SIZE)
        assert _rgb(image[SIZE // 2, SIZE // 2])[:2] == (128, 128)
        links = renderer.link_count
        renderer.set_parameter("light", {"color": (0.25, 0.0, 0.0, 0.0), "transform": np.eye(4)})
        renderer.set_parameter("weights", [0.0, 0.0, 0.125])
        renderer.set_parameter("cells", [None, {"m": np.eye(2) * 2.0}])
        assert _rgb(renderer.render_image(SIZE, SIZE)[SIZE // 2, SIZE // 2])[:2] == (223, 255)
        assert renderer.link_count == links
    finally:
        current_gles.make_current()
        renderer.release()


def test_es300_artifacts_run_too(current_gles) -> None:
    """ESSL 3.00 has no `binding =` on blocks: the renderer's glUniformBlockBinding is what binds the scene."""
    verified = _material(_lambert_graph()).verified
    renderer = Renderer()
    try:
        renderer.build_program(compile_glsl(verified, target="es300"))
        es300 = renderer.render_image(SIZE, SIZE)
        renderer.build_program(compile_glsl(verified, target="es320"))
        es320 = renderer.render_image(SIZE, SIZE)
    finally:
        current_gles.make_current()
        renderer.release()
    _assert_same_picture(es300, es320)


@pytest.mark.parametrize("gl_fixture", ["current_gl", "current_gles"])
def test_the_colour_output_at_location_1_is_what_is_shown(request, gl_fixture: str) -> None:
    gl = request.getfixturevalue(gl_fixture)
    verified = VerifiedModule.from_text(COLOR_AT_LOCATION_1.read_text(encoding="utf-8"), label="loc1.vpl")
    target = "es320" if gl.is_es else "glsl420"
    image = _render(gl, verified, target)
    assert _rgb(image[SIZE // 2, SIZE // 2]) == (0, 255, 0)  # the colour output, not location 0's red
    assert _rgb(image[2, 2]) == (0, 0, 255)


def test_a_desktop_artifact_on_es_is_refused_with_a_clear_log(current_gles) -> None:
    renderer = Renderer()
    try:
        with pytest.raises(ProgramBuildError) as caught:
            renderer.build_program(_material(_constant_colour_graph()).artifact)  # glsl420
        assert "OpenGL ES" in caught.value.log and "glsl420" in caught.value.log
        assert renderer.program is None
    finally:
        current_gles.make_current()
        renderer.release()


def test_es_leaves_no_gl_error_behind(current_gles) -> None:
    """PyOpenGL checks errors after each call; this also checks the state after a whole frame."""
    from OpenGL import GL

    renderer = Renderer()
    try:
        verified, _parameters = read_program(str(EXAMPLES[0]))
        renderer.build_program(compile_glsl(verified, target="es320"))
        renderer.render_image(64, 64)
        assert GL.glGetError() == GL.GL_NO_ERROR
        assert int(GL.glGetIntegerv(GL.GL_UNPACK_ALIGNMENT)) == 4 and int(GL.glGetIntegerv(GL.GL_PACK_ALIGNMENT)) == 4
    finally:
        current_gles.make_current()
        renderer.release()


# ---- the profile choice ---------------------------------------------------------------------


def test_profiles_and_their_targets() -> None:
    assert CHOICES == ("desktop", "es", "auto")
    assert (Profile.DESKTOP.target, Profile.ES.target) == ("glsl420", "es320")
    es_format = preview_surface_format(Profile.ES)
    assert es_format.renderableType() == es_format.RenderableType.OpenGLES
    assert (es_format.majorVersion(), es_format.minorVersion()) == (3, 2)
    desktop_format = preview_surface_format(Profile.DESKTOP)
    assert (desktop_format.majorVersion(), desktop_format.minorVersion()) == (4, 2)
    assert desktop_format.profile() == desktop_format.OpenGLContextProfile.CoreProfile


def test_the_command_line_wins_over_the_environment() -> None:
    assert choose(None, {}) == "auto"
    assert choose(None, {ENVIRONMENT_VARIABLE: "es"}) == "es"
    assert choose(None, {ENVIRONMENT_VARIABLE: " Desktop "}) == "desktop"
    assert choose(None, {ENVIRONMENT_VARIABLE: ""}) == "auto"
    assert choose("desktop", {ENVIRONMENT_VARIABLE: "es"}) == "desktop"
    assert choose("auto", {ENVIRONMENT_VARIABLE: "es"}) == "auto"
    with pytest.raises(ValueError, match=ENVIRONMENT_VARIABLE):
        choose(None, {ENVIRONMENT_VARIABLE: "vulkan"})
    with pytest.raises(ValueError, match="--gl"):
        choose("gles2", {})


def test_auto_picks_desktop_here(qapp) -> None:
    selection = select_profile("auto")
    assert (selection.profile, selection.problem) == (Profile.DESKTOP, "")
    assert select_profile("es").profile is Profile.ES and select_profile("es").problem == ""


def _fail_for(monkeypatch: pytest.MonkeyPatch, *failing: Profile) -> list[Profile]:
    """Make context creation fail for `failing` profiles (as on a machine without them); records the attempts."""
    real = context_module.create_context
    attempts: list[Profile] = []

    def create(profile: Profile):
        attempts.append(profile)
        return None if profile in failing else real(profile)

    monkeypatch.setattr(context_module, "create_context", create)
    clear_probes()
    return attempts


def test_auto_picks_es_when_desktop_cannot_be_created(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    attempts = _fail_for(monkeypatch, Profile.DESKTOP)
    selection = select_profile("auto")
    assert (selection.profile, selection.problem) == (Profile.ES, "")
    assert attempts == [Profile.DESKTOP, Profile.ES]
    # Asked for explicitly, desktop is not replaced: the preview says why it is off.
    desktop = select_profile("desktop")
    assert desktop.profile is Profile.DESKTOP and "OpenGL 4.2 core" in desktop.problem


def test_auto_without_any_context(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_for(monkeypatch, Profile.DESKTOP, Profile.ES)
    selection = select_profile("auto")
    assert selection.profile is Profile.DESKTOP
    assert "OpenGL 4.2 core" in selection.problem and "OpenGL ES 3.2" in selection.problem


def test_the_environment_variable_selects_the_profile(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "es")
    assert select_profile().profile is Profile.ES
    assert select_profile("desktop").profile is Profile.DESKTOP


def test_offscreen_es_context(qapp) -> None:
    offscreen = OffscreenContext(Profile.ES)
    try:
        assert offscreen.context.isOpenGLES()
        assert QOpenGLContext.currentContext() is not None and QOpenGLContext.currentContext().isOpenGLES()
    finally:
        offscreen.done()


# ---- the widget ---------------------------------------------------------------------------


def _shown(qtbot, widget):
    widget.resize(200, 160)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _widget_pixels(qtbot, widget, verified: VerifiedModule):
    with qtbot.waitSignal(widget.programReady, timeout=10000):
        widget.set_artifact(compile_glsl(verified, target=widget.target))
    widget.set_background((0.0, 0.0, 1.0))
    return qimage_to_rgba(widget.grab_preview()), qimage_to_rgba(widget.grabFramebuffer())


def test_es_widget_shows_its_profile_and_renders_like_desktop(qtbot) -> None:
    es_widget = create_preview_widget(choice="es")
    assert isinstance(es_widget, PreviewWidget)
    assert es_widget.profile is Profile.ES and es_widget.target == "es320"
    assert es_widget.context_description == "OpenGL ES 3.2"  # asked for; no context yet
    with qtbot.waitSignal(es_widget.contextCreated, timeout=10000) as created:
        _shown(qtbot, es_widget)
    assert created.args[0].startswith("OpenGL ES 3.2 (") and es_widget.context_description == created.args[0]
    assert es_widget.context().isOpenGLES()
    desktop_widget = _shown(qtbot, create_preview_widget(choice="desktop"))
    assert desktop_widget.target == "glsl420" and desktop_widget.context_description.startswith("OpenGL 4.")
    assert " core (" in desktop_widget.context_description

    verified = _material(_lambert_graph()).verified
    es_grab, es_screen = _widget_pixels(qtbot, es_widget, verified)
    desktop_grab, desktop_screen = _widget_pixels(qtbot, desktop_widget, verified)
    _assert_same_picture(desktop_grab, es_grab)
    _assert_same_picture(desktop_screen, es_screen)  # what paintGL draws into Qt's framebuffer
    assert es_widget.error_text == ""


def test_es_widget_reports_driver_errors_and_keeps_the_last_image(qtbot) -> None:
    widget = _shown(qtbot, PreviewWidget(profile=Profile.ES))
    before, _ = _widget_pixels(qtbot, widget, _material(_constant_colour_graph()).verified)
    with qtbot.waitSignal(widget.programFailed, timeout=10000) as failed:
        widget.set_artifact(_material(_constant_colour_graph((0.0, 1.0, 0.0, 1.0))).artifact)  # glsl420
    assert "glsl420" in failed.args[0]
    assert np.array_equal(qimage_to_rgba(widget.grab_preview()), before)
    with qtbot.waitSignal(widget.programFailed, timeout=2000):
        widget.show_problem("es320 target error: something")
    assert widget.error_text == "es320 target error: something"


def test_es_widget_draws_a_colour_output_at_location_1(qtbot) -> None:
    widget = _shown(qtbot, PreviewWidget(profile=Profile.ES))
    verified = VerifiedModule.from_text(COLOR_AT_LOCATION_1.read_text(encoding="utf-8"), label="loc1.vpl")
    grabbed, on_screen = _widget_pixels(qtbot, widget, verified)
    assert _rgb(grabbed[80, 100]) == (0, 255, 0) and _rgb(on_screen[80, 100]) == (0, 255, 0)


def test_auto_widget_falls_back_to_es(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_for(monkeypatch, Profile.DESKTOP)
    widget = create_preview_widget(choice="auto")
    assert isinstance(widget, PreviewWidget) and widget.profile is Profile.ES
    _shown(qtbot, widget)
    grabbed, _ = _widget_pixels(qtbot, widget, _material(_constant_colour_graph()).verified)
    assert _rgb(grabbed[80, 100]) == (255, 128, 0)


def test_es_that_cannot_be_created_gives_the_cpu_preview(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_for(monkeypatch, Profile.ES)
    widget = create_preview_widget(choice="es")
    qtbot.addWidget(widget)
    assert isinstance(widget, CpuPreview)
    assert widget.profile is Profile.ES and widget.target == "es320"
    assert "OpenGL ES 3.2" in widget.no_context_reason
    widget.show_problem("shown over the CPU preview")
    assert widget.error_text == "shown over the CPU preview"


# ---- screenshots ------------------------------------------------------------------------


@pytest.mark.parametrize("path", [path for path in EXAMPLES if path.stem in ("lit_blinn_phong", "textured")]
                         + SPEC_EXAMPLES[1:2], ids=lambda path: path.stem)
def test_es_screenshot_matches_desktop(qapp, tmp_path: Path, path: Path, capsys) -> None:
    desktop_png, es_png = tmp_path / "desktop.png", tmp_path / "es.png"
    assert preview_screenshot(str(path), str(desktop_png), (128, 96), gl="desktop") == 0, capsys.readouterr().err
    assert preview_screenshot(str(path), str(es_png), (128, 96), gl="es") == 0, capsys.readouterr().err
    desktop, es = load_image_rgba(str(desktop_png)), load_image_rgba(str(es_png))
    assert es.shape == (96, 128, 4)
    _assert_same_picture(desktop, es)


def test_es_screenshot_compiles_for_es320(qapp, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ES path really runs ES code: a module ES cannot express fails with the target error."""
    png = tmp_path / "shot.png"
    assert preview_screenshot(str(ES_REJECTS), str(png), (32, 32), gl="desktop") == 0
    assert preview_screenshot(str(ES_REJECTS), str(png.with_suffix(".es.png")), (32, 32), gl="es") == 1
    error = capsys.readouterr().err
    assert "target error" in error and "es320" in error and "array of records" in error
    # The environment variable does the same, and --gl (the argument) wins over it.
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "es")
    assert preview_screenshot(str(ES_REJECTS), str(png), (32, 32)) == 1
    assert preview_screenshot(str(ES_REJECTS), str(png), (32, 32), gl="desktop") == 0


def test_vpl_editor_preview_screenshot_with_gl_es(qapp, tmp_path: Path, capsys) -> None:
    from app.main import main

    desktop_png, es_png = tmp_path / "desktop.png", tmp_path / "es.png"
    assert main(["--preview-screenshot", str(desktop_png), "--size", "96x96", "--gl", "desktop"]) == 0
    assert main(["--preview-screenshot", str(es_png), "--size", "96x96", "--gl", "es"]) == 0
    _assert_same_picture(load_image_rgba(str(desktop_png)), load_image_rgba(str(es_png)))
    assert main([str(ES_REJECTS), "--preview-screenshot", str(tmp_path / "x.png"), "--gl", "es"]) == 1
    assert "es320" in capsys.readouterr().err


def test_vpl_editor_rejects_a_bad_environment_value(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    from app.main import main

    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "vulkan")
    assert main(["--preview-screenshot", str(tmp_path / "x.png")]) == 2
    assert ENVIRONMENT_VARIABLE in capsys.readouterr().err
    # The command line wins, so an explicit --gl still works.
    assert main(["--preview-screenshot", str(tmp_path / "x.png"), "--size", "16x16", "--gl", "desktop"]) == 0


def test_es_preview_screenshot_in_a_fresh_process(qapp, tmp_path: Path) -> None:
    """ES first in a new process: PyOpenGL resolves every entry point on the ES context.

    (In this test process the desktop tests may have resolved them already; an entry
    point PyOpenGL only loads on desktop GL, such as its ARB_ES2_compatibility
    glClearDepthf, would pass here and fail in the editor.)
    """
    import os
    import subprocess
    import sys

    es_png, desktop_png = tmp_path / "es.png", tmp_path / "desktop.png"
    environment = dict(os.environ, QT_QPA_PLATFORM="xcb")
    environment.pop(ENVIRONMENT_VARIABLE, None)
    lit = EXAMPLES[[p.stem for p in EXAMPLES].index("lit_blinn_phong")]
    completed = subprocess.run(
        [sys.executable, "-m", "app", str(lit), "--preview-screenshot", str(es_png), "--size", "96x96", "--gl", "es"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert preview_screenshot(str(lit), str(desktop_png), (96, 96), gl="desktop") == 0
    _assert_same_picture(load_image_rgba(str(desktop_png)), load_image_rgba(str(es_png)))


@pytest.mark.parametrize("gl_fixture", ["current_gl", "current_gles"])
def test_errors_left_by_others_are_not_blamed_on_the_renderer(request, gl_fixture: str) -> None:
    """PyOpenGL raises for any pending error; Qt's QPainter leaves one on ES contexts (see below)."""
    from OpenGL import platform
    from OpenGL.raw.GL.VERSION.GL_1_0 import glGetError

    glEnable = platform.PLATFORM.GL.glEnable  # the bare C entry point: no error check  # noqa: N806
    gl = request.getfixturevalue(gl_fixture)
    verified = _material(_constant_colour_graph()).verified
    renderer = Renderer()
    try:
        glEnable(0x7FFF)  # GL_INVALID_ENUM, left pending as foreign code would
        renderer.build_program(compile_glsl(verified, target="es320" if gl.is_es else "glsl420"))
        glEnable(0x7FFF)
        image = renderer.render_image(32, 32)
        assert _rgb(image[16, 16]) == (255, 128, 0)
        assert glGetError() == 0
    finally:
        gl.make_current()
        renderer.release()


def test_es_widget_overlay_does_not_break_the_next_frames(qtbot) -> None:
    """The overlay is painted with QPainter, which leaves GL_INVALID_OPERATION on an ES context."""
    widget = _shown(qtbot, PreviewWidget(profile=Profile.ES))
    with qtbot.waitSignal(widget.programFailed, timeout=5000):
        widget.show_problem("es320 target error: shown over the preview")
    for _ in range(3):
        widget.grabFramebuffer()  # paintGL: frame + overlay
        assert widget.error_text == "es320 target error: shown over the preview"
    grabbed, on_screen = _widget_pixels(qtbot, widget, _material(_constant_colour_graph()).verified)
    assert widget.error_text == ""
    assert _rgb(grabbed[80, 100]) == (255, 128, 0) and _rgb(on_screen[80, 100]) == (255, 128, 0)


# ---- the renderer's GL calls, statically --------------------------------------------------------

#: The preview's GL code: the renderer, the GL objects it shares with the stage passes, and those passes.
RENDERER_SOURCE = "\n".join((ROOT / "app" / "preview" / name).read_text(encoding="utf-8")
                            for name in ("renderer.py", "gl_objects.py", "shadows.py"))
#: Desktop-only entry points and enums (not in OpenGL ES 3.2), and the ES-safe replacement.
DESKTOP_ONLY = {
    "glPolygonMode": "none needed", "glDrawBuffer(": "glDrawBuffers", "glGetTexImage": "read a framebuffer",
    "GL_TEXTURE_BORDER_COLOR": "-", "GL_CLAMP_TO_BORDER": "GL_CLAMP_TO_EDGE / GL_REPEAT",
    "glClearDepth(": "glClearDepthf", "glTexImage1D": "-", "glMapBuffer(": "glMapBufferRange",
    "GL_BGRA": "GL_RGBA", "glPointSize": "-", "GL_QUADS": "triangles",
}


def test_the_renderer_uses_no_desktop_only_gl() -> None:
    used = [name for name in DESKTOP_ONLY if name in RENDERER_SOURCE]
    assert not used, {name: DESKTOP_ONLY[name] for name in used}
    # The one desktop-only call, guarded.
    assert RENDERER_SOURCE.count("glBindFragDataLocation(") == 1
    assert "if not is_es:\n" in RENDERER_SOURCE.split("glBindFragDataLocation(")[0][-400:]


def test_every_gl_entry_point_the_renderer_uses_is_a_core_one() -> None:
    """PyOpenGL loads an entry point tagged with an ARB extension only when the context lists that
    extension, which an ES context never does (GL.glClearDepthf is ARB_ES2_compatibility's)."""
    import re

    from OpenGL import GL

    tagged = {}
    for name in sorted(set(re.findall(r"\bGL\.(gl[A-Za-z0-9]+)", RENDERER_SOURCE))):
        function = getattr(GL, name)
        extension = getattr(function, "extension", None) or getattr(getattr(function, "wrappedOperation", None),
                                                                     "extension", None)
        if extension is not None and not str(extension).startswith("GL_VERSION_"):
            tagged[name] = extension
    assert tagged == {}
