"""The editor's main window: docks, actions, and the wiring between the widgets and the session.

The state lives in a Qt-free `EditorSession` (`app.session`): the current
document (an editable graph or a read-only module), its lowering, the
compiled programs per GLSL target, the parameters (`ParameterModel`) and
every file operation. The window subscribes to the session's events and
renders them; it feeds edits in and asks the user questions.

Data flow of an edit: NodeGraphQt's undo stack records it; `GraphEditor`
turns the stack's `indexChanged` into `edited` with a fresh snapshot; the
window hands the snapshot to the session (`update_graph`) and asks the
`LoweringScheduler` for a lowering (at once for a discrete edit, throttled
while a slider is dragged; in a worker thread); when it has been applied
the session's `lowered` event updates the diagnostics list, node markers,
port types, code view, the parameters (through the `ParameterModel`) and
the preview. Edits the lowering does not read (moving nodes, a
parameter's value) lower nothing: a value goes straight to the preview.

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
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMenu, QStackedWidget, QVBoxLayout, QWidget

from app.graph.nodes import MaterialNode
from app.graph.overview import GraphOverview, overview_action
from app.material import catalog
from app.material.examples import DEFAULT_EXAMPLE, example_description, example_names
from app.material.graph import MaterialGraph
from app.material.library import PROJECT, USER, LibraryFunction, library_folders, list_library, outdated
from app.material.lowering import LoweringResult
from app.material.parameters import ParameterValue
from app.preview.parameters_panel import ParametersPanel
from app.preview.stage import Stage
from app.preview.stage_toolbar import PreviewPanel
from app.preview.widget import create_preview_widget
from app.session import EditorSession, ModuleDocument
from app.session.documents import Document
from app.session.stage_files import resolved_stage, stored_stage
from app.session.variants import VariantNameError, checked_variant_name
from app.ui.about import AboutDialog, about_facts
from app.ui.breadcrumb import Breadcrumb
from app.ui.code_view import CodeView
from app.ui.diagnostics_panel import DiagnosticsPanel
from app.ui.dialogs import Prompts
from app.ui.export_commands import ExportCommands
from app.ui.file_commands import FileCommands
from app.ui.graph_editor import GraphEditor
from app.ui.group_interface import GroupInterfaceDialog
from app.ui.icons import application_icon
from app.ui.instruction_view import InstructionView
from app.ui.keys import redo_keys
from app.ui.lowering_scheduler import LoweringScheduler
from app.ui.node_thumbnails import THUMBNAILS_SETTING, NodePin, NodeThumbnails, show_node_menu
from app.ui.palette import FUNCTION_PREFIX, GROUP_PREFIX, NodePalette
from app.ui.presenter import SessionPresenter
from app.ui.properties_panel import PropertiesPanel
from app.ui.recent_files import RecentFiles
from app.ui.recovery import AUTOSAVE_INTERVAL_MS, RecoveryStore

APP_TITLE = "VPL Material Editor"
#: QSettings keys of the View menu's inspection toggles.
COST_SETTING = "graph/show_cost"
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

        self.graph_editor = GraphEditor(self)
        #: The function library's entries by "folder/file" (listed under "Functions" in the palette).
        self.library_entries: dict[str, LibraryFunction] = {}
        self.graph = self.graph_editor.graph
        self.instruction_view = InstructionView(self)
        self._centre = QStackedWidget(self)
        # The graph with the breadcrumb of the group levels above it (hidden at the material's level).
        self.breadcrumb = Breadcrumb(self)
        self.graph_page = QWidget(self)
        graph_layout = QVBoxLayout(self.graph_page)
        graph_layout.setContentsMargins(0, 0, 0, 0)
        graph_layout.setSpacing(0)
        graph_layout.addWidget(self.breadcrumb)
        graph_layout.addWidget(self.graph.widget, 1)
        self._centre.addWidget(self.graph_page)
        self._centre.addWidget(self.instruction_view)
        self.setCentralWidget(self._centre)
        self._build_panels(preview_gl)
        self.files = FileCommands(self)
        self.exports = ExportCommands(self)
        self.node_pin = NodePin(self)  # the presenter asks it first what the preview shows
        self.presenter = SessionPresenter(self)  # subscribes first: the panels are current when ours run
        self.thumbnails = NodeThumbnails(self)
        self._build_actions()
        self._build_menus()
        self._connect()
        self.statusBar().showMessage("Ready")

        self.lowering = LoweringScheduler(self.session, lambda: (self.preview.target,), self)
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
        self.node_palette = NodePalette(catalog.categories(), self.graph_editor.registry.view_type, self)
        self.palette_dock = self._dock("Nodes", self.node_palette, left, "paletteDock")
        self.preview = create_preview_widget(self, preview_gl)
        self.preview.setMinimumSize(280, 260)
        self.preview_panel = PreviewPanel(self.preview, self, self.settings)  # the stage toolbar above the preview
        self.preview_dock = self._dock("Preview", self.preview_panel, right, "previewDock")
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
        self.preview_context_label.setText(f"Preview: {self.preview.context_description}")

    def _connect(self) -> None:
        """Signals of the widgets to the session, events of the session to the widgets."""
        self.graph_editor.edited.connect(self._on_graph_edited)
        self.graph_editor.connectionRefused.connect(
            lambda reason: self.statusBar().showMessage(f"Connection refused: {reason}", 8000))
        self.graph.scene().selectionChanged.connect(self._refresh_properties)
        self.graph.scene().selectionChanged.connect(self._highlight_selected_code)
        self.code_view.nodeActivated.connect(self.select_node)
        self.node_palette.nodeRequested.connect(self.add_node_from_palette)
        self.preview.contextCreated.connect(lambda text: self.preview_context_label.setText(f"Preview: {text}"))
        panel, editor = self.parameters_panel, self.graph_editor
        editor.texture_reference = self.session.texture_reference
        self.session.graph_rewritten.connect(editor.take_rewritten)
        panel.parameterChanged.connect(self.set_parameter_value)
        panel.textureChanged.connect(self.set_parameter_value)
        panel.variantActivated.connect(editor.activate_variant)
        panel.variantAddRequested.connect(self.add_variant)
        panel.variantRemoveRequested.connect(editor.remove_variant)
        panel.variantRenameRequested.connect(self.rename_variant)
        panel.parameterResetRequested.connect(editor.reset_variant_value)
        self.properties_panel.propertyEdited.connect(
            lambda node_id, name, value: self.set_node_property(node_id, name, value, self.properties_panel.continuing))
        self.diagnostics_panel.nodeActivated.connect(self.select_node)
        self.graph_editor.levelChanged.connect(self.breadcrumb.set_path)
        self.breadcrumb.levelRequested.connect(self.graph_editor.exit_group)
        self.session.document_changed.connect(self._on_document_changed)
        self.session.lowered.connect(self._on_lowered)
        self.session.modified_changed.connect(lambda _modified: self._update_title())
        self.session.saved.connect(lambda _path: self.list_library_functions())  # the project folder may differ

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
        files = self.files
        self.new_action = self._action("&New", files.new_document, standard.New, "Start an empty material")
        self.open_action = self._action("&Open…", files.open_dialog, standard.Open, "Open a .vpl file")
        self.save_action = self._action("&Save", files.save, standard.Save, "Save the material")
        self.save_as_action = self._action("Save &As…", files.save_as, standard.SaveAs, "Save under a new name")
        self.export_action = self._action("&Export GLSL…", files.export_dialog, "Ctrl+E",
                                          "Write .vert.glsl, .frag.glsl and .json as `vpl compile` does")
        self.copy_textures_action = QAction("Export Copies &Textures", self, checkable=True)
        exports = self.exports
        self.bake_action = self._action("&Bake Textures…", exports.bake_dialog, None,
                                        "Bake the output's channels into textures on a mesh's UVs (docs/interchange.md)")
        self.export_gltf_action = self._action("Export g&lTF…", exports.export_gltf_dialog, None,
                                               "Write the mesh and the baked material as glTF 2.0 (.glb or .gltf)")
        self.export_mtlx_action = self._action("Export &MaterialX…", exports.export_mtlx_dialog, None,
                                               "Write a MaterialX 1.39 document (gltf_pbr); nodes without a counterpart are baked")
        self.import_mtlx_action = self._action("&Import MaterialX…", exports.import_mtlx_dialog, None,
                                               "Open a MaterialX document's gltf_pbr material as a new graph (the mapped nodes)")
        # The stage is the user's (QSettings) unless the document carries its own (docs/file-format.md).
        self.save_stage_action = QAction("Save &Stage with Material", self, checkable=True)
        self.save_stage_action.setStatusTip("Save the preview's mesh, environment, light, exposure, tone mapper and "
                                            "background in the document, and show them whenever it is opened")
        self.save_stage_action.toggled.connect(self._save_stage_toggled)
        self.preview_panel.toolbar.stageChanged.connect(self._stage_changed)
        self._showing_document_stage = False
        self.quit_action = self._action("&Quit", self.close, standard.Quit)
        self.about_action = self._action("&About VPL Material Editor", self.show_about, None,
                                         "Version, Qt and the OpenGL renderer the preview got")
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)

        stack = self.graph.undo_stack()
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts(standard.Undo)
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts(redo_keys())
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
        # Node groups, with Blender's keys: Ctrl+G groups, Ctrl+Alt+G ungroups, Tab enters the selected
        # group (otherwise it searches nodes), Ctrl+Tab goes back up.
        self.group_action = self._action("&Group", self.group_selection, "Ctrl+G",
                                         "Make the selected nodes one group node (a VPL function)", graph_only=True)
        self.ungroup_action = self._action("U&ngroup", self.ungroup_selection, "Ctrl+Alt+G",
                                           "Put the selected group nodes' nodes back in their place", graph_only=True)
        self.enter_group_action = self._action("&Edit Group", self.enter_group, None,
                                               "Show the selected group's nodes (Tab)", graph_only=True)
        self.exit_group_action = self._action("&Leave Group", self.exit_group, "Ctrl+Tab",
                                              "Back to the level around this group", graph_only=True)
        self.group_interface_action = self._action("Group &Interface…", self.edit_group_interface, None,
                                                   "Rename the group, its inputs and outputs; reorder them; "
                                                   "set the inputs' defaults")
        self.save_group_action = self._action("Save Group to My &Library", self.save_group_to_library, None,
                                              "Save the selected group as a .vplf function in your library")
        self.save_group_project_action = self._action(
            "Save Group to &Project Library", lambda: self.save_group_to_library(project=True), None,
            "Save the selected group as a .vplf function in the functions/ folder beside this material")
        editor.adopt_context_menu([self.undo_action, self.redo_action, None, self.cut_action, self.copy_action,
                                   self.paste_action, self.duplicate_action, self.delete_action, None,
                                   self.select_all_action, self.frame_action, self.search_action, None,
                                   self.group_action, self.ungroup_action, self.enter_group_action,
                                   self.exit_group_action])
        self.reset_camera_action = self._action("Reset Preview Camera", self.preview.reset_camera)
        self.play_action = QAction("Animate Preview", self)
        self.play_action.setCheckable(True)
        self.play_action.triggered.connect(self.preview.set_playing)  # the user's choice; the preview reports the rest
        self.preview.playingChanged.connect(self.play_action.setChecked)
        # The minimap in the graph's corner (app.graph.overview), shown while the graph does not fit.
        self.overview = GraphOverview(self.graph.typed_viewer, self.graph.all_nodes)
        self.overview_action = overview_action(self.overview, self.settings, self)
        self.cost_action = QAction("Node &Cost", self, checkable=True)
        self.cost_action.setStatusTip("Show each node's VPL instructions and texture samples in its footer")
        self.cost_action.setChecked(self.settings.value(COST_SETTING, False, type=bool))
        self.cost_action.toggled.connect(self.set_costs_visible)
        self.graph_editor.set_costs_visible(self.cost_action.isChecked())
        self.thumbnails_action = QAction("Node &Previews", self, checkable=True)
        self.thumbnails_action.setStatusTip("Show a live thumbnail of each node's output (right-click a node for its own)")
        self.thumbnails_action.setChecked(self.settings.value(THUMBNAILS_SETTING, True, type=bool))
        self.thumbnails_action.toggled.connect(self.thumbnails.set_enabled)
        self.graph.viewer().node_menu_handler = lambda view_id, position: show_node_menu(self, view_id, position)

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
        self.examples_menu.setToolTipsVisible(True)
        for name in example_names():
            action = self.examples_menu.addAction(name)
            action.setToolTip(example_description(name))
            action.setStatusTip(example_description(name))
            action.triggered.connect(lambda _checked=False, example=name: self.files.open_example_interactive(example))
        fill(bar.addMenu("&File"), [self.new_action, self.open_action, self.recent_menu, self.examples_menu, None,
                                    self.save_action, self.save_as_action, self.export_action,
                                    self.copy_textures_action, self.save_stage_action, None, self.bake_action, self.export_gltf_action,
                                    self.export_mtlx_action, self.import_mtlx_action, None, self.quit_action])
        self.recent = RecentFiles(self.settings, self.recent_menu, self.open_file)
        fill(bar.addMenu("&Edit"), [self.undo_action, self.redo_action, None, self.cut_action, self.copy_action,
                                    self.paste_action, self.duplicate_action, self.delete_action, None,
                                    self.select_all_action, None, self.group_action, self.ungroup_action,
                                    self.enter_group_action, self.exit_group_action, self.group_interface_action,
                                    self.save_group_action,
                                    self.save_group_project_action])
        docks = (self.palette_dock, self.preview_dock, self.properties_dock, self.parameters_dock,
                 self.diagnostics_dock, self.code_dock)
        fill(bar.addMenu("&View"), [self.frame_action, self.search_action, self.overview_action, None,
                                    self.thumbnails_action, self.cost_action, self.node_pin.unpin_action, None,
                                    self.reset_camera_action, self.play_action, None,
                                    *(dock.toggleViewAction() for dock in docks)])
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
                       self.duplicate_action, self.delete_action, self.select_all_action, self.search_action,
                       self.group_action, self.ungroup_action, self.enter_group_action, self.exit_group_action,
                       self.save_stage_action):
            action.setEnabled(editable)
        self.node_palette.setEnabled(editable)
        self.undo_action.setEnabled(editable and self.graph.undo_stack().canUndo())
        self.redo_action.setEnabled(editable and self.graph.undo_stack().canRedo())
        self.export_action.setEnabled(self.current_artifact is not None)
        for action in (self.bake_action, self.export_gltf_action, self.export_mtlx_action):
            action.setEnabled(editable)  # a graph material (a module has no output node to bake)
        self._mode_label.setText("read-only instruction view" if self.read_only else "")

    # ------------------------------------------------------------------ graph edits

    def _on_graph_edited(self) -> None:
        if self.read_only:
            return
        self._list_groups()
        self.session.update_graph(self.graph_editor.material)
        self._update_title()
        self._update_actions()
        self._refresh_properties()
        self.lowering.request(self.graph_editor.edit_continuing)

    def add_node_from_palette(self, type_name: str, position: tuple[float, float] | None = None) -> MaterialNode | None:
        """What the palette's double-click does: add the node at the view centre (or `position`)."""
        if self.read_only:
            return None
        if type_name.startswith(FUNCTION_PREFIX):
            entry = self.library_entries.get(type_name[len(FUNCTION_PREFIX):])
            refusal = self.graph_editor.use_library_function(entry, position) if entry is not None else \
                "it is no longer in the library"
            if refusal:
                self.statusBar().showMessage(f"Cannot add the function: {refusal}", 8000)
                return None
            selected = self.graph_editor.selected_material_nodes()
            return selected[0] if selected else None
        if type_name.startswith(GROUP_PREFIX):
            added = self.graph_editor.add_group_instance(type_name[len(GROUP_PREFIX):], position)
            if isinstance(added, str):
                self.statusBar().showMessage(f"Cannot add the group: {added}", 8000)
                return None
            node = added
        else:
            node = self.graph_editor.add_node(type_name, position)
        self.statusBar().showMessage(f"Added {node.name()}", 3000)
        return node

    def connect_nodes(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        """Programmatic connect, through the same type check as dragging."""
        return self.graph_editor.connect_nodes(source_id, source_port, target_id, target_port)

    def set_node_property(self, node_id: str, name: str, value: object, continuing: bool = False) -> None:
        if not self.read_only:
            self.graph_editor.set_node_property(node_id, name, value, continuing)

    def set_parameter_value(self, name: str, value: ParameterValue) -> None:
        """The panel's edit: shown at once; in a graph document also an undoable edit of the material."""
        if isinstance(value, str) and not self.read_only:
            value = self.session.texture_reference(value)
        self.session.parameters.set_value(name, value)
        if not self.read_only:
            self.graph_editor.set_parameter_value(name, value, self.parameters_panel.continuing)

    def add_variant(self) -> str | None:
        """Ask for a name and add a variant with it (made the active one)."""
        taken = set(self.session.parameters.variants.names)
        suggestion = next(f"variant {number}" for number in range(1, len(taken) + 2) if f"variant {number}" not in taken)
        answer = self.prompts.ask_text(self, "New variant", "Name of the new set of values:", suggestion)
        if answer is None:
            return None
        try:
            name = checked_variant_name(answer, taken)
        except VariantNameError as refusal:
            self.statusBar().showMessage(f"No variant added: {refusal}", 8000)
            return None
        self.graph_editor.add_variant(name)
        return name

    def rename_variant(self, old: str) -> str | None:
        """Ask for a new name for variant `old` and rename it (one undo step); None when refused or cancelled."""
        answer = self.prompts.ask_text(self, "Rename variant", f"New name for \u201c{old}\u201d:", old)
        if answer is None:
            return None
        try:
            return self.graph_editor.rename_variant(old, answer)
        except VariantNameError as refusal:
            self.statusBar().showMessage(f"Variant not renamed: {refusal}", 8000)
            return None

    def select_node(self, node_id: str) -> None:
        """Select one node and bring it into view (the diagnostics list does this)."""
        if self.graph_editor.select_node(node_id):
            self._refresh_properties()

    def frame_all(self) -> None:
        self.graph_editor.frame_all()

    def set_costs_visible(self, visible: bool) -> None:
        """View > Node Cost: the footer with each node's instructions and texture samples (remembered)."""
        self.settings.setValue(COST_SETTING, visible)
        if self.cost_action.isChecked() != visible:
            self.cost_action.setChecked(visible)
        self.graph_editor.set_costs_visible(visible)

    def _highlight_selected_code(self) -> None:
        nodes = [] if self.read_only else self.graph_editor.selected_material_nodes()
        self.code_view.highlight_nodes([node.stable_id for node in nodes])

    def open_tab_search(self) -> None:
        """Tab: into the selected group node, else the node search."""
        if not self.read_only and not self.graph_editor.enter_group():
            self.graph_editor.open_tab_search()

    def _list_groups(self) -> None:
        """The palette's "Group" entry: the material's node group definitions."""
        functions = self.graph_editor.material.functions
        self.node_palette.set_groups([(function_id, functions[function_id].name, functions[function_id].description)
                                 for function_id in sorted(functions, key=lambda key: functions[key].name.lower())])

    def list_library_functions(self) -> None:
        """The palette's "Functions" entry: the user's and the project's function library."""
        entries, problems = list_library(library_folders(self.session.path))
        self.library_entries = {f"{entry.folder}/{entry.path.name}": entry for entry in entries}
        self.node_palette.set_functions([(key, f"{entry.name} ({entry.folder})", entry.definition.description)
                                    for key, entry in self.library_entries.items()])
        if problems:
            self.statusBar().showMessage("Function library: " + "; ".join(problems), 8000)

    def offer_library_updates(self) -> bool:
        """When library copies of functions the material uses changed, offer to take them; True if taken."""
        if self.read_only:
            return False
        changed = outdated(self.graph_editor.material, self.library_entries.values())
        if not changed:
            return False
        if not self.prompts.ask_update_functions(self, [entry.name for _, entry in changed]):
            return False
        self.graph_editor.update_library_functions(changed)
        return True

    def save_group_to_library(self, project: bool = False) -> Path | None:
        """Save the selected group as a function file in the user's (or the project's) library."""
        if self.read_only:
            return None
        folders = library_folders(self.session.path)
        kind = PROJECT if project else USER
        if kind not in folders:
            self.statusBar().showMessage("Save the material first: the project library is beside it", 8000)
            return None
        saved = self.graph_editor.save_group_to_library(folders[kind], kind)
        if isinstance(saved, str):
            self.statusBar().showMessage(f"Cannot save the group: {saved}", 8000)
            return None
        self.list_library_functions()
        self.statusBar().showMessage(f"Saved {saved}", 5000)
        return saved

    def edit_group_interface(self) -> GroupInterfaceDialog | None:
        """Edit > Group Interface…: the dialog (window-modal, not blocking) for the selected or shown group."""
        function_id = None if self.read_only else self.graph_editor.interface_target()
        if function_id is None:
            self.statusBar().showMessage("Select a group node (or Tab into a group) to edit its interface", 8000)
            return None
        dialog = GroupInterfaceDialog(self.graph_editor.material.functions[function_id], self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def apply() -> None:
            refusal = self.graph_editor.set_group_interface(function_id, *dialog.interface())
            if refusal:
                self.statusBar().showMessage(f"Cannot change the interface: {refusal}", 8000)

        dialog.accepted.connect(apply)
        dialog.open()
        return dialog

    def group_selection(self) -> None:
        if self.read_only:
            return
        refusal = self.graph_editor.group_selection()
        if refusal:
            self.statusBar().showMessage(f"Cannot group: {refusal}", 8000)

    def ungroup_selection(self) -> None:
        if self.read_only:
            return
        refusal = self.graph_editor.ungroup_selection()
        if refusal:
            self.statusBar().showMessage(f"Cannot ungroup: {refusal}", 8000)

    def enter_group(self) -> None:
        if not self.read_only and not self.graph_editor.enter_group():
            self.statusBar().showMessage("Select one group node to edit its nodes", 8000)

    def exit_group(self) -> None:
        if not self.read_only:
            self.graph_editor.exit_group()

    def _refresh_properties(self) -> None:
        selected = [] if self.read_only else self.graph_editor.selected_material_nodes()
        if len(selected) != 1:
            self.properties_panel.show_nothing("Read-only document: no node properties." if self.read_only else
                                               f"{len(selected)} nodes selected." if selected else
                                               "Select one node to edit its properties.")
            return
        node = selected[0]
        material_node = self.graph_editor.level_material().nodes.get(node.stable_id)
        connected = [port.name() for port in node.input_ports() if port.connected_ports()]
        self.properties_panel.show_node(node.stable_id, node.CATALOG_TYPE,
                                        material_node.properties if material_node is not None else {}, connected)

    # ------------------------------------------------------------------ lowering and documents

    def relower_now(self) -> None:
        """Lower the current graph now if it changed; the `lowered` event updates the panels."""
        self.lowering.flush()

    def flush(self) -> None:
        """Apply any pending lowering now (tests and screenshots use it instead of waiting)."""
        self.relower_now()

    def _on_lowered(self, _result: LoweringResult) -> None:
        self._update_actions()
        self.lowered.emit()

    def _on_document_changed(self, _document: Document) -> None:
        self._update_title()
        self._update_actions()
        self._refresh_properties()

    def show_centre(self, widget: QWidget) -> None:
        """The graph (an editable document) or the instruction view (a read-only one)."""
        self._centre.setCurrentWidget(self.graph_page if widget is self.graph.widget else widget)

    def load_graph(self, graph: MaterialGraph, name: str = "untitled", path: Path | None = None,
                   modified: bool = False, origin: Path | None = None) -> list[str]:
        """Replace the document with `graph` (no questions asked); returns what the view could not show."""
        self.graph_editor.editable = True
        problems = self.graph_editor.load(graph)
        self._list_groups()
        # A graph the view could not show completely differs from its file: saving would change it.
        self.session.open_graph(self.graph_editor.material, path, name, modified or bool(problems), origin)
        self._show_document_stage(graph.stage)
        self.list_library_functions()
        self.offer_library_updates()
        self.relower_now()
        self.frame_all()
        self.documentOpened.emit()
        return problems

    # The stage saved with the document (MaterialGraph.stage; the toolbar's stage otherwise stays the user's).

    def _document_stage(self) -> dict[str, object]:
        """The toolbar's stage as the document stores it (mesh and environment files relative to its folder)."""
        return stored_stage(self.preview_panel.toolbar.stage.to_dict(), self.session.document.directory)

    def _save_stage_toggled(self, checked: bool) -> None:
        if not self.read_only:
            self.graph_editor.set_saved_stage(self._document_stage() if checked else None)

    def _stage_changed(self, _stage: Stage) -> None:
        if self.save_stage_action.isChecked() and not self.read_only and not self._showing_document_stage:
            self.graph_editor.set_saved_stage(self._document_stage())

    def _show_document_stage(self, saved: dict[str, object] | None) -> None:
        """A document was opened: show its stage if it has one (the toggle says whether it does)."""
        self.save_stage_action.blockSignals(True)
        self.save_stage_action.setChecked(saved is not None)
        self.save_stage_action.blockSignals(False)
        if saved is None:
            return
        self._showing_document_stage = True
        try:
            self.preview_panel.toolbar.set_stage(Stage.from_dict(resolved_stage(saved, self.session.document.directory)))
        finally:
            self._showing_document_stage = False

    # The File menu (app.ui.file_commands); public for main.py, the file-open relay and tests.

    def load_example(self, name: str = DEFAULT_EXAMPLE) -> bool:
        return self.files.load_example(name)

    def open_file(self, path: str | os.PathLike[str], ask_to_save: bool = True) -> bool:
        return self.files.open_file(path, ask_to_save)

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        return self.files.save_to(path)

    def export_to(self, out_dir: str | os.PathLike[str], stem: str | None = None, copy_textures: bool | None = None) -> bool:
        return self.files.export_to(out_dir, stem, copy_textures)

    def autosave_now(self) -> Path | None:
        return self.files.autosave_now()

    def check_recovery(self) -> bool:
        return self.files.check_recovery()

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
        self.resizeDocks([self.palette_dock], [max(self.node_palette.preferred_width(), width // 8)], horizontal)
        self.resizeDocks([self.preview_dock], [max(320, width // 4)], horizontal)
        self.resizeDocks([self.preview_dock, self.parameters_dock, self.properties_dock],
                         [max(300, height * 2 // 5), height // 4, height // 3], vertical)
        self.resizeDocks([self.diagnostics_dock], [max(180, height // 4)], vertical)
        self.resizeDocks([self.diagnostics_dock, self.code_dock], [width * 3 // 10, width * 7 // 10], horizontal)

    def grab_window(self) -> QPixmap:
        """The window as the user sees it: `QWidget.grab` misses what the preview paints over its GL
        image (the error overlay), so the preview's shown frame is drawn over its place."""
        image = self.grab()
        preview = self.preview
        frame = preview.grab_shown_frame() if preview.isVisible() else None
        if frame is not None and not frame.isNull():
            painter = QPainter(image)
            painter.drawImage(QRect(preview.mapTo(self, preview.rect().topLeft()), preview.size()), frame)
            painter.end()
        return image

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self.files.maybe_save():
            event.ignore()
            return
        self.lowering.close()
        self._autosave_timer.stop()
        self.session.close()
        self.preview.set_playing(False)
        self.thumbnails.shutdown()
        event.accept()
