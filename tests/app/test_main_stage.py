"""`vpl-editor FILE --preview-screenshot PNG` with the stage options: --mesh, --environment, --exposure,
--tone-mapper, --time, --set NAME=VALUE; wrong values give one line on stderr and exit 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.main import main
from app.preview.images import load_image_rgba

# These tests compare frames drawn alike with other stage options: few refined frames (tests/conftest.py).
pytestmark = [pytest.mark.gl, pytest.mark.usefixtures("few_refined_frames")]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"
GOLD = EXAMPLES / "polished_gold.vpl"


def _shot(tmp_path: Path, name: str, *options: str, source: Path = GOLD) -> np.ndarray:
    png = tmp_path / f"{name}.png"
    assert main([str(source), "--preview-screenshot", str(png), "--size", "64x64", *options]) == 0
    return load_image_rgba(str(png)).astype(int)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--mesh", "teapot"], "unknown mesh 'teapot'"),
        (["--mesh", "missing/file.obj"], "unknown mesh"),
        (["--environment", "sunset"], "unknown environment 'sunset'"),
        (["--exposure", "bright"], "exposure"),
        (["--exposure", "99"], "between -32 and 32"),
        (["--tone-mapper", "filmic"], "unknown tone mapper 'filmic'"),
        (["--time", "soon"], "--time"),
        (["--time", "-2"], "--time"),
        (["--time", "nan"], "--time"),
        (["--time", "1e308"], "--time (seconds) must be between 0 and 86400"),
        (["--set", "roughness=nan"], "finite"),
        (["--set", "roughness=inf"], "finite"),
        (["--set", "roughness=1e39"], "between"),
        (["--set", "shininess=3"], "no parameter of that name"),
        (["--set", "roughness"], "expected NAME=VALUE"),
        (["--set", "roughness=0.1,0.2"], "expected one number"),
        (["--set", "gold=#12345"], "#RRGGBB"),
        (["--set", "gold=1,0"], "3 or 4 numbers"),
        (["--size", "0x5"], "size"),
    ],
)
def test_a_wrong_value_is_one_line_and_exit_2(qapp, tmp_path: Path, capsys, options: list[str], message: str) -> None:
    png = tmp_path / "never.png"
    assert main([str(GOLD), "--preview-screenshot", str(png), "--size", "32x32", *options]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and message in error[0], error
    assert not png.exists()


def test_what_reading_the_environment_changed_is_a_note(qapp, tmp_path: Path, capsys) -> None:
    # NaN, infinite and negative texels are replaced; the window's preview says so, and the command line did not.
    import OpenImageIO as oiio  # noqa: N813 - the library's own alias

    texels = np.ones((64, 128, 3), np.float32)
    texels[0, 0, 0], texels[1, 1, 1], texels[2, 2, 2] = np.nan, np.inf, -1.0
    path = tmp_path / "spotted.exr"
    output = oiio.ImageOutput.create(str(path))
    output.open(str(path), oiio.ImageSpec(128, 64, 3, "float"))
    output.write_image(texels)
    output.close()
    _shot(tmp_path, "spotted", "--environment", str(path))
    notes = capsys.readouterr().err
    assert f"note: the environment {path}: 2 texel(s) were NaN or infinite and were set to 0" in notes, notes
    assert "1 texel(s) had negative values, clamped to 0" in notes, notes


def test_a_document_whose_graph_does_not_lower_says_why_its_placeholder_is_drawn(qapp, tmp_path: Path, capsys) -> None:
    # Saved with the magenta placeholder module; the window lists the graph's errors, the command line drew
    # the placeholder with nothing said.
    from app.material.document import save_file
    from app.material.graph import MaterialGraph

    graph = MaterialGraph()
    graph.add_node("multiply")
    document = tmp_path / "no_output.vpl"
    save_file(document, graph)
    _shot(tmp_path, "placeholder", source=document)
    notes = capsys.readouterr().err
    assert f"{document}: note: the graph does not lower (" in notes and "the module saved with it is drawn" in notes, notes


def test_set_changes_a_parameter_and_hex_colours_are_srgb(qapp, tmp_path: Path) -> None:
    default = _shot(tmp_path, "default")
    red = _shot(tmp_path, "red", "--set", "gold=#ff0000", "--set", "roughness=0.6")
    floats = _shot(tmp_path, "floats", "--set", "gold=1,0,0", "--set", "roughness=0.6")
    centre = (32, 32)
    assert not (default[centre] == red[centre]).all()
    assert red[centre][0] > 3 * max(red[centre][1], red[centre][2], 1)
    assert (red == floats).all()  # #ff0000 decodes to linear (1, 0, 0)


def test_exposure_and_tone_mapper_change_a_surface_material_but_not_an_unlit_one(qapp, tmp_path: Path) -> None:
    base = _shot(tmp_path, "base")
    brighter = _shot(tmp_path, "brighter", "--exposure", "2")
    agx = _shot(tmp_path, "agx", "--tone-mapper", "agx")
    assert brighter[32, 32, :3].sum() > base[32, 32, :3].sum()
    assert (agx != base).any()
    assert (base[0, 0] == brighter[0, 0]).all()  # the background colour is shown as picked
    unlit = EXAMPLES / "lit_blinn_phong.vpl"
    assert (_shot(tmp_path, "unlit", source=unlit) == _shot(tmp_path, "unlit_exposed", "--exposure", "3", source=unlit)).all()


def test_mesh_and_time(qapp, tmp_path: Path) -> None:
    sphere = _shot(tmp_path, "sphere")
    plane = _shot(tmp_path, "plane", "--mesh", "plane")
    assert (sphere != plane).any()
    animated = EXAMPLES / "animated.vpl"
    start = _shot(tmp_path, "start", "--time", "0", source=animated)
    later = _shot(tmp_path, "later", "--time", "0.5", source=animated)
    assert (start == _shot(tmp_path, "default_time", source=animated)).all()
    assert (start != later).any()


@pytest.mark.parametrize("name", ["stylised_lava", "triplanar_rock", "tiled_floor"])
def test_the_node_library_examples_are_lit_by_the_stage_and_toon_shading_is_not(qapp, tmp_path: Path, name: str) -> None:
    # Surface Output materials go through exposure and the tone mapper; the Unlit Output's colours are shown as they are.
    source = EXAMPLES / f"{name}.vpl"
    base = _shot(tmp_path, "base", source=source)
    brighter = _shot(tmp_path, "brighter", "--exposure", "1.5", source=source)
    sphere = np.linalg.norm(np.argwhere(np.ones((64, 64), bool)) - 31.5, axis=1).reshape(64, 64) < 20
    assert brighter[sphere, :3].sum() > 1.2 * base[sphere, :3].sum()
    toon = EXAMPLES / "toon_shading.vpl"
    assert (_shot(tmp_path, "toon", source=toon) == _shot(tmp_path, "toon_exposed", "--exposure", "1.5", source=toon)).all()


def test_the_stage_saved_with_the_document_is_used_unless_flags_override_it(qapp, tmp_path: Path) -> None:
    from app.material.document import load_file, save_text
    from app.material.graph import stage_data

    graph = load_file(GOLD).graph
    graph.stage = stage_data({"mesh": "cube", "exposure": 1.0, "tone_mapper": "aces"})
    staged = tmp_path / "staged_gold.vpl"
    staged.write_text(save_text(graph), encoding="utf-8")
    saved = _shot(tmp_path, "staged", source=staged)
    assert (saved == _shot(tmp_path, "flags", "--mesh", "cube", "--exposure", "1", "--tone-mapper", "aces")).all()
    overridden = _shot(tmp_path, "overridden", "--mesh", "sphere", source=staged)
    assert (overridden == _shot(tmp_path, "sphere_flags", "--exposure", "1", "--tone-mapper", "aces")).all()
    assert (saved != overridden).any()


def test_a_saved_stage_value_out_of_range_or_an_unreadable_mesh_falls_back_with_a_note(qapp, tmp_path: Path, capsys) -> None:
    """The docs: a stage never makes a file fail to open; each value not used keeps its default, and says so."""
    from app.material.document import load_file, save_text
    from app.material.graph import stage_data

    (tmp_path / "broken.obj").write_text("not a mesh\n", encoding="utf-8")
    graph = load_file(GOLD).graph
    graph.stage = stage_data({"exposure": 10 ** 400, "light_intensity": int("9" * 400), "light_color": [1e39, 0, 0],
                              "mesh": "broken.obj"})
    staged = tmp_path / "hostile_stage.vpl"
    staged.write_text(save_text(graph), encoding="utf-8")
    shot = _shot(tmp_path, "hostile", source=staged)
    notes = capsys.readouterr().err
    for field in ("exposure", "light_intensity", "light_color", "mesh"):
        assert f"note: the stage's {field}: " in notes, notes
    assert "Traceback" not in notes
    assert (shot == _shot(tmp_path, "default")).all()


def test_a_size_beyond_the_drivers_limits_is_exit_2_naming_the_limit(qapp, tmp_path: Path, capsys) -> None:
    from OpenGL import GL
    from OpenGL.error import GLError

    from app.preview.screenshot import gl_failure, preview_screenshot

    png = tmp_path / "wide.png"
    # Wider than llvmpipe's 16384 (the command line's own limit): a raw GLError traceback before.
    assert preview_screenshot(str(GOLD), str(png), (40000, 8), gl="desktop") == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "exceeds this OpenGL driver's GL_MAX_RENDERBUFFER_SIZE" in error[0], error
    assert not png.exists()
    # A driver out of memory (GLError 1285, as at 12000x12000) is one line, not a traceback.
    line = gl_failure(GLError(err=GL.GL_OUT_OF_MEMORY, result=None, cArguments=(), description=b"out of memory"), 12000, 12000)
    assert line == "the OpenGL driver ran out of memory drawing a 12000x12000 frame; try a smaller --size"


ENDLESS_MODULE = """(module 1
  (types (type Void void) (type Vec4 vector float 4))
  (uniforms)
  (vertex main
    (interface (out clip "clip" Vec4 -1 position))
    (functions
      (function main "vertex_main" Void (parameters) (registers (register r0 Vec4))
        (block entry (construct r0 (float 1.0)) (store (stage clip) r0) (return)))))
  (fragment main
    (interface (out color "color" Vec4 0 fragment_color))
    (functions
      (function main "fragment_main" Void (parameters) (registers (register r0 Vec4))
        (block entry (construct r0 (float 1.0)) (branch spin))
        (block spin (branch spin))))))
