"""What a new user tripped over in the console (issue 31): each fix where a person meets it, on a real `Memory`."""

from __future__ import annotations

import re
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTableView, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from gui.column_fit import fitted
from gui.lanes import Lanes
from gui.pages.alias_editor import AliasEditor
from gui.pages.appkb_page import AppKbPage
from gui.pages.bundles_page import BundlesPage
from gui.pages.episodes_page import EpisodesPage
from gui.pages.overview_page import OverviewPage
from gui.pages.skills_page import SkillsPage
from gui.words import unbroken_commands
from service.memory.memory import Memory
from tests.gui.test_desk_pages import file_all

PACKAGES = [("com.sankuai.meituan", "美团"), ("com.wuba.zhuanzhuan.recruitment.jobs", "58同城招聘找工作")]


def test_columns_give_the_text_column_what_the_others_can_spare() -> None:
    # everything fits: each its content, the text column the rest
    assert fitted([100, 200, 50], 400, 1, {2: 30}, 0.4) == [100, 250, 50]
    # too narrow: the text column comes down to its share (40%), then the shrinkable columns give the rest
    assert fitted([100, 300, 200], 500, 1, {2: 60}, 0.4) == [100, 200, 200]
    assert fitted([100, 300, 300], 500, 1, {2: 60}, 0.4) == [100, 200, 200]
    # the others at their minimum: the text column keeps what is left, never less than 40 px
    widths = fitted([200, 400, 200], 300, 1, {0: 100, 2: 100}, 0.4)
    assert widths[0] == widths[2] == 100 and widths[1] == 100


def _table_fits(table: QTableView) -> bool:
    return sum(table.columnWidth(c) for c in range(table.model().columnCount())) <= table.viewport().width() + 1


