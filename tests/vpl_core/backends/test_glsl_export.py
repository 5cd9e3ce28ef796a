"""Export of a ProgramArtifact (`export_artifact`, `compile_file`): three files, deterministic JSON reflection."""

from __future__ import annotations

import enum
import json
from pathlib import Path

import pytest
from golden_cases import CASES, artifact
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.backends.glsl import compile_file
from vpl_core.backends.glsl.errors import ProfileRule, TargetTypeRule
from vpl_core.backends.glsl.export import TypeTable, artifact_json, export_artifact, file_stem, indented_json, quote
from vpl_core.diagnostics import TargetError
from vpl_core.ir import FLOAT, ArrayType, record, vec


def test_export_writes_three_files_with_the_artifact_contents(tmp_path: Path) -> None:
    result = artifact("record-array-uniforms", "glsl420")
    paths = export_artifact(result, tmp_path / "out", "material")
    assert [path.name for path in paths] == ["material.vert.glsl", "material.frag.glsl", "material.json"]
    assert paths[0].read_text(encoding="utf-8") == result.vertex_code
    assert paths[1].read_text(encoding="utf-8") == result.fragment_code
    assert paths[2].read_text(encoding="utf-8") == artifact_json(result)
    assert not [path for path in (tmp_path / "out").iterdir() if path.name.startswith(".")]


def test_json_reflection_is_sorted_and_spells_canonical_types() -> None:
    text = artifact_json(artifact("record-array-uniforms", "glsl420"))
    document = json.loads(text)
    assert text == json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert document["target"] == "glsl420" and document["version"] == 420
    assert (document["fragment_color_output"], document["fragment_color_location"]) == ("vpl_output0", 0)
    material = document["uniforms"][0]
    assert material == {
        "name": "material", "gl_name": "vpl_u0", "type": "t0", "slot": 0, "location": -1, "kind": "record",
        "block_binding": 0, "block_name": "vpl_Block0", "block_size": 160,
    }
    types = document["types"]
    assert types["t0"] == 'record "Material" (field "color" t1) (field "weights" t2) (field "light" t4) (field "transform" t6) (field "flags" t7)'
    assert types["t1"] == "vector float 4" and types["t2"] == "array t3 3" and types["t3"] == "float"
    assert types["t6"] == "matrix 4 4" and types["t7"] == "vector int 2"
    lights = document["uniforms"][2]
    assert types[lights["type"]] == "array t4 2"


def test_json_keeps_nominal_record_identity() -> None:
    first = record("Same", [("x", FLOAT)])
    second = record("Same", [("x", FLOAT)])
    table = TypeTable()
    ids = [table.id_of(first), table.id_of(second), table.id_of(first), table.id_of(ArrayType(second, 2))]
    assert ids == ["t0", "t2", "t0", "t3"]
    assert table.bodies == {"t0": 'record "Same" (field "x" t1)', "t1": "float", "t2": 'record "Same" (field "x" t1)', "t3": "array t2 2"}
    assert table.id_of(vec(3)) == "t4"


def test_quote_escapes_like_the_canonical_writer() -> None:
    assert quote('a"b\\c\n\t\u0001') == '"a\\"b\\\\c\\n\\t\\u0001"'
    assert quote("grün") == '"grün"'


@pytest.mark.parametrize("case_name", sorted(CASES))
def test_json_is_deterministic_across_compilations(case_name: str) -> None:
    from golden_cases import verified

    from vpl_core.backends.glsl import compile as compile_glsl

    assert artifact_json(compile_glsl(verified(case_name))) == artifact_json(compile_glsl(verified(case_name)))


def test_compile_file_is_the_cli_in_one_call(tmp_path: Path) -> None:
    source = CASES["program-texture-ambient-color"].source
    paths = compile_file(source, "es300", tmp_path)
    assert [path.name for path in paths] == [
        "texture-ambient-color.vert.glsl", "texture-ambient-color.frag.glsl", "texture-ambient-color.json",
    ]
    assert paths[0].read_text(encoding="utf-8").startswith("#version 300 es\n")
    assert json.loads(paths[2].read_text(encoding="utf-8"))["target"] == "es300"


