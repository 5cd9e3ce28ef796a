"""`vpl-editor FILE --preview-screenshot PNG [--size WxH] [--gl ...] [stage options]`: one preview frame, offscreen.

The file is a material saved by the editor or any verified `.vpl` module.
It is read (through `app.material.document.load_text` when the material
document layer provides it, otherwise `vpl_core.text.read`) and published
as a `VerifiedModule`; then the preview profile is chosen (`gl`, as the
editor's `--gl`: desktop OpenGL 4.2 core, OpenGL ES 3.2, or auto), the
module is compiled for that profile's target (`glsl420` / `es320`) and drawn
once (parameters at their defaults: from the saved graph when there is one,
else zero) on the default sphere with the default camera, light and
background into an offscreen framebuffer of exactly `size`; that
framebuffer is saved as PNG. Both profiles give the same picture (to within
rounding of a few 1/255 steps on a conforming driver).

When no OpenGL context can be had (no display, or the driver offers
neither profile), the same frame is drawn by the VPL interpreter
(`app.preview.cpu_renderer.CpuRenderer`, the CPU preview's renderer: same
scene, stage, post pass) and written as PNG without Qt; one note on stderr
says so and why. It is slower (seconds for a Surface Output material at
512x512) but the same picture to within the interpreter's agreement with
the driver (docs/interpreter.md).

The stage (`app.preview.stage.Stage`: mesh, environment, exposure, tone
mapper, light, background) is the one saved with the document when it has
one (`saved_stage`; else the default stage), overridden by the command line
(`--mesh`, `--environment`, `--exposure`, `--tone-mapper`, `--camera`, `--light`,
`--shadows`, `--ground`, `--occlusion`), as is the time
(`--time`);
`--set NAME=VALUE` (repeatable) sets a parameter: a number for a float, N
numbers separated by commas for a vector, 3 or 4 numbers or `#RRGGBB` for a
colour (a hex colour is sRGB and is decoded to linear for a Surface Output
material), an image path for a texture.

Exit status 0 when the PNG was written; 1 when no program could be built
(reading, verification, target or driver errors) or the image could not be
written, with the diagnostics printed to stderr as
`FILE:LINE:COLUMN: CATEGORY error: MESSAGE` (a driver out of memory is one
line too); 2 for a value the command line got wrong (an unknown parameter,
a malformed value, a mesh file that cannot be read, a size beyond the
driver's GL_MAX_RENDERBUFFER_SIZE, GL_MAX_TEXTURE_SIZE or
GL_MAX_VIEWPORT_DIMS), with one line saying so.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from app.material.parameters import ParameterKind, ParameterSpec, specs_from_module
from vpl_core.diagnostics import Category, Diagnostic, VplError

DEFAULT_SIZE = (512, 512)
USAGE_ERROR = 2


class _Failure(Exception):  # noqa: N818 - internal control flow of this module
    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def _diagnostic(label: str, category: Category, message: str) -> str:
    return Diagnostic(category, message, label=label).format()


def load_program(source_path: str, target: str = "glsl420") -> tuple[Any, list[ParameterSpec]]:
    """(ProgramArtifact for `target`, parameter specs) for a file; raises _Failure with formatted diagnostics."""
    verified, parameters = read_program(source_path)
    return compile_program(verified, source_path, target), parameters


def compile_program(verified: Any, source_path: str, target: str) -> Any:
    """The `VerifiedModule` compiled for `target`; raises _Failure with the formatted target error."""
    from vpl_core.backends.glsl import compile as compile_glsl

    try:
        return compile_glsl(verified, target=target, finishing=True)
    except VplError as error:
        raise _Failure([_with_label(error.diagnostic, source_path).format()]) from error


def read_program(source_path: str, notes: list[str] | None = None) -> tuple[Any, list[ParameterSpec]]:
    """(VerifiedModule, parameter specs) for a file; raises _Failure with formatted diagnostics. For an editor
    document whose graph does not lower (the saved module is then its placeholder), a note per error is
    added to `notes`; for one whose saved graph cannot be used (opened read-only), a note saying why."""
    from vpl_core.external_files import read_external

    try:
        source = read_external(source_path, "document")
    except OSError as error:
        raise _Failure([_diagnostic(source_path, Category.LEXICAL, f"cannot read the file: {error.strerror or error}")]) from error

    loaded = _load_with_document(source, source_path, notes)
    if loaded is not None:
        return loaded

    from vpl_core.publish import VerifiedModule
    from vpl_core.text import read

    try:
        module = read(source, label=source_path)
        verified = VerifiedModule.create(module, label=source_path)
    except VplError as error:
        raise _Failure([_with_label(error.diagnostic, source_path).format()]) from error
    return verified, specs_from_module(module)


def document_refined(source_path: str, target: str) -> Any:
    """A maker of the refined variant (`app.session.artifacts.refined_maker`) of the editor document at
    `source_path` for `target`, drawn by `Renderer.render_final`; None for a plain module or an unreadable file."""
    from app.material.document import load_text
    from app.session.artifacts import refined_maker
    from vpl_core.external_files import read_external

    try:
        graph = load_text(read_external(source_path, "document"), label=source_path).graph
    except (OSError, VplError, ValueError):
        return None
    return None if graph is None else refined_maker(graph, target)


def document_passes(source_path: str) -> Any:
    """The texture passes of the editor document at `source_path` (a `PassProgramCache`), or None: a plain
    module, a graph without Texture Buffer or filter nodes, a file that cannot be read (reported elsewhere)."""
    from app.material.document import load_text
    from app.material.texture_passes import has_pass_nodes
    from app.session.pass_programs import PassProgramCache
    from vpl_core.external_files import read_external

    try:
        graph = load_text(read_external(source_path, "document"), label=source_path).graph
    except (OSError, VplError, ValueError):
        return None
    if graph is None or not has_pass_nodes(graph):
        return None
    return PassProgramCache.for_graph(graph)


def _with_label(diagnostic: Diagnostic, label: str) -> Diagnostic:
    if diagnostic.label is None:
        from vpl_core.records import replace

        return replace(diagnostic, label=label)
    return diagnostic


def _load_with_document(source: bytes, source_path: str, notes: list[str] | None = None) -> tuple[Any, list[ParameterSpec]] | None:
    """Open through the material document layer when it exists.

    It knows editor-saved graphs: the saved module is what is drawn, and the
    graph (lowered again) supplies the parameters' editor defaults, which a
    module alone does not carry (a colour parameter would otherwise be black).
    """
    try:
        document = importlib.import_module("app.material.document")
    except ImportError:
        return None
    load_text = getattr(document, "load_text", None)
    if load_text is None:
        return None
    takes_label = "label" in inspect.signature(load_text).parameters
    loaded = load_text(source, label=source_path) if takes_label else load_text(source)
    verified = getattr(loaded, "verified", None)
    if verified is None:
        lines = [_format_any(d, source_path) for d in getattr(loaded, "diagnostics", None) or []]
        if not lines:
            return None  # nothing read and nothing said: let the plain reader explain
        raise _Failure(lines)

    module = getattr(loaded, "module", None) or verified.materialize()
    parameters = specs_from_module(module)
    graph = getattr(loaded, "graph", None)
    problem = getattr(loaded, "graph_problem", "")
    if problem and notes is not None:  # the saved graph is unusable (what `vpl bake` reports): the module is drawn
        notes.append(f"{problem}; the saved module is drawn")
    if graph is not None:
        parameters = _graph_parameters(graph, parameters, notes)
    return verified, parameters


def _graph_parameters(graph: Any, fallback: list[ParameterSpec], notes: list[str] | None = None) -> list[ParameterSpec]:
    try:
        from app.material.lowering import lower
    except ImportError:
        return fallback
    lowered = lower(graph)
    if not lowered.ok:
        if notes is not None:  # what the window lists; the module saved with such a graph is a placeholder
            notes.extend(f"the graph does not lower ({f'node {error.node_id}: ' if error.node_id else ''}{error.message}); "
                         "the module saved with it is drawn" for error in lowered.errors)
        return fallback
    by_name = {spec.name: spec for spec in lowered.parameters}
    # The saved module decides which parameters exist; the graph their values (the nodes' and
    # the active variant's, app.material.parameters.material_values) and ranges.
    specs = [by_name[spec.name] if spec.name in by_name and by_name[spec.name].type == spec.type else spec
             for spec in fallback]
    from dataclasses import replace

    from app.material.parameters import material_values

    values, _overridden = material_values(specs, graph)
    return [replace(spec, default=values[spec.name]) for spec in specs]


def _format_any(diagnostic: Any, label: str) -> str:
    if isinstance(diagnostic, Diagnostic):
        return _with_label(diagnostic, label).format()
    category = getattr(diagnostic, "category", "semantic")
    category = getattr(category, "value", category)
    message = getattr(diagnostic, "message", str(diagnostic))
    return f"{label}: {category} error: {message}"


def parse_assignment(text: str, specs: Sequence[ParameterSpec], radiance: bool) -> tuple[str, Any]:
    """`NAME=VALUE` -> (name, value) for the parameter of that name; ValueError with a one-line reason."""
    from app.preview.stage import parse_floats

    name, separator, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not separator or not name:
        raise ValueError(f"--set {text!r}: expected NAME=VALUE")
    by_name = {spec.name: spec for spec in specs}
    spec = by_name.get(name)
    if spec is None:
        known = ", ".join(sorted(by_name)) or "none"
        raise ValueError(f"--set {name}: the material has no parameter of that name (its parameters: {known})")
    what = f"--set {name}"
    if spec.kind is ParameterKind.TEXTURE:
        if not os.path.isfile(raw):
            raise ValueError(f"{what}: no image file {raw!r}")
        return name, raw
    if spec.kind is ParameterKind.FLOAT:
        numbers = parse_floats(raw, what)
        if len(numbers) != 1:
            raise ValueError(f"{what}: expected one number, got {raw!r}")
        return name, numbers[0]
    if spec.kind is ParameterKind.COLOR:
        if raw.startswith("#"):
            digits = raw[1:]
            if len(digits) != 6 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise ValueError(f"{what}: expected #RRGGBB, got {raw!r}")
            encoded = [int(digits[i: i + 2], 16) / 255.0 for i in (0, 2, 4)]
            if radiance:
                from app.preview.post import decode_srgb

                encoded = list(decode_srgb(encoded))
            return name, (*encoded, 1.0)
        numbers = parse_floats(raw, what)
        if len(numbers) not in (3, 4):
            raise ValueError(f"{what}: a colour is 3 or 4 numbers (r,g,b[,a]) or #RRGGBB, got {raw!r}")
        return name, tuple(numbers) if len(numbers) == 4 else (*numbers, 1.0)
    if spec.kind is ParameterKind.VECTOR:
        size = getattr(spec.type, "size", 1)
        numbers = parse_floats(raw, what)
        if len(numbers) == 1:
            numbers = numbers * size
        if len(numbers) != size:
            raise ValueError(f"{what}: expected {size} numbers, got {raw!r}")
        return name, tuple(numbers)
    raise ValueError(f"{what}: this parameter's type ({spec.type}) cannot be set from the command line")


def preview_screenshot(
    source_path: str,
    png_path: str,
    size: tuple[int, int] = DEFAULT_SIZE,
    stderr: TextIO | None = None,
    gl: str | None = None,
    stage: Any = None,
    time: float = 0.0,
    assignments: Sequence[str] = (),
    chosen: Collection[str] = ("mesh", "environment"),
    refined: bool = True,
) -> int:
    """Render one preview frame of `source_path` into `png_path`; 0 on success, 1 or 2 otherwise.

    The frame is the final one (`Renderer.render_final`: with the refined environment light for an editor
    document with a Surface Output); `refined` False draws the live frame (the split sum, as an engine does).

    `gl` is the profile choice ("desktop", "es", "auto"; None: `VPL_PREVIEW_GL`, else auto);
    `stage` an `app.preview.stage.Stage` (None: the default stage); `time` the scene time in
    seconds; `assignments` the `NAME=VALUE` texts of `--set`; `chosen` the stage's file fields the
    command line chose: a mesh or environment file among them that cannot be read is a usage error (2),
    one saved with the document is replaced by the default with a note, as the window does. Without a display or an OpenGL
    context of the profile, the CPU interpreter draws the frame (`CpuRenderer`) and a note on
    `stderr` says so.
    """
    stderr = stderr if stderr is not None else sys.stderr
    width, height = int(size[0]), int(size[1])
    if width < 1 or height < 1:
        print(f"{png_path}: error: the screenshot size must be positive, not {width}x{height}", file=stderr)
        return 1
    from app.preview.context import choose

    try:
        choice = choose(gl)
    except ValueError as error:
        print(f"error: {error}", file=stderr)
        return 1
    graph_notes: list[str] = []
    try:
        verified, parameters = read_program(source_path, graph_notes)
    except _Failure as failure:
        for line in failure.lines:
            print(line, file=stderr)
        return 1
    for note in graph_notes:
        print(f"{source_path}: note: {note}", file=stderr)

    from app.preview.preview_state import module_writes_radiance, prepare_environment
    from app.preview.stage import Stage, load_stage_mesh

    stage = stage if stage is not None else Stage()
    radiance = module_writes_radiance(verified.materialize())
    try:
        values = dict(parse_assignment(text, parameters, radiance) for text in assignments)
        try:
            mesh = load_stage_mesh(stage.mesh)
        except ValueError as error:
            if "mesh" in chosen:
                raise
            print(f"{source_path}: note: the stage's mesh: {error}; using the default", file=stderr)
            stage.mesh, mesh = Stage().mesh, None
        read_notes: list[str] = []
        try:
            environment = prepare_environment(stage.environment, read_notes) if radiance else None
        except ValueError as error:
            if "environment" in chosen:
                raise
            print(f"{source_path}: note: the stage's environment: {error}; using the default", file=stderr)
            stage.environment = Stage().environment
            environment = prepare_environment(stage.environment, read_notes) if radiance else None
        print_environment_notes(source_path, stage.environment, read_notes, stderr)
    except ValueError as error:
        print(f"vpl-editor: {error}", file=stderr)
        return USAGE_ERROR

    # OpenGL when a context can be had; otherwise the CPU interpreter draws the same scene (docs/preview.md).
    try:
        artifact, context, problem = offscreen_gl(choice, verified, source_path)
    except _Failure as failure:
        for line in failure.lines:
            print(line, file=stderr)
        return 1
    passes = document_passes(source_path)
    if passes is not None and passes.plan is not None:
        from app.session.pass_programs import with_pass_parameters

        parameters = with_pass_parameters(parameters, passes.plan)
    setup = _Setup(source_path, stage, mesh, environment, float(time), parameters, values, stderr, passes, refined)
    if context is None:
        note_cpu_fallback(source_path, problem, stage, "slower, the same picture", stderr)
        return _cpu_screenshot(verified, setup, width, height, png_path)
    return _gl_screenshot(artifact, context, setup, width, height, png_path)


def offscreen_gl(choice: Any, verified: Any, source_path: str) -> tuple[Any, Any, str]:
    """(artifact, OffscreenContext, "") when OpenGL can draw `verified`, else (None, None, why not); `_Failure`
    when the program does not compile for the chosen profile."""
    if ensure_gui_application() is None:
        return None, None, "no display: no X server or Wayland compositor to create one on"
    from app.preview.context import OffscreenContext, select_profile

    selection = select_profile(choice)
    if selection.problem:
        return None, None, selection.problem
    artifact = compile_program(verified, source_path, selection.profile.target)
    try:
        return artifact, OffscreenContext(selection.profile), ""
    except RuntimeError as error:
        return None, None, str(error)


def print_environment_notes(source_path: str, environment: str, notes: list[str], stderr: TextIO) -> None:
    """A note for each change reading the environment made (NaN texels set to 0, ...), as the window's preview shows."""
    for note in notes:
        print(f"{source_path}: note: the environment {environment}: {note}", file=stderr)


