"""The editor's main window: docks, actions, and the wiring between the widgets and the session.

The state lives in a Qt-free `EditorSession` (`app.session`); the window
subscribes to its events, feeds edits in and asks the user questions
(through `self.prompts`, so tests inject the answers). An edit goes from
NodeGraphQt's undo stack through `GraphEditor.edited` (a fresh snapshot) to
the session, and the `LoweringScheduler` lowers it on a worker; the
session's `lowered` event updates the panels and the preview (reached only
through `app.preview.host.PreviewHost`). docs/editor.md describes the flow.
The features are command objects in their own modules (app.ui.*_commands),
the menu bar is app.ui.menus.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QStackedWidget, QVBoxLayout, QWidget

from app.material import catalog
from app.material.examples import DEFAULT_EXAMPLE
from app.material.graph import MaterialGraph
from app.material.lowering import LoweringResult
from app.preview.parameters_panel import ParametersPanel
from app.preview.stage_toolbar import PreviewPanel
from app.preview.widget import create_preview_widget
from app.session import EditorSession, ModuleDocument
from app.session.documents import Document
from app.ui.about import AboutDialog, about_facts
from app.ui.breadcrumb import Breadcrumb
from app.ui.code_view import CodeView
from app.ui.diagnostics_panel import DiagnosticsPanel
from app.ui.dialogs import Prompts
from app.ui.edit_commands import EditCommands
from app.ui.edit_gesture import EditGesture
from app.ui.export_commands import ExportCommands
from app.ui.file_commands import FileCommands
from app.ui.graph_editor import GraphEditor
from app.ui.group_commands import GroupCommands
from app.ui.icons import application_icon
from app.ui.inspection_commands import InspectionCommands
from app.ui.instruction_view import InstructionView
from app.ui.lowering_scheduler import LIVE_SETTLE_MS, LoweringScheduler
from app.ui.menus import build_menu_bar
from app.ui.node_commands import NodeCommands
from app.ui.node_thumbnails import NodePin, NodeThumbnails
from app.ui.palette import NodePalette
from app.ui.parameter_commands import ParameterCommands
from app.ui.presenter import SessionPresenter
from app.ui.properties_panel import PropertiesPanel
from app.ui.recovery import AUTOSAVE_INTERVAL_MS, RecoveryStore
from app.ui.stage_commands import StageCommands
from app.ui.texture_view import TextureView
from app.ui.texture_watcher import TextureWatcher
from app.ui.turntable_commands import TurntableCommands
from app.ui.window_layout import size_docks
from vpl_core.collector import loading as paused_while_loading

APP_TITLE = "VPL Material Editor"


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
        #: Reads a texture again when it is repainted on disk, reports it when it is deleted.
        self.texture_watcher = TextureWatcher(self.session, self)
        self.setObjectName("mainWindow")
        self.resize(1500, 920)
        self.setWindowIcon(application_icon())

        self.graph_editor = GraphEditor(self)
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
        self.nodes: NodeCommands = NodeCommands(self)  # the palette, the properties panel, selecting nodes
        self.parameter_commands = ParameterCommands(self)  # parameter values and variants
        self.node_pin = NodePin(self)  # the presenter asks it first what the preview shows
        #: A slider drag in progress: only the preview follows its lowerings (app/ui/edit_gesture.py).
        self.gesture = EditGesture(self)
        self.presenter = SessionPresenter(self)  # subscribes first: the panels are current when ours run
        self.thumbnails: NodeThumbnails = NodeThumbnails(self)
        self.texture_view = TextureView(self)  # the Texture View dock, following the selection
        self._build_actions()
        self.recent_menu, self.examples_menu, self.recent = build_menu_bar(self)
        self._connect()
        self.statusBar().showMessage("Ready")

        self.lowering = LoweringScheduler(self.session, lambda: (self.preview.target,), self)
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setInterval(AUTOSAVE_INTERVAL_MS)
        self._autosave_timer.timeout.connect(self.autosave_now)
        self._autosave_timer.start()
        self._update_title()
        self._update_actions()

    # ------------------------------------------------------------------ construction

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
        # The side columns run the full height (the bottom docks sit under the graph only): the right
        # column stacks three panels, and on a 768-pixel screen it needs every row of it.
        self.setCorner(Qt.Corner.BottomLeftCorner, left)
        self.setCorner(Qt.Corner.BottomRightCorner, right)
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
        self.graph.scene().selectionChanged.connect(self.nodes.refresh_properties)
        self.graph.scene().selectionChanged.connect(self.inspection.highlight_selected_code)
        self.code_view.nodeActivated.connect(self.nodes.select_node)
        self.node_palette.nodeRequested.connect(self.nodes.add_node_from_palette)
        self.preview.contextCreated.connect(lambda text: self.preview_context_label.setText(f"Preview: {text}"))
        panel, editor = self.parameters_panel, self.graph_editor
        editor.texture_reference = self.session.textures.reference
        self.session.graph_rewritten.connect(editor.take_rewritten)
        self.properties_panel.propertyEdited.connect(
            lambda node_id, name, value: self.nodes.set_node_property(node_id, name, value, self.properties_panel.continuing))
        self.diagnostics_panel.nodeActivated.connect(self.nodes.select_node)
        self.properties_panel.gestureEnded.connect(self.gesture.end)
        # Values of unconnected inputs edited on the nodes: the same edits as the properties panel's.
        self.graph.input_value_edited.connect(self.nodes.set_node_property)
        self.graph.input_value_gesture_ended.connect(self.gesture.end)
        panel.gestureEnded.connect(self.gesture.end)
        self.gesture.ended.connect(self._after_gesture)
        self.gesture.ended.connect(self._lower_after_gesture)
        self.gesture.ended.connect(self.thumbnails.schedule)
        self.presenter.preview_settled.append(self.thumbnails.schedule)
        self.graph_editor.levelChanged.connect(self.breadcrumb.set_path)
        self.breadcrumb.levelRequested.connect(self.graph_editor.groups.exit_group)
        self.session.document_changed.connect(self._on_document_changed)
        self.session.lowered.connect(self._on_lowered)
        self.session.modified_changed.connect(lambda _modified: self._update_title())
        self.session.saved.connect(lambda _path: self.groups.list_library_functions())  # the project folder may differ

    def make_action(self, text: str, slot: Callable[[], object], shortcut: QKeySequence.StandardKey | str | None = None,
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
        self.new_action = self.make_action("&New", files.new_document, standard.New, "Start an empty material")
        self.open_action = self.make_action("&Open…", files.open_dialog, standard.Open, "Open a .vpl file")
        self.save_action = self.make_action("&Save", files.save, standard.Save, "Save the material")
        self.save_as_action = self.make_action("Save &As…", files.save_as, standard.SaveAs, "Save under a new name")
        self.export_action = self.make_action("&Export GLSL…", files.export_dialog, "Ctrl+E",
                                              "Write .vert.glsl, .frag.glsl and .json as `vpl compile` does")
        self.copy_textures_action = QAction("Export Copies &Textures", self, checkable=True)
        exports = self.exports
        self.bake_action = self.make_action("&Bake Textures…", exports.bake_dialog, None,
                                            "Bake the output's channels into textures on a mesh's UVs (docs/interchange.md)")
        self.export_gltf_action = self.make_action("Export g&lTF…", exports.export_gltf_dialog, None,
                                                   "Write the mesh and the baked material as glTF 2.0 (.glb or .gltf)")
        self.export_mtlx_action = self.make_action("Export &MaterialX…", exports.export_mtlx_dialog, None,
                                                   "Write a MaterialX 1.39 document (gltf_pbr); nodes without a counterpart are baked")
        self.import_mtlx_action = self.make_action("&Import MaterialX…", exports.import_mtlx_dialog, None,
                                                   "Open a MaterialX document's gltf_pbr material as a new graph (the mapped nodes)")
        self.quit_action = self.make_action("&Quit", self.close, standard.Quit)
        self.about_action = self.make_action("&About VPL Material Editor", self.show_about, None,
                                             "Version, Qt and the OpenGL renderer the preview got")
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)

        self.edit = EditCommands(self)  # undo, redo, the clipboard, delete, select all, frame, search
        self.groups = GroupCommands(self)  # node groups and the function library
        self.stage_commands = StageCommands(self)  # File > Save Stage with Material
        self.turntable_commands = TurntableCommands(self)  # File > Export Turntable...
        groups, edit = self.groups, self.edit
        self.graph_editor.adopt_context_menu([
            edit.undo_action, edit.redo_action, None, edit.cut_action, edit.copy_action, edit.paste_action,
            edit.duplicate_action, edit.delete_action, None, edit.select_all_action, edit.frame_action,
            edit.search_action, None, groups.group_action, groups.ungroup_action, groups.enter_group_action,
            groups.exit_group_action])
        self.reset_camera_action = self.make_action("Reset Preview Camera", self.preview.reset_camera)
        self.play_action = QAction("Animate Preview", self)
        self.play_action.setCheckable(True)
        self.play_action.triggered.connect(self.preview.set_playing)  # the user's choice; the preview reports the rest
        self.preview.playingChanged.connect(self.play_action.setChecked)
        self.inspection = InspectionCommands(self)  # View > Overview, Node Previews, Node Cost

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
        for action in (self.save_action, self.save_as_action, self.groups.group_action, self.groups.ungroup_action,
                       self.groups.enter_group_action, self.groups.exit_group_action,
                       self.stage_commands.save_stage_action):
            action.setEnabled(editable)
        self.edit.update_actions(editable)
        self.node_palette.setEnabled(editable)
        self.export_action.setEnabled(self.current_artifact is not None)
        for action in (self.bake_action, self.export_gltf_action, self.export_mtlx_action):
            action.setEnabled(editable)  # a graph material (a module has no output node to bake)
        self._mode_label.setText("read-only instruction view" if self.read_only else "")

    def _on_graph_edited(self) -> None:
        if self.read_only:
            return
        continuing = self.graph_editor.edit_continuing
        # The editor's snapshots are never changed in place: the session may keep this one (no copy per step).
        self.session.update_graph(self.graph_editor.material, owned=True)
        # Only values the preview's live program takes changed: its pixels are there already (docs/editor.md,
        # "Live values"); the lowering for the panels waits until the values stop changing.
        live = self.session.live_edit
        if continuing and self.gesture.active:
            # A later step of a drag: the title, actions, group list and the properties panel (whose
            # slider is what moves) are brought up to date when the gesture ends (`_after_gesture`).
            self.gesture.continue_edit()
            self.lowering.request(continuing, LIVE_SETTLE_MS if live else 0)
            return
        # After the session has the graph: a gesture's end then sees whether a lowering is still to come.
        if continuing:
            self.gesture.continue_edit()
        else:
            self.gesture.end()
        self._after_gesture()
        self.lowering.request(continuing, LIVE_SETTLE_MS if live else 0)

    def _after_gesture(self) -> None:
        """What every discrete edit updates (and a gesture once, at its end)."""
        if self.read_only:
            return
        self.groups.list_groups()
        self._update_title()
        self._update_actions()
        self.nodes.refresh_properties()

    def _lower_after_gesture(self) -> None:
        """A gesture ended: what a drag of live values did not lower (only the preview followed it) is lowered."""
        if not self.read_only and self.session.needs_lowering:
            self.lowering.request()

    def frame_all(self) -> None:
        self.graph_editor.frame_all()

    # ------------------------------------------------------------------ graph edits, lowering and documents

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
        self.nodes.refresh_properties()

    def show_centre(self, widget: QWidget) -> None:
        """The graph (an editable document) or the instruction view (a read-only one)."""
        self._centre.setCurrentWidget(self.graph_page if widget is self.graph.widget else widget)

    def load_graph(self, graph: MaterialGraph, name: str = "untitled", path: Path | None = None,
                   modified: bool = False, origin: Path | None = None) -> list[str]:
        """Replace the document with `graph` (no questions asked); returns what the view could not show."""
        with paused_while_loading():
            self.graph_editor.editable = True
            problems = self.graph_editor.load(graph)
            self.groups.list_groups()
            # A graph the view could not show completely differs from its file: saving would change it.
            self.session.open_graph(self.graph_editor.material, path, name, modified or bool(problems), origin)
            self.stage_commands.show_document_stage(graph.stage)
            self.groups.list_library_functions()
            self.groups.offer_library_updates()
            # Lowered on the worker like any edit, once the view has painted: the graph shows
            # at once; the diagnostics, the code and the preview follow (`flush()` waits for them).
            self.lowering.request_after_paint(self.graph.viewer().viewport())
        self.frame_all()
        self.documentOpened.emit()
        return problems

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
            size_docks(self)
            # Framing depends on the graph's final size, known after layout.
            QTimer.singleShot(0, self.frame_all)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self.files.maybe_save():
            event.ignore()
            return
        self.lowering.close()
        self.texture_watcher.close()
        self._autosave_timer.stop()
        self.session.close()
        self.preview.set_playing(False)
        self.thumbnails.shutdown()
        self.texture_view.shutdown()
        event.accept()
