"""Texture passes on real OpenGL: a Texture Buffer, Blur and Height to Normal drawn by the GL runner.

Checked against the CPU interpreter's run of the same plan and against numpy
references of the published formulas (docs/texture-space.md): the buffer
holds uv at texel centres; the blur is a direct circular convolution with the
normalised Gaussian weights; height to normal is the 3x3 Sobel with
wrap-around. The buffer tiles, so the u = 1 -> 0 jump sits at the tile border,
where blur and Sobel must read the opposite edge. Tolerances: the buffer's
16-bit (half-float) rounding; the blur's half-float intermediate; the normal's
slope amplification of both.

Then what runs again: counters of pass draws and program links after edits
upstream of the buffer, of a filter value, and downstream of every buffer;
refusals that name the node; the formats used on desktop GL and OpenGL ES.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from OpenGL import GL

import app.material.catalog  # noqa: F401 - registers every node type (texture-space nodes included)
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.node_previews import SQUARE, lower_thumbnails, structure_key
from app.material.nodes.texture_space import blur_taps
from app.material.scene import RADIANCE_OUTPUT_NAME
from app.preview.cpu_passes import run_plan_cpu
from app.preview.images import qimage_to_rgba
from app.preview.renderer import ProgramBuildError, Renderer
from app.preview.texture_passes_gl import GlTexturePasses, PassError, schedule_for, texture_format
from app.preview.texture_view import TextureViewJob, _ViewState, node_texture
from app.preview.thumbnails import FlatCamera, ThumbnailRenderer, square_mesh
from app.preview.widget import PreviewWidget
from app.session.pass_programs import PassProgramCache, with_pass_parameters
from app.session.session import EditorSession
from vpl_core.backends.glsl import compile as compile_glsl

SIZE = 256
RADIUS = 8.0 / SIZE  # 8 texels: 8 taps a side, one texel apart (blur_taps)
INTENSITY = 0.02


def stone_graph(radius: float = RADIUS, intensity: float = INTENSITY, buffer_format: str = "16-bit") -> MaterialGraph:
    """uv + lift -> Texture Buffer -> Blur -> Height to Normal -> sampled * tint -> Unlit Output."""
    graph = MaterialGraph()
    graph.add_node("texcoord", node_id="uv")
    graph.add_node("float_parameter", node_id="lift", properties={"name": "lift", "default": 0.0, "minimum": -1.0, "maximum": 1.0})
    graph.add_node("add", node_id="shift")
    graph.add_node("texture_buffer", node_id="height", properties={"resolution": str(SIZE), "format": buffer_format, "tiling": "tile"})
    graph.add_node("blur", node_id="blur", properties={"radius": radius})
    graph.add_node("height_to_normal", node_id="normal", properties={"intensity": intensity})
    graph.add_node("sample_texture", node_id="read")
    graph.add_node("float_parameter", node_id="tint", properties={"name": "tint", "default": 1.0, "minimum": 0.0, "maximum": 2.0})
    graph.add_node("multiply", node_id="shade")
    graph.add_node("material_output", node_id="out")
    graph.connect("uv", "out", "shift", "a")
    graph.connect("lift", "out", "shift", "b")
    graph.connect("shift", "out", "height", "input")
    graph.connect("height", "out", "blur", "image")
    graph.connect("blur", "out", "normal", "height")
    graph.connect("normal", "out", "read", "texture")
    graph.connect("read", "rgba", "shade", "a")
    graph.connect("tint", "out", "shade", "b")
    graph.connect("shade", "out", "out", "base_color")
    return graph


def texel_uv(size: int) -> tuple[np.ndarray, np.ndarray]:
    """u, v at texel centres, (size, size), GL row order (row 0 is v near 0)."""
    centres = (np.arange(size) + 0.5) / size
    u, v = np.meshgrid(centres, centres)
    return u, v


def reference_buffer(lift: float = 0.0) -> np.ndarray:
    u, v = texel_uv(SIZE)
    image = np.stack([u + lift, v + lift, np.zeros_like(u), np.ones_like(u)], axis=-1)
    return image.astype(np.float16).astype(np.float64)  # 16-bit: half floats


def reference_blur(image: np.ndarray, radius: float) -> np.ndarray:
    """The direct circular convolution with the normalised, truncated Gaussian (separable weights)."""
    reach = radius * SIZE
    taps = blur_taps(radius, SIZE)
    assert max(reach / taps, 1.0) == 1.0, "the reference takes whole-texel taps"
    sigma = max(reach / 3.0, 1e-3)
    offsets = np.arange(-taps, taps + 1)
    weights = np.exp(-0.5 * (offsets / sigma) ** 2)
    weights /= weights.sum()
    result = np.zeros_like(image)
    for dy, wy in zip(offsets, weights, strict=True):
        for dx, wx in zip(offsets, weights, strict=True):
            result += wx * wy * np.roll(image, (-dy, -dx), axis=(0, 1))  # reads texel (row + dy, column + dx)
    return result


def reference_normal(height: np.ndarray, intensity: float) -> np.ndarray:
    """Sobel with wrap-around on the red channel, encoded n/2 + 1/2 (OpenGL convention)."""
    h = height[..., 0]

    def at(dx: int, dy: int) -> np.ndarray:
        return np.roll(h, (-dy, -dx), axis=(0, 1))

    sobel_u = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))
    sobel_v = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))
    scale = intensity * SIZE / 8.0
    normal = np.stack([-sobel_u * scale, -sobel_v * scale, np.ones_like(h)], axis=-1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    return np.concatenate([normal * 0.5 + 0.5, np.ones_like(h)[..., None]], axis=-1)


def make_renderer(graph: MaterialGraph, values: dict[str, object] | None = None) -> tuple[Renderer, PassProgramCache]:
    lowered = lower(graph)
    assert lowered.ok, [d.message for d in lowered.diagnostics]
    passes = PassProgramCache.for_graph(graph)
    renderer = Renderer()
    renderer.set_mesh(square_mesh())
    renderer.camera = FlatCamera()  # type: ignore[assignment]
    renderer.set_values(values or {"lift": 0.0, "tint": 1.0})
    renderer.build_program(lowered.artifact, schedule_for(passes.get("glsl420")))
    return renderer, passes


def gl_rows(image: np.ndarray) -> np.ndarray:
    """A read-back image (top row first) in GL row order."""
    return image[::-1].astype(np.float64)


def test_blur_and_height_to_normal_agree_with_the_cpu_and_numpy(current_gl) -> None:
    graph = stone_graph()
    renderer, passes = make_renderer(graph)
    try:
        renderer.render_linear(32, 32)
        plan = passes.plan
        assert plan is not None
        keys = [each.key for each in plan.passes]
        assert keys[0] == "height" and keys[-1] == "normal" and len(keys) == 4  # blur: horizontal, vertical
        gl = {key: gl_rows(renderer.passes.read_pass(key)) for key in keys}
        cpu = {key: gl_rows(image) for key, image in run_plan_cpu(plan, {"lift": 0.0}).items()}

        buffer = reference_buffer()
        assert np.abs(gl["height"] - buffer).max() <= 1e-6
        assert np.abs(cpu["height"] - buffer).max() <= 1e-6

        blurred = reference_blur(buffer, RADIUS)
        # Half-float intermediate and output: a relative step of 2^-11 each, on values up to 1.
        assert np.abs(gl["blur"] - blurred).max() <= 2e-3
        assert np.abs(cpu["blur"] - blurred).max() <= 2e-3
        assert np.abs(gl["blur"] - cpu["blur"]).max() <= 1e-3
        # The tile border: blurred u at the first and last columns mixes both edges (a clamped blur would not).
        assert blurred[:, 0, 0].max() > 0.3 and blurred[:, -1, 0].min() < 0.7
        assert np.abs(gl["blur"][:, [0, 1, -2, -1]] - blurred[:, [0, 1, -2, -1]]).max() <= 2e-3

        normal = reference_normal(gl["blur"], INTENSITY)  # the formula, applied to the GL blur it reads
        assert np.abs(gl["normal"] - normal).max() <= 2e-3
        from_reference = reference_normal(blurred, INTENSITY)
        assert np.abs(gl["normal"] - from_reference).max() <= 1e-2
        assert np.abs(gl["normal"] - cpu["normal"]).max() <= 1e-2
        # The border is where the height jumps: the normal tilts there, and both columns see it alike.
        assert abs(gl["normal"][:, 0, 0].mean() - 0.5) > 0.05
        assert np.abs(gl["normal"][:, 0] - from_reference[:, 0]).max() <= 1e-2

        # The material samples the final buffer (no read-back): each pixel of the UV square reads it bilinearly
        # at its centre; 32 px over 256 texels: texel 8i + 3.5, halfway between texels 8i + 3 and 8i + 4.
        shown = gl_rows(renderer.render_linear(32, 32))
        expected = 0.25 * sum(gl["normal"][3 + dy::8, 3 + dx::8] for dy in (0, 1) for dx in (0, 1))
        assert np.abs(shown - expected).max() <= 2e-3
    finally:
        renderer.release()


def test_only_what_an_edit_reaches_runs_again_and_nothing_relinks(current_gl) -> None:
    renderer, _ = make_renderer(stone_graph())
    runner = renderer.passes
    try:
        renderer.render_linear(8, 8)
        assert runner.pass_renders == 4 and runner.link_count == 4
        links = (renderer.link_count, runner.link_count)

        renderer.render_linear(8, 8)
        assert runner.pass_renders == 4, "a frame with nothing changed draws no pass"

        renderer.set_parameter("tint", 0.5)  # downstream of every buffer
        renderer.render_linear(8, 8)
        assert runner.pass_renders == 4

        renderer.set_parameter("lift", 0.25)  # upstream of the buffer: it and everything reading it
        renderer.render_linear(8, 8)
        assert runner.pass_renders == 8
        assert runner.renders == {"height": 2, "blur/horizontal": 2, "blur": 2, "normal": 2}
        assert np.abs(gl_rows(runner.read_pass("height")) - reference_buffer(0.25)).max() <= 1e-6

        # A filter value edit lowers again: the same code, another radius uniform. The blur's two passes and the
        # normal draw again; the buffer upstream does not, and no program links.
        edited = stone_graph(radius=RADIUS * 0.75)
        lowered = lower(edited)
        again = PassProgramCache.for_graph(edited).get("glsl420")
        assert again is not None
        renderer.build_program(lowered.artifact, schedule_for(again))
        renderer.render_linear(8, 8)
        assert runner.renders == {"height": 2, "blur/horizontal": 3, "blur": 3, "normal": 3}
        assert (renderer.link_count, runner.link_count) == links, "a program whose GLSL did not change relinked"
        expected = reference_blur(reference_buffer(0.25), RADIUS * 0.75)
        assert np.abs(gl_rows(runner.read_pass("blur")) - expected).max() <= 2e-3

        # Height to Normal's intensity: only the normal pass.
        edited = stone_graph(radius=RADIUS * 0.75, intensity=INTENSITY * 2)
        renderer.build_program(lower(edited).artifact, schedule_for(PassProgramCache.for_graph(edited).get("glsl420")))
        renderer.render_linear(8, 8)
        assert runner.renders == {"height": 2, "blur/horizontal": 3, "blur": 3, "normal": 4}
        assert (renderer.link_count, runner.link_count) == links
    finally:
        renderer.release()


def test_a_resolution_beyond_the_gpu_is_refused_naming_the_node(current_gl) -> None:
    renderer, passes = make_renderer(stone_graph())
    try:
        before = renderer.render_linear(8, 8)
        programs = passes.get("glsl420")
        assert programs is not None
        schedule = schedule_for(programs)
        limit = int(GL.glGetIntegerv(GL.GL_MAX_TEXTURE_SIZE))
        too_large = replace(schedule, passes=(replace(schedule.passes[0], resolution=limit * 2), *schedule.passes[1:]))
        program = renderer.program
        assert program is not None
        with pytest.raises(ProgramBuildError) as caught:  # what the preview reports as a failed build
            renderer.build_program(program.artifact, too_large)
        assert isinstance(caught.value, PassError) and caught.value.node == "height"
        assert "Texture Buffer 'height'" in str(caught.value) and str(limit) in str(caught.value)
        # Nothing else disturbed: the same program, passes and pixels, and no pass drawn again.
        assert renderer.program is program and renderer.passes.schedule.passes == schedule.passes
        assert np.array_equal(renderer.render_linear(8, 8), before) and renderer.passes.pass_renders == 4

        small = GlTexturePasses(memory_budget=SIZE * SIZE * 8 * 2)  # room for two 16-bit buffers of four
        with pytest.raises(PassError) as caught:
            small.set_schedule(schedule, is_es=False)
        assert caught.value.node == "blur" and "budget" in str(caught.value)
        small.release()
    finally:
        renderer.release()


@pytest.mark.gl  # its context fixture is asked for by name, so the tier cannot see it among the fixtures
@pytest.mark.parametrize("context", ["current_gl", "current_gles"])
def test_buffer_formats_hold_their_values(request, context: str) -> None:
    """8-bit clamps to 0..1 in 1/255 steps; 16-bit and float keep values above 1 (a lift of 1.5)."""
    request.getfixturevalue(context)
    is_es = context == "current_gles"
    for buffer_format, tolerance in (("8-bit", 0.5 / 255), ("16-bit", 2e-3), ("float", 1e-6)):
        graph = stone_graph(buffer_format=buffer_format)
        lowered = lower(graph)
        target = "es320" if is_es else "glsl420"
        artifact = compile_glsl(lowered.verified, target=target, finishing=True) if is_es else lowered.artifact
        renderer = Renderer()
        try:
            renderer.set_mesh(square_mesh())
            renderer.set_values({"lift": 1.5, "tint": 1.0})
            renderer.build_program(artifact, schedule_for(PassProgramCache.for_graph(graph).get(target)))
            renderer.render_linear(4, 4)
            internal = renderer.passes.formats()["height"]
            assert internal == texture_format(buffer_format, is_es, renderer.passes._extensions)[0]
            u, v = texel_uv(SIZE)
            expected = np.stack([u + 1.5, v + 1.5], axis=-1)
            if buffer_format == "8-bit":
                expected = np.minimum(expected, 1.0)
            got = gl_rows(renderer.passes.read_pass("height"))[..., :2]
            assert np.abs(got - expected).max() <= tolerance * max(1.0, float(expected.max())), buffer_format
        finally:
            renderer.release()


def test_a_pass_nodes_thumbnail_shows_its_buffer_flat(current_gl) -> None:
    """The thumbnails' worker draws with the same passes: a buffer or filter node's thumbnail samples its buffer
    over the UV square (16 px over 256 texels: texel 16i + 7.5, halfway between two texels)."""
    graph = stone_graph()
    program = lower_thumbnails(graph)
    assert program.ok
    thumbnails = ThumbnailRenderer()
    try:
        thumbnails.set_program(program.result.artifact, program.result.preview_selector)
        thumbnails.set_passes(schedule_for(PassProgramCache.for_graph(graph).get("glsl420")))
        thumbnails.set_values({"lift": 0.0, "tint": 1.0})
        selectors = {node: program.selector(node) for node in ("height", "blur", "normal")}
        images = thumbnails.render([(selector, SQUARE) for selector in selectors.values()], 16)
        runner = thumbnails.renderer.passes
        assert runner.pass_renders == 4
        for node, selector in selectors.items():
            buffer = gl_rows(runner.read_pass(node))
            expected = 0.25 * sum(buffer[7 + dy::16, 7 + dx::16] for dy in (0, 1) for dx in (0, 1))
            shown = gl_rows(images[selector]) / 255.0
            assert np.abs(shown[..., :3] - np.clip(expected[..., :3], 0, 1)).max() <= 1.5 / 255, node
        # Another frame of thumbnails with a downstream value changed draws no pass again.
        thumbnails.set_values({"tint": 0.5})
        thumbnails.render([(selectors["normal"], SQUARE)], 16)
        assert runner.pass_renders == 4
    finally:
        thumbnails.release()


def test_the_session_hands_over_new_passes_only_when_they_draw_differently(current_gl) -> None:
    """Through the editor's session: a filter value edit lowers again and gives new passes of the same code (no
    link, only the filter and what follows drawn again); a parameter's value goes in as values alone."""
    session = EditorSession()
    session.open_graph(stone_graph())
    session.lower()
    first = session.preview_passes("glsl420")
    assert first is not None and first.ok and first.label("blur") == "Blur 'blur'"
    assert {"lift", "tint"} <= {spec.name for spec in session.parameters.specs}
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.set_values(session.preview_values())
        renderer.build_program(session.preview_program("glsl420").artifact, schedule_for(first))
        renderer.render_linear(8, 8)
        links = (renderer.link_count, renderer.passes.link_count)

        edited = session.graph.copy()
        edited.nodes["blur"].properties["radius"] = RADIUS * 0.75  # within the same tap count
        session.update_graph(edited)
        session.lower()
        second = session.preview_passes("glsl420")
        assert second is not None and second is not first
        renderer.build_program(session.preview_program("glsl420").artifact, schedule_for(second))
        renderer.render_linear(8, 8)
        assert renderer.passes.renders == {"height": 1, "blur/horizontal": 2, "blur": 2, "normal": 2}
        assert (renderer.link_count, renderer.passes.link_count) == links

        session.update_graph(session.graph.copy())  # nothing the passes draw changed: the same passes
        session.lower()
        assert session.preview_passes("glsl420") is second
    finally:
        renderer.release()


