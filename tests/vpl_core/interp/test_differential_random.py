"""Differential testing: random verified modules through the interpreter and through the GLSL backend on a real driver.

Each Hypothesis example is a module from `random_programs.RandomProgram`
(random types, control flow with loops, early returns and discards, calls,
aggregates, every math operation) with random uniform values and textures.
The interpreter renders its full-screen pass with precision tracking; the
backend's code for the profile renders the same pass on the driver (Mesa
llvmpipe here: OpenGL 4.5 core for `glsl420`, OpenGL ES 3.2 for `es320`)
into float and int attachments read back exactly; `differential.compare_frames`
compares them within the radii GLSL's precision rules allow
(docs/interpreter.md, "Differential testing").

CI runs `CI_EXAMPLES` modules per profile, derandomized (the same modules
every run); `VPL_DIFFERENTIAL_EXAMPLES=N` runs N fresh random modules per
profile instead (the long mode). A module-scoped check fails the run when
the comparisons were mostly vacuous (too few components compared).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace

import pytest
from differential import Agreement, compare_frames
from gl_float import render_outputs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from OpenGL import GL
from random_programs import RandomProgram

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl.limits import ES3_MINIMUMS, GL42_MINIMUMS
from vpl_core.interp import Program, fullscreen_mesh, render
from vpl_core.publish import VerifiedModule

CI_EXAMPLES = 40
LONG_EXAMPLES = int(os.environ.get("VPL_DIFFERENTIAL_EXAMPLES", "0") or 0)
WIDTH, HEIGHT = 24, 16
#: At least this share of the components of all frames must have been compared.
MINIMUM_COMPARED_SHARE = 0.5

SETTINGS = settings(
    max_examples=LONG_EXAMPLES or CI_EXAMPLES,
    derandomize=not LONG_EXAMPLES,
    deadline=None,
    database=None if not LONG_EXAMPLES else settings.default.database,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture,
                           HealthCheck.filter_too_much],
)


@pytest.fixture(scope="module")
def totals() -> Iterator[dict[str, Agreement]]:
    collected: dict[str, Agreement] = {}
    yield collected
    for target, agreement in collected.items():
        total = agreement.compared + agreement.excluded
        print(f"\ndifferential {target}: {agreement.summary()}")
        assert total and agreement.compared >= MINIMUM_COMPARED_SHARE * total, (
            f"{target}: the comparison was mostly vacuous: {agreement.summary()}")


def _check(data: st.DataObject, target: str, totals: dict[str, Agreement]) -> None:
    generator = RandomProgram(data)
    module = generator.build()
    verified = VerifiedModule.create(module, label="random.vpl")
    # The random programs use up to five draw buffers (a float pair at location 3);
    # ES 3 guarantees four, so pass the context's own count, as a host that queried it would.
    minimums = GL42_MINIMUMS if target == "glsl420" else ES3_MINIMUMS
    limits = replace(minimums, draw_buffers=int(GL.glGetIntegerv(GL.GL_MAX_DRAW_BUFFERS)))
    artifact = compile_glsl(verified, target=target, limits=limits)
    program = Program.from_verified(verified)
    cpu = render(program, fullscreen_mesh(), WIDTH, HEIGHT, uniforms=generator.uniform_values, depth_test=False, tracked=True)
    gpu = render_outputs(artifact, WIDTH, HEIGHT, uniforms=generator.uniform_values)
    agreement = compare_frames(program, artifact, cpu, gpu)
    totals.setdefault(target, Agreement()).add(Agreement(agreement.compared, agreement.excluded, agreement.unstable_pixels,
                                                         agreement.discarded_pixels, agreement.pixels))
    assert not agreement.failures, (
        f"{target}: the interpreter and the driver disagree ({agreement.summary()}):\n"
        + "\n".join(agreement.failures[:20]) + "\n--- module ---\n" + verified.text
        + f"\n--- uniforms ---\n{generator.uniform_values!r}")


@pytest.mark.gl
@SETTINGS
@given(data=st.data())
def test_random_modules_agree_on_desktop_gl(data: st.DataObject, current_gl: object, totals: dict[str, Agreement]) -> None:
    _check(data, "glsl420", totals)


@pytest.mark.gl
@SETTINGS
@given(data=st.data())
def test_random_modules_agree_on_gles(data: st.DataObject, current_gles: object, totals: dict[str, Agreement]) -> None:
    _check(data, "es320", totals)
