"""The Hex Tiled Image node on real OpenGL (desktop 4.2 and ES) against a numpy port of MaterialX's published GLSL.

The reference below is MaterialX 1.39's `mx_hextiledimage_color4` and
`mx_hextile_coord` (stdlib genglsl `mx_hextiledimage.glsl`,
`lib/mx_hextile.glsl`; Mikkelsen, "Practical Real-Time Hex-Tiling", JCGT
2022) written out in numpy, float32, line for line, in MaterialX's own slot
order and texture space: the image's row 0 is its top row, read at t = 0 (as
MaterialX's renderer loads it with its vertical flip). The bilinear read is
level 0 with repeat wrapping.

The quad covers the UV square at 128 x 128 pixels, tiling 2 on a 16 x 16
texture of random texels: at most half a texel per pixel even where a tile
is scaled by 0.5, so a correct mip selection reads level 0 everywhere. The
texture has every mip level and trilinear filtering, and the coarser levels
(averages of random texels) differ from level 0 by up to about 0.5: a tile
read whose implicit derivatives jumped across a triangle edge would read
them, and show.

Tolerance: the hash (fract of products of numbers up to about 100) is
evaluated by the GPU with its own rounding (llvmpipe may fuse a dot's
multiply-adds), so a tile's random rotation can differ from numpy's by
about 1e-3 of a turn, which moves a texel read by a few hundredths of a
texel: 0.06 at any pixel, 2e-3 on average (measured on Mesa llvmpipe: at most 0.044, mean 3e-4;
reading the vertices in MaterialX's slot order instead gives 0.53 and 0.027: the coarse mips at the seams).
"""

from __future__ import annotations

import numpy as np
import pytest
from material_render import MaterialQuad, pixel_uv
from OpenGL import GL

from app.material.graph import MaterialGraph
from app.material.lowering import lower

SIZE = 128
TEXTURE = 16
F = np.float32


def _fract(x: np.ndarray) -> np.ndarray:
    return (x - np.floor(x)).astype(F)


def _hash(p: np.ndarray) -> np.ndarray:
    """mx_hextile_hash: p (..., 2) -> (..., 2)."""
    p3 = _fract(np.stack([p[..., 0], p[..., 1], p[..., 0]], axis=-1) * np.array([0.1031, 0.1030, 0.0973], F))
    p3 = (p3 + np.sum(p3 * (p3[..., [1, 2, 0]] + F(33.33)), axis=-1, keepdims=True)).astype(F)
    return _fract((p3[..., [0, 0]] + p3[..., [1, 2]]) * p3[..., [2, 1]])


def _gain(x: np.ndarray, r: float) -> np.ndarray:
    """mx_schlick_gain."""
    rr = F(min(max(r, 0.001), 0.999))
    a = (F(1.0) / rr - F(2.0)) * (F(1.0) - F(2.0) * x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 0.5, x / (a + F(1.0)), (a - x) / (a - F(1.0))).astype(F)


def _blend_weights(luminance: np.ndarray, tile: np.ndarray, falloff: float) -> np.ndarray:
    """mx_hextile_compute_blend_weights."""
    w = luminance * np.power(tile, F(7.0))
    w = w / np.sum(w, axis=-1, keepdims=True)
    if falloff != 0.5:
        w = _gain(w, falloff)
        w = w / np.sum(w, axis=-1, keepdims=True)
    return w.astype(F)


def _bilinear(image: np.ndarray, point: np.ndarray) -> np.ndarray:
    """A GL_LINEAR, GL_REPEAT read of level 0; image row 0 at t = 0."""
    height, width = image.shape[:2]
    x = point[..., 0] * width - 0.5
    y = point[..., 1] * height - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    ax, ay = (x - x0)[..., None], (y - y0)[..., None]
    i0, j0 = x0.astype(int) % width, y0.astype(int) % height
    i1, j1 = (i0 + 1) % width, (j0 + 1) % height
    return ((image[j0, i0] * (1 - ax) + image[j0, i1] * ax) * (1 - ay)
            + (image[j1, i0] * (1 - ax) + image[j1, i1] * ax) * ay)