def test_app_kb_shows_the_whole_package_at_the_default_size(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.appkb.sync_inventory("phone1", PACKAGES)
    page = AppKbPage(memory, lanes)
    qtbot.addWidget(page)
    page.resize(1200 - 170, 700)  # the window's default size less the page list
    page.show()
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.reload()
    table = page.table
    qtbot.waitUntil(lambda: _table_fits(table), timeout=5000)
    metrics = table.fontMetrics()
    assert table.columnWidth(2) >= metrics.horizontalAdvance("com.sankuai.meituan")  # the package is not cut
    assert table.textElideMode() == Qt.TextElideMode.ElideRight
    row = next(r for r in range(page.model.rowCount()) if page.model.index(r, 2).data() == PACKAGES[1][0])
    tip = page.model.index(row, 2).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.splitlines()[0] == PACKAGES[1][0]  # a value cut short, in full


def test_the_goal_column_takes_the_free_width(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    now = time.time()
    memory.runs.archive_episodes(
        [
            {
                "run_id": f"r{i}",
                "goal_text": "能不能帮我在美团上点一份附近评分最高的麻辣烫，送到公司楼下",
                "ts_end": now - i,
                "success": True,
                "apps": [PACKAGES[1][0]],
                "device_scope": "device:phone1",
                "steps": 3,
            }
            for i in range(3)
        ]
    )
    page = EpisodesPage(memory, lanes)
    qtbot.addWidget(page)
    page.resize(1200 - 170, 700)
    page.show()
    page.reload()
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=10_000)
    table = page.table
    qtbot.waitUntil(lambda: _table_fits(table), timeout=5000)
    assert table.columnWidth(1) >= 0.3 * table.viewport().width()  # was about 60 px (`能不能…`)
    assert page.model.index(0, 2).data(Qt.ItemDataRole.ToolTipRole) == PACKAGES[1][0]


def test_a_runs_detail_speaks_chinese(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.runs.archive_episodes(
        [
            {
                "run_id": "r1",
                "goal_text": "打开美团",
                "ts_end": time.time(),
                "success": True,
                "apps": ["com.sankuai.meituan"],
                "device_scope": "device:pixel7",
                "steps": 3,
                "tokens_by_role": {"actor": 6400, "verifier": 800},
            }
        ]
    )
    page = EpisodesPage(memory, lanes)
    qtbot.addWidget(page)
    page.reload()
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=10_000)
    html = page._render(memory.runs.get_episode("r1"), None)
    assert "设备 pixel7" in html and "device:pixel7" not in html
    assert "执行 6400" in html and "验收 800" in html and "actor" not in html


def test_history_and_probe_never_break_a_time_or_a_package(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.appkb.sync_inventory("phone1", PACKAGES)
    memory.appkb.learn_alias("外卖", "com.sankuai.meituan", actor="user")
    editor = AliasEditor(memory, lanes)
    qtbot.addWidget(editor)
    with qtbot.waitSignal(editor.history_loaded, timeout=5000):
        editor.load_history("外卖")
    editor.history_view.resize(260, 300)  # narrow: the cells must wrap somewhere, never inside a time
    editor.history_view.show()
    document = editor.history_view.document()
    document.setTextWidth(240)
    blocks = [document.findBlockByNumber(i) for i in range(document.blockCount())]
    timestamp = next(b for b in blocks if b.text().startswith("20"))
    package = next(b for b in blocks if "com.sankuai.meituan" in b.text())  # `用户` <br> the package
    assert timestamp.layout().lineCount() == 1
    assert package.layout().lineCount() == package.text().count("\u2028") + 1
    kind = next(b for b in blocks if b.text() == "用户设定叫法")  # the event: not one character a line
    assert kind.layout().lineCount() == 1


def test_the_resolve_box_never_breaks_a_number_or_a_heading(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    """At 1200×760 the box is narrow: `0.970` came out as `0.9` over `70`, `相似度` as `相似` over `度`."""
    memory.appkb.sync_inventory("phone1", [*PACKAGES, ("com.tencent.mm", "微信")])
    editor = AliasEditor(memory, lanes)
    qtbot.addWidget(editor)
    editor.resolve_device.setCurrentIndex(editor.resolve_device.findData("phone1"))
    with qtbot.waitSignal(editor.resolved, timeout=5000) as answer:
        editor.resolve_edit.setText("威信")
    assert answer.args[0].candidates
    document = editor.resolve_output.document()
    document.setTextWidth(340)  # the box's width in the default window
    blocks = [document.findBlockByNumber(i) for i in range(document.blockCount())]
    numbers = [b for b in blocks if re.fullmatch(r"\d\.\d{3}", b.text())]
    headings = [b for b in blocks if b.text() in ("标准名", "相似度", "先验", "得分")]
    assert len(numbers) >= 3 and len(headings) == 4
    assert [b.text() for b in numbers + headings if b.layout().lineCount() != 1] == []


def test_an_empty_filter_says_what_it_hides(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.desk.remember_interaction("g", user_text="以后发周报前先让我看一眼", assistant_text="好")
    done = file_all(
        memory,
        skills=[
            {"name": "周报先审", "text": "先给用户审阅", "source_interaction_id": "g", "quote": "发周报前先让我看一眼"}
        ],
    )
    memory.skills.set_skill_status(done["skills"][0]["skill_id"], "active", actor="user")
    page = SkillsPage(memory, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=5000):
        page.reload()  # the page opens on drafts: the one skill is active now
    text = page.detail.toPlainText()
    assert "还没有技能" not in text and "另外 1 条" in text


def top_item(page: BundlesPage, index: int) -> QTreeWidgetItem:
    item = page.tree.topLevelItem(index)
    assert item is not None
    return item


def folders(page: BundlesPage) -> list[str]:
    return [top_item(page, i).text(0) for i in range(page.tree.topLevelItemCount())]


def test_saving_a_bundle_keeps_the_focus_in_the_editor_and_the_folder_in_place(
    qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    for schedule in ("ufo", "news"):
        memory.desk.complete_task(
            f"t-{schedule}", title=schedule, status="succeeded", result="ok", schedule_id=schedule, run_id="r1"
        )
    page = BundlesPage(memory, lanes)
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.tree_loaded, timeout=5000):
        page.reload()
    order = folders(page)
    last = top_item(page, len(order) - 1).toolTip(0)
    with qtbot.waitSignal(page.document_opened, timeout=5000):
        page.open_document(last, "preferences.md")
    page.tabs.setCurrentWidget(page.editor)
    page.editor.setFocus()
    page.editor.moveCursor(page.editor.textCursor().MoveOperation.End)
    page.editor.insertPlainText("- 只在失败时提醒\n")
    cursor = page.editor.textCursor().position()
    with qtbot.waitSignal(page.saved, timeout=5000):
        qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(page.tree_loaded, timeout=5000):
        page.reload()  # as the change feed does after the save
    assert QApplication.focusWidget() is page.editor and page.editor.textCursor().position() == cursor
    assert folders(page) == order


def test_a_first_run_overview_says_what_to_do_next(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    page = OverviewPage(memory, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert page.start_box.isVisibleTo(page)
    assert "jiyi demo --home" in page.start_box.findChildren(type(page.values["home"]))[0].text()
    memory.appkb.sync_inventory("phone1", PACKAGES)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert not page.start_box.isVisibleTo(page)


def test_a_command_in_a_hint_is_never_broken() -> None:
    text = unbroken_commands("想先看看样子：jiyi demo --home 一个新目录。<b>")
    assert "<span style='white-space:nowrap'>jiyi demo --home</span> 一个新目录" in text and "&lt;b&gt;" in text


def test_a_run_link_moves_the_selection_and_back_returns(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    now = time.time()
    runs = [
        {
            "run_id": f"r{i}",
            "goal_text": f"打开美团点外卖 {i}",
            "ts_end": now - i,
            "success": True,
            "apps": ["com.sankuai.meituan"],
            "device_scope": "device:phone1",
            "steps": 3,
        }
        for i in range(3)
    ]
    memory.runs.archive_episodes(runs)
    page = EpisodesPage(memory, lanes)
    qtbot.addWidget(page)
    page.reload()
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=10_000)
    with qtbot.waitSignal(page.detail_shown, timeout=5000):
        page.table.selectRow(0)
    assert not page.back_button.isEnabled()
    with qtbot.waitSignal(page.detail_shown, timeout=5000) as shown:
        page.follow_run("r2")  # as a click on a 依据 link does
    assert shown.args == ["r2"] and page.table.currentIndex().row() == 2 and page.back_button.isEnabled()
    with qtbot.waitSignal(page.detail_shown, timeout=5000) as back:
        qtbot.mouseClick(page.back_button, Qt.MouseButton.LeftButton)
    assert back.args == ["r0"] and page.table.currentIndex().row() == 0 and not page.back_button.isEnabled()
