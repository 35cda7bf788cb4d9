"""The episode browser on a real `Memory` (hash embedder: the model is not under test)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.pages.episodes_page import PAGE_SIZE, EpisodesPage
from service.config import load_config
from service.memory.memory import EpisodeFilter, Memory
from tests.gui.conftest import Attach


@pytest.fixture
def memory_with_runs(tmp_path: Path) -> Iterator[Memory]:
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    memory.runs.run_start("live", "phone1", goal="在小红书搜索火锅店")
    launch = {"run_id": "live", "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": "com.xingin.xhs"}
    memory.runs.run_event({**launch, "intent": "打开小红书"})
    memory.runs.run_event({"run_id": "live", "step": 2, "tool": "type_text", "result_class": "ok", "note": "输入 火锅"})
    memory.runs.run_finish(
        "live", {"success": True, "tokens_by_role": {"actor": 900, "verifier": 100}, "verifier": "pass"}
    )
    now = time.time()
    memory.runs.archive_episodes(
        [
            {
                "run_id": f"old-{i:03d}",
                "goal_text": f"看视频 {i}",
                "ts_end": now - 86400 * 40 - i,
                "success": i % 2 == 0,
                "apps": ["tv.danmaku.bili"],
                "device_scope": "device:phone2",
                "steps": 3,
            }
            for i in range(PAGE_SIZE + 30)
        ]
    )
    yield memory
    memory.close()


@pytest.fixture
def page(attach: Attach, qtbot: QtBot, memory_with_runs: Memory, lanes: Lanes) -> EpisodesPage:
    widget = EpisodesPage(attach(memory_with_runs), lanes)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.rows_loaded, timeout=10_000):
        widget.reload()
    return widget


def test_newest_first_and_paged(qtbot: QtBot, page: EpisodesPage) -> None:
    assert page.model.rowCount() == PAGE_SIZE and page.model.rows[0].run_id == "live"
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.model.fetchMore()
    assert page.model.rowCount() == PAGE_SIZE + 31 and not page.model.canFetchMore()


def test_filters_run_in_the_store(qtbot: QtBot, page: EpisodesPage) -> None:
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.text_edit.setText("火锅")  # QTest cannot type CJK; the same textChanged path runs
    assert [r.run_id for r in page.model.rows] == ["live"]
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.text_edit.clear()
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.days_combo.setCurrentIndex(page.days_combo.findData(30))
    assert [r.run_id for r in page.model.rows] == ["live"]
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.days_combo.setCurrentIndex(0)
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.outcome_combo.setCurrentIndex(page.outcome_combo.findData(False))
    assert all(not r.success for r in page.model.rows) and page.model.rowCount() == 115


def test_the_next_page_neither_repeats_nor_skips_a_row_while_an_agent_archives_runs(
    qtbot: QtBot, page: EpisodesPage, memory_with_runs: Memory
) -> None:
    """The next page is asked after the last row held (keyset): a newer run archived meanwhile moves nothing."""
    memory_with_runs.runs.archive_episodes(
        [{"run_id": "newer", "goal_text": "刚刚", "ts_end": time.time(), "steps": 3}], index=False
    )
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.model.fetchMore()
    run_ids = [r.run_id for r in page.model.rows]
    assert len(run_ids) == len(set(run_ids)) == PAGE_SIZE + 31 and "newer" not in run_ids


def test_later_pages_keep_the_filters_their_listing_started_with(qtbot: QtBot, page: EpisodesPage) -> None:
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.text_edit.setText("看视频")
    assert page.model.rowCount() == PAGE_SIZE and page.model.canFetchMore()
    page.outcome_combo.blockSignals(True)  # the filter changes while its reload has not started yet
    page.outcome_combo.setCurrentIndex(page.outcome_combo.findData(False))
    page.outcome_combo.blockSignals(False)
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.model.fetchMore()
    assert page.model.rowCount() == PAGE_SIZE + 30  # every 看视频 run: the next page was not asked for failures only
    assert {r.success for r in page.model.rows[PAGE_SIZE:]} == {True, False}


def test_detail_shows_the_timeline_tokens_and_recall(qtbot: QtBot, page: EpisodesPage) -> None:
    with qtbot.waitSignal(page.detail_shown, timeout=10_000):
        page.table.selectRow(0)
    text = page.detail.toPlainText()
    assert "在小红书搜索火锅店" in text and "launch_app" in text and "打开小红书" in text and "输入 火锅" in text
    assert "执行 900" in text and "Hit@1" in text  # token roles in Chinese, not `actor`


def test_revoke_and_restore_are_persisted(qtbot: QtBot, page: EpisodesPage, memory_with_runs: Memory) -> None:
    with qtbot.waitSignal(page.detail_shown, timeout=10_000):
        page.table.selectRow(0)
    with qtbot.waitSignal(page.revocation_changed, timeout=10_000):
        qtbot.mouseClick(page.revoke_button, Qt.MouseButton.LeftButton)
    assert memory_with_runs.runs.count_episodes(EpisodeFilter(revoked=True)) == 1
    assert page.model.data(page.model.index(0, 7)) == "已撤销" and page.restore_button.isEnabled()
    with qtbot.waitSignal(page.revocation_changed, timeout=10_000):
        qtbot.mouseClick(page.restore_button, Qt.MouseButton.LeftButton)
    assert memory_with_runs.runs.count_episodes(EpisodeFilter(revoked=True)) == 0
    qtbot.waitUntil(lambda: page.model.data(page.model.index(0, 7)) == "可回想", timeout=10_000)


def test_the_recall_column_says_which_runs_recall_may_offer(
    attach: Attach, qtbot: QtBot, memory_with_runs: Memory, lanes: Lanes
) -> None:
    """Every row says something: usable, kept out by the quality gate (too few steps), or revoked."""
    memory_with_runs.runs.archive_episodes(
        [
            {
                "run_id": "short",
                "goal_text": "打开微信",
                "ts_end": time.time() + 60,
                "success": True,
                "steps": 1,
                "apps": ["com.tencent.mm"],
                "device_scope": "device:phone1",
                "reason": "max_steps",
            }
        ]
    )
    widget = EpisodesPage(attach(memory_with_runs), lanes)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.rows_loaded, timeout=10_000):
        widget.reload()
    state = widget.model.COLUMNS.index("revoked")
    shown = {widget.model.rows[r].run_id: widget.model.data(widget.model.index(r, state)) for r in range(3)}
    assert shown == {"short": "不入索引", "live": "可回想", "old-000": "可回想"}
    assert widget.model.data(widget.model.index(0, widget.model.COLUMNS.index("success"))) == "成功（步数用尽）"


def test_the_model_passes_the_model_tester(qtmodeltester, page: EpisodesPage) -> None:
    qtmodeltester.check(page.model, force_py=True)


def test_a_run_opened_by_link_shows_what_recall_went_by_and_can_be_revoked(
    qtbot: QtBot, page: EpisodesPage, memory_with_runs: Memory
) -> None:
    from PySide6.QtCore import QUrl

    memory_with_runs.runs.run_start("asked", "phone2", goal="看视频 229")
    memory_with_runs.runs.run_finish("asked", {"success": True, "apps": ["tv.danmaku.bili"], "steps": 0})
    assert "old-229" not in {r.run_id for r in page.model.rows}  # beyond the first page
    with qtbot.waitSignal(page.detail_shown, timeout=10_000):
        page.show_run("asked")
    assert "依据：≈ 看视频 229 (old-229)" in page.detail.toPlainText()
    with qtbot.waitSignal(page.detail_shown, timeout=10_000) as shown:
        page.detail.anchorClicked.emit(QUrl("run:old-229"))  # the past run recall went by
    assert shown.args == ["old-229"] and page.current_run() == "old-229"
    assert page.revoke_button.isEnabled()
    with qtbot.waitSignal(page.revocation_changed, timeout=10_000):
        page.revoke_button.click()
    assert memory_with_runs.runs.get_episode("old-229").revoked is True
    again = memory_with_runs.recall.recall_query("看视频 229", "phone2").candidates
    assert all(c.run_id != "old-229" for c in again)  # revoked: recall no longer goes by it
    with qtbot.waitSignal(page.detail_shown, timeout=10_000):
        page.detail.anchorClicked.emit(QUrl("https://example.com/"))  # not a run: ignored
        page.show_run("old-228")
    assert page.current_run() == "old-228"


def test_an_empty_list_says_why_and_how_it_fills(
    attach: Attach, qtbot: QtBot, memory_with_runs: Memory, lanes: Lanes, tmp_path: Path
) -> None:
    empty = Memory.open(load_config(home=tmp_path / "empty", env={"JIYI_EMBED_MODEL": "hash"}))
    try:
        fresh = EpisodesPage(attach(empty), lanes)
        qtbot.addWidget(fresh)
        with qtbot.waitSignal(fresh.rows_loaded, timeout=10_000):
            fresh.reload()
        assert "还没有运行档案" in fresh.detail.toPlainText() and "导入 TaskWizard" in fresh.detail.toPlainText()
    finally:
        empty.close()
    page = EpisodesPage(attach(memory_with_runs), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
        page.text_edit.setText("没有这样的目标")
        page.reload()
    assert page.model.rowCount() == 0 and "没有符合筛选条件的运行" in page.detail.toPlainText()
