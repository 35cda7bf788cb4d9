"""The App-KB page and the main window, driven through their widgets."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from gui.pages.appkb_page import PAGE_SIZE, AppKbPage
from service.memory.memory import Memory
from tests.gui.conftest import Attach
from tests.service.test_taskwizard_round3 import first_directory, kept_running, moved
from tests.unit.service.test_import_index import GOALS, outcome, taskwizard_dir


@pytest.fixture
def filled(memory: Memory) -> Memory:
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝")])
    memory.appkb.sync_inventory("d2", [("com.xingin.xhs", "小红书")])
    memory.appkb.learn_alias("绿泡泡", "com.tencent.mm")
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信")])  # 淘宝 becomes stale
    return memory


@pytest.fixture
def page(attach: Attach, qtbot: QtBot, filled: Memory, lanes: Lanes) -> AppKbPage:
    widget = AppKbPage(attach(filled), lanes)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.rows_loaded, timeout=5000):
        widget.reload()
    return widget


def column(page: AppKbPage, name: str) -> list[str]:
    index = page.model.COLUMNS.index(name)
    return [page.model.data(page.model.index(row, index)) for row in range(page.model.rowCount())]


def test_page_shows_every_entry_with_readable_kinds(page: AppKbPage) -> None:
    assert sorted(column(page, "term")) == sorted(["微信", "淘宝", "小红书", "绿泡泡"])
    assert set(column(page, "kind")) == {"设备清单", "用户"}
    assert "已失效" in column(page, "stale")
    assert page.device_combo.count() == 3  # all, d1, d2
    assert "共 4 条" in page.count_label.text()


def test_filters_run_in_the_store(qtbot: QtBot, page: AppKbPage) -> None:
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.device_combo.setCurrentIndex(page.device_combo.findData("d2"))
    assert sorted(column(page, "term")) == ["小红书", "绿泡泡"]
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.kind_combo.setCurrentIndex(page.kind_combo.findData("user"))
    assert column(page, "term") == ["绿泡泡"]
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.kind_combo.setCurrentIndex(0)
        page.device_combo.setCurrentIndex(0)
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.stale_check.setChecked(False)
    assert "淘宝" not in column(page, "term")
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        qtbot.keyClicks(page.search_edit, "tencent")
    assert sorted(column(page, "term")) == ["微信", "绿泡泡"]


def test_large_tables_load_in_pages(attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.appkb.sync_inventory("d1", [(f"com.example.app{i:04d}", f"应用{i}") for i in range(PAGE_SIZE + 120)])
    page = AppKbPage(attach(memory), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.reload()
    assert page.model.rowCount() == PAGE_SIZE and page.model.canFetchMore()
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.model.fetchMore()
    assert page.model.rowCount() == PAGE_SIZE + 120 and not page.model.canFetchMore()


def test_the_next_page_follows_the_last_row_shown_while_an_agent_learns(
    attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    """The page asks for more after its last row (by key): an alias learned meanwhile that sorts before it
    repeats no row, and the rows after it all come."""
    memory.appkb.sync_inventory("d1", [(f"com.example.app{i:04d}", f"应用{i:04d}") for i in range(PAGE_SIZE + 20)])
    page = AppKbPage(attach(memory), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.reload()
    memory.appkb.learn_alias("0号应用", "com.example.app0001")  # the user's aliases come first in trust order
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.model.fetchMore()
    terms = column(page, "term")
    assert len(terms) == len(set(terms)) == PAGE_SIZE + 20 and "0号应用" not in terms
    assert terms == [f"应用{i:04d}" for i in range(PAGE_SIZE + 20)]


def test_model_passes_the_model_tester(qtmodeltester, page: AppKbPage) -> None:
    qtmodeltester.check(page.model, force_py=True)


def test_window_refreshes_when_an_agent_changes_memory(
    qtbot: QtBot, filled: Memory, lanes: Lanes, tmp_path: Path
) -> None:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(filled, settings, lanes)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.appkb_page.model.rowCount() == 4, timeout=5000)
    with qtbot.waitSignal(window.appkb_page.rows_loaded, timeout=5000):
        filled.appkb.learn_alias("小黄", "com.sankuai.meituan", actor="agent")
    assert "小黄" in column(window.appkb_page, "term")
    window.show()
    hint = window.minimumSizeHint()
    size = (min(790, max(hint.width(), 600) + 11), min(590, max(hint.height(), 400) + 7))
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    window.close()
    assert settings.value("main/geometry") is not None
    again = MainWindow(filled, settings, lanes)
    qtbot.addWidget(again)
    again.show()
    assert (again.width(), again.height()) == size
    again.close()


def test_search_shortcut_focuses_the_search_box(qtbot: QtBot, filled: Memory, lanes: Lanes, tmp_path: Path) -> None:
    window = MainWindow(filled, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    window.appkb_page.table.setFocus()
    qtbot.keyClick(window.appkb_page.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.appkb_page.search_edit.hasFocus, timeout=2000)
    window.close()


def test_import_and_export_from_the_page(qtbot: QtBot, page: AppKbPage, filled: Memory, tmp_path: Path) -> None:
    with qtbot.waitSignal(page.transferred, timeout=10_000) as exported:
        page.export_to(tmp_path / "out")
    assert "已导出" in exported.args[0] and (tmp_path / "out" / "app_kb" / "events.jsonl").exists()
    with qtbot.waitSignal(page.transferred, timeout=10_000) as imported:
        page.import_from(tmp_path / "out")
    assert "应用库：导入 0 条" in imported.args[0]  # its own export: every line is already here
    assert str(tmp_path / "out") in page.report_label.text() and page.report_label.isVisibleTo(page)
    with qtbot.waitSignal(page.transferred, timeout=10_000) as again_same:
        page.import_from(tmp_path / "out")
    assert "应用库：已导入过" in again_same.args[0]  # the same directory twice changes nothing
    with qtbot.waitSignal(page.transferred, timeout=10_000) as again:
        page.import_from(tmp_path / "nowhere")
    assert "没有完成" in page.report_label.text() and "nowhere" in again.args[0]


def test_an_import_says_which_views_were_damaged(qtbot: QtBot, page: AppKbPage, tmp_path: Path) -> None:
    folder = taskwizard_dir(tmp_path, [outcome(i, *GOALS[i % 2]) for i in range(3)])
    (folder / "experience" / "episodes.json").write_text('{"run-0": {', "utf-8")  # cut short
    with qtbot.waitSignal(page.transferred, timeout=10_000) as imported:
        page.import_from(folder)
    assert "运行档案：导入 3 条" in imported.args[0]
    assert "experience/episodes.json 已损坏，按日志重建" in imported.args[0]


def test_an_import_says_it_recognised_a_directory_moved_and_compacted(
    qtbot: QtBot, page: AppKbPage, tmp_path: Path
) -> None:
    tw, kb = first_directory(tmp_path)
    first = tw.root
    with qtbot.waitSignal(page.transferred, timeout=10_000):
        page.import_from(tw.root)
    kept_running(kb)
    tw.write()
    moved(tw, tmp_path / "restored" / "memory")
    with qtbot.waitSignal(page.transferred, timeout=10_000) as imported:
        page.import_from(tw.root)
    assert f"认出是之前从 {first / 'app_kb' / 'events.jsonl'} 导入的目录" in imported.args[0]
    assert "删除了它不再包含的 9 条" in imported.args[0]
    assert "moved and rewritten since (compacted)" in page.report_label.toolTip()  # why, in the store's words


def test_an_import_shows_its_runs_being_indexed_then_gives_the_buttons_back(
    qtbot: QtBot, page: AppKbPage, filled: Memory, tmp_path: Path
) -> None:
    folder = taskwizard_dir(tmp_path, [outcome(i, *GOALS[i % 2]) for i in range(5)])
    moves: list[tuple[int, int, bool, bool, str | None]] = []
    shown = page._import_moved

    def moved(done: int, total: int) -> None:
        shown(done, total)
        shows = page.import_progress.isVisibleTo(page), page.import_button.isEnabled(), page.work_under_way()
        moves.append((done, total, *shows))

    page._import_moved = moved  # type: ignore[method-assign]
    with qtbot.waitSignal(page.transferred, timeout=10_000) as imported:
        page.import_from(folder)
    assert "运行档案：导入 5 条" in imported.args[0]
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        pass  # the table reloads after the import: its report stays on the page
    assert "运行档案：导入 5 条" in page.report_label.text()
    # While indexing: the bar shown, import not offered twice, and closing the console would ask about it.
    assert moves and moves[-1] == (5, 5, True, False, "导入 TaskWizard 5/5")
    assert not page.import_progress.isVisibleTo(page) and page.import_button.isEnabled()
    assert page.work_under_way() is None
    assert page.export_button.isEnabled()


def test_filters_and_splitters_are_remembered(qtbot: QtBot, filled: Memory, lanes: Lanes, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(filled, settings, lanes)
    qtbot.addWidget(window)
    window.appkb_page.kind_combo.setCurrentIndex(window.appkb_page.kind_combo.findData("user"))
    window.appkb_page.stale_check.setChecked(False)
    window.episodes_page.days_combo.setCurrentIndex(window.episodes_page.days_combo.findData(7))
    window.close()
    again = MainWindow(filled, settings, lanes)
    qtbot.addWidget(again)
    assert again.appkb_page.kind_combo.currentData() == "user"
    assert not again.appkb_page.stale_check.isChecked()
    assert again.episodes_page.days_combo.currentData() == 7
    again.close()


def test_a_users_alias_shows_the_apps_own_name_and_every_column_fits(
    attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    """外卖 → 美团 (the device's label), 抖抖 → 抖音 (the registry's, no device has it); nothing scrolls sideways."""
    memory.appkb.sync_inventory("d1", [("com.sankuai.meituan", "美团")])
    memory.appkb.learn_alias("外卖", "com.sankuai.meituan")
    memory.appkb.learn_alias("抖抖", "com.ss.android.ugc.aweme")
    widget = AppKbPage(attach(memory), lanes)
    qtbot.addWidget(widget)
    widget.resize(1200, 700)
    widget.show()
    with qtbot.waitSignal(widget.rows_loaded, timeout=5000):
        widget.reload()
    labels = dict(zip(column(widget, "term"), column(widget, "label"), strict=True))
    assert labels == {"外卖": "美团", "抖抖": "抖音", "美团": "美团"}
    assert widget.model.headers[widget.model.COLUMNS.index("success_count")] == "成功"
    qtbot.waitUntil(lambda: widget.table.horizontalScrollBar().maximum() == 0, timeout=3000)


def test_an_empty_app_kb_says_how_it_fills(attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    widget = AppKbPage(attach(memory), lanes)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.rows_loaded, timeout=5000):
        widget.reload()
    assert "应用库还是空的" in widget.trust_label.text() and "jiyi inventory sync" in widget.trust_label.text()
    memory.appkb.learn_alias("绿泡泡", "com.tencent.mm")
    with qtbot.waitSignal(widget.rows_loaded, timeout=5000):
        widget.reload()
    assert widget.trust_label.text().startswith("信任顺序")
