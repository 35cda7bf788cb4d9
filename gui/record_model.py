"""A table model over the rows `Memory` answers (skills, facts, topics, workdays): columns are fields.

Each column names the row's field it shows and, optionally, how to turn the
value into text. Rows are replaced wholesale on reload (these lists are
small and filtered by the service).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QObject, Qt

from gui.paged_model import Index, PagedTableModel
from service.wire.row import value_of

R = TypeVar("R")


def field_of(record: object, key: str) -> object:
    """The field `key` of a row (a typed row's attribute, or a JSON object's key); None when it has none."""
    if isinstance(record, dict):
        return record.get(key)
    return value_of(record, key)


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    show: Callable[[Any], str] | None = None


class RecordModel(PagedTableModel[R], Generic[R]):
    """Rows are `Memory`'s rows; `columns` say which field each column shows."""

    def __init__(self, columns: Sequence[Column], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = tuple(columns)
        self.COLUMNS = tuple(c.key for c in self.columns)
        self.headers = tuple(c.header for c in self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self.rows)):
            return None
        record, column = self.rows[index.row()], self.columns[index.column()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = field_of(record, column.key)
            if column.show is not None:
                return column.show(value)
            if isinstance(value, list):
                return " ".join(str(v) for v in value)
            return "" if value is None else str(value)
        if role == Qt.ItemDataRole.UserRole:
            return record
        return None

    def record(self, row: int) -> R | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None
