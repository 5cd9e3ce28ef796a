"""Test support: a MaterialX document rendered by MaterialX's own GLSL renderer and by the editor's preview.

Both draw the preview's sphere (`app.preview.mesh.make_mesh("sphere")`, written
as OBJ for MaterialX's loader) from the preview's default camera, lit by the
same environment (MaterialX: the `.hdr` as its lat-long radiance map, the
preview's own irradiance map; filtered importance sampling), environment
light only, no tone mapping: linear radiance clipped to [0, 1] and
sRGB-encoded to 8 bits. `compare` gives the mean absolute 8-bit difference
over the pixels well inside the sphere's silhouette.

MaterialX's renders are stored (tests/reference_store.py): `reference_8bit`
gives the stored image when its manifest matches what MaterialX would be
given now (its version, the settings, and a hash of the document, its
textures, the environment maps, the sphere and the camera).

Used by tests/app/export/test_mtlx_reference.py and benchmarks/bench_mtlx_reference.py.
Needs a display (Xvfb) for both renderers.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import reference_store

ROOT = Path(__file__).resolve().parents[1]
MX_EXAMPLES = ROOT / "tests" / "data" / "materialx" / "Materials" / "Examples"
SIZE = 256
ENVIRONMENT = "studio"
#: Samples of MaterialX's filtered importance sampling per pixel.
SAMPLES = 1024
#: How `render_materialx` sets MaterialX's renderer up, part of a stored render's provenance: change it with the
#: set-up, so that every stored image is regenerated.
SETUP = ("GlslRenderer, FLOAT target; filtered importance sampling; environment light only, turned by pi about +y; "
         "target colour space lin_rec709; texture vertical flip; 8-bit sRGB of the linear radiance clipped to [0, 1]")
#: Where the stored renders live, under tests/data/reference_renders/.
STORE_FOLDER = "materialx"


def srgb_8bit(linear: np.ndarray) -> np.ndarray:
    clipped = np.clip(linear, 0.0, 1.0)
    encoded = np.where(clipped <= 0.0031308, clipped * 12.92, 1.055 * np.power(clipped, 1.0 / 2.4) - 0.055)
    return np.round(encoded * 255.0)


def camera_matrices(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(view, projection, eye) of the preview's default orbit camera, row-major numpy."""
    from app.preview.camera import OrbitCamera

    camera = OrbitCamera()
    return camera.view_matrix().astype(np.float64), camera.projection_matrix(1.0).astype(np.float64), camera.position.astype(np.float64)


def _pixel_rays(size: int) -> tuple[np.ndarray, np.ndarray]:
    """(origins on the near plane, unit directions) (size, size, 3) of the camera's rays through the pixel centres
    (top row first)."""
    view, projection, _eye = camera_matrices(size)
    inverse = np.linalg.inv(projection @ view)
    centres = (np.arange(size) + 0.5) / size * 2.0 - 1.0
    x, y = np.meshgrid(centres, -centres)
    near = np.stack([x, y, -np.ones_like(x), np.ones_like(x)], axis=-1) @ inverse.T
    far = np.stack([x, y, np.ones_like(x), np.ones_like(x)], axis=-1) @ inverse.T
    origin = near[..., :3] / near[..., 3:]
    direction = far[..., :3] / far[..., 3:] - origin
    return origin, direction / np.linalg.norm(direction, axis=-1, keepdims=True)


def sphere_mask(size: int, inset: float = 0.97) -> np.ndarray:
    """Pixels (top row first) whose centre ray meets the unit sphere within `inset` of its silhouette's radius."""
    _origin, direction = _pixel_rays(size)
    eye = camera_matrices(size)[2]
    # Distance of the ray from the sphere's centre, compared with the radius shrunk by `inset`.
    along = -(direction @ eye)
    closest = eye + direction * along[..., None]
    return np.asarray(np.linalg.norm(closest, axis=-1) < inset)


