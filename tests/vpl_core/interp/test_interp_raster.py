"""The rasteriser: coverage against exact rational arithmetic, shared edges, perspective-correct interpolation, clipping.

The reference coverage below is written independently of
`vpl_core.interp.raster`: it divides by w and clips the triangle to the
window's square -1 <= x, y <= 1 with exact `Fraction` arithmetic, maps the polygon's
vertices to window coordinates, snaps them to 1/256 pixel, and decides each
pixel centre of the polygon's fan with exact edge functions and the
ownership rule stated in raster.py's docstring (for counter-clockwise
triangles with y up, centres on an edge belong to the triangle when the
edge runs downwards, or rightwards when horizontal: left and bottom edges).
`test_edge_ownership_matches_the_driver` checks that rule against Mesa, and
`test_coverage_and_interpolation_match_the_driver` the clipping.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tiers import examples

from vpl_core.interp.raster import SUBPIXEL, assemble, quad_weights, rasterize

WIDTH, HEIGHT = 16, 12


Point = tuple[Fraction, Fraction]


def _clip_to_window(polygon: list[Point]) -> list[Point]:
    """The polygon (NDC, exact) inside -1 <= x, y <= 1: Sutherland-Hodgman, one side at a time."""
    for axis, bound in ((0, Fraction(-1)), (0, Fraction(1)), (1, Fraction(-1)), (1, Fraction(1))):
        def distance(point: Point, axis: int = axis, bound: Fraction = bound) -> Fraction:
            return point[axis] - bound if bound < 0 else bound - point[axis]

        clipped: list[Point] = []
        for index, current in enumerate(polygon):
            previous = polygon[index - 1]
            d_current, d_previous = distance(current), distance(previous)
            if (d_current >= 0) != (d_previous >= 0):
                t = d_previous / (d_previous - d_current)
                clipped.append((previous[0] + t * (current[0] - previous[0]), previous[1] + t * (current[1] - previous[1])))
            if d_current >= 0:
                clipped.append(current)
        polygon = clipped
    return polygon


def _snapped_window(point: Point) -> Point:
    x = (point[0] + 1) * Fraction(WIDTH, 2)
    y = (point[1] + 1) * Fraction(HEIGHT, 2)
    return Fraction(round(x * SUBPIXEL), SUBPIXEL), Fraction(round(y * SUBPIXEL), SUBPIXEL)


def _reference_coverage(triangle: np.ndarray) -> set[tuple[int, int]]:
    # In front of the eye (w > 0) a straight edge stays straight through the division by w, so clipping the
    # projected triangle to the window's square is clipping it to the view volume's sides.
    assert np.all(triangle[:, 3] > 0.0), "the reference clips triangles in front of the eye only"
    projected = [(Fraction(float(x)) / Fraction(float(w)), Fraction(float(y)) / Fraction(float(w))) for x, y, _, w in triangle]
    polygon = [_snapped_window(point) for point in _clip_to_window(projected)]
    covered: set[tuple[int, int]] = set()
    for k in range(1, len(polygon) - 1):
        covered |= _triangle_coverage(polygon[0], polygon[k], polygon[k + 1])
    return covered


def _triangle_coverage(a: Point, b: Point, c: Point) -> set[tuple[int, int]]:
    area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    if area == 0:
        return set()
    if area < 0:
        b, c = c, b
    edges = [(b, c), (c, a), (a, b)]
    covered = set()
    # Only pixel centres inside the bounding box can be inside: the same set as testing every pixel, sooner.
    low_x = max(0, math.floor(min(a[0], b[0], c[0]) - Fraction(1, 2)))
    high_x = min(WIDTH - 1, math.ceil(max(a[0], b[0], c[0])))
    low_y = max(0, math.floor(min(a[1], b[1], c[1]) - Fraction(1, 2)))
    high_y = min(HEIGHT - 1, math.ceil(max(a[1], b[1], c[1])))
    for py in range(low_y, high_y + 1):
        for px in range(low_x, high_x + 1):
            point = (Fraction(2 * px + 1, 2), Fraction(2 * py + 1, 2))
            inside = True
            for start, end in edges:
                value = (end[0] - start[0]) * (point[1] - start[1]) - (end[1] - start[1]) * (point[0] - start[0])
                dx, dy = end[0] - start[0], end[1] - start[1]
                owns = dy < 0 or (dy == 0 and dx > 0)
                if value < 0 or (value == 0 and not owns):
                    inside = False
                    break
            if inside:
                covered.add((px, py))
    return covered


def _coverage(clip: np.ndarray, triangles: np.ndarray) -> list[tuple[int, int, int]]:
    primitives = assemble(clip, triangles, WIDTH, HEIGHT)
    coverage = rasterize(primitives, WIDTH, HEIGHT)
    return [(int(primitives.source[p]), int(x), int(y)) for p, x, y in zip(coverage.primitive, coverage.x, coverage.y)]


ndc = st.floats(-1.25, 1.25, allow_nan=False, width=32)


@settings(max_examples=examples(200), deadline=None)
@given(points=st.lists(st.tuples(ndc, ndc), min_size=3, max_size=3))
@example(points=[(0.0, 0.0), (0.0, 1.0), (-1.25, 0.0)])  # clipped at the window's left side: the edge moves
def test_coverage_matches_exact_arithmetic(points: list[tuple[float, float]]) -> None:
    clip = np.array([[x, y, 0.0, 1.0] for x, y in points], dtype=np.float32)
    got = _coverage(clip, np.array([[0, 1, 2]]))
    assert len(got) == len(set(got))
    assert {(x, y) for _, x, y in got} == _reference_coverage(clip)


@settings(max_examples=examples(100), deadline=None)
@given(points=st.lists(st.tuples(ndc, ndc), min_size=3, max_size=7, unique=True))
def test_a_fan_around_a_centre_covers_each_pixel_once(points: list[tuple[float, float]]) -> None:
    # Sectors around the centroid, the points in angle order: neighbouring triangles share an edge and never overlap.
    array = np.array(points, dtype=np.float64)
    centre = array.mean(axis=0)
    ordered = array[np.argsort(np.arctan2(array[:, 1] - centre[1], array[:, 0] - centre[0]))]
    clip = np.array([[x, y, 0.0, 1.0] for x, y in [tuple(centre), *map(tuple, ordered)]], dtype=np.float32)
    count = len(points)
    triangles = np.array([[0, 1 + k, 1 + (k + 1) % count] for k in range(count)])
    pixels = [(x, y) for _, x, y in _coverage(clip, triangles)]
    assert len(pixels) == len(set(pixels)), "a pixel was drawn by two triangles"
    expected: set[tuple[int, int]] = set()
    for triangle in triangles:
        expected |= _reference_coverage(clip[triangle])
    assert set(pixels) == expected


def test_two_triangles_of_a_square_cover_it_exactly_once() -> None:
    clip = np.array([[-0.8, -0.7, 0, 1], [0.6, -0.7, 0, 1], [0.6, 0.9, 0, 1], [-0.8, 0.9, 0, 1]], dtype=np.float32)
    got = _coverage(clip, np.array([[0, 1, 2], [0, 2, 3]]))
    pixels = [(x, y) for _, x, y in got]
    assert len(pixels) == len(set(pixels))
    assert set(pixels) == _reference_coverage(clip[[0, 1, 2]]) | _reference_coverage(clip[[0, 2, 3]])


@settings(max_examples=examples(100), deadline=None)
@given(depths=st.lists(st.floats(0.25, 5.0, allow_nan=False, width=32), min_size=3, max_size=3),
       points=st.lists(st.tuples(ndc, ndc), min_size=3, max_size=3))
def test_interpolation_is_perspective_correct(depths: list[float], points: list[tuple[float, float]]) -> None:
    # Vertices at different w: interpolating clip x and w as attributes must give back each pixel's NDC x.
    clip = np.array([[x * w, y * w, 0.0, w] for (x, y), w in zip(points, depths)], dtype=np.float64)
    primitives = assemble(clip.astype(np.float32), np.array([[0, 1, 2]]), WIDTH, HEIGHT)
    coverage = rasterize(primitives, WIDTH, HEIGHT)
    if coverage.x.size == 0:
        return
    weights, _, inverse_w = quad_weights(primitives, coverage.primitive, coverage.x, coverage.y)
    x_clip = weights @ clip[:, 0].astype(np.float32)
    w_clip = weights @ clip[:, 3].astype(np.float32)
    pixel_ndc = (coverage.x + 0.5) / (WIDTH / 2.0) - 1.0
    np.testing.assert_allclose(x_clip / w_clip, pixel_ndc, atol=2e-3)  # the vertices were snapped to 1/256 pixel
    np.testing.assert_allclose(1.0 / inverse_w, w_clip, rtol=1e-4)


def _clip_near(vertices: list[np.ndarray]) -> list[np.ndarray]:
    """Sutherland-Hodgman against z >= -w alone, in binary64."""
    result = []
    for index, current in enumerate(vertices):
        previous = vertices[index - 1]
        d_current, d_previous = current[2] + current[3], previous[2] + previous[3]
        if (d_current >= 0) != (d_previous >= 0):
            t = d_previous / (d_previous - d_current)
            result.append(previous + t * (current - previous))
        if d_current >= 0:
            result.append(current)
    return result


def test_triangles_crossing_the_near_plane_are_clipped() -> None:
    # One vertex behind the eye (w < 0): only the part in front of z = -w is drawn.
    clip = np.array([[-1.0, -1.0, 0.0, 1.0], [-1.0, 3.0, 0.0, 1.0], [4.0, -1.0, -5.0, -3.0]], dtype=np.float32)
    got = {(x, y) for _, x, y in _coverage(clip, np.array([[0, 1, 2]]))}
    polygon = np.array(_clip_near([vertex.astype(np.float64) for vertex in clip]), dtype=np.float32)
    expected: set[tuple[int, int]] = set()
    for k in range(1, len(polygon) - 1):
        expected |= _reference_coverage(polygon[[0, k, k + 1]])
    assert got and got == expected
    primitives = assemble(clip, np.array([[0, 1, 2]]), WIDTH, HEIGHT)
    assert (primitives.inverse_w > 0).all()
    np.testing.assert_allclose(primitives.basis.sum(axis=2), 1.0)


def test_triangles_wholly_behind_the_eye_or_beyond_far_draw_nothing() -> None:
    behind = np.array([[0, 0, 0, -1], [1, 0, 0, -1], [0, 1, 0, -1]], dtype=np.float32)
    beyond = np.array([[0, 0, 2, 1], [1, 0, 2, 1], [0, 1, 2, 1]], dtype=np.float32)
    assert _coverage(behind, np.array([[0, 1, 2]])) == []
    assert _coverage(beyond, np.array([[0, 1, 2]])) == []
