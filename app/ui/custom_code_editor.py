"""The Custom Code node's editors: the VPL body with highlighting and live diagnostics, and its ports.

`CustomCodeEditor` edits the body of a Custom Code node (VPL instructions
in the text format, app/material/custom_code.py). It checks the text as the
artist types, with the reader and verifier through `custom_code.check`
(cached), against the node's declared ports: each problem is underlined at
its line and listed as "line L, column C: message"; clicking one puts the
cursor there. The text reaches the node (one undo step) on Apply or
Ctrl+Return, never while typing, so a half-typed line never breaks the
material. `VplHighlighter` colours the text format: the head of each form
(`load`, `multiply`, `block`), registers, type ids, strings, numbers and
comments.

"Open in Window" edits the same code in a larger, non-modal `CodeWindow`.

`PortsEdit` edits a declared port list as text: `color: color, amount:
float`. Text that does not parse is marked and not committed.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.material.custom_code import CodeDiagnostic, check
from app.material.port_types import PortType

ERROR_COLOR = QColor(235, 64, 52)


def _format(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    text_format = QTextCharFormat()
    text_format.setForeground(QColor(color))
    if bold:
        text_format.setFontWeight(QFont.Weight.Bold)
    text_format.setFontItalic(italic)
    return text_format


class VplHighlighter(QSyntaxHighlighter):
    """Colours for the VPL text format (rules applied in order; later ones win where they overlap)."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._rules = [
            (QRegularExpression(r"-?\b\d+(\.\d*)?([eE][-+]?\d+)?\b"), _format("#b5cea8")),
            (QRegularExpression(r"\b[A-Z][A-Za-z0-9_]*\b"), _format("#4ec9b0")),
            (QRegularExpression(r"\br\d+\b"), _format("#9cdcfe")),
            (QRegularExpression(r"(?<=\()[a-z_][a-z0-9_]*"), _format("#c586c0", bold=True)),
            (QRegularExpression(r'"(?:[^"\\]|\\.)*"'), _format("#ce9178")),
            (QRegularExpression(r"//[^\n]*"), _format("#6a9955", italic=True)),
        ]

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        for expression, text_format in self._rules:
            matches = expression.globalMatch(text)
            while matches.hasNext():
                match = matches.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), text_format)


class _CodeText(QPlainTextEdit):
    """The text field: Ctrl+Return applies; Tab inserts two spaces (it never leaves the field mid-edit)."""

    applyRequested = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.applyRequested.emit()
            return
        if event.key() == Qt.Key.Key_Tab and not event.modifiers():
            self.insertPlainText("  ")
            return
        super().keyPressEvent(event)


