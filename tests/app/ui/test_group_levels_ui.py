"""A group's levels through the real window (NodeGraphQt, the thumbnail worker): inside a group its body's nodes
show thumbnails and costs; leaving it brings the level back as it was (thumbnails, titles, pan and zoom)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.material.groups import GROUP_INPUT_TYPE, GROUP_OUTPUT_TYPE, GROUP_TYPE
from app.material.node_previews import level_preview_graph, lower_thumbnails
from app.ui.node_thumbnails import THUMBNAILS_SETTING

pytestmark = pytest.mark.gl


@pytest.fixture
def thumbnail_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    return make_window(load_example=False)


def settle(window) -> None:
    window.flush()
    assert window.thumbnails.wait(120), "thumbnails did not arrive"


def press(qtbot, window, key: Qt.Key, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    viewer = window.graph.viewer()
    window.activateWindow()
    qtbot.waitActive(window)
    viewer.setFocus()
    qtbot.waitUntil(viewer.hasFocus, timeout=5000)
    qtbot.keyClick(viewer, key, modifiers)


def shown_thumbnails(window) -> dict[str, object]:
    return {node.stable_id: node.view.thumbnail for node in window.graph.material_nodes()
            if node.view.thumbnail_shown and node.view.thumbnail is not None}


def visible(viewer) -> tuple[float, float, float, float]:
    rect = viewer.mapToScene(viewer.viewport().rect()).boundingRect()
    return rect.x(), rect.y(), rect.width(), rect.height()


def pixels(image) -> list[int]:
    return [image.pixel(x, y) for x in range(0, image.width(), 4) for y in range(0, image.height(), 4)]


def test_thumbnails_and_costs_inside_a_group_and_after_leaving_it(qtbot, thumbnail_window) -> None:
    window = thumbnail_window
    assert window.files.load_example("grouped_rock")
    window.inspection.set_costs_visible(True)
    settle(window)
    top = window.session.graph
    expected_top = {node_id for node_id, _ in lower_thumbnails(top).ports}
    (group,) = [node_id for node_id, node in top.nodes.items() if node.type_name == GROUP_TYPE]
    assert group in expected_top  # the group node has a thumbnail of its own
    before = shown_thumbnails(window)
    # Thumbnails are asked for the nodes in view: the level is wider than fits at a readable scale.
    expected_top &= in_view(window)
    assert group in expected_top
    assert set(before) == expected_top
    viewer = window.graph.typed_viewer
    view_before = visible(viewer)

    window.graph.scene().clearSelection()
    window.graph.node_by_stable_id(group).view.setSelected(True)
    press(qtbot, window, Qt.Key.Key_Tab)
    function_id = window.graph_editor.level
    assert function_id is not None
    settle(window)
    body = window.session.graph.functions[function_id].body
    alone = level_preview_graph(window.session.graph, function_id)
    program = lower_thumbnails(alone)
    assert program.ok and not program.problems, program.problems
    inner = {node_id for node_id, node in body.nodes.items() if node.type_name not in (GROUP_INPUT_TYPE, GROUP_OUTPUT_TYPE)}
    assert {node_id for node_id, _ in program.ports} == inner
    inside = shown_thumbnails(window)
    assert set(inside) == inner
    assert all(len(set(pixels(image))) > 1 or node_id == "n10" for node_id, image in inside.items())
    # Each body node's footer counts what it emits into the group's helper (not the material's node of that id).
    level_cost = window.presenter.cost and window.graph_editor.annotations.shown_costs()
    assert level_cost is not None
    for node in window.graph.material_nodes():
        cost = level_cost.node(node.stable_id)
        if node.stable_id in inner:
            assert cost is not None and cost.total.instructions > 0, node.stable_id
        expected = f"{cost.total.instructions} instr" if cost is not None else "0 instr"
        assert node.view._cost_text.startswith(expected), (node.stable_id, node.view._cost_text)

    press(qtbot, window, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert window.graph_editor.level is None
    settle(window)
    after = shown_thumbnails(window)
    assert set(after) == expected_top
    for node_id in expected_top:
        assert pixels(after[node_id]) == pixels(before[node_id]), node_id
    view_after = visible(viewer)  # where the level was left, not framed again nor centred on the group node
    assert all(abs(a - b) < 3.0 for a, b in zip(view_after, view_before)), (view_after, view_before)
    assert [node.stable_id for node in window.graph_editor.selected_material_nodes()] == [group]


def test_titles_keep_their_names_when_leaving_a_group(qtbot, make_window) -> None:
    window = make_window(example="lit_blinn_phong")
    titles = {node.stable_id: node.view.name for node in window.graph.material_nodes()}
    assert titles["n1"] == "Color Parameter: base_color"
    window.graph.scene().clearSelection()
    window.graph.node_by_stable_id("n7").view.setSelected(True)
    press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    window.flush()
    press(qtbot, window, Qt.Key.Key_Tab)
    assert window.graph_editor.level is not None
    press(qtbot, window, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert window.graph_editor.level is None
    after = {node.stable_id: node.view.name for node in window.graph.material_nodes()}
    assert after["n1"] == "Color Parameter: base_color"
    assert {node_id: title for node_id, title in after.items() if node_id in titles} == \
        {node_id: title for node_id, title in titles.items() if node_id in after}


# The thumbnails on the nodes against the same nodes drawn directly ---------------------------------------------


def drawn_directly(qtbot, window) -> dict[str, list[int]]:
    """Every thumbnail of the level shown, drawn by a worker of its own from the document (not the window's
    bookkeeping): the level's preview graph, the session's values, the thumbnails' stage."""
    from app.material.node_previews import material_output_name
    from app.material.parameters import ParameterKind
    from app.preview.thumbnails import ThumbnailJob, ThumbnailService
    from app.ui.node_thumbnails import _UNUSED_STAGE_KEYS, SWATCH_DISPLAY

    document, level = window.graph_editor.material, window.graph_editor.level
    graph = level_preview_graph(document, level)
    program = lower_thumbnails(graph)
    assert program.ok, program.problems
    parameters = window.session.parameters
    values = {spec.name: parameters.value(spec.name) for spec in parameters.specs
              if spec.kind not in (ParameterKind.TEXTURE, ParameterKind.OTHER)}
    stage = {key: value for key, value in window.preview_panel.toolbar.stage.to_dict().items()
             if key not in _UNUSED_STAGE_KEYS}
    stage.update(SWATCH_DISPLAY)
    images: dict[str, object] = {}
    done: list[bool] = []

    def take(batch) -> None:
        images.update(batch.images)
        if batch.final:
            done.append(True)

    service = ThumbnailService(window.preview.profile)
    service.rendered.connect(take)
    try:
        service.submit(ThumbnailJob(generation=1, graph=graph.copy(), structure="drawn directly",
                                    output_name=material_output_name(document),
                                    nodes=tuple(node_id for node_id, _ in program.ports), values=values, stage=stage,
                                    time=0.0, size=window.thumbnails.size))
        qtbot.waitUntil(lambda: bool(done), timeout=120_000)
    finally:
        service.stop()
    return {node_id: pixels(image) for node_id, image in images.items()}


