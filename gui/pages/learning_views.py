"""The three tables of the 学习 page: the queue (with the owner's review), the adopted records
(revoke and edit) and the failure history. Each is a `RecordPage` over `Memory.learning`."""

from __future__ import annotations

import html
import json

import msgspec
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QPushButton, QWidget

from gui.codes import learning_kind_name, learning_operation_name, operation_state_name
from gui.lanes import Lanes, Tasks, page_task
from gui.pages.record_page import RecordPage
from gui.record_model import Column, RecordModel
from gui.words import field_html
from service.memory.api import MemoryApi
from service.memory.names import INTENT_STATES, RECORD_STATES
from service.wire.learning import LearningIntent, LearningIntentDetail, LearningRecord
from service.wire.row import value_of

# Qt's rich text has no <mark>: a highlighted span instead.
MARK = '<span style="background-color: #ffe58a; font-weight: 600">'


def highlight(text: str, quotes: list[str]) -> str:
    """`text` escaped for HTML, with every occurrence of each quotation marked."""
    spans: list[tuple[int, int]] = []
    for quote in quotes:
        start = text.find(quote) if quote else -1
        while start >= 0:
            spans.append((start, start + len(quote)))
            start = text.find(quote, start + 1)
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, at = [], 0
    for start, end in merged:
        out.append(html.escape(text[at:start]))
        out.append(f"{MARK}{html.escape(text[start:end])}</span>")
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


def when(value: object) -> str:
    return str(value or "")[:19].replace("T", " ")


