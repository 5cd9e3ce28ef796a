"""`--screenshot` grabs the window as shown: the preview's error overlay included."""

from __future__ import annotations

from pathlib import Path

# --screenshot shows the preview's error overlay -----------------------------------------------


def _rgb(image):  # -> numpy array (numpy is imported lazily, like Qt)
    import numpy as np
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 3].reshape(
        image.height(), image.width(), 3).astype(int)


def test_window_screenshot_shows_the_preview_error_overlay(window, qtbot, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    from app.main import take_screenshot

    window.flush()
    qtbot.waitUntil(lambda: window.preview.renderer.program is not None, timeout=20_000)
    window.preview.show_problem("es320 target error: this overlay must be in the screenshot")
    assert window.preview.error_text
    png = tmp_path / "window.png"
    assert take_screenshot(window, str(png), 5.0, [True]) == 0
    shot = QImage(str(png))
    preview = window.preview
    assert shot.devicePixelRatio() == 1.0 and preview.devicePixelRatioF() == 1.0
    origin = preview.mapTo(window, preview.rect().topLeft())
    region = _rgb(shot.copy(origin.x(), origin.y(), preview.width(), preview.height()))
    framebuffer = _rgb(preview.grabFramebuffer())  # the image with the overlay, as on screen
    # pytest-xvfb's screen has 16-bit colour, so the window grab is quantized.
    assert abs(region - framebuffer).max() <= 10
