"""Image-based lighting: the layout of its textures and numpy reference lookups.

This module is the single definition of how the preview's image-based
lighting (IBL) data is laid out, and evaluates it in numpy exactly as a
shader reading it with `sampler2D` + `texture_lod` would (GL's bilinear and
trilinear filtering, texel centres at (i + 0.5) / size). `docs/lighting.md`
describes the same conventions for shader authors; the renderer's tests
compare their GL output with the functions here. Nothing here imports Qt or
OpenGL.

Conventions (all arrays in *GL row order*: row 0 is texture coordinate t = 0,
so they are uploaded without flipping):

- World space is y-up; the default camera looks from +z towards -z.
- Equirectangular (latitude-longitude) images: for a unit direction
  d = (x, y, z), u = 0.5 + atan2(x, -z) / 2pi and t = 0.5 + asin(y) / pi.
  u = 0.5 is -z (behind the object, the middle of the panorama as it is
  seen in the background), u = 0.75 is +x; t = 1 is the zenith (+y), t = 0
  the nadir. u wraps (REPEAT), t is clamped (CLAMP_TO_EDGE).
- Environment rotation by an angle (radians, counter-clockwise about +y seen
  from above): the environment is looked up with the direction rotated by
  minus that angle (`environment_direction`). Intensity multiplies every
  environment term (specular, diffuse and background).
- Specular: a mip chain of `SPECULAR_LEVELS` equirect levels, each half the
  size of the previous; level k holds the environment prefiltered for GGX
  with perceptual roughness `roughness_for_lod(k)` (level 0 is the sharp
  environment). A shader reads roughness r at lod = (levels - 1) r (2 - r)
  (Filament's mapping: more levels where appearance changes fastest).
- Diffuse, two forms of irradiance / pi (the radiance a white Lambertian
  surface with normal n reflects):
  an `IRRADIANCE_WIDTH` x `IRRADIANCE_HEIGHT` equirect map, read at the
  normal's coordinates (exact: the preview's choice), and nine RGB
  spherical-harmonic coefficients (order 2, Ramamoorthi & Hanrahan 2001)
  with the cosine convolution, the 1/pi and the basis constants folded in:
  max(0, sum_i c_i P_i(n)) with P = (1, y, z, x, xy, yz, 3z^2 - 1, xz, x^2 - y^2),
  for hosts that want uniforms only (order 2 cannot follow a sun: see
  docs/lighting.md).
- Split-sum BRDF table (Karis 2013): a `BRDF_LUT_SIZE` square table, u =
  n.v and t = perceptual roughness, holding (A, B) with
  integral(f_spec (n.l) dl) = F0 A + F90 B for the glTF BRDF (GGX,
  alpha = roughness^2, height-correlated Smith visibility, Schlick Fresnel).
"""

from __future__ import annotations

import numpy as np

from app.material.scene import SAMPLING_HEIGHT, SAMPLING_WIDTH

#: Levels of the specular mip chain (level 0: sharp; last level: roughness 1).
SPECULAR_LEVELS = 6
#: Size of specular level 0 for sources at least this large.
BASE_WIDTH = 1024
BASE_HEIGHT = BASE_WIDTH // 2
#: Size of the diffuse (irradiance) map: bilinear reads are within 1% of the exact irradiance, except
#: within a few degrees of a sun's terminator (6% on the bundled outdoor environment).
IRRADIANCE_WIDTH = 128
IRRADIANCE_HEIGHT = IRRADIANCE_WIDTH // 2
#: Width and height of the split-sum BRDF table.
BRDF_LUT_SIZE = 128
#: Order-2 spherical harmonics: 9 coefficients (RGB each).
SH_COEFFICIENT_COUNT = 9
#: Largest finite IEEE half value; the specular chain is stored as float16.
HALF_MAX = 65504.0