def note_cpu_fallback(source_path: str, problem: str, stage: Any, speed: str, stderr: TextIO) -> None:
    """The notes of a frame the CPU interpreter draws because OpenGL could not (`speed`: how it compares)."""
    print(f"{source_path}: note: no OpenGL context ({problem.rstrip('.')}); "
          f"rendering with the CPU interpreter ({speed})", file=stderr)


@dataclass(frozen=True)
class _Setup:
    """What a screenshot's renderer is given, whichever draws: the stage, its mesh file and prepared
    environment, the time, the parameters and the values `--set` gave them."""

    source_path: str
    stage: Any
    mesh: Any
    environment: Any
    time: float
    parameters: Sequence[ParameterSpec]
    values: dict[str, Any]
    stderr: TextIO
    #: The material's texture passes (`app.session.pass_programs.PassProgramCache`), None without any.
    passes: Any = None
    #: Final frames with the refined environment light (`document_refined`); False: live frames.
    refined: bool = True

    def apply(self, renderer: Any) -> None:
        """Configure a `Renderer` or a `CpuRenderer` (both `PreviewState`s) with all of it."""
        from app.session.textures import TextureLoadError, load_texture, resolve_texture_path

        self.stage.apply(renderer)
        if self.mesh is not None:
            renderer.set_mesh(self.mesh)
        if self.environment is not None:
            renderer.set_environment_maps(self.environment[0])
            renderer.set_brdf_table(self.environment[1])
        renderer.time = self.time
        for spec in self.parameters:
            if spec.kind is ParameterKind.TEXTURE:
                image = self.values.get(spec.name, spec.default)
                if isinstance(image, str):
                    try:
                        # A path given with --set is the user's, relative to the working directory;
                        # the document's are relative to its folder, as in the editor.
                        directory = None if spec.name in self.values else Path(self.source_path).resolve().parent
                        texture = load_texture(resolve_texture_path(image, directory))
                        renderer.set_texture(spec.name, texture.pixels)
                    except TextureLoadError as error:
                        print(f"{self.source_path}: warning: {error}; using the checker texture", file=self.stderr)
            elif spec.kind is not ParameterKind.OTHER:
                value = self.values.get(spec.name, spec.default)
                if value is not None:
                    renderer.set_parameter(spec.name, value)


