"""经验教训: lessons agents get in `on` mode, and the person's decision on each — approve or revoke.

A lesson reaches an agent only after a person approved it here (or with `jiyi
lesson approve`): the change is recorded with actor `user`. Beside each lesson
the page lists the runs it was learned from and the runs it was given to,
each a link to the episode browser.
"""

from __future__ import annotations

import datetime as dt
import html
from typing import ClassVar

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QComboBox, QHeaderView, QLabel, QLineEdit, QPushButton, QWidget

from gui.lanes import Lanes, Tasks, page_task
from gui.pages.record_page import RecordPage
from gui.record_model import Column, RecordModel
from gui.run_links import open_run_link, run_link
from gui.words import comma_list, field_html, with_note
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.wire.episodes import Lesson, LessonRun, LessonRuns


class LessonsPage(RecordPage):
    """Lessons by status and text; the selected one's text, apps and runs; approve and revoke."""

    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.LESSONS, Domain.EXPERIENCE})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "经验教训")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return self.filter_edit

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            self.approve_button,
            self.revoke_button,
        )

    run_requested = Signal(str)  # a run's id was clicked: open it in the episode browser
    runs_shown = Signal(str)  # the lesson whose runs the detail pane now lists

    ID_KEY = "lesson_id"
    model: RecordModel[Lesson]
    FILTERS = (("lessons/status", "status_box"),)
    STATUSES = ("proposed", "approved", "revoked")

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        names = self.status_names()
        self.status_box = QComboBox()
        self.status_box.addItem(self.tr("全部"), None)
        for status in self.STATUSES:
            self.status_box.addItem(names[status], status)
        self.status_box.setCurrentIndex(1)  # proposals first: they are what waits for the person
        self.status_box.currentIndexChanged.connect(lambda _i: self.reload())
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText(self.tr("筛选经验的文字或应用"))
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(lambda _t: self.reload())
        model = RecordModel[Lesson](
            [
                Column("status", self.tr("状态"), lambda s: names.get(s, str(s))),
                Column("text", self.tr("经验")),
                Column("apps", self.tr("相关应用"), lambda apps: comma_list(apps) if apps else self.tr("任何应用")),
                Column("updated", self.tr("更新时间"), lambda t: str(t or "")[:19].replace("T", " ")),
            ],
            self,
        )
        self.approve_button = QPushButton(self.tr("批准"))
        self.revoke_button = QPushButton(self.tr("撤销"))
        self.approve_button.clicked.connect(lambda: self.set_status("approved"))
        self.revoke_button.clicked.connect(lambda: self.set_status("revoked"))
        self.build(
            model,
            1,
            [QLabel(self.tr("状态")), self.status_box, self.filter_edit],
            [self.approve_button, self.revoke_button],
            (620, 420),
            show=self._show_lesson,
            reload=self.reload,
            empty=self.tr(
                "代理可以用 lesson.add 提出一条经验，也可以在终端运行 jiyi lesson add 文字 --run 运行编号；"
                "经你批准后，代理在 on 模式下才会用到它。"
            ),
        )
        header = self.table.horizontalHeader()
        for column in (0, 2, 3):  # status, apps and time at their width; the lesson's text takes the rest
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)
        self.detail.setOpenLinks(False)
        self.detail.anchorClicked.connect(lambda url: open_run_link(url, self.run_requested.emit))

    def status_names(self) -> dict[str, str]:
        """Names of the statuses this console knows; any other the service returns is shown as it is."""
        return {"proposed": self.tr("待批准"), "approved": self.tr("已批准"), "revoked": self.tr("已撤销")}

    @page_task
    async def reload(self) -> None:
        await self._load(self._matching, status=self.status_box.currentData(), text=self.filter_edit.text().strip())

    def _matching(self, *, status: str | None, text: str | None) -> list[Lesson]:
        """In the read lane: the lessons of `status` whose text or apps hold `text`.

        Lessons are few (a person approves each), so the text is matched here, not in the store.
        """
        lessons = self.memory.lessons.list_lessons(status)
        needle = (text or "").casefold()
        return [
            lesson
            for lesson in lessons
            if needle in lesson.text.casefold() or any(needle in app.casefold() for app in lesson.apps)
        ]

    def _show_lesson(self, row: int) -> None:
        record = self.model.record(row)
        self.approve_button.setEnabled(record is not None and record.status != "approved")
        self.revoke_button.setEnabled(record is not None and record.status != "revoked")
        if record is None:  # with no lessons at all, the page's `empty` text replaces this
            hint = self.tr("选择一条经验，查看它来自哪些运行、用在了哪些运行上。")
            self.detail.setHtml(f"<p>{html.escape(hint)}</p>")
            return
        self.detail.setHtml(self._lesson_html(record, None))
        self.load_runs(record)

    def _lesson_html(self, record: Lesson, runs: LessonRuns | None) -> str:
        status = record.status
        apps = comma_list(record.apps) if record.apps else self.tr("任何应用")
        parts = [
            f"<p style='white-space: pre-wrap'>{html.escape(record.text)}</p>",
            field_html(self.tr("状态"), self.status_names().get(status, status)),
            field_html(self.tr("相关应用"), apps),
            field_html(self.tr("提出时间"), record.created[:19].replace("T", " ")),
            field_html(self.tr("编号"), record.lesson_id),
        ]
        if runs is None:
            parts.append("<p>" + html.escape(self.tr("正在读取相关运行…")) + "</p>")
            return "".join(parts)
        parts.append("<h4>" + html.escape(self.tr("学自这些运行")) + "</h4>")
        parts.append(self._runs_html(runs.learned_from, self.tr("提出时没有注明来源运行。")))
        parts.append("<h4>" + html.escape(self.tr("已用在这些运行上")) + "</h4>")
        parts.append(self._runs_html(runs.given_to, self.tr("还没有运行用到它。")))
        return "".join(parts)

    def _runs_html(self, runs: list[LessonRun], empty: str) -> str:
        if not runs:
            return f"<p>{html.escape(empty)}</p>"
        items = []
        for run in runs:
            if not run.archived:
                note = html.escape(self.tr("（档案中已没有这次运行）"))
                items.append(f"<li>{html.escape(run.run_id)} {note}</li>")
                continue
            when = dt.datetime.fromtimestamp(float(run.ts_end or 0)).strftime("%Y-%m-%d %H:%M")
            outcome = self.tr("成功") if run.success else self.tr("失败")
            goal = html.escape(with_note(str(run.goal_text or ""), f"{when} · {outcome}"))
            items.append(f"<li>{run_link(run.run_id)} {goal}</li>")
        return "<ul>" + "".join(items) + "</ul>"

    @page_task
    async def load_runs(self, record: Lesson) -> None:
        runs = await self.tasks.refresh("runs", self.memory.lessons.lesson_runs, record.lesson_id)
        selected = self.selected()
        if selected is None or selected.lesson_id != record.lesson_id:
            return  # another lesson is shown now
        self.detail.setHtml(self._lesson_html(selected, runs))
        self.runs_shown.emit(record.lesson_id)

    def set_status(self, status: str) -> None:
        """The person's decision on the selected lesson, written with actor `user`."""
        self.decide(
            lambda lesson_id: self.memory.lessons.set_lesson_status(lesson_id, status, actor="user"),
            lambda lesson: lesson.text[:40],
        )
