"""How colours are shown: display-encoded hex of linear values, alpha apart, linear values in the description."""

from __future__ import annotations

import numpy as np
import pytest

from app.material import colors
from app.material.textures import srgb_to_linear


def test_hex_is_the_srgb_encoding_of_the_linear_rgb_without_alpha() -> None:
    # Linear 0.2158 is sRGB 128/255: an artist reads #ff8000 as orange, as Blender's hex field shows it.
    assert colors.display_hex((1.0, 0.2158, 0.0, 0.03)) == "#ff8000"
    assert colors.display_hex((0.0, 0.0, 0.0)) == "#000000"
    assert colors.display_hex((2.0, -1.0, 1.0)) == "#ff00ff"  # clipped to what a screen shows


def test_alpha_is_shown_apart_and_linear_values_are_described() -> None:
    assert colors.label((1.0, 0.2158, 0.0, 0.25)) == "#ff8000  α 0.25"
    assert colors.label((1.0, 0.2158, 0.0)) == "#ff8000"
    described = colors.describe((1.0, 0.2158, 0.0, 0.25))
    assert "#ff8000" in described and "alpha 0.250" in described and "linear RGB 1.000, 0.216, 0.000" in described


@pytest.mark.parametrize("encoded", np.linspace(0.0, 1.0, 11))
def test_decoding_inverts_encoding_and_matches_the_texture_curve(encoded: float) -> None:
    linear = colors.decode_srgb(encoded)
    assert linear == pytest.approx(float(srgb_to_linear(encoded)), abs=1e-12)
    assert colors.encode_srgb(linear) == pytest.approx(encoded, abs=1e-9)