def hextiled_image(image: np.ndarray, uv: np.ndarray, tiling: tuple[float, float] = (1.0, 1.0), rotation: float = 1.0,
                   rotation_range: tuple[float, float] = (0.0, 360.0), scale: float = 1.0,
                   scale_range: tuple[float, float] = (0.5, 2.0), offset: float = 1.0,
                   offset_range: tuple[float, float] = (0.0, 1.0), falloff: float = 0.5, falloff_contrast: float = 0.5,
                   lumacoeffs: tuple[float, float, float] = (0.2722287, 0.6740818, 0.0536895)) -> np.ndarray:
    """mx_hextiledimage_color4 at texture coordinates uv (..., 2), with MaterialX's vertical flip."""
    coord = (uv * np.array(tiling, F)).astype(F)
    coord = np.stack([coord[..., 0], F(1.0) - coord[..., 1]], axis=-1)  # mx_transform_uv (vflip)
    sqrt3_2 = F(np.sqrt(F(3.0)) * F(2.0))
    st = coord * sqrt3_2
    skewed = np.stack([st[..., 0] - F(0.57735027) * st[..., 1], F(1.15470054) * st[..., 1]], axis=-1).astype(F)
    frac = _fract(skewed)
    z = F(1.0) - frac[..., 0] - frac[..., 1]
    s = (-z >= 0).astype(F)
    s2 = F(2.0) * s - F(1.0)
    weights = np.stack([-z * s2, s - frac[..., 1] * s2, s - frac[..., 0] * s2], axis=-1).astype(F)
    base = np.floor(skewed)
    ids = [base + np.stack([s, s], -1), base + np.stack([s, 1 - s], -1), base + np.stack([1 - s, s], -1)]
    rr = np.radians(np.array(rotation_range, F)).astype(F)
    texels = []
    for vertex in ids:
        scaled = (vertex / sqrt3_2).astype(F)
        centre = np.stack([scaled[..., 0] + F(0.5) * scaled[..., 1], scaled[..., 1] * F(1.0 / 1.15470054)], axis=-1)
        rand = _hash((vertex + F(0.12345)).astype(F))
        angle = rr[0] + (rr[1] - rr[0]) * (rand[..., 0] * F(rotation))
        size = F(1.0) + (scale_range[0] + (scale_range[1] - scale_range[0]) * rand[..., 1] - F(1.0)) * F(scale)
        shift = offset_range[0] + (offset_range[1] - offset_range[0]) * (rand * F(offset))
        local = coord - centre
        cos, sin = np.cos(angle), np.sin(angle)
        rotated = np.stack([local[..., 0] * cos - local[..., 1] * sin, local[..., 0] * sin + local[..., 1] * cos], axis=-1)
        point = (rotated / size[..., None] + centre + shift).astype(F)
        texels.append(_bilinear(image, point))
    luminance = np.stack([texel[..., :3] @ np.array(lumacoeffs, F) for texel in texels], axis=-1)
    luminance = F(1.0) + (luminance - F(1.0)) * F(falloff_contrast)
    w = _blend_weights(luminance, weights, falloff)
    aw = _blend_weights(np.ones_like(luminance), weights, falloff)
    rgb = sum(w[..., k, None] * texels[k][..., :3] for k in range(3))
    alpha = sum(aw[..., k] * texels[k][..., 3] for k in range(3))
    return np.concatenate([rgb, alpha[..., None]], axis=-1)


