"""A table model over dict records from `Memory` (skills, facts, topics): columns are keys.

Each column names the record key it shows and, optionally, how to turn the
value into text. Rows are replaced wholesale on reload (these lists are
small and filtered by the service).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from gui.paged_model import Index, PagedTableModel


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    show: Callable[[Any], str] | None = None


class RecordModel(PagedTableModel[dict[str, Any]]):
    """Rows are dicts; `columns` say which key each column shows."""

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
            value = record.get(column.key)
            if column.show is not None:
                return column.show(value)
            if isinstance(value, list):
                return " ".join(str(v) for v in value)
            return "" if value is None else str(value)
        if role == Qt.ItemDataRole.UserRole:
            return record
        return None

    def record(self, row: int) -> dict[str, Any] | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None
