"""Exported examples in the Khronos glTF Sample Viewer's renderer against the editor's preview (docs/interchange.md).

Each example is baked and written as `.glb`, drawn by the Sample Viewer's
engine in headless Chromium (tests/sample_viewer.py) and by the preview,
both on the studio environment alone (no key light), no tone mapping, sRGB
pixels, the default camera, at the same size. The mean absolute 8-bit
difference over the sphere's pixels must stay within a per-example
tolerance set from the measured figures (docs/interchange.md's table):
the two renderers differ by design in their image-based lighting (the
engine's cube maps and sample counts against the preview's equirect
prefilter, the base model's documented differences) and in what glTF
drops (jade's subsurface and scattering, car paint's coat darkening). The MaterialX
repository's gltf_pbr examples (tests/data/materialx) go the same way from
their import: `vpl import-mtlx`, preview; bake, `.glb`, Sample Viewer.

Twins without the lobe that makes each difference (on both sides) pin
that attribution, and numpy evaluations of the extensions' formulas
(tests/viewer_reference.py) on a few pixels say which renderer is off
where they still differ: the engine's anisotropic lookup, its framebuffer
transmission, its image-based sheen, and its image-based lighting on the
smooth gltf_pbr examples.

The Sample Viewer's frames are the stored ones (tests/reference_store.py,
docs/testing.md "Stored reference renders"): each `.glb` is baked and
exported here on every run, and a frame whose stored copy was drawn from
other bytes fails naming the command that regenerates it.
`test_the_sample_viewer_still_draws_the_stored_frame` draws one case in the
engine for real, with cheap prefiltering settings, and checks it against its
frame stored with those settings.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import reference_store
import sample_viewer
from test_gltf import EXAMPLES

from app.export.bake import Baker, BakeSettings, apply_parameters
from app.export.gltf import export_gltf
from app.export.mtlx_import import import_mtlx
from app.material.document import load_file
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.texture_passes import has_pass_nodes
from app.preview.camera import DEFAULT_DISTANCE, DEFAULT_FIELD_OF_VIEW
from app.preview.environment import bundled_environment_path
from app.preview.renderer import Renderer
from app.preview.stage import Stage
from app.preview.texture_passes_gl import schedule_for
from app.session.pass_programs import PassProgramCache

SIZE = 128
CASES = ("painted_metal", "car_paint", "glass", "velvet", "jade", "soap_bubble", "brushed_aluminium")
#: The MaterialX repository's gltf_pbr examples (tests/data/materialx), imported, baked and exported.
MX_EXAMPLES = Path(__file__).resolve().parents[3] / "tests" / "data" / "materialx" / "Materials" / "Examples" / "GltfPbr"
MX_CASES = ("gltf_pbr_plastic", "gltf_pbr_gold", "gltf_pbr_carpaint", "gltf_pbr_glass", "gltf_pbr_default", "gltf_pbr_boombox")
#: The same bound for them (measured figures, docs/interchange.md's table): plastic 2.2 and car paint 1.9 are the
#: base model's difference; gold 4.1 the engine's lighting of a smooth metal, 6.1 levels too bright
#: (test_the_smooth_gltf_pbr_examples_against_a_monte_carlo_estimate); glass 8.9 is the engine's transmission
#: framebuffer (test_gltf_pbr_glass_without_a_thickness_is_thin_walled_transmission); default 0.0 (occlusion 0:
#: black in both); the boombox 6.9, the engine brighter on its smooth (roughness 0.1) dark plastic, as on the
#: dark plastic twin of MX_UNIFORM.
#: Uniform gltf_pbr examples and a twin: label -> (example, its base colour and metallic as glTF defines them, the
#: roughness drawn). The plastic at the boombox's roughness 0.1, and with the boombox's dark base colour too
#: (the median of its base colour texture): where the engine is brighter on the boombox.
MX_UNIFORM: dict[str, tuple[str, tuple[tuple[float, float, float], float], float]] = {
    "gltf_pbr_plastic": ("gltf_pbr_plastic", ((0.104704, 0.241883, 0.818), 0.0), 0.324675),
    "gltf_pbr_gold": ("gltf_pbr_gold", ((0.944, 0.776, 0.373), 1.0), 0.02),
    "gltf_pbr_plastic at roughness 0.1": ("gltf_pbr_plastic", ((0.104704, 0.241883, 0.818), 0.0), 0.1),
    "dark plastic at roughness 0.1": ("gltf_pbr_plastic", ((0.0144, 0.0144, 0.0144), 0.0), 0.1),
}
MX_TOLERANCE = {
    "gltf_pbr_plastic": 3.0,
    "gltf_pbr_gold": 4.8,
    "gltf_pbr_carpaint": 2.3,
    "gltf_pbr_glass": 10.3,
    "gltf_pbr_default": 0.5,
    "gltf_pbr_boombox": 7.9,
}

#: Largest mean 8-bit difference over the sphere between the preview and the Sample Viewer per example, about
#: 15 % above the measured figure (docs/interchange.md's table says what makes each): painted metal 4.2, car paint
#: 17.8, glass 30.4, velvet 14.4, jade 41.0, soap bubble 14.5, brushed aluminium 37.5.
TOLERANCE = {
    "painted_metal": 4.9,
    "car_paint": 20.5,
    "glass": 35.0,
    "velvet": 16.6,
    "jade": 47.1,
    "soap_bubble": 16.5,
    "brushed_aluminium": 43.0,
}


def _extensions(gltf: dict[str, Any]) -> dict[str, Any]:
    extensions: dict[str, Any] = gltf["materials"][0].setdefault("extensions", {})
    return extensions


def _isotropic(gltf: dict[str, Any]) -> None:
    _extensions(gltf).pop("KHR_materials_anisotropy")
    gltf["materials"][0]["pbrMetallicRoughness"]["roughnessFactor"] = BRUSHED_ROUGHNESS


def _thin_clear(gltf: dict[str, Any]) -> None:
    """No volume (glTF's thin wall), so no dispersion either; a white tint (the base colour glTF tints with)."""
    _extensions(gltf).pop("KHR_materials_volume")
    _extensions(gltf).pop("KHR_materials_dispersion")
    gltf["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"] = [1.0, 1.0, 1.0, 1.0]


#: The example's own specular roughness (the isotropic twin's, both sides).
BRUSHED_ROUGHNESS = 0.35
#: The glass example's IOR.
GLASS_IOR = 1.52
#: The velvet example's fuzz colour and roughness (KHR_materials_sheen's colour and roughness in its .glb).
VELVET_SHEEN = (0.85, 0.25, 0.45)
VELVET_SHEEN_ROUGHNESS = 0.4

#: Twins that take one lobe out, on both sides (the preview's OpenPBR inputs; the `.glb`'s JSON), so that what is
#: left is the base model's difference: label -> (example, OpenPBR inputs set, edit of the glTF JSON, tolerance
#: about 15 % above the measured figure). Together with TOLERANCE they attribute each example's difference to the
#: lobe docs/interchange.md names. Measured: jade 10.1 (its transmission, as glass's), car paint 8.0, velvet 2.8, glass 2.8 (thin-walled and
#: clear 8.7), soap bubble 14.6, brushed aluminium 11.2.
TWINS: dict[str, tuple[str, dict[str, Any], Callable[[dict[str, Any]], None] | None, float]] = {
    "jade without subsurface and scatter": ("jade", {"subsurface_weight": 0.0, "transmission_scatter": (0.0, 0.0, 0.0, 1.0)},
                                            None, 11.6),
    "car paint without coat darkening": ("car_paint", {"coat_darkening": 0.0}, None, 9.3),
    "velvet without fuzz": ("velvet", {"fuzz_weight": 0.0}, lambda gltf: _extensions(gltf).pop("KHR_materials_sheen"), 3.3),
    "glass without transmission": ("glass", {"transmission_weight": 0.0},
                                   lambda gltf: _extensions(gltf).pop("KHR_materials_transmission"), 3.3),
    "glass thin-walled and clear": ("glass", {"geometry_thin_walled": True, "transmission_color": (1.0, 1.0, 1.0, 1.0),
                                              "transmission_dispersion_scale": 0.0}, _thin_clear, 10.0),
    "soap bubble without thin film": ("soap_bubble", {"thin_film_weight": 0.0},
                                      lambda gltf: _extensions(gltf).pop("KHR_materials_iridescence"), 16.8),
    "brushed aluminium isotropic": ("brushed_aluminium", {"specular_roughness_anisotropy": 0.0}, _isotropic, 12.9),
}


def _with_factors(base: tuple[float, float, float], roughness: float) -> Callable[[dict[str, Any]], None]:
    def edit(gltf: dict[str, Any]) -> None:
        gltf["materials"][0]["pbrMetallicRoughness"].update(baseColorFactor=[*base, 1.0], roughnessFactor=roughness)

    return edit


def edited_glb(source: Path, target: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """`source` (.glb) with its JSON chunk edited by `edit`; the binary chunk as it is."""
    data = source.read_bytes()
    (length,) = struct.unpack("<I", data[12:16])
    assert data[16:20] == b"JSON"
    gltf = json.loads(data[20 : 20 + length])
    edit(gltf)
    text = json.dumps(gltf).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<I", len(text)) + b"JSON" + text + data[20 + length :]
    target.write_bytes(data[:8] + struct.pack("<I", 12 + len(body)) + body)
    return target


pytestmark = pytest.mark.skipif(sample_viewer.engine_path() is None, reason="run scripts/bootstrap.sh")


def preview_stage() -> Stage:
    """The preview's default stage with the key light off and no tone mapping: what the page sets up."""
    stage = Stage()
    stage.light_enabled = False
    stage.tone_mapper = "none"
    stage.background_color = (0.0, 0.0, 0.0)
    return stage


def preview_frame(graph: MaterialGraph, document_dir: Path, stage: Stage) -> np.ndarray:
    import rerender

    lowered = lower(graph)
    assert lowered.ok, lowered.diagnostics
    renderer = Renderer()
    try:
        stage.apply(renderer)
        renderer.set_mesh("sphere")
        maps, table = rerender.environment()
        renderer.set_environment_maps(maps)
        renderer.set_brdf_table(table)
        assert apply_parameters(renderer, lowered.parameters, graph, document_dir) == []
        passes = PassProgramCache.for_graph(graph).get("glsl420") if has_pass_nodes(graph) else None
        renderer.build_program(lowered.artifact, schedule_for(passes))
        return renderer.render_image(SIZE, SIZE)
    finally:
        renderer.release()


@pytest.fixture(scope="module")
def viewer_glbs(gl_context: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every case baked (256²) and written as .glb, then every uniform twin (MX_UNIFORM) and twin (TWINS)."""
    gl_context.make_current()
    directory = tmp_path_factory.mktemp("sample-viewer")
    glbs = {}
    for name in CASES:
        path = EXAMPLES / f"{name}.vpl"
        graph = load_file(path).graph
        assert graph is not None
        baker = Baker(graph, BakeSettings(size=256), document_dir=path.parent)
        glbs[name] = export_gltf(baker.bake_material(), baker.mesh(), directory / f"{name}.glb", name)[0]
    for name in MX_CASES:
        imported = import_mtlx(MX_EXAMPLES / f"{name}.mtlx")
        baker = Baker(imported.graph, BakeSettings(size=256), document_dir=MX_EXAMPLES)
        glbs[name] = export_gltf(baker.bake_material(), baker.mesh(), directory / f"{name}.glb", name)[0]
    for index, (label, (name, (base, _), roughness)) in enumerate(MX_UNIFORM.items()):
        if label != name:  # a twin of the example: its base colour and roughness factors edited
            glbs[label] = edited_glb(glbs[name], directory / f"uniform{index}.glb", _with_factors(base, roughness))
    for index, (label, (name, _, edit, _)) in enumerate(TWINS.items()):
        glbs[label] = edited_glb(glbs[name], directory / f"twin{index}.glb", edit) if edit is not None else glbs[name]
    return glbs


@pytest.fixture(scope="module")
def viewer_frames(viewer_glbs: dict[str, Path]) -> dict[str, np.ndarray]:
    """The Sample Viewer's frame of every `.glb` of `viewer_glbs`, from the stored renders (drawn in one page)."""
    environment = bundled_environment_path(preview_stage().environment)
    return sample_viewer.stored_frames(viewer_glbs, SIZE, environment, distance=DEFAULT_DISTANCE,
                                       field_of_view=DEFAULT_FIELD_OF_VIEW)


def test_every_stored_frame_is_read_by_a_case() -> None:
    """The stored Sample Viewer frames are exactly the ones the cases read (`viewer_glbs`' labels and `LIVE_LABEL`):
    a frame no case reads (a renamed case, a twin taken out) is removed. A missing or stale frame fails where it is
    read."""
    used = {sample_viewer.store_key(label) for label in [*CASES, *MX_CASES, *MX_UNIFORM, *TWINS, LIVE_LABEL]}
    stored = {path.name.removesuffix(".png").removesuffix(".json")
              for path in (reference_store.STORE / sample_viewer.STORE_FOLDER).iterdir()}
    assert stored - used == set(), f"stored frames no case reads: {sorted(stored - used)}"
    assert used - stored == set(), f"cases without a stored frame: {sorted(used - stored)}"


#: The case the engine draws for real on every run, in a page of its own with `sample_viewer.HONESTY_SETTINGS`,
#: against its frame stored with those settings (`LIVE_LABEL`).
LIVE = "painted_metal"
LIVE_LABEL = f"{LIVE} at the honesty settings"


@pytest.mark.webgl
def test_the_sample_viewer_still_draws_the_stored_frame(viewer_glbs: dict[str, Path]) -> None:
    """The engine, in the installed Chromium, draws its stored frame bit for bit, from the preview's camera: the
    engine's code, its shaders and SwiftShader draw as when the frames were stored (which the provenance of every
    stored frame, with the engine's and Chromium's versions, then stands for). Drawn with the cheap
    `HONESTY_SETTINGS` (the prefiltering was nearly all of the page's CPU), against the frame stored with them."""
    environment = bundled_environment_path(preview_stage().environment)
    glb = viewer_glbs[LIVE]
    images, report = sample_viewer.render([glb], SIZE, environment, distance=DEFAULT_DISTANCE,
                                          field_of_view=DEFAULT_FIELD_OF_VIEW, engine_settings=sample_viewer.HONESTY_SETTINGS)
    print(f"Sample Viewer: {report['renderer']}; steps {report['steps']}")
    camera = report["cameras"][0]
    assert camera["position"] == pytest.approx([0.0, 0.0, DEFAULT_DISTANCE], abs=1e-4), camera  # the preview's eye
    assert camera["target"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-4), camera
    stored = sample_viewer.stored_frames({LIVE_LABEL: glb}, SIZE, environment, distance=DEFAULT_DISTANCE,
                                         field_of_view=DEFAULT_FIELD_OF_VIEW, engine_settings=sample_viewer.HONESTY_SETTINGS)
    live, expected = images[0].astype(int), stored[LIVE_LABEL].astype(int)
    assert np.array_equal(live, expected), (f"{np.abs(live - expected).max()} levels at most, "
                                            f"{(live != expected).mean():.2%} of the values")


def mean_difference(preview: np.ndarray, viewer: np.ndarray) -> float:
    import rerender

    covered = rerender.uv_image(SIZE)[:, :, 2] > 0.5  # the sphere's pixels
    assert covered.mean() > 0.3
    return float(np.abs(preview[:, :, :3].astype(float) - viewer[:, :, :3].astype(float))[covered].mean())


def assert_near(label: str, preview: np.ndarray, viewer: np.ndarray, tolerance: float, record_property: Any,
                save: bool = True) -> None:
    """The preview's and the Sample Viewer's frames within `tolerance` (mean 8-bit difference over the sphere),
    the figure recorded and printed; with VPL_SAMPLE_VIEWER_IMAGES set (and `save`), both frames side by side
    written there as `<label>.png`."""
    if save and os.environ.get("VPL_SAMPLE_VIEWER_IMAGES"):
        from app.export.images import write_image

        write_image(Path(os.environ["VPL_SAMPLE_VIEWER_IMAGES"]) / f"{label}.png",
                    np.concatenate([preview, viewer], axis=1), "data")
    mean = mean_difference(preview, viewer)
    record_property("mean_difference", mean)
    print(f"{label}: mean difference {mean:.2f}")
    assert mean <= tolerance, mean


@pytest.mark.webgl
@pytest.mark.parametrize("name", CASES)
def test_the_sample_viewer_draws_the_export_like_the_preview(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], name: str, record_property: Any
) -> None:
    path = EXAMPLES / f"{name}.vpl"
    viewer = viewer_frames[name]
    graph = load_file(path).graph
    assert graph is not None
    preview = preview_frame(graph, path.parent, preview_stage())
    assert_near(name, preview, viewer, TOLERANCE[name], record_property)


@pytest.mark.webgl
@pytest.mark.parametrize("label", TWINS)
def test_without_the_lobe_the_difference_is_the_base_models(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], label: str, record_property: Any
) -> None:
    """The lobe docs/interchange.md names is what makes an example's difference: taken out on both sides, the
    difference falls to about the base model's (painted metal's 4.2; transmission and anisotropy keep their own)."""
    name, inputs, _, tolerance = TWINS[label]
    path = EXAMPLES / f"{name}.vpl"
    graph = load_file(path).graph
    assert graph is not None
    surface = next(node for node in graph.nodes.values() if node.type_name == "openpbr_surface")
    for port, value in inputs.items():
        graph.disconnect_input(surface.id, port)
        surface.properties[port] = value
    assert_near(label, preview_frame(graph, path.parent, preview_stage()), viewer_frames[label], tolerance,
                record_property, save=False)


def _pixels_against(reference: Any, preview: np.ndarray, viewer: np.ndarray, step: int,
                    signed: bool = False) -> tuple[float, float]:
    """Mean 8-bit difference (absolute, or signed: renderer − reference) of the preview and of the viewer from
    `reference(row, column, normal, view)` (linear) on every `step`-th sphere pixel facing the camera (N·V >= 0.2)."""
    import viewer_reference

    previews, viewers = [], []
    for row, column, normal, view in viewer_reference.sphere_pixels(SIZE, step, 0.2):
        expected = viewer_reference.srgb_8bit(reference(row, column, normal, view))
        previews.append(preview[row, column, :3] - expected)
        viewers.append(viewer[row, column, :3] - expected)
    assert len(previews) > 50
    if signed:
        return float(np.mean(previews)), float(np.mean(viewers))
    return float(np.mean(np.abs(previews))), float(np.mean(np.abs(viewers)))


@pytest.mark.webgl
def test_the_anisotropic_metal_against_a_monte_carlo_estimate(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], record_property: Any
) -> None:
    """Brushed aluminium as its .glb defines it (KHR_materials_anisotropy along the mesh tangent), estimated by
    Monte Carlo on 86 pixels: the preview is near it; the Sample Viewer's bent-normal lookup (one sample of its
    isotropic map along a normal bent towards the view) is far from it, and makes the bright ring at the top."""
    import viewer_reference

    from app.export.gltf_openpbr import gltf_anisotropy
    from app.preview.environment import load_named_environment

    path = EXAMPLES / "brushed_aluminium.vpl"
    graph = load_file(path).graph
    assert graph is not None
    preview = preview_frame(graph, path.parent, preview_stage()).astype(float)
    viewer = viewer_frames["brushed_aluminium"].astype(float)
    radiance = load_named_environment(preview_stage().environment).radiance[..., :3].astype(np.float64)
    roughness, strength = (float(value[0]) for value in gltf_anisotropy(np.array([BRUSHED_ROUGHNESS]), np.array([0.85])))
    rng = np.random.default_rng(3)
    aluminium = np.array([0.91, 0.92, 0.92])
    preview_error, viewer_error = _pixels_against(
        lambda _row, _column, normal, view: viewer_reference.anisotropic_metal(radiance, normal, view, aluminium, roughness, strength, rng),
        preview, viewer, 8)
    record_property("preview_error", preview_error)
    record_property("viewer_error", viewer_error)
    print(f"anisotropic metal against Monte Carlo: preview {preview_error:.2f}, Sample Viewer {viewer_error:.2f}")
    assert preview_error <= 13.0, preview_error  # measured 11.2
    assert viewer_error >= 3.0 * preview_error, (viewer_error, preview_error)  # measured 40.8: the viewer is off


