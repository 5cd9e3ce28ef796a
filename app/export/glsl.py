"""Export GLSL: what File > Export GLSL… and `vpl export-glsl` write, from one function.

`<stem>.vert.glsl`, `<stem>.frag.glsl` and `<stem>.json` as `vpl compile`
writes them, the JSON with the `material` section an engine needs
(`app.session.engine_export`: parameter defaults, ranges, textures, the
stage's lighting); a radiance material also gets the stage's environment
images. A material with texture passes also gets each pass's program and
the section's `passes` entry (`app.session.engine_passes`); one that cannot
be exported whole (a pass without a program for the target, a uniform an
engine could not set) is refused before any file is written, the message
naming the node. Both callers hand over a session holding the material and
a stage, so a build pipeline gets the very files the window writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from app.material.graph import MaterialGraph
from app.preview.preview_state import preview_lighting, writes_radiance
from app.preview.stage import Stage
from app.session.artifacts import DEFAULT_TARGET
from app.session.engine_passes import ExportRefusedError
from app.session.session import EditorSession
from app.session.stage_files import resolved_stage


@dataclass(frozen=True)
class GlslExport:
    """The files written (None: nothing was written), a note ("" when none) and, when the material compiles but
    cannot be exported whole, why (`refused`, naming the node; `written` is then None)."""

    written: list[Path] | None
    note: str = ""
    refused: str = ""


def export_glsl(session: EditorSession, out_dir: str | os.PathLike[str], stage: Stage, stem: str | None = None,
                copy_textures: bool = False, target: str = DEFAULT_TARGET) -> GlslExport:
    """Write the session's material to `out_dir` with `stage`'s lighting, every program for GLSL `target`;
    raises OSError when a file cannot be written.

    An environment that cannot be loaded is left out of the export (the note says why), the rest is written.
    """
    session.lower()
    artifact = session.current_artifact
    note = ""
    try:
        lighting = preview_lighting(stage, with_environment=artifact is not None and writes_radiance(artifact))
    except ValueError as error:
        lighting = preview_lighting(stage, with_environment=False)
        note = f"without the preview's environment: {error}"
    try:
        return GlslExport(session.export(out_dir, stem, copy_textures, lighting, target), note)
    except ExportRefusedError as error:
        return GlslExport(None, note, str(error))


def document_stage(graph: MaterialGraph, directory: Path | None) -> Stage:
    """The stage a document is shown with when it carries one (File > Save Stage with Material), else the default."""
    return Stage.from_dict(resolved_stage(graph.stage, directory)) if graph.stage is not None else Stage()