class CustomCodeEditor(QWidget):
    """See the module docstring."""

    #: The artist applied this text (Apply or Ctrl+Return).
    codeCommitted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("customCodeEditor")
        self.text = _CodeText(self)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.text.setFont(font)
        # Wrapped at the panel's width: a docked editor is narrow, and scrolling sideways to read an
        # instruction loses its register names ("Open in Window" gives the long lines room).
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setMinimumHeight(160)
        self.highlighter = VplHighlighter(self.text.document())
        self.problems = QListWidget(self)
        self.problems.setMaximumHeight(90)
        self.problems.itemActivated.connect(self._go_to_problem)
        self.problems.itemClicked.connect(self._go_to_problem)
        self.status = QLabel(self)
        # A long status ("3 problems: ...") wraps rather than widening the panel past the dock.
        self.status.setWordWrap(True)
        self.status.setMinimumWidth(0)
        self.window_button = QPushButton("Open in Window", self)
        self.window_button.setToolTip("Edit the code in a larger window (it stays in step with this one)")
        self.window_button.clicked.connect(self.open_window)
        self.code_window: CodeWindow | None = None
        self.apply_button = QPushButton("Apply", self)
        self.apply_button.setToolTip("Use this code in the node (Ctrl+Return)")
        self.apply_button.clicked.connect(self.apply)
        self.text.applyRequested.connect(self.apply)
        self.text.textChanged.connect(self.recheck)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.window_button)
        buttons.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.problems)
        self._ports: dict[str, Any] = {}
        self._committed = ""
        self._diagnostics: tuple[CodeDiagnostic, ...] = ()

    @property
    def diagnostics(self) -> tuple[CodeDiagnostic, ...]:
        """The problems of the text as it stands (line and column in the body)."""
        return self._diagnostics

    def set_code(self, code: Any) -> None:
        """Show the node's code (replacing what is typed, unless it is what was just applied)."""
        code = code if isinstance(code, str) else ""
        self._committed = code
        if self.text.toPlainText() != code:
            self.text.setPlainText(code)
        self.recheck()

    def show_node_values(self, values: dict[str, Any]) -> None:
        """The node's other properties: the declared ports the code is checked against."""
        ports: dict[str, Any] = {name: values[name] for name in ("inputs", "outputs") if name in values}
        if ports != self._ports:
            self._ports = ports
            self.recheck()

    def recheck(self) -> None:
        checked = check({**self._ports, "code": self.text.toPlainText()})
        self._diagnostics = checked.diagnostics
        self.problems.clear()
        selections: list[QTextEdit.ExtraSelection] = []
        document = self.text.document()
        for problem in checked.diagnostics:
            item = QListWidgetItem(str(problem))
            item.setData(Qt.ItemDataRole.UserRole, (problem.line, problem.column))
            item.setForeground(ERROR_COLOR)
            self.problems.addItem(item)
            block = document.findBlockByLineNumber(problem.line - 1)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            selection.format.setUnderlineColor(ERROR_COLOR)
            selection.format.setBackground(QColor(235, 64, 52, 40))
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor = QTextCursor(block)
            cursor.clearSelection()
            selection.cursor = cursor
            selections.append(selection)
        self.text.setExtraSelections(selections)
        self.problems.setVisible(bool(checked.diagnostics))
        modified = self.text.toPlainText() != self._committed
        if checked.diagnostics:
            self.status.setText(f"{len(checked.diagnostics)} problem{'s' * (len(checked.diagnostics) > 1)}")
        else:
            self.status.setText("Checked by the VPL verifier" + (" (not applied)" if modified else ""))

    def apply(self) -> None:
        text = self.text.toPlainText()
        if text != self._committed:
            self._committed = text
            self.codeCommitted.emit(text)
        self.recheck()

    def open_window(self) -> CodeWindow:
        """A larger, non-modal window editing the same code (what it applies, this editor applies)."""
        if self.code_window is None:
            self.code_window = CodeWindow(self)
            self.code_window.editor.codeCommitted.connect(self._apply_from_window)
        self.code_window.editor.show_node_values(self._ports)
        self.code_window.editor.set_code(self._committed)
        self.code_window.editor.text.setPlainText(self.text.toPlainText())
        self.code_window.show()
        self.code_window.raise_()
        return self.code_window

    def _apply_from_window(self, text: str) -> None:
        self.text.setPlainText(text)
        self.apply()

    def _go_to_problem(self, item: QListWidgetItem) -> None:
        line, column = item.data(Qt.ItemDataRole.UserRole)
        block = self.text.document().findBlockByLineNumber(line - 1)
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.Right, n=max(column - 1, 0))
        self.text.setTextCursor(cursor)
        self.text.setFocus()


class CodeWindow(QDialog):
    """The Custom Code editor in its own resizable window (opened from the properties panel)."""

    def __init__(self, parent: CustomCodeEditor) -> None:
        super().__init__(parent.window() if parent.window() is not parent else None)
        self.setWindowTitle("Custom Code")
        self.setModal(False)
        self.editor = CustomCodeEditor(self)
        self.editor.window_button.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.editor)
        self.resize(720, 560)


_PORT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([a-z0-9]+)\s*$")


def format_ports(value: Any) -> str:
    """`(("color", "color"), ("amount", "float"))` as `color: color, amount: float`."""
    if not isinstance(value, (list, tuple)):
        return ""
    return ", ".join(f"{entry[0]}: {entry[1]}" for entry in value if isinstance(entry, (list, tuple)) and len(entry) == 2)


def parse_ports(text: str) -> tuple[tuple[str, str], ...] | str:
    """The pairs `format_ports` writes, or why the text is not a port list."""
    pairs: list[tuple[str, str]] = []
    for part in (piece for piece in text.split(",") if piece.strip()):
        match = _PORT.match(part)
        if match is None:
            return f"'{part.strip()}' is not 'name: type'"
        name, type_name = match.groups()
        if type_name not in {member.value for member in PortType}:
            return f"'{type_name}' is not a port type ({', '.join(member.value for member in PortType)})"
        pairs.append((name, type_name))
    return tuple(pairs)


class PortsEdit(QLineEdit):
    """A declared port list as `name: type, ...`; commits on Enter or leaving the field, when it parses."""

    portsCommitted = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText("name: type, ... (float, vec2, vec3, vec4, color, bool, texture)")
        self.editingFinished.connect(self._commit)
        self.textEdited.connect(self._mark)
        self._shown: tuple[tuple[str, str], ...] = ()

    def set_ports(self, value: Any) -> None:
        self.setText(format_ports(value))
        self._mark(self.text())
        parsed = parse_ports(self.text())
        self._shown = parsed if isinstance(parsed, tuple) else ()

    def _mark(self, text: str) -> None:
        parsed = parse_ports(text)
        self.setStyleSheet("" if isinstance(parsed, tuple) else "QLineEdit { border: 1px solid rgb(235, 64, 52); }")
        self.setToolTip("" if isinstance(parsed, tuple) else parsed)

    def _commit(self) -> None:
        parsed = parse_ports(self.text())
        if isinstance(parsed, tuple) and parsed != self._shown:
            self._shown = parsed
            self.portsCommitted.emit(parsed)
