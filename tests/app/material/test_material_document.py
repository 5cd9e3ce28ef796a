"""The .vpl material document: graph block and hash, read-only rule, garbage, atomic save."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from app.material import document
from app.material.document import (
    MAGIC_LINE,
    PLACEHOLDER_NOTE,
    load_file,
    load_text,
    module_hash,
    placeholder_module_text,
    save_file,
    save_text,
)
from app.material.examples import lit_blinn_phong
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from vpl_core.diagnostics import Category
from vpl_core.text import read

SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "spec"


def test_saved_text_is_a_valid_module_with_the_graph_in_leading_comments() -> None:
    graph = lit_blinn_phong()
    text = save_text(graph)
    assert text.startswith(MAGIC_LINE + "\n")
    head, module_text = text.split("// graph-end\n", 1)
    assert all(line.startswith("//") for line in head.splitlines())
    assert module_text.rstrip("\n") == lower(graph).text.rstrip("\n")
    assert f"// module-sha256: {module_hash(module_text)}" in head
    read(text.encode("utf-8"), label="saved.vpl")  # any conforming reader: comments are trivia


def test_round_trip_gives_back_an_equal_graph() -> None:
    graph = lit_blinn_phong()
    graph.nodes["n1"].properties["name"] = "tínt ünïcode \u2028 \"quoted\""
    graph.nodes["n1"].position = (-12.5, 1e-7)
    graph.add_node("alien_from_the_future", properties={"anything": [1, 2]})
    loaded = load_text(save_text(graph).encode("utf-8"), label="round.vpl")
    assert loaded.graph == graph
    assert not loaded.read_only and loaded.diagnostics == [] and loaded.module is not None
    assert loaded.verified is not None


def test_saving_is_deterministic() -> None:
    assert save_text(lit_blinn_phong()) == save_text(lit_blinn_phong())


def test_hand_edited_module_opens_read_only_with_its_module() -> None:
    text = save_text(lit_blinn_phong())
    edited = text.replace("(float 0.0)", "(float 0.5)", 1)
    assert edited != text
    loaded = load_text(edited.encode("utf-8"), label="edited.vpl")
    assert loaded.read_only and loaded.graph is None
    assert loaded.module is not None and loaded.verified is not None
    assert "outside the editor" in loaded.message


def test_crlf_line_endings_do_not_make_a_document_read_only() -> None:
    text = save_text(lit_blinn_phong()).replace("\n", "\r\n")
    loaded = load_text(text.encode("utf-8"), label="crlf.vpl")
    assert not loaded.read_only and loaded.graph == lit_blinn_phong()


def test_unreadable_graph_block_opens_read_only() -> None:
    text = save_text(lit_blinn_phong()).replace('"nodes": [', '"nodes": [[', 1)
    loaded = load_text(text.encode("utf-8"), label="broken-block.vpl")
    assert loaded.read_only and loaded.graph is None and loaded.module is not None


@pytest.mark.parametrize("path", sorted(SPEC_EXAMPLES.glob("*.vpl")), ids=lambda path: path.name)
def test_spec_examples_open_read_only(path: Path) -> None:
    loaded = load_text(path.read_bytes(), label=path.name)
    assert loaded.read_only and loaded.graph is None
    assert loaded.module is not None and loaded.verified is not None and loaded.diagnostics == []


@pytest.mark.parametrize(
    "data",
    [b"", b"\xff\xfe\x00garbage", b"(module 2)", b"(module 1", b"// VPL material editor document\n// graph-begin\n", "(modüle)".encode()],
)
def test_garbage_gives_diagnostics_and_nothing_else(data: bytes) -> None:
    loaded = load_text(data, label="garbage.vpl")
    assert loaded.graph is None and loaded.module is None and loaded.verified is None
    assert len(loaded.diagnostics) == 1
    diagnostic = loaded.diagnostics[0]
    assert diagnostic.category in (Category.LEXICAL, Category.SYNTACTIC, Category.SEMANTIC)
    assert diagnostic.line is not None and diagnostic.column is not None and diagnostic.message
    assert diagnostic.label == "garbage.vpl"


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda text: text.encode("utf-8")))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    loaded = load_text(data, label="random.vpl")
    assert (loaded.module is None) == (loaded.verified is None)
    if loaded.module is None and loaded.graph is None:
        assert loaded.diagnostics


def test_mutilated_documents_never_raise() -> None:
    text = save_text(lit_blinn_phong())
    for cut in range(0, len(text), max(1, len(text) // 97)):
        loaded = load_text(text[:cut].encode("utf-8"), label="cut.vpl")
        assert loaded.graph is None or loaded.module is None or not loaded.read_only


def test_a_graph_that_does_not_lower_is_saved_with_a_placeholder_module() -> None:
    graph = MaterialGraph()
    graph.add_node("lambert", properties={"whatever": 1})
    assert not lower(graph).ok
    text = save_text(graph)
    assert PLACEHOLDER_NOTE in text
    assert text.rstrip("\n").endswith(placeholder_module_text().rstrip("\n"))
    loaded = load_text(text.encode("utf-8"), label="unfinished.vpl")
    assert loaded.graph == graph and not loaded.read_only and loaded.module is not None


def test_save_file_round_trip_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "material.vpl"
    save_file(target, lit_blinn_phong())
    save_file(target, lit_blinn_phong())  # replacing an existing file
    assert sorted(path.name for path in tmp_path.iterdir()) == ["material.vpl"]
    loaded = load_file(target)
    assert loaded.graph == lit_blinn_phong()


def test_failed_save_keeps_the_previous_file_and_removes_the_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "material.vpl"
    save_file(target, lit_blinn_phong())
    before = target.read_bytes()

    def failing_replace(source: str, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(document.os, "replace", failing_replace)
    graph = MaterialGraph()
    graph.add_node("material_output")
    with pytest.raises(OSError):
        save_file(target, graph)
    assert target.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["material.vpl"]


def test_failed_write_keeps_the_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "material.vpl"
    save_file(target, lit_blinn_phong())
    before = target.read_bytes()

    def failing_fsync(descriptor: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(document.os, "fsync", failing_fsync)
    with pytest.raises(OSError):
        save_file(target, MaterialGraph())
    assert target.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["material.vpl"]


def test_load_file_of_a_missing_path_gives_a_message(tmp_path: Path) -> None:
    loaded = load_file(tmp_path / "nope.vpl")
    assert loaded.module is None and loaded.graph is None and "cannot read" in loaded.message
