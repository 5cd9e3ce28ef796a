"""2D textures and sampling as OpenGL 4.2 section 3.9.11 (and OpenGL ES 3.2 section 8.14) define it.

A `Texture2D` holds its mip levels as float32 RGBA arrays (level 0 first,
row 0 at t = 0, i.e. the image's bottom, as GL stores a texture uploaded
bottom row first) and a `SamplerState`: wrap mode per axis (repeat,
mirrored repeat, clamp to edge), minification and magnification filters,
base/max level and LOD clamps. `Texture2D.from_image` makes one from an
RGBA8 image the way the preview uploads it (rows flipped so v = 0 is the
image's bottom, `glGenerateMipmap`, repeat, trilinear).

`sample(texture, s, t, lod)` evaluates the filter for every lane at the
given level of detail. Where the LOD comes from is the caller's business:
zero in the vertex stage (spec 7.3.1), `texture_lod`'s operand, or
log2 of the scale factor rho computed from the coordinates' window-space
derivatives (GL's equations 3.20-3.21; `implicit_lod`).

Decisions where GL leaves room (docs/interpreter.md):
- rho is computed exactly (the square-root form, not the max-of-components
  approximation GL also allows) per lane;
- linear filtering weights are exact (binary64), not fixed point;
- `glGenerateMipmap` is a 2x2 box filter (a linear-filtered half-size blit
  for odd sizes), each level rounded to unorm8 like the RGBA8 texture it is.
The precision tracking covers the other permitted choices (see
`sample_radius`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


class Wrap(enum.Enum):
    REPEAT = "repeat"
    MIRRORED_REPEAT = "mirrored_repeat"
    CLAMP_TO_EDGE = "clamp_to_edge"


class Filter(enum.Enum):
    NEAREST = "nearest"
    LINEAR = "linear"
    NEAREST_MIPMAP_NEAREST = "nearest_mipmap_nearest"
    LINEAR_MIPMAP_NEAREST = "linear_mipmap_nearest"
    NEAREST_MIPMAP_LINEAR = "nearest_mipmap_linear"
    LINEAR_MIPMAP_LINEAR = "linear_mipmap_linear"

    @property
    def uses_mipmaps(self) -> bool:
        return self not in (Filter.NEAREST, Filter.LINEAR)

    @property
    def texel_filter(self) -> Filter:
        """NEAREST or LINEAR: the filter within one level."""
        return Filter.LINEAR if self in (Filter.LINEAR, Filter.LINEAR_MIPMAP_NEAREST, Filter.LINEAR_MIPMAP_LINEAR) else Filter.NEAREST


@dataclass(frozen=True)
class SamplerState:
    """The texture and sampler parameters sampling depends on (GL defaults but repeat + trilinear)."""

    wrap_s: Wrap = Wrap.REPEAT
    wrap_t: Wrap = Wrap.REPEAT
    min_filter: Filter = Filter.LINEAR_MIPMAP_LINEAR
    mag_filter: Filter = Filter.LINEAR
    base_level: int = 0
    max_level: int = 1000
    min_lod: float = -1000.0
    max_lod: float = 1000.0

    def __post_init__(self) -> None:
        if self.mag_filter not in (Filter.NEAREST, Filter.LINEAR):
            raise ValueError(f"the magnification filter must be nearest or linear, not {self.mag_filter.value}")


def _to_half(level: np.ndarray) -> np.ndarray:
    """A level as an RGBA16F texture stores it: rounded to binary16."""
    return level.astype(np.float16).astype(np.float64)


def _to_unorm8(values: np.ndarray) -> np.ndarray:
    return np.rint(np.clip(values, 0.0, 1.0) * 255.0) / 255.0


@dataclass
class Texture2D:
    """A complete 2D texture: float32 RGBA levels (row 0 at t = 0) and sampler state."""

    levels: list[np.ndarray]
    sampler: SamplerState = field(default_factory=SamplerState)

    def __post_init__(self) -> None:
        if not self.levels:
            raise ValueError("a texture needs at least one level")
        for level in self.levels:
            if level.ndim != 3 or level.shape[2] != 4 or level.shape[0] < 1 or level.shape[1] < 1:
                raise ValueError(f"texture levels are (height, width, 4) arrays, got shape {level.shape}")
        self.levels = [np.ascontiguousarray(level, dtype=np.float32) for level in self.levels]
        self._slopes: tuple[float, float] | None = None

    @classmethod
    def from_image(cls, image: np.ndarray, *, mipmaps: bool = True, sampler: SamplerState | None = None) -> Texture2D:
        """An RGBA image (height, width, 4), first row at the top, uploaded as the preview does.

        uint8 images are RGBA8 textures (each generated level quantised to 8
        bits); float32 images (HDR, EXR, 16-bit sources) are RGBA16F
        textures, so every level is rounded to half precision.
        """
        array = np.asarray(image)
        if array.ndim != 3 or array.shape[2] != 4 or array.dtype not in (np.uint8, np.float32):
            raise ValueError(f"expected a uint8 or float32 (height, width, 4) image, got {array.dtype} {array.shape}")
        if array.dtype == np.uint8:
            quantise: Callable[[np.ndarray], np.ndarray] = _to_unorm8
            base = array[::-1].astype(np.float64) / 255.0
        else:
            quantise = _to_half
            base = quantise(array[::-1].astype(np.float64))
        levels = [base]
        while mipmaps and (levels[-1].shape[0] > 1 or levels[-1].shape[1] > 1):
            levels.append(quantise(_half(levels[-1])))
        state = sampler or (SamplerState() if mipmaps else SamplerState(min_filter=Filter.LINEAR))
        return cls([level.astype(np.float32) for level in levels], state)

    @classmethod
    def from_levels(cls, levels: list[np.ndarray], sampler: SamplerState | None = None) -> Texture2D:
        """Explicit RGBA8 levels (each (height, width, 4) uint8, row 0 at t = 0, as glTexImage2D receives it)."""
        return cls([np.asarray(level, dtype=np.float64) / 255.0 for level in levels], sampler or SamplerState())

    @property
    def width(self) -> int:
        return int(self.levels[0].shape[1])

    @property
    def height(self) -> int:
        return int(self.levels[0].shape[0])

    @property
    def max_level_used(self) -> int:
        """q of GL: the last level sampling can reach."""
        return min(self.sampler.max_level, len(self.levels) - 1)

    def slopes(self) -> tuple[float, float]:
        """Bounds of |d sample / d s| and |d sample / d t| for linear filtering over all levels (for error radii)."""
        if self._slopes is None:
            slope_s = slope_t = 0.0
            for level in self.levels:
                height, width = level.shape[:2]
                across = np.abs(np.roll(level, -1, axis=1) - level).max() if width > 1 else 0.0
                down = np.abs(np.roll(level, -1, axis=0) - level).max() if height > 1 else 0.0
                slope_s = max(slope_s, float(across) * width)
                slope_t = max(slope_t, float(down) * height)
            self._slopes = (slope_s, slope_t)
        return self._slopes

    def value_range(self) -> float:
        return float(max(level.max() - level.min() for level in self.levels))


def _half(level: np.ndarray) -> np.ndarray:
    """The next mip level: a linear-filtered blit to half size (a 2x2 box filter for even sizes)."""
    height, width = level.shape[:2]
    new_height, new_width = max(1, height // 2), max(1, width // 2)
    rows = (np.arange(new_height) + 0.5) * (height / new_height) - 0.5
    columns = (np.arange(new_width) + 0.5) * (width / new_width) - 0.5
    row0 = np.clip(np.floor(rows).astype(int), 0, height - 1)
    row1 = np.clip(row0 + 1, 0, height - 1)
    column0 = np.clip(np.floor(columns).astype(int), 0, width - 1)
    column1 = np.clip(column0 + 1, 0, width - 1)
    beta = (rows - np.floor(rows))[:, None, None]
    alpha = (columns - np.floor(columns))[None, :, None]
    top = level[row0][:, column0] * (1 - alpha) + level[row0][:, column1] * alpha
    bottom = level[row1][:, column0] * (1 - alpha) + level[row1][:, column1] * alpha
    return top * (1 - beta) + bottom * beta


def _wrap(index: np.ndarray, size: int, mode: Wrap) -> np.ndarray:
    if mode is Wrap.REPEAT:
        return np.mod(index, size)
    if mode is Wrap.CLAMP_TO_EDGE:
        return np.clip(index, 0, size - 1)
    period = np.mod(index, 2 * size)
    return np.where(period < size, period, 2 * size - 1 - period)


def _filter_level(level: np.ndarray, s: np.ndarray, t: np.ndarray, texel_filter: Filter, state: SamplerState) -> np.ndarray:
    """Sample one level at (s, t) (float64 arrays) with NEAREST or LINEAR; (lanes, 4) float64."""
    height, width = level.shape[:2]
    u, v = s * width, t * height
    if state.wrap_s is Wrap.CLAMP_TO_EDGE:
        u = np.clip(u, 0.0, float(width))
    if state.wrap_t is Wrap.CLAMP_TO_EDGE:
        v = np.clip(v, 0.0, float(height))
    if texel_filter is Filter.NEAREST:
        i = _wrap(np.floor(u).astype(np.int64), width, state.wrap_s)
        j = _wrap(np.floor(v).astype(np.int64), height, state.wrap_t)
        return level[j, i].astype(np.float64)
    u0, v0 = np.floor(u - 0.5), np.floor(v - 0.5)
    alpha = (u - 0.5 - u0)[:, None]
    beta = (v - 0.5 - v0)[:, None]
    i0 = _wrap(u0.astype(np.int64), width, state.wrap_s)
    i1 = _wrap(u0.astype(np.int64) + 1, width, state.wrap_s)
    j0 = _wrap(v0.astype(np.int64), height, state.wrap_t)
    j1 = _wrap(v0.astype(np.int64) + 1, height, state.wrap_t)
    texels = level.astype(np.float64)
    return ((1 - alpha) * (1 - beta) * texels[j0, i0] + alpha * (1 - beta) * texels[j0, i1]
            + (1 - alpha) * beta * texels[j1, i0] + alpha * beta * texels[j1, i1])


def sample(texture: Texture2D, s: np.ndarray, t: np.ndarray, lod: np.ndarray) -> np.ndarray:
    """GL texture lookup at per-lane coordinates and level of detail (after bias); (lanes, 4) float64.

    `lod` is lambda of GL's equation 3.21 before the LOD clamp: the clamp to
    [min_lod, max_lod], the magnification/minification choice (c = 0.5 for
    linear magnification with a nearest-mipmap minification filter, else 0)
    and the level selection happen here.
    """
    state = texture.sampler
    s64, t64 = np.asarray(s, dtype=np.float64), np.asarray(t, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        lam = np.clip(np.nan_to_num(np.asarray(lod, dtype=np.float64), nan=0.0, posinf=1000.0, neginf=-1000.0), state.min_lod, state.max_lod)
    threshold = 0.5 if (state.mag_filter is Filter.LINEAR and state.min_filter in (Filter.NEAREST_MIPMAP_NEAREST, Filter.NEAREST_MIPMAP_LINEAR)) else 0.0
    base = min(max(state.base_level, 0), len(texture.levels) - 1)
    q = max(texture.max_level_used, base)
    result = np.zeros(s64.shape + (4,), dtype=np.float64)
    magnify = lam <= threshold
    # Magnification: the mag filter on the base level.
    if magnify.any():
        result[magnify] = _filter_level(texture.levels[base], s64[magnify], t64[magnify], state.mag_filter, state)
    minify = ~magnify
    if not minify.any():
        return result
    texel_filter = state.min_filter.texel_filter
    if not state.min_filter.uses_mipmaps:
        result[minify] = _filter_level(texture.levels[base], s64[minify], t64[minify], texel_filter, state)
        return result
    lam_min = lam[minify]
    if state.min_filter in (Filter.NEAREST_MIPMAP_NEAREST, Filter.LINEAR_MIPMAP_NEAREST):
        level = np.where(lam_min <= 0.5, base, base + np.ceil(lam_min + 0.5) - 1)
        first = np.clip(level, base, q).astype(np.int64)
        second = first
        weight = np.zeros_like(lam_min)
    else:
        beyond = lam_min >= q - base
        first = np.where(beyond, q, base + np.floor(lam_min)).astype(np.int64)
        first = np.clip(first, base, q)
        second = np.clip(first + 1, base, q)
        weight = np.where(beyond, 0.0, lam_min - np.floor(lam_min))
    s_min, t_min = s64[minify], t64[minify]
    combined = np.zeros(s_min.shape + (4,), dtype=np.float64)
    for level_index in np.union1d(np.unique(first), np.unique(second)):
        level = texture.levels[int(level_index)]
        uses_first = first == level_index
        uses_second = (second == level_index) & (weight > 0)
        needed = uses_first | uses_second
        values = np.zeros(s_min.shape + (4,), dtype=np.float64)
        values[needed] = _filter_level(level, s_min[needed], t_min[needed], texel_filter, state)
        combined += np.where(uses_first[:, None], (1.0 - weight)[:, None] * values, 0.0)
        combined += np.where(uses_second[:, None], weight[:, None] * values, 0.0)
    result[minify] = combined
    return result


def implicit_lod(texture: Texture2D, ds_dx: np.ndarray, dt_dx: np.ndarray, ds_dy: np.ndarray, dt_dy: np.ndarray) -> np.ndarray:
    """lambda = log2(rho) with rho the larger of the window-x and window-y texel-space scale factors (GL eq. 3.20)."""
    level = texture.levels[min(max(texture.sampler.base_level, 0), len(texture.levels) - 1)]
    height, width = level.shape[:2]
    rho_x = np.hypot(np.asarray(ds_dx, dtype=np.float64) * width, np.asarray(dt_dx, dtype=np.float64) * height)
    rho_y = np.hypot(np.asarray(ds_dy, dtype=np.float64) * width, np.asarray(dt_dy, dtype=np.float64) * height)
    with np.errstate(divide="ignore"):
        return np.log2(np.maximum(rho_x, rho_y))


#: Allowance for an implementation's texture-coordinate and weight arithmetic (fixed-point subtexel positions).
SUBTEXEL = 2.0**-8
#: Allowance for the filter arithmetic itself, absolute.
FILTER_ABSOLUTE = 2.0**-12


def needs_lod(texture: Texture2D) -> bool:
    """Whether the level of detail can change the result (spec 7.3.1: non-mipmapped sampling need not need it)."""
    state = texture.sampler
    if state.min_filter.uses_mipmaps and len(texture.levels) > 1 and texture.max_level_used > state.base_level:
        return True
    return state.min_filter.texel_filter is not state.mag_filter


def sample_radius(texture: Texture2D, s: np.ndarray, t: np.ndarray, lod: np.ndarray, lod_spread: np.ndarray,
                  coordinate_radius_s: np.ndarray, coordinate_radius_t: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Radius of a sample: coordinate uncertainty (slope bound, nearest filters jump), the LOD's
    uncertainty (samples at lod - spread and lod + spread), subtexel and filter arithmetic; (lanes, 4)."""
    slope_s, slope_t = texture.slopes()
    s64, t64 = np.asarray(s, dtype=np.float64), np.asarray(t, dtype=np.float64)
    # The implementation's own coordinate arithmetic: ulps of s and t at the texture's size.
    coordinate_s = coordinate_radius_s + np.spacing(np.abs(s64).astype(np.float32)).astype(np.float64)
    coordinate_t = coordinate_radius_t + np.spacing(np.abs(t64).astype(np.float32)).astype(np.float64)
    state = texture.sampler
    nearest = Filter.NEAREST in (state.min_filter.texel_filter, state.mag_filter)
    if nearest:
        # A nearest filter jumps between texels: any coordinate uncertainty may select another texel.
        spread = np.where((coordinate_s > 0) | (coordinate_t > 0), texture.value_range(), 0.0)[:, None]
    else:
        spread = (slope_s * (coordinate_s + SUBTEXEL / texture.width) + slope_t * (coordinate_t + SUBTEXEL / texture.height))[:, None]
    spread = np.broadcast_to(spread, center.shape).copy()
    with np.errstate(invalid="ignore"):
        moving = lod_spread > 0
    if np.any(moving):
        low = sample(texture, s, t, lod - lod_spread)
        high = sample(texture, s, t, lod + lod_spread)
        lod_term = np.maximum(np.abs(low - center), np.abs(high - center))
        spread = spread + np.where(moving[:, None], lod_term, 0.0)
    spread = spread + FILTER_ABSOLUTE
    return np.where(np.isfinite(lod_spread)[:, None], spread, np.inf)
