"""Issue 18 through the real window: nodes <-> lines of the generated code both ways, and node costs.

Selecting nodes in the graph tints exactly the lines written for them in the VPL, vertex and fragment
tabs; a real mouse click on a line selects the node that produced it (scaffolding selects nothing); the
node footers and the status bar show the costs the lowering counted.
"""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from app.material.cost import describe_count, describe_totals, material_cost
from app.material.examples import example_names
from app.ui.code_view import FRAGMENT_TAB, TAB_VIEWS, VERTEX_TAB, VPL_TAB

TABS = (VPL_TAB, VERTEX_TAB, FRAGMENT_TAB)


def select(window, node_ids) -> None:
    """Select nodes as a rubber band or ctrl-click does: through the scene (not the undo stack)."""
    scene = window.graph.scene()
    scene.clearSelection()
    for node_id in node_ids:
        window.graph.node_by_stable_id(node_id).view.setSelected(True)


def selected_ids(window) -> list[str]:
    return sorted(node.stable_id for node in window.graph_editor.selected_material_nodes())


def click_line(window, qtbot, title: str, line: int) -> None:
    """A real left click on one-based `line` of tab `title` (scrolled into view first)."""
    code_view = window.code_view
    code_view.setCurrentIndex(list(TAB_VIEWS).index(title))
    editor = code_view.editor(title)
    block = editor.document().findBlockByNumber(line - 1)
    editor.setTextCursor(QTextCursor(block))
    editor.ensureCursorVisible()
    qtbot.waitUntil(lambda: editor.isVisible()
                    and editor.viewport().rect().contains(editor.cursorRect(QTextCursor(block)).center()), timeout=5_000)
    position = editor.cursorRect(QTextCursor(block)).center()
    position.setX(position.x() + 4)
    qtbot.mouseClick(editor.viewport(), Qt.MouseButton.LeftButton, pos=position)


def open_example(window, name: str):
    assert window.files.load_example(name)
    window.flush()
    result = window.result
    assert result is not None and result.ok, result.diagnostics
    return result


@pytest.mark.parametrize("name", example_names())
def test_selecting_a_node_tints_exactly_its_lines_in_every_tab(window, name: str) -> None:
    open_example(window, name)
    code_view = window.code_view
    links = code_view.links
    assert links is not None
    for node in window.graph.material_nodes():
        select(window, [node.stable_id])
        assert code_view.highlighted_nodes == {node.stable_id}
        for title in TABS:
            lines = code_view.highlighted_lines(title)
            assert lines == links.lines_of(TAB_VIEWS[title], [node.stable_id])
            # What the editor really shows: one tinted selection per run of lines, covering exactly them.
            tinted = set()
            for selection in code_view.editor(title).extraSelections():
                first = selection.cursor.document().findBlock(selection.cursor.selectionStart()).blockNumber() + 1
                last = selection.cursor.document().findBlock(selection.cursor.selectionEnd()).blockNumber() + 1
                tinted.update(range(first, last + 1))
            assert tinted == set(lines), (node.stable_id, title)
            for line in lines:
                assert code_view.node_at(title, line) == node.stable_id
    select(window, [])
    assert all(not code_view.editor(title).extraSelections() for title in TABS)


def test_selecting_several_nodes_tints_all_their_lines(window) -> None:
    open_example(window, "stylised_lava")
    ids = sorted(node.stable_id for node in window.graph.material_nodes())[:3]
    select(window, ids)
    for title in TABS:
        expected = sorted(set().union(*(window.code_view.links.lines_of(TAB_VIEWS[title], [node]) for node in ids)))
        assert window.code_view.highlighted_lines(title) == expected


@pytest.mark.parametrize("name", ["stylised_lava", "compare_and_branch", "textured", "painted_metal"])
def test_clicking_a_line_selects_the_node_that_produced_it(window, qtbot, name: str) -> None:
    open_example(window, name)
    links = window.code_view.links
    rng = random.Random(name)
    for title in TABS:
        linked = links.line_nodes(TAB_VIEWS[title])
        assert linked, title
        for line in rng.sample(sorted(linked), min(6, len(linked))):
            select(window, [])
            click_line(window, qtbot, title, line)
            assert selected_ids(window) == [linked[line]], (title, line)
            # ... and the selection tints the clicked line (the other direction).
            assert line in window.code_view.highlighted_lines(title)


def test_clicking_scaffolding_selects_nothing(window, qtbot) -> None:
    open_example(window, "compare_and_branch")
    code = window.code_view.text(FRAGMENT_TAB).split("\n")
    scaffolding = [number for number, text in enumerate(code, start=1)
                   if text.strip() in ("while (true) {", "void main() {") or text.strip().startswith("case ")]
    assert scaffolding
    some = next(iter(window.graph.material_nodes())).stable_id
    for line in scaffolding:
        select(window, [some])
        click_line(window, qtbot, FRAGMENT_TAB, line)
        assert selected_ids(window) == [some], (line, code[line - 1])


def test_node_costs_in_the_footers_and_totals_in_the_status_bar(window) -> None:
    result = open_example(window, "stylised_lava")
    expected = material_cost(result.module, result.provenance)
    assert window.presenter.cost_label.text() == describe_totals(expected)
    assert not window.inspection.cost_action.isChecked()
    nodes = window.graph.material_nodes()
    heights = {node.stable_id: node.view.height for node in nodes}
    assert all(node.view.cost_text == "" for node in nodes)
    window.inspection.cost_action.trigger()
    assert window.settings.value("graph/show_cost", type=bool)
    for node in nodes:
        cost = expected.node(node.stable_id)
        assert node.view.cost_text == describe_count(cost.total), node.stable_id
        assert node.view.height > heights[node.stable_id]
        assert "Cost: " in node.view.toolTip()
    noise = next(node for node in nodes if node.type_name == "fractal_noise_3d")
    assert "counted on" in noise.view.toolTip()
    window.inspection.cost_action.trigger()
    assert all(node.view.height == heights[node.stable_id] for node in nodes)
