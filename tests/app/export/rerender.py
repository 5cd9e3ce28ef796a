"""Rendering a material and its baked glTF twin with the preview, and the seam mask that compares them.

Used by test_bake_rerender.py and test_mtlx.py. Both renders use
the preview's `Renderer` with the default stage (studio environment, the
default light and camera), tone-mapped to 8-bit display pixels as the
preview shows them.

The mask (docs/interchange.md, "Checking a bake") keeps a pixel only when
1. the mesh covers it and its four neighbours (no silhouette pixels),
2. its texture coordinates are continuous: no 4-neighbour differs by more
   than `SEAM_JUMP` in u or v (the sphere's wrap-around seam, island
   borders), and
3. the texel it reads at the bake's resolution, and that texel's
   8-neighbours, are fully covered (no seam-edge or padding texels).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.export.bake import apply_parameters
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.texture_passes import has_pass_nodes
from app.preview.preview_state import prepare_environment
from app.preview.renderer import Renderer
from app.preview.stage import Stage
from app.preview.texture_passes_gl import schedule_for
from app.session.pass_programs import PassProgramCache
from vpl_core.backends.glsl import compile as compile_glsl

SEAM_JUMP = 0.1
_environment = None


def environment():
    global _environment
    if _environment is None:
        _environment = prepare_environment(Stage().environment)
    return _environment


def render(graph: MaterialGraph, document_dir: Path | None, size: int, target: str = "glsl420", mesh: str = "sphere") -> np.ndarray:
    """The preview frame (size x size, RGBA uint8, top row first) of `graph` on the default stage."""
    lowered = lower(graph)
    assert lowered.ok, lowered.diagnostics
    renderer = Renderer()
    try:
        stage = Stage()
        stage.apply(renderer)
        renderer.set_mesh(mesh)
        maps, table = environment()
        renderer.set_environment_maps(maps)
        renderer.set_brdf_table(table)
        assert apply_parameters(renderer, lowered.parameters, graph, document_dir) == []
        # The material's texture passes, as the preview runs them (none for most materials).
        passes = PassProgramCache.for_graph(graph).get(target) if has_pass_nodes(graph) else None
        renderer.build_program(compile_glsl(lowered.verified, target=target) if target != "glsl420" else lowered.artifact,
                               schedule_for(passes))
        return renderer.render_image(size, size)
    finally:
        renderer.release()


def uv_image(size: int, mesh: str = "sphere") -> np.ndarray:
    """Per pixel (u, v, covered) of the mesh in the default view: float (size, size, 3); covered is 1 or 0."""
    graph = MaterialGraph()
    texcoord = graph.add_node("texcoord")
    split = graph.add_node("split")
    compose = graph.add_node("compose", properties={"size": 3, "z": 1.0})
    output = graph.add_node("material_output", properties={"emissive": (0.0, 0.0, 0.0, 1.0)})
    graph.connect(texcoord.id, "out", split.id, "vector")
    graph.connect(split.id, "x", compose.id, "x")
    graph.connect(split.id, "y", compose.id, "y")
    graph.connect(compose.id, "out", output.id, "base_color")
    lowered = lower(graph)
    assert lowered.ok, lowered.diagnostics
    renderer = Renderer()
    try:
        renderer.set_mesh(mesh)
        renderer.set_background((0.0, 0.0, 0.0))
        renderer.build_program(lowered.artifact)
        return renderer.render_linear(size, size)[:, :, :3].astype(np.float64)
    finally:
        renderer.release()


def seam_mask(uv: np.ndarray, coverage: np.ndarray) -> np.ndarray:
    """The pixels compared (module docstring): True where the comparison is meaningful."""
    covered = uv[:, :, 2] > 0.5
    keep = covered.copy()
    for axis in (0, 1):
        for shift in (1, -1):
            neighbour = np.roll(uv, shift, axis=axis)
            keep &= np.roll(covered, shift, axis=axis)
            keep &= np.abs(neighbour[:, :, 0] - uv[:, :, 0]) <= SEAM_JUMP
            keep &= np.abs(neighbour[:, :, 1] - uv[:, :, 1]) <= SEAM_JUMP
    keep[[0, -1], :] = False
    keep[:, [0, -1]] = False
    size = coverage.shape[0]
    full = coverage >= 1.0
    interior = full.copy()
    padded = np.pad(full, 1)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            interior &= padded[1 + dy: 1 + dy + size, 1 + dx: 1 + dx + size]
    columns = np.clip((uv[:, :, 0] * size).astype(int), 0, size - 1)
    rows = np.clip(((1.0 - uv[:, :, 1]) * size).astype(int), 0, size - 1)  # baked images: top row is v = 1
    return keep & interior[rows, columns]


def box(image: np.ndarray, factor: int) -> np.ndarray:
    """Mean of factor x factor blocks (float)."""
    height, width = image.shape[0] // factor, image.shape[1] // factor
    return image[: height * factor, : width * factor].reshape(height, factor, width, factor, -1).mean(axis=(1, 3))


def difference(first: np.ndarray, second: np.ndarray, mask: np.ndarray, uv: np.ndarray, factor: int = 1) -> dict[str, float]:
    """Absolute differences of the rgb of two 8-bit frames over the mask, in 1/255 steps.

    With `factor` > 1 both frames are box-filtered first (a block counts when all its pixels are in the mask).
    """
    a, b = first[:, :, :3].astype(np.float64), second[:, :, :3].astype(np.float64)
    keep = mask
    if factor > 1:
        a, b = box(a, factor), box(b, factor)
        keep = box(mask[:, :, None].astype(np.float64), factor)[:, :, 0] == 1.0
    delta = np.abs(a - b)[keep]
    covered = uv[:, :, 2] > 0.5
    return {
        "mean": float(delta.mean()),
        "p95": float(np.percentile(delta, 95)),
        "p99": float(np.percentile(delta, 99)),
        "max": float(delta.max()),
        "masked_out": float(1.0 - mask.sum() / max(covered.sum(), 1)),
    }
