"""`vpl compile FILE --target T --out DIR`: writes exactly what export_artifact writes; errors as diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest

from vpl_core.backends.glsl import compile as compile_module
from vpl_core.backends.glsl.export import export_artifact
from vpl_core.cli import main
from vpl_core.publish import VerifiedModule

SPEC = Path(__file__).resolve().parent.parent / "data" / "spec"


@pytest.mark.parametrize("target", ["glsl420", "es300", "es320"])
def test_compile_writes_the_artifact_files(tmp_path: Path, target: str) -> None:
    source = SPEC / "loop-and-helper.vpl"
    assert main(["compile", str(source), "--target", target, "--out", str(tmp_path / "cli")]) == 0

    expected = compile_module(VerifiedModule.from_text(source.read_bytes(), label=str(source)), target=target)
    export_artifact(expected, tmp_path / "api", "loop-and-helper")
    for suffix in (".vert.glsl", ".frag.glsl", ".json"):
        written = (tmp_path / "cli" / f"loop-and-helper{suffix}").read_bytes()
        assert written == (tmp_path / "api" / f"loop-and-helper{suffix}").read_bytes()
    first_line = (tmp_path / "cli" / "loop-and-helper.frag.glsl").read_text().splitlines()[0]
    assert first_line == {"glsl420": "#version 420 core", "es300": "#version 300 es", "es320": "#version 320 es"}[target]


def test_compile_reports_reader_errors_with_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.vpl"
    broken.write_text("(module 2 (types) (uniforms))\n")
    assert main(["compile", str(broken), "--out", str(tmp_path / "out")]) == 1
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"{broken}:1:9: ")
    assert "error" in error
    assert not (tmp_path / "out").exists()


def test_compile_reports_target_errors_at_the_offending_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bool vertex attribute is valid VPL but not expressible in GLSL (spec 12.4).
    lines = (SPEC / "loop-and-helper.vpl").read_text().splitlines()
    attribute = next(number for number, line in enumerate(lines) if '(in attribute "input_position"' in line)
    lines.insert(attribute + 1, '      (in flag "flag" Bool 1 none)')
    source = tmp_path / "bool-attribute.vpl"
    source.write_text("\n".join(lines) + "\n")
    assert main(["check", str(source)]) == 0
    assert main(["compile", str(source), "--out", str(tmp_path / "out")]) == 1
    error = capsys.readouterr().err.strip()
    # Placed at the declaration in the user's file, not in the canonical snapshot.
    assert error.startswith(f"{source}:{attribute + 2}:7: target error: "), error
    assert "bool" in error


def test_compile_rejects_unknown_targets(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["compile", str(SPEC / "loop-and-helper.vpl"), "--target", "glsl330", "--out", str(tmp_path)])
    assert raised.value.code == 2
