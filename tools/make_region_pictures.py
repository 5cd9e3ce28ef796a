"""Render the pictures of Flood Fill, its readers, Distance and Bevel for docs/material-nodes.md.

    .venv/bin/python tools/make_region_pictures.py [--out docs/images] [--size 256]

Each picture is the node's input mask (left) and its output (right), both
N x N buffers of a real material graph (a pattern node into a Texture
Buffer into the filter) planned by `pass_planner.plan_passes` and run by
the CPU interpreter (`run_plan_cpu`), the same passes the preview runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.material import (  # noqa: E402
    catalog,  # noqa: F401 - registers the node types
    pass_planner,
)
from app.material import texture_passes as tp  # noqa: E402
from app.material.graph import Connection, MaterialGraph, Node  # noqa: E402
from app.preview.cpu_passes import run_plan_cpu  # noqa: E402
from vpl_core.interp.png import write_png  # noqa: E402

BRICKS = ("bricks", {"count": (4.0, 8.0), "row_offset": 0.5, "mortar": 0.03, "softness": 0.0}, "mask")
SPARSE_BRICKS = ("bricks", {"count": (4.0, 6.0), "row_offset": 0.5, "mortar": 0.1, "softness": 0.0}, "mask")
LARGE_BRICKS = ("bricks", {"count": (3.0, 5.0), "row_offset": 0.5, "mortar": 0.03, "softness": 0.0}, "mask")
#: picture name -> (mask pattern, filter chain: (node type, properties) from the mask on)
PICTURES: dict[str, tuple[tuple[str, dict[str, object], str], list[tuple[str, dict[str, object]]]]] = {
    "flood-fill-to-random-colour": (BRICKS, [("flood_fill", {}), ("flood_fill_to_color", {"seed": 1})]),
    "flood-fill-to-random-greyscale": (BRICKS, [("flood_fill", {}), ("flood_fill_to_grayscale", {"seed": 1})]),
    "flood-fill-to-gradient": (BRICKS, [("flood_fill", {}), ("flood_fill_to_gradient",
                                                              {"angle": 0.0, "angle_variation": 0.5, "seed": 1})]),
    "flood-fill-to-position": (BRICKS, [("flood_fill", {}), ("flood_fill_to_position", {})]),
    "flood-fill-to-bbox-size": (LARGE_BRICKS, [("flood_fill", {}), ("flood_fill_to_bbox_size", {})]),
    "distance": (SPARSE_BRICKS, [("mask_distance", {"max_distance": 0.06})]),
    "bevel": (LARGE_BRICKS, [("bevel", {"width": 0.04, "smoothness": 0.3, "corner": "round"})]),
}


def render(name: str, size: int) -> np.ndarray:
    (pattern, pattern_properties, port), chain = PICTURES[name]
    nodes = {"pattern": Node("pattern", pattern, dict(pattern_properties)),
             "mask": Node("mask", "texture_buffer", {"resolution": str(size), "format": "8-bit", "tiling": "tile"})}
    connections = [Connection("pattern", port, "mask", "input")]
    previous, previous_port = "mask", "out"
    for position, (type_name, properties) in enumerate(chain):
        node_id = f"filter{position}"
        nodes[node_id] = Node(node_id, type_name, dict(properties))
        input_port = tp.FILTERS[type_name].main_input
        connections.append(Connection(previous, previous_port, node_id, input_port))
        previous = node_id
    plan = pass_planner.plan_passes(MaterialGraph(nodes=nodes, connections=connections))
    if not plan.ok:
        raise SystemExit(f"{name}: {plan.diagnostics}")
    buffers = run_plan_cpu(plan)
    mask, result = buffers["mask"], buffers[previous]
    gap = np.ones((size, 4, 4), dtype=np.float32)
    picture = np.concatenate([mask, gap, result], axis=1)
    picture[..., 3] = 1.0
    return np.asarray(np.rint(np.clip(picture, 0.0, 1.0) * 255.0), dtype=np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--only", choices=sorted(PICTURES))
    arguments = parser.parse_args()
    if arguments.size not in tp.RESOLUTIONS:
        tp.RESOLUTIONS = (arguments.size, *tp.RESOLUTIONS)
    for name in [arguments.only] if arguments.only else PICTURES:
        write_png(arguments.out / f"{name}.png", render(name, arguments.size))
        print(arguments.out / f"{name}.png")


if __name__ == "__main__":
    main()
