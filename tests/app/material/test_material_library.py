"""The material function library: save a group as a .vplf, list it, use it in another material (embedded),
change the library copy, see it reported as outdated, re-apply it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bounded import finishes

from app.material.document import load_text, save_text
from app.material.graph import Connection, MaterialGraph
from app.material.groups import FUNCTION_PROPERTY, GROUP_TYPE, add_instance, group_nodes
from app.material.library import (
    PROJECT,
    USER,
    USER_LIBRARY_ENV,
    LibraryError,
    function_text,
    import_function,
    library_folders,
    list_library,
    outdated,
    read_function_text,
    save_function,
    update_function,
    user_library_folder,
)
from app.material.lowering import lower


def _material() -> MaterialGraph:
    graph = MaterialGraph()
    coords = graph.add_node("texcoord", (0.0, 0.0))
    split = graph.add_node("split", (150.0, 0.0))
    scale = graph.add_node("multiply", (300.0, 0.0), {"a": 1.0, "b": 2.0})
    shift = graph.add_node("add", (450.0, 0.0), {"a": 0.0, "b": 0.25})
    output = graph.add_node("material_output", (700.0, 0.0))
    graph.connect(coords.id, "out", split.id, "vector")
    graph.connect(split.id, "x", scale.id, "a")
    graph.connect(scale.id, "out", shift.id, "a")
    graph.connect(shift.id, "out", output.id, "opacity")
    return graph


def _grouped() -> tuple[MaterialGraph, str]:
    """"Scale and shift" holding an inner group "Scale": a library function with a callee."""
    inner = group_nodes(_material(), None, ["n3"], name="Scale")
    outer = group_nodes(inner.document, None, [inner.instance_id, "n4"], name="Scale and shift")
    return outer.document, outer.function_id


def test_library_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(USER_LIBRARY_ENV, str(tmp_path / "mine"))
    assert user_library_folder() == tmp_path / "mine"
    assert library_folders(tmp_path / "a" / "wood.vpl") == {USER: tmp_path / "mine", PROJECT: tmp_path / "a" / "functions"}
    assert library_folders(None) == {USER: tmp_path / "mine"}


def test_save_list_use_in_another_material_update_and_reapply(tmp_path: Path) -> None:
    document, function_id = _grouped()
    library = tmp_path / "functions"
    path, linked = save_function(document, function_id, library, PROJECT)
    assert path.name == "scale_and_shift.vplf"
    assert linked.functions[function_id].library is not None
    text = path.read_text()
    assert text == function_text(document.functions, function_id)
    assert '"format": "vpl-material-function"' in text.splitlines()[0]

    (entry,), problems = list_library({PROJECT: library})
    assert not problems and entry.name == "Scale and shift" and len(entry.functions) == 2

    # Another material uses it: the definitions are embedded, so the file alone opens.
    other = MaterialGraph()
    output = other.add_node("material_output", (400.0, 0.0))
    other, embedded = import_function(other, entry)
    other, instance = add_instance(other, None, embedded, (0.0, 0.0))
    other.connect(instance, other.functions[embedded].outputs[0].name, output.id, "opacity")
    result = lower(other)
    assert result.ok, [d.message for d in result.errors]
    saved = save_text(other, result)
    reopened = load_text(saved)
    assert reopened.graph == other and not reopened.read_only
    assert import_function(other, entry) == (other, embedded)  # used twice: embedded once
    assert outdated(other, [entry]) == []

    # The library copy changes (the shift becomes 0.75): the material is told, and takes it on request.
    body = document.functions[function_id].body
    add_id = next(node_id for node_id, node in body.nodes.items() if node.type_name == "add")
    changed = document.copy()
    changed.functions[function_id].body.nodes[add_id].properties["b"] = 0.75
    save_function(changed, function_id, library, PROJECT)
    (new_entry,), _ = list_library({PROJECT: library})
    assert new_entry.sha256 != entry.sha256
    assert outdated(other, [new_entry]) == [(embedded, new_entry)]
    updated = update_function(other, embedded, new_entry)
    assert outdated(updated, [new_entry]) == []
    assert updated.functions[embedded].body.nodes[add_id].properties["b"] == 0.75
    assert updated.nodes == other.nodes and len(updated.functions) == 2
    updated_result = lower(updated)
    assert updated_result.ok
    assert "0.75" in updated_result.text and "0.75" not in result.text
    assert save_text(load_text(save_text(updated, updated_result)).graph, updated_result) == save_text(updated, updated_result)


def test_update_drops_wires_to_ports_that_are_gone(tmp_path: Path) -> None:
    document, function_id = _grouped()
    _path, linked = save_function(document, function_id, tmp_path, USER)
    renamed = linked.copy()
    renamed.functions[function_id].outputs[0].name = "result"
    body = renamed.functions[function_id].body
    body.connections = [
        Connection(c.source_node, c.source_port, c.target_node, "result")
        if body.nodes[c.target_node].type_name == "group_output" else c
        for c in body.connections
    ]
    save_function(renamed, function_id, tmp_path, USER)
    (new_entry,), _ = list_library({USER: tmp_path})
    updated = update_function(linked, function_id, new_entry)
    instance = next(node.id for node in updated.nodes.values() if node.type_name == GROUP_TYPE)
    assert all(connection.source_node != instance for connection in updated.connections)
    assert lower(updated).ok  # the output is now unconnected: a valid, different material
    assert updated.nodes[instance].properties[FUNCTION_PROPERTY] == function_id


@pytest.mark.parametrize("text, reason", [
    ("not json", "not valid JSON"),
    ('{"format": "something"}', "not a material function file"),
    ('{"format": "vpl-material-function", "version": 9}', "unsupported version"),
    ('{"format": "vpl-material-function", "version": 1, "function": "x", "functions": []}', "not among"),
    ('{"format": "vpl-material-function", "version": 1, "function": "x", "functions": [3]}', "JSON object"),
])
def test_bad_function_files_are_refused_with_the_reason(text: str, reason: str, tmp_path: Path) -> None:
    with pytest.raises(LibraryError, match=reason):
        read_function_text(text, tmp_path / "bad.vplf", USER)
    (tmp_path / "bad.vplf").write_text(text)
    entries, problems = list_library({USER: tmp_path})
    assert entries == [] and len(problems) == 1 and reason in problems[0]


def test_a_version_written_as_text_is_named_as_such(tmp_path: Path) -> None:
    text = '{"format": "vpl-material-function", "version": "1", "function": "x", "functions": []}'
    with pytest.raises(LibraryError, match=r"bad\.vplf: the version must be a whole number such as 1, not the text '1'"):
        read_function_text(text, tmp_path / "bad.vplf", USER)


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev/zero")
def test_a_pipe_or_device_named_vplf_is_listed_as_a_problem_without_reading_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.vplf")
    (tmp_path / "zero.vplf").symlink_to("/dev/zero")
    entries, problems = finishes(lambda: list_library({USER: tmp_path}))
    assert entries == []
    assert problems == ["user library: pipe.vplf: cannot be read (a pipe (FIFO), not a regular file)",
                        "user library: zero.vplf: cannot be read (a device, not a regular file)"]


# `gl`: the editor's screenshot draws its window with the OpenGL preview (the library's reading of a pipe and a
# device is checked in-process above, in the fast tier).
@pytest.mark.gl
@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev/zero")
def test_the_editor_starts_with_a_pipe_and_a_device_in_the_user_library(tmp_path: Path) -> None:
    library = tmp_path / "functions"
    library.mkdir()
    os.mkfifo(library / "pipe.vplf")
    (library / "zero.vplf").symlink_to("/dev/zero")
    png = tmp_path / "editor.png"
    environment = dict(os.environ, QT_QPA_PLATFORM="xcb", VPL_EDITOR_RECOVERY_DIR=str(tmp_path / "recovery"),
                       **{USER_LIBRARY_ENV: str(library)})
    completed = subprocess.run([sys.executable, "-m", "app", "--screenshot", str(png)], env=environment,
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert png.is_file()
