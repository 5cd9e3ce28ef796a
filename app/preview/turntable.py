"""Turntables: the preview frame of a material while the mesh or the environment turns once, as a GIF or MP4.

`vpl-editor FILE --turntable OUT.gif|OUT.mp4 [--frames N] [--turn mesh|environment]`
and File > Export Turntable... draw `frames` frames of the stage with the
same renderer as `--preview-screenshot` (OpenGL offscreen, else the CPU
interpreter) and encode them with imageio: GIF through its Pillow plug-in,
MP4 (H.264) through imageio-ffmpeg, which ships its own ffmpeg.

`mesh` turns the mesh one full turn under its light: the camera, the key
light and the environment go round it together (so a texture projected in
world or object space stays on the mesh, and highlights stay where the
lighting puts them). `environment` keeps the camera and turns the
environment and the key light round the mesh, as rotating the environment
does in the preview.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from app.preview.stage import Stage

TURNS = ("mesh", "environment")
DEFAULT_FRAMES = 36
MAX_FRAMES = 3600
FRAMES_PER_SECOND = 30
SUFFIXES = (".gif", ".mp4")
USAGE_ERROR = 2


def check_output(path: str) -> str:
    """The animation format of `path` (".gif" or ".mp4"); ValueError naming the suffixes otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"--turntable {path!r}: the file must end in {' or '.join(SUFFIXES)}")
    return suffix


def parse_frames(text: str | int) -> int:
    """A frame count 1..MAX_FRAMES; ValueError with the reason otherwise."""
    try:
        frames = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"--frames must be a whole number of frames, not {text!r}") from None
    if frames < 1 or frames > MAX_FRAMES:
        raise ValueError(f"--frames must be between 1 and {MAX_FRAMES}, not {frames}")
    return frames


def turned_stage(stage: Stage, turn: str, degrees: float) -> Stage:
    """`stage` with the mesh (or the environment) turned by `degrees` about +y; see the module docstring."""
    if turn not in TURNS:
        raise ValueError(f"unknown turn {turn!r}: expected {' or '.join(TURNS)}")
    light = math.remainder(stage.light_azimuth + degrees, 360.0)
    environment = math.remainder(stage.environment_rotation + degrees, 360.0)
    turned = replace(stage, light_azimuth=light, environment_rotation=environment, extra=dict(stage.extra))
    if turn == "mesh":
        yaw, pitch, distance = stage.camera_view
        turned.camera = (math.remainder(yaw + degrees, 360.0), pitch, distance)
    else:
        turned.camera = stage.camera_view
    return turned


def write_animation(path: str, frames: Sequence[np.ndarray], frames_per_second: int = FRAMES_PER_SECOND) -> None:
    """Encode RGBA or RGB uint8 frames (top row first) as a looping GIF or an H.264 MP4; OSError when it cannot."""
    import imageio.v2 as imageio

    suffix = check_output(path)
    pictures = [np.ascontiguousarray(frame[..., :3]) for frame in frames]
    if suffix == ".gif":
        # Pillow's GIF writer: duration per frame in milliseconds, loop 0 = for ever.
        imageio.mimwrite(path, pictures, format="GIF", duration=1000.0 / frames_per_second, loop=0)  # type: ignore[arg-type]  # imageio's stubs type mimwrite's keywords narrowly
        return
    # yuv420p (what players accept) needs even sides: repeat the last row / column when odd.
    height, width = pictures[0].shape[:2]
    pad = ((0, height % 2), (0, width % 2), (0, 0))
    if any(p[1] for p in pad):
        pictures = [np.pad(picture, pad, mode="edge") for picture in pictures]
    try:
        imageio.mimwrite(path, pictures, format="FFMPEG", fps=frames_per_second, codec="libx264",  # type: ignore[arg-type]  # as above
                         quality=8, macro_block_size=1, ffmpeg_log_level="error")
    except RuntimeError as error:  # imageio-ffmpeg reports ffmpeg's failures so
        raise OSError(str(error)) from error


def turntable(source_path: str, out_path: str, size: tuple[int, int], frames: int = DEFAULT_FRAMES, *,
              gl: str | None = None, stage: Stage | None = None, time: float = 0.0, assignments: Sequence[str] = (),
              turn: str = "mesh", stderr: TextIO | None = None, values: Mapping[str, Any] | None = None,
              progress: Callable[[int, int], bool] | None = None) -> int:
    """Render and encode a turntable of `source_path`; 0 when written, 1 or 2 as `preview_screenshot`.

    `values` sets parameters by name (after `assignments`; the editor passes its
    live values). `progress(done, total)` is called after each frame; returning
    False stops without writing (status 1).
    """
    stderr = stderr if stderr is not None else sys.stderr
    try:
        check_output(out_path)
        frames = parse_frames(frames)
        if turn not in TURNS:
            raise ValueError(f"unknown turn {turn!r}: expected {' or '.join(TURNS)}")
    except ValueError as error:
        print(f"vpl-editor: {error}", file=stderr)
        return USAGE_ERROR
    renderer_factory = _renderer_factory(source_path, size, gl, stage or Stage(), time, assignments, values or {}, stderr)
    if isinstance(renderer_factory, int):
        return renderer_factory
    base = stage or Stage()
    pictures: list[np.ndarray] = []
    with renderer_factory as draw:
        for index in range(frames):
            turned_stage(base, turn, 360.0 * index / frames).apply(draw.renderer)
            picture = draw.frame()
            if picture is None:
                return 1
            pictures.append(picture)
            if progress is not None and not progress(index + 1, frames):
                print(f"{out_path}: note: stopped; nothing written", file=stderr)
                return 1
    try:
        write_animation(out_path, pictures)
    except (OSError, ValueError) as error:
        print(f"{out_path}: error: cannot write the animation ({error})", file=stderr)
        return 1
    return 0


