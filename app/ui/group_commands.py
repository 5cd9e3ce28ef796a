"""Node groups and the function library: the window's side of grouping, entering groups and saving them.

Edit > Group, Ungroup, Edit Group, Leave Group, Group Interface… and Save
Group to My/Project Library, with Blender's keys: Ctrl+G groups, Ctrl+Alt+G
ungroups, Tab enters the selected group (otherwise it searches nodes),
Ctrl+Tab goes back up. The graph editor does the edits; this object asks,
refuses in the status bar and keeps the palette's "Group" and "Functions"
entries current (`list_groups`, `list_library_functions`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from app.material.library import PROJECT, USER, LibraryFunction, library_folders, list_library, outdated
from app.ui.group_interface import GroupInterfaceDialog

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class GroupCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.session = window.session
        self.editor = window.graph_editor
        #: The function library's entries by "folder/file" (listed under "Functions" in the palette).
        self.library_entries: dict[str, LibraryFunction] = {}
        action = window.make_action
        self.group_action = action("&Group", self.group_selection, "Ctrl+G",
                                   "Make the selected nodes one group node (a VPL function)", graph_only=True)
        self.ungroup_action = action("U&ngroup", self.ungroup_selection, "Ctrl+Alt+G",
                                     "Put the selected group nodes' nodes back in their place", graph_only=True)
        self.enter_group_action = action("&Edit Group", self.enter_group, None,
                                         "Show the selected group's nodes (Tab)", graph_only=True)
        self.exit_group_action = action("&Leave Group", self.exit_group, "Ctrl+Tab",
                                        "Back to the level around this group", graph_only=True)
        self.group_interface_action = action("Group &Interface…", self.edit_group_interface, None,
                                             "Rename the group, its inputs and outputs; reorder them; "
                                             "set the inputs' defaults")
        self.save_group_action = action("Save Group to My &Library", self.save_group_to_library, None,
                                        "Save the selected group as a .vplf function in your library")
        self.save_group_project_action = action(
            "Save Group to &Project Library", lambda: self.save_group_to_library(project=True), None,
            "Save the selected group as a .vplf function in the functions/ folder beside this material")

    def _refuse(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 8000)

    def list_groups(self) -> None:
        """The palette's "Group" entry: the material's node group definitions."""
        functions = self.editor.material.functions
        self.window.node_palette.set_groups([(function_id, functions[function_id].name, functions[function_id].description)
                                             for function_id in sorted(functions, key=lambda key: functions[key].name.lower())])

    def list_library_functions(self) -> None:
        """The palette's "Functions" entry: the user's and the project's function library."""
        entries, problems = list_library(library_folders(self.session.path))
        self.library_entries = {f"{entry.folder}/{entry.path.name}": entry for entry in entries}
        self.window.node_palette.set_functions([(key, f"{entry.name} ({entry.folder})", entry.definition.description)
                                                for key, entry in self.library_entries.items()])
        if problems:
            self._refuse("Function library: " + "; ".join(problems))

    def offer_library_updates(self) -> bool:
        """When library copies of functions the material uses changed, offer to take them; True if taken."""
        if self.session.read_only:
            return False
        changed = outdated(self.editor.material, self.library_entries.values())
        if not changed:
            return False
        if not self.window.prompts.ask_update_functions(self.window, [entry.name for _, entry in changed]):
            return False
        self.editor.groups.update_library_functions(changed)
        return True

    def save_group_to_library(self, project: bool = False) -> Path | None:
        """Save the selected group as a function file in the user's (or the project's) library."""
        if self.session.read_only:
            return None
        folders = library_folders(self.session.path)
        kind = PROJECT if project else USER
        if kind not in folders:
            self._refuse("Save the material first: the project library is beside it")
            return None
        saved = self.editor.groups.save_group_to_library(folders[kind], kind)
        if isinstance(saved, str):
            self._refuse(f"Cannot save the group: {saved}")
            return None
        self.list_library_functions()
        self.window.statusBar().showMessage(f"Saved {saved}", 5000)
        return saved

    def edit_group_interface(self) -> GroupInterfaceDialog | None:
        """Edit > Group Interface…: the dialog (window-modal, not blocking) for the selected or shown group."""
        function_id = None if self.session.read_only else self.editor.groups.interface_target()
        if function_id is None:
            self._refuse("Select a group node (or Tab into a group) to edit its interface")
            return None
        dialog = GroupInterfaceDialog(self.editor.material.functions[function_id], self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def apply() -> None:
            refusal = self.editor.groups.set_group_interface(function_id, *dialog.interface())
            if refusal:
                self._refuse(f"Cannot change the interface: {refusal}")

        dialog.accepted.connect(apply)
        dialog.open()
        return dialog

    def group_selection(self) -> None:
        if self.session.read_only:
            return
        refusal = self.editor.groups.group_selection()
        if refusal:
            self._refuse(f"Cannot group: {refusal}")

    def ungroup_selection(self) -> None:
        if self.session.read_only:
            return
        refusal = self.editor.groups.ungroup_selection()
        if refusal:
            self._refuse(f"Cannot ungroup: {refusal}")

    def enter_group(self) -> None:
        if not self.session.read_only and not self.editor.groups.enter_group():
            self._refuse("Select one group node to edit its nodes")

    def exit_group(self) -> None:
        if not self.session.read_only:
            self.editor.groups.exit_group()
