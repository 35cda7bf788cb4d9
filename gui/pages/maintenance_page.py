"""Maintenance: the dream preview (every change it would make) and run; rebuilds with progress and cancel.

Rebuilding the views replays the event log domain by domain, each in one
transaction: cancelling rolls the current domain back (its old view stays),
the ones already rebuilt keep their new view. Rebuilding the vector index
re-embeds every live episode; a cancelled one leaves a partial index that
the next dream (index reconcile) or rebuild completes. The last dream
reports and the consolidation log of the desktop assistant are listed below.
"""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.background import Background
from service.errors import Cancelled
from service.memory.memory import Memory

STEP_NAMES = ("alias_overwrites", "merge", "evict", "fold", "index_reconcile")


class _Progress(QObject):
    """Lives on the GUI thread; the worker emits into it (queued)."""

    moved = Signal(int, int)


class MaintenancePage(QWidget):
    """Dream preview and run, view and vector rebuilds, the last reports."""

    preview_ready = Signal(object)
    dream_finished = Signal(object)
    rebuild_finished = Signal(str, object)  # which ("views" / "vectors"), result or the exception
    reports_loaded = Signal(int)

    def __init__(self, memory: Memory, background: Background, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory, self.background = memory, background
        self._cancel = threading.Event()
        self._progress = _Progress(self)
        self._progress.moved.connect(self._moved)

        dream_box = QGroupBox(self.tr("整理（dream）"))
        self.preview_button = QPushButton(self.tr("预览改动"))
        self.preview_button.clicked.connect(self.preview_dream)
        self.run_button = QPushButton(self.tr("运行整理"))
        self.run_button.clicked.connect(self.run_dream)
        self.dream_view = QTextBrowser()
        dream_buttons = QHBoxLayout()
        dream_buttons.addWidget(self.preview_button)
        dream_buttons.addWidget(self.run_button)
        dream_buttons.addStretch(1)
        dream_layout = QVBoxLayout(dream_box)
        dream_layout.addLayout(dream_buttons)
        dream_layout.addWidget(self.dream_view, 1)

        rebuild_box = QGroupBox(self.tr("重建"))
        self.views_button = QPushButton(self.tr("重建视图（重放事件日志）"))
        self.views_button.clicked.connect(self.rebuild_views)
        self.vectors_button = QPushButton(self.tr("重建向量索引"))
        self.vectors_button.clicked.connect(self.rebuild_vectors)
        self.cancel_button = QPushButton(self.tr("取消"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self._cancel.set)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.rebuild_label = QLabel()
        self.rebuild_label.setWordWrap(True)
        rebuild_buttons = QHBoxLayout()
        for button in (self.views_button, self.vectors_button, self.cancel_button):
            rebuild_buttons.addWidget(button)
        rebuild_buttons.addStretch(1)
        rebuild_layout = QVBoxLayout(rebuild_box)
        rebuild_layout.addLayout(rebuild_buttons)
        rebuild_layout.addWidget(self.progress)
        rebuild_layout.addWidget(self.rebuild_label)

        reports_box = QGroupBox(self.tr("最近的报告"))
        self.reports_view = QTextBrowser()
        QVBoxLayout(reports_box).addWidget(self.reports_view)

        layout = QVBoxLayout(self)
        layout.addWidget(dream_box, 2)
        layout.addWidget(rebuild_box)
        layout.addWidget(reports_box, 2)

    # -- dream ---------------------------------------------------------------------------------

    def step_names(self) -> dict[str, str]:
        return {
            "alias_overwrites": self.tr("纠正开错的别名"),
            "merge": self.tr("合并重复条目"),
            "evict": self.tr("淘汰过期条目"),
            "fold": self.tr("折叠旧运行档案"),
            "index_reconcile": self.tr("向量索引对账"),
        }

    def preview_dream(self) -> None:
        self.preview_button.setEnabled(False)
        self.background.submit(
            lambda: self.memory.dream.run(full=True, dry_run=True), self._previewed, self._dream_failed
        )

    def _previewed(self, report: dict[str, Any]) -> None:
        self.preview_button.setEnabled(True)
        self.dream_view.setHtml(self._render(report, self.tr("预览：以下是整理会做的每一项改动（尚未执行）")))
        self.preview_ready.emit(report)

    def run_dream(self) -> None:
        self.run_button.setEnabled(False)
        self.background.submit(lambda: self.memory.dream.run(full=True), self._dreamed, self._dream_failed)

    def _dreamed(self, report: dict[str, Any]) -> None:
        self.run_button.setEnabled(True)
        self.dream_view.setHtml(self._render(report, self.tr("已完成整理")))
        self.dream_finished.emit(report)
        self.reload()

    def _dream_failed(self, exc: Exception) -> None:
        self.preview_button.setEnabled(True)
        self.run_button.setEnabled(True)
        self.dream_view.setPlainText(self.tr("整理失败：{0}").format(exc))

    def _render(self, report: dict[str, Any], title: str) -> str:
        words = {"跳过": self.tr("跳过"), "没有需要改动的地方。": self.tr("没有需要改动的地方。")}
        names = self.step_names()
        parts = [f"<h4>{html.escape(title)}</h4>"]
        for step in report.get("steps", []):
            name = names.get(step.get("step", ""), step.get("step", ""))
            if step.get("skipped") and isinstance(step["skipped"], str):
                parts.append(f"<p><b>{html.escape(name)}</b>：{html.escape(words['跳过'])}（{step['skipped']}）</p>")
                continue
            if "removed" in step and "count" not in step:
                count_text = self.tr("删除 {0}，补上 {1}").format(step.get("removed", 0), step.get("added", 0))
            else:
                count_text = self.tr("{0} 项").format(step.get("count", 0))
            parts.append(f"<p><b>{html.escape(name)}</b>：{html.escape(count_text)}</p><ul>")
            for change in step.get("changes", [])[:200]:
                parts.append(f"<li><code>{html.escape(_describe(change))}</code></li>")
            for run_id in step.get("run_ids", [])[:50]:
                parts.append(f"<li><code>{html.escape(str(run_id))}</code></li>")
            parts.append("</ul>")
        if not report.get("changed"):
            parts.append(f"<p>{html.escape(words['没有需要改动的地方。'])}</p>")
        return "".join(parts)

    # -- rebuilds --------------------------------------------------------------------------------

    def rebuild_views(self) -> None:
        self._start("views", self.memory.rebuild)

    def rebuild_vectors(self) -> None:
        self._start("vectors", self.memory.recall.rebuild_vectors)

    def _start(self, which: str, operation: Callable[..., dict[str, int]]) -> None:
        self._cancel.clear()
        for button in (self.views_button, self.vectors_button):
            button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 0)  # busy until the first progress report
        self.rebuild_label.setText(self.tr("正在重建…"))
        cancel, progress = self._cancel, self._progress

        def report(done: int, total: int) -> None:
            if cancel.is_set():
                raise Cancelled()
            progress.moved.emit(done, total)

        self.background.submit(
            lambda: operation(progress=report),
            lambda result: self._finished(which, result),
            lambda exc: self._finished(which, exc),
        )

    def _moved(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _finished(self, which: str, outcome: object) -> None:
        for button in (self.views_button, self.vectors_button):
            button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        if isinstance(outcome, Cancelled):
            self.progress.setValue(0)
            self.rebuild_label.setText(
                self.tr("已取消：正在重建的那部分保持原样。")
                if which == "views"
                else self.tr("已取消：向量索引只重建了一部分，下次整理或重建会补全。")
            )
        elif isinstance(outcome, Exception):
            self.progress.setValue(0)
            self.rebuild_label.setText(self.tr("重建失败：{0}").format(outcome))
        else:
            self.progress.setValue(1)
            summary = "，".join(f"{k} {v}" for k, v in dict(outcome).items())  # type: ignore[call-overload]
            self.rebuild_label.setText(self.tr("重建完成：{0}").format(summary))
        self.rebuild_finished.emit(which, outcome)

    # -- reports -----------------------------------------------------------------------------------

    def reload(self) -> None:
        self.background.submit(
            lambda: (self.memory.dream.reports(10), self.memory.desk.consolidation_log(20)), self._reports
        )

    def _reports(self, data: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
        words = {
            "整理报告": self.tr("整理报告"),
            "还没有整理过": self.tr("还没有整理过"),
            "桌面助手的整理记录": self.tr("桌面助手的整理记录"),
            "还没有记录": self.tr("还没有记录"),
        }
        dreams, consolidations = data
        names = self.step_names()
        parts = [f"<h4>{html.escape(words['整理报告'])}</h4><ul>"]
        for report in dreams:
            when = datetime.fromtimestamp(float(report["ts"])).strftime("%Y-%m-%d %H:%M")
            summary = "，".join(f"{names.get(k, k)} {v}" for k, v in report.get("summary", {}).items())
            parts.append(f"<li>{html.escape(when)} · {html.escape(summary)}</li>")
        if not dreams:
            parts.append(f"<li>{html.escape(words['还没有整理过'])}</li>")
        parts.append(f"</ul><h4>{html.escape(words['桌面助手的整理记录'])}</h4><ul>")
        kinds = {
            "commit": self.tr("归档"),
            "workday_review": self.tr("日审"),
            "activity": self.tr("活动"),
            "started": self.tr("开始"),
            "finished": self.tr("完成"),
            "failed": self.tr("失败"),
            "note": self.tr("备注"),
        }
        for record in consolidations:
            detail = record.get("detail") or {}
            parts.append(
                f"<li>{html.escape(record['ts'][:16].replace('T', ' '))} · "
                f"{html.escape(kinds.get(record['kind'], record['kind']))}"
                + (f" · {html.escape(record['workday'])}" if record.get("workday") else "")
                + (f" · {html.escape(record['summary'])}" if record.get("summary") else "")
                + (f" · <code>{html.escape(json.dumps(detail, ensure_ascii=False))}</code>" if detail else "")
                + "</li>"
            )
        if not consolidations:
            parts.append(f"<li>{html.escape(words['还没有记录'])}</li>")
        parts.append("</ul>")
        self.reports_view.setHtml("".join(parts))
        self.reports_loaded.emit(len(dreams) + len(consolidations))


def _describe(change: Any) -> str:
    """One change of a dream step as a line of text."""
    if not isinstance(change, dict):
        return str(change)
    if "kept" in change:
        kept = change["kept"]
        return f"{kept.get('term')} → {kept.get('package')} (− {len(change.get('removed', []))})"
    keys = ("term", "package", "from_package", "to_package", "kind", "scope", "reason")
    return " · ".join(f"{k}={change[k]}" for k in keys if change.get(k) not in (None, ""))
