"""`SessionPresenter`: renders the session's state in the window's panels and preview.

It subscribes to the `EditorSession`'s events (a lowering, another
document, parameter specs and values) and to the preview's build signals,
and updates what shows them: the diagnostics list and its dock title, node
markers and resolved port types, the code view, the instruction view of a
read-only document, the parameters panel, the preview (through
`PreviewHost` only) and the status bar. It holds one piece of state of its
own: the last driver error, shown as a diagnostic until a program builds.

A value edit the preview's live program takes (`live_values_changed`,
app/session/live_values.py) goes to the preview as uniform values at once;
the preview's program is `EditorSession.preview_program` (the live one while
it serves the graph). A lowering reaches the preview first. While a gesture continues (a slider
drag, `window.gesture`) it reaches only the preview; the panels show the
last lowering once the gesture ends (`behind`, `_catch_up`). While a new
program is on its way to the preview (`preview_pending`, at most
`PREVIEW_FIRST_MS`) the node thumbnails wait (`preview_settled`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QLabel, QStatusBar, QWidget

from app.graph.rich_text import plain_tooltip
from app.material.code_links import CodeLinks
from app.material.cost import MaterialCost, describe_totals, material_cost
from app.material.graph import MaterialGraph
from app.material.lowering import LoweringResult
from app.material.node_types import NodeDiagnostic
from app.material.parameters import ParameterSpec
from app.session import ModuleDocument, ParameterChange
from app.session.documents import Document
from app.session.textures import TextureImage
from app.ui.diagnostics_panel import DiagnosticRow

if TYPE_CHECKING:
    from app.graph.view import MaterialNodeGraph
    from app.preview.host import PreviewHostWidget
    from app.preview.parameters_panel import ParametersPanel
    from app.session import EditorSession
    from app.ui.code_view import CodeView
    from app.ui.diagnostics_panel import DiagnosticsPanel
    from app.ui.edit_gesture import EditGesture
    from app.ui.graph_editor import GraphEditor
    from app.ui.instruction_view import InstructionView
    from app.ui.node_thumbnails import NodePin


#: Longest wait of the other views for the preview's new program (an unexposed preview draws nothing).
PREVIEW_FIRST_MS = 300


class SessionView(Protocol):
    """What the presenter shows the session in: the window's panels and views (`MainWindow` has them)."""

    @property
    def session(self) -> EditorSession: ...
    @property
    def preview(self) -> PreviewHostWidget: ...
    @property
    def parameters_panel(self) -> ParametersPanel: ...
    @property
    def graph_editor(self) -> GraphEditor: ...
    @property
    def graph(self) -> MaterialNodeGraph: ...
    @property
    def code_view(self) -> CodeView: ...
    @property
    def instruction_view(self) -> InstructionView: ...
    @property
    def diagnostics_panel(self) -> DiagnosticsPanel: ...
    @property
    def gesture(self) -> EditGesture: ...
    @property
    def diagnostics_dock(self) -> QDockWidget: ...
    @property
    def node_pin(self) -> NodePin: ...
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name
    def show_centre(self, widget: QWidget) -> None: ...


