"""Fuzz targets for numbers from files and command lines: stage objects and `--set` values.

`check_stage(data)`: a document's `stage` object (any JSON, kept as the
document reader keeps it) goes through `Stage.from_dict` and onto a `PreviewState`; nothing may raise, every value
of the stage and of the scene record it gives must be finite, and each
value not used must have a note. `check_set(text)`: one `--set` text
against a module with a uniform of every kind (`vpl run`) and against a
material's parameters (`vpl-editor`); the only errors are `UsageError` /
`ValueError` with one line, and an accepted value must be one the
interpreter and the renderer take. The inputs come from `random_stage` and
`random_assignment`, which mix valid values with hostile ones (huge and
non-finite numbers, wrong arities and types, deep nesting, garbage).
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import numpy as np

from app.material.graph import stage_data
from app.material.parameters import ParameterSpec, specs_from_module
from app.preview.preview_state import PreviewState
from app.preview.screenshot import parse_assignment
from app.preview.stage import Stage
from vpl_core.interp.lanes import from_python
from vpl_core.interp.run import UsageError, uniform_settings
from vpl_core.ir.module import Module
from vpl_core.publish import VerifiedModule

STAGE_KEYS = ("mesh", "environment", "environment_rotation", "environment_intensity", "background", "background_color",
              "exposure", "tone_mapper", "light_azimuth", "light_elevation", "light_color", "light_intensity",
              "light_enabled", "shadows", "ground", "occlusion", "camera")

UNIFORMS_MODULE = """(module 1
  (types (type Void void) (type Bool bool) (type Int int) (type Float float) (type Vec3 vector float 3)
    (type Vec4 vector float 4) (type Mat2 matrix 2 2) (type Sampler sampler2D)
    (type Light record "Light" (field "power" Float) (field "tint" Vec3)))
  (uniforms (scalar roughness "roughness" Float) (scalar count "count" Int) (scalar flag "flag" Bool)
    (scalar tint "tint" Vec4) (scalar turn "turn" Mat2) (record light "light" Light)
    (array palette "palette" Vec3 2) (scalar image "image" Sampler))
  (vertex main (interface (out clip "clip" Vec4 -1 position))
    (functions (function main "vertex_main" Void (parameters) (registers (register r0 Vec4))
      (block entry (construct r0 (float 1.0)) (store (stage clip) r0) (return)))))
  (fragment main (interface (out color "color" Vec4 0 fragment_color))
    (functions (function main "fragment_main" Void (parameters) (registers (register r0 Vec4))
      (block entry (load r0 (uniform tint)) (store (stage color) r0) (return))))))
"""

_MODULE: Module = VerifiedModule.from_text(UNIFORMS_MODULE, "uniforms").materialize()
_SPECS: list[ParameterSpec] = specs_from_module(_MODULE)
_NUMBERS: tuple[Any, ...] = (0, 1, -1, 0.5, 3.0, 32, 33, -90, 360, 1e6, 1e6 + 1, 1e38, 1e39, 1e308, -1e308, 10 ** 400,
                             -(10 ** 400), float("nan"), float("inf"), -float("inf"), 2 ** 31, 2 ** 63, 2 ** 64, 1e-320)


def random_number(rng: random.Random) -> Any:
    choice = rng.random()
    if choice < 0.5:
        return rng.choice(_NUMBERS)
    if choice < 0.8:
        return rng.uniform(-1e3, 1e3)
    return rng.randint(-10 ** rng.randint(0, 40), 10 ** rng.randint(0, 40))


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """Any JSON-like value (NaN and infinities included, as a hand-edited or hostile file may hold)."""
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind <= 1:
        return random_number(rng)
    if kind == 2:
        return rng.choice(["", "sphere", "studio", "none", "aces", "color", "1e999", "nan", "x.obj", "\u00e9", "1,2,3"])
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return [random_number(rng) for _ in range(rng.choice([0, 1, 2, 3, 3, 3, 4, 5]))]
    if kind in (5, 6):
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice([*STAGE_KEYS, "x", ""]): random_json(rng, depth + 1) for _ in range(rng.randrange(3))}


def random_stage(rng: random.Random) -> Any:
    """A stage object: mostly a dict of the stage's keys, sometimes anything at all."""
    if rng.random() < 0.05:
        return random_json(rng)
    return {key: random_json(rng) for key in rng.sample(STAGE_KEYS, rng.randint(1, len(STAGE_KEYS)))}


_NAMES = ("roughness", "count", "flag", "tint", "turn", "light", "light.power", "light.tint", "palette", "palette[1]",
          "palette[7]", "light.nothing", "image", "missing", "roughness[0]", "")


