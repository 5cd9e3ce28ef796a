"""The Linux desktop bundle, built for real and run the way an artist would run it.

One session-scoped build (`installers/build-linux.sh`, PyInstaller) produces
the .tar.gz; it is unpacked into a temporary folder and its executables run
with a clean environment: PATH of the system only (no virtual environment),
no PYTHONPATH, another HOME, a working directory outside the source tree.
Slow (about a minute and a half for the build), and part of every run and
of CI like every other test.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from bundle_build import BUILD

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"
VERSION = metadata.version("vpl-material-editor")
BUNDLE = f"vpl-editor-{VERSION}"

pytestmark = [pytest.mark.slow, pytest.mark.gl]


@pytest.fixture(scope="session")
def bundle_archive() -> Path:
    """The archive of the run's build (tests/bundle_build.py: started right after collection)."""
    result = BUILD.result()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-8000:]
    sys.stderr.write(result.stderr.splitlines()[-1] + "\n")  # size, glibc and build time, for the record
    archive = Path(result.stdout.strip().splitlines()[-1])
    assert archive == result.dist / f"{BUNDLE}-linux-x86_64.tar.gz"
    return archive


@pytest.fixture(scope="session")
def bundle(bundle_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked bundle folder, in a temporary directory far from the source tree."""
    target = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(bundle_archive) as archive:
        archive.extractall(target, filter="tar")
    return target / BUNDLE


@pytest.fixture()
def clean_env(tmp_path: Path) -> dict[str, str]:
    """What a fresh desktop session gives a program: no venv, no PYTHONPATH, its own HOME."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    for name in ("DISPLAY", "XAUTHORITY"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    assert "DISPLAY" in env, "the bundle test needs the X server pytest-xvfb starts"
    return env


def _run(command: list[str], env: dict[str, str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _load_png(path: Path) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable PNG"
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    array = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return array.reshape(image.height(), image.bytesPerLine() // 4, 4)[:, : image.width(), :3].astype(int).copy()


# ---- the archive -----------------------------------------------------------------------------


def test_the_archive_is_one_versioned_folder_with_executables_desktop_file_and_icon(bundle_archive: Path) -> None:
    with tarfile.open(bundle_archive) as archive:
        members = archive.getmembers()
    names = {member.name for member in members}
    assert all(name == BUNDLE or name.startswith(BUNDLE + "/") for name in names)
    assert not any(name.startswith("/") or ".." in Path(name).parts for name in names)
    by_name = {member.name: member for member in members}
    for executable in ("vpl-editor", "vpl", "install.sh"):
        assert by_name[f"{BUNDLE}/{executable}"].mode & stat.S_IXUSR, executable
    for shipped in ("vpl-editor.desktop", "vpl-editor.png", "vpl-editor.svg", "vpl-editor-mime.xml", "README.txt"):
        assert f"{BUNDLE}/{shipped}" in names, shipped
    assert all(member.uid == 0 and member.gid == 0 for member in members)


def test_the_bundle_carries_its_resources_and_metadata_and_nothing_of_the_tests(bundle: Path) -> None:
    internal = bundle / "_internal"
    examples = sorted(path.name for path in (internal / "app" / "material" / "examples").glob("*.vpl"))
    assert examples == sorted(path.name for path in EXAMPLES.glob("*.vpl"))
    programs = internal / "vpl_core" / "builtin_programs"
    for source in (ROOT / "resources" / "programs").glob("*.vpl"):
        assert (programs / source.name).read_bytes() == source.read_bytes()
    assert (internal / "app" / "icons" / "vpl-editor-256.png").is_file()
    environments = internal / "app" / "preview" / "environments"
    for source in (ROOT / "resources" / "environments").glob("*.hdr"):
        assert (environments / source.name).read_bytes() == source.read_bytes()
    assert (environments / "brdf_lut.npy").is_file()
    # HDR files are read through OpenImageIO (imported on first use): its extension and libraries ship.
    assert list((internal / "OpenImageIO").glob("OpenImageIO*.so")), "OpenImageIO's extension module is missing"
    assert list(internal.rglob("libOpenImageIO.so*")), "libOpenImageIO is missing"
    assert (internal / f"vpl_material_editor-{VERSION}.dist-info" / "METADATA").is_file()
    # MaterialX export (File > Export MaterialX): the extension modules and the standard data libraries.
    materialx = internal / "MaterialX"
    for module in ("PyMaterialXCore", "PyMaterialXFormat", "PyMaterialXGenShader", "PyMaterialXGenGlsl"):
        assert list(materialx.glob(f"{module}*.so")), f"MaterialX's {module} is missing"
    for library in ("stdlib", "pbrlib", "bxdf"):
        assert (materialx / "libraries" / library).is_dir(), f"MaterialX's {library} data library is missing"
    assert (materialx / "libraries" / "bxdf" / "gltf_pbr.mtlx").is_file()
    plugins = internal / "PySide6" / "Qt" / "plugins"
    for plugin in ("platforms/libqxcb.so", "platforms/libqoffscreen.so", "xcbglintegrations/libqxcb-glx-integration.so",
                   "xcbglintegrations/libqxcb-egl-integration.so", "imageformats/libqsvg.so"):
        assert (plugins / plugin).is_file(), plugin
    # Dropped on purpose (installers/bundle/common.py): the GTK theme and the GLib/Pango/Cairo stack it pulled in.
    assert not (plugins / "platformthemes" / "libqgtk3.so").exists()
    assert not [path.name for path in internal.glob("lib*") if re.match(r"lib(gtk|gdk|pango|cairo|atk)", path.name)]
    files = {path.relative_to(internal).parts[0] for path in internal.iterdir()}
    assert not files & {"pytest", "_pytest", "hypothesis", "tkinter", "pytestqt"}


def _is_elf(path: Path) -> bool:
    with open(path, "rb") as stream:
        return stream.read(4) == b"\x7fELF"


def test_libraries_the_gl_driver_also_loads_come_from_the_system_and_everything_else_resolves(bundle: Path) -> None:
    sys.path.insert(0, str(ROOT / "installers" / "bundle"))
    try:
        from common import LINUX_SYSTEM_LIBRARIES
    finally:
        sys.path.pop(0)
    internal = bundle / "_internal"
    assert "libstdc++.so.6" in LINUX_SYSTEM_LIBRARIES
    assert not sorted(name for name in LINUX_SYSTEM_LIBRARIES if (internal / name).exists())
    # With the bundle's library path (as its bootloader sets it), every dependency of every bundled
    # binary is found: in the bundle, or on the system (the Wayland client libraries too, which
    # scripts/bootstrap.sh installs with weston, as a Wayland desktop has them).
    env = dict(os.environ, LD_LIBRARY_PATH=f"{internal}:{internal / 'PySide6' / 'Qt' / 'lib'}")
    binaries = [path for path in internal.rglob("*.so*") if path.is_file() and not path.is_symlink() and _is_elf(path)]
    binaries += [bundle / "vpl-editor", bundle / "vpl"]
    missing: dict[str, set[str]] = {}
    for binary in binaries:
        listing = subprocess.run(["ldd", str(binary)], env=env, capture_output=True, text=True).stdout
        for name in re.findall(r"^\s*(\S+) => not found", listing, re.MULTILINE):
            missing.setdefault(name, set()).add(binary.name)
    assert not missing, missing
    system = subprocess.run(["ldd", str(internal / "PySide6" / "Qt" / "plugins" / "platforms" / "libqxcb.so")],
                            env=env, capture_output=True, text=True).stdout
    assert re.search(r"libstdc\+\+\.so\.6 => /(usr/)?lib", system), system


def test_the_shipped_desktop_entry_is_valid(bundle: Path) -> None:
    entry = (bundle / "vpl-editor.desktop").read_text(encoding="utf-8")
    assert "Exec=vpl-editor %f" in entry and "Icon=vpl-editor" in entry and "@" not in entry
    result = subprocess.run(["desktop-file-validate", str(bundle / "vpl-editor.desktop")],
                            capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_the_readme_names_the_version_and_the_measured_glibc(bundle: Path) -> None:
    text = (bundle / "README.txt").read_text(encoding="utf-8")
    assert f"VPL Material Editor {VERSION}" in text
    assert re.search(r"glibc 2\.\d+ or newer", text), text
    assert "@" not in text


# ---- running it ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "session",
    [
        pytest.param({}, id="x11"),
        # A Wayland desktop's environment with Qt on X11: PyOpenGL must still bind GLX like Qt.
        pytest.param({"XDG_SESSION_TYPE": "wayland", "QT_QPA_PLATFORM": "xcb"}, id="wayland-session-qt-on-x11"),
        # Qt's contexts through EGL: needs PyOpenGL's EGL binding inside the bundle.
        pytest.param({"QT_XCB_GL_INTEGRATION": "xcb_egl"}, id="egl"),
    ],
)
def test_bundled_preview_screenshot_shows_the_sphere(bundle: Path, clean_env: dict[str, str], tmp_path: Path,
                                                     session: dict[str, str]) -> None:
    example = tmp_path / "lit_blinn_phong.vpl"
    shutil.copy(EXAMPLES / "lit_blinn_phong.vpl", example)
    shot = tmp_path / "bundled.png"
    result = _run([str(bundle / "vpl-editor"), str(example), "--preview-screenshot", str(shot), "--size", "256x256"],
                  dict(clean_env, **session), tmp_path)
    assert result.returncode == 0, result.stderr
    pixels = _load_png(shot)
    assert pixels.shape == (256, 256, 3)
    background = pixels[2, 2]
    assert all((pixels[corner] == background).all() for corner in ((2, 253), (253, 2), (253, 253)))
    sphere = np.abs(pixels - background).sum(axis=2) > 24
    # A disc in the middle: centred, about a third of the height in radius, round.
    rows, columns = np.nonzero(sphere)
    assert abs(rows.mean() - 127.5) < 6 and abs(columns.mean() - 127.5) < 6
    radius = np.sqrt(sphere.sum() / np.pi)
    assert 0.28 * 256 < radius < 0.38 * 256, radius
    assert abs((rows.max() - rows.min()) - (columns.max() - columns.min())) <= 3
    # The material's red base colour, lit: the lit side is red and brighter than the shadowed side.
    centre = pixels[118:138, 118:138].mean(axis=(0, 1))
    assert centre[0] > 1.5 * centre[1] and centre[0] > 1.5 * centre[2], centre
    upper_left = pixels[90:100, 90:100].sum(axis=2).mean()
    lower_right = pixels[160:170, 160:170].sum(axis=2).mean()
    assert upper_left > lower_right + 60

    # The same frame as the editor run from the source tree gives.
    reference = tmp_path / "source.png"
    source_run = subprocess.run(
        [sys.executable, "-m", "app.main", str(example), "--preview-screenshot", str(reference), "--size", "256x256"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert source_run.returncode == 0, source_run.stderr
    assert np.abs(_load_png(reference) - pixels).max() <= 2


def test_bundled_editor_window_screenshot(bundle: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    shot = tmp_path / "window.png"
    result = _run([str(bundle / "vpl-editor"), "--screenshot", str(shot)], clean_env, tmp_path, timeout=180)
    assert result.returncode == 0, result.stderr
    pixels = _load_png(shot)
    assert pixels.shape[0] > 400 and pixels.shape[1] > 600
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 200  # a real window, not a blank grab


def test_bundled_editor_on_a_real_wayland_compositor(bundle: Path, clean_env: dict[str, str],
                                                     wayland_session: dict[str, str], tmp_path: Path) -> None:
    """Qt's Wayland platform from the bundle (no X server in the environment): window and preview."""
    env = {key: value for key, value in clean_env.items() if key not in ("DISPLAY", "XAUTHORITY")}
    env.update(wayland_session)
    about = _run([str(bundle / "vpl-editor"), "--about"], env, tmp_path)
    facts = dict(re.findall(r"^([A-Za-z ]+):\s+(.*)$", about.stdout, re.MULTILINE))
    assert facts.get("Window system") == "wayland", about.stdout + about.stderr
    assert facts["OpenGL renderer"] not in ("", "unknown")
    shot = tmp_path / "window.png"
    # The red Blinn-Phong material (the default example is a PBR metal whose colours vary with the stage).
    example = tmp_path / "lit_blinn_phong.vpl"
    shutil.copy(EXAMPLES / "lit_blinn_phong.vpl", example)
    result = _run([str(bundle / "vpl-editor"), str(example), "--screenshot", str(shot)], env, tmp_path, timeout=180)
    assert result.returncode == 0, result.stderr
    pixels = _load_png(shot)
    sphere_red = (pixels[..., 0] > 150) & (pixels[..., 1] < 60) & (pixels[..., 2] < 60)
    assert sphere_red.sum() > 2000, sphere_red.sum()  # the preview drew the lit red sphere


def test_bundled_about_reports_version_qt_and_the_renderer(bundle: Path, clean_env: dict[str, str],
                                                          tmp_path: Path) -> None:
    result = _run([str(bundle / "vpl-editor"), "--about"], clean_env, tmp_path)
    assert result.returncode == 0, result.stderr
    facts = dict(re.findall(r"^([A-Za-z ]+):\s+(.*)$", result.stdout, re.MULTILINE))
    assert facts["Version"] == VERSION
    assert facts["Installed"] == f"bundle at {bundle}"
    assert re.match(r"6\.\d+\.\d+ \(PySide6 6\.\d+", facts["Qt"])
    assert facts["OpenGL renderer"] not in ("", "unknown")
    assert facts["OpenGL context"].startswith(("OpenGL 4.", "OpenGL ES 3.2"))
    version = _run([str(bundle / "vpl-editor"), "--version"], clean_env, tmp_path)
    assert version.stdout.strip() == f"vpl-editor {VERSION}"


def test_bundled_vpl_checks_an_example_and_reports_errors(bundle: Path, clean_env: dict[str, str],
                                                          tmp_path: Path) -> None:
    example = tmp_path / "textured.vpl"
    shutil.copy(EXAMPLES / "textured.vpl", example)
    good = _run([str(bundle / "vpl"), "check", str(example)], clean_env, tmp_path)
    assert (good.returncode, good.stdout, good.stderr) == (0, "", "")
    bad = tmp_path / "bad.vpl"
    bad.write_text('(module 1\n  (stage "vertex" (entry f0))\n', encoding="utf-8")
    failed = _run([str(bundle / "vpl"), "check", str(bad)], clean_env, tmp_path)
    assert failed.returncode == 1
    assert re.match(rf"{re.escape(str(bad))}:\d+:\d+: \w+ error: ", failed.stderr), failed.stderr
    out = tmp_path / "glsl"
    compiled = _run([str(bundle / "vpl"), "compile", str(example), "--out", str(out)], clean_env, tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    assert sorted(path.name for path in out.iterdir()) == ["textured.frag.glsl", "textured.json", "textured.vert.glsl"]
    version = _run([str(bundle / "vpl"), "--version"], clean_env, tmp_path)
    assert version.stdout.strip() == f"vpl {VERSION}"
    # The editor's plug-in commands need the editor's package, which this executable leaves out
    # (docs/installers.md): they say so plainly and fail, nothing crashes.
    for command in ("bake", "export-glsl", "export-gltf", "export-mtlx", "import-mtlx"):
        plugin = _run([str(bundle / "vpl"), command, str(example)], clean_env, tmp_path)
        assert plugin.returncode == 1, (command, plugin.stdout, plugin.stderr)
        assert plugin.stderr.startswith(f"vpl {command}: error: not available in this installation: "), plugin.stderr
        assert "Traceback" not in plugin.stderr


def test_install_sh_puts_launchers_menu_entry_icon_and_file_type_in_place_and_removes_them(
    bundle: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    prefix = tmp_path / "prefix"
    installed = _run([str(bundle / "install.sh"), "--prefix", str(prefix)], clean_env, tmp_path)
    assert installed.returncode == 0, installed.stderr
    entry = prefix / "share" / "applications" / "vpl-editor.desktop"
    assert f'Exec="{bundle}/vpl-editor" %f' in entry.read_text(encoding="utf-8")
    validated = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
    assert validated.returncode == 0 and not validated.stdout.strip(), validated.stdout
    assert (prefix / "share" / "icons" / "hicolor" / "256x256" / "apps" / "vpl-editor.png").is_file()
    assert (prefix / "share" / "mime" / "packages" / "vpl-editor-mime.xml").is_file()
    # The launcher runs the bundle from anywhere, through a PATH without the bundle.
    env = dict(clean_env, PATH=f"{prefix / 'bin'}:{clean_env['PATH']}")
    launched = _run(["vpl", "--version"], env, tmp_path)
    assert launched.stdout.strip() == f"vpl {VERSION}", launched.stderr
    removed = _run([str(bundle / "install.sh"), "--prefix", str(prefix), "--uninstall"], clean_env, tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert not entry.exists() and not (prefix / "bin" / "vpl").exists() and not (prefix / "bin" / "vpl-editor").exists()
    assert (bundle / "vpl-editor").is_file()  # uninstalling the integration leaves the bundle alone


def test_bundled_editor_reads_16_bit_png_and_exr_textures(bundle: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    """OpenImageIO (and its codecs) ship in the bundle: a material's 16-bit PNG and EXR maps load there."""
    import OpenImageIO as oiio  # noqa: N813 - the library's own alias

    from app.material.document import save_file
    from app.material.graph import MaterialGraph

    for name, data_format, value in (("albedo.png", "uint16", 0.25), ("glow.exr", "half", 2.0)):
        output = oiio.ImageOutput.create(str(tmp_path / name))
        assert output.open(str(tmp_path / name), oiio.ImageSpec(8, 8, 3, data_format))
        assert output.write_image(np.full((8, 8, 3), value, np.float32))
        output.close()
    graph = MaterialGraph()
    albedo = graph.add_node("texture_parameter", (0, 0), {"name": "albedo", "image": "albedo.png"})
    glow = graph.add_node("texture_parameter", (0, 200), {"name": "glow", "image": "glow.exr"})
    sample, sample_glow = graph.add_node("sample_texture", (200, 0)), graph.add_node("sample_texture", (200, 200))
    output_node = graph.add_node("material_output", (400, 0))
    graph.connect(albedo.id, "out", sample.id, "texture")
    graph.connect(glow.id, "out", sample_glow.id, "texture")
    graph.connect(sample.id, "rgba", output_node.id, "base_color")
    graph.connect(sample_glow.id, "rgb", output_node.id, "emissive")
    material = tmp_path / "textured.vpl"
    save_file(material, graph)
    shot = tmp_path / "textured.png"
    result = _run([str(bundle / "vpl-editor"), str(material), "--preview-screenshot", str(shot), "--size", "64x64"],
                  clean_env, tmp_path)
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    centre = _load_png(shot)[32, 32]
    assert (centre >= 250).all(), centre  # 0.25 + 2.0 saturates: both images were read (the checker would not)
