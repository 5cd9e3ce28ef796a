"""`vpl bake`, `vpl export-glsl`, `vpl export-gltf`, `vpl export-mtlx`, `vpl import-mtlx`: the export subcommands of `vpl`.

They reach the `vpl` command through its plug-in point (the entry-point
group `vpl.commands` in pyproject.toml, `vpl_core.cli.plugin_commands`), so
`vpl_core` never imports the editor's packages (docs/architecture.md). Each
entry is a `vpl_core.cli.Command` tuple (help, configure, handler). This
module imports only argparse at load time; a handler imports what it needs
when it runs.

FILE is a material saved by the editor (a `.vpl` file with its node graph);
a file without a graph (a module written by hand) cannot be baked or
exported, and says so. Exit status as for every `vpl` command: 0 done, 1 the
material, the OpenGL context or a file failed (one line on stderr saying
why), 2 the command line is wrong. Notes (nodes baked for one view, missing
textures) are printed as `FILE: note: ...` and do not fail the command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class _Failure(Exception):  # noqa: N818 - control flow inside this module
    def __init__(self, message: str, status: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.status = status


def load_material(path: str) -> tuple[Any, Path]:
    """(MaterialGraph, the document's folder) of an editor material; _Failure otherwise."""
    from app.material.document import load_file

    loaded = load_file(path)
    if loaded.graph is None:
        if loaded.diagnostics:
            raise _Failure("\n".join(diagnostic.format() for diagnostic in loaded.diagnostics))
        reason = loaded.message or f"{path}: cannot be opened"
        raise _Failure(f"{reason}; only materials saved by the editor (with their node graph) can be exported")
    return loaded.graph, Path(path).resolve().parent


def _add_bake_options(parser: argparse.ArgumentParser, size_required: bool, default_size: int = 1024) -> None:
    parser.add_argument("--mesh", default="sphere", metavar="NAME|PATH",
                        help="sphere, cube, plane, cylinder, torus, ball, or an OBJ/glTF/GLB file (default: sphere)")
    if size_required:
        parser.add_argument("--size", type=int, required=True, metavar="N", help="texels on a side, 256..4096")
    else:
        parser.add_argument("--size", type=int, default=default_size, metavar="N",
                            help=f"texels on a side of the baked textures, 256..4096 (default: {default_size})")
    parser.add_argument("--supersampling", type=int, choices=(1, 2, 4), default=1,
                        help="samples per texel on a side (default: 1)")
    parser.add_argument("--padding", type=int, default=None, metavar="TEXELS",
                        help="texels grown around every UV island before the rest is filled (default: size/64, at least 4)")
    parser.add_argument("--time", type=float, default=0.0, metavar="SECONDS", help="scene time of animated nodes (default: 0)")


def _settings(arguments: argparse.Namespace) -> Any:
    from app.export.bake import BakeError, BakeSettings

    try:
        return BakeSettings(arguments.size, arguments.supersampling, arguments.padding, arguments.mesh, arguments.time).validated()
    except BakeError as error:
        raise _Failure(f"vpl: error: {error}", EXIT_USAGE) from None


def _run(body: Any, arguments: argparse.Namespace) -> int:
    from app.export.bake import BakeCancelled
    from app.export.images import ImageWriteError
    from app.export.surface import ExportError

    try:
        notes = body(arguments)
    except _Failure as failure:
        print(str(failure), file=sys.stderr)
        return failure.status
    except ExportError as error:
        print(f"{arguments.file}: error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except (ImageWriteError, OSError) as error:
        print(f"{arguments.file}: error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except BakeCancelled:
        return EXIT_FAILURE
    for note in notes or ():
        print(f"{arguments.file}: note: {note}", file=sys.stderr)
    return EXIT_OK


# vpl bake --------------------------------------------------------------------------------------


def _configure_bake(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a material saved by the editor")
    _add_bake_options(parser, size_required=True)
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the maps and bake.json (created)")


def _bake(arguments: argparse.Namespace) -> list[str]:
    from app.export.bake import bake_context, bake_material
    from app.export.maps import save_maps

    settings = _settings(arguments)
    graph, directory = load_material(arguments.file)
    with bake_context():
        baked = bake_material(graph, settings, document_dir=directory)
    save_maps(baked, arguments.out, mesh=settings.mesh, extra={"supersampling": settings.supersampling})
    return baked.notes


def run_bake(arguments: argparse.Namespace) -> int:
    """Bake the material's output channels into image files (app.export.maps)."""
    return _run(_bake, arguments)


BAKE = (
    "bake a material's channels (base colour, ORM, normal, emission, ...) into textures on a mesh's UVs (needs OpenGL)",
    _configure_bake,
    run_bake,
)


# vpl export-gltf -------------------------------------------------------------------------------


def _configure_export_gltf(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a material saved by the editor")
    parser.add_argument("--out", required=True, metavar="PATH.glb|PATH.gltf", help="the glTF file (.gltf: with .bin and .png beside it)")
    _add_bake_options(parser, size_required=False)


def _export_gltf(arguments: argparse.Namespace) -> list[str]:
    from app.export.bake import Baker, bake_context
    from app.export.gltf import export_gltf

    if Path(arguments.out).suffix.lower() not in (".glb", ".gltf"):
        raise _Failure(f"vpl: error: --out must name a .glb or .gltf file, not {arguments.out!r}", EXIT_USAGE)
    settings = _settings(arguments)
    graph, directory = load_material(arguments.file)
    with bake_context():
        baker = Baker(graph, settings, document_dir=directory)
        baked = baker.bake_material()
        mesh = baker.mesh()
    export_gltf(baked, mesh, arguments.out, name=Path(arguments.file).stem)
    return baked.notes


def run_export_gltf(arguments: argparse.Namespace) -> int:
    """Bake the material and write it with the mesh as glTF 2.0 (app.export.gltf)."""
    return _run(_export_gltf, arguments)


EXPORT_GLTF = (
    "export a material and a mesh as glTF 2.0 (.glb or .gltf) with baked metallic-roughness textures (needs OpenGL)",
    _configure_export_gltf,
    run_export_gltf,
)


# vpl export-mtlx / import-mtlx -----------------------------------------------------------------


def _configure_export_mtlx(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a material saved by the editor")
    parser.add_argument("--out", required=True, metavar="PATH.mtlx", help="the MaterialX document (baked images are written beside it)")
    _add_bake_options(parser, size_required=False)


def _export_mtlx(arguments: argparse.Namespace) -> list[str]:
    from app.export.bake import Baker, bake_context
    from app.export.mtlx import NeedsBaking, export_mtlx, validate

    if Path(arguments.out).suffix.lower() != ".mtlx":
        raise _Failure(f"vpl: error: --out must name a .mtlx file, not {arguments.out!r}", EXIT_USAGE)
    settings = _settings(arguments)
    graph, directory = load_material(arguments.file)
    name = Path(arguments.file).stem
    notes: list[str] = []
    try:  # without nodes to bake no OpenGL is needed
        result = export_mtlx(graph, arguments.out, name, document_dir=directory)
    except NeedsBaking:
        with bake_context():
            baker = Baker(graph, settings, document_dir=directory)
            result = export_mtlx(graph, arguments.out, name, document_dir=directory, bake=baker.bake_node_outputs)
        notes.extend(baker.notes)
    valid, message = validate(result.text)
    if not valid:
        raise _Failure(f"{arguments.out}: MaterialX reports the document invalid (a bug of the exporter): {message}")
    return [*result.notes, *notes]


def run_export_mtlx(arguments: argparse.Namespace) -> int:
    """Write the material as a MaterialX 1.39 document (gltf_pbr), baking nodes without a counterpart (app.export.mtlx)."""
    return _run(_export_mtlx, arguments)


EXPORT_MTLX = (
    "export a material as a MaterialX 1.39 document (open_pbr_surface from the OpenPBR Surface, gltf_pbr from the Surface "
    "Output, surface_unlit); nodes without a standard-library counterpart are baked (OpenGL)",
    _configure_export_mtlx,
    run_export_mtlx,
)


def _configure_import_mtlx(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a MaterialX document (.mtlx) whose material is an open_pbr_surface, standard_surface, gltf_pbr, "
                        "UsdPreviewSurface or surface_unlit")
    parser.add_argument("--out", required=True, metavar="PATH.vpl", help="the editor material to write")
    parser.add_argument("--material", default=None, metavar="NAME",
                        help="which of the document's materials to import (default: the first; the others are listed)")


def _import_mtlx(arguments: argparse.Namespace) -> list[str]:
    from app.export.mtlx import import_mtlx
    from app.material.document import save_file

    if Path(arguments.out).suffix.lower() != ".vpl":
        raise _Failure(f"vpl: error: --out must name a .vpl file, not {arguments.out!r}", EXIT_USAGE)
    from app.export.surface import ExportError
    from app.material.lowering import lower

    imported = import_mtlx(arguments.file, arguments.material)
    lowered = lower(imported.graph)
    if lowered.errors or not lowered.text:
        problems = "; ".join(str(error) for error in lowered.errors) or "no module"
        raise ExportError(f"the imported graph does not compile (a bug of the importer): {problems}")
    save_file(arguments.out, imported.graph, lowered)
    return list(imported.skipped)


def run_import_mtlx(arguments: argparse.Namespace) -> int:
    """Read the mapped subset of a MaterialX document into an editor material; print what was not imported."""
    return _run(_import_mtlx, arguments)


IMPORT_MTLX = (
    "import a MaterialX document (OpenPBR, Standard Surface, glTF PBR, UsdPreviewSurface or unlit material) as an editor "
    "material; lists what was not imported",
    _configure_import_mtlx,
    run_import_mtlx,
)


# vpl export-glsl -------------------------------------------------------------------------------


def _configure_export_glsl(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a material saved by the editor")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for <stem>.vert.glsl, .frag.glsl and .json (created)")
    parser.add_argument("--stem", default=None, metavar="NAME", help="the files' stem (default: the material's file name)")
    parser.add_argument("--copy-textures", action="store_true",
                        help="copy the texture images beside the export (File > Export GLSL's Copy Textures)")
    parser.add_argument("--target", default="glsl420", choices=("glsl420", "es300", "es320"),
                        help="the GLSL target of every program written (default: glsl420, as File > Export GLSL)")


def _export_glsl(arguments: argparse.Namespace) -> list[str]:
    from app.export.glsl import document_stage, export_glsl
    from app.session.session import EditorSession

    graph, directory = load_material(arguments.file)
    session = EditorSession()
    path = Path(arguments.file).resolve()
    session.open_graph(graph, path, path.name)
    export = export_glsl(session, arguments.out, document_stage(graph, directory), arguments.stem, arguments.copy_textures,
                         arguments.target)
    if export.refused:
        raise _Failure(f"{arguments.file}: error: cannot export: {export.refused} (nothing was written)")
    if export.written is None:
        errors = [diagnostic.message for diagnostic in session.diagnostics if diagnostic.severity == "error"]
        raise _Failure(f"{arguments.file}: error: the material does not compile: {'; '.join(errors) or 'see vpl check'}")
    return [export.note] if export.note else []


def run_export_glsl(arguments: argparse.Namespace) -> int:
    """Write the GLSL and the material section exactly as File > Export GLSL… does (app.export.glsl)."""
    return _run(_export_glsl, arguments)


EXPORT_GLSL = (
    "write a material's GLSL (vertex, fragment) and its JSON with the material section, as File > Export GLSL… does",
    _configure_export_glsl,
    run_export_glsl,
)