#: Real SH basis constants in the order of `sh_polynomials` (l = 0, 1, 1, 1, 2, 2, 2, 2, 2).
SH_BASIS_CONSTANTS = np.array(
    [
        0.5 * np.sqrt(1.0 / np.pi),
        np.sqrt(3.0 / (4.0 * np.pi)),
        np.sqrt(3.0 / (4.0 * np.pi)),
        np.sqrt(3.0 / (4.0 * np.pi)),
        0.5 * np.sqrt(15.0 / np.pi),
        0.5 * np.sqrt(15.0 / np.pi),
        0.25 * np.sqrt(5.0 / np.pi),
        0.5 * np.sqrt(15.0 / np.pi),
        0.25 * np.sqrt(15.0 / np.pi),
    ]
)
#: Band of each coefficient, and the clamped-cosine convolution per band divided by pi
#: (A_0 = pi, A_1 = 2 pi / 3, A_2 = pi / 4; Ramamoorthi & Hanrahan 2001, eq. 8).
SH_BANDS = np.array([0, 1, 1, 1, 2, 2, 2, 2, 2])
SH_COSINE_OVER_PI = np.array([1.0, 2.0 / 3.0, 0.25])[SH_BANDS]


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    length = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(length > 0.0, length, 1.0)


def equirect_uv_from_direction(direction: np.ndarray) -> np.ndarray:
    """(u, t) texture coordinates of world directions (..., 3); they need not be unit length."""
    d = _unit(direction)
    u = 0.5 + np.arctan2(d[..., 0], -d[..., 2]) / (2.0 * np.pi)
    t = 0.5 + np.arcsin(np.clip(d[..., 1], -1.0, 1.0)) / np.pi
    return np.stack([u, t], axis=-1)


def direction_from_equirect_uv(uv: np.ndarray) -> np.ndarray:
    """Unit world directions (..., 3) of equirect texture coordinates (..., 2)."""
    uv = np.asarray(uv, dtype=np.float64)
    azimuth = (uv[..., 0] - 0.5) * 2.0 * np.pi
    elevation = (uv[..., 1] - 0.5) * np.pi
    return np.stack(
        [np.cos(elevation) * np.sin(azimuth), np.sin(elevation), -np.cos(elevation) * np.cos(azimuth)], axis=-1
    )


def texel_directions(height: int, width: int) -> np.ndarray:
    """Directions (height, width, 3) of the texel centres of an equirect image in GL row order."""
    t = (np.arange(height) + 0.5) / height
    u = (np.arange(width) + 0.5) / width
    uv = np.stack(np.meshgrid(u, t, indexing="xy"), axis=-1)
    return direction_from_equirect_uv(uv)


def texel_solid_angles(height: int, width: int) -> np.ndarray:
    """Exact solid angle (height, 1) of each texel of a row of an equirect image (all texels of a row are equal)."""
    edges = (np.arange(height + 1) / height - 0.5) * np.pi  # elevation of the row boundaries
    band = np.sin(edges[1:]) - np.sin(edges[:-1])
    return (band * (2.0 * np.pi / width))[:, None]


def rotate_about_y(direction: np.ndarray, angle: float) -> np.ndarray:
    """Directions rotated by `angle` radians about +y (counter-clockwise seen from above: +x towards -z)."""
    d = np.asarray(direction, dtype=np.float64)
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * d[..., 0] + s * d[..., 2], d[..., 1], -s * d[..., 0] + c * d[..., 2]], axis=-1)


def environment_direction(world_direction: np.ndarray, rotation: float) -> np.ndarray:
    """The direction to look the environment up with, for an environment rotated by `rotation` radians."""
    return rotate_about_y(world_direction, -rotation)


def lod_for_roughness(roughness: np.ndarray | float, levels: int = SPECULAR_LEVELS) -> np.ndarray:
    """The `texture_lod` level of detail that reads perceptual roughness r: (levels - 1) r (2 - r)."""
    r = np.clip(np.asarray(roughness, dtype=np.float64), 0.0, 1.0)
    return (levels - 1) * r * (2.0 - r)


def roughness_for_lod(lod: np.ndarray | float, levels: int = SPECULAR_LEVELS) -> np.ndarray:
    """The inverse of `lod_for_roughness`: the roughness level `lod` was prefiltered for."""
    fraction = np.clip(np.asarray(lod, dtype=np.float64) / (levels - 1), 0.0, 1.0)
    return 1.0 - np.sqrt(1.0 - fraction)


