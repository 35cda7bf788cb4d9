"""Recall charts: is shadow recall getting it right, day by day and app by app?

Hit@1, hit rate and contamination per day with a 7-day rolling Hit@1;
evaluations per day; package precision and recall (bars for the busiest
apps, and a sortable table of all); each device's calibration curve with its
budget and chosen threshold (`calibration_chart`). Click a day to list its runs with what
was recalled against what was really launched, and why; below, ask recall
about any task (`recall_probe`). All figures come from
`Memory.recall_statistics` and `Memory.recall_runs` (the reference's definitions).

The charts are built, and pyqtgraph and numpy imported (about 0.5 s of CPU), when the page is first shown: the
console builds every page as its home opens, and its overview's first figures do not wait for them.
"""

from __future__ import annotations

import html
import re
import time
import unicodedata
from datetime import datetime
from typing import Any, ClassVar

from PySide6.QtCore import QCoreApplication, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QShowEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.column_fit import ColumnFit
from gui.lanes import Lanes, Tasks, page_task
from gui.pages.recall_probe import RecallProbe
from gui.run_links import open_run_link, run_link
from gui.words import NOWRAP, recall_record_note, unbroken_commands
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.wire.episodes import DailyRecallPoint
from service.wire.recall import RecallAnswer
from service.wire.results import PackageStatistics, RecallStatistics

DAY = 86400.0
PACKAGE_COLUMNS = ("package", "precision", "recall", "predictions", "actuals")
HIT_AT_1, CONTAMINATED = "#1f6feb", "#cf222e"
HIT_RATE_PALE = (45, 164, 78, 120)  # green, see-through: a line drawn under the others
RATE_LAYERS = {"hit_rate": 1, "hit_at_1": 3, "contaminated_run_rate": 2}
"""Which daily line lies over which: Hit@1 on top, the hit rate (wide, pale) at the bottom."""


def day_start(day: str) -> float:
    return datetime.strptime(day, "%Y-%m-%d").timestamp()


def rolling(values: list[float], weights: list[int], window: int = 7) -> list[float]:
    """Evaluation-weighted mean over the last `window` days (a day with no evaluations weighs nothing)."""
    out = []
    for i in range(len(values)):
        lo = max(0, i - window + 1)
        total = sum(weights[lo : i + 1])
        out.append(
            sum(v * w for v, w in zip(values[lo : i + 1], weights[lo : i + 1], strict=True)) / total if total else 0.0
        )
    return out


