"""Baked maps re-rendered: each PBR example against its baked glTF twin, both drawn by the preview.

The example is baked at 1024² on the sphere and exported as `.gltf`; the
exported material is read back as a plain-texture Surface Output
(`app.export.gltf.material_graph`: Texture Parameters, ORM unpack, Normal
Map), and both are rendered at 512² on the default stage (studio
environment, tone-mapped 8-bit). Compared after a 2×2 box filter, over the
seam mask of `rerender.seam_mask` (silhouette, UV discontinuities, texels
not fully covered; about 1 % of the sphere's pixels).

Tolerances, in 8-bit display steps (docs/interchange.md, "Checking a
bake"): mean ≤ 2 and 95th percentile ≤ 10; brushed metal, whose 500 noise
cells per unit are finer than a preview pixel (aliased by the procedural
preview, mip-mapped in the baked one), mean ≤ 4 and 95th percentile ≤ 14;
the stone wall and the rusted metal, for the same reason (buffers and noise
finer than a preview pixel), mean ≤ 4 and 95th percentile ≤ 16.
What remains is resampling at sharp edges (paint chips, stripes).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rerender

from app.export.bake import Baker, BakeSettings
from app.export.gltf import export_gltf, material_graph
from app.material.document import load_file
from app.material.graph import MaterialGraph

pytestmark = pytest.mark.gl

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "resources" / "examples"
RENDER_SIZE = 512
BAKE_SIZE = 1024
#: example -> (largest mean, largest 95th percentile), in 1/255.
TOLERANCES = {
    "painted_metal": (2.0, 10.0),
    "brushed_metal": (4.0, 14.0),
    "polished_gold": (2.0, 10.0),
    "rough_plastic": (2.0, 10.0),
    "glazed_ceramic": (2.0, 10.0),
    "material_chart": (2.0, 10.0),
    # Made with texture passes: the bake runs them before its first target. The stone wall reads its 512²
    # buffers twice around the sphere, minified without mip-maps by the live preview (mip-mapped in the
    # baked twin); the rusted metal's rust colour noise has 240 to 1920 cells per unit (measured: mean 3.4
    # and 3.8, 95th percentile 15.25 and 14.25).
    "stone_wall": (4.0, 16.0),
    "rusted_metal": (4.0, 16.0),
    "wet_cobblestones": (2.0, 10.0),
    "scattered_pebbles": (2.0, 10.0),
}


@pytest.fixture(scope="module")
def uv(gl_context):
    gl_context.make_current()
    return rerender.uv_image(RENDER_SIZE)


def bake_and_reread(name: str, folder: Path) -> tuple[MaterialGraph, MaterialGraph, object]:
    path = EXAMPLES / f"{name}.vpl"
    graph = load_file(path).graph
    baker = Baker(graph, BakeSettings(size=BAKE_SIZE), document_dir=path.parent)
    baked = baker.bake_material()
    export_gltf(baked, baker.mesh(), folder / f"{name}.gltf", name)
    return graph, material_graph(folder / f"{name}.gltf"), baked


@pytest.mark.parametrize("name", sorted(TOLERANCES))
def test_the_baked_twin_looks_like_the_original(current_gl, uv, name: str, tmp_path: Path) -> None:
    original, twin, baked = bake_and_reread(name, tmp_path)
    first = rerender.render(original, EXAMPLES, RENDER_SIZE)
    second = rerender.render(twin, None, RENDER_SIZE)
    mask = rerender.seam_mask(uv, baked.coverage)
    assert 0.0 < 1.0 - mask.sum() / (uv[:, :, 2] > 0.5).sum() < 0.03  # the mask takes out the seams, little else
    measured = rerender.difference(first, second, mask, uv, factor=2)
    mean, p95 = TOLERANCES[name]
    assert measured["mean"] <= mean and measured["p95"] <= p95, measured


def test_the_comparison_can_fail(current_gl, uv, tmp_path: Path) -> None:
    """A twin with the base colour flipped upside down (a v-convention bug) is far outside the tolerance."""
    original, twin, baked = bake_and_reread("painted_metal", tmp_path)
    flipped = next(node for node in twin.nodes.values() if node.properties.get("name") == "base_color")
    import OpenImageIO as oiio  # noqa: N813 - the library's own documented alias

    image = oiio.ImageBufAlgo.flip(oiio.ImageBuf(flipped.properties["image"]))
    target = tmp_path / "flipped.png"
    image.write(str(target))
    flipped.properties["image"] = str(target)
    measured = rerender.difference(rerender.render(original, EXAMPLES, RENDER_SIZE), rerender.render(twin, None, RENDER_SIZE),
                                   rerender.seam_mask(uv, baked.coverage), uv, factor=2)
    assert measured["mean"] > 3 * TOLERANCES["painted_metal"][0], measured
