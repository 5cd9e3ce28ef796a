"""The panels on their own: build the model, build the widget, act, assert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox

from app.material.catalog import NODE_TYPES, categories
from app.ui.code_view import FRAGMENT_TAB, VERTEX_TAB, VPL_TAB, CodeView
from app.ui.custom_code_editor import CustomCodeEditor, PortsEdit
from app.ui.diagnostics_panel import DiagnosticRow, DiagnosticsPanel
from app.ui.instruction_view import InstructionView
from app.ui.palette import NodePalette
from app.ui.properties_panel import FloatEdit, PropertiesPanel, parse_float
from app.ui.recovery import RECOVERY_DIR_ENV, RecoveryStore, recovery_dir

SPEC_EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "spec" / "loop-and-helper.vpl"


def test_properties_panel_builds_an_editor_for_every_catalog_property(qtbot) -> None:
    panel = PropertiesPanel()
    qtbot.addWidget(panel)
    kinds_seen = set()
    for _type_name, node_type in NODE_TYPES.items():
        panel.show_node("n1", node_type, node_type.default_properties())
        for spec in node_type.properties:
            assert panel.editor_widget(spec.name) is not None
            kinds_seen.add(spec.kind)
    assert {"float", "color", "string"} <= kinds_seen


def test_properties_panel_emits_values_of_the_catalog_type(qtbot) -> None:
    panel = PropertiesPanel()
    qtbot.addWidget(panel)
    node_type = NODE_TYPES["constant_color"]
    panel.show_node("n7", node_type, {"value": (0.1, 0.2, 0.3, 1.0)})
    edits = panel.editor_widget("value").findChildren(FloatEdit)
    assert [edit.value for edit in edits] == [0.1, 0.2, 0.3, 1.0]
    with qtbot.waitSignal(panel.propertyEdited, timeout=5000) as emitted:
        edits[1].setText("0.75")
        edits[1].editingFinished.emit()
    assert emitted.args == ["n7", "value", (0.1, 0.75, 0.3, 1.0)]


def test_refreshing_the_panel_emits_nothing(qtbot) -> None:
    panel = PropertiesPanel()
    qtbot.addWidget(panel)
    emitted: list[tuple] = []
    panel.propertyEdited.connect(lambda *args: emitted.append(args))
    for node_type in NODE_TYPES.values():
        panel.show_node("n1", node_type, node_type.default_properties())
        panel.show_node("n1", node_type, node_type.default_properties())
    assert emitted == []


def test_every_property_kind_round_trips_through_its_widget(qtbot) -> None:
    panel = PropertiesPanel()
    qtbot.addWidget(panel)
    emitted: list[tuple] = []
    panel.propertyEdited.connect(lambda *args: emitted.append(args))
    for node_type in NODE_TYPES.values():
        panel.show_node("n1", node_type, node_type.default_properties())
        for spec in node_type.properties:
            widget = panel.editor_widget(spec.name)
            if isinstance(widget, QComboBox) and widget.count() > 1:
                widget.setCurrentIndex((widget.currentIndex() + 1) % widget.count())
                assert emitted[-1][1:] == (spec.name, widget.currentText())
            elif isinstance(widget, QCheckBox):
                widget.setChecked(not widget.isChecked())
                assert emitted[-1][1:] == (spec.name, widget.isChecked())
            elif isinstance(widget, QSpinBox):
                widget.setValue(widget.value() + 1 if widget.value() < widget.maximum() else widget.value() - 1)
                assert emitted[-1][1:] == (spec.name, widget.value())
            elif isinstance(widget, PortsEdit):  # a Custom Code node's declared ports, as "name: type, ..."
                widget.setText("renamed: float")
                widget.editingFinished.emit()
                assert emitted[-1][1:] == (spec.name, (("renamed", "float"),))
            elif isinstance(widget, CustomCodeEditor):
                widget.text.setPlainText("(registers)")
                widget.apply()
                assert emitted[-1][1:] == (spec.name, "(registers)")
            elif isinstance(widget, QLineEdit):
                widget.setText("renamed")
                widget.editingFinished.emit()
                assert emitted[-1][1:] == (spec.name, "renamed")


def test_float_parsing_accepts_python_floats_only() -> None:
    assert parse_float(" 2.5e-1 ") == 0.25
    assert parse_float("nan") is None and parse_float("inf") is None and parse_float("1,5") is None


def test_palette_lists_every_type_by_category(qtbot) -> None:
    palette = NodePalette(categories(), lambda name: f"vpl.test.{name}")
    qtbot.addWidget(palette)
    assert sorted(palette.type_names()) == sorted(NODE_TYPES)
    assert palette.tree.topLevelItemCount() == len(categories())
    mime = palette.mime_data_for("add")
    assert bytes(mime.data("nodegraphqt/nodes")).decode() == "nodegraphqt::node:vpl.test.add"
    with qtbot.waitSignal(palette.nodeRequested, timeout=5000) as requested:
        palette.tree.itemActivated.emit(palette.item_for("mix"), 0)
    assert requested.args == ["mix"]


def test_code_view_is_read_only_and_shows_why_code_is_missing(qtbot) -> None:
    view = CodeView()
    qtbot.addWidget(view)
    view.show_code("(module 1)", None, None, missing_reason="the material has errors")
    assert view.text(VPL_TAB) == "(module 1)"
    assert "the material has errors" in view.text(VERTEX_TAB)
    assert "the material has errors" in view.text(FRAGMENT_TAB)
    assert all(view.editor(title).isReadOnly() for title in (VPL_TAB, VERTEX_TAB, FRAGMENT_TAB))


def test_instruction_view_nests_functions_blocks_and_instructions(qtbot) -> None:
    from vpl_core.publish import VerifiedModule

    verified = VerifiedModule.from_text(SPEC_EXAMPLE.read_bytes(), label=str(SPEC_EXAMPLE))
    view = InstructionView()
    qtbot.addWidget(view)
    view.show_module(verified.text, "Read-only")
    module_item = view.tree.topLevelItem(0)
    assert module_item.text(0) == "(module 1"

    def find(item, prefix):
        for index in range(item.childCount()):
            child = item.child(index)
            if child.text(0).startswith(prefix):
                return child
            found = find(child, prefix)
            if found is not None:
                return found
        return None

    function = find(module_item, '(function f1 "increment"')
    assert function is not None and function.isExpanded()
    block = find(function, "(block b0")
    assert block is not None
    assert [block.child(index).text(0) for index in range(block.childCount())] == [
        "(load r0 (parameter p0))", "(add r0 r0 (int 1))", "(return r0))))))"]


def test_diagnostics_rows_lead_to_their_node(qtbot) -> None:
    panel = DiagnosticsPanel()
    qtbot.addWidget(panel)
    panel.set_rows([DiagnosticRow("broken", "graph", "n4", "Mix (n4)"), DiagnosticRow("module-wide", "semantic")])
    assert panel.count() == 2 and "Mix (n4)" in panel.item(0).text()
    with qtbot.waitSignal(panel.nodeActivated, timeout=5000) as activated:
        panel.itemClicked.emit(panel.item(0))
    assert activated.args == ["n4"]
    with qtbot.assertNotEmitted(panel.nodeActivated):
        panel.itemClicked.emit(panel.item(1))


def test_recovery_dir_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(RECOVERY_DIR_ENV, str(tmp_path / "here"))
    assert recovery_dir() == tmp_path / "here"
    monkeypatch.delenv(RECOVERY_DIR_ENV)
    assert recovery_dir().name == "recovery"


def test_recovery_store_finds_only_orphans(tmp_path: Path) -> None:
    live = RecoveryStore(tmp_path)
    live.write("document", "/some/file.vpl")
    other = RecoveryStore(tmp_path)
    assert other.orphans() == []  # the first window is alive in this process
    # What a crashed editor process leaves behind.
    (tmp_path / "autosave-999999999-deadbeef.vpl").write_text("lost work")
    (tmp_path / "autosave-999999999-deadbeef.json").write_text(
        json.dumps({"source": None, "saved_at": 1.0, "pid": 999999999, "token": "deadbeef"}))
    # A note without its document is not offered.
    (tmp_path / "autosave-999999998-cafe.json").write_text(
        json.dumps({"source": None, "saved_at": 1.0, "pid": 999999998, "token": "cafe"}))
    orphans = other.orphans()
    assert [entry.document_path.name for entry in orphans] == ["autosave-999999999-deadbeef.vpl"]
    assert orphans[0].source is None and "untitled" in orphans[0].description
    live.close()
    assert not live.document_path.exists() and not live.note_path.exists()
    RecoveryStore.discard(orphans[0])
    assert not (tmp_path / "autosave-999999999-deadbeef.vpl").exists()
    # A window that went away without closing cleanly (same process) is an orphan too.
    gone = RecoveryStore(tmp_path)
    gone.write("unsaved", "/x.vpl")
    gone_token = gone.token
    gone.close()
    gone.write("unsaved", "/x.vpl")  # the slot outlived its window
    assert gone_token in {entry.token for entry in other.orphans()}


def test_colour_swatch_shows_the_display_colour_and_the_dialog_answers_in_display_terms(qtbot, monkeypatch) -> None:
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QPushButton

    panel = PropertiesPanel()
    qtbot.addWidget(panel)
    panel.show_node("n7", NODE_TYPES["constant_color"], {"value": (1.0, 0.2158, 0.0, 0.5)})
    swatch = panel.editor_widget("value").findChild(QPushButton)
    # Linear 0.2158 is displayed as 50 % (128): the swatch paints the colour as it looks.
    assert "#ff8000" in swatch.styleSheet()
    assert "linear RGB 1.000, 0.216, 0.000" in swatch.toolTip() and "alpha 0.500" in swatch.toolTip()
    asked: list[str] = []

    def pick(initial: QColor, parent: object) -> QColor:
        asked.append(initial.name())
        return QColor.fromRgbF(0.5, 0.5, 0.5, 1.0)

    monkeypatch.setattr(PropertiesPanel, "pick_color", staticmethod(pick))
    with qtbot.waitSignal(panel.propertyEdited, timeout=5000) as emitted:
        swatch.click()
    assert asked == ["#ff8000"]
    assert emitted.args[2] == pytest.approx((0.214, 0.214, 0.214, 1.0), abs=1e-3)  # mid grey on screen, linear stored
