"""The node thumbnails' worker thread: stopping it in the middle of a long stage, and garbage collection.

A stage of a very large graph takes the worker tens of seconds (lowering the
thumbnail module of 10,000 nodes, then the driver's link of it). Closing the
window used to wait 30 s for it, then drop the running QThread: the process
aborted ("QThread: Destroyed while thread is still running"). The lowering
is gated here (the real one runs once the test lets it), so "in the middle
of a long stage" is a fact of the test, not a race against the clock.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import numpy as np
import pytest
from PySide6.QtGui import QImage
from thumbnail_gate import gate_thumbnail_lowering

from app.material import examples
from app.material.graph import MaterialGraph
from app.material.node_previews import material_output_name, structure_key
from app.preview import thumbnails
from app.preview.context import DEFAULT_PROFILE
from app.preview.thumbnails import ThumbnailBatch, ThumbnailJob, ThumbnailService
from app.workers import running_workers, wait_ended
from vpl_core import collector

pytestmark = pytest.mark.gl

#: The thumbnail worker's name (`app.workers.running_workers`).
THUMBNAILS = "vpl-thumbnails"


def job_of(graph: MaterialGraph, generation: int = 1, nodes: tuple[str, ...] | None = None) -> ThumbnailJob:
    output = material_output_name(graph)
    return ThumbnailJob(generation, graph, structure_key(graph, output), output,
                        tuple(sorted(graph.nodes)) if nodes is None else nodes)


@pytest.fixture
def gate(monkeypatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    entered, go = gate_thumbnail_lowering(monkeypatch)
    yield entered, go
    go.set()
    assert wait_ended(120, THUMBNAILS)


def qimage_pixels(image: QImage) -> np.ndarray:
    rgba = image.convertToFormat(QImage.Format.Format_RGBA8888)
    return np.frombuffer(rgba.constBits(), np.uint8, rgba.sizeInBytes()).reshape(rgba.height(), rgba.bytesPerLine())[:, :rgba.width() * 4].copy()


def final_batch(qapp, batches: list[ThumbnailBatch]) -> bool:
    return thumbnails.wait_until(lambda: any(batch.final for batch in batches), qapp.processEvents, 120)


def test_a_worker_stopped_mid_stage_is_kept_until_it_ends_and_draws_nothing_more(qapp, gate) -> None:
    entered, go = gate
    service = ThumbnailService(DEFAULT_PROFILE)
    batches: list[ThumbnailBatch] = []
    service.rendered.connect(batches.append)
    service.submit(job_of(examples.triplanar_rock()))
    assert entered.wait(60), "the worker never started lowering"

    assert service.stop(0) is False, "the worker is in its lowering: it cannot have ended"
    assert not service.started
    assert running_workers().count(THUMBNAILS) == 1, "the stopped, still running worker is kept (destroying it aborts the process)"
    gc.collect()  # nothing of the running worker may go with the service's reference to it
    assert running_workers().count(THUMBNAILS) == 1

    go.set()
    assert wait_ended(120, THUMBNAILS)
    qapp.processEvents()
    assert service.lowerings == 1, "the stage in progress ends"
    assert service.links == 0 and service.draws == 0, "nothing is linked or drawn for a stopped worker"
    assert batches == [], "nothing is emitted after stop"


def test_a_stopped_service_starts_again_with_a_new_worker(qapp, gate) -> None:
    entered, go = gate
    service = ThumbnailService(DEFAULT_PROFILE)
    batches: list[ThumbnailBatch] = []
    service.rendered.connect(batches.append)
    service.submit(job_of(examples.triplanar_rock()))
    assert entered.wait(60)
    assert service.stop(0) is False

    go.set()  # the old worker finishes its lowering and ends; the new one lowers, links and draws
    graph = examples.toon_shading()
    service.submit(job_of(graph, generation=2))
    assert service.started
    assert final_batch(qapp, batches), "the new worker drew the new job"
    assert {batch.generation for batch in batches} == {2}
    assert any(batch.images for batch in batches) and not any(batch.problem for batch in batches)
    assert wait_ended(120, THUMBNAILS)
    assert service.lowerings == 2, "both workers lowered: the old one its stage in progress, the new one its job"
    assert service.links == 1, "the old worker, stopped, linked and drew nothing though the service runs again"
    assert service.stop(120_000) is True
    assert wait_ended(120, THUMBNAILS)


def test_the_worker_never_runs_the_garbage_collector(qapp) -> None:
    """The worker lowers and allocates: any collection it started could free the window's Qt objects on it."""
    starts: list[str] = []

    def watch(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            starts.append(threading.current_thread().name)

    gc.callbacks.append(watch)
    try:
        service = ThumbnailService(DEFAULT_PROFILE)
        batches: list[ThumbnailBatch] = []
        service.rendered.connect(batches.append)
        assert collector.taken_over() or not service.started
        for generation, graph in enumerate((examples.triplanar_rock(), examples.stylised_lava(), examples.tiled_floor())):
            batches.clear()
            service.submit(job_of(graph, generation))
            assert final_batch(qapp, batches)
        assert service.lowerings == 3
        assert service.stop(120_000)
    finally:
        gc.callbacks.remove(watch)
    assert collector.taken_over()
    assert starts, "the window's thread collected meanwhile"
    assert set(starts) == {threading.main_thread().name}, starts

def images_of(qapp, service: ThumbnailService, jobs: list[ThumbnailJob]) -> tuple[dict[str, np.ndarray], list[ThumbnailBatch]]:
    """Every node's image drawn by `service` for `jobs`, submitted one after the other."""
    images: dict[str, np.ndarray] = {}
    batches: list[ThumbnailBatch] = []
    service.rendered.connect(batches.append)
    for job in jobs:
        start = len(batches)
        service.submit(job)
        assert thumbnails.wait_until(lambda start=start: any(batch.final for batch in batches[start:]), qapp.processEvents, 120)
        for batch in batches[start:]:
            assert not batch.problem, batch.problem
            images.update({node: qimage_pixels(image) for node, image in batch.images.items()})
    service.rendered.disconnect(batches.append)
    return images, batches


@pytest.mark.parametrize("example", ["triplanar_rock", "stylised_lava"])
def test_a_large_graphs_module_holds_the_nodes_asked_for_and_draws_them_as_the_whole_graphs(qapp, monkeypatch,
                                                                                            example: str) -> None:
    graph = getattr(examples, example)()
    nodes = sorted(graph.nodes)
    whole_service = ThumbnailService(DEFAULT_PROFILE)
    whole, _ = images_of(qapp, whole_service, [job_of(graph, nodes=tuple(nodes))])
    assert whole_service.lowerings == 1 and whole_service.stop(120_000)

    monkeypatch.setattr(thumbnails, "WHOLE_GRAPH_NODES", 0)  # this graph counts as large
    half = len(nodes) // 2
    service = ThumbnailService(DEFAULT_PROFILE)
    first, batches = images_of(qapp, service, [job_of(graph, 1, tuple(nodes[:half]))])
    assert service.lowerings == 1
    modules = [batch.program for batch in batches if batch.program is not None]
    assert {node for program in modules for node, _ in program.ports} <= set(nodes[:half]), "only what was asked for"
    second, _ = images_of(qapp, service, [job_of(graph, 2, tuple(nodes[half:]))])
    assert service.lowerings == 2, "nodes not in the module: a new one, with the earlier nodes too"
    again, _ = images_of(qapp, service, [job_of(graph, 3, tuple(nodes[:3]))])
    assert service.lowerings == 2, "nodes drawn before are still in the module"
    assert service.stop(120_000)

    parts = {**first, **second}
    assert parts.keys() == whole.keys() and whole, "every previewable node drawn either way"
    for node, image in {**parts, **again}.items():
        assert np.abs(image.astype(int) - whole[node].astype(int)).max() <= 1, f"{node} differs from the whole graph's module"


def test_after_a_structural_edit_the_module_holds_the_nodes_asked_for_and_grows_when_others_are(qapp) -> None:
    """A small graph's first module holds all its nodes; the job after a structural edit asks for the nodes the
    edit changed, and only they are lowered and linked; drawn as the whole graph's module draws them."""
    graph = examples.triplanar_rock()
    assert len(graph.nodes) <= thumbnails.WHOLE_GRAPH_NODES
    service = ThumbnailService(DEFAULT_PROFILE)
    _, batches = images_of(qapp, service, [job_of(graph)])
    assert service.lowerings == 1
    first_ports = {node for batch in batches if batch.program is not None for node, _ in batch.program.ports}
    assert len(first_ports) > 3, "the first module holds every node"

    edited = graph.copy()
    added = edited.add_node("time", (0.0, 0.0)).id  # a structural edit: a new node, the only one to draw
    assert structure_key(edited, material_output_name(edited)) != structure_key(graph, material_output_name(graph))
    small, batches = images_of(qapp, service, [job_of(edited, 2, (added,))])
    assert service.lowerings == 2 and set(small) == {added}
    ports = {node for batch in batches if batch.program is not None for node, _ in batch.program.ports}
    assert ports == {added}, "only the edited part is lowered"
    rest, _ = images_of(qapp, service, [job_of(edited, 3)])
    assert service.lowerings == 3, "others asked for: the module grows once"
    again, _ = images_of(qapp, service, [job_of(edited, 4)])
    assert service.lowerings == 3
    assert service.stop(120_000)

    whole_service = ThumbnailService(DEFAULT_PROFILE)
    whole, _ = images_of(qapp, whole_service, [job_of(edited, 1)])
    assert whole_service.lowerings == 1 and whole_service.stop(120_000)
    assert rest.keys() == whole.keys() == again.keys()
    for node, image in {**rest, **small}.items():
        assert np.abs(image.astype(int) - whole[node].astype(int)).max() <= 1, f"{node} differs from the whole module's"


def test_the_last_batch_names_the_nodes_asked_for_that_the_module_cannot_draw(qapp) -> None:
    """Else the window waits for them for good (a `--screenshot` of such a graph waited its whole timeout)."""
    graph = examples.triplanar_rock()
    output = next(node for node in graph.nodes.values() if node.type_name in ("material_output", "surface_output")).id
    drawable = sorted(node for node in graph.nodes if node != output)
    job = ThumbnailJob(1, graph, structure_key(graph, material_output_name(graph)), material_output_name(graph),
                       (output, *drawable), fingerprints={node: f"print-{node}" for node in graph.nodes})
    service = ThumbnailService(DEFAULT_PROFILE)
    _, batches = images_of(qapp, service, [job])
    assert service.stop(120_000)
    final = [batch for batch in batches if batch.final]
    assert len(final) == 1
    assert final[0].fingerprints.get(output) == f"print-{output}", "the output node has no thumbnail: named anyway"
    assert all(output not in batch.images for batch in batches)
    named = {node for batch in batches for node in batch.fingerprints}
    assert named == set(job.nodes), "every node asked for is answered: with an image or in the last batch"
