"""Fitting a table's columns measures the rows a person sees, not the whole page: Qt asks the model for every
role of every cell it measures, and measuring 200-500 rows held the GUI thread on every filter."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QTableView
from pytestqt.qtbot import QtBot

from gui.column_fit import MEASURED_ROWS, ColumnFit

Index = QModelIndex | QPersistentModelIndex


class Rows(QAbstractTableModel):
    """`count` rows of three columns, the goal column long on its last row; notes the rows Qt asked about."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count, self.asked = count, set[int]()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else self.count

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 3

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        self.asked.add(index.row())
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return ("2026-12-01 10:00", "在小红书搜索露营装备", "com.xingin.xhs")[index.column()]


def test_fitting_a_long_page_asks_about_the_rows_in_view_and_a_few_more(qtbot: QtBot) -> None:
    model = Rows(500)
    table = QTableView()
    qtbot.addWidget(table)
    table.setModel(model)
    table.resize(900, 400)
    fit = ColumnFit(table, fill=1, shrinkable={2: 60})
    table.show()
    qtbot.waitExposed(table)
    model.asked.clear()
    fit.fit()
    assert model.asked and max(model.asked) < MEASURED_ROWS  # not the page's 500
    assert table.columnWidth(1) > table.columnWidth(0)  # the goal column still takes the free width
