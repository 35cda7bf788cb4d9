"""The App-KB page: every app fact and alias, filterable, paged from the store, with its editor.

It shows what agents and people taught Jiyi, in the trust order user >
device > learned, and lets a person correct it (see `alias_editor`). Filters
go to the store; rows arrive in pages from the read lane, so the page
stays responsive at any size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, TypedDict

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QSettings,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gui.column_fit import ColumnFit
from gui.lanes import Lanes, Tasks, describe, page_action, page_task
from gui.paged_model import Index, PagedTableModel
from gui.pages.alias_editor import AliasEditor
from gui.words import semicolon_list
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.memory.names import AppKbEntry

PAGE_SIZE = 500


class AliasTableModel(PagedTableModel[AppKbEntry]):
    """Rows of `AppKbEntry`; more are fetched a page at a time through `fetcher`."""

    COLUMNS = (
        "term",
        "label",
        "package",
        "kind",
        "scope",
        "confidence",
        "success_count",
        "last_success",
        "stale",
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headers = (
            self.tr("名称"),
            self.tr("标准名"),
            self.tr("包名"),
            self.tr("来源"),
            self.tr("范围"),
            self.tr("置信度"),
            self.tr("成功"),
            self.tr("最近成功"),
            self.tr("状态"),
        )
        self.kind_names = {
            "user": self.tr("用户"),
            "device": self.tr("设备清单"),
            "learned": self.tr("学习"),
            "alias": self.tr("别名"),
        }

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self.rows)):
            return None
        entry = self.rows[index.row()]
        column = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(entry, column)
        if role == Qt.ItemDataRole.ToolTipRole and column == "success_count":
            return self.tr("成功启动次数")
        if role == Qt.ItemDataRole.ToolTipRole and column == "last_success":
            return (entry.last_success or "")[:19].replace("T", " ")
        if role == Qt.ItemDataRole.ToolTipRole and column in ("term", "label", "package"):
            seen = self.tr("首次出现 {0}，最近出现 {1}").format(entry.first_seen[:19], entry.last_seen[:19])
            return f"{self._display(entry, column)}\n{seen}"  # the whole value first: the column may cut it
        if role == Qt.ItemDataRole.ForegroundRole and entry.stale:
            return QBrush(QColor(140, 140, 140))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in ("confidence", "success_count"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, entry: AppKbEntry, column: str) -> str:
        if column == "kind":
            return self.kind_names.get(entry.kind, entry.kind)
        if column == "scope":
            return self.tr("全局") if entry.scope == "global" else entry.scope.removeprefix("device:")
        if column == "confidence":
            return f"{entry.confidence:.2f}"
        if column == "success_count":
            return str(entry.success_count)
        if column == "last_success":
            return (entry.last_success or "")[5:16].replace("T", " ")  # MM-DD HH:MM; its tooltip has the year
        if column == "stale":
            return self.tr("已失效") if entry.stale else self.tr("有效")
        return str(getattr(entry, column))


class AliasFilters(TypedDict):
    """What the page lists entries by (`list_aliases`' own parameters): its filter widgets, trust order."""

    device: str | None
    kind: str | None
    text: str | None
    include_stale: bool
    order: str


class AppKbPage(QWidget):
    """Browse the App-KB: search (names, labels, packages), device, kind, stale."""

    # Aliases, inventories and the evidence runs leave.
    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.APP_KB, Domain.EXPERIENCE})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "应用库 App-KB")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return self.search_edit

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            self.import_button,
            *self.editor.write_controls(),
        )

    rows_loaded = Signal(int)
    load_failed = Signal(str)
    transferred = Signal(str)  # a message after an import or export

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self._total = 0

        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(self.tr("搜索名称、标准名或包名"))
        self.search_edit.setClearButtonEnabled(True)
        self.device_combo = QComboBox()
        self.device_combo.addItem(self.tr("全部设备"), None)
        self.kind_combo = QComboBox()
        self.kind_combo.addItem(self.tr("全部来源"), None)
        self.model = AliasTableModel(self)
        for kind in ("user", "device", "learned", "alias"):
            self.kind_combo.addItem(self.model.kind_names[kind], kind)
        self.stale_check = QCheckBox(self.tr("显示已失效"))
        self.stale_check.setChecked(True)

        filters = QHBoxLayout()
        filters.addWidget(self.search_edit, 3)
        filters.addWidget(self.device_combo, 1)
        filters.addWidget(self.kind_combo, 1)
        filters.addWidget(self.stale_check)

        self.model.fetcher = self._fetch_page
        self.table = self._build_table()

        self.editor = AliasEditor(memory, lanes)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _prev: self._select(current.row()))
        self.editor.saved.connect(lambda _txn: self.reload())
        self.editor.reverted.connect(lambda _txn: self.reload())

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(filters)
        left_layout.addWidget(self.table, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.editor)
        # The table is what a person reads: two thirds of the width from the start, and of any width added.
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([680, 340])
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter, 1)
        # What the last import or export did: it stays until the next one (the count beside it is the table's).
        self.report_label = QLabel()
        self.report_label.setWordWrap(True)
        self.report_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.report_label.setVisible(False)
        layout.addWidget(self.report_label)
        layout.addLayout(self._build_footer())

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(200)
        self._debounce.timeout.connect(lambda: self.reload())
        self.search_edit.textChanged.connect(lambda _text: self._debounce.start())
        self.device_combo.currentIndexChanged.connect(lambda _i: self.reload())
        self.kind_combo.currentIndexChanged.connect(lambda _i: self.reload())
        self.stale_check.toggled.connect(lambda _on: self.reload())

    def _build_table(self) -> QTableView:
        table = QTableView()
        table.setModel(self.model)
        table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        table.setAlternatingRowColors(True)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        # Every column shows without scrolling; the package, what an operator must check, keeps its width
        # longest: names (and the device's scope) give theirs up first.
        table.horizontalHeader().setMinimumSectionSize(self.fontMetrics().horizontalAdvance("0000") + 12)
        name = self.fontMetrics().horizontalAdvance("微信微信") + 12
        self.column_fit = ColumnFit(table, fill=2, shrinkable={0: name, 1: name, 4: name}, fill_share=0.45)
        return table

    def _build_footer(self) -> QHBoxLayout:
        """The row count, the trust order, import and export."""
        self.count_label = QLabel()
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        sample = self.tr("显示 {0}{1} 条，共 {2} 条").format(888888, "+", 888888)
        self.count_label.setMinimumWidth(self.fontMetrics().horizontalAdvance(sample) + 8)
        self.trust_text = self.tr(
            "信任顺序：用户 > 设备清单 > 学习。设备清单条目来自设备，只读；在右侧教它新的叫法或让它忘记。"
        )
        self.empty_text = self.tr(
            "应用库还是空的：设备同步应用清单后（inventory.sync，或 jiyi inventory sync）这里会列出已安装的应用；"
            "也可以在右侧教它一个叫法，或导入 TaskWizard。"
        )
        self.trust_label = QLabel(self.trust_text)
        self.trust_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.trust_label.setWordWrap(True)
        self.import_button = QPushButton(self.tr("导入 TaskWizard…"))
        self.export_button = QPushButton(self.tr("导出 TaskWizard…"))
        self.import_button.clicked.connect(lambda: self._choose_folder(self.import_from))
        self.export_button.clicked.connect(lambda: self._choose_folder(self.export_to))
        self.import_progress = QProgressBar()  # shown while an import runs: busy, then its runs indexed
        self.import_progress.setMaximumWidth(180)
        self.import_progress.setVisible(False)
        footer = QHBoxLayout()
        footer.addWidget(self.count_label, 0)
        footer.addSpacing(16)
        footer.addWidget(self.trust_label, 1)
        footer.addWidget(self.import_progress)
        footer.addWidget(self.import_button)
        footer.addWidget(self.export_button)
        return footer

    # -- loading -----------------------------------------------------------------------

    def filters(self) -> AliasFilters:
        return {
            "device": self.device_combo.currentData(),
            "kind": self.kind_combo.currentData(),
            "text": self.search_edit.text().strip() or None,
            "include_stale": self.stale_check.isChecked(),
            "order": "trust",
        }

    @page_task
    async def reload(self) -> None:
        """Load the first page for the current filters (and refresh the device list)."""
        listing = self.model.begin(self.filters())

        def load() -> tuple[list[AppKbEntry], list[str], int]:
            rows = self.memory.appkb.list_aliases(limit=PAGE_SIZE + 1, offset=0, **listing.query)
            return rows, self.memory.appkb.devices(), self.memory.appkb.count_aliases()

        rows, devices, total = await self.tasks.read(load)
        if self.model.show(listing, rows[:PAGE_SIZE], len(rows) > PAGE_SIZE):
            self._set_devices(devices)
            self.editor.set_devices(devices)
            self._total = total
            self._update_count()
            self.rows_loaded.emit(len(self.model.rows))

    @page_task
    async def _fetch_page(self, _offset: int) -> None:
        """The next page of the listing shown, asked with the filters that listing started with.

        Asked by key, after the last row shown (not by offset): aliases an agent learned since the listing
        began neither shift a row into this page twice nor push one past it."""
        listing = self.model.listing
        if listing is None or not self.model.rows:
            return
        after = self.model.rows[-1].key
        rows = await self.tasks.read(self.memory.appkb.list_aliases, limit=PAGE_SIZE + 1, after=after, **listing.query)
        if self.model.extend(listing, rows[:PAGE_SIZE], len(rows) > PAGE_SIZE):
            self._update_count()
            self.rows_loaded.emit(len(self.model.rows))

    def save_state(self, settings: QSettings) -> None:
        settings.setValue("appkb/splitter", self.splitter.saveState())
        settings.setValue("appkb/kind", self.kind_combo.currentData() or "")
        settings.setValue("appkb/stale", self.stale_check.isChecked())

    def restore_state(self, settings: QSettings) -> None:
        state = settings.value("appkb/splitter")
        if isinstance(state, QByteArray):
            self.splitter.restoreState(state)
        self.kind_combo.setCurrentIndex(max(0, self.kind_combo.findData(settings.value("appkb/kind") or None)))
        self.stale_check.setChecked(str(settings.value("appkb/stale", "true")).lower() == "true")

    def _choose_folder(self, then: Any) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("选择 TaskWizard 的 memory 目录"))
        if folder:
            then(Path(folder))

    @page_action
    async def import_from(self, folder: Path) -> None:
        """Import a TaskWizard memory/ directory (App-KB, episodes, recall scorecard, lessons) in the write
        lane; importing it again adds only what TaskWizard appended since. The footer shows it running, then
        how many imported runs are indexed for recall (attached to a service: the service's import job)."""
        self._transferring(True)
        self.import_progress.setRange(0, 0)
        self.count_label.setText(self.tr("正在导入 {0}…").format(folder))
        report = self.tasks.progress(self._import_moved)
        try:
            reports = await self.tasks.write(self.memory.import_taskwizard, folder, progress=report)
        except Exception as exc:
            self._transferring(False)
            self._transfer_failed(exc)
            return
        self._transferring(False)
        message = semicolon_list(
            [
                *(self._describe_import(name, r) for name, r in reports.items()),
                # A damaged view (episodes.json cut short...) is said, as TaskWizard's reader logs it.
                *(
                    self.tr("{0} 已损坏，按日志重建").format(note.split(" is damaged")[0])
                    for r in reports.values()
                    for note in r.damaged
                ),
            ]
        )
        # What each log was taken for and why, and what the person may say (--replaces), as the store words it.
        said = [note for r in reports.values() for note in (r.recognised, r.suggestion) if note]
        problems = [*said, *(p for r in reports.values() for p in [*r.problems, *r.damaged])]
        self._report(self.tr("导入 {0}：{1}").format(folder, message), problems)
        self.transferred.emit(message)
        self.reload()

    def _describe_import(self, part: str, report: Any) -> str:
        """One part of an import (App-KB, runs, recall scorecard, lessons) in a person's words."""
        parts = {
            "app_kb": self.tr("应用库"),
            "experience": self.tr("运行档案"),
            "recall_stats": self.tr("回想统计"),
            "lessons": self.tr("经验教训"),
        }
        name = parts.get(part, part)
        if report.already_imported:
            return self.tr("{0}：已导入过，没有新内容").format(name)
        text = self.tr("{0}：导入 {1} 条，跳过 {2} 条损坏").format(name, report.imported, report.skipped)
        if report.rewritten:
            text += self.tr("（日志已被压缩改写，已有的 {0} 条没有重复导入，删除了它不再包含的 {1} 条）").format(
                report.known, report.removed
            )
        if report.recognised and report.moved_from:
            text += self.tr("（认出是之前从 {0} 导入的目录）").format(report.moved_from)
        if report.suggestion:
            text += self.tr("（可能是别处仍在的目录的副本，已单独导入；若它取代那个目录，请加 --replaces 再导入）")
        return text

    def _report(self, text: str, problems: list[str] | None = None) -> None:
        self.report_label.setText(text)
        self.report_label.setToolTip("\n".join(problems or []))
        self.report_label.setVisible(True)

    @page_task
    async def export_to(self, folder: Path) -> None:
        """Write the App-KB, episodes, recall scorecard and lessons as a TaskWizard memory/ directory, from the
        read lane."""
        try:
            counts = await self.tasks.read(self.memory.export_taskwizard, folder)
        except Exception as exc:
            self._transfer_failed(exc)
            return
        message = self.tr("已导出 {0} 个应用库事件、{1} 条档案到 {2}").format(
            counts["app_kb"]["events"], counts["experience"]["records"], folder
        )
        self._report(message)
        self.transferred.emit(message)

    def work_under_way(self) -> str | None:
        """The import under way from this page, in words, or None."""
        if not self.import_progress.isVisibleTo(self):
            return None
        done, total = self.import_progress.value(), self.import_progress.maximum()
        return self.tr("导入 TaskWizard") + (f" {done}/{total}" if total > 0 else "")

    def _transferring(self, busy: bool) -> None:
        self.import_progress.setVisible(busy)
        self.import_button.setEnabled(not busy)
        self.export_button.setEnabled(not busy)

    def _import_moved(self, done: int, total: int) -> None:
        self.import_progress.setRange(0, max(total, 1))
        self.import_progress.setValue(done)
        self.count_label.setText(self.tr("已导入，正在为回想建立索引：{0}/{1} 条运行").format(done, total))

    def _transfer_failed(self, exc: Exception) -> None:
        self._report(self.tr("没有完成：{0}").format(describe(exc)))
        self.transferred.emit(describe(exc))
        self.tasks.report(exc, show=False)

    def _select(self, row: int) -> None:
        if 0 <= row < len(self.model.rows):
            entry = self.model.rows[row]
            self.editor.show_entry(entry.term, entry.package)

    def _failed(self, message: str) -> None:
        self.count_label.setText(self.tr("读取失败：{0}").format(message))
        self.load_failed.emit(message)

    def _set_devices(self, devices: list[str]) -> None:
        current = self.device_combo.currentData()
        known = [self.device_combo.itemData(i) for i in range(1, self.device_combo.count())]
        if known == devices:
            return
        self.device_combo.blockSignals(True)
        while self.device_combo.count() > 1:
            self.device_combo.removeItem(1)
        for serial in devices:
            self.device_combo.addItem(serial, serial)
        index = self.device_combo.findData(current) if current else 0
        self.device_combo.setCurrentIndex(max(0, index))
        self.device_combo.blockSignals(False)

    def _update_count(self) -> None:
        more = "+" if self.model.has_more else ""
        self.count_label.setText(self.tr("显示 {0}{1} 条，共 {2} 条").format(len(self.model.rows), more, self._total))
        self.trust_label.setText(self.empty_text if self._total == 0 else self.trust_text)