class QueueView(RecordPage):
    """Intents by state; the selected one's raw source with its candidate's quotations highlighted, its
    leases and verdicts; in "owner reviews" mode the person approves or rejects the candidate here."""

    ID_KEY = "intent_id"
    PAGE_KEY = ("updated", "intent_id")
    FILTERS = (("learning/state", "state_box"),)
    model: RecordModel[LearningIntent]
    detail_loaded = Signal(str)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        names = self.state_names()
        self.state_box = QComboBox()
        self.state_box.addItem(self.tr("全部"), None)
        for state in INTENT_STATES:
            self.state_box.addItem(names[state], state)
        self.state_box.currentIndexChanged.connect(lambda _i: self.reload())
        model = RecordModel[LearningIntent](
            [
                Column("state", self.tr("状态"), lambda s: names.get(s, str(s))),
                Column("source_kind", self.tr("来源"), lambda k: self.source_names().get(k, str(k))),
                Column("source_id", self.tr("来源编号")),
                Column("candidate", self.tr("候选"), lambda c: c.content if c else ""),
                Column("updated", self.tr("更新时间"), when),
            ],
            self,
        )
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText(self.tr("审阅理由（必填）"))
        self.approve_button = QPushButton(self.tr("批准"))
        self.reject_button = QPushButton(self.tr("拒绝"))
        self.approve_button.clicked.connect(lambda: self.owner_review("approved"))
        self.reject_button.clicked.connect(lambda: self.owner_review("rejected"))
        self.build(
            model,
            3,
            [QLabel(self.tr("状态")), self.state_box],
            [self.reason_edit, self.approve_button, self.reject_button],
            (560, 520),
            show=self._show_intent,
            reload=self.reload,
            empty=self.tr(
                "队列是空的。有了学习授权后，记忆会自己发现完成的对话和有结果的运行，"
                "交给提取程序；它提出的候选经审阅后出现在这里。"
            ),
        )

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (self.approve_button, self.reject_button)

    def state_names(self) -> dict[str, str]:
        return {
            "queued": self.tr("待提取"),
            "extracting": self.tr("提取中"),
            "candidate": self.tr("待审阅"),
            "reviewing": self.tr("审阅中"),
            "approved": self.tr("已批准"),
            "noop": self.tr("无可学"),
            "rejected": self.tr("已拒绝"),
            "adopted": self.tr("已采用"),
            "refused": self.tr("采用被拒"),
            "failed": self.tr("失败"),
            "stopped": self.tr("已停止"),
        }

    def source_names(self) -> dict[str, str]:
        return {"interaction": self.tr("问答"), "task": self.tr("任务卡"), "run": self.tr("运行")}

    def role_names(self) -> dict[str, str]:
        return {
            "user": self.tr("用户"),
            "assistant": self.tr("助手"),
            "task": self.tr("任务"),
            "result": self.tr("结果"),
            "goal": self.tr("目标"),
            "step": self.tr("步骤"),
            "outcome": self.tr("结局"),
        }

    @page_task
    async def reload(self) -> None:
        await self._load(self.memory.learning.queue, state=self.state_box.currentData())

    def _show_intent(self, row: int) -> None:
        record = self.model.record(row)
        waiting = record is not None and record.state == "candidate"
        for widget in (self.approve_button, self.reject_button, self.reason_edit):
            widget.setEnabled(waiting)
        if record is None:
            self.detail.setHtml("<p>" + html.escape(self.tr("选择一项，查看它的来源、候选和审阅。")) + "</p>")
            return
        self.load_detail(record.intent_id)

    @page_task
    async def load_detail(self, intent_id: str) -> None:
        detail = await self.tasks.refresh("detail", self.memory.learning.intent, intent_id)
        self.detail.setHtml(self.detail_html(detail))
        self.detail_loaded.emit(intent_id)

    def detail_html(self, detail: LearningIntentDetail) -> str:
        names = self.state_names()
        candidate = detail.candidate
        quotes = candidate.quotations if candidate else []
        parts = [
            field_html(self.tr("状态"), names.get(detail.state, detail.state)),
            field_html(self.tr("来源"), f"{self.source_names().get(detail.source_kind, '')} {detail.source_id}"),
        ]
        if detail.reason:
            parts.append(field_html(self.tr("说明"), detail.reason))
        if detail.state == "candidate" and self.approve_button.isHidden():
            hint = self.tr(
                "这一项在等审阅：审阅程序会处理它。想自己决定，勾选上方的“由我审阅”，这里就会出现批准和拒绝。"
            )
            parts.append(f"<p><i>{html.escape(hint)}</i></p>")
        if candidate:
            parts.append("<h3>" + html.escape(self.tr("候选")) + "</h3>")
            op = f"{learning_operation_name(candidate.operation)} · {learning_kind_name(candidate.kind)}"
            parts.append(field_html(self.tr("操作"), op))
            parts.append(f"<p>{html.escape(candidate.content)}</p>")
            if candidate.target:
                target = msgspec.to_builtins(candidate.target)
                parts.append(field_html(self.tr("目标"), json.dumps(target, ensure_ascii=False)))
        source = detail.source
        parts.append("<h3>" + html.escape(self.tr("原始来源")) + "</h3>")
        if source is None:
            parts.append("<p>" + html.escape(self.tr("来源已不存在。")) + "</p>")
        else:
            if detail.source_changed:
                parts.append("<p><b>" + html.escape(self.tr("来源在此之后被修改过。")) + "</b></p>")
            for turn in source.turns:
                role = self.role_names().get(turn["role"], turn["role"])
                said = html.escape(self.tr("{0}：").format(role))
                parts.append(f"<p><b>{said}</b>{highlight(turn['text'], quotes)}</p>")
            if source.objective:
                parts.append(field_html(self.tr("目标结果"), json.dumps(source.objective, ensure_ascii=False)))
        for review in detail.reviews:
            who = self.tr("本人") if review.reviewer == "owner" else self.tr("审阅程序")
            verdict = names.get(review.state, review.state)
            parts.append(field_html(self.tr("审阅"), f"{who} · {verdict} · {review.reason}"))
        for operation in detail.operations:
            state = operation_state_name(operation.state)
            parts.append(field_html(self.tr("提取"), f"{operation.operation_id} · {state} {operation.reason}".strip()))
        return "".join(parts)

    def owner_review(self, verdict: str) -> None:
        """The person's verdict on the selected candidate (a review admission), then Jiyi's adoption."""
        reason = self.reason_edit.text().strip()
        if not reason:
            self.message.setText(self.tr("请先写下理由。"))
            return
        self.decide(
            lambda intent_id: self.memory.learning.owner_review(intent_id, verdict, reason),
            lambda reply: self.state_names().get(str(reply.intent_state), str(reply.intent_state)),
        )
        self.reason_edit.clear()