def sphere_points(size: int, inset: float = 0.97) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pixel rows and columns (k, 2), points on the unit sphere (k, 3), unit directions to the eye (k, 3)) of the
    pixels of `sphere_mask`, in its row-major order: where each centre ray first meets the sphere."""
    mask = sphere_mask(size, inset)
    origin, direction = (rays[mask] for rays in _pixel_rays(size))
    along = np.sum(direction * origin, axis=-1)
    distance = -along - np.sqrt(along**2 - (np.sum(origin * origin, axis=-1) - 1.0))
    return np.argwhere(mask), origin + direction * distance[:, None], -direction


def write_sphere_obj(path: Path) -> Path:
    path.write_text(sphere_obj_text())
    return path


def _write_hdr(path: Path, image: np.ndarray) -> Path:
    import OpenImageIO as oiio  # noqa: N813 - the package's name

    output = oiio.ImageOutput.create(str(path))
    assert output is not None, oiio.geterror()
    output.open(str(path), oiio.ImageSpec(image.shape[1], image.shape[0], 3, oiio.FLOAT))
    output.write_image(np.ascontiguousarray(image, dtype=np.float32))
    output.close()
    return path


@functools.cache
def environment_arrays(name: str = ENVIRONMENT) -> tuple[np.ndarray, np.ndarray]:
    """(radiance, irradiance) lat-long float32 maps for MaterialX, top row the zenith (MaterialX's latitude 0).

    The radiance is the bundled file as the preview loads it; the irradiance
    is the preview's own map (irradiance / pi, as MaterialX's
    `mx_environment_irradiance` reads it), so the diffuse term is shared.
    """
    from app.preview import ibl_prefilter
    from app.preview.environment import load_named_environment

    environment = load_named_environment(name)
    radiance = np.asarray(environment.radiance, dtype=np.float32)  # GL row order: first row the nadir
    height, width = ibl_prefilter.base_size(environment.height, environment.width)
    irradiance = ibl_prefilter.irradiance_map(ibl_prefilter.area_resample(radiance, height, width))
    return np.ascontiguousarray(radiance[::-1]), np.ascontiguousarray(np.asarray(irradiance, dtype=np.float32)[::-1])


def environment_maps(folder: Path, name: str = ENVIRONMENT) -> tuple[Path, Path]:
    """`environment_arrays` written as (radiance, irradiance) `.hdr` files in `folder`."""
    radiance, irradiance = environment_arrays(name)
    return _write_hdr(folder / "radiance.hdr", radiance), _write_hdr(folder / "irradiance.hdr", irradiance)


def sphere_obj_text() -> str:
    """The preview's sphere as OBJ text (positions, texture coordinates, normals, one index per corner)."""
    from app.preview.mesh import make_mesh

    mesh = make_mesh("sphere")
    lines = [f"v {p[0]:.7f} {p[1]:.7f} {p[2]:.7f}" for p in mesh.positions]
    lines += [f"vt {t[0]:.7f} {t[1]:.7f}" for t in mesh.texcoords]
    lines += [f"vn {n[0]:.7f} {n[1]:.7f} {n[2]:.7f}" for n in mesh.normals]
    lines += ["f " + " ".join(f"{i + 1}/{i + 1}/{i + 1}" for i in triangle) for triangle in mesh.indices]
    return "\n".join(lines) + "\n"


def texture_files(document: Path) -> list[Path]:
    """The files the document's `filename` inputs name (resolved as MaterialX does), sorted."""
    import MaterialX as mx  # noqa: N813 - the package's name

    doc = mx.createDocument()
    mx.readFromXmlFile(doc, str(document))
    names = {element.getResolvedValueString() for element in doc.traverseTree()
             if element.isA(mx.Input) and element.getType() == "filename" and element.getValueString()}
    return sorted(document.parent / name for name in names)


def provenance(document: Path, size: int, samples: int) -> dict[str, object]:
    """What MaterialX's render of `document` depends on: its version, the settings, and a SHA-256 of every input
    (the document's text, its textures, the environment maps, the sphere, the camera) in order."""
    import MaterialX as mx  # noqa: N813 - the package's name

    radiance, irradiance = environment_arrays(ENVIRONMENT)
    view, projection, _eye = camera_matrices(size)
    parts: list[bytes | str] = [document.read_bytes()]
    for texture in texture_files(document):
        parts += [texture.relative_to(document.parent).as_posix(), texture.read_bytes() if texture.is_file() else b"missing"]
    parts += [reference_store.array_bytes(radiance), reference_store.array_bytes(irradiance), sphere_obj_text(),
              reference_store.array_bytes(view), reference_store.array_bytes(projection)]
    return {"renderer": f"MaterialX {mx.__version__} (PyMaterialXRenderGlsl)", "setup": SETUP,
            "document": document.relative_to(ROOT).as_posix(), "size": size, "samples": samples,
            "environment": ENVIRONMENT, "inputs_sha256": reference_store.digest(parts)}


