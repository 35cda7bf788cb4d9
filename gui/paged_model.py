"""A table model that holds the rows it has and asks for more a page at a time.

Pages come from the service (filters and sorting are done there); the model
only keeps what was fetched. Subclasses name their `COLUMNS`, set `headers`
and implement `data`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")


class PagedTableModel(QAbstractTableModel, Generic[Row]):
    """Rows fetched so far; `fetcher(offset)` is started when the view wants more."""

    COLUMNS: tuple[str, ...] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        self.has_more = False
        self.fetcher: Callable[[int], None] | None = None
        self.headers: tuple[str, ...] = ()
        self._fetching = False

    def reset_rows(self, rows: list[Row], has_more: bool) -> None:
        self.beginResetModel()
        self.rows, self.has_more, self._fetching = list(rows), has_more, False
        self.endResetModel()

    def append_rows(self, rows: list[Row], has_more: bool) -> None:
        self._fetching, self.has_more = False, has_more
        if rows:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(rows) - 1)
            self.rows.extend(rows)
            self.endInsertRows()

    def replace_row(self, row: int, record: Row) -> None:
        self.rows[row] = record
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self.has_more and not self._fetching and self.fetcher is not None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent) and self.fetcher is not None:
            self._fetching = True
            self.fetcher(len(self.rows))

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(self.headers):
            return self.headers[section]
        return None
