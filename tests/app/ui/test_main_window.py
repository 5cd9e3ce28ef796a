"""The real main window under Xvfb: build, lower, mark errors, save/open, read-only modules, export, close.

Every test drives the window through the code paths the UI uses (palette
requests, the viewer's connection hook, the properties panel's signal, the
undo stack) and asserts on the plain-data `MaterialGraph` and the panels.
`window.flush()` applies a pending lowering at once, so no test waits on
the debounce timer except the one that checks the timer itself.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from app.graph.adapter import snapshot
from app.material.examples import DEFAULT_EXAMPLE, load_example
from app.material.graph import MaterialGraph
from app.ui.code_view import FRAGMENT_TAB, VERTEX_TAB, VPL_TAB
from app.ui.dialogs import SaveChoice
from vpl_core.backends.glsl import compile as compile_glsl
from vpl_core.backends.glsl import compile_file
from vpl_core.backends.glsl.export import export_artifact

PREVIEW_TIMEOUT_MS = 30_000
SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "spec"


def bad_graph() -> MaterialGraph:
    """A vec2 wired into a colour input: loads (files may hold anything) but does not lower."""
    graph = MaterialGraph()
    texture = graph.add_node("constant_vec2", (-300.0, 0.0))
    output = graph.add_node("material_output", (100.0, 0.0))
    graph.connect(texture.id, "out", output.id, "base_color")
    return graph


def test_opens_on_the_default_example_with_every_panel_filled(make_window) -> None:
    window = make_window(example=None)
    expected = load_example(DEFAULT_EXAMPLE).graph
    assert window.material == expected
    assert not window.is_modified and not window.isWindowModified()
    assert DEFAULT_EXAMPLE in window.windowTitle() and "[*]" in window.windowTitle()
    window.flush()
    result = window.result
    assert result is not None and result.ok, result.diagnostics
    assert window.code_view.text(VPL_TAB) == result.text
    assert window.code_view.text(VERTEX_TAB) == result.artifact.vertex_code
    assert window.code_view.text(FRAGMENT_TAB) == result.artifact.fragment_code
    for title in (VPL_TAB, VERTEX_TAB, FRAGMENT_TAB):
        assert window.code_view.editor(title).isReadOnly()
    assert [spec.name for spec in window.parameters_panel.specs] == [spec.name for spec in result.parameters]
    assert window.diagnostics_panel.count() == 0
    assert window.graph_editor.model.stack.count == 0


def test_build_a_material_from_the_palette_and_compile_it(window, qtbot) -> None:
    window.files.new_document()
    assert [node.type_name for node in window.material.nodes.values()] == ["surface_output"]  # the default output of new materials
    assert not window.is_modified and window.path is None
    window.load_graph(MaterialGraph(), "empty")
    window.flush()
    assert not window.result.ok and window.diagnostics_panel.count() == 1  # no output node
    with qtbot.waitSignal(window.node_palette.nodeRequested, timeout=5000):
        window.node_palette.request("constant_color")
    window.node_palette.request("float_parameter")
    window.node_palette.request("multiply")
    window.node_palette.request("material_output")
    ids = {node.type_name: node_id for node_id, node in window.material.nodes.items()}
    assert set(ids) == {"constant_color", "float_parameter", "multiply", "material_output"}
    for source, source_port, target, target_port in (
        ("constant_color", "out", "multiply", "a"),
        ("float_parameter", "out", "multiply", "b"),
        ("multiply", "out", "material_output", "base_color"),
    ):
        allowed, reason = window.nodes.connect_nodes(ids[source], source_port, ids[target], target_port)
        assert allowed, reason
    assert len(window.material.connections) == 3
    window.flush()
    result = window.result
    assert result.ok, result.diagnostics
    assert result.verified is not None and result.verified.text == result.text
    assert "#version 420" in result.artifact.vertex_code and "#version 420" in result.artifact.fragment_code
    # The resolved type of the dynamic multiply shows on its output port.
    multiply = window.graph.node_by_stable_id(ids["multiply"])
    assert multiply.port_type_label("out", "out") == "color"
    assert window.is_modified


def test_dragging_from_the_palette_drops_through_nodegraphqt(window) -> None:
    before = len(window.material.nodes)
    mime = window.node_palette.mime_data_for("sin")
    # What the viewer's dropEvent hands to the graph.
    window.graph._on_node_data_dropped(mime, QPoint(10, 20))
    graph = window.material
    assert len(graph.nodes) == before + 1
    assert sum(node.type_name == "sin" for node in graph.nodes.values()) == 1


def test_the_palette_filter_narrows_the_list(window) -> None:
    window.node_palette.set_filter("voronoi")
    visible = window.node_palette.type_names(visible_only=True)
    assert visible and all("voronoi" in name for name in visible)
    window.node_palette.set_filter("")
    assert len(window.node_palette.type_names(visible_only=True)) == len(window.node_palette.type_names())


def test_a_bad_graph_marks_the_node_and_fixing_it_clears_the_marker(window, qtbot) -> None:
    window.load_graph(bad_graph(), "bad")
    window.flush()
    output = window.graph.node_by_stable_id("n2")
    assert output.view.has_error_marker
    assert "vec2" in output.view.toolTip()
    assert not window.graph.node_by_stable_id("n1").view.has_error_marker
    rows = window.diagnostics_panel.rows
    assert any(row.node_id == "n2" for row in rows)
    # Clicking the row selects the node.
    item = next(window.diagnostics_panel.item(index) for index in range(window.diagnostics_panel.count())
                if window.diagnostics_panel.rows[index].node_id == "n2")
    with qtbot.waitSignal(window.diagnostics_panel.nodeActivated, timeout=5000):
        window.diagnostics_panel.itemClicked.emit(item)
    assert [node.stable_id for node in window.graph.selected_nodes()] == ["n2"]
    assert window.properties_panel.node_id == "n2"
    assert window.code_view.text(VERTEX_TAB).startswith("//")  # no stale code for a broken graph
    # Fix: remove the wire (an undoable edit), the marker goes.
    texture_out = window.graph.node_by_stable_id("n1").outputs()["out"]
    texture_out.disconnect_from(output.inputs()["base_color"])
    window.flush()
    assert not output.view.has_error_marker
    assert window.diagnostics_panel.count() == 0
    assert window.result.ok


def test_refused_connection_shows_the_reason(window) -> None:
    window.load_graph(MaterialGraph(), "empty")
    window.node_palette.request("constant_vec2")
    window.node_palette.request("material_output")
    graph = window.material
    texture = next(node_id for node_id, node in graph.nodes.items() if node.type_name == "constant_vec2")
    output = next(node_id for node_id, node in graph.nodes.items() if node.type_name == "material_output")
    source = window.graph.node_by_stable_id(texture).outputs()["out"].view
    target = window.graph.node_by_stable_id(output).inputs()["base_color"].view
    # The check the viewer makes while a live pipe is dragged over a port.
    assert window.graph.typed_viewer.accepts_connection(source, target) is False
    message = window.statusBar().currentMessage()
    assert "refused" in message and "vec2" in message and "color" in message
    allowed, reason = window.nodes.connect_nodes(texture, "out", output, "base_color")
    assert not allowed and "vec2" in reason
    assert window.material.connections == []


def drag_between_ports(qtbot, window, source_item, target_item) -> None:
    """A real mouse drag from one port to another in the graph view."""
    viewer = window.graph.viewer()
    start = viewer.mapFromScene(source_item.sceneBoundingRect().center())
    end = viewer.mapFromScene(target_item.sceneBoundingRect().center())
    qtbot.mousePress(viewer.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(viewer.viewport(), start + (end - start) * (step / 5))
    qtbot.mouseRelease(viewer.viewport(), Qt.MouseButton.LeftButton, pos=end)


def test_mouse_drags_connect_matching_types_and_refuse_others(window, qtbot) -> None:
    graph = MaterialGraph()
    graph.add_node("constant_vec2", (-300.0, 0.0))
    graph.add_node("constant_color", (-300.0, 200.0))
    graph.add_node("material_output", (100.0, 0.0))
    window.load_graph(graph, "drag")
    window.frame_all()
    texture = window.graph.node_by_stable_id("n1").outputs()["out"].view
    color = window.graph.node_by_stable_id("n2").outputs()["out"].view
    target = window.graph.node_by_stable_id("n3").inputs()["base_color"].view

    drag_between_ports(qtbot, window, texture, target)
    assert window.material.connections == []
    assert "vec2 cannot connect" in window.statusBar().currentMessage()
    assert window.graph_editor.model.stack.count == 0

    drag_between_ports(qtbot, window, color, target)
    assert [(c.source_node, c.target_node, c.target_port) for c in window.material.connections] == [
        ("n2", "n3", "base_color")]
    window.edit.undo_action.trigger()
    assert window.material.connections == []


def test_save_and_reopen_gives_the_same_graph(window, tmp_path: Path) -> None:
    graph = load_example("textured").graph
    assert graph.frames, "the textured example has a frame"
    window.load_graph(graph, "textured")
    node = window.graph.node_by_stable_id("n4")
    node.set_pos(123.5, -45.25)
    window.nodes.set_node_property("n1", "name", "albedo_map")
    window.nodes.set_node_property("n2", "tiling", (3.0, 0.5))
    edited = window.material
    assert window.is_modified and window.isWindowModified()
    path = tmp_path / "saved.vpl"
    assert window.save_to(path)
    assert not window.is_modified and not window.isWindowModified()
    assert "saved.vpl" in window.windowTitle()
    assert str(path.resolve()) in window.recent.files()

    window.load_graph(MaterialGraph(), "other")
    assert window.open_file(path)
    assert not window.read_only
    reopened = window.material
    assert reopened == edited
    assert reopened.nodes == edited.nodes
    assert sorted(map(repr, reopened.connections)) == sorted(map(repr, edited.connections))
    assert reopened.frames == edited.frames
    assert window.path == path and not window.is_modified


def test_save_asks_for_a_path_when_untitled(window, prompts, tmp_path: Path) -> None:
    prompts.save_path = str(tmp_path / "chosen.vpl")
    window.graph.node_by_stable_id("n1").set_pos(0.0, 0.0)
    assert window.files.save()
    assert prompts.named("choose_save_path")
    assert Path(prompts.save_path).is_file()
    assert window.path == Path(prompts.save_path)


@pytest.mark.parametrize("spec_file", sorted(SPEC_EXAMPLES.glob("*.vpl")), ids=lambda path: path.name)
def test_spec_examples_open_as_read_only_instruction_views(window, qtbot, tmp_path: Path, spec_file: Path) -> None:
    outcomes: list[str] = []
    window.preview.programReady.connect(lambda: outcomes.append("ready"))
    window.preview.programFailed.connect(lambda message: outcomes.append(message))
    assert window.open_file(spec_file)
    assert window.read_only and window.read_only_document is not None
    assert "read-only" in window.windowTitle()
    verified = window.read_only_document.verified
    # The instruction view replaces the graph and shows every instruction line of the module.
    assert window.centralWidget().currentWidget() is window.instruction_view
    texts = window.instruction_view.item_texts()
    assert any(text.startswith("(block") for text in texts)
    assert any(text.startswith("(function") for text in texts)
    lines = [line.strip() for line in verified.text.splitlines() if line.strip()]
    assert texts == lines
    assert "Read-only" in window.instruction_view.banner_text
    # Code view filled.
    assert window.code_view.text(VPL_TAB) == verified.text
    artifact = window.current_artifact
    assert artifact is not None
    assert window.code_view.text(VERTEX_TAB) == artifact.vertex_code
    assert window.code_view.text(FRAGMENT_TAB) == artifact.fragment_code
    # Graph editing disabled.
    assert not window.save_action.isEnabled() and not window.edit.paste_action.isEnabled()
    assert not window.node_palette.isEnabled()
    assert window.nodes.add_node_from_palette("add") is None
    assert window.graph.all_nodes() == []
    # Preview set: the widget built (or reported) the program.
    qtbot.waitUntil(lambda: bool(outcomes), timeout=PREVIEW_TIMEOUT_MS)
    assert outcomes[-1] == "ready", outcomes
    # Export still works, exactly as `vpl compile` would write it.
    assert window.export_action.isEnabled()
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    assert window.export_to(ours)
    compile_file(spec_file, out_dir=theirs)
    assert sorted(path.name for path in ours.iterdir()) == sorted(path.name for path in theirs.iterdir())
    for produced in theirs.iterdir():
        assert without_material(ours / produced.name) == produced.read_bytes()


def without_material(path: Path) -> bytes:
    """An exported file as `vpl compile` writes it: the JSON without the editor's `material` section."""
    if path.suffix != ".json":
        return path.read_bytes()
    document = json.loads(path.read_text(encoding="utf-8"))
    assert "material" in document
    del document["material"]
    return (json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def test_export_matches_vpl_compile_output(window, prompts, tmp_path: Path) -> None:
    saved = tmp_path / "material.vpl"
    assert window.save_to(saved)
    prompts.export_dir = str(tmp_path / "exported")
    assert window.files.export_dialog()
    # (A Surface Output material also gets the preview's environment images: tests/app/ui/test_export_lighting.py.)
    exported = sorted(path for path in (tmp_path / "exported").iterdir() if ".environment_" not in path.name)
    assert [path.name for path in exported] == ["material.frag.glsl", "material.json", "material.vert.glsl"]
    # The same bytes as `vpl compile material.vpl --out DIR` ...
    cli = tmp_path / "cli"
    compile_file(saved, out_dir=cli)
    # ... and as export_artifact on the verified module compiled afresh.
    direct = tmp_path / "direct"
    export_artifact(compile_glsl(window.result.verified), direct, "material")
    for path in exported:
        assert (cli / path.name).read_bytes() == without_material(path)
        assert (direct / path.name).read_bytes() == without_material(path)
    assert json.loads((tmp_path / "exported" / "material.json").read_text())["material"]["parameters"]


def test_export_of_a_broken_material_reports_instead_of_writing(window, prompts, tmp_path: Path) -> None:
    window.load_graph(bad_graph(), "bad")
    assert not window.export_to(tmp_path / "out")
    assert prompts.named("show_error")
    assert not (tmp_path / "out").exists()


def test_corrupt_file_shows_diagnostics_and_keeps_the_current_graph(window, prompts, tmp_path: Path) -> None:
    window.graph.node_by_stable_id("n1").set_pos(10.0, 10.0)
    before = window.material
    title = window.windowTitle()
    corrupt = tmp_path / "corrupt.vpl"
    corrupt.write_bytes(b"(module 1\n  (types (type Void void))\n  (uniforms\n  \xff\xfe garbage")
    assert not window.open_file(corrupt)
    errors = prompts.named("show_error")
    assert len(errors) == 1
    _title, message, details = errors[0]
    assert "corrupt.vpl" in message
    assert details and all("corrupt.vpl" in line for line in details)
    assert any("error" in line for line in details)
    assert window.material == before and window.is_modified
    assert window.windowTitle() == title and window.path is None
    assert not window.read_only
    assert not prompts.named("ask_save_changes")  # nothing to decide: the file never opened


def test_closing_with_unsaved_changes_asks(window, prompts, tmp_path: Path) -> None:
    window.graph.node_by_stable_id("n1").set_pos(-5.0, -5.0)
    prompts.save_choice = SaveChoice.CANCEL
    assert window.close() is False
    assert window.isVisible()
    assert len(prompts.named("ask_save_changes")) == 1

    prompts.save_choice = SaveChoice.SAVE
    prompts.save_path = str(tmp_path / "on-close.vpl")
    assert window.close() is True
    assert Path(prompts.save_path).is_file()


def test_closing_an_unmodified_window_does_not_ask(window, prompts) -> None:
    assert window.close() is True
    assert not prompts.named("ask_save_changes")


def test_undoing_back_to_the_saved_state_clears_the_modified_marker(window) -> None:
    node = window.graph.node_by_stable_id("n1")
    node.set_pos(999.0, 999.0)
    assert window.isWindowModified()
    window.edit.undo_action.trigger()
    assert not window.isWindowModified()


def test_lowering_follows_edits_after_a_short_delay(window, qtbot) -> None:
    window.flush()
    before = window.code_view.text(VPL_TAB)
    with qtbot.waitSignal(window.lowered, timeout=10_000):
        window.nodes.set_node_property("n7", "power", 2.5)  # the fresnel's unconnected power input
    assert window.code_view.text(VPL_TAB) != before
    assert "2.5" in window.code_view.text(VPL_TAB)


def test_tab_search_creates_the_chosen_node(window, qtbot) -> None:
    before = len(window.material.nodes)
    window.nodes.open_tab_search()
    search = window.graph.node_search  # app.graph.search: display names and synonyms
    assert search.isVisible()
    qtbot.keyClicks(search.field, "Smooth Step")
    qtbot.keyClick(search.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(window.material.nodes) == before + 1, timeout=5000)
    assert any(node.type_name == "smoothstep" for node in window.material.nodes.values())


def test_autosave_writes_a_recovery_file_that_a_new_window_offers(make_window, prompts, recovery_dir: Path) -> None:
    first = make_window()
    assert first._autosave_timer.interval() == 30_000 and first._autosave_timer.isActive()
    first.graph.node_by_stable_id("n2").set_pos(-777.0, 55.0)
    first.nodes.set_node_property("n4", "default", 3.0)
    edited = first.material
    first._autosave_timer.timeout.emit()  # what the 30 s timer does
    saved = sorted(recovery_dir.glob("autosave-*"))
    assert len(saved) == 2  # the document and its note
    # A crash leaves the slot behind; a clean close removes it.
    kept = recovery_dir.parent / "kept"
    kept.mkdir()
    for path in saved:
        shutil.copy2(path, kept / path.name)
    first.close()
    assert not list(recovery_dir.glob("autosave-*"))
    for path in kept.iterdir():
        shutil.copy2(path, recovery_dir / path.name)

    second = make_window()
    assert second.check_recovery()
    offered = prompts.named("offer_recovery")
    assert len(offered) == 1 and len(offered[0][0]) == 1
    assert second.material == edited
    assert second.is_modified
    # Offered once: the next start does not ask again.
    assert not second.recovery.orphans()


def test_a_declined_recovery_is_discarded(make_window, prompts, recovery_dir: Path, window_example: str) -> None:
    first = make_window()
    first.graph.node_by_stable_id("n2").set_pos(1.0, 2.0)
    first.autosave_now()
    files = {path.name: path.read_bytes() for path in recovery_dir.glob("autosave-*")}
    first.close()
    for name, data in files.items():
        (recovery_dir / name).write_bytes(data)
    prompts.recovery_choice = None
    second = make_window()
    assert not second.check_recovery()
    assert second.material == load_example(window_example).graph
    assert not list(recovery_dir.glob("autosave-*"))


def test_snapshot_matches_the_view(window) -> None:
    assert snapshot(window.graph) == window.material


def test_unknown_node_types_in_a_file_are_reported(window, prompts, tmp_path: Path, window_example: str) -> None:
    from app.material.document import save_file

    graph = load_example(window_example).graph
    graph.add_node("node_from_a_newer_editor", (0.0, 400.0))
    path = tmp_path / "newer.vpl"
    save_file(path, graph)
    assert window.open_file(path)
    errors = prompts.named("show_error")
    assert errors and any("node_from_a_newer_editor" in line for line in errors[-1][2])
    # The document keeps the node the view cannot show (saving loses nothing); the lowering reports it.
    assert window.material.nodes["n11"].type_name == "node_from_a_newer_editor"
    assert window.graph.node_by_stable_id("n11") is None
    assert window.is_modified  # the file opened with problems


def test_standard_shortcuts(window) -> None:
    from PySide6.QtGui import QKeySequence

    standard = QKeySequence.StandardKey
    for action, key in (
        (window.new_action, standard.New), (window.open_action, standard.Open), (window.save_action, standard.Save),
        (window.save_as_action, standard.SaveAs), (window.edit.undo_action, standard.Undo),
        (window.edit.cut_action, standard.Cut), (window.edit.copy_action, standard.Copy),
        (window.edit.paste_action, standard.Paste), (window.quit_action, standard.Quit),
    ):
        assert action.shortcuts() == QKeySequence.keyBindings(key), action.text()
    # Redo: the standard keys, plus Ctrl+Y (issue 16: Windows and most Linux applications redo with it).
    redo = window.edit.redo_action.shortcuts()
    assert redo[:len(QKeySequence.keyBindings(standard.Redo))] == QKeySequence.keyBindings(standard.Redo)
    assert QKeySequence("Ctrl+Y") in redo
    # Delete: the standard keys except Ctrl+D (Duplicate; X11 binds it to Delete too), plus Backspace.
    delete_keys = window.edit.delete_action.shortcuts()
    assert QKeySequence(Qt.Key.Key_Delete) in delete_keys and QKeySequence(Qt.Key.Key_Backspace) in delete_keys
    assert QKeySequence("Ctrl+D") not in delete_keys
    assert window.edit.duplicate_action.shortcut().toString() == "Ctrl+D"
    assert window.edit.frame_action.shortcut().toString() == "F"
    assert window.export_action.shortcut().toString() == "Ctrl+E"
    menus = {action.text().replace("&", "") for action in window.menuBar().actions()}
    assert {"File", "Edit", "View"} <= menus
    assert window.recent_menu.title().replace("&", "") == "Open Recent"


def test_open_recent_lists_opened_files(window, tmp_path: Path) -> None:
    path = tmp_path / "recent.vpl"
    assert window.save_to(path)
    entries = [action.text() for action in window.recent_menu.actions()]
    assert entries and entries[0] == str(path.resolve())
    window.load_graph(MaterialGraph(), "other")
    window.recent_menu.actions()[0].trigger()
    assert window.path == path


def test_graph_keys_act_only_while_the_graph_has_focus(window, qtbot) -> None:
    viewer = window.graph.viewer()
    window.activateWindow()
    qtbot.waitActive(window)
    window.nodes.select_node("n7")
    window.code_view.editor(VPL_TAB).setFocus()
    qtbot.waitUntil(lambda: window.code_view.editor(VPL_TAB).hasFocus(), timeout=5000)
    qtbot.keyClick(window.code_view.editor(VPL_TAB), Qt.Key.Key_Delete)
    assert "n7" in window.material.nodes
    viewer.setFocus()
    qtbot.waitUntil(viewer.hasFocus, timeout=5000)
    qtbot.keyClick(viewer, Qt.Key.Key_Delete)
    assert "n7" not in window.material.nodes


def test_undo_and_redo_keys_work_in_the_graph(window, qtbot) -> None:
    """NodeGraphQt's hidden context-menu actions must not make Ctrl+Z ambiguous."""
    from PySide6.QtGui import QKeySequence

    viewer = window.graph.viewer()
    window.activateWindow()
    qtbot.waitActive(window)
    viewer.setFocus()
    qtbot.waitUntil(viewer.hasFocus, timeout=5000)
    before = window.material
    window.graph.node_by_stable_id("n1").set_pos(-300.0, -300.0)
    after = window.material
    undo = QKeySequence.keyBindings(QKeySequence.StandardKey.Undo)[0][0]
    redo = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)[0][0]
    qtbot.keyClick(viewer, undo.key(), undo.keyboardModifiers())
    assert window.material == before
    qtbot.keyClick(viewer, redo.key(), redo.keyboardModifiers())
    assert window.material == after