def gl_size_problem(width: int, height: int) -> str | None:
    """Why the current context cannot draw a `width` x `height` offscreen frame (its size limits), or None."""
    from OpenGL import GL

    for name, limit in (("GL_MAX_RENDERBUFFER_SIZE", GL.GL_MAX_RENDERBUFFER_SIZE), ("GL_MAX_TEXTURE_SIZE", GL.GL_MAX_TEXTURE_SIZE)):
        largest = int(GL.glGetIntegerv(limit))
        if max(width, height) > largest:
            return f"the size {width}x{height} exceeds this OpenGL driver's {name} ({largest})"
    viewport = [int(value) for value in GL.glGetIntegerv(GL.GL_MAX_VIEWPORT_DIMS)]
    if width > viewport[0] or height > viewport[1]:
        return f"the size {width}x{height} exceeds this OpenGL driver's GL_MAX_VIEWPORT_DIMS ({viewport[0]}x{viewport[1]})"
    return None


def gl_failure(error: Exception, width: int, height: int) -> str:
    """One line for an OpenGL error raised while drawing a frame (out of memory above all)."""
    from OpenGL import GL

    code = getattr(error, "err", None)
    if code == GL.GL_OUT_OF_MEMORY:
        return f"the OpenGL driver ran out of memory drawing a {width}x{height} frame; try a smaller --size"
    return f"the OpenGL driver failed drawing a {width}x{height} frame (GL error {code})"


