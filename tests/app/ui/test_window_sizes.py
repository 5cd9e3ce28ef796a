"""The window at common screen sizes: every dock shows its content (screenshots in the test's folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QScrollArea, QWidget

from app.ui.recovery import RecoveryStore
from app.ui.window_layout import grab_window

SIZES = [(1366, 768), (1920, 1080)]


def _open(qtbot, prompts, settings, recovery_dir: Path, size: tuple[int, int], example: str | None = None):
    from app.ui.main_window import MainWindow

    window = MainWindow(prompts=prompts.as_prompts(), settings=settings, recovery=RecoveryStore(recovery_dir))
    qtbot.addWidget(window)
    window.resize(*size)
    window.load_example() if example is None else window.load_example(example)
    window.flush()
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.width() == size[0] and window.height() == size[1], timeout=5000)
    dock = window.parameters_dock
    qtbot.waitUntil(lambda: dock.widget().height() >= dock.widget().minimumSizeHint().height(), timeout=3000)
    return window


def _visible_in(scroll: QScrollArea, widget: QWidget) -> bool:
    """Whether `widget` lies wholly inside the scroll area's viewport, as scrolled now."""
    viewport = scroll.viewport()
    top_left = widget.mapTo(viewport, widget.rect().topLeft())
    return viewport.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_every_dock_shows_its_content_at_common_screen_sizes(qtbot, prompts, settings, recovery_dir: Path,
                                                             tmp_path: Path, size: tuple[int, int]) -> None:
    window = _open(qtbot, prompts, settings, recovery_dir, size)
    try:
        shot = tmp_path / f"window-{size[0]}x{size[1]}.png"
        grab_window(window).save(str(shot))
        print(f"screenshot: {shot}")
        for dock in (window.palette_dock, window.preview_dock, window.parameters_dock, window.properties_dock,
                     window.diagnostics_dock, window.code_dock):
            content = dock.widget()
            hint = content.minimumSizeHint()
            assert content.width() >= hint.width() and content.height() >= hint.height(), (
                dock.windowTitle(), content.size(), hint)
        # Material parameters: every row of the example without scrolling.
        panel = window.parameters_panel
        scroll = panel.findChild(QScrollArea)
        for spec in panel.specs:
            assert _visible_in(scroll, panel.editor(spec.name)), f"parameter {spec.name} is cut off"
        # Node properties: Fractal Noise's every property (basis and mode too) without scrolling.
        node = window.nodes.add_node_from_palette("fractal_noise")
        window.graph_editor.select_node(node.stable_id)
        window.nodes.refresh_properties()
        dock = window.properties_dock
        qtbot.waitUntil(lambda: dock.widget().height() >= dock.widget().minimumSizeHint().height(), timeout=3000)
        shot = tmp_path / f"fractal-{size[0]}x{size[1]}.png"
        grab_window(window).save(str(shot))
        print(f"screenshot: {shot}")
        properties = window.properties_panel
        scroll = properties.findChild(QScrollArea)
        for spec in node.CATALOG_TYPE.properties:
            editor = properties.editor_widget(spec.name)
            assert _visible_in(scroll, editor), f"Fractal Noise's {spec.name} is cut off"
    finally:
        window.close()


def test_custom_code_is_read_without_scrolling_sideways_at_1366x768(qtbot, prompts, settings, recovery_dir: Path,
                                                                   tmp_path: Path) -> None:
    window = _open(qtbot, prompts, settings, recovery_dir, (1366, 768), "custom_posterize")
    try:
        node_id = next(node_id for node_id, node in window.material.nodes.items() if node.type_name == "custom_code")
        window.nodes.select_node(node_id)
        dock = window.properties_dock
        qtbot.waitUntil(lambda: dock.widget().height() >= dock.widget().minimumSizeHint().height(), timeout=3000)
        editor = window.properties_panel.findChild(QWidget, "customCodeEditor")
        assert editor is not None and editor.isVisible()
        text = editor.text
        longest = max(text.toPlainText().splitlines(), key=len)
        scroll = window.properties_panel.findChild(QScrollArea)

        def wraps() -> None:
            """Once the panel's layout has reached the dock's width (layout requests are posted events)."""
            assert text.fontMetrics().horizontalAdvance(longest) > text.viewport().width()  # the code is wider...
            assert text.horizontalScrollBar().maximum() == 0  # ...and wraps instead of scrolling
            wide = [(w.objectName() or type(w).__name__, w.minimumSizeHint().width())
                    for w in scroll.widget().findChildren(QWidget)
                    if w.minimumSizeHint().width() > scroll.viewport().width() - 80]
            assert scroll.horizontalScrollBar().maximum() == 0, (scroll.viewport().width(), wide)

        qtbot.waitUntil(wraps, timeout=3000)
        grab_window(window).save(str(tmp_path / "custom-code-1366x768.png"))
    finally:
        window.close()
