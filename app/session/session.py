"""`EditorSession`: the editor's state and operations without Qt.

The session holds the current document (`GraphDocument` or
`ModuleDocument`, see `app.session.documents`), the lowering of the graph
it last lowered, the compiled programs per GLSL target (`ArtifactCache`),
the parameters (`ParameterModel`), and opens, saves, autosaves and
exports the document. The Qt window (`app.ui.main_window`)
keeps the widgets in step by subscribing to the session's events, and
feeds edits in (`update_graph` with each snapshot of the graph view).

Events (`app.session.events.Event`), emitted after the state is consistent:

- `document_changed(Document)`: another document is current;
- `lowered(LoweringResult)`: a lowering of the current graph is ready
  (its programs and parameters are in place);
- `modified_changed(bool)`: the modified state flipped;
- `saved(Path)`: the document was written there;
- `graph_rewritten(MaterialGraph)`: saving into another folder rewrote the
  graph's relative texture paths (the view must take them, outside undo);
- `live_values_changed(dict[str, value])`: an edit changed only values the
  preview's live program takes as hidden uniforms (`app.session.live_values`):
  their new values, by uniform name; the preview needs no new program.

Live values: a lowering job also lowers the wanted live values for the
preview (`LoweringJob.live`); `preview_program`, `preview_specs` and
`preview_values` are what the preview draws, while `result`, `program`,
exports and saving stay the canonical lowering's.

Collaborators the session owns, each with its whole responsibility:
`parameters` (`ParameterModel`), `textures` (`TextureParameters`: the
texture parameters' images and problems, its own `changed` event), `live`
(`LiveValues`) and `recovery` (`RecoveryStore`: autosave slots and the
orphans to offer, read, discard or keep aside).

Lowering, and where it runs. `lower()` lowers the current graph at once.
A host that must not wait (the window: lowering a large graph takes tens of
milliseconds) splits it in three: `start_lowering()` takes a `LoweringJob`
(a private copy of the graph and the targets to compile) on the thread that
owns the session; `job.run()` is pure (it reads only the job, touches no
session state, raises nothing) and may run on any thread; and
`finish_lowering(job, outcome)` applies the outcome on the owning thread
and emits `lowered`. An outcome whose document is no longer current is
dropped; an outcome of a graph edited since is applied (it is the lowering
of `lowered_graph`, progress while the artist drags) and `needs_lowering`
stays true, so the host starts the next one. Only edits the lowering reads
need a lowering (`app.material.lowering.lowering_equivalent`): moving a
node, framing, variants or a parameter node's value change the module not
at all, so they only update values (a parameter's value goes straight to
the preview, no relink).

Invariants: `result` is None or the lowering of `lowered_graph` (which is
lowering-equivalent to the graph it was made from); a `ModuleDocument` has
no `result` and is never modified; the program cache belongs to the
verified module it compiles (a lowering with different module text or
another document replaces it).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.material.document import LoadedDocument, load_text, save_file, save_text
from app.material.graph import MaterialGraph
from app.material.lowering import LoweringResult, ValueKey, lower, lowering_equivalent
from app.material.node_types import NodeDiagnostic
from app.material.parameters import (
    PARAMETER_VALUE_PROPERTY,
    ParameterSpec,
    ParameterValue,
    material_values,
    specs_from_module,
)
from app.material.texture_passes import has_pass_nodes
from app.session.artifacts import DEFAULT_TARGET, ArtifactCache, CompiledProgram, refined_maker
from app.session.checks import range_problems
from app.session.documents import Document, GraphDocument, ModuleDocument
from app.session.engine_export import PreviewLighting, material_section, written_files
from app.session.engine_passes import ExportRefusedError, pass_export
from app.session.events import Event
from app.session.live_values import LiveValues
from app.session.parameters import ParameterModel, ParameterValues, VariantState
from app.session.pass_programs import (
    PassProgramCache,
    PassPrograms,
    same_passes,
    with_pass_parameters,
    with_pass_problems,
)
from app.session.recovery import RecoveryStore
from app.session.stage_files import rebased_stage
from app.session.texture_parameters import TextureParameters
from app.session.textures import rebase_texture_path
from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.backends.glsl.export import export_artifact, file_stem
from vpl_core.external_files import read_external

UNTITLED_EXPORT_STEM = "material"
#: The preview's passes get a draft plan (`PassProgramCache.for_graph(draft=True)`) when a buffer has at least this
#: many texels a side: below, a drag's full-size passes are quick enough and the second planning is not worth it.
DRAFT_FROM_RESOLUTION = 1024


@dataclass(frozen=True)
class LoweringOutcome:
    """What a `LoweringJob` computed: the lowering, the programs of its extra targets, the graph's checks."""

    result: LoweringResult
    programs: tuple[CompiledProgram, ...] = ()
    checks: tuple[NodeDiagnostic, ...] = ()
    #: The preview's live lowering (`LoweringJob.live`) and its programs for the job's targets.
    live: LoweringResult | None = None
    live_programs: tuple[CompiledProgram, ...] = ()
    #: The texture passes (None: the material has no Texture Buffer or filter nodes), compiled for the job's targets.
    passes: PassProgramCache | None = None
    #: The passes of the live lowering (the live values inside buffers' sub-graphs as hidden uniforms).
    live_passes: PassProgramCache | None = None