@pytest.mark.webgl
def test_thin_clear_glass_against_its_delta_lobes(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], record_property: Any
) -> None:
    """The glass twin that is thin-walled and clear has delta lobes only, so the reference is exact: the
    environment straight through and mirrored, by Schlick's Fresnel. The preview meets it; the Sample Viewer
    reads the straight-through light from its transmission framebuffer (8-bit, clamped at 1, 1024², sampled
    through its mipmaps) and is documented off by that."""
    import viewer_reference

    from app.preview.environment import load_named_environment

    name, inputs, _, _ = TWINS["glass thin-walled and clear"]
    path = EXAMPLES / f"{name}.vpl"
    graph = load_file(path).graph
    assert graph is not None
    surface = next(node for node in graph.nodes.values() if node.type_name == "openpbr_surface")
    for port, value in inputs.items():
        graph.disconnect_input(surface.id, port)
        surface.properties[port] = value
    preview = preview_frame(graph, path.parent, preview_stage()).astype(float)
    viewer = viewer_frames["glass thin-walled and clear"].astype(float)
    radiance = load_named_environment(preview_stage().environment).radiance[..., :3].astype(np.float64)
    preview_error, viewer_error = _pixels_against(
        lambda _row, _column, normal, view: viewer_reference.thin_smooth_dielectric(radiance, normal, view, GLASS_IOR), preview, viewer, 4)
    record_property("preview_error", preview_error)
    record_property("viewer_error", viewer_error)
    print(f"thin clear glass against its delta lobes: preview {preview_error:.2f}, Sample Viewer {viewer_error:.2f}")
    assert preview_error <= 1.0, preview_error  # measured 0.14
    assert 6.5 <= viewer_error <= 8.8, viewer_error  # measured 7.6


