"""The graph overview (minimap) in the real window: placement, navigation, following edits, the toggle.

Driven through the real NodeGraphQt widget under Xvfb. Where the overview
draws a node is checked against a mapping written here from the layout's
definition (the graph's bounding box fitted, centred, into the overview
with its margin) and by reading the pixels the overview painted.
"""

from __future__ import annotations

from collections.abc import Callable

from large_graphs import add_parameter_clash, tiled_examples
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRectF, QSettings, Qt
from PySide6.QtGui import QColor, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from app.graph.overview import INNER_MARGIN, OVERVIEW_SETTING, layout_of
from app.material.graph import MaterialGraph

WAIT_MS = 5_000


def _big_graph_with_an_error() -> MaterialGraph:
    """5 framed example sections, plus two parameters that share a name (an error) feeding the output."""
    graph = tiled_examples(5)
    add_parameter_clash(graph)
    return graph


def _open_big(window, qtbot, graph: MaterialGraph | None = None):
    window.load_graph(graph if graph is not None else _big_graph_with_an_error(), "big")
    window.flush()  # the lowering's markers are in the drawing before the test looks
    window.frame_all()
    overview = window.inspection.overview
    qtbot.waitUntil(overview.isVisible, timeout=WAIT_MS)
    overview.rebuild()
    return overview


def _scene_bounds(window) -> QRectF:
    bounds = QRectF()
    for node in window.graph.all_nodes():
        bounds = bounds.united(node.view.sceneBoundingRect())
    return bounds


def _expected_point(overview, bounds: QRectF, point: QPointF) -> QPointF:
    """Where the overview must draw scene `point`: the bounds fitted into it with the margin, centred."""
    scale = min((overview.width() - 2 * INNER_MARGIN) / bounds.width(),
                (overview.height() - 2 * INNER_MARGIN) / bounds.height())
    return QPointF(overview.width() / 2 + (point.x() - bounds.center().x()) * scale,
                   overview.height() / 2 + (point.y() - bounds.center().y()) * scale)


def _visible_centre(window) -> QPointF:
    viewer = window.graph.viewer()
    return viewer.mapToScene(viewer.viewport().rect()).boundingRect().center()


def _overview_scale(overview) -> float:
    return overview.scene_to_overview(QPointF(1.0, 0.0)).x() - overview.scene_to_overview(QPointF(0.0, 0.0)).x()


def test_the_overview_draws_every_node_at_its_place_in_its_colour(window, qtbot) -> None:
    overview = _open_big(window, qtbot)
    qtbot.waitUntil(lambda: any(node.problem == "error" for node in overview.layout_shown.nodes), timeout=WAIT_MS)
    overview.rebuild()
    bounds = _scene_bounds(window)
    assert overview.layout_shown.bounds == bounds
    drawing = overview.cached_drawing().toImage()
    ratio = drawing.devicePixelRatio()
    material_nodes = window.graph.material_nodes()
    expected = len(_big_graph_with_an_error().nodes)  # the examples' sizes change (66 since they use Surface Output)
    assert len(material_nodes) == expected and len(overview.layout_shown.nodes) == expected
    assert len(overview.layout_shown.frames) == 5
    errors = 0
    for node in material_nodes:
        rect = node.view.sceneBoundingRect()
        expected = _expected_point(overview, bounds, rect.center())
        mapped = overview.scene_to_overview(rect.center())
        assert abs(mapped.x() - expected.x()) < 0.01 and abs(mapped.y() - expected.y()) < 0.01
        pixel = drawing.pixelColor(int(expected.x() * ratio), int(expected.y() * ratio))
        if node.view.diagnostics and not node.view.diagnostics[0].startswith("warning: "):
            errors += 1
            assert (pixel.red(), pixel.green(), pixel.blue()) == (235, 64, 52), node.name()
        else:
            # The node's own colour (its header's hue), light enough to see at a few pixels.
            header = QColor(*node.color()[:3])
            assert pixel.lightnessF() >= 0.44, node.name()
            if header.hslSaturationF() > 0.15 and header.lightnessF() > 0.1:
                hue_distance = abs(pixel.hslHueF() - header.hslHueF())
                assert min(hue_distance, 1.0 - hue_distance) < 0.03, node.name()
    assert errors == 2  # the two parameters that share a name
    # The view's rectangle is drawn where the view is (its left edge, halfway down, is near white).
    shown = overview.grab().toImage()
    visible = window.graph.viewer().mapToScene(window.graph.viewer().viewport().rect()).boundingRect()
    edge = _expected_point(overview, bounds, QPointF(visible.left(), visible.center().y()))
    if 2 < edge.x() < overview.width() - 2 and 2 < edge.y() < overview.height() - 2:
        pixel = shown.pixelColor(int(edge.x() * shown.devicePixelRatio()), int(edge.y() * shown.devicePixelRatio()))
        assert min(pixel.red(), pixel.green(), pixel.blue()) > 150


