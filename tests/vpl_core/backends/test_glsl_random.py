"""Property: random valid modules (glsl_random_modules.py) compile for every target into code that
glslangValidator accepts per stage and linked, and that the native drivers compile and link.

Goldens pin down known shapes; this finds shapes nobody wrote a golden for
(it found that a non-void function ending in discard needs a return).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import glsl_harness as harness
import pytest
from glsl_random_modules import RandomModule
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.publish import VerifiedModule

TARGETS = ("glsl420", "es300", "es320")
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)


def _validate(validator: str, vertex_code: str, fragment_code: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        vertex = Path(directory, "random.vert.glsl")
        fragment = Path(directory, "random.frag.glsl")
        vertex.write_text(vertex_code, encoding="utf-8")
        fragment.write_text(fragment_code, encoding="utf-8")
        # One run checks each stage and the two linked: `-l` compiles every stage as it would alone (an error in
        # either fails the run) before it links them.
        arguments = ["-l", str(vertex), str(fragment)]
        result = subprocess.run([validator, *arguments], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, (
            f"glslangValidator {arguments}: {result.stdout}{result.stderr}\n--- vertex ---\n{vertex_code}"
            f"\n--- fragment ---\n{fragment_code}"
        )


@pytest.mark.glslang
@SETTINGS
@given(data=st.data())
def test_random_modules_pass_glslang_for_every_target(data: st.DataObject, glslang_validator: str) -> None:
    verified = VerifiedModule.create(RandomModule(data).build())
    for target in TARGETS:
        artifact = compile_glsl(verified, target=target)
        _validate(glslang_validator, artifact.vertex_code, artifact.fragment_code)


@pytest.mark.gl
@settings(SETTINGS, max_examples=25)
@given(data=st.data())
def test_random_modules_link_on_the_gl_420_driver(data: st.DataObject, current_gl: object) -> None:
    from OpenGL import GL

    verified = VerifiedModule.create(RandomModule(data).build())
    GL.glDeleteProgram(harness.build_program(compile_glsl(verified, target="glsl420")))


@pytest.mark.gl
@settings(SETTINGS, max_examples=25)
@given(data=st.data())
def test_random_modules_link_on_the_es_driver(data: st.DataObject, current_gles: object) -> None:
    from OpenGL import GL

    verified = VerifiedModule.create(RandomModule(data).build())
    for target in ("es300", "es320"):
        GL.glDeleteProgram(harness.build_program(compile_glsl(verified, target=target), es=True))
