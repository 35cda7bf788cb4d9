"""Upkeep (维护): the dream preview (every change it would make) and run; rebuilds with progress and cancel.

Rebuilding the views replays the event log domain by domain, each in one
transaction: cancelling rolls the current domain back (its old view stays),
the ones already rebuilt keep their new view. Rebuilding the vector index
re-embeds every live episode; a cancelled one leaves a partial index that
the next dream (index reconcile) or rebuild completes. Attached to a
service, a rebuild runs as the service's job and reports the same progress;
a rebuild someone else started there (`jiyi rebuild-vec`, another console)
is shown while the page is visible, and can be cancelled from here. The last
dream reports and the consolidation log of the desktop assistant are listed
below.
"""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from PySide6.QtCore import QCoreApplication, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
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

from gui.codes import rebuild_count_name
from gui.lanes import Lanes, Tasks, describe, page_action, page_task
from gui.words import comma_list, dream_step_names, labelled, with_note
from service.errors import Cancelled, JiyiError
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.memory.names import DREAM_STEPS as STEPS
from service.wire.desk import ConsolidationEntry
from service.wire.upkeep import DreamRecord, JobStatus

SHOWN_RUNS = 50  # runs of a fold listed in the dream view; the rest are counted
WATCH_MS = 1000  # how often a visible page asks whether the service runs a rebuild someone else started