@pytest.mark.gl
def test_the_live_preview_draws_the_passes_on_its_render_thread(qtbot) -> None:
    """The widget hands the schedule to its render thread's renderer with the program; value edits reach the
    passes there as they do offscreen (what the window does: app/ui/presenter.py)."""
    graph = stone_graph()
    lowered = lower(graph)
    passes = PassProgramCache.for_graph(graph).get("glsl420")
    widget = PreviewWidget()
    widget.resize(96, 96)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    specs = with_pass_parameters(lowered.parameters, passes.plan)
    with qtbot.waitSignal(widget.programReady, timeout=30000):
        widget.set_artifact(lowered.artifact, specs, {"lift": 0.0, "tint": 1.0}, passes)
    assert widget.threaded
    shown = qimage_to_rgba(widget.grab_preview())
    renderer = widget.renderer
    assert renderer.passes.pass_renders == 4
    # The sphere's centre reads the normal buffer: blue well above red and green (a checker would be grey).
    centre = shown[48, 48, :3].astype(int)
    assert centre[2] > 200 and centre[2] - max(centre[0], centre[1]) > 50, centre
    links = (renderer.link_count, renderer.passes.link_count)
    widget.set_parameter("tint", 0.5)
    darker = qimage_to_rgba(widget.grab_preview())
    assert renderer.passes.pass_renders == 4 and darker[48, 48, 2] < centre[2] - 60
    widget.set_parameter("lift", 0.5)
    widget.grab_preview()
    assert renderer.passes.pass_renders == 8 and (renderer.link_count, renderer.passes.link_count) == links


