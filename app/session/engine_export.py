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
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from app.material.graph import MaterialGraph
from app.material.parameters import ParameterKind, ParameterSpec, material_values, parameter_nodes
from app.material.scene import SCENE_FIELDS, SCENE_UNIFORM_NAME, VERTEX_INPUTS
from app.material.textures import CHECKER_CELLS, CHECKER_DARK, CHECKER_LIGHT, CHECKER_SIZE
from app.session.textures import TextureLoadError, load_texture, resolve_texture_path
from vpl_core.atomic_write import write_atomically
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.ir.types import VectorType

EXPORT_FORMAT = "vpl-material-export"
EXPORT_VERSION = 1


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


def material_section(artifact: ProgramArtifact, specs: Sequence[ParameterSpec], graph: MaterialGraph,
                     directory: Path | None, out_dir: Path, stem: str, copy_textures: bool = False) -> dict[str, Any]:
    """The `material` section for `artifact` lowered from `graph` (see the module docstring).

    Raises OSError when a texture cannot be copied.
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

    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
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
    }
