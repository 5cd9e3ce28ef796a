"""The preview of a textured glTF material against a Monte Carlo estimate of the glTF BRDF, texel by texel.

The material is MaterialX's gltf_pbr boombox example as `vpl import-mtlx`
reads it (base colour, occlusion-roughness-metallic, normal and emissive
textures), drawn by `--preview-screenshot` on the preview's sphere in the
studio environment, environment light only, no tone mapping
(tests/mtlx_reference.py). For pixels whose four textures are uniform over
a few texels around the pixel's texture coordinate (so texture filtering
does not matter) and whose occlusion is 1, the expected radiance is
computed here from the textures as glTF defines them: base colour sRGB,
roughness in G and metallic in B, the normal map's green pointing to +v
(tangent along +u, MikkTSpace frame), emissive sRGB added; specular by
`metal_reference.metal_radiance` (multiple importance sampling of the full
resolution environment) with F0 = mix(0.04, base colour, metallic), diffuse
(1 - F) (1 - metallic) base colour × irradiance / pi by a sum over the
environment. The sphere's texture coordinates are analytic: u = 0.5 +
atan2(x, z) / 2 pi, v = 0.5 + asin(y) / pi.

This is the reference MaterialX's own renderer is not at this material's
low roughness (docs/interchange.md): its filtered importance sampling puts
bright speckles on the smooth (roughness 0.1) dark plastic. The tiled brass
and the chess set's black bishop are checked the same way. Run with `-s` to
print the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mtlx_reference
import numpy as np
import pytest
from metal_reference import EnvironmentSampler, metal_radiance

from app.preview.environment import load_named_environment

pytestmark = pytest.mark.gl

DOCUMENT = mtlx_reference.MX_EXAMPLES / "GltfPbr" / "gltf_pbr_boombox.mtlx"
TEXTURES = DOCUMENT.parent / "boombox"
SIZE = 128
#: Pixels compared (a fixed random choice among the uniform ones) and Monte Carlo samples per pixel.
PIXELS = 60
SAMPLES = 4096
#: Half-width in texels of the window each texture must be uniform over, and how uniform (standard deviation).
WINDOW = 3
UNIFORM = 0.01
#: Mean absolute difference allowed, 8-bit sRGB levels.
MEAN_LEVELS = 1.5
#: The chess bishop's textures are JPEG (noisier than the boombox's PNG): a smaller window, a looser uniformity.
CHESS_WINDOW = 2
CHESS_UNIFORM = 0.02
#: The chess bishop's mean allowed, and its mean signed difference per channel: a pixel on a light's reflection
#: in the normal-mapped lobe moves by tens of levels with the normal's filtering (one of the 60 is 55 levels off,
#: the preview and MaterialX both below the estimate there); without it the mean is 1.7.
CHESS_MEAN_LEVELS = 3.0
CHESS_BIAS_LEVELS = 1.0
#: The samples of MaterialX's stored render of the chess set (tests/app/export/test_mtlx_reference.py's MISS_SAMPLES).
CHESS_MATERIALX_SAMPLES = 64


def _texture(path: Path, srgb: bool) -> np.ndarray:
    """The image's RGB as float64 (a one-channel image repeated), decoded from sRGB when `srgb`."""
    import OpenImageIO as oiio  # noqa: N813 - the package's name

    pixels = np.asarray(oiio.ImageBuf(str(path)).get_pixels(oiio.FLOAT), dtype=np.float64)
    pixels = np.repeat(pixels[..., :1], 3, axis=-1) if pixels.shape[-1] < 3 else pixels[..., :3]
    return np.where(pixels <= 0.04045, pixels / 12.92, ((pixels + 0.055) / 1.055) ** 2.4) if srgb else pixels


@dataclass(frozen=True)
class UniformPixels:
    """PIXELS sphere pixels (a fixed random choice) whose stacked texture channels are uniform around their texel."""

    pixels: np.ndarray  # rows and columns (PIXELS, 2)
    points: np.ndarray  # points on the unit sphere (PIXELS, 3)
    views: np.ndarray  # unit directions to the eye (PIXELS, 3)
    u: np.ndarray  # the sphere's texture coordinate u (PIXELS,)
    texel: np.ndarray  # the stacked channels at the pixel's texel (PIXELS, channels)


def _uniform_pixels(stacked: np.ndarray, window: int, uniform: float,
                    keep: Callable[[np.ndarray], np.ndarray] | None = None) -> UniformPixels:
    """The sphere's texture coordinates at SIZE² (u = 0.5 + atan2(x, z) / 2 pi, v = 0.5 + asin(y) / pi) looked up in
    the `stacked` textures; a pixel qualifies when every channel's standard deviation over the texels within
    `window` of its own is below `uniform` (and `keep` of its texels holds)."""
    height, width = stacked.shape[:2]
    pixels, points, views = mtlx_reference.sphere_points(SIZE)
    u = 0.5 + np.arctan2(points[:, 0], points[:, 2]) / (2.0 * np.pi)
    v = 0.5 + np.arcsin(np.clip(points[:, 1], -1.0, 1.0)) / np.pi
    columns, rows = (u * width).astype(int) % width, np.clip(((1.0 - v) * height).astype(int), 0, height - 1)
    offsets = np.arange(-window, window + 1)
    around = stacked[np.clip(rows[:, None, None] + offsets[None, :, None], 0, height - 1),
                     (columns[:, None, None] + offsets[None, None, :]) % width]
    texel = stacked[rows, columns]
    qualifies = around.reshape(len(u), -1, stacked.shape[-1]).std(axis=1).max(axis=1) < uniform
    if keep is not None:
        qualifies &= keep(texel)
    chosen = np.random.default_rng(3).choice(np.nonzero(qualifies)[0], PIXELS, replace=False)
    return UniformPixels(pixels[chosen], points[chosen], views[chosen], u[chosen], texel[chosen])


