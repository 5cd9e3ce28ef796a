"""`vpl run FILE --size WxH [--mesh NAME] [--set NAME=VALUE ...] --out PNG`: render a module on the CPU.

The file is read and verified, published as a `VerifiedModule` and drawn
by the interpreter; the FragmentColor output becomes an RGBA8 PNG (values
clamped to [0, 1], as GL stores them in an RGBA8 framebuffer).

- Without `--mesh`, for a module that does not read the editor's scene
  (no record uniform `scene`): a full-screen pass (`fullscreen_mesh`: one
  triangle over the viewport, positions at location 0, normals at 1,
  texture coordinates 0..1 over the viewport at 2). Uniforms not set read
  zero, as GL initialises them; unbound samplers read (0, 0, 0, 1).
- With `--mesh NAME` (sphere, cube, plane, ...), and by default (the
  sphere) for a module that reads the editor's scene (an editor material:
  in a full-screen pass its matrices read zero and nothing would be
  drawn) when a preview scene is installed: the editor's preview scene
  (that mesh, the default camera, light and background, the `scene`
  record, the checker texture), as `vpl-editor --preview-screenshot`
  shows it but drawn without a GPU. The scene comes from the entry-point
  group `vpl.scenes` (`SCENE_GROUP`), which the editor's package
  registers, so `vpl_core` never imports it.

`--set NAME=VALUE` sets a uniform (repeatable). VALUE is a number, `true`
or `false`; numbers separated by commas (a vector, an array of scalars, or
a matrix row by row); JSON (`[[1, 0], [0, 1]]`, `{"field": 1}`) for any
value; or `@image.png` for a sampler. `NAME` may select a record field
(`light.color=1,0,0`) or an array element (`palette[2]=0,1,0,1`).

Every number is finite and within 32-bit range, and each value must have
its uniform's shape (one number for a scalar, exactly N for a vector, ...);
JSON nests at most `vpl_core.numbers.MAX_VALUE_DEPTH` deep.

A frame in which no fragment was written (the vertex stage put every
triangle outside it, or every fragment was discarded) is still written,
with a note on stderr saying so.

Exit status 0 when the PNG was written; 2 for a command-line value that
cannot be used (`--size`, `--mesh`, `--set`: `FILE: error: MESSAGE`); 1
otherwise (`FILE:LINE:COLUMN: CATEGORY error: MESSAGE` for reading and
verification errors, `FILE: error: MESSAGE` for everything else).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from vpl_core.diagnostics import VplError
from vpl_core.ir.module import Module
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, SamplerType, ScalarKind, ScalarType, Type, VectorType
from vpl_core.numbers import NumberError, parse_value

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    import numpy as np

    from vpl_core.interp.pipeline import RenderResult

# numpy and the interpreter are imported when a frame is rendered, not when `vpl` parses its arguments.

_SIZE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")
_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")
MAX_PIXELS = 1 << 24
#: The exit status of a command-line value that cannot be used (as argparse's usage errors).
USAGE_ERROR = 2
#: The uniform of the editor's preview scene (app/material/scene.py, SCENE_UNIFORM_NAME), and the mesh a
#: module that reads it is drawn on when `--mesh` is not given (the preview's default).
PREVIEW_SCENE_UNIFORM = "scene"
DEFAULT_SCENE_MESH = "sphere"


class UsageError(ValueError):
    """A command-line value that cannot be used; the message says why."""


def parse_size(text: str) -> tuple[int, int]:
    match = _SIZE.match(text)
    if match is None:
        raise UsageError(f"--size must be WIDTHxHEIGHT (for example 256x256), not {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if width < 1 or height < 1 or width * height > MAX_PIXELS:
        raise UsageError(f"--size must be positive and at most {MAX_PIXELS} pixels, not {width}x{height}")
    return width, height


def _split_assignment(text: str) -> tuple[str, list[str | int], str]:
    name_part, separator, value = text.partition("=")
    if not separator or not name_part.strip():
        raise UsageError(f"--set takes NAME=VALUE, not {text!r}")
    name_part = name_part.strip()
    head = re.match(r"^[^.\[\]]+", name_part)
    if head is None:
        raise UsageError(f"--set: {name_part!r} does not start with a uniform name")
    steps: list[str | int] = []
    rest = name_part[head.end():]
    position = 0
    while position < len(rest):
        step = _PATH_STEP.match(rest, position)
        if step is None:
            raise UsageError(f"--set: cannot read {name_part!r} (use NAME.field or NAME[index])")
        steps.append(step.group(1) if step.group(1) is not None else int(step.group(2)))
        position = step.end()
    return head.group(0), steps, value.strip()


def _parse_value(text: str, name: str) -> Any:
    if text.startswith("@"):
        return ("image", text[1:])
    try:
        return parse_value(text, f"--set {name}")
    except NumberError as error:
        raise UsageError(str(error)) from None


def _check_value(value_type: Type, value: Any, name: str) -> None:
    """`value` has the shape and range of `value_type` (as `from_python` takes it); UsageError naming `name`.

    Walks the value with an explicit stack (its nesting is bounded by the parser and by the type).
    """
    stack: list[tuple[Type, Any, str]] = [(value_type, value, name)]
    while stack:
        expected, item, where = stack.pop()
        if isinstance(expected, ScalarType):
            if isinstance(item, (list, dict)):
                raise UsageError(f"--set {where}: a {expected} takes one value, not {_shown(item)}")
            if not isinstance(item, (bool, int, float)):
                raise UsageError(f"--set {where}: a {expected} takes a number, not {_shown(item)}")
            if expected.kind is ScalarKind.INT and not isinstance(item, bool) and (
                    (isinstance(item, float) and not item.is_integer()) or not -(1 << 31) <= item < (1 << 31)):
                raise UsageError(f"--set {where}: an int takes a whole number from -2147483648 to 2147483647, not {item!r}")
        elif isinstance(expected, VectorType):
            if not isinstance(item, list) or len(item) != expected.size:
                raise UsageError(f"--set {where}: a {expected} takes {expected.size} numbers, not {_shown(item)}")
            stack.extend((expected.element, component, where) for component in item)
        elif isinstance(expected, MatrixType):
            count = expected.rows * expected.columns
            flat = isinstance(item, list) and len(item) == count and not any(isinstance(x, list) for x in item)
            rows = (isinstance(item, list) and len(item) == expected.rows
                    and all(isinstance(row, list) and len(row) == expected.columns for row in item))
            if not (flat or rows):
                raise UsageError(f"--set {where}: a {expected} takes {count} numbers (row by row), not {_shown(item)}")
            numbers = item if flat else [x for row in item for x in row]
            stack.extend((ScalarType(ScalarKind.FLOAT), number, where) for number in numbers)
        elif isinstance(expected, ArrayType):
            if not isinstance(item, list) or len(item) != expected.count:
                raise UsageError(f"--set {where}: an {expected} takes {expected.count} elements, not {_shown(item)}")
            stack.extend((expected.element, element, f"{where}[{index}]") for index, element in enumerate(item))
        elif isinstance(expected, RecordType):
            if not isinstance(item, dict):
                raise UsageError(f"--set {where}: a record takes a JSON object of its fields, not {_shown(item)}")
            for key, field_value in item.items():
                selected = expected.field_named(key)
                if selected is None:
                    raise UsageError(f"--set {where}: has no field {key!r} (fields: {', '.join(f.name for f in expected.fields)})")
                stack.append((selected.type, field_value, f"{where}.{key}"))


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, tuple) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _shape(value_type: Type, value: Any) -> Any:
    """A flat list of numbers given for a matrix is its rows one after the other."""
    import numpy as np

    if isinstance(value_type, MatrixType) and isinstance(value, list) and value and not isinstance(value[0], list):
        if len(value) != value_type.rows * value_type.columns:
            raise UsageError(f"a {value_type} takes {value_type.rows * value_type.columns} numbers, got {len(value)}")
        return np.asarray(value, dtype=np.float64).reshape(value_type.rows, value_type.columns)
    if isinstance(value_type, MatrixType) and isinstance(value, list):
        return np.asarray(value, dtype=np.float64)
    return value


def _zero(value_type: Type) -> Any:
    if isinstance(value_type, ArrayType):
        return [_zero(value_type.element) for _ in range(value_type.count)]
    if isinstance(value_type, RecordType):
        return {field.name: _zero(field.type) for field in value_type.fields}
    if isinstance(value_type, MatrixType):
        return [[0.0] * value_type.columns for _ in range(value_type.rows)]
    if isinstance(value_type, VectorType):
        return [0] * value_type.size
    if isinstance(value_type, ScalarType):
        return 0
    return None


def _assign(current: Any, value_type: Type, steps: list[str | int], value: Any, name: str) -> Any:
    if not steps:
        _check_value(value_type, value, name)
        return _shape(value_type, value)
    step = steps[0]
    if isinstance(value_type, RecordType) and isinstance(step, str):
        selected = value_type.field_named(step)
        if selected is None:
            raise UsageError(f"--set: {name} has no field {step!r} (fields: {', '.join(f.name for f in value_type.fields)})")
        mapping = dict(current) if isinstance(current, dict) else _zero(value_type)
        mapping[step] = _assign(mapping.get(step), selected.type, steps[1:], value, name)
        return mapping
    if isinstance(value_type, ArrayType) and isinstance(step, int):
        if step >= value_type.count:
            raise UsageError(f"--set: {name} has {value_type.count} elements, no element {step}")
        elements = list(current) if isinstance(current, list) else _zero(value_type)
        elements[step] = _assign(elements[step], value_type.element, steps[1:], value, name)
        return elements
    raise UsageError(f"--set: {name} is a {value_type}: {step!r} selects nothing in it")


def uniform_settings(module: Module, assignments: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """(values by uniform name, image paths by sampler name) from the --set arguments."""
    types = {uniform.name: uniform.type for uniform in module.uniforms}
    values: dict[str, Any] = {}
    images: dict[str, str] = {}
    for text in assignments:
        name, steps, raw = _split_assignment(text)
        if name not in types:
            known = ", ".join(sorted(types)) or "none"
            raise UsageError(f"--set: the module has no uniform {name!r} (uniforms: {known})")
        parsed = _parse_value(raw, name)
        if isinstance(parsed, tuple):
            if not isinstance(types[name], SamplerType) or steps:
                raise UsageError(f"--set: {name} is a {types[name]}; only samplers take @image.png")
            images[name] = parsed[1]
            continue
        if isinstance(types[name], SamplerType):
            raise UsageError(f"--set: {name} is a sampler: give @image.png")
        values[name] = _assign(values.get(name), types[name], steps, parsed, name)
    return values, images


def run(arguments: argparse.Namespace) -> int:
    from vpl_core.external_files import read_external
    from vpl_core.interp import to_rgba8
    from vpl_core.interp.lanes import InterpreterError
    from vpl_core.interp.png import PngError, read_png, write_png
    from vpl_core.publish import VerifiedModule
    from vpl_core.text import read

    label = arguments.file
    try:
        source = read_external(arguments.file, "document")
    except OSError as error:
        print(f"{label}: error: cannot read: {error.strerror or error}", file=sys.stderr)
        return 1
    try:
        module = read(source, label=label, strict_v1=arguments.strict_v1)
        verified = VerifiedModule.create(module, label=label)
    except VplError as error:
        print(error.diagnostic.format(), file=sys.stderr)
        return 1
    try:
        width, height = parse_size(arguments.size)
        values, image_paths = uniform_settings(module, arguments.values)
        images = {}
        for name, path in image_paths.items():
            try:
                images[name] = read_png(path)
            except (OSError, PngError) as error:
                raise UsageError(f"--set {name}=@{path}: cannot read the image: {getattr(error, 'strerror', None) or error}") from error
        mesh = arguments.mesh
        if mesh is None and reads_preview_scene(module) and _preview_host_available():
            mesh = DEFAULT_SCENE_MESH
        if mesh is not None:
            result = _render_preview_scene(verified, mesh, width, height, values, images)
        else:
            result = _render_fullscreen(verified, width, height, values, images)
    except UsageError as error:
        print(f"{label}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except InterpreterError as error:
        print(f"{label}: error: {error}", file=sys.stderr)
        return 1
    if not result.written.any():
        where = f"the {mesh} of the preview scene" if mesh is not None else "the full-screen triangle"
        print(f"{label}: note: nothing was drawn: no fragment of {where} was written (the vertex stage put it "
              "outside the frame, or every fragment was discarded); the PNG holds the background only", file=sys.stderr)
    pixels = to_rgba8(result.color)
    try:
        write_png(arguments.out, pixels)
    except OSError as error:
        print(f"{arguments.out}: error: cannot write: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


def reads_preview_scene(module: Module) -> bool:
    """Whether the module reads the editor's preview scene: a record uniform named `scene` (the preview host
    contract), whose matrices only the scene fills (in a full-screen pass they read zero: nothing is drawn)."""
    return any(uniform.name == PREVIEW_SCENE_UNIFORM and isinstance(uniform.type, RecordType) for uniform in module.uniforms)


def _preview_host_available() -> bool:
    """A preview scene is installed (the editor package registers one in `SCENE_GROUP`)."""
    from importlib.metadata import entry_points

    return any(entry.name == "preview" for entry in entry_points(group=SCENE_GROUP))


def _render_fullscreen(verified: Any, width: int, height: int, values: dict[str, Any],
                       images: dict[str, np.ndarray]) -> RenderResult:
    from vpl_core.interp import Program, Texture2D, fullscreen_mesh, render

    program = Program.from_verified(verified)
    uniforms: dict[str, Any] = dict(values)
    for name, image in images.items():
        uniforms[name] = Texture2D.from_image(image)
    return render(program, fullscreen_mesh(), width, height, uniforms=uniforms, depth_test=False)


SCENE_GROUP = "vpl.scenes"
"""Entry-point group of the preview scene `--mesh` draws: `preview` names a factory of a `SceneRenderer`."""


class SceneRenderer(Protocol):
    """What `vpl run --mesh` needs of a preview scene (the editor's `CpuRenderer` is one)."""

    def set_mesh(self, mesh: str) -> None: ...

    def set_program(self, verified: Any) -> object: ...

    def set_parameter(self, name: str, value: Any) -> None: ...

    def set_texture(self, name: str, image: np.ndarray | None) -> None: ...

    def frame(self, width: int, height: int) -> SceneFrame: ...


class SceneFrame(Protocol):
    """One frame of a `SceneRenderer` (the editor's `CpuFrame`)."""

    def draw(self) -> RenderResult: ...


def scene_renderer(entries: Iterable[EntryPoint] | None = None) -> SceneRenderer:
    """A new preview scene from the `preview` entry point of `SCENE_GROUP` (`entries` replaces the
    installed ones in tests); a usage error naming the group when none is installed or it cannot load."""
    if entries is None:
        from importlib.metadata import entry_points

        entries = entry_points(group=SCENE_GROUP)
    found = [entry for entry in entries if entry.name == "preview"]
    if not found:
        raise UsageError(f"--mesh needs the editor's preview scene (entry point 'preview' in group {SCENE_GROUP!r}),"
                         " which this installation does not have")
    try:
        factory = found[0].load()
    except (ImportError, AttributeError) as error:
        raise UsageError(f"--mesh: cannot load the preview scene {found[0].value}: {error}") from error
    renderer: SceneRenderer = factory()
    return renderer


def _render_preview_scene(verified: Any, mesh: str, width: int, height: int, values: dict[str, Any],
                          images: dict[str, np.ndarray]) -> RenderResult:
    renderer = scene_renderer()
    try:
        renderer.set_mesh(mesh)
    except ValueError as error:
        raise UsageError(f"--mesh: {error}") from error
    renderer.set_program(verified)
    for name, value in values.items():
        renderer.set_parameter(name, value)
    for name, image in images.items():
        renderer.set_texture(name, image)
    return renderer.frame(width, height).draw()
