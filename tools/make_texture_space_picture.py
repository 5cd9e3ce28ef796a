"""docs/images/texture-space-filters.png: a brick mask in a Texture Buffer, its Blur, and Height to Normal of the
blur, each tiled 2 x 2 to show the seams are gone, drawn by the CPU interpreter (no OpenGL).

    .venv/bin/python tools/make_texture_space_picture.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.material import (
    catalog,  # noqa: F401 - registers the node types
    texture_passes,
)
from app.material.graph import MaterialGraph
from app.preview.cpu_passes import run_plan_cpu
from vpl_core.interp.png import write_png

OUTPUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "texture-space-filters.png"


def main() -> None:
    graph = MaterialGraph()
    output = graph.add_node("material_output")
    bricks = graph.add_node("bricks", properties={"count": (2.0, 4.0), "mortar": 0.04, "softness": 0.0})
    buffer = graph.add_node("texture_buffer", properties={"resolution": "256"})
    graph.connect(bricks.id, "mask", buffer.id, "input")
    blur = graph.add_node("blur", properties={"radius": 0.03})
    graph.connect(buffer.id, "out", blur.id, "image")
    normal = graph.add_node("height_to_normal", properties={"intensity": 0.03})
    graph.connect(blur.id, "out", normal.id, "height")
    graph.connect(normal.id, "out", output.id, "base_color")
    plan = texture_passes.plan_passes(graph)
    if not plan.ok:
        raise SystemExit(f"the plan has errors: {plan.diagnostics}")
    buffers = run_plan_cpu(plan)
    gap = np.ones((512, 8, 4), np.float32)
    panels = []
    for key in (buffer.id, blur.id, normal.id):
        panels += [np.tile(buffers[key], (2, 2, 1)), gap]
    image = np.concatenate(panels[:-1], axis=1)
    write_png(OUTPUT, (np.clip(image, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8))
    print(OUTPUT)


if __name__ == "__main__":
    main()
