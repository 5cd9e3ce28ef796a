"""Issue 18 through the real window: live node thumbnails and "Preview This Node".

The thumbnails come from the worker thread (its own OpenGL context) and land
on the real NodeGraphQt nodes; an edit redraws exactly the nodes downstream
of it (the worker's draw counter and the images' identity say so); the
toggles hide one node's or every thumbnail; Time-dependent thumbnails are
redrawn while the preview plays and the others are not; the node menu pins a
node's output in the main preview until it is unpinned.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint

from app.material.node_previews import preview_port
from app.material.propagation import propagate
from app.material.traversal import connected_nodes
from app.ui.node_thumbnails import THUMBNAILS_SETTING, node_menu, show_node_menu
from app.workers import running_workers, wait_ended

pytestmark = pytest.mark.gl


@pytest.fixture
def thumbnail_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    window = make_window(load_example=False)
    return window


def open_example(window, name: str) -> None:
    assert window.files.load_example(name)
    window.flush()
    assert window.result is not None and window.result.ok
    assert window.thumbnails.wait(120), "thumbnails did not arrive"


def previewed(window) -> set[str]:
    graph = window.session.graph
    types = propagate(graph).port_types
    return {node_id for node_id in graph.nodes if preview_port(graph, node_id, types) is not None}


def images(window) -> dict[str, object]:
    found = {}
    for node in window.graph.material_nodes():
        image = node.view.thumbnail
        if image is not None:
            found[node.stable_id] = image
    return found


def test_every_node_with_a_value_shows_its_thumbnail(thumbnail_window) -> None:
    window = thumbnail_window
    open_example(window, "procedural_noise")
    shown = images(window)
    assert set(shown) == previewed(window)
    assert all(not image.isNull() and image.width() == window.thumbnails.size for image in shown.values())
    # A noise thumbnail is a pattern, not a flat swatch.
    noise = next(node for node in window.session.graph.nodes.values() if "noise" in node.type_name)
    side = window.thumbnails.size
    pixels = {shown[noise.id].pixel(x, y) for x in range(0, side, 6) for y in range(0, side, 6)}
    assert len(pixels) > 8


def test_an_edit_redraws_the_nodes_downstream_of_it_only(thumbnail_window) -> None:
    window = thumbnail_window
    open_example(window, "procedural_noise")
    service = window.thumbnails.service
    graph = window.session.graph
    noise = next(node_id for node_id, node in graph.nodes.items() if "noise" in node.type_name)
    before = images(window)
    draws, lowerings = service.draws, service.lowerings
    window.nodes.set_node_property(noise, "scale", 3.0)
    window.flush()
    assert window.thumbnails.wait(60)
    downstream = connected_nodes(graph, [noise], upstream=False) & previewed(window)
    after = images(window)
    assert service.draws - draws == len(downstream)
    assert service.lowerings - lowerings == 1  # a node property is part of the code: the module is lowered again
    for node_id in previewed(window):
        assert (after[node_id] is before[node_id]) == (node_id not in downstream), node_id


def test_a_parameter_value_redraws_its_readers_without_a_new_module(thumbnail_window) -> None:
    window = thumbnail_window
    open_example(window, "procedural_noise")
    service = window.thumbnails.service
    graph = window.session.graph
    parameter = next(node_id for node_id, node in graph.nodes.items() if node.properties.get("name") == "dark")
    before = images(window)
    draws, lowerings, links = service.draws, service.lowerings, service.links
    window.parameter_commands.set_parameter_value("dark", (0.9, 0.1, 0.1, 1.0))
    window.flush()
    assert window.thumbnails.wait(60)
    downstream = connected_nodes(graph, [parameter], upstream=False) & previewed(window)
    after = images(window)
    assert (service.lowerings, service.links) == (lowerings, links)  # values are uniforms
    assert service.draws - draws == len(downstream)
    for node_id in previewed(window):
        assert (after[node_id] is before[node_id]) == (node_id not in downstream), node_id


def test_toggles_per_node_and_for_all(thumbnail_window) -> None:
    window = thumbnail_window
    open_example(window, "textured")
    nodes = sorted(previewed(window))
    hidden = nodes[0]
    menu = node_menu(window, hidden)
    show = next(action for action in menu.actions() if action.text() == "Show &Thumbnail")
    assert show.isChecked()
    show.setChecked(False)
    assert not window.graph.node_by_stable_id(hidden).view.thumbnail_shown
    assert all(window.graph.node_by_stable_id(node).view.thumbnail_shown for node in nodes[1:])
    window.inspection.thumbnails_action.setChecked(False)
    assert not any(node.view.thumbnail_shown for node in window.graph.material_nodes())
    assert window.settings.value(THUMBNAILS_SETTING, type=bool) is False
    window.inspection.thumbnails_action.setChecked(True)
    assert window.thumbnails.wait(60)
    assert set(images(window)) == set(nodes) - {hidden}


def test_time_dependent_thumbnails_animate_while_the_preview_plays(thumbnail_window, qtbot) -> None:
    window = thumbnail_window
    open_example(window, "animated")
    program = window.thumbnails.program
    assert program is not None and program.animated
    still = previewed(window) - program.animated
    assert still
    before = images(window)
    window.preview.set_playing(True)
    try:
        qtbot.waitUntil(lambda: all(images(window)[node] is not before[node] for node in program.animated), timeout=30_000)
    finally:
        window.preview.set_playing(False)
    assert window.thumbnails.wait(60)
    after = images(window)
    assert all(after[node] is before[node] for node in still)


def test_preview_this_node_pins_it_until_unpinned(thumbnail_window, qtbot) -> None:
    window = thumbnail_window
    open_example(window, "procedural_noise")
    graph = window.session.graph
    noise = next(node_id for node_id, node in graph.nodes.items() if "noise" in node.type_name)
    material_fragment = window.session.current_artifact.fragment_code
    renderer = window.preview.renderer
    menu = node_menu(window, noise)
    pin = next(action for action in menu.actions() if action.text() == "&Preview This Node")
    pin.trigger()
    assert window.node_pin.pinned == noise
    qtbot.waitUntil(lambda: renderer.program is not None and renderer.program.artifact.fragment_code != material_fragment,
                    timeout=30_000)
    assert "Preview pinned to" in window.node_pin.label.text()
    assert window.node_pin.unpin_action.isEnabled()
    # An edit keeps the pin (the pinned sub-graph is lowered again).
    window.nodes.set_node_property(noise, "scale", 2.0)
    window.flush()
    assert window.node_pin.pinned == noise
    qtbot.waitUntil(lambda: renderer.program.artifact.fragment_code != window.session.current_artifact.fragment_code,
                    timeout=30_000)
    noise_fragment = renderer.program.artifact.fragment_code
    unpin = next(action for action in node_menu(window, noise).actions() if action.text() == "&Unpin Node Preview")
    unpin.trigger()
    assert window.node_pin.pinned is None and window.node_pin.label.text() == ""
    # The material's program again: the preview's (the scale was edited live: docs/editor.md, "Live values").
    material = window.session.preview_program(window.preview.target).artifact
    assert material is not None and material.fragment_code != noise_fragment
    qtbot.waitUntil(lambda: renderer.program.artifact.fragment_code == material.fragment_code, timeout=30_000)


def test_deleting_the_pinned_node_unpins(thumbnail_window) -> None:
    window = thumbnail_window
    open_example(window, "procedural_noise")
    graph = window.session.graph
    noise = next(node_id for node_id, node in graph.nodes.items() if "noise" in node.type_name)
    window.node_pin.set_pinned(noise)
    window.graph.clear_selection()
    window.graph.node_by_stable_id(noise).set_selected(True)
    window.graph_editor.delete_selection()
    window.flush()
    assert window.node_pin.pinned is None


def test_right_click_on_a_node_opens_its_menu(thumbnail_window, qtbot) -> None:
    window = thumbnail_window
    open_example(window, "textured")
    node = window.graph.material_nodes()[0]
    assert show_node_menu(window, node.id, QPoint(10, 10))
    assert node.selected()
    menu = next(widget for widget in window.findChildren(type(node_menu(window, node.stable_id))) if widget.isVisible())
    texts = [action.text() for action in menu.actions()]
    assert "Show &Thumbnail" in texts and "&Preview This Node" in texts and "&Delete" in texts
    menu.close()
    assert not show_node_menu(window, "no such node", QPoint(10, 10))


@pytest.mark.parametrize("large", [False, True], ids=["one module", "module of the nodes in view"])
def test_only_nodes_in_view_are_drawn_until_the_view_moves_to_them(thumbnail_window, qtbot, monkeypatch, large) -> None:
    """Also as a large graph's are drawn: its module holds the nodes in view, and grows when the view moves."""
    if large:
        from app.preview import thumbnails

        monkeypatch.setattr(thumbnails, "WHOLE_GRAPH_NODES", 0)
    window = thumbnail_window
    open_example(window, "procedural_noise")
    assert window.graph.viewer().isVisible()
    visible = window.graph.viewer().mapToScene(window.graph.viewer().viewport().rect()).boundingRect()
    far = (visible.right() + 3000.0, visible.bottom() + 2000.0)
    node = window.nodes.add_node_from_palette("time", far)
    window.flush()
    assert window.thumbnails.wait(60)
    assert node.view.thumbnail_shown  # its place is kept: the layout does not depend on the view
    assert node.view.thumbnail is None and node.stable_id not in window.thumbnails.shown
    lowerings = window.thumbnails.service.lowerings
    window.graph.center_on([node])
    qtbot.waitUntil(lambda: node.view.thumbnail is not None, timeout=60_000)
    assert window.thumbnails.shown[node.stable_id]
    if large:
        assert window.thumbnails.service.lowerings == lowerings + 1, "a node not in the module: a new module"
        assert window.thumbnails.program is not None and window.thumbnails.program.selector(node.stable_id) is not None


