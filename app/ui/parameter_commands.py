"""The material parameters panel's edits: a parameter's value, and adding or renaming a variant.

A value is shown at once (the session's `ParameterModel`); in a graph
document it is also an undoable edit of the material. A variant is a named
set of values; its name is asked for (`Prompts.ask_text`) and checked
(`checked_variant_name`), a refusal goes to the status bar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.session.variants import VariantNameError, checked_variant_name

if TYPE_CHECKING:
    from app.material.parameters import ParameterValue
    from app.ui.main_window import MainWindow


class ParameterCommands:
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.session = window.session
        self.editor = editor = window.graph_editor
        panel = window.parameters_panel  # the Material parameters dock: values, textures and variants
        panel.parameterChanged.connect(self.set_parameter_value)
        panel.textureChanged.connect(self.set_parameter_value)
        panel.variantActivated.connect(editor.model.values.activate_variant)
        panel.variantAddRequested.connect(self.add_variant)
        panel.variantRemoveRequested.connect(editor.model.values.remove_variant)
        panel.variantRenameRequested.connect(self.rename_variant)
        panel.parameterResetRequested.connect(editor.model.values.reset_variant_value)

    def set_parameter_value(self, name: str, value: ParameterValue) -> None:
        """The panel's edit: shown at once; in a graph document also an undoable edit of the material."""
        read_only = self.session.read_only
        if isinstance(value, str) and not read_only:
            value = self.session.textures.reference(value)
        self.session.parameters.set_value(name, value)
        if not read_only:
            self.editor.set_parameter_value(name, value, self.window.parameters_panel.continuing)

    def add_variant(self) -> str | None:
        """Ask for a name and add a variant with it (made the active one)."""
        taken = set(self.session.parameters.variants.names)
        suggestion = next(f"variant {number}" for number in range(1, len(taken) + 2) if f"variant {number}" not in taken)
        answer = self.window.prompts.ask_text(self.window, "New variant", "Name of the new set of values:", suggestion)
        if answer is None:
            return None
        try:
            name = checked_variant_name(answer, taken)
        except VariantNameError as refusal:
            self.window.statusBar().showMessage(f"No variant added: {refusal}", 8000)
            return None
        self.editor.model.values.add_variant(name)
        return name

    def rename_variant(self, old: str) -> str | None:
        """Ask for a new name for variant `old` and rename it (one undo step); None when refused or cancelled."""
        answer = self.window.prompts.ask_text(self.window, "Rename variant", f"New name for \u201c{old}\u201d:", old)
        if answer is None:
            return None
        try:
            return self.editor.model.values.rename_variant(old, answer)
        except VariantNameError as refusal:
            self.window.statusBar().showMessage(f"Variant not renamed: {refusal}", 8000)
            return None
