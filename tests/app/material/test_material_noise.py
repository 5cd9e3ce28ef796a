"""The noise family against numpy references, read back from real OpenGL (RGBA32F), on every target.

Tolerances (absolute, in the [0, 1] output):
- white noise and Voronoi cell ids are pure hash values: equal to the
  exact integer reference except at pixels where the nearest cell changes
  within float rounding of the point (Voronoi: at most 0.5% of pixels);
- value noise 1e-4 (exact hashes, float32 blending);
- gradient and simplex noise 2e-3 (cos/sin of the gradient angle, and
  GLSL's unbounded trigonometric precision, are the only inexact parts);
- Voronoi distances 1e-4; fractal sums 3e-3.

Cross-target stability: the same material compiled for glsl420 (Mesa
desktop GL 4.5 core) and es320 (Mesa OpenGL ES 3.2) gives pixels equal to
within 1/255, and the hash agrees exactly with the numpy hash.
"""

from __future__ import annotations

import noise_reference as ref
import numpy as np
import pytest
from material_render import pixel_uv, render_material

from app.material.graph import MaterialGraph
from app.material.lowering import lower

SIZE = 96


def _noise_material(type_name: str, properties: dict | None = None, port: str | None = None) -> MaterialGraph:
    graph = MaterialGraph()
    node = graph.add_node(type_name, properties=properties or {})
    output = graph.add_node("material_output")
    graph.connect(node.id, port or "out", output.id, "base_color")
    return graph


def _points(dimensions: int, scale: float) -> np.ndarray:
    """The noise-space point of every pixel, as the shader computes it (float32 products)."""
    u, v = pixel_uv(SIZE)
    if dimensions == 2:
        point = np.stack([u, v], axis=-1)
    else:
        # World position of the quad: (2u - 1, 2v - 1, 0).
        point = np.stack([u * np.float32(2.0) - np.float32(1.0), v * np.float32(2.0) - np.float32(1.0), np.zeros_like(u)], axis=-1)
    return (point.astype(np.float32) * np.float32(scale)).astype(np.float32)


def _render(graph: MaterialGraph, target: str = "glsl420") -> np.ndarray:
    result = lower(graph)
    assert result.ok, result.diagnostics
    return render_material(result, SIZE, target)


CONTINUOUS_CASES = [
    ("value_noise", 2, 7.0, lambda p: ref.value_noise(p), 1e-4),
    ("value_noise_3d", 3, 5.0, lambda p: ref.value_noise(p), 1e-4),
    ("gradient_noise", 2, 7.0, lambda p: 0.5 + 0.5 * ref.gradient_noise(p), 2e-3),
    ("gradient_noise_3d", 3, 5.0, lambda p: 0.5 + 0.5 * ref.gradient_noise(p), 2e-3),
    ("simplex_noise", 2, 7.0, lambda p: 0.5 + 0.5 * ref.simplex_noise(p), 2e-3),
    ("simplex_noise_3d", 3, 5.0, lambda p: 0.5 + 0.5 * ref.simplex_noise(p), 2e-3),
]


@pytest.mark.gl
@pytest.mark.parametrize("type_name,dimensions,scale,reference,tolerance", CONTINUOUS_CASES, ids=[c[0] for c in CONTINUOUS_CASES])
def test_noise_matches_numpy_reference(current_gl, type_name, dimensions, scale, reference, tolerance) -> None:
    pixels = _render(_noise_material(type_name, {"scale": scale}))
    expected = reference(_points(dimensions, scale))
    difference = np.abs(pixels[..., 0] - expected)
    assert difference.max() <= tolerance, f"max difference {difference.max():.2e} at {np.unravel_index(difference.argmax(), difference.shape)}"
    assert expected.std() > 0.05  # a real pattern, not a constant


@pytest.mark.gl
@pytest.mark.parametrize("type_name,dimensions", [("white_noise", 2), ("white_noise_3d", 3)])
def test_white_noise_is_the_exact_hash(current_gl, type_name, dimensions) -> None:
    scale = 37.0
    pixels = _render(_noise_material(type_name, {"scale": scale}))
    expected = ref.white_noise(_points(dimensions, scale))
    assert np.array_equal(np.rint(pixels[..., 0] * 288.0), np.rint(expected * 288.0))
    colors = _render(_noise_material(type_name, {"scale": scale}, port="color"))
    hashed = ref.hash_cells(np.floor(_points(dimensions, scale)).astype(np.int64))
    assert np.abs(colors[..., :3] - ref.cell_color(hashed)).max() <= 1e-6