def test_edit_keys_work_in_the_graph_and_are_never_ambiguous(window, qtbot, qtlog) -> None:
    from PySide6.QtGui import QKeySequence

    viewer = window.graph.viewer()
    window.activateWindow()
    qtbot.waitActive(window)
    viewer.setFocus()
    qtbot.waitUntil(viewer.hasFocus, timeout=5000)

    def press(sequence: QKeySequence) -> None:
        combination = sequence[0]
        qtbot.keyClick(viewer, combination.key(), combination.keyboardModifiers())

    count = len(window.material.nodes)
    window.nodes.select_node("n7")
    press(QKeySequence("Ctrl+D"))
    assert len(window.material.nodes) == count + 1
    window.nodes.select_node("n7")
    press(QKeySequence(QKeySequence.StandardKey.Copy))
    press(QKeySequence(QKeySequence.StandardKey.Paste))
    assert len(window.material.nodes) == count + 2
    press(QKeySequence(QKeySequence.StandardKey.SelectAll))
    assert len(window.graph.selected_nodes()) == count + 2
    assert not [record for record in qtlog.records if "Ambiguous" in record.message]


def test_driver_errors_from_the_preview_are_listed(window) -> None:
    window.flush()
    window.preview.programFailed.emit("0:12(3): error: something the driver disliked")
    rows = window.diagnostics_panel.rows
    assert [row.category for row in rows] == ["driver"] and "driver disliked" in rows[0].message
    assert "rejected" in window.statusBar().currentMessage()
    window.preview.programReady.emit()
    assert window.diagnostics_panel.rows == []


