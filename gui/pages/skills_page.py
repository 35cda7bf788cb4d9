"""Skill approval: drafts waiting for the user, with their source and text; approve, reject, disable.

Approving here is the user's own explicit act: the change is recorded in the
event log with actor `user`. An agent may only activate a draft the user asked
for in their latest turn; such an activation shows that turn and the user's
words, and `revert_button` puts the skill back among the drafts in one click.
Executors only ever read active skills.
"""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QPushButton,
    QWidget,
)

from gui.codes import actor_name
from gui.lanes import Lanes, Tasks, page_task
from gui.pages.record_page import RecordPage
from gui.record_model import Column, RecordModel
from gui.words import field_html, with_note
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.wire.desk import Skill


class SkillsPage(RecordPage):
    """Skills by status; the selected one's text and provenance; the decisions a person makes."""

    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.DESK})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "技能审批")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return self.status_box

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            self.approve_button,
            self.reject_button,
            self.disable_button,
        )

    ID_KEY = "skill_id"
    model: RecordModel[Skill]
    FILTERS = (("skills/status", "status_box"),)

    STATUSES = ("draft", "active", "disabled", "rejected")

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        names = self.status_names()
        self.status_box = QComboBox()
        self.status_box.addItem(self.tr("全部"), None)
        for status in self.STATUSES:
            self.status_box.addItem(names[status], status)
        self.status_box.setCurrentIndex(1)  # drafts first: they are what waits for the user
        self.status_box.currentIndexChanged.connect(lambda _i: self.reload())
        model = RecordModel[Skill](
            [
                Column("name", self.tr("名称")),
                Column("status", self.tr("状态"), lambda s: names.get(s, str(s))),
                Column("text", self.tr("内容")),
                Column("updated", self.tr("更新时间"), lambda t: str(t or "")[:19].replace("T", " ")),
            ],
            self,
        )
        self.approve_button = QPushButton(self.tr("批准启用"))
        self.reject_button = QPushButton(self.tr("拒绝"))
        self.disable_button = QPushButton(self.tr("停用"))
        self.revert_button = QPushButton(self.tr("撤销助手的启用"))
        self.revert_button.setToolTip(self.tr("助手按你的请求启用了它；撤销后它回到待批准的草稿"))
        self.approve_button.clicked.connect(lambda: self.set_status("active"))
        self.reject_button.clicked.connect(lambda: self.set_status("rejected"))
        self.disable_button.clicked.connect(lambda: self.set_status("disabled"))
        self.revert_button.clicked.connect(lambda: self.set_status("draft"))
        self.build(
            model,
            2,
            [QLabel(self.tr("状态")), self.status_box],
            [self.approve_button, self.reject_button, self.disable_button, self.revert_button],
            (600, 400),
            show=self._show_skill,
            reload=self.reload,
            empty=self.tr(
                "还没有技能。桌面助手整理对话时可以根据你的原话提出技能草稿；草稿只有在你于此处批准后才会启用。"
            ),
        )

    def status_names(self) -> dict[str, str]:
        return {
            "draft": self.tr("待批准"),
            "active": self.tr("已启用"),
            "disabled": self.tr("已停用"),
            "rejected": self.tr("已拒绝"),
        }

    @page_task
    async def reload(self) -> None:
        status = self.status_box.currentData()
        await self._load(self.memory.skills.list_skills, status=status)

    def _show_skill(self, row: int) -> None:
        record = self.model.record(row)
        for button in (self.approve_button, self.reject_button, self.disable_button, self.revert_button):
            button.setEnabled(False)
        if record is None:
            hint = self.tr("选择一个技能查看它的内容和来源。")
            self.detail.setHtml(f"<p>{html.escape(hint)}</p>")
            return
        status = record.status
        self.approve_button.setEnabled(status in ("draft", "disabled", "rejected"))
        self.reject_button.setEnabled(status == "draft")
        self.disable_button.setEnabled(status == "active")
        by_agent = status == "active" and record.decided_by != "user" and bool(record.request_interaction_id)
        self.revert_button.setEnabled(by_agent)
        parts = [
            f"<h3>{html.escape(record.name)}</h3>",
            field_html(self.tr("状态"), self.status_names().get(status, status)),
            f"<pre style='white-space: pre-wrap'>{html.escape(record.text)}</pre>",
            field_html(self.tr("来源问答"), record.source_interaction_id or ""),
        ]
        source = record.source_quote
        if source:
            parts.append(f"<blockquote>{html.escape(source)}</blockquote>")
        if by_agent:
            parts.append(field_html(self.tr("决定者"), self.tr("助手，按你在这轮对话中的请求")))
            parts.append(field_html(self.tr("请求所在问答"), record.request_interaction_id or ""))
            parts.append(f"<blockquote>{html.escape(record.user_request)}</blockquote>")
            undo = self.tr("不是你的意思？点「撤销助手的启用」，它回到待批准的草稿。")
            parts.append(f"<p>{html.escape(undo)}</p>")
        elif record.decided_by:
            who = actor_name(record.decided_by)
            parts.append(
                field_html(self.tr("决定者"), with_note(who, record.user_request) if record.user_request else who)
            )
        self.detail.setHtml("".join(parts))

    def set_status(self, status: str) -> None:
        """The user's decision on the selected skill, written with actor `user`."""
        self.decide(
            lambda skill_id: self.memory.skills.set_skill_status(skill_id, status, actor="user"),
            lambda skill: skill.name,
        )
