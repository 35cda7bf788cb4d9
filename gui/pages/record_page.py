"""What the skills and facts pages share: a record table whose selection survives reloads,
the person's decision on the selected record, and filter boxes remembered in QSettings."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.lanes import Tasks, page_task
from gui.record_model import RecordModel
from service.memory.api import MemoryApi

PAGE_SIZE = 200


class RecordPage(QWidget):
    """Subclasses set `tasks`, call `build`, name `ID_KEY` and `FILTERS`, and pass `show` and `reload` to `build`."""

    loaded = Signal(int)
    status_changed = Signal(object)  # the record after the change
    action_failed = Signal(str)

    ID_KEY = ""
    PAGE_KEY: tuple[str, ...] = ()  # the record keys a further page is asked after (keyset paging); (): one list
    FILTERS: tuple[tuple[str, str], ...] = ()  # (settings key, attribute of a QComboBox)

    memory: MemoryApi
    tasks: Tasks
    model: RecordModel
    table: QTableView
    detail: QTextBrowser
    message: QLabel

    def build(
        self,
        model: RecordModel,
        stretch_column: int,
        top: Sequence[QWidget],
        buttons: Sequence[QWidget],
        sizes: tuple[int, int],
        *,
        show: Callable[[int], None],
        reload: Callable[[], object],
        empty: str,
    ) -> None:
        """Lay the page out: `top` (filters) above the record table | detail, `buttons` and a message.

        `show(row)` fills the detail pane with record `row` (-1: none); `reload()` lists the records for
        the filters chosen. Each page says how. `empty` says, when there is no record, how records come.
        """
        self._empty = empty
        self._show = show
        self._reload = reload
        self.model = model
        self.table = QTableView()
        self.table.setModel(model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        # Ids and times are one word each: the other columns fit their contents (Qt measures at most 1,000
        # rows) and never wrap, and the stretch column takes what is left.
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(stretch_column, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _old: self._show(current.row()))
        self.detail = QTextBrowser()
        self.message = QLabel()
        self.message.setWordWrap(True)
        bar = QHBoxLayout()
        for widget in top:
            bar.addWidget(widget, 1 if isinstance(widget, QLineEdit) else 0)
        if not any(isinstance(w, QLineEdit) for w in top):
            bar.addStretch(1)
        row = QHBoxLayout()
        for button in buttons:
            row.addWidget(button)
        row.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail, 1)
        right_layout.addLayout(row)
        right_layout.addWidget(self.message)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(right)
        splitter.setSizes(list(sizes))
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        self._show(-1)

    async def _load(self, fetch: Callable[..., list[dict[str, Any]]], **filters: Any) -> None:
        """Show the rows `fetch(**filters)` reads, keeping the selected record selected when it is still there.

        A page that names its `PAGE_KEY` is shown `PAGE_SIZE` rows at a time: the first page here, each
        further one asked after the last row shown (`fetch(after=...)`, keyset paging) when the view wants more.
        """
        paged = bool(self.PAGE_KEY)
        listing = self.model.begin(filters)
        asked = {**filters, "limit": PAGE_SIZE + 1} if paged else filters
        rows = await self.tasks.refresh("rows", fetch, **asked)
        selected = self.selected()
        more = paged and len(rows) > PAGE_SIZE
        rows = rows[:PAGE_SIZE] if paged else rows
        if not self.model.show(listing, rows, more):
            return
        self.model.fetcher = (lambda _offset: self._more(fetch)) if paged else None
        key = self.ID_KEY
        keep = next((i for i, r in enumerate(rows) if selected and r[key] == selected[key]), -1)
        if keep >= 0:
            self.table.selectRow(keep)
        self._show(keep)
        if not rows:
            filtered = any(value not in (None, "") for value in filters.values())
            unfiltered = dict.fromkeys(filters)  # every filter at "all" (None)
            hidden = len(await self.tasks.refresh("rows unfiltered", fetch, **unfiltered)) if filtered else 0
            if hidden:  # never "nothing here yet" while the filter hides what there is
                lead = self.tr("没有符合筛选条件的记录；筛选隐藏了另外 {0} 条，选“全部”即可看到。").format(hidden)
                self.detail.setHtml(f"<p>{html.escape(lead)}</p>")
            else:
                lead = self.tr("没有符合筛选条件的记录。") if filtered else ""
                self.detail.setHtml(f"<p>{html.escape(lead)}</p><p>{html.escape(self._empty)}</p>")
        self.loaded.emit(len(rows))

    @page_task
    async def _more(self, fetch: Callable[..., list[dict[str, Any]]]) -> None:
        """The page after the last row shown, of the listing shown (its filters as they were then)."""
        listing = self.model.listing
        if listing is None or not self.model.rows:
            return
        after = tuple(self.model.rows[-1][key] for key in self.PAGE_KEY)
        rows = await self.tasks.read(fetch, limit=PAGE_SIZE + 1, after=after, **listing.query)
        if self.model.extend(listing, rows[:PAGE_SIZE], len(rows) > PAGE_SIZE):
            self.loaded.emit(len(self.model.rows))

    def _failed(self, message: str) -> None:
        self.message.setText(self.tr("失败：{0}").format(message))
        self.action_failed.emit(message)

    def selected(self) -> dict[str, Any] | None:
        index = self.table.currentIndex()
        return self.model.record(index.row()) if index.isValid() else None

    @page_task
    async def decide(self, change: Callable[[str], dict[str, Any]], describe: Callable[[dict[str, Any]], str]) -> None:
        """Apply the person's decision `change(record id)` to the selected record (write lane), then reload."""
        record = self.selected()
        if record is None:
            return
        changed = await self.tasks.write(change, record[self.ID_KEY])
        self.message.setText(self.tr("已更新：{0}").format(describe(changed)))
        self.status_changed.emit(changed)
        self._reload()

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
