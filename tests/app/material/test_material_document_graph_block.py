"""An unusable graph block is a GraphFormatError with its reason, and the module opens read-only (issue 23, item 4)."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

from app.material import document as document_module
from app.material.document import BEGIN_LINE, END_LINE, FORMAT_LINE, HASH_PREFIX, MAGIC_LINE, load_text, module_hash
from app.material.examples import example_text
from app.material.graph import GraphFormatError, MaterialGraph


def _document_with_graph_json(graph_json: str) -> str:
    """The default example's module under a graph block holding `graph_json` (the hash still matches)."""
    text = example_text("textured")
    module_text = text[text.index(END_LINE) + len(END_LINE) + 1:]
    lines = [MAGIC_LINE, FORMAT_LINE, HASH_PREFIX + module_hash(module_text), BEGIN_LINE]
    lines += [f"// {line}" for line in graph_json.splitlines()]
    return "\n".join(lines + [END_LINE]) + "\n" + module_text


def _graph_json(**node_fields: object) -> str:
    node = {"id": "n1", "type": "material_output", "position": [0.0, 0.0], "properties": {}}
    node.update(node_fields)
    return json.dumps({"format": "vpl-material-graph", "version": 1, "nodes": [node], "connections": [], "frames": []})


@pytest.mark.parametrize(("graph_json", "reason"), [
    (_graph_json(position=[10**400, 0]), "out of range"),
    (_graph_json(position=[0, -(10**400)]), "out of range"),
    (_graph_json(properties={"base_color": [10**400, 0, 0, 1]}), "out of range"),
    (_graph_json(properties={"object": {"a": 1}}), "unsupported property value"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("{not json", "not valid JSON"),
    (json.dumps({"format": "vpl-material-graph", "version": 1, "nodes": {"n1": 1}}), "a node is a JSON object"),
])
def test_an_unusable_graph_opens_the_module_read_only_with_the_reason(graph_json: str, reason: str) -> None:
    loaded = load_text(_document_with_graph_json(graph_json), "probe.vpl")
    assert loaded.graph is None and loaded.read_only and loaded.verified is not None, loaded.message
    assert "the saved graph cannot be read" in loaded.message and reason in loaded.message, loaded.message


def test_from_dict_reports_overflow_as_a_format_error() -> None:
    data = json.loads(_graph_json(position=[10**400, 0]))
    with pytest.raises(GraphFormatError, match="out of range"):
        MaterialGraph.from_dict(data)


def test_load_text_has_no_catch_all() -> None:
    """An unexpected exception is a bug for the tests to find, not a message (no `except Exception`)."""
    tree = ast.parse(inspect.getsource(document_module))
    broad = [
        handler.lineno for handler in ast.walk(tree) if isinstance(handler, ast.ExceptHandler)
        and (handler.type is None or (isinstance(handler.type, ast.Name) and handler.type.id in {"Exception", "BaseException"}))
    ]
    assert broad == []


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**420), max_value=10**420)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=12,
)
FIELDS = st.sampled_from(["id", "type", "position", "properties", "source_node", "target_port", "node_ids", "size",
                          "title", "format", "version", "nodes", "connections", "frames"])


@settings(max_examples=examples(300), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(field=FIELDS, value=JSON_VALUES, where=st.sampled_from(["node", "connection", "frame", "top"]))
def test_any_json_in_a_graph_block_is_a_graph_or_a_format_error(field: str, value: object, where: str) -> None:
    example = json.loads(_graph_json())
    example["connections"] = [{"source_node": "n1", "source_port": "out", "target_node": "n1", "target_port": "a"}]
    example["frames"] = [{"id": "f1", "title": "t", "position": [0, 0], "size": [1, 1], "node_ids": ["n1"]}]
    target = {"node": example["nodes"][0], "connection": example["connections"][0], "frame": example["frames"][0],
              "top": example}[where]
    target[field] = value
    try:
        MaterialGraph.from_dict(example)
    except GraphFormatError:
        return
    # Accepted: the document opens editable (no other exception on the way).
    loaded = load_text(_document_with_graph_json(json.dumps(example)), "fuzz.vpl")
    assert loaded.graph is not None or loaded.read_only


def test_the_example_documents_still_open_editable() -> None:
    for path in sorted(Path(document_module.__file__).parent.joinpath("examples").glob("*.vpl")):
        assert load_text(path.read_bytes(), path.name).graph is not None, path
