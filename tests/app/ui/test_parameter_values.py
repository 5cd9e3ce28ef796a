"""Parameter values are part of the material (issue 16, item 1): undoable, marked modified, saved, kept.

Driven through the real window: the Material parameters panel's slider and
variant box, the Edit menu's actions, Save and reopen.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.material.document import load_text
from app.material.graph import MaterialGraph
from app.ui.dialogs import SaveChoice

SHININESS = "n4"   # the default example's float parameter "shininess" (1..256, default 48)
BASE_COLOR = "n1"


def _drag(slider, positions: list[int]) -> None:
    """A mouse drag of a slider as Qt reports it: pressed, moved through `positions`, released."""
    slider.setSliderDown(True)
    for position in positions:
        slider.setValue(position)
    slider.setSliderDown(False)


def test_dragging_a_parameter_is_one_undoable_edit_that_is_saved(window, prompts, tmp_path: Path, qtbot) -> None:
    target = tmp_path / "plastic.vpl"
    assert window.save_to(target)
    assert not window.isWindowModified() and not window.edit.undo_action.isEnabled()
    stack = window.graph_editor.model.stack
    steps = stack.count
    slider = window.parameters_panel.editor("shininess").slider
    _drag(slider, [100, 200, 300])
    value = window.session.parameters.value("shininess")
    assert abs(value - (1.0 + 255.0 * 0.3)) < 1e-6
    # One step for the whole drag, named for people; the document is modified.
    assert stack.count == steps + 1
    assert window.edit.undo_action.isEnabled() and window.edit.undo_action.text().replace("&", "") == 'Undo Change parameter "shininess"'
    assert window.isWindowModified() and window.is_modified
    assert window.material.nodes[SHININESS].properties["default"] == value
    # Saved: the file holds the new value; reopened, it is back.
    assert window.files.save()
    reopened = load_text(target.read_bytes(), str(target))
    assert reopened.graph is not None and reopened.graph.nodes[SHININESS].properties["default"] == value
    # Undo restores the old value in the panel and the preview's values at once.
    window.edit.undo_action.trigger()
    assert window.session.parameters.value("shininess") == 48.0
    assert window.parameters_panel.values()["shininess"] == 48.0
    assert window.is_modified  # differs from the file saved with the new value
    # Quitting asks.
    prompts.save_choice = SaveChoice.CANCEL
    assert not window.close()
    assert prompts.named("ask_save_changes")


def test_a_momentary_error_keeps_every_value(window, qtbot) -> None:
    slider = window.parameters_panel.editor("shininess").slider
    _drag(slider, [500, 600])
    tweaked = window.session.parameters.value("shininess")
    window.parameters_panel.parameterChanged.emit("base_color", (0.1, 0.8, 0.1, 1.0))
    window.flush()
    # Rename the parameter to a name that clashes, then back.
    window.nodes.set_node_property(SHININESS, "name", "base_color")
    window.flush()
    assert not window.result.ok
    window.nodes.set_node_property(SHININESS, "name", "shininess")
    window.flush()
    assert window.result.ok
    assert window.session.parameters.value("shininess") == tweaked
    assert window.session.parameters.value("base_color") == (0.1, 0.8, 0.1, 1.0)
    assert window.parameters_panel.values()["shininess"] == tweaked


def test_variants_are_saved_switchable_and_undoable(window, prompts, tmp_path: Path) -> None:
    panel = window.parameters_panel
    prompts.text_answers = ["rusty"]
    panel.add_variant_button.click()
    assert panel.variants.names == ("rusty",) and panel.variants.active == "rusty"
    assert window.edit.undo_action.text().replace("&", "") == 'Undo Add variant "rusty"'
    window.parameters_panel.parameterChanged.emit("base_color", (0.4, 0.2, 0.1, 1.0))
    window.flush()
    assert window.material.nodes[BASE_COLOR].properties["default"] == (0.75, 0.12, 0.1, 1.0)  # base untouched
    assert window.material.variant("rusty").values == {"base_color": (0.4, 0.2, 0.1, 1.0)}
    assert panel.variants.overridden == frozenset({"base_color"})
    # Switch back to the base values from the variant box (as the user picks it).
    panel.variant_box.activated.emit(0)
    assert window.session.parameters.value("base_color") == (0.75, 0.12, 0.1, 1.0)
    assert panel.values()["base_color"] == (0.75, 0.12, 0.1, 1.0)
    window.edit.undo_action.trigger()  # back on "rusty"
    assert panel.variants.active == "rusty" and window.session.parameters.value("base_color") == (0.4, 0.2, 0.1, 1.0)
    # Saved and reopened: the variants and the active one come back.
    target = tmp_path / "variants.vpl"
    assert window.save_to(target)
    assert "// format: vpl-material-graph 2" in target.read_text(encoding="utf-8")
    window.load_graph(MaterialGraph(), "other")
    assert window.open_file(target)
    window.flush()  # the parameters come with the lowering (on the worker)
    assert window.parameters_panel.variants.names == ("rusty",) and window.parameters_panel.variants.active == "rusty"
    assert window.session.parameters.value("base_color") == (0.4, 0.2, 0.1, 1.0)
    # Reset the override, then delete the variant: back to the node's value.
    panel = window.parameters_panel
    panel.parameterResetRequested.emit("base_color")
    assert window.session.parameters.value("base_color") == (0.75, 0.12, 0.1, 1.0)
    panel.remove_variant_button.click()
    assert panel.variants.names == () and window.material.variants == []


def test_a_taken_variant_name_is_refused(window, prompts) -> None:
    prompts.text_answers = ["new", "new"]
    assert window.parameter_commands.add_variant() == "new"
    assert window.parameter_commands.add_variant() is None
    assert 'already a variant called "new"' in window.statusBar().currentMessage()
    assert window.material.variants[0].name == "new" and len(window.material.variants) == 1
    prompts.text_answers = ["   "]
    assert window.parameter_commands.add_variant() is None
    assert "needs a name" in window.statusBar().currentMessage() and len(window.material.variants) == 1


def test_f2_renames_the_active_variant_as_one_undo_step_that_is_saved(window, prompts, tmp_path: Path, qtbot) -> None:
    panel = window.parameters_panel
    assert not panel.rename_variant_button.isEnabled()  # the base values have no name to change
    prompts.text_answers = ["rusty", "new"]
    panel.add_variant_button.click()
    panel.parameterChanged.emit("base_color", (0.4, 0.2, 0.1, 1.0))
    panel.add_variant_button.click()
    panel.variant_box.activated.emit(1)  # back on "rusty"
    window.flush()
    assert panel.variants.active == "rusty" and panel.rename_variant_button.isEnabled()
    # F2 while the Values box has focus asks for the new name, offering the old one.
    prompts.text_answers = ["  weathered "]
    window.activateWindow()
    panel.variant_box.setFocus()
    qtbot.waitUntil(panel.variant_box.hasFocus, timeout=5000)
    qtbot.keyClick(panel.variant_box, Qt.Key.Key_F2)
    assert prompts.named("ask_text")[-1][2] == "rusty"
    assert panel.variants.names == ("weathered", "new") and panel.variants.active == "weathered"
    assert [panel.variant_box.itemText(index) for index in range(1, 3)] == ["weathered", "new"]
    assert window.material.variant("weathered").values == {"base_color": (0.4, 0.2, 0.1, 1.0)}
    assert window.session.parameters.value("base_color") == (0.4, 0.2, 0.1, 1.0)
    assert window.edit.undo_action.text().replace("&", "") == 'Undo Rename variant "rusty" to "weathered"'
    assert window.isWindowModified()
    window.edit.undo_action.trigger()
    assert panel.variants.names == ("rusty", "new") and panel.variants.active == "rusty"
    window.edit.redo_action.trigger()
    assert panel.variants.names == ("weathered", "new") and panel.variants.active == "weathered"
    # Saved under the new name.
    target = tmp_path / "renamed.vpl"
    assert window.save_to(target)
    loaded = load_text(target.read_bytes(), str(target)).graph
    assert loaded is not None and [variant.name for variant in loaded.variants] == ["weathered", "new"]
    assert loaded.active_variant == "weathered"


def test_renaming_a_variant_to_a_taken_or_empty_name_is_refused_and_says_why(window, prompts) -> None:
    panel = window.parameters_panel
    prompts.text_answers = ["rusty", "new"]
    panel.add_variant_button.click()
    panel.add_variant_button.click()
    steps = window.graph_editor.model.stack.count
    # From the box's right-click menu.
    rename = next(action for action in panel.variant_box.actions() if action.text().startswith("Rename"))
    prompts.text_answers = ["rusty"]
    rename.trigger()
    assert 'Variant not renamed: There is already a variant called "rusty"' in window.statusBar().currentMessage()
    prompts.text_answers = [" "]
    panel.rename_variant_button.click()
    assert "Variant not renamed: A variant needs a name" in window.statusBar().currentMessage()
    prompts.text_answers = [None]  # cancelled
    panel.rename_variant_button.click()
    prompts.text_answers = ["new"]  # its own name: nothing to do
    panel.rename_variant_button.click()
    assert panel.variants.names == ("rusty", "new") and window.graph_editor.model.stack.count == steps


def test_a_read_only_module_has_preview_values_and_no_variants(window, tmp_path: Path) -> None:
    from app.material.document import END_LINE
    from app.material.examples import example_text

    text = example_text("textured")
    module_only = tmp_path / "module.vpl"  # the module without its graph: opens read-only
    module_only.write_text(text[text.index(END_LINE) + len(END_LINE) + 1:], encoding="utf-8")
    assert window.open_file(module_only) and window.read_only
    assert window.parameters_panel.variant_bar.isHidden()
    steps = window.graph_editor.model.stack.count
    window.parameters_panel.parameterChanged.emit("ambient", 0.25)
    assert window.session.parameters.value("ambient") == 0.25  # shown in the preview, nothing to save
    assert window.graph_editor.model.stack.count == steps and not window.is_modified
