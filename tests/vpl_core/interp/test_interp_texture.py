"""Texture sampling against a plain per-sample transcription of OpenGL 4.2 section 3.9.11.

The reference below is written from the specification's equations one
sample at a time (wrap modes of table 3.23 and section 3.9.11, the
magnification threshold c, mipmap level choice for the four mipmapped
filters, equations 3.23-3.25 for linear filtering), independently of
`vpl_core.interp.texture`'s vectorised code; Hypothesis draws textures,
sampler states, coordinates and levels of detail.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.interp.texture import Filter, SamplerState, Texture2D, Wrap, implicit_lod, sample


def _wrap(i: int, size: int, mode: Wrap) -> int:
    if mode is Wrap.REPEAT:
        return i % size
    if mode is Wrap.CLAMP_TO_EDGE:
        return min(max(i, 0), size - 1)
    mirrored = i % (2 * size)
    return mirrored if mirrored < size else 2 * size - 1 - mirrored


def _texel_filter(level: np.ndarray, s: float, t: float, nearest: bool, state: SamplerState) -> np.ndarray:
    height, width = level.shape[:2]
    u, v = s * width, t * height
    if nearest:
        return level[_wrap(math.floor(v), height, state.wrap_t), _wrap(math.floor(u), width, state.wrap_s)].astype(np.float64)
    i0, j0 = math.floor(u - 0.5), math.floor(v - 0.5)
    alpha, beta = u - 0.5 - i0, v - 0.5 - j0
    i1, j1 = i0 + 1, j0 + 1
    texel = lambda i, j: level[_wrap(j, height, state.wrap_t), _wrap(i, width, state.wrap_s)].astype(np.float64)  # noqa: E731
    return ((1 - alpha) * (1 - beta) * texel(i0, j0) + alpha * (1 - beta) * texel(i1, j0)
            + (1 - alpha) * beta * texel(i0, j1) + alpha * beta * texel(i1, j1))


def _reference(texture: Texture2D, s: float, t: float, lam: float) -> np.ndarray:
    state = texture.sampler
    q = min(state.max_level, len(texture.levels) - 1)
    lam = min(max(lam, state.min_lod), state.max_lod)
    c = 0.5 if state.mag_filter is Filter.LINEAR and state.min_filter in (Filter.NEAREST_MIPMAP_NEAREST, Filter.NEAREST_MIPMAP_LINEAR) else 0.0
    if lam <= c:
        return _texel_filter(texture.levels[0], s, t, state.mag_filter is Filter.NEAREST, state)
    nearest_texels = state.min_filter in (Filter.NEAREST, Filter.NEAREST_MIPMAP_NEAREST, Filter.NEAREST_MIPMAP_LINEAR)
    if state.min_filter in (Filter.NEAREST, Filter.LINEAR):
        return _texel_filter(texture.levels[0], s, t, nearest_texels, state)
    if state.min_filter in (Filter.NEAREST_MIPMAP_NEAREST, Filter.LINEAR_MIPMAP_NEAREST):
        d = 0 if lam <= 0.5 else min(math.ceil(lam + 0.5) - 1, q)
        return _texel_filter(texture.levels[d], s, t, nearest_texels, state)
    if lam >= q:
        return _texel_filter(texture.levels[q], s, t, nearest_texels, state)
    d1 = math.floor(lam)
    d2 = d1 + 1
    fraction = lam - math.floor(lam)
    return (1 - fraction) * _texel_filter(texture.levels[d1], s, t, nearest_texels, state) + fraction * _texel_filter(
        texture.levels[d2], s, t, nearest_texels, state)


@st.composite
def textures(draw) -> Texture2D:
    width = draw(st.sampled_from([1, 2, 3, 4, 8]))
    height = draw(st.sampled_from([1, 2, 4, 5]))
    seed = draw(st.integers(0, 2**16))
    image = np.random.default_rng(seed).integers(0, 256, size=(height, width, 4), dtype=np.uint8)
    state = SamplerState(draw(st.sampled_from(list(Wrap))), draw(st.sampled_from(list(Wrap))),
                         draw(st.sampled_from(list(Filter))), draw(st.sampled_from([Filter.NEAREST, Filter.LINEAR])))
    return Texture2D.from_image(image, sampler=state)


coordinates = st.floats(-3.0, 3.0, allow_nan=False, width=32)


@settings(max_examples=examples(300), deadline=None)
@given(texture=textures(), s=coordinates, t=coordinates, lam=st.floats(-2.0, 5.0, allow_nan=False, width=32))
def test_sampling_follows_the_gl_equations(texture: Texture2D, s: float, t: float, lam: float) -> None:
    got = sample(texture, np.array([s]), np.array([t]), np.array([lam]))[0]
    np.testing.assert_allclose(got, _reference(texture, s, t, lam), atol=1e-9)


def test_generated_mipmaps_are_box_filtered_rgba8_levels() -> None:
    image = np.random.default_rng(7).integers(0, 256, size=(4, 8, 4), dtype=np.uint8)
    texture = Texture2D.from_image(image)
    assert [level.shape[:2] for level in texture.levels] == [(4, 8), (2, 4), (1, 2), (1, 1)]
    base = image[::-1].astype(np.float64)  # row 0 is t = 0, the image's bottom
    half = np.rint((base[0::2, 0::2] + base[1::2, 0::2] + base[0::2, 1::2] + base[1::2, 1::2]) / 4.0) / 255.0
    np.testing.assert_allclose(texture.levels[1], half, atol=1e-7)
    for level in texture.levels:
        np.testing.assert_allclose(np.rint(level * 255.0), level * 255.0, atol=1e-4)  # stored as RGBA8 values


def test_implicit_lod_is_log2_of_the_larger_texel_scale() -> None:
    texture = Texture2D.from_image(np.zeros((64, 32, 4), dtype=np.uint8))
    # One pixel step moves 1/8 in s (4 texels of 32) and 1/64 in t (1 texel): rho = 4, lambda = 2.
    lod = implicit_lod(texture, np.array([1 / 8]), np.array([0.0]), np.array([0.0]), np.array([1 / 64]))
    np.testing.assert_allclose(lod, [2.0])
    diagonal = implicit_lod(texture, np.array([3 / 32]), np.array([4 / 64]), np.array([0.0]), np.array([0.0]))
    np.testing.assert_allclose(diagonal, [math.log2(5.0)])  # sqrt(3^2 + 4^2) texels
