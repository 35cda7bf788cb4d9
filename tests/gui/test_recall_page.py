"""Recall charts on real evaluations over several days (hash embedder: the model is not under test)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pyqtgraph as pg
import pytest
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.pages.recall_page import RecallPage, rolling, tick_name
from service.config import load_config
from service.errors import EnvironmentProblem
from service.memory.memory import Memory
from tests.gui.conftest import Attach

DAY = 86400.0


@pytest.fixture
def evaluated(tmp_path: Path) -> Iterator[Memory]:
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    now = time.time()
    memory.runs.archive_episodes(
        [
            {
                "run_id": f"h{i}",
                "goal_text": g,
                "ts_end": now - 30 * DAY,
                "success": True,
                "apps": [p],
                "device_scope": "device:d1",
                "steps": 3,
            }
            for i, (g, p) in enumerate(
                [("在小红书搜索火锅店", "com.xingin.xhs"), ("美团点一份外卖", "com.sankuai.meituan")]
            )
        ]
    )
    runs = [
        (3, "搜索火锅店", "com.xingin.xhs"),
        (3, "搜索火锅店", "com.dianping.v1"),
        (2, "点一份外卖", "com.sankuai.meituan"),
        (1, "给妈妈打电话", "com.android.contacts"),
    ]
    for i, (days_ago, goal, actual) in enumerate(runs):
        memory.runs.run_start(f"q{i}", "d1", goal=goal)
        # Recall is scored against confirmed launches only.
        launch = {"run_id": f"q{i}", "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": actual}
        memory.runs.run_event(launch)
        memory.runs.run_finish(f"q{i}", {"success": True, "apps": [actual], "steps": 0, "ts_end": now - days_ago * DAY})
    yield memory
    memory.close()


def test_rolling_weighs_days_by_evaluations() -> None:
    assert rolling([1.0, 0.0], [3, 1], window=7) == [1.0, 0.75]
    assert rolling([0.5], [0]) == [0.0]


def test_charts_have_the_days_and_packages(attach: Attach, qtbot: QtBot, evaluated: Memory, lanes: Lanes) -> None:
    page = RecallPage(attach(evaluated), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000) as loaded:
        page.reload()
    stats = loaded.args[0]
    assert [d.evaluations for d in page.days] == [2, 1, 1]
    assert stats["totals"]["evaluations"] == 4 and "Hit@1 0.50" in page.mode_label.text()
    # Loaded before it was shown (as the console loads every page): the charts come as the page is shown first,
    # with the figures loaded by then.
    assert not page.charts_built and not hasattr(page, "rates_plot")
    page.show()
    curves = page.rates_plot.getPlotItem().listDataItems()
    assert len(curves) == 4 and all(len(c.getData()[0]) == 3 for c in curves)
    packages = {page.package_model.item(r, 0).text() for r in range(page.package_model.rowCount())}
    assert {"com.xingin.xhs", "com.dianping.v1", "com.sankuai.meituan"} <= packages
    with qtbot.waitSignal(page.day_shown, timeout=10_000):
        page.show_day(page.days[0].day)
    text = page.day_view.toPlainText()
    assert "q0" in text and "q1" in text and "com.dianping.v1" in text
    assert "≈ 在小红书搜索火锅店 (相似 " in text and "用词 " in text  # why the app was recalled

    # ask recall about a task: the answer, and every app it weighed
    qtbot.waitUntil(lambda: page.probe.device.findText("d1") >= 0, timeout=10_000)
    page.probe.device.setCurrentText("d1")
    page.probe.task.setText("搜索火锅店")
    with qtbot.waitSignal(page.probe.answered, timeout=10_000) as answered:
        page.probe.button.click()
    assert answered.args[0].top1_apps == ["com.xingin.xhs"]
    shown = page.probe.answer.toPlainText()
    assert "召回 com.xingin.xhs" in shown and "在小红书搜索火锅店" in shown and "com.sankuai.meituan" in shown
    # why: the confidence against the threshold, from the top app, the runner-up and the lead
    sure = answered.args[0].confidence
    assert sure.top_app == ["com.xingin.xhs"] and sure.runner_up == ["com.sankuai.meituan"]
    assert f"置信度 {sure.value:.3f} ≥ 阈值" in shown
    assert f"第二 com.sankuai.meituan {sure.second:.3f}，领先 {sure.margin:.3f}" in shown
    page.probe.device.setCurrentText("")
    page.probe.ask()
    assert "请输入任务并选择设备" in page.probe.answer.toPlainText()

    def broken(*_a: object, **_k: object) -> None:
        raise EnvironmentProblem("the vector collection was built by an older Jiyi; run `jiyi rebuild-vec`")

    page.probe.device.setCurrentText("d1")
    page.probe.memory.recall.recall_query = broken  # type: ignore[method-assign, assignment]
    with qtbot.waitSignal(page.probe.answered, timeout=10_000):
        page.probe.ask()
    assert "rebuild-vec" in page.probe.answer.toPlainText() and page.probe.button.isEnabled()


def test_the_package_table_is_sorted_by_what_it_shows(
    attach: Attach, qtbot: QtBot, evaluated: Memory, lanes: Lanes
) -> None:
    """The busiest apps first, under the arrow that says so; a click on 包名 sorts by name."""
    from PySide6.QtCore import Qt

    from gui.pages.recall_page import PACKAGE_COLUMNS

    page = RecallPage(attach(evaluated), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    table, header = page.package_table, page.package_table.horizontalHeader()
    shown = lambda column: [table.model().index(r, column).data() for r in range(table.model().rowCount())]  # noqa: E731
    actuals = PACKAGE_COLUMNS.index("actuals")
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (actuals, Qt.SortOrder.DescendingOrder)
    counts = [int(c) for c in shown(actuals)]
    assert counts == sorted(counts, reverse=True) and len(counts) >= 3
    predictions = PACKAGE_COLUMNS.index("predictions")
    table.sortByColumn(predictions, Qt.SortOrder.DescendingOrder)
    assert shown(predictions)[0] == "2" and shown(0)[0] == "com.xingin.xhs"  # recalled for both 搜索火锅店 runs
    table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert shown(0) == sorted(shown(0))
    assert not table.wordWrap() and table.textElideMode() == Qt.TextElideMode.ElideMiddle


def test_an_empty_recall_page_says_how_it_fills_and_shows_dates(
    attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    page = RecallPage(attach(memory), lanes)
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert not page.empty_hint.isHidden() and "还没有评估过的回想" in page.empty_hint.text()
    (low, high), _ = page.rates_plot.getPlotItem().vb.viewRange()
    assert abs(high - time.time()) < DAY and 29 * DAY < high - low < 32 * DAY  # the last 30 days, not 1970
    assert page.package_plot.getAxis("bottom")._tickLevels == [[]]  # no 0.1 … 0.9 ticks under no bars


def test_the_calibration_curve_shows_the_budget_and_the_chosen_point(
    attach: Attach, qtbot: QtBot, evaluated: Memory, lanes: Lanes
) -> None:
    for i in range(30):  # enough scored recalls for the device to calibrate on its own evaluations
        goal, actual = ("搜索火锅店", "com.xingin.xhs") if i % 3 else ("点一份外卖", "com.sankuai.meituan")
        evaluated.runs.run_start(f"c{i}", "d1", goal=goal)
        launch = {"run_id": f"c{i}", "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": actual}
        evaluated.runs.run_event(launch)  # recall is scored against confirmed launches only
        evaluated.runs.run_finish(f"c{i}", {"success": True, "apps": [actual], "steps": 0})
    evaluated.calibration.wait()
    (kept,) = evaluated.calibration.current("d1")
    page = RecallPage(attach(evaluated), lanes)
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.calibration_chart.shown, timeout=10_000) as shown:
        page.reload()
    assert shown.args == ["d1"]
    chart = page.calibration_chart
    assert chart.device.currentText() == "d1"
    assert chart.summary.text().startswith(f"阈值 {kept.threshold:.4f} · 来自本机的评估（34 次）· 污染预算 0.10")
    lines = chart.plot.getPlotItem().listDataItems()
    hit, contamination, bound, point = lines
    assert list(hit.getData()[0]) == [p.threshold for p in kept.curve]
    assert list(contamination.getData()[1]) == [p.contamination for p in kept.curve]
    assert all(b >= c for b, c in zip(bound.getData()[1], contamination.getData()[1], strict=True))
    assert list(point.getData()[0]) == [kept.threshold]
    assert chart.budget_line.value() == 0.10 and chart.threshold_line.value() == kept.threshold
    # the thresholds are on the confidence, and the axis says so
    assert "置信度（最高应用得分 + 部分领先第二名的差）" in chart.plot.getPlotItem().getAxis("bottom").labelText


def test_bars_are_named_by_the_app_and_a_bar_of_the_counts_opens_its_day(
    attach: Attach, qtbot: QtBot, evaluated: Memory, lanes: Lanes
) -> None:
    evaluated.appkb.sync_inventory("d1", [("com.xingin.xhs", "小红书"), ("com.sankuai.meituan", "美团")])
    page = RecallPage(attach(evaluated), lanes)
    qtbot.addWidget(page)
    page.resize(1200, 760)
    page.show()
    with qtbot.waitSignal(page.loaded, timeout=10_000) as loaded:
        page.reload()
    labels = {p["package"]: p["label"] for p in loaded.args[0]["packages"]}
    assert labels["com.xingin.xhs"] == "小红书" and labels["com.dianping.v1"] is None
    ticks = [text for _x, text in page.package_plot.getAxis("bottom")._tickLevels[0]]
    assert "小红书" in ticks and "dianping" in ticks  # no device names it: its package's telling part
    assert "com.xingin.xhs" in page.package_plot.toolTip()
    # The legend has a row of its own, above the data: it is not an item inside the view box.
    legend = page.rates_plot.getPlotItem().legend
    assert legend is not None and legend.parentItem() is not page.rates_plot.getPlotItem().vb
    # A click on a day's bar of 每日评估次数 lists that day's runs, as a click on the top chart does.
    day = page.days[-1]
    vb = page.count_plot.getPlotItem().vb
    x = time.mktime(time.strptime(day.day, "%Y-%m-%d")) + DAY / 2
    scene_pos = vb.mapViewToScene(pg.Point(x, 0.5))

    class Click:
        def scenePos(self):
            return scene_pos

    with qtbot.waitSignal(page.day_shown, timeout=10_000) as shown:
        page._clicked(Click(), page.count_plot)
    assert shown.args == [day.day]


def test_tick_names_are_short_and_telling() -> None:
    assert tick_name("com.ss.android.article.news") == "news"
    assert tick_name("ctrip.android.view") == "ctrip"
    assert tick_name("com.dianping.v1") == "dianping"
    assert tick_name("哔哩哔哩大会员版") == "哔哩哔…"  # 8 columns at most: three wide characters and the ellipsis