def in_view(window) -> set[str]:
    viewer = window.graph.viewer()
    rect = viewer.mapToScene(viewer.viewport().rect()).boundingRect()
    return {node.stable_id for node in window.graph.material_nodes() if rect.intersects(node.view.sceneBoundingRect())}


def assert_thumbnails_are_the_levels(qtbot, window) -> None:
    """The nodes in view show the images drawn directly, before and after framing the level; no other node
    shows one (a level wider than fits at a readable scale is framed around its centre)."""
    settle(window)
    expected = drawn_directly(qtbot, window)
    assert expected
    seen: set[str] = set()
    for framed in (False, True):
        if framed:
            window.graph_editor.frame_all()
            window.thumbnails.refresh()  # as the view's next paint would ask
            settle(window)
        shown = shown_thumbnails(window)
        wanted = set(expected) & in_view(window)
        seen |= wanted
        assert wanted and set(shown) >= wanted, (framed, sorted(shown), sorted(wanted))
        for node_id in wanted:
            assert pixels(shown[node_id]) == expected[node_id], node_id
    assert set(shown_thumbnails(window)) == set(expected) & seen


def assert_parameter_nodes_are_named(window) -> None:
    from app.material import catalog
    from app.material.parameters import PARAMETER_NODE_TYPES

    level = window.graph_editor.level_material()
    for node in window.graph.material_nodes():
        model_node = level.nodes[node.stable_id]
        if model_node.type_name in PARAMETER_NODE_TYPES:
            display = catalog.NODE_TYPES[model_node.type_name].display_name
            assert node.view.name == f"{display}: {model_node.properties['name']}", node.view.name


def select(window, node_ids) -> None:
    window.graph.scene().clearSelection()
    for node_id in node_ids:
        window.graph.node_by_stable_id(node_id).view.setSelected(True)


def test_a_groups_level_and_the_level_left_show_their_own_thumbnails_and_names(qtbot, thumbnail_window) -> None:
    """The artist's case: group nodes with a parameter, Tab into the group, Ctrl+Tab out of it."""
    window = thumbnail_window
    assert window.files.load_example("lit_blinn_phong")
    assert_thumbnails_are_the_levels(qtbot, window)
    select(window, ["n7", "n8", "n9"])  # the rim: Fresnel, the rim colour parameter, their product
    press(qtbot, window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert_thumbnails_are_the_levels(qtbot, window)
    assert_parameter_nodes_are_named(window)
    (group,) = [node_id for node_id, node in window.graph_editor.material.nodes.items() if node.type_name == GROUP_TYPE]
    select(window, [group])
    press(qtbot, window, Qt.Key.Key_Tab)
    assert window.graph_editor.level is not None
    assert_thumbnails_are_the_levels(qtbot, window)
    assert_parameter_nodes_are_named(window)  # "Color Parameter: rim_color" inside the group
    press(qtbot, window, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert window.graph_editor.level is None
    assert_thumbnails_are_the_levels(qtbot, window)
    assert_parameter_nodes_are_named(window)
    window.edit.undo_action.trigger()  # back into the group, by the model's history
    assert window.graph_editor.level is not None
    assert_thumbnails_are_the_levels(qtbot, window)


def test_nested_groups_show_their_own_thumbnails_at_every_level(qtbot, thumbnail_window) -> None:
    window = thumbnail_window
    assert window.files.load_example("grouped_rock")
    assert_thumbnails_are_the_levels(qtbot, window)
    for _depth in range(2):
        level = window.graph_editor.level_material()
        group = min(node_id for node_id, node in level.nodes.items() if node.type_name == GROUP_TYPE)
        select(window, [group])
        press(qtbot, window, Qt.Key.Key_Tab)
        assert_thumbnails_are_the_levels(qtbot, window)
    assert len(window.graph_editor.path) == 2
    for _depth in range(2):
        press(qtbot, window, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
        assert_thumbnails_are_the_levels(qtbot, window)
    assert window.graph_editor.level is None
