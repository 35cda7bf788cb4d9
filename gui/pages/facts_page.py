"""Facts: candidate, active and inactive facts by scope, each with its verbatim evidence.

Filter by scope and status, search the content; the selected fact shows every
piece of evidence (the quote, whose words, its source turn or task, the
workday) and why it has its status. Confirm or deactivate by hand: the only
way an inactive fact comes back.
"""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QLineEdit,
    QPushButton,
    QWidget,
)

from gui.codes import fact_reason, profile_kind_name
from gui.lanes import Lanes, Tasks, page_task
from gui.pages.record_page import RecordPage
from gui.record_model import Column, RecordModel
from gui.words import quoted
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.wire.desk import Fact


class FactsPage(RecordPage):
    """Facts filtered in the store; evidence and lifecycle of the selected one; confirm or deactivate."""

    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.DESK})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "长期事实")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return self.search_edit

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            self.confirm_button,
            self.deactivate_button,
        )

    ID_KEY = "fact_id"
    model: RecordModel[Fact]
    FILTERS = (("facts/scope", "scope_box"), ("facts/status", "status_box"))

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        scopes, statuses = self.scope_names(), self.status_names()
        self.scope_box = QComboBox()
        self.scope_box.addItem(self.tr("全部范围"), None)
        for key, name in scopes.items():
            self.scope_box.addItem(name, key)
        self.status_box = QComboBox()
        self.status_box.addItem(self.tr("全部状态"), None)
        for key, name in statuses.items():
            self.status_box.addItem(name, key)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(self.tr("搜索事实内容"))
        self.search_edit.setClearButtonEnabled(True)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(lambda: self.reload())
        self.search_edit.textChanged.connect(lambda _t: self._debounce.start())
        self.scope_box.currentIndexChanged.connect(lambda _i: self.reload())
        self.status_box.currentIndexChanged.connect(lambda _i: self.reload())
        model = RecordModel[Fact](
            [
                Column("content", self.tr("事实")),
                Column("scope", self.tr("范围"), lambda s: scopes.get(s, str(s))),
                Column("status", self.tr("状态"), lambda s: statuses.get(s, str(s))),
                Column("workdays", self.tr("佐证工作日"), lambda days: " ".join(days or [])),
                Column("updated", self.tr("更新时间"), lambda t: str(t or "")[:19].replace("T", " ")),
            ],
            self,
        )
        self.confirm_button = QPushButton(self.tr("确认有效"))
        self.deactivate_button = QPushButton(self.tr("停用"))
        self.confirm_button.clicked.connect(lambda: self.set_status("active"))
        self.deactivate_button.clicked.connect(lambda: self.set_status("inactive"))
        self.build(
            model,
            0,
            [self.scope_box, self.status_box, self.search_edit],
            [self.confirm_button, self.deactivate_button],
            (620, 380),
            show=self._show_fact,
            reload=self.reload,
            empty=self.tr(
                "还没有长期事实。桌面助手空闲整理对话时（memory.maintenance.commit）会提出事实，"
                "每条都带着原话作证据；环境和项目事实在两个工作日各有佐证后生效，你也可以在这里直接确认。"
            ),
        )

    def scope_names(self) -> dict[str, str]:
        return {"profile": self.tr("用户画像"), "project": self.tr("项目"), "environment": self.tr("设备环境")}

    def status_names(self) -> dict[str, str]:
        return {"candidate": self.tr("候选"), "active": self.tr("有效"), "inactive": self.tr("已停用")}

    @page_task
    async def reload(self) -> None:
        scope, status = self.scope_box.currentData(), self.status_box.currentData()
        text = self.search_edit.text().strip() or None
        await self._load(self.memory.facts.list_facts, scope=scope, status=status, text=text)

    def _show_fact(self, row: int) -> None:
        record = self.model.record(row)
        self.confirm_button.setEnabled(record is not None and record.status != "active")
        self.deactivate_button.setEnabled(record is not None and record.status != "inactive")
        if record is None:
            hint = self.tr("选择一条事实查看它的证据。")
            self.detail.setHtml(f"<p>{html.escape(hint)}</p>")
            return
        speakers = {"user": self.tr("用户原话"), "assistant": self.tr("助手复述"), "task": self.tr("任务结果")}
        kind = f" · {profile_kind_name(record.profile_kind)}" if record.profile_kind else ""
        project = f" · {record.project}" if record.project else ""
        evidence = self.tr("证据")
        parts = [
            f"<h3>{html.escape(record.content)}</h3>",
            f"<p>{html.escape(self.scope_names().get(record.scope, record.scope) + kind + project)} · "
            f"{html.escape(self.status_names().get(record.status, record.status))}</p>",
        ]
        if record.status_reason:
            parts.append(f"<p><i>{html.escape(fact_reason(record.status_reason))}</i></p>")
        parts.append(f"<h4>{html.escape(evidence)}</h4><ul>")
        for item in record.evidence:
            counted = "" if item.counts else self.tr("（不计为独立佐证）")
            parts.append(
                f"<li>{html.escape(quoted(item.quote))}<br><small>"
                f"{html.escape(speakers.get(item.speaker, item.speaker))} · {html.escape(item.source_id)} · "
                f"{html.escape(item.workday)} {html.escape(counted)}</small></li>"
            )
        parts.append("</ul>")
        self.detail.setHtml("".join(parts))

    def set_status(self, status: str) -> None:
        """Confirm (active) or deactivate (inactive) the selected fact, as the user."""
        self.decide(
            lambda fact_id: self.memory.facts.set_fact_status(fact_id, status, actor="user"),
            lambda fact: fact.content,
        )