def store_key(document: Path, size: int, samples: int) -> str:
    """The stored render's file name (without suffix): the document's path under MX_EXAMPLES, size, samples."""
    name = document.relative_to(MX_EXAMPLES).with_suffix("").as_posix() if document.is_relative_to(MX_EXAMPLES) else document.stem
    return f"{name.replace('/', '__')}-{size}px-{samples}spp"


def reference_8bit(document: Path, size: int = SIZE, samples: int = SAMPLES) -> np.ndarray:
    """MaterialX's render of `document` as 8-bit sRGB values (size, size, 3), float64, from the stored image.

    A missing or stale stored image fails naming the command that regenerates it; under
    `VPL_STORE_REFERENCES=1` it is rendered for real and stored instead.
    """
    expected = provenance(document, size, samples)
    key = store_key(document, size, samples)
    if reference_store.storing() and reference_store.mismatch(STORE_FOLDER, key, expected) is not None:
        reference_store.save(STORE_FOLDER, key, srgb_8bit(render_materialx(document, size, samples)), expected)
    return reference_store.load(STORE_FOLDER, key, expected)[:, :, :3].astype(np.float64)


def render_materialx(document: Path, size: int = SIZE, samples: int = SAMPLES) -> np.ndarray:
    """Linear RGB (size, size, 3), top row first, of the document's first material as MaterialX renders it."""
    import MaterialX as mx  # noqa: N813 - the package's name
    import MaterialX.PyMaterialXGenGlsl as mx_gen_glsl  # noqa: N813 - the package's name
    import MaterialX.PyMaterialXGenShader as mx_gen_shader  # noqa: N813 - the package's name
    import MaterialX.PyMaterialXRender as mx_render  # noqa: N813 - the package's name
    import MaterialX.PyMaterialXRenderGlsl as mx_render_glsl  # noqa: N813 - the package's name

    from app.export.mtlx import _library

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        doc = mx.createDocument()
        mx.readFromXmlFile(doc, str(document))
        doc.setDataLibrary(_library())
        generator = mx_gen_glsl.GlslShaderGenerator.create()
        context = mx_gen_shader.GenContext(generator)
        context.registerSourceCodeSearchPath(mx.getDefaultDataSearchPath())
        context.registerSourceCodeSearchPath(mx.FileSearchPath(str(document.parent)))
        color_management = mx_gen_shader.DefaultColorManagementSystem.create(generator.getTarget())
        color_management.loadLibrary(_library())
        generator.setColorManagementSystem(color_management)
        options = context.getOptions()
        options.targetColorSpaceOverride = "lin_rec709"
        options.fileTextureVerticalFlip = True
        options.hwSpecularEnvironmentMethod = mx_gen_shader.HwSpecularEnvironmentMethod.SPECULAR_ENVIRONMENT_FIS
        options.hwMaxActiveLightSources = 1
        options.hwShadowMap = False
        options.hwTransparency = False
        material = doc.getMaterialNodes()[0]
        shader = generator.generate("reference", material, context)

        renderer = mx_render_glsl.GlslRenderer.create(size, size, mx_render.BaseType.FLOAT)
        renderer.initialize()
        images = mx_render_glsl.GLTextureHandler.create(mx_render.StbImageLoader.create())
        images.setSearchPath(mx.FileSearchPath(str(document.parent)))
        renderer.setImageHandler(images)
        radiance_path, irradiance_path = environment_maps(folder)
        lights = mx_render.LightHandler.create()
        lights.setEnvRadianceMap(images.acquireImage(mx.FilePath(str(radiance_path))))
        lights.setEnvIrradianceMap(images.acquireImage(mx.FilePath(str(irradiance_path))))
        lights.setEnvSampleCount(samples)
        # MaterialX's renderer turns the environment by pi about +y (GlslProgram::bindLighting); undo it so
        # both renderers use the same lat-long convention (u = 0.5 + atan2(x, -z) / 2 pi).
        lights.setLightTransform(mx.Matrix44.createRotationY(math.pi))
        lights.setDirectLighting(False)
        lights.setIndirectLighting(True)
        renderer.setLightHandler(lights)
        geometry = mx_render.GeometryHandler.create()
        geometry.addLoader(mx_render.TinyObjLoader.create())
        renderer.setGeometryHandler(geometry)
        assert geometry.loadGeometry(mx.FilePath(str(write_sphere_obj(folder / "sphere.obj"))), False)
        view, projection, _eye = camera_matrices(size)
        camera = renderer.getCamera()
        camera.setWorldMatrix(mx.Matrix44.IDENTITY)
        camera.setViewMatrix(_matrix(mx, view))
        camera.setProjectionMatrix(_matrix(mx, projection))
        renderer.createProgram(shader)
        renderer.validateInputs()
        renderer.render()
        image = renderer.captureImage(None)
        saved = folder / "render.hdr"
        assert images.saveImage(mx.FilePath(str(saved)), image, True), "MaterialX could not save its render"
        return _read(saved)[:, :, :3]