def test_a_constant_upstream_of_a_buffer_is_a_live_value_of_its_pass(current_gl) -> None:
    """Dragging a constant inside a buffer's sub-graph: after one live lowering, each edit reaches the pass as a
    hidden uniform's value (no lowering, no link); the buffer and what reads it draw again."""
    graph = stone_graph()
    graph.remove_node("lift")
    graph.add_node("constant_float", node_id="offset", properties={"value": 0.0})
    graph.connect("offset", "out", "shift", "b")
    session = EditorSession()
    session.open_graph(graph)
    session.lower()

    def edited(value: float) -> MaterialGraph:
        copy = session.graph.copy()
        copy.nodes["offset"].properties["value"] = value
        return copy

    session.update_graph(edited(0.1))
    session.lower()  # the constant is wanted live: the live lowering makes it a hidden uniform of the buffer's pass
    passes = session.preview_passes("glsl420")
    assert passes is not None and passes.plan.passes[0].live_values
    renderer = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.set_values(session.preview_values())
        renderer.build_program(session.preview_program("glsl420").artifact, schedule_for(passes))
        renderer.render_linear(8, 8)
        # 0.1 is not exact in binary: uv + 0.1 may round to the neighbouring half float (one step: 2^-11 near 1).
        assert np.abs(gl_rows(renderer.passes.read_pass("height")) - reference_buffer(0.1)).max() <= 2.0 ** -10
        links = (renderer.link_count, renderer.passes.link_count)

        session.update_graph(edited(0.25))
        assert session.live_edit and session.preview_passes("glsl420") is passes  # values only: what the window posts
        renderer.set_values(session.preview_values())
        renderer.render_linear(8, 8)
        assert renderer.passes.renders == {"height": 2, "blur/horizontal": 2, "blur": 2, "normal": 2}
        assert (renderer.link_count, renderer.passes.link_count) == links
        session.lower()  # the canonical lowering (code view, exports) arrives later: the preview keeps its passes
        assert session.preview_passes("glsl420") is passes
        assert np.abs(gl_rows(renderer.passes.read_pass("height")) - reference_buffer(0.25)).max() <= 2.0 ** -10
    finally:
        renderer.release()


