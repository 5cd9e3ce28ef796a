"""The View menu's inspection toggles: Overview, Node Previews, Node Cost, and the graph's links to the code.

Overview is the minimap in the graph's corner (app.graph.overview), shown
while the graph does not fit; Node Previews the live thumbnail of each
node's output (app.ui.node_thumbnails; right-click a node for its own menu);
Node Cost the footer with each node's VPL instructions and texture samples.
Each toggle is remembered in QSettings. Selecting nodes highlights the code
they produced in the code view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction

from app.graph.overview import GraphOverview, overview_action
from app.ui.node_thumbnails import THUMBNAILS_SETTING, show_node_menu

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

#: QSettings key of View > Node Cost.
COST_SETTING = "graph/show_cost"


class InspectionCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        settings, graph = window.settings, window.graph
        self.overview = GraphOverview(graph.typed_viewer, graph.all_nodes)
        self.overview_action = overview_action(self.overview, settings, window)
        self.cost_action = QAction("Node &Cost", window, checkable=True)
        self.cost_action.setStatusTip("Show each node's VPL instructions and texture samples in its footer")
        self.cost_action.setChecked(settings.value(COST_SETTING, False, type=bool))
        self.cost_action.toggled.connect(self.set_costs_visible)
        window.graph_editor.annotations.set_costs_visible(self.cost_action.isChecked())
        self.thumbnails_action = QAction("Node &Previews", window, checkable=True)
        self.thumbnails_action.setStatusTip("Show a live thumbnail of each node's output (right-click a node for its own)")
        self.thumbnails_action.setChecked(settings.value(THUMBNAILS_SETTING, True, type=bool))
        self.thumbnails_action.toggled.connect(window.thumbnails.set_enabled)
        graph.viewer().node_menu_handler = lambda view_id, position: show_node_menu(window, view_id, position)

    def set_costs_visible(self, visible: bool) -> None:
        """View > Node Cost: the footer with each node's instructions and texture samples (remembered)."""
        self.window.settings.setValue(COST_SETTING, visible)
        if self.cost_action.isChecked() != visible:
            self.cost_action.setChecked(visible)
        self.window.graph_editor.annotations.set_costs_visible(visible)

    def highlight_selected_code(self) -> None:
        """The code view marks the lines of the selected nodes."""
        window = self.window
        nodes = [] if window.read_only else window.graph_editor.selected_material_nodes()
        window.code_view.highlight_nodes([node.stable_id for node in nodes])
