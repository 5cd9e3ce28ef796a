#!/usr/bin/env python3
"""Generate the bundled HDR environments (resources/environments/*.hdr) from analytic descriptions.

Three equirectangular environments, 1024x512, linear radiance, in the
convention of `app.preview.ibl` (u = 0.5 looks towards -z, the middle of the
background the default camera sees; +y is up):

* `studio`: a dark grey photo studio lit by four rectangular soft boxes
  (key upper left in front of the object, a tall fill on the right, a rim
  strip behind, a long strip overhead). Each box is a rectangle in its own
  plane at unit distance, so it reflects as a rectangle, with a soft
  diffuser fall-off at its edges.
* `outdoor`: a clear sky from the Preetham, Shirley & Smits analytic
  daylight model ("A Practical Analytic Model for Daylight", SIGGRAPH
  1999): the Perez luminance distribution and the zenith luminance and
  chromaticity of the paper's Appendix A.2 for turbidity 2.5, converted from
  CIE xyY to linear sRGB (Rec. 709 primaries, D65). Sun at 35 degrees
  elevation, upper left in front of the object. The sun disc is drawn 2
  degrees wide (four times the real sun's solid angle, so it spans several
  texels instead of a fraction of one), with a fixed warm-white colour (not
  the paper's spectral sun model) and the radiance that makes its
  illuminance on level ground five times the sky's, typical of a clear day.
  Below the horizon: Lambertian ground of albedo 0.12 lit by sky and sun,
  fading into the horizon's haze.
  The sky is scaled so that it alone gives level ground an illuminance of
  pi (a white upward-facing surface reflects radiance 1 from the sky).
* `neutral`: a smooth grey gradient (zenith 1.0, horizon 0.8, ground 0.3),
  colourless, for judging a material's own colour.

It also writes `brdf_lut.npy`, the split-sum BRDF table
(`app.preview.ibl_prefilter.brdf_lut` with its full sample count), which
depends only on the BRDF, so the editor ships it instead of computing it.

Each texel is supersampled 4x4 so edges (soft boxes, sun, horizon) are
anti-aliased. The output is deterministic. Files are written as Radiance
RGBE through OpenImageIO (the library the editor reads them with).

Usage (from the repository root, with the project's virtual environment):

    .venv/bin/python tools/make_environments.py              # regenerate resources/environments/
    .venv/bin/python tools/make_environments.py OUTPUT_DIR   # write elsewhere (the tests do)

tests/app/preview/test_environment.py checks that the committed files are
what this script writes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.preview import ibl  # noqa: E402 - after the path set-up, so the tool runs from a checkout

OUTPUT = ROOT / "resources" / "environments"
WIDTH, HEIGHT = 1024, 512
SUPERSAMPLING = 4

#: Linear sRGB from CIE XYZ (IEC 61966-2-1, D65).
XYZ_TO_LINEAR_SRGB = np.array(
    [
        [3.2404542, -1.5371385, -0.4985314],
        [-0.9692660, 1.8760108, 0.0415560],
        [0.0556434, -0.2040259, 1.0572252],
    ]
)
#: Linear sRGB luminance weights (Rec. 709).
LUMINANCE = np.array([0.2126, 0.7152, 0.0722])


def _unit(vector: Sequence[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float64)
    return array / np.linalg.norm(array)


def render(radiance_of: Callable[[np.ndarray], np.ndarray], width: int = WIDTH, height: int = HEIGHT) -> np.ndarray:
    """An equirect image (GL row order) whose texels average `radiance_of(directions)` over a 4x4 grid."""
    total = np.zeros((height, width, 3))
    for row in range(SUPERSAMPLING):
        for column in range(SUPERSAMPLING):
            t = (np.arange(height) + (row + 0.5) / SUPERSAMPLING) / height
            u = (np.arange(width) + (column + 0.5) / SUPERSAMPLING) / width
            uv = np.stack(np.meshgrid(u, t, indexing="xy"), axis=-1)
            total += radiance_of(ibl.direction_from_equirect_uv(uv))
    return total / SUPERSAMPLING**2


def smoothstep(edge0: float, edge1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


# --- studio ---------------------------------------------------------------------------------------


def soft_box(directions: np.ndarray, centre: Sequence[float], width_degrees: float, height_degrees: float, radiance: float) -> np.ndarray:
    """A rectangular diffuser facing the origin: `radiance` inside, a soft fall-off over its outer 15%.

    The rectangle lies in the plane at unit distance along `centre`; its
    vertical side is the projection of +y onto that plane.
    """
    normal = _unit(centre)
    up = np.array([0.0, 1.0, 0.0]) - normal[1] * normal
    if np.linalg.norm(up) < 1e-6:  # overhead box: its long side runs along x
        up = np.array([0.0, 0.0, -1.0])
    up = _unit(up)
    side = np.cross(up, normal)
    along = directions @ normal
    safe = np.where(along > 1e-6, along, 1.0)
    x = (directions @ side) / safe
    y = (directions @ up) / safe
    half_width = np.tan(np.radians(width_degrees) / 2.0)
    half_height = np.tan(np.radians(height_degrees) / 2.0)
    inside_x = 1.0 - smoothstep(0.85, 1.0, np.abs(x) / half_width)
    inside_y = 1.0 - smoothstep(0.85, 1.0, np.abs(y) / half_height)
    # A diffuser is a little brighter in its middle.
    centre_weight = 1.0 - 0.15 * ((x / half_width) ** 2 + (y / half_height) ** 2) / 2.0
    mask = np.where(along > 1e-6, inside_x * inside_y * centre_weight, 0.0)
    return radiance * mask


def studio_radiance(directions: np.ndarray) -> np.ndarray:
    y = directions[..., 1]
    # Dark grey walls, a little lighter high up; a darker floor with a soft horizon.
    walls = 0.035 + 0.02 * np.clip(y, 0.0, 1.0)
    floor = 0.022
    base = floor + (walls - floor) * smoothstep(-0.06, 0.02, y)
    light = (
        soft_box(directions, (-0.62, 0.5, 0.6), 42.0, 30.0, 6.0)  # key: upper left, in front of the object
        + soft_box(directions, (0.85, 0.12, 0.35), 22.0, 48.0, 2.0)  # fill: a tall box on the right
        + soft_box(directions, (0.25, 0.35, -0.9), 12.0, 55.0, 4.0)  # rim: a narrow strip behind
        + soft_box(directions, (0.0, 1.0, 0.0), 70.0, 16.0, 3.0)  # overhead strip
    )
    warm_white = np.array([1.0, 0.97, 0.93])
    return base[..., None] * np.ones(3) + light[..., None] * warm_white


# --- outdoor: Preetham et al. 1999 ----------------------------------------------------------------

TURBIDITY = 2.5
SUN_ELEVATION_DEGREES = 35.0
#: The sun's azimuth: upper left, in front of the object (towards the default camera).
SUN_DIRECTION_XZ = (-0.62, 0.78)
SUN_RADIUS_DEGREES = 1.0
SUN_COLOR = np.array([1.0, 0.93, 0.84])
SUN_TO_SKY_ILLUMINANCE = 5.0
GROUND_ALBEDO = np.array([0.13, 0.12, 0.10])
#: How fast the ground fades into the horizon's haze (sine of the angle below the horizon).
GROUND_HAZE_HEIGHT = 0.04

# Perez coefficients as linear functions of turbidity T: (slope, intercept) for A..E (Appendix A.2).
_PEREZ_Y = ((0.1787, -1.4630), (-0.3554, 0.4275), (-0.0227, 5.3251), (0.1206, -2.5771), (-0.0670, 0.3703))
_PEREZ_X = ((-0.0193, -0.2592), (-0.0665, 0.0008), (-0.0004, 0.2125), (-0.0641, -0.8989), (-0.0033, 0.0452))
_PEREZ_Y_CHROMA = ((-0.0167, -0.2608), (-0.0950, 0.0092), (-0.0079, 0.2102), (-0.0441, -1.6537), (-0.0109, 0.0529))
# Zenith chromaticity: [T^2, T, 1] M [theta_s^3, theta_s^2, theta_s, 1]^T (Appendix A.2).
_ZENITH_X = np.array([[0.00166, -0.00375, 0.00209, 0.0], [-0.02903, 0.06377, -0.03202, 0.00394], [0.11693, -0.21196, 0.06052, 0.25886]])
_ZENITH_Y = np.array([[0.00275, -0.00610, 0.00317, 0.0], [-0.04214, 0.08970, -0.04153, 0.00516], [0.15346, -0.26756, 0.06670, 0.26688]])


def sun_direction() -> np.ndarray:
    elevation = np.radians(SUN_ELEVATION_DEGREES)
    horizontal = _unit((SUN_DIRECTION_XZ[0], 0.0, SUN_DIRECTION_XZ[1]))
    return np.array([horizontal[0] * np.cos(elevation), np.sin(elevation), horizontal[2] * np.cos(elevation)])


def _perez(coefficients: tuple[tuple[float, float], ...], turbidity: float, theta: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    a, b, c, d, e = (slope * turbidity + intercept for slope, intercept in coefficients)
    return (1.0 + a * np.exp(b / np.cos(theta))) * (1.0 + c * np.exp(d * gamma) + e * np.cos(gamma) ** 2)


def preetham_sky_xyz(directions: np.ndarray, sun: np.ndarray, turbidity: float = TURBIDITY) -> np.ndarray:
    """CIE XYZ of the clear sky (luminance in kcd/m^2) for directions above the horizon."""
    theta_sun = np.arccos(sun[1])
    # Directions at or below the horizon read the sky just above it (the ground covers them).
    view_y = np.clip(directions[..., 1], 1e-3, 1.0)
    theta = np.arccos(view_y)
    gamma = np.arccos(np.clip(directions @ sun, -1.0, 1.0))
    chi = (4.0 / 9.0 - turbidity / 120.0) * (np.pi - 2.0 * theta_sun)
    zenith_luminance = (4.0453 * turbidity - 4.9710) * np.tan(chi) - 0.2155 * turbidity + 2.4192
    powers_t = np.array([turbidity**2, turbidity, 1.0])
    powers_sun = np.array([theta_sun**3, theta_sun**2, theta_sun, 1.0])
    zenith_x = powers_t @ _ZENITH_X @ powers_sun
    zenith_y = powers_t @ _ZENITH_Y @ powers_sun
    zero = np.zeros(1)
    big_y = zenith_luminance * _perez(_PEREZ_Y, turbidity, theta, gamma) / _perez(_PEREZ_Y, turbidity, zero, np.array([theta_sun]))
    x = zenith_x * _perez(_PEREZ_X, turbidity, theta, gamma) / _perez(_PEREZ_X, turbidity, zero, np.array([theta_sun]))
    y = zenith_y * _perez(_PEREZ_Y_CHROMA, turbidity, theta, gamma) / _perez(_PEREZ_Y_CHROMA, turbidity, zero, np.array([theta_sun]))
    return np.stack([x / y * big_y, big_y, (1.0 - x - y) / y * big_y], axis=-1)


def _sky_rgb(directions: np.ndarray, sun: np.ndarray) -> np.ndarray:
    return np.maximum(preetham_sky_xyz(directions, sun) @ XYZ_TO_LINEAR_SRGB.T, 0.0)


def _upper_hemisphere_illuminance(radiance_of: Callable[[np.ndarray], np.ndarray], size: int = 256) -> np.ndarray:
    """Illuminance (RGB) on level ground facing up from a radiance function, by quadrature over an equirect grid."""
    directions = ibl.texel_directions(size, 2 * size)
    weights = ibl.texel_solid_angles(size, 2 * size)[..., None] * np.clip(directions[..., 1:2], 0.0, None)
    return (radiance_of(directions) * weights).sum(axis=(0, 1))


def outdoor_radiance_function() -> Callable[[np.ndarray], np.ndarray]:
    sun = sun_direction()
    sky_illuminance = _upper_hemisphere_illuminance(lambda d: _sky_rgb(d, sun))
    sky_scale = np.pi / float(sky_illuminance @ LUMINANCE)
    sun_solid_angle = 2.0 * np.pi * (1.0 - np.cos(np.radians(SUN_RADIUS_DEGREES)))
    # Illuminance of the sun on level ground: SUN_TO_SKY_ILLUMINANCE x the sky's (pi after scaling).
    sun_normal_illuminance = SUN_TO_SKY_ILLUMINANCE * np.pi / np.sin(np.radians(SUN_ELEVATION_DEGREES))
    sun_radiance = SUN_COLOR / float(SUN_COLOR @ LUMINANCE) * sun_normal_illuminance / sun_solid_angle
    ground_illuminance = sky_illuminance * sky_scale + sun_radiance * sun_solid_angle * np.sin(np.radians(SUN_ELEVATION_DEGREES))
    ground = GROUND_ALBEDO * ground_illuminance / np.pi
    cos_sun_radius = np.cos(np.radians(SUN_RADIUS_DEGREES))

    def radiance(directions: np.ndarray) -> np.ndarray:
        sky = _sky_rgb(directions, sun) * sky_scale
        in_sun = (directions @ sun > cos_sun_radius) & (directions[..., 1] > 0.0)
        sky = sky + in_sun[..., None] * sun_radiance
        # Distant ground fades into the haze of the horizon (aerial perspective).
        haze = np.exp(-np.abs(directions[..., 1]) / GROUND_HAZE_HEIGHT)[..., None]
        hazy_ground = ground + (sky - ground) * haze
        above = smoothstep(-0.004, 0.004, directions[..., 1])[..., None]
        return hazy_ground + (sky - hazy_ground) * above

    return radiance


# --- neutral --------------------------------------------------------------------------------------


def neutral_radiance(directions: np.ndarray) -> np.ndarray:
    y = directions[..., 1]
    sky = 0.8 + 0.2 * np.clip(y, 0.0, 1.0)
    ground = 0.3
    value = ground + (sky - ground) * smoothstep(-0.12, 0.08, y)
    return value[..., None] * np.ones(3)


# --- files ----------------------------------------------------------------------------------------


def environment_images() -> dict[str, np.ndarray]:
    """The bundled environments as float32 images in GL row order."""
    return {
        "studio": render(studio_radiance).astype(np.float32),
        "outdoor": render(outdoor_radiance_function()).astype(np.float32),
        "neutral": render(neutral_radiance).astype(np.float32),
    }


def write_hdr(path: Path, image: np.ndarray) -> None:
    """Write a Radiance RGBE file (rows top-down, as the format stores them)."""
    import OpenImageIO

    height, width = image.shape[:2]
    output = OpenImageIO.ImageOutput.create(str(path))
    if output is None:
        raise OSError(f"{path}: cannot create an image writer: {OpenImageIO.geterror()}")
    try:
        if not output.open(str(path), OpenImageIO.ImageSpec(width, height, 3, OpenImageIO.FLOAT)):
            raise OSError(f"{path}: {output.geterror()}")
        if not output.write_image(np.ascontiguousarray(image[::-1], dtype=np.float32)):
            raise OSError(f"{path}: {output.geterror()}")
    finally:
        output.close()


def make_environments(directory: Path = OUTPUT) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, image in environment_images().items():
        path = directory / f"{name}.hdr"
        write_hdr(path, image)
        written.append(path)
    return written


def make_brdf_lut(directory: Path = OUTPUT) -> Path:
    """The split-sum BRDF table the preview ships (environment-independent: computed once here)."""
    from app.preview import ibl_prefilter

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "brdf_lut.npy"
    np.save(path, ibl_prefilter.brdf_lut().astype(np.float32))
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", type=Path, default=OUTPUT, help="output directory (default: resources/environments)")
    parser.add_argument("--skip-lut", action="store_true", help="do not recompute brdf_lut.npy (about a minute)")
    arguments = parser.parse_args(argv)
    for path in make_environments(arguments.output):
        print(path)
    if not arguments.skip_lut:
        print(make_brdf_lut(arguments.output))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