@pytest.mark.webgl
def test_the_sheen_against_a_monte_carlo_estimate(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], record_property: Any
) -> None:
    """Velvet's .glb carries KHR_materials_sheen, not OpenPBR's fuzz. A Monte Carlo estimate of the KHR sheen over
    the base (the preview's twin without fuzz, which the viewer matches within 4.2 levels) lies between the two:
    the preview's fuzz is darker than it, the Sample Viewer's sheen brighter (docs/interchange.md)."""
    import viewer_reference

    from app.preview.environment import load_named_environment

    path = EXAMPLES / "velvet.vpl"
    graph = load_file(path).graph
    assert graph is not None
    preview = preview_frame(graph, path.parent, preview_stage()).astype(float)
    surface = next(node for node in graph.nodes.values() if node.type_name == "openpbr_surface")
    graph.disconnect_input(surface.id, "fuzz_weight")
    surface.properties["fuzz_weight"] = 0.0
    base = viewer_reference.linear_of_8bit(preview_frame(graph, path.parent, preview_stage())[:, :, :3])
    viewer = viewer_frames["velvet"].astype(float)
    radiance = load_named_environment(preview_stage().environment).radiance[..., :3].astype(np.float64)
    rng = np.random.default_rng(5)
    sheen = np.array(VELVET_SHEEN)
    preview_offset, viewer_offset = _pixels_against(
        lambda row, column, normal, view: viewer_reference.sheen_over_base(radiance, normal, view, sheen, VELVET_SHEEN_ROUGHNESS,
                                                                           base[row, column], rng),
        preview, viewer, 8, signed=True)
    record_property("preview_offset", preview_offset)
    record_property("viewer_offset", viewer_offset)
    print(f"sheen against Monte Carlo (signed): preview {preview_offset:+.2f}, Sample Viewer {viewer_offset:+.2f}")
    assert -7.5 <= preview_offset <= -5.4, preview_offset  # measured -6.5: OpenPBR's fuzz is not KHR's sheen
    assert 6.4 <= viewer_offset <= 8.6, viewer_offset  # measured +7.5: the engine's image-based sheen


