"""A material with texture passes baked and re-rendered: the baked glTF twin looks like the live preview.

Bumpy tiles: a checker rendered into a Texture Buffer, blurred, turned into
a normal map by Height to Normal; the blur is the base colour, the normal
goes through Normal Map. Baked at 256² on the sphere (the bake runs the same
passes, before its first target), exported as `.gltf`, read back as plain
textures and both drawn by the preview on the default stage, as
test_bake_rerender.py checks the examples (same mask, same tolerances: mean
≤ 2 and 95th percentile ≤ 10 display steps after a 2×2 box filter).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import rerender

import app.material.catalog  # noqa: F401 - registers every node type
from app.export.bake import Baker, BakeSettings
from app.export.gltf import export_gltf, material_graph
from app.material.graph import MaterialGraph

pytestmark = pytest.mark.gl

SIZE = 256
RENDER_SIZE = 256


def bumpy_tiles() -> MaterialGraph:
    graph = MaterialGraph()
    graph.add_node("texcoord", node_id="uv")
    graph.add_node("checker", node_id="tiles", properties={"scale": 4.0})
    graph.add_node("texture_buffer", node_id="height", properties={"resolution": str(SIZE), "format": "16-bit"})
    graph.add_node("blur", node_id="blur", properties={"radius": 4.0 / SIZE})
    graph.add_node("height_to_normal", node_id="bump", properties={"intensity": 0.01})
    graph.add_node("sample_texture", node_id="colour")
    graph.add_node("sample_texture", node_id="normal_texture")
    graph.add_node("normal_map", node_id="normal_map")
    graph.add_node("surface_output", node_id="out", properties={"roughness": 0.5})
    graph.connect("uv", "out", "tiles", "uv")
    graph.connect("tiles", "out", "height", "input")
    graph.connect("height", "out", "blur", "image")
    graph.connect("blur", "out", "bump", "height")
    graph.connect("blur", "out", "colour", "texture")
    graph.connect("bump", "out", "normal_texture", "texture")
    graph.connect("colour", "rgb", "out", "base_color")
    graph.connect("normal_texture", "rgb", "normal_map", "tangent_normal")
    graph.connect("normal_map", "normal_out", "out", "normal")
    return graph


def test_the_baked_twin_of_a_material_with_passes_looks_like_the_preview(current_gl, tmp_path: Path) -> None:
    graph = bumpy_tiles()
    baker = Baker(graph, BakeSettings(size=SIZE), any_size=True)
    baked = baker.bake_material()
    assert "base" in baked.passes and "normal" in baked.passes, sorted(baked.passes)
    export_gltf(baked, baker.mesh(), tmp_path / "tiles.gltf", "tiles")
    twin = material_graph(tmp_path / "tiles.gltf")
    uv = rerender.uv_image(RENDER_SIZE)
    first = rerender.render(graph, None, RENDER_SIZE)
    second = rerender.render(twin, None, RENDER_SIZE)
    mask = rerender.seam_mask(uv, baked.coverage)
    stats = rerender.difference(first, second, mask, uv, factor=2)
    assert stats["mean"] <= 2.0 and stats["p95"] <= 10.0, stats
    # The passes are in the bake: the base colour holds the blurred checker (no hard 0/1 edges left, both
    # colours present), not the checker texture the sampler reads when no pass ran.
    base = baked.passes["base"][..., :3][baked.coverage >= 1.0]
    assert base.min() < 0.2 and base.max() > 0.5
    assert np.mean((base > 0.02) & (base < 0.78)) > 0.05


def test_materialx_export_bakes_what_reads_a_buffer(current_gl, tmp_path: Path) -> None:
    """MaterialX has no texture passes: a Texture Sample reading a buffer is baked, by the baker that runs the
    passes first. The baked colour holds the blurred checker: texel for texel the direct circular convolution of
    the checker at texel centres (the read lands on buffer texel centres: both are 256²)."""
    import OpenImageIO as oiio  # noqa: N813 - the library's own documented alias

    from app.export import mtlx

    graph = bumpy_tiles()
    graph.nodes["tiles"].properties.update({"color_a": (0.0, 0.0, 0.0, 1.0), "color_b": (1.0, 1.0, 1.0, 1.0)})
    baker = Baker(graph, BakeSettings(size=SIZE), any_size=True)
    result = mtlx.export_mtlx(graph, tmp_path / "tiles.mtlx", "tiles", bake=baker.bake_node_outputs)
    names = sorted(file.name for file in result.baked_files)
    assert names == ["tiles_colour_rgb.exr", "tiles_normal_texture_rgb.exr"], names
    valid, message = mtlx.validate((tmp_path / "tiles.mtlx").read_text())
    assert valid, message
    image = oiio.ImageBuf(str(tmp_path / "tiles_colour_rgb.exr")).get_pixels(oiio.FLOAT)[::-1, :, :3]  # GL rows
    centres = (np.arange(SIZE) + 0.5) / SIZE
    u, v = np.meshgrid(centres, centres)
    checker = ((np.floor(4 * u) + np.floor(4 * v)) % 2.0)[..., None]
    taps = 4  # blur_taps(4 / 256, 256): one texel apart, sigma 4/3 texels
    offsets = np.arange(-taps, taps + 1)
    weights = np.exp(-0.5 * (offsets / (4.0 / 3.0)) ** 2)
    weights /= weights.sum()
    expected = sum(wy * wx * np.roll(checker, (-dy, -dx), axis=(0, 1))
                   for dy, wy in zip(offsets, weights, strict=True) for dx, wx in zip(offsets, weights, strict=True))
    error = np.abs(image - expected)  # over every texel: the sphere covers nearly all, dilation fills the rest
    assert np.median(error) <= 2e-3 and np.percentile(error, 90) <= 5e-3, (np.median(error), np.percentile(error, 90))
    assert 0.1 < float(np.mean((image > 0.05) & (image < 0.95))) < 0.6  # soft edges: the blur ran
