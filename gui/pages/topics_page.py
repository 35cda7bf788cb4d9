"""Topics and workdays: recent workdays, the topics each touched with that day's segment, a topic's history.

A workday runs 03:30 to 03:29:59 Beijing time. Select a workday to see its
topics (or search topics by title); open a topic to page through its turns.
The maintenance backlog (turns no topic holds yet) is shown on top; below,
"ask memory" shows what `memory.recall` returns for a question and why.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.codes import source_name
from gui.lanes import Lanes, Tasks, page_action, page_task
from gui.pages.memory_probe import MemoryProbe
from gui.record_model import Column, RecordModel
from gui.words import labelled
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.wire.desk import Topic, TopicDetail, TopicTurn, Workday

TURNS_PER_PAGE = 50


class TopicsPage(QWidget):
    """Workdays → topics → one topic's segments, tasks and turns (paged)."""

    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.DESK})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "话题与工作日")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return self.search_edit

    workdays_loaded = Signal(int)
    topics_loaded = Signal(int)
    topic_loaded = Signal(str, int)  # topic_id, turns shown
    status_loaded = Signal(object)
    failed = Signal(str)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self.topic: TopicDetail | None = None
        self.items: list[TopicTurn] = []
        self.backlog_label = QLabel("…")
        self.backlog_label.setWordWrap(True)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(self.tr("按标题或概括搜索话题"))
        self.search_edit.setClearButtonEnabled(True)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(lambda: self.search_topics())
        self.search_edit.textChanged.connect(lambda _t: self._debounce.start())

        self.day_table, self.topic_table = self._build_tables()
        self.detail = QTextBrowser()
        self.more_button = QPushButton(self.tr("更多问答"))
        self.more_button.clicked.connect(lambda: self.load_more())
        self.more_button.setEnabled(False)

        # The backlog line is read at a glance: it gets the width (one line at 1200×760), the search box a third.
        top = QHBoxLayout()
        top.addWidget(self.backlog_label, 3)
        top.addWidget(self.search_edit, 1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail, 1)
        right_layout.addWidget(self.more_button)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.day_table)
        self.splitter.addWidget(self.topic_table)
        self.splitter.addWidget(right)
        self.splitter.setSizes([220, 440, 400])  # a workday row is short; a topic's title and summary are not
        # "Ask memory": what memory.recall returns for any question, and why (below the topics).
        self.probe = MemoryProbe(memory, lanes)
        self.columns = QSplitter(Qt.Orientation.Vertical)
        self.columns.addWidget(self.splitter)
        self.columns.addWidget(self.probe)
        self.columns.setSizes([500, 260])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.columns, 1)
        hint = self.tr("选择一个工作日和话题。")
        self.detail.setHtml(f"<p>{html.escape(hint)}</p>")

    def _build_tables(self) -> tuple[QTableView, QTableView]:
        """Workdays (select one to list its topics) and topics (select one to read it)."""
        self.days = RecordModel[Workday](
            [
                Column("workday", self.tr("工作日")),
                Column("interactions", self.tr("问答")),
                Column("segments", self.tr("话题")),
                Column("reviewed", self.tr("复核"), lambda done: self.tr("已复核") if done else ""),
            ],
            self,
        )
        self.day_table = QTableView()
        self.day_table.setModel(self.days)
        # Four short columns: sized to what they hold, so 复核 is never behind the scroll bar.
        self.day_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.day_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.day_table.verticalHeader().setVisible(False)
        self.day_table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.day_table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.day_table.selectionModel().currentRowChanged.connect(lambda cur, _o: self._day_selected(cur.row()))
        self.topics = RecordModel[Topic](
            [
                Column("title", self.tr("话题")),
                Column("segment", self.tr("当日概括")),
                Column("interactions", self.tr("问答数")),
            ],
            self,
        )
        self.topic_table = QTableView()
        self.topic_table.setModel(self.topics)
        self.topic_table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.topic_table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        # A title and a count fit what they hold; the day's summary takes what is left.
        self.topic_table.setWordWrap(False)
        self.topic_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.topic_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.topic_table.selectionModel().currentRowChanged.connect(lambda cur, _o: self._topic_selected(cur.row()))
        return self.day_table, self.topic_table

    def reload(self) -> None:
        self.load_status()
        self.load_workdays()

    def _failed(self, message: str) -> None:
        self.backlog_label.setText(self.tr("读取失败：{0}").format(message))
        self.failed.emit(message)

    @page_task
    async def load_status(self) -> None:
        """The backlog line: today's workday, turns no topic holds yet, idle time, a review due."""
        status = await self.tasks.refresh("status", self.memory.maintenance.maintenance_status)
        idle = status.get("idle_seconds")
        idle_text = self.tr("无活动记录") if idle is None else self.tr("空闲 {0} 分钟").format(int(idle // 60))
        workday, previous = status["workday"], status["previous_workday"]
        line = self.tr("工作日 {0} · 待整理 {1} 条问答 · {2}").format(workday, status["backlog"], idle_text)
        tip = self.tr("今天是工作日 {0}（工作日从北京时间 03:30 起算）").format(workday)
        if status["previous_workday_needs_review"]:
            line += " · " + self.tr("{0} 待复核").format(previous)
            tip += " · " + self.tr("前一工作日 {0} 还没有复核").format(previous)
        self.backlog_label.setText(line)
        self.backlog_label.setToolTip(tip)
        self.status_loaded.emit(status)

    @page_task
    async def load_workdays(self) -> None:
        rows = await self.tasks.refresh("workdays", self.memory.maintenance.list_workdays, limit=60)
        self.days.reset_rows(rows, False)
        if not rows:
            hint = self.tr(
                "还没有话题。桌面助手同步的每轮问答（interaction.remember）在它空闲整理时"
                "归入话题（memory.maintenance.commit），然后按工作日列在这里。"
            )
            self.detail.setHtml(f"<p>{html.escape(hint)}</p>")
        self.workdays_loaded.emit(len(rows))

    def _day_selected(self, row: int) -> None:
        record = self.days.record(row)
        if record is not None:
            self.load_topics(self.memory.maintenance.workday_topics, record.workday)

    def search_topics(self) -> None:
        text = self.search_edit.text().strip()
        if text:
            self.load_topics(self.memory.maintenance.list_topics, text=text)

    @page_task
    async def load_topics(self, fetch: Callable[..., list[Topic]], *args: Any, **kwargs: Any) -> None:
        """The topics of a workday or of a search (whichever was asked last is shown)."""
        rows = await self.tasks.refresh("topics", fetch, *args, **kwargs)
        self.topics.reset_rows(rows, False)
        self.topics_loaded.emit(len(rows))

    def _topic_selected(self, row: int) -> None:
        record = self.topics.record(row)
        if record is not None:
            self.open_topic(record.topic_id)

    @page_task
    async def open_topic(self, topic_id: str) -> None:
        topic = await self.tasks.refresh("topic", self.memory.maintenance.get_topic, topic_id, limit=TURNS_PER_PAGE)
        self.items = list(topic.items)
        self._show_topic(topic)

    @page_action
    async def load_more(self) -> None:
        """The next turns of the open topic, below those shown."""
        if self.topic is None or self.topic.next_offset is None:
            return
        topic_id, offset = self.topic.topic_id, self.topic.next_offset
        self.more_button.setEnabled(False)
        try:
            page = await self.tasks.refresh(
                "topic", self.memory.maintenance.get_topic, topic_id, limit=TURNS_PER_PAGE, offset=offset
            )
        except Exception:
            self.more_button.setEnabled(True)  # the same turns can be asked for again
            raise
        if self.topic is not None and self.topic.topic_id == topic_id:
            self.items = [*self.items, *page.items]
            self._show_topic(page)

    def _show_topic(self, topic: TopicDetail) -> None:
        self.topic = topic
        kinds = {"task": self.tr("任务"), "chat": self.tr("闲聊"), "discussion": self.tr("讨论")}
        esc = html.escape
        turns, daily, tasks, asked = self.tr("{0} 条问答"), self.tr("每日概括"), self.tr("关联任务"), self.tr("问答")
        user, assistant = self.tr("用户"), self.tr("助手")
        parts = [
            f"<h3>{esc(topic.title)}</h3>",
            f"<p>{esc(kinds.get(topic.kind, topic.kind))} · "
            f"{esc(topic.first_workday)} → {esc(topic.last_workday)} · "
            f"{esc(turns.format(topic.interactions))}</p>",
        ]
        if topic.summary:
            parts.append(f"<p>{esc(topic.summary)}</p>")
        parts.append(f"<h4>{esc(daily)}</h4><ul>")
        parts += [f"<li>{esc(labelled(s.workday, s.summary))}</li>" for s in topic.segments]
        parts.append("</ul>")
        if topic.tasks:
            parts.append(f"<h4>{esc(tasks)}</h4><ul>")
            parts += [f"<li>{esc(labelled(t.title + ' → ' + t.status, t.result))}</li>" for t in topic.tasks]
            parts.append("</ul>")
        parts.append(f"<h4>{esc(asked)}</h4>")
        for item in self.items:
            parts.append(
                f"<p><small>{esc(item.ts[:19].replace('T', ' '))} · {esc(source_name(item.source))}</small><br>"
                + labelled(f"<b>{esc(user)}</b>", esc(item.user_text))
                + "<br>"
                + labelled(f"<b>{esc(assistant)}</b>", esc(item.assistant_text))
                + "</p>"
            )
        self.detail.setHtml("".join(parts))
        self.more_button.setEnabled(topic.next_offset is not None)
        self.topic_loaded.emit(topic.topic_id, len(self.items))

    def restore_state(self, settings: QSettings) -> None:
        """Bring back what the user chose last time."""
        state = settings.value("topics/splitter")
        if state is not None:
            self.splitter.restoreState(state)

    def save_state(self, settings: QSettings) -> None:
        settings.setValue("topics/splitter", self.splitter.saveState())
