"""Chipped painted metal built in the real window with the mouse and keyboard only, then checked.

An artist's path: a new material, nodes from the palette (a drag, double-clicks) and
from Tab search (typing a name, Return), every wire a mouse drag from port
to port in the view, every value typed or dragged in place on its node (a
colour swatch opens the colour dialog: its answer is the one stand-in).
Then every node's thumbnail must equal the sub-graph feeding it rendered
alone (lowered on its own and drawn by a thumbnail worker of its own), and
the saved document must open with a module that lowers and verifies.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication

from app.graph.input_values import InputValueItem
from app.material.document import load_text
from app.material.graph import MaterialGraph
from app.material.lowering import lower
from app.material.node_previews import material_output_name
from app.material.traversal import connected_nodes
from app.preview.images import qimage_to_rgba
from app.preview.thumbnails import ThumbnailBatch, ThumbnailJob, ThumbnailService, wait_until
from app.ui.node_thumbnails import SWATCH_DISPLAY, THUMBNAILS_SETTING

pytestmark = pytest.mark.gl

PAINT = (0.55, 0.06, 0.04)  # linear red paint
METAL = (0.56, 0.57, 0.58)  # linear bare steel


@pytest.fixture
def thumbnail_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    return make_window(load_example=False)


def encode(value: float) -> float:
    """A linear value as the display shows it (sRGB encoding)."""
    return 12.92 * value if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055


class Gestures:
    """The mouse and keyboard on the real window's palette, node search and graph view."""

    def __init__(self, window, qtbot) -> None:
        self.window = window
        self.qtbot = qtbot
        self.viewer = window.graph.viewer()
        self.viewport = self.viewer.viewport()

    def _new_node(self, before: set[str], type_name: str) -> str:
        added = set(self.window.material.nodes) - before
        assert len(added) == 1, (type_name, added)
        node_id = added.pop()
        assert self.window.material.nodes[node_id].type_name == type_name
        return node_id

    def from_palette(self, type_name: str) -> str:
        before = set(self.window.material.nodes)
        tree = self.window.node_palette.tree
        item = self.window.node_palette.item_for(type_name)
        tree.scrollToItem(item)
        centre = tree.visualItemRect(item).center()
        # What a real double-click delivers: press, release, press + double-click, release.
        self.qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        self.qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        self.qtbot.mouseRelease(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        return self._new_node(before, type_name)

    def from_palette_drop(self, type_name: str) -> str:
        """Drag a palette entry onto empty space in the view. Qt's drag loop cannot be driven from a test (it
        runs its own event loop), so the drag's events reach the view as the loop delivers them: enter, move,
        drop, with the palette's own MIME data."""
        before = set(self.window.material.nodes)
        mime = self.window.node_palette.tree.mimeData([self.window.node_palette.item_for(type_name)])
        point = QPointF(self._empty_point((240, 160)))
        copy, left = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
        none = Qt.KeyboardModifier.NoModifier
        for event in (QDragEnterEvent(point.toPoint(), copy, mime, left, none),
                      QDragMoveEvent(point.toPoint(), copy, mime, left, none),
                      QDropEvent(point, copy, mime, left, none)):
            QApplication.sendEvent(self.viewport, event)
        node_id = self._new_node(before, type_name)
        dropped = self.window.graph.node_by_stable_id(node_id).view.scenePos()
        assert (dropped - self.viewer.mapToScene(point.toPoint())).manhattanLength() < 2  # where it was dropped
        return node_id

    def from_search(self, typed: str, type_name: str) -> str:
        before = set(self.window.material.nodes)
        # A click on empty space in the view (it takes the keyboard focus, selects nothing), then Tab there.
        self.window.activateWindow()
        self.qtbot.waitUntil(self.window.isActiveWindow, timeout=5000)
        empty = self._empty_point()
        self.qtbot.mouseClick(self.viewport, Qt.MouseButton.LeftButton, pos=empty)
        assert self.viewer.hasFocus()
        self.qtbot.keyClick(self.viewer, Qt.Key.Key_Tab)
        search = self.window.graph.node_search
        self.qtbot.waitUntil(search.isVisible, timeout=5000)
        self.qtbot.keyClicks(search.field, typed)
        self.qtbot.keyClick(search.field, Qt.Key.Key_Return)
        self.qtbot.waitUntil(lambda: len(self.window.material.nodes) > len(before), timeout=5000)
        return self._new_node(before, type_name)

    def _empty_point(self, room: tuple[int, int] = (1, 1)) -> QPoint:
        """A point of the view with `room` below and right of it over no node, wire or overlay (the overview
        map is a child widget)."""
        rect = self.viewport.rect()
        for y in range(rect.height() // 8, rect.height() * 3 // 4, 20):
            for x in range(rect.width() // 8, rect.width() * 3 // 4, 20):
                point = QPoint(x, y)
                area = QRect(point, QSize(*room))
                if rect.contains(area) and not self.viewer.items(area) and self.viewport.childAt(point) is None:
                    return point
        raise AssertionError("no empty space in the view")

    def _show(self, *items) -> None:
        """Frame the whole graph (the F key's view), so every port and value is on screen."""
        self.window.frame_all()
        QApplication.processEvents()
        rect = self.viewport.rect()
        for item in items:
            assert rect.contains(self.viewer.mapFromScene(item.sceneBoundingRect().center())), item

    def wire(self, source: str, output: str, target: str, input_: str) -> None:
        graph = self.window.graph
        source_item = graph.node_by_stable_id(source).outputs()[output].view
        target_item = graph.node_by_stable_id(target).inputs()[input_].view
        self._show(source_item, target_item)
        start = self.viewer.mapFromScene(source_item.sceneBoundingRect().center())
        end = self.viewer.mapFromScene(target_item.sceneBoundingRect().center())
        self.qtbot.mousePress(self.viewport, Qt.MouseButton.LeftButton, pos=start)
        for step in range(1, 6):
            self.qtbot.mouseMove(self.viewport, start + (end - start) * (step / 5))
        self.qtbot.mouseRelease(self.viewport, Qt.MouseButton.LeftButton, pos=end)
        wires = {(c.source_node, c.source_port, c.target_node, c.target_port) for c in self.window.material.connections}
        assert (source, output, target, input_) in wires, (source, output, target, input_,
                                                          self.window.statusBar().currentMessage())

    def value_item(self, node_id: str, name: str) -> InputValueItem:
        node = self.window.graph.node_by_stable_id(node_id)
        return next(item for item in node.view.input_values if item.name == name)

    def _point(self, item: InputValueItem) -> QPoint:
        self._show(item)
        return self.viewer.mapFromScene(item.sceneBoundingRect().center())

    def type_value(self, node_id: str, name: str, text: str) -> None:
        item = self.value_item(node_id, name)
        self.qtbot.mouseClick(self.viewport, Qt.MouseButton.LeftButton, pos=self._point(item))
        editor = item.editor
        assert editor is not None and editor.isVisible(), (node_id, name)
        self.qtbot.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        self.qtbot.keyClicks(editor, text)
        self.qtbot.keyClick(editor, Qt.Key.Key_Return)
        assert self.window.material.nodes[node_id].properties[name] == pytest.approx(float(text))

    def drag_value(self, node_id: str, name: str, pixels: int) -> float:
        item = self.value_item(node_id, name)
        before = float(self.window.material.nodes[node_id].properties.get(name, item.value))
        start = self._point(item)
        self.qtbot.mousePress(self.viewport, Qt.MouseButton.LeftButton, pos=start)
        for step in range(1, 5):
            self.qtbot.mouseMove(self.viewport, start + QPoint(pixels * step // 4, 0))
        self.qtbot.mouseRelease(self.viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(pixels, 0))
        after = float(self.window.material.nodes[node_id].properties[name])
        assert (after > before) == (pixels > 0) and after != before, (node_id, name, before, after)
        return after

    def pick_colour(self, node_id: str, name: str, linear: tuple[float, float, float], monkeypatch) -> None:
        """Click the swatch; the colour dialog (display-encoded, as the picker shows it) answers `linear`."""
        answer = QColor.fromRgbF(*(encode(component) for component in linear), 1.0)
        monkeypatch.setattr(InputValueItem, "pick_color", staticmethod(lambda _initial, _parent: answer))
        item = self.value_item(node_id, name)
        self.qtbot.mouseClick(self.viewport, Qt.MouseButton.LeftButton, pos=self._point(item))
        stored = self.window.material.nodes[node_id].properties[name]
        assert stored[:3] == pytest.approx(linear, abs=4e-3), (node_id, name, stored)


def build_chipped_paint(window, qtbot, monkeypatch) -> dict[str, str]:
    """The material, by gestures only; its node ids by role."""
    assert window.files.new_document()  # a Surface Output
    output = next(node_id for node_id, node in window.material.nodes.items() if node.type_name == "surface_output")
    act = Gestures(window, qtbot)
    uv = act.from_palette_drop("texcoord")
    chips = act.from_search("Fractal Noise", "fractal_noise")
    mask = act.from_search("Smooth Step", "smoothstep")
    paint = act.from_palette("mix_color")
    rough = act.from_search("Remap", "remap")
    grime = act.from_palette("value_noise")
    grime_amount = act.from_search("Multiply", "multiply")
    roughness = act.from_palette("add")
    bump = act.from_search("Normal From Height", "normal_from_height")
    occlusion = act.from_search("One Minus", "one_minus")

    act.wire(uv, "out", chips, "uv")
    act.wire(uv, "out", grime, "uv")
    act.wire(chips, "out", mask, "x")
    act.wire(mask, "out", paint, "t")
    act.wire(paint, "out", output, "base_color")
    act.wire(mask, "out", output, "metallic")
    act.wire(mask, "out", rough, "x")
    act.wire(grime, "out", grime_amount, "a")
    act.wire(rough, "out", roughness, "a")
    act.wire(grime_amount, "out", roughness, "b")
    act.wire(roughness, "out", output, "roughness")
    act.wire(mask, "out", bump, "height")
    act.wire(bump, "normal_out", output, "normal")
    act.wire(mask, "out", occlusion, "x")
    act.wire(occlusion, "out", output, "ambient_occlusion")

    act.type_value(chips, "scale", "6")
    act.type_value(mask, "edge0", "0.46")
    act.type_value(mask, "edge1", "0.54")
    act.pick_colour(paint, "a", PAINT, monkeypatch)
    act.pick_colour(paint, "b", METAL, monkeypatch)
    act.type_value(rough, "out_min", "0.6")
    act.type_value(rough, "out_max", "0.25")
    act.drag_value(grime, "scale", 40)
    act.type_value(grime_amount, "b", "0.15")
    act.type_value(bump, "strength", "2")
    return {"output": output, "uv": uv, "chips": chips, "mask": mask, "paint": paint, "rough": rough, "grime": grime,
            "grime_amount": grime_amount, "roughness": roughness, "bump": bump, "occlusion": occlusion}


def sub_graph(graph: MaterialGraph, node_id: str) -> MaterialGraph:
    """`node_id` and every node feeding it, alone: the other nodes and their wires removed."""
    alone = graph.copy()
    keep = connected_nodes(graph, [node_id])
    for other in [other for other in alone.nodes if other not in keep]:
        alone.remove_node(other)
    return alone


def render_alone(profile, graph: MaterialGraph, node_ids: list[str], stage: dict, output_name: str) -> dict[str, QImage]:
    """Each node's sub-graph lowered on its own and drawn by a thumbnail worker of its own (its own context)."""
    service = ThumbnailService(profile)
    finals: dict[int, ThumbnailBatch] = {}
    images: dict[str, QImage] = {}

    def received(batch: ThumbnailBatch) -> None:
        images.update(batch.images)
        if batch.final:
            finals[batch.generation] = batch

    service.rendered.connect(received)
    try:
        for generation, node_id in enumerate(node_ids, start=1):
            service.submit(ThumbnailJob(generation=generation, graph=sub_graph(graph, node_id), structure=node_id,
                                        output_name=output_name, nodes=(node_id,), stage=stage,
                                        fingerprints={node_id: node_id}))
            assert wait_until(lambda g=generation: g in finals, QApplication.processEvents, 60), node_id
            assert node_id in images, (node_id, finals[generation].problem, finals[generation].program
                                       and finals[generation].program.problems)
    finally:
        service.stop()
    return images


def pixels(image: QImage) -> np.ndarray:
    return qimage_to_rgba(image).astype(int)


def test_chipped_paint_built_by_gestures_shows_true_thumbnails_and_saves(thumbnail_window, qtbot, monkeypatch,
                                                                        tmp_path: Path) -> None:
    window = thumbnail_window
    roles = build_chipped_paint(window, qtbot, monkeypatch)
    graph = window.material
    assert len(graph.nodes) == 11 and len(graph.connections) == 15
    window.frame_all()
    window.flush()
    assert window.result is not None and window.result.ok, [d.message for d in window.result.diagnostics]
    assert window.thumbnails.wait(120), "thumbnails did not arrive"

    # Every node landed in free space and kept free once its thumbnail made it taller.
    rects = {node.stable_id: node.view.sceneBoundingRect() for node in window.graph.material_nodes()}
    covering = [(a, b) for a in rects for b in rects if a < b and rects[a].intersects(rects[b])]
    assert covering == []

    shown = {node.stable_id: node.view.thumbnail for node in window.graph.material_nodes()
             if node.view.thumbnail is not None}
    assert set(shown) == set(graph.nodes) - {roles["output"]}, window.thumbnails.program.problems
    document = window.session.graph
    stage = {**window.preview_panel.toolbar.stage.to_dict(), **SWATCH_DISPLAY}  # the stage thumbnails are drawn on
    alone = render_alone(window.preview.profile, document, sorted(shown), stage, material_output_name(document))
    for node_id, image in shown.items():
        difference = np.abs(pixels(image) - pixels(alone[node_id]))
        # Two programs compute the value (the thumbnail module's selector branch and the sub-graph alone): the
        # driver may round a last bit differently, one step of 8 bits on a rare pixel (more on a sharp chip edge).
        label = (node_id, graph.nodes[node_id].type_name, int(difference.max()), float((difference > 1).mean()))
        assert (difference > 1).mean() < 0.01 and difference.mean() < 0.5, label

    # The thumbnails show the material, not a blank: the mask is two-toned, the paint mixes the two colours.
    mask = pixels(shown[roles["mask"]])[..., :3]
    assert mask.min() < 40 and mask.max() > 215
    paint = pixels(shown[roles["paint"]])[..., :3].reshape(-1, 3)
    for colour in (PAINT, METAL):  # both swatches' colours, as the display shows them, where the mask is 0 or 1
        expected = np.array([round(255 * encode(component)) for component in colour])
        assert (np.abs(paint - expected).max(axis=1) <= 2).any(), (colour, expected)

    target = tmp_path / "chipped_paint.vpl"
    assert window.save_to(target)
    reopened = load_text(target.read_bytes(), str(target))
    assert reopened.graph is not None and not reopened.read_only, reopened.message
    assert reopened.verified is not None, [d.message for d in reopened.diagnostics]
    assert reopened.graph == graph
    result = lower(reopened.graph)
    assert result.ok and result.verified is not None, [d.message for d in result.diagnostics]