def _gl_screenshot(artifact: Any, context: Any, setup: _Setup, width: int, height: int, png_path: str) -> int:
    from OpenGL.error import GLError

    from app.preview.images import rgba_to_qimage
    from app.preview.renderer import ProgramBuildError, Renderer
    from app.preview.texture_passes_gl import schedule_for

    problem = gl_size_problem(width, height)
    if problem is not None:
        context.done()
        print(f"vpl-editor: {problem}", file=setup.stderr)
        return USAGE_ERROR
    renderer = Renderer()
    try:
        setup.apply(renderer)
        try:
            renderer.build_program(artifact, schedule_for(setup.passes.get(artifact.target) if setup.passes else None),
                                   document_refined(setup.source_path, artifact.target) if setup.refined else None)
        except ValueError as error:  # the passes have no program for this target
            print(_diagnostic(setup.source_path, Category.TARGET, str(error)), file=setup.stderr)
            return 1
        except ProgramBuildError as error:
            message = f"the OpenGL driver rejected the program ({error.stage}): {error.log}"
            print(_diagnostic(setup.source_path, Category.TARGET, message), file=setup.stderr)
            return 1
        try:
            pixels = renderer.render_final(width, height)
        except GLError as error:
            print(f"{png_path}: error: {gl_failure(error, width, height)}", file=setup.stderr)
            return 1
    finally:
        renderer.release()
        context.done()
    if not rgba_to_qimage(pixels).save(png_path, "PNG"):  # type: ignore[call-overload]  # PySide6 6.11 takes the format as str at run time; types-PySide6 6.10 says bytes
        print(f"{png_path}: error: cannot write the PNG file", file=setup.stderr)
        return 1
    return 0