def test_clicking_and_dragging_in_the_overview_pans_the_real_view(window, qtbot) -> None:
    overview = _open_big(window, qtbot)
    zoom = window.graph.viewer().transform().m11()
    tolerance = 1.5 / _overview_scale(overview)  # one and a half overview pixels, in scene units
    bounds = _scene_bounds(window)
    # Click far from the view: the view jumps there, zoom unchanged.
    target = QPointF(bounds.right() - 100.0, bounds.bottom() - 100.0)
    press = overview.scene_to_overview(target).toPoint()
    QTest.mousePress(overview, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, press)
    centre = _visible_centre(window)
    assert abs(centre.x() - target.x()) < tolerance and abs(centre.y() - target.y()) < tolerance
    # Drag: the view follows the mouse.
    move = press - QPoint(60, 30)
    QTest.mouseMove(overview, move)
    QTest.mouseRelease(overview, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, move)
    expected = overview.overview_to_scene(QPointF(move))
    centre = _visible_centre(window)
    assert abs(centre.x() - expected.x()) < tolerance and abs(centre.y() - expected.y()) < tolerance
    assert abs(window.graph.viewer().transform().m11() - zoom) < 1e-9
    # Grabbing the view's rectangle off its centre moves it by the mouse's travel, without a jump.
    before = _visible_centre(window)
    grab = (overview.scene_to_overview(before) + QPointF(5.0, 3.0)).toPoint()
    QTest.mousePress(overview, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, grab)
    after_press = _visible_centre(window)
    assert abs(after_press.x() - before.x()) < tolerance and abs(after_press.y() - before.y()) < tolerance
    QTest.mouseMove(overview, grab + QPoint(20, 10))
    QTest.mouseRelease(overview, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, grab + QPoint(20, 10))
    travelled = _visible_centre(window) - before
    scale = _overview_scale(overview)
    assert abs(travelled.x() - 20 / scale) < tolerance and abs(travelled.y() - 10 / scale) < tolerance


def test_the_overview_follows_adding_moving_and_deleting_nodes(window, qtbot) -> None:
    overview = _open_big(window, qtbot)
    count = len(overview.layout_shown.nodes)
    bounds = overview.layout_shown.bounds
    far = (bounds.right() + 2000.0, bounds.bottom() + 1000.0)
    node = window.nodes.add_node_from_palette("time", far)
    qtbot.waitUntil(lambda: len(overview.layout_shown.nodes) == count + 1, timeout=WAIT_MS)
    assert overview.layout_shown.bounds.contains(node.view.sceneBoundingRect())
    assert overview.layout_shown.bounds.right() >= far[0]
    renders = overview.renders
    node.set_pos(bounds.left() - 1500.0, bounds.top())
    qtbot.waitUntil(lambda: overview.layout_shown.bounds.left() <= bounds.left() - 1500.0, timeout=WAIT_MS)
    assert overview.renders > renders
    window.graph.delete_nodes([node])
    qtbot.waitUntil(lambda: len(overview.layout_shown.nodes) == count, timeout=WAIT_MS)
    assert overview.layout_shown.bounds == bounds
    # Undo brings it back, in the overview too.
    window.edit.undo_action.trigger()
    qtbot.waitUntil(lambda: len(overview.layout_shown.nodes) == count + 1, timeout=WAIT_MS)


