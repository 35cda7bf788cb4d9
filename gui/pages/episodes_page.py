"""The episode browser: every archived run, filtered in the store, fetched a page at a time.

Select a run to see its tool-event timeline, tokens by role, the lessons it
was given and what recall offered at its start against what it launched.
Revoke keeps an episode out of recall (it stays archived); restore undoes that.
"""

from __future__ import annotations

import asyncio
import html
import time
from datetime import datetime
from typing import Any, ClassVar

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QModelIndex,
    QSettings,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.codes import end_reason, result_class_name, scope_name, token_role_name, verifier_name
from gui.column_fit import ColumnFit
from gui.lanes import Lanes, Tasks, describe, page_task
from gui.paged_model import Fetch, Index, PagedTableModel
from gui.run_links import open_run_link, run_link
from gui.words import comma_list, recall_record_note, with_note
from service.errors import JiyiError
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.memory.names import EpisodeFilter
from service.wire.episodes import Episode, EpisodeDetail
from service.wire.recall import RunTrace

PAGE_SIZE = 200


async def _ended(fetch: Fetch) -> None:
    """Wait until `fetch` has ended, however it ended (its failure is said by the page that started it)."""
    ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def note(_done: object) -> None:
        if not ended.done():
            ended.set_result(None)

    fetch.add_done_callback(note)
    await ended


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else ""


DISPLAY = Qt.ItemDataRole.DisplayRole
_ANSWERED = frozenset({DISPLAY, Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.ToolTipRole})


class EpisodeTableModel(PagedTableModel[Episode]):
    """Rows are archived runs (`Memory.list_episodes`); more come through `fetcher`."""

    COLUMNS = ("ts_end", "goal_text", "apps", "success", "steps", "tokens_total", "verifier", "revoked")

    def __init__(self, parent: QWidget | None = None, min_steps: int = 2) -> None:
        super().__init__(parent)
        self.min_steps = min_steps  # the quality gate's fewest steps (JIYI_INDEX_MIN_STEPS)
        self.headers = (
            self.tr("结束时间"),
            self.tr("目标"),
            self.tr("应用"),
            self.tr("结果"),
            self.tr("步数"),
            self.tr("令牌"),
            self.tr("验收"),
            self.tr("回想"),
        )

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        # Qt asks every role of every cell it draws or measures: the roles this model never answers go first.
        if role not in _ANSWERED:
            return None
        row = index.row()  # -1 for an invalid index
        if not 0 <= row < len(self.rows):
            return None
        record, column = self.rows[row], self.COLUMNS[index.column()]
        if role == DISPLAY:
            if column == "ts_end":
                return _when(record.ts_end)
            if column == "apps":
                return " ".join(record.apps)
            if column == "success":
                outcome = self.tr("成功") if record.success else self.tr("失败")
                reason = record.reason
                return with_note(outcome, end_reason(reason)) if reason else outcome
            if column == "revoked":
                return self._recall_state(record)
            if column == "verifier":
                return verifier_name(record.verifier)
            return str(getattr(record, column))
        if role == Qt.ItemDataRole.ForegroundRole and record.revoked:
            return QBrush(QColor(140, 140, 140))
        if role == Qt.ItemDataRole.ToolTipRole and column == "goal_text":
            return record.goal_text
        if role == Qt.ItemDataRole.ToolTipRole and column == "apps":  # the whole package, when it is cut short
            return "\n".join(record.apps)
        if role == Qt.ItemDataRole.ToolTipRole and column == "revoked":
            return self._recall_tip(record)
        return None

    def _recall_state(self, record: Episode) -> str:
        """Whether recall may offer this run: revoked by a person, kept out by the quality gate, or usable."""
        if record.revoked:
            return self.tr("已撤销")
        if not record.goal_text.strip() or record.steps < self.min_steps:
            return self.tr("不入索引")
        return self.tr("可回想")

    def _recall_tip(self, record: Episode) -> str:
        if record.revoked:
            return self.tr("已被撤销：回想不会再提供它，档案仍保留")
        if self._recall_state(record) == self.tr("不入索引"):
            return self.tr("少于 {0} 步或没有目标：不进入向量索引").format(self.min_steps)
        return self.tr("回想可以把它作为过去的任务提供")