def test_palette_additions_do_not_pile_up(window) -> None:
    for _ in range(3):
        window.node_palette.request("add")
    positions = [node.position for node in window.material.nodes.values() if node.type_name == "add"]
    assert len(set(positions)) == len(positions)


def test_open_example_menu_describes_each_example(window) -> None:
    tips = {action.text(): action.toolTip() for action in window.examples_menu.actions()}
    assert tips and all(tip and tip != name for name, tip in tips.items())
    assert "unlit on purpose" in tips["toon_shading"]
    assert window.examples_menu.toolTipsVisible()


def test_the_window_collects_on_its_thread_and_its_workers_end_when_it_closes(qtbot, prompts, settings, recovery_dir,
                                                                              monkeypatch) -> None:
    """Without a render thread too: the window's lowering worker runs Python code whatever the preview does, so
    the collector is the GUI thread's (`vpl_core.collector`), and closing the window ends the worker."""
    import gc

    from app.ui.main_window import MainWindow
    from app.ui.recovery import RecoveryStore
    from app.workers import running_workers
    from vpl_core import collector

    monkeypatch.setenv("VPL_PREVIEW_RENDER_THREAD", "0")
    before = running_workers().count("vpl-lowering")
    window = MainWindow(prompts=prompts.as_prompts(), settings=settings, recovery=RecoveryStore(recovery_dir))
    assert not getattr(window.preview, "threaded", False)
    window.load_example()
    window.lowering.request()
    qtbot.waitUntil(lambda: window.lowering.started >= 1 and not window.lowering.busy, timeout=120_000)
    assert running_workers().count("vpl-lowering") == before + 1
    assert collector.taken_over() and not gc.isenabled()
    assert window.close()
    assert running_workers().count("vpl-lowering") == before, "closing the window ended its worker"
    assert collector.off_thread_collections() == 0


