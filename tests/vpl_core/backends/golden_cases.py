"""The golden corpus of the GLSL backend: which sources, which targets, where the expected files live.

Sources come from three places, each read from its single checked-in copy:

- `tests/data/spec/*.vpl`, the spec's three examples (cases `spec-<name>`);
- `resources/programs/*.vpl`, the four built-in programs (`program-<name>`);
- `tests/golden/*.vpl`, the backend fixtures (`<name>`).

Expected files for GLSL 4.20 sit in `tests/golden/` as `<case>.vert.glsl`,
`<case>.frag.glsl` and `<case>.json`; the ES targets use the same names in
`tests/golden/es300/` and `tests/golden/es320/`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.backends.glsl.export import artifact_json
from vpl_core.publish import VerifiedModule

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"
TARGETS = ("glsl420", "es300", "es320")


@dataclass(frozen=True)
class Case:
    name: str
    source: Path

    def __str__(self) -> str:
        return self.name


def cases() -> list[Case]:
    found = [Case(f"spec-{path.stem}", path) for path in sorted((ROOT / "tests" / "data" / "spec").glob("*.vpl"))]
    found += [Case(f"program-{path.stem}", path) for path in sorted((ROOT / "resources" / "programs").glob("*.vpl"))]
    found += [Case(path.stem, path) for path in sorted(GOLDEN.glob("*.vpl"))]
    return found


CASES = {case.name: case for case in cases()}


def golden_directory(target: str) -> Path:
    return GOLDEN if target == "glsl420" else GOLDEN / target


def expected_paths(case: Case, target: str) -> dict[str, Path]:
    directory = golden_directory(target)
    return {
        "vert": directory / f"{case.name}.vert.glsl",
        "frag": directory / f"{case.name}.frag.glsl",
        "json": directory / f"{case.name}.json",
    }


@functools.cache
def verified(case_name: str) -> VerifiedModule:
    case = CASES[case_name]
    return VerifiedModule.from_text(case.source.read_bytes(), label=case.source.name)


@functools.cache
def artifact(case_name: str, target: str) -> ProgramArtifact:
    return compile_glsl(verified(case_name), target=target)


def generated_texts(case_name: str, target: str) -> dict[str, str]:
    result = artifact(case_name, target)
    return {"vert": result.vertex_code, "frag": result.fragment_code, "json": artifact_json(result)}
