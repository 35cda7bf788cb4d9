"""The overview page: where the memory lives, how much it holds, and whether it is healthy.

State directory, schema, counts, RAG mode, the embedder and its vector index
(a mismatch is shown with a rebuild button), recall quality over the last 30
days, each device's recall threshold (where it came from, when), the last
dream, recent errors.
Everything is read through `Memory.overview()` in the read lane; the rebuild
runs in the write lane, so the page keeps reading while it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import ClassVar

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.codes import read_only_words
from gui.lanes import Lanes, Tasks, describe, page_action, page_task
from gui.pages.calibration_words import describe_calibration
from gui.words import comma_list, dream_step_names, labelled, unbroken_commands, with_note
from service.memory.api import MemoryApi
from service.memory.domain import EVERY_DOMAIN, Domain
from service.memory.names import HomeSize
from service.wire.results import Overview

MB = 1 << 20  # the budget is set in MB (JIYI_MAX_HOME_MB), and the size is shown in the same unit
INDEX_OPENING_ASK_MS = 1000  # while the service opens its vector index, the page asks again this often


class OverviewPage(QWidget):
    """A read-out of the memory's state, refreshed on demand and on every change."""

    # Every count it shows moves with any change.
    domains: ClassVar[frozenset[Domain]] = EVERY_DOMAIN

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "概览")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return None

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (self.rebuild_button,)

    loaded = Signal(object)
    rebuild_finished = Signal(object)
    failed = Signal(str)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self.values: dict[str, QLabel] = {}
        self.forms: dict[str, QFormLayout] = {}  # each value's form (a row shown only when it says something)
        layout = QVBoxLayout(self)
        self.start_box = self._build_start()
        layout.addWidget(self.start_box)
        for title, keys in (
            (
                self.tr("存储"),
                (
                    ("home", self.tr("状态目录")),
                    ("writes", self.tr("写入")),
                    ("database", self.tr("数据库")),
                    ("schema_version", self.tr("结构版本")),
                    ("home_size", self.tr("占用空间")),
                ),
            ),
            (
                self.tr("记忆内容"),
                (
                    ("app_kb_entries", self.tr("应用库条目")),
                    ("episodes", self.tr("运行档案")),
                    ("events", self.tr("事件")),
                    ("devices", self.tr("设备")),
                    ("active_runs", self.tr("进行中的运行")),
                ),
            ),
            (
                self.tr("语义回想"),
                (
                    ("rag_mode", self.tr("模式")),
                    ("embedder", self.tr("嵌入模型")),
                    ("index", self.tr("向量索引")),
                    ("recall_quality", self.tr("回想质量")),
                    ("recall_calibration", self.tr("回想阈值")),
                ),
            ),
            (self.tr("整理与错误"), (("last_dream", self.tr("上次整理")), ("errors", self.tr("最近错误")))),
        ):
            box = QGroupBox(title)
            form = QFormLayout(box)
            for key, label in keys:
                value = QLabel("…")
                value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                value.setWordWrap(True)
                self.values[key] = value
                self.forms[key] = form
                form.addRow(label, value)
            layout.addWidget(box)
        self._show_read_only(memory.read_only)
        self.rebuild_button = QPushButton(self.tr("重建向量索引"))
        self.rebuild_button.clicked.connect(lambda: self.rebuild_index())
        self.refresh_button = QPushButton(self.tr("刷新"))
        self.refresh_button.clicked.connect(lambda: self.reload())
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.rebuild_button)
        buttons.addWidget(self.refresh_button)
        layout.addLayout(buttons)
        layout.addStretch(1)

    def _build_start(self) -> QGroupBox:
        """The first steps, shown while the home holds nothing yet (instead of a page of zeros)."""
        box = QGroupBox(self.tr("开始使用"))
        steps = (
            self.tr(
                "连接智能体：保持控制台打开（或运行 jiyi serve），手机智能体和桌面助手通过本机套接字调用记忆"
                "（docs/protocol.md，示例 docs/agent-example.py）。"
            ),
            self.tr("导入 TaskWizard 的记忆：在应用库页点“导入 TaskWizard…”，或运行 jiyi import taskwizard 目录。"),
            self.tr("先看看样子：jiyi demo --home ~/jiyi-demo 生成演示数据，再用 jiyi --home ~/jiyi-demo 打开。"),
        )
        label = QLabel("<ol>" + "".join(f"<li>{unbroken_commands(step)}</li>" for step in steps) + "</ol>")
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        QVBoxLayout(box).addWidget(label)
        box.setVisible(False)
        return box

    @page_task
    async def reload(self) -> None:
        self._show(await self.tasks.refresh("overview", self.memory.overview))

    def _failed(self, message: str) -> None:
        self.values["errors"].setText(self.tr("读取失败：{0}").format(message))
        self.rebuild_button.setEnabled(True)
        self.failed.emit(message)

    def _show(self, data: Overview) -> None:
        for key in (
            "home",
            "database",
            "schema_version",
            "app_kb_entries",
            "episodes",
            "events",
            "active_runs",
            "rag_mode",
            "embedder",
        ):
            self.values[key].setText(str(data.get(key, "")))
        self.values["devices"].setText(", ".join(data.get("devices", [])) or self.tr("还没有设备连接过"))
        desk = data.get("desk") or {}
        empty = not (data.get("app_kb_entries") or data.get("episodes") or desk.get("interactions"))
        self.start_box.setVisible(empty)
        self._show_size(data["home_size"])
        read_only = data.get("read_only")
        self._show_read_only(read_only)
        index = data.get("index") or {}
        missing = data.get("vector_index_problem")
        if read_only and not index.get("ok"):
            # Chroma writes as it opens: recall goes by the task's words, and the reason is the home's.
            self.values["index"].setText(self.tr("只读状态目录里打不开（Chroma 打开时要写入）：回想只按任务的文字"))
            self.values["index"].setToolTip(str(index.get("problem", "")))
            self.values["index"].setStyleSheet("color: #9a6700;")
        elif index.get("opening"):
            # The service opens its vector index (Chroma, the model) beside the first requests: the rest of the
            # page is shown now, and the index's line when it is open.
            self.values["index"].setText(self.tr("正在打开…"))
            self.values["index"].setStyleSheet("")
            QTimer.singleShot(INDEX_OPENING_ASK_MS, self, self.reload)
        elif missing:
            # vectors/ deleted: recall finds no past run by meaning until it is rebuilt.
            self.values["index"].setText(self.tr("向量索引缺失：{0}").format(missing))
            self.values["index"].setStyleSheet("color: #b3261e;")
        elif index.get("ok") and index.get("lagging"):
            # The archive holds runs recall cannot find (an import not indexed, an ingest cut short).
            self.values["index"].setText(
                self.tr("向量索引落后：{0} 条运行未索引（{1} 条运行向量；jiyi rebuild-vec 可补齐）").format(
                    index["lagging"], index.get("episode_vectors", 0)
                )
            )
            self.values["index"].setStyleSheet("color: #9a6700;")
        elif index.get("ok"):
            self.values["index"].setText(self.tr("正常，{0} 条运行向量").format(index.get("episode_vectors", 0)))
            self.values["index"].setStyleSheet("")
        else:
            self.values["index"].setText(self.tr("有问题：{0}").format(index.get("problem", "")))
            self.values["index"].setStyleSheet("color: #b3261e;")
        self.values["recall_quality"].setText(self._quality(data.get("recall_quality") or {}))
        calibrations = data.get("recall_calibration") or []
        self.values["recall_calibration"].setText(
            "\n".join(labelled(c.device, describe_calibration(c)) for c in calibrations)
            or self.tr("还没有设备的校准（使用模型的固定阈值）")
        )
        dream = data.get("last_dream")
        if dream:
            when = datetime.fromtimestamp(dream.ts).isoformat(sep=" ", timespec="minutes")
            steps = dream_step_names()
            summary = comma_list(f"{steps.get(k, k)} {v}" for k, v in dream.summary.items())
            kind = self.tr("完整") if dream.pass_ == "full" else self.tr("轻量")
            self.values["last_dream"].setText(labelled(with_note(when, kind), summary))
        else:
            self.values["last_dream"].setText(self.tr("还没有整理过"))
        errors = data.get("errors", {})
        recall_errors = sum(errors.get("recall", {}).values())
        self.values["errors"].setText(
            self.tr("档案写入失败 {0} 次，回想失败 {1} 次").format(errors.get("archive_failures", 0), recall_errors)
        )
        self.rebuild_button.setEnabled(True)
        self.loaded.emit(data)

    def _show_read_only(self, why: str | None) -> None:
        """The 写入 row, shown only on a read-only home: why it takes no writes."""
        self.forms["writes"].setRowVisible(self.values["writes"], why is not None)
        if why is not None:
            self.values["writes"].setText(self.tr("只读。{0}").format(read_only_words(why)))
            self.values["writes"].setStyleSheet("color: #9a6700;")

    def _show_size(self, size: HomeSize) -> None:
        """The home's size against its budget (JIYI_MAX_HOME_MB); in red once writes are refused."""
        used, budget = size["bytes"] / MB, size["budget_bytes"]
        if budget is None:
            text = self.tr("{0:.1f} MB（不设上限）").format(used)
        elif size["over_budget"]:
            text = self.tr("{0:.1f} MB，已到上限 {1} MB：写入被拒绝（JIYI_MAX_HOME_MB）").format(used, budget // MB)
        else:
            text = f"{used:.1f} MB / {budget // MB} MB"
        self.values["home_size"].setText(text)
        self.values["home_size"].setStyleSheet("color: #b3261e;" if size["over_budget"] else "")

    def _quality(self, quality: Mapping[str, object]) -> str:
        """The recall page's headline figures for the overview's window, or that nothing was scored."""
        days = quality.get("days", 30)
        if not quality.get("evaluations"):
            return self.tr("近 {0} 天没有评估过的运行").format(days)
        return self.tr("近 {0} 天：评估 {1} 次 · Hit@1 {2:.2f} · 污染率 {3:.2f} · 弃答率 {4:.2f}").format(
            days,
            quality["evaluations"],
            quality.get("hit_at_1") or 0.0,
            quality.get("contaminated_run_rate") or 0.0,
            quality.get("abstain_rate") or 0.0,
        )

    @page_action
    async def rebuild_index(self) -> None:
        """Rebuild the vector index from the archive in the write lane (closing the console stops it)."""
        self.rebuild_button.setEnabled(False)
        self.values["index"].setText(self.tr("正在重建…"))
        try:
            result = await self.tasks.write(
                self.memory.recall.rebuild_vectors, progress=self.tasks.lanes.check_stopping
            )
        except Exception as exc:
            self.values["index"].setText(self.tr("重建失败：{0}").format(describe(exc)))
            self.rebuild_button.setEnabled(True)
            self.tasks.report(exc, show=False)
            return
        self.rebuild_finished.emit(result)
        self.reload()
