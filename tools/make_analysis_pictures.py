"""Pictures of Curvature, Ambient Occlusion, Edge Detect, Texture Levels and the histogram filters for
docs/material-nodes.md.

Each picture is rendered through the product: a small material graph whose Texture Buffers and filter are
planned (`plan_passes`) and run on the CPU interpreter (`run_plan_cpu`) at 256 x 256; the strip shows the
filter's input buffer, then its result. Usage:

    .venv/bin/python tools/make_analysis_pictures.py [--only curvature ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.material import catalog  # noqa: E402, F401 - registers the node types
from app.material.graph import Connection, MaterialGraph, Node  # noqa: E402
from app.material.pass_planner import plan_passes  # noqa: E402
from app.preview.cpu_passes import run_plan_cpu  # noqa: E402
from vpl_core.interp.png import write_png  # noqa: E402

IMAGES = ROOT / "docs" / "images"
GAP = 4

#: Inputs the pictures use, by name: the nodes, their connections, and the output that feeds the buffer.
Source = tuple[dict[str, tuple[str, dict[str, Any]]], list[tuple[str, str, str, str]], tuple[str, str]]
SOURCES: dict[str, Source] = {
    # Bevelled bricks raised above their mortar, with a fractal noise on top: a height.
    "brick_height": (
        {"bricks": ("bricks", {"count": (4.0, 8.0), "mortar": 0.03, "softness": 0.035}),
         "noise": ("fractal_noise", {"scale": 8.0, "octaves": 4, "basis": "gradient"}),
         "grain": ("multiply", {"b": 0.18}),
         "height": ("add", {})},
        [("noise", "out", "grain", "a"), ("bricks", "mask", "height", "a"), ("grain", "out", "height", "b")],
        ("height", "out")),
    "hexagons": ({"cells": ("hexagons", {"scale": 5.0, "gap": 0.08})}, [], ("cells", "mask")),
    "bricks": ({"bricks": ("bricks", {"count": (4.0, 8.0)})}, [], ("bricks", "color")),
    "noise": ({"noise": ("fractal_noise", {"scale": 5.0, "octaves": 5, "basis": "gradient"})}, [], ("noise", "out")),
}
#: picture -> (filter type, its properties, its input port, source name, buffer format).
PICTURES: dict[str, tuple[str, dict[str, Any], str, str, str]] = {
    "curvature": ("curvature", {"intensity": 10.0, "radius": 0.006}, "height", "brick_height", "16-bit"),
    "ambient_occlusion": ("ambient_occlusion", {"radius": 0.06, "depth": 0.1, "intensity": 1.5}, "height",
                          "brick_height", "16-bit"),
    "edge_detect": ("edge_detect", {"width": 3.0, "softness": 0.6}, "mask", "hexagons", "8-bit"),
    "texture_levels": ("texture_levels", {"in_black": 0.25, "in_white": 0.75, "gamma": 1.4}, "input", "bricks",
                       "8-bit"),
    "histogram_scan": ("histogram_scan", {"position": 0.45, "contrast": 0.85}, "input", "noise", "8-bit"),
    "histogram_range": ("histogram_range", {"range": 0.3, "position": 0.8}, "input", "noise", "8-bit"),
}


def _strip(images: list[np.ndarray]) -> np.ndarray:
    """Images (top row first) side by side with a dark gap, as RGBA8."""
    height = images[0].shape[0]
    gap = np.full((height, GAP, 4), 0.15, dtype=np.float32)
    parts: list[np.ndarray] = []
    for image in images:
        if parts:
            parts.append(gap)
        parts.append(np.array(image, dtype=np.float32))
    strip = np.concatenate(parts, axis=1)
    strip[..., 3] = 1.0
    return np.asarray((np.clip(strip, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8))


def picture(name: str) -> np.ndarray:
    type_name, properties, port, source, buffer_format = PICTURES[name]
    source_nodes, source_connections, (feed, feed_port) = SOURCES[source]
    nodes = {node_id: Node(node_id, kind, dict(values)) for node_id, (kind, values) in source_nodes.items()}
    nodes["buffer"] = Node("buffer", "texture_buffer", {"resolution": "256", "format": buffer_format})
    nodes["filter"] = Node("filter", type_name, dict(properties))
    nodes["out"] = Node("out", "material_output")
    connections = [Connection(*each) for each in source_connections]
    connections += [Connection(feed, feed_port, "buffer", "input"), Connection("buffer", "out", "filter", port),
                    Connection("filter", "out", "out", "base_color")]
    plan = plan_passes(MaterialGraph(nodes=nodes, connections=connections))
    if not plan.ok:
        raise SystemExit(f"{name}: {plan.diagnostics}")
    rendered = run_plan_cpu(plan)
    return _strip([rendered[plan.outputs[("buffer", "out")]], rendered[plan.outputs[("filter", "out")]]])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    arguments = parser.parse_args()
    for name in arguments.only or list(PICTURES):
        path = IMAGES / f"filter-{name.replace('_', '-')}.png"
        write_png(path, picture(name))
        print(path)


if __name__ == "__main__":
    main()
