"""Loading HDR environments (.hdr, .exr), their errors, and the bundled environments.

One Radiance file is written byte by byte here from the format's
description (flat RGBE scanlines), so the reader is checked against data
that does not come from the library it uses; the others are written through
OpenImageIO with the compressions and channel layouts files come with.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import OpenImageIO
import pytest
from bounded import python_child

from app.preview import environment as env
from app.preview import ibl
from app.preview.environment import (
    BUNDLED_ENVIRONMENTS,
    EnvironmentLoadError,
    EnvironmentSettings,
    load_environment,
    load_named_environment,
    resolve_environment,
)

ROOT = Path(__file__).resolve().parents[3]


def write_flat_rgbe(path: Path, pixels_top_down: np.ndarray) -> None:
    """A Radiance file with uncompressed scanlines: each pixel is (r, g, b, e), value = (byte + 0.5) / 256 * 2^(e - 128)."""
    height, width = pixels_top_down.shape[:2]
    header = f"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {height} +X {width}\n".encode("ascii")
    peak = pixels_top_down.max(axis=-1)
    mantissa, exponent = np.frexp(peak)
    scale = np.where(peak > 1e-32, mantissa * 256.0 / np.where(peak > 1e-32, peak, 1.0), 0.0)
    rgbe = np.zeros((height, width, 4), dtype=np.uint8)
    rgbe[..., :3] = np.floor(pixels_top_down * scale[..., None]).astype(np.uint8)
    rgbe[..., 3] = np.where(peak > 1e-32, exponent + 128, 0).astype(np.uint8)
    path.write_bytes(header + rgbe.tobytes())


def write_with_oiio(path: Path, pixels_top_down: np.ndarray, channel_names: list[str] | None = None, **attributes: str) -> None:
    height, width, channels = pixels_top_down.shape
    spec = OpenImageIO.ImageSpec(width, height, channels, OpenImageIO.HALF if path.suffix == ".exr" and attributes.pop("half", "") else OpenImageIO.FLOAT)
    if channel_names:
        spec.channelnames = tuple(channel_names)
    for key, value in attributes.items():
        spec.attribute(key, value)
    output = OpenImageIO.ImageOutput.create(str(path))
    assert output is not None, OpenImageIO.geterror()
    assert output.open(str(path), spec), output.geterror()
    assert output.write_image(np.ascontiguousarray(pixels_top_down, dtype=np.float32)), output.geterror()
    output.close()


def rgbe_close(decoded: np.ndarray, original: np.ndarray) -> bool:
    """RGBE shares one exponent per pixel: each component is exact to 1/128 of the pixel's largest (readers differ by half a step)."""
    return bool(np.all(np.abs(decoded - original) <= original.max(axis=-1, keepdims=True) / 128.0))


def gradient(height: int = 32) -> np.ndarray:
    """A top-down test image: red grows to the right, green towards the top, blue constant."""
    width = 2 * height
    columns = np.linspace(0.1, 8.0, width)
    rows = np.linspace(4.0, 0.25, height)  # first row (top) brightest
    image = np.empty((height, width, 3), dtype=np.float32)
    image[..., 0] = columns[None, :]
    image[..., 1] = rows[:, None]
    image[..., 2] = 0.5
    return image


def test_a_hand_written_radiance_file_reads_with_its_values_and_orientation(tmp_path: Path) -> None:
    image = gradient(32)
    path = tmp_path / "flat.hdr"
    write_flat_rgbe(path, image)
    loaded = load_environment(path)
    assert loaded.name == "flat" and loaded.path == path
    assert loaded.radiance.shape == (32, 64, 3) and loaded.radiance.dtype == np.float32
    # GL row order: the file's first (top) row is the last row, the zenith.
    assert rgbe_close(loaded.radiance[::-1], image)
    assert loaded.radiance[-1, 0, 1] > loaded.radiance[0, 0, 1]
    assert loaded.notes == ()


@pytest.mark.parametrize(
    ("suffix", "attributes", "tolerance"),
    [
        (".hdr", {}, None),
        (".exr", {"compression": "zip"}, 1e-7),
        (".exr", {"compression": "piz", "half": "yes"}, 1e-3),
        (".exr", {"compression": "none"}, 1e-7),
    ],
)
def test_files_written_by_the_library_read_back(tmp_path: Path, suffix: str, attributes: dict[str, str], tolerance: float | None) -> None:
    image = gradient(64)
    path = tmp_path / f"image{suffix}"
    write_with_oiio(path, image, **dict(attributes))
    loaded = load_environment(path).radiance[::-1]
    assert rgbe_close(loaded, image) if tolerance is None else np.allclose(loaded, image, rtol=tolerance)