def test_compile_file_errors_carry_the_file_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.vpl"
    bad.write_text("(module 1 (types) (uniforms))", encoding="utf-8")
    with pytest.raises(Exception) as caught:
        compile_file(bad, "glsl420", tmp_path)
    assert str(bad) in str(caught.value)
    with pytest.raises(TargetError) as unknown_target:
        compile_file(CASES["spec-canonical-example"].source, "glsl330", tmp_path)
    assert unknown_target.value.kind is ProfileRule.UNKNOWN_TARGET
    empty = tmp_path / "empty-record.vpl"
    empty.write_text(
        CASES["spec-canonical-example"].source.read_text(encoding="utf-8").replace(
            "(type Color vector float 4))", '(type Color vector float 4) (type Empty record "Empty"))'
        ).replace("(registers (register r0 Color))\n        (block entry\n          (construct r0 (float 1.0) (float 0.0)",
                  "(registers (register r0 Color) (register r1 Empty))\n        (block entry\n          (construct r0 (float 1.0) (float 0.0)"),
        encoding="utf-8",
    )
    with pytest.raises(TargetError) as target_error:
        compile_file(empty, "glsl420", tmp_path)
    assert target_error.value.kind is TargetTypeRule.EMPTY_RECORD
    # The diagnostic points into the file: at the declaration of the offending register.
    lines = empty.read_text(encoding="utf-8").splitlines()
    declaration_line = next(number for number, line in enumerate(lines, 1) if "(register r1 Empty)" in line)
    declaration_column = lines[declaration_line - 1].index("(register r1 Empty)") + 1
    assert target_error.value.diagnostic.format().startswith(
        f"{empty}:{declaration_line}:{declaration_column}: target error: register r1 of function 'fragment_main'"
    ), target_error.value.diagnostic.format()
    assert not (tmp_path / "empty-record.json").exists()


@pytest.mark.parametrize("case_name", sorted(CASES))
def test_json_reflection_is_what_json_dumps_gives(case_name: str) -> None:
    """The reflection (its source map spelled directly, `_source_map_spelling`) is json.dumps' layout byte for byte,
    also when an extra section sends the whole document to json.dumps."""
    result = artifact(case_name, "glsl420")
    text = artifact_json(result)
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"

    class Count(int):
        pass

    with_extra = artifact_json(result, {"material": {"count": Count(3)}})
    assert with_extra == json.dumps(json.loads(with_extra), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert json.loads(with_extra)["source_map"] == result.source_map.to_json()


JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=4), children, max_size=4),
    ),
    max_leaves=30,
)


@settings(max_examples=examples(400), deadline=None, derandomize=True)
@given(JSON_VALUES)
def test_indented_json_is_json_dumps_byte_for_byte(value: object) -> None:
    assert indented_json(value) == json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


class _Kind(str, enum.Enum):
    A = "a"


class _Count(int):
    pass


@pytest.mark.parametrize(
    "value",
    [{1: "integer key"}, {"a": _Kind.A}, [_Kind.A], {"a": {"b": [1, {2: 3}]}}, [_Count(3)], {"x": _Count(2)},
     [[]], {"a": {}}, [{}], {"e": "\u00e9\u2028\"\\\n\x00\x7f"}, [float("nan"), float("-inf"), -0.0]],
)
def test_indented_json_leaves_other_values_to_json_dumps(value: object) -> None:
    # Subclasses and non-string keys are spelled by json itself (the fast path takes exact types only).
    assert indented_json(value) == json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


def test_indented_json_reports_cycles_and_spells_deep_documents_as_json_does() -> None:
    cyclic: list[object] = []
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match="Circular reference"):
        indented_json(cyclic)
    deep: list[object] = []
    innermost = deep
    for _ in range(400):
        nested: list[object] = []
        innermost.append(nested)
        innermost = nested
    assert indented_json(deep) == json.dumps(deep, sort_keys=True, indent=2, ensure_ascii=False)


def test_file_stem() -> None:
    assert file_stem("dir/mesh-ambient-color.vpl") == "mesh-ambient-color"
    assert file_stem("x.tar.vpl") == "x.tar"
    assert file_stem("noext") == "noext"