class EpisodesPage(QWidget):
    """Browse, inspect, revoke and restore episodes."""

    # Read on demand (F5, a filter, a link), not on every change: runs arrive all the time while agents
    # work, and a reload under the reader would move the rows being read.
    domains: ClassVar[frozenset[Domain]] = frozenset()

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "运行档案")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return self.text_edit

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            self.revoke_button,
            self.restore_button,
        )

    rows_loaded = Signal(int)
    detail_shown = Signal(str)
    revocation_changed = Signal(str)
    failed = Signal(str)  # a listing or an action failed: the message shown

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self._shown: str | None = None
        self._following = False  # the table's selection is being moved to a run a link named
        filters = self._build_filters()
        self.model = EpisodeTableModel(self, memory.config.index_min_steps)
        self.model.fetcher = self._fetch_page
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        # The goal, what a person reads, takes the free width; the apps and result columns give theirs up first.
        metrics = self.fontMetrics()
        apps, result = metrics.horizontalAdvance("com.ten") + 12, metrics.horizontalAdvance("0" * 11) + 12
        self.column_fit = ColumnFit(self.table, fill=1, shrinkable={2: apps, 3: result}, fill_share=0.4)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _prev: self.show_detail(current.row()))
        right = self._build_detail()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([640, 380])
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.splitter, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(lambda: self.reload())
        for edit in (self.text_edit, self.app_edit, self.device_edit):
            edit.textChanged.connect(lambda _t: self._debounce.start())
        self.outcome_combo.currentIndexChanged.connect(lambda _i: self.reload())
        self.days_combo.currentIndexChanged.connect(lambda _i: self.reload())

    def _build_filters(self) -> QHBoxLayout:
        """Goal text, app, device, outcome and time range: applied by the store."""
        self.text_edit = QLineEdit()
        self.text_edit.setPlaceholderText(self.tr("搜索目标"))
        self.app_edit = QLineEdit()
        self.app_edit.setPlaceholderText(self.tr("应用包名"))
        self.device_edit = QLineEdit()
        self.device_edit.setPlaceholderText(self.tr("设备"))
        self.outcome_combo = QComboBox()
        for label, value in ((self.tr("全部结果"), None), (self.tr("成功"), True), (self.tr("失败"), False)):
            self.outcome_combo.addItem(label, value)
        self.days_combo = QComboBox()
        for label, days in (
            (self.tr("全部时间"), 0),
            (self.tr("最近 1 天"), 1),
            (self.tr("最近 7 天"), 7),
            (self.tr("最近 30 天"), 30),
        ):
            self.days_combo.addItem(label, days)
        filters = QHBoxLayout()
        for widget, stretch in (
            (self.text_edit, 3),
            (self.app_edit, 2),
            (self.device_edit, 1),
            (self.outcome_combo, 1),
            (self.days_combo, 1),
        ):
            filters.addWidget(widget, stretch)
        return filters

    def _build_detail(self) -> QWidget:
        """The selected run's detail, revoke and restore, and the page's message line."""
        self.detail = QTextBrowser()
        self.detail.setOpenLinks(False)
        self.detail.anchorClicked.connect(lambda url: open_run_link(url, self.follow_run))
        self._back: list[str] = []  # the runs a person came from by following links (依据), newest last
        self.back_button = QPushButton(self.tr("← 返回"))
        self.back_button.setToolTip(self.tr("回到点链接之前看的运行"))
        self.back_button.setEnabled(False)
        self.back_button.clicked.connect(self.go_back)
        self.revoke_button = QPushButton(self.tr("撤销回想"))
        self.restore_button = QPushButton(self.tr("恢复回想"))
        for button in (self.revoke_button, self.restore_button):
            button.setEnabled(False)
        self.revoke_button.clicked.connect(lambda: self.set_revoked(True))
        self.restore_button.clicked.connect(lambda: self.set_revoked(False))
        self.message = QLabel()
        self.message.setWordWrap(True)
        actions = QHBoxLayout()
        actions.addWidget(self.back_button)
        actions.addWidget(self.message, 1)
        actions.addWidget(self.revoke_button)
        actions.addWidget(self.restore_button)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail, 1)
        right_layout.addLayout(actions)
        return right

    def save_state(self, settings: QSettings) -> None:
        settings.setValue("episodes/splitter", self.splitter.saveState())
        outcome = {None: "", True: "success", False: "failure"}[self.outcome_combo.currentData()]
        settings.setValue("episodes/outcome", outcome)
        settings.setValue("episodes/days", int(self.days_combo.currentData() or 0))

    def restore_state(self, settings: QSettings) -> None:
        state = settings.value("episodes/splitter")
        if isinstance(state, QByteArray):
            self.splitter.restoreState(state)
        outcome = {"success": True, "failure": False}.get(str(settings.value("episodes/outcome", "")))
        self.outcome_combo.setCurrentIndex(max(0, self.outcome_combo.findData(outcome)))
        days = int(str(settings.value("episodes/days", 0) or 0))
        self.days_combo.setCurrentIndex(max(0, self.days_combo.findData(days)))

    def filters(self) -> EpisodeFilter:
        days = int(self.days_combo.currentData() or 0)
        return EpisodeFilter(
            text=self.text_edit.text().strip() or None,
            app=self.app_edit.text().strip() or None,
            device=self.device_edit.text().strip() or None,
            success=self.outcome_combo.currentData(),
            since=time.time() - days * 86400 if days else None,
        )

    @page_task
    async def reload(self) -> None:
        """The first page for the filters as they are now (the listing keeps them for its later pages)."""
        listing = self.model.begin(self.filters())
        rows = await self.tasks.read(self.memory.runs.list_episodes, listing.query, limit=PAGE_SIZE + 1)
        if self.model.show(listing, rows[:PAGE_SIZE], len(rows) > PAGE_SIZE):
            self.message.clear()
            if self._shown is not None:
                self.show_run(self._shown)  # the run being read stays, refreshed (a live reload must not blank it)
            elif not self.model.rows:
                self.detail.setHtml(self._empty_hint(listing.query))
            self.rows_loaded.emit(len(self.model.rows))

    @page_task
    async def _fetch_page(self, offset: int) -> None:
        """The next page of the listing shown, asked with the filters that listing started with.

        Asked by key, after the last row shown (not by `offset`): runs that arrived since the listing began are
        newer, so they neither repeat a row on this page nor push one off it.
        """
        listing = self.model.listing
        if listing is None or not self.model.rows:
            return
        last = self.model.rows[-1]
        after = (last.ts_end, last.run_id)
        rows = await self.tasks.read(self.memory.runs.list_episodes, listing.query, limit=PAGE_SIZE + 1, after=after)
        if self.model.extend(listing, rows[:PAGE_SIZE], len(rows) > PAGE_SIZE):
            self.rows_loaded.emit(len(self.model.rows))

    def _failed(self, message: str) -> None:
        self.message.setText(self.tr("失败：{0}").format(message))
        self.failed.emit(message)

    def current_run(self) -> str | None:
        """The run whose detail is shown (selected in the table, or opened from another page)."""
        return self._shown

    def show_detail(self, row: int) -> None:
        if 0 <= row < len(self.model.rows):
            if not self._following:
                self._back.clear()  # a row chosen by hand starts a new trail
                self.back_button.setEnabled(False)
            self.show_run(self.model.rows[row].run_id)

    def follow_run(self, run_id: str) -> None:
        """A link to another run (a recall's 依据 here, a run on another page): show it, selected in the table
        when the listing holds it (its later pages are read as far as the run's place); ← 返回 goes back."""
        if self._shown is not None and self._shown != run_id:
            self._back.append(self._shown)
        self._select_run(run_id)
        self.back_button.setEnabled(bool(self._back))

    def go_back(self) -> None:
        """Back to the run shown before the last link was followed."""
        if self._back:
            self._select_run(self._back.pop())
        self.back_button.setEnabled(bool(self._back))

    @page_task
    async def _select_run(self, run_id: str) -> None:
        """Show `run_id`, with the table's selection on its row (or on none when the listing lacks it).

        A run older than the rows read so far is on a later page: pages are read, as scrolling down would,
        until the run's row or its place in the newest-first order is reached (a run the filters leave out
        costs no more than the rows above where it would be)."""
        self._shown = run_id  # what the detail will show: a live reload meanwhile keeps to it
        row = self._row_of(run_id)
        place = await self._place_of(run_id) if row < 0 and self.model.has_more else None
        if place is not None:
            while row < 0 and self.model.rows and (self.model.rows[-1].ts_end, self.model.rows[-1].run_id) > place:
                fetch, before = self.model.fetch_more(), len(self.model.rows)
                if fetch is None:
                    break
                await _ended(fetch)
                if len(self.model.rows) <= before:
                    break  # the page failed (said on the page), or the listing was read again meanwhile
                row = self._row_of(run_id)
            if self._shown != run_id:
                return  # another run was chosen while the pages were read
        self._following = True
        try:
            if row >= 0:
                self.table.selectRow(row)
                self.table.scrollTo(self.model.index(row, 0))
            else:
                self.table.clearSelection()
                self.table.setCurrentIndex(QModelIndex())
        finally:
            self._following = False
        self.show_run(run_id)

    async def _place_of(self, run_id: str) -> tuple[float, str] | None:
        """The run's key in the listing's order; None when it cannot be read (the detail pane says why)."""
        try:
            episode = await self.tasks.refresh("place", self.memory.runs.get_episode, run_id)
        except JiyiError:
            return None
        return episode.ts_end, episode.run_id

    def _row_of(self, run_id: str) -> int:
        return next((i for i, r in enumerate(self.model.rows) if r.run_id == run_id), -1)

    @page_task
    async def show_run(self, run_id: str) -> None:
        """Show one run's detail (with revoke and restore), whether or not the table lists it."""
        self._shown = run_id
        try:
            episode, trace = await self.tasks.refresh("detail", self._read_run, run_id)
        except Exception as exc:
            if self._shown == run_id:
                self.detail.setHtml(f"<p style='color:#cf222e'>{html.escape(describe(exc))}</p>")
                for button in (self.revoke_button, self.restore_button):
                    button.setEnabled(False)
            self.tasks.report(exc, show=False)
            return
        if self._shown != run_id:
            return
        self.detail.setHtml(self._render(episode, trace))
        self.revoke_button.setEnabled(not episode.revoked)
        self.restore_button.setEnabled(episode.revoked)
        self.detail_shown.emit(run_id)

    def _empty_hint(self, query: EpisodeFilter) -> str:
        """What an empty list means: nothing matches the filters, or nothing was archived yet and how it fills."""
        if query != EpisodeFilter():
            text = self.tr("没有符合筛选条件的运行。清空上方的筛选条件可以看到全部运行。")
        else:
            text = self.tr(
                "还没有运行档案。手机智能体每次运行（run.start … run.finish）都会存档在这里；"
                "也可以在应用库页用“导入 TaskWizard…”导入已有的 memory 目录。"
            )
        return f"<p>{html.escape(text)}</p>"

    def _read_run(self, run_id: str) -> tuple[EpisodeDetail, RunTrace | None]:
        return self.memory.runs.get_episode(run_id), self.memory.recall.recall_trace(run_id)

    def _render(self, e: EpisodeDetail, trace: RunTrace | None) -> str:
        esc = html.escape
        tokens = comma_list(f"{token_role_name(k)} {v}" for k, v in e.tokens_by_role.items()) or "—"
        lessons = comma_list(e.injected_lessons or []) or "—"
        apps = self.tr("应用：{0}　令牌：{1}").format(" ".join(e.apps) or "—", tokens)
        given = self.tr("注入的经验：{0}").format(lessons)
        events = self.tr("工具事件")
        parts = [
            f"<h3>{esc(e.goal_text)}</h3>",
            f"<p>{esc(e.run_id)} · {esc(scope_name(e.device_scope))} · {_when(e.ts_start)} → {_when(e.ts_end)}</p>",
            f"<p>{esc(apps)}</p><p>{esc(given)}</p><h4>{esc(events)}</h4><table cellpadding='3'>",
        ]
        for event in e.events:
            parts.append(
                f"<tr><td>{event.step}</td><td>{esc(event.tool)}</td><td>{esc(result_class_name(event.result_class))}</td>"
                f"<td>{esc(event.app_package or '')}</td><td>{esc(event.intent or '')}</td>"
                f"<td>{esc(event.note or '')}</td></tr>"
            )
        parts.append("</table>")
        if not trace:
            nothing = self.tr("这次运行没有回想记录")
            parts.append(f"<p>{esc(nothing)}</p>")
            return "".join(parts)
        ev = trace.evaluation
        line = self.tr("召回：{0}　实际：{1}　Hit@1：{2}　污染：{3}").format(
            " ".join(ev.recalled_apps) or "—",
            " ".join(ev.actual_apps) or "—",
            "✓" if ev.hit_at_1 else "✗",
            self.tr("是") if ev.contaminated_run else self.tr("否"),
        )
        title = self.tr("回想")
        # The goal above is the episode's, verbatim; what recall recorded is redacted: said where both show.
        note = f"<p style='color:#57606a'>{esc(recall_record_note())}</p>"
        parts.append(f"<h4>{esc(title)}</h4>{note}<p>{esc(line)}</p>")
        top = trace.recall.candidates[0] if trace.recall.candidates else None
        if top is not None and top.run_id:
            by = esc(self.tr("依据：≈ {0} ({1})")).format(esc(top.goal or ""), run_link(top.run_id))
            parts.append(f"<p>{by}</p>")
        return "".join(parts)

    @page_task
    async def set_revoked(self, revoked: bool) -> None:
        """Keep the run shown out of recall (or let it back in), as the user."""
        run_id = self.current_run()
        if run_id is None:
            return

        def change() -> EpisodeDetail:
            if revoked:
                self.memory.runs.revoke_episode(run_id, actor="user")
            else:
                self.memory.runs.restore_episode(run_id, actor="user")
            return self.memory.runs.get_episode(run_id)

        episode = await self.tasks.write(change)
        record = episode.listed()
        for row, listed in enumerate(self.model.rows):
            if listed.run_id == run_id:
                self.model.replace_row(row, record)
        self.revoke_button.setEnabled(not episode.revoked)
        self.restore_button.setEnabled(episode.revoked)
        self.revocation_changed.emit(run_id)
