"""EditorSession without Qt: documents, modified state, saving, read-only modules, recovery, retargeting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.material.document import load_text, save_text
from app.material.examples import example_path, load_example
from app.material.graph import MaterialGraph
from app.session import EditorSession, GraphDocument, ModuleDocument
from app.session.recovery import RecoveryStore

ROOT = Path(__file__).resolve().parents[3]
SPEC_EXAMPLE = ROOT / "tests" / "data" / "spec" / "canonical-example.vpl"
ES_REJECTS = ROOT / "tests" / "app" / "preview" / "data" / "varying-array-of-records.vpl"


class Recorder:
    """Every event of a session, in order, as (event name, payload)."""

    def __init__(self, session: EditorSession) -> None:
        self.events: list[tuple[str, object]] = []
        for event in (session.document_changed, session.lowered, session.modified_changed, session.saved,
                      session.parameters.specs_changed, session.parameters.value_changed):
            event.connect(lambda payload, name=event.name: self.events.append((name, payload)))

    def names(self) -> list[str]:
        return [name for name, _ in self.events]


@pytest.fixture
def session(tmp_path: Path) -> EditorSession:
    return EditorSession(RecoveryStore(tmp_path / "recovery"))


def _example_graph(name: str = "lit_blinn_phong") -> MaterialGraph:
    graph = load_example(name).graph
    assert graph is not None
    return graph


def _edited(graph: MaterialGraph) -> MaterialGraph:
    edited = graph.copy()
    node = next(node for node in edited.nodes.values() if node.type_name == "float_parameter")
    node.properties["default"] = 7.0
    return edited


def test_a_graph_document_is_modified_while_it_differs_from_its_file(session: EditorSession) -> None:
    recorder = Recorder(session)
    graph = _example_graph()
    session.open_graph(graph, None, "example")
    assert isinstance(session.document, GraphDocument) and not session.read_only and not session.is_modified
    session.update_graph(_edited(graph))
    assert session.is_modified
    session.update_graph(graph)  # undone back to what was opened
    assert not session.is_modified
    assert recorder.names().count("modified_changed") == 2
    assert [payload for name, payload in recorder.events if name == "modified_changed"] == [True, False]


def test_a_graph_the_view_could_not_show_whole_is_modified_from_the_start(session: EditorSession) -> None:
    session.open_graph(_example_graph(), None, "partial", modified=True)
    assert session.is_modified


def test_lowering_happens_once_per_graph_and_fills_programs_and_parameters(session: EditorSession) -> None:
    recorder = Recorder(session)
    session.open_graph(_example_graph(), None, "example")
    assert session.needs_lowering and session.result is None and session.current_artifact is None
    result = session.lower()
    assert result is not None and result.ok and session.result is result
    assert session.lower() is result  # nothing changed: not lowered again
    assert recorder.names().count("lowered") == 1
    assert session.current_artifact is result.artifact
    assert [spec.name for spec in session.parameters.specs] == [spec.name for spec in result.parameters]
    # The parameters are in place before `lowered` is emitted.
    assert recorder.names().index("specs_changed") < recorder.names().index("lowered")


def test_save_writes_the_document_and_clears_the_modified_mark(session: EditorSession, tmp_path: Path) -> None:
    graph = _example_graph()
    session.open_graph(graph, None, "example")
    session.update_graph(_edited(graph))
    session.lower()
    recorder = Recorder(session)
    target = tmp_path / "saved.vpl"
    session.save(target)
    assert not session.is_modified and session.path == target and session.name == "saved.vpl"
    assert ("saved", target) in recorder.events
    reopened = load_text(target.read_bytes(), str(target))
    assert reopened.graph == _edited(graph) and not reopened.read_only
    assert target.read_text(encoding="utf-8") == save_text(_edited(graph))


def test_save_failure_raises_and_keeps_the_document_modified(session: EditorSession, tmp_path: Path) -> None:
    graph = _example_graph()
    session.open_graph(graph, None, "example")
    session.update_graph(_edited(graph))
    with pytest.raises(OSError):
        session.save(tmp_path / "missing-directory" / "material.vpl")
    assert session.is_modified and session.path is None


def test_a_module_without_graph_is_a_read_only_document(session: EditorSession) -> None:
    recorder = Recorder(session)
    loaded = session.read_file(SPEC_EXAMPLE)
    session.open_module(loaded, SPEC_EXAMPLE, SPEC_EXAMPLE.name)
    document = session.document
    assert isinstance(document, ModuleDocument) and session.read_only and not session.is_modified
    assert "no editor graph" in document.reason
    assert session.current_artifact is not None and session.current_artifact.target == "glsl420"
    assert session.result is None and not session.needs_lowering
    assert [spec.name for spec in session.parameters.specs] == [uniform.name for uniform in document.module.uniforms
                                                                if uniform.name != "scene"]
    # The parameters are in place when the document is announced.
    assert recorder.names().index("specs_changed") < recorder.names().index("document_changed")
    with pytest.raises(RuntimeError):
        session.save(SPEC_EXAMPLE.with_name("never.vpl"))
    with pytest.raises(RuntimeError):
        session.update_graph(MaterialGraph())
    assert session.autosave() is None


def test_programs_are_compiled_once_per_target(session: EditorSession) -> None:
    session.open_graph(_example_graph(), None, "example")
    result = session.lower()
    assert result is not None
    es = session.program("es320")
    assert es.artifact is not None and es.artifact.target == "es320" and not es.problem
    assert session.program("es320") is es  # cached
    assert session.program("glsl420").artifact is result.artifact  # the lowering's own, not compiled again
    assert session._programs.compiled_targets == ["es320", "glsl420"]


def test_a_target_error_is_a_problem_not_an_exception(session: EditorSession) -> None:
    session.open_module(session.read_file(ES_REJECTS), ES_REJECTS, ES_REJECTS.name)
    assert session.program("glsl420").artifact is not None
    es = session.program("es320")
    assert es.artifact is None and "array of records" in es.problem


def test_a_new_document_starts_from_its_own_parameter_values(session: EditorSession) -> None:
    session.open_graph(_example_graph(), None, "first")
    session.lower()
    session.parameters.set_value("shininess", 99.0)
    session.open_graph(_example_graph(), None, "second")
    session.lower()
    assert session.parameters.value("shininess") == 48.0


def test_export_writes_what_vpl_compile_writes(session: EditorSession, tmp_path: Path) -> None:
    from vpl_core.backends.glsl import compile_file

    path = example_path("textured")
    loaded = session.read_file(path)
    assert loaded.graph is not None
    session.open_graph(loaded.graph, path, path.name)
    written = session.export(tmp_path / "editor")
    assert written is not None and session.export_stem() == "textured"
    direct = compile_file(path, "glsl420", tmp_path / "direct")
    assert [p.name for p in written] == [p.name for p in direct]
    for ours, theirs in zip(written, direct):
        if ours.suffix == ".json":  # the reflection, plus the material section for engines
            document = json.loads(ours.read_text(encoding="utf-8"))
            assert document.pop("material")["format"] == "vpl-material-export"
            assert document == json.loads(theirs.read_text(encoding="utf-8"))
        else:
            assert ours.read_bytes() == theirs.read_bytes()


def test_export_of_a_graph_that_does_not_compile_writes_nothing(session: EditorSession, tmp_path: Path) -> None:
    session.open_graph(MaterialGraph(), None, "empty")  # no output node
    assert session.export(tmp_path / "out") is None
    assert not (tmp_path / "out").exists()


def test_autosave_and_recovery_round_trip(tmp_path: Path) -> None:
    directory = tmp_path / "recovery"
    crashed = EditorSession(RecoveryStore(directory))
    graph = _example_graph()
    crashed.open_graph(graph, tmp_path / "work.vpl", "work.vpl")
    assert crashed.autosave() is None  # nothing to recover while unmodified
    crashed.update_graph(_edited(graph))
    written = crashed.autosave()
    assert written is not None and written.is_file()
    # A second editor finds it once the first is gone (its token retired without a clean close).
    from app.session import recovery

    recovery._ACTIVE_TOKENS.discard(crashed.recovery.token)
    later = EditorSession(RecoveryStore(directory))
    candidates = later.recovery.orphans()
    assert [entry.source for entry in candidates] == [str(tmp_path / "work.vpl")]
    recovered = later.recovery.read(candidates[0])
    assert recovered.graph == _edited(graph)
    later.recovery.discard(candidates[0])
    assert later.recovery.orphans() == []


def test_a_clean_close_leaves_nothing_to_recover(tmp_path: Path) -> None:
    directory = tmp_path / "recovery"
    session = EditorSession(RecoveryStore(directory))
    graph = _example_graph()
    session.open_graph(graph, None, "untitled")
    session.update_graph(_edited(graph))
    session.autosave()
    session.close()
    assert EditorSession(RecoveryStore(directory)).recovery.orphans() == []


def test_saving_clears_the_autosave(session: EditorSession, tmp_path: Path) -> None:
    graph = _example_graph()
    session.open_graph(graph, None, "untitled")
    session.update_graph(_edited(graph))
    autosaved = session.autosave()
    assert autosaved is not None and autosaved.exists()
    session.save(tmp_path / "saved.vpl")
    assert not autosaved.exists()
