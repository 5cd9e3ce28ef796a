"""es300 is the WebGL 2 target: every es300 golden and example material in a real browser (issue 23 item 10).

Headless Chromium (Debian's package, installed by scripts/bootstrap.sh; WebGL 2
through ANGLE on SwiftShader here) loads a page from a loopback server and,
for every program, compiles and links the es300 code exactly as a web host
would (uniform block bindings applied with uniformBlockBinding, integer
inputs given values with vertexAttribI4i), checks the reflection (attribute
locations; UNIFORM_BLOCK_DATA_SIZE <= block_size), draws one full-screen
triangle and reads one pixel. The pixel must equal what Mesa's own ES 3.2
implementation (llvmpipe) draws from the same recipe: two independent GL
implementations agreeing on the artifact. Shader logs must be free of
warnings such as ANGLE's "Float overflow".
"""

from __future__ import annotations

from pathlib import Path

import pytest
import webgl_support
from golden_cases import CASES, artifact

from vpl_core.backends.glsl import compile_source
from vpl_core.backends.glsl.artifact import ProgramArtifact

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.vpl"))

#: Literals at the ends of binary32 (the largest finite float, the smallest subnormal, minus zero)
#: that every front end must take without a warning.
LITERALS = """(module 1
  (types (type V void) (type F float) (type P vector float 4))
  (uniforms)
  (vertex main (interface (in position "position" P 0 none) (out clip "clip" P -1 position))
    (functions (function main "main" V (parameters) (registers (register r0 P))
      (block entry (load r0 (stage position)) (store (stage clip) r0) (return)))))
  (fragment main (interface (out color "color" P 0 fragment_color))
    (functions (function main "main" V (parameters) (registers (register r0 F) (register r1 F) (register r2 P))
      (block entry
        (copy r0 (float 3.4028234663852886e38)) (copy r1 (float -3.4028234663852886e38)) (add r0 r0 r1)
        (copy r1 (float 1.4e-45)) (multiply r1 r1 (float -0.0)) (add r0 r0 r1)
        (construct r2 r0 (float 1.0) r0 (float 1.0)) (store (stage color) r2) (return))))))
"""


def _programs() -> dict[str, ProgramArtifact]:
    programs = {f"golden {name}": artifact(name, "es300") for name in sorted(CASES)}
    for path in EXAMPLES:
        programs[f"example {path.name}"] = compile_source(path.read_bytes(), path.name, "es300")
    programs["literals"] = compile_source(LITERALS, "literals.vpl", "es300")
    return programs


@pytest.fixture(scope="module")
def browser_run() -> tuple[dict[str, ProgramArtifact], dict[str, webgl_support.Recipe], dict]:
    programs = _programs()
    recipes = {name: webgl_support.recipe(name, program) for name, program in programs.items()}
    report = webgl_support.run_in_browser(list(recipes.values()))
    assert "error" not in report, report.get("error")
    return programs, recipes, report


@pytest.mark.webgl
def test_the_browser_gives_a_webgl2_context(browser_run: tuple) -> None:
    _, _, report = browser_run
    assert report["context"]["version"].startswith("WebGL 2.0"), report["context"]
    assert report["context"]["glsl"].startswith("WebGL GLSL ES 3.00"), report["context"]


@pytest.mark.webgl
@pytest.mark.gl
def test_every_es300_golden_and_example_compiles_links_and_draws_as_mesa_does(
    browser_run: tuple, current_gles: object
) -> None:
    programs, recipes, report = browser_run
    assert len(programs) == len(CASES) + len(EXAMPLES) + 1 and EXAMPLES
    problems: list[str] = []
    for name, program in programs.items():
        result = report["results"].get(name, {})
        recipe = recipes[name]
        if not result.get("linked"):
            problems.append(f"{name}: {result}")
            continue
        logs = " ".join(result.get(key, "") for key in ("vertex_log", "fragment_log", "link_log")).strip()
        if logs:
            problems.append(f"{name}: the front end had something to say: {logs}")
        if result["attribute_locations"] != recipe.attribute_locations:
            problems.append(f"{name}: attribute locations {result['attribute_locations']} != {recipe.attribute_locations}")
        for block, size in result["block_sizes"].items():
            if not size <= recipe.block_sizes[block]:
                problems.append(f"{name}: {block} UNIFORM_BLOCK_DATA_SIZE {size} > block_size {recipe.block_sizes[block]}")
        if result["gl_error"] != 0:
            problems.append(f"{name}: GL error {result['gl_error']:#x}")
        native = webgl_support.render_native(recipe, program)
        if max(abs(a - b) for a, b in zip(result["pixel"], native)) > 2:
            problems.append(f"{name}: browser pixel {result['pixel']}, Mesa ES 3.2 pixel {native}")
    assert not problems, "\n".join(problems)