def test_multi_layer_exr_uses_the_first_layer_with_colour(tmp_path: Path) -> None:
    image = gradient(32)
    layered = np.concatenate([image[..., :1] * 0.0 + 7.0, image], axis=-1)
    path = tmp_path / "layers.exr"
    write_with_oiio(path, layered, ["depth.Z", "beauty.R", "beauty.G", "beauty.B"])
    assert np.allclose(load_environment(path).radiance[::-1], image)


def test_exr_channels_are_picked_by_name_and_grey_images_become_rgb(tmp_path: Path) -> None:
    image = gradient(32)
    shuffled = np.concatenate([np.full(image.shape[:2] + (1,), 0.5, np.float32), image[..., ::-1]], axis=-1)
    path = tmp_path / "abgr.exr"
    write_with_oiio(path, shuffled, ["A", "B", "G", "R"])
    assert np.allclose(load_environment(path).radiance[::-1], image)
    grey = tmp_path / "grey.exr"
    write_with_oiio(grey, image[..., 1:2], ["Y"])
    loaded = load_environment(grey).radiance[::-1]
    assert np.allclose(loaded[..., 0], image[..., 1]) and np.allclose(loaded[..., 2], image[..., 1])


def test_a_file_without_colour_channels_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "depth.exr"
    write_with_oiio(path, gradient(32)[..., :1], ["Z"])
    with pytest.raises(EnvironmentLoadError, match=r"depth\.exr: the image has no colour channels \(Z\)"):
        load_environment(path)


