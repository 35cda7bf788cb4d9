"""The desktop-assistant memory through `Memory`: real SQLite, real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.memory.memory import Memory
from service.wire.recall import DeskRecall
from store.core import clock
from store.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from store.desk import leases

DAY1, DAY2, DAY3, DAY6 = "2026-11-25T02:00:00Z", "2026-11-26T02:00:00Z", "2026-11-27T02:00:00Z", "2026-11-30T02:00:00Z"


def turn(memory: Memory, interaction_id: str, user: str, reply: str = "好的", ts: str = DAY1) -> None:
    memory.desk.remember_interaction(interaction_id, user_text=user, assistant_text=reply, source="voice", ts=ts)


def file_all(memory: Memory, title: str = "杂项", **extra: object) -> dict[str, Any]:
    plan = memory.maintenance.maintenance_plan(limit=500)
    ids = [i["interaction_id"] for i in plan["interactions"]]
    return memory.maintenance.maintenance_commit(
        {"batch_id": plan["batch_id"], "topics": [{"title": title, "interaction_ids": ids, "segment": "概括"}], **extra}
    )


def test_interactions_are_idempotent_redacted_and_never_rewritten(memory: Memory) -> None:
    first = memory.desk.remember_interaction(
        "i1", user_text="我的密码 password=hunter2 记一下", assistant_text="不能记"
    )
    again = memory.desk.remember_interaction(
        "i1", user_text="我的密码 password=hunter2 记一下", assistant_text="不能记"
    )
    assert first["created"] is True and again["created"] is False
    stored = memory.desk.get_interaction("i1")
    assert "hunter2" not in stored["user_text"] and "[redacted:" in stored["user_text"]
    with pytest.raises(Conflict, match="never rewritten"):
        memory.desk.remember_interaction("i1", user_text="别的内容", assistant_text="不能记")
    with pytest.raises(InvalidInput, match="user_text or assistant_text"):
        memory.desk.remember_interaction("i2")
    with pytest.raises(InvalidInput, match="interaction_id"):
        memory.desk.remember_interaction("a/b", user_text="x")
    long = memory.desk.remember_interaction("i3", user_text="长" * 9000)
    assert long["truncated"] is True and len(memory.desk.get_interaction("i3")["user_text"]) < 8100


def test_source_is_metadata_not_a_filter(memory: Memory) -> None:
    turn(memory, "a", "UFO 检查通过了吗")
    memory.desk.remember_interaction("b", user_text="UFO 检查的警告", source="feishu")
    found = {i.interaction_id: i.source for i in memory.desk.memory_recall("UFO 检查").interactions}
    assert found == {"a": "voice", "b": "feishu"}


def test_recall_finds_old_items_beyond_the_recent_window(memory: Memory) -> None:
    turn(memory, "old", "帮我查一下 UFO 的部署日志", ts=DAY1)
    for i in range(300):
        turn(memory, f"n{i}", f"今天天气怎么样 第{i}次", ts=DAY2)
    memory.desk.complete_task("t-old", title="UFO 部署检查", status="failed", result="磁盘已满", ts=DAY1)
    for i in range(120):
        memory.desk.complete_task(f"t{i}", title=f"整理桌面 {i}", status="succeeded", ts=DAY2)
    result = memory.desk.memory_recall("之前 UFO 部署怎么样了")
    related = [i.interaction_id for i in result.interactions if i.why == "related"]
    assert related[0] == "old"
    assert next(c.task_id for c in result.task_cards if c.why == "related") == "t-old"
    recent = [i.interaction_id for i in result.interactions if i.why == "recent"]
    assert recent == ["n299", "n298", "n297"]


def test_equally_related_cards_come_newest_first_with_a_score_that_says_how_related(memory: Memory) -> None:
    """Eight runs of one daily check hold the same words: the last one (a failure) is what "之前…怎么样了" wants."""
    days = [f"2026-11-{d:02d}T20:00:00Z" for d in range(20, 28)]
    order = [3, 0, 6, 1, 7, 2, 5, 4]  # filed out of date order, as a late sync would
    for n in order:
        status, said = ("failed", "构建失败：磁盘已满") if n == 7 else ("succeeded", "构建通过")
        memory.desk.complete_task(f"ufo-{n}", title="每日 UFO 构建检查", status=status, result=said, ts=days[n])
    memory.desk.complete_task("news", title="早间新闻摘要", status="succeeded", result="6 条新闻", ts=days[7])
    turn(memory, "late", "UFO 构建检查有警告吗", ts=days[7])
    turn(memory, "early", "UFO 构建检查开始了吗", ts=days[0])  # synced after the later turn
    result = memory.desk.memory_recall("之前 UFO 检查怎么样了", limit=2)
    related = [c for c in result.task_cards if c.why == "related"]
    assert [c.task_id for c in related] == ["ufo-7", "ufo-6"]
    assert related[0].status == "failed" and all(isinstance(c.score, float) and 0 < c.score <= 1 for c in related)
    turns = [i.interaction_id for i in result.interactions if i.why == "related"]
    # two different questions about the check, not runs of one thing: their order is their relatedness
    assert sorted(turns) == ["early", "late"]
    recent = [i.interaction_id for i in result.interactions if i.why == "recent"]
    assert recent == []  # both turns are related already; nothing else was said
    wider = memory.desk.memory_recall("UFO 构建检查", limit=8)
    cards = [c for c in wider.task_cards if c.why == "related"]
    assert [c.task_id for c in cards] == [f"ufo-{n}" for n in range(7, -1, -1)]
    assert len({c.score for c in cards}) == 1 and cards[0].score == 1.0


def test_task_complete_creates_the_schedule_bundle_on_its_first_run(memory: Memory, config) -> None:
    out = memory.desk.complete_task(
        "t1", title="每日 UFO 检查", status="succeeded", result="构建通过", schedule_id="ufo", run_id="r1"
    )
    assert out["bundle_id"] == "schedule/ufo"
    root = config.home_path / "bundles" / "schedule" / "ufo"
    for name in ("INDEX.md", "requirements.md", "preferences.md", "lessons.md", "state.json", "runs/r1/summary.md"):
        assert (root / name).is_file(), name
    state = json.loads((root / "state.json").read_text("utf-8"))
    assert state["runs"] == 1 and state["last_run_id"] == "r1"
    memory.bundles.put_bundle_document(
        "schedule/ufo", "preferences.md", "# 偏好\n- 只在失败时提醒\n", expected_revision=1
    )
    memory.desk.complete_task(
        "t2", title="每日 UFO 检查", status="failed", result="磁盘满", schedule_id="ufo", run_id="r2"
    )
    # A second run adds its summary and refreshes the index, never touching the user's documents.
    assert "只在失败时提醒" in (root / "preferences.md").read_text("utf-8")
    assert "runs/r2/summary.md" in (root / "INDEX.md").read_text("utf-8")
    assert json.loads((root / "state.json").read_text("utf-8"))["runs"] == 2
    with pytest.raises(InvalidInput, match="run_id"):
        memory.desk.complete_task("t3", title="x", status="succeeded", schedule_id="ufo")


def test_document_put_detects_stale_revisions_and_outside_edits(memory: Memory, config) -> None:
    memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="r1")
    doc = memory.bundles.get_bundle("schedule/weekly", "requirements.md").documents[0]
    assert doc.revision == 1 and doc.file == "same"
    memory.bundles.put_bundle_document("schedule/weekly", "requirements.md", "# 要求\n周五发\n", expected_revision=1)
    with pytest.raises(Conflict) as stale:
        memory.bundles.put_bundle_document(
            "schedule/weekly", "requirements.md", "# 要求\n周一发\n", expected_revision=1
        )
    assert stale.value.details == {
        "bundle_id": "schedule/weekly",
        "path": "requirements.md",
        "revision": 2,
        "content": "# 要求\n周五发\n",
    }
    path = Path(memory.bundles.bundle_directory("schedule/weekly")) / "requirements.md"
    path.write_text("# 要求\n用户在编辑器里改的\n", "utf-8")
    assert memory.bundles.get_bundle("schedule/weekly", "requirements.md").documents[0].file == "edited_outside"
    put = memory.bundles.put_bundle_document(
        "schedule/weekly", "requirements.md", "# 要求\n周四发\n", expected_revision=2
    )
    assert put["revision"] == 3 and put["outside_edit_kept"]
    kept = path.parent / put["outside_edit_kept"]
    assert kept.read_text("utf-8") == "# 要求\n用户在编辑器里改的\n"
    assert path.read_text("utf-8") == "# 要求\n周四发\n"


def test_document_put_refuses_bad_paths_state_and_unknown_bundles(memory: Memory) -> None:
    memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="r1")
    for bad in ("../x.md", "/etc/passwd", "runs/../../x/summary.md", ".hidden.md", "a/b.md", "x.txt"):
        with pytest.raises(InvalidInput):
            memory.bundles.put_bundle_document("schedule/weekly", bad, "x", expected_revision=0)
    with pytest.raises(InvalidInput, match="JSON"):
        memory.bundles.put_bundle_document("schedule/weekly", "state.json", "{not json", expected_revision=1)
    with pytest.raises(NotFound, match="first run"):
        memory.bundles.put_bundle_document("schedule/nope", "notes.md", "x", expected_revision=0)
    made = memory.bundles.put_bundle_document("project/jiyi", "notes.md", "# 笔记\n", expected_revision=0)
    assert made["revision"] == 1 and memory.bundles.get_bundle("project/jiyi").kind == "project"


def test_bundle_mirror_refuses_a_symlinked_folder(memory: Memory, config, tmp_path: Path) -> None:
    memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="r1")
    folder = Path(memory.bundles.bundle_directory("schedule/weekly"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "runs").rename(tmp_path / "old-runs")
    (folder / "runs").symlink_to(elsewhere)
    memory.desk.complete_task("t2", title="周报", status="succeeded", schedule_id="weekly", run_id="r2")
    assert not any(elsewhere.iterdir())  # nothing written through the link; the database still has it
    assert memory.bundles.get_bundle("schedule/weekly", "runs/r2/summary.md").documents[0].revision == 1


def test_commit_files_each_interaction_exactly_once(memory: Memory) -> None:
    turn(memory, "a", "UFO 检查")
    turn(memory, "b", "顺便订个会议室")
    plan = memory.maintenance.maintenance_plan(limit=10)
    assert [i["interaction_id"] for i in plan["interactions"]] == ["a", "b"]
    assert memory.maintenance.maintenance_plan(limit=10)["batch_id"] is None  # all leased
    with pytest.raises(InvalidInput, match="not fully filed"):
        memory.maintenance.maintenance_commit(
            {"batch_id": plan["batch_id"], "topics": [{"title": "UFO", "interaction_ids": ["a"]}]}
        )
    with pytest.raises(InvalidInput, match="listed twice"):
        memory.maintenance.maintenance_commit(
            {
                "topics": [
                    {"title": "UFO", "interaction_ids": ["a", "b"]},
                    {"title": "会议", "interaction_ids": ["b"]},
                ]
            }
        )
    assert memory.maintenance.maintenance_status()["backlog"] == 2  # nothing half-written
    done = memory.maintenance.maintenance_commit(
        {
            "batch_id": plan["batch_id"],
            "topics": [
                {"topic_id": "ufo", "title": "UFO 检查", "interaction_ids": ["a"], "segment": "查了 UFO"},
                {"title": "会议室", "kind": "chat", "interaction_ids": ["b"], "segment": "订会议室"},
            ],
        }
    )
    assert done["assigned"] == 2 and done["backlog"] == 0 and done["lease"] == "held"
    with pytest.raises(Conflict, match="already filed under topic ufo") as second:
        memory.maintenance.maintenance_commit({"topics": [{"title": "别的", "interaction_ids": ["a"]}]})
    assert second.value.details == {"already_filed": {"a": "ufo"}}
    assert memory.maintenance.get_topic("ufo").items[0].interaction_id == "a"


def test_an_expired_lease_returns_its_batch(memory: Memory) -> None:
    turn(memory, "a", "UFO 检查")
    first = memory.maintenance.maintenance_plan(limit=10, lease_seconds=10)
    assert memory.maintenance.maintenance_plan(limit=10)["batch_id"] is None
    assert first["batch_id"] is not None
    leases.expire(memory.store, first["batch_id"])  # the planner crashed and its lease ran out
    again = memory.maintenance.maintenance_plan(limit=10)
    assert [i["interaction_id"] for i in again["interactions"]] == ["a"]


def test_topics_span_workdays_and_the_overview_has_three(memory: Memory) -> None:
    days = ["2026-11-24T02:00:00Z", DAY1, DAY2, DAY3]
    for n, ts in enumerate(days):
        turn(memory, f"i{n}", f"UFO 第{n}天", ts=ts)
    plan = memory.maintenance.maintenance_plan(limit=2)
    memory.maintenance.maintenance_commit(
        {
            "batch_id": plan["batch_id"],
            "topics": [{"topic_id": "ufo", "title": "UFO", "interaction_ids": ["i0", "i1"], "segment": "前两天"}],
        }
    )
    plan = memory.maintenance.maintenance_plan()
    memory.maintenance.maintenance_commit(
        {
            "batch_id": plan["batch_id"],
            "topics": [{"topic_id": "ufo", "interaction_ids": ["i2", "i3"], "segment": "后两天"}],
        }
    )
    topic = memory.maintenance.get_topic("ufo", limit=3)
    assert topic.first_workday == "2026-11-24" and topic.last_workday == "2026-11-27"
    assert [s.workday for s in topic.segments] == ["2026-11-27", "2026-11-26", "2026-11-25", "2026-11-24"]
    assert [i.interaction_id for i in topic.items] == ["i0", "i1", "i2"] and topic.next_offset == 3
    assert [i.interaction_id for i in memory.maintenance.get_topic("ufo", offset=3).items] == ["i3"]
    overview = memory.desk.memory_recall("随便").recent_workdays
    assert [d.workday for d in overview] == ["2026-11-27", "2026-11-26", "2026-11-25"]
    # The raw interactions are untouched by filing.
    assert memory.desk.get_interaction("i0")["user_text"] == "UFO 第0天"


def test_fact_evidence_must_be_verbatim_and_profile_only_from_the_user(memory: Memory) -> None:
    turn(memory, "u", "我是做嵌入式开发的，回答请简短", reply="明白，你是嵌入式工程师")
    base = {"topics": [{"title": "自我介绍", "interaction_ids": ["u"]}]}
    with pytest.raises(InvalidInput, match="verbatim"):
        memory.maintenance.maintenance_commit(
            {
                **base,
                "facts": [
                    {
                        "scope": "profile",
                        "profile_kind": "identity",
                        "content": "嵌入式工程师",
                        "evidence": [{"interaction_id": "u", "quote": "我是嵌入式工程师"}],
                    }
                ],
            }
        )
    with pytest.raises(InvalidInput, match="user's own words"):
        memory.maintenance.maintenance_commit(
            {
                **base,
                "facts": [
                    {
                        "scope": "profile",
                        "profile_kind": "identity",
                        "content": "嵌入式工程师",
                        "evidence": [{"interaction_id": "u", "quote": "你是嵌入式工程师"}],
                    }
                ],
            }
        )
    with pytest.raises(InvalidInput, match="profile_kind"):
        memory.maintenance.maintenance_commit(
            {
                **base,
                "facts": [
                    {
                        "scope": "profile",
                        "content": "嵌入式工程师",
                        "evidence": [{"interaction_id": "u", "quote": "我是做嵌入式开发的"}],
                    }
                ],
            }
        )
    assert memory.maintenance.maintenance_status()["backlog"] == 1  # every refusal wrote nothing
    done = memory.maintenance.maintenance_commit(
        {
            **base,
            "facts": [
                {
                    "scope": "profile",
                    "profile_kind": "identity",
                    "content": "用户做嵌入式开发",
                    "evidence": [{"interaction_id": "u", "quote": "我是做嵌入式开发的"}],
                }
            ],
        }
    )
    assert done["facts"][0]["status"] == "active"
    assert [f.content for f in memory.desk.memory_recall("天气").core_facts] == ["用户做嵌入式开发"]


def env_fact(interaction_id: str, quote: str) -> dict[str, Any]:
    return {
        "scope": "environment",
        "content": "书房电脑运行 Ubuntu 24.04",
        "evidence": [{"interaction_id": interaction_id, "quote": quote}],
    }


def test_environment_facts_need_two_workdays_of_independent_evidence(memory: Memory) -> None:
    turn(memory, "d1", "书房电脑是 Ubuntu 24.04", ts=DAY1)
    turn(memory, "d1b", "再说一次，书房电脑是 Ubuntu 24.04", ts=DAY1)
    turn(memory, "d2", "嗯", reply="你的书房电脑是 Ubuntu 24.04", ts=DAY2)
    turn(memory, "d3", "对，书房电脑是 Ubuntu 24.04", ts=DAY3)
    file_all(memory)
    first = memory.maintenance.maintenance_commit(
        {
            "facts": [
                env_fact("d1", "书房电脑是 Ubuntu 24.04"),
            ]
        }
    )
    assert first["facts"][0]["status"] == "candidate"
    same_day = memory.maintenance.maintenance_commit({"facts": [env_fact("d1b", "书房电脑是 Ubuntu 24.04")]})
    assert same_day["facts"][0]["status"] == "candidate"  # one workday, however many times
    restated = memory.maintenance.maintenance_commit({"facts": [env_fact("d2", "你的书房电脑是 Ubuntu 24.04")]})
    assert restated["facts"][0]["status"] == "candidate"  # the assistant restating is not verification
    assert memory.desk.memory_recall("书房电脑 Ubuntu").related_facts == []  # candidates are not offered
    confirmed = memory.maintenance.maintenance_commit({"facts": [env_fact("d3", "书房电脑是 Ubuntu 24.04")]})
    assert confirmed["facts"][0]["outcome"] == "activated" and confirmed["facts"][0]["status"] == "active"
    fact = memory.facts.get_fact(confirmed["facts"][0]["fact_id"])
    assert fact.workdays == ["2026-11-25", "2026-11-27"]
    assert [e.counts for e in fact.evidence] == [True, True, False, True]
    assert [f.fact_id for f in memory.desk.memory_recall("书房电脑 Ubuntu").related_facts] == [fact.fact_id]


def test_daily_review_deactivates_stale_candidates_and_they_are_never_revived(memory: Memory) -> None:
    turn(memory, "d1", "书房电脑是 Ubuntu 24.04", ts=DAY1)
    turn(memory, "d6", "书房电脑是 Ubuntu 24.04 没错", ts=DAY6)
    file_all(memory)
    fact_id = memory.maintenance.maintenance_commit({"facts": [env_fact("d1", "书房电脑是 Ubuntu 24.04")]})["facts"][0][
        "fact_id"
    ]
    assert memory.desk.record_consolidation("workday_review", workday="2026-11-27")["deactivated_facts"] == []
    review = memory.desk.record_consolidation("workday_review", workday="2026-11-28")
    assert review["deactivated_facts"] == [fact_id]
    assert memory.facts.get_fact(fact_id).status == "inactive"
    later = memory.maintenance.maintenance_commit({"facts": [env_fact("d6", "书房电脑是 Ubuntu 24.04")]})
    assert later["facts"][0] == {"fact_id": fact_id, "outcome": "kept_inactive", "status": "inactive"}
    assert memory.facts.set_fact_status(fact_id, "active", reason="我确认过").status == "active"


def test_skills_start_as_drafts_and_only_the_user_activates_them(memory: Memory) -> None:
    turn(memory, "g", "以后发周报前先让我看一眼")
    done = file_all(
        memory,
        skills=[
            {
                "name": "周报先审",
                "text": "发周报前先发给用户审阅",
                "source_interaction_id": "g",
                "quote": "发周报前先让我看一眼",
            }
        ],
    )
    skill_id = done["skills"][0]["skill_id"]
    assert memory.skills.get_skill(skill_id).status == "draft"
    assert memory.desk.memory_recall("周报").relevant_skills == []  # executors see active skills only
    with pytest.raises(Forbidden, match="user_request"):
        memory.skills.set_skill_status(skill_id, "active", actor="agent")
    with pytest.raises(Forbidden, match="interaction_id"):  # words alone: the turn they were said in is named
        memory.skills.set_skill_status(skill_id, "active", actor="agent", user_request="好的，启用这个技能")
    turn(memory, "ask", "好的，启用这个技能")
    active = memory.skills.set_skill_status(
        skill_id, "active", actor="agent", user_request="启用这个技能", interaction_id="ask"
    )
    assert active.status == "active" and active.user_request == "启用这个技能"
    assert active.request_interaction_id == "ask"
    assert [s.skill_id for s in memory.desk.memory_recall("发周报").relevant_skills] == [skill_id]
    with pytest.raises(InvalidInput, match="verbatim"):
        file_all(memory, skills=[{"name": "x", "text": "y", "source_interaction_id": "g", "quote": "我没说过"}])


def test_maintenance_status_reports_idle_backlog_and_review(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime

    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 26, 12, 0, tzinfo=UTC))
    turn(memory, "a", "UFO", ts="2026-11-26T10:30:00Z")  # 18:30 Beijing, workday 11-26
    status = memory.maintenance.maintenance_status()
    assert status["backlog"] == 1 and status["idle_seconds"] == 5400.0 and status["should_consolidate"] is True
    assert status["previous_workday"] == "2026-11-25" and status["previous_workday_needs_review"] is False
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 26, 20, 0, tzinfo=UTC))  # 04:00 on 11-27
    assert memory.maintenance.maintenance_status()["previous_workday_needs_review"] is True
    memory.desk.record_consolidation("workday_review", workday="2026-11-26")
    assert memory.maintenance.maintenance_status()["previous_workday_needs_review"] is False
    memory.desk.record_consolidation("activity", summary="执行任务中")
    assert memory.maintenance.maintenance_status()["should_consolidate"] is False


def test_context_pack_stays_within_its_budget(memory: Memory) -> None:
    memory.desk.complete_task(
        "t1", title="每日 UFO 检查", status="failed", result="UFO 磁盘满" * 20, schedule_id="ufo", run_id="r1"
    )
    for n in range(30):
        turn(memory, f"i{n}", f"UFO 检查第{n}次的细节" + "很长的说明" * 30)
    for budget in (200, 800, 4000):
        pack = memory.context.prepare_context("UFO 检查", schedule_id="ufo", budget_chars=budget)
        assert pack["used_chars"] <= budget and len(pack["text"]) == pack["used_chars"]
    small = memory.context.prepare_context("UFO 检查", schedule_id="ufo", budget_chars=800)
    assert small["omitted"] and "requirements.md" in small["text"]


def test_transition_assessment_hints_continue_or_switch(memory: Memory) -> None:
    memory.desk.complete_task("t1", title="UFO 构建检查", status="failed", result="构建失败 磁盘满")
    memory.desk.complete_task("t2", title="订明天的会议室", status="succeeded")
    same = memory.desk.assess_transition("UFO 构建失败的磁盘清理一下", current_task_id="t1")
    assert same["assessment"] == "continue"
    other = memory.desk.assess_transition("换个事，会议室改到后天", current_task_id="t1")
    assert other["assessment"] == "switch" and "换个" in other["cues"]
    assert [t["task_id"] for t in other["related_tasks"]] == ["t2"]


def test_the_desk_view_rebuilds_identically_from_the_log(memory: Memory) -> None:
    turn(memory, "a", "UFO 检查", ts=DAY1)
    turn(memory, "b", "书房电脑是 Ubuntu", ts=DAY2)
    memory.desk.complete_task("t1", title="UFO", status="succeeded", schedule_id="ufo", run_id="r1")
    file_all(
        memory,
        facts=[
            env_fact_b := {
                "scope": "environment",
                "content": "书房电脑是 Ubuntu",
                "evidence": [{"interaction_id": "b", "quote": "书房电脑是 Ubuntu"}],
            }
        ],
    )
    before = (
        memory.desk.memory_recall("UFO 书房"),
        memory.facts.list_facts(),
        memory.bundles.list_bundles(),
        memory.maintenance.list_topics(),
    )
    memory.rebuild()
    after = (
        memory.desk.memory_recall("UFO 书房"),
        memory.facts.list_facts(),
        memory.bundles.list_bundles(),
        memory.maintenance.list_topics(),
    )
    for one, two in zip(before, after, strict=True):
        if isinstance(one, DeskRecall) and isinstance(two, DeskRecall):
            assert msgspec.structs.replace(one, latency_ms=0.0) == msgspec.structs.replace(two, latency_ms=0.0)
        else:
            assert one == two
    assert env_fact_b["scope"] == "environment"


def test_nothing_sensitive_gets_in_through_any_desk_path(memory: Memory) -> None:
    from store.core.errors import SensitiveContent

    with pytest.raises(SensitiveContent):
        memory.desk.remember_interaction("13812345678", user_text="x")  # a mobile number as an id
    memory.desk.complete_task("t1", title="登录 password=hunter2", status="succeeded", result="token: abc123456")
    card = memory.desk.list_tasks()[0]
    assert "hunter2" not in card["title"] and "abc123456" not in card["result"]
    memory.desk.record_consolidation("note", summary="密码 password=hunter2", detail={"k": ["secret=xyz987"]})
    log = memory.maintenance.consolidation_log(1)[0]
    assert "hunter2" not in log.summary and "xyz987" not in str(log.detail)
    turn(memory, "a", "好")
    with pytest.raises(SensitiveContent):
        memory.maintenance.maintenance_commit(
            {"topics": [{"topic_id": "13812345678", "title": "t", "interaction_ids": ["a"]}]}
        )
    memory.maintenance.maintenance_commit(
        {"topics": [{"title": "话题 sk-abcdefghijklmnopqrstu", "interaction_ids": ["a"]}]}
    )
    assert "sk-abcdefghijklmnopqrstu" not in memory.maintenance.list_topics()[0].title
    events = "".join(e.payload.__repr__() for e in memory.store.events("desk"))
    assert "hunter2" not in events and "xyz987" not in events and "sk-abcdefghijklmnopqrstu" not in events


def test_a_restart_keeps_raw_turns_and_leases_until_they_expire(config) -> None:
    with Memory.open(config) as first:
        turn(first, "a", "UFO 检查")
        batch = first.maintenance.maintenance_plan()["batch_id"]
        assert batch
    with Memory.open(config) as again:  # leases live in the database: the planner may still commit its batch
        assert again.desk.get_interaction("a")["user_text"] == "UFO 检查"
        assert [lease["batch_id"] for lease in again.maintenance.maintenance_status()["leases"]] == [batch]
        assert again.maintenance.maintenance_plan()["interactions"] == []
        leases.expire(again.store, batch)  # the planner never came back: its batch returns to the backlog
        assert [i["interaction_id"] for i in again.maintenance.maintenance_plan()["interactions"]] == ["a"]


def test_damaged_events_are_left_out_of_the_view_and_kept_in_the_log(memory: Memory, caplog) -> None:
    turn(memory, "good-1", "UFO 检查", ts=DAY1)
    turn(memory, "good-2", "周报", ts=DAY2)
    db = memory.store.db
    insert = (
        "INSERT INTO event (ts, domain, type, schema_v, actor, payload) "
        "VALUES ('2026-11-30T00:00:00+00:00', 'desk', 'interaction_remembered', 1, 'agent', ?)"
    )
    db.execute_sql(insert, ("{not json",))  # a hand-edited row: not JSON at all
    db.execute_sql(insert, ('{"interaction_id": "broken"}',))  # JSON, but missing what the view needs
    db.execute_sql(  # a copy of a real turn: breaks the unique id
        "INSERT INTO event (ts, domain, type, schema_v, actor, payload) "
        "SELECT ts, domain, type, schema_v, actor, payload FROM event WHERE domain = 'desk' AND subject = 'good-1'"
    )
    counts = memory.store.rebuild("desk")
    assert counts["desk_skipped"] == 2 and counts["desk"] == 4  # the non-JSON row is not even readable
    assert memory.desk.get_interaction("good-1")["user_text"] == "UFO 检查"
    assert memory.desk.get_interaction("good-2")["user_text"] == "周报"
    with pytest.raises(NotFound):
        memory.desk.get_interaction("broken")
    assert memory.store.count_events("desk") == 5  # nothing was removed from the log
    assert "cannot be applied" in caplog.text and "unreadable payload" in caplog.text


def test_rebuild_writes_back_missing_bundle_files(memory: Memory) -> None:
    memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="r1")
    folder = Path(memory.bundles.bundle_directory("schedule/weekly"))
    (folder / "lessons.md").unlink()
    (folder / "runs" / "r1" / "summary.md").unlink()
    counts = memory.rebuild()
    assert counts["bundle_files_restored"] == 2
    stored = memory.bundles.get_bundle("schedule/weekly", "lessons.md").documents[0]
    assert (folder / "lessons.md").read_text("utf-8") == stored.content and stored.file == "same"
    assert (folder / "runs" / "r1" / "summary.md").is_file()