def _cpu_screenshot(verified: Any, setup: _Setup, width: int, height: int, png_path: str) -> int:
    """The same frame drawn by the VPL interpreter (`CpuRenderer`), written without Qt."""
    from app.preview.cpu_renderer import CpuRenderer
    from vpl_core.interp import InterpreterError
    from vpl_core.interp.png import write_png

    renderer = CpuRenderer()
    setup.apply(renderer)
    try:
        renderer.set_program(verified)
        if setup.passes is not None and setup.passes.plan is not None:
            from app.preview.cpu_passes import pass_textures, run_plan_cpu

            plan = setup.passes.plan
            renderer.set_pass_textures(pass_textures(plan, run_plan_cpu(plan, renderer.parameters)), plan.displacement)
        pixels = renderer.render_image(width, height)
    except (InterpreterError, ValueError) as error:
        print(_diagnostic(setup.source_path, Category.TARGET, f"the CPU interpreter cannot draw this module: {error}"),
              file=setup.stderr)
        return 1
    try:
        write_png(png_path, pixels)
    except OSError as error:
        print(f"{png_path}: error: cannot write the PNG file ({error.strerror or error})", file=setup.stderr)
        return 1
    return 0


def saved_stage(source_path: str, notes: list[str] | None = None) -> Any:
    """The `Stage` saved with the document at `source_path` (its mesh and environment files resolved against
    the document's folder), or None: a plain module, a document without one, or a file that cannot be read
    (the rendering reports that). A saved value that is not used (out of range, a missing file) keeps the
    default and gets a line in `notes`."""
    from app.material.document import load_text
    from app.preview.stage import Stage
    from app.session.stage_files import resolved_stage
    from vpl_core.external_files import read_external

    try:
        data = read_external(source_path, "document")
    except OSError:
        return None
    graph = load_text(data, source_path).graph
    if graph is None or graph.stage is None:
        return None
    return Stage.from_dict(resolved_stage(graph.stage, Path(source_path).resolve().parent), notes)


