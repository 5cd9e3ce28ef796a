"""Prefiltered IBL data against independent numpy references written from the formulas.

- Specular levels against (a) a brute-force sum over every texel of the
  full-resolution environment and (b) a Monte Carlo estimate with random
  directions, of the split-sum prefiltered radiance
  integral L(l) D(h) (n.l) dl / integral D(h) (n.l) dl with n = v = r.
- The irradiance map and the SH coefficients against a brute-force
  cosine-weighted sum.
- The shipped split-sum table against a deterministic quadrature over half
  vectors (not importance sampling), and the white furnace.

Stated tolerances (what docs/lighting.md reports): specular levels within
1% of the brute-force reference at texel centres (relative to the largest
channel), 3% of the Monte Carlo one; irradiance map within 1% (6% next to
the bundled sun's terminator); SH exact for band-limited light; table
within 3e-3.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from ibl_reference import brute_force_prefiltered, texel_grid

from app.preview import ibl, ibl_prefilter
from app.preview.environment import load_named_environment
from app.preview.ibl_assets import load_brdf_lut

LUMINANCE = np.array([0.2126, 0.7152, 0.0722])


def feature_environment(height: int) -> np.ndarray:
    """Sky gradient, azimuthal ripples, a small very bright disc, two larger patches, a dark floor."""
    directions = ibl.texel_directions(height, 2 * height)
    image = 0.1 + 0.4 * np.clip(directions[..., 1:2], 0.0, 1.0) * np.array([0.6, 0.8, 1.0])
    image = image + 0.05 * np.sin(5.0 * np.arctan2(directions[..., 0:1], -directions[..., 2:3])) + 0.05
    for centre, color, radius_degrees in (
        ((0.5, 0.6, 0.62), (300.0, 250.0, 200.0), 3.0),
        ((-0.7, 0.1, 0.7), (2.0, 4.0, 6.0), 17.0),
        ((0.0, -0.3, -1.0), (3.0, 1.0, 0.5), 28.0),
    ):
        axis = np.asarray(centre) / np.linalg.norm(centre)
        inside = directions @ axis > np.cos(np.radians(radius_degrees))
        image = image + np.asarray(color) * inside[..., None]
    return image


def monte_carlo_prefiltered(image: np.ndarray, normal: np.ndarray, roughness: float, rng: np.random.Generator, strata: int) -> np.ndarray:
    """The same integral estimated from random directions, one in each of strata x 2 strata equal-area cells (bilinear radiance)."""
    cells_z, cells_phi = np.meshgrid(np.arange(strata), np.arange(2 * strata), indexing="ij")
    z = -1.0 + 2.0 * (cells_z + rng.random(cells_z.shape)) / strata
    phi = 2.0 * np.pi * (cells_phi + rng.random(cells_phi.shape)) / (2 * strata)
    ring = np.sqrt(1.0 - z * z)
    directions = np.stack([ring * np.cos(phi), z, ring * np.sin(phi)], axis=-1).reshape(-1, 3)
    alpha = roughness * roughness
    half = directions + normal
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    n_dot_h = half @ normal
    weights = alpha**2 / (np.pi * (n_dot_h**2 * (alpha**2 - 1.0) + 1.0) ** 2) * np.maximum(directions @ normal, 0.0)
    radiance = ibl.sample_bilinear(image, ibl.equirect_uv_from_direction(directions))
    return (radiance * weights[:, None]).sum(axis=0) / weights.sum()


def brute_force_irradiance_over_pi(image: np.ndarray, normal: np.ndarray) -> np.ndarray:
    directions, solid_angles = texel_grid(*image.shape[:2])
    weights = np.maximum(directions @ normal, 0.0) * solid_angles
    return (image.reshape(-1, image.shape[2]) * weights[:, None]).sum(axis=0) / np.pi


@pytest.fixture(scope="module")
def feature_chain() -> tuple[np.ndarray, list[np.ndarray]]:
    image = feature_environment(128)
    return image, ibl_prefilter.prefilter_specular(image)


def _relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(got - expected).max() / np.abs(expected).max())


@pytest.mark.parametrize("level", range(1, ibl.SPECULAR_LEVELS))
def test_specular_levels_match_the_brute_force_integral_at_texel_centres(feature_chain, level: int) -> None:
    image, chain = feature_chain
    data = chain[level]
    height, width = data.shape[:2]
    directions = ibl.texel_directions(height, width)
    roughness = float(ibl.level_roughnesses()[level])
    rng = np.random.default_rng(level)
    # Random texels, plus the texel nearest the bright disc and one at each pole row.
    disc = np.array([0.5, 0.6, 0.62]) / np.linalg.norm([0.5, 0.6, 0.62])
    picks = [tuple(rng.integers((height, width))) for _ in range(10)]
    picks.append(np.unravel_index(np.argmax(directions @ disc), (height, width)))
    picks += [(0, int(rng.integers(width))), (height - 1, int(rng.integers(width)))]
    for row, column in picks:
        expected = brute_force_prefiltered(image, directions[row, column], roughness)
        assert _relative_error(data[row, column], expected) < 0.01, (row, column, data[row, column], expected)


@pytest.fixture(scope="module")
def large_feature_chain() -> tuple[np.ndarray, list[np.ndarray]]:
    image = feature_environment(256)
    return image, ibl_prefilter.prefilter_specular(image)


#: Monte Carlo estimates of a million directions each: the fast tier checks one level (tests/conftest.py, `heavy`).
@pytest.mark.parametrize("level", (pytest.param(2, marks=pytest.mark.heavy), 3, pytest.param(5, marks=pytest.mark.heavy)))
def test_specular_lookups_match_a_monte_carlo_reference_in_random_directions(large_feature_chain, level: int) -> None:
    """Through the documented lookup (bilinear between texel centres, lod from roughness), not texel centres."""
    image, chain = large_feature_chain
    roughness = float(ibl.level_roughnesses()[level])
    rng = np.random.default_rng(100 + level)
    for _ in range(4):
        reflection = rng.normal(size=3)
        reflection /= np.linalg.norm(reflection)
        expected = monte_carlo_prefiltered(image, reflection, roughness, rng, 700)
        got = ibl.prefiltered_radiance(chain, reflection, roughness)
        assert np.abs(got @ LUMINANCE - expected @ LUMINANCE) / (expected @ LUMINANCE) < 0.03, (reflection, got, expected)


def test_the_bundled_outdoor_sun_at_full_size_matches_the_brute_force_integral() -> None:
    """The product's path: a 1024x512 base whose rough levels integrate box-filtered copies; a 30000-radiance sun."""
    image = load_named_environment("outdoor").radiance.astype(np.float64)
    height, width = ibl_prefilter.base_size(*image.shape[:2])
    base = ibl_prefilter.area_resample(image, height, width)
    chain = ibl_prefilter.prefilter_specular(base)
    sun = np.unravel_index(np.argmax(image @ LUMINANCE), image.shape[:2])
    sun_direction = ibl.texel_directions(*image.shape[:2])[sun]
    worst = 0.0
    for level in range(1, ibl.SPECULAR_LEVELS):
        data = chain[level]
        directions = ibl.texel_directions(*data.shape[:2])
        cosines = directions @ sun_direction
        roughness = float(ibl.level_roughnesses()[level])
        # Texels at 0, 10, 30, 60 and 120 degrees from the sun.
        for degrees in (0, 10, 30, 60, 120):
            row, column = np.unravel_index(np.argmin(np.abs(cosines - np.cos(np.radians(degrees)))), cosines.shape)
            expected = brute_force_prefiltered(image, directions[row, column], roughness)
            error = abs(data[row, column] @ LUMINANCE - expected @ LUMINANCE) / (expected @ LUMINANCE)
            worst = max(worst, error)
    assert worst < 0.01, worst


