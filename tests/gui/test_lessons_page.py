"""经验教训: lessons listed, approved and revoked as the person's acts, with the runs behind each one."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QUrl
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from gui.pages.lessons_page import LessonsPage
from service.memory.memory import Memory


def seed(memory: Memory) -> tuple[str, str]:
    """A run a lesson was learned from, the lesson, and a later run it was given to; plus a second lesson."""
    memory.runs.run_finish("r-learn", {"success": False, "goal_text": "在小红书搜索露营装备"})
    lesson = memory.lessons.add_lesson("小红书的搜索框在首页顶部", ["com.xingin.xhs"], runs=["r-learn", "r-gone"])
    memory.runs.run_finish(
        "r-used", {"success": True, "goal_text": "在小红书搜索咖啡", "injected_lessons": [lesson.lesson_id]}
    )
    other = memory.lessons.add_lesson("启动应用前先回到桌面")
    return lesson.lesson_id, other.lesson_id


def open_page(qtbot: QtBot, memory: Memory, lanes: Lanes) -> LessonsPage:
    page = LessonsPage(memory, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=5000):
        page.reload()
    return page


def test_proposals_wait_first_and_the_text_filter_narrows(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    seed(memory)
    page = open_page(qtbot, memory, lanes)
    assert page.status_box.currentData() == "proposed" and page.model.rowCount() == 2
    with qtbot.waitSignal(page.loaded, timeout=5000):
        page.filter_edit.setText("xingin")  # an app it is about
    assert [r.text for r in page.model.rows] == ["小红书的搜索框在首页顶部"]
    with qtbot.waitSignal(page.loaded, timeout=5000):
        page.filter_edit.setText("没有这样的经验")
    assert page.model.rowCount() == 0 and "另外 2 条" in page.detail.toPlainText()  # what the filter hides


def test_the_detail_lists_the_runs_behind_a_lesson_as_links(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    lesson_id, _other = seed(memory)
    page = open_page(qtbot, memory, lanes)
    row = next(i for i, r in enumerate(page.model.rows) if r.lesson_id == lesson_id)
    with qtbot.waitSignal(page.runs_shown, timeout=5000):
        page.table.selectRow(row)
    shown = page.detail.toHtml()
    assert "run:r-learn" in shown and "run:r-used" in shown and "在小红书搜索露营装备" in shown
    assert "r-gone" in page.detail.toPlainText() and "run:r-gone" not in shown  # no longer archived: no link
    with qtbot.waitSignal(page.run_requested, timeout=2000) as opened:
        page.detail.anchorClicked.emit(QUrl("run:r-learn"))
    assert opened.args == ["r-learn"]


def test_approve_and_revoke_are_recorded_as_the_persons_acts(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    lesson_id, _other = seed(memory)
    page = open_page(qtbot, memory, lanes)
    page.status_box.setCurrentIndex(0)  # every status
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=5000)
    page.table.selectRow(next(i for i, r in enumerate(page.model.rows) if r.lesson_id == lesson_id))
    assert page.approve_button.isEnabled()
    with qtbot.waitSignal(page.status_changed, timeout=5000) as changed:
        qtbot.mouseClick(page.approve_button, Qt.MouseButton.LeftButton)
    assert changed.args[0].status == "approved"
    assert memory.lessons.list_lessons("approved")[0].lesson_id == lesson_id
    qtbot.waitUntil(lambda: not page.approve_button.isEnabled(), timeout=5000)  # reloaded, still selected
    with qtbot.waitSignal(page.status_changed, timeout=5000):
        qtbot.mouseClick(page.revoke_button, Qt.MouseButton.LeftButton)
    actors = [e.actor for e in memory.store.events("lessons", subject=lesson_id)]
    assert actors[-2:] == ["user", "user"]
    assert memory.lessons.list_lessons("revoked")[0].lesson_id == lesson_id


def test_a_run_link_on_the_lessons_page_opens_the_episode_browser(
    qtbot: QtBot, memory: Memory, lanes: Lanes, tmp_path: Path
) -> None:
    seed(memory)
    window = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    window.page_list.setCurrentRow(window.stack.indexOf(window.lessons_page))
    window.lessons_page.run_requested.emit("r-used")
    assert window.stack.currentWidget() is window.episodes_page
    qtbot.waitUntil(lambda: "在小红书搜索咖啡" in window.episodes_page.detail.toPlainText(), timeout=5000)