def _random_image(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random((TEXTURE, TEXTURE, 4)).astype(F)


def _render(image: np.ndarray, properties: dict[str, object], target: str = "glsl420") -> np.ndarray:
    """The node (compiled for `target`) (Unlit Output, rgba into base colour and alpha into opacity) on the quad, the texture bound with
    every mip level; uploaded bottom row first, as the preview uploads an image (v = 0 reads its bottom row)."""
    graph = MaterialGraph()
    graph.add_node("texture_parameter", node_id="texture", properties={"name": "image", "color_space": "linear"})
    graph.add_node("hextiled_image", node_id="hex", properties=properties)
    graph.add_node("material_output", node_id="out")
    graph.connect("texture", "out", "hex", "texture")
    graph.connect("hex", "rgb", "out", "base_color")
    graph.connect("hex", "a", "out", "opacity")
    result = lower(graph)
    assert result.ok, [diagnostic.message for diagnostic in result.diagnostics]
    with MaterialQuad(result, SIZE, target) as quad:
        texture = GL.glGenTextures(1)
        try:
            GL.glActiveTexture(GL.GL_TEXTURE0)
            GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
            flipped = np.ascontiguousarray(image[::-1])
            if target == "glsl420":
                GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, TEXTURE, TEXTURE, 0, GL.GL_RGBA, GL.GL_FLOAT, flipped)
            else:  # ES filters 8-bit textures without an extension; `image` holds 8-bit values
                texels = np.round(flipped * 255.0).astype(np.uint8)
                GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA8, TEXTURE, TEXTURE, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, texels)
            GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
            for wrap in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
                GL.glTexParameteri(GL.GL_TEXTURE_2D, wrap, GL.GL_REPEAT)
            quad.draw()
            return quad.pixels()
        finally:
            GL.glDeleteTextures(1, [texture])


CASES = [
    # MaterialX's defaults, tiling 2.
    {"tiling": (2.0, 2.0)},
    # The onyx example's settings (falloff 0.75: Schlick's gain), non-square tiling.
    {"tiling": (2.0, 1.5), "falloff": 0.75},
    # Narrow ranges, partial randomness, a strong contrast, a soft falloff, Rec. 709 weights.
    {"tiling": (1.5, 2.0), "rotation": 0.5, "rotation_range": (-45.0, 90.0), "scale": 0.7, "scale_range": (0.8, 1.6),
     "offset": 0.4, "offset_range": (-0.5, 0.5), "falloff": 0.3, "falloff_contrast": 0.9,
     "lumacoeffs": (0.2126, 0.7152, 0.0722)},
]


@pytest.mark.parametrize("properties", CASES, ids=["defaults", "onyx", "ranges"])
def test_the_hex_tiled_image_matches_materialx_formula(current_gl: object, properties: dict[str, object]) -> None:
    image = _random_image(len(str(properties)))
    pixels = _render(image, properties)
    u, v = pixel_uv(SIZE)
    expected = hextiled_image(image, np.stack([u, v], axis=-1), **properties)  # type: ignore[arg-type]
    error = np.abs(pixels - expected)
    assert error.max() < 0.06, float(error.max())
    assert error.mean() < 2e-3, float(error.mean())


def test_the_tiles_are_randomised_not_repeated(current_gl: object) -> None:
    """The node is not a plain tiled read: with its randomness off (rotation, scale and offset 0) it is the
    texture tiled (every tile the same; the blend of three equal reads), with it on it differs from that."""
    image = _random_image(7)
    plain = _render(image, {"tiling": (2.0, 2.0), "rotation": 0.0, "scale": 0.0, "offset": 0.0})
    u, v = pixel_uv(SIZE)
    # With no randomness every tile reads the image at coord itself (rotation 0, size 1, shift 0).
    tiled = _bilinear(image, np.stack([u * 2.0, 1.0 - v * 2.0], axis=-1).astype(F))
    assert np.abs(plain - tiled).max() < 1e-3
    randomised = _render(image, {"tiling": (2.0, 2.0)})
    assert np.abs(randomised - tiled).mean() > 0.1


@pytest.mark.parametrize("target", ["es320", "es300"])
def test_the_hex_tiled_image_matches_the_formula_on_gles(current_gles: object, target: str) -> None:
    """The same on Mesa's OpenGL ES, with an 8-bit texture (ES filters RGBA32F only with an extension)."""
    image = (np.round(_random_image(11) * 255.0) / 255.0).astype(F)
    properties = CASES[1]
    pixels = _render(image, properties, target)
    u, v = pixel_uv(SIZE)
    expected = hextiled_image(image, np.stack([u, v], axis=-1), **properties)  # type: ignore[arg-type]
    error = np.abs(pixels - expected)
    assert error.max() < 0.06, float(error.max())
    assert error.mean() < 2e-3, float(error.mean())
