"""Pictures of the warp and blur filters and the Tile Sampler for docs/material-nodes.md.

Each picture is rendered through the product: a small material graph whose
Texture Buffers and filters are planned (`plan_passes`) and run on the CPU
interpreter (`run_plan_cpu`) at 256 x 256, 8-bit buffers; the strip shows the
filter's inputs, then its result. Usage:

    .venv/bin/python tools/make_warp_pictures.py [--only directional_blur ...]
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
#: The generators the pictures use, by name: (type, properties, output port). Slopes and gradients are read
#: from a 16-bit buffer (an 8-bit one's 1/255 steps make the gradient grainy: `SMOOTH`).
SOURCES: dict[str, tuple[str, dict[str, Any], str]] = {
    "pebbles": ("tile_sampler", {"x_amount": 6, "y_amount": 6, "shape": "disc", "size": 0.85, "scale_random": 0.5,
                                 "position_random": 0.4, "luminance_random": 0.3, "seed": 11}, "color"),
    "squares": ("tile_sampler", {"x_amount": 8, "y_amount": 8, "shape": "square", "size": 0.7, "rotation_random": 0.2,
                                 "seed": 5}, "color"),
    "blobs": ("tile_sampler", {"x_amount": 4, "y_amount": 4, "shape": "disc", "size": 0.6, "scale_random": 0.4,
                               "position_random": 0.3, "seed": 2}, "pattern"),
    "bricks": ("bricks", {}, "color"),
    "noise": ("fractal_noise", {"scale": 5.0, "octaves": 4}, "out"),
    "ramp": ("linear_gradient", {}, "out"),
}
SMOOTH = {"noise"}
#: picture -> (filter type, its properties, {input port: source name}).
PICTURES: dict[str, tuple[str, dict[str, Any], dict[str, str]]] = {
    "directional_blur": ("directional_blur", {"angle": 30.0, "intensity": 16.0, "samples": "64"}, {"input": "pebbles"}),
    "non_uniform_blur": ("non_uniform_blur", {"intensity": 12.0, "samples": "64"},
                         {"input": "squares", "blur_map": "ramp"}),
    "slope_blur": ("slope_blur", {"intensity": 10.0, "samples": "32"}, {"input": "blobs", "slope": "noise"}),
    "directional_warp": ("directional_warp", {"angle": 45.0, "intensity": 24.0},
                         {"input": "bricks", "intensity_map": "noise"}),
    "warp": ("warp", {"intensity": 0.6}, {"input": "bricks", "gradient": "noise"}),
}


def _source_nodes(name: str, nodes: dict[str, Node], connections: list[Connection]) -> str:
    """Add source `name` and its Texture Buffer to the graph; the buffer's id."""
    type_name, properties, port = SOURCES[name]
    buffer = f"{name}_buffer"
    if buffer not in nodes:
        nodes[name] = Node(name, type_name, dict(properties))
        nodes[buffer] = Node(buffer, "texture_buffer", {"resolution": "256",
                                                        "format": "16-bit" if name in SMOOTH else "8-bit"})
        connections.append(Connection(name, port, buffer, "input"))
    return buffer


def _strip(images: list[np.ndarray]) -> np.ndarray:
    """Images (top row first) side by side with a dark gap, as RGBA8."""
    height = images[0].shape[0]
    gap = np.full((height, GAP, 4), 0.15, dtype=np.float32)
    gap[..., 3] = 1.0
    parts: list[np.ndarray] = []
    for image in images:
        if parts:
            parts.append(gap)
        opaque = np.array(image, dtype=np.float32)
        opaque[..., 3] = 1.0
        parts.append(opaque)
    return np.asarray((np.clip(np.concatenate(parts, axis=1), 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8))


def filter_picture(name: str) -> np.ndarray:
    type_name, properties, inputs = PICTURES[name]
    nodes: dict[str, Node] = {"out": Node("out", "material_output")}
    connections: list[Connection] = []
    buffers = {port: _source_nodes(source, nodes, connections) for port, source in inputs.items()}
    nodes["filter"] = Node("filter", type_name, dict(properties))
    connections += [Connection(buffer, "out", "filter", port) for port, buffer in buffers.items()]
    connections.append(Connection("filter", "out", "out", "base_color"))
    plan = plan_passes(MaterialGraph(nodes=nodes, connections=connections))
    rendered = run_plan_cpu(plan)
    return _strip([rendered[buffer] for buffer in buffers.values()] + [rendered["filter"]])


def tile_sampler_picture() -> np.ndarray:
    """Scattered squares (pattern), bricks (random colour), and stamps of a hexagon (the image shape)."""
    nodes = {
        "squares": Node("squares", "tile_sampler", {"x_amount": 7, "y_amount": 7, "shape": "square", "size": 0.75,
                                                    "scale_random": 0.5, "rotation_random": 1.0, "position_random": 0.35,
                                                    "luminance_random": 0.6, "seed": 21}),
        "bricks": Node("bricks", "tile_sampler", {"x_amount": 4, "y_amount": 8, "shape": "brick", "size": 0.95,
                                                  "rotation_random": 0.03, "position_random": 0.05, "seed": 8}),
        "hexagon": Node("hexagon", "polygon", {"sides": 6.0, "size": 0.9}),
        "stamps": Node("stamps", "tile_sampler", {"x_amount": 5, "y_amount": 5, "shape": "image", "size": 0.9,
                                                  "scale_random": 0.4, "rotation_random": 1.0, "position_random": 0.3,
                                                  "luminance_random": 0.5, "seed": 4}),
        "out": Node("out", "material_output"),
    }
    for buffer in ("squares_buffer", "bricks_buffer", "hexagon_buffer", "stamps_buffer"):
        nodes[buffer] = Node(buffer, "texture_buffer", {"resolution": "256"})
    connections = [
        Connection("squares", "pattern", "squares_buffer", "input"),
        Connection("bricks", "color", "bricks_buffer", "input"),
        Connection("hexagon", "out", "hexagon_buffer", "input"),
        Connection("hexagon_buffer", "out", "stamps", "image"),
        Connection("stamps", "pattern", "stamps_buffer", "input"),
        Connection("stamps_buffer", "out", "out", "base_color"),
    ]
    plan = plan_passes(MaterialGraph(nodes=nodes, connections=connections))
    rendered = run_plan_cpu(plan)
    return _strip([rendered[key] for key in ("squares_buffer", "bricks_buffer", "stamps_buffer")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    arguments = parser.parse_args()
    names = [*PICTURES, "tile_sampler"]
    for name in arguments.only or names:
        image = tile_sampler_picture() if name == "tile_sampler" else filter_picture(name)
        path = IMAGES / f"filter-{name.replace('_', '-')}.png"
        write_png(path, image)
        print(path)


if __name__ == "__main__":
    main()
