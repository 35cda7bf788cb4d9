"""What the skills and facts pages share: a record table whose selection survives reloads,
the person's decision on the selected record, and filter boxes remembered in QSettings."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import QComboBox, QLabel, QTableView, QWidget

from jiyi.gui.background import Background
from jiyi.gui.record_model import RecordModel
from jiyi.service.memory import Memory


class RecordPage(QWidget):
    """Subclasses build `model`, `table` and `message`, name `ID_KEY` and `FILTERS`, and define `_show(row)`."""

    loaded = Signal(int)
    status_changed = Signal(object)  # the record after the change
    action_failed = Signal(str)

    ID_KEY = ""
    FILTERS: tuple[tuple[str, str], ...] = ()  # (settings key, attribute of a QComboBox)

    memory: Memory
    background: Background
    model: RecordModel
    table: QTableView
    message: QLabel

    if TYPE_CHECKING:

        def _show(self, row: int) -> None: ...

        def reload(self) -> None: ...

    def _loaded(self, rows: list[dict[str, Any]]) -> None:
        """Show `rows`, keeping the selected record selected when it is still there."""
        selected = self.selected()
        self.model.reset_rows(rows, False)
        key = self.ID_KEY
        keep = next((i for i, r in enumerate(rows) if selected and r[key] == selected[key]), -1)
        if keep >= 0:
            self.table.selectRow(keep)
        self._show(keep)
        self.loaded.emit(len(rows))

    def _failed(self, exc: Exception) -> None:
        self.message.setText(self.tr("失败：{0}").format(exc))
        self.action_failed.emit(str(exc))

    def selected(self) -> dict[str, Any] | None:
        index = self.table.currentIndex()
        return self.model.record(index.row()) if index.isValid() else None

    def decide(self, change: Callable[[str], dict[str, Any]], describe: Callable[[dict[str, Any]], str]) -> None:
        """Apply the person's decision `change(record id)` to the selected record, then reload."""
        record = self.selected()
        if record is None:
            return
        record_id = record[self.ID_KEY]

        def done(changed: dict[str, Any]) -> None:
            self.message.setText(self.tr("已更新：{0}").format(describe(changed)))
            self.status_changed.emit(changed)
            self.reload()

        self.background.submit(lambda: change(record_id), done, self._failed)

    def restore_state(self, settings: QSettings) -> None:
        """Bring back the filters the user chose last time."""
        for key, name in self.FILTERS:
            box: QComboBox = getattr(self, name)
            index = settings.value(key)
            if index is not None and 0 <= int(index) < box.count():
                box.setCurrentIndex(int(index))

    def save_state(self, settings: QSettings) -> None:
        for key, name in self.FILTERS:
            settings.setValue(key, getattr(self, name).currentIndex())
