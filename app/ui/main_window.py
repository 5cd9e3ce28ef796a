"""The editor's main window: docks, actions, and the wiring between the widgets and the session.

The state lives in a Qt-free `EditorSession` (`app.session`): the current
document (an editable graph or a read-only module), its lowering, the
compiled programs per GLSL target, the parameters (`ParameterModel`) and
every file operation. The window subscribes to the session's events and
renders them; it feeds edits in and asks the user questions.

Data flow of an edit: NodeGraphQt's undo stack records it; `GraphEditor`
turns the stack's `indexChanged` into `edited` with a fresh snapshot; the
window hands the snapshot to the session (`update_graph`) and restarts a
short timer; when it fires the session lowers, and its `lowered` event
updates the diagnostics list, node markers, port types, code view, the
parameters (through the `ParameterModel`) and the preview.

The preview is reached only through `app.preview.host.PreviewHost`. It
runs one OpenGL profile (`preview_gl`: desktop, es or auto); the session
compiles the module for the preview's `target` (once per module and
target), while the code view and Export always show GLSL 4.20.

Every question to the user goes through `self.prompts` (app.ui.dialogs), so
tests inject the answers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QRect, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPainter, QPixmap, QShowEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMenu, QStackedWidget, QWidget

from app.graph.nodes import MaterialNode
from app.material import catalog
from app.material.document import LoadedDocument
from app.material.examples import DEFAULT_EXAMPLE, example_names, load_example
from app.material.graph import MaterialGraph
from app.material.lowering import OUTPUT_NODE_TYPE, LoweringResult, NodeDiagnostic
from app.material.parameters import ParameterKind, ParameterValue
from app.preview.parameters_panel import ParametersPanel
from app.preview.widget import create_preview_widget
from app.session import EditorSession, ModuleDocument, ParameterChange
from app.session.documents import Document
from app.ui.about import AboutDialog, about_facts
from app.ui.code_view import CodeView
from app.ui.diagnostics_panel import DiagnosticRow, DiagnosticsPanel
from app.ui.dialogs import Prompts, SaveChoice
from app.ui.graph_editor import GraphEditor
from app.ui.icons import application_icon
from app.ui.instruction_view import InstructionView
from app.ui.palette import NodePalette
from app.ui.properties_panel import PropertiesPanel
from app.ui.recovery import AUTOSAVE_INTERVAL_MS, RecoveryStore

APP_TITLE = "VPL Material Editor"
LOWERING_DELAY_MS = 150
MAX_RECENT_FILES = 8
RECENT_FILES_KEY = "recentFiles"
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
        self.prompts = prompts or Prompts()
        self.settings = settings if settings is not None else QSettings("vpl-editor", "vpl-editor")
        self.recovery = recovery if recovery is not None else RecoveryStore()
        self.session = EditorSession(self.recovery)
        self.setObjectName("mainWindow")
        self.resize(1500, 920)
        self.setWindowIcon(application_icon())
        self._driver_error = ""

        self.graph_editor = GraphEditor(self)
        self.graph = self.graph_editor.graph
        self.instruction_view = InstructionView(self)
        self._centre = QStackedWidget(self)
        self._centre.addWidget(self.graph.widget)
        self._centre.addWidget(self.instruction_view)
        self.setCentralWidget(self._centre)
        self._build_panels(preview_gl)
        self._build_actions()
        self._build_menus()
        self._connect()
        self.statusBar().showMessage("Ready")

        self._lowering_timer = self._timer(LOWERING_DELAY_MS, self.relower_now, single_shot=True)
        self._autosave_timer = self._timer(AUTOSAVE_INTERVAL_MS, self.autosave_now)
        self._autosave_timer.start()
        self._update_title()
        self._update_actions()

    # ------------------------------------------------------------------ construction

    def _timer(self, interval_ms: int, slot: Callable[[], object], single_shot: bool = False) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(single_shot)
        timer.setInterval(interval_ms)
        timer.timeout.connect(slot)
        return timer

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea, name: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_panels(self, preview_gl: str | None) -> None:
        left, right, bottom = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
                               Qt.DockWidgetArea.BottomDockWidgetArea)
        self.palette = NodePalette(catalog.categories(), self.graph.registry.view_type, self)
        self.palette_dock = self._dock("Nodes", self.palette, left, "paletteDock")
        self.preview = create_preview_widget(self, preview_gl)
        self.preview.setMinimumSize(280, 260)
        self.preview_dock = self._dock("Preview", self.preview, right, "previewDock")
        # Right column, top to bottom: preview, the material's parameters
        # (what the preview is tweaked with), the selected node's properties.
        self.parameters_panel = ParametersPanel(self)
        self.parameters_dock = self._dock("Material parameters", self.parameters_panel, right, "parametersDock")
        self.properties_panel = PropertiesPanel(self)
        self.properties_dock = self._dock("Node properties", self.properties_panel, right, "propertiesDock")
        self.diagnostics_panel = DiagnosticsPanel(self)
        self.diagnostics_dock = self._dock("Diagnostics", self.diagnostics_panel, bottom, "diagnosticsDock")
        self.code_view = CodeView(self)
        self.code_dock = self._dock("Generated code", self.code_view, bottom, "codeDock")
        self.splitDockWidget(self.diagnostics_dock, self.code_dock, Qt.Orientation.Horizontal)
        self._docks_sized = False

        self._mode_label = QLabel(self)
        self.statusBar().addPermanentWidget(self._mode_label)
        self.preview_context_label = QLabel(self)
        self.preview_context_label.setObjectName("previewContextLabel")
        self.preview_context_label.setToolTip("The OpenGL profile the preview runs (vpl-editor --gl desktop|es|auto)")
        self.statusBar().addPermanentWidget(self.preview_context_label)
        self._show_preview_context(self.preview.context_description)

    def _connect(self) -> None:
        """Signals of the widgets to the session, events of the session to the widgets."""
        self.graph_editor.edited.connect(self._on_graph_edited)
        self.graph_editor.connectionRefused.connect(
            lambda reason: self.statusBar().showMessage(f"Connection refused: {reason}", 8000))
        self.graph.scene().selectionChanged.connect(self._refresh_properties)
        self.palette.nodeRequested.connect(self.add_node_from_palette)
        self.preview.programReady.connect(self._on_program_ready)
        self.preview.programFailed.connect(self._on_program_failed)
        self.preview.contextCreated.connect(self._show_preview_context)
        self.parameters_panel.parameterChanged.connect(self.session.parameters.set_value)
        self.parameters_panel.textureChanged.connect(self.session.parameters.set_value)
        self.properties_panel.propertyEdited.connect(self.set_node_property)
        self.diagnostics_panel.nodeActivated.connect(self.select_node)
        self.session.document_changed.connect(self._on_document_changed)
        self.session.lowered.connect(self._on_lowered)
        self.session.modified_changed.connect(lambda _modified: self._update_title())
        self.session.parameters.specs_changed.connect(
            lambda specs: self.parameters_panel.set_parameters(specs, self.session.parameters.values))
        self.session.parameters.value_changed.connect(self._on_parameter_value)

    def _action(self, text: str, slot: Callable[[], object], shortcut: QKeySequence.StandardKey | str | None = None,
                tip: str = "", graph_only: bool = False) -> QAction:
        action = QAction(text, self)
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(shortcut)
        elif shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        if graph_only:
            # Graph editing keys act on the graph only while it has focus: Delete
            # or Ctrl+C in the code view or a property field must not touch nodes.
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.graph.viewer().addAction(action)
        else:
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
        self.addActions([self.undo_action, self.redo_action])
        editor = self.graph_editor
        self.cut_action = self._action("Cu&t", editor.cut, standard.Cut, graph_only=True)
        self.copy_action = self._action("&Copy", editor.copy, standard.Copy, graph_only=True)
        self.paste_action = self._action("&Paste", editor.paste, standard.Paste, graph_only=True)
        self.duplicate_action = self._action("D&uplicate", editor.duplicate, DUPLICATE_KEY, graph_only=True)
        self.delete_action = self._action("&Delete", editor.delete_selection, standard.Delete, graph_only=True)
        # On X11 the standard Delete keys include Ctrl+D, which is Duplicate
        # here; Backspace deletes too, as in most node editors.
        self.delete_action.setShortcuts(
            [key for key in QKeySequence.keyBindings(standard.Delete) if key != QKeySequence(DUPLICATE_KEY)]
            + [QKeySequence(Qt.Key.Key_Backspace)]
        )
        self.select_all_action = self._action("Select &All", editor.select_all, standard.SelectAll, graph_only=True)
        self.frame_action = self._action("&Frame Selection", editor.frame_selection, "F",
                                         "Fit the selected nodes (all nodes when none is selected) in view",
                                         graph_only=True)
        # Only while the graph has focus: Tab must keep moving focus in forms.
        self.search_action = self._action("Search Nodes…", self.open_tab_search, QKeySequence(Qt.Key.Key_Tab).toString(),
                                          graph_only=True)
        editor.adopt_context_menu([self.undo_action, self.redo_action, None, self.cut_action, self.copy_action,
                                   self.paste_action, self.duplicate_action, self.delete_action, None,
                                   self.select_all_action, self.frame_action, self.search_action])
        self.reset_camera_action = self._action("Reset Preview Camera", self.preview.reset_camera)
        self.play_action = QAction("Animate Preview", self)
        self.play_action.setCheckable(True)
        self.play_action.toggled.connect(self.preview.set_playing)

    def _build_menus(self) -> None:
        def fill(menu: QMenu, items: Sequence[QAction | QMenu | None]) -> None:
            for item in items:
                if item is None:
                    menu.addSeparator()
                elif isinstance(item, QMenu):
                    menu.addMenu(item)
                else:
                    menu.addAction(item)

        bar = self.menuBar()
        self.recent_menu = QMenu("Open &Recent", self)
        self.examples_menu = QMenu("Open E&xample", self)
        for name in example_names():
            action = self.examples_menu.addAction(name)
            action.triggered.connect(lambda _checked=False, example=name: self.open_example_interactive(example))
        fill(bar.addMenu("&File"), [self.new_action, self.open_action, self.recent_menu, self.examples_menu, None,
                                    self.save_action, self.save_as_action, self.export_action, None, self.quit_action])
        self._rebuild_recent_menu()
        fill(bar.addMenu("&Edit"), [self.undo_action, self.redo_action, None, self.cut_action, self.copy_action,
                                    self.paste_action, self.duplicate_action, self.delete_action, None,
                                    self.select_all_action])
        docks = (self.palette_dock, self.preview_dock, self.properties_dock, self.parameters_dock,
                 self.diagnostics_dock, self.code_dock)
        fill(bar.addMenu("&View"), [self.frame_action, self.search_action, None, self.reset_camera_action,
                                    self.play_action, None, *(dock.toggleViewAction() for dock in docks)])
        fill(bar.addMenu("&Help"), [self.about_action])

    def show_about(self) -> AboutDialog:
        """Open Help > About (window-modal, not blocking) and return the dialog."""
        dialog = AboutDialog(about_facts(self.preview), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    # ------------------------------------------------------------------ state (read by tests and tools)

    @property
    def path(self) -> Path | None:
        return self.session.path

    @property
    def material(self) -> MaterialGraph:
        """The current graph as plain data (a copy: editing it changes nothing)."""
        return self.session.graph.copy()

    @property
    def result(self) -> LoweringResult | None:
        return self.session.result

    @property
    def read_only(self) -> bool:
        return self.session.read_only

    @property
    def read_only_document(self) -> ModuleDocument | None:
        document = self.session.document
        return document if isinstance(document, ModuleDocument) else None

    @property
    def current_artifact(self) -> object | None:
        return self.session.current_artifact

    @property
    def is_modified(self) -> bool:
        return self.session.is_modified

    def _update_title(self) -> None:
        suffix = " (read-only)" if self.read_only else ""
        self.setWindowTitle(f"{self.session.name}[*]{suffix} — {APP_TITLE}")
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

    def _on_graph_edited(self) -> None:
        if self.read_only:
            return
        self.session.update_graph(self.graph_editor.material)
        self._update_title()
        self._update_actions()
        self._refresh_properties()
        self._lowering_timer.start()

    def add_node_from_palette(self, type_name: str, position: tuple[float, float] | None = None) -> MaterialNode | None:
        """What the palette's double-click does: add the node at the view centre (or `position`)."""
        if self.read_only:
            return None
        node = self.graph_editor.add_node(type_name, position)
        self.statusBar().showMessage(f"Added {node.name()}", 3000)
        return node

    def connect_nodes(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        """Programmatic connect, through the same type check as dragging."""
        return self.graph_editor.connect_nodes(source_id, source_port, target_id, target_port)

    def set_node_property(self, node_id: str, name: str, value: object) -> None:
        if not self.read_only:
            self.graph_editor.set_node_property(node_id, name, value)

    def select_node(self, node_id: str) -> None:
        """Select one node and bring it into view (the diagnostics list does this)."""
        if self.graph_editor.select_node(node_id):
            self._refresh_properties()

    def cut(self) -> None:
        self.graph_editor.cut()

    def copy(self) -> None:
        self.graph_editor.copy()

    def paste(self) -> None:
        self.graph_editor.paste()

    def duplicate(self) -> None:
        self.graph_editor.duplicate()

    def delete_selection(self) -> None:
        self.graph_editor.delete_selection()

    def select_all(self) -> None:
        self.graph_editor.select_all()

    def frame_selection(self) -> None:
        self.graph_editor.frame_selection()

    def frame_all(self) -> None:
        self.graph_editor.frame_all()

    def open_tab_search(self) -> None:
        if not self.read_only:
            self.graph_editor.open_tab_search()

    def _refresh_properties(self) -> None:
        if self.read_only:
            self.properties_panel.show_nothing("Read-only document: no node properties.")
            return
        selected = self.graph_editor.selected_material_nodes()
        if len(selected) != 1:
            self.properties_panel.show_nothing(
                "Select one node to edit its properties." if not selected else f"{len(selected)} nodes selected.")
            return
        node = selected[0]
        material_node = self.session.graph.nodes.get(node.stable_id)
        values = material_node.properties if material_node is not None else {}
        connected = [port.name() for port in node.input_ports() if port.connected_ports()]
        self.properties_panel.show_node(node.stable_id, node.CATALOG_TYPE, values, connected)

    # ------------------------------------------------------------------ lowering, panels, preview

    def relower_now(self) -> None:
        """Lower the current graph if it changed (the timer calls this); the `lowered` event updates the panels."""
        self._lowering_timer.stop()
        self.session.lower()

    def flush(self) -> None:
        """Apply any pending lowering now (tests and screenshots use it instead of waiting)."""
        self.relower_now()

    def _on_lowered(self, result: LoweringResult) -> None:
        self._driver_error = ""
        self._show_diagnostics(result.diagnostics)
        self.graph_editor.show_diagnostics(result.diagnostics)
        self.graph_editor.show_port_types(result)
        artifact = result.artifact
        self.code_view.show_code(result.text or None, artifact.vertex_code if artifact is not None else None,
                                 artifact.fragment_code if artifact is not None else None,
                                 missing_reason="the material has errors (see Diagnostics)" if not result.ok
                                 else "not compiled")
        if result.verified is not None:
            self._show_program()
        self._update_actions()
        self.statusBar().showMessage("Material OK" if result.ok else f"{len(result.errors)} error(s) in the material",
                                     4000)
        self.lowered.emit()

    def _show_program(self) -> None:
        """Hand the preview the current module compiled for its target, with every parameter's value."""
        program = self.session.program(self.preview.target)
        if program.artifact is None:
            self.preview.show_problem(f"{program.target} target error (preview: {self.preview.context_description}): "
                                      f"{program.problem}")
            return
        parameters = self.session.parameters
        self.preview.set_artifact(program.artifact, parameters.specs, parameters.values)

    def _on_parameter_value(self, change: ParameterChange) -> None:
        value: ParameterValue = change.value
        if change.spec.kind is ParameterKind.TEXTURE:
            self.preview.set_texture(change.name, value if isinstance(value, str) else None)
        else:
            self.preview.set_parameter(change.name, value)
        self.parameters_panel.set_value(change.name, value)

    def _show_diagnostics(self, diagnostics: Sequence[NodeDiagnostic], extra: Sequence[DiagnosticRow] = ()) -> None:
        rows = [
            DiagnosticRow(message=diagnostic.message,
                          category=diagnostic.category if diagnostic.severity == "error"
                          else f"{diagnostic.category} warning",
                          node_id=diagnostic.node_id, node_label=self.graph_editor.node_label(diagnostic.node_id))
            for diagnostic in diagnostics
        ]
        rows.extend(extra)
        if self._driver_error:
            rows.append(DiagnosticRow(self._driver_error, "driver"))
        self.diagnostics_panel.set_rows(rows)
        self.diagnostics_dock.setWindowTitle(f"Diagnostics ({len(rows)})" if rows else "Diagnostics")

    def _refresh_diagnostics(self) -> None:
        document = self.read_only_document
        if document is not None:
            rows = [DiagnosticRow(str(diagnostic), "note") for diagnostic in document.diagnostics]
            problem = self.session.program().problem
            self._show_diagnostics([], rows + ([DiagnosticRow(problem, "target")] if problem else []))
        elif self.session.result is not None:
            self._show_diagnostics(self.session.result.diagnostics)

    def _show_preview_context(self, description: str) -> None:
        self.preview_context_label.setText(f"Preview: {description}")

    def _on_program_ready(self) -> None:
        if self._driver_error:
            self._driver_error = ""
            self._refresh_diagnostics()

    def _on_program_failed(self, message: str) -> None:
        self._driver_error = message
        self._refresh_diagnostics()
        # Replaces a "Material OK" from the lowering: the material verified, but the driver refused it.
        self.statusBar().showMessage("The preview's driver rejected the program (see Diagnostics)", 8000)

    # ------------------------------------------------------------------ documents

    def _on_document_changed(self, document: Document) -> None:
        self._driver_error = ""
        if isinstance(document, ModuleDocument):
            self.graph_editor.editable = False
            self.graph_editor.load(MaterialGraph())
            reason = (document.reason or "this module has no editor graph").rstrip(". ")
            self.instruction_view.show_module(document.verified.text,
                                              f"Read-only \u2014 {reason}. Preview and export still work.")
            self._centre.setCurrentWidget(self.instruction_view)
            program = self.session.program()
            artifact = program.artifact
            self.code_view.show_code(document.verified.text, artifact.vertex_code if artifact else None,
                                     artifact.fragment_code if artifact else None,
                                     missing_reason=program.problem or "not compiled")
            self._show_program()
            self._refresh_diagnostics()
        else:
            self.graph_editor.editable = True
            self._centre.setCurrentWidget(self.graph.widget)
        self._update_title()
        self._update_actions()
        self._refresh_properties()

    def _set_graph_document(self, graph: MaterialGraph, path: Path | None, name: str,
                            modified: bool = False) -> list[str]:
        """Show `graph` for editing; returns the problems the view could not show."""
        self.graph_editor.editable = True
        problems = self.graph_editor.load(graph)
        # A graph the view could not show completely differs from its file: saving would change it.
        self.session.open_graph(self.graph_editor.material, path, name, modified=modified or bool(problems))
        self.relower_now()
        self.frame_all()
        self.documentOpened.emit()
        return problems

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

    def _start_directory(self) -> str:
        return str(self.path.parent) if self.path else os.getcwd()

    def open_dialog(self) -> bool:
        path = self.prompts.choose_open_path(self, self._start_directory())
        return self.open_file(path) if path else False

    def open_file(self, path: str | os.PathLike[str], ask_to_save: bool = True) -> bool:
        """Open a .vpl file. An unreadable or invalid file leaves the current document untouched."""
        path = Path(path)
        try:
            document = self.session.read_file(path)
        except OSError as error:
            self.prompts.show_error(self, "Cannot open file", f"{path} could not be read.", [str(error)])
            return False
        if not self.open_document(document, path, path.name, ask_to_save):
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
            self.session.open_module(document, path, name)
            self.documentOpened.emit()
        return True

    def save(self) -> bool:
        if self.read_only:
            return False
        return self.save_to(self.path) if self.path is not None else self.save_as()

    def save_as(self) -> bool:
        if self.read_only:
            return False
        suggested = str(self.path) if self.path else os.path.join(os.getcwd(), "material.vpl")
        path = self.prompts.choose_save_path(self, suggested)
        return self.save_to(Path(path)) if path else False

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        path = Path(path)
        try:
            self.session.save(path)
        except OSError as error:
            self.prompts.show_error(self, "Cannot save", f"{path} could not be written.", [str(error)])
            return False
        self._update_title()
        self._add_recent_file(path)
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    def export_dialog(self) -> bool:
        out_dir = self.prompts.choose_export_dir(self, self._start_directory())
        return self.export_to(out_dir) if out_dir else False

    def export_stem(self) -> str:
        return self.session.export_stem()

    def export_to(self, out_dir: str | os.PathLike[str], stem: str | None = None) -> bool:
        """Write <stem>.vert.glsl, <stem>.frag.glsl and <stem>.json exactly as `vpl compile` does."""
        self.flush()
        try:
            written = self.session.export(out_dir, stem)
        except OSError as error:
            self.prompts.show_error(self, "Cannot export", f"Could not write to {out_dir}.", [str(error)])
            return False
        if written is None:
            self.prompts.show_error(self, "Cannot export", "The material does not compile; fix the errors first.",
                                    [row.text for row in self.diagnostics_panel.rows])
            return False
        self.statusBar().showMessage(f"Exported GLSL to {out_dir}", 4000)
        return True

    def maybe_save(self) -> bool:
        """Ask about unsaved changes; True when it is fine to drop the current document."""
        if not self.is_modified:
            return True
        choice = self.prompts.ask_save_changes(self, self.session.name)
        if choice is SaveChoice.SAVE:
            return self.save()
        return choice is SaveChoice.DISCARD

    # ------------------------------------------------------------------ recent files

    def recent_files(self) -> list[str]:
        value = self.settings.value(RECENT_FILES_KEY, [])
        return [str(item) for item in ([value] if isinstance(value, str) else (value or []))]

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
        try:
            return self.session.autosave()
        except OSError as error:
            self.statusBar().showMessage(f"Autosave failed: {error}", 8000)
            return None

    def check_recovery(self) -> bool:
        """Offer autosaves left by a crashed editor; True when one was recovered."""
        entries = self.session.recovery_candidates()
        if not entries:
            return False
        chosen = self.prompts.offer_recovery(self, entries)
        recovered = False
        if chosen is not None:
            try:
                document = self.session.read_recovery(chosen)
            except OSError as error:
                self.prompts.show_error(self, "Cannot recover", "The autosave could not be read.", [str(error)])
                document = None
            if document is not None and document.graph is None:
                details = [str(diagnostic) for diagnostic in document.diagnostics] or [document.message]
                self.prompts.show_error(self, "Cannot recover", "The autosave is damaged.", details)
            elif document is not None:
                source = Path(chosen.source) if chosen.source else None
                self._set_graph_document(document.graph, source, source.name if source else "recovered", modified=True)
                self.statusBar().showMessage(f"Recovered {chosen.description}", 8000)
                recovered = True
        for entry in entries:
            self.session.discard_recovery(entry)
        return recovered

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
        horizontal, vertical = Qt.Orientation.Horizontal, Qt.Orientation.Vertical
        self.resizeDocks([self.palette_dock], [max(self.palette.preferred_width(), width // 8)], horizontal)
        self.resizeDocks([self.preview_dock], [max(320, width // 4)], horizontal)
        self.resizeDocks([self.preview_dock, self.parameters_dock, self.properties_dock],
                         [max(300, height * 2 // 5), height // 4, height // 3], vertical)
        self.resizeDocks([self.diagnostics_dock], [max(180, height // 4)], vertical)
        self.resizeDocks([self.diagnostics_dock, self.code_dock], [width * 3 // 10, width * 7 // 10], horizontal)

    def grab_window(self) -> QPixmap:
        """The window as the user sees it, preview included.

        `QWidget.grab` draws a QOpenGLWidget from its last composited
        texture, without what `paintGL` painted over the GL image with
        QPainter (the preview's error overlay); the preview's shown frame
        has it, so it is drawn over its place.
        """
        image = self.grab()
        preview = self.preview
        frame = preview.grab_shown_frame() if preview.isVisible() else None
        if frame is not None and not frame.isNull():
            painter = QPainter(image)
            painter.drawImage(QRect(preview.mapTo(self, preview.rect().topLeft()), preview.size()), frame)
            painter.end()
        return image

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self.maybe_save():
            event.ignore()
            return
        self._lowering_timer.stop()
        self._autosave_timer.stop()
        self.session.close()
        self.preview.set_playing(False)
        event.accept()
