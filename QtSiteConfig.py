"""Qt.py's site configuration: only the Qt classes NodeGraphQt names are made Qt.py members.

Qt.py (NodeGraphQt's binding shim) imports `QtSiteConfig` when it loads, its
documented way to customise it, and otherwise imports some twenty PySide6
modules and reads some 1,400 of their classes, making PySide6 build each one
and its enums. NodeGraphQt is the only user of Qt.py in this application; the
names below are the ones its source (0.6.44, pinned) writes as
`QtCore.NAME`, `QtGui.NAME`, `QtWidgets.NAME` or `QtSvg.NAME`, and
tests/app/test_qt_site_config.py checks that they still are.
docs/decisions.md ("NodeGraphQt through its public API") has the figures.
"""

from __future__ import annotations

#: Qt.py member names NodeGraphQt uses, per PySide6 module; other modules are left out.
USED_MEMBERS: dict[str, tuple[str, ...]] = {
    "QtCore": (
        "QByteArray", "QItemSelectionModel", "QLineF", "QMimeData", "QModelIndex", "QObject", "QPoint", "QPointF",
        "QRect", "QRectF", "QRegExp", "QSize", "QSizeF", "QSortFilterProxyModel", "QStringListModel", "Qt", "Signal",
        "qVersion",
    ),
    "QtGui": (
        "QBrush", "QColor", "QCursor", "QFocusEvent", "QFont", "QFontMetrics", "QIcon", "QKeyEvent", "QKeySequence",
        "QPainter", "QPainterPath", "QPen", "QPixmap", "QPolygonF", "QRegExpValidator", "QStandardItem",
        "QStandardItemModel", "QStyleOptionGraphicsItem", "QStyleOptionViewItem", "QTransform", "QWheelEvent",
    ),
    "QtSvg": (
        "QSvgRenderer",
    ),
    "QtWidgets": (
        "QAbstractItemView", "QAbstractSpinBox", "QAction", "QApplication", "QCheckBox", "QColorDialog", "QComboBox",
        "QCompleter", "QDoubleSpinBox", "QFileDialog", "QGraphicsItem", "QGraphicsPathItem", "QGraphicsPixmapItem",
        "QGraphicsPolygonItem", "QGraphicsProxyWidget", "QGraphicsScene", "QGraphicsSceneMouseEvent",
        "QGraphicsScenePressEvent", "QGraphicsTextItem", "QGraphicsView", "QGridLayout", "QGroupBox", "QHBoxLayout",
        "QHeaderView", "QLabel", "QLayout", "QLineEdit", "QListView", "QMenu", "QMenuBar", "QMessageBox", "QObject",
        "QPushButton", "QRubberBand", "QSizePolicy", "QSlider", "QSpinBox", "QStyle", "QStyledItemDelegate",
        "QTabBar", "QTabWidget", "QTableWidget", "QTableWidgetItem", "QTextEdit", "QTreeWidget", "QTreeWidgetItem",
        "QUndoCommand", "QUndoStack", "QUndoView", "QVBoxLayout", "QWidget", "QWidgetAction",
    ),
}


def update_members(members: dict[str, list[str]]) -> None:
    """Called by Qt.py with its table of members per module; keeps only `USED_MEMBERS`."""
    for module in list(members):
        if module in USED_MEMBERS:
            wanted = USED_MEMBERS[module]
            members[module] = [name for name in members[module] if name in wanted]
        else:
            del members[module]
