"""The jade (standard_surface_jade) by the preview, by MaterialX's renderer and by a numpy Monte Carlo of the BSDF.

    xvfb-run -a .venv/bin/python benchmarks/bench_jade_monte_carlo.py [--size N] [--samples N] [--step N] [--mc-samples N]

The preview's OpenPBR import of MaterialX's jade is darker than MaterialX's
render of it (docs/interchange.md, "StandardSurface examples"). This prints,
over a grid of the sphere's inner pixels (every `--step`-th row and column),
the mean absolute 8-bit difference of each renderer from a Monte Carlo
estimate of what both draw under environment light alone: a GGX dielectric
specular (IOR 2.418, roughness 0.25, exact Fresnel, height-correlated Smith;
tests/openpbr_reference.py) over a Lambertian base of albedo
mix(base × base_color, subsurface_color, subsurface) scaled by 1 − the
specular's directional albedo (OpenPBR's albedo scaling), read from the
full-resolution studio image. Both renderers light the subsurface from the
environment as subsurface_color × irradiance, so the estimate does too. The
document's specular anisotropy 0.5 is set to 0 for all three (it moves the
preview-MaterialX difference by 0.05 levels at 64 px, 64 samples).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import mtlx_reference  # noqa: E402 - after the path set-up above
import openpbr_reference  # noqa: E402

JADE = mtlx_reference.MX_EXAMPLES / "StandardSurface" / "standard_surface_jade.mtlx"
COLOR = np.array([0.0603, 0.4398, 0.1916])
#: base 0.5 × base_color mixed with subsurface_color (the same colour) by subsurface 0.4.
ALBEDO = COLOR * (0.6 * 0.5 + 0.4)
IOR, ROUGHNESS = 2.418, 0.25


def estimate(radiance: np.ndarray, normal: np.ndarray, view: np.ndarray, rng: np.random.Generator, samples: int) -> np.ndarray:
    from app.preview import ibl

    light, weight = openpbr_reference._ggx_reflection(normal, view, ROUGHNESS, IOR, rng, samples)
    specular = (ibl.background_radiance(radiance, light).astype(np.float64) * weight[:, None]).mean(axis=0)
    directions = openpbr_reference._cosine_directions(openpbr_reference._basis(normal), rng, samples)
    diffuse = ibl.background_radiance(radiance, directions).astype(np.float64).mean(axis=0) * ALBEDO
    return np.asarray(specular + (1.0 - weight.mean()) * diffuse)


def main() -> int:
    from app.preview.environment import load_named_environment

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--samples", type=int, default=1024, help="MaterialX's samples per pixel")
    parser.add_argument("--step", type=int, default=5)
    parser.add_argument("--mc-samples", type=int, default=40000)
    arguments = parser.parse_args()
    size = arguments.size
    with tempfile.TemporaryDirectory() as scratch:
        document = Path(scratch) / "jade.mtlx"
        document.write_text(JADE.read_text().replace('name="specular_anisotropy" type="float" value="0.5"',
                                                     'name="specular_anisotropy" type="float" value="0.0"'))
        materialx = mtlx_reference.srgb_8bit(mtlx_reference.render_materialx(document, size, arguments.samples))
        preview = np.round(mtlx_reference.render_editor(document, size))
    radiance = load_named_environment(mtlx_reference.ENVIRONMENT).radiance
    view_matrix, projection, eye = mtlx_reference.camera_matrices(size)
    inverse = np.linalg.inv(projection @ view_matrix)
    mask = mtlx_reference.sphere_mask(size)
    rng = np.random.default_rng(5)
    differences = []
    for row in range(arguments.step // 2, size, arguments.step):
        for column in range(arguments.step // 2, size, arguments.step):
            if not mask[row, column]:
                continue
            x, y = (column + 0.5) / size * 2.0 - 1.0, 1.0 - (row + 0.5) / size * 2.0
            near, far = inverse @ np.array([x, y, -1.0, 1.0]), inverse @ np.array([x, y, 1.0, 1.0])
            direction = far[:3] / far[3] - near[:3] / near[3]
            direction /= np.linalg.norm(direction)
            along = direction @ eye
            normal = eye + direction * (-along - math.sqrt(along * along - (eye @ eye - 1.0)))
            normal /= np.linalg.norm(normal)
            expected = openpbr_reference.srgb_8bit(estimate(radiance, normal, -direction, rng, arguments.mc_samples))
            differences.append((preview[row, column] - expected, materialx[row, column] - expected,
                                preview[row, column] - materialx[row, column]))
    table = np.asarray(differences)
    print(f"size {size}, MaterialX {arguments.samples} samples, {len(table)} pixels (step {arguments.step}), "
          f"Monte Carlo {arguments.mc_samples} samples per pixel")
    for index, name in enumerate(("preview - Monte Carlo", "MaterialX - Monte Carlo", "preview - MaterialX")):
        print(f"{name:24s} mean |d| {np.abs(table[:, index]).mean():5.2f}   signed per channel "
              f"{np.array2string(table[:, index].mean(axis=0), precision=2)}   median |d| {np.median(np.abs(table[:, index])):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
