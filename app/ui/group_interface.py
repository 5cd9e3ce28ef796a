"""The group interface dialog: a node group's name, and its inputs and outputs (renamed, reordered, defaults).

Opened by Edit > Group Interface… for the selected group node (or, inside
a group, for the group shown). Each row keeps the port's original name, so
a rename is reported as one (`renamed_inputs`, `renamed_outputs`) and the
wires and instance values follow it (`app.material.groups.set_interface`).
Types are shown, not edited: a port's type is the type of the wire it was
made from. An input's default is typed as numbers separated by commas
(`0.5`, `1, 0.5, 0`), `true`/`false`, the name of a built-in source such
as `texcoord`, or left empty for zero.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.material.graph import GroupDefinition, InterfacePort
from app.material.groups import fits, interface_problem
from app.material.node_types import DEFAULT_SOURCES
from app.material.port_types import PortType

ORIGINAL_NAME_ROLE = Qt.ItemDataRole.UserRole + 1


def format_default(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ", ".join(f"{component:g}" for component in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def parse_default(text: str, port_type: PortType) -> Any:
    """The default a text stands for (None: the type's zero); ValueError with the reason when it does not fit."""
    text = text.strip()
    if not text:
        return None
    if text in DEFAULT_SOURCES:
        value: Any = text
    elif text in ("true", "false"):
        value = text == "true"
    else:
        try:
            numbers = tuple(float(part) for part in text.split(","))
        except ValueError:
            raise ValueError(f"'{text}' is not a number, numbers separated by commas, true/false or a source") from None
        value = numbers[0] if len(numbers) == 1 else numbers
    if not fits(value, port_type):
        raise ValueError(f"'{text}' does not fit a {port_type.value} input")
    return value


class GroupInterfaceDialog(QDialog):
    """See the module docstring."""

    def __init__(self, definition: GroupDefinition, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Group interface: {definition.name}")
        self.setObjectName("groupInterfaceDialog")
        self.definition = definition
        self.name_edit = QLineEdit(definition.name, self)
        self.description_edit = QLineEdit(definition.description, self)
        self.inputs = self._table(["Input", "Type", "Default"], [
            (port.name, port.type, format_default(port.default)) for port in definition.inputs])
        self.outputs = self._table(["Output", "Type"], [(port.name, port.type, None) for port in definition.outputs])
        self.problem = QLabel(self)
        self.problem.setStyleSheet("color: rgb(235, 64, 52)")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.accepted.connect(self._accept_if_valid)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Name", self.name_edit)
        form.addRow("Description", self.description_edit)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        for table in (self.inputs, self.outputs):
            layout.addWidget(table)
            layout.addLayout(self._order_buttons(table))
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(460, 420)

    def _table(self, headers: list[str], rows: list[tuple[str, PortType, str | None]]) -> QTableWidget:
        table = QTableWidget(len(rows), len(headers), self)
        table.setHorizontalHeaderLabels(headers)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setStretchLastSection(True)
        table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        for row, (name, port_type, default) in enumerate(rows):
            self._set_row(table, row, name, name, port_type, default)
        return table

    @staticmethod
    def _set_row(table: QTableWidget, row: int, name: str, original: str, port_type: PortType,
                 default: str | None) -> None:
        name_item = QTableWidgetItem(name)
        name_item.setData(ORIGINAL_NAME_ROLE, original)
        table.setItem(row, 0, name_item)
        type_item = QTableWidgetItem(port_type.value)
        type_item.setData(ORIGINAL_NAME_ROLE, port_type.value)
        type_item.setFlags(type_item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        table.setItem(row, 1, type_item)
        if default is not None:
            table.setItem(row, 2, QTableWidgetItem(default))

    def _order_buttons(self, table: QTableWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        for text, step in (("Move Up", -1), ("Move Down", 1)):
            button = QPushButton(text, self)
            button.clicked.connect(lambda _checked=False, t=table, s=step: self.move_row(t, t.currentRow(), s))
            row.addWidget(button)
        row.addStretch(1)
        return row

    def move_row(self, table: QTableWidget, row: int, step: int) -> None:
        """Move `row` of `table` up (-1) or down (+1): the port order of the group node."""
        other = row + step
        if not (0 <= row < table.rowCount() and 0 <= other < table.rowCount()):
            return
        for column in range(table.columnCount()):
            taken = table.takeItem(row, column)
            table.setItem(row, column, table.takeItem(other, column))
            table.setItem(other, column, taken)
        table.setCurrentCell(other, 0)

    def interface(self) -> tuple[str, str, list[InterfacePort], list[InterfacePort], dict[str, str], dict[str, str]]:
        """(name, description, inputs, outputs, renamed inputs, renamed outputs); ValueError when invalid."""
        ports: list[list[InterfacePort]] = [[], []]
        renamed: list[dict[str, str]] = [{}, {}]
        for index, table in enumerate((self.inputs, self.outputs)):
            for row in range(table.rowCount()):
                name_item = table.item(row, 0)
                type_item = table.item(row, 1)
                if name_item is None or type_item is None:
                    raise ValueError(f"row {row + 1} of the {'inputs' if index == 0 else 'outputs'} is incomplete")
                name = name_item.text().strip()
                original = str(name_item.data(ORIGINAL_NAME_ROLE))
                port_type = PortType(str(type_item.data(ORIGINAL_NAME_ROLE)))
                default = None
                if index == 0:
                    default_item = table.item(row, 2)
                    default = parse_default(default_item.text() if default_item else "", port_type)
                ports[index].append(InterfacePort(name, port_type, default))
                if name != original:
                    renamed[index][original] = name
        problem = interface_problem(ports[0], ports[1])
        if problem is not None:
            raise ValueError(problem)
        name = self.name_edit.text().strip()
        if not name:
            raise ValueError("a group needs a name")
        return name, self.description_edit.text().strip(), ports[0], ports[1], renamed[0], renamed[1]

    def _accept_if_valid(self) -> None:
        try:
            self.interface()
        except ValueError as error:
            self.problem.setText(str(error))
            return
        self.accept()