def test_dialogs_of_an_untitled_material_start_in_documents_then_where_the_artist_went(
        window, prompts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.ui import directories
    from app.ui.export_dialog import ExportKind

    documents = tmp_path / "Documents"
    documents.mkdir()
    monkeypatch.setattr(directories, "documents_directory", lambda: str(documents))
    elsewhere = tmp_path / "work" / "bricks"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")  # the working directory is never offered
    assert window.path is None
    window.files.save_as()  # cancelled (no answer): nothing remembered
    assert prompts.named("choose_save_path")[-1] == (str(documents / "material.vpl"),)
    window.exports.bake_dialog()
    assert prompts.named("choose_export_target")[-1] == (ExportKind.BAKE, str(documents / "material_textures"))

    prompts.save_path = str(elsewhere / "wet_bricks.vpl")
    assert window.files.save_as()
    window.files.new_document()
    assert window.path is None
    window.files.save_as()
    assert prompts.named("choose_save_path")[-1] == (str(elsewhere / "material.vpl"),)
    window.files.export_dialog()
    assert prompts.named("choose_export_dir")[-1] == (str(elsewhere),)


def test_a_wire_dropped_on_a_folded_section_is_recorded_and_undone(window, qtbot) -> None:
    """The Surface Output's folded Coat: a wire dropped on its header connects `clearcoat` in the document, one
    undo step; the window's undo takes the wire away and folds the section again, redo brings both back. Folding
    is view state (docs/decisions.md): no step of its own, and a section the artist unfolded stays open when the
    wire made in it is undone (app/graph/sections.py)."""
    graph = MaterialGraph()
    graph.add_node("constant_float", (-300.0, 0.0))
    graph.add_node("surface_output", (100.0, 0.0))
    window.load_graph(graph, "sections")
    window.frame_all()
    stack = window.graph_editor.model.stack
    steps = stack.count
    source = window.graph.node_by_stable_id("n1").outputs()["out"].view
    output = window.graph.node_by_stable_id("n2")
    header = output.view.sections.find("Coat")
    assert header is not None and not header.is_open
    drag_between_ports(qtbot, window, source, header)
    window.flush()
    assert [(c.target_node, c.target_port) for c in window.material.connections] == [("n2", "clearcoat")]
    assert header.is_open and output.inputs()["clearcoat"].view.isVisible()
    assert stack.count == steps + 1  # the wire is one step; opening its section is none
    window.edit.undo_action.trigger()
    window.flush()
    assert window.material.connections == [] and not header.is_open
    window.edit.redo_action.trigger()
    window.flush()
    assert [(c.target_node, c.target_port) for c in window.material.connections] == [("n2", "clearcoat")]
    port = output.inputs()["clearcoat"].view
    assert header.is_open and port.isVisible() and all(pipe.isVisible() for pipe in port.connected_pipes)

    # The artist unfolds Sheen (no step) and wires one of its inputs; undoing the wire leaves Sheen open.
    sheen = output.view.sections.find("Sheen")
    assert sheen is not None and sheen.toggle() and sheen.is_open
    assert stack.count == steps + 1
    window.frame_all()
    drag_between_ports(qtbot, window, source, output.inputs()["sheen_roughness"].view)
    window.flush()
    assert ("n2", "sheen_roughness") in [(c.target_node, c.target_port) for c in window.material.connections]
    assert stack.count == steps + 2
    window.edit.undo_action.trigger()
    window.flush()
    assert [(c.target_node, c.target_port) for c in window.material.connections] == [("n2", "clearcoat")]
    assert sheen.is_open and header.is_open  # the artist's unfolding and the Coat's wire both hold
    # Folded by the artist meanwhile, Sheen opens again when redo brings its wire back.
    assert sheen.toggle() and not sheen.is_open
    window.edit.redo_action.trigger()
    window.flush()
    roughness = output.inputs()["sheen_roughness"].view
    assert sheen.is_open and roughness.isVisible() and all(pipe.isVisible() for pipe in roughness.connected_pipes)