class RecallPage(QWidget):
    """Charts and tables of recall quality over a chosen range."""

    # A finished run scores its recall; an import brings statistics.
    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.RECALL, Domain.EXPERIENCE})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "回想质量")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return self.range_combo

    loaded = Signal(object)
    day_shown = Signal(str)
    run_requested = Signal(str)  # a run's id was clicked: open it in the episode browser
    failed = Signal(str)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self.days: list[DailyRecallPoint] = []
        self.stats: RecallStatistics | None = None  # the figures shown, drawn in the charts once they are built
        self.charts_built = False
        self.mode_label = QLabel()
        self.range_combo = QComboBox()
        for label, days in (
            (self.tr("最近 7 天"), 7),
            (self.tr("最近 30 天"), 30),
            (self.tr("最近 90 天"), 90),
            (self.tr("全部"), 0),
        ):
            self.range_combo.addItem(label, days)
        self.range_combo.setCurrentIndex(1)
        self.range_combo.currentIndexChanged.connect(lambda _i: self.reload())
        refresh = QPushButton(self.tr("刷新"))
        refresh.clicked.connect(lambda: self.reload())
        top = QHBoxLayout()
        top.addWidget(self.mode_label, 1)
        top.addWidget(self.range_combo)
        top.addWidget(refresh)

        # Where the charts go when the page is first shown (`build_charts`).
        self.charts_box = QWidget()
        self.charts_layout = QVBoxLayout(self.charts_box)
        self.charts_layout.setContentsMargins(0, 0, 0, 0)
        self.package_table = self._build_package_table()
        self.day_view = QTextBrowser()
        self.day_view.setOpenLinks(False)
        self.day_view.anchorClicked.connect(lambda url: open_run_link(url, self.run_requested.emit))
        self.day_view.setPlaceholderText(self.tr("点击上方图表中的某一天，查看那天的运行"))

        self.probe = RecallProbe(memory, lanes)
        self.probe.run_requested.connect(self.run_requested)
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(self.package_table)
        side.addWidget(self.day_view)
        side.addWidget(self.probe)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(self.charts_box)
        body.addWidget(side)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        body.setSizes([580, 420])  # the side's tables and probe need room: about 3:2 from the start
        hint = self.tr(
            "还没有评估过的回想。手机智能体每完成一次运行（回想模式 shadow 或 on），"
            "Jiyi 就把它开始时的回想和真正打开的应用对比一次，结果按天显示在这里。"
            "想先看看样子：jiyi demo --home 一个新目录。"
        )
        self.empty_hint = QLabel(unbroken_commands(hint))
        self.empty_hint.setTextFormat(Qt.TextFormat.RichText)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.empty_hint)
        layout.addWidget(body, 1)

    def showEvent(self, event: QShowEvent) -> None:
        self.build_charts()
        super().showEvent(event)

    def build_charts(self) -> None:
        """The charts, once (the page does as it is first shown), with the figures loaded by then."""
        if self.charts_built:
            return
        self.charts_built = True
        self.charts_layout.addWidget(self._build_charts())
        if self.stats is not None:
            self._draw(self.stats)

    def _build_charts(self) -> QSplitter:
        """Rates per day, evaluations per day, precision and recall of the busiest apps, calibrations."""
        import pyqtgraph as pg

        from gui.pages.calibration_chart import CalibrationChart, rates_axes
        from gui.pages.day_axis import DayAxis

        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        self.rates_plot = pg.PlotWidget(axisItems={"bottom": DayAxis()})
        rates_axes(self.rates_plot)
        self.rates_plot.setTitle(self.tr("每日 Hit@1、命中率与污染率"))
        self.rates_plot.scene().sigMouseClicked.connect(lambda event: self._clicked(event, self.rates_plot))
        self.count_plot = pg.PlotWidget(axisItems={"bottom": DayAxis()})
        self.count_plot.setTitle(self.tr("每日评估次数"))
        self.count_plot.scene().sigMouseClicked.connect(lambda event: self._clicked(event, self.count_plot))
        self.package_plot = pg.PlotWidget()
        self.package_plot.setTitle(self.tr("各应用的精确率（蓝）与召回率（绿），评估最多的 10 个"))
        self.package_plot.setYRange(0, 1)
        charts = QSplitter(Qt.Orientation.Vertical)
        charts.addWidget(self.rates_plot)
        charts.addWidget(self.count_plot)
        charts.addWidget(self.package_plot)
        self.calibration_chart = CalibrationChart()
        charts.addWidget(self.calibration_chart)
        # The calibration chart carries a device line, a legend and an axis title above and below its curve:
        # in equal shares its curve was left about 35 px at 1200×760. The counts' bars need the least.
        charts.setSizes([200, 110, 160, 250])
        return charts

    def _build_package_table(self) -> QTableView:
        """Every app's precision and recall, sortable by value."""
        self.package_model = QStandardItemModel(0, len(PACKAGE_COLUMNS), self)
        headings = [self.tr("包名"), self.tr("精确率"), self.tr("召回率"), self.tr("召回次数"), self.tr("实际次数")]
        self.package_model.setHorizontalHeaderLabels(headings)
        for column, heading in enumerate(headings):  # a heading cut short to leave the package room, whole
            self.package_model.setHeaderData(column, Qt.Orientation.Horizontal, heading, Qt.ItemDataRole.ToolTipRole)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.package_model)
        proxy.setSortRole(Qt.ItemDataRole.UserRole)
        table = QTableView()
        table.setModel(proxy)
        table.setSortingEnabled(True)
        # The busiest apps first, as in the bar chart; a click on a header sorts by that column.
        table.sortByColumn(PACKAGE_COLUMNS.index("actuals"), Qt.SortOrder.DescendingOrder)
        table.setWordWrap(False)  # a package name is one word: shorten it in the middle, never break it
        table.verticalHeader().setVisible(False)
        # The figures keep their width and the package takes the rest; in a narrow side column the figures'
        # headings (召回次数 over 129) come down to their figures' width before a package is cut.
        self.package_fit = ColumnFit(table, fill=0, shrinkable={}, fill_share=0.45)
        table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        return table

    @page_task
    async def reload(self) -> None:
        days = int(self.range_combo.currentData() or 0)
        since = time.time() - days * DAY if days else None
        self.probe.load_devices()
        self._show(await self.tasks.refresh("statistics", self.memory.recall.recall_statistics, since=since))

    def _failed(self, message: str) -> None:
        self.mode_label.setText(self.tr("读取失败：{0}").format(message))
        self.failed.emit(message)

    def _show(self, stats: RecallStatistics) -> None:
        totals = stats["totals"]
        self.mode_label.setText(
            self.tr("模式 {0} · 嵌入模型 {1} · 评估 {2} 次 · Hit@1 {3:.2f} · 污染率 {4:.2f} · 弃答率 {5:.2f}").format(
                stats["mode"],
                stats["embedder"],
                totals["evaluations"],
                totals["hit_at_1"],
                totals["contaminated_run_rate"],
                totals["abstain_rate"],
            )
        )
        self.stats = stats
        self.days = stats["daily"]
        self.empty_hint.setVisible(not self.days)
        self._show_packages(stats["packages"])
        if self.charts_built:
            self._draw(stats)
        self.loaded.emit(stats)

    def _draw(self, stats: RecallStatistics) -> None:
        """Draw `stats` in the charts (built by then)."""
        import pyqtgraph as pg

        xs = [day_start(d.day) + DAY / 2 for d in self.days]
        counts = [d.evaluations for d in self.days]
        self.rates_plot.clear()
        self.count_plot.clear()
        if xs:
            # Hit@1 never exceeds the hit rate, and on many days equals it: the hit rate is drawn first, wide and
            # pale, and Hit@1 thin on top of it, so where the two are equal both still show (the legend too).
            for key, name, pen, symbol in (
                ("hit_rate", self.tr("命中率"), pg.mkPen(HIT_RATE_PALE, width=6), ("s", 10, HIT_RATE_PALE)),
                ("hit_at_1", "Hit@1", pg.mkPen(HIT_AT_1, width=2), ("o", 5, HIT_AT_1)),
                ("contaminated_run_rate", self.tr("污染率"), pg.mkPen(CONTAMINATED, width=2), ("o", 6, CONTAMINATED)),
            ):
                curve = self.rates_plot.plot(
                    xs,
                    [getattr(d, key) for d in self.days],
                    pen=pen,
                    symbol=symbol[0],
                    symbolSize=symbol[1],
                    symbolBrush=symbol[2],
                    symbolPen=None,
                    name=name,
                )
                curve.setZValue(RATE_LAYERS[key])
            smooth = rolling([d.hit_at_1 for d in self.days], counts)
            self.rates_plot.plot(
                xs,
                smooth,
                pen=pg.mkPen(HIT_AT_1, width=1, style=Qt.PenStyle.DashLine),
                name=self.tr("Hit@1（7 日滚动）"),
            )
            self.count_plot.addItem(pg.BarGraphItem(x=xs, height=counts, width=DAY * 0.7, brush="#8c959f"))
        else:
            # Nothing to draw: show the range asked for (dates, not the seconds after 1970), 0..1 high.
            days = int(self.range_combo.currentData() or 0) or 30
            now = time.time()
            for plot in (self.rates_plot, self.count_plot):
                plot.setXRange(now - days * DAY, now, padding=0)
            self.count_plot.setYRange(0, 1)
        self._draw_packages(stats["packages"])
        self.calibration_chart.set_calibrations(stats["calibration"])

    def _show_packages(self, packages: list[PackageStatistics]) -> None:
        self.package_model.removeRows(0, self.package_model.rowCount())
        for p in packages:
            row = []
            for value, text in (
                (p["package"], p["package"]),
                (p["precision"], f"{p['precision']:.2f}"),
                (p["recall"], f"{p['recall']:.2f}"),
                (p["predictions"], str(p["predictions"])),
                (p["actuals"], str(p["actuals"])),
            ):
                item = QStandardItem(text)
                item.setData(value, Qt.ItemDataRole.UserRole)
                item.setEditable(False)
                row.append(item)
            self.package_model.appendRow(row)

    def _draw_packages(self, packages: list[PackageStatistics]) -> None:
        """The busiest apps' precision and recall as bars."""
        import pyqtgraph as pg

        self.package_plot.clear()
        top = packages[:10]
        self.package_plot.getAxis("bottom").setTicks([[]] if not top else None)  # no 0.1 … 0.9 under no bars
        if top:
            xs = list(range(len(top)))
            self.package_plot.addItem(
                pg.BarGraphItem(
                    x=[x - 0.2 for x in xs], height=[p["precision"] for p in top], width=0.38, brush="#1f6feb"
                )
            )
            self.package_plot.addItem(
                pg.BarGraphItem(x=[x + 0.2 for x in xs], height=[p["recall"] for p in top], width=0.38, brush="#2da44e")
            )
            axis = self.package_plot.getAxis("bottom")
            axis.setTicks([[(x, tick_name(p.get("label") or p["package"])) for x, p in zip(xs, top, strict=True)]])
            # Which app each bar is, in full (the labels under the bars are short).
            self.package_plot.setToolTip("\n".join(f"{p.get('label') or ''} {p['package']}".strip() for p in top))

    def _clicked(self, event: Any, plot: Any) -> None:
        """A click on a day of either daily chart lists that day's runs."""
        point = plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        if self.days:
            nearest = min(self.days, key=lambda d: abs(day_start(d.day) + DAY / 2 - point.x()))
            self.show_day(nearest.day)

    def _why(self, recall: RecallAnswer) -> str:
        """Why the top app was recalled: the name the task used, or the past goal and the two scores."""
        if not recall.candidates:
            return "—"
        top = recall.candidates[0]
        if top.source == "mention":
            return self.tr("任务提到“{0}”").format(top.term or "")
        if top.source == "keyword":
            return self.tr("只凭任务用词（嵌入服务不可用），用词 {0:.2f}").format(top.ownership or 0.0)
        parts = [self.tr("相似 {0:.2f}").format(top.vector)] if top.vector is not None else []
        if top.ownership is not None:
            parts.append(self.tr("用词 {0:.2f}").format(top.ownership))
        goal = top.goal or ""
        return f"≈ {goal} ({' · '.join(parts)})" if parts else f"≈ {goal}"

    @page_task
    async def show_day(self, day: str) -> None:
        """List the runs evaluated on `day` with recalled against actual apps."""
        start = day_start(day)
        runs = await self.tasks.refresh("day", self.memory.recall.recall_runs, start, start + DAY)
        rows = []
        why = html.escape(self.tr("依据："))
        yes, no = html.escape(self.tr("是")), html.escape(self.tr("否"))
        for run in runs:
            ev = run.evaluation
            # Packages get a line of their own under the goal: in a column of their own they broke at each dot.
            apps = self.tr("召回 {0} · 实际 {1}").format(
                " ".join(ev.recalled_apps) or "—", " ".join(ev.actual_apps) or "—"
            )
            # A run recall led astray is marked beside its Hit@1: a hit and a contamination can go together.
            contaminated = f"<b style='color:{CONTAMINATED}'>{yes}</b>" if ev.contaminated_run else no
            # The apps and the why go in the goal's cell: in rows of their own spanning the marks' columns too,
            # their width was shared out to those columns and the goal was left a few characters a line.
            rows.append(
                f"<tr><td nowrap>{run_link(run.run_id)}</td>"
                f"<td>{html.escape(run.recall.query)}<br>{html.escape(apps)}"
                f"<br><span style='color:#57606a'>{why}{html.escape(self._why(run.recall))}</span></td>"
                f"<td {NOWRAP}>{'✓' if ev.hit_at_1 else ('✗' if ev.recalled_apps else '—')}</td>"
                f"<td {NOWRAP}>{contaminated}</td></tr>"
            )
        titles = (self.tr("运行"), self.tr("目标"), "Hit@1", self.tr("污染"))
        header = "".join(f"<th>{html.escape(t)}</th>" for t in titles)
        note = html.escape(recall_record_note())
        self.day_view.setHtml(
            f"<h4>{day}</h4><p style='color:#57606a'>{note}</p>"
            f"<table cellpadding='3'><tr>{header}</tr>{''.join(rows)}</table>"
        )
        self.day_shown.emit(day)


def tick_name(name: str, width: int = 8) -> str:
    """A bar's label: the app's name as its inventory shows it, else the package's most telling part (not the
    `android`/`client`/`view` many packages end in), shortened to `width` display columns so neighbours never
    overlap; the bar's tooltip has the whole."""
    if "." in name and " " not in name:  # a package: com.ss.android.article.news → news, ctrip.android.view → ctrip
        generic = {"android", "client", "view", "app", "mobile", "main", "activity", "com", "cn", "tv", "me"}
        parts = [part for part in name.split(".") if part.lower() not in generic and not re.fullmatch(r"v?\d+", part)]
        name = parts[-1] if parts else name.split(".")[-1]

    def columns(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)

    if columns(name) <= width:
        return name
    while columns(name) > width - 1:  # room for the ellipsis
        name = name[:-1]
    return name.rstrip() + "…"