class _Paints(QObject):
    """Counts a widget's paint events (the view's viewport repaints after every pan and zoom)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_panning_and_zooming_reuse_the_cached_drawing(window, qtbot) -> None:
    overview = _open_big(window, qtbot)
    overview.rebuild()
    renders = overview.renders
    bounds = overview.layout_shown.bounds
    viewer = window.graph.viewer()
    paints = _Paints(viewer.viewport())

    def repainted(move: Callable[..., object], *args: object) -> None:
        """Pans or zooms the view, then waits for its repaint: the overview follows the view there."""
        painted, shown = paints.count, overview.visible_scene_rect()
        move(*args)
        qtbot.waitUntil(lambda: paints.count > painted, timeout=WAIT_MS)
        assert overview.visible_scene_rect() != shown

    for step in range(6):
        repainted(overview.center_view_on, QPointF(bounds.left() + step * bounds.width() / 6, bounds.center().y()))
    repainted(viewer.set_zoom, -0.2)
    overview.rebuild()
    assert overview.renders == renders  # the view moved, the graph did not: no repaint of the drawing


def test_the_wheel_over_the_overview_zooms_the_view(window, qtbot) -> None:
    overview = _open_big(window, qtbot)
    viewer = window.graph.viewer()
    before = viewer.transform().m11()
    centre = QPointF(overview.rect().center())
    wheel = QWheelEvent(centre, QPointF(overview.mapToGlobal(centre.toPoint())), QPoint(), QPoint(0, 120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(overview, wheel)
    assert viewer.transform().m11() > before * 1.01


def test_the_overview_hides_when_the_graph_fits(window, qtbot) -> None:
    overview = window.inspection.overview
    window.frame_all()
    # The overview has read the graph (its scheduled rebuild ran), and the example fits the view.
    qtbot.waitUntil(lambda: overview.layout_shown == layout_of(window.graph.all_nodes()), timeout=WAIT_MS)
    assert overview.graph_fits() and overview.layout_shown.nodes
    qtbot.waitUntil(lambda: not overview.isVisible(), timeout=WAIT_MS)
    _open_big(window, qtbot)
    # Zoomed out until the whole graph is in view: nothing left to navigate.
    viewer = window.graph.viewer()
    bounds = _scene_bounds(window).adjusted(-50, -50, 50, 50)
    viewer.set_scene_rect([bounds.x(), bounds.y(), bounds.width(), bounds.height()])
    qtbot.waitUntil(lambda: not overview.isVisible(), timeout=WAIT_MS)


def test_view_overview_toggles_it_and_is_remembered(window, make_window, settings: QSettings, qtbot) -> None:
    overview = _open_big(window, qtbot)
    action = window.inspection.overview_action
    assert action.isChecked() and action in window.menuBar().actions()[2].menu().actions()
    action.trigger()
    assert not action.isChecked() and not overview.isVisible() and not overview.enabled
    assert settings.value(OVERVIEW_SETTING, type=bool) is False
    second = make_window()
    assert not second.inspection.overview_action.isChecked()
    _second_graph = _big_graph_with_an_error()
    second.load_graph(_second_graph, "big")
    second.frame_all()
    second.inspection.overview.rebuild()
    assert not second.inspection.overview.graph_fits()  # hidden below because it is off, not because the graph fits
    assert not second.inspection.overview.isVisible()
    second.inspection.overview_action.trigger()
    assert second.inspection.overview.isVisible() and settings.value(OVERVIEW_SETTING, type=bool) is True


def test_the_overview_moves_out_of_the_way_of_the_nodes(window, qtbot) -> None:
    overview = _open_big(window, qtbot)
    viewer = window.graph.viewer()
    # The graph's top-left node in the view's bottom-right corner, where the overview sits: the rest
    # of the graph is below and to the right of it, out of view, so the other corners are empty.
    first = min(window.graph.material_nodes(), key=lambda node: (node.view.sceneBoundingRect().top()
                                                                 + node.view.sceneBoundingRect().left()))
    rect = first.view.sceneBoundingRect()
    viewport = viewer.viewport().rect()
    scale = viewer.transform().m11()
    target = QPointF(viewport.width() - 40 - rect.width() * scale / 2, viewport.height() - 40 - rect.height() * scale / 2)
    centre = rect.center() - QPointF(target.x() - viewport.width() / 2, target.y() - viewport.height() / 2) / scale
    overview.center_view_on(centre)
    QApplication.processEvents()
    qtbot.waitUntil(overview.isVisible, timeout=WAIT_MS)
    origin = viewer.viewport().geometry().topLeft()
    under = [node.name() for node in window.graph.material_nodes()
             if viewer.mapFromScene(node.view.sceneBoundingRect()).boundingRect().translated(origin)
             .intersects(overview.geometry())]
    assert viewer.mapFromScene(rect.center()).x() > viewport.width() / 2  # the node is where the overview was
    assert under == [], f"the overview covers {under}"
