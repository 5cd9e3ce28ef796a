"""The batched glslangValidator check (glslang_programs.py) fails a program exactly where a link of
that program alone fails, and names the program: a compile error, each of the link's checks of the
interfaces and of the call graph, among programs that pass."""

from __future__ import annotations

import subprocess
from pathlib import Path

from glslang_programs import check_programs

VERTEX = """#version 420 core
layout(location = 0) in vec3 position;
layout(location = 0) out vec2 uv;
uniform float scale;
void main() { uv = position.xy * scale; gl_Position = vec4(position, 1.0); }
"""
FRAGMENT = """#version 420 core
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 colour;
float shade(float x);
float shade(float x) { return x * 0.5; }
void main() { colour = vec4(shade(uv.x), uv.y, 0.0, 1.0); }
"""

#: Each broken program and what breaks it: one stage's compile, or what only the link checks.
BROKEN = {
    "compile error": (VERTEX, FRAGMENT.replace("vec4(shade(uv.x), uv.y, 0.0, 1.0)", "vec3(1.0)")),
    "varying of another type": (VERTEX, FRAGMENT.replace("in vec2 uv", "in vec3 uv").replace("uv.y", "uv.z")),
    "uniform of another type in the fragment stage": (
        VERTEX, FRAGMENT.replace("void main() {", "uniform vec2 scale;\nvoid main() {").replace("uv.y", "uv.y + scale.x")),
    "no main": (VERTEX, FRAGMENT.replace("void main()", "void main2()")),
    "a function without a body": (VERTEX, FRAGMENT.replace("float shade(float x) { return x * 0.5; }\n", "")),
    "recursion": (VERTEX, FRAGMENT.replace("return x * 0.5;", "return x > 1.0 ? shade(x * 0.5) : x;")),
}


def _linked_alone(validator: str, directory: Path, vertex_code: str, fragment_code: str) -> bool:
    directory.mkdir()
    (directory / "alone.vert").write_text(vertex_code)
    (directory / "alone.frag").write_text(fragment_code)
    linked = subprocess.run([validator, "-l", str(directory / "alone.vert"), str(directory / "alone.frag")],
                            capture_output=True, text=True)
    return linked.returncode == 0


def test_each_broken_program_fails_by_name_among_programs_that_pass(glslang_validator: str, tmp_path: Path) -> None:
    programs = {"good": (VERTEX, FRAGMENT), **BROKEN, "good again": (VERTEX, FRAGMENT.replace("0.5", "0.25"))}
    errors = check_programs(glslang_validator, tmp_path / "batch", programs)
    assert errors["good"] == [] and errors["good again"] == []
    for number, (name, (vertex_code, fragment_code)) in enumerate(BROKEN.items()):
        assert errors[name], f"the batch passed the program with {name}"
        # The verdict is the one a link of the program alone gives.
        assert not _linked_alone(glslang_validator, tmp_path / f"alone{number}", vertex_code, fragment_code), name


def test_a_program_sharing_a_linked_programs_interfaces_still_fails_on_its_own_call_graph(
        glslang_validator: str, tmp_path: Path) -> None:
    """Programs with the same interfaces share one link; the call graph is checked for each."""
    errors = check_programs(glslang_validator, tmp_path, {"good": (VERTEX, FRAGMENT), "no body": BROKEN["a function without a body"]})
    assert errors["good"] == []
    assert any("No function definition" in error for error in errors["no body"]), errors["no body"]
