"""The key light's shadows, the ground and the geometry's occlusion for the CPU preview, in numpy.

The same host passes as the OpenGL preview's (`app.preview.shadows`, whose
docstring explains them), computed with the interpreter's own rasteriser
(`vpl_core.interp.raster`) instead of a driver, so a mask pixel is the
pixel the material's frame covers:

- a shadow map of the mesh seen from the key light (the same orthographic
  light camera, `shadows.light_matrix`, with the polygon offset the GL
  depth pass sets), read with the same 5 x 5 percentage-closer filter of
  bilinear compares turned per pixel by interleaved gradient noise, and the
  same blocker search when the light has a size (PCSS);
- the height maps of the mesh's underside and top seen along +y
  (`shadows.height_matrix`) for the ground's horizon-based contact
  occlusion, and the ground's catcher factor from `shadows.ground_irradiance`;
- the per-vertex occlusion of `app.preview.mesh_occlusion` (the same cache).

The material itself is drawn by the interpreter once per light setting
(key light on, off, neither light nor environment, each extra light alone)
and the frame is composed as the GL composite does (`compose`). The maps
are smaller than the GL ones (`SHADOW_MAP_SIZE`, `HEIGHT_MAP_SIZE`): the
CPU preview's frames are at most 256 pixels on a side.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from app.preview.mesh_occlusion import vertex_occlusion
from app.preview.stage_geometry import (
    FILTER_SPACING_TEXELS,
    GROUND_EXTENT,
    OCCLUSION_DIRECTIONS,
    OCCLUSION_RADII,
    OCCLUSION_REACH,
    MeshExtent,
    height_matrix,
    light_matrix,
)
from vpl_core.interp.raster import assemble, quad_weights, rasterize

SHADOW_MAP_SIZE = 512
HEIGHT_MAP_SIZE = 128
#: glPolygonOffset(factor, units) of the GL shadow map's depth pass, and one unit of a 24-bit depth buffer.
_OFFSET_FACTOR, _OFFSET_UNITS, _DEPTH_UNIT = 1.5, 2.0, 2.0 ** -24
#: The filter's reach in texels on a sloped receiver (the GL mask pass's `reach_texels`).
_REACH_TEXELS = 2.0 * FILTER_SPACING_TEXELS * math.sqrt(2.0) + 1.0
_DEPTH_CACHE_SIZE = 6
_depth_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_depth_lock = threading.Lock()


@dataclass(frozen=True)
class Fragments:
    """The nearest fragment of each covered pixel of a depth-tested draw: pixel (x, y) with y up, as GL's
    window, the source triangle, its perspective-correct barycentric weights and the window depth."""

    x: np.ndarray
    y: np.ndarray
    triangle: np.ndarray
    weights: np.ndarray
    depth: np.ndarray


def nearest_fragments(clip: np.ndarray, triangles: np.ndarray, width: int, height: int) -> Fragments:
    """Rasterise `triangles` (vertex index triples into `clip`, (N, 4) clip positions) with a LESS depth test."""
    primitives = assemble(clip, triangles, width, height)
    coverage = rasterize(primitives, width, height)
    keep = coverage.depth < 1.0
    primitive, x, y, depth = coverage.primitive[keep], coverage.x[keep], coverage.y[keep], coverage.depth[keep]
    pixel = y * width + x
    order = np.lexsort((primitive, depth, pixel))  # nearest first; among equal depths the earliest drawn
    first = np.ones(order.shape[0], dtype=bool)
    first[1:] = pixel[order][1:] != pixel[order][:-1]
    chosen = order[first]
    primitive, x, y = primitive[chosen], x[chosen], y[chosen]
    weights, depth_at, _inverse_w = quad_weights(primitives, primitive, x, y)
    return Fragments(x, y, primitives.source[primitive], weights, depth_at)


def _clip(matrix: np.ndarray, positions: np.ndarray) -> np.ndarray:
    homogeneous = np.hstack([positions, np.ones((positions.shape[0], 1))])
    return homogeneous @ np.asarray(matrix, dtype=np.float64).T


def depth_map(matrix: np.ndarray, positions: np.ndarray, indices: np.ndarray, size: int, offset: bool) -> np.ndarray:
    """A (size, size) depth buffer (row 0 at the bottom) of the mesh under `matrix`, cleared to 1; with `offset`
    each triangle's depth is pushed back by the polygon offset the GL shadow map's pass sets (1.5 x slope + 2 units).

    They depend on the mesh and the light only, not on the camera: the last `_DEPTH_CACHE_SIZE` are kept (by
    their inputs' bytes), so orbiting the camera does not draw them again. Read only once made."""
    digest = hashlib.blake2b(digest_size=16)
    for array in (matrix, positions, indices):
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(f"{size} {offset}".encode())
    key = digest.hexdigest()
    with _depth_lock:
        cached = _depth_cache.get(key)
        if cached is not None:
            _depth_cache.move_to_end(key)
            return cached
    image = _draw_depth(matrix, positions, indices, size, offset)
    image.setflags(write=False)
    with _depth_lock:
        _depth_cache[key] = image
        while len(_depth_cache) > _DEPTH_CACHE_SIZE:
            _depth_cache.popitem(last=False)
    return image


def _draw_depth(matrix: np.ndarray, positions: np.ndarray, indices: np.ndarray, size: int, offset: bool) -> np.ndarray:
    clip = _clip(matrix, positions)
    triangles = np.asarray(indices, dtype=np.int64).reshape(-1, 3)
    fragments = nearest_fragments(clip, triangles, size, size)
    depth = fragments.depth
    if offset and depth.size:
        # The depth slope of each triangle in window space (depth per pixel), as glPolygonOffset's m.
        ndc = clip[:, :3] / clip[:, 3:4]
        window = np.stack([(ndc[:, 0] + 1.0) * size / 2.0, (ndc[:, 1] + 1.0) * size / 2.0, (ndc[:, 2] + 1.0) / 2.0], axis=1)
        corners = window[triangles[fragments.triangle]]  # (n, 3, 3)
        a, b = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
        normal = np.cross(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.maximum(np.abs(normal[:, 0]), np.abs(normal[:, 1])) / np.abs(normal[:, 2])
        slope = np.where(np.isfinite(slope), slope, 0.0)
        depth = depth + _OFFSET_FACTOR * slope + _OFFSET_UNITS * _DEPTH_UNIT
    image = np.ones((size, size), dtype=np.float64)
    image[fragments.y, fragments.x] = np.clip(depth, 0.0, 1.0)
    return image


def _unorm8(values: np.ndarray) -> np.ndarray:
    """`values` as the GL mask target (RGBA8) stores them: rounded to 1/255."""
    return np.round(np.clip(values, 0.0, 1.0) * 255.0) / 255.0


def _nearest(image: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """`image` (row 0 at t = 0) read NEAREST with CLAMP_TO_EDGE at uv (..., 2)."""
    size_y, size_x = image.shape
    i = np.clip(np.floor(uv[..., 0] * size_x).astype(np.int64), 0, size_x - 1)
    j = np.clip(np.floor(uv[..., 1] * size_y).astype(np.int64), 0, size_y - 1)
    return image[j, i]


def _compare(image: np.ndarray, uv: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """A shadow sampler's LINEAR read with LEQUAL comparison: the four texels' (reference <= depth) blended bilinearly."""
    size = image.shape[0]
    x = uv[..., 0] * size - 0.5
    y = uv[..., 1] * size - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = x - x0, y - y0
    x0i, y0i = x0.astype(np.int64), y0.astype(np.int64)

    def passed(dx: int, dy: int) -> np.ndarray:
        i = np.clip(x0i + dx, 0, size - 1)
        j = np.clip(y0i + dy, 0, size - 1)
        return (reference <= image[j, i]).astype(np.float64)

    return ((passed(0, 0) * (1.0 - fx) + passed(1, 0) * fx) * (1.0 - fy)
            + (passed(0, 1) * (1.0 - fx) + passed(1, 1) * fx) * fy)


@dataclass(frozen=True, eq=False)
class StageScene:
    """What the stage's masks of one frame need (taken from the renderer's state, read only when drawn)."""

    positions: np.ndarray
    normals: np.ndarray
    indices: np.ndarray
    view_projection: np.ndarray
    light_direction: tuple[float, float, float]
    shadows: bool            # the key light casts shadows (and has an intensity)
    ground: bool
    occlusion: bool
    light_size: float        # degrees
    environment_e: float     # the environment's irradiance on the open ground (`shadows.ground_irradiance`)
    light_e: float           # the key light's

    def masks(self, width: int, height: int) -> StageMasks:
        """The mask pass of the GL preview for a width x height frame (top row first)."""
        positions = np.asarray(self.positions, dtype=np.float64).reshape(-1, 3)
        normals = np.asarray(self.normals, dtype=np.float64).reshape(-1, 3)
        indices = np.asarray(self.indices, dtype=np.int64).reshape(-1, 3)
        extent = MeshExtent.of(positions)
        radius = max(extent.radius, 1e-3) * 1.02
        light, depth_span = light_matrix(self.light_direction, radius)
        shadow_map = depth_map(light, positions, indices, SHADOW_MAP_SIZE, True) if self.shadows else None
        ground_y = extent.bottom - 1e-3
        height_range = (ground_y - 0.01, extent.top + 0.01)
        height_extent = radius + max(OCCLUSION_RADII)
        # The mesh and (when on) the ground square, drawn together with the depth test as the GL mask pass does.
        e = GROUND_EXTENT
        ground_corners = np.array([(-e, ground_y, -e), (-e, ground_y, e), (e, ground_y, e), (e, ground_y, -e)])
        count = positions.shape[0]
        all_positions, triangles = positions, indices
        if self.ground:
            all_positions = np.vstack([positions, ground_corners])
            triangles = np.vstack([indices, np.array([[count, count + 1, count + 2], [count, count + 2, count + 3]])])
        fragments = nearest_fragments(_clip(self.view_projection, all_positions), triangles, width, height)
        corners = triangles[fragments.triangle]  # (n, 3)
        world = np.einsum("nk,nkj->nj", fragments.weights, all_positions[corners])
        on_ground = fragments.triangle >= indices.shape[0]
        mesh_corners = np.where(on_ground[:, None], 0, corners)
        normal = np.einsum("nk,nkj->nj", fragments.weights, normals[mesh_corners])
        normal[on_ground] = (0.0, 1.0, 0.0)
        normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
        visibility = np.ones(world.shape[0])
        if shadow_map is not None:
            visibility = self._visibility(world, normal, fragments, shadow_map, light, depth_span, radius)
        occlusion = np.ones(world.shape[0])
        if self.occlusion:
            per_vertex = vertex_occlusion(positions.astype(np.float32), normals.astype(np.float32),
                                          indices.reshape(-1).astype(np.uint32))
            occlusion = np.einsum("nk,nk->n", fragments.weights, per_vertex.astype(np.float64)[mesh_corners])
            occlusion[on_ground] = 1.0
        catcher = np.ones(world.shape[0])
        if self.ground and on_ground.any():
            below = depth_map(height_matrix(height_extent, *height_range, from_below=True), positions, indices,
                              HEIGHT_MAP_SIZE, False)
            above = depth_map(height_matrix(height_extent, *height_range, from_below=False), positions, indices,
                              HEIGHT_MAP_SIZE, False)
            total = self.environment_e + self.light_e
            if total > 0.0:
                open_sky = _ground_occlusion(world[on_ground][:, [0, 2]], below, above, height_range, height_extent,
                                             ground_y)
                catcher[on_ground] = (self.environment_e * open_sky + self.light_e * visibility[on_ground]) / total
        result = StageMasks(np.ones((height, width)), np.ones((height, width)), np.ones((height, width)))
        rows = height - 1 - fragments.y  # top row first
        mesh = ~on_ground
        result.visibility[rows[mesh], fragments.x[mesh]] = _unorm8(visibility[mesh])
        result.occlusion[rows[mesh], fragments.x[mesh]] = _unorm8(occlusion[mesh])
        result.catcher[rows[on_ground], fragments.x[on_ground]] = _unorm8(catcher[on_ground])
        return result

    def _visibility(self, world: np.ndarray, normal: np.ndarray, fragments: Fragments, shadow_map: np.ndarray,
                    light: np.ndarray, depth_span: float, radius: float) -> np.ndarray:
        """The GL mask pass's `visibility` (shadows.py) for every fragment."""
        size = SHADOW_MAP_SIZE
        texel = 2.0 * radius / size
        offset, depth_bias, spacing_uv = 1.5 * texel, texel / depth_span, FILTER_SPACING_TEXELS / size
        towards = np.asarray(self.light_direction, dtype=np.float64)
        facing = np.clip(normal @ towards, 0.05, 1.0)
        slope = np.minimum(np.sqrt(1.0 - facing * facing) / facing, 8.0)
        clip = _clip(light, world + normal * (offset * (2.0 - facing))[:, None])
        s = clip[:, :3] / clip[:, 3:4] * 0.5 + 0.5
        bias = depth_bias * (1.0 + _REACH_TEXELS * slope)
        inside = (s[:, 0] > 0.0) & (s[:, 1] > 0.0) & (s[:, 0] < 1.0) & (s[:, 1] < 1.0)
        fx, fy = fragments.x + 0.5, fragments.y + 0.5
        noise = np.modf(52.9829189 * np.modf(fx * 0.06711056 + fy * 0.00583715)[0])[0]
        angle = 2.0 * math.pi * noise
        cos, sin = np.cos(angle), np.sin(angle)

        def turned(i: float, j: float, step: np.ndarray | float) -> np.ndarray:
            # GLSL's mat2(c, s, -s, c) * v: columns (c, s) and (-s, c).
            return np.stack([s[:, 0] + (cos * i - sin * j) * step, s[:, 1] + (sin * i + cos * j) * step], axis=1)

        reference = s[:, 2] - bias
        spacing: np.ndarray = np.full(world.shape[0], spacing_uv)
        light_size = math.tan(math.radians(self.light_size) / 2.0)
        unblocked = np.zeros(world.shape[0], dtype=bool)
        if light_size > 0.0:
            search = light_size * 0.5
            blockers = np.zeros(world.shape[0])
            found = np.zeros(world.shape[0])
            for i in range(-3, 4):
                for j in range(-3, 4):
                    depth = _nearest(shadow_map, turned(i, j, search / 3.0))
                    hit = depth < reference
                    blockers += np.where(hit, depth, 0.0)
                    found += hit
            unblocked = found == 0.0
            with np.errstate(divide="ignore", invalid="ignore"):
                distance = (s[:, 2] - blockers / np.maximum(found, 1.0)) * depth_span
            penumbra = 2.0 * light_size * distance / (2.0 * radius)
            spacing = np.maximum(spacing_uv, penumbra / 4.0)
        lit = np.zeros(world.shape[0])
        for i in range(-2, 3):
            for j in range(-2, 3):
                lit += _compare(shadow_map, turned(i, j, spacing), reference)
        return np.where(inside & ~unblocked, lit / 25.0, 1.0)


def _ground_occlusion(xz: np.ndarray, below: np.ndarray, above: np.ndarray, height_range: tuple[float, float],
                      extent: float, ground_y: float) -> np.ndarray:
    """The GL mask pass's `ground_occlusion` (shadows.py) at ground points `xz` (n, 2)."""
    hidden = np.zeros(xz.shape[0])
    span = height_range[1] - height_range[0]
    for d in range(OCCLUSION_DIRECTIONS):
        a = 2.0 * math.pi * (d + 0.5) / OCCLUSION_DIRECTIONS
        direction = np.array([math.cos(a), math.sin(a)])
        slice_ = np.zeros(xz.shape[0])
        for radius in OCCLUSION_RADII:
            uv = (xz + direction * radius) / (2.0 * extent) + 0.5
            valid = (uv[:, 0] > 0.0) & (uv[:, 1] > 0.0) & (uv[:, 0] < 1.0) & (uv[:, 1] < 1.0)
            below_depth = _nearest(below, uv)
            valid &= below_depth < 0.99999
            above_depth = _nearest(above, uv)
            under = np.maximum(height_range[0] + below_depth * span - ground_y, 0.0)
            top = np.maximum(height_range[1] - above_depth * span - ground_y, under)
            r2 = radius * radius
            share = top * top / (top * top + r2) - under * under / (under * under + r2)
            falloff = 1.0 - radius / OCCLUSION_REACH
            slice_ = np.where(valid, np.maximum(slice_, share * falloff * falloff), slice_)
        hidden += slice_
    occlusion = 1.0 - hidden / OCCLUSION_DIRECTIONS
    return np.where(np.linalg.norm(xz, axis=1) > extent, 1.0, occlusion)


@dataclass
class StageMasks:
    """Per pixel (height, width), top row first: the key light's visibility and the geometry's occlusion on
    the mesh (1 elsewhere), the ground's catcher factor (1 off the ground)."""

    visibility: np.ndarray
    occlusion: np.ndarray
    catcher: np.ndarray


def compose(lit: np.ndarray, unlit: np.ndarray, emission: np.ndarray, extra: list[np.ndarray],
            masks: StageMasks) -> np.ndarray:
    """The GL composite (shadows.py) and the extra lights' sum (stage_lights.py) on RGBA frames (top row first):
    emission + occlusion (unlit - emission) + visibility (lit - unlit) + sum(extra - emission), alpha the lit frame's."""
    result = lit.copy()
    rgb = (emission[..., :3] + masks.occlusion[..., None] * (unlit[..., :3] - emission[..., :3])
           + masks.visibility[..., None] * (lit[..., :3] - unlit[..., :3]))
    for frame in extra:
        rgb = rgb + (frame[..., :3] - emission[..., :3])
    result[..., :3] = rgb
    return result
