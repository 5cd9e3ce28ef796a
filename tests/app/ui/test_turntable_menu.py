"""File > Export Turntable... in a real window: the preview's material turning, written with imageio."""

from __future__ import annotations

from pathlib import Path

import imageio.v3 as iio


def test_file_export_turntable_writes_the_previews_material_turning(make_window, tmp_path: Path) -> None:
    window = make_window()
    movie = tmp_path / "from-menu.gif"
    window.prompts.choose_turntable_path = lambda _parent, _suggested: str(movie)
    assert window.turntable_commands.action in window.menuBar().actions()[0].menu().actions()
    assert window.turntable_commands.export_to(movie, frames=3, size=(40, 40))
    assert iio.imread(movie, index=None).shape[:3] == (3, 40, 40)
