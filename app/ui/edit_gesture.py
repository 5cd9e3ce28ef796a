"""`EditGesture`: whether the user is in the middle of a continuing edit (a slider being dragged).

While a gesture continues, only the preview follows each lowering
(docs/editor.md "The graph-changed pipeline"): the thumbnails, port
types and markers, node costs, the diagnostics panel and the code view are
brought up to date once, when the gesture ends, as Substance Designer and
Unreal's material editor do. The window marks every `continuing` edit
(`continue_edit`) and ends the gesture on the first edit that does not
continue it, on a panel's slider release (`end`), or after `IDLE_END_MS`
without a step (a drag held still, or a gesture whose release no panel
reported), so the panels are never left behind for long.

Invariant: `ended` is emitted exactly once per gesture, after `active` has
become False, so its receivers see the same state a discrete edit gives.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

#: A gesture with no step for this long counts as ended (the panels catch up while the mouse is held still).
IDLE_END_MS = 400


class EditGesture(QObject):
    """See the module docstring."""

    #: The gesture ended: whatever was deferred while it continued is to be brought up to date now.
    ended = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._active = False
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(IDLE_END_MS)
        self._idle.timeout.connect(self.end)

    @property
    def active(self) -> bool:
        """A continuing edit was made and the gesture has not ended since."""
        return self._active

    def continue_edit(self) -> None:
        """A step of a gesture was applied (an edit made with `continuing=True`)."""
        self._active = True
        self._idle.start()

    def end(self) -> None:
        """The gesture is over (a discrete edit, a slider released, or idle): emits `ended` once."""
        self._idle.stop()
        if self._active:
            self._active = False
            self.ended.emit()
