"""A small, documented, perspective-correct triangle rasteriser (OpenGL 4.2 sections 2.17-2.20, 3.6).

Input: clip-space positions (x, y, z, w) of the vertices and triangles as
vertex index triples. Output: `Coverage`, the fragments each triangle
produces, with screen-space and perspective-correct barycentric weights
relative to the *original* triangle (so varyings are interpolated straight
from the vertex stage's values).

The steps, in the order GL describes them:

1. **Clipping** against the view volume -w <= x, y, z <= w (section
   2.20), in homogeneous clip space (Sutherland-Hodgman). Triangles inside
   need nothing; a clipped triangle becomes a fan whose vertices are
   combinations of the original three (`basis`), so clipping never
   interpolates varyings itself. The window's sides are clip planes, not a
   guard band: a new vertex on a side is snapped on its own (step 3), which
   can move an edge across a pixel centre that lay exactly on it, and Mesa
   (llvmpipe) clips exactly so whenever the framebuffer has a depth buffer
   or a colour format other than 8-bit RGBA (the preview, the float
   read-backs of the tests); its guard band, used only for a lone 8-bit
   colour buffer, would keep the original edge instead.
2. **Perspective division and viewport**: window x = (x/w + 1) W / 2,
   y = (y/w + 1) H / 2, z = (z/w + 1) / 2 (depth range 0..1), window y up
   (row 0 is the bottom, as GL's).
3. **Snapping** x and y to 1/256 of a pixel (8 subpixel bits, as llvmpipe
   and most hardware), so edge functions are exact integers.
4. **Coverage** of pixel centres (x + 1/2, y + 1/2): inside all three edges;
   a centre exactly on an edge belongs to the triangle when that edge is a
   left or a bottom edge (the top-left rule of a window whose y runs down,
   applied to GL's window coordinates whose y runs up, as Mesa does), so
   of two triangles sharing an edge exactly one owns it. Both windings are
   drawn (no culling).
5. **Interpolation**: screen barycentrics from the window positions
   *before* snapping (binary64; llvmpipe likewise sets up its attribute
   planes from the unsnapped floats, so the pieces of a clipped triangle
   interpolate exactly as the whole would); depth is interpolated linearly
   in window space; every other attribute with the perspective-correct
   weights b_i = (l_i / w_i) / sum(l_j / w_j).

`quad_weights` evaluates the same plane equations at any pixel, so the
fragment stage can run complete 2x2 quads (helper invocations outside the
triangle) for derivatives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SUBPIXEL_BITS = 8
SUBPIXEL = 1 << SUBPIXEL_BITS

#: The view volume's planes as (a, b, c, d): a x + b y + c z + d w >= 0 inside.
_PLANES = np.array(
    [
        [0.0, 0.0, 1.0, 1.0],   # near: z >= -w
        [0.0, 0.0, -1.0, 1.0],  # far: z <= w
        [1.0, 0.0, 0.0, 1.0],   # left: x >= -w
        [-1.0, 0.0, 0.0, 1.0],  # right: x <= w
        [0.0, 1.0, 0.0, 1.0],   # bottom: y >= -w
        [0.0, -1.0, 0.0, 1.0],  # top: y <= w
    ]
)


@dataclass
class Primitives:
    """Triangles ready to rasterise: window positions, depths, 1/w, and their relation to the source triangles."""

    source: np.ndarray   # (P,) index of the original triangle
    window: np.ndarray   # (P, 3, 2) snapped window x, y in subpixel units (int64): coverage
    exact: np.ndarray    # (P, 3, 2) window x, y in pixels before snapping (float64): interpolation
    depth: np.ndarray    # (P, 3) window z
    inverse_w: np.ndarray  # (P, 3) 1 / w_clip
    basis: np.ndarray    # (P, 3, 3) each vertex as weights of the original triangle's vertices
    area: np.ndarray     # (P,) twice the signed area in subpixel units squared (counter-clockwise positive)


@dataclass
class Coverage:
    """Fragments: one per covered pixel and primitive, in primitive order."""

    primitive: np.ndarray  # (F,) index into Primitives
    x: np.ndarray          # (F,) pixel column
    y: np.ndarray          # (F,) pixel row, 0 at the bottom
    depth: np.ndarray      # (F,) window z


def _clip_polygon(vertices: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Sutherland-Hodgman over all planes; each vertex is (clip position, weights of the original three)."""
    polygon = vertices
    for plane in _PLANES:
        if not polygon:
            break
        result: list[tuple[np.ndarray, np.ndarray]] = []
        for index, current in enumerate(polygon):
            previous = polygon[index - 1]
            distance_current = float(plane @ current[0])
            distance_previous = float(plane @ previous[0])
            if distance_current >= 0.0:
                if distance_previous < 0.0:
                    t = distance_previous / (distance_previous - distance_current)
                    result.append((previous[0] + t * (current[0] - previous[0]), previous[1] + t * (current[1] - previous[1])))
                result.append(current)
            elif distance_previous >= 0.0:
                t = distance_previous / (distance_previous - distance_current)
                result.append((previous[0] + t * (current[0] - previous[0]), previous[1] + t * (current[1] - previous[1])))
        polygon = result
    return polygon


