"""The bundle folders page on a real `Memory`, including a conflict raised by a concurrent socket write."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.pages.bundle_conflict import changed_lines
from gui.pages.bundles_page import BundlesPage
from service.client import JiyiClient
from service.memory.memory import Memory
from service.rpc.host import SocketHost
from tests.gui.conftest import Attach


@pytest.fixture
def page(attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes) -> BundlesPage:
    memory.desk.complete_task(
        "t1", title="每日 UFO 检查", status="succeeded", result="构建通过", schedule_id="ufo", run_id="r1"
    )
    widget = BundlesPage(attach(memory), lanes)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.tree_loaded, timeout=5000):
        widget.reload()
    return widget


def child(item: QTreeWidgetItem | None, index: int) -> QTreeWidgetItem:
    """The item's `index`-th child; the test fails here if either is missing."""
    assert item is not None
    found = item.child(index)
    assert found is not None
    return found


def top_item(page: BundlesPage) -> QTreeWidgetItem:
    """The tree's first folder; the test fails here if there is none."""
    top = page.tree.topLevelItem(0)
    assert top is not None
    return top


def type_text(page: BundlesPage, text: str) -> None:
    """Replace the editor's text the way typing does (setPlainText would reset the modified flag)."""
    page.editor.selectAll()
    page.editor.insertPlainText(text)


def open_doc(qtbot: QtBot, page: BundlesPage, path: str) -> None:
    with qtbot.waitSignal(page.document_opened, timeout=5000):
        page.open_document("schedule/ufo", path)


def test_tree_lists_documents_and_runs_and_renders_markdown(qtbot: QtBot, page: BundlesPage) -> None:
    top = top_item(page)
    labels = [child(top, i).text(0) for i in range(top.childCount())]
    assert "每日 UFO 检查" in top.text(0)
    assert {"INDEX.md", "requirements.md", "preferences.md", "lessons.md", "state.json", "运行记录"} <= set(labels)
    runs = next(child(top, i) for i in range(top.childCount()) if child(top, i).text(0) == "运行记录")
    assert child(runs, 0).text(0) == "r1"
    with qtbot.waitSignal(page.document_opened, timeout=5000):
        page.tree.setCurrentItem(child(runs, 0))
    assert "构建通过" in page.preview.toPlainText() and "# " not in page.preview.toPlainText()  # rendered, not source
    assert "修订 1" in page.info.text()


def test_edit_and_save_with_the_revision(qtbot: QtBot, page: BundlesPage, memory: Memory) -> None:
    open_doc(qtbot, page, "preferences.md")
    assert not page.save_button.isEnabled()
    type_text(page, "# 偏好\n- 只在失败时提醒\n")
    assert page.save_button.isEnabled()
    with qtbot.waitSignal(page.saved, timeout=5000) as saved:
        qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    assert saved.args == ["preferences.md", 2]
    stored = memory.bundles.get_bundle("schedule/ufo", "preferences.md").documents[0]
    assert stored.content == "# 偏好\n- 只在失败时提醒\n" and stored.revision == 2
    assert "只在失败时提醒" in page.preview.toPlainText()


def test_a_concurrent_socket_write_raises_a_conflict_and_nothing_is_lost(
    qtbot: QtBot, page: BundlesPage, memory: Memory, socket_path: Path
) -> None:
    host = SocketHost(memory, socket_path)
    host.start()
    try:
        open_doc(qtbot, page, "lessons.md")
        type_text(page, "# 经验\n- 控制台里写的\n")
        replies: list[dict[str, Any]] = []

        def agent() -> None:
            with JiyiClient(socket_path, timeout=10) as client:
                replies.append(client.put_document("schedule/ufo", "lessons.md", "# 经验\n- 代理写的\n", 1))

        worker = threading.Thread(target=agent)
        worker.start()
        qtbot.waitUntil(lambda: len(replies) == 1, timeout=10_000)
        worker.join()
        assert replies[0]["stored"] is True and replies[0]["revision"] == 2
        # The edited editor is not clobbered by the live refresh; it is flagged stale instead.
        with qtbot.waitSignal(page.tree_loaded, timeout=5000):
            page.reload()
        assert "修订 2" in page.info.text() and page.editor.toPlainText() == "# 经验\n- 控制台里写的\n"
        with qtbot.waitSignal(page.conflict_raised, timeout=5000) as raised:
            qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
        assert raised.args[0]["revision"] == 2 and raised.args[0]["content"] == "# 经验\n- 代理写的\n"
        dialog = page.conflict_dialog
        assert dialog is not None
        assert dialog.stored_view.toPlainText() == "# 经验\n- 代理写的\n"
        assert dialog.edited_view.toPlainText() == "# 经验\n- 控制台里写的\n"
        assert dialog.stored_lines == [1] and dialog.edited_lines == [1]
        with qtbot.waitSignal(page.saved, timeout=5000) as saved:
            dialog.overwrite_button.click()
        assert saved.args == ["lessons.md", 3]
        history = [e.payload["content"] for e in memory.store.events("desk", types=["bundle_document_put"])]
        assert "# 经验\n- 代理写的\n" in history and history[-1] == "# 经验\n- 控制台里写的\n"
    finally:
        host.stop()