@dataclass(frozen=True)
class LoweringJob:
    """One lowering of a graph, runnable on any thread (see the module docstring).

    `graph` is the job's own copy; `targets` are compiled too (the preview's,
    so the window's thread never compiles), `document` identifies the
    document it was taken from.
    """

    graph: MaterialGraph
    targets: tuple[str, ...] = ()
    document: int = 0
    serial: int = field(default=0, compare=False)
    #: Values to lower as hidden uniforms too, for the preview (`app.session.live_values`); empty: none.
    live: frozenset[ValueKey] = frozenset()

    def run(self) -> LoweringOutcome:
        """Lower, publish and compile; pure and total (`lower` never raises, nor does the cache).

        With `live`, the live lowering (for the preview) comes first, then the canonical one.
        """
        live_result: LoweringResult | None = None
        live_programs: tuple[CompiledProgram, ...] = ()
        live_passes: PassProgramCache | None = None
        # A refused texture pass feeding the output is an error of the material (no module); one that does not
        # feed it is a warning, and the material and every other pass draw (`with_pass_problems`).
        if self.live:
            if has_pass_nodes(self.graph):  # the live values upstream of a buffer are its pass's hidden uniforms
                live_passes = self._compile_passes(PassProgramCache.for_graph(
                    self.graph, live=self.live, draft=True, draft_from=DRAFT_FROM_RESOLUTION))
            live_result = with_pass_problems(lower(self.graph, live=self.live), live_passes, self.graph)
            live_programs = self._compile(live_result)
        # The preview's passes at draft resolution too when a buffer is large, which its draft frames draw while a
        # value is dragged (`Renderer.drafting`): a parameter slider's drag makes no lowering, so they are made now.
        passes = self._compile_passes(PassProgramCache.for_graph(
            self.graph, draft=True, draft_from=DRAFT_FROM_RESOLUTION)) if has_pass_nodes(self.graph) else None
        result = with_pass_problems(lower(self.graph), passes, self.graph)
        return LoweringOutcome(result, self._compile(result), tuple(range_problems(self.graph)),
                               live_result, live_programs, passes, live_passes)

    def _compile_passes(self, passes: PassProgramCache) -> PassProgramCache:
        for target in (DEFAULT_TARGET, *self.targets):
            passes.get(target)
        return passes

    def _compile(self, result: LoweringResult) -> tuple[CompiledProgram, ...]:
        if result.verified is None:
            return ()
        cache = ArtifactCache(result.verified, seed=result.artifact)
        return tuple(cache.get(target) for target in self.targets if target != DEFAULT_TARGET)


