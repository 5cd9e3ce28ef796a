"""`GroupEditing`: node groups and the function library, as edits of the document model.

Group (Ctrl+G), Ungroup, entering a group's body (Tab) and leaving it, a
group's interface and the library functions are structural edits: the
material layer computes the new document (app/material/groups.py,
library.py) and the model records it as one undo step; the projection then
shows the level again. Each returns why it was refused, for the status bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.graph.nodes import MaterialNode
from app.material.graph import InterfacePort
from app.material.groups import GROUP_TYPE, GroupingError, recursion_problem
from app.material.library import LibraryError, LibraryFunction, import_function, save_function, update_function

if TYPE_CHECKING:
    from app.ui.graph_editor import GraphEditor


class GroupEditing:
    """See the module docstring."""

    def __init__(self, editor: GraphEditor) -> None:
        self.editor = editor
        self.model = editor.model

    def group_selection(self, name: str | None = None) -> str:
        """Group the selected nodes into a new group node (Ctrl+G); returns why not, or "" when done."""
        ids = self.editor.selected_ids()
        if not ids:
            return "select the nodes to group first"
        try:
            instance_id = self.model.group(ids, name)
        except GroupingError as refusal:
            return str(refusal)
        self.editor.select_node(instance_id)
        return ""

    def ungroup_selection(self) -> str:
        """Put the nodes of the selected group nodes back in their place; returns why not, or ""."""
        graph = self.model.level_graph()
        instances = [node_id for node_id in self.editor.selected_ids() if graph.nodes[node_id].type_name == GROUP_TYPE]
        if not instances:
            return "select a group node to ungroup"
        try:
            self.model.ungroup(instances)
        except GroupingError as refusal:
            return str(refusal)
        return ""

    def selected_group(self) -> str | None:
        """The definition id of the one selected group node, if exactly one node is selected and it is one."""
        ids = self.editor.selected_ids()
        return self.model.instance_function(ids[0]) if len(ids) == 1 else None

    def enter_group(self, function_id: str | None = None) -> bool:
        """Show the body of `function_id` (default: the selected group node's) for editing (Tab)."""
        function_id = function_id if function_id is not None else self.selected_group()
        return function_id is not None and self.model.enter_group(function_id)

    def exit_group(self, depth: int | None = None) -> bool:
        """Show the level `depth` groups deep (default: one level up; 0: the material)."""
        path = self.model.path
        if not path:
            return False
        target = len(path) - 1 if depth is None else max(0, min(depth, len(path) - 1))
        left = path[target]
        self.model.leave_group(target)
        # Select the group node just left, as Blender does (the view stays where this level was left).
        for node_id in self.model.level_graph().nodes:
            if self.model.instance_function(node_id) == left:
                self.editor.select_node(node_id, center=False)
                break
        return True

    def interface_target(self) -> str | None:
        """The group whose interface Edit > Group Interface… edits: the selected one, else the one shown."""
        return self.selected_group() or self.model.level

    def add_group_instance(self, function_id: str, position: tuple[float, float] | None = None) -> MaterialNode | str:
        """Add a node of the group `function_id` here (one undo step); the reason when it may not be."""
        definition = self.model.document.functions.get(function_id)
        if definition is None:
            return f"group '{function_id}' is not defined in this material"
        problem = recursion_problem(self.model.document.functions, function_id, self.model.level)
        if problem is not None:
            return problem
        place = self.editor.view_centre() if position is None else position
        with self.model.macro(f'Add group "{definition.name}"'):
            node = self.editor.projection.node(self.model.add_group_instance(function_id, place))
            assert node is not None, "the projection shows every node the model adds"
            if position is None:
                self.editor.graph.place_in_free_space(node, place)
        return node

    def set_group_interface(self, function_id: str, name: str, description: str, inputs: list[InterfacePort],
                            outputs: list[InterfacePort], renamed_inputs: dict[str, str],
                            renamed_outputs: dict[str, str]) -> str:
        """Rename, reorder, set defaults of a group's ports (one undo step); the reason when refused."""
        try:
            self.model.set_group_interface(function_id, name, description, inputs, outputs, renamed_inputs,
                                           renamed_outputs)
        except GroupingError as refusal:
            return str(refusal)
        return ""

    def use_library_function(self, entry: LibraryFunction, position: tuple[float, float] | None = None) -> str:
        """Embed a library function (once per material) and add a node of it here; the reason when refused."""
        document, function_id = import_function(self.model.document, entry)
        problem = recursion_problem(document.functions, function_id, self.model.level)
        if problem is not None:
            return problem
        with self.model.macro(f'Add function "{entry.name}"'):
            self.model.replace_document(document, f'Add function "{entry.name}"')
            instance_id = self.model.add_group_instance(function_id, position or self.editor.view_centre())
        self.editor.select_node(instance_id)
        return ""

    def save_group_to_library(self, directory: Path, folder: str) -> Path | str:
        """Save the selected group's definition as a function file; the file, or why not."""
        function_id = self.selected_group()
        if function_id is None:
            return "select one group node to save its group"
        try:
            path, document = save_function(self.model.document, function_id, directory, folder)
        except (OSError, LibraryError) as error:
            return str(error)
        self.model.replace_document(document, f'Link group "{document.functions[function_id].name}" to {path.name}')
        return path

    def update_library_functions(self, updates: Sequence[tuple[str, LibraryFunction]]) -> None:
        """Re-apply the library copies of these embedded functions (one undo step)."""
        if not updates:
            return
        document = self.model.document
        for function_id, entry in updates:
            document = update_function(document, function_id, entry)
        names = ", ".join(entry.name for _, entry in updates)
        self.model.replace_document(document, f"Update library functions ({names})")