def test_conflict_reload_takes_the_stored_version(qtbot: QtBot, page: BundlesPage, memory: Memory) -> None:
    open_doc(qtbot, page, "requirements.md")
    type_text(page, "我的版本\n")
    memory.bundles.put_bundle_document(
        "schedule/ufo", "requirements.md", "别人的版本\n", expected_revision=1, actor="agent"
    )
    with qtbot.waitSignal(page.conflict_raised, timeout=5000):
        page.save()
    assert page.conflict_dialog is not None
    with qtbot.waitSignal(page.document_opened, timeout=5000):
        page.conflict_dialog.reload_button.click()
    assert page.current is not None
    assert page.editor.toPlainText() == "别人的版本\n" and page.current["revision"] == 2
    assert not page.editor.document().isModified()


def test_an_unmodified_editor_follows_changes(qtbot: QtBot, page: BundlesPage, memory: Memory) -> None:
    open_doc(qtbot, page, "lessons.md")
    memory.bundles.put_bundle_document(
        "schedule/ufo", "lessons.md", "# 经验\n- 新的\n", expected_revision=1, actor="agent"
    )
    with qtbot.waitSignal(page.document_opened, timeout=5000):
        page.reload()
    assert page.editor.toPlainText() == "# 经验\n- 新的\n"


def test_new_document_and_open_folder(
    qtbot: QtBot, page: BundlesPage, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    page.tree.setCurrentItem(top_item(page))
    with qtbot.waitSignal(page.saved, timeout=5000) as saved:
        page.new_document("笔记")
    assert saved.args == ["笔记.md", 1]
    assert memory.bundles.get_bundle("schedule/ufo", "笔记.md").documents[0].content == "# 笔记\n"
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    assert page.open_folder() is True
    assert Path(opened[0].toLocalFile()) == Path(memory.bundles.bundle_directory("schedule/ufo"))
    assert (Path(opened[0].toLocalFile()) / "笔记.md").is_file()


def test_a_bad_name_gets_a_clear_error(qtbot: QtBot, page: BundlesPage) -> None:
    page.tree.setCurrentItem(top_item(page))
    with qtbot.waitSignal(page.save_failed, timeout=5000) as failed:
        page.new_document("../逃出去")
    assert "not a bundle document path" in failed.args[0]


def test_changed_lines() -> None:
    assert changed_lines("a\nb\nc\n", "a\nB\nc\nd\n") == ([1], [1, 3])


def test_folders_that_share_a_title_are_told_apart(qtbot: QtBot, page: BundlesPage, memory: Memory) -> None:
    """The desk example run three times makes three 每日 UFO 检查 schedules: each shows its key."""
    for tag in ("a1", "b2"):
        memory.desk.complete_task(
            f"t-{tag}", title="每日 UFO 检查", status="succeeded", schedule_id=f"ufo-{tag}", run_id="r1"
        )
    memory.desk.complete_task("news", title="早间新闻", status="succeeded", schedule_id="news", run_id="r1")
    with qtbot.waitSignal(page.tree_loaded, timeout=5000):
        page.reload()
    names = {page.tree.topLevelItem(i).text(0) for i in range(page.tree.topLevelItemCount())}  # type: ignore[union-attr]
    assert names == {
        "日程 · 早间新闻",
        "日程 · 每日 UFO 检查（ufo）",
        "日程 · 每日 UFO 检查（ufo-a1）",
        "日程 · 每日 UFO 检查（ufo-b2）",
    }