def test_closing_mid_stage_closes_at_once_and_quitting_waits_for_the_worker(thumbnail_window, monkeypatch, qtbot) -> None:
    """A worker in a long stage (a very large graph's lowering) neither holds the closing window nor is lost."""
    import threading

    from thumbnail_gate import gate_thumbnail_lowering

    from app.main import _end_background_work

    entered, go = gate_thumbnail_lowering(monkeypatch)
    window = thumbnail_window
    try:
        assert window.files.load_example("procedural_noise")
        window.flush()
        qtbot.waitUntil(entered.is_set, timeout=60_000)  # the thumbnails are asked for from the event loop
        assert window.close(), "the window closes while its worker is busy"
        assert window.thumbnails.service is not None and not window.thumbnails.service.started
        assert running_workers().count("vpl-thumbnails") == 1, "the busy worker runs on until it ends"
    finally:
        threading.Timer(0.2, go.set).start()  # lets the stage end while the quit below waits for it
    _end_background_work(0)  # what the editor does once its event loop has returned
    assert "vpl-thumbnails" not in running_workers()
    assert window.thumbnails.service.lowerings == 1 and window.thumbnails.service.links == 0


def test_a_large_graphs_thumbnails_settle_also_where_nodes_cannot_be_drawn(thumbnail_window) -> None:
    """701 nodes (a module of the nodes in view), sections of unused chains among them: every node in view
    gets its thumbnail or its reason, and nothing stays asked for (it once waited for good)."""
    from large_graphs import tiled_examples

    from app.preview import thumbnails

    window = thumbnail_window
    graph = tiled_examples(60)
    assert len(graph.nodes) > thumbnails.WHOLE_GRAPH_NODES
    window.load_graph(graph, "tiled examples")
    window.flush()
    assert window.thumbnails.wait(60), "thumbnails did not settle"
    service = window.thumbnails.service
    assert service is not None and service.lowerings >= 1
    assert window.thumbnails.program is not None and len(window.thumbnails.program.ports) < len(graph.nodes) // 2
    assert not window.thumbnails._requested_pending()


def test_a_window_destroyed_without_closing_stops_its_thumbnails_worker(qtbot, prompts, settings, recovery_dir) -> None:
    """Its worker would wait for jobs for good."""
    import shiboken6

    from app.ui.main_window import MainWindow
    from app.ui.recovery import RecoveryStore

    settings.setValue(THUMBNAILS_SETTING, True)
    window = MainWindow(prompts=prompts.as_prompts(), settings=settings, recovery=RecoveryStore(recovery_dir))
    window.show()
    qtbot.waitExposed(window)
    window.load_example()
    window.flush()
    assert window.thumbnails.wait(120)
    service = window.thumbnails.service
    assert service is not None and service.started
    shiboken6.delete(window)  # as Qt deletes a window with its parent, or Python a window it owns: no closeEvent
    assert wait_ended(60, "vpl-thumbnails"), "the worker ended"
