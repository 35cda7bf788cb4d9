"""What a new user saw in the console at its default size (issue 39 §6), each where a test can see it.

Each page is shown in the main window at its default 1200×760 (or the page alone at that window's share),
on a real `Memory` over a temporary home (hash embedder: the model is not under test).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from pyqtgraph.graphicsItems.DateAxisItem import DAY_HOUR_ZOOM_LEVEL, MONTH_DAY_ZOOM_LEVEL, MONTH_SPACING
from PySide6.QtCore import QSettings, qInstallMessageHandler
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui import i18n
from gui.lanes import Lanes
from gui.main_window import MainWindow
from gui.pages.bundles_page import BundlesPage
from gui.pages.calibration_chart import CalibrationChart
from gui.pages.day_axis import DayAxis
from gui.pages.episodes_page import PAGE_SIZE, EpisodesPage
from gui.pages.recall_page import RecallPage
from service.client import JiyiClient
from service.config import load_config
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from service.rpc.presence import Presence
from tests.service.inprocess import in_thread

DAY = 86400.0
APPS = [
    ("com.sankuai.meituan", "美团"),
    ("com.dianping.v1", "大众点评"),
    ("com.xunmeng.pinduoduo", "拼多多"),
    ("com.ss.android.ugc.aweme", "抖音"),
    ("com.xingin.xhs", "小红书"),
    ("com.greenpoint.android.mc10086.activity", "中国移动"),
    ("com.google.android.apps.docs.editors.slides", "Google Slides"),
]
TYPICAL = "com.ss.android.ugc.aweme"  # a package of a usual length: shown whole at the default size


@pytest.fixture
def hashed(tmp_path: Path) -> Iterator[Memory]:
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    yield memory
    memory.close()


@pytest.fixture
def english(qapp: QApplication) -> Iterator[None]:
    assert i18n.install(qapp, "en")
    yield
    i18n.install(qapp, "zh")


def window_of(qtbot: QtBot, memory: Memory, lanes: Lanes, tmp_path: Path) -> MainWindow:
    """The console's window at its default size (no saved geometry), shown."""
    window = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    window.show()
    assert (window.width(), window.height()) == (1200, 760)
    return window


def run(memory: Memory, run_id: str, goal: str, launched: str, *, device: str = "xiaomi13", ended: float = 0) -> None:
    """A phone-agent run that recalls at its start and launches `launched` (scored against it at the end)."""
    memory.runs.run_start(run_id, device, goal=goal)
    launch = {"run_id": run_id, "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": launched}
    memory.runs.run_event(launch)
    outcome = {"success": True, "apps": [launched], "steps": 2, **({"ts_end": ended} if ended else {})}
    memory.runs.run_finish(run_id, outcome)


# -- App-KB -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh", "en"])
def test_app_kb_gives_the_table_the_width_and_shows_packages_whole(
    qtbot: QtBot, qapp: QApplication, hashed: Memory, lanes: Lanes, tmp_path: Path, language: str
) -> None:
    """It showed `co…` on every row (English) and cut names, the editor wider than the table."""
    hashed.appkb.sync_inventory("xiaomi13", APPS)
    hashed.appkb.sync_inventory("pixel7", APPS[:3])
    run(hashed, "r1", "打开美团", "com.sankuai.meituan")  # a last success: its column is as wide as in use
    try:
        assert i18n.install(qapp, language)
        window = window_of(qtbot, hashed, lanes, tmp_path)
        page = window.appkb_page
        window.page_list.setCurrentRow(window.stack.indexOf(page))
        qtbot.waitUntil(lambda: page.model.rowCount() == len(APPS) + 3, timeout=10_000)
        table, metrics = page.table, page.table.fontMetrics()
        package, term = page.model.COLUMNS.index("package"), page.model.COLUMNS.index("term")

        def fitted() -> None:  # the columns as fitted to the rows shown (a fit before they were laid out differs)
            columns = [table.columnWidth(c) for c in range(page.model.columnCount())]
            assert sum(columns) <= table.viewport().width() + 1  # nothing behind a sideways scroll
            assert columns[package] >= metrics.horizontalAdvance(TYPICAL) + 8
            assert columns[term] >= metrics.horizontalAdvance("小红书") + 8

        qtbot.waitUntil(fitted, timeout=5000)
        table_side, editor_side = page.splitter.sizes()
        assert table_side > 1.5 * editor_side
        # A heading cut short to leave the package room says itself whole in its tooltip.
        heading = page.model.headerData(5, table.horizontalHeader().orientation(), 3)  # ToolTipRole
        assert heading == page.model.headers[5]
    finally:
        i18n.install(qapp, "zh")


# -- the recall page ----------------------------------------------------------------------------------------


