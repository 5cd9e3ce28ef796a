"""`vpl run FILE --size WxH [--mesh NAME] [--set NAME=VALUE ...] --out PNG` and the PNG reader/writer."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from interp_support import fragment_module

from vpl_core import cli
from vpl_core.interp.png import PngError, decode_png, encode_png, read_png

ROOT = Path(__file__).resolve().parents[3]
LOOP = ROOT / "tests" / "data" / "spec" / "loop-and-helper.vpl"
LIT = ROOT / "resources" / "examples" / "lit_blinn_phong.vpl"

UNIFORMS_MODULE = fragment_module(
    "(register r0 Vec4) (register r1 Float) (register r2 Vec4) (register r3 Vec2) (register r4 Sampler) (register r5 Vec4)",
    """(load r0 (uniform tint)) (load r1 (member_ref (uniform light) "power")) (multiply r0 r0 r1)
       (load r2 (index_ref (uniform palette) (int 1))) (add r0 r0 r2)
       (load r3 (stage uv)) (load r4 (uniform image)) (texture_lod r5 r4 r3 (float 0.0)) (add r0 r0 r5)
       (store (stage color) r0) (return)""",
    types='(type Light record "Light" (field "power" Float) (field "spin" Vec4))',
    uniforms='(scalar tint "tint" Vec4) (record light "light" Light) (array palette "palette" Vec4 2) (scalar image "image" Sampler)',
)


def _run(*arguments: str) -> int:
    return cli.main(["run", *arguments])


def test_a_full_screen_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "loop.png"
    assert _run(str(LOOP), "--size", "24x16", "--out", str(out)) == 0
    assert capsys.readouterr().err == ""
    image = read_png(out)
    assert image.shape == (16, 24, 4)
    assert (image == [0, 255, 0, 255]).all()  # the spec example's opaque green


def test_the_preview_scene_on_a_mesh(tmp_path: Path) -> None:
    out = tmp_path / "lit.png"
    assert _run(str(LIT), "--size", "64x48", "--mesh", "sphere", "--set", "base_color=1,0,0,1", "--set", "shininess=32",
                "--out", str(out)) == 0
    image = read_png(out)
    from app.preview.cpu_renderer import CpuRenderer
    from vpl_core.publish import VerifiedModule

    renderer = CpuRenderer()
    renderer.set_program(VerifiedModule.from_text(LIT.read_text(encoding="utf-8"), str(LIT)))
    renderer.set_parameter("base_color", [1, 0, 0, 1])
    renderer.set_parameter("shininess", 32)
    np.testing.assert_array_equal(image, renderer.render_image(64, 48))
    sphere = image[(image[..., 0] > 60) & (image[..., 1] < 200)]
    assert len(sphere) > 100 and sphere[:, 0].mean() > 2 * sphere[:, 2].mean()  # red, not the background


def test_values_of_every_form(tmp_path: Path) -> None:
    source = tmp_path / "uniforms.vpl"
    source.write_text(UNIFORMS_MODULE, encoding="utf-8")
    texture = np.zeros((2, 2, 4), dtype=np.uint8)
    texture[..., 2] = 255
    texture[..., 3] = 255
    (tmp_path / "blue.png").write_bytes(encode_png(texture))
    out = tmp_path / "out.png"
    status = _run(str(source), "--size", "4x4", "--out", str(out),
                  "--set", "tint=0.25,0,0,0", "--set", "light.power=2", "--set", 'palette=[[0,0,0,0],[0,0.5,0,0]]',
                  "--set", "palette[1]=0,0.25,0,0.5", "--set", f"image=@{tmp_path / 'blue.png'}")
    assert status == 0
    pixel = read_png(out)[1, 1]
    assert pixel.tolist() == [128, 64, 255, 255]  # 0.5 red, 0.25 green, the texture's blue, alpha 0.5 + 1 clamped


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--size", "0x4"], "--size must be positive"),
        (["--size", "big"], "--size must be WIDTHxHEIGHT"),
        (["--size", "4x4", "--set", "lamp=1"], "no uniform 'lamp' (uniforms: image, light, palette, tint)"),
        (["--size", "4x4", "--set", "tint=1,2"], "--set tint: a vector float 4 takes 4 numbers, not [1, 2]"),
        (["--size", "4x4", "--set", "light.power=1,2"], "--set light: a float takes one value, not [1, 2]"),
        (["--size", "4x4", "--set", 'light.power={"x":1}'], 'a float takes one value, not {"x": 1}'),
        (["--size", "4x4", "--set", "light.power=nan"], "must be a finite number"),
        (["--size", "4x4", "--set", "light.power=1e39"], "must be between"),
        (["--size", "4x4", "--set", "tint=" + "[" * 100_000], "nests deeper than 32 levels"),
        (["--size", "4x4", "--set", 'light={"power": [1]}'], "--set light.power: a float takes one value"),
        (["--size", "4x4", "--set", "palette=[[0,0,0,0]]"], "takes 2 elements"),
        # Found by tests/fuzz/fuzz_values.py: strings and nulls inside a vector reached the interpreter.
        (["--size", "4x4", "--set", 'palette[1]=[0, "none", 1, 0]'], 'a float takes a number, not "none"'),
        (["--size", "4x4", "--set", "tint=[0, null, 1, 0]"], "a float takes a number, not null"),
        (["--size", "4x4", "--set", "tint"], "--set takes NAME=VALUE"),
        (["--size", "4x4", "--set", "tint=red"], "is not a number"),
        (["--size", "4x4", "--set", "light.colour=1"], "has no field 'colour'"),
        (["--size", "4x4", "--set", "palette[5]=1,1,1,1"], "has 2 elements, no element 5"),
        (["--size", "4x4", "--set", "image=1"], "is a sampler: give @image.png"),
        (["--size", "4x4", "--set", "tint=@x.png"], "only samplers take @image.png"),
        (["--size", "4x4", "--set", "image=@missing.png"], "cannot read the image"),
        (["--size", "4x4", "--mesh", "teapot"], "unknown preview mesh 'teapot'"),
    ],
)
def test_errors_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str) -> None:
    source = tmp_path / "uniforms.vpl"
    source.write_text(UNIFORMS_MODULE, encoding="utf-8")
    out = tmp_path / "never.png"
    assert _run(str(source), *arguments, "--out", str(out)) == 2
    error = capsys.readouterr().err
    assert message in error and error.startswith(f"{source}: error: ")
    assert not out.exists()


def test_a_value_of_the_wrong_shape_is_refused_on_the_preview_scene_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The preview scene's parameters splat or cut vectors; a command-line value must fit its type exactly.
    for value in ("1,2", '{"x":1}', "[[1]]"):
        out = tmp_path / "never.png"
        assert _run(str(LIT), "--size", "8x8", "--mesh", "sphere", "--set", f"shininess={value}", "--out", str(out)) == 2
        assert "--set shininess: a float takes one value" in capsys.readouterr().err
        assert not out.exists()


def test_reading_errors_use_the_diagnostic_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.vpl"
    broken.write_text("(module 2 (types) (uniforms) (vertex) (fragment))", encoding="utf-8")
    assert _run(str(broken), "--size", "4x4", "--out", str(tmp_path / "x.png")) == 1
    assert capsys.readouterr().err.startswith(f"{broken}:1:9: syntactic error: ")
    assert _run(str(tmp_path / "absent.vpl"), "--size", "4x4", "--out", str(tmp_path / "x.png")) == 1
    assert "cannot read" in capsys.readouterr().err


def test_the_command_in_a_fresh_process(tmp_path: Path) -> None:
    out = tmp_path / "loop.png"
    completed = subprocess.run([sys.executable, "-m", "vpl_core.cli", "run", str(LOOP), "--size", "8x8", "--out", str(out)],
                               capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr
    assert read_png(out).shape == (8, 8, 4)
    # The other commands do not pay for numpy or the interpreter at start-up.
    probe = subprocess.run([sys.executable, "-c", "import sys, vpl_core.cli; vpl_core.cli.build_parser(); print('numpy' in sys.modules)"],
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert probe.stdout.strip() == "False", probe.stderr


# PNG ---------------------------------------------------------------------------------------------


def test_png_round_trip() -> None:
    image = np.random.default_rng(3).integers(0, 256, size=(13, 7, 4), dtype=np.uint8)
    np.testing.assert_array_equal(decode_png(encode_png(image)), image)


def _png(width: int, height: int, color_type: int, rows: list[bytes], extra: bytes = b"") -> bytes:
    import struct

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")


def test_png_filters_and_colour_types() -> None:
    # Grey with the Sub filter, then Up, Average and Paeth rows: each decodes to the same ramp.
    ramp = bytes([10, 20, 30])
    sub = bytes([1, 10, 10, 10])
    up = bytes([2, 0, 0, 0])
    average = bytes([3, 5, 5, 5])   # left/2 + up/2: (0 + 10)/2 = 5 -> 10; (10 + 20)/2 = 15 -> 20; (20 + 30)/2 = 25 -> 30
    paeth = bytes([4, 0, 0, 0])
    grey = decode_png(_png(3, 5, 0, [bytes([0]) + ramp, sub, up, average, paeth]))
    assert grey[..., 0].tolist() == [[10, 20, 30]] * 5 and (grey[..., 3] == 255).all()
    palette = b"\x00\x00\x00\x03PLTE\xff\x00\x00" + zlib.crc32(b"PLTE\xff\x00\x00").to_bytes(4, "big")
    transparency = b"\x00\x00\x00\x01tRNS\x80" + zlib.crc32(b"tRNS\x80").to_bytes(4, "big")
    indexed = decode_png(_png(1, 1, 3, [bytes([0, 0])], palette + transparency))
    assert indexed[0, 0].tolist() == [255, 0, 0, 128]


def test_png_errors() -> None:
    with pytest.raises(PngError, match="signature"):
        decode_png(b"GIF89a")
    sixteen = _png(1, 1, 0, [bytes([0, 0, 0])]).replace(b"\x00\x00\x00\x01\x00\x00\x00\x01\x08", b"\x00\x00\x00\x01\x00\x00\x00\x01\x10")
    with pytest.raises(PngError):
        decode_png(sixteen)
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((2, 2, 3), dtype=np.uint8))


def test_a_png_announcing_too_many_pixels_is_refused_before_inflating() -> None:
    # 64 MB of zeros compress to about 64 KB: the header's size, not the file's, says what inflating costs.
    header = struct.pack(">IIBBBBB", 20000, 20000, 8, 0, 0, 0, 0)
    body = zlib.compress(b"\0" * (64 << 20), 9)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    with pytest.raises(PngError, match=r"a 20000x20000 image; at most 67108864 pixels are read"):
        decode_png(png)


def test_mesh_without_the_editors_scene_says_what_is_missing() -> None:
    """`--mesh` finds the preview scene through the `vpl.scenes` entry points; none installed is a usage error."""
    from vpl_core.interp.run import SCENE_GROUP, UsageError, scene_renderer

    with pytest.raises(UsageError, match=f"entry point 'preview' in group '{SCENE_GROUP}'"):
        scene_renderer(entries=[])


def test_the_editor_registers_its_preview_scene() -> None:
    from app.preview.cpu_renderer import CpuRenderer
    from vpl_core.interp.run import scene_renderer

    assert isinstance(scene_renderer(), CpuRenderer)


EXAMPLE = ROOT / "app" / "material" / "examples" / "rough_plastic.vpl"


def test_an_editor_material_gets_the_preview_scene_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A module reading the editor's `scene` record draws nothing in a full-screen pass (its matrices read zero):
    without --mesh it is drawn as the preview draws it, on the sphere."""
    default, sphere = tmp_path / "default.png", tmp_path / "sphere.png"
    assert _run(str(EXAMPLE), "--size", "32x32", "--out", str(default)) == 0
    assert capsys.readouterr().err == ""
    assert _run(str(EXAMPLE), "--size", "32x32", "--mesh", "sphere", "--out", str(sphere)) == 0
    image = read_png(default)
    np.testing.assert_array_equal(image, read_png(sphere))
    assert (image[..., 3] == 255).all()
    covered = (image != image[0, 0]).any(axis=-1)  # pixels other than the background's (the corner's)
    assert 200 < covered.sum() < 32 * 32  # the sphere, not a blank or a full-screen frame


def test_a_frame_where_nothing_was_drawn_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "discarding.vpl"
    source.write_text(fragment_module("", "(discard)"), encoding="utf-8")
    out = tmp_path / "nothing.png"
    assert _run(str(source), "--size", "8x8", "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert "note: nothing was drawn" in err and str(source) in err
    assert (read_png(out)[..., 3] == 0).all()
