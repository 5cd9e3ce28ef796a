"""What every platform's PyInstaller spec shares: entry points, data, imports.

The three spec files (`installers/linux`, `installers/windows`,
`installers/macos`) import this module and differ only in what is really
per-platform (icon format, console flag, the macOS .app wrapper, the
Linux bundle's library policy: `LINUX_*` below). Keep the lists here so a
new run-time resource is added once.

Everything is taken from the *installed* distribution in the build
environment (`pip install .`, never an editable install), so the bundle
holds exactly what a wheel holds: the package data (examples, built-in
programs, icons, HDR environments) and the distribution metadata the version is read from
(`vpl_core.version`).
"""

from __future__ import annotations

import os
from importlib import metadata

DISTRIBUTION = "vpl-material-editor"
#: Folder name of the one-folder build; the editor's executable has the same name.
BUNDLE_NAME = "vpl-editor"
HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(os.path.dirname(HERE))
ICONS = os.path.join(REPOSITORY, "resources", "icons")

ENTRY_EDITOR = os.path.join(HERE, "entry_vpl_editor.py")
ENTRY_CLI = os.path.join(HERE, "entry_vpl.py")

#: Qt modules loaded by name at run time: NodeGraphQt goes through the Qt.py
#: shim, which imports its binding's modules with __import__ (invisible to
#: PyInstaller's analysis); NodeGraphQt uses QtSvg for its icons.
HIDDEN_IMPORTS = [
    "PySide6.QtCore",
    "PySide6.QtGui",
    "PySide6.QtWidgets",
    "PySide6.QtSvg",
    "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets",
    # Qt.py's site configuration (the members NodeGraphQt uses), imported by Qt.py when it loads.
    "QtSiteConfig",
    # The preview loads environments and mesh files on demand (the stage imports mesh_import by
    # name); listing them pulls in what they import when used: OpenImageIO, platformdirs,
    # trimesh, pygltflib.
    "app.preview.environment",
    "app.preview.ibl_assets",
    "app.preview.mesh_import",
    # File > Bake Textures / Export glTF / Export MaterialX import the exporters when chosen
    # (docs/interchange.md): pygltflib, MaterialX and the generator modules they load by name.
    "app.export.bake",
    "app.export.maps",
    "app.export.gltf",
    "app.export.mtlx",
    "app.export.mtlx_import",
    "MaterialX.PyMaterialXGenShader",
    "MaterialX.PyMaterialXGenGlsl",
    "pygltflib",
    # File > Export Turntable (app/preview/turntable.py): imageio picks its plug-ins by name.
    "app.preview.turntable",
    "imageio.plugins.pillow",
    "imageio.plugins.ffmpeg",
    "imageio_ffmpeg",
    "PIL.GifImagePlugin",
]

#: PyOpenGL's window-system bindings that PyInstaller's hook leaves out on Linux
#: (it collects GLX only). The preview binds EGL when Qt's contexts are EGL:
#: on Wayland, or X11 with QT_XCB_GL_INTEGRATION=xcb_egl
#: (app.preview.context.align_pyopengl_platform).
LINUX_HIDDEN_IMPORTS = HIDDEN_IMPORTS + ["OpenGL.platform.glx", "OpenGL.platform.egl"]

#: Never needed at run time; some are pulled in by optional imports of
#: numpy, PyOpenGL or the Qt.py shim and would only add size. setuptools is not
#: among them: NodeGraphQt imports `distutils.version`, which setuptools provides
#: (Python 3.12 has no `distutils` of its own).
EXCLUDES = [
    "tkinter",
    "pytest",
    "hypothesis",
    "pip",
    "PySide6.QtQml",
    "PySide6.QtQuick",
    "PySide6.QtQuickWidgets",
    "PySide6.QtNetwork",
    "PySide6.QtSql",
    "PySide6.QtTest",
    "PySide6.QtDesigner",
    "PySide6.QtUiTools",
    "PySide6.QtXml",
    "PySide6.QtPdf",
    "PySide6.QtDBus",
    "PySide6.QtConcurrent",
    "PySide6.QtHelp",
]

#: The `vpl` command is the language core only: no Qt, no GL, no numpy.
CLI_EXCLUDES = EXCLUDES + ["setuptools", "PySide6", "shiboken6", "NodeGraphQt", "Qt", "OpenGL", "numpy", "app"]


def version() -> str:
    """The version, from the installed package metadata (the one source of it)."""
    return metadata.version(DISTRIBUTION)