@pytest.fixture
def recalled(hashed: Memory) -> Memory:
    """Runs over three days, one of them a hit that is contaminated too: its goal names two apps (both
    recalled), and only the first was launched."""
    hashed.appkb.sync_inventory("xiaomi13", APPS)
    now = time.time()
    hashed.runs.archive_episodes(
        [
            {
                "run_id": f"past-{package}",
                "goal_text": f"用{label}看看",
                "ts_end": now - 30 * DAY,
                "success": True,
                "apps": [package],
                "device_scope": "device:xiaomi13",
                "steps": 3,
            }
            for package, label in APPS
        ]
        + [
            {
                "run_id": "past-two",
                "goal_text": "用中国移动和 Google Slides 看看",
                "ts_end": now - 30 * DAY,
                "success": True,
                "apps": [APPS[5][0], APPS[6][0]],
                "device_scope": "device:xiaomi13",
                "steps": 3,
            }
        ]
    )
    run(hashed, "mixed", "打开美团看看，再去大众点评看看评价", "com.sankuai.meituan", ended=now - 2 * DAY)
    run(hashed, "plain", "用拼多多买点纸巾", "com.xunmeng.pinduoduo", ended=now - 2 * DAY)
    run(hashed, "later", "刷一会抖音", "com.ss.android.ugc.aweme", ended=now - DAY)
    return hashed


