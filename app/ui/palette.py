"""The node palette: every catalog node type, grouped by category.

Double-click (or Enter) on a type emits `nodeRequested(type_name)`; the main
window adds the node at the centre of the graph view. Dragging a type onto
the graph drops it where the mouse is: the drag carries NodeGraphQt's own
node MIME data (`nodegraphqt::node:<node type id>`), so NodeGraphQt's drop
handler creates the node through its undo stack. A filter box narrows the
list by name, category or description. The material's own node groups are
listed under "Group" (`set_groups`), the function library's under
"Functions" (`set_functions`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from NodeGraphQt.constants import MIME_TYPE, URN_SCHEME
from PySide6.QtCore import QByteArray, QMimeData, Qt, Signal
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from app.graph.rich_text import escaped

TYPE_NAME_ROLE = Qt.ItemDataRole.UserRole + 1
DESCRIPTION_ROLE = Qt.ItemDataRole.UserRole + 2
#: The palette's category of the material's node groups, and the prefix of their requests.
GROUP_CATEGORY = "Group"
GROUP_PREFIX = "group:"
FUNCTIONS_CATEGORY = "Functions"
FUNCTION_PREFIX = "function:"


class _PaletteTree(QTreeWidget):
    def __init__(self, view_type_of: Callable[[str], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._view_type_of = view_type_of
        self.setHeaderHidden(True)
        self.setDragEnabled(True)
        self.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        self.setSelectionMode(QTreeWidget.SelectionMode.SingleSelection)

    def mimeTypes(self) -> list[str]:  # noqa: N802 - Qt override
        return [MIME_TYPE]

    def mimeData(self, items: Iterable[QTreeWidgetItem]) -> QMimeData:  # noqa: N802 - Qt override
        type_names = [item.data(0, TYPE_NAME_ROLE) for item in items if item.data(0, TYPE_NAME_ROLE)]
        urn = URN_SCHEME + ";".join(f"node:{self._view_type_of(name)}" for name in type_names)
        mime = QMimeData()
        mime.setData(MIME_TYPE, QByteArray(urn.encode("utf-8")))
        return mime


class NodePalette(QWidget):
    nodeRequested = Signal(str)

    def __init__(self, categories: Mapping[str, Sequence[Any]], view_type_of: Callable[[str], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("nodePalette")
        self._filter = QLineEdit(self)
        self._filter.setPlaceholderText("Filter nodes…")
        self._filter.setClearButtonEnabled(True)
        self._filter.textChanged.connect(self.set_filter)
        self._tree = _PaletteTree(view_type_of, self)
        # itemActivated alone: it fires on a double-click (or a single click,
        # as the platform has it) and on Enter. Listening to itemDoubleClicked
        # as well added two nodes per double-click.
        self._tree.itemActivated.connect(self._on_activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self._filter)
        layout.addWidget(self._tree)
        for category, node_types in categories.items():
            category_item = QTreeWidgetItem([category])
            category_item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = category_item.font(0)
            font.setBold(True)
            category_item.setFont(0, font)
            for node_type in node_types:
                item = QTreeWidgetItem([node_type.display_name])
                item.setData(0, TYPE_NAME_ROLE, node_type.type_name)
                item.setToolTip(0, f"<b>{escaped(node_type.display_name)}</b><br/>{escaped(node_type.description)}")
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
                category_item.addChild(item)
            self._tree.addTopLevelItem(category_item)
            category_item.setExpanded(True)

    @property
    def tree(self) -> QTreeWidget:
        return self._tree

    def preferred_width(self) -> int:
        """Wide enough for the longest node name beside its indentation and a scroll bar."""
        metrics = self._tree.fontMetrics()
        longest = max(
            (metrics.horizontalAdvance(category_item.child(index).text(0))
             for category_item in self._category_items()
             for index in range(category_item.childCount())),
            default=100,
        )
        scroll_bar = self._tree.verticalScrollBar().sizeHint().width()
        return longest + 2 * self._tree.indentation() + scroll_bar + 16

    def type_names(self, visible_only: bool = False) -> list[str]:
        names = []
        for category_item in self._category_items():
            for index in range(category_item.childCount()):
                item = category_item.child(index)
                if visible_only and (item.isHidden() or category_item.isHidden()):
                    continue
                names.append(item.data(0, TYPE_NAME_ROLE))
        return names

    def item_for(self, type_name: str) -> QTreeWidgetItem | None:
        for category_item in self._category_items():
            for index in range(category_item.childCount()):
                item = category_item.child(index)
                if item.data(0, TYPE_NAME_ROLE) == type_name:
                    return item
        return None

    def request(self, type_name: str) -> None:
        """What a double-click on the type's row does."""
        item = self.item_for(type_name)
        if item is None:
            raise KeyError(type_name)
        self._on_activated(item)

    def mime_data_for(self, type_name: str) -> QMimeData:
        """What dragging the type's row carries."""
        item = self.item_for(type_name)
        if item is None:
            raise KeyError(type_name)
        return self._tree.mimeData([item])

    def set_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for category_item in self._category_items():
            category_match = needle in category_item.text(0).lower()
            any_visible = False
            for index in range(category_item.childCount()):
                item = category_item.child(index)
                haystack = f"{item.text(0)} {item.data(0, TYPE_NAME_ROLE)} {item.toolTip(0)}".lower()
                visible = not needle or category_match or needle in haystack
                item.setHidden(not visible)
                any_visible = any_visible or visible
            category_item.setHidden(not any_visible)

    def set_groups(self, groups: Sequence[tuple[str, str, str]]) -> None:
        """The material's node groups, (definition id, name, description), listed under "Group".

        Their rows request `group:<definition id>` (the window adds an
        instance of that definition); they are not dragged (a drop would
        make a node NodeGraphQt cannot tie to its definition).
        """
        self._set_listed(GROUP_CATEGORY, [(GROUP_PREFIX + key, name, description) for key, name, description in groups],
                         "node group")

    def set_functions(self, functions: Sequence[tuple[str, str, str]]) -> None:
        """The function library's entries, (key, name, description), listed under "Functions".

        Their rows request `function:<key>` (the window embeds the function
        and adds a node of it).
        """
        self._set_listed(FUNCTIONS_CATEGORY,
                         [(FUNCTION_PREFIX + key, name, description) for key, name, description in functions],
                         "library function")

    def _set_listed(self, category: str, wanted: list[tuple[str, str, str]], kind: str) -> None:
        category_item = next((item for item in self._category_items() if item.text(0) == category), None)
        if category_item is not None:
            current = [(category_item.child(index).data(0, TYPE_NAME_ROLE), category_item.child(index).text(0),
                        category_item.child(index).data(0, DESCRIPTION_ROLE)) for index in range(category_item.childCount())]
            if current == wanted:
                return
            self._tree.takeTopLevelItem(self._tree.indexOfTopLevelItem(category_item))
        if not wanted:
            return
        category_item = QTreeWidgetItem([category])
        category_item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = category_item.font(0)
        font.setBold(True)
        category_item.setFont(0, font)
        for type_name, name, description in wanted:
            item = QTreeWidgetItem([name])
            item.setData(0, TYPE_NAME_ROLE, type_name)
            item.setData(0, DESCRIPTION_ROLE, description)
            item.setToolTip(0, f"<b>{html.escape(name)}</b> ({kind})<br/>{html.escape(description)}")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            category_item.addChild(item)
        # The material's groups first, then the library, then the catalog.
        position = 1 if category == FUNCTIONS_CATEGORY and self._category_items() and \
            self._category_items()[0].text(0) == GROUP_CATEGORY else 0
        self._tree.insertTopLevelItem(position, category_item)
        category_item.setExpanded(True)
        self.set_filter(self._filter.text())

    def _category_items(self) -> list[QTreeWidgetItem]:
        items = (self._tree.topLevelItem(index) for index in range(self._tree.topLevelItemCount()))
        return [item for item in items if item is not None]

    def _on_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        type_name = item.data(0, TYPE_NAME_ROLE)
        if type_name:
            self.nodeRequested.emit(type_name)