@pytest.mark.webgl
@pytest.mark.parametrize("name", MX_CASES)
def test_the_sample_viewer_draws_the_materialx_gltf_pbr_examples_like_the_preview(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], name: str, record_property: Any
) -> None:
    """The MaterialX repository's gltf_pbr examples as `vpl import-mtlx` reads them, previewed, and baked and
    exported as `.glb` for the Sample Viewer: within the base model's difference, or what docs/interchange.md
    names."""
    imported = import_mtlx(MX_EXAMPLES / f"{name}.mtlx")
    preview = preview_frame(imported.graph, MX_EXAMPLES, preview_stage())
    viewer = viewer_frames[name]
    assert_near(name, preview, viewer, MX_TOLERANCE[name], record_property)


#: The Sample Viewer's signed offset from the estimate, 8-bit levels (measured plastic +1.4, gold +6.1, plastic at
#: roughness 0.1 +0.8, dark plastic at roughness 0.1 +5.0).
MX_VIEWER_OFFSET = {"gltf_pbr_plastic": (0.8, 2.0), "gltf_pbr_gold": (4.8, 7.4), "gltf_pbr_plastic at roughness 0.1": (0.2, 1.4),
                    "dark plastic at roughness 0.1": (3.9, 6.1)}


@pytest.mark.webgl
@pytest.mark.parametrize("name", MX_UNIFORM)
def test_the_smooth_gltf_pbr_examples_against_a_monte_carlo_estimate(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], name: str, record_property: Any
) -> None:
    """Which renderer is off on the smooth examples: against a Monte Carlo estimate of glTF's BRDF (86 pixels,
    N·V >= 0.2) the preview is within 2 levels on average (signed); the Sample Viewer is as near on the plastic
    and 5 to 6 levels brighter where a smooth specular dominates, the gold and a dark plastic (its prefiltered
    lookup at low roughness; docs/interchange.md), which is the boombox's difference."""
    import viewer_reference

    from app.preview.environment import load_named_environment

    example, (base, metallic), roughness = MX_UNIFORM[name]
    graph = import_mtlx(MX_EXAMPLES / f"{example}.mtlx").graph
    output = next(node for node in graph.nodes.values() if node.type_name == "surface_output")
    output.properties.update(base_color=(*base, 1.0), roughness=roughness)
    preview = preview_frame(graph, MX_EXAMPLES, preview_stage()).astype(float)
    viewer = viewer_frames[name].astype(float)
    radiance = load_named_environment(preview_stage().environment).radiance[..., :3].astype(np.float64)
    rng = np.random.default_rng(7)
    preview_error, viewer_error = _pixels_against(
        lambda _row, _column, normal, view: viewer_reference.metal_rough(radiance, normal, view, np.array(base), metallic,
                                                                         roughness, rng), preview, viewer, 8, signed=True)
    record_property("preview_offset", preview_error)
    record_property("viewer_offset", viewer_error)
    print(f"{name} against Monte Carlo (signed): preview {preview_error:+.2f}, Sample Viewer {viewer_error:+.2f}")
    low, high = MX_VIEWER_OFFSET[name]
    assert abs(preview_error) <= 2.0, preview_error  # measured plastic +0.6, gold +1.5, the twins 0.0 and +0.3
    assert low <= viewer_error <= high, viewer_error  # measured plastic +1.4, gold +6.1: the engine's gold is too bright


