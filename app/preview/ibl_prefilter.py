"""Prefiltering an equirect environment for image-based lighting, in vectorised numpy.

Produces what `app.preview.ibl` defines (read it first for the conventions):
the GGX specular mip chain, the folded order-2 spherical-harmonic diffuse
coefficients and the split-sum BRDF table. Everything is deterministic (no
random numbers), so the same input gives the same bytes.

Specular: the split-sum approximation of Karis 2013 ("Real Shading in
Unreal Engine 4"), n = v = r, so each texel holds
sum L(l) D(h) (n.l) / sum D(h) (n.l). Instead of importance sampling this
integral (Karis's estimator), each level integrates it exactly over the
texels of a box-filtered source (twice the level's width): the weight
depends only on the two elevations and the azimuth difference, so for a
pair of rows it is one kernel along u, applied with an FFT. Exact
quadrature has no fireflies and no sampling pattern; measured against a
brute-force reference it is within 0.25% where filtered importance
sampling (Křivánek & Colbert 2008) was off by up to 27% next to a sun, and
3x faster in numpy (docs/lighting.md, benchmarks/bench_ibl.py).

Work is done in chunks of output rows; between chunks `check(fraction)` is
called, which reports progress and may raise to cancel (see
`app.preview.ibl_assets`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from app.preview import ibl

#: A specular level integrates the pyramid level twice its width, but never one narrower than this.
SOURCE_MIN_WIDTH = 256
#: Weight of the GGX lobe's tail left out of each texel's sum (it is renormalised over the rest).
LOBE_TAIL = 1e-3
#: Widest image the SH projection reads.
SH_SOURCE_WIDTH = 256
#: Roughness 0 would make the lobe a delta; level 0 is the base image itself, so this only guards division.
MIN_ALPHA = 1e-4
#: Samples per texel of the shipped BRDF table (computed once by tools/make_environments.py).
BRDF_LUT_SAMPLES = 16384
#: Kernel weights evaluated per chunk (memory: 8 bytes each, a few arrays of that size); progress is checked between chunks.
_CHUNK_WEIGHTS = 1 << 21

#: Called with the fraction of work done (0..1); may raise to stop the computation.
ProgressCheck = Callable[[float], None]


def _no_check(_fraction: float) -> None:
    return None


def hammersley(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The 2D Hammersley point set: (i / count, radical inverse base 2 of i), both in [0, 1)."""
    index = np.arange(count, dtype=np.uint32)
    bits = index.copy()
    bits = ((bits << 16) | (bits >> 16)) & 0xFFFFFFFF
    bits = ((bits & 0x55555555) << 1) | ((bits & 0xAAAAAAAA) >> 1)
    bits = ((bits & 0x33333333) << 2) | ((bits & 0xCCCCCCCC) >> 2)
    bits = ((bits & 0x0F0F0F0F) << 4) | ((bits & 0xF0F0F0F0) >> 4)
    bits = ((bits & 0x00FF00FF) << 8) | ((bits & 0xFF00FF00) >> 8)
    return index / count, bits.astype(np.float64) / 2.0**32


