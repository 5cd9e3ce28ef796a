"""Holding the node thumbnails' worker inside its lowering, for as long as a test wants.

The real lowering runs once the test sets `go`; until then the worker is in
the middle of a stage, as it is for tens of seconds with a very large graph.
"""

from __future__ import annotations

import threading

import pytest

from app.preview import thumbnails


def gate_thumbnail_lowering(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """(entered, go): the worker's lowering sets `entered`, then waits for `go` before it lowers for real."""
    entered, go = threading.Event(), threading.Event()
    real = thumbnails.lower_thumbnails

    def gated(*args: object, **kwargs: object) -> object:
        entered.set()
        assert go.wait(120), "the test never let the lowering go"
        return real(*args, **kwargs)

    monkeypatch.setattr(thumbnails, "lower_thumbnails", gated)
    return entered, go
