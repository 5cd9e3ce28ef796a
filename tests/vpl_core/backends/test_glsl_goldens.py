"""Golden files (as naga keeps them): every case's generated code and reflection equal the checked-in files,
and every checked-in golden passes glslangValidator linked (`-l` compiles each stage on its own, then links).

One parametrized comparison per case and target; a mismatch prints a unified
diff. `--update-goldens` / `VPL_UPDATE_GOLDENS=1` rewrites the files instead.
"""

from __future__ import annotations

import difflib
import subprocess

import pytest
from golden_cases import CASES, TARGETS, expected_paths, generated_texts

PARAMETERS = [pytest.param(name, target, id=f"{target}-{name}") for target in TARGETS for name in CASES]


@pytest.mark.parametrize(("case_name", "target"), PARAMETERS)
def test_generated_code_matches_golden(case_name: str, target: str, update_goldens: bool) -> None:
    case = CASES[case_name]
    generated = generated_texts(case_name, target)
    paths = expected_paths(case, target)
    if update_goldens:
        for kind, path in paths.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(generated[kind], encoding="utf-8", newline="\n")
        return
    problems = []
    for kind, path in paths.items():
        if not path.exists():
            problems.append(f"missing golden {path} (regenerate with --update-goldens)")
            continue
        expected = path.read_text(encoding="utf-8")
        if expected != generated[kind]:
            diff = difflib.unified_diff(
                expected.splitlines(keepends=True),
                generated[kind].splitlines(keepends=True),
                fromfile=str(path),
                tofile=f"generated {kind}",
            )
            problems.append("".join(diff))
    assert not problems, "\n".join(problems)


def _validate(validator: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([validator, *arguments], capture_output=True, text=True, timeout=60)


@pytest.mark.glslang
@pytest.mark.parametrize(("case_name", "target"), PARAMETERS)
def test_golden_passes_glslang(case_name: str, target: str, glslang_validator: str) -> None:
    paths = expected_paths(CASES[case_name], target)
    vertex, fragment = str(paths["vert"]), str(paths["frag"])
    result = _validate(glslang_validator, "-l", vertex, fragment)
    assert result.returncode == 0, f"glslangValidator -l {vertex} {fragment}: exit {result.returncode}\n{result.stdout}{result.stderr}"
