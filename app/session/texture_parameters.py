"""`TextureParameters`: the images of the current document's texture parameters, owned by the session.

Each texture parameter's stored path is resolved against the document's
folder and read through a `TextureCache`; a file that cannot be used is a
diagnostic on its Texture Parameter node (the preview shows the checker).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from app.material.graph import MaterialGraph
from app.material.node_types import NodeDiagnostic
from app.material.parameters import ParameterKind, parameter_nodes
from app.session.events import Event
from app.session.parameters import ParameterChange, ParameterModel
from app.session.textures import (
    TextureCache,
    TextureImage,
    TextureLoadError,
    resolve_texture_path,
    stored_texture_path,
)


class TextureParameters:
    """The texture parameters' images, their problems and the files they name, for one session.

    `graph` and `directory` give the session's current graph and the folder its relative paths mean.
    `changed` is emitted with the images (None: the checker) when an image or a problem changed.
    """

    def __init__(self, parameters: ParameterModel, graph: Callable[[], MaterialGraph],
                 directory: Callable[[], Path | None]) -> None:
        self.cache = TextureCache()
        self.changed: Event[dict[str, TextureImage | None]] = Event("textures_changed")
        self._parameters = parameters
        self._graph = graph
        self._directory = directory
        self._images: dict[str, TextureImage | None] = {}
        self._problems: list[NodeDiagnostic] = []
        self._files: list[Path] = []
        parameters.value_changed.connect(self._on_value_changed)

    @property
    def images(self) -> dict[str, TextureImage | None]:
        """The image of every texture parameter (None: the checker, also for an unusable file)."""
        return dict(self._images)

    @property
    def problems(self) -> list[NodeDiagnostic]:
        return list(self._problems)

    @property
    def files(self) -> list[Path]:
        """The files the texture parameters name (resolved), whether they exist or not: what to watch."""
        return list(self._files)

    def reference(self, chosen: str | os.PathLike[str]) -> str:
        """How a file the artist chose is stored: relative to the document's folder when it has one."""
        return stored_texture_path(chosen, self._directory())

    def refresh(self) -> None:
        """Read the image of every texture parameter again where its file changed (repainted, deleted, back);
        emit `changed` when an image or a problem changed."""
        directory = self._directory()
        nodes = parameter_nodes(self._graph())
        images: dict[str, TextureImage | None] = {}
        problems: list[NodeDiagnostic] = []
        files: list[Path] = []
        for spec in self._parameters.specs:
            if spec.kind is not ParameterKind.TEXTURE:
                continue
            stored = self._parameters.value(spec.name)
            node = nodes.get(spec.name)
            images[spec.name] = None
            if not isinstance(stored, str) or not stored:
                continue
            color_space = str(node.properties.get("color_space", "srgb")) if node is not None else "srgb"
            path = resolve_texture_path(stored, directory)
            files.append(path)
            try:
                images[spec.name] = self.cache.get(path, color_space)
            except TextureLoadError as error:
                node_id = node.id if node is not None else None
                problems.append(NodeDiagnostic(node_id, "texture", f'texture "{spec.name}": {error}; showing the checker'))
        changed = images.keys() != self._images.keys() or any(
            images[name] is not self._images.get(name) for name in images)
        self._files = files
        if changed or problems != self._problems:
            self._images, self._problems = images, problems
            self.changed.emit(dict(images))

    def _on_value_changed(self, change: ParameterChange) -> None:
        if change.spec.kind is ParameterKind.TEXTURE:
            self.refresh()
