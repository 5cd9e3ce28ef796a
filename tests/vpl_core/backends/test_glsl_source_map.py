"""The source map (vpl_core/backends/glsl/source_map.py): every line of generated GLSL names the VPL
object it was written for, checked from the code and the module (tests/source_map_checks.py) on every
golden case and on random modules, for every target; its JSON form as `vpl compile` writes it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from glsl_random_modules import RandomModule
from golden_cases import CASES, TARGETS, artifact, verified
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from source_map_checks import check_source_map
from tiers import examples

from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl.export import artifact_json
from vpl_core.backends.glsl.source_map import LineKind, Origin, SourceMap, SourceRange, StageSourceMap
from vpl_core.ir import paths
from vpl_core.publish import VerifiedModule

ROOT = Path(__file__).resolve().parents[3]
PARAMETERS = [pytest.param(name, target, id=f"{target}-{name}") for target in TARGETS for name in CASES]


@pytest.mark.parametrize(("case_name", "target"), PARAMETERS)
def test_every_golden_line_maps_to_its_vpl_object(case_name: str, target: str) -> None:
    check_source_map(artifact(case_name, target), verified(case_name).materialize())


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_line_of_random_modules_maps_to_its_vpl_object(data: st.DataObject) -> None:
    module = RandomModule(data).build()
    published = VerifiedModule.create(module)
    for target in TARGETS:
        check_source_map(compile_glsl(published, target=target), module)


def test_dispatch_loops_map_labels_to_blocks_and_scaffolding_to_the_function() -> None:
    case = next(name for name in CASES if name == "loop-sum")
    compiled = artifact(case, "glsl420")
    lines = compiled.fragment_code.split("\n")
    fragment = compiled.source_map.fragment
    kinds = {lines[number - 1].strip(): fragment.at_line(number) for number in range(1, len(lines))
             if lines[number - 1].strip().startswith(("case ", "while", "switch", "int vpl_block"))}
    assert kinds, compiled.fragment_code
    for text, found in kinds.items():
        assert found is not None and found.kind is LineKind.DISPATCH, text
        assert found.path is not None
        if text.startswith("case "):
            assert found.path[-2] == "blocks" and found.path[-1] == int(text.removeprefix("case ").rstrip(":"))
        else:
            assert found.path[-2] == "functions"


def test_at_line_and_under() -> None:
    compiled = artifact("program-texture-ambient-color", "glsl420")
    fragment = compiled.source_map.fragment
    lines = compiled.fragment_code.split("\n")
    sample = next(number for number, text in enumerate(lines, start=1) if "texture(" in text)
    found = fragment.at_line(sample)
    assert found is not None and found.kind is LineKind.INSTRUCTION
    assert fragment.at_line(0) is None and fragment.at_line(len(lines) + 5) is None
    assert fragment.at_line(2) is None  # the empty line after #version
    function_path = ("fragment", "functions", 0)
    body = list(fragment.under(function_path))
    assert found in body and all(source_range.path[:3] == function_path for source_range in body)


def test_json_round_trip_and_path_spelling() -> None:
    compiled = artifact("calls", "es300")
    document = json.loads(artifact_json(compiled))["source_map"]
    assert set(document) == {"vertex", "fragment"}
    entry = next(item for item in document["fragment"] if item["kind"] == "instruction")
    assert set(entry) == {"first", "last", "kind", "path"}
    assert entry["path"] == paths.to_text(paths.from_text(entry["path"]))
    assert paths.from_text(entry["path"])[0] == "fragment"
    assert SourceMap.from_json(document) == compiled.source_map
    assert paths.from_text("fragment/functions/12/blocks/0") == ("fragment", "functions", 12, "blocks", 0)


def test_malformed_json_entries_are_value_errors() -> None:
    for entry in ({"first": 1, "last": 1}, {"first": "x", "last": 1, "kind": "main"}, {"first": 1, "last": 1, "kind": "nope"},
                  {"first": 1, "last": 1, "kind": "main", "path": [1, 2]}):
        with pytest.raises(ValueError):
            StageSourceMap.from_json([entry])


def test_ranges_merge_consecutive_lines_of_one_origin_and_skip_empty_lines() -> None:
    one, two = Origin(LineKind.FUNCTION, ("fragment", "functions", 0)), Origin(LineKind.MAIN, ("fragment", "functions", 0))
    built = StageSourceMap.from_lines([("a", one), ("b", one), ("", one), ("c", one), ("d", two)])
    assert built.ranges == (SourceRange(1, 2, one), SourceRange(4, 4, one), SourceRange(5, 5, two))


def test_follow_agrees_with_walk_and_refuses_paths_to_nowhere() -> None:
    module = verified("loop-nested").materialize()
    for path, value in paths.walk(module):
        if "fields" in path or "element" in path:
            continue  # record types are reported at their first use only (see `follow`)
        assert paths.follow(module, path) is value, path
    for nowhere in (("fragment", "functions", 99), ("nothing",), ("fragment", "functions", "x"), ("uniforms", -1), (True,)):
        assert paths.follow(module, nowhere) is None


def test_vpl_compile_writes_the_source_map(tmp_path: Path) -> None:
    source = ROOT / "resources" / "programs" / "vertex-ambient-color.vpl"
    result = subprocess.run([sys.executable, "-m", "vpl_core.cli", "compile", str(source), "--target", "es320", "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "vertex-ambient-color.json").read_text(encoding="utf-8"))
    source_map = SourceMap.from_json(document["source_map"])
    compiled = compile_glsl(VerifiedModule.from_text(source.read_bytes()), target="es320")
    assert source_map == compiled.source_map
    fragment_lines = (tmp_path / "vertex-ambient-color.frag.glsl").read_text(encoding="utf-8").split("\n")
    assert source_map.fragment.ranges[-1].last == len(fragment_lines) - 1
