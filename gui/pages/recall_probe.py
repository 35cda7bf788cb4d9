"""Ask recall about a task, as an agent starting it would, and see why it answers what it does.

Type a task, choose a device, press 召回: the app recall would give (or that
it abstains), and why — its confidence against the device's threshold, made
of the top app's score and its lead over the runner-up (recall.confidence) —
then every app it weighed, below the threshold too, with its score,
similarity, wording (term ownership) and the nearest past goal. Nothing is logged or scored (`Memory.recall_query` with
`explain`); runs that pull recall the wrong way can then be revoked on the
episodes page.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from gui.lanes import Lanes, Tasks, describe, page_task
from gui.run_links import open_run_link, run_link
from gui.words import NOWRAP
from service.memory.api import MemoryApi
from service.wire.recall import Confidence, RecallAnswer
from service.wire.row import value_of


class RecallProbe(QWidget):
    """A task box, a device box and the explained answer."""

    answered = Signal(object)  # the explained recall, or the exception
    run_requested = Signal(str)  # a past run's id was clicked

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._show_error)
        self.task = QLineEdit()
        self.task.setPlaceholderText(self.tr("输入一个任务，看回想会给出哪个应用、为什么"))
        self.task.returnPressed.connect(lambda: self.ask())
        self.device = QComboBox()
        self.device.setEditable(True)
        self.device.setMinimumContentsLength(10)
        edit = self.device.lineEdit()
        if edit is not None:
            edit.setPlaceholderText(self.tr("设备"))
        self.button = QPushButton(self.tr("召回"))
        self.button.clicked.connect(lambda: self.ask())
        self.answer = QTextBrowser()
        self.answer.setPlaceholderText(self.tr("只是询问：不记录、不计分"))
        self.answer.setOpenLinks(False)
        self.answer.anchorClicked.connect(lambda url: open_run_link(url, self.run_requested.emit))
        row = QHBoxLayout()
        row.addWidget(self.task, 1)
        row.addWidget(self.device)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.answer, 1)

    @page_task
    async def load_devices(self) -> None:
        """Offer the devices recall has past runs of (keeping what was typed)."""
        devices = await self.tasks.refresh("devices", self.memory.recall.recall_devices)
        typed = self.device.currentText()
        self.device.clear()
        self.device.addItems(devices)
        self.device.setEditText(typed or (devices[0] if devices else ""))

    def ask(self) -> None:
        """Ask what recall would do for the task: refused at once when a field is empty; else the button is
        disabled before anything is awaited (a second click cannot ask again) and the answer is read."""
        goal, device = self.task.text().strip(), self.device.currentText().strip()
        if not goal or not device:
            missing = self.tr("请输入任务并选择设备。")
            self.answer.setHtml(f"<p>{html.escape(missing)}</p>")
            return
        self.button.setEnabled(False)
        self._answer(goal, device)

    @page_task
    async def _answer(self, goal: str, device: str) -> None:
        try:
            result = await self.tasks.refresh("answer", self.memory.recall.recall_query, goal, device, explain=True)
        except Exception as exc:
            self.button.setEnabled(True)
            self._show_error(describe(exc))
            self.answered.emit(exc)
            self.tasks.report(exc, show=False)
            return
        self._show(result)

    def _show(self, result: RecallAnswer) -> None:
        self.button.setEnabled(True)
        top = result.candidates[0] if result.candidates else None
        sure = result.confidence or None  # UNSET (a trace of an older Jiyi) reads as None
        threshold = value_of(result, "threshold")  # the probe explains: always there
        if top is not None and top.source == "mention":
            headline = self.tr("召回 {0}：任务提到了“{1}”").format(" ".join(top.apps), top.term or "")
        elif sure is not None:
            verdict = self.tr("召回 {0}") if top is not None else self.tr("不召回 {0}")
            relation = "≥" if top is not None else "<"
            headline = verdict.format(" ".join(sure.top_app)) + self.tr("：置信度 {0:.3f} {1} 阈值 {2}").format(
                sure.value, relation, threshold
            )
        elif top is None:
            headline = self.tr("不召回：没有应用达到阈值 {0}").format(threshold)
        else:  # by the task's words alone (the embedding server is down): no confidence
            headline = self.tr("召回 {0}：得分 {1:.3f} ≥ 阈值 {2}").format(" ".join(top.apps), top.score, threshold)
        why = f"<p>{html.escape(self._why(sure))}</p>" if sure is not None else ""
        leader = set(sure.top_app) if sure is not None else set()
        rows = []
        for c in result.considered or []:
            if c.source != "episode":
                continue
            taken = top is not None and set(c.apps) <= {a for x in result.candidates for a in x.apps}
            color = "#1a7f37" if taken else ("#24292f" if set(c.apps) == leader else "#57606a")
            # The app and its nearest past goal share the first column, the goal under the package(s): with a
            # column of its own the goal was squeezed, or cut off behind a scroll bar, beside a long package.
            # A package name is one word, never broken across lines; several go one a line.
            apps = "<br>".join(f"<span {NOWRAP}>{html.escape(app)}</span>" for app in c.apps)
            link = f"<small>({run_link(str(c.run_id))})</small>"
            goal = f"<span style='color:#57606a'>{html.escape(str(c.goal))} {link}</span>"
            rows.append(
                f"<tr style='color:{color}'><td>{apps}<br>{goal}</td>"
                f"<td {NOWRAP}>{c.score:.3f}</td><td {NOWRAP}>{c.vector or 0.0:.3f}</td>"
                f"<td {NOWRAP}>{c.ownership or 0.0:.2f}</td></tr>"
            )
        header = "".join(
            f"<th {NOWRAP}>{html.escape(t)}</th>"
            for t in (self.tr("应用与最近的过去任务"), self.tr("得分"), self.tr("相似"), self.tr("用词"))
        )
        # The past goals are as recall's index holds them (redacted); the run's own record is verbatim.
        indexed = self.tr("过去任务是回想索引里的文字（已脱敏）；点编号看逐字保存的运行档案。")
        table = (
            f"<table cellpadding='3'><tr>{header}</tr>{''.join(rows)}</table>"
            f"<p style='color:#57606a'>{html.escape(indexed)}</p>"
            if rows
            else ""
        )
        nothing = self.tr("这台设备还没有可比较的运行。")
        empty = "" if rows or top else f"<p>{html.escape(nothing)}</p>"
        self.answer.setHtml(f"<p><b>{html.escape(headline)}</b></p>{why}{table}{empty}")
        self.answered.emit(result)

    def _why(self, sure: Confidence) -> str:
        """The confidence taken apart: the top app's score, the runner-up's, the margin and how it counts."""
        if sure.scoring == "margin":
            if not sure.runner_up:
                return self.tr("最高 {0:.3f}，附近没有别的应用（领先按 0 计）").format(sure.top)
            return self.tr("最高 {0:.3f}，第二 {1} {2:.3f}，领先 {3:.3f}；置信度 = 最高 + {4} × 领先").format(
                sure.top, " ".join(sure.runner_up), sure.second, sure.margin, sure.lead_weight
            )
        if sure.scoring == "reference":
            return self.tr("参考评分（0.75×相似 + 0.25×关键词）：{0:.3f}").format(sure.top)
        return self.tr("最高得分 {0:.3f}").format(sure.top)

    def _show_error(self, message: str) -> None:
        self.answer.setHtml(f"<p style='color:#cf222e'>{html.escape(message)}</p>")
