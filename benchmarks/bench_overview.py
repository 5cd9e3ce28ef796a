"""What the graph overview (minimap) costs on a large graph, side by side for two sizes.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_overview.py [--sizes 200 2000] [--repeat 5]

For each size, a graph of tiled example sections (`tests/app/ui/large_graphs.py`)
is loaded into the real NodeGraphQt view (`app.graph.adapter.populate`) with
an overview attached, and these are timed (median of `--repeat`):

- `rebuild`: reading the node rectangles and redrawing the cached image
  (what an edit costs, at most every 80 ms while a node is dragged);
- `unchanged`: reading the rectangles and finding nothing changed (what a
  scene change that moves no node costs: hover, a tooltip);
- `paint`: one paint of the overview (the cached image and the view's
  rectangle: what every pan and zoom costs);
- `pan`: one pan through the overview (`center_view_on`) with the events it
  causes processed (the view's repaint included).

The figures are printed, never asserted; `paint` should not grow with the
graph, `rebuild` grows linearly.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "app" / "ui"))

from large_graphs import tiled_examples  # noqa: E402

NODES_PER_SECTION = 12.2  # the average of large_graphs.SECTIONS without outputs


def median_ms(action: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples)


def measure(size: int, repeat: int) -> dict[str, float]:
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QPixmap
    from PySide6.QtWidgets import QApplication

    from app.graph.adapter import populate
    from app.graph.overview import GraphOverview
    from app.graph.view import MaterialNodeGraph
    from app.material import catalog

    application = QApplication.instance()
    graph = MaterialNodeGraph()
    graph.register_catalog(catalog.NODE_TYPES.values())
    material = tiled_examples(max(1, round(size / NODES_PER_SECTION)))
    start = time.perf_counter()
    populate(graph, material)
    load_ms = (time.perf_counter() - start) * 1000.0
    viewer = graph.viewer()
    viewer.resize(1000, 700)
    viewer.show()
    overview = GraphOverview(viewer, graph.all_nodes)
    application.processEvents()
    viewer.set_zoom(0.0)  # natural size: the graph does not fit, the overview shows
    overview.rebuild()
    application.processEvents()
    nodes = len(graph.all_nodes())

    def rebuild() -> None:
        overview._layout = type(overview._layout)()  # forget the last layout: a full rebuild
        overview.rebuild()

    target = QPixmap(overview.size())
    bounds = overview.layout_shown.bounds
    step = [0]

    def pan() -> None:
        step[0] += 1
        overview.center_view_on(QPointF(bounds.left() + (step[0] % 10) * bounds.width() / 10, bounds.center().y()))
        application.processEvents()

    result = {
        "nodes": float(nodes),
        "load": load_ms,
        "rebuild": median_ms(rebuild, repeat),
        "unchanged": median_ms(overview.rebuild, repeat),
        "paint": median_ms(lambda: overview.render(target), repeat * 4),
        "pan": median_ms(pan, repeat * 2),
    }
    renders = overview.renders
    for _ in range(10):
        pan()
    result["renders during 10 pans"] = float(overview.renders - renders)
    viewer.hide()
    graph.deleteLater()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    from PySide6.QtWidgets import QApplication

    _application = QApplication.instance() or QApplication([sys.argv[0]])
    rows = [measure(size, arguments.repeat) for size in arguments.sizes]
    keys = list(rows[0])
    print(f"{'':24}" + "".join(f"{int(row['nodes']):>12} nodes" for row in rows))
    for key in keys[1:]:
        unit = "" if key.startswith("renders") else " ms"
        print(f"{key:24}" + "".join(f"{row[key]:>15.2f}{unit}" for row in rows))
    if len(rows) == 2:
        print(f"{'rebuild ratio':24}{rows[1]['rebuild'] / rows[0]['rebuild']:>15.1f}x "
              f"for {rows[1]['nodes'] / rows[0]['nodes']:.1f}x the nodes; "
              f"paint ratio {rows[1]['paint'] / rows[0]['paint']:.2f}x")


if __name__ == "__main__":
    main()
