"""Skills, facts, topics and upkeep pages on a real `Memory`."""

from __future__ import annotations

import socket
import threading
import time
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.pages.facts_page import FactsPage
from gui.pages.skills_page import SkillsPage
from gui.pages.topics_page import TopicsPage
from gui.pages.upkeep_page import UpkeepPage
from service.errors import Cancelled
from service.memory.memory import Memory
from tests.gui.conftest import Attach


def file_all(memory: Memory, **extra: object) -> dict[str, Any]:
    plan = memory.maintenance.maintenance_plan(limit=500)
    ids = [i["interaction_id"] for i in plan["interactions"]]
    topics = [{"topic_id": "misc", "title": "杂项", "interaction_ids": ids, "segment": "概括"}] if ids else []
    return memory.maintenance.maintenance_commit({"batch_id": plan["batch_id"], "topics": topics, **extra})


def test_skill_approval_is_recorded_as_the_users_act(
    attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    memory.desk.remember_interaction("g", user_text="以后发周报前先让我看一眼", assistant_text="好")
    done = file_all(
        memory,
        skills=[
            {"name": "周报先审", "text": "先给用户审阅", "source_interaction_id": "g", "quote": "发周报前先让我看一眼"}
        ],
    )
    skill_id = done["skills"][0]["skill_id"]
    page = SkillsPage(attach(memory), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=5000):
        page.reload()
    assert page.model.rowCount() == 1 and page.model.rows[0].status == "draft"
    page.table.selectRow(0)
    assert "发周报前先让我看一眼" in page.detail.toPlainText()  # the user's own words it came from
    assert page.approve_button.isEnabled() and not page.disable_button.isEnabled()
    with qtbot.waitSignal(page.status_changed, timeout=5000):
        qtbot.mouseClick(page.approve_button, Qt.MouseButton.LeftButton)
    assert memory.skills.get_skill(skill_id).status == "active"
    event = list(memory.store.events("desk", types=["skill_status_changed"]))[-1]
    assert event.actor == "user" and event.payload["approved_in"] == "console"
    page.status_box.setCurrentIndex(0)  # all
    qtbot.waitUntil(lambda: [r.status for r in page.model.rows] == ["active"], timeout=5000)
    page.table.selectRow(0)
    with qtbot.waitSignal(page.status_changed, timeout=5000):
        qtbot.mouseClick(page.disable_button, Qt.MouseButton.LeftButton)
    assert memory.skills.get_skill(skill_id).status == "disabled"


def test_an_agents_activation_shows_the_users_turn_and_one_click_reverts_it(
    attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    memory.desk.remember_interaction(
        "g", user_text="以后发周报前先让我看一眼", assistant_text="好", ts=time.time() - 60
    )
    done = file_all(
        memory,
        skills=[
            {"name": "周报先审", "text": "先给用户审阅", "source_interaction_id": "g", "quote": "发周报前先让我看一眼"}
        ],
    )
    skill_id = done["skills"][0]["skill_id"]
    memory.desk.remember_interaction("ask", user_text="把周报先审这个技能启用吧", assistant_text="", ts=time.time())
    memory.skills.set_skill_status(
        skill_id, "active", actor="agent", interaction_id="ask", user_request="把周报先审这个技能启用"
    )
    page = SkillsPage(attach(memory), lanes)
    qtbot.addWidget(page)
    page.status_box.setCurrentIndex(0)  # all
    qtbot.waitUntil(lambda: [r.status for r in page.model.rows] == ["active"], timeout=5000)
    page.table.selectRow(0)
    shown = page.detail.toPlainText()
    assert "把周报先审这个技能启用" in shown and "ask" in shown  # the user's words and their turn
    assert page.revert_button.isEnabled() and page.disable_button.isEnabled()
    with qtbot.waitSignal(page.status_changed, timeout=5000):
        qtbot.mouseClick(page.revert_button, Qt.MouseButton.LeftButton)
    assert memory.skills.get_skill(skill_id).status == "draft"
    event = list(memory.store.events("desk", types=["skill_status_changed"]))[-1]
    assert event.actor == "user" and event.payload["from"] == "active" and event.payload["status"] == "draft"
    qtbot.waitUntil(lambda: [r.status for r in page.model.rows] == ["draft"], timeout=5000)
    page.table.selectRow(0)
    assert not page.revert_button.isEnabled()  # a draft again: nothing of the agent's to revert


def test_facts_filter_show_evidence_and_confirm(attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.desk.remember_interaction(
        "e", user_text="书房电脑是 Ubuntu 24.04", assistant_text="好", ts="2026-11-25T02:00:00Z"
    )
    memory.desk.remember_interaction("p", user_text="我喜欢简短的回答", assistant_text="好", ts="2026-11-25T03:00:00Z")
    file_all(
        memory,
        facts=[
            {
                "scope": "environment",
                "content": "书房电脑是 Ubuntu 24.04",
                "evidence": [{"interaction_id": "e", "quote": "书房电脑是 Ubuntu 24.04"}],
            },
            {
                "scope": "profile",
                "profile_kind": "communication",
                "content": "喜欢简短回答",
                "evidence": [{"interaction_id": "p", "quote": "我喜欢简短的回答"}],
            },
        ],
    )
    page = FactsPage(attach(memory), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=5000):
        page.reload()
    assert page.model.rowCount() == 2
    with qtbot.waitSignal(page.loaded, timeout=5000):
        page.status_box.setCurrentIndex(page.status_box.findData("candidate"))
    assert [r.content for r in page.model.rows] == ["书房电脑是 Ubuntu 24.04"]
    page.table.selectRow(0)
    assert "书房电脑是 Ubuntu 24.04" in page.detail.toPlainText() and "2026-11-25" in page.detail.toPlainText()
    assert "等待第二个工作日的佐证" in page.detail.toPlainText()  # Jiyi's reason, said in Chinese
    assert "awaiting" not in page.detail.toPlainText()
    with qtbot.waitSignal(page.status_changed, timeout=5000):
        qtbot.mouseClick(page.confirm_button, Qt.MouseButton.LeftButton)
    assert memory.facts.list_facts(scope="environment")[0].status == "active"
    page.status_box.setCurrentIndex(0)
    page.search_edit.setText("简短")
    qtbot.waitUntil(lambda: [r.scope for r in page.model.rows] == ["profile"], timeout=5000)
    page.table.selectRow(0)
    assert "沟通方式" in page.detail.toPlainText() and "communication" not in page.detail.toPlainText()


def test_topics_page_walks_workdays_topics_and_pages_turns(
    attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    for n in range(60):
        memory.desk.remember_interaction(
            f"i{n:02d}", user_text=f"UFO 第{n}次", assistant_text="好", ts=1764500000 + n * 60
        )
    memory.desk.remember_interaction("later", user_text="别的", assistant_text="好")
    plan = memory.maintenance.maintenance_plan(limit=61)
    ids = [i["interaction_id"] for i in plan["interactions"] if i["interaction_id"] != "later"]
    memory.maintenance.maintenance_commit(
        {"topics": [{"topic_id": "ufo", "title": "UFO 检查", "interaction_ids": ids, "segment": "查 UFO"}]}
    )
    page = TopicsPage(attach(memory), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.workdays_loaded, timeout=5000):
        page.reload()
    qtbot.waitUntil(lambda: "待整理 1 条问答" in page.backlog_label.text(), timeout=5000)
    day_row = next(i for i, r in enumerate(page.days.rows) if r.segments)
    with qtbot.waitSignal(page.topics_loaded, timeout=5000):
        page.day_table.selectRow(day_row)
    assert [r.title for r in page.topics.rows] == ["UFO 检查"]
    with qtbot.waitSignal(page.topic_loaded, timeout=5000) as first:
        page.topic_table.selectRow(0)
    assert first.args == ["ufo", 50] and page.more_button.isEnabled()
    with qtbot.waitSignal(page.topic_loaded, timeout=5000) as second:
        qtbot.mouseClick(page.more_button, Qt.MouseButton.LeftButton)
    assert second.args == ["ufo", 60] and not page.more_button.isEnabled()
    assert "UFO 第59次" in page.detail.toPlainText()
    with qtbot.waitSignal(page.topics_loaded, timeout=5000):
        page.search_edit.setText("UFO")
    page.resize(1100, 700)
    page.show()
    header = page.day_table.horizontalHeader()
    qtbot.waitUntil(lambda: page.day_table.horizontalScrollBar().maximum() == 0, timeout=3000)
    reviewed = header.sectionViewportPosition(3) + header.sectionSize(3)
    assert reviewed <= page.day_table.viewport().width()  # 复核 is in view, not behind a scroll bar


def test_empty_desk_pages_say_how_they_fill(attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    from gui.pages.bundles_page import BundlesPage

    facts, skills, topics, bundles = (
        FactsPage(attach(memory), lanes),
        SkillsPage(attach(memory), lanes),
        TopicsPage(attach(memory), lanes),
        BundlesPage(attach(memory), lanes),
    )
    for page in (facts, skills, topics, bundles):
        qtbot.addWidget(page)
    with qtbot.waitSignal(facts.loaded, timeout=5000):
        facts.reload()
    assert "还没有长期事实" in facts.detail.toPlainText() and "筛选" not in facts.detail.toPlainText()
    with qtbot.waitSignal(skills.loaded, timeout=5000):
        skills.reload()
    assert "还没有技能" in skills.detail.toPlainText()
    with qtbot.waitSignal(topics.workdays_loaded, timeout=5000):
        topics.reload()
    assert "还没有话题" in topics.detail.toPlainText()
    with qtbot.waitSignal(bundles.tree_loaded, timeout=5000):
        bundles.reload()
    assert "还没有资料夹" in bundles.info.text()
    with qtbot.waitSignal(facts.loaded, timeout=5000):
        facts.search_edit.setText("没有这样的事实")
    assert "没有符合筛选条件的记录" in facts.detail.toPlainText()


def test_maintenance_preview_rebuild_and_cancel(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.desk.remember_interaction("a", user_text="UFO", assistant_text="好")
    page = UpkeepPage(memory, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.reports_loaded, timeout=5000):
        page.reload()
    with qtbot.waitSignal(page.preview_ready, timeout=10_000) as preview:
        qtbot.mouseClick(page.preview_button, Qt.MouseButton.LeftButton)
    assert preview.args[0]["dry_run"] is True and "预览" in page.dream_view.toPlainText()
    with qtbot.waitSignal(page.rebuild_finished, timeout=10_000) as rebuilt:
        qtbot.mouseClick(page.views_button, Qt.MouseButton.LeftButton)
    assert rebuilt.args[0] == "views" and rebuilt.args[1]["desk"] == 1
    assert "重建完成" in page.rebuild_label.text() and page.progress.value() == page.progress.maximum()
    # Cancel: hold the write lane so the rebuild is still queued when the user cancels.
    gate = threading.Event()
    held = page.tasks.start(page.tasks.write(gate.wait, 10))
    page.rebuild_views()
    assert page.cancel_button.isEnabled()
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(page.rebuild_finished, timeout=10_000) as cancelled:
        gate.set()
    assert held.done() and held.result() is True
    assert isinstance(cancelled.args[1], Cancelled) and "已取消" in page.rebuild_label.text()
    assert memory.desk.get_interaction("a")["user_text"] == "UFO"  # the views are intact
    with qtbot.waitSignal(page.dream_finished, timeout=10_000):
        qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "整理报告" in page.reports_view.toPlainText(), timeout=5000)


def test_a_dream_shows_which_step_it_is_on(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    page = UpkeepPage(memory, lanes)
    qtbot.addWidget(page)
    shown: list[str] = []
    moved = page._dream_moved

    def record(done: int, total: int) -> None:
        moved(done, total)
        shown.append(page.dream_view.toPlainText())

    page._dream_moved = record  # type: ignore[method-assign]
    with qtbot.waitSignal(page.dream_finished, timeout=10_000):
        qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    assert shown[0] == "正在整理：纠正开错的别名（第 1/6 步）" and shown[-1] == "整理的每一步都做完了。", shown
    assert len(shown) == 7 and "第 6/6 步" in shown[-2]
    assert "已完成整理" in page.dream_view.toPlainText()  # then the report replaces it


def test_maintenance_speaks_of_runs_and_counts_not_ids_and_json(qtbot: QtBot, tmp_path, lanes: Lanes) -> None:
    """A fold preview lists each run by date, device, outcome and goal; the log's details are counts in words;
    an idle progress bar shows no "0%"."""
    import time

    from service.config import load_config

    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EPISODE_KEEP": "1", "JIYI_EMBED_MODEL": "hash"}))
    try:
        now = time.time()
        memory.runs.archive_episodes(
            [
                {
                    "run_id": f"r{i}",
                    "goal_text": f"在小红书搜索火锅店 {i}",
                    "ts_end": now - 3600 * (i + 1),
                    "success": i % 2 == 0,
                    "apps": ["com.xingin.xhs"],
                    "device_scope": "device:pixel7",
                    "steps": 3,
                }
                for i in range(60)
            ]
        )
        memory.desk.remember_interaction("a", user_text="UFO", assistant_text="好")
        file_all(memory)
        page = UpkeepPage(memory, lanes)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.reports_loaded, timeout=5000):
            page.reload()
        assert not page.progress.isTextVisible()
        assert "话题 1 · 归档问答 1 · 事实 0 · 技能 0" in page.reports_view.toPlainText()
        assert "{" not in page.reports_view.toPlainText()
        with qtbot.waitSignal(page.preview_ready, timeout=10_000) as preview:
            qtbot.mouseClick(page.preview_button, Qt.MouseButton.LeftButton)
        fold = next(s for s in preview.args[0]["steps"] if s["step"] == "fold")
        assert fold["count"] == 59 and len(fold["episodes"]) == 59
        shown = page.dream_view.toPlainText()
        oldest = datetime.fromtimestamp(now - 3600 * 2).strftime("%Y-%m-%d %H:%M")
        assert f"{oldest} · pixel7 · 失败 · 在小红书搜索火锅店 1" in shown  # the newest run folded, listed first
        assert "…以及另外 9 次运行" in shown and "r1\n" not in shown
    finally:
        memory.close()


def test_pages_remember_their_filters(attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes, tmp_path) -> None:
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    facts, skills = FactsPage(attach(memory), lanes), SkillsPage(attach(memory), lanes)
    qtbot.addWidget(facts)
    qtbot.addWidget(skills)
    facts.scope_box.setCurrentIndex(3)
    facts.status_box.setCurrentIndex(1)
    skills.status_box.setCurrentIndex(2)
    facts.save_state(settings)
    skills.save_state(settings)
    settings.sync()
    again = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    facts2, skills2 = FactsPage(attach(memory), lanes), SkillsPage(attach(memory), lanes)
    qtbot.addWidget(facts2)
    qtbot.addWidget(skills2)
    facts2.restore_state(again)
    skills2.restore_state(again)
    assert (facts2.scope_box.currentData(), facts2.status_box.currentData()) == ("environment", "candidate")
    assert skills2.status_box.currentData() == "active"


def test_ask_memory_shows_what_recall_returns_and_why(attach: Attach, qtbot: QtBot, tmp_path, lanes: Lanes) -> None:
    from service.config import load_config

    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    try:
        memory.desk.remember_interaction("cab", user_text="明早七点叫车去机场", assistant_text="已预约专车")
        memory.desk.remember_interaction("rain", user_text="今天会下雨吗", assistant_text="多云")
        page = TopicsPage(attach(memory), lanes)
        qtbot.addWidget(page)
        page.probe.question.setText("叫车去机场")
        with qtbot.waitSignal(page.probe.answered, timeout=10_000) as first:
            page.probe.ask()
        shown = page.probe.answer.toPlainText()
        # by meaning from the first question (issue 37): the index opens for it, and what waited is embedded
        assert first.args[0].retrieval.mode == "hybrid" and "混合检索" in shown and "降级" not in shown
        assert "明早七点叫车去机场" in shown and "相似" in shown and "BM25" in shown
    finally:
        memory.close()
    with socket.socket() as closed:  # a port nobody listens on: the embedding server is down
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    down = Memory.open(
        load_config(
            home=tmp_path / "down", env={"JIYI_EMBED_URL": f"http://127.0.0.1:{port}/v1", "JIYI_EMBED_MODEL_NAME": "m"}
        )
    )
    try:
        down.recall.engine.embedder.backoff = 0.0  # type: ignore[attr-defined]
        down.desk.remember_interaction("cab", user_text="明早七点叫车去机场", assistant_text="已预约专车")
        page = TopicsPage(attach(down), lanes)
        qtbot.addWidget(page)
        page.probe.question.setText("叫车去机场")
        with qtbot.waitSignal(page.probe.answered, timeout=30_000) as degraded:
            page.probe.ask()
        assert degraded.args[0].degraded and "降级" in page.probe.answer.toPlainText()
        assert "明早七点叫车去机场" in page.probe.answer.toPlainText()  # found by its words
    finally:
        down.close()


def test_the_dream_preview_says_what_each_correction_changes(qtbot: QtBot, tmp_path, lanes: Lanes) -> None:
    """A wrong learned alias in the preview: its name, the wrong package → the right one, and the run that showed
    it; no field names (`term=抖抖` read as code)."""
    from service.config import load_config

    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_DREAM": "manual", "JIYI_EMBED_MODEL": "hash"}))
    try:
        wrong, right = "com.ss.android.ugc.aweme.lite", "com.ss.android.ugc.aweme"
        memory.runs.run_start("r1", "d1")
        ok = {"run_id": "r1", "result_class": "ok", "tool": "launch_app"}
        memory.runs.run_event({**ok, "step": 1, "app_package": wrong}, launch_name="抖抖")
        memory.runs.run_event({"run_id": "r1", "step": 2, "tool": "back", "result_class": "ok", "note": "开错了"})
        memory.runs.run_event({**ok, "step": 3, "app_package": right})
        memory.runs.run_finish("r1", {"success": True})
        page = UpkeepPage(memory, lanes)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.preview_ready, timeout=30_000):
            qtbot.mouseClick(page.preview_button, Qt.MouseButton.LeftButton)
        shown = page.dream_view.toPlainText()
        assert f"抖抖 · {wrong} → {right} · r1" in shown and "term=" not in shown
    finally:
        memory.close()