def test_not_finite_and_negative_texels_are_replaced_and_reported(tmp_path: Path) -> None:
    image = gradient(32)
    image[3, 4] = np.nan
    image[5, 6, 1] = np.inf
    image[7, 8, 2] = -2.0
    path = tmp_path / "bad-values.exr"
    write_with_oiio(path, image)
    loaded = load_environment(path)
    assert np.isfinite(loaded.radiance).all() and (loaded.radiance >= 0.0).all()
    assert loaded.notes == ("2 texel(s) were NaN or infinite and were set to 0", "1 texel(s) had negative values, clamped to 0")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.hdr", None, r"missing\.hdr: no such environment file"),
        ("picture.png", b"\x89PNG\r\n\x1a\n", r"unsupported environment format '\.png'; expected \.hdr or \.exr"),
        ("empty.hdr", b"", r"empty\.hdr: cannot read the environment"),
        ("garbage.exr", b"this is not an image at all" * 10, r"garbage\.exr: cannot read the environment"),
        ("header-only.hdr", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 32 +X 64\n", r"header-only\.hdr: cannot read the pixels"),
    ],
)
def test_unreadable_files_give_one_line_errors(tmp_path: Path, name: str, content: bytes | None, message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(EnvironmentLoadError, match=message) as caught:
        load_named_environment(path)
    assert "\n" not in str(caught.value)


def test_a_truncated_file_is_an_error_not_a_partial_image(tmp_path: Path) -> None:
    path = tmp_path / "truncated.hdr"
    write_with_oiio(path, gradient(64))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(EnvironmentLoadError, match=r"truncated\.hdr: cannot read the pixels"):
        load_environment(path)


def test_a_png_named_hdr_is_refused_by_content(tmp_path: Path) -> None:
    png = tmp_path / "real.png"
    write_with_oiio(png, gradient(32) / 8.0)
    disguised = tmp_path / "disguised.hdr"
    disguised.write_bytes(png.read_bytes())
    with pytest.raises(EnvironmentLoadError, match=r"disguised\.hdr: the file is a png image, not Radiance RGBE or OpenEXR"):
        load_environment(disguised)


@pytest.mark.parametrize(
    ("height", "width", "message"),
    [
        (40, 40, r"is 40x40; an equirectangular \(latitude-longitude\) environment is twice as wide as high"),
        (16, 32, r"is 32x16; environments must be at least 64 texels wide"),
    ],
)
def test_images_that_are_not_usable_equirect_maps_are_refused(tmp_path: Path, height: int, width: int, message: str) -> None:
    path = tmp_path / "shape.exr"
    write_with_oiio(path, np.ones((height, width, 3), np.float32))
    with pytest.raises(EnvironmentLoadError, match=message):
        load_environment(path)


def test_a_directory_is_not_an_environment(tmp_path: Path) -> None:
    folder = tmp_path / "folder.hdr"
    folder.mkdir()
    with pytest.raises(EnvironmentLoadError, match="no such environment file"):
        resolve_environment(folder)


def test_content_hash_follows_the_bytes_not_the_name(tmp_path: Path) -> None:
    first, second, third = tmp_path / "a.hdr", tmp_path / "b.hdr", tmp_path / "c.hdr"
    write_flat_rgbe(first, gradient(32))
    second.write_bytes(first.read_bytes())
    write_flat_rgbe(third, gradient(32) * 2.0)
    assert load_environment(first).content_hash == load_environment(second).content_hash
    assert load_environment(first).content_hash != load_environment(third).content_hash


def test_settings_validate_and_normalise_rotation() -> None:
    assert EnvironmentSettings(rotation_degrees=450.0).rotation_radians == pytest.approx(np.pi / 2)
    assert EnvironmentSettings(rotation_degrees=-90.0).rotation_radians == pytest.approx(-np.pi / 2)
    with pytest.raises(ValueError, match="intensity"):
        EnvironmentSettings(intensity=-1.0)
    with pytest.raises(ValueError, match="rotation"):
        EnvironmentSettings(rotation_degrees=float("nan"))


def test_in_memory_environments_follow_the_same_rules() -> None:
    uniform = env.uniform_environment(1.0)
    assert uniform.radiance.shape == (64, 128, 3) and np.all(uniform.radiance == 1.0)
    with pytest.raises(EnvironmentLoadError, match="twice as wide as high"):
        env.environment_from_array("square", np.ones((64, 64, 3)))


# --- the bundled environments ---------------------------------------------------------------------


@pytest.mark.parametrize("name", BUNDLED_ENVIRONMENTS)
def test_bundled_environments_load_by_name(name: str) -> None:
    path = resolve_environment(name)
    assert path.parent == env.BUNDLED_DIRECTORY and path.is_file()
    loaded = load_named_environment(name)
    assert loaded.radiance.shape == (512, 1024, 3) and loaded.notes == ()
    assert loaded.radiance.max() < ibl.HALF_MAX  # the specular chain is stored as half floats


def test_unknown_names_list_the_bundled_ones() -> None:
    with pytest.raises(EnvironmentLoadError, match="not a bundled environment: studio, outdoor, neutral"):
        resolve_environment("sunset")


def _load_tool():
    spec = importlib.util.spec_from_file_location("make_environments", ROOT / "tools" / "make_environments.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_environments"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # regenerates every bundled environment (tools/make_environments.py): a minute of numpy
def test_the_committed_environments_are_what_the_script_writes(tmp_path: Path) -> None:
    tool = _load_tool()
    written = tool.make_environments(tmp_path)
    assert sorted(path.name for path in written) == sorted(f"{name}.hdr" for name in BUNDLED_ENVIRONMENTS)
    for path in written:
        fresh = load_environment(path).radiance
        committed = load_environment(ROOT / "resources" / "environments" / path.name).radiance
        # A different libm may round a texel's RGBE mantissa the other way.
        assert rgbe_close(committed, fresh), f"{path.name} is out of date: run tools/make_environments.py"


def test_the_outdoor_sky_follows_the_sun_and_the_studio_has_its_soft_boxes() -> None:
    tool = _load_tool()
    outdoor = load_named_environment("outdoor").radiance
    luminance = outdoor @ np.array([0.2126, 0.7152, 0.0722])
    brightest = np.unravel_index(np.argmax(luminance), luminance.shape)
    sun = ibl.texel_directions(*luminance.shape)[brightest]
    assert np.degrees(np.arccos(np.clip(sun @ tool.sun_direction(), -1.0, 1.0))) < 1.0
    # Sky: blue above, brighter towards the sun than away from it (Perez circumsolar term).
    zenith = outdoor[-1].mean(axis=0)
    assert zenith[2] > zenith[0]
    studio = load_named_environment("studio").radiance
    key = ibl.background_radiance(studio, np.array([-0.62, 0.5, 0.6]))
    wall = ibl.background_radiance(studio, np.array([0.0, 0.2, -1.0]))
    assert key.mean() > 5.0 and wall.mean() < 0.1


def test_the_outdoor_sky_and_sun_light_level_ground_as_documented() -> None:
    """The sky alone gives level ground an illuminance of pi; the sun five times that (tools/make_environments.py)."""
    radiance = load_named_environment("outdoor").radiance.astype(np.float64)
    height, width = radiance.shape[:2]
    luminance = radiance @ np.array([0.2126, 0.7152, 0.0722])
    up = np.clip(ibl.texel_directions(height, width)[..., 1], 0.0, None) * ibl.texel_solid_angles(height, width)
    sun = luminance > 1000.0
    assert 20 < sun.sum() < 80  # a disc 2 degrees wide at 0.35 degrees a texel
    assert (luminance * ~sun * up).sum() == pytest.approx(np.pi, rel=0.02)
    assert (luminance * sun * up).sum() == pytest.approx(5.0 * np.pi, rel=0.02)


def test_a_built_package_ships_the_environments_and_the_brdf_table(built_package: Path) -> None:
    shipped = built_package / "app" / "preview" / "environments"
    for name in [f"{name}.hdr" for name in BUNDLED_ENVIRONMENTS] + ["brdf_lut.npy"]:
        path = shipped / name
        assert path.is_file() and not path.is_symlink(), name
        assert path.read_bytes() == (ROOT / "resources" / "environments" / name).read_bytes()


def test_a_wide_file_is_averaged_down_as_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env, "LOAD_MAX_WIDTH", 128)
    image = np.zeros((128, 256, 3), np.float32)
    image[:, :, 0] = np.arange(256, dtype=np.float32)[None, :] // 2  # pairs of columns: one value each
    image[10, 10] = np.nan
    image[11, 11, 2] = -1.0
    path = tmp_path / "wide.exr"
    write_with_oiio(path, image)
    loaded = load_environment(path)
    assert loaded.radiance.shape == (64, 128, 3)
    np.testing.assert_allclose(loaded.radiance[30, :8, 0], np.arange(8) + 0.0)
    assert loaded.radiance[64 - 1 - 5, 5, 0] == 5 * 0.75 and loaded.radiance[64 - 1 - 5, 5, 2] == 0.0  # NaN, negative
    assert loaded.notes == ("the 256x128 image was averaged down to 128x64 as it was read",
                            "1 texel(s) were NaN or infinite and were set to 0", "1 texel(s) had negative values, clamped to 0")


@pytest.mark.parametrize("tile", [32, 48])
def test_a_wide_tiled_file_is_averaged_down_as_a_scanline_one_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 tile: int) -> None:
    # Rows were read with read_scanlines, which OpenEXR refuses for a tiled file ("scanline accessor
    # function for a tiled image"): a valid tiled 16k environment could not be used.
    monkeypatch.setattr(env, "LOAD_MAX_WIDTH", 128)
    image = np.random.default_rng(3).random((128, 256, 3), dtype=np.float32)
    image[10, 10] = np.nan
    write_with_oiio(tmp_path / "lines.exr", image)
    spec = OpenImageIO.ImageSpec(256, 128, 3, OpenImageIO.FLOAT)
    spec.tile_width = spec.tile_height = tile  # 48: the last row of tiles runs past the rows used
    output = OpenImageIO.ImageOutput.create(str(tmp_path / "tiles.exr"))
    assert output is not None and output.open(str(tmp_path / "tiles.exr"), spec), OpenImageIO.geterror()
    assert output.write_image(image), output.geterror()
    output.close()
    tiled, lines = load_environment(tmp_path / "tiles.exr"), load_environment(tmp_path / "lines.exr")
    np.testing.assert_array_equal(tiled.radiance, lines.radiance)
    assert tiled.notes == lines.notes and "1 texel(s) were NaN or infinite and were set to 0" in tiled.notes


