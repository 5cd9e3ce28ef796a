"""Export for engines (issue 16, item 10): the material section, texture files, the preview's stage with its
environment, and a sample host that renders every example to the preview's pixels (tools/engine_host.py, plain
PyOpenGL on EGL, no editor code, written from docs/engine-integration.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import OpenImageIO as oiio  # noqa: N813 - the library's own alias
import pytest

from app.material.document import load_file, save_file
from app.material.examples import example_names, example_path
from app.material.graph import MaterialGraph, ParameterVariant
from app.preview.preview_state import preview_lighting
from app.preview.stage import Stage
from app.session import EditorSession
from app.session.recovery import RecoveryStore

ROOT = Path(__file__).resolve().parents[3]
HOST = ROOT / "tools" / "engine_host.py"
HOST_RUNNER = ROOT / "tests" / "engine_host_runner.py"
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


def _export(source: Path, out_dir: Path, copy_textures: bool, stage: Stage | None = None) -> Path:
    """Export as File > Export GLSL does, with the preview's stage (the default one unless given)."""
    session = EditorSession(RecoveryStore(out_dir.parent / "recovery"))
    loaded = load_file(source)
    assert loaded.graph is not None, loaded.message
    session.open_graph(loaded.graph, source, source.name)
    written = session.export(out_dir, copy_textures=copy_textures, lighting=preview_lighting(stage or Stage()))
    assert written is not None and all(path.is_file() for path in written)
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
    # An Unlit Output material: a display colour, no environment samplers; the default stage.
    assert material["output"] == {"name": "color", "gl_name": material["output"]["gl_name"], "location": 0, "radiance": False}
    assert material["environment_samplers"] == []
    preview = material["preview"]
    assert preview["tone_mapper"] == "pbr_neutral" and preview["background"]["mode"] == "color"
    assert preview["light"]["intensity"] == 3.0 and preview["mesh"] == "sphere"


def test_a_surface_output_export_says_how_to_light_and_show_it(tmp_path: Path) -> None:
    stage = Stage()
    stage.set_environment("neutral", rotation=90.0, intensity=2.0)
    stage.set_exposure(-1.0)
    stage.set_tone_mapper("agx")
    stage.set_background("blurred")
    exported = _export(example_path("polished_gold"), tmp_path / "out", copy_textures=False, stage=stage)
    material = json.loads(exported.read_text(encoding="utf-8"))["material"]
    assert material["output"]["name"] == "radiance" and material["output"]["radiance"] is True
    samplers = {entry["name"]: entry for entry in material["environment_samplers"]}
    assert list(samplers) == ["environment_specular", "environment_irradiance", "environment_brdf"]
    assert samplers["environment_specular"]["min_filter"] == "linear_mipmap_linear"
    assert samplers["environment_brdf"]["wrap"] == ["clamp_to_edge", "clamp_to_edge"]
    assert all(entry["gl_name"].startswith("vpl_u") for entry in samplers.values())
    assert not {entry["name"] for entry in material["parameters"]} & set(samplers)
    preview = material["preview"]
    assert (preview["exposure"], preview["tone_mapper"], preview["background"]["mode"]) == (-1.0, "agx", "blurred")
    environment = preview["environment"]
    assert environment["name"] == "neutral" and environment["intensity"] == 2.0
    assert environment["rotation"] == pytest.approx(np.pi / 2) and environment["max_lod"] == 5.0
    assert preview["background"]["lod"] == pytest.approx(5.0 * 0.35 * (2.0 - 0.35))
    np.testing.assert_allclose(np.linalg.norm(preview["light"]["direction"]), 1.0)
    # The images: half floats, top row first (the zenith of the neutral gradient is brighter than its ground).
    files = environment["files"]
    assert len(files["environment_specular"]) == 6
    level0 = _read_exr(tmp_path / "out" / files["environment_specular"][0])
    assert level0.shape == (512, 1024, 3) and level0[0].mean() > level0[-1].mean()
    from app.preview.preview_state import prepare_environment

    maps, table = prepare_environment("neutral")
    np.testing.assert_array_equal(level0[::-1], maps.specular[0].astype(np.float32))
    brdf = _read_exr(tmp_path / "out" / files["environment_brdf"])
    np.testing.assert_array_equal(brdf[::-1, :, :2], table.astype(np.float16).astype(np.float32))
    assert (brdf[..., 2] == 0).all()