"""


def test_a_module_with_an_endless_loop_is_refused_by_the_desktop_preview_too(qapp, tmp_path: Path, capsys) -> None:
    from app.session.artifacts import ArtifactCache
    from vpl_core.publish import VerifiedModule

    source = tmp_path / "endless.vpl"
    source.write_text(ENDLESS_MODULE, encoding="utf-8")
    png = tmp_path / "endless.png"
    # The desktop target drew it (garbage on llvmpipe) while es300 refused it.
    assert main([str(source), "--preview-screenshot", str(png), "--size", "16x16", "--gl", "desktop"]) == 1
    assert "'fragment_main' never finishes" in capsys.readouterr().err
    assert not png.exists()
    programs = ArtifactCache(VerifiedModule.from_text(ENDLESS_MODULE, "endless"))
    for target in ("glsl420", "es320"):
        assert "never finishes" in programs.get(target).problem


def test_a_document_whose_saved_graph_cannot_be_read_says_so_and_draws_its_module(qapp, tmp_path: Path, capsys) -> None:
    # The window opens such a document read-only and says why, as `vpl bake` does; the command line drew the
    # saved module with nothing said.
    from app.material.document import BEGIN_LINE, END_LINE

    text = GOLD.read_text()
    start, end = text.index(BEGIN_LINE) + len(BEGIN_LINE), text.index(END_LINE)
    document = tmp_path / "broken_graph.vpl"
    document.write_text(text[:start] + "\n// {not json\n" + text[end:])
    _shot(tmp_path, "broken", source=document)
    notes = capsys.readouterr().err
    assert f"{document}: note: the saved graph cannot be read (" in notes, notes
    assert "): opened read-only; the saved module is drawn" in notes, notes
    edited = tmp_path / "edited_module.vpl"
    edited.write_text(text + "\n")  # the module's text no longer matches the saved hash
    _shot(tmp_path, "edited", source=edited)
    notes = capsys.readouterr().err
    assert f"{edited}: note: the module was changed outside the editor since the graph was saved: opened read-only; " \
           "the saved module is drawn" in notes, notes
