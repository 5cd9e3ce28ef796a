"""Export for engines (issue 16, item 10): the material section, texture files, and a sample host that
renders every example to the preview's pixels (tools/engine_host.py, plain PyOpenGL on EGL, no editor code)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import OpenImageIO as oiio  # noqa: N813 - the library's own alias
import pytest

from app.material.document import load_file, save_file
from app.material.examples import example_names, example_path
from app.material.graph import MaterialGraph, ParameterVariant
from app.session import EditorSession
from app.session.recovery import RecoveryStore

ROOT = Path(__file__).resolve().parents[3]
HOST = ROOT / "tools" / "engine_host.py"
SIZE = (160, 128)


def _write_image(path: Path, pixels: np.ndarray, data_format: str) -> None:
    output = oiio.ImageOutput.create(str(path))
    output.open(str(path), oiio.ImageSpec(pixels.shape[1], pixels.shape[0], pixels.shape[2], data_format))
    output.write_image(pixels)
    output.close()


def _textured_material(directory: Path) -> Path:
    """A saved material with an 8-bit colour map, a half-float data map, a variant and a colour parameter."""
    (directory / "maps").mkdir(parents=True)
    ramp = np.zeros((16, 16, 3), np.uint8)
    ramp[..., 0] = np.arange(16)[None, :] * 16
    ramp[..., 1] = np.arange(16)[:, None] * 12
    _write_image(directory / "maps" / "albedo.png", ramp, "uint8")
    _write_image(directory / "maps" / "other.png", np.full((4, 4, 3), 90, np.uint8), "uint8")
    _write_image(directory / "maps" / "height.exr", np.linspace(0.0, 2.0, 64, dtype=np.float32).reshape(8, 8, 1), "half")
    graph = MaterialGraph()
    albedo = graph.add_node("texture_parameter", (0, 0), {"name": "albedo", "image": "maps/albedo.png"})
    height = graph.add_node("texture_parameter", (0, 200), {"name": "height", "image": "maps/height.exr"})
    sample = graph.add_node("sample_texture", (200, 0))
    sample_height = graph.add_node("sample_texture", (200, 200))
    tint = graph.add_node("color_parameter", (200, 400), {"name": "tint", "default": (1.0, 0.8, 0.6, 1.0)})
    mix = graph.add_node("multiply", (400, 0))
    glow = graph.add_node("multiply", (400, 200))
    scale = graph.add_node("float_parameter", (200, 600), {"name": "glow", "default": 0.25, "minimum": 0.0, "maximum": 2.0})
    output = graph.add_node("material_output", (600, 0))
    graph.connect(albedo.id, "out", sample.id, "texture")
    graph.connect(height.id, "out", sample_height.id, "texture")
    graph.connect(sample.id, "rgba", mix.id, "a")
    graph.connect(tint.id, "out", mix.id, "b")
    graph.connect(mix.id, "out", output.id, "base_color")
    graph.connect(sample_height.id, "rgb", glow.id, "a")
    graph.connect(scale.id, "out", glow.id, "b")
    graph.connect(glow.id, "out", output.id, "emissive")
    graph.variants = [ParameterVariant("worn", {"tint": (0.5, 0.5, 0.5, 1.0), "albedo": "maps/other.png"})]
    path = directory / "painted.vpl"
    save_file(path, graph)
    return path


def _export(source: Path, out_dir: Path, copy_textures: bool) -> Path:
    session = EditorSession(RecoveryStore(out_dir.parent / "recovery"))
    loaded = load_file(source)
    assert loaded.graph is not None, loaded.message
    session.open_graph(loaded.graph, source, source.name)
    written = session.export(out_dir, copy_textures=copy_textures)
    assert written is not None
    return next(path for path in written if path.suffix == ".json")


def test_the_material_section_describes_every_parameter_and_texture(tmp_path: Path) -> None:
    source = _textured_material(tmp_path / "project")
    exported = _export(source, tmp_path / "out", copy_textures=False)
    material = json.loads(exported.read_text(encoding="utf-8"))["material"]
    assert material["format"] == "vpl-material-export" and material["version"] == 1
    parameters = {entry["name"]: entry for entry in material["parameters"]}
    assert set(parameters) == {"albedo", "height", "tint", "glow"}
    glow = parameters["glow"]
    assert (glow["kind"], glow["type"], glow["widget"], glow["default"], glow["minimum"], glow["maximum"]) == (
        "float", "float", "slider", 0.25, 0.0, 2.0)
    assert glow["gl_name"].startswith("vpl_u")
    assert parameters["tint"]["type"] == "vec4" and parameters["tint"]["widget"] == "color"
    assert parameters["albedo"]["default"] == "../project/maps/albedo.png"  # relative to the JSON file
    assert parameters["albedo"]["color_space"] == "srgb"
    textures = {(entry["parameter"], entry["variant"]): entry for entry in material["textures"]}
    assert textures[("height", None)]["high_precision"] and textures[("height", None)]["size"] == [8, 8]
    assert material["variants"] == [{"name": "worn", "values": {"albedo": "../project/maps/other.png",
                                                                "tint": [0.5, 0.5, 0.5, 1.0]}}]
    assert material["active_variant"] is None
    assert [field["name"] for field in material["scene"]["fields"]][:3] == ["model", "view", "projection"]


def test_textures_are_copied_beside_the_export_when_asked(tmp_path: Path) -> None:
    source = _textured_material(tmp_path / "project")
    exported = _export(source, tmp_path / "out", copy_textures=True)
    material = json.loads(exported.read_text(encoding="utf-8"))["material"]
    files = sorted(entry["file"] for entry in material["textures"])
    assert files == ["albedo.png", "height.exr", "other.png"]
    for name in files:
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "project" / "maps" / name).read_bytes()


def test_a_missing_texture_is_exported_as_the_checker_with_its_problem(tmp_path: Path) -> None:
    source = _textured_material(tmp_path / "project")
    (tmp_path / "project" / "maps" / "albedo.png").unlink()
    material = json.loads(_export(source, tmp_path / "out", True).read_text(encoding="utf-8"))["material"]
    albedo = next(entry for entry in material["textures"] if entry["parameter"] == "albedo" and entry["variant"] is None)
    assert albedo["file"] is None and "no such file" in albedo["problem"]


def _host_pixels(exported: Path, tmp_path: Path, variant: str | None = None) -> np.ndarray:
    raw = tmp_path / f"{exported.stem}-{variant or 'active'}.npy"
    arguments = [sys.executable, str(HOST), str(exported), "--size", f"{SIZE[0]}x{SIZE[1]}", "--raw", str(raw),
                 "--out", str(raw.with_suffix(".png"))]
    arguments += ["--variant", variant] if variant else []
    environment = dict(os.environ, PYOPENGL_PLATFORM="egl")
    completed = subprocess.run(arguments, capture_output=True, text=True, timeout=300, env=environment, cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    return np.load(raw)


def _preview_pixels(source: Path, tmp_path: Path) -> np.ndarray:
    from PySide6.QtGui import QImage

    from app.preview.images import qimage_to_rgba
    from app.preview.screenshot import preview_screenshot

    png = tmp_path / f"{source.stem}.preview.png"
    assert preview_screenshot(str(source), str(png), SIZE, gl="desktop") == 0
    return qimage_to_rgba(QImage(str(png)))


def _assert_same_picture(host: np.ndarray, preview: np.ndarray) -> None:
    assert host.shape == preview.shape
    difference = np.abs(host.astype(int) - preview.astype(int))
    assert difference.max() <= 1, f"{int((difference > 1).sum())} channel values differ by more than 1/255"
    assert len({tuple(pixel) for pixel in preview[::4, ::4, :3].reshape(-1, 3)}) > 3  # a real picture


@pytest.mark.xfail(strict=True, reason="the host does not follow the HDR/IBL host contract of the Surface Output yet (docs/preview.md)")
@pytest.mark.gl
@pytest.mark.parametrize("name", example_names())
def test_the_sample_host_renders_every_example_as_the_preview_does(qapp, tmp_path: Path, name: str) -> None:
    exported = _export(example_path(name), tmp_path / "out", copy_textures=True)
    _assert_same_picture(_host_pixels(exported, tmp_path), _preview_pixels(example_path(name), tmp_path))


@pytest.mark.xfail(strict=True, reason="the host does not follow the HDR/IBL host contract of the Surface Output yet (docs/preview.md)")
@pytest.mark.gl
def test_the_sample_host_renders_textures_and_variants_as_the_preview_does(qapp, tmp_path: Path) -> None:
    source = _textured_material(tmp_path / "project")
    exported = _export(source, tmp_path / "out", copy_textures=True)
    _assert_same_picture(_host_pixels(exported, tmp_path), _preview_pixels(source, tmp_path))
    # The variant, as the preview shows it once it is the active one.
    loaded = load_file(source)
    assert loaded.graph is not None
    loaded.graph.active_variant = "worn"
    worn = tmp_path / "project" / "worn.vpl"
    save_file(worn, loaded.graph)
    _assert_same_picture(_host_pixels(exported, tmp_path, "worn"), _preview_pixels(worn, tmp_path))