def rebase_textures(graph: MaterialGraph, old: Path | None, new: Path | None) -> MaterialGraph:
    """`graph` with its relative texture paths (nodes, variants, the saved stage's files) rewritten to mean the same
    files from `new`."""
    rebased = graph.copy()
    texture_names: set[str] = set()
    for node in rebased.nodes.values():
        prop = PARAMETER_VALUE_PROPERTY.get(node.type_name)
        if node.type_name == "texture_parameter" and prop is not None:
            texture_names.add(str(node.properties.get("name")))
            stored = node.properties.get(prop)
            if isinstance(stored, str) and stored:
                node.properties[prop] = rebase_texture_path(stored, old, new)
    for variant in rebased.variants:
        for name, stored in list(variant.values.items()):
            if name in texture_names and isinstance(stored, str) and stored:
                variant.values[name] = rebase_texture_path(stored, old, new)
    if rebased.stage is not None:
        rebased.stage = rebased_stage(rebased.stage, old, new)  # a mesh or environment file of the saved stage
    return rebased


class EditorSession:
    """See the module docstring."""

    def __init__(self, recovery: RecoveryStore | None = None) -> None:
        self.recovery = recovery if recovery is not None else RecoveryStore()
        self.parameters = ParameterModel()
        self.document_changed: Event[Document] = Event("document_changed")
        self.lowered: Event[LoweringResult] = Event("lowered")
        self.modified_changed: Event[bool] = Event("modified_changed")
        self.saved: Event[Path] = Event("saved")
        self.graph_rewritten: Event[MaterialGraph] = Event("graph_rewritten")
        #: New values of the preview's live uniforms (by hidden uniform name): a value edit, no new program.
        self.live_values_changed: Event[dict[str, float | tuple[float, ...]]] = Event("live_values_changed")
        #: Values edited live for the preview (`app.session.live_values`).
        self.live = LiveValues()
        #: The last edit changed only values the preview's live program takes (its pixels need no lowering).
        self.live_edit = False
        #: The texture parameters' images and problems (`app.session.texture_parameters`).
        self.textures = TextureParameters(self.parameters, lambda: self.graph, lambda: self.directory)
        self._document: Document = GraphDocument()
        self._result: LoweringResult | None = None
        self._lowered_graph: MaterialGraph | None = None
        self._programs = ArtifactCache(None)
        self._passes: PassProgramCache | None = None
        self._checks: list[NodeDiagnostic] = []
        self._was_modified = False
        self._document_serial = 0
        self._job_serials = itertools.count(1)

    # ---- state ----------------------------------------------------------------------------

    @property
    def document(self) -> Document:
        return self._document

    @property
    def read_only(self) -> bool:
        return isinstance(self._document, ModuleDocument)

    @property
    def path(self) -> Path | None:
        return self._document.path

    @property
    def name(self) -> str:
        return self._document.name

    @property
    def graph(self) -> MaterialGraph:
        """The current graph (empty for a read-only document). The session's own: copy before changing."""
        return self._document.graph if isinstance(self._document, GraphDocument) else MaterialGraph()

    @property
    def is_modified(self) -> bool:
        return self._document.modified

    @property
    def result(self) -> LoweringResult | None:
        """The lowering of `lowered_graph` (None before the first, and for read-only documents)."""
        return self._result

    @property
    def diagnostics(self) -> list[NodeDiagnostic]:
        """What the Diagnostics list shows: the lowering's, the session's own checks, then texture problems."""
        lowered = list(self._result.diagnostics) if self._result is not None else []
        return lowered + self._checks + self.textures.problems

    @property
    def directory(self) -> Path | None:
        """The folder relative texture paths are resolved against (None: never saved, no origin)."""
        return self._document.directory

    def preview_values(self) -> ParameterValues:
        """The parameter values as the preview takes them: texture parameters as images; with the live
        program, its hidden uniforms' values too. Immutable; the model's values are shared, not copied."""
        return ParameterValues.chain(self.live.values(self.graph), self.textures.images, self.parameters.values)

    def preview_specs(self) -> list[ParameterSpec]:
        """The parameters as the preview takes them: the material's, and the live program's hidden uniforms."""
        return self.parameters.specs + self.live.specs()

    def preview_program(self, target: str = DEFAULT_TARGET) -> CompiledProgram:
        """What the preview draws: the live program while it serves the current graph (its values are uniforms;
        docs/editor.md), else the current module compiled for `target` (`program`)."""
        live = self.live.preview_program(target) if isinstance(self._document, GraphDocument) else None
        return live if live is not None and live.artifact is not None else self.program(target)

    @property
    def needs_lowering(self) -> bool:
        """The graph changed in something the lowering reads since it was last lowered.

        Positions, frames, variants and parameter nodes' values do not count: they change no module
        (`app.material.lowering.lowering_equivalent`).
        """
        return (
            isinstance(self._document, GraphDocument)
            and (self._result is None or self._lowered_graph is None
                 or not lowering_equivalent(self._lowered_graph, self._document.graph))
        )

    def preview_passes(self, target: str = DEFAULT_TARGET) -> PassPrograms | None:
        """The texture passes the material's program samples, compiled for `target` (None: it has none).

        Drawn before the material, in this order, by every host: the preview, thumbnails, bakes, exports.
        """
        if not isinstance(self._document, GraphDocument) or self._passes is None:
            return None
        live = self.live.preview_passes(target)  # with the live program: its passes, whose hidden uniforms it sets
        return live if live is not None else self._passes.get(target)

    def refined_source(self, target: str = DEFAULT_TARGET) -> Callable[[], ProgramArtifact | None] | None:
        """Makes the refined variant of what `preview_program(target)` draws (None: no graph lowered yet).

        The variant (`lower(..., refined=True)`, docs/lighting.md, "Refined environment light") is the same
        graph lowered with the same hidden uniforms and the environment light sampled per pixel; the preview
        calls this only when it refines a still frame or draws a final one, so the lowering is not paid for
        while editing. The maker is pure (the graph is a snapshot) and may run on the render thread.
        """
        if not isinstance(self._document, GraphDocument):
            return None
        live = self.live.program if self.live.preview_program(target) is not None else None
        if live is not None:
            return refined_maker(live.graph, target, frozenset(live.result.live_values))
        if self._lowered_graph is None or self._result is None or self._result.verified is None:
            return None
        return refined_maker(self._lowered_graph, target)

    def program(self, target: str = DEFAULT_TARGET) -> CompiledProgram:
        """The current module compiled for `target` (compiled once per module and target)."""
        return self._programs.get(target)

    @property
    def current_artifact(self) -> ProgramArtifact | None:
        """The GLSL 4.20 program of the current document (code view, export); None when there is none."""
        if isinstance(self._document, GraphDocument) and (self._result is None or self._result.verified is None):
            return None
        return self.program(DEFAULT_TARGET).artifact

    # ---- documents ------------------------------------------------------------------------

    def open_graph(self, graph: MaterialGraph, path: Path | None = None, name: str = "untitled",
                   modified: bool = False, origin: Path | None = None) -> GraphDocument:
        """Make `graph` the current, editable document; `modified` when it differs from its file.

        `origin`: the folder its relative texture paths mean, when it has no path (an example).
        """
        document = GraphDocument(graph.copy(), path, name, None if modified else graph.copy(), origin)
        # No parameters until the graph is lowered: values of the previous document must not carry over.
        self._set_document(document, ArtifactCache(None), [])
        return document

    def open_module(self, loaded: LoadedDocument, path: Path | None = None, name: str = "untitled") -> ModuleDocument:
        """Make a module without a usable graph the current, read-only document."""
        document = ModuleDocument.from_loaded(loaded, path, name)
        self._set_document(document, ArtifactCache(document.verified), specs_from_module(document.module))
        return document

    def _set_document(self, document: Document, programs: ArtifactCache, specs: list[ParameterSpec]) -> None:
        self._document = document
        self._document_serial += 1  # lowerings started for the previous document are dropped
        self._result = None
        self._lowered_graph = None
        self._checks = []
        self._programs = programs
        self._passes = None
        self.live.clear()
        self.live_edit = False
        self.parameters.clear()
        if specs:
            self.parameters.set_specs(specs)
        self.textures.refresh()
        self.document_changed.emit(document)
        self._notify_modified()

    @staticmethod
    def read_file(path: str | os.PathLike[str]) -> LoadedDocument:
        """Read and classify a file (raises OSError when it cannot be read; never for its content)."""
        path = Path(path)
        return load_text(read_external(path, "document"), str(path))

    # ---- edits and lowering ---------------------------------------------------------------

    def update_graph(self, graph: MaterialGraph, owned: bool = False) -> None:
        """The graph after an edit (the view's snapshot); lowering waits for `lower`.

        `owned`: the caller hands `graph` over and never changes it in place (the graph editor's snapshots,
        one per slider step), so it is kept as it is instead of copied.
        """
        if not isinstance(self._document, GraphDocument):
            raise RuntimeError("a read-only document has no graph to edit")
        previous = self._document.graph
        self._document.graph = graph if owned else graph.copy()
        self.live_edit = self.live.edited(previous, self._document.graph)
        if self.live_edit:
            # Only live values changed: the preview's program stays, the new values go to it now.
            self.live_values_changed.emit(self.live.values(self._document.graph))
        self._notify_modified()
        self._refresh_values()
        self.textures.refresh()

    def _refresh_values(self) -> None:
        """Parameter values from the graph (its nodes and active variant), for the specs in use."""
        if isinstance(self._document, GraphDocument):
            values, variants = self._material_values(self.parameters.specs)
            self.parameters.set_values(values, variants)

    def _material_values(self, specs: list[ParameterSpec]) -> tuple[dict[str, ParameterValue], VariantState]:
        assert isinstance(self._document, GraphDocument)
        graph = self._document.graph
        values, overridden = material_values(specs, graph)
        active = graph.active_variant if graph.active is not None else None
        return values, VariantState(tuple(variant.name for variant in graph.variants), active, overridden)

    def lower(self, targets: tuple[str, ...] = ()) -> LoweringResult | None:
        """Lower the current graph now unless its lowering is current; emits `lowered` when it lowered.

        `targets`: compile for these too (as a job would; others compile on demand in `program`).
        """
        job = self.start_lowering(targets)
        if job is None:
            return self._result
        return self.finish_lowering(job, job.run())

    def start_lowering(self, targets: tuple[str, ...] = ()) -> LoweringJob | None:
        """A job lowering the current graph, or None when its lowering is current (see the module docstring)."""
        if not self.needs_lowering:
            return None
        assert isinstance(self._document, GraphDocument)
        return LoweringJob(self._document.graph.copy(), tuple(targets), self._document_serial, next(self._job_serials),
                           self.live.to_build())

    def finish_lowering(self, job: LoweringJob, outcome: LoweringOutcome) -> LoweringResult | None:
        """Apply what `job` computed and emit `lowered`; None (nothing applied) when its document is gone."""
        if job.document != self._document_serial or not isinstance(self._document, GraphDocument):
            return None
        result = outcome.result
        previous = self._result
        self._result = result
        self._lowered_graph = job.graph
        if outcome.live is not None:
            self.live.accept(job.graph, outcome.live, outcome.live_programs, self._document.graph, outcome.live_passes)
        self._checks = list(outcome.checks)
        same_module = (previous is not None and previous.verified is not None and result.verified is not None
                       and previous.text == result.text)
        if not same_module:
            # A changed value changes no module text: the programs (and the preview's build) stay.
            self._programs = ArtifactCache(result.verified, seed=result.artifact)
            for program in outcome.programs:
                self._programs.record(program)
            if result.verified is not None and result.artifact is None:
                # The lowering already met this target error; do not compile again to meet it twice.
                problem = next((d.message for d in result.errors if d.category == "target"), "does not compile")
                self._programs.record(CompiledProgram(DEFAULT_TARGET, None, problem))
        if outcome.passes is None or self._passes is None or not same_passes(self._passes, outcome.passes):
            # Equal passes (the same code, values and buffers) keep the cache the preview was given: nothing to redo.
            self._passes = outcome.passes
        # While the material has errors the preview keeps the last program that worked: so do the parameters.
        specs = result.parameters if result.verified is not None or not self.parameters.specs else self.parameters.specs
        if result.verified is not None and self._passes is not None and self._passes.plan is not None:
            specs = with_pass_parameters(specs, self._passes.plan)
        values, variants = self._material_values(specs)
        self.parameters.set_specs(specs, values, variants)
        self.textures.refresh()
        self.lowered.emit(result)
        return result

    def _current_lowering(self) -> LoweringResult | None:
        """The lowering of exactly the current graph, if there is one (saving need not lower again)."""
        return None if self.needs_lowering else self._result

    # ---- files ----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the graph document to `path` (atomically); raises OSError. It is then unmodified."""
        document = self._document
        if not isinstance(document, GraphDocument):
            raise RuntimeError("a read-only document cannot be saved")
        path = Path(path)
        graph = rebase_textures(document.graph, document.directory, path.parent)
        rewritten = graph != document.graph
        save_file(path, graph, None if rewritten else self._current_lowering())
        document.path = path
        document.name = path.name
        document.baseline = graph.copy()
        if rewritten:
            document.graph = graph
            self.graph_rewritten.emit(graph.copy())
        self.recovery.clear()
        self.saved.emit(path)
        self._notify_modified()
        return path

    def export_stem(self) -> str:
        """The file stem `vpl compile` derives from the document's file name."""
        return file_stem(self._document.path) if self._document.path is not None else UNTITLED_EXPORT_STEM

    def export(self, out_dir: str | os.PathLike[str], stem: str | None = None,
               copy_textures: bool = False, lighting: PreviewLighting | None = None,
               target: str = DEFAULT_TARGET) -> list[Path] | None:
        """Write <stem>.vert.glsl, .frag.glsl and .json as `vpl compile` does; None when nothing compiles.

        The JSON also holds the `material` section an engine needs
        (`app.session.engine_export`: parameter values, ranges, widgets,
        textures and their colour spaces, variants, the output's encoding,
        the environment samplers); `copy_textures` copies the image files
        beside it; `lighting` (the preview's stage) adds the `preview` entry
        and writes the environment's images beside it. A material with
        texture passes also gets each pass's program (`<stem>.pass<N>.*`)
        and the section's `passes` entry (`app.session.engine_passes`).
        `target`: the GLSL target of every program written. Raises OSError
        when a file cannot be written, `ExportRefusedError` (before writing
        anything) when the material cannot be exported whole.
        """
        self.lower()
        if self.current_artifact is None:
            return None
        compiled = self.program(target)
        artifact = compiled.artifact
        if artifact is None:
            raise ExportRefusedError(f"the material does not compile for {target}: {compiled.problem}")
        out = Path(out_dir)
        stem = stem or self.export_stem()
        programs = self._passes.get(target) if isinstance(self._document, GraphDocument) and self._passes else None
        passes = pass_export(programs, artifact, self.parameters.specs, stem, target) if programs is not None else None
        out.mkdir(parents=True, exist_ok=True)
        section = material_section(artifact, self.parameters.specs, self.graph, self.directory, out, stem, copy_textures,
                                   lighting)
        written: list[Path] = []
        if passes is not None:
            section["passes"] = passes.section
            for pass_artifact, pass_stem in zip(passes.programs, passes.stems, strict=True):
                written += export_artifact(pass_artifact, out, pass_stem)
        written = export_artifact(artifact, out, stem, extra={"material": section}) + written
        return written + [out / name for name in written_files(section)]

    # ---- autosave and recovery ------------------------------------------------------------

    def autosave(self) -> Path | None:
        """Write the recovery file of a modified graph; clear it otherwise. Raises OSError."""
        document = self._document
        if not isinstance(document, GraphDocument) or not document.modified:
            self.recovery.clear()
            return None
        text = save_text(document.graph.copy(), self._current_lowering())
        return self.recovery.write(text, str(document.path) if document.path else None)

    def close(self) -> None:
        """Clean exit: nothing is left to recover."""
        self.recovery.close()

    # ---- internals ------------------------------------------------------------------------

    def _notify_modified(self) -> None:
        modified = self.is_modified
        if modified != self._was_modified:
            self._was_modified = modified
            self.modified_changed.emit(modified)