def ggx_half_vectors(alpha: float, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Half vectors in tangent space (count, 3), importance sampled from D(h) (n.h), and D at each."""
    first, second = hammersley(count)
    alpha_squared = alpha * alpha
    cos_theta_squared = (1.0 - first) / (1.0 + (alpha_squared - 1.0) * first)
    cos_theta = np.sqrt(cos_theta_squared)
    sin_theta = np.sqrt(np.maximum(1.0 - cos_theta_squared, 0.0))
    azimuth = 2.0 * np.pi * second
    half = np.stack([sin_theta * np.cos(azimuth), sin_theta * np.sin(azimuth), cos_theta], axis=-1)
    denominator = cos_theta_squared * (alpha_squared - 1.0) + 1.0
    distribution = alpha_squared / (np.pi * denominator * denominator)
    return half, distribution


# --- resampling -----------------------------------------------------------------------------------


def _area_resample_axis(image: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Box (area) resampling along one axis: each output texel averages the input over its extent."""
    count = image.shape[axis]
    if count == size:
        return image
    moved = np.moveaxis(image, axis, 0).astype(np.float64)
    cumulative = np.concatenate([np.zeros((1,) + moved.shape[1:]), np.cumsum(moved, axis=0)])
    edges = np.arange(size + 1) * (count / size)
    whole = np.floor(edges).astype(np.int64)
    part = (edges - whole)[(...,) + (None,) * (moved.ndim - 1)]
    upper = np.minimum(whole + 1, count)
    at_edges = cumulative[whole] + part * (cumulative[upper] - cumulative[whole])
    result = (at_edges[1:] - at_edges[:-1]) * (size / count)
    return np.moveaxis(result, 0, axis)


def area_resample(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """`image` (h, w, c) box-filtered to (height, width): the average of each output texel's footprint.

    Whole-number reductions (an 8192x4096 file to 1024x512) are block means
    accumulated in float64 without a float64 copy of the input, so a large
    file costs little more memory than its own pixels.
    """
    image = np.asarray(image)
    source_height, source_width = image.shape[:2]
    if source_height % height == 0 and source_width % width == 0 and (source_height > height or source_width > width):
        blocks = image.reshape(height, source_height // height, width, source_width // width, -1)
        return blocks.mean(axis=(1, 3), dtype=np.float64)
    return _area_resample_axis(_area_resample_axis(image, height, 0), width, 1)


def base_size(source_height: int, source_width: int) -> tuple[int, int]:
    """Size of specular level 0: the largest power-of-two width <= the source's, at most `ibl.BASE_WIDTH`."""
    width = 1 << int(np.floor(np.log2(max(source_width, 1))))
    width = min(width, ibl.BASE_WIDTH)
    return width // 2, width


def half_size(image: np.ndarray) -> np.ndarray:
    """The next mip level: 2x2 box average (sizes even, as the power-of-two chain guarantees)."""
    height, width = image.shape[:2]
    return image.reshape(height // 2, 2, width // 2, 2, -1).mean(axis=(1, 3))


def mip_pyramid(base: np.ndarray, smallest_width: int = 4) -> list[np.ndarray]:
    """Box-filtered levels of `base` down to `smallest_width` texels wide (the sources for filtered sampling)."""
    levels = [np.asarray(base, dtype=np.float64)]
    while levels[-1].shape[1] > smallest_width and levels[-1].shape[0] > 1:
        levels.append(half_size(levels[-1]))
    return levels


# --- specular -------------------------------------------------------------------------------------


def _source_for_level(pyramid: list[np.ndarray], width: int, minimum_width: int = SOURCE_MIN_WIDTH) -> np.ndarray:
    """The pyramid level an output of `width` integrates: twice its width, at least `minimum_width` (or the base)."""
    wanted = max(2 * width, minimum_width)
    for level in pyramid:
        if level.shape[1] <= wanted:
            return level
    return pyramid[-1]


def lobe_window(alpha: float, tail: float = LOBE_TAIL) -> float:
    """Angle from n (radians) outside which the GGX reflection lobe holds at most `tail` of its weight.

    The fraction of D(h) (n.h) beyond half-vector angle theta is
    alpha^2 / (alpha^2 + tan^2 theta); l = reflect(-n, h) is twice as far from n.
    """
    half_angle = np.arctan(alpha * np.sqrt(1.0 / tail - 1.0))
    return float(min(2.0 * half_angle, np.pi))


#: Weights of source texels for a chunk of output rows: (along, across, cos_azimuth) -> weights.
#: n.l = along[j, y] + across[j, y] cos_azimuth[m] for output row j, source row y, azimuth offset m.
KernelWeights = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def convolve_rows(
    source: np.ndarray, height: int, width: int, window: float, weigh: KernelWeights, check: ProgressCheck = _no_check
) -> np.ndarray:
    """A (height, width, channels) image whose texels are weighted averages of `source` around their direction.

    The value of the output texel in direction n is
    sum_l L(l) w(n, l) dOmega(l) / sum_l w(n, l) dOmega(l) over the source
    texel centres l, for a weight that depends on n.l only (`weigh`), zero
    farther than `window` radians from n. Such a weight depends on the two
    elevations and the azimuth difference only, so per output row and
    source row it is a kernel over the azimuth difference, applied to the
    source row by a circular cross-correlation (FFT along u); only the
    source rows within the window are visited. The output's width must
    divide the source's.
    """
    source = np.asarray(source, dtype=np.float64)
    source_height, source_width = source.shape[:2]
    ratio = source_width // width
    if ratio < 1 or ratio * width != source_width:
        raise ValueError(f"a {width} texel wide image cannot be integrated from a {source_width} texel wide source")
    source_elevation = ((np.arange(source_height) + 0.5) / source_height - 0.5) * np.pi
    output_elevation = ((np.arange(height) + 0.5) / height - 0.5) * np.pi
    solid_angle = ibl.texel_solid_angles(source_height, source_width)[:, 0]
    # Azimuth from output texel i (centre u = (i + 0.5) / width) to source texel i * ratio + m.
    azimuth_offset = 2.0 * np.pi * (np.arange(source_width) + 0.5 - ratio / 2.0) / source_width
    cos_azimuth = np.cos(azimuth_offset).astype(np.float32)
    source_spectrum = np.fft.rfft(source, axis=1)  # (source rows, frequencies, channels)
    result = np.empty((height, width, source.shape[2]))
    window_rows = min(source_height, int(np.ceil(2.0 * window / np.pi * source_height)) + 2)
    rows_per_chunk = max(1, _CHUNK_WEIGHTS // (source_width * window_rows))
    for start in range(0, height, rows_per_chunk):
        elevation = output_elevation[start : start + rows_per_chunk]
        first = int(np.searchsorted(source_elevation, elevation.min() - window))
        last = int(np.searchsorted(source_elevation, elevation.max() + window))
        rows = source_elevation[first:last]
        along = np.sin(elevation)[:, None] * np.sin(rows)[None, :]
        across = np.cos(elevation)[:, None] * np.cos(rows)[None, :]
        weights = weigh(along, across, cos_azimuth)
        weights *= solid_angle[first:last].astype(np.float32)[None, :, None]
        total_weight = weights.sum(axis=(1, 2), dtype=np.float64)
        kernel_spectrum = np.conj(np.fft.rfft(weights, axis=2))  # (output rows, source rows, frequencies)
        # Sum over source rows for every frequency: a batched matrix product, frequencies first.
        spectrum = np.matmul(kernel_spectrum.transpose(2, 0, 1), source_spectrum[first:last].transpose(1, 0, 2))
        correlation = np.fft.irfft(spectrum.transpose(1, 0, 2), n=source_width, axis=1)
        result[start : start + len(elevation)] = correlation[:, ::ratio] / total_weight[:, None, None]
        check((start + len(elevation)) / height)
    # The FFT leaves rounding noise around zero where the source is black.
    return np.maximum(result, 0.0)


def ggx_weights(alpha: float) -> KernelWeights:
    """D(h) max(n.l, 0) with n = v, as a function of n.l: (n.h)^2 = (1 + n.l) / 2 (the constant alpha^2 / pi left out)."""
    slope = 0.5 * (alpha * alpha - 1.0)

    def weigh(along: np.ndarray, across: np.ndarray, cos_azimuth: np.ndarray) -> np.ndarray:
        # The GGX denominator (n.h)^2 (alpha^2 - 1) + 1 is linear in n.l, so it is built like n.l.
        n_dot_l = (along[..., None] + across[..., None] * cos_azimuth).astype(np.float32)
        denominator = ((1.0 + slope) + slope * along)[..., None] + (slope * across)[..., None] * cos_azimuth
        weights = np.square(denominator, dtype=np.float32)
        np.reciprocal(weights, out=weights)
        np.maximum(n_dot_l, 0.0, out=n_dot_l)
        weights *= n_dot_l
        return weights

    return weigh


def cosine_weights(along: np.ndarray, across: np.ndarray, cos_azimuth: np.ndarray) -> np.ndarray:
    """max(n.l, 0): the Lambertian (irradiance) kernel."""
    n_dot_l = (along[..., None] + across[..., None] * cos_azimuth).astype(np.float32)
    return np.maximum(n_dot_l, 0.0, out=n_dot_l)


def prefilter_level(source: np.ndarray, height: int, width: int, roughness: float, check: ProgressCheck = _no_check) -> np.ndarray:
    """One specular level: at each texel centre n (n = v = r), the average of `source` weighted by D(h) max(n.l, 0)."""
    alpha = max(roughness * roughness, MIN_ALPHA)
    return convolve_rows(source, height, width, lobe_window(alpha), ggx_weights(alpha), check)


def specular_work(base_height: int, base_width: int, levels: int = ibl.SPECULAR_LEVELS) -> list[float]:
    """Relative cost of each specular level (kernel weights evaluated), for progress reporting."""
    pyramid_widths = [base_width >> k for k in range(levels + 8) if base_width >> k >= 2]
    roughnesses = ibl.level_roughnesses(levels)
    work = [0.0]
    for level in range(1, levels):
        width = base_width >> level
        wanted = max(2 * width, SOURCE_MIN_WIDTH)
        source_width = next((w for w in pyramid_widths if w <= wanted), pyramid_widths[-1])
        band = min(1.0, 2.0 * lobe_window(max(float(roughnesses[level]) ** 2, MIN_ALPHA)) / np.pi + 1.0 / (base_height >> level))
        work.append((base_height >> level) * source_width * (source_width / 2) * band)
    return work


def prefilter_specular(base: np.ndarray, levels: int = ibl.SPECULAR_LEVELS, check: ProgressCheck = _no_check) -> list[np.ndarray]:
    """The specular chain from the base level: level 0 is `base`, level k is prefiltered at `ibl.level_roughnesses()[k]`."""
    base = np.asarray(base, dtype=np.float64)
    height, width = base.shape[:2]
    if width >> (levels - 1) < 2 or height >> (levels - 1) < 1:
        raise ValueError(f"a {width}x{height} base is too small for {levels} levels")
    pyramid = mip_pyramid(base)
    roughnesses = ibl.level_roughnesses(levels)
    work = specular_work(height, width, levels)
    total = float(sum(work)) or 1.0
    chain = [base]
    done = 0.0
    for level in range(1, levels):

        def level_check(fraction: float, before: float = done, share: float = work[level]) -> None:
            check((before + fraction * share) / total)

        level_width = width >> level
        source = _source_for_level(pyramid, level_width)
        chain.append(prefilter_level(source, height >> level, level_width, float(roughnesses[level]), level_check))
        done += work[level]
    check(1.0)
    return chain


# --- diffuse --------------------------------------------------------------------------------------


def project_sh9(image: np.ndarray) -> np.ndarray:
    """Radiance projections L_i = sum over texels of L Y_i dOmega (9, channels), exact texel solid angles."""
    image = np.asarray(image, dtype=np.float64)
    height, width = image.shape[:2]
    weights = ibl.texel_solid_angles(height, width)  # (height, 1)
    basis = ibl.sh_basis(ibl.texel_directions(height, width))  # (height, width, 9)
    weighted = image * weights[..., None]  # (height, width, channels)
    return np.einsum("hwi,hwc->ic", basis, weighted)


def irradiance_map(base: np.ndarray, check: ProgressCheck = _no_check) -> np.ndarray:
    """The diffuse map (ibl.IRRADIANCE_HEIGHT, ibl.IRRADIANCE_WIDTH, channels): irradiance / pi at each texel centre.

    Integrated exactly over a box-filtered copy of `base` twice the map's
    width (the cosine lobe is wide and smooth), normalised by the summed
    weights, so a uniform environment gives exactly its radiance.
    """
    pyramid = mip_pyramid(base)
    source = _source_for_level(pyramid, ibl.IRRADIANCE_WIDTH, minimum_width=2 * ibl.IRRADIANCE_WIDTH)
    return convolve_rows(source, ibl.IRRADIANCE_HEIGHT, ibl.IRRADIANCE_WIDTH, np.pi / 2.0, cosine_weights, check)


def diffuse_sh(image: np.ndarray) -> np.ndarray:
    """Folded order-2 SH diffuse coefficients (9, channels) of an equirect image (see `ibl.sh_diffuse_radiance`).

    Projected from a box-filtered copy at most `SH_SOURCE_WIDTH` wide: order
    2 varies too slowly for more texels to matter (the integrals of the
    filtered copy are the image's).
    """
    image = np.asarray(image, dtype=np.float64)
    source = _source_for_level(mip_pyramid(image), SH_SOURCE_WIDTH // 2, minimum_width=SH_SOURCE_WIDTH) if image.shape[1] > SH_SOURCE_WIDTH else image
    return ibl.fold_sh_radiance(project_sh9(source))


# --- split-sum BRDF table -------------------------------------------------------------------------


def smith_ggx_correlated_visibility(n_dot_l: np.ndarray, n_dot_v: np.ndarray, alpha: np.ndarray | float) -> np.ndarray:
    """V = G / (4 n.l n.v), height-correlated Smith GGX (glTF 2.0 Appendix B)."""
    alpha_squared = alpha * alpha
    view_term = n_dot_l * np.sqrt(n_dot_v * n_dot_v * (1.0 - alpha_squared) + alpha_squared)
    light_term = n_dot_v * np.sqrt(n_dot_l * n_dot_l * (1.0 - alpha_squared) + alpha_squared)
    denominator = view_term + light_term
    return np.where(denominator > 0.0, 0.5 / np.where(denominator > 0.0, denominator, 1.0), 0.0)


def brdf_lut(
    size: int = ibl.BRDF_LUT_SIZE,
    sample_count: int = BRDF_LUT_SAMPLES,
    rows: Sequence[int] | None = None,
    check: ProgressCheck = _no_check,
) -> np.ndarray:
    """The split-sum table (size, size, 2): (A, B) at n.v = (i + 0.5) / size (column), roughness = (j + 0.5) / size (row).

    Integrates f (n.l) over l by importance sampling GGX half vectors
    (Hammersley points): with pdf(l) = D (n.h) / (4 v.h), each sample
    contributes V (n.l) 4 (v.h) / (n.h) times (1 - Fc) to A and Fc to B,
    Fc = (1 - v.h)^5. `rows` computes only those rows (in that order); the
    shipped table (`ibl_assets.load_brdf_lut`) is this with
    `BRDF_LUT_SAMPLES` samples, written by tools/make_environments.py.
    """
    n_dot_v = (np.arange(size) + 0.5) / size
    view = np.stack([np.sqrt(1.0 - n_dot_v * n_dot_v), np.zeros(size), n_dot_v], axis=-1)  # (size, 3), n = +z
    first, second = hammersley(sample_count)
    azimuth = 2.0 * np.pi * second
    wanted = list(range(size)) if rows is None else list(rows)
    table = np.empty((len(wanted), size, 2))
    for index, row in enumerate(wanted):
        roughness = (row + 0.5) / size
        alpha = roughness * roughness
        alpha_squared = alpha * alpha
        cos_theta = np.sqrt((1.0 - first) / (1.0 + (alpha_squared - 1.0) * first))
        sin_theta = np.sqrt(np.maximum(1.0 - cos_theta * cos_theta, 0.0))
        half = np.stack([sin_theta * np.cos(azimuth), sin_theta * np.sin(azimuth), cos_theta], axis=-1)  # (samples, 3)
        v_dot_h = view @ half.T  # (size, samples)
        light_z = 2.0 * v_dot_h * half[None, :, 2] - view[:, 2:3]
        n_dot_l = np.maximum(light_z, 0.0)
        n_dot_h = half[None, :, 2]
        v_dot_h_clamped = np.maximum(v_dot_h, 0.0)
        visibility = smith_ggx_correlated_visibility(n_dot_l, n_dot_v[:, None], alpha)
        weight = np.where(light_z > 0.0, visibility * n_dot_l * 4.0 * v_dot_h_clamped / n_dot_h, 0.0)
        fresnel = (1.0 - v_dot_h_clamped) ** 5
        table[index, :, 0] = np.mean(weight * (1.0 - fresnel), axis=1)
        table[index, :, 1] = np.mean(weight * fresnel, axis=1)
        check((index + 1) / len(wanted))
    return table