def test_a_uniform_environment_stays_uniform_at_every_level() -> None:
    image = np.full((64, 128, 3), 0.75)
    chain = ibl_prefilter.prefilter_specular(image)
    for data in chain:
        assert np.allclose(data, 0.75, rtol=1e-5)
    assert np.allclose(ibl_prefilter.irradiance_map(image), 0.75, rtol=1e-5)
    coefficients = ibl_prefilter.diffuse_sh(image)
    # Order-2 terms integrate to zero only up to the midpoint rule's error over the rows.
    assert np.allclose(coefficients[0], 0.75, rtol=1e-6) and np.allclose(coefficients[1:], 0.0, atol=2e-4)


def test_prefiltering_is_deterministic() -> None:
    image = feature_environment(64)
    first = ibl_prefilter.prefilter_specular(image)
    second = ibl_prefilter.prefilter_specular(image.copy())
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


def test_progress_rises_to_one_and_a_raising_check_stops_the_work() -> None:
    image = feature_environment(64)
    seen: list[float] = []
    ibl_prefilter.prefilter_specular(image, check=seen.append)
    assert seen[-1] == 1.0 and all(b >= a for a, b in itertools.pairwise(seen)) and len(seen) >= ibl.SPECULAR_LEVELS

    class StopError(Exception):
        pass

    def stop_half_way(fraction: float) -> None:
        if fraction > 0.5:
            raise StopError

    with pytest.raises(StopError):
        ibl_prefilter.prefilter_specular(image, check=stop_half_way)


