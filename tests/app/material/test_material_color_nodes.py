"""Colour nodes against numpy references written from the published formulas, read back from OpenGL (RGBA32F).

Per-pixel inputs: base = (u, v, 0.5), layer = (v, 1 - u, 0.3), from the
quad's texture coordinates, so each test covers a whole range of values
(including the branches of overlay, soft light, dodge and burn).

References:
- blend modes: W3C "Compositing and Blending Level 1", section 10.2
  (separable blend modes), then mix(base, B, factor);
- RGB <-> HSV: Smith, "Color gamut transform pairs" (1978);
- levels, gamma, brightness/contrast (Blender's formula), desaturate
  (Rec. 709 luminance), invert, posterize, exposure as documented per node.

Tolerance 1e-4 absolute (float32 GPU arithmetic vs float64), except at the
few pixels where a mode switches branch exactly at the pixel value (none of
the sampled values sit on a switch).
"""

from __future__ import annotations

import colorsys

import numpy as np
import pytest
from material_render import pixel_uv, render_material

from app.material.graph import MaterialGraph
from app.material.lowering import lower

pytestmark = pytest.mark.gl

SIZE = 64
TOLERANCE = 1e-4


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    u, v = (array.astype(np.float64) for array in pixel_uv(SIZE))
    base = np.stack([u, v, np.full_like(u, 0.5)], axis=-1)
    layer = np.stack([v, 1.0 - u, np.full_like(u, 0.3)], axis=-1)
    return base, layer


def _uv_color(graph: MaterialGraph, flip: bool, z: float) -> tuple[str, str]:
    """A colour node output made of the texture coordinates: (u, v, z) or (v, 1 - u, z)."""
    texcoord = graph.add_node("texcoord")
    split = graph.add_node("split")
    graph.connect(texcoord.id, "out", split.id, "vector")
    compose = graph.add_node("compose", properties={"size": 3, "z": z})
    if flip:
        one_minus = graph.add_node("one_minus")
        graph.connect(split.id, "x", one_minus.id, "x")
        graph.connect(split.id, "y", compose.id, "x")
        graph.connect(one_minus.id, "out", compose.id, "y")
    else:
        graph.connect(split.id, "x", compose.id, "x")
        graph.connect(split.id, "y", compose.id, "y")
    return compose.id, "out"


def _render(type_name: str, properties: dict, inputs: dict[str, tuple[bool, float]], port: str = "out") -> np.ndarray:
    graph = MaterialGraph()
    node = graph.add_node(type_name, properties=properties)
    for input_name, (flip, z) in inputs.items():
        source = _uv_color(graph, flip, z)
        graph.connect(source[0], source[1], node.id, input_name)
    output = graph.add_node("material_output")
    graph.connect(node.id, port, output.id, "base_color")
    result = lower(graph)
    assert result.ok, result.diagnostics
    return render_material(result, SIZE, "glsl420")


