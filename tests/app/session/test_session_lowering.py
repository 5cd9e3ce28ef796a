"""When and where the session lowers (issue 20): only for edits the lowering reads, in jobs any thread may run.

`EditorSession.start_lowering` takes a job on the session's thread,
`LoweringJob.run` is pure (these tests run it on another thread), and
`finish_lowering` applies it: dropped when its document is gone, applied
(with `needs_lowering` still true) when the graph was edited since. Moving
a node or changing a parameter node's value lowers nothing; the value
reaches the parameters at once.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.material.examples import load_example
from app.material.graph import MaterialGraph
from app.material.lowering import lower, lowering_equivalent
from app.material.parameters import PARAMETER_VALUE_PROPERTY
from app.session import EditorSession
from app.session.recovery import RecoveryStore
from app.session.session import LoweringJob, LoweringOutcome


@pytest.fixture
def session(tmp_path: Path) -> EditorSession:
    return EditorSession(RecoveryStore(tmp_path / "recovery"))


def _example_graph(name: str = "lit_blinn_phong") -> MaterialGraph:
    graph = load_example(name).graph
    assert graph is not None
    return graph


def _lowerings(session: EditorSession) -> list[object]:
    seen: list[object] = []
    session.lowered.connect(seen.append)
    return seen


def _run_elsewhere(job: LoweringJob) -> LoweringOutcome:
    """`job.run()` on a thread of its own (as the window's worker does)."""
    outcomes: list[LoweringOutcome] = []
    worker = threading.Thread(target=lambda: outcomes.append(job.run()))
    worker.start()
    worker.join(timeout=60)
    assert outcomes, "the job did not finish"
    return outcomes[0]


def test_moving_nodes_and_editing_frames_and_variants_lowers_nothing(session: EditorSession) -> None:
    graph = _example_graph()
    session.open_graph(graph, None, "example")
    session.lower()
    seen = _lowerings(session)
    moved = graph.copy()
    for node in moved.nodes.values():
        node.position = (node.position[0] + 40.0, node.position[1] - 12.5)
    moved.add_frame("Lighting", node_ids=sorted(moved.nodes)[:2])
    session.update_graph(moved)
    assert session.is_modified and not session.needs_lowering
    assert session.lower() is session.result and seen == []


def test_a_parameter_value_edit_reaches_the_parameters_without_lowering(session: EditorSession) -> None:
    """Issue 20: changing a parameter's value (its node's `default`) changes no module: no lowering, no relink."""
    graph = _example_graph()
    session.open_graph(graph, None, "example")
    first = session.lower()
    assert first is not None
    seen = _lowerings(session)
    changes: list[object] = []
    session.parameters.value_changed.connect(changes.append)
    edited = graph.copy()
    node = next(node for node in edited.nodes.values() if node.type_name == "float_parameter")
    name = node.properties["name"]
    node.properties["default"] = 7.25
    session.update_graph(edited)
    assert not session.needs_lowering and seen == []
    assert session.parameters.value(name) == 7.25 and len(changes) == 1
    assert session.program().artifact is first.artifact  # the same program: nothing to relink


@pytest.mark.parametrize("type_name", sorted(PARAMETER_VALUE_PROPERTY))
def test_a_parameter_nodes_value_never_reaches_the_module(type_name: str) -> None:
    """What `lowering_equivalent` relies on, for every parameter node type."""
    values = {"float_parameter": 0.75, "vector_parameter": (0.1, 0.2, 0.3, 0.0),
              "color_parameter": (0.9, 0.1, 0.2, 1.0), "texture_parameter": "some/image.png"}
    graph = MaterialGraph()
    parameter = graph.add_node(type_name)
    output = graph.add_node("material_output")
    if type_name == "texture_parameter":
        sample = graph.add_node("sample_texture")
        graph.connect(parameter.id, "out", sample.id, "texture")
        graph.connect(sample.id, "rgba", output.id, "base_color")
    else:
        graph.connect(parameter.id, "out", output.id, "base_color" if type_name != "float_parameter" else "opacity")
    edited = graph.copy()
    edited.nodes[parameter.id].properties[PARAMETER_VALUE_PROPERTY[type_name]] = values[type_name]
    assert lowering_equivalent(graph, edited)
    before, after = lower(graph), lower(edited)
    assert before.ok and after.ok, (before.diagnostics, after.diagnostics)
    assert before.text == after.text


def test_lowering_equivalence_sees_every_edit_the_lowering_reads() -> None:
    graph = _example_graph()
    assert lowering_equivalent(graph, graph.copy())
    node = next(node for node in graph.nodes.values() if node.type_name == "float_parameter")
    renamed = graph.copy()
    renamed.nodes[node.id].properties["name"] = "other_name"
    ranged = graph.copy()
    ranged.nodes[node.id].properties["maximum"] = 1000.0
    unwired = graph.copy()
    unwired.connections.pop()
    removed = graph.copy()
    removed.remove_node(node.id)
    retyped = graph.copy()
    retyped.nodes[node.id].type_name = "vector_parameter"
    as_lists = graph.copy()  # what a JSON round trip gives: lists for tuples
    for each in as_lists.nodes.values():
        each.properties = {key: list(value) if isinstance(value, tuple) else value for key, value in each.properties.items()}
    for different in (renamed, ranged, unwired, removed, retyped):
        assert not lowering_equivalent(graph, different)
    assert lowering_equivalent(graph, as_lists)


def test_a_job_runs_on_another_thread_and_its_outcome_is_applied_here(session: EditorSession) -> None:
    session.open_graph(_example_graph(), None, "example")
    seen = _lowerings(session)
    job = session.start_lowering(("es320",))
    assert job is not None and session.result is None  # nothing happens until it is finished
    outcome = _run_elsewhere(job)
    assert seen == []
    result = session.finish_lowering(job, outcome)
    assert result is outcome.result and result.ok and seen == [result]
    assert not session.needs_lowering and session.start_lowering() is None
    # The preview's target was compiled by the job: nothing is compiled on this thread.
    assert session._programs.compiled_targets == ["es320", "glsl420"]
    assert session.program("es320") is outcome.programs[0]


def test_an_outcome_of_a_graph_edited_since_is_applied_and_the_next_one_is_needed(session: EditorSession) -> None:
    graph = _example_graph()
    session.open_graph(graph, None, "example")
    job = session.start_lowering()
    assert job is not None
    edited = graph.copy()
    edited.remove_node(next(iter(sorted(edited.nodes))))
    session.update_graph(edited)
    result = session.finish_lowering(job, _run_elsewhere(job))
    assert result is not None and session.result is result
    assert session.needs_lowering  # the edit since is not lowered yet
    newer = session.start_lowering()
    assert newer is not None and lowering_equivalent(newer.graph, edited)
    assert session.finish_lowering(newer, newer.run()) is not None and not session.needs_lowering


def test_an_outcome_for_a_document_no_longer_open_is_dropped(session: EditorSession) -> None:
    session.open_graph(_example_graph(), None, "first")
    job = session.start_lowering()
    assert job is not None
    session.open_graph(_example_graph("textured"), None, "second")
    seen = _lowerings(session)
    assert session.finish_lowering(job, _run_elsewhere(job)) is None
    assert seen == [] and session.result is None and session.needs_lowering