def test_the_texture_view_of_a_filter_node_shows_its_buffer(current_gl) -> None:
    """The Texture View's worker runs the passes too: the Blur node viewed at the buffer's resolution is its buffer,
    texel for texel; a value downstream of every buffer draws no pass again."""
    renderer = Renderer()
    renderer.set_mesh(square_mesh())
    renderer.camera = FlatCamera()  # type: ignore[assignment]
    renderer.set_background_mode("color")
    state = _ViewState(renderer, "glsl420")
    graph = stone_graph()
    try:
        job = TextureViewJob(1, graph, "blur", "blur:" + structure_key(graph, RADIANCE_OUTPUT_NAME), SIZE, {"lift": 0.0, "tint": 1.0})
        viewed = gl_rows(node_texture(state, job))
        assert renderer.passes.pass_renders == 4
        assert np.abs(viewed - gl_rows(renderer.passes.read_pass("blur"))).max() <= 1e-6
        assert np.abs(viewed - reference_blur(reference_buffer(), RADIUS)).max() <= 2e-3
        again = TextureViewJob(2, graph, "blur", "blur:" + structure_key(graph, RADIANCE_OUTPUT_NAME), SIZE, {"lift": 0.0, "tint": 0.5})
        node_texture(state, again)
        assert renderer.passes.pass_renders == 4
    finally:
        renderer.release()