def _w3c_blend(mode: str, cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    def hard_light(b: np.ndarray, s: np.ndarray) -> np.ndarray:
        return np.where(s <= 0.5, b * 2.0 * s, 1.0 - (1.0 - b) * (1.0 - (2.0 * s - 1.0)))

    if mode == "mix":
        return cs
    if mode == "multiply":
        return cb * cs
    if mode == "screen":
        return cb + cs - cb * cs
    if mode == "overlay":
        return hard_light(cs, cb)
    if mode == "hard_light":
        return hard_light(cb, cs)
    if mode == "soft_light":
        d = np.where(cb <= 0.25, ((16.0 * cb - 12.0) * cb + 4.0) * cb, np.sqrt(cb))
        return np.where(cs <= 0.5, cb - (1.0 - 2.0 * cs) * cb * (1.0 - cb), cb + (2.0 * cs - 1.0) * (d - cb))
    if mode == "add":
        return cb + cs
    if mode == "subtract":
        return cb - cs
    if mode == "difference":
        return np.abs(cb - cs)
    if mode == "exclusion":
        return cb + cs - 2.0 * cb * cs
    if mode == "darken":
        return np.minimum(cb, cs)
    if mode == "lighten":
        return np.maximum(cb, cs)
    if mode == "color_dodge":
        return np.where(cb == 0.0, 0.0, np.where(cs >= 1.0, 1.0, np.minimum(1.0, cb / np.maximum(1.0 - cs, 1e-6))))
    if mode == "color_burn":
        return np.where(cb >= 1.0, 1.0, np.where(cs <= 0.0, 0.0, 1.0 - np.minimum(1.0, (1.0 - cb) / np.maximum(cs, 1e-6))))
    if mode == "divide":
        return cb / np.maximum(cs, 1e-6)
    raise AssertionError(mode)


BLEND_MODES = ["mix", "multiply", "screen", "overlay", "soft_light", "hard_light", "add", "subtract", "difference",
               "exclusion", "darken", "lighten", "color_dodge", "color_burn", "divide"]  # fmt: skip


@pytest.mark.parametrize("mode", BLEND_MODES)
def test_blend_mode_matches_the_w3c_formula(current_gl, mode: str) -> None:
    factor = 0.75
    pixels = _render("blend", {"mode": mode, "factor": factor}, {"base": (False, 0.5), "layer": (True, 0.3)})
    base, layer = _inputs()
    expected = base + (_w3c_blend(mode, base, layer) - base) * factor
    tolerance = 2e-3 if mode == "divide" else TOLERANCE  # large quotients near layer = 0
    assert np.abs(pixels[..., :3] - expected).max() <= tolerance
    assert np.all(pixels[..., 3] == 1.0)


def _hsv(rgb: np.ndarray) -> np.ndarray:
    flat = rgb.reshape(-1, 3)
    return np.array([colorsys.rgb_to_hsv(*pixel) for pixel in flat]).reshape(rgb.shape)


def _rgb(hsv: np.ndarray) -> np.ndarray:
    flat = hsv.reshape(-1, 3)
    return np.array([colorsys.hsv_to_rgb(*pixel) for pixel in flat]).reshape(hsv.shape)


def test_rgb_to_hsv_matches_smiths_transform(current_gl) -> None:
    pixels = _render("rgb_to_hsv", {}, {"color": (False, 0.5)})
    # The node's vec3 goes into the colour output as rgb, alpha 1.
    base, _ = _inputs()
    assert np.abs(pixels[..., :3] - _hsv(base)).max() <= TOLERANCE


def test_hsv_adjust_and_hue_shift(current_gl) -> None:
    base, _ = _inputs()
    hsv = _hsv(base)
    pixels = _render("hsv_adjust", {"hue": 0.3, "saturation": 0.6, "value": 1.2}, {"color": (False, 0.5)})
    adjusted = np.stack([np.mod(hsv[..., 0] + 0.3, 1.0), np.clip(hsv[..., 1] * 0.6, 0.0, 1.0), hsv[..., 2] * 1.2], axis=-1)
    assert np.abs(pixels[..., :3] - _rgb(adjusted)).max() <= 5e-4
    shifted = _render("hue_shift", {"degrees": 90.0}, {"color": (False, 0.5)})
    turned = np.stack([np.mod(hsv[..., 0] + 0.25, 1.0), hsv[..., 1], hsv[..., 2]], axis=-1)
    assert np.abs(shifted[..., :3] - _rgb(turned)).max() <= 5e-4


ADJUSTMENTS = [
    ("levels", {"in_black": 0.1, "in_white": 0.9, "gamma": 1.8, "out_black": 0.05, "out_white": 0.95},
     lambda c: 0.05 + 0.9 * np.clip((c - 0.1) / 0.8, 0.0, 1.0) ** (1.0 / 1.8)),
    ("gamma", {"gamma": 2.2}, lambda c: c**2.2),
    ("brightness_contrast", {"brightness": 0.1, "contrast": 0.4}, lambda c: np.maximum(1.4 * c + 0.1 - 0.2, 0.0)),
    ("desaturate", {"factor": 0.7},
     lambda c: c + (np.sum(c * np.array([0.2126, 0.7152, 0.0722]), axis=-1, keepdims=True) - c) * 0.7),
    ("invert", {"factor": 1.0}, lambda c: 1.0 - c),
    ("posterize", {"steps": 4.0}, lambda c: np.floor(c * 4.0) / 4.0),
    ("exposure", {"stops": -1.5}, lambda c: c * 2.0**-1.5),
]  # fmt: skip


@pytest.mark.parametrize("type_name,properties,reference", ADJUSTMENTS, ids=[case[0] for case in ADJUSTMENTS])
def test_colour_adjustment_matches_its_formula(current_gl, type_name, properties, reference) -> None:
    pixels = _render(type_name, properties, {"color": (False, 0.5)})
    base, _ = _inputs()
    expected = reference(base)
    if type_name == "posterize":
        # floor() is exact, but u * 4 may land on a step within float rounding at a few pixels.
        assert np.mean(np.abs(pixels[..., :3] - expected) > TOLERANCE) <= 0.01
    else:
        assert np.abs(pixels[..., :3] - expected).max() <= TOLERANCE


RAMP = ((0.1, 1.0, 0.0, 0.0, 1.0), (0.4, 0.0, 1.0, 0.0, 1.0), (0.4, 0.0, 0.0, 1.0, 1.0), (0.9, 1.0, 1.0, 1.0, 0.5))


def _ramp_reference(factor: np.ndarray, interpolation: str) -> np.ndarray:
    """Blender's colour ramp: the colour of the stops around f, interpolated by their distance."""
    stops = sorted(RAMP, key=lambda stop: stop[0])
    result = np.empty(factor.shape + (4,))
    for index in np.ndindex(factor.shape):
        f = factor[index]
        if f <= stops[0][0]:
            result[index] = stops[0][1:]
            continue
        if f >= stops[-1][0]:
            result[index] = stops[-1][1:]
            continue
        # The last stop at or left of f and the first one right of it.
        left = max(i for i, stop in enumerate(stops) if stop[0] <= f)
        a, b = stops[left], stops[left + 1]
        t = (f - a[0]) / (b[0] - a[0])
        if interpolation == "constant":
            t = 0.0
        elif interpolation == "ease":
            t = t * t * (3.0 - 2.0 * t)
        result[index] = np.array(a[1:]) + (np.array(b[1:]) - np.array(a[1:])) * t
    return result


@pytest.mark.parametrize("interpolation", ["linear", "ease", "constant"])
def test_color_ramp_matches_a_ramp_with_coincident_stops(current_gl, interpolation: str) -> None:
    graph = MaterialGraph()
    texcoord = graph.add_node("texcoord")
    split = graph.add_node("split")
    ramp = graph.add_node("color_ramp", properties={"stops": RAMP, "interpolation": interpolation})
    output = graph.add_node("material_output")
    graph.connect(texcoord.id, "out", split.id, "vector")
    graph.connect(split.id, "x", ramp.id, "factor")
    graph.connect(ramp.id, "color", output.id, "base_color")
    alpha = graph.add_node("color_ramp", properties={"stops": RAMP, "interpolation": interpolation})
    graph.connect(split.id, "x", alpha.id, "factor")
    graph.connect(alpha.id, "alpha", output.id, "opacity")
    result = lower(graph)
    assert result.ok, result.diagnostics
    pixels = render_material(result, SIZE, "glsl420")
    u, _ = pixel_uv(SIZE)
    expected = _ramp_reference(u.astype(np.float64), interpolation)
    assert np.abs(pixels[..., :3] - expected[..., :3]).max() <= TOLERANCE
    assert np.abs(pixels[..., 3] - expected[..., 3]).max() <= TOLERANCE
