"""Adding, connecting, selecting and editing nodes: the window's side of the palette and the properties panel.

The palette's double-click adds a catalog node, a group of this material or
a function from the library (`add_node_from_palette`); the properties panel
shows the one selected node (`refresh_properties`) and edits it
(`set_node_property`); the diagnostics list and the code view select a node
(`select_node`); Tab enters the selected group node, else opens the node
search. Refusals go to the status bar; a read-only document edits nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.ui.palette import FUNCTION_PREFIX, GROUP_PREFIX
from app.ui.window_layout import fit_dock

if TYPE_CHECKING:
    from app.graph.nodes import MaterialNode
    from app.ui.main_window import MainWindow


class NodeCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.session = window.session
        self.editor = window.graph_editor

    def _status(self, message: str, timeout_ms: int = 8000) -> None:
        self.window.statusBar().showMessage(message, timeout_ms)

    def add_node_from_palette(self, type_name: str, position: tuple[float, float] | None = None) -> MaterialNode | None:
        """What the palette's double-click does: add the node at the view centre (or `position`)."""
        if self.session.read_only:
            return None
        if type_name.startswith(FUNCTION_PREFIX):
            entry = self.window.groups.library_entries.get(type_name[len(FUNCTION_PREFIX):])
            refusal = self.editor.groups.use_library_function(entry, position) if entry is not None else \
                "it is no longer in the library"
            if refusal:
                self._status(f"Cannot add the function: {refusal}")
                return None
            selected = self.editor.selected_material_nodes()
            return selected[0] if selected else None
        if type_name.startswith(GROUP_PREFIX):
            added = self.editor.groups.add_group_instance(type_name[len(GROUP_PREFIX):], position)
            if isinstance(added, str):
                self._status(f"Cannot add the group: {added}")
                return None
            node = added
        else:
            node = self.editor.add_node(type_name, position)
        self._status(f"Added {node.name()}", 3000)
        return node

    def connect_nodes(self, source_id: str, source_port: str, target_id: str, target_port: str) -> tuple[bool, str]:
        """Programmatic connect, through the same type check as dragging."""
        return self.editor.connect_nodes(source_id, source_port, target_id, target_port)

    def set_node_property(self, node_id: str, name: str, value: object, continuing: bool = False) -> None:
        if not self.session.read_only:
            self.editor.set_node_property(node_id, name, value, continuing)

    def select_node(self, node_id: str) -> None:
        """Select one node and bring it into view (the diagnostics list does this)."""
        if self.editor.select_node(node_id):
            self.refresh_properties()

    def open_tab_search(self) -> None:
        """Tab: into the selected group node, else the node search."""
        if not self.session.read_only and not self.editor.groups.enter_group():
            self.editor.open_tab_search()

    def refresh_properties(self) -> None:
        """The properties panel shows the one selected node (or says why it shows none)."""
        read_only, panel = self.session.read_only, self.window.properties_panel
        selected = [] if read_only else self.editor.selected_material_nodes()
        if len(selected) != 1:
            panel.show_nothing("Read-only document: no node properties." if read_only else
                               f"{len(selected)} nodes selected." if selected else
                               "Select one node to edit its properties.")
            return
        node = selected[0]
        material_node = self.editor.level_material().nodes.get(node.stable_id)
        connected = [port.name() for port in node.input_ports() if port.connected_ports()]
        panel.show_node(node.stable_id, node.CATALOG_TYPE,
                        material_node.properties if material_node is not None else {}, connected)
        fit_dock(self.window, self.window.properties_dock)
