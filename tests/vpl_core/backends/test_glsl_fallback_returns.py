"""The unreachable fallback return of a non-void dispatch function (spec 12.3).

Array lengths up to 2^31-1 are within the target (spec 12.4): the fallback
must not spell one constructor operand per element, and it must pass
glslangValidator and link on the driver for every target.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import glsl_harness as harness
import pytest
from OpenGL import GL

from vpl_core.backends.glsl import compile_source

TARGETS = ("glsl420", "es300", "es320")


def _validate(validator: str, tmp_path: Path, artifact, name: str = "case") -> None:
    vertex = tmp_path / f"{name}.vert"
    fragment = tmp_path / f"{name}.frag"
    vertex.write_text(artifact.vertex_code, encoding="utf-8")
    fragment.write_text(artifact.fragment_code, encoding="utf-8")
    # -l compiles each stage on its own (its errors under its file's name), then links.
    result = subprocess.run([validator, "-l", str(vertex), str(fragment)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{name}: {result.stdout}{result.stderr}"




# The unreachable fallback return of a non-void dispatch function (spec 12.3) -------------------------

def _array_returning_source(count: int) -> str:
    return """
(module 1
  (types
    (type Void void)
    (type Bool bool)
    (type Float float)
    (type Vec3 vector float 3)
    (type Vec4 vector float 4)
    (type Big array Float COUNT)
    (type Holder record "Holder" (field "values" Big)))
  (uniforms (scalar flag "flag" Bool) (array big "big" Float COUNT))
""".replace("COUNT", str(count)) + harness.PASS_THROUGH_VERTEX_STAGE + """
  (fragment main
    (interface (out color "color" Vec4 0 fragment_color))
    (functions
      (function main "fragment_main" Void
        (parameters)
        (registers (register r0 Big) (register r1 Float) (register r2 Vec4) (register r3 Holder))
        (block entry
          (call r0 get)
          (call r3 wrap)
          (index r1 r0 (int 1))
          (construct r2 r1)
          (store (stage color) r2)
          (return)))
      (function get "get" Big
        (parameters)
        (registers (register r0 Big) (register r1 Bool))
        (block entry
          (load r0 (uniform big))
          (load r1 (uniform flag))
          (branch_if r1 found missing))
        (block found
          (return r0))
        (block missing
          (discard)))
      (function wrap "wrap" Holder
        (parameters)
        (registers (register r0 Big))
        (block entry
          (load r0 (uniform big))
          (discard))))))
"""


def test_fallback_return_of_a_long_array_does_not_spell_every_element() -> None:
    # Array lengths up to 2^31-1 are within the target (spec 12.4); the fallback after
    # the dispatch loop (and after a straight-line discard) must not be a constructor
    # with one operand per element, which needs gigabytes for such a length.
    artifact = compile_source(_array_returning_source(2**31 - 1))
    assert len(artifact.fragment_code) < 5000
    assert "float vpl_fallback[2147483647];" in artifact.fragment_code


@pytest.mark.glslang
@pytest.mark.parametrize("target", TARGETS)
def test_array_fallback_return_passes_glslang(target: str, glslang_validator: str, tmp_path: Path) -> None:
    _validate(glslang_validator, tmp_path, compile_source(_array_returning_source(3), target=target))


@pytest.mark.gl
@pytest.mark.parametrize("target", TARGETS)
def test_array_fallback_return_links_on_the_driver(target: str, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue("current_gl" if target == "glsl420" else "current_gles")
    artifact = compile_source(_array_returning_source(3), target=target)
    GL.glDeleteProgram(harness.build_program(artifact, es=target != "glsl420"))