def _studio() -> tuple[EnvironmentSampler, Callable[[np.ndarray], np.ndarray]]:
    """The reference environment's sampler, and irradiance / pi towards a unit normal by a sum over the environment
    averaged down 8 x 8 (GL row order: row 0 the nadir, u = 0.5 is -z)."""
    radiance = np.asarray(load_named_environment(mtlx_reference.ENVIRONMENT).radiance, dtype=np.float64)[:, :, :3]
    small = radiance.reshape(radiance.shape[0] // 8, 8, radiance.shape[1] // 8, 8, 3).mean(axis=(1, 3))
    latitude = ((np.arange(small.shape[0]) + 0.5) / small.shape[0] - 0.5) * np.pi
    longitude = ((np.arange(small.shape[1]) + 0.5) / small.shape[1] - 0.5) * 2.0 * np.pi
    lat, lon = np.meshgrid(latitude, longitude, indexing="ij")
    directions = np.stack([np.cos(lat) * np.sin(lon), np.sin(lat), -np.cos(lat) * np.cos(lon)], axis=-1).reshape(-1, 3)
    solid_angles = (np.cos(lat) * (np.pi / small.shape[0]) * (2.0 * np.pi / small.shape[1])).reshape(-1)

    def irradiance(normal: np.ndarray) -> np.ndarray:
        return np.asarray((small.reshape(-1, 3) * (np.maximum(directions @ normal, 0.0) * solid_angles)[:, None]).sum(axis=0) / np.pi)

    return EnvironmentSampler(radiance), irradiance


def _gltf_estimate(chosen: UniformPixels, colour: np.ndarray, roughness: np.ndarray, metallic: np.ndarray,
                   normal_map: np.ndarray) -> np.ndarray:
    """Linear radiance (PIXELS, 3) of the glTF BRDF at the chosen pixels: the base `colour`, `roughness`,
    `metallic` and tangent-space `normal_map` texels per pixel (the map's green along +v, tangent along +u,
    handedness +1); specular by `metal_radiance` with F0 = mix(0.04, colour, metallic), diffuse
    (1 - F) (1 - metallic) colour x irradiance / pi."""
    sampler, irradiance = _studio()
    rng = np.random.default_rng(5)
    expected = np.zeros((PIXELS, 3))
    for index in range(PIXELS):
        n, view = chosen.points[index], chosen.views[index]
        azimuth = 2.0 * np.pi * (chosen.u[index] - 0.5)
        tangent = np.array([np.cos(azimuth), 0.0, -np.sin(azimuth)])
        t = normal_map[index] * 2.0 - 1.0
        shading = t[0] * tangent + t[1] * np.cross(n, tangent) + t[2] * n
        shading /= np.linalg.norm(shading)
        f0 = 0.04 * (1.0 - metallic[index]) + colour[index] * metallic[index]
        specular = metal_radiance(sampler, shading[None], view[None], [f0], float(roughness[index]), rng, SAMPLES)[0][0][0]
        fresnel = 0.04 + 0.96 * (1.0 - max(float(shading @ view), 1e-4)) ** 5
        expected[index] = specular + (1.0 - fresnel) * (1.0 - metallic[index]) * colour[index] * irradiance(shading)
    return expected


def _drawn(document: Path, chosen: UniformPixels) -> np.ndarray:
    """The editor's 8-bit render of `document` at the chosen pixels."""
    return np.asarray(np.round(mtlx_reference.render_editor(document, SIZE))[chosen.pixels[:, 0], chosen.pixels[:, 1]])


def test_the_boombox_s_uniformly_textured_pixels_match_the_gltf_brdf() -> None:
    # Base colour (3), emissive (3), occlusion-roughness-metallic (3), normal map (3); occlusion 1 only.
    stacked = np.concatenate([_texture(TEXTURES / f"BoomBox_{name}.png", srgb) for name, srgb in
                              (("baseColor", True), ("emissive", True), ("occlusionRoughnessMetallic", False), ("normal", False))],
                             axis=-1)
    chosen = _uniform_pixels(stacked, WINDOW, UNIFORM, keep=lambda texel: texel[:, 6] >= 0.99)
    texel = chosen.texel
    expected = _gltf_estimate(chosen, texel[:, 0:3], texel[:, 7], texel[:, 8], texel[:, 9:12]) + texel[:, 3:6]
    difference = np.abs(_drawn(DOCUMENT, chosen) - mtlx_reference.srgb_8bit(expected))
    print(f"boombox, {PIXELS} uniformly textured pixels: {difference.mean():.2f} levels from the Monte Carlo glTF estimate")
    assert difference.mean() <= MEAN_LEVELS, (difference.mean(), difference.mean(axis=1).round(1).tolist())


def test_the_tiled_brass_s_uniformly_textured_pixels_match_the_gltf_metal_brdf() -> None:
    """MaterialX's usd_preview_surface_brass_tiled: a metal (metallic 1) with a base colour map (sRGB) and a roughness
    map (linear, 0.12-0.23 on the pixels chosen), the specular by the same Monte Carlo. MaterialX's own render of it
    is 18.7 levels brighter than this estimate on these pixels (docs/interchange.md)."""
    document = mtlx_reference.MX_EXAMPLES / "UsdPreviewSurface" / "usd_preview_surface_brass_tiled.mtlx"
    images = mtlx_reference.MX_EXAMPLES.parent.parent / "Images"
    stacked = np.concatenate([_texture(images / "brass_color.jpg", True), _texture(images / "brass_roughness.jpg", False)[..., :1]],
                             axis=-1)
    chosen = _uniform_pixels(stacked, 2, 0.02)
    sampler, _irradiance = _studio()
    rng = np.random.default_rng(5)
    # The surface's own normal: no normal map.
    expected = np.array([metal_radiance(sampler, chosen.points[k][None], chosen.views[k][None], [chosen.texel[k, :3]],
                                        float(chosen.texel[k, 3]), rng, SAMPLES)[0][0][0] for k in range(PIXELS)])
    difference = np.abs(_drawn(document, chosen) - mtlx_reference.srgb_8bit(expected))
    print(f"tiled brass, {PIXELS} uniformly textured pixels: {difference.mean():.2f} levels from the Monte Carlo glTF estimate")
    assert difference.mean() <= MEAN_LEVELS, (difference.mean(), difference.mean(axis=1).round(1).tolist())


def test_the_chess_bishop_s_uniformly_textured_pixels_match_the_standard_surface_brdf() -> None:
    """MaterialX's standard_surface_chess_set, its first material (the black bishop): base colour (sRGB; `base`
    is 1 in standard_surface 1.0.1), metalness, roughness and a tangent-space normal map, specular IOR 1.5 (F0
    0.04), no coat, sheen or subsurface: the import draws it with the Surface Output. On pixels whose four
    textures are uniform around their texture coordinate (all dielectric, roughness 0.24-0.40), the expected
    radiance is the boombox's Monte Carlo of the glTF BRDF with those values; the standard_surface form (exact
    Fresnel of IOR 1.5, the diffuse under 1 - the specular's directional albedo) is 0.8 levels from it on these
    pixels. MaterialX's stored render of the same pixels is compared too: it is about 8-9 levels brighter per
    channel, bright speckles where the studio's small lights fall in the lobe (docs/interchange.md)."""
    document = mtlx_reference.MX_EXAMPLES / "StandardSurface" / "standard_surface_chess_set.mtlx"
    folder = document.parent / "chess_set"
    # Base colour (3), metalness, roughness, normal map (3).
    stacked = np.concatenate([_texture(folder / "bishop_black_base_color.jpg", True),
                              _texture(folder / "bishop_shared_metallic.jpg", False)[..., :1],
                              _texture(folder / "bishop_black_roughness.jpg", False)[..., :1],
                              _texture(folder / "bishop_black_normal.jpg", False)], axis=-1)
    chosen = _uniform_pixels(stacked, CHESS_WINDOW, CHESS_UNIFORM)
    texel = chosen.texel
    reference = mtlx_reference.srgb_8bit(_gltf_estimate(chosen, texel[:, 0:3], texel[:, 4], texel[:, 3], texel[:, 5:8]))
    drawn = _drawn(document, chosen)
    materialx = mtlx_reference.reference_8bit(document, SIZE, CHESS_MATERIALX_SAMPLES)[chosen.pixels[:, 0], chosen.pixels[:, 1]]
    difference = np.abs(drawn - reference)
    print(f"chess bishop, {PIXELS} uniformly textured pixels (roughness {texel[:, 4].min():.2f}-{texel[:, 4].max():.2f}, "
          f"metalness {texel[:, 3].min():.2f}-{texel[:, 3].max():.2f}): the preview {difference.mean():.2f} levels "
          f"from the Monte Carlo estimate, MaterialX {np.abs(materialx - reference).mean():.2f} "
          f"(per channel {(materialx - reference).mean(axis=0).round(1).tolist()})")
    assert difference.mean() <= CHESS_MEAN_LEVELS, (difference.mean(), difference.mean(axis=1).round(1).tolist())
    assert np.abs((drawn - reference).mean(axis=0)).max() <= CHESS_BIAS_LEVELS, (drawn - reference).mean(axis=0)
    # The evidence for tests/app/export/test_mtlx_reference.py's strict xfail of the chess set: MaterialX is the one off.
    assert np.abs(materialx - reference).mean() > 2.0 * CHESS_MEAN_LEVELS, np.abs(materialx - reference).mean()
