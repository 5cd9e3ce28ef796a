"""How a material colour is shown to people: display-encoded #RRGGBB, alpha apart, linear values on request.

Colour values in a material are linear (scene-referred), as in Blender and
Substance. An artist reads hex as the colour on screen, so the hex code is
the sRGB encoding (IEC 61966-2-1) of the linear red, green and blue, clipped
to [0, 1]; alpha is linear coverage and is shown on its own, never folded
into the hex code. No Qt here: the widgets turn these numbers into QColors.
"""

from __future__ import annotations

from collections.abc import Sequence


def encode_srgb(linear: float) -> float:
    """One linear component to its sRGB encoding in [0, 1] (clipped first)."""
    c = min(1.0, max(0.0, float(linear)))
    return c * 12.92 if c < 0.0031308 else 1.055 * c ** (1.0 / 2.4) - 0.055


def decode_srgb(encoded: float) -> float:
    """One sRGB-encoded component in [0, 1] to linear."""
    c = min(1.0, max(0.0, float(encoded)))
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def display_rgb(linear: Sequence[float]) -> tuple[float, float, float]:
    """The display-encoded red, green and blue in [0, 1] of a linear colour (missing components are 0)."""
    components = [float(c) for c in linear][:3] + [0.0] * 3
    return encode_srgb(components[0]), encode_srgb(components[1]), encode_srgb(components[2])


def linear_rgb(display: Sequence[float]) -> tuple[float, float, float]:
    """Linear red, green and blue of display-encoded components in [0, 1] (as a colour dialog returns them)."""
    components = [float(c) for c in display][:3] + [0.0] * 3
    return decode_srgb(components[0]), decode_srgb(components[1]), decode_srgb(components[2])


def display_hex(linear: Sequence[float]) -> str:
    """`#rrggbb`: the display encoding of a linear colour's red, green and blue; alpha is not part of it."""
    return "#" + "".join(f"{round(c * 255):02x}" for c in display_rgb(linear))


def alpha_of(value: Sequence[float]) -> float | None:
    """The alpha of a four-component colour, None for an RGB one."""
    return float(value[3]) if len(value) >= 4 else None


def describe(value: Sequence[float]) -> str:
    """A one-line description for a tooltip: hex, alpha apart, then the linear values as stored."""
    linear = ", ".join(f"{float(c):.3f}" for c in list(value)[:3])
    alpha = alpha_of(value)
    text = f"{display_hex(value)} (sRGB display)"
    if alpha is not None:
        text += f", alpha {alpha:.3f}"
    return f"{text}; linear RGB {linear}"


def label(value: Sequence[float]) -> str:
    """The short text beside a swatch: `#rrggbb`, and `α 0.50` for a colour with an alpha component."""
    alpha = alpha_of(value)
    return display_hex(value) if alpha is None else f"{display_hex(value)}  α {alpha:.2f}"
