"""The editor's main window: graph in the centre, panels in docks, files and undo in menus.

Data flow (ARCHITECTURE.md): every edit goes through NodeGraphQt's undo
stack; its `indexChanged` (plus loading) is the one "graph changed" signal,
because NodeGraphQt emits no node or port signals for paste, duplicate or
undo. On it the window renews duplicated stable ids, snapshots the view
into a `MaterialGraph` (`app.graph.adapter`) and restarts a short timer;
when the timer fires the snapshot is lowered and every panel is updated from
the one `LoweringResult`: diagnostics list, node error markers, resolved port
types, generated code, parameters panel and preview.

Documents: a graph document (opened from a file saved by the editor, an
example, a recovered autosave, or new) is edited in the graph. A read-only
document (a module without a graph, or a hand-edited file) replaces the
graph with the instruction view; preview, code and export still work.

The preview runs one OpenGL profile (`preview_gl`: desktop, es or auto, see
`app.preview.context`); its `target` decides which GLSL target the preview's
artifact is compiled for. The generated-code view and export always show
the GLSL 4.20 program; when the preview runs ES 3.2, the same verified
module is compiled once more for `es320` and only the preview gets that one.
The status bar shows the preview's context ("Preview: OpenGL ES 3.2 (llvmpipe)").
"Modified" means the current snapshot differs from the one taken when the
document was opened or saved, so undoing back to the saved state clears it.

Every question to the user goes through `self.prompts` (app.ui.dialogs), so
tests inject the answers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPainter, QPixmap, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QStackedWidget,
    QWidget,
)

from app.graph.adapter import populate, renew_duplicate_ids, snapshot
from app.graph.nodes import MaterialNode
from app.graph.view import MaterialNodeGraph
from app.material import catalog
from app.material.document import LoadedDocument, load_text, save_file, save_text
from app.material.examples import DEFAULT_EXAMPLE, load_example
from app.material.graph import MaterialGraph
from app.material.lowering import OUTPUT_NODE_TYPE, LoweringResult, NodeDiagnostic, lower
from app.material.parameters import ParameterKind, ParameterSpec, specs_from_module
from app.material.types import can_connect
from app.preview.parameters_panel import ParametersPanel
from app.preview.widget import create_preview_widget
from app.ui.about import AboutDialog, about_facts
from app.ui.code_view import CodeView
from app.ui.diagnostics_panel import DiagnosticRow, DiagnosticsPanel
from app.ui.dialogs import Prompts, SaveChoice
from app.ui.icons import application_icon
from app.ui.instruction_view import InstructionView
from app.ui.palette import NodePalette
from app.ui.properties_panel import PropertiesPanel
from app.ui.recovery import AUTOSAVE_INTERVAL_MS, RecoveryEntry, RecoveryStore
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl.export import export_artifact, file_stem

APP_TITLE = "VPL Material Editor"
LOWERING_DELAY_MS = 150
MAX_RECENT_FILES = 8
RECENT_FILES_KEY = "recentFiles"
PALETTE_DROP_OFFSET = 40.0
DUPLICATE_KEY = "Ctrl+D"


class MainWindow(QMainWindow):
    """See the module docstring."""

    #: Emitted after every lowering has been applied to the panels.
    lowered = Signal()
    #: Emitted when a document (graph or read-only) has been opened.
    documentOpened = Signal()

    def __init__(self, prompts: Prompts | None = None, settings: QSettings | None = None,
                 recovery: RecoveryStore | None = None, parent: QWidget | None = None,
                 preview_gl: str | None = None) -> None:
        super().__init__(parent)
        self._preview_gl = preview_gl
        self.prompts = prompts or Prompts()
        self.settings = settings if settings is not None else QSettings("vpl-editor", "vpl-editor")
        self.recovery = recovery if recovery is not None else RecoveryStore()
        self.setObjectName("mainWindow")
        self.resize(1500, 920)
        self.setWindowIcon(application_icon())

        self._path: Path | None = None
        self._document_name = "untitled"
        self._material = MaterialGraph()
        self._baseline: MaterialGraph | None = MaterialGraph()
        self._lowered_graph: MaterialGraph | None = None
        self._result: LoweringResult | None = None
        self._read_only: LoadedDocument | None = None
        self._read_only_artifact: Any = None
        self._parameter_specs: list[ParameterSpec] = []
        self._driver_error = ""
        self._loading = False
        self._read_only_compile_problem = ""
        self._connection_answers: dict[tuple[str, str, str, str], tuple[bool, str]] = {}

        self._build_graph()
        self._build_panels()
        self._build_actions()
        self._build_menus()
        self.statusBar().showMessage("Ready")

        self._lowering_timer = QTimer(self)
        self._lowering_timer.setSingleShot(True)
        self._lowering_timer.setInterval(LOWERING_DELAY_MS)
        self._lowering_timer.timeout.connect(self.relower_now)

        self._autosave_timer = QTimer(self)
        self._autosave_timer.setInterval(AUTOSAVE_INTERVAL_MS)
        self._autosave_timer.timeout.connect(self.autosave_now)
        self._autosave_timer.start()

        self._update_title()
        self._update_actions()

    # ------------------------------------------------------------------ construction

    def _build_graph(self) -> None:
        self.graph = MaterialNodeGraph(self)
        self.graph.register_catalog(catalog.NODE_TYPES.values())
        self.graph.connection_check = self._check_connection
        self.graph.typed_viewer.connection_refused.connect(self._on_connection_refused)
        self.graph.undo_stack().indexChanged.connect(self._on_graph_edited)
        self.graph.scene().selectionChanged.connect(self._refresh_properties)
        self.graph.set_grid_mode(1)

        self.instruction_view = InstructionView(self)
        self._centre = QStackedWidget(self)
        self._centre.addWidget(self.graph.widget)
        self._centre.addWidget(self.instruction_view)
        self.setCentralWidget(self._centre)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea, name: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_panels(self) -> None:
        self.palette = NodePalette(catalog.categories(), self.graph.registry.view_type, self)
        self.palette.nodeRequested.connect(self.add_node_from_palette)
        self.palette_dock = self._dock("Nodes", self.palette, Qt.DockWidgetArea.LeftDockWidgetArea, "paletteDock")

        self.preview = create_preview_widget(self, self._preview_gl)
        self.preview.setMinimumSize(280, 260)
        self.preview.programReady.connect(self._on_program_ready)
        self.preview.programFailed.connect(self._on_program_failed)
        self.preview.contextCreated.connect(self._show_preview_context)
        self.preview_dock = self._dock("Preview", self.preview, Qt.DockWidgetArea.RightDockWidgetArea, "previewDock")

        # Right column, top to bottom: preview, the material's parameters
        # (what the preview is tweaked with), the selected node's properties.
        self.parameters_panel = ParametersPanel(self)
        self.parameters_panel.parameterChanged.connect(self._on_parameter_changed)
        self.parameters_panel.textureChanged.connect(self._on_texture_changed)
        self.parameters_dock = self._dock("Material parameters", self.parameters_panel,
                                          Qt.DockWidgetArea.RightDockWidgetArea, "parametersDock")

        self.properties_panel = PropertiesPanel(self)
        self.properties_panel.propertyEdited.connect(self.set_node_property)
        self.properties_dock = self._dock("Node properties", self.properties_panel,
                                          Qt.DockWidgetArea.RightDockWidgetArea, "propertiesDock")

        self.diagnostics_panel = DiagnosticsPanel(self)
        self.diagnostics_panel.nodeActivated.connect(self.select_node)
        self.diagnostics_dock = self._dock("Diagnostics", self.diagnostics_panel,
                                           Qt.DockWidgetArea.BottomDockWidgetArea, "diagnosticsDock")

        self.code_view = CodeView(self)
        self.code_dock = self._dock("Generated code", self.code_view, Qt.DockWidgetArea.BottomDockWidgetArea,
                                    "codeDock")
        self.splitDockWidget(self.diagnostics_dock, self.code_dock, Qt.Orientation.Horizontal)
        self._docks_sized = False

        self._mode_label = QLabel(self)
        self.statusBar().addPermanentWidget(self._mode_label)
        self.preview_context_label = QLabel(self)
        self.preview_context_label.setObjectName("previewContextLabel")
        self.preview_context_label.setToolTip("The OpenGL profile the preview runs (vpl-editor --gl desktop|es|auto)")
        self.statusBar().addPermanentWidget(self.preview_context_label)
        self._show_preview_context(self.preview.context_description)

    def _show_preview_context(self, description: str) -> None:
        self.preview_context_label.setText(f"Preview: {description}")

    def _action(self, text: str, slot: Any, shortcut: QKeySequence.StandardKey | str | None = None,
                tip: str = "") -> QAction:
        action = QAction(text, self)
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(shortcut)
        elif shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        standard = QKeySequence.StandardKey
        self.new_action = self._action("&New", self.new_document, standard.New, "Start an empty material")
        self.open_action = self._action("&Open…", self.open_dialog, standard.Open, "Open a .vpl file")
        self.save_action = self._action("&Save", self.save, standard.Save, "Save the material")
        self.save_as_action = self._action("Save &As…", self.save_as, standard.SaveAs, "Save under a new name")
        self.export_action = self._action("&Export GLSL…", self.export_dialog, "Ctrl+E",
                                          "Write .vert.glsl, .frag.glsl and .json as `vpl compile` does")
        self.quit_action = self._action("&Quit", self.close, standard.Quit)
        self.about_action = self._action("&About VPL Material Editor", self.show_about, None,
                                         "Version, Qt and the OpenGL renderer the preview got")
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)

        stack = self.graph.undo_stack()
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts(standard.Undo)
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts(standard.Redo)
        self.addAction(self.undo_action)
        self.addAction(self.redo_action)
        self.cut_action = self._action("Cu&t", self.cut, standard.Cut)
        self.copy_action = self._action("&Copy", self.copy, standard.Copy)
        self.paste_action = self._action("&Paste", self.paste, standard.Paste)
        self.duplicate_action = self._action("D&uplicate", self.duplicate, DUPLICATE_KEY)
        self.delete_action = self._action("&Delete", self.delete_selection, standard.Delete)
        # On X11 the standard Delete keys include Ctrl+D, which is Duplicate
        # here; Backspace deletes too, as in most node editors.
        self.delete_action.setShortcuts(
            [key for key in QKeySequence.keyBindings(standard.Delete) if key != QKeySequence(DUPLICATE_KEY)]
            + [QKeySequence(Qt.Key.Key_Backspace)]
        )
        self.select_all_action = self._action("Select &All", self.select_all, standard.SelectAll)
        self.frame_action = self._action("&Frame Selection", self.frame_selection, "F",
                                         "Fit the selected nodes (all nodes when none is selected) in view")
        # Graph editing keys act on the graph only while it has focus: Delete
        # or Ctrl+C in the code view or a property field must not touch nodes.
        for action in (self.cut_action, self.copy_action, self.paste_action, self.duplicate_action,
                       self.delete_action, self.select_all_action, self.frame_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.removeAction(action)
            self.graph.viewer().addAction(action)
        self.search_action = QAction("Search Nodes…", self)
        self.search_action.setShortcut(QKeySequence(Qt.Key.Key_Tab))
        # Only while the graph has focus: Tab must keep moving focus in forms.
        self.search_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.search_action.triggered.connect(lambda _checked=False: self.open_tab_search())
        self.graph.viewer().addAction(self.search_action)
        self._adopt_viewer_context_menu()
        self.reset_camera_action = self._action("Reset Preview Camera", lambda: self.preview.reset_camera())
        self.play_action = QAction("Animate Preview", self)
        self.play_action.setCheckable(True)
        self.play_action.toggled.connect(lambda playing: self.preview.set_playing(playing))

    def _adopt_viewer_context_menu(self) -> None:
        """Give the graph's right-click menu the window's actions.

        NodeGraphQt puts its own Undo/Redo actions, with the standard keys,
        in a hidden menu bar inside the viewer; two actions on Ctrl+Z make
        the key ambiguous and neither fires. Those actions are dropped in
        favour of the window's.
        """
        viewer = self.graph.viewer()
        menu = viewer.context_menus()["graph"]
        for action in list(menu.actions()):
            action.setShortcuts([])
            menu.removeAction(action)
        for action in (self.undo_action, self.redo_action, None, self.cut_action, self.copy_action,
                       self.paste_action, self.duplicate_action, self.delete_action, None, self.select_all_action,
                       self.frame_action, self.search_action):
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.new_action)
        file_menu.addAction(self.open_action)
        self.recent_menu = QMenu("Open &Recent", self)
        file_menu.addMenu(self.recent_menu)
        self.examples_menu = QMenu("Open E&xample", self)
        file_menu.addMenu(self.examples_menu)
        from app.material.examples import example_names

        for name in example_names():
            action = self.examples_menu.addAction(name)
            action.triggered.connect(lambda _checked=False, example=name: self.open_example_interactive(example))
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self._rebuild_recent_menu()

        edit_menu = bar.addMenu("&Edit")
        for action in (self.undo_action, self.redo_action, None, self.cut_action, self.copy_action,
                       self.paste_action, self.duplicate_action, self.delete_action, None, self.select_all_action):
            if action is None:
                edit_menu.addSeparator()
            else:
                edit_menu.addAction(action)

        view_menu = bar.addMenu("&View")
        view_menu.addAction(self.frame_action)
        view_menu.addAction(self.search_action)
        view_menu.addSeparator()
        view_menu.addAction(self.reset_camera_action)
        view_menu.addAction(self.play_action)
        view_menu.addSeparator()
        for dock in (self.palette_dock, self.preview_dock, self.properties_dock, self.parameters_dock,
                     self.diagnostics_dock, self.code_dock):
            view_menu.addAction(dock.toggleViewAction())

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.about_action)

    def show_about(self) -> AboutDialog:
        """Open Help > About (window-modal, not blocking) and return the dialog."""
        dialog = AboutDialog(about_facts(self.preview), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    # ------------------------------------------------------------------ state

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def material(self) -> MaterialGraph:
        """The current graph as plain data (a copy: editing it changes nothing)."""
        return self._material.copy()

    @property
    def result(self) -> LoweringResult | None:
        return self._result

    @property
    def read_only(self) -> bool:
        return self._read_only is not None

    @property
    def read_only_document(self) -> LoadedDocument | None:
        return self._read_only

    @property
    def current_artifact(self) -> Any:
        if self._read_only is not None:
            return self._read_only_artifact
        return self._result.artifact if self._result is not None else None

    @property
    def is_modified(self) -> bool:
        if self._read_only is not None:
            return False
        return self._baseline is None or self._material != self._baseline

    def _update_title(self) -> None:
        suffix = " (read-only)" if self.read_only else ""
        self.setWindowTitle(f"{self._document_name}[*]{suffix} — {APP_TITLE}")
        self.setWindowModified(self.is_modified)

    def _update_actions(self) -> None:
        editable = not self.read_only
        for action in (self.save_action, self.save_as_action, self.cut_action, self.copy_action, self.paste_action,
                       self.duplicate_action, self.delete_action, self.select_all_action, self.search_action):
            action.setEnabled(editable)
        self.palette.setEnabled(editable)
        self.undo_action.setEnabled(editable and self.graph.undo_stack().canUndo())
        self.redo_action.setEnabled(editable and self.graph.undo_stack().canRedo())
        self.export_action.setEnabled(self.current_artifact is not None)
        self._mode_label.setText("read-only instruction view" if self.read_only else "")

    # ------------------------------------------------------------------ graph edits

    def _check_connection(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        # The viewer asks on every mouse move over a port; the answer only
        # changes when the graph does (the cache is dropped on every edit).
        key = (source_id, source_port, target_id, target_port)
        answer = self._connection_answers.get(key)
        if answer is None:
            answer = can_connect(self._material, source_id, source_port, target_id, target_port)
            self._connection_answers[key] = answer
        return answer

    def _on_connection_refused(self, reason: str) -> None:
        self.statusBar().showMessage(f"Connection refused: {reason}", 8000)

    def _on_graph_edited(self, _index: int = 0) -> None:
        if self._loading or self.read_only:
            return
        renew_duplicate_ids(self.graph, self._material)
        self._material = snapshot(self.graph)
        self._connection_answers.clear()
        self.graph.refresh_constraint_tables()
        self._update_title()
        self._update_actions()
        self._refresh_properties()
        self._lowering_timer.start()

    def add_node_from_palette(self, type_name: str, position: tuple[float, float] | None = None) -> MaterialNode | None:
        """What the palette's double-click does: add the node at the view centre (or `position`)."""
        if self.read_only:
            return None
        if position is None:
            centre = self.graph.viewer().mapToScene(self.graph.viewer().viewport().rect().center())
            position = (centre.x(), centre.y())
            # Successive additions must not pile up exactly on top of each other.
            taken = [node.pos() for node in self.graph.all_nodes()]
            while any(abs(x - position[0]) < 10 and abs(y - position[1]) < 10 for x, y in taken):
                position = (position[0] + PALETTE_DROP_OFFSET, position[1] + PALETTE_DROP_OFFSET)
        node = self.graph.create_material_node(type_name, position=position)
        self.statusBar().showMessage(f"Added {node.name()}", 3000)
        return node

    def connect_nodes(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        """Programmatic connect, through the same type check as dragging."""
        source = self.graph.node_by_stable_id(source_id)
        target = self.graph.node_by_stable_id(target_id)
        if source is None or target is None:
            return False, "unknown node"
        return self.graph.connect_ports(source, source_port, target, target_port)

    def set_node_property(self, node_id: str, name: str, value: Any) -> None:
        node = self.graph.node_by_stable_id(node_id)
        if node is None or self.read_only:
            return
        node.set_material_property(name, value)

    def select_node(self, node_id: str) -> None:
        """Select one node and bring it into view (the diagnostics list does this)."""
        node = self.graph.node_by_stable_id(node_id)
        if node is None:
            return
        # Selecting through the view, not NodeObject.set_selected: NodeGraphQt
        # would push the selection onto the undo stack.
        self.graph.scene().clearSelection()
        node.view.setSelected(True)
        self.graph.viewer().center_selection([node.view])
        self._refresh_properties()

    def cut(self) -> None:
        if self.graph.selected_nodes():
            self.graph.cut_nodes()

    def copy(self) -> None:
        self.graph.copy_nodes()

    def paste(self) -> None:
        self.graph.paste_nodes()

    def duplicate(self) -> None:
        nodes = self.graph.selected_nodes()
        if nodes:
            self.graph.duplicate_nodes(nodes)

    def delete_selection(self) -> None:
        nodes = self.graph.selected_nodes()
        if nodes:
            self.graph.delete_nodes(nodes)

    def select_all(self) -> None:
        for node in self.graph.all_nodes():
            node.view.setSelected(True)

    def frame_selection(self) -> None:
        nodes = self.graph.selected_nodes() or self.graph.all_nodes()
        self.graph.typed_viewer.frame_items([node.view for node in nodes])

    def frame_all(self) -> None:
        self.graph.typed_viewer.frame_items([node.view for node in self.graph.all_nodes()])

    def open_tab_search(self) -> None:
        """NodeGraphQt's tab search (a modal menu at the cursor); the chosen node lands there."""
        if self.read_only:
            return
        viewer = self.graph.viewer()
        viewer.tab_search_set_nodes(self.graph.node_factory.names)
        viewer.tab_search_toggle()

    # ------------------------------------------------------------------ lowering and panels

    def relower_now(self) -> None:
        """Lower the current snapshot and update every panel (the timer calls this)."""
        self._lowering_timer.stop()
        if self.read_only:
            return
        if self._lowered_graph is not None and self._lowered_graph == self._material and self._result is not None:
            return
        graph = self._material.copy()
        result = lower(graph)
        self._result = result
        self._lowered_graph = graph
        self._driver_error = ""
        self._apply_result(result)
        self.lowered.emit()

    def flush(self) -> None:
        """Apply any pending lowering now (tests and screenshots use it instead of waiting)."""
        if self._lowering_timer.isActive() or self._result is None:
            self.relower_now()

    def _apply_result(self, result: LoweringResult) -> None:
        self._show_diagnostics(result.diagnostics)
        self._show_markers(result.diagnostics)
        self._show_port_types(result)
        artifact = result.artifact
        reason = "the material has errors (see Diagnostics)" if not result.ok else ""
        self.code_view.show_code(
            result.text or None,
            artifact.vertex_code if artifact is not None else None,
            artifact.fragment_code if artifact is not None else None,
            missing_reason=reason or "not compiled",
        )
        self._set_parameters(result.parameters, artifact, result.verified)
        self._update_actions()
        errors = len(result.errors)
        self.statusBar().showMessage("Material OK" if result.ok else f"{errors} error(s) in the material", 4000)

    def _set_parameters(self, specs: list[ParameterSpec], artifact: Any = None, verified: Any = None) -> None:
        """Show `specs` in the panel and hand the artifact to the preview.

        A value the artist set in the panel survives recompiles while the
        parameter keeps its name, type and default; a parameter whose default
        changed (its node's property was edited) shows the new default.
        """
        previous = {spec.name: spec for spec in self._parameter_specs}
        current = self.parameters_panel.values()
        merged: dict[str, Any] = {}
        for spec in specs:
            old = previous.get(spec.name)
            keep = old is not None and old.type == spec.type and old.kind == spec.kind and old.default == spec.default
            merged[spec.name] = current.get(spec.name, spec.default) if keep else spec.default
        self._parameter_specs = list(specs)
        self.parameters_panel.set_parameters(specs, merged)
        if artifact is None:
            return
        artifact, problem = self._preview_artifact(artifact, verified)
        if artifact is None:
            self.preview.show_problem(problem)
            return
        self.preview.set_artifact(artifact, specs)
        shown = getattr(self.preview, "parameter_values", {})
        for spec in specs:
            value = merged[spec.name]
            if spec.name in shown and shown[spec.name] != value:
                if spec.kind is ParameterKind.TEXTURE:
                    self.preview.set_texture(spec.name, value if isinstance(value, str) else None)
                elif spec.kind is not ParameterKind.OTHER:
                    self.preview.set_parameter(spec.name, value)

    def _preview_artifact(self, artifact: Any, verified: Any) -> tuple[Any, str]:
        """The artifact for the preview's target: `artifact` itself or `verified` compiled again.

        (None, reason) when the module cannot be compiled for that target.
        """
        target = getattr(self.preview, "target", artifact.target)
        if artifact.target == target or verified is None:
            return artifact, ""
        try:
            return compile_glsl(verified, target=target), ""
        except Exception as error:  # noqa: BLE001 - a target error is shown, never raised
            message = str(error) or type(error).__name__
            return None, f"{target} target error (preview: {self.preview.context_description}): {message}"

    def _node_label(self, node_id: str | None) -> str:
        if node_id is None:
            return ""
        node = self.graph.node_by_stable_id(node_id)
        return f"{node.name()} ({node_id})" if node is not None else node_id

    def _show_diagnostics(self, diagnostics: Sequence[NodeDiagnostic], extra: Sequence[DiagnosticRow] = ()) -> None:
        rows = [
            DiagnosticRow(
                message=diagnostic.message,
                category=diagnostic.category if diagnostic.severity == "error" else f"{diagnostic.category} warning",
                node_id=diagnostic.node_id,
                node_label=self._node_label(diagnostic.node_id),
            )
            for diagnostic in diagnostics
        ]
        rows.extend(extra)
        if self._driver_error:
            rows.append(DiagnosticRow(self._driver_error, "driver"))
        self.diagnostics_panel.set_rows(rows)
        self.diagnostics_dock.setWindowTitle(f"Diagnostics ({len(rows)})" if rows else "Diagnostics")

    def _show_markers(self, diagnostics: Sequence[NodeDiagnostic]) -> None:
        messages: dict[str, list[str]] = {}
        for diagnostic in diagnostics:
            if diagnostic.node_id is not None:
                prefix = "" if diagnostic.severity == "error" else "warning: "
                messages.setdefault(diagnostic.node_id, []).append(prefix + diagnostic.message)
        for node in self.graph.material_nodes():
            node.view.set_diagnostics(messages.get(node.stable_id, []))

    def _show_port_types(self, result: LoweringResult) -> None:
        for node in self.graph.material_nodes():
            node.refresh_title()
            resolved: dict[tuple[str, str], object] = {}
            for direction, ports in (("in", node.input_ports()), ("out", node.output_ports())):
                for port in ports:
                    port_type = result.port_types.get((node.stable_id, port.name()))
                    if port_type is not None:
                        resolved[(direction, port.name())] = port_type
            node.show_port_types(resolved)

    def _refresh_properties(self) -> None:
        if self.read_only:
            self.properties_panel.show_nothing("Read-only document: no node properties.")
            return
        try:
            # Through the scene, not NodeGraph.selected_nodes: while nodes are
            # being removed the scene can report an item the model dropped.
            items = self.graph.viewer().selected_nodes()
        except RuntimeError:
            return  # the scene is being torn down
        selected = [node for node in (self.graph.get_node_by_id(item.id) for item in items)
                    if isinstance(node, MaterialNode)]
        if len(selected) != 1:
            self.properties_panel.show_nothing(
                "Select one node to edit its properties." if not selected else f"{len(selected)} nodes selected."
            )
            return
        node = selected[0]
        material_node = self._material.nodes.get(node.stable_id)
        values = material_node.properties if material_node is not None else {}
        connected = [port.name() for port in node.input_ports() if port.connected_ports()]
        self.properties_panel.show_node(node.stable_id, node.CATALOG_TYPE, values, connected)

    def _on_parameter_changed(self, name: str, value: object) -> None:
        self.preview.set_parameter(name, value)

    def _on_texture_changed(self, name: str, path: object) -> None:
        self.preview.set_texture(name, path if isinstance(path, str) else None)

    def _on_program_ready(self) -> None:
        if self._driver_error:
            self._driver_error = ""
            self._refresh_diagnostics()

    def _on_program_failed(self, message: str) -> None:
        self._driver_error = message
        self._refresh_diagnostics()
        # Replaces a "Material OK" from the lowering: the material verified, but the driver refused it.
        self.statusBar().showMessage("The preview's driver rejected the program (see Diagnostics)", 8000)

    def _refresh_diagnostics(self) -> None:
        if self._read_only is not None:
            self._show_read_only_diagnostics()
        elif self._result is not None:
            self._show_diagnostics(self._result.diagnostics)

    # ------------------------------------------------------------------ documents

    def _set_graph_document(self, graph: MaterialGraph, path: Path | None, name: str,
                            modified: bool = False) -> list[str]:
        """Show `graph` for editing; returns the problems the view could not show."""
        self._read_only = None
        self._read_only_artifact = None
        self._loading = True
        try:
            problems = populate(self.graph, graph)
        finally:
            self._loading = False
        self._centre.setCurrentWidget(self.graph.widget)
        self._path = path
        self._document_name = name
        self._material = snapshot(self.graph)
        self._connection_answers.clear()
        # A graph the view could not show completely differs from its file:
        # saving would change it, so say so.
        self._baseline = None if (modified or problems) else self._material.copy()
        self._lowered_graph = None
        self._result = None
        self._driver_error = ""
        self._update_title()
        self._update_actions()
        self._refresh_properties()
        self.relower_now()
        self.frame_all()
        self.documentOpened.emit()
        return problems

    def _set_read_only_document(self, document: LoadedDocument, path: Path | None, name: str) -> None:
        self._loading = True
        try:
            populate(self.graph, MaterialGraph())
        finally:
            self._loading = False
        self._read_only = document
        self._path = path
        self._document_name = name
        self._material = MaterialGraph()
        self._connection_answers.clear()
        self._baseline = MaterialGraph()
        self._lowered_graph = None
        self._result = None
        self._driver_error = ""
        verified = document.verified
        artifact = None
        compile_problem = ""
        try:
            artifact = compile_glsl(verified)
        except Exception as error:  # noqa: BLE001 - a target error is shown, never raised
            compile_problem = f"{type(error).__name__}: {error}" if not str(error) else str(error)
        self._read_only_artifact = artifact
        self._read_only_compile_problem = compile_problem
        reason = (document.message or "this module has no editor graph").rstrip(". ")
        self.instruction_view.show_module(verified.text, f"Read-only \u2014 {reason}. Preview and export still work.")
        self._centre.setCurrentWidget(self.instruction_view)
        module = document.module if document.module is not None else verified.materialize()
        specs = specs_from_module(module)
        self.code_view.show_code(verified.text, artifact.vertex_code if artifact else None,
                                 artifact.fragment_code if artifact else None,
                                 missing_reason=compile_problem or "not compiled")
        self._set_parameters(specs, artifact, verified)
        for node in self.graph.material_nodes():
            node.view.set_diagnostics([])
        self._show_read_only_diagnostics()
        self._update_title()
        self._update_actions()
        self._refresh_properties()
        self.documentOpened.emit()

    def _show_read_only_diagnostics(self) -> None:
        document = self._read_only
        assert document is not None
        rows = [DiagnosticRow(str(diagnostic), "note") for diagnostic in document.diagnostics]
        problem = self._read_only_compile_problem
        if problem:
            rows.append(DiagnosticRow(problem, "target"))
        self._show_diagnostics([], rows)

    def load_graph(self, graph: MaterialGraph, name: str = "untitled", path: Path | None = None,
                   modified: bool = False) -> list[str]:
        """Replace the document with `graph` (no questions asked)."""
        return self._set_graph_document(graph, path, name, modified)

    def load_example(self, name: str = DEFAULT_EXAMPLE) -> bool:
        """Open a shipped example as an untitled document (Save asks where: examples stay pristine)."""
        return self.open_document(load_example(name), None, f"{name} (example)", ask_to_save=False)

    def open_example_interactive(self, name: str) -> None:
        if self.maybe_save():
            self.load_example(name)

    def new_document(self) -> bool:
        """An untitled material holding just a Material Output (every material needs one)."""
        if not self.maybe_save():
            return False
        graph = MaterialGraph()
        if OUTPUT_NODE_TYPE in catalog.NODE_TYPES:
            graph.add_node(OUTPUT_NODE_TYPE, (0.0, 0.0))
        self._set_graph_document(graph, None, "untitled")
        return True

    def open_dialog(self) -> bool:
        directory = str(self._path.parent) if self._path else os.getcwd()
        path = self.prompts.choose_open_path(self, directory)
        return self.open_file(path) if path else False

    def open_file(self, path: str | os.PathLike[str], ask_to_save: bool = True) -> bool:
        """Open a .vpl file. An unreadable or invalid file leaves the current document untouched."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as error:
            self.prompts.show_error(self, "Cannot open file", f"{path} could not be read.", [str(error)])
            return False
        if not self.open_document(load_text(data, str(path)), path, path.name, ask_to_save):
            return False
        self._add_recent_file(path)
        self.statusBar().showMessage(f"Opened {path}", 4000)
        return True

    def open_document(self, document: LoadedDocument, path: Path | None, name: str, ask_to_save: bool = True) -> bool:
        """Show a loaded document: editable graph, read-only module, or an error dialog (nothing changes)."""
        if document.graph is None and document.verified is None:
            details = [str(diagnostic) for diagnostic in document.diagnostics] or [document.message]
            self.prompts.show_error(self, "Cannot open file", document.message or f"{name} is not a valid VPL module.",
                                    details)
            return False
        if ask_to_save and not self.maybe_save():
            return False
        if document.graph is not None and not document.read_only:
            problems = self._set_graph_document(document.graph, path, name)
            problems += [str(diagnostic) for diagnostic in document.diagnostics]
            if problems:
                self.prompts.show_error(self, "Some of the file could not be shown",
                                        document.message or f"{name} opened, but parts of it are not shown.", problems)
        else:
            self._set_read_only_document(document, path, name)
        return True

    def save(self) -> bool:
        if self.read_only:
            return False
        if self._path is None:
            return self.save_as()
        return self.save_to(self._path)

    def save_as(self) -> bool:
        if self.read_only:
            return False
        suggested = str(self._path) if self._path else os.path.join(os.getcwd(), "material.vpl")
        path = self.prompts.choose_save_path(self, suggested)
        return self.save_to(Path(path)) if path else False

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        path = Path(path)
        graph = self._material.copy()
        try:
            save_file(path, graph, self._current_lowering())
        except Exception as error:  # noqa: BLE001 - any failure is reported, the document stays modified
            self.prompts.show_error(self, "Cannot save", f"{path} could not be written.", [str(error)])
            return False
        self._path = path
        self._document_name = path.name
        self._baseline = graph
        self._update_title()
        self._add_recent_file(path)
        self.recovery.clear()
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    def _current_lowering(self) -> LoweringResult | None:
        """The lowering of exactly the current graph, if there is one (saving need not lower again)."""
        if self._result is not None and self._lowered_graph is not None and self._lowered_graph == self._material:
            return self._result
        return None

    def export_dialog(self) -> bool:
        directory = str(self._path.parent) if self._path else os.getcwd()
        out_dir = self.prompts.choose_export_dir(self, directory)
        return self.export_to(out_dir) if out_dir else False

    def export_stem(self) -> str:
        # The same stem `vpl compile` derives from a file name.
        return file_stem(self._path) if self._path is not None else "material"

    def export_to(self, out_dir: str | os.PathLike[str], stem: str | None = None) -> bool:
        """Write <stem>.vert.glsl, <stem>.frag.glsl and <stem>.json exactly as `vpl compile` does."""
        self.flush()
        artifact = self.current_artifact
        if artifact is None:
            self.prompts.show_error(self, "Cannot export", "The material does not compile; fix the errors first.",
                                    [row.text for row in self.diagnostics_panel.rows])
            return False
        try:
            export_artifact(artifact, Path(out_dir), stem or self.export_stem())
        except OSError as error:
            self.prompts.show_error(self, "Cannot export", f"Could not write to {out_dir}.", [str(error)])
            return False
        self.statusBar().showMessage(f"Exported GLSL to {out_dir}", 4000)
        return True

    def maybe_save(self) -> bool:
        """Ask about unsaved changes; True when it is fine to drop the current document."""
        if not self.is_modified:
            return True
        choice = self.prompts.ask_save_changes(self, self._document_name)
        if choice is SaveChoice.SAVE:
            return self.save()
        return choice is SaveChoice.DISCARD

    # ------------------------------------------------------------------ recent files

    def recent_files(self) -> list[str]:
        value = self.settings.value(RECENT_FILES_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [str(item) for item in (value or [])]

    def _add_recent_file(self, path: Path) -> None:
        entry = str(path.resolve())
        files = [entry] + [item for item in self.recent_files() if item != entry]
        self.settings.setValue(RECENT_FILES_KEY, files[:MAX_RECENT_FILES])
        self._rebuild_recent_menu()

    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for entry in files:
            action = self.recent_menu.addAction(entry)
            action.triggered.connect(lambda _checked=False, path=entry: self.open_file(path))
        self.recent_menu.setEnabled(bool(files))

    # ------------------------------------------------------------------ autosave and recovery

    def autosave_now(self) -> Path | None:
        """Write the recovery file (nothing to recover when the document is saved)."""
        if self.read_only or not self.is_modified:
            self.recovery.clear()
            return None
        try:
            text = save_text(self._material.copy(), self._current_lowering())
            return self.recovery.write(text, str(self._path) if self._path else None)
        except OSError as error:
            self.statusBar().showMessage(f"Autosave failed: {error}", 8000)
            return None

    def check_recovery(self) -> bool:
        """Offer autosaves left by a crashed editor; True when one was recovered."""
        entries = self.recovery.orphans()
        if not entries:
            return False
        chosen = self.prompts.offer_recovery(self, entries)
        recovered = False
        if chosen is not None:
            recovered = self._recover(chosen)
        for entry in entries:
            RecoveryStore.discard(entry)
        return recovered

    def _recover(self, entry: RecoveryEntry) -> bool:
        try:
            document = load_text(entry.document_path.read_bytes(), str(entry.document_path))
        except OSError as error:
            self.prompts.show_error(self, "Cannot recover", "The autosave could not be read.", [str(error)])
            return False
        if document.graph is None:
            details = [str(diagnostic) for diagnostic in document.diagnostics] or [document.message]
            self.prompts.show_error(self, "Cannot recover", "The autosave is damaged.", details)
            return False
        source = Path(entry.source) if entry.source else None
        name = source.name if source else "recovered"
        self._set_graph_document(document.graph, source, name, modified=True)
        self.statusBar().showMessage(f"Recovered {entry.description}", 8000)
        return True

    # ------------------------------------------------------------------ window

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._docks_sized:
            # Dock sizes only stick once the window has its real size.
            self._docks_sized = True
            self._size_docks()
            # Framing depends on the graph's final size, known after layout.
            QTimer.singleShot(0, self.frame_all)

    def _size_docks(self) -> None:
        width, height = self.width(), self.height()
        self.resizeDocks([self.palette_dock], [max(self.palette.preferred_width(), width // 8)],
                         Qt.Orientation.Horizontal)
        self.resizeDocks([self.preview_dock], [max(320, width // 4)], Qt.Orientation.Horizontal)
        self.resizeDocks([self.preview_dock, self.parameters_dock, self.properties_dock],
                         [max(300, height * 2 // 5), height // 4, height // 3], Qt.Orientation.Vertical)
        self.resizeDocks([self.diagnostics_dock], [max(180, height // 4)], Qt.Orientation.Vertical)
        self.resizeDocks([self.diagnostics_dock, self.code_dock], [width * 3 // 10, width * 7 // 10],
                         Qt.Orientation.Horizontal)

    def grab_window(self) -> QPixmap:
        """The window as the user sees it, preview included.

        `QWidget.grab` draws a QOpenGLWidget from its last composited
        texture, without what `paintGL` painted over the GL image with
        QPainter (the preview's error overlay); the preview's own
        framebuffer (`grabFramebuffer`) has it, so it is drawn over its place.
        """
        image = self.grab()
        preview = self.preview
        if getattr(preview, "available", False) and hasattr(preview, "grabFramebuffer") and preview.isVisible():
            frame = preview.grabFramebuffer()
            if not frame.isNull():
                painter = QPainter(image)
                painter.drawImage(QRect(preview.mapTo(self, preview.rect().topLeft()), preview.size()), frame)
                painter.end()
        return image

    # ------------------------------------------------------------------ closing

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self.maybe_save():
            event.ignore()
            return
        self._shutdown()
        event.accept()

    def _shutdown(self) -> None:
        self._lowering_timer.stop()
        self._autosave_timer.stop()
        self.recovery.close()
        self.preview.set_playing(False)
