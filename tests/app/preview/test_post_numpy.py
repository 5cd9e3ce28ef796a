"""The post pass in numpy (`post.display_colors`, what the CPU preview uses) against the post pass in VPL.

The VPL modules (`post.post_module`, what the GL renderer runs) are run by
the interpreter over an HDR image with every kind of pixel: dark, mid,
bright, very bright, saturated colours, negative alpha and alpha above 1,
and uncovered pixels (`post.UNCOVERED`). Both must give the same display
values (to binary32 rounding), and both must agree with the independent
transcriptions of the published tone mappers in `pbr_reference`.
"""

from __future__ import annotations

import numpy as np
import pbr_reference as reference
import pytest

from app.preview import post
from vpl_core.interp import Filter, Program, SamplerState, Texture2D, Wrap, fullscreen_mesh, render
from vpl_core.publish import VerifiedModule

SIZE = (24, 32)  # height, width
BACKGROUND = (0.2, 0.45, 0.7)


def _hdr_image() -> np.ndarray:
    """(height, width, 4) float32, top row first: radiance from 0 to 60 on a log scale, colours, alpha, holes."""
    generator = np.random.default_rng(13)
    height, width = SIZE
    radiance = np.exp(generator.uniform(np.log(1e-4), np.log(60.0), (height, width, 3)))
    radiance[0, :4] = 0.0
    radiance[1, :4] = [[0.08, 0.08, 0.08], [0.0031, 0.0031, 0.0031], [0.76, 0.5, 0.2], [5.0, 0.0, 0.0]]
    alpha = generator.uniform(-0.5, 1.5, (height, width, 1))
    image = np.concatenate([radiance, alpha], axis=2).astype(np.float32)
    image[2::5, 3::7] = post.UNCOVERED
    image[2::5, 3::7, 3] = 0.0
    return image


def _vpl_post_pass(image: np.ndarray, tone_mapper: str, exposure_ev: float) -> np.ndarray:
    program = Program.from_verified(VerifiedModule.create(post.post_module(tone_mapper), label="post"))
    nearest = SamplerState(wrap_s=Wrap.CLAMP_TO_EDGE, wrap_t=Wrap.CLAMP_TO_EDGE, min_filter=Filter.NEAREST,
                           mag_filter=Filter.NEAREST)
    texture = Texture2D([np.ascontiguousarray(image[::-1])], nearest)  # GL rows: bottom first
    height, width = image.shape[:2]
    uniforms = {post.HDR_IMAGE_UNIFORM: texture, post.EXPOSURE_UNIFORM: post.exposure_scale(exposure_ev),
                post.BACKGROUND_UNIFORM: list(BACKGROUND)}
    result = render(program, fullscreen_mesh(), width, height, uniforms=uniforms, depth_test=False)
    assert result.written.all()
    return result.color.astype(np.float64)


@pytest.mark.parametrize("exposure_ev", [-2.0, 0.0, 1.5])
@pytest.mark.parametrize("tone_mapper", sorted(post.TONE_MAPPERS))
def test_the_numpy_post_pass_is_the_vpl_post_pass(tone_mapper: str, exposure_ev: float) -> None:
    image = _hdr_image()
    expected = _vpl_post_pass(image, tone_mapper, exposure_ev)
    got = post.display_colors(image, tone_mapper, exposure_ev, BACKGROUND)
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)
    uncovered = image[..., 0] == post.UNCOVERED
    np.testing.assert_array_equal(got[uncovered], np.broadcast_to([*BACKGROUND, 1.0], (int(uncovered.sum()), 4)))
    assert got.min() >= 0.0 and got.max() <= 1.0


@pytest.mark.parametrize("tone_mapper", sorted(post.TONE_MAPPERS))
def test_the_numpy_post_pass_follows_the_published_formulas(tone_mapper: str) -> None:
    image = _hdr_image()
    covered = image[..., 0] != post.UNCOVERED
    got = post.display_colors(image, tone_mapper, 0.5, BACKGROUND)[covered]
    expected = reference.display(tone_mapper, image[covered][:, :3], 0.5)
    # The project's constants are the sources' rounded ones (AgX's polynomial, ACES's fit): one 8-bit step.
    np.testing.assert_allclose(got[:, :3], expected, rtol=0, atol=1 / 255)
    np.testing.assert_array_equal(got[:, 3], np.clip(image[covered][:, 3], 0.0, 1.0))


def test_an_unknown_tone_mapper_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tone mapper 'filmic'"):
        post.tone_map(np.zeros((1, 3)), "filmic")