def _matrix(mx: object, matrix: np.ndarray) -> object:
    """A numpy row-major (column-vector) matrix as MaterialX's Matrix44 (row-vector convention: transposed)."""
    rows = matrix.T
    return mx.Matrix44(*[float(value) for value in rows.reshape(-1)])  # type: ignore[attr-defined]  # the module object


def _read(path: Path) -> np.ndarray:
    import OpenImageIO as oiio  # noqa: N813 - the package's name

    buffer = oiio.ImageBuf(str(path))
    return np.asarray(buffer.get_pixels(oiio.FLOAT), dtype=np.float64)


#: Inputs MaterialX's real-time renderer does not model, set on the editor's import to what that renderer shades
#: them as, so the comparison is of what both model. The honey's scatter: MaterialX's GLSL anisotropic_vdf is
#: Beer-Lambert only; the preview's scattering medium is checked against a volumetric Monte Carlo of the
#: specification instead (tests/app/preview/test_openpbr_scatter.py; with the scatter the honey is 37.6 levels from
#: MaterialX's render at 128 px, 16 samples).
UNMODELLED: dict[str, dict[str, object]] = {
    "OpenPbr/open_pbr_honey.mtlx": {"transmission_scatter": (0.0, 0.0, 0.0, 1.0)},
}


def render_editor(document: Path, size: int = SIZE, unmodelled: Mapping[str, object] | None = None) -> np.ndarray:
    """8-bit RGB (size, size, 3), top row first, of the editor's import of `document` in the preview; `unmodelled`
    sets inputs of its output node (those MaterialX's real-time renderer ignores, at the value it renders them as)."""
    from app.export.mtlx import import_mtlx
    from app.main import main as editor_main
    from app.material.document import save_file

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        imported = import_mtlx(document)
        for node in imported.graph.nodes.values():
            if node.type_name in ("openpbr_surface", "surface_output"):
                node.properties.update(unmodelled or {})
        imported.graph.stage = {"environment": ENVIRONMENT, "light_intensity": 0.0, "tone_mapper": "none", "exposure": 0.0,
                                "background": "color"}
        save_file(folder / "imported.vpl", imported.graph)
        # `vpl-editor --preview-screenshot` run in this process (the same `app.main.main`, the same frame): one
        # process shares its start-up, the refined program's link and the environment's prefiltering over documents.
        problems = io.StringIO()
        with contextlib.redirect_stderr(problems):
            code = editor_main([str(folder / "imported.vpl"), "--preview-screenshot", str(folder / "shot.png"), "--size",
                                f"{size}x{size}", "--gl", "desktop", "--environment", ENVIRONMENT, "--tone-mapper", "none"])
        assert code == 0, problems.getvalue()
        return _read(folder / "shot.png")[:, :, :3] * 255.0


def compare(document: Path, size: int = SIZE, samples: int = SAMPLES, unmodelled: Mapping[str, object] | None = None,
            *, stored: bool = False) -> float:
    """Mean absolute 8-bit difference over the sphere's inner pixels between MaterialX's render and the editor's
    (`render_editor`'s `unmodelled`, by default UNMODELLED's for an example of MX_EXAMPLES). MaterialX's render is
    the stored one with `stored` (`reference_8bit`), else rendered now."""
    if unmodelled is None and document.is_relative_to(MX_EXAMPLES):
        unmodelled = UNMODELLED.get(document.relative_to(MX_EXAMPLES).as_posix())
    reference = reference_8bit(document, size, samples) if stored else srgb_8bit(render_materialx(document, size, samples))
    editor = np.round(render_editor(document, size, unmodelled))
    mask = sphere_mask(size)
    return float(np.abs(reference[mask] - editor[mask]).mean())


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(name, f"{compare(MX_EXAMPLES / name):.2f}", flush=True)