def glb_json(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    (length,) = struct.unpack("<I", data[12:16])
    gltf: dict[str, Any] = json.loads(data[20 : 20 + length])
    return gltf


@pytest.mark.webgl
def test_gltf_pbr_glass_without_a_thickness_is_thin_walled_transmission(
    current_gl: Any, viewer_frames: dict[str, np.ndarray], tmp_path: Path, record_property: Any
) -> None:
    """gltf_pbr_glass sets transmission 1 and IOR 1.52 and no thickness: in glTF, transmission without
    KHR_materials_volume is a thin wall, the environment seen straight through (no refraction) and tinted by the
    base colour (white here). It imports as that, exports without a volume, and the preview draws it as its delta
    lobes (roughness 0.01, nearly 0): (1 − F) L(−v) + F L(reflect). The Sample Viewer reads the light through the wall from
    its 8-bit transmission framebuffer (docs/interchange.md) and is off by that."""
    import viewer_reference

    from app.preview.environment import load_named_environment

    graph = import_mtlx(MX_EXAMPLES / "gltf_pbr_glass.mtlx").graph
    output = next(node for node in graph.nodes.values() if node.type_name == "surface_output")
    assert (output.properties["transmission"], output.properties["ior"], output.properties["thickness"]) == (1.0, 1.52, 0.0)
    assert tuple(output.properties["base_color"])[:3] == (1.0, 1.0, 1.0)
    baker = Baker(graph, BakeSettings(size=256), document_dir=MX_EXAMPLES)
    material = glb_json(export_gltf(baker.bake_material(), baker.mesh(), tmp_path / "glass.glb", "glass")[0])["materials"][0]
    assert material["extensions"]["KHR_materials_transmission"] == {"transmissionFactor": 1.0}
    assert material["extensions"]["KHR_materials_ior"] == {"ior": 1.52}
    assert "KHR_materials_volume" not in material["extensions"]
    assert "KHR_materials_dispersion" not in material["extensions"]

    preview = preview_frame(graph, MX_EXAMPLES, preview_stage()).astype(float)
    viewer = viewer_frames["gltf_pbr_glass"].astype(float)
    radiance = load_named_environment(preview_stage().environment).radiance[..., :3].astype(np.float64)
    preview_error, viewer_error = _pixels_against(
        lambda _row, _column, normal, view: viewer_reference.thin_smooth_dielectric(radiance, normal, view, 1.52), preview, viewer, 4)
    record_property("preview_error", preview_error)
    record_property("viewer_error", viewer_error)
    print(f"gltf_pbr_glass against its delta lobes: preview {preview_error:.2f}, Sample Viewer {viewer_error:.2f}")
    # Measured 2.5: the environment lookup at roughness 0.01 reads a tenth of the chain's next level (0.14 at
    # roughness 0, test_thin_clear_glass_against_its_delta_lobes); with a volume (thickness 1, refracted through
    # the sphere) it is 51.
    assert preview_error <= 3.0, preview_error
    assert 6.5 <= viewer_error <= 8.8, viewer_error  # measured 7.6, the thin-walled twin's 7.6
