"""Generate the textures of the example materials into resources/examples/textures/ (PNG, deterministic).

    python tools/make_textures.py [--size 512] [--out DIR]

Everything is procedural numpy (seeded noise, no downloaded images), so the
textures are the project's own, under its licence, and regenerate to the
same bytes. Each texture tiles seamlessly (the noise lattice is periodic).

`painted_metal_*`: a steel panel painted teal, with seams, rivets, worn
edges and chips that show the bare metal:

- `painted_metal_albedo.png`: base colour, **sRGB** (Texture Parameter
  colour space sRGB);
- `painted_metal_orm.png`: glTF ORM packing, **linear**: R = ambient
  occlusion, G = roughness, B = metallic;
- `painted_metal_normal.png`: tangent-space normal map, **linear**, OpenGL
  convention (green = +v, up in the image), from the height field by
  central differences.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "resources" / "examples" / "textures"

PAINT = np.array([0.05, 0.33, 0.38])  # linear teal
STEEL = np.array([0.58, 0.58, 0.6])  # linear; F0 of polished iron/steel is about 0.53-0.56
PRIMER = np.array([0.35, 0.12, 0.06])  # linear red-brown primer at the rim of chips


def periodic_value_noise(size: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Value noise on a periodic `cells` x `cells` lattice with quintic interpolation, in [0, 1]."""
    lattice = rng.random((cells, cells))
    coordinates = np.arange(size) * cells / size
    cell = np.floor(coordinates).astype(int)
    fraction = coordinates - cell
    weight = fraction**3 * (fraction * (fraction * 6 - 15) + 10)
    x0, x1 = cell % cells, (cell + 1) % cells
    rows0 = lattice[x0][:, x0] * (1 - weight)[None, :] + lattice[x0][:, x1] * weight[None, :]
    rows1 = lattice[x1][:, x0] * (1 - weight)[None, :] + lattice[x1][:, x1] * weight[None, :]
    return rows0 * (1 - weight)[:, None] + rows1 * weight[:, None]


def fbm(size: int, base_cells: int, octaves: int, rng: np.random.Generator, gain: float = 0.5) -> np.ndarray:
    total = np.zeros((size, size))
    amplitude, norm = 1.0, 0.0
    for octave in range(octaves):
        cells = base_cells * 2**octave
        if cells > size // 2:
            break
        total += amplitude * periodic_value_noise(size, cells, rng)
        norm += amplitude
        amplitude *= gain
    return total / norm


def smoothstep(edge0: float, edge1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


def encode_srgb(linear: np.ndarray) -> np.ndarray:
    c = np.clip(linear, 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def normals_from_height(height: np.ndarray, strength: float) -> np.ndarray:
    """Tangent-space normals (OpenGL convention) of a periodic height field, rows top to bottom."""
    size = height.shape[0]
    # Columns grow with u; rows grow downwards, i.e. against v.
    d_du = (np.roll(height, -1, axis=1) - np.roll(height, 1, axis=1)) * 0.5 * size
    d_dv = -(np.roll(height, -1, axis=0) - np.roll(height, 1, axis=0)) * 0.5 * size
    normal = np.stack([-strength * d_du, -strength * d_dv, np.ones_like(height)], axis=-1)
    return normal / np.linalg.norm(normal, axis=-1, keepdims=True)


def painted_metal(size: int) -> dict[str, np.ndarray]:
    """(name -> float RGB image in [0, 1], already encoded as stored) for the painted steel panel."""
    rng = np.random.default_rng(20240613)
    u = (np.arange(size) + 0.5) / size
    uu, vv = np.meshgrid(u, u[::-1])  # row 0 is the top of the image (v = 1)
    panels = 2  # 2 x 2 panels per texture
    pu, pv = (uu * panels) % 1.0, (vv * panels) % 1.0
    edge_distance = np.minimum(np.minimum(pu, 1 - pu), np.minimum(pv, 1 - pv))  # in panel units
    seam = 1.0 - smoothstep(0.004, 0.014, edge_distance)

    # Rivets: a row along each panel edge, 8 per edge, 0.035 panel units from it.
    rivet = np.zeros_like(uu)
    for along, across in ((pu, pv), (pv, pu)):
        spacing = 1.0 / 8
        nearest = (np.floor(along / spacing) + 0.5) * spacing
        for offset in (0.035, 1 - 0.035):
            distance = np.hypot(along - nearest, across - offset) * 60.0
            rivet = np.maximum(rivet, np.clip(1.0 - distance * distance, 0.0, 1.0))

    large = fbm(size, 4, 6, rng)
    detail = fbm(size, 32, 4, rng)
    edge_wear = (1.0 - smoothstep(0.0, 0.08, edge_distance)) * smoothstep(0.35, 0.75, fbm(size, 8, 4, rng))
    chip_field = large * 0.75 + detail * 0.25 + edge_wear * 0.35 + rivet * 0.3
    chipped = smoothstep(0.69, 0.72, chip_field)
    primer_rim = smoothstep(0.64, 0.69, chip_field) * (1.0 - chipped)

    mottling = fbm(size, 8, 5, rng)
    paint = PAINT[None, None, :] * (0.82 + 0.36 * mottling)[..., None]
    steel_variation = fbm(size, 64, 3, rng)
    steel = STEEL[None, None, :] * (0.9 + 0.2 * steel_variation)[..., None]
    grime = smoothstep(0.3, 1.0, seam + fbm(size, 16, 4, rng) * 0.35)
    albedo = paint * (1 - primer_rim[..., None]) + PRIMER[None, None, :] * primer_rim[..., None]
    albedo = albedo * (1 - chipped[..., None]) + steel * chipped[..., None]
    albedo *= (1.0 - 0.55 * grime)[..., None]

    roughness = 0.42 + 0.12 * (detail - 0.5) + 0.25 * grime
    roughness = roughness * (1 - chipped) + (0.28 + 0.1 * steel_variation) * chipped
    metallic = chipped
    occlusion = 1.0 - 0.55 * seam
    occlusion = np.clip(occlusion, 0.0, 1.0)

    paint_thickness = 0.0025 * (1.0 - chipped)
    height = -0.006 * seam + 0.004 * rivet + paint_thickness + 0.0006 * (detail - 0.5)
    normal = normals_from_height(height, strength=1.0)

    return {
        "painted_metal_albedo": encode_srgb(albedo),
        "painted_metal_orm": np.stack([occlusion, np.clip(roughness, 0.0, 1.0), metallic], axis=-1),
        "painted_metal_normal": normal * 0.5 + 0.5,
    }


def to_bytes(image: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(image * 255.0), 0, 255).astype(np.uint8)


def write_png(path: Path, rgb: np.ndarray) -> None:
    from PySide6.QtGui import QImage

    data = np.ascontiguousarray(rgb)
    height, width, _ = data.shape
    image = QImage(data.data, width, height, 3 * width, QImage.Format.Format_RGB888).copy()
    if not image.save(str(path), "PNG"):
        raise OSError(f"cannot write {path}")


def generate(out: Path, size: int) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, image in painted_metal(size).items():
        path = out / f"{name}.png"
        write_png(path, to_bytes(image))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    arguments = parser.parse_args(argv)
    for path in generate(arguments.out, arguments.size):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