class RecordsView(RecordPage):
    """Adopted records with their provenance; revoke one, or edit it (it becomes the owner's)."""

    ID_KEY = "id"
    PAGE_KEY = ("updated", "id")
    FILTERS = (("learning/record_state", "state_box"),)
    model: RecordModel[LearningRecord]

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        names = self.state_names()
        self.state_box = QComboBox()
        self.state_box.addItem(self.tr("全部"), None)
        for state in RECORD_STATES:
            self.state_box.addItem(names[state], state)
        self.state_box.setCurrentIndex(1)
        self.state_box.currentIndexChanged.connect(lambda _i: self.reload())
        model = RecordModel[LearningRecord](
            [
                Column("kind", self.tr("类别")),
                Column("state", self.tr("状态"), lambda s: names.get(s, str(s))),
                Column("content", self.tr("内容")),
                Column("expires_at", self.tr("到期"), when),
            ],
            self,
        )
        self.edit_box = QLineEdit()
        self.edit_box.setPlaceholderText(self.tr("改写内容"))
        self.save_button = QPushButton(self.tr("保存修改"))
        self.revoke_button = QPushButton(self.tr("撤销"))
        self.save_button.clicked.connect(self.save_edit)
        self.revoke_button.clicked.connect(self.revoke)
        self.build(
            model,
            2,
            [QLabel(self.tr("状态")), self.state_box],
            [self.edit_box, self.save_button, self.revoke_button],
            (560, 520),
            show=self._show_record,
            reload=self.reload,
            empty=self.tr("还没有采用的记录。审阅通过、在授权之内的候选由记忆自己采用，之后列在这里，可撤销或编辑。"),
        )

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (self.save_button, self.revoke_button)

    def state_names(self) -> dict[str, str]:
        return {
            "active": self.tr("生效中"),
            "removed": self.tr("已移除"),
            "revoked": self.tr("已撤销"),
            "expired": self.tr("已过期"),
        }

    @page_task
    async def reload(self) -> None:
        await self._load(self.memory.learning.list_records, state=self.state_box.currentData())

    def _show_record(self, row: int) -> None:
        record = self.model.record(row)
        active = record is not None and record.state == "active"
        for widget in (self.edit_box, self.save_button, self.revoke_button):
            widget.setEnabled(active)
        if record is None:
            self.edit_box.clear()
            self.detail.setHtml("<p>" + html.escape(self.tr("选择一条记录，查看它的出处。")) + "</p>")
            return
        self.edit_box.setText(record.content)
        provenance = record.provenance
        managed = self.tr("由学习管理") if record.managed else self.tr("已归本人（不再自动替换）")
        parts = [
            f"<h3>{html.escape(record.content)}</h3>",
            field_html(self.tr("类别"), record.kind),
            field_html(self.tr("版本"), str(record.version)),
            field_html(self.tr("管理"), managed),
            field_html(self.tr("存放于"), record.target),
            field_html(self.tr("到期"), when(record.expires_at)),
            field_html(self.tr("来源"), ", ".join(provenance.get("sources", []))),
            field_html(self.tr("操作"), str(provenance.get("operation", ""))),
            field_html(self.tr("审阅"), f"{provenance.get('reviewer', '')} · {provenance.get('review_reason', '')}"),
            field_html(self.tr("授权"), f"{provenance.get('grant_id', '')} · {provenance.get('owner', '')}"),
        ]
        parts += [f"<blockquote>{html.escape(q)}</blockquote>" for q in provenance.get("quotations", [])]
        if record.reason:
            parts.append(field_html(self.tr("说明"), record.reason))
        self.detail.setHtml("".join(parts))

    def revoke(self) -> None:
        self.decide(
            lambda record_id: self.memory.learning.revoke_record(
                record_id, f"console-{record_id}-revoke", "由本人撤销"
            ),
            lambda reply: str(value_of(reply, "record_id") or ""),
        )

    def save_edit(self) -> None:
        content = self.edit_box.text()
        self.decide(lambda record_id: self.memory.learning.edit_record(record_id, content), lambda r: r.content)


class FailuresView(RecordPage):
    """Failure history: leases that ended without an answer, stopped sources, adoptions refused."""

    ID_KEY = "intent_id"
    model: RecordModel[LearningIntent]

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        model = RecordModel[LearningIntent](
            [
                Column("state", self.tr("状态")),
                Column("source_id", self.tr("来源编号")),
                Column("reason", self.tr("原因")),
                Column("updated", self.tr("时间"), when),
            ],
            self,
        )
        self.build(
            model,
            2,
            [],
            [],
            (700, 380),
            show=self._show_failure,
            reload=self.reload,
            empty=self.tr("没有失败的记录。提取或审阅失败、过期或被取消的工作会留在这里。"),
        )

    @page_task
    async def reload(self) -> None:
        await self._load(self.memory.learning.failures)

    def _show_failure(self, row: int) -> None:
        record = self.model.record(row)
        if record is None:
            self.detail.setHtml("<p>" + html.escape(self.tr("没有失败记录，或未选择。")) + "</p>")
            return
        self.detail.setHtml(
            field_html(self.tr("来源"), f"{record.source_kind} {record.source_id}")
            + field_html(self.tr("原因"), record.reason)
        )
