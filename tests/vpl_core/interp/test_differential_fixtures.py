"""Differential testing on every checked-in module: golden fixtures, spec examples, built-in programs, example materials.

Each module is drawn as a full-screen pass by the interpreter (with
precision tracking) and by its GLSL on the driver (float and int
attachments read back exactly), and compared as the random modules are
(`differential.compare_frames`). Uniforms get deterministic values from the
module's name: matrices identity (so vertex transforms keep the full-screen
triangle on screen), other numbers pseudo-random in [0, 1] (ints 0..4),
samplers a random mipmapped texture.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from differential import compare_frames
from gl_float import render_outputs

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.interp import Program, SamplerState, Texture2D, fullscreen_mesh, render
from vpl_core.interp.texture import Filter
from vpl_core.ir.types import ArrayType, MatrixType, RecordType, SamplerType, ScalarKind, ScalarType, Type, VectorType
from vpl_core.publish import VerifiedModule

pytestmark = pytest.mark.gl

ROOT = Path(__file__).resolve().parents[3]
SOURCES = (
    sorted((ROOT / "tests" / "golden").glob("*.vpl"))
    + sorted((ROOT / "tests" / "data" / "spec").glob("*.vpl"))
    + sorted((ROOT / "resources" / "programs").glob("*.vpl"))
    + sorted((ROOT / "resources" / "examples").glob("*.vpl"))
)
WIDTH, HEIGHT = 20, 12


def _value(value_type: Type, rng: np.random.Generator) -> Any:
    if isinstance(value_type, ScalarType):
        if value_type.kind is ScalarKind.FLOAT:
            return float(np.float32(rng.uniform(0.0, 1.0)))
        if value_type.kind is ScalarKind.INT:
            return int(rng.integers(0, 5))
        return bool(rng.integers(0, 2))
    if isinstance(value_type, VectorType):
        return [_value(value_type.element, rng) for _ in range(value_type.size)]
    if isinstance(value_type, MatrixType):
        return np.eye(value_type.rows, value_type.columns)
    if isinstance(value_type, ArrayType):
        return [_value(value_type.element, rng) for _ in range(value_type.count)]
    if isinstance(value_type, RecordType):
        return {field.name: _value(field.type, rng) for field in value_type.fields}
    if isinstance(value_type, SamplerType):
        image = rng.integers(0, 256, size=(8, 8, 4), dtype=np.uint8)
        return Texture2D.from_image(image, sampler=SamplerState(min_filter=Filter.LINEAR_MIPMAP_LINEAR))
    raise TypeError(value_type)


def _targets(verified: VerifiedModule) -> list[str]:
    from vpl_core.diagnostics import TargetError

    targets = []
    for target in ("glsl420", "es320"):
        try:
            compile_glsl(verified, target=target)
        except TargetError:
            continue  # a module the target rejects on purpose (the restriction fixtures)
        targets.append(target)
    return targets


@pytest.mark.parametrize("path", SOURCES, ids=[f"{path.parent.name}/{path.stem}" for path in SOURCES])
def test_checked_in_module_agrees_with_the_driver(path: Path, gl_context: Any, gles_context: Any) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        verified = VerifiedModule.from_text(text, path.name)
    except Exception as error:  # noqa: BLE001 - a fixture that is meant to be invalid is not a program to run
        pytest.fail(f"{path} does not verify: {error}")
    program = Program.from_verified(verified)
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    uniforms = {uniform.name: _value(uniform.type, rng) for uniform in program.module.uniforms}
    cpu = render(program, fullscreen_mesh(), WIDTH, HEIGHT, uniforms=uniforms, depth_test=False, tracked=True)
    targets = _targets(verified)
    assert targets, f"{path.name} compiles for no target"
    for target in targets:
        (gles_context if target.startswith("es") else gl_context).make_current()
        gpu = render_outputs(compile_glsl(verified, target=target), WIDTH, HEIGHT, uniforms=uniforms)
        agreement = compare_frames(program, compile_glsl(verified, target=target), cpu, gpu)
        assert not agreement.failures, f"{path.name} ({target}): {agreement.summary()}\n" + "\n".join(agreement.failures[:20])