def random_value_text(rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.3:
        return json.dumps(random_json(rng), allow_nan=True)
    if choice < 0.55:
        return ",".join(_number_text(rng) for _ in range(rng.choice([1, 1, 2, 3, 4, 5])))
    if choice < 0.65:
        depth = rng.choice([1, 2, 31, 32, 33, 1000, 100_000])
        return rng.choice("[{") * depth + rng.choice(["", "1", "]" * depth])
    if choice < 0.75:
        return "#" + "".join(rng.choice("0123456789abcdefgX") for _ in range(rng.choice([3, 6, 6, 7])))
    if choice < 0.85:
        return rng.choice(["true", "false", "TRUE", "", " ", "@", "nan", "-inf", "1e", "0x10", "1_000", "\u0661"])
    text = list(json.dumps(random_json(rng)))
    for _ in range(rng.randint(1, 4)):  # a few characters changed: broken JSON, stray separators
        if text:
            text[rng.randrange(len(text))] = rng.choice("[]{},:\"0-e. \\")
    return "".join(text)


def _number_text(rng: random.Random) -> str:
    value = random_number(rng)
    if rng.random() < 0.2:
        return rng.choice(["nan", "inf", "-Infinity", "1e39", "9" * rng.choice([10, 400, 5000]), " 2 ", "", "x"])
    return repr(value) if isinstance(value, float) else str(value)


def random_assignment(rng: random.Random) -> str:
    separator = "=" if rng.random() < 0.95 else rng.choice(["", "==", ":"])
    return f"{rng.choice(_NAMES)}{separator}{random_value_text(rng)}"


class Finding(AssertionError):  # noqa: N818 - what a fuzzer reports
    """An input that broke a rule of the target; the message says which and shows the input."""


def _finite(value: Any) -> bool:
    array = np.asarray(value, dtype=np.float64)
    return bool(np.isfinite(array).all())


def check_stage(data: Any) -> None:
    """Rules for a stage object read from a document (see the module docstring).

    It goes through `stage_data` first, as the document reader keeps it (an object that is not finite JSON
    is dropped whole there); the raw value must not break `Stage.from_dict` either.
    """
    Stage.from_dict(data, [])
    data = stage_data(data)
    notes: list[str] = []
    stage = Stage.from_dict(data, notes)
    numbers = [stage.environment_rotation, stage.environment_intensity, stage.exposure, stage.light_azimuth,
               stage.light_elevation, stage.light_intensity, *stage.background_color, *stage.light_color,
               *stage.camera_view]
    if not _finite(numbers):
        raise Finding(f"a stage value is not finite: {stage!r} from {data!r}")
    if isinstance(data, dict):
        default = Stage()
        for key in STAGE_KEYS:
            # A value not used (the default kept) needs a note, unless it reads as the default (0 for 0.0).
            dropped = key in data and getattr(stage, key) == getattr(default, key) and not _same(data[key], getattr(default, key))
            if dropped and not any(note.startswith(f"the stage's {key}:") for note in notes):
                raise Finding(f"the stage's {key} {data[key]!r} was dropped without a note")
        if any("\n" in note for note in notes):
            raise Finding(f"a note is not one line: {notes!r}")
    state = PreviewState()
    stage.apply(state)
    scene = state.scene_values(64, 64)
    for name, value in scene.items():
        if isinstance(value, (int, float, tuple, list, np.ndarray)) and not _finite(np.asarray(value, dtype=np.float32)):
            raise Finding(f"the scene value {name} is not finite in 32 bits: {value!r} from {data!r}")
    json.dumps(stage.to_dict(), allow_nan=False)


def _same(stored: Any, default: Any) -> bool:
    try:
        return bool(np.array_equal(np.asarray(stored, dtype=np.float64), np.asarray(default, dtype=np.float64)))
    except (TypeError, ValueError, OverflowError):
        return stored == default


def check_set(text: str) -> None:
    """Rules for one `--set` text (see the module docstring)."""
    try:
        values, images = uniform_settings(_MODULE, [text])
    except UsageError as error:
        if "\n" in str(error) or not str(error):
            raise Finding(f"--set {text[:80]!r}: the error is not one line: {error!r}") from None
    else:
        types = {uniform.name: uniform.type for uniform in _MODULE.uniforms}
        for name, value in values.items():
            try:
                from_python(types[name], value)
            except ValueError as error:
                raise Finding(f"--set {text[:80]!r} was accepted but the interpreter refuses {value!r}: {error}") from None
            if not _finite_tree(value):
                raise Finding(f"--set {text[:80]!r} gave a value that is not finite: {value!r}")
        if images and not all(isinstance(path, str) for path in images.values()):
            raise Finding(f"--set {text[:80]!r} gave an image that is not a path: {images!r}")
    for radiance in (False, True):
        try:
            _name, value = parse_assignment(text, _SPECS, radiance)
        except ValueError as error:
            if "\n" in str(error) or not str(error):
                raise Finding(f"--set {text[:80]!r}: the editor's error is not one line: {error!r}") from None
            continue
        if not isinstance(value, str) and not _finite(np.asarray(value, dtype=np.float32)):
            raise Finding(f"the editor took --set {text[:80]!r} as {value!r}, which is not finite in 32 bits")


def _finite_tree(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, np.ndarray):
            if not np.isfinite(item.astype(np.float64)).all():
                return False
        elif isinstance(item, float) and not math.isfinite(item):
            return False
    return True
