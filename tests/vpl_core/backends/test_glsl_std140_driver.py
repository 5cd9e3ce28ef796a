"""std140 block layout checked against the driver (spec 12.1): arrays of matrices, vec3 + float, arrays of records.

The offsets the backend reflects must be the ones Mesa reports for the same
compiled block, and whole-block loads must read the right values.
"""

from __future__ import annotations

import re

import glsl_harness as harness
import numpy as np
import pytest
from OpenGL import GL

from vpl_core.backends.glsl import compile_source, std140

TARGETS = ("glsl420", "es300", "es320")




# std140: arrays of matrices, vec3 + float packing, arrays of records, whole-block loads -------------------

STD140_SOURCE = """
(module 1
  (types
    (type Void void)
    (type Int int)
    (type Float float)
    (type Vec2 vector float 2)
    (type Vec3 vector float 3)
    (type Vec4 vector float 4)
    (type Mat32 matrix 2 3)
    (type Mat23 matrix 3 2)
    (type Mat32s array Mat32 2)
    (type Light record "Light" (field "dir" Vec3) (field "k" Float))
    (type Lights array Light 2)
    (type Floats array Float 2)
    (type Inner record "Inner" (field "xs" Floats) (field "l" Light))
    (type B record "B"
      (field "a" Float)
      (field "ms" Mat32s)
      (field "v" Vec3)
      (field "f" Float)
      (field "lights" Lights)
      (field "w" Vec2)
      (field "g" Float)
      (field "m23" Mat23)
      (field "i" Int)
      (field "inner" Inner)
      (field "z" Float)))
  (uniforms (record b "b" B))
""" + harness.PASS_THROUGH_VERTEX_STAGE + """
  (fragment main
    (interface (out color "color" Vec4 0 fragment_color))
    (functions
      (function main "fragment_main" Void
        (parameters)
        (registers (register r0 B) (register r1 Lights) (register r2 Light) (register r3 Float)
                   (register r4 Mat32s) (register r5 Mat32) (register r6 Vec2) (register r7 Float)
                   (register r8 Float) (register r9 Inner) (register r10 Floats) (register r11 Float)
                   (register r12 Float) (register r13 Vec4) (register r14 Float) (register r15 Float)
                   (register r16 Vec3))
        (block entry
          (load r0 (uniform b))
          (member r1 r0 "lights")
          (index r2 r1 (int 1))
          (member r3 r2 "k")
          (member r4 r0 "ms")
          (index r5 r4 (int 1))
          (construct r16 (float 0.0) (float 0.0) (float 1.0))
          (multiply r6 r5 r16)
          (swizzle r7 r6 "y")
          (member r8 r0 "g")
          (member r9 r0 "inner")
          (member r10 r9 "xs")
          (index r11 r10 (int 1))
          (member r12 r0 "z")
          (add r11 r11 r12)
          (member r14 r0 "f")
          (member r15 r0 "a")
          (add r14 r14 r15)
          (construct r13 r3 r7 r11 r14)
          (store (stage color) r13)
          (return))))))
"""


@pytest.mark.gl
@pytest.mark.parametrize("target", TARGETS)
def test_std140_offsets_of_matrix_arrays_and_record_arrays_match_the_driver(
    target: str, request: pytest.FixtureRequest
) -> None:
    request.getfixturevalue("current_gl" if target == "glsl420" else "current_gles")
    es = target != "glsl420"
    artifact = compile_source(STD140_SOURCE, target=target)
    (binding,) = artifact.uniforms
    program = harness.build_program(artifact, es=es)
    try:
        driver_size = harness.block_data_size(program, binding)
        assert driver_size is not None and binding.block_size - 16 < driver_size <= binding.block_size
        checked = 0
        for selector, offset, _ in std140.member_offsets(binding.type):
            if re.search(r"\[[1-9][0-9]*\]$", selector):
                continue  # GL names a basic-type array by its [0] element only
            driver = harness.block_member_offset(program, f"{binding.block_name}.{selector}")
            assert driver is not None, selector
            assert driver == offset, f"{selector}: driver {driver}, std140 {offset}"
            checked += 1
        assert checked >= 15
    finally:
        GL.glDeleteProgram(program)
    # Every value read through a whole-block load lands where std140 put it.
    column = np.zeros((3, 2), dtype=np.float32)
    column[2] = (0.25, 0.5)
    values = {
        "vpl_m0": 0.125,
        "vpl_m1[1]": column,
        "vpl_m3": 0.5,
        "vpl_m4[1].vpl_m1": 1.0,
        "vpl_m9.vpl_m0[1]": 0.25,
        "vpl_m10": 0.5,
    }
    pixels = harness.render(artifact, harness.Inputs(uniforms={"b": values}), es=es)
    assert tuple(pixels[1, 1]) == (255, 128, 191, 159)