def ensure_gui_application() -> Any:
    """The QGuiApplication (made if needed); None when there is no display, where Qt would abort instead.

    PyOpenGL is pointed at the window-system API of Qt's platform
    (`app.preview.context.align_pyopengl_platform`).
    """
    from PySide6.QtGui import QGuiApplication

    from app.preview.context import align_pyopengl_platform

    application = QGuiApplication.instance()
    if application is None:
        platform = os.environ.get("QT_QPA_PLATFORM", "")
        if not platform and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            return None  # Qt would abort the process instead of reporting
        application = QGuiApplication([sys.argv[0] if sys.argv else "vpl-editor"])
    align_pyopengl_platform(application.platformName())
    return application


def parse_size(text: str) -> tuple[int, int]:
    """'WxH' -> (W, H); raises ValueError for anything else."""
    width, separator, height = text.lower().partition("x")
    if not separator:
        raise ValueError(f"expected WIDTHxHEIGHT, not {text!r}")
    size = (int(width), int(height))
    if size[0] < 1 or size[1] < 1 or size[0] > 16384 or size[1] > 16384:
        raise ValueError(f"the size must be between 1x1 and 16384x16384, not {text!r}")
    return size


def main(argv: list[str] | None = None) -> int:
    """`python -m app.preview.screenshot FILE PNG [WxH]` (the editor's flag calls preview_screenshot).

    The profile comes from `VPL_PREVIEW_GL` (default auto).
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if len(arguments) not in (2, 3):
        print("usage: python -m app.preview.screenshot FILE PNG [WIDTHxHEIGHT]", file=sys.stderr)
        return 2
    try:
        size = parse_size(arguments[2]) if len(arguments) == 3 else DEFAULT_SIZE
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return preview_screenshot(arguments[0], arguments[1], size)


if __name__ == "__main__":
    sys.exit(main())