class UpkeepPage(QWidget):
    """Dream preview and run, view and vector rebuilds, the last reports (not the desk's maintenance loop)."""

    # The last reports and what a dream pass would change.
    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.DESK, Domain.APP_KB, Domain.EXPERIENCE})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "维护")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return None

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            self.preview_button,
            self.run_button,
            self.views_button,
            self.vectors_button,
        )

    preview_ready = Signal(object)
    dream_finished = Signal(object)
    rebuild_finished = Signal(str, object)  # which ("views" / "vectors"), result or the exception
    reports_loaded = Signal(int)
    job_followed = Signal(object)  # a job someone else started, as shown (its status; None when it ended)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self._cancel = threading.Event()
        self._own = False  # a rebuild this page started is under way
        self._own_name = ""  # which one, in words
        self._followed: JobStatus | None = None  # a job someone else started, shown here while it runs
        self.watch_timer = QTimer(self)
        self.watch_timer.setInterval(WATCH_MS)
        self.watch_timer.timeout.connect(lambda: self.watch_jobs())

        dream_box = QGroupBox(self.tr("整理（dream）"))
        self.preview_button = QPushButton(self.tr("预览改动"))
        self.preview_button.clicked.connect(lambda: self.preview_dream())
        self.run_button = QPushButton(self.tr("运行整理"))
        self.run_button.clicked.connect(lambda: self.run_dream())
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
        self.views_button.clicked.connect(lambda: self.rebuild_views())
        self.vectors_button = QPushButton(self.tr("重建向量索引"))
        self.vectors_button.clicked.connect(lambda: self.rebuild_vectors())
        self.cancel_button = QPushButton(self.tr("取消"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self._cancel_clicked)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)  # idle: no "0%" for work nobody started
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

    @page_action
    async def preview_dream(self) -> None:
        """Every change a full dream would make, made nowhere.

        A dry run holds the memory's write lock like a real one, so it waits in
        the write lane rather than occupying a reader.
        """
        self.preview_button.setEnabled(False)
        try:
            report = await self.tasks.write(
                self.memory.dream.run, full=True, dry_run=True, progress=self.tasks.progress(self._dream_moved)
            )
        except Exception as exc:
            self._dream_failed(exc)
            return
        self.preview_button.setEnabled(True)
        self.dream_view.setHtml(self._render(report, self.tr("预览：以下是整理会做的每一项改动（尚未执行）")))
        self.preview_ready.emit(report)

    @page_action
    async def run_dream(self) -> None:
        self.run_button.setEnabled(False)
        try:
            report = await self.tasks.write(
                self.memory.dream.run, full=True, progress=self.tasks.progress(self._dream_moved)
            )
        except Exception as exc:
            self._dream_failed(exc)
            return
        self.run_button.setEnabled(True)
        self.dream_view.setHtml(self._render(report, self.tr("已完成整理")))
        self.dream_finished.emit(report)
        self.reload()

    def _dream_moved(self, done: int, total: int) -> None:
        """A full pass under way: which step runs now (attached, the service's dream job reports them)."""
        if done < min(total, len(STEPS)):
            name = dream_step_names().get(STEPS[done], STEPS[done])
            self.dream_view.setPlainText(self.tr("正在整理：{0}（第 {1}/{2} 步）").format(name, done + 1, total))
        else:
            self.dream_view.setPlainText(self.tr("整理的每一步都做完了。"))

    def _dream_failed(self, exc: Exception) -> None:
        self.preview_button.setEnabled(True)
        self.run_button.setEnabled(True)
        self.dream_view.setPlainText(self.tr("整理失败：{0}").format(describe(exc)))
        self.tasks.report(exc, show=False)

    def _render(self, report: Mapping[str, Any], title: str) -> str:
        names = dream_step_names()
        parts = [f"<h4>{html.escape(title)}</h4>"]
        for step in report.get("steps", []):
            name = f"<b>{html.escape(names.get(step.get('step', ''), step.get('step', '')))}</b>"
            if step.get("skipped") and isinstance(step["skipped"], str):
                skipped = with_note(self.tr("跳过"), step["skipped"])
                parts.append(f"<p>{labelled(name, html.escape(skipped))}</p>")
                continue
            if "removed" in step and "count" not in step:
                count_text = self.tr("删除 {0}，补上 {1}").format(step.get("removed", 0), step.get("added", 0))
            else:
                count_text = self.tr("{0} 项").format(step.get("count", 0))
            parts.append(f"<p>{labelled(name, html.escape(count_text))}</p><ul>")
            for change in step.get("changes", [])[:200]:
                parts.append(f"<li><code>{html.escape(_describe(change))}</code></li>")
            episodes = step.get("episodes")
            if isinstance(episodes, list):  # a preview: each run by its date, device, outcome and goal
                parts += [f"<li>{html.escape(self._episode_line(e))}</li>" for e in episodes[:SHOWN_RUNS]]
            else:
                parts += [f"<li><code>{html.escape(str(r))}</code></li>" for r in step.get("run_ids", [])[:SHOWN_RUNS]]
            hidden = int(step.get("count") or 0) - min(SHOWN_RUNS, len(episodes or step.get("run_ids") or []))
            if "run_ids" in step and hidden > 0:
                parts.append("<li>" + html.escape(self.tr("…以及另外 {0} 次运行").format(hidden)) + "</li>")
            parts.append("</ul>")
        if not report.get("changed"):
            nothing = self.tr("没有需要改动的地方。")
            parts.append(f"<p>{html.escape(nothing)}</p>")
        return "".join(parts)

    def _episode_line(self, episode: Mapping[str, Any]) -> str:
        """ "2026-09-01 08:30 · pixel7 · 成功 · 在小红书搜索火锅店" for a run a fold would archive."""
        when = datetime.fromtimestamp(float(episode.get("ts_end") or 0)).strftime("%Y-%m-%d %H:%M")
        device = str(episode.get("device_scope") or "").removeprefix("device:")
        outcome = self.tr("成功") if episode.get("success") else self.tr("失败")
        return " · ".join(p for p in (when, device, outcome, str(episode.get("goal_text") or "")) if p)

    # -- rebuilds --------------------------------------------------------------------------------

    def rebuild_views(self) -> None:
        self._rebuild("views", self.memory.rebuild)

    def rebuild_vectors(self) -> None:
        self._rebuild("vectors", self.memory.recall.rebuild_vectors)

    def _rebuild(self, which: str, operation: Callable[..., dict[str, int]]) -> None:
        """Start a rebuild: the buttons change at once (a second click cannot start another; cancel is offered
        before anything is awaited), then it runs in the write lane with progress."""
        self._cancel.clear()
        self._own = True
        self._own_name = self.tr("重建视图") if which == "views" else self.tr("重建向量索引")
        for button in (self.views_button, self.vectors_button):
            button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 0)  # busy until the first progress report
        self.rebuild_label.setText(self.tr("正在重建…"))
        self._run_rebuild(which, operation)

    @page_task
    async def _run_rebuild(self, which: str, operation: Callable[..., dict[str, int]]) -> None:
        """The rebuild in the write lane; the cancel button (or closing) stops it."""
        report = self.tasks.progress(self._moved, self._cancel)
        try:
            outcome: dict[str, int] | Exception = await self.tasks.write(operation, progress=report)
        except Exception as exc:
            outcome = exc
            if not isinstance(exc, Cancelled):
                self.tasks.report(exc, show=False)
        self._finished(which, outcome)

    def work_under_way(self, *, others: bool = True) -> str | None:
        """The rebuild under way that this page started (or, with `others`, follows), in words with how far it
        got, or None."""
        done, total = self.progress.value(), self.progress.maximum()
        so_far = f" {done}/{total}" if self.progress.isTextVisible() and total > 1 else ""
        if self._own:
            return self._own_name + so_far
        if others and self._followed is not None:
            return self._job_name(self._followed) + so_far
        return None

    def _moved(self, done: int, total: int) -> None:
        self.progress.setTextVisible(True)
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _finished(self, which: str, outcome: dict[str, int] | Exception) -> None:
        self._own = False
        for button in (self.views_button, self.vectors_button):
            button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setTextVisible(False)  # the label below says how it ended
        if isinstance(outcome, Cancelled):
            self.progress.setValue(0)
            self.rebuild_label.setText(
                self.tr("已取消：正在重建的那部分保持原样。")
                if which == "views"
                else self.tr("已取消：向量索引只重建了一部分，下次整理或重建会补全。")
            )
        elif isinstance(outcome, Exception):
            self.progress.setValue(0)
            self.rebuild_label.setText(self.tr("重建失败：{0}").format(describe(outcome)))
        else:
            self.progress.setValue(1)
            summary = comma_list(f"{rebuild_count_name(k)} {v}" for k, v in outcome.items())
            self.rebuild_label.setText(self.tr("重建完成：{0}").format(summary))
        self.rebuild_finished.emit(which, outcome)

    # -- a rebuild someone else started ----------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.watch_timer.start()
        self.watch_jobs()

    def hideEvent(self, event: QHideEvent) -> None:
        self.watch_timer.stop()
        super().hideEvent(event)

    def _cancel_clicked(self) -> None:
        if self._followed is not None and not self._own:
            self.cancel_followed(self._followed.job_id)
        else:
            self._cancel.set()

    @page_task
    async def watch_jobs(self) -> None:
        """Show the rebuild the service runs for someone else (a command, another console), and how it ended."""
        if self._own:
            return
        try:
            job = await self.tasks.refresh("job", self.memory.jobs.running)
        except JiyiError:
            return  # the service is away (the status bar says so) or too old to have jobs
        if self._own:
            return
        if job is not None:
            self._show_followed(job)
        elif self._followed is not None:
            try:
                ended: JobStatus | None = await self.tasks.read(self.memory.jobs.status, self._followed.job_id)
            except JiyiError:
                ended = None
            if not self._own and self._followed is not None:
                self._end_followed(ended)

    @page_action
    async def cancel_followed(self, job_id: str) -> None:
        self.cancel_button.setEnabled(False)
        await self.tasks.read(self.memory.jobs.cancel, job_id)
        self.rebuild_label.setText(self.tr("已请求取消 {0}，等它在下一步停下…").format(job_id))

    def _job_name(self, job: JobStatus) -> str:
        names = {
            "rebuild": self.tr("重建视图"),
            "vectors.rebuild": self.tr("重建向量索引"),
            "taskwizard.import": self.tr("导入 TaskWizard"),
            "dream": self.tr("整理"),
        }
        return names.get(job.kind, job.kind)

    def _show_followed(self, job: JobStatus) -> None:
        first = self._followed is None or self._followed.job_id != job.job_id
        self._followed = job
        for button in (self.views_button, self.vectors_button):
            button.setEnabled(False)
        if first:
            # an import commits as it goes and cannot be cancelled (the service refuses it)
            self.cancel_button.setEnabled(not job.cancel_requested and job.cancellable)
        done, total = job.done, job.total
        if total:
            self._moved(done, total)
        else:
            self.progress.setRange(0, 0)
        if not job.cancel_requested:
            text = self.tr("服务正在{0}（{1}，由别处启动）：{2}/{3}")
            self.rebuild_label.setText(text.format(self._job_name(job), job.job_id, done, total))
        self.job_followed.emit(job)

    def _end_followed(self, ended: JobStatus | None) -> None:
        followed, self._followed = self._followed, None
        for button in (self.views_button, self.vectors_button):
            button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setTextVisible(False)
        name = self._job_name(followed) if followed is not None else ""
        job_id = followed.job_id if followed is not None else ""
        state = ended.state if ended is not None else None
        self.progress.setValue(1 if state == "done" else 0)
        if state == "done":
            self.rebuild_label.setText(self.tr("{0}（{1}）已完成").format(name, job_id))
        elif state == "cancelled":
            self.rebuild_label.setText(self.tr("{0}（{1}）已取消").format(name, job_id))
        elif state == "failed":
            message = ((ended.error if ended is not None else None) or {}).get("message", "")
            self.rebuild_label.setText(self.tr("{0}（{1}）失败：{2}").format(name, job_id, message))
        else:
            self.rebuild_label.setText(self.tr("服务上的{0}（{1}）已结束").format(name, job_id))
        self.job_followed.emit(None)
        self.reload()

    # -- reports -----------------------------------------------------------------------------------

    def _failed(self, message: str) -> None:
        self.reports_view.setPlainText(self.tr("读取失败：{0}").format(message))

    @page_task
    async def reload(self) -> None:
        """The last dream reports and the desktop assistant's consolidation log."""
        dreams, consolidations = await self.tasks.refresh("reports", self._read_reports)
        names = dream_step_names()
        done, none, desk, empty = (
            self.tr("整理报告"),
            self.tr("还没有整理过"),
            self.tr("桌面助手的整理记录"),
            self.tr("还没有记录"),
        )
        parts = [f"<h4>{html.escape(done)}</h4><ul>"]
        for report in dreams:
            when = datetime.fromtimestamp(report.ts).strftime("%Y-%m-%d %H:%M")
            summary = comma_list(f"{names.get(k, k)} {v}" for k, v in report.summary.items())
            parts.append(f"<li>{html.escape(when)} · {html.escape(summary)}</li>")
        if not dreams:
            parts.append(f"<li>{html.escape(none)}</li>")
        parts.append(f"</ul><h4>{html.escape(desk)}</h4><ul>")
        parts += [f"<li>{self._consolidation(record)}</li>" for record in consolidations]
        if not consolidations:
            parts.append(f"<li>{html.escape(empty)}</li>")
        parts.append("</ul>")
        self.reports_view.setHtml("".join(parts))
        self.reports_loaded.emit(len(dreams) + len(consolidations))

    def _read_reports(self) -> tuple[list[DreamRecord], list[ConsolidationEntry]]:
        return self.memory.dream.reports(10), self.memory.maintenance.consolidation_log(20)

    def _consolidation(self, record: ConsolidationEntry) -> str:
        """One entry of the consolidation log as a line of HTML."""
        kinds = {
            "commit": self.tr("归档"),
            "workday_review": self.tr("日审"),
            "activity": self.tr("活动"),
            "started": self.tr("开始"),
            "finished": self.tr("完成"),
            "failed": self.tr("失败"),
            "note": self.tr("备注"),
        }
        detail = record.detail
        return (
            f"{html.escape(record.ts[:16].replace('T', ' '))} · "
            f"{html.escape(kinds.get(record.kind, record.kind))}"
            + (f" · {html.escape(record.workday)}" if record.workday else "")
            + (f" · {html.escape(record.summary)}" if record.summary else "")
            + (f" · {html.escape(self._detail(detail))}" if detail else "")
        )

    def _detail(self, detail: Mapping[str, Any]) -> str:
        """A log entry's counts in words ("话题 2 · 归档问答 30"); an agent's own keys as they are."""
        names = {
            "topics": self.tr("话题"),
            "assigned": self.tr("归档问答"),
            "facts": self.tr("事实"),
            "skills": self.tr("技能"),
            "deactivated": self.tr("停用的事实"),
        }
        parts = []
        ordered = [k for k in names if k in detail] + [k for k in detail if k not in names]
        for key in ordered:
            value = detail[key]
            if isinstance(value, list):
                value = comma_list(str(v) for v in value) if value else "0"
            elif isinstance(value, dict):
                value = json.dumps(value, ensure_ascii=False)
            parts.append(f"{names.get(key, key)} {value}")
        return " · ".join(parts)


def _describe(change: Any) -> str:
    """One change of a dream step as a line of text: its values, no field names (`term=` read as code)."""
    if not isinstance(change, dict):
        return str(change)
    if "kept" in change:
        kept = change["kept"]
        return f"{kept.get('term')} → {kept.get('package')} (− {len(change.get('removed', []))})"
    if "old_package" in change and "new_package" in change:  # a wrong alias corrected: from what, to what, why
        return f"{change.get('term')} · {change['old_package']} → {change['new_package']} · {change.get('run_id', '')}"
    keys = ("term", "package", "from_package", "to_package", "kind", "scope", "reason")
    return " · ".join(str(change[k]) for k in keys if change.get(k) not in (None, ""))
