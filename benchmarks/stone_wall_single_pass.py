"""The stone wall example's single-pass twin, for bench_texture_passes.py: the same look computed per point.

Every buffer of resources/examples/stone_wall.vpl is replaced by its closest
per-point equivalent: the warped bricks' mask and brick id directly (Flood
Fill's random grey per stone is the Bricks node's brick id), Bevel by a
smoothstep of the mask, the grain noise evaluated per point, Slope Blur and
Blur dropped (they have none), Curvature's edge wear by a band where the
mask falls off on the stone side, Height to Normal by Normal From Height (screen-space
derivatives). The parameters keep their names (`height_variation` upstream
of the buffers in the example, `tint` downstream of all of them), so the
benchmark edits the same values in both.

    .venv/bin/python benchmarks/stone_wall_single_pass.py   # writes benchmarks/stone_wall_single_pass.vpl
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import app.material.catalog  # noqa: F401 - registers every node type
from app.material.document import save_text
from app.material.graph import MaterialGraph

TARGET = Path(__file__).resolve().parent / "stone_wall_single_pass.vpl"


def stone_wall_single_pass() -> MaterialGraph:
    graph = MaterialGraph()
    uv = graph.add_node("texcoord", (0, 0))
    tiling = graph.add_node("transform_uv", (250, 0), {"tiling": (2.0, 1.0)})
    wobble = graph.add_node("fractal_noise", (500, 150), {"scale": 6.0, "octaves": 3})
    shift = graph.add_node("multiply", (750, 150), {"b": 0.03})
    warped = graph.add_node("add", (750, 0))
    stones = graph.add_node("bricks", (1000, 0), {"count": (5.0, 9.0), "row_offset": 0.43, "mortar": 0.022,
                                                  "softness": 0.004})
    domed = graph.add_node("smoothstep", (1300, 0), {"edge0": 0.0, "edge1": 1.0})
    variation = graph.add_node("float_parameter", (1300, 300), {"name": "height_variation", "default": 0.5,
                                                               "minimum": 0.0, "maximum": 1.0})
    per_stone = graph.add_node("mix", (1550, 300), {"a": 1.0})
    raised = graph.add_node("multiply", (1800, 0))
    grain = graph.add_node("fractal_noise", (1300, 600), {"scale": 24.0, "octaves": 5, "basis": "gradient"})
    grain_depth = graph.add_node("multiply", (1550, 600), {"b": 0.025})
    height = graph.add_node("add", (2050, 0))
    bump = graph.add_node("normal_from_height", (2300, 0), {"strength": 0.04, "filter_width": 0.0})
    stone_colour = graph.add_node("color_ramp", (1550, 900), {"stops": (
        (0.0, 0.12, 0.11, 0.1, 1.0), (0.4, 0.27, 0.23, 0.18, 1.0), (0.75, 0.4, 0.33, 0.24, 1.0),
        (1.0, 0.2, 0.21, 0.23, 1.0))})
    mortar_colour = graph.add_node("constant_color", (1550, 1500), {"value": (0.15, 0.14, 0.13, 1.0)})
    laid = graph.add_node("mix", (1800, 900))
    speckle = graph.add_node("remap", (1800, 600), {"out_min": 0.6, "out_max": 1.4})
    speckled = graph.add_node("multiply", (2050, 900))
    edge_band = graph.add_node("smoothstep", (1550, 1200), {"edge0": 0.95, "edge1": 0.6})
    on_stone = graph.add_node("multiply", (1800, 1200))
    wear = graph.add_node("multiply", (2050, 1200), {"b": 0.6})
    worn_colour = graph.add_node("constant_color", (2050, 1500), {"value": (0.55, 0.51, 0.45, 1.0)})
    worn = graph.add_node("mix", (2300, 900))
    tint = graph.add_node("float_parameter", (2300, 1200), {"name": "tint", "default": 1.0, "minimum": 0.0,
                                                            "maximum": 2.0})
    tinted = graph.add_node("multiply", (2550, 900))
    roughness = graph.add_node("mix", (2550, 1200), {"a": 0.78, "b": 0.95})
    output = graph.add_node("surface_output", (2800, 0), {"metallic": 0.0})
    graph.connect(uv.id, "out", tiling.id, "uv")
    graph.connect(tiling.id, "out", wobble.id, "uv")
    graph.connect(wobble.id, "out", shift.id, "a")
    graph.connect(tiling.id, "out", warped.id, "a")
    graph.connect(shift.id, "out", warped.id, "b")
    graph.connect(warped.id, "out", stones.id, "uv")
    graph.connect(stones.id, "mask", domed.id, "x")
    graph.connect(variation.id, "out", per_stone.id, "t")
    graph.connect(stones.id, "brick_id", per_stone.id, "b")
    graph.connect(domed.id, "out", raised.id, "a")
    graph.connect(per_stone.id, "out", raised.id, "b")
    graph.connect(tiling.id, "out", grain.id, "uv")
    graph.connect(grain.id, "out", grain_depth.id, "a")
    graph.connect(raised.id, "out", height.id, "a")
    graph.connect(grain_depth.id, "out", height.id, "b")
    graph.connect(height.id, "out", bump.id, "height")
    graph.connect(stones.id, "brick_id", stone_colour.id, "factor")
    graph.connect(mortar_colour.id, "out", laid.id, "a")
    graph.connect(stone_colour.id, "color", laid.id, "b")
    graph.connect(worn_colour.id, "out", worn.id, "b")
    graph.connect(stones.id, "mask", laid.id, "t")
    graph.connect(grain.id, "out", speckle.id, "x")
    graph.connect(laid.id, "out", speckled.id, "a")
    graph.connect(speckle.id, "out", speckled.id, "b")
    graph.connect(stones.id, "mask", edge_band.id, "x")
    graph.connect(edge_band.id, "out", on_stone.id, "a")
    graph.connect(stones.id, "mask", on_stone.id, "b")
    graph.connect(on_stone.id, "out", wear.id, "a")
    graph.connect(speckled.id, "out", worn.id, "a")
    graph.connect(wear.id, "out", worn.id, "t")
    graph.connect(worn.id, "out", tinted.id, "a")
    graph.connect(tint.id, "out", tinted.id, "b")
    graph.connect(wear.id, "out", roughness.id, "t")
    graph.connect(tinted.id, "out", output.id, "base_color")
    graph.connect(roughness.id, "out", output.id, "roughness")
    graph.connect(bump.id, "normal_out", output.id, "normal")
    return graph


if __name__ == "__main__":
    TARGET.write_text(save_text(stone_wall_single_pass()), encoding="utf-8")
    print(TARGET)