# --- diffuse --------------------------------------------------------------------------------------


def test_sh_irradiance_is_exact_for_band_limited_light() -> None:
    """Light that is itself an order-2 polynomial of the direction: SH loses nothing, only quadrature error remains."""
    height = 128
    directions = ibl.texel_directions(height, 2 * height)
    x, y, z = directions[..., 0], directions[..., 1], directions[..., 2]
    channel = 1.0 + 0.5 * y + 0.3 * x - 0.2 * z + 0.4 * x * y - 0.25 * (3 * z * z - 1) + 0.3 * (x * x - y * y)
    image = np.stack([channel, 0.5 * channel + 0.2, np.full_like(channel, 0.3)], axis=-1)
    coefficients = ibl_prefilter.diffuse_sh(image)
    rng = np.random.default_rng(4)
    normals = rng.normal(size=(40, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    expected = np.array([brute_force_irradiance_over_pi(image, normal) for normal in normals])
    assert np.allclose(ibl.sh_diffuse_radiance(coefficients, normals), expected, rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize(("name", "map_tolerance", "sh_tolerance"), [("neutral", 0.01, 0.01), ("studio", 0.01, 0.12), ("outdoor", 0.06, 0.3)])
def test_irradiance_map_and_sh_against_brute_force_on_the_bundled_environments(name: str, map_tolerance: float, sh_tolerance: float) -> None:
    """Irradiance map: relative error per normal. SH: error relative to the mean irradiance (order 2 cannot follow a sun)."""
    image = load_named_environment(name).radiance.astype(np.float64)
    irradiance = ibl_prefilter.irradiance_map(image)
    coefficients = ibl_prefilter.diffuse_sh(image)
    rng = np.random.default_rng(9)
    normals = rng.normal(size=(30, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    expected = np.array([brute_force_irradiance_over_pi(image, normal) for normal in normals]) @ LUMINANCE
    from_map = ibl.diffuse_radiance(irradiance, normals) @ LUMINANCE
    from_sh = ibl.sh_diffuse_radiance(coefficients, normals) @ LUMINANCE
    assert np.max(np.abs(from_map - expected) / expected) < map_tolerance
    assert np.max(np.abs(from_sh - expected)) / expected.mean() < sh_tolerance


# --- the split-sum table --------------------------------------------------------------------------


def quadrature_scale_bias(n_dot_v: float, roughness: float, polar_steps: int = 3000, azimuth_steps: int = 720) -> tuple[float, float]:
    """(A, B) by a midpoint rule over half vectors: theta_h = (pi / 2) s^2 crowds points where GGX peaks.

    integral f (n.l) dl = integral D V F (n.l) 4 (v.h) sin(theta_h) dtheta_h dphi_h over n.l > 0, v.h > 0
    (dl = 4 (v.h) dh), with V the height-correlated Smith term of glTF 2.0 Appendix B.
    """
    alpha = roughness * roughness
    alpha_squared = alpha * alpha
    s = (np.arange(polar_steps) + 0.5) / polar_steps
    theta = 0.5 * np.pi * s * s
    theta_step = np.pi * s / polar_steps
    phi = (np.arange(azimuth_steps) + 0.5) / azimuth_steps * 2.0 * np.pi
    theta_grid, phi_grid = np.meshgrid(theta, phi, indexing="ij")
    half = np.stack([np.sin(theta_grid) * np.cos(phi_grid), np.sin(theta_grid) * np.sin(phi_grid), np.cos(theta_grid)], axis=-1)
    view = np.array([np.sqrt(1.0 - n_dot_v * n_dot_v), 0.0, n_dot_v])
    v_dot_h = half @ view
    n_dot_l = 2.0 * v_dot_h * half[..., 2] - n_dot_v
    n_dot_h = half[..., 2]
    distribution = alpha_squared / (np.pi * (n_dot_h**2 * (alpha_squared - 1.0) + 1.0) ** 2)
    visibility = 0.5 / (
        n_dot_l * np.sqrt(n_dot_v**2 * (1.0 - alpha_squared) + alpha_squared)
        + n_dot_v * np.sqrt(np.maximum(n_dot_l, 0.0) ** 2 * (1.0 - alpha_squared) + alpha_squared)
    )
    valid = (n_dot_l > 0.0) & (v_dot_h > 0.0)
    integrand = np.where(valid, distribution * visibility * n_dot_l * 4.0 * v_dot_h, 0.0)
    integrand = integrand * np.sin(theta_grid) * theta_step[:, None] * (2.0 * np.pi / azimuth_steps)
    schlick = (1.0 - np.clip(v_dot_h, 0.0, 1.0)) ** 5
    return float((integrand * (1.0 - schlick)).sum()), float((integrand * schlick).sum())


#: Table entries checked (n.v column, roughness row). Each quadrature sums two million half vectors: the fast tier
#: checks the corners of the table and a smooth mid entry, the full tier every entry listed (tests/conftest.py, `heavy`).
BRDF_TABLE_ENTRIES = [(0, 127), (64, 6), (127, 0), (3, 3)]
BRDF_TABLE_ENTRIES_FULL_TIER = [(12, 38), (115, 64), (64, 127), (38, 102), (90, 90)]


@pytest.mark.parametrize(("column", "row"), BRDF_TABLE_ENTRIES + [pytest.param(*entry, marks=pytest.mark.heavy) for entry in BRDF_TABLE_ENTRIES_FULL_TIER])
def test_shipped_brdf_table_matches_a_deterministic_quadrature(column: int, row: int) -> None:
    table = load_brdf_lut()
    size = ibl.BRDF_LUT_SIZE
    expected = quadrature_scale_bias((column + 0.5) / size, (row + 0.5) / size)
    assert np.allclose(table[row, column], expected, atol=3e-3), (table[row, column], expected)


def test_shipped_brdf_table_is_what_the_generator_computes() -> None:
    """Two rows recomputed: the file is current with ibl_prefilter.brdf_lut (tools/make_environments.py)."""
    table = load_brdf_lut()
    rows = [5, 100]
    assert np.array_equal(table[rows], ibl_prefilter.brdf_lut(rows=rows).astype(np.float32))


def test_white_furnace_of_the_table_single_scattering_loses_energy_and_the_compensation_restores_it() -> None:
    """F0 = 1 in a uniform environment of radiance 1: the split sum gives E_ss = A + B <= 1.

    The loss grows with roughness (docs/lighting.md lists it); with the
    multiple-scattering term of Fdez-Agüera 2019 the result is 1.
    """
    table = load_brdf_lut().astype(np.float64)
    single = table.sum(axis=-1)
    assert np.all(single <= 1.0 + 2e-3)
    smooth = single[0]
    assert np.all(smooth > 0.99)  # roughness 0.004: no loss
    rough = single[-1]
    assert 0.3 < rough[64] < 0.5  # roughness 1, n.v = 0.5: about 55% lost
    n_dot_v = (np.arange(8) + 0.5) / 8
    for roughness in np.linspace(0.0, 1.0, 11):
        specular, _ = ibl.multiple_scattering_ibl(table, np.ones(3), np.zeros(3), n_dot_v[:, None], roughness, np.ones(3), np.ones(3))
        assert np.allclose(specular, 1.0, atol=1e-6)


# --- resampling -----------------------------------------------------------------------------------


def test_area_resampling_keeps_the_mean_and_the_power_of_two_base() -> None:
    rng = np.random.default_rng(0)
    image = rng.uniform(0.0, 10.0, size=(300, 600, 3))
    for height, width in ((128, 256), (256, 512), (512, 1024)):
        resampled = ibl_prefilter.area_resample(image, height, width)
        assert resampled.shape == (height, width, 3)
        assert np.allclose(resampled.mean(axis=(0, 1)), image.mean(axis=(0, 1)), rtol=1e-9)
    assert ibl_prefilter.base_size(300, 600) == (256, 512)
    assert ibl_prefilter.base_size(2048, 4096) == (512, 1024)
    assert ibl_prefilter.base_size(32, 64) == (32, 64)


def _cells_of(directions: np.ndarray, height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of the sampling cell each unrotated direction falls in (row 0 at the nadir)."""
    u = 0.5 + np.arctan2(directions[:, 0], -directions[:, 2]) / (2.0 * np.pi)
    t = 0.5 + np.arcsin(np.clip(directions[:, 1], -1.0, 1.0)) / np.pi
    return np.minimum((t * height).astype(int), height - 1), np.minimum((u * width).astype(int), width - 1)


def test_environment_sampling_draws_cells_in_proportion_to_their_luminance() -> None:
    """The refined light's sampling table: densities integrate to 1 over the sphere, follow luminance, and the
    alias tables draw each cell with its probability (a histogram of 400,000 draws)."""
    rng = np.random.default_rng(3)
    image = np.tile(np.linspace(0.1, 1.0, 256)[None, :, None], (128, 1, 3)).astype(np.float32)
    image[90:93, 40:43] = (2000.0, 1500.0, 1000.0)  # a sun two texels wide
    table = ibl.environment_sampling(image)
    height, width = table.shape[0] - 1, table.shape[1]
    assert (height, width) == (64, 128)
    solid_angles = ibl.texel_solid_angles(height, width)
    density = table[:height, :, 2].astype(np.float64)
    probabilities = density * solid_angles
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-5)
    # Each texel's luminance is the largest of its 3 x 3 neighbourhood (the bilinear read's bound), then averaged.
    luminance = image.astype(np.float64) @ np.array([0.2126, 0.7152, 0.0722])
    rows = np.pad(luminance, ((1, 1), (0, 0)), mode="edge")
    largest = np.max([np.roll(rows, shift, axis=1)[1 + dy:129 + dy] for shift in (-1, 0, 1) for dy in (-1, 0, 1)], axis=0)
    cells = largest.reshape(64, 2, 128, 2).mean(axis=(1, 3))
    np.testing.assert_allclose(density / density.max(), cells / cells.max(), rtol=1e-4, atol=1e-7)
    directions, densities = ibl.sample_environment(table, rng.random((400_000, 4)))
    np.testing.assert_allclose(np.linalg.norm(directions, axis=1), 1.0, atol=1e-6)
    rows, columns = _cells_of(directions, height, width)
    np.testing.assert_allclose(densities, density[rows, columns], rtol=1e-6)
    counts = np.bincount(rows * width + columns, minlength=height * width).reshape(height, width) / 400_000
    # Each cell within 4 standard deviations of a binomial count around its probability.
    assert np.all(np.abs(counts - probabilities) <= 4.0 * np.sqrt(probabilities / 400_000) + 1e-5)
    assert counts[45:47, 20:22].sum() > 0.4  # the sun's four cells take nearly half of the draws


def test_a_black_environment_is_sampled_uniformly_in_solid_angle() -> None:
    table = ibl.environment_sampling(np.zeros((32, 64, 3), dtype=np.float32))
    np.testing.assert_allclose(table[:-1, :, 2], 1.0 / (4.0 * np.pi), rtol=1e-5)