@pytest.mark.gl
@pytest.mark.parametrize("dimensions", [2, 3])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev"])
def test_voronoi_matches_numpy_reference(current_gl, dimensions, metric) -> None:
    type_name = "voronoi" if dimensions == 2 else "voronoi_3d"
    properties = {"scale": 6.0, "jitter": 0.9, "metric": metric}
    nearest, second, hashed = ref.voronoi(_points(dimensions, 6.0), 0.9, metric)
    for port, expected in (("f1", nearest), ("f2", second), ("edge", second - nearest)):
        pixels = _render(_noise_material(type_name, properties, port))
        assert np.abs(pixels[..., 0] - expected).max() <= 1e-4, port
    ids = _render(_noise_material(type_name, properties, "cell_id"))[..., 0]
    mismatched = np.rint(ids * 288.0) != hashed
    assert mismatched.mean() <= 0.005, f"{mismatched.sum()} pixels with another cell"
    colors = _render(_noise_material(type_name, properties, "cell_color"))[..., :3]
    same = ~mismatched
    assert np.abs(colors[same] - ref.cell_color(hashed)[same]).max() <= 1e-6


FRACTAL_CASES = [
    ("value", "fbm", ref.value_noise, lambda n: 2.0 * n - 1.0),
    ("gradient", "turbulence", ref.gradient_noise, None),
    ("simplex", "ridged", ref.simplex_noise, None),
]


@pytest.mark.gl
@pytest.mark.parametrize("basis,mode,kernel,to_signed", FRACTAL_CASES, ids=[f"{c[0]}-{c[1]}" for c in FRACTAL_CASES])
def test_fractal_noise_matches_numpy_reference(current_gl, basis, mode, kernel, to_signed) -> None:
    properties = {"scale": 3.0, "octaves": 4, "basis": basis, "mode": mode}
    pixels = _render(_noise_material("fractal_noise", properties))

    def signed(points):
        value = kernel(points)
        return to_signed(value) if to_signed else value

    expected = ref.fractal(_points(2, 3.0), signed, mode, 4)
    assert np.abs(pixels[..., 0] - expected).max() <= 3e-3


# Cross-target stability ---------------------------------------------------------------------------

STABILITY_CASES = ["white_noise", "value_noise_3d", "gradient_noise", "simplex_noise_3d", "voronoi", "fractal_noise"]


@pytest.mark.gl
@pytest.mark.parametrize("type_name", STABILITY_CASES)
def test_same_pixels_on_desktop_gl_and_es(gl_context, gles_context, type_name) -> None:
    graph = _noise_material(type_name, {"scale": 9.0}, port="f1" if type_name == "voronoi" else None)
    result = lower(graph)
    gl_context.make_current()
    desktop = render_material(result, SIZE, "glsl420")
    gles_context.make_current()
    es = render_material(result, SIZE, "es320")
    es300 = render_material(result, SIZE, "es300")
    assert np.abs(desktop - es).max() <= 1.0 / 255.0
    assert np.abs(desktop - es300).max() <= 1.0 / 255.0


@pytest.mark.gl
def test_procedural_noise_example_hash_agrees_with_numpy_on_both_targets(gl_context, gles_context) -> None:
    """The hash on Mesa desktop GL and Mesa ES 3.2 equals the exact integer hash (no sin anywhere)."""
    graph = _noise_material("white_noise", {"scale": 211.0})
    result = lower(graph)
    assert "sin" not in [name for name in result.text.split() if name == "sin"]
    expected = np.rint(ref.white_noise(_points(2, 211.0)) * 288.0)
    for context, target in ((gl_context, "glsl420"), (gles_context, "es320")):
        context.make_current()
        pixels = render_material(result, SIZE, target)
        assert np.array_equal(np.rint(pixels[..., 0] * 288.0), expected), target


def test_mod289_is_exact_on_its_whole_domain() -> None:
    """The float32 steps of `noise_mod` (multiply, floor, subtract, two corrections) equal integer mod 289."""
    x = np.arange(-(2**23), 11_300_001, 1, dtype=np.int64).astype(np.float32)  # every integer of the domain
    quotient = np.floor(x * np.float32(1.0 / 289.0))
    rest = x - quotient * np.float32(289.0)
    rest = rest + (np.float32(1.0) - (rest >= 0).astype(np.float32)) * np.float32(289.0)
    rest = rest - (rest >= 289).astype(np.float32) * np.float32(289.0)
    assert np.array_equal(rest.astype(np.int64), x.astype(np.int64) % 289)
    # permute's product stays exact: (34 x + 1) x < 2^24 for x < 578.
    assert (34 * 577 + 1) * 577 < 2**24