def level_roughnesses(levels: int = SPECULAR_LEVELS) -> np.ndarray:
    """Perceptual roughness of each level of the specular chain."""
    return roughness_for_lod(np.arange(levels, dtype=np.float64), levels)


def _linear_taps(coordinate: np.ndarray, size: int, wrap: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GL LINEAR filtering along one axis: the two texel indices and the weight of the second."""
    position = np.asarray(coordinate, dtype=np.float64) * size - 0.5
    first = np.floor(position)
    weight = position - first
    first = first.astype(np.int64)
    second = first + 1
    if wrap:
        return np.mod(first, size), np.mod(second, size), weight
    return np.clip(first, 0, size - 1), np.clip(second, 0, size - 1), weight


def sample_bilinear(image: np.ndarray, uv: np.ndarray, wrap_u: bool = True, wrap_v: bool = False) -> np.ndarray:
    """GL_LINEAR sampling of an image (height, width, channels) in GL row order at texture coordinates (..., 2).

    `wrap_u` / `wrap_v`: REPEAT when true, CLAMP_TO_EDGE when false (the
    equirect convention is REPEAT in u and CLAMP_TO_EDGE in t; the BRDF
    table clamps both).
    """
    image = np.asarray(image, dtype=np.float64)
    uv = np.asarray(uv, dtype=np.float64)
    height, width = image.shape[:2]
    x0, x1, fx = _linear_taps(uv[..., 0], width, wrap_u)
    y0, y1, fy = _linear_taps(uv[..., 1], height, wrap_v)
    fx = fx[..., None]
    fy = fy[..., None]
    bottom = image[y0, x0] * (1.0 - fx) + image[y0, x1] * fx
    top = image[y1, x0] * (1.0 - fx) + image[y1, x1] * fx
    return bottom * (1.0 - fy) + top * fy


def sample_trilinear(chain: list[np.ndarray] | tuple[np.ndarray, ...], uv: np.ndarray, lod: np.ndarray | float) -> np.ndarray:
    """`texture_lod` on a mip chain with LINEAR_MIPMAP_LINEAR, REPEAT in u and CLAMP_TO_EDGE in t.

    The level of detail is clamped to [0, len(chain) - 1], as GL clamps it
    to the texture's base and maximum level.
    """
    uv = np.asarray(uv, dtype=np.float64)
    lod = np.clip(np.broadcast_to(np.asarray(lod, dtype=np.float64), uv.shape[:-1]), 0.0, len(chain) - 1)
    lower = np.floor(lod).astype(np.int64)
    fraction = (lod - lower)[..., None]
    result = np.zeros(uv.shape[:-1] + (np.asarray(chain[0]).shape[2],))
    for level in range(len(chain)):
        below = lower == level
        above = (lower + 1 == level) & (fraction[..., 0] > 0.0)
        if not (below.any() or above.any()):
            continue
        value = sample_bilinear(chain[level], uv)
        result += np.where(below[..., None], value * (1.0 - fraction), 0.0)
        result += np.where(above[..., None], value * fraction, 0.0)
    return result


def lobe_direction(normal: np.ndarray, view: np.ndarray, roughness: np.ndarray | float) -> np.ndarray:
    """Where the chain is read for a GGX lobe (..., 3): Frostbite's dominant direction, reflect(-V, N) bent
    towards N, normalize(mix(N, R, (1 - alpha)(sqrt(1 - alpha) + alpha))), alpha = roughness^2 (the shaders'
    `pbr_functions.lobe_direction`)."""
    normal = np.asarray(normal, dtype=np.float64)
    view = np.asarray(view, dtype=np.float64)
    reflected = 2.0 * np.sum(normal * view, axis=-1, keepdims=True) * normal - view
    alpha = np.asarray(roughness, dtype=np.float64) ** 2
    factor = (1.0 - alpha) * (np.sqrt(np.maximum(1.0 - alpha, 0.0)) + alpha)
    factor = factor[..., None] if factor.ndim else factor
    return _unit(normal + (reflected - normal) * factor)


def prefiltered_radiance(
    chain: list[np.ndarray] | tuple[np.ndarray, ...],
    direction: np.ndarray,
    roughness: np.ndarray | float,
    rotation: float = 0.0,
    intensity: float = 1.0,
) -> np.ndarray:
    """The specular chain read in world direction `direction` (the reflection vector) at `roughness`."""
    uv = equirect_uv_from_direction(environment_direction(direction, rotation))
    return intensity * sample_trilinear(chain, uv, lod_for_roughness(roughness, len(chain)))


def background_radiance(image: np.ndarray, direction: np.ndarray, rotation: float = 0.0, intensity: float = 1.0) -> np.ndarray:
    """The environment seen in world direction `direction` (one equirect image, bilinear)."""
    uv = equirect_uv_from_direction(environment_direction(direction, rotation))
    return intensity * sample_bilinear(image, uv)


def diffuse_radiance(
    irradiance_map: np.ndarray, normal: np.ndarray, rotation: float = 0.0, intensity: float = 1.0
) -> np.ndarray:
    """Radiance (..., 3) a white Lambertian surface with world normal `normal` reflects, from the irradiance map.

    The map holds irradiance / pi per direction (equirect, bilinear, level 0).
    """
    return background_radiance(irradiance_map, normal, rotation, intensity)


def sh_polynomials(direction: np.ndarray) -> np.ndarray:
    """The nine polynomial terms P_i(n) (..., 9) the folded coefficients multiply."""
    d = _unit(direction)
    x, y, z = d[..., 0], d[..., 1], d[..., 2]
    return np.stack([np.ones_like(x), y, z, x, x * y, y * z, 3.0 * z * z - 1.0, x * z, x * x - y * y], axis=-1)


def sh_basis(direction: np.ndarray) -> np.ndarray:
    """The nine real spherical-harmonic basis functions Y_i(n) (..., 9), orthonormal over the sphere."""
    return sh_polynomials(direction) * SH_BASIS_CONSTANTS


def fold_sh_radiance(radiance_coefficients: np.ndarray) -> np.ndarray:
    """Folded diffuse coefficients (9, 3) from radiance projections L_i = integral L Y_i (9, 3)."""
    factors = SH_COSINE_OVER_PI * SH_BASIS_CONSTANTS
    return np.asarray(radiance_coefficients, dtype=np.float64) * factors[:, None]


def sh_diffuse_radiance(
    coefficients: np.ndarray, normal: np.ndarray, rotation: float = 0.0, intensity: float = 1.0
) -> np.ndarray:
    """Radiance (..., 3) a white Lambertian surface with world normal `normal` reflects: irradiance / pi.

    Clamped at zero: an order-2 expansion of a bright, small source (a sun)
    rings slightly negative on the far side.
    """
    terms = sh_polynomials(environment_direction(normal, rotation))
    return intensity * np.maximum(terms @ np.asarray(coefficients, dtype=np.float64), 0.0)


def brdf_lut_lookup(lut: np.ndarray, n_dot_v: np.ndarray | float, roughness: np.ndarray | float) -> np.ndarray:
    """(A, B) (..., 2) from the split-sum table at (n.v, roughness), bilinear with CLAMP_TO_EDGE."""
    n_dot_v = np.asarray(n_dot_v, dtype=np.float64)
    roughness = np.asarray(roughness, dtype=np.float64)
    uv = np.stack(np.broadcast_arrays(n_dot_v, roughness), axis=-1)
    return sample_bilinear(lut, uv, wrap_u=False, wrap_v=False)


def specular_albedo(lut: np.ndarray, f0: np.ndarray, n_dot_v: np.ndarray | float, roughness: np.ndarray | float) -> np.ndarray:
    """F0 A + B: the single-scattering split-sum factor the prefiltered radiance is multiplied by (F90 = 1)."""
    scale_bias = brdf_lut_lookup(lut, n_dot_v, roughness)
    return np.asarray(f0, dtype=np.float64) * scale_bias[..., 0:1] + scale_bias[..., 1:2]


def multiple_scattering_ibl(
    lut: np.ndarray,
    f0: np.ndarray,
    diffuse_color: np.ndarray,
    n_dot_v: np.ndarray | float,
    roughness: np.ndarray | float,
    prefiltered: np.ndarray,
    irradiance_over_pi: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Specular and diffuse IBL radiance with the multiple-scattering compensation of Fdez-Agüera 2019.

    From "A Multiple-Scattering Microfacet Model for Real-Time Image-based
    Lighting" (JCGT 8(1), 2019), section 5, with the split-sum table's
    (A, B) and F90 = 1:

        E_ss   = A + B                      (single-scattering directional albedo, F = 1)
        FssEss = F0 A + B
        E_ms   = 1 - E_ss
        F_avg  = F0 + (1 - F0) / 21
        Fms    = FssEss F_avg / (1 - E_ms F_avg)
        specular = FssEss * prefiltered + Fms E_ms * irradiance_over_pi
        diffuse  = diffuse_color (1 - FssEss - Fms E_ms) * irradiance_over_pi

    `irradiance_over_pi` is what `sh_diffuse_radiance` returns. For F0 = 1 in
    a uniform environment of radiance 1, specular is exactly 1 at every
    roughness (the white furnace), where the single-scattering F0 A + B loses
    energy at high roughness.
    """
    scale_bias = brdf_lut_lookup(lut, n_dot_v, roughness)
    a, b = scale_bias[..., 0:1], scale_bias[..., 1:2]
    f0 = np.asarray(f0, dtype=np.float64)
    single = f0 * a + b
    single_albedo = a + b
    multiple_albedo = 1.0 - single_albedo
    average_fresnel = f0 + (1.0 - f0) / 21.0
    multiple_fresnel = single * average_fresnel / (1.0 - multiple_albedo * average_fresnel)
    specular = single * prefiltered + multiple_fresnel * multiple_albedo * irradiance_over_pi
    diffuse = np.asarray(diffuse_color, dtype=np.float64) * (1.0 - single - multiple_fresnel * multiple_albedo) * irradiance_over_pi
    return specular, diffuse


#: Luminance weights (linear sRGB, Rec. 709) of the sampling distribution.
LUMINANCE = np.array([0.2126, 0.7152, 0.0722])


def _alias_table(probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table (Vose's construction) of a discrete distribution: (threshold, alias) per cell.

    Cell i is drawn by picking i uniformly and keeping it when a second
    uniform number is below threshold[i], else taking alias[i]: each cell
    then comes out with exactly its probability.
    """
    count = len(probabilities)
    scaled = np.asarray(probabilities, dtype=np.float64) * count
    threshold = np.ones(count)
    alias = np.arange(count, dtype=np.float64)
    small = [i for i in range(count) if scaled[i] < 1.0]
    large = [i for i in range(count) if scaled[i] >= 1.0]
    while small and large:
        low, high = small.pop(), large.pop()
        threshold[low], alias[low] = scaled[low], float(high)
        scaled[high] -= 1.0 - scaled[low]
        (small if scaled[high] < 1.0 else large).append(high)
    return threshold, alias


def sampling_luminance(level0: np.ndarray) -> np.ndarray:
    """Per texel of `level0`, the largest luminance (clamped at 0) of it and its eight neighbours (wrapping in u,
    clamped in t): what `environment_sampling` averages into cells.

    The shader reads level 0 bilinearly, so a bright texel (the sun's) lights
    half a texel of the next cell too; with that cell's own mean its density
    there would be far too small for the radiance, and the lobe's samples
    that land in that strip are fireflies. The largest neighbour bounds any
    bilinear read inside the texel.
    """
    luminance = np.maximum(np.asarray(level0, dtype=np.float64)[..., :3] @ LUMINANCE, 0.0)
    padded = np.pad(luminance, ((1, 1), (0, 0)), mode="edge")
    padded = np.concatenate([padded[:, -1:], padded, padded[:, :1]], axis=1)
    height, width = luminance.shape
    return np.max([padded[i:i + height, j:j + width] for i in range(3) for j in range(3)], axis=0)


def environment_sampling(level0: np.ndarray) -> np.ndarray:
    """The environment's sampling distribution as the `environment_sampling` texture: (H + 1, W, 4) float32.

    The luminance of `level0` (the specular chain's level 0, GL row order),
    each texel's the largest of its neighbourhood (`sampling_luminance`), is
    averaged into `SAMPLING_WIDTH` x `SAMPLING_HEIGHT` cells (a smaller image
    is repeated into them: the shader's grid is fixed), and each cell drawn with probability proportional to
    that luminance times its solid angle: a row by the marginal distribution,
    then a column by that row's conditional distribution, each through an
    alias table (`_alias_table`: constant time in a shader, no search).
    Rows 0..H-1 (GL row order, row 0 at the nadir) hold, per cell, the
    conditional threshold and alias column (R, G) and the density of
    directions in the cell per steradian (B: the cell's probability over its
    solid angle; a direction is drawn uniformly in solid angle inside the
    cell). Row H holds the marginal threshold and alias row of row i in texel i
    (R, G). An all-black environment is sampled uniformly in solid angle.
    """
    luminance = sampling_luminance(level0)
    height, width = luminance.shape
    cells_w, cells_h = SAMPLING_WIDTH, SAMPLING_HEIGHT
    if width % cells_w == 0 and height % cells_h == 0:
        cells = luminance.reshape(cells_h, height // cells_h, cells_w, width // cells_w).mean(axis=(1, 3))
    else:
        rows = ((np.arange(cells_h) + 0.5) * height / cells_h).astype(int)
        columns = ((np.arange(cells_w) + 0.5) * width / cells_w).astype(int)
        cells = luminance[rows][:, columns]
    solid_angles = texel_solid_angles(cells_h, cells_w)
    weights = cells * solid_angles
    if not np.isfinite(weights).all() or weights.sum() <= 0.0:
        weights = np.broadcast_to(solid_angles, (cells_h, cells_w)).copy()
    probabilities = weights / weights.sum()
    table = np.zeros((cells_h + 1, cells_w, 4), dtype=np.float64)
    row_probabilities = probabilities.sum(axis=1)
    for row in range(cells_h):
        conditional = probabilities[row] / row_probabilities[row] if row_probabilities[row] > 0.0 else np.full(cells_w, 1.0 / cells_w)
        table[row, :, 0], table[row, :, 1] = _alias_table(conditional)
    table[:cells_h, :, 2] = probabilities / solid_angles
    table[cells_h, :cells_h, 0], table[cells_h, :cells_h, 1] = _alias_table(row_probabilities)
    return table.astype(np.float32)


def sample_environment(table: np.ndarray, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Directions (n, 3) drawn from an `environment_sampling` table with uniform numbers xi (n, 4), and their
    density per steradian, as the refined environment light draws them (environment frame: unrotated).

    xi[:, 0] picks the row (its whole part a candidate, its fraction the alias test), xi[:, 1] the column
    likewise; xi[:, 2] and xi[:, 3] place the direction uniformly in the cell's solid angle (u, then the sine
    of the elevation).
    """
    cells_h, cells_w = table.shape[0] - 1, table.shape[1]
    scaled = xi[:, 0] * cells_h
    candidate = np.minimum(np.floor(scaled), cells_h - 1).astype(int)
    marginal = table[cells_h, candidate]
    row = np.where(scaled - candidate < marginal[:, 0], candidate, marginal[:, 1]).astype(int)
    scaled = xi[:, 1] * cells_w
    candidate = np.minimum(np.floor(scaled), cells_w - 1).astype(int)
    conditional = table[row, candidate]
    column = np.where(scaled - candidate < conditional[:, 0], candidate, conditional[:, 1]).astype(int)
    u = (column + xi[:, 2]) / cells_w
    low, high = np.sin((row / cells_h - 0.5) * np.pi), np.sin(((row + 1) / cells_h - 0.5) * np.pi)
    sine = low + (high - low) * xi[:, 3]
    cosine = np.sqrt(np.maximum(1.0 - sine * sine, 0.0))
    azimuth = (u - 0.5) * 2.0 * np.pi
    directions = np.stack([cosine * np.sin(azimuth), sine, -cosine * np.cos(azimuth)], axis=-1)
    return directions, table[row, column, 2].astype(np.float64)