def test_a_tiled_wide_file_with_very_tall_tiles_is_refused_with_the_reason(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env, "LOAD_MAX_WIDTH", 128)
    monkeypatch.setattr(env, "_MAX_BAND_BYTES", 256 * 3 * 4 * 64)  # a band of 64 rows of 256 texels
    spec = OpenImageIO.ImageSpec(256, 128, 3, OpenImageIO.FLOAT)
    spec.tile_width, spec.tile_height = 32, 128
    output = OpenImageIO.ImageOutput.create(str(tmp_path / "tall.exr"))
    assert output is not None and output.open(str(tmp_path / "tall.exr"), spec), OpenImageIO.geterror()
    assert output.write_image(np.ones((128, 256, 3), np.float32)), output.geterror()
    output.close()
    with pytest.raises(EnvironmentLoadError, match=r"tall\.exr: its tiles are 128 rows high; a 256 wide file is "
                                                   r"read with tiles at most 64 rows high"):
        load_environment(tmp_path / "tall.exr")


@pytest.mark.heavy  # writes and decodes a 16k image in a child: many seconds of CPU, full tier only
def test_a_16k_exr_loads_within_a_gigabyte(tmp_path: Path) -> None:
    # The file is small (one colour compresses well); decoding it whole took 4 GB. The child's address space
    # is bounded: a loader that reads the whole image as float fails there with MemoryError.
    path = tmp_path / "huge.exr"
    spec = OpenImageIO.ImageSpec(16384, 8192, 3, OpenImageIO.HALF)
    spec.attribute("compression", "zip")
    output = OpenImageIO.ImageOutput.create(str(path))
    assert output is not None and output.open(str(path), spec), OpenImageIO.geterror()
    band = np.full((512, 16384, 3), 0.5, np.float32)
    for top in range(0, 8192, 512):
        assert output.write_scanlines(top, top + 512, 0, band), output.geterror()
    output.close()
    child = python_child(f"""
from app.preview.environment import load_environment
environment = load_environment({str(path)!r})
print(environment.radiance.shape, float(environment.radiance.mean()))
""", seconds=300, memory=3 << 30)
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.split() == ["(2048,", "4096,", "3)", "0.5"]
