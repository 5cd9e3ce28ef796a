"""Every preview implements the PreviewHost protocol the window relies on (no getattr probes)."""

from __future__ import annotations

import inspect

import pytest

from app.preview.context import DEFAULT_PROFILE
from app.preview.cpu_preview import CpuPreview
from app.preview.host import PreviewHost
from app.preview.widget import PreviewWidget, UnavailablePreview

MEMBERS = [name for name in dir(PreviewHost) if not name.startswith("_")] + [
    "programReady", "programFailed", "contextCreated"]


@pytest.mark.parametrize("preview_class", [PreviewWidget, UnavailablePreview, CpuPreview])
def test_previews_implement_the_whole_protocol(qtbot, preview_class: type) -> None:
    preview = preview_class() if preview_class is PreviewWidget else preview_class("no context", None, DEFAULT_PROFILE)
    qtbot.addWidget(preview)
    assert isinstance(preview, PreviewHost)
    for name in MEMBERS:
        assert hasattr(preview, name), f"{preview_class.__name__} lacks {name}"
        declared = getattr(PreviewHost, name, None)
        if inspect.isfunction(declared):
            expected = list(inspect.signature(declared).parameters)
            actual = list(inspect.signature(getattr(preview_class, name)).parameters)
            assert actual == expected, f"{preview_class.__name__}.{name}{actual} != protocol {expected}"


def test_the_protocol_declares_what_the_window_uses() -> None:
    for name in ("target", "available", "context_description", "set_artifact", "set_values", "parameter_values",
                 "show_problem", "grab_shown_frame", "grab_preview", "set_playing", "reset_camera"):
        assert name in MEMBERS
