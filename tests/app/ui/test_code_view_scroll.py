"""Selecting a node scrolls the code view to what the node computes (its instructions), not to the declarations
it also owns (its registers, the interface variables and uniforms it reads), in the real window."""

from __future__ import annotations

from app.ui.code_view import FRAGMENT_TAB, TAB_VIEWS, VPL_TAB


def visible_lines(editor) -> range:
    first = editor.firstVisibleBlock().blockNumber() + 1
    count = max(1, editor.viewport().height() // max(1, editor.fontMetrics().height()))
    return range(first, first + count)


def test_selecting_a_node_shows_its_instructions(window) -> None:
    assert window.files.load_example("procedural_noise")
    window.flush()
    links = window.code_view.links
    assert links is not None
    checked = 0
    for title in (VPL_TAB, FRAGMENT_TAB):
        view = TAB_VIEWS[title]
        window.code_view.setCurrentIndex(list(TAB_VIEWS).index(title))
        editor = window.code_view.editor(title)
        for node_id in sorted(window.session.graph.nodes):
            lines = links.lines_of(view, [node_id])
            anchors = links.anchor_lines(view, [node_id])
            if not lines or anchors == lines or anchors[0] - lines[0] < 2 * len(visible_lines(editor)):
                continue  # only nodes whose declarations lie far above their instructions tell the two apart
            # The node's declarations in view (as after reading the top of the module): its instructions are not.
            window.graph.scene().clearSelection()
            editor.verticalScrollBar().setValue(lines[0] - 1)
            assert lines[0] in visible_lines(editor)
            window.graph_editor.select_node(node_id)
            shown = visible_lines(editor)
            assert any(line in shown for line in anchors), (title, node_id, anchors[:3], shown)
            checked += 1
    assert checked >= 2