def _read_exr(path: Path) -> np.ndarray:
    buffer = oiio.ImageBuf(str(path))
    assert buffer.spec().format == oiio.TypeDesc("half"), buffer.spec().format
    return np.asarray(buffer.get_pixels(oiio.FLOAT))


def test_the_sample_host_builds_the_previews_sphere_and_tangents_from_the_documentation() -> None:
    import importlib.util

    from app.preview.mesh import uv_sphere

    spec = importlib.util.spec_from_file_location("engine_host", HOST)
    assert spec is not None and spec.loader is not None
    host = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(host)
    built, preview = host.sphere(), uv_sphere()
    np.testing.assert_array_equal(built["indices"], preview.indices)
    for name, array in (("position", preview.positions), ("normal", preview.normals), ("texcoord", preview.texcoords)):
        np.testing.assert_allclose(built[name], array, atol=1e-6, err_msg=name)
    used = np.unique(preview.indices)  # the two pole vertices no triangle uses get any tangent
    np.testing.assert_allclose(built["tangent"][used], preview.tangents[used], atol=2e-6)


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


@pytest.fixture(scope="module")
def host() -> Iterator[subprocess.Popen]:
    """The sample engine host, one process for the module's pictures (tests/engine_host_runner.py: each
    picture in a fresh EGL context, as a new host process would draw it)."""
    environment = dict(os.environ, PYOPENGL_PLATFORM="egl")
    process = subprocess.Popen([sys.executable, str(HOST_RUNNER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, env=environment)
    yield process
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=60) == 0


def _host_command(exported: Path, raw: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The host run as docs/engine-integration.md shows it, one process for the picture."""
    arguments = [sys.executable, str(HOST), str(exported), "--size", f"{SIZE[0]}x{SIZE[1]}", "--raw", str(raw),
                 "--out", str(raw.with_suffix(".png"))]
    return subprocess.run(arguments, capture_output=True, text=True, timeout=300,
                          env=dict(environment, PYOPENGL_PLATFORM="egl"), cwd=raw.parent)


def _host_command_pixels(exported: Path, tmp_path: Path, environment: dict[str, str] | None = None) -> np.ndarray:
    raw = tmp_path / f"{exported.stem}-command.npy"
    completed = _host_command(exported, raw, dict(os.environ) if environment is None else environment)
    assert completed.returncode == 0, completed.stderr
    return np.load(raw)


def _host_pixels(host: subprocess.Popen, exported: Path, tmp_path: Path, variant: str | None = None) -> np.ndarray:
    raw = tmp_path / f"{exported.stem}-{variant or 'active'}.npy"
    request = {"export": str(exported), "width": SIZE[0], "height": SIZE[1], "variant": variant, "raw": str(raw),
               "out": str(raw.with_suffix(".png"))}
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write(json.dumps(request) + "\n")
    host.stdin.flush()
    answer = host.stdout.readline()
    assert answer, f"the sample host's process ended (exit status {host.poll()})"
    assert answer == "ok\n", json.loads(answer.removeprefix("error: ")) if answer.startswith("error: ") else answer
    return np.load(raw)


def _preview_pixels(source: Path, tmp_path: Path, stage: Stage | None = None) -> np.ndarray:
    from PySide6.QtGui import QImage

    from app.preview.images import qimage_to_rgba
    from app.preview.screenshot import preview_screenshot

    png = tmp_path / f"{source.stem}.preview.png"
    # The live frame: the exported module is the split-sum one the sample host draws (the preview's final
    # frames refine the environment light, docs/lighting.md).
    assert preview_screenshot(str(source), str(png), SIZE, gl="desktop", stage=stage, refined=False) == 0
    return qimage_to_rgba(QImage(str(png)))


def _assert_same_picture(host: np.ndarray, preview: np.ndarray) -> None:
    assert host.shape == preview.shape
    difference = np.abs(host.astype(int) - preview.astype(int))
    assert difference.max() <= 1, f"{int((difference > 1).sum())} channel values differ by more than 1/255"
    assert len({tuple(pixel) for pixel in preview[::4, ::4, :3].reshape(-1, 3)}) > 3  # a real picture


#: The examples made in texture space (Texture Buffers, filters): the export carries their passes.
TEXTURE_SPACE_EXAMPLES = [name for name in example_names() if '"texture_buffer"' in example_path(name).read_text()]


def test_the_texture_space_examples_are_the_documented_ones() -> None:
    assert {"stone_wall", "rusted_metal", "wet_cobblestones", "scattered_pebbles"} <= set(TEXTURE_SPACE_EXAMPLES)


@pytest.mark.gl
@pytest.mark.parametrize("name", example_names())
def test_the_sample_host_renders_every_example_as_the_preview_does(qapp, host, tmp_path: Path, name: str) -> None:
    exported = _export(example_path(name), tmp_path / "out", copy_textures=True)
    _assert_same_picture(_host_pixels(host, exported, tmp_path), _preview_pixels(example_path(name), tmp_path))


#: Stages beyond the default one (studio, colour background, PBR Neutral at 0 EV): the environment behind the
#: material, sharp and blurred, rotated and scaled; the other tone mappers; exposure; another light.
HOST_STAGES = {
    "outdoor-blurred-aces": {"environment": ("outdoor", 60.0, 1.0), "background": "blurred", "tone_mapper": "aces",
                             "exposure": -2.5, "light": (70.0, 20.0, (1.0, 0.95, 0.9), 5.0)},
    "studio-environment-agx": {"environment": ("studio", -120.0, 1.4), "background": "environment", "tone_mapper": "agx",
                               "exposure": 0.5, "light": (-34.0, 37.0, (1.0, 1.0, 1.0), 3.0)},
    "none-color-reinhard": {"environment": ("none", 0.0, 1.0), "background": "color", "tone_mapper": "reinhard",
                            "exposure": 1.0, "light": (0.0, 80.0, (0.5, 0.6, 1.0), 2.0)},
}


def _host_stage(description: dict) -> Stage:
    stage = Stage()
    name, rotation, intensity = description["environment"]
    stage.set_environment(name, rotation=rotation, intensity=intensity)
    stage.set_background(description["background"])
    stage.set_tone_mapper(description["tone_mapper"])
    stage.set_exposure(description["exposure"])
    azimuth, elevation, color, intensity = description["light"]
    stage.set_light(azimuth=azimuth, elevation=elevation, color=color, intensity=intensity)
    return stage


@pytest.mark.gl
@pytest.mark.parametrize("stage_name", sorted(HOST_STAGES))
@pytest.mark.parametrize("name", ["painted_metal", "glazed_ceramic", "lit_blinn_phong"])
def test_the_sample_host_renders_other_stages_as_the_preview_does(qapp, host, tmp_path: Path, name: str, stage_name: str) -> None:
    stage = _host_stage(HOST_STAGES[stage_name])
    exported = _export(example_path(name), tmp_path / "out", copy_textures=True, stage=stage)
    _assert_same_picture(_host_pixels(host, exported, tmp_path), _preview_pixels(example_path(name), tmp_path, stage))


@pytest.mark.gl
def test_the_sample_host_renders_textures_and_variants_as_the_preview_does(qapp, host, tmp_path: Path) -> None:
    source = _textured_material(tmp_path / "project")
    exported = _export(source, tmp_path / "out", copy_textures=True)
    _assert_same_picture(_host_pixels(host, exported, tmp_path), _preview_pixels(source, tmp_path))
    # The variant, as the preview shows it once it is the active one.
    loaded = load_file(source)
    assert loaded.graph is not None
    loaded.graph.active_variant = "worn"
    worn = tmp_path / "project" / "worn.vpl"
    save_file(worn, loaded.graph)
    _assert_same_picture(_host_pixels(host, exported, tmp_path, "worn"), _preview_pixels(worn, tmp_path))


@pytest.mark.gl
def test_the_sample_host_binds_white_for_the_vertex_colour_of_a_mesh_without(qapp, tmp_path: Path) -> None:
    # The export lists vertex input 4 (colour); the host's sphere has none, so it binds the documented constant.
    graph = MaterialGraph()
    vertex_color = graph.add_node("vertex_color", (-400, 0))
    tint = graph.add_node("color_parameter", (-400, 200), {"name": "tint", "default": (0.8, 0.3, 0.1, 1.0)})
    multiply = graph.add_node("multiply", (-200, 0))
    output = graph.add_node("surface_output", (0, 0), {"roughness": 0.4})
    graph.connect(vertex_color.id, "color", multiply.id, "a")
    graph.connect(tint.id, "out", multiply.id, "b")
    graph.connect(multiply.id, "out", output.id, "base_color")
    source = tmp_path / "vertex_color.vpl"
    save_file(source, graph)
    exported = _export(source, tmp_path / "out", copy_textures=False)
    material = json.loads(exported.read_text(encoding="utf-8"))["material"]
    assert {"location": 4, "name": "color", "type": "vector float 4"} in material["vertex_inputs"]
    # The host's command line (the other tests draw through one host process, tests/engine_host_runner.py).
    _assert_same_picture(_host_command_pixels(exported, tmp_path), _preview_pixels(source, tmp_path))


def _without_window_system() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name not in ("DISPLAY", "WAYLAND_DISPLAY", "EGL_PLATFORM")}


@pytest.mark.gl
def test_the_sample_host_draws_the_same_picture_without_any_window_system(host, tmp_path: Path) -> None:
    # The host picks a headless EGL platform itself: the display of the tests' Xvfb, none at all, or one
    # naming no server (with Mesa's EGL_PLATFORM pointing at X11 or Wayland) draw the same bytes.
    exported = _export(example_path("polished_gold"), tmp_path / "out", copy_textures=False)
    expected = _host_pixels(host, exported, tmp_path)
    no_server = next(f":{number}" for number in range(1000, 2000) if not Path(f"/tmp/.X11-unix/X{number}").exists()
                     and not Path(f"/tmp/.X{number}-lock").exists())
    for name, environment in (("none", _without_window_system()),
                              ("x11", dict(_without_window_system(), DISPLAY=no_server, EGL_PLATFORM="x11")),
                              ("wayland", dict(_without_window_system(), EGL_PLATFORM="wayland"))):
        (tmp_path / name).mkdir()
        np.testing.assert_array_equal(_host_command_pixels(exported, tmp_path / name, environment), expected,
                                      err_msg=name)


@pytest.mark.gl
def test_when_egl_cannot_start_the_sample_host_names_the_platform_it_tried(tmp_path: Path) -> None:
    exported = _export(example_path("polished_gold"), tmp_path / "out", copy_textures=False)
    # Mesa loads its drivers from LIBGL_DRIVERS_PATH: an empty folder leaves eglInitialize nothing to start.
    broken = dict(_without_window_system(), LIBGL_DRIVERS_PATH=str(tmp_path))
    completed = _host_command(exported, tmp_path / "picture.npy", broken)
    assert completed.returncode != 0 and not (tmp_path / "picture.npy").exists()
    last = completed.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: eglInitialize failed on the device platform") and "EGL_NOT_INITIALIZED" in last, \
        completed.stderr


# --- texture passes -------------------------------------------------------------------------------


def _session(source: Path, tmp_path: Path) -> EditorSession:
    session = EditorSession(RecoveryStore(tmp_path / "recovery"))
    loaded = load_file(source)
    assert loaded.graph is not None, loaded.message
    session.open_graph(loaded.graph, source, source.name)
    return session


def test_the_export_writes_every_texture_pass_and_how_to_run_it(tmp_path: Path) -> None:
    exported = _export(example_path("stone_wall"), tmp_path / "out", copy_textures=False)
    material = json.loads(exported.read_text(encoding="utf-8"))["material"]
    passes = material["passes"]
    run = passes["run"]
    assert passes["target"] == "glsl420" and len(run) > 10
    for number, entry in enumerate(run):
        assert entry["index"] == number
        stem = f"stone_wall.pass{number}"
        assert (entry["vertex"], entry["fragment"], entry["reflection"]) == (
            f"{stem}.vert.glsl", f"{stem}.frag.glsl", f"{stem}.json")
        assert (tmp_path / "out" / entry["vertex"]).read_text().startswith("#version 420")
        reflection = json.loads((tmp_path / "out" / entry["reflection"]).read_text(encoding="utf-8"))
        declared = {binding["gl_name"] for binding in reflection["uniforms"]}
        # Every uniform of the pass is accounted for: the scene, earlier passes, parameters, filter values.
        named = {entry["scene"]} | {item["gl_name"] for key in ("inputs", "parameters", "values") for item in entry[key]}
        assert named == declared, entry["label"]
        assert all(item["pass"] < number for item in entry["inputs"])
        buffer = entry["buffer"]
        assert buffer["resolution"] in (256, 512, 1024, 2048, 4096) and buffer["wrap"] in ("repeat", "clamp_to_edge")
        assert buffer["internal_format"] == {"8-bit": "rgba8", "16-bit": "rgba16f", "float": "rgba32f"}[buffer["format"]]
    # A parameter inside a buffer's sub-graph: the pass takes the material parameter's value; the material
    # program does not declare it.
    (buffer_pass,) = [entry for entry in run if [item["name"] for item in entry["parameters"]] == ["height_variation"]]
    assert buffer_pass["label"].startswith("Texture Buffer '")
    parameters = {entry["name"]: entry for entry in material["parameters"]}
    assert parameters["height_variation"]["gl_name"] is None
    # The material's samplers of pass buffers: every `__pass_` uniform of its reflection, each bound.
    reflection = json.loads(exported.read_text(encoding="utf-8"))
    samplers = {binding["name"] for binding in reflection["uniforms"] if binding["name"].startswith("__pass_")}
    assert samplers and {entry["uniform"] for entry in passes["material_inputs"]} == samplers
    assert passes["scene"]["model"] == "identity" and passes["clear"] == [0.0, 0.0, 0.0, 0.0]
    assert passes["quad"]["indices"] == [[0, 1, 2], [0, 2, 3]]


def test_the_same_material_exports_the_same_bytes(tmp_path: Path) -> None:
    first = _export(example_path("scattered_pebbles"), tmp_path / "a", copy_textures=True).parent
    second = _export(example_path("scattered_pebbles"), tmp_path / "b", copy_textures=True).parent
    names = sorted(path.name for path in first.iterdir())
    assert names == sorted(path.name for path in second.iterdir()) and "scattered_pebbles.pass0.frag.glsl" in names
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def _float_buffer_material(directory: Path) -> Path:
    """Unlit output <- a float, clamped, mip-mapped Texture Buffer of noise, read at a scaled texcoord."""
    graph = MaterialGraph()
    output = graph.add_node("material_output", (600, 0))
    noise = graph.add_node("white_noise", (0, 0), {"scale": 16.0})
    buffer = graph.add_node("texture_buffer", (200, 0), {"resolution": "256", "format": "float", "tiling": "clamp",
                                                         "mipmaps": True})
    graph.connect(noise.id, "out", buffer.id, "input")
    graph.connect(buffer.id, "out", output.id, "base_color")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "float_buffer.vpl"
    save_file(path, graph)
    return path


def test_an_es_export_compiles_every_pass_for_es_and_names_the_float_fallback(tmp_path: Path) -> None:
    session = _session(_float_buffer_material(tmp_path / "project"), tmp_path)
    written = session.export(tmp_path / "out", target="es320")
    assert written is not None
    material = json.loads((tmp_path / "out" / "float_buffer.json").read_text(encoding="utf-8"))["material"]
    (entry,) = material["passes"]["run"]
    assert material["passes"]["target"] == "es320"
    assert (tmp_path / "out" / entry["fragment"]).read_text().startswith("#version 320 es")
    assert (tmp_path / "out" / "float_buffer.frag.glsl").read_text().startswith("#version 320 es")
    assert entry["buffer"] == {"resolution": 256, "format": "float", "internal_format": "rgba32f",
                               "internal_format_without_float_linear": "rgba16f", "wrap": "clamp_to_edge",
                               "mipmaps": True, "min_filter": "linear_mipmap_linear", "mag_filter": "linear"}


def test_a_pass_with_a_uniform_an_engine_cannot_set_refuses_the_export_naming_the_node(tmp_path: Path) -> None:
    from app.session.engine_passes import ExportRefusedError, pass_export

    session = _session(example_path("stone_wall"), tmp_path)
    session.lower()
    programs = session.preview_passes()
    artifact = session.current_artifact
    assert programs is not None and artifact is not None
    # Without the parameter only a buffer's sub-graph declares, its pass reads a uniform nothing sets.
    specs = [spec for spec in session.parameters.specs if spec.name != "height_variation"]
    with pytest.raises(ExportRefusedError, match=r"Texture Buffer '\w+': .*'height_variation'"):
        pass_export(programs, artifact, specs, "stone_wall", "glsl420")
    # A target a pass has no program for refuses too, naming the pass's node.
    broken = replace(programs, artifacts=(), problem="Blur 'n3': the target cannot express it")
    with pytest.raises(ExportRefusedError, match="Blur 'n3'"):
        pass_export(broken, artifact, session.parameters.specs, "stone_wall", "glsl420")


@pytest.mark.gl
def test_the_sample_host_runs_a_float_clamped_mipmapped_buffer_as_the_preview_does(qapp, host, tmp_path: Path) -> None:
    source = _float_buffer_material(tmp_path / "project")
    exported = _export(source, tmp_path / "out", copy_textures=False)
    _assert_same_picture(_host_pixels(host, exported, tmp_path), _preview_pixels(source, tmp_path))
