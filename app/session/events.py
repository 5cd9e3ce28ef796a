"""Plain-Python events: how the Qt-free editor models tell the widgets what changed.

As in napari's models, a model owns one `Event` per kind of change and
emits it after its state is consistent; widgets `connect` a callback and
re-read what they show. Callbacks run synchronously, in connection order,
on the emitting thread. A callback that raises propagates to the emitter
(an event never swallows a bug).

Hand-written rather than psygnal (napari's library): the editor needs
connect, disconnect and emit with one typed payload, which is a few lines,
and a compiled dependency in the desktop bundle is not worth that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

Payload = TypeVar("Payload")


class Event(Generic[Payload]):
    """One kind of change with a typed payload; see the module docstring."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._callbacks: list[Callable[[Payload], object]] = []

    def connect(self, callback: Callable[[Payload], object]) -> Callable[[Payload], object]:
        """Call `callback(payload)` on every emit; returns it (usable as a decorator)."""
        if callback not in self._callbacks:
            self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[[Payload], object]) -> None:
        """Stop calling `callback`; a callback that is not connected is ignored."""
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, payload: Payload) -> None:
        # A copy: a callback may connect or disconnect while the event runs.
        for callback in list(self._callbacks):
            callback(payload)

    @property
    def callback_count(self) -> int:
        return len(self._callbacks)

    def __repr__(self) -> str:
        return f"Event({self.name!r}, {len(self._callbacks)} callback(s))"