class _Drawing:
    """A renderer configured with the file, stage and parameters (GL in an offscreen context, or the CPU's)."""

    def __init__(self, renderer: Any, size: tuple[int, int], release: Callable[[], None], problem: Callable[[Exception], str],
                 errors: tuple[type[Exception], ...], stderr: TextIO, make_current: Callable[[], None] = lambda: None) -> None:
        self.renderer = renderer
        self._make_current = make_current
        self._size = size
        self._release = release
        self._problem = problem
        self._errors = errors
        self._stderr = stderr

    def __enter__(self) -> _Drawing:
        return self

    def __exit__(self, *_: object) -> None:
        self._release()

    def frame(self) -> np.ndarray | None:
        self._make_current()
        try:
            return np.asarray(self.renderer.render_final(*self._size))
        except self._errors as error:
            print(self._problem(error), file=self._stderr)
            return None


def _renderer_factory(source_path: str, size: tuple[int, int], gl: str | None, stage: Stage, time: float,
                      assignments: Sequence[str], given: Mapping[str, Any], stderr: TextIO) -> _Drawing | int:
    """A `_Drawing` ready for frames, or the exit status (diagnostics printed) when there can be none."""
    from app.preview.context import choose
    from app.preview.preview_state import module_writes_radiance, prepare_environment
    from app.preview.screenshot import (
        USAGE_ERROR,
        _diagnostic,
        _Failure,
        _Setup,
        document_passes,
        document_refined,
        note_cpu_fallback,
        offscreen_gl,
        parse_assignment,
        print_environment_notes,
        read_program,
    )
    from app.preview.stage import load_stage_mesh
    from vpl_core.diagnostics import Category

    graph_notes: list[str] = []
    try:
        choice = choose(gl)
        verified, parameters = read_program(source_path, graph_notes)
    except ValueError as error:
        print(f"error: {error}", file=stderr)
        return 1
    except _Failure as failure:
        for line in failure.lines:
            print(line, file=stderr)
        return 1
    for note in graph_notes:
        print(f"{source_path}: note: {note}", file=stderr)
    radiance = module_writes_radiance(verified.materialize())
    try:
        values = dict(parse_assignment(text, parameters, radiance) for text in assignments)
        values.update(given)
        mesh = load_stage_mesh(stage.mesh)
        read_notes: list[str] = []
        environment = prepare_environment(stage.environment, read_notes) if radiance else None
    except ValueError as error:
        print(f"vpl-editor: {error}", file=stderr)
        return USAGE_ERROR
    print_environment_notes(source_path, stage.environment, read_notes, stderr)
    passes = document_passes(source_path)  # the texture passes, drawn before each frame's material
    if passes is not None and passes.plan is not None:
        from app.session.pass_programs import with_pass_parameters

        parameters = with_pass_parameters(parameters, passes.plan)
    setup = _Setup(source_path, stage, mesh, environment, float(time), parameters, values, stderr, passes)
    try:
        artifact, context, problem = offscreen_gl(choice, verified, source_path)
    except _Failure as failure:
        for line in failure.lines:
            print(line, file=stderr)
        return 1
    if context is None:
        from app.preview.cpu_renderer import CpuRenderer
        from vpl_core.interp import InterpreterError

        note_cpu_fallback(source_path, problem, stage, "much slower", stderr)
        cpu = CpuRenderer()
        setup.apply(cpu)
        try:
            cpu.set_program(verified)
            if passes is not None and passes.plan is not None:
                from app.preview.cpu_passes import pass_textures, run_plan_cpu

                cpu.set_pass_textures(pass_textures(passes.plan, run_plan_cpu(passes.plan, cpu.parameters)),
                                      passes.plan.displacement)
        except (InterpreterError, ValueError) as error:
            print(_diagnostic(source_path, Category.TARGET, f"the CPU interpreter cannot draw this module: {error}"), file=stderr)
            return 1
        return _Drawing(cpu, size, lambda: None,
                        lambda error: _diagnostic(source_path, Category.TARGET, f"the CPU interpreter failed: {error}"),
                        (InterpreterError,), stderr)
    from app.preview.renderer import ProgramBuildError, Renderer
    from app.preview.texture_passes_gl import schedule_for

    renderer = Renderer()

    def release() -> None:
        context.make_current()  # a host's event processing (the progress dialog) may have made another current
        renderer.release()
        context.done()

    setup.apply(renderer)
    try:
        renderer.build_program(artifact, schedule_for(passes.get(artifact.target) if passes is not None else None),
                               document_refined(source_path, artifact.target))
    except ValueError as error:  # the passes have no program for this target
        print(_diagnostic(source_path, Category.TARGET, str(error)), file=stderr)
        release()
        return 1
    except ProgramBuildError as error:
        print(_diagnostic(source_path, Category.TARGET, f"the OpenGL driver rejected the program ({error.stage}): {error.log}"),
              file=stderr)
        release()
        return 1
    return _Drawing(renderer, size, release, str, (ProgramBuildError,), stderr, context.make_current)
