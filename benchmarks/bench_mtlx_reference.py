"""The editor's preview against MaterialX's own renderer on the MaterialX example materials.

    xvfb-run -a .venv/bin/python benchmarks/bench_mtlx_reference.py [--size N] [--samples N] [NAME ...]

Each material is rendered by MaterialX's GLSL renderer (PyMaterialXRenderGlsl,
filtered importance sampling) and by `vpl-editor --preview-screenshot` of
`vpl import-mtlx`'s result: the preview's sphere and camera, the studio
environment, environment light only, no tone mapping (tests/mtlx_reference.py).
Prints the mean absolute 8-bit difference over the sphere's inner pixels per
material and the seconds each pair took.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import mtlx_reference  # noqa: E402 - after the path set-up above

#: The glTF and USD example materials every input of which the Surface Output represents (the tiled brass textured), the textured boombox,
#: every StandardSurface example (onto the Surface Output or the OpenPBR Surface) and the OpenPBR examples.
MATERIALS = (
    "GltfPbr/gltf_pbr_default.mtlx", "GltfPbr/gltf_pbr_gold.mtlx", "GltfPbr/gltf_pbr_plastic.mtlx", "GltfPbr/gltf_pbr_boombox.mtlx",
    *sorted(f"StandardSurface/{path.name}" for path in (mtlx_reference.MX_EXAMPLES / "StandardSurface").glob("*.mtlx")),
    "UsdPreviewSurface/usd_preview_surface_default.mtlx", "UsdPreviewSurface/usd_preview_surface_gold.mtlx",
    "UsdPreviewSurface/usd_preview_surface_plastic.mtlx", "UsdPreviewSurface/usd_preview_surface_brass_tiled.mtlx",
    *sorted(f"OpenPbr/{path.name}" for path in (mtlx_reference.MX_EXAMPLES / "OpenPbr").glob("*.mtlx")),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(MATERIALS))
    parser.add_argument("--size", type=int, default=mtlx_reference.SIZE)
    parser.add_argument("--samples", type=int, default=mtlx_reference.SAMPLES)
    arguments = parser.parse_args()
    print(f"size {arguments.size}, {arguments.samples} samples, environment {mtlx_reference.ENVIRONMENT}")
    for name in arguments.names:
        start = time.perf_counter()
        difference = mtlx_reference.compare(mtlx_reference.MX_EXAMPLES / name, arguments.size, arguments.samples)
        print(f"{name:55s} {difference:6.2f} levels  ({time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
