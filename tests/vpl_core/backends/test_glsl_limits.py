"""Resource limits (issue 23 item 7) and the es300 endless-function rule (item 10): target errors.

Each module here is valid VPL that a target cannot run everywhere: resources
beyond the minimum maximums its GL version guarantees, or (es300, the
WebGL 2 target) a function that can never finish. Each rejection says which
object and which limit; a host that knows it has more passes its own
`Limits`. The glslang tests show that without the check the backend would
emit code the reference front end rejects.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest
from test_glsl_restrictions import TARGETS, assert_subject, module_text, publish, rejection

from vpl_core.backends.glsl import UNLIMITED, compile_source, generate, resolve_profile
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl.limits import ES3_MINIMUMS, GL42_MINIMUMS
from vpl_core.diagnostics import TargetError
from vpl_core.ir.module import Function, InterfaceVariable, Uniform


def _fragment_output(location: int) -> dict[str, str]:
    return {
        "fragment_interface": f'(out extra "extra" Vec4 {location} none)',
        "fragment_body": "(store (stage extra) r0)",
    }


def _attribute(location: int) -> dict[str, str]:
    return {
        "vertex_interface": f'(in weight "weight" Float {location} none)',
        "vertex_registers": "(register r1 Float)",
        "vertex_body": "(load r1 (stage weight))",
    }


def _varyings(count: int, location: int = -1) -> dict[str, str]:
    outputs = " ".join(f'(out v{index} "v{index}" Float {location if index == 0 else -1} none)' for index in range(count))
    stores = " ".join(f"(store (stage v{index}) r1)" for index in range(count))
    inputs = " ".join(f'(in v{index} "v{index}" Float {location if index == 0 else -1} none)' for index in range(count))
    loads = " ".join(f"(load r1 (stage v{index}))" for index in range(count))
    return {
        "vertex_interface": outputs,
        "vertex_registers": "(register r1 Float)",
        "vertex_body": f"(copy r1 (float 0.5)) {stores}",
        "fragment_interface": inputs,
        "fragment_registers": "(register r1 Float)",
        "fragment_body": loads,
    }


def _record_uniforms(count: int) -> dict[str, str]:
    uniforms = " ".join(f'(record u{index} "block{index}" Light)' for index in range(count))
    loads = " ".join(f'(load r1 (member_ref (uniform u{index}) "color"))' for index in range(count))
    return {
        "types": '(type Light record "Light" (field "color" Vec4))',
        "uniforms": uniforms,
        "fragment_registers": "(register r1 Vec4)",
        "fragment_body": loads,
    }


def _samplers(count: int) -> dict[str, str]:
    uniforms = " ".join(f'(scalar s{index} "texture{index}" Sampler)' for index in range(count))
    # One register per sampler: sampler registers are single-definition aliases (spec 12.4).
    loads = " ".join(f"(load r{index + 10} (uniform s{index})) (texture r0 r{index + 10} r2)" for index in range(count))
    registers = " ".join(f"(register r{index + 10} Sampler)" for index in range(count))
    return {
        "uniforms": uniforms,
        "fragment_registers": f"(register r2 Vec2) {registers}",
        "fragment_body": f"(construct r2 (float 0.5)) {loads}",
    }


def _block_of(count: int) -> dict[str, str]:
    return {
        "types": f'(type Floats array Float {count}) (type Big record "Big" (field "values" Floats))',
        "uniforms": '(record big "big" Big)',
    }


# Interface locations ----------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_fragment_output_beyond_the_draw_buffers(target: str) -> None:
    draw_buffers = resolve_profile(target).limits.draw_buffers
    compile_glsl(publish(**_fragment_output(draw_buffers - 1)), target=target)
    error = rejection(target, **_fragment_output(draw_buffers))
    assert error.message == (
        f"fragment output 'extra' needs location {draw_buffers}; {target} guarantees {draw_buffers} fragment output"
        f" locations (GL_MAX_DRAW_BUFFERS), 0..{draw_buffers - 1}"
    )
    assert_subject(error, InterfaceVariable, "extra")
    assert "needs location 100;" in rejection(target, **_fragment_output(100)).message


def test_the_draw_buffer_guarantee_differs_per_version() -> None:
    assert (GL42_MINIMUMS.draw_buffers, ES3_MINIMUMS.draw_buffers) == (8, 4)
    compile_glsl(publish(**_fragment_output(7)), target="glsl420")
    rejection("es300", **_fragment_output(7))
    rejection("es320", **_fragment_output(7))


@pytest.mark.parametrize("target", TARGETS)
def test_vertex_attribute_beyond_the_attribute_locations(target: str) -> None:
    compile_glsl(publish(**_attribute(15)), target=target)
    for location in (16, 2147483647):
        error = rejection(target, **_attribute(location))
        assert f"vertex input 'weight' needs location {location}; {target} guarantees 16 vertex attribute" in error.message
        assert_subject(error, InterfaceVariable, "weight")


@pytest.mark.parametrize("target", TARGETS)
def test_too_many_varyings(target: str) -> None:
    compile_glsl(publish(**_varyings(15)), target=target)
    error = rejection(target, **_varyings(16))
    assert error.message == (
        f"vertex output 'v15' brings the varyings to 16 vec4 slots; {target} guarantees 15 (GL_MAX_VARYING_VECTORS)"
    )
    assert_subject(error, InterfaceVariable, "v15")


def test_explicit_varying_locations_are_checked_where_the_glsl_carries_them() -> None:
    compile_glsl(publish(**_varyings(1, location=15)), target="glsl420")  # GL 4.2: 64 output components
    compile_glsl(publish(**_varyings(1, location=15)), target="es300")  # no location qualifiers: a name only
    error = rejection("es320", **_varyings(1, location=15))  # ES: 60 fragment input components
    assert error.message.startswith("vertex output 'v0' needs location 15; es320 guarantees 15 varying locations")


# Uniform blocks and samplers --------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_too_many_uniform_blocks_in_a_stage(target: str) -> None:
    compile_glsl(publish(**_record_uniforms(12)), target=target)
    error = rejection(target, **_record_uniforms(13))
    assert error.message == (
        f"the fragment stage uses 13 record uniforms (uniform blocks), from 'block12' on beyond the 12 that {target}"
        " guarantees (GL_MAX_FRAGMENT_UNIFORM_BLOCKS)"
    )
    assert_subject(error, Uniform, "block12")


def test_declared_but_unused_blocks_do_not_count() -> None:
    parts = _record_uniforms(13)
    parts.update(fragment_registers="", fragment_body="")
    compile_glsl(publish(**parts), target="es300")


@pytest.mark.parametrize("target", TARGETS)
def test_too_many_samplers_in_a_stage(target: str) -> None:
    compile_glsl(publish(**_samplers(16)), target=target)
    error = rejection(target, **_samplers(17))
    assert "the fragment stage uses 17 sampler uniforms, from 'texture16' on beyond the 16" in error.message
    assert "(GL_MAX_TEXTURE_IMAGE_UNITS)" in error.message
    assert_subject(error, Uniform, "texture16")


@pytest.mark.parametrize("target", TARGETS)
def test_uniform_block_larger_than_guaranteed(target: str) -> None:
    compile_glsl(publish(**_block_of(1024)), target=target)  # 1024 * 16 bytes: exactly 16384
    error = rejection(target, **_block_of(1025))
    assert error.message == (
        f"record uniform 'big' needs a std140 block of 16400 bytes; {target} guarantees 16384 (GL_MAX_UNIFORM_BLOCK_SIZE)"
    )
    assert_subject(error, Uniform, "big")


def test_a_host_that_has_more_passes_its_limits() -> None:
    larger = dataclasses.replace(ES3_MINIMUMS, draw_buffers=8, fragment_samplers=32)
    compile_glsl(publish(**_fragment_output(7)), target="es300", limits=larger)
    compile_glsl(publish(**_samplers(17)), target="es300", limits=larger)
    with pytest.raises(TargetError):
        compile_glsl(publish(**_fragment_output(8)), target="es300", limits=larger)


def test_limit_errors_are_located_in_the_source() -> None:
    text = module_text(**_fragment_output(9))
    with pytest.raises(TargetError) as caught:
        compile_source(text, "case.vpl", "glsl420")
    diagnostic = caught.value.diagnostic
    line = text.splitlines()[diagnostic.line - 1]
    assert line[diagnostic.column - 1 :].startswith('(out extra "extra" Vec4 9 none)')


@pytest.mark.glslang
@pytest.mark.parametrize(("parts", "stage"), [(_fragment_output(100), "frag"), (_attribute(2147483647), "vert")])
def test_without_the_limits_the_reference_front_end_rejects_the_code(
    parts: dict[str, str], stage: str, glslang_validator: str, tmp_path: Path
) -> None:
    artifact = generate(publish(**parts).materialize(), resolve_profile("glsl420"), UNLIMITED)
    path = tmp_path / f"case.{stage}.glsl"
    path.write_text(artifact.vertex_code if stage == "vert" else artifact.fragment_code, encoding="utf-8")
    completed = subprocess.run([glslang_validator, str(path)], capture_output=True, text=True, timeout=60)
    assert completed.returncode != 0, completed.stdout
    assert "too large" in completed.stdout, completed.stdout


# es300: functions that never finish -------------------------------------------------------------

ENDLESS_ENTRY = {
    "fragment_body": "(branch spin)",
    "fragment_blocks": "(block spin (branch spin))",
}


def _endless(text: str) -> str:
    # The template's entry ends in store + return; make it branch into a loop before that.
    return text.replace("(construct r0 (float 1.0))\n          (branch spin)\n          (store (stage color) r0)\n          (return))", "(construct r0 (float 1.0))\n          (branch spin))")


def test_es300_rejects_an_entry_point_that_never_finishes() -> None:
    text = _endless(module_text(**ENDLESS_ENTRY))
    assert "(branch spin))" in text and "(return))\n        (block spin" not in text
    verified = publish_text(text)
    for target in ("glsl420", "es320"):
        assert "while (true)" in compile_glsl(verified, target=target).fragment_code
    with pytest.raises(TargetError) as caught:
        compile_glsl(verified, target="es300")
    assert caught.value.message == (
        "fragment entry point 'fragment_main' never finishes: no return or discard is reachable from its entry block,"
        ' and es300 (the WebGL 2 target) rejects the endless loop it would compile to (ANGLE: "Infinite loop'
        ' detected")'
    )
    assert_subject(caught.value, Function, "fragment_main")


def test_a_preview_compile_refuses_an_endless_entry_point_on_every_target() -> None:
    verified = publish_text(_endless(module_text(**ENDLESS_ENTRY)))
    for target in ("glsl420", "es320", "es300"):
        with pytest.raises(TargetError, match="'fragment_main' never finishes") as caught:
            compile_glsl(verified, target=target, finishing=True)
        if target != "es300":
            assert "a preview refuses, as es300 (the WebGL 2 target) does, the endless loop" in caught.value.message
        assert_subject(caught.value, Function, "fragment_main")


def test_es300_accepts_loops_that_can_exit() -> None:
    parts = {
        "fragment_registers": "(register r1 Bool)",
        "fragment_body": "(branch spin)",
        "fragment_blocks": "(block spin (copy r1 (bool true)) (branch_if r1 spin done)) (block done (return))",
    }
    text = module_text(**parts).replace("(branch spin)\n          (store (stage color) r0)\n          (return))", "(store (stage color) r0)\n          (branch spin))")
    compile_glsl(publish_text(text), target="es300")


def publish_text(text: str):  # type: ignore[no-untyped-def]
    from vpl_core.publish import VerifiedModule

    return VerifiedModule.from_text(text, label="case.vpl")