def assemble(clip: np.ndarray, triangles: np.ndarray, width: int, height: int) -> Primitives:
    """Clip, divide, map to the viewport and snap (steps 1-3)."""
    clip64 = np.asarray(clip, dtype=np.float64)
    triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    corners = clip64[triangles]  # (T, 3, 4)
    with np.errstate(invalid="ignore"):
        distances = np.einsum("tvk,pk->tvp", corners, _PLANES)
        inside = np.all(distances >= 0.0, axis=(1, 2)) & np.all(np.isfinite(corners), axis=(1, 2))
    sources = [np.flatnonzero(inside)]
    positions = [corners[inside]]
    bases = [np.broadcast_to(np.eye(3), (int(inside.sum()), 3, 3))]
    for triangle in np.flatnonzero(~inside):
        if not np.all(np.isfinite(corners[triangle])):
            continue
        if np.any(np.all(distances[triangle] < 0.0, axis=0)):
            continue  # wholly outside one plane
        polygon = _clip_polygon([(corners[triangle, k], np.eye(3)[k]) for k in range(3)])
        for k in range(1, len(polygon) - 1):
            fan = (polygon[0], polygon[k], polygon[k + 1])
            sources.append(np.array([triangle]))
            positions.append(np.stack([vertex[0] for vertex in fan])[None])
            bases.append(np.stack([vertex[1] for vertex in fan])[None])
    source = np.concatenate(sources)
    position = np.concatenate(positions) if positions else np.zeros((0, 3, 4))
    basis = np.concatenate(bases) if bases else np.zeros((0, 3, 3))
    w = position[..., 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        ndc = position[..., :3] / w[..., None]
    window_x = (ndc[..., 0] + 1.0) * (width / 2.0)
    window_y = (ndc[..., 1] + 1.0) * (height / 2.0)
    depth = (ndc[..., 2] + 1.0) / 2.0
    exact = np.stack([window_x, window_y], axis=-1)
    window = np.rint(exact * SUBPIXEL).astype(np.int64)
    edge_a = window[:, 1] - window[:, 0]
    edge_b = window[:, 2] - window[:, 0]
    area = edge_a[:, 0] * edge_b[:, 1] - edge_a[:, 1] * edge_b[:, 0]
    keep = (area != 0) & (w > 0).all(axis=1)
    return Primitives(source[keep], window[keep], exact[keep], depth[keep], 1.0 / w[keep], np.ascontiguousarray(basis[keep]),
                      area[keep])


def edge_coefficients(window: np.ndarray, area: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per primitive and edge (opposite vertex 0, 1, 2): A, B, C of E(p) = A px + B py + C, >= 0 inside; int64, exact."""
    sign = np.where(area > 0, 1, -1)[:, None]
    a = window[:, [1, 2, 0]]
    b = window[:, [2, 0, 1]]
    dx = (b[..., 0] - a[..., 0]) * sign
    dy = (b[..., 1] - a[..., 1]) * sign
    return -dy, dx, dy * a[..., 0] - dx * a[..., 1]


def _edges(coefficients: tuple[np.ndarray, np.ndarray, np.ndarray], primitive: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Edge functions at subpixel points of the given primitives; (n, 3) int64."""
    a, b, c = coefficients
    return a[primitive] * px[:, None] + b[primitive] * py[:, None] + c[primitive]


def _top_left(window: np.ndarray, area: np.ndarray) -> np.ndarray:
    """(P, 3) whether the edge opposite each vertex owns the centres lying exactly on it (left and bottom edges)."""
    sign = np.where(area > 0, 1, -1)
    owned = []
    for opposite in range(3):
        a = window[:, (opposite + 1) % 3]
        b = window[:, (opposite + 2) % 3]
        dx = (b[:, 0] - a[:, 0]) * sign
        dy = (b[:, 1] - a[:, 1]) * sign
        # Counter-clockwise with y up: a left edge runs downwards, a bottom edge rightwards (interior above).
        owned.append((dy < 0) | ((dy == 0) & (dx > 0)))
    return np.stack(owned, axis=1)


def rasterize(primitives: Primitives, width: int, height: int, chunk: int = 1 << 20) -> Coverage:
    """Covered pixel centres of every primitive (step 4), in primitive order."""
    window = primitives.window
    count = window.shape[0]
    empty = Coverage(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    if count == 0:
        return empty
    # Pixels whose centre (x * S + S/2) lies within the bounding box: exact integer bounds.
    low = -((SUBPIXEL // 2 - window.min(axis=1)) // SUBPIXEL)   # ceil((min - S/2) / S)
    high = (window.max(axis=1) - SUBPIXEL // 2) // SUBPIXEL      # floor((max - S/2) / S)
    x0, y0 = np.clip(low[:, 0], 0, width), np.clip(low[:, 1], 0, height)
    x1, y1 = np.clip(high[:, 0] + 1, 0, width), np.clip(high[:, 1] + 1, 0, height)
    columns = np.maximum(x1 - x0, 0)
    rows = np.maximum(y1 - y0, 0)
    sizes = columns * rows
    owned = _top_left(window, primitives.area)
    coefficients = edge_coefficients(window, primitives.area)
    pieces: list[Coverage] = []
    start = 0
    # Chunks of whole primitives keep the candidate arrays bounded.
    ends = np.cumsum(sizes)
    while start < count:
        budget = (ends[start - 1] if start else 0) + chunk
        stop = max(start + 1, int(np.searchsorted(ends, budget, side="right")))
        stop = min(stop, count)
        pieces.append(_rasterize_range(primitives, coefficients, owned, start, stop, x0, y0, columns, sizes))
        start = stop
    return Coverage(*(np.concatenate([getattr(piece, name) for piece in pieces]) for name in ("primitive", "x", "y", "depth")))


def _rasterize_range(primitives: Primitives, coefficients: tuple[np.ndarray, np.ndarray, np.ndarray], owned: np.ndarray,
                     start: int, stop: int, x0: np.ndarray, y0: np.ndarray, columns: np.ndarray, sizes: np.ndarray) -> Coverage:
    span = np.arange(start, stop)
    counts = sizes[span]
    primitive = np.repeat(span, counts)
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    cols = np.maximum(columns[primitive], 1)
    x = x0[primitive] + offsets % cols
    y = y0[primitive] + offsets // cols
    px = x * SUBPIXEL + SUBPIXEL // 2
    py = y * SUBPIXEL + SUBPIXEL // 2
    edges = _edges(coefficients, primitive, px, py)
    inside = np.all((edges > 0) | ((edges == 0) & owned[primitive]), axis=1)
    primitive, x, y = primitive[inside], x[inside], y[inside]
    depth = np.sum(screen_weights(primitives, primitive, x, y) * primitives.depth[primitive], axis=1)
    return Coverage(primitive, x, y, depth)


def screen_weights(primitives: Primitives, primitive: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Screen-space barycentrics (n, 3) of pixel centres (any, inside or not) from the unsnapped window positions."""
    corners = primitives.exact[primitive]  # (n, 3, 2)
    centre = np.stack([np.asarray(x, dtype=np.float64) + 0.5, np.asarray(y, dtype=np.float64) + 0.5], axis=1)
    # The weight of vertex k: the signed area of the triangle (p, next, after-next) over the whole's.
    following, after = corners[:, [1, 2, 0]], corners[:, [2, 0, 1]]
    partial = ((following[..., 0] - centre[:, None, 0]) * (after[..., 1] - centre[:, None, 1])
               - (following[..., 1] - centre[:, None, 1]) * (after[..., 0] - centre[:, None, 0]))
    with np.errstate(divide="ignore", invalid="ignore"):
        return partial / partial.sum(axis=1, keepdims=True)


def quad_weights(primitives: Primitives, primitive: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At pixel centres (any, inside or not) of the given primitives: the perspective-correct weights of
    the original triangle's vertices (n, 3), the window depth (n,) and the interpolated 1/w (n,)."""
    screen = screen_weights(primitives, primitive, x, y)
    depth = np.sum(screen * primitives.depth[primitive], axis=1)
    inverse_w = primitives.inverse_w[primitive]
    weighted = screen * inverse_w
    total = weighted.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        perspective = weighted / total[:, None]
    original = np.einsum("nk,nkj->nj", perspective, primitives.basis[primitive])
    return original, depth, total