def test_building_the_recall_page_warns_of_no_layout_clash(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    """Every start printed `QGridLayoutEngine::addItem: Can't add … at cell (1, 1) because it's already taken`
    twice: the charts' legends were put in the cell of the hidden top axis."""
    said: list[str] = []
    previous = qInstallMessageHandler(lambda _kind, _context, message: said.append(message))
    try:
        page = RecallPage(hashed, lanes)
        qtbot.addWidget(page)
        chart = CalibrationChart()
        qtbot.addWidget(chart)
        page.show()
        chart.show()
        QApplication.processEvents()
    finally:
        qInstallMessageHandler(previous)
    assert [m for m in said if "QGridLayoutEngine" in m or "already taken" in m] == []
    legend = page.rates_plot.getPlotItem().legend
    assert legend.parentItem() is page.rates_plot.getPlotItem()  # laid out in the plot, above the view box


def test_the_day_axis_names_months_and_weekdays_in_the_consoles_language(english: None) -> None:
    axis = DayAxis(orientation="bottom")
    december = datetime(2026, 12, 1, 12).timestamp()
    axis.zoomLevel = MONTH_DAY_ZOOM_LEVEL
    assert axis.tickStrings([december], 1.0, MONTH_SPACING) == ["Dec"]
    i18n.install(QApplication.instance(), "zh")  # type: ignore[arg-type]
    assert axis.tickStrings([december], 1.0, MONTH_SPACING) == ["12月"]  # was "Dec" among Chinese days
    axis.zoomLevel = DAY_HOUR_ZOOM_LEVEL
    assert axis.tickStrings([december], 1.0, DAY_HOUR_ZOOM_LEVEL.tickSpecs[0].spacing) == ["周二 01"]


def test_the_recall_page_at_the_default_size(qtbot: QtBot, recalled: Memory, lanes: Lanes, tmp_path: Path) -> None:
    window = window_of(qtbot, recalled, lanes, tmp_path)
    page = window.recall_page
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        window.page_list.setCurrentRow(window.stack.indexOf(page))
        page.reload()

    # The dates under the daily charts are in the console's language: over a month's turn the month is named
    # 12月, not Dec among Chinese days (as the chart draws them at its width).
    axis = page.rates_plot.getAxis("bottom")
    low, high = datetime(2026, 11, 10).timestamp(), datetime(2026, 12, 9).timestamp()
    page.rates_plot.setXRange(low, high, padding=0)
    ticks = [
        text
        for spacing, values in axis.tickValues(low, high, axis.width())
        for text in axis.tickStrings(values, axis.scale, spacing)
    ]
    assert "12月" in ticks and [t for t in ticks if re.search(r"[A-Za-z]", t)] == []

    # Hit@1 is drawn over the hit rate, thinner: where the two are equal (every day here) both show.
    curves = {c.name(): c for c in page.rates_plot.getPlotItem().listDataItems()}
    hit, rate = curves["Hit@1"], curves["命中率"]
    assert hit.zValue() > rate.zValue() and hit.opts["pen"].width() < rate.opts["pen"].width()

    # The calibration chart's curve has room (it was squashed to about 35 px).
    assert page.calibration_chart.plot.getPlotItem().vb.height() >= 100

    # Packages are shown whole (the figures' headings give up their width first).
    table, metrics = page.package_table, page.package_table.fontMetrics()
    qtbot.waitUntil(
        lambda: table.columnWidth(0) >= metrics.horizontalAdvance("com.xunmeng.pinduoduo") + 8, timeout=5000
    )
    assert sum(table.columnWidth(c) for c in range(5)) <= table.viewport().width() + 1

    # The ask box keeps its columns within its width, a long package and two apps in one row included.
    probe = page.probe
    probe.device.setCurrentText("xiaomi13")
    probe.task.setText("用中国移动和 Google Slides 看看")
    with qtbot.waitSignal(probe.answered, timeout=10_000):
        probe.ask()
    assert "com.greenpoint.android.mc10086.activity" in probe.answer.toPlainText()
    qtbot.waitUntil(lambda: probe.answer.horizontalScrollBar().maximum() == 0, timeout=3000)


def test_the_day_drill_down_marks_a_contaminated_run(qtbot: QtBot, recalled: Memory, lanes: Lanes) -> None:
    """A run with contaminated=1 showed only ✓."""
    day = datetime.fromtimestamp(time.time() - 2 * DAY).strftime("%Y-%m-%d")
    start = datetime.strptime(day, "%Y-%m-%d").timestamp()
    runs = {r.run_id: r.evaluation for r in recalled.recall.recall_runs(start, start + DAY)}
    assert runs["mixed"].hit_at_1 and runs["mixed"].contaminated_run  # a hit, and contaminated
    assert runs["plain"].hit_at_1 and not runs["plain"].contaminated_run
    page = RecallPage(recalled, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.day_shown, timeout=10_000):
        page.show_day(day)
    text = page.day_view.toPlainText()
    assert "污染" in text and "已脱敏" in text and "逐字" in text  # the column, and where redaction applies
    # Each run's row, from its id to the next one's: its goal, apps and why, then ✓ and the mark.
    starts = sorted((text.index(run_id), run_id) for run_id in runs)
    rows = {run_id: text[at : ([*starts, (len(text), "")])[i + 1][0]] for i, (at, run_id) in enumerate(starts)}
    marks = {run_id: row.split("依据")[-1] for run_id, row in rows.items()}  # what follows the why
    assert "✓" in marks["mixed"] and "是" in marks["mixed"]
    assert "✓" in marks["plain"] and "否" in marks["plain"] and "是" not in marks["plain"]


# -- runs ---------------------------------------------------------------------------------------------------


def test_a_run_link_from_another_page_selects_the_run_in_the_list(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, tmp_path: Path
) -> None:
    """Following a run link (from the recall page, a lesson) showed the run but left the list's selection where
    it was; a run older than the first page is read up to and selected."""
    now = time.time()
    hashed.runs.archive_episodes(
        [
            {
                "run_id": f"r{i:03d}",
                "goal_text": f"看视频 {i}",
                "ts_end": now - i * 60,
                "success": True,
                "apps": ["tv.danmaku.bili"],
                "device_scope": "device:pixel7",
                "steps": 3,
            }
            for i in range(PAGE_SIZE * 2 + 10)
        ]
    )
    window = window_of(qtbot, hashed, lanes, tmp_path)
    page = window.episodes_page
    qtbot.waitUntil(lambda: page.model.rowCount() == PAGE_SIZE, timeout=10_000)
    with qtbot.waitSignal(page.detail_shown, timeout=5000):
        page.table.selectRow(0)
    window.page_list.setCurrentRow(window.stack.indexOf(window.recall_page))
    with qtbot.waitSignal(page.detail_shown, timeout=10_000, check_params_cb=lambda run_id: run_id == "r005"):
        window.recall_page.run_requested.emit("r005")  # a link on the recall page
    assert window.current_page() is page and page.table.currentIndex().row() == 5
    with qtbot.waitSignal(page.detail_shown, timeout=20_000, check_params_cb=lambda run_id: run_id == "r300"):
        window.lessons_page.run_requested.emit("r300")  # on the second page of the list
    assert page.model.rowCount() >= 301 and page.model.rows[page.table.currentIndex().row()].run_id == "r300"
    assert page.model.rowCount() < PAGE_SIZE * 2 + 10  # read as far as the run, not to the end
    with qtbot.waitSignal(page.detail_shown, timeout=5000):
        page.go_back()
    assert page.table.currentIndex().row() == 5


def test_a_runs_detail_says_where_redaction_applies(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    """The title showed a goal in full, the same goal quoted as recall's basis redacted: the episode is
    verbatim (seed 000), recall's record is redacted, and the detail says so."""
    goal = "给 13812345678 发短信说我晚点到"
    hashed.appkb.sync_inventory("pixel7", [("com.android.mms", "短信")])
    run(hashed, "first", goal, "com.android.mms", device="pixel7")
    run(hashed, "second", goal, "com.android.mms", device="pixel7")
    page = EpisodesPage(hashed, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.detail_shown, timeout=10_000):
        page.show_run("second")
    detail = page.detail.toPlainText()
    assert detail.startswith(goal)  # the episode's goal, verbatim
    assert "13812345678" not in detail.split(goal, 1)[1]  # what recall recorded is redacted …
    assert "回想记录里的任务文字（目标、依据）已脱敏" in detail and "运行档案本身逐字保存" in detail  # … and said
    docs = (Path(__file__).parents[2] / "docs" / "recall.md").read_text("utf-8")
    assert "已脱敏" in docs and "逐字" in docs  # the docs say it as the console does


# -- other pages --------------------------------------------------------------------------------------------


def test_saving_a_bundle_document_says_saved(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    hashed.desk.complete_task("t1", title="ufo", status="succeeded", result="ok", schedule_id="ufo", run_id="r1")
    page = BundlesPage(hashed, lanes)
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.tree_loaded, timeout=5000):
        page.reload()
    item = page.tree.topLevelItem(0)
    assert item is not None
    bundle_id = item.toolTip(0)
    with qtbot.waitSignal(page.document_opened, timeout=5000):
        page.open_document(bundle_id, "preferences.md")
    assert page.saved_label.text() == ""
    page.editor.insertPlainText("- 只在失败时提醒\n")
    with qtbot.waitSignal(page.saved, timeout=5000) as saved:
        page.save()
    assert page.saved_label.text().startswith(f"已保存（修订 {saved.args[1]}，")
    assert page.saved_label.isVisibleTo(page)
    page.editor.insertPlainText("再改一点")
    assert page.saved_label.text() == ""  # edited since: no longer what was saved


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_topics_header_is_one_line_at_the_default_size(
    qtbot: QtBot, qapp: QApplication, hashed: Memory, lanes: Lanes, tmp_path: Path, language: str
) -> None:
    previous = hashed.maintenance.maintenance_status()["previous_workday"]
    # A turn at noon Beijing on the previous workday, never reviewed: the line says so too (its longest form).
    hashed.desk.remember_interaction("a", user_text="帮我整理周报", assistant_text="好", ts=f"{previous}T04:00:00Z")
    try:
        assert i18n.install(qapp, language)
        window = window_of(qtbot, hashed, lanes, tmp_path)
        page = window.topics_page
        with qtbot.waitSignal(page.status_loaded, timeout=10_000):
            window.page_list.setCurrentRow(window.stack.indexOf(page))
            page.load_status()
        label = page.backlog_label
        assert previous in label.text()
        QApplication.processEvents()
        lines = label.heightForWidth(label.width()) / label.fontMetrics().lineSpacing()
        assert lines < 1.5, (label.text(), label.width())
    finally:
        i18n.install(qapp, "zh")


def test_presence_counts_requests_by_the_kind_of_client() -> None:
    presence = Presence()
    for connection, kind in ((1, "console"), (2, "agent"), (3, "command")):
        presence.opened(connection)
        presence.named(connection, kind)
    for connection in (1, 1, 1, 2, 3):
        presence.served(connection)
    presence.closed(3)
    presence.served(9)  # a connection gone before its answer went out: an agent's
    counts = presence.snapshot()
    assert counts["requests_last_minute"] == 6
    assert counts["requests_by_kind"] == {"agent": 2, "console": 3, "command": 1, "worker": 0}


def test_the_status_bar_counts_the_consoles_own_requests_apart(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, socket_path: Path, tmp_path: Path
) -> None:
    """An idle console alone showed 3 connections and 15–68 requests a minute: its own polls."""
    host = SocketHost(hashed, socket_path)
    host.start()
    memory = in_thread(qtbot, lambda: RemoteMemory.attach(hashed.config, socket_path))
    window = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    try:
        for _poll in range(3):  # the console alone, polling as it does every few seconds
            with qtbot.waitSignal(window.service_status_shown, timeout=10_000) as shown:
                window.update_service_status()
        status = shown.args[0]
        assert status["requests_by_kind"]["console"] >= 3 and status["by_kind"]["console"] >= 1
        assert (
            window.service_label.text()
            == f"服务 {socket_path} · 智能体 0 个，0 次/分钟 · 控制台连接 {status['by_kind']['console']} 个"
        )
        agent = JiyiClient(socket_path, timeout=10)
        try:
            for _request in range(2):
                in_thread(qtbot, agent.health)
            with qtbot.waitSignal(window.service_status_shown, timeout=10_000) as shown:
                window.update_service_status()
        finally:
            agent.close()
        status = shown.args[0]
        assert status["requests_by_kind"]["agent"] == 2 and status["requests_last_minute"] > 2
        assert "智能体 1 个，2 次/分钟" in window.service_label.text()
        tip = window.service_label.toolTip()
        assert (
            f"控制台：{status['by_kind']['console']} 个连接，最近一分钟 {status['requests_by_kind']['console']} 次请求"
            in tip
        )
    finally:
        window.close()
        host.stop()
        memory.close()
        lanes.shutdown()
