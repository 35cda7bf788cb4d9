"""学习: the owner's grant and its fingerprints, the quota meters, the queue by state, adopted records and
the failure history; in "owner reviews" mode the person approves or rejects candidates here.

Everything goes through `Memory.learning`, the same calls an agent reaches over the socket.
"""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import QCoreApplication, QSettings, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QLabel,
    QProgressBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui.codes import grant_part_name
from gui.lanes import Lanes, Tasks, page_task
from gui.pages.learning_views import FailuresView, QueueView, RecordsView, when
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.wire.learning import LearningStatus

QUOTAS = ("extractions", "reviews", "mutations", "bytes")


class LearningPage(QWidget):
    """The learning pipeline as the owner sees it."""

    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.LEARNING})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "学习")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return None

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            *self.queue.write_controls(),
            *self.records.write_controls(),
        )

    status_loaded = Signal(object)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self.grant_label = QLabel()
        self.grant_label.setWordWrap(True)
        self.fingerprint_label = QLabel()
        self.fingerprint_label.setWordWrap(True)
        self.queue_label = QLabel()
        self.meters: dict[str, QProgressBar] = {}
        meters = QGridLayout()
        names = self.quota_names()
        for row, quota in enumerate(QUOTAS):
            bar = QProgressBar()
            bar.setTextVisible(True)
            self.meters[quota] = bar
            meters.addWidget(QLabel(names[quota]), row // 2, (row % 2) * 2)
            meters.addWidget(bar, row // 2, (row % 2) * 2 + 1)
        self.owner_mode = QCheckBox(self.tr("由我审阅（不等审阅程序）"))
        self.owner_mode.toggled.connect(self.set_owner_mode)
        self.queue = QueueView(memory, lanes)
        self.records = RecordsView(memory, lanes)
        self.failures = FailuresView(memory, lanes)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.queue, self.tr("队列"))
        self.tabs.addTab(self.records, self.tr("已采用"))
        self.tabs.addTab(self.failures, self.tr("失败记录"))
        self.queue.status_changed.connect(lambda _r: self.reload())
        self.records.status_changed.connect(lambda _r: self.reload())
        layout = QVBoxLayout(self)
        layout.addWidget(self.grant_label)
        layout.addWidget(self.fingerprint_label)
        layout.addLayout(meters)
        layout.addWidget(self.queue_label)
        layout.addWidget(self.owner_mode)
        layout.addWidget(self.tabs, 1)
        self.set_owner_mode(False)

    def quota_names(self) -> dict[str, str]:
        return {
            "extractions": self.tr("提取次数"),
            "reviews": self.tr("审阅次数"),
            "mutations": self.tr("采用条数"),
            "bytes": self.tr("采用字节"),
        }

    def _failed(self, message: str) -> None:
        self.queue_label.setText(self.tr("失败：{0}").format(message))

    def set_owner_mode(self, on: bool) -> None:
        """Show the owner's approve/reject controls, and the candidates waiting for them."""
        for widget in (self.queue.reason_edit, self.queue.approve_button, self.queue.reject_button):
            widget.setVisible(on)
        if on:
            self.tabs.setCurrentWidget(self.queue)
            self.queue.state_box.setCurrentIndex(self.queue.state_box.findData("candidate"))

    @page_task
    async def reload(self) -> None:
        status = await self.tasks.refresh("status", self.memory.learning.status)
        self.show_status(status)
        self.queue.reload()
        self.records.reload()
        self.failures.reload()
        self.status_loaded.emit(status)

    def show_status(self, status: LearningStatus) -> None:
        if not status.enabled or status.grant is None or status.quotas is None or status.fingerprints is None:
            self.grant_label.setText(
                self.tr("学习未开启：在 config.toml 里加上 [learning] 授权（jiyi learn grant --example 给出示例）。")
            )
            self.fingerprint_label.clear()
            for bar in self.meters.values():
                bar.setRange(0, 1)
                bar.setValue(0)
                bar.setFormat(self.tr("无授权"))
            self.queue_label.clear()
            return
        grant = status.grant
        state = self.tr("生效中") if status.state == "active" else self.tr("已停止")
        text = self.tr("授权 {0}（所有者 {1}）· {2} · 到期 {3}").format(
            grant.id, grant.owner, state, when(grant.expires_at)
        )
        if status.stopped_because:
            text += "<br><b>" + html.escape(self.tr("停止原因：{0}").format(status.stopped_because)) + "</b>"
        self.grant_label.setText(text)
        prints = " · ".join(
            f"{grant_part_name(part)} {value.removeprefix('sha256:')[:12]}"
            for part, value in status.fingerprints.items()
        )
        self.fingerprint_label.setText(self.tr("指纹：{0}").format(prints))
        for quota, bar in self.meters.items():
            numbers = status.quotas[quota]
            bar.setRange(0, max(1, numbers.limit))
            bar.setValue(min(numbers.used, numbers.limit))
            bar.setFormat(self.tr("已用 {0} / {1}，剩 {2}").format(numbers.used, numbers.limit, numbers.left))
        counts = [f"{self.queue.state_names()[s]} {n}" for s, n in status.queue.items() if n]
        self.queue_label.setText(
            self.tr("待处理 {0} / {1} · {2}").format(
                status.pending, status.max_pending, " · ".join(counts) or self.tr("队列为空")
            )
        )

    def restore_state(self, settings: QSettings) -> None:
        self.queue.restore_state(settings)
        self.records.restore_state(settings)

    def save_state(self, settings: QSettings) -> None:
        self.queue.save_state(settings)
        self.records.save_state(settings)
