"""Node thumbnails: time to refresh every thumbnail of 50- and 200-node graphs, and the main
preview's frame rate while thumbnails refresh.

1. Refresh time, per graph size: `ThumbnailService` (its own thread and
   OpenGL context, as in the editor) is asked for every thumbnail of a
   generated graph (noise over UVs, Fresnel rims, Time, math chains mixing
   them: both geometries and animated nodes) and timed from `submit` to
   the last image on the UI thread: cold (lowering the thumbnail module,
   compiling, linking and drawing) and warm (a parameter-like change: the
   same program, every thumbnail drawn again), then an edit of one node
   half-way down the graph (only the nodes downstream are drawn; the module
   is lowered again because a node property is code). Median of N runs.
2. Main preview frame rate: the 50-node graph's material drawn at 512x512
   on the UI thread's own context, frames counted for a fixed time with the
   thumbnail worker idle and then while it refreshes the 200-node graph's
   thumbnails over and over; both figures come from the same run.
3. A large graph (2,000 nodes; `--large-sizes`), the 48 thumbnails of one
   view: cold refresh with the module of the nodes asked for (the worker's
   rule above `WHOLE_GRAPH_NODES`) and with one module of every node (the
   rule below it, as it was for every graph before), alternating, for a
   view of the graph's first nodes (a small upstream) and of its last (the
   whole chain upstream).

Run under X (Mesa has no GL on Qt's offscreen platform):
    xvfb-run -a -s "-screen 0 1280x1024x24" .venv/bin/python benchmarks/bench_thumbnails.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtGui import QGuiApplication

from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.node_previews import fingerprints, lower_thumbnails, material_output_name, structure_key
from app.material.traversal import connected_nodes
from app.preview.context import DEFAULT_PROFILE, OffscreenContext
from app.preview.renderer import Renderer
from app.preview.stage import Stage
from app.preview.thumbnails import ThumbnailBatch, ThumbnailJob, ThumbnailService, wait_until

SOURCES = ("value_noise", "gradient_noise", "fresnel", "time", "constant_float")
BINARY = ("add", "multiply", "subtract")


def graph_of_size(size: int, seed: int = 7) -> MaterialGraph:
    """`size` nodes (the output included): float sources, then math nodes each reading two earlier values."""
    rng = random.Random(seed)
    graph = MaterialGraph()
    uv = graph.add_node("texcoord", (0.0, 0.0)).id
    values: list[str] = []
    sources = max(4, size // 6)
    for index in range(sources):
        type_name = SOURCES[index % len(SOURCES)]
        properties = {"scale": float(rng.randint(2, 12))} if "noise" in type_name else {}
        if type_name == "constant_float":
            properties = {"value": rng.random()}
        node = graph.add_node(type_name, (0.0, 120.0 * index), properties).id
        if "noise" in type_name:
            graph.connect(uv, "out", node, "uv")
        values.append(node)
    while len(graph.nodes) < size - 1:
        index = len(graph.nodes)
        kind = rng.choice(BINARY + ("mix", "one_minus"))
        node = graph.add_node(kind, (240.0 * (1 + index // 12), 120.0 * (index % 12))).id
        recent = values[-12:]
        if kind == "one_minus":
            graph.connect(rng.choice(recent), "out", node, "x")
        elif kind == "mix":
            for port in ("a", "b", "t"):
                graph.connect(rng.choice(recent), "out", node, port)
        else:
            first, second = rng.sample(recent, 2)
            graph.connect(first, "out", node, "a")
            graph.connect(second, "out", node, "b")
        values.append(node)
    output = graph.add_node("material_output", (240.0 * (2 + size // 12), 0.0)).id
    graph.connect(values[-1], "out", output, "base_color")
    return graph


class Refresher:
    """Submits jobs to a `ThumbnailService` and waits for their last batch (the editor's `NodeThumbnails`, minus Qt widgets)."""

    def __init__(self, application: QGuiApplication) -> None:
        self.application = application
        self.service = ThumbnailService(DEFAULT_PROFILE)
        self.service.rendered.connect(self._on_rendered)
        self.generation = 0
        self.finished: dict[int, float] = {}
        self.images = 0

    def _on_rendered(self, batch: ThumbnailBatch) -> None:
        self.images += len(batch.images)
        if batch.final:
            self.finished[batch.generation] = time.perf_counter()

    def job(self, graph: MaterialGraph, nodes: tuple[str, ...], values: dict[str, object] | None = None) -> ThumbnailJob:
        self.generation += 1
        output_name = material_output_name(graph)
        return ThumbnailJob(self.generation, graph.copy(), structure_key(graph, output_name), output_name, nodes,
                            values or {}, {}, Stage().to_dict(), 0.0, fingerprints=fingerprints(graph))

    def refresh(self, job: ThumbnailJob) -> float:
        """Seconds from submit to the job's last image on this (the UI) thread."""
        started = time.perf_counter()
        self.service.submit(job)
        if not wait_until(lambda: job.generation in self.finished, self.application.processEvents, 300.0):
            raise RuntimeError("the thumbnail worker did not answer")
        return self.finished[job.generation] - started


def refresh_figures(refresher: Refresher, size: int, runs: int) -> None:
    graph = graph_of_size(size)
    program = lower_thumbnails(graph)
    nodes = tuple(node for node, _ in program.ports)
    kinds = list(program.geometry.values())
    print(f"{size}-node graph: {len(nodes)} thumbnails ({kinds.count('square')} UV square, {kinds.count('mesh')} mesh, "
          f"{len(program.animated)} animated), thumbnail module {program.result.text.count(chr(10))} lines of VPL")
    cold, warm, edits, edited_counts = [], [], [], []
    service = refresher.service
    for run in range(runs):
        variant = graph.copy()
        constant = next(node for node in variant.nodes.values() if node.type_name == "constant_float")
        constant.properties["value"] = 0.1 + run * 0.01  # a new structure: lowered, linked and drawn
        cold.append(refresher.refresh(refresher.job(variant, nodes)))
        seconds = dict(service.last_seconds)
        warm.append(refresher.refresh(refresher.job(variant, nodes, {"unused": run})))
        ordered = sorted(n for n in variant.nodes if variant.nodes[n].type_name in BINARY)
        middle = ordered[len(ordered) // 2]
        variant.nodes[middle].type_name = "add" if variant.nodes[middle].type_name != "add" else "multiply"
        downstream = tuple(n for n in nodes if n in connected_nodes(variant, [middle], upstream=False))
        edits.append(refresher.refresh(refresher.job(variant, downstream)))
        edited_counts.append(len(downstream))
    print(f"  cold refresh (lower + link + draw all): median {statistics.median(cold) * 1000:7.1f} ms "
          f"(last run: lowering {seconds.get('lowering', 0) * 1000:.0f} ms, link {seconds.get('link', 0) * 1000:.0f} ms, "
          f"drawing {seconds.get('drawing', 0) * 1000:.0f} ms)")
    print(f"  warm refresh (same program, draw all): median {statistics.median(warm) * 1000:7.1f} ms")
    print(f"  edit of one node mid-graph: median {statistics.median(edits) * 1000:7.1f} ms "
          f"for {statistics.median(edited_counts):.0f} downstream thumbnails")


def large_graph_figures(refresher: Refresher, size: int, runs: int) -> None:
    from app.preview import thumbnails

    graph = graph_of_size(size)
    previewable = [node for node, _ in lower_thumbnails(graph, output_name=material_output_name(graph)).ports]
    views = {"first 48 nodes": tuple(previewable[:48]), "last 48 nodes": tuple(previewable[-48:])}
    rules = {"module of the nodes asked for": thumbnails.WHOLE_GRAPH_NODES, "one module of every node": size + 1}
    binary, changes = sorted(node for node in graph.nodes if graph.nodes[node].type_name in BINARY), 0
    print(f"{size}-node graph, one view of 48 thumbnails, cold (lower + link + draw), median of {runs}:")
    try:
        for view, nodes in views.items():
            figures: dict[str, list[tuple[float, dict[str, float]]]] = {rule: [] for rule in rules}
            for _ in range(runs):
                for rule, threshold in rules.items():
                    thumbnails.WHOLE_GRAPH_NODES = threshold
                    variant = graph.copy()  # a new structure: one math node of another kind each time
                    flipped = variant.nodes[binary[(changes := changes + 1) % len(binary)]]
                    flipped.type_name = "add" if flipped.type_name != "add" else "multiply"
                    seconds = refresher.refresh(refresher.job(variant, nodes))
                    figures[rule].append((seconds, dict(refresher.service.last_seconds)))
            for rule, runs_of_rule in figures.items():
                total = statistics.median(seconds for seconds, _ in runs_of_rule)
                lowering = statistics.median(parts.get("lowering", 0.0) for _, parts in runs_of_rule)
                link = statistics.median(parts.get("link", 0.0) for _, parts in runs_of_rule)
                print(f"  {view}, {rule}: {total:6.2f} s (lowering {lowering:.2f} s, link {link:.2f} s)")
    finally:
        thumbnails.WHOLE_GRAPH_NODES = rules["module of the nodes asked for"]


def frame_rate(renderer: Renderer, seconds: float, size: int = 512) -> float:
    frames = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        renderer.render_image(size, size)
        frames += 1
        QGuiApplication.processEvents()
    return frames / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each frame-rate measurement")
    parser.add_argument("--large-sizes", default="2000", help="node counts of section 3, comma-separated ('' skips it)")
    parser.add_argument("--only-large", action="store_true", help="section 3 alone")
    arguments = parser.parse_args()
    os.environ.setdefault("MESA_SHADER_CACHE_DISABLE", "true")  # an edited material is a new program
    application = QGuiApplication.instance() or QGuiApplication(sys.argv)
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores")
    refresher = Refresher(application)
    try:
        for size in (int(text) for text in arguments.large_sizes.split(",") if text.strip()):
            large_graph_figures(refresher, size, arguments.runs)
        if arguments.only_large:
            return 0
        for size in (50, 200):
            refresh_figures(refresher, size, arguments.runs)
        context = OffscreenContext()
        renderer = Renderer()
        result = lower(graph_of_size(50))
        assert result.artifact is not None
        renderer.build_program(result.artifact)
        idle = frame_rate(renderer, arguments.seconds)
        big = graph_of_size(200)
        nodes = tuple(node for node, _ in lower_thumbnails(big).ports)
        refreshes = 0
        started = time.perf_counter()
        frames = 0
        while time.perf_counter() - started < arguments.seconds:
            if not refresher.service.busy:
                refresher.service.submit(refresher.job(big, nodes, {"unused": refreshes}))
                refreshes += 1
            renderer.render_image(512, 512)
            frames += 1
            application.processEvents()
        busy = frames / (time.perf_counter() - started)
        print(f"main preview 512x512, 50-node material: {idle:.1f} fps with the thumbnail worker idle, {busy:.1f} fps "
              f"while it refreshed all 200-node thumbnails {refreshes} times")
        context.make_current()
        renderer.release()
        context.done()
    finally:
        refresher.service.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