def editor_datas() -> list[tuple[str, str]]:
    """Data files the editor reads at run time."""
    from PyInstaller.utils.hooks import collect_data_files, copy_metadata  # imported here: tests load this module

    return (
        collect_data_files("app")  # example materials, application icons
        + collect_data_files("vpl_core")  # built-in programs
        + collect_data_files("NodeGraphQt")  # its node icon
        # MaterialX's standard data libraries (stdlib, pbrlib, ...): found beside its package
        # (MaterialX.getDefaultDataSearchPath), needed to validate and generate shaders.
        + collect_data_files("MaterialX", includes=["libraries/**"])
        # The ffmpeg executable imageio-ffmpeg ships (MP4 turntables), and imageio's metadata (it reads its version).
        + collect_data_files("imageio_ffmpeg", includes=["binaries/*"])
        + copy_metadata("imageio")
        + copy_metadata(DISTRIBUTION)  # the version shown by --version and About
    )


def cli_datas() -> list[tuple[str, str]]:
    """Data files the `vpl` command reads at run time."""
    from PyInstaller.utils.hooks import collect_data_files, copy_metadata

    return collect_data_files("vpl_core") + copy_metadata(DISTRIBUTION)


#: Qt plugins left out of the Linux bundle, and why.
LINUX_DROPPED_PLUGINS = {
    # Qt's GTK 3 theme plugin loads the desktop's own libgtk-3, which would
    # then run against the build machine's GLib, Pango and Cairo that the
    # bundle would carry for it: a classic source of symbol errors on newer
    # distributions. Without it Qt uses its own Fusion style (and the XDG
    # desktop portal theme where there is one).
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so": "GTK 3 theme",
}


#: Libraries the system's OpenGL driver stack loads too (Mesa's DRI drivers,
#: libGLX_mesa, libEGL_mesa and their dependencies, read off Debian 12 with
#: ldd): the bundle must use the system's copies. A bundled copy is loaded
#: first, and a driver built against a newer one then fails to load
#: ("libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by
#: radeonsi_dri.so)", pyinstaller/pyinstaller#5573 and #6993), which turns
#: the preview off. Every desktop with an OpenGL driver has them.
LINUX_SYSTEM_LIBRARIES = frozenset({
    "libstdc++.so.6", "libgcc_s.so.1",
    "libX11.so.6", "libX11-xcb.so.1", "libXau.so.6", "libXdmcp.so.6", "libbsd.so.0", "libmd.so.0",
    "libxcb-glx.so.0", "libxcb-randr.so.0", "libxcb-shm.so.0", "libxcb-sync.so.1", "libxcb-xfixes.so.0",
    "libexpat.so.1", "libffi.so.8", "libz.so.1", "libzstd.so.1", "liblzma.so.5", "libtinfo.so.6",
})


def without_system_libraries(binaries: list) -> list:
    """`binaries` without the top-level copies of `LINUX_SYSTEM_LIBRARIES`."""
    return [entry for entry in binaries
            if "/" in entry[0].replace("\\", "/") or entry[0] not in LINUX_SYSTEM_LIBRARIES]


def drop_binaries(binaries: list, dropped: dict[str, str]) -> list:
    """`binaries` (an Analysis TOC) without `dropped` and without the libraries only they needed.

    A library is removed only if the dropped binaries' dependencies reached
    it and nothing that stays does (closure over ELF NEEDED entries,
    following the libraries PyInstaller placed at the top of the bundle).
    """
    from PyInstaller.depend.bindepend import get_imports

    dropped_names = {name.replace("\\", "/") for name in dropped}

    def is_dropped(dest: str) -> bool:
        return dest.replace("\\", "/") in dropped_names

    top_level = {dest: src for dest, src, _kind in binaries if "/" not in dest.replace("\\", "/")}

    def reached(roots: list[str]) -> set[str]:
        seen: set[str] = set()
        stack = [src for src in roots if os.path.isfile(src)]
        while stack:
            for name, _path in get_imports(stack.pop()):
                base = os.path.basename(name)
                if base in top_level and base not in seen:
                    seen.add(base)
                    if os.path.isfile(top_level[base]):
                        stack.append(top_level[base])
        return seen

    kept_roots = [src for dest, src, _kind in binaries if dest not in top_level and not is_dropped(dest)]
    dropped_roots = [src for dest, src, _kind in binaries if is_dropped(dest)]
    only_for_dropped = reached(dropped_roots) - reached(kept_roots)
    return [entry for entry in binaries if not is_dropped(entry[0]) and entry[0] not in only_for_dropped]


def icon(extension: str) -> str:
    """The application icon in one format: "png" (256 px), "ico" or "icns"."""
    name = "vpl-editor-256.png" if extension == "png" else f"vpl-editor.{extension}"
    return os.path.join(ICONS, name)
