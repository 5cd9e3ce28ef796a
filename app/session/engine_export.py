"""The `material` section of an export: what an engine needs beyond the shaders to rebuild the look.

`vpl compile` writes the program and its reflection (bindings, locations,
types). An engine also needs each parameter's value, range and widget, the
texture files with their colour spaces, the variants, and the conventions
the editor's preview follows (scene record, vertex inputs, sampler state,
the checker texture used where no image is set). `material_section`
builds that as plain JSON data; `export_artifact(..., extra=...)` writes it
into `<stem>.json` beside the reflection. docs/engine-integration.md
describes every field and how a host uses them.

Texture files are named relative to the JSON file: copied beside it when
asked (`copy_textures`), else the path from the export folder to the
original (absolute when no relative path exists). A texture that cannot
be read is exported with `"file": null` and its `problem`: the engine uses
the checker, as the preview does.

The section also says how the program's colour is to be shown (`output`:
linear HDR `radiance` that the host exposes, tone-maps and encodes, or a
display colour) and which uniforms are the host's image-based-lighting
samplers (`environment_samplers`, laid out as docs/lighting.md says). When
the caller passes the preview's stage (`PreviewLighting`: the editor's
window does, from the stage toolbar), `preview` holds the light, exposure,
tone mapper and background, and the environment's prefiltered images are
written beside the JSON as half-float OpenEXR files (top row first, like
every image of the export), so a host can show the material exactly as the
artist saw it (`tools/engine_host.py` does).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from app.material.graph import MaterialGraph
from app.material.parameters import ParameterKind, ParameterSpec, material_values, parameter_nodes
from app.material.scene import HOST_SAMPLERS, RADIANCE_OUTPUT_NAME, SCENE_FIELDS, SCENE_UNIFORM_NAME, VERTEX_INPUTS
from app.material.textures import CHECKER_CELLS, CHECKER_DARK, CHECKER_LIGHT, CHECKER_SIZE
from app.session.textures import TextureLoadError, load_texture, resolve_texture_path
from vpl_core.atomic_write import write_atomically
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.module import Direction
from vpl_core.ir.types import VectorType

EXPORT_FORMAT = "vpl-material-export"
EXPORT_VERSION = 1
#: How the preview samples each host sampler of image-based lighting (docs/lighting.md): wrap (u, v),
#: filters, and the texture format its data is exact in.
ENVIRONMENT_SAMPLER_STATES: dict[str, dict[str, Any]] = {
    "environment_specular": {"wrap": ["repeat", "clamp_to_edge"], "min_filter": "linear_mipmap_linear",
                             "mag_filter": "linear", "format": "rgb16f", "mipmaps": "the exported levels"},
    "environment_irradiance": {"wrap": ["repeat", "clamp_to_edge"], "min_filter": "linear", "mag_filter": "linear",
                               "format": "rgb16f", "mipmaps": "none"},
    "environment_brdf": {"wrap": ["clamp_to_edge", "clamp_to_edge"], "min_filter": "linear", "mag_filter": "linear",
                         "format": "rg16f", "mipmaps": "none"},
}


@dataclass(frozen=True, eq=False)
class PreviewLighting:
    """The preview's stage as an export records it (built by `app.preview.stage.preview_lighting`).

    Linear colours; `light_direction` a unit vector towards the light;
    `exposure` in EV; `environment_rotation` in radians; `background` is
    "color", "environment" or "blurred" and `background_lod` the specular
    level of detail the environment background is read at; the
    environment's images are in docs/lighting.md's layout and GL row order
    (row 0 is t = 0): `specular` the mip chain, `irradiance`, `brdf` the
    split-sum table (height, width, 2). Without images (a display-colour
    material needs none) no files are written.
    """

    light_direction: tuple[float, float, float]
    light_color: tuple[float, float, float]
    light_intensity: float
    exposure: float
    tone_mapper: str
    background: str
    background_color: tuple[float, float, float]
    background_lod: float
    mesh: str
    environment: str
    environment_rotation: float
    environment_intensity: float
    specular: tuple[np.ndarray, ...] = ()
    irradiance: np.ndarray | None = None
    brdf: np.ndarray | None = None


def _type_name(spec: ParameterSpec) -> str:
    if spec.kind is ParameterKind.FLOAT:
        return "float"
    if spec.kind is ParameterKind.TEXTURE:
        return "sampler2D"
    if spec.kind in (ParameterKind.VECTOR, ParameterKind.COLOR) and isinstance(spec.type, VectorType):
        return f"vec{spec.type.size}"
    return str(spec.type)


def _widget(spec: ParameterSpec) -> str:
    if spec.kind is ParameterKind.FLOAT:
        return "slider" if spec.maximum > spec.minimum else "number"
    return {ParameterKind.VECTOR: "vector", ParameterKind.COLOR: "color", ParameterKind.TEXTURE: "texture"}.get(
        spec.kind, "none")


def _json_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


class _Textures:
    """Texture entries of one export, one per (parameter, variant); copies files when asked."""

    def __init__(self, directory: Path | None, out_dir: Path, stem: str, copy: bool) -> None:
        self.directory, self.out_dir, self.stem, self.copy = directory, out_dir, stem, copy
        self.entries: list[dict[str, Any]] = []
        self._copied: dict[Path, str] = {}

    def add(self, parameter: str, variant: str | None, stored: Any, color_space: str) -> str | None:
        """Record one texture value; returns the file as the JSON names it (None: the checker)."""
        if not isinstance(stored, str) or not stored:
            return None
        source = resolve_texture_path(stored, self.directory)
        entry: dict[str, Any] = {"parameter": parameter, "variant": variant, "source": stored,
                                 "color_space": color_space, "file": None}
        try:
            image = load_texture(source)
        except TextureLoadError as error:
            entry["problem"] = str(error)
            self.entries.append(entry)
            return None
        entry["size"] = list(image.size)
        entry["high_precision"] = image.high_precision
        file = self._copy(source) if self.copy else self._relative(source)
        entry["file"] = file
        self.entries.append(entry)
        return file

    def _relative(self, source: Path) -> str:
        try:
            return PurePosixPath(*Path(os.path.relpath(source, self.out_dir)).parts).as_posix()
        except ValueError:  # another drive
            return str(source)

    def _copy(self, source: Path) -> str:
        if source in self._copied:
            return self._copied[source]
        name = source.name
        taken = set(self._copied.values())
        if name in taken or name.startswith(f"{self.stem}."):
            name = f"{self.stem}-{len(taken) + 1}-{source.name}"
        write_atomically(self.out_dir / name, source.read_bytes())
        self._copied[source] = name
        return name


def _write_half_exr(path: Path, image: np.ndarray) -> None:
    """A float image in GL row order as a half-float RGB OpenEXR file, top row first (two channels get blue 0)."""
    import OpenImageIO as oiio  # noqa: N813 - the library's own alias

    values = np.asarray(image, dtype=np.float32)
    rgb: np.ndarray = np.zeros(values.shape[:2] + (3,), dtype=np.float32)  # (height, width, 3)
    rgb[..., : values.shape[2]] = values
    rgb = np.ascontiguousarray(rgb[::-1])
    handle, temporary = tempfile.mkstemp(suffix=".exr", dir=path.parent, prefix=f".{path.stem}.")
    os.close(handle)
    try:
        output = oiio.ImageOutput.create(temporary)
        if output is None:
            raise OSError(f"cannot write OpenEXR files: {oiio.geterror()}")
        spec = oiio.ImageSpec(rgb.shape[1], rgb.shape[0], 3, oiio.HALF)
        spec.attribute("compression", "zip")
        # No capture date (OpenImageIO writes the time by default): the same material exports the same bytes.
        spec.attribute("DateTime", "")
        if not output.open(temporary, spec) or not output.write_image(rgb) or not output.close():
            raise OSError(f"cannot write {path}: {output.geterror()}")
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def written_files(section: dict[str, Any]) -> list[str]:
    """The environment images a `material` section names (relative to the JSON file)."""
    files = section.get("preview", {}).get("environment", {}).get("files", {})
    return [*files.get("environment_specular", []), *(files[name] for name in ("environment_irradiance", "environment_brdf")
                                                      if name in files)]


def preview_section(lighting: PreviewLighting, out_dir: Path, stem: str) -> dict[str, Any]:
    """The `preview` section of `lighting`; writes the environment's images beside the JSON. Raises OSError."""
    environment: dict[str, Any] = {"name": lighting.environment, "rotation": lighting.environment_rotation,
                                   "intensity": lighting.environment_intensity}
    if lighting.specular and lighting.irradiance is not None and lighting.brdf is not None:
        files: dict[str, Any] = {"environment_specular": []}
        for level, image in enumerate(lighting.specular):
            name = f"{stem}.environment_specular.{level}.exr"
            _write_half_exr(out_dir / name, image)
            files["environment_specular"].append(name)
        for sampler, image in (("environment_irradiance", lighting.irradiance), ("environment_brdf", lighting.brdf)):
            name = f"{stem}.{sampler}.exr"
            _write_half_exr(out_dir / name, image)
            files[sampler] = name
        environment["max_lod"] = float(len(lighting.specular) - 1)
        environment["files"] = files
    return {
        "mesh": lighting.mesh,
        "light": {"direction": list(lighting.light_direction), "color": list(lighting.light_color),
                  "intensity": lighting.light_intensity},
        "environment": environment,
        "exposure": lighting.exposure,
        "tone_mapper": lighting.tone_mapper,
        "background": {"mode": lighting.background, "color": list(lighting.background_color),
                       "lod": lighting.background_lod},
    }