def test_draft_frames_draw_the_passes_at_draft_resolution_then_full_size_again(current_gl) -> None:
    """While the render thread drafts (`Renderer.drafting`: a value being dragged), the passes drawn are the draft
    plan's (half of each side); the full frame after the gesture draws the full passes with the last values, the
    same as a fresh render of those values, pixel for pixel."""
    graph = stone_graph()
    programs = PassProgramCache.for_graph(graph, draft=True).get("glsl420")
    assert programs is not None and programs.draft is not None and programs.draft.ok
    schedule = schedule_for(programs)
    assert schedule.draft is not None
    assert {draw.resolution for draw in schedule.draft.passes} == {SIZE // 2}
    renderer = Renderer()
    fresh = Renderer()
    try:
        renderer.set_mesh(square_mesh())
        renderer.camera = FlatCamera()  # type: ignore[assignment]
        renderer.set_values({"lift": 0.0, "tint": 1.0})
        renderer.build_program(lower(graph).artifact, schedule)
        renderer.render_linear(16, 16)
        full, draft = renderer.passes, renderer.draft_passes
        assert (full.pass_renders, draft.pass_renders) == (4, 0)
        renderer.drafting = True
        for step in (0.1, 0.2, 0.3):  # the drag: every frame a draft
            renderer.set_values({"lift": step, "tint": 1.0})
            renderer.render_linear(16, 16)
        assert full.pass_renders == 4 and draft.pass_renders == 12
        assert draft.read_pass("normal").shape == (SIZE // 2, SIZE // 2, 4)
        renderer.drafting = False  # the gesture ended: the refining full frame
        shown = renderer.render_linear(16, 16)
        assert full.pass_renders == 8 and draft.pass_renders == 12
        fresh.set_mesh(square_mesh())
        fresh.camera = FlatCamera()  # type: ignore[assignment]
        fresh.set_values({"lift": 0.3, "tint": 1.0})
        fresh.build_program(lower(graph).artifact, schedule_for(PassProgramCache.for_graph(graph).get("glsl420")))
        expected = fresh.render_linear(16, 16)
        assert np.array_equal(full.read_pass("normal"), fresh.passes.read_pass("normal"))
        assert np.array_equal(shown, expected)
    finally:
        renderer.release()
        fresh.release()


def test_the_session_plans_draft_passes_only_for_large_buffers() -> None:
    """A parameter slider's drag makes no lowering: the session's passes carry their draft plan already when a
    buffer is large enough for drafts to matter (`DRAFT_FROM_RESOLUTION`), and none for small buffers."""
    from app.session.session import DRAFT_FROM_RESOLUTION

    for resolution, drafted in ((SIZE, False), (DRAFT_FROM_RESOLUTION, True)):
        graph = stone_graph()
        graph.nodes["height"].properties["resolution"] = str(resolution)
        session = EditorSession()
        session.open_graph(graph)
        session.lower()
        passes = session.preview_passes("glsl420")
        assert passes is not None and (passes.draft is not None) == drafted, resolution
        if passes.draft is not None:
            assert {each.spec.resolution for each in passes.draft.plan.passes} == {resolution // 2}
