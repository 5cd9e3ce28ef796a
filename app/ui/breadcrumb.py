"""The breadcrumb above the graph: which level of the material the graph shows.

"Material › Wet mask › Noise" while the artist has tabbed into a group
inside a group; each name is a button that goes back to that level (the
last one, the level shown, is not clickable). Hidden at the material's own
level, where there is nothing to go back to. The window connects
`levelRequested(depth)` to `GraphEditor.exit_group(depth)`.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget


class Breadcrumb(QWidget):
    """See the module docstring."""

    #: The artist clicked the crumb `depth` levels deep (0: the material).
    levelRequested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("breadcrumb")
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(6, 2, 6, 2)
        self._layout.setSpacing(2)
        self._names: list[str] = []
        self.buttons: list[QToolButton] = []
        self.set_path(["Material"])

    @property
    def names(self) -> list[str]:
        return list(self._names)

    def set_path(self, names: list[str]) -> None:
        """Show `names`, outermost first ("Material", then each group tabbed into)."""
        self._names = list(names)
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.buttons = []
        for depth, name in enumerate(names):
            if depth:
                self._layout.addWidget(QLabel("›", self))
            button = QToolButton(self)
            button.setText(name)
            button.setAutoRaise(True)
            last = depth == len(names) - 1
            button.setEnabled(not last)
            button.setToolTip("The level shown (Ctrl+Tab goes up one)" if last else f"Back to {name}")
            button.clicked.connect(lambda _checked=False, level=depth: self.levelRequested.emit(level))
            self._layout.addWidget(button)
            self.buttons.append(button)
        self._layout.addStretch(1)
        self.setVisible(len(names) > 1)