class SessionPresenter:
    """See the module docstring."""

    def __init__(self, window: SessionView) -> None:
        self.window = window
        self.session = window.session
        self.driver_error = ""
        session = self.session
        session.document_changed.connect(self._on_document_changed)
        session.lowered.connect(self._on_lowered)
        session.parameters.specs_changed.connect(self._on_specs)
        session.parameters.value_changed.connect(self._on_parameter_value)
        session.parameters.variants_changed.connect(window.parameters_panel.set_variants)
        session.textures.changed.connect(self._on_textures)
        session.live_values_changed.connect(self._on_live_values)
        #: The material's state, kept in the status bar (a message there is gone after a few seconds).
        self.state_label = QLabel()
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
        self.state_label.setObjectName("materialStateLabel")
        window.statusBar().addPermanentWidget(self.state_label)  # the status bar becomes its parent
        #: The material's VPL instructions per stage (a relative measure, docs/editor.md).
        self.cost_label = QLabel()
        self.cost_label.setObjectName("materialCostLabel")
        self.cost_label.setToolTip("VPL instructions per stage (vertex, fragment) and texture samples: a relative "
                                   "measure, not GPU cycles. View > Node Cost shows them per node.")
        window.statusBar().addPermanentWidget(self.cost_label)
        self.cost: MaterialCost | None = None
        self._shown_artifact: object | None = None
        self._shown_passes: object | None = None  # the texture passes handed over with it
        window.preview.programReady.connect(self._on_program_ready)
        #: Lowerings shown only in the preview while a gesture continued (the panels show an older one).
        self.behind = False
        #: How many lowerings updated the panels (tests count: none during a drag, one at its end).
        self.panel_updates = 0
        #: Value edits that went to the preview as uniforms of its live program (no new program).
        self.live_posts = 0
        window.gesture.ended.connect(self._catch_up)
        #: A new program went to the preview and has not drawn yet: work for other views (the node
        #: thumbnails) waits for it, so the new pixels come first (at most `PREVIEW_FIRST_MS`).
        self.preview_pending = False
        #: Called once the pending program has drawn, failed, or `PREVIEW_FIRST_MS` passed.
        self.preview_settled: list[Callable[[], None]] = []
        self._preview_wait = QTimer(window.preview)  # goes with the window
        self._preview_wait.setSingleShot(True)
        self._preview_wait.setInterval(PREVIEW_FIRST_MS)
        self._preview_wait.timeout.connect(self._preview_done)
        window.preview.programReady.connect(self._preview_done)
        window.preview.programFailed.connect(lambda _message: self._preview_done())
        window.preview.programFailed.connect(self._on_program_failed)

    # ---- a lowering -----------------------------------------------------------------------

    def _on_lowered(self, result: LoweringResult) -> None:
        window = self.window
        self.driver_error = ""
        if window.gesture.active:
            # A slider is being dragged: only the preview follows; the rest catches up when it ends.
            self.behind = True
            self.show_preview(result)
            return
        self.behind = False
        self.panel_updates += 1
        # The preview first: the render thread compiles the new program while the panels below are updated.
        self.show_preview(result)
        diagnostics = self.session.diagnostics
        self.show_diagnostics(diagnostics)
        window.graph_editor.annotations.show_diagnostics(diagnostics)
        window.graph_editor.annotations.show_port_types(result)
        self.show_inspection(result)
        artifact = result.artifact
        window.code_view.show_code(result.text or None, artifact.vertex_code if artifact is not None else None,
                                   artifact.fragment_code if artifact is not None else None,
                                   missing_reason="the material has errors (see Diagnostics)" if not result.ok
                                   else "not compiled")
        window.statusBar().showMessage(self.show_state(), 4000)

    def show_preview(self, result: LoweringResult) -> None:
        """The preview's part of a lowering: its new program, or why it shows the last one that worked."""
        if result.verified is not None:
            self.window.preview.set_stale("")
            self.show_program()
        else:
            errors = len(result.errors)
            self.window.preview.set_stale(f"{errors} error{'s' if errors != 1 else ''} in the material (see Diagnostics)")

    def _catch_up(self) -> None:
        """The gesture ended: show the last lowering everywhere, unless a lowering still to come will."""
        result = self.session.result
        if self.behind and result is not None and not self.session.needs_lowering:
            self._on_lowered(result)

    def show_inspection(self, result: LoweringResult | None) -> None:
        """Node costs, the status bar's totals and the code view's links to the nodes, from one lowering."""
        window = self.window
        module = result.module if result is not None else None
        self.cost = material_cost(module, result.provenance) if result is not None and module is not None else None
        level_costs = None
        if result is not None and module is not None:
            provenance, scoped = result.provenance, result.scoped_provenance
            level_costs = lambda level: material_cost(module, provenance, scoped, level)  # noqa: E731 - one line, closes over this lowering
        window.graph_editor.annotations.show_costs(self.cost, level_costs)
        self.cost_label.setText(describe_totals(self.cost) if self.cost is not None else "")
        window.code_view.set_links(CodeLinks.of(result) if result is not None and module is not None else None)

    def show_state(self) -> str:
        """Put the material's state in the status bar's permanent label; returns it as a sentence."""
        result = self.session.result
        textures = len(self.session.textures.problems)
        texture_text = f"{textures} texture{'s' if textures != 1 else ''} could not be loaded (see Diagnostics)"
        if isinstance(self.session.document, ModuleDocument):
            state = texture_text if textures else ""
        elif result is not None and not result.ok:
            state = f"{len(result.errors)} error(s) in the material"
        else:
            state = texture_text if textures else ""
        self.state_label.setText(f"\u26a0 {state}" if state else "")
        self.state_label.setToolTip(plain_tooltip(state) if state else "")
        if not state and result is not None and result.ok:
            return "Material OK"
        return f"Material OK, but {texture_text}" if result is not None and result.ok and textures else state

    def show_program(self) -> None:
        """Hand the preview the current module compiled for its target, with every parameter's value."""
        preview = self.window.preview
        if self.window.node_pin.show_program():  # "Preview This Node": the pinned node instead of the material
            self._shown_artifact = None
            return
        # The live program while only its values were edited since it was built (app/session/live_values.py).
        program = self.session.preview_program(preview.target)
        if program.artifact is None:
            preview.show_problem(f"{program.target} target error (preview: {preview.context_description}): "
                                 f"{program.problem}")
            return
        passes = self.session.preview_passes(preview.target)
        if program.artifact is self._shown_artifact and passes is self._shown_passes:
            return  # the same program (a value changed, not the module): the values went to the preview already
        self._shown_artifact = program.artifact
        self._shown_passes = passes
        self.preview_pending = True
        self._preview_wait.start()
        preview.set_artifact(program.artifact, self.session.preview_specs(), self.session.preview_values(), passes,
                             self.session.refined_source(preview.target))

    def _preview_done(self) -> None:
        self._preview_wait.stop()
        if self.preview_pending:
            self.preview_pending = False
            for callback in self.preview_settled:
                callback()

    def _on_specs(self, specs: list[ParameterSpec]) -> None:
        panel, parameters = self.window.parameters_panel, self.session.parameters
        panel.set_parameters(specs, parameters.values)
        panel.set_variants(parameters.variants)

    def _on_live_values(self, values: dict[str, float | tuple[float, ...]]) -> None:
        """A value edit the preview's live program takes as uniforms: new pixels without a new program."""
        if self.window.node_pin.pinned:
            return  # the preview shows a node, not the material's program
        self.live_posts += 1
        self.window.preview.set_values(self.session.preview_values())

    def _on_parameter_value(self, change: ParameterChange) -> None:
        # The session's snapshot, shared with the model: the preview keeps no values of its own.
        self.window.preview.set_values(self.session.preview_values())
        self.window.parameters_panel.set_value(change.name, change.value)

    def _on_textures(self, images: dict[str, TextureImage | None]) -> None:
        self.window.preview.set_values(self.session.preview_values())
        self.refresh_diagnostics()
        if self.session.result is not None and not isinstance(self.session.document, ModuleDocument):
            # A texture found missing (or back) on disk, with no lowering: its node's marker follows too.
            self.window.graph_editor.annotations.show_diagnostics(self.session.diagnostics)
        if self.session.textures.problems:
            self.window.statusBar().showMessage(self.show_state(), 8000)
        else:
            self.show_state()

    # ---- another document -----------------------------------------------------------------

    def _on_document_changed(self, document: Document) -> None:
        window = self.window
        self.driver_error = ""
        self._shown_artifact = None
        window.parameters_panel.set_variants_available(not isinstance(document, ModuleDocument))
        window.preview.set_stale("")
        if not isinstance(document, ModuleDocument):
            window.graph_editor.editable = True
            window.show_centre(window.graph.widget)
            return
        window.graph_editor.editable = False
        window.graph_editor.load(MaterialGraph())
        self.show_inspection(None)
        reason = (document.reason or "this module has no editor graph").rstrip(". ")
        window.instruction_view.show_module(document.verified.text,
                                            f"Read-only \u2014 {reason}. Preview and export still work.")
        window.show_centre(window.instruction_view)
        program = self.session.program()
        artifact = program.artifact
        window.code_view.show_code(document.verified.text, artifact.vertex_code if artifact else None,
                                   artifact.fragment_code if artifact else None,
                                   missing_reason=program.problem or "not compiled")
        self.show_program()
        self.refresh_diagnostics()
        self.show_state()

    # ---- diagnostics ----------------------------------------------------------------------

    def show_diagnostics(self, diagnostics: Sequence[NodeDiagnostic], extra: Sequence[DiagnosticRow] = ()) -> None:
        window = self.window
        rows = [
            DiagnosticRow(message=diagnostic.message,
                          category=diagnostic.category if diagnostic.severity == "error"
                          else f"{diagnostic.category} warning",
                          node_id=diagnostic.node_id, node_label=window.graph_editor.annotations.node_label(diagnostic.node_id))
            for diagnostic in diagnostics
        ]
        rows.extend(extra)
        if self.driver_error:
            rows.append(DiagnosticRow(self.driver_error, "driver"))
        window.diagnostics_panel.set_rows(rows)
        window.diagnostics_dock.setWindowTitle(f"Diagnostics ({len(rows)})" if rows else "Diagnostics")

    def refresh_diagnostics(self) -> None:
        document = self.session.document
        if isinstance(document, ModuleDocument):
            rows = [DiagnosticRow(str(diagnostic), "note") for diagnostic in document.diagnostics]
            problem = self.session.program().problem
            rows += [DiagnosticRow(problem, "target")] if problem else []
            self.show_diagnostics(self.session.textures.problems, rows)
        elif self.session.result is not None:
            self.show_diagnostics(self.session.diagnostics)

    def _on_program_ready(self) -> None:
        if self.driver_error:
            self.driver_error = ""
            self.refresh_diagnostics()

    def _on_program_failed(self, message: str) -> None:
        self.driver_error = message
        self.refresh_diagnostics()
        # Replaces a "Material OK" from the lowering: the material verified, but the driver refused it.
        self.window.statusBar().showMessage("The preview's driver rejected the program (see Diagnostics)", 8000)