def _output_entry(artifact: ProgramArtifact) -> dict[str, Any]:
    """The colour output: its names and location, and whether it is linear HDR radiance."""
    name = artifact.fragment_color_output
    for binding in artifact.fragment_interface:
        if binding.direction is Direction.OUT and binding.gl_name == artifact.fragment_color_output:
            name = binding.name
    return {"name": name, "gl_name": artifact.fragment_color_output, "location": artifact.fragment_color_location,
            "radiance": name == RADIANCE_OUTPUT_NAME}


def material_section(artifact: ProgramArtifact, specs: Sequence[ParameterSpec], graph: MaterialGraph,
                     directory: Path | None, out_dir: Path, stem: str, copy_textures: bool = False,
                     lighting: PreviewLighting | None = None) -> dict[str, Any]:
    """The `material` section for `artifact` lowered from `graph` (see the module docstring).

    With `lighting` (the preview's stage) the section has a `preview` entry
    and the environment's images are written to `out_dir`. Raises OSError
    when a texture cannot be copied or an image written.
    """
    gl_names = {binding.name: binding.gl_name for binding in artifact.uniforms}
    nodes = parameter_nodes(graph)
    base_graph = graph.copy()
    base_graph.active_variant = None
    base, _ = material_values(specs, base_graph)
    current, _ = material_values(specs, graph)
    textures = _Textures(directory, out_dir, stem, copy_textures)

    def color_space(name: str) -> str:
        node = nodes.get(name)
        return str(node.properties.get("color_space", "srgb")) if node is not None else "srgb"

    parameters: list[dict[str, Any]] = []
    for spec in specs:
        entry: dict[str, Any] = {"name": spec.name, "gl_name": gl_names.get(spec.name), "kind": spec.kind.value,
                                 "type": _type_name(spec), "widget": _widget(spec), "label": spec.display_name}
        if spec.kind is ParameterKind.TEXTURE:
            entry["color_space"] = color_space(spec.name)
            entry["default"] = textures.add(spec.name, None, base[spec.name], entry["color_space"])
            entry["value"] = (entry["default"] if current[spec.name] == base[spec.name]
                              else textures.add(spec.name, graph.active_variant, current[spec.name], entry["color_space"]))
        else:
            entry["default"], entry["value"] = _json_value(base[spec.name]), _json_value(current[spec.name])
            if spec.kind in (ParameterKind.FLOAT, ParameterKind.VECTOR):
                entry["minimum"], entry["maximum"] = spec.minimum, spec.maximum
        parameters.append(entry)

    by_name = {spec.name: spec for spec in specs}
    variants: list[dict[str, Any]] = []
    for variant in graph.variants:
        single = graph.copy()
        single.active_variant = variant.name
        values, overridden = material_values(specs, single)
        exported: dict[str, Any] = {}
        for name in sorted(overridden):
            if by_name[name].kind is ParameterKind.TEXTURE:
                exported[name] = textures.add(name, variant.name, values[name], color_space(name))
            else:
                exported[name] = _json_value(values[name])
        variants.append({"name": variant.name, "values": exported})

    section: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "output": _output_entry(artifact),
        "parameters": parameters,
        "textures": textures.entries,
        "variants": variants,
        "active_variant": graph.active_variant if graph.active is not None else None,
        "scene": {
            "uniform": SCENE_UNIFORM_NAME,
            "gl_name": gl_names.get(SCENE_UNIFORM_NAME),
            "fields": [{"name": name, "type": str(field_type)} for name, field_type in SCENE_FIELDS],
        },
        "vertex_inputs": [{"location": item.location, "name": item.name, "type": str(item.type)}
                          for item in VERTEX_INPUTS],
        "sampler": {"wrap": "repeat", "min_filter": "linear_mipmap_linear", "mag_filter": "linear",
                    "rows": "the image's bottom row is texture coordinate v = 0 (upload rows bottom first)"},
        "default_texture": {"kind": "checker", "size": CHECKER_SIZE, "cells": CHECKER_CELLS,
                            "light": list(CHECKER_LIGHT), "dark": list(CHECKER_DARK),
                            "corner": "the cell at texture coordinate (0, 0) is light"},
        "environment_samplers": [{"name": name, "gl_name": gl_names[name], **ENVIRONMENT_SAMPLER_STATES[name]}
                                 for name in HOST_SAMPLERS if name in gl_names],
    }
    if lighting is not None:
        section["preview"] = preview_section(lighting, out_dir, stem)
    return section
