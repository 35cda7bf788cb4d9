"""The window's actions: Ctrl+F to the current page's filter, F5 to read it again, About, Ctrl+Q."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from gui.pages.page import Page
from service import __version__
from service.memory.memory import Memory


@pytest.fixture
def window(qtbot: QtBot, memory: Memory, lanes: Lanes, tmp_path: Path) -> Iterator[MainWindow]:
    shown = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    shown.activateWindow()
    qtbot.waitUntil(shown.isActiveWindow, timeout=5000)
    yield shown
    shown.close()


def press(window: MainWindow, keys: str) -> None:
    QTest.keySequence(window, QKeySequence(keys))


def test_ctrl_f_goes_to_the_current_pages_filter(qtbot: QtBot, window: MainWindow) -> None:
    window.page_list.setCurrentRow(window.stack.indexOf(window.lessons_page))
    press(window, "Ctrl+F")
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.lessons_page.filter_edit, timeout=3000)
    window.page_list.setCurrentRow(window.stack.indexOf(window.episodes_page))
    press(window, "Ctrl+F")
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.episodes_page.text_edit, timeout=3000)
    window.page_list.setCurrentRow(window.stack.indexOf(window.overview_page))  # no filter of its own
    press(window, "Ctrl+F")
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.appkb_page.search_edit, timeout=3000)
    assert window.stack.currentWidget() is window.appkb_page


def test_f5_reads_the_current_page_again(qtbot: QtBot, window: MainWindow, memory: Memory) -> None:
    window.page_list.setCurrentRow(window.stack.indexOf(window.episodes_page))
    qtbot.waitUntil(lambda: window.episodes_page.model.rowCount() == 0, timeout=5000)
    memory.runs.run_finish("r1", {"success": True, "goal_text": "打开微信"})
    qtbot.wait(300)  # the change feed does not reload the episode list: F5 does
    assert window.episodes_page.model.rowCount() == 0
    press(window, "F5")
    qtbot.waitUntil(lambda: window.episodes_page.model.rowCount() == 1, timeout=5000)


def test_f5_knows_every_page(window: MainWindow) -> None:
    pages = {window.stack.widget(i) for i in range(window.stack.count())}
    # A page added outside the window's list of pages would make F5 do nothing there.
    assert set(window.pages) == pages and all(isinstance(page, Page) for page in window.pages)


def test_the_about_box_names_version_home_and_schema(window: MainWindow, memory: Memory) -> None:
    box = window.open_about()
    text = box.text()
    assert __version__ in text and str(memory.home) in text and str(memory.schema_version) in text
    assert "本地" in text
    box.close()


def test_ctrl_q_closes_the_console(qtbot: QtBot, window: MainWindow) -> None:
    press(window, "Ctrl+Q")
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=3000)
    assert window.close_question is None  # nothing under way: closed without a question


def test_ctrl_q_during_a_rebuild_asks_first_and_closes_only_when_told(qtbot: QtBot, window: MainWindow) -> None:
    page = window.upkeep_page
    gate = threading.Event()
    held = page.tasks.start(page.tasks.write(gate.wait, 20))  # the rebuild waits behind this in the write lane
    page.rebuild_views()
    qtbot.waitUntil(lambda: page.work_under_way() == "重建视图", timeout=3000)
    press(window, "Ctrl+Q")
    box = window.close_question
    assert box is not None and box.isVisible() and window.isVisible()
    assert "重建视图" in box.text() and "已经完成的部分会保留" in box.text()
    keep = next(b for b in box.buttons() if b.text() == "继续工作")
    qtbot.mouseClick(keep, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=3000)
    assert window.isVisible() and page.work_under_way() == "重建视图"  # kept working
    press(window, "Ctrl+Q")
    again = window.close_question
    assert again is not None and again is not box and again.isVisible()
    qtbot.mouseClick(next(b for b in again.buttons() if b.text() == "仍然关闭"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=3000)  # closed: its pages' work is cancelled
    gate.set()
    qtbot.waitUntil(held.done, timeout=10_000)


def test_a_long_failure_in_the_status_bar_stops_before_its_labels_and_is_whole_in_the_tooltip(
    window: MainWindow,
) -> None:
    """Before, a long message ran under the mode and service labels ("…in use by pid 1私有服务")."""
    window.resize(1200, 760)
    QApplication.processEvents()  # the status bar laid out at that width
    message = "无法读取：" + "home /tmp/some/where is on a read-only file system; " * 6
    window.show_failure(message)
    shown = window.statusBar().currentMessage()
    assert shown.endswith("…") and len(shown) < len(message)
    first_label = min(w.x() for w in (window.mode_label, window.service_label) if w.isVisible())
    assert window.statusBar().fontMetrics().horizontalAdvance(shown) < first_label
    assert window.statusBar().toolTip() == f"出错了：{message}"
