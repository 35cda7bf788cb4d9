"""The learning pipeline's rules through the protocol (an in-process dispatcher on a real home):
what a candidate may and may not be, the quotas, backpressure, late objectives, corrections, retractions,
lost replies. `test_learning_socket.py` drives the same over a real `jiyi serve`."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.config import load_config
from service.memory.memory import Memory
from service.rpc.dispatch import Dispatcher
from service.wire.learning import AdoptionRefused, ReviewReceipt
from store.core import clock
from store.core.errors import InvalidInput
from tests.service.learning_setup import Calls, write_grant


def open_memory(home: Path, **grant: str) -> Memory:
    write_grant(home, **grant)
    return Memory.open(load_config(home=home, env={"JIYI_MEMORY_RAG": "on"}))


@pytest.fixture
def memory(home: Path) -> Iterator[Memory]:
    opened = open_memory(home)
    yield opened
    opened.close()


@pytest.fixture
def calls(memory: Memory) -> Calls:
    return Calls(Dispatcher(memory))


def remember(calls: Calls, interaction_id: str, user: str, assistant: str = "好的") -> None:
    calls.ok("interaction.remember", {"interaction_id": interaction_id, "user_text": user, "assistant_text": assistant})


def extract(calls: Calls) -> dict[str, Any]:
    lease = calls.ok("learning.extract.lease", {"request_id": calls.rid()})
    assert "operation_id" in lease, lease
    return lease


def submit(calls: Calls, lease: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    params = {"operation_id": lease["operation_id"], "request_id": calls.rid(), "result": result}
    return calls.ok("learning.extract.submit", params)


def review(calls: Calls, verdict: str = "approved") -> dict[str, Any]:
    lease = calls.ok("learning.review.lease", {"request_id": calls.rid()})
    assert "review_id" in lease, lease
    params = {"review_id": lease["review_id"], "request_id": calls.rid(), "verdict": verdict, "reason": "看过原文"}
    return calls.ok("learning.review.submit", params)


def fact(content: str, *quotes: str, kind: str = "fact.profile") -> dict[str, Any]:
    return {"operation": "add", "kind": kind, "content": content, "quotations": list(quotes)}


def learn_fact(calls: Calls, interaction_id: str, user: str, content: str) -> dict[str, Any]:
    remember(calls, interaction_id, user)
    assert submit(calls, extract(calls), fact(content, user))["outcome"] == "candidate"
    reply = review(calls)
    assert reply["intent_state"] == "adopted", reply
    record: dict[str, Any] = reply["record"]
    return record


# -- what a candidate may be ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "words"),
    [
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "ttl": "999d"}, "result.ttl cannot be set by a candidate"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "provenance": {}}, "result.provenance cannot be set"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "trust": "high"}, "result.trust cannot be set"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "namespace": "x"}, "result.namespace cannot be set"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "authority": "me"}, "result.authority cannot be set"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "mood": "ok"}, "unknown field 'mood'"),
        (fact("用户喝茶", "早上喝红茶"), "does not appear verbatim in a user turn"),
        (fact("用户喝茶", "已记下您的喜好"), "is not the owner's words"),
        (fact("用户喝茶"), "result.quotations must list"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "kind": "opinion"}, "result.kind must be one of"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "operation": "merge"}, "result.operation must be noop or one of"),
        (
            {"operation": "add", "kind": "lesson", "content": "先喝茶", "quotations": ["我每天早上喝绿茶"]},
            "trusted objective",
        ),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "target": {"id": "rec_x", "version": 1}}, "belongs to replace"),
        ({**fact("用户喝茶", "我每天早上喝绿茶"), "operation": "replace"}, "result.target must be {id, version}"),
        (
            {**fact("用户喝茶", "我每天早上喝绿茶"), "operation": "replace", "target": {"id": "rec_x", "version": 1}},
            "no adopted record",
        ),
        ({"operation": "noop", "kind": "fact.profile"}, "a noop result carries nothing else"),
    ],
)
def test_a_bad_candidate_is_refused_naming_the_problem_and_nothing_is_written(
    calls: Calls, memory: Memory, result: dict[str, Any], words: str
) -> None:
    remember(calls, "i1", "我每天早上喝绿茶", "已记下您的喜好")
    lease = extract(calls)
    events = memory.store.count_events()
    params = {"operation_id": lease["operation_id"], "request_id": calls.rid(), "result": result}
    calls.refused("learning.extract.submit", params, "invalid_params", words)
    assert memory.store.count_events() == events
    # The lease still holds: a corrected result is accepted.
    assert submit(calls, lease, fact("用户每天早上喝绿茶", "我每天早上喝绿茶"))["outcome"] == "candidate"


def test_sensitive_content_is_never_learned(calls: Calls) -> None:
    remember(calls, "i1", "我的手机号是 13812345678")
    lease = extract(calls)
    params = {
        "operation_id": lease["operation_id"],
        "request_id": calls.rid(),
        "result": fact("手机号 13812345678", "我的手机号是 13812345678"),
    }
    calls.refused("learning.extract.submit", params, "forbidden", "sensitive")


def test_a_kind_or_operation_outside_the_grant_is_refused(home: Path) -> None:
    with open_memory(home) as memory:
        pass
    write_grant(home)
    text = (home / "config.toml").read_text("utf-8")
    text = text.replace(
        'kinds = ["fact.profile", "fact.project", "fact.environment", "lesson", "procedure", "skill_draft"]',
        'kinds = ["fact.project"]',
    )
    text = text.replace('operations = ["add", "replace", "remove"]', 'operations = ["add"]')
    text = text.replace('authority_id = "learn-', 'authority_id = "narrow-', 1)
    (home / "config.toml").write_text(text, "utf-8")
    with Memory.open(load_config(home=home, env={})) as memory:
        calls = Calls(Dispatcher(memory))
        remember(calls, "i1", "我在做记忆项目")
        lease = extract(calls)
        params = {
            "operation_id": lease["operation_id"],
            "request_id": calls.rid(),
            "result": fact("记忆项目", "我在做记忆项目"),
        }
        calls.refused("learning.extract.submit", params, "invalid_params", "kind 'fact.profile' is not granted")
        params["result"] = {**fact("记忆项目", "我在做记忆项目", kind="fact.project"), "operation": "remove"}
        calls.refused("learning.extract.submit", params, "invalid_params", "operation 'remove' is not granted")


# -- the whole path and where records go -------------------------------------------------------------


def test_an_adopted_fact_is_an_active_desk_fact_with_the_quotation_as_evidence(calls: Calls, memory: Memory) -> None:
    record = learn_fact(calls, "i1", "我习惯用 Vim 写代码", "用户习惯用 Vim 写代码")
    assert record["kind"] == "fact.profile" and record["state"] == "active" and record["managed"]
    assert record["provenance"]["sources"] == ["interaction:i1"]
    assert record["provenance"]["quotations"] == ["我习惯用 Vim 写代码"]
    fact_id = record["target"].removeprefix("fact:")
    stored = memory.facts.get_fact(fact_id)
    assert stored.status == "active" and stored.content == "用户习惯用 Vim 写代码"
    assert [e.quote for e in stored.evidence] == ["我习惯用 Vim 写代码"]
    pack = calls.ok("context.prepare", {"query": "写代码用什么编辑器"})
    assert "用户习惯用 Vim 写代码" in pack["system_prompt"] and pack["counts"]["system_prompt"] == 1
    assert pack["text"].count("用户习惯用 Vim 写代码") == 1  # not again among the profile facts
    listed = calls.ok("learning.records.list", {"state": "active"})["records"]
    assert [r["id"] for r in listed] == [record["id"]]


def test_a_verified_run_teaches_a_lesson_that_run_start_gives_in_on_mode(calls: Calls) -> None:
    outcome = {
        "success": True,
        "verifier": "pass",
        "goal_text": "在微信里给妈妈发消息",
        "reason": "先点通讯录再搜索联系人比直接搜索更快",
    }
    calls.ok("run.finish", {"run_id": "r1", "outcome": outcome})
    lease = extract(calls)
    assert lease["snapshot"]["feed"] == "objective" and lease["snapshot"]["source"]["objective"]["verdict"] == "pass"
    lesson = {
        "operation": "add",
        "kind": "lesson",
        "content": "微信找联系人：先点通讯录再搜索",
        "quotations": ["先点通讯录再搜索联系人"],
    }
    assert submit(calls, lease, lesson)["outcome"] == "candidate"
    record = review(calls)["record"]
    assert record["target"].startswith("lesson:")
    installed = [{"package": "com.tencent.mm", "label": "微信"}]
    started = calls.ok("run.start", {"run_id": "r2", "device": "d1", "goal": "给妈妈发微信", "installed": installed})
    assert [item["text"] for item in started["lessons"]] == ["微信找联系人：先点通讯录再搜索"]
    assert "微信找联系人" in calls.ok("context.prepare", {"query": "微信"})["system_prompt"]


def test_a_procedure_and_a_skill_draft_go_where_they_belong(calls: Calls, memory: Memory) -> None:
    calls.ok(
        "task.complete",
        {"task_id": "t1", "title": "周报", "status": "succeeded", "result": "周报按三段写：进展、问题、计划"},
    )
    lease = extract(calls)
    procedure = {
        "operation": "add",
        "kind": "procedure",
        "content": "写周报：进展、问题、计划三段",
        "quotations": ["进展、问题、计划"],
    }
    submit(calls, lease, procedure)
    assert review(calls)["record"]["kind"] == "procedure"
    assert any(
        lesson.text.endswith("写周报：进展、问题、计划三段") for lesson in memory.lessons.list_lessons("approved")
    )
    remember(calls, "i1", "以后写邮件都先写结论")
    lease = extract(calls)
    draft = {
        "operation": "add",
        "kind": "skill_draft",
        "content": "邮件先写结论",
        "quotations": ["以后写邮件都先写结论"],
    }
    submit(calls, lease, draft)
    record = review(calls)["record"]
    skill = memory.skills.get_skill(record["target"].removeprefix("skill:"))
    assert skill.status == "draft" and skill.source_quote == "以后写邮件都先写结论"  # a person still activates it
    assert "邮件先写结论" not in calls.ok("context.prepare", {"query": "邮件"})["system_prompt"]


def test_a_rejected_candidate_is_not_adopted(calls: Calls, memory: Memory) -> None:
    remember(calls, "i1", "我喜欢深色主题")
    submit(calls, extract(calls), fact("用户喜欢深色主题", "我喜欢深色主题"))
    assert review(calls, "rejected")["intent_state"] == "rejected"
    assert calls.ok("learning.records.list")["records"] == []
    assert memory.facts.list_facts() == []
    status = calls.ok("learning.status")
    assert status["quotas"]["reviews"]["used"] == 1 and status["quotas"]["mutations"]["used"] == 0


def test_an_owners_verdict_refused_leaves_the_candidate_waiting_for_the_next(calls: Calls, memory: Memory) -> None:
    remember(calls, "i1", "我喜欢深色主题")
    submit(calls, extract(calls), fact("用户喜欢深色主题", "我喜欢深色主题"))
    intent = calls.ok("learning.queue", {"state": "candidate"})["intents"][0]["intent_id"]
    with pytest.raises(InvalidInput, match="verdict must be one of approved, rejected"):
        memory.learning.owner_review(intent, "zzz", "看过原文")
    with pytest.raises(InvalidInput, match="reason must be 1–"):
        memory.learning.owner_review(intent, "approved", "长" * 5000)
    assert memory.learning.owner_review(intent, "approved", "看过原文").intent_state == "adopted"


def test_replace_and_remove_name_the_exact_managed_version(calls: Calls, memory: Memory) -> None:
    first = learn_fact(calls, "i1", "我住在杭州", "用户住在杭州")
    remember(calls, "i2", "我搬到上海了")
    lease = extract(calls)
    assert lease["snapshot"]["managed"][0] == {
        "id": first["id"],
        "version": 1,
        "kind": "fact.profile",
        "content": "用户住在杭州",
    }
    stale = {
        **fact("用户住在上海", "我搬到上海了"),
        "operation": "replace",
        "target": {"id": first["id"], "version": 2},
    }
    params = {"operation_id": lease["operation_id"], "request_id": calls.rid(), "result": stale}
    calls.refused("learning.extract.submit", params, "invalid_params", "is at version 1, not 2")
    submit(calls, lease, {**stale, "target": {"id": first["id"], "version": 1}})
    replaced = review(calls)["record"]
    assert (replaced["id"], replaced["version"], replaced["content"]) == (first["id"], 2, "用户住在上海")
    assert memory.facts.get_fact(first["target"].removeprefix("fact:")).status == "inactive"
    assert memory.facts.get_fact(replaced["target"].removeprefix("fact:")).status == "active"
    remember(calls, "i3", "别记我住哪了")
    removal = {
        "operation": "remove",
        "kind": "fact.profile",
        "quotations": ["别记我住哪了"],
        "target": {"id": first["id"], "version": 2},
    }
    submit(calls, extract(calls), removal)
    removed = review(calls)["record"]
    assert removed["state"] == "removed" and removed["version"] == 3
    assert memory.facts.get_fact(replaced["target"].removeprefix("fact:")).status == "inactive"


def test_a_record_the_owner_edited_is_no_longer_managed(calls: Calls, memory: Memory) -> None:
    first = learn_fact(calls, "i1", "我喜欢喝咖啡", "用户喜欢喝咖啡")
    edited = memory.learning.edit_record(first["id"], "用户喜欢喝手冲咖啡")
    assert edited.managed is False and edited.content == "用户喜欢喝手冲咖啡" and edited.version == 2
    remember(calls, "i2", "我不喝咖啡了")
    lease = extract(calls)
    assert lease["snapshot"]["managed"] == []
    removal = {
        "operation": "remove",
        "kind": "fact.profile",
        "quotations": ["我不喝咖啡了"],
        "target": {"id": first["id"], "version": 2},
    }
    params = {"operation_id": lease["operation_id"], "request_id": calls.rid(), "result": removal}
    calls.refused("learning.extract.submit", params, "invalid_params", "is the owner's now")


def test_revoking_a_record_takes_its_fact_back(calls: Calls, memory: Memory) -> None:
    record = learn_fact(calls, "i1", "我是左撇子", "用户是左撇子")
    revoked = calls.ok(
        "learning.record.revoke", {"record_id": record["id"], "request_id": "rv1", "reason": "不对"}, person=True
    )
    assert revoked == {"revoked": True, "record_id": record["id"]}
    assert memory.facts.get_fact(record["target"].removeprefix("fact:")).status == "inactive"
    assert calls.ok("context.prepare", {"query": "左撇子"})["system_prompt"] == ""
    again = calls.ok(
        "learning.record.revoke", {"record_id": record["id"], "request_id": "rv1", "reason": "不对"}, person=True
    )
    assert again == revoked


# -- quotas, idempotency --------------------------------------------------------------------------------


def test_quotas_are_spent_at_admission_and_never_refunded(home: Path) -> None:
    with open_memory(home, max_extractions="2", timeout='"1s"') as memory:
        calls = Calls(Dispatcher(memory))
        for n in range(3):
            remember(calls, f"i{n}", f"我喜欢第{n}种茶")
        first = extract(calls)
        memory.learning.shutdown()  # the lease is cancelled: its admission stays spent
    with open_memory(home, max_extractions="2", timeout='"1s"') as memory:
        calls = Calls(Dispatcher(memory))
        status = calls.ok("learning.status")
        assert status["quotas"]["extractions"] == {"used": 1, "limit": 2, "left": 1}
        late = {"operation_id": first["operation_id"], "request_id": calls.rid(), "result": {"operation": "noop"}}
        assert calls.ok("learning.extract.submit", late) == {
            "accepted": False,
            "reason": "this operation ended: cancelled: the service shut down",
        }
        extract(calls)
        calls.refused(
            "learning.extract.lease", {"request_id": calls.rid()}, "forbidden", "extractions quota", "never renewed"
        )
        assert calls.ok("learning.status")["quotas"]["extractions"]["left"] == 0
        assert calls.ok("learning.status")["queue"]["failed"] == 1


def test_a_lost_reply_is_recovered_by_sending_the_same_request(calls: Calls) -> None:
    remember(calls, "i1", "我在学日语")
    first = calls.ok("learning.extract.lease", {"request_id": "lease-1"})
    again = calls.ok("learning.extract.lease", {"request_id": "lease-1"})
    assert again == first
    assert calls.ok("learning.status")["quotas"]["extractions"]["used"] == 1
    params = {
        "operation_id": first["operation_id"],
        "request_id": "sub-1",
        "result": fact("用户在学日语", "我在学日语"),
    }
    assert calls.ok("learning.extract.submit", params) == calls.ok("learning.extract.submit", params)
    other = {**params, "result": {"operation": "noop"}}
    calls.refused("learning.extract.submit", other, "conflict", "request_id 'sub-1' was already used")
    lease = calls.ok("learning.review.lease", {"request_id": "rev-1"})
    verdict = {"review_id": lease["review_id"], "request_id": "ver-1", "verdict": "approved", "reason": "原话"}
    adopted = calls.ok("learning.review.submit", verdict)
    resent = calls.ok("learning.review.submit", verdict)
    assert resent["intent_state"] == "adopted" and resent["accepted"]
    status = calls.ok("learning.status")
    assert status["quotas"]["reviews"]["used"] == 1 and status["quotas"]["mutations"]["used"] == 1
    assert len(calls.ok("learning.records.list")["records"]) == 1 and adopted["record"]["version"] == 1


def test_leases_answer_empty_when_nothing_waits(calls: Calls) -> None:
    assert calls.ok("learning.extract.lease", {"request_id": "a"}) == {"empty": True}
    assert calls.ok("learning.review.lease", {"request_id": "b"}) == {"empty": True}
    assert calls.ok("learning.status")["quotas"]["extractions"]["used"] == 0


def test_without_a_grant_learning_is_off_and_says_so(tmp_path: Path) -> None:
    with Memory.open(load_config(home=tmp_path / "plain", env={})) as memory:
        calls = Calls(Dispatcher(memory))
        assert calls.ok("learning.status")["enabled"] is False
        calls.refused("learning.scan", {}, "forbidden", "no [learning] grant")
        calls.refused("learning.extract.lease", {"request_id": "x"}, "forbidden", "no [learning] grant")


def test_an_expired_grant_stops_extraction(home: Path) -> None:
    with open_memory(home, expires_at="2020-01-01T00:00:00Z") as memory:
        calls = Calls(Dispatcher(memory))
        assert calls.ok("learning.status")["state"] == "stopped"
        calls.refused("learning.extract.lease", {"request_id": "x"}, "forbidden", "expired")


# -- the cursors ------------------------------------------------------------------------------------------


def test_backpressure_holds_the_cursor_at_max_pending(home: Path) -> None:
    with open_memory(home, max_pending="2") as memory:
        calls = Calls(Dispatcher(memory))
        for n in range(5):
            remember(calls, f"i{n}", f"第{n}句")
        scanned = calls.ok("learning.scan")
        assert scanned["added"] == 2 and scanned["backpressure"] is True
        held = scanned["cursors"]["completion"]
        assert calls.ok("learning.scan")["added"] == 0 and calls.ok("learning.scan")["cursors"]["completion"] == held
        submit(calls, extract(calls), {"operation": "noop"})  # a slot frees
        again = calls.ok("learning.scan")
        assert again["added"] == 1 and again["cursors"]["completion"] > held
        assert calls.ok("learning.status")["pending"] == 2


def test_a_late_objective_is_discovered_when_it_arrives(calls: Calls) -> None:
    calls.ok(
        "run.finish", {"run_id": "r1", "outcome": {"success": True, "goal_text": "打开设置", "verifier": "skipped"}}
    )
    status = calls.ok("learning.status")
    assert status["pending"] == 0 and status["cursors"]["objective"] > 0  # read at run end: no trusted objective yet
    verified = {"success": True, "goal_text": "打开设置", "verifier": "pass", "reason": "从下拉菜单进入设置最快"}
    calls.ok("run.finish", {"run_id": "r1", "outcome": verified})
    assert calls.ok("learning.status")["queue"]["queued"] == 1  # the run's end scanned the objective feed
    assert calls.ok("learning.scan")["added"] == 0
    lease = extract(calls)
    assert lease["snapshot"]["source"]["objective"] == {"kind": "verifier", "verdict": "pass", "success": True}


def test_a_task_result_that_arrives_after_its_completion_is_an_objective(calls: Calls) -> None:
    remember(calls, "i1", "帮我把报告发给老板")
    calls.ok("task.complete", {"task_id": "t1", "title": "发报告", "status": "partial", "interaction_id": "i1"})
    first = calls.ok("learning.scan")
    assert first["added"] == 2  # the turn, and the card that answers it (completion feed)
    done = {
        "task_id": "t1",
        "title": "发报告",
        "status": "succeeded",
        "result": "用邮件附件发出",
        "interaction_id": "i1",
    }
    calls.ok("task.complete", done)
    later = calls.ok("learning.scan")
    assert later["added"] == 2 and later["stopped"] == 1  # the revised card on both feeds; the old version stops


def test_a_correction_after_the_lease_refuses_the_late_result(calls: Calls, memory: Memory) -> None:
    calls.ok(
        "task.complete", {"task_id": "t1", "title": "备份", "status": "succeeded", "result": "用 rsync 备份到 NAS"}
    )
    lease = extract(calls)
    calls.ok(
        "task.complete", {"task_id": "t1", "title": "备份", "status": "succeeded", "result": "改用 restic 备份到 NAS"}
    )
    lesson = {"operation": "add", "kind": "lesson", "content": "备份用 rsync", "quotations": ["用 rsync 备份到 NAS"]}
    late = submit(calls, lease, lesson)
    assert late == {"accepted": False, "reason": "the source was revised after the lease"}
    assert calls.ok("learning.review.lease", {"request_id": "r"}) == {"empty": True}  # never reviewed
    scanned = calls.ok("learning.scan")
    assert scanned["added"] == 1
    fresh = extract(calls)
    assert "restic" in fresh["snapshot"]["source"]["turns"][-1]["text"]


def test_a_retraction_after_adoption_revokes_the_record(calls: Calls, memory: Memory) -> None:
    outcome = {
        "success": True,
        "verifier": "pass",
        "goal_text": "清理相册",
        "reason": "按月份批量删除",
        "apps": ["com.android.gallery3d"],
    }
    calls.ok("run.finish", {"run_id": "r1", "outcome": outcome})
    submit(
        calls,
        extract(calls),
        {"operation": "add", "kind": "lesson", "content": "相册按月份批量删", "quotations": ["按月份批量删除"]},
    )
    record = review(calls)["record"]
    calls.ok("episode.revoke", {"run_id": "r1", "reason": "这次其实删错了"}, person=True)
    scanned = calls.ok("learning.scan")
    assert scanned["revoked"] == 1
    [after] = calls.ok("learning.records.list")["records"]
    assert after["id"] == record["id"] and after["state"] == "revoked" and "retracted" in after["reason"]
    lesson_id = record["target"].removeprefix("lesson:")
    assert memory.lessons.list_lessons("revoked")[0].lesson_id == lesson_id


def test_a_retraction_before_review_stops_the_candidate(calls: Calls) -> None:
    outcome = {"success": True, "verifier": "pass", "goal_text": "清理相册", "reason": "按月份批量删除"}
    calls.ok("run.finish", {"run_id": "r1", "outcome": outcome})
    submit(
        calls,
        extract(calls),
        {"operation": "add", "kind": "lesson", "content": "相册按月份批量删", "quotations": ["按月份批量删除"]},
    )
    calls.ok("episode.revoke", {"run_id": "r1"}, person=True)
    assert calls.ok("learning.scan")["stopped"] == 1
    assert calls.ok("learning.review.lease", {"request_id": "x"}) == {"empty": True}
    assert calls.ok("learning.status")["queue"]["stopped"] == 1


def test_lookback_bounds_what_a_scan_reads(home: Path) -> None:
    with open_memory(home, lookback='"1h"') as memory:
        calls = Calls(Dispatcher(memory))
        calls.ok(
            "interaction.remember", {"interaction_id": "old", "user_text": "很久以前说的", "ts": "2020-01-01T00:00:00Z"}
        )
        remember(calls, "new", "刚刚说的")
        scanned = calls.ok("learning.scan")
        assert scanned["added"] == 1 and scanned["read"] == 2
        assert [i.source_id for i in memory.learning.queue()] == ["new"]


def test_recovery_adopts_an_approval_found_in_the_ledger_exactly_once(home: Path) -> None:
    from store.learning import review as review_step

    with open_memory(home) as memory:
        calls = Calls(Dispatcher(memory))
        remember(calls, "i1", "我用 Linux")
        submit(calls, extract(calls), fact("用户用 Linux", "我用 Linux"))
        lease = calls.ok("learning.review.lease", {"request_id": "r1"})
        # The verdict's receipt commits, then the process stops before Jiyi's adoption step.
        grant, redactor = memory.learning.grant, memory.parts.redactor
        review_step.submit(memory.store, grant, lease["review_id"], "v1", "approved", "原话", redactor)
        assert memory.learning.status().queue["approved"] == 1
    with open_memory(home) as memory:
        assert memory.learning.recovered["adopted"] == 1, (memory.learning.recovered, memory.learning.queue())
        status = memory.learning.status()
        assert status.queue["adopted"] == 1 and status.quotas is not None and status.quotas["mutations"].used == 1
    with open_memory(home) as memory:
        assert memory.learning.recovered["adopted"] == 0
        assert len(memory.learning.list_records()) == 1


def test_a_rebuild_replays_the_learning_views_exactly(calls: Calls, memory: Memory) -> None:
    learn_fact(calls, "i1", "我是素食者", "用户是素食者")
    before = (memory.learning.status(), memory.learning.list_records(), memory.learning.queue())
    memory.rebuild()
    after = (memory.learning.status(), memory.learning.list_records(), memory.learning.queue())
    assert after == before


def test_the_services_timer_scans_on_its_own_and_stops_at_shutdown(memory: Memory) -> None:
    memory.learning.start_timer(0.05)
    memory.desk.remember_interaction("i1", user_text="我周末不看工作消息")
    deadline = time.monotonic() + 10
    while memory.learning.status().queue["queued"] == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert memory.learning.status().queue["queued"] == 1
    assert memory.learning.shutdown()["drained"] is True
    assert not any(t.name == "jiyi-learning-scan" for t in threading.enumerate())


def later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Move Jiyi's clock `seconds` ahead (TTLs and lease deadlines are minutes, tests are not)."""
    real = clock.now
    monkeypatch.setattr(clock, "now", lambda: real() + timedelta(seconds=seconds))


def test_an_adopted_record_expires_at_its_ttl(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_grant(home)
    text = (home / "config.toml").read_text("utf-8").replace('ttl = "90d"', 'ttl = "60s"')
    (home / "config.toml").write_text(text, "utf-8")
    with Memory.open(load_config(home=home, env={})) as memory:
        calls = Calls(Dispatcher(memory))
        record = learn_fact(calls, "i1", "我用双屏工作", "用户用双屏工作")
        assert "用户用双屏工作" in calls.ok("context.prepare", {"query": "屏幕"})["system_prompt"]
        later(monkeypatch, 120)
        calls.ok("learning.scan")
        [expired] = calls.ok("learning.records.list")["records"]
        assert expired["state"] == "expired" and expired["reason"] == "its TTL ran out"
        assert memory.facts.get_fact(record["target"].removeprefix("fact:")).status == "inactive"
        assert calls.ok("context.prepare", {"query": "屏幕"})["system_prompt"] == ""


def test_a_result_after_the_lease_expired_is_refused_and_never_reviewed(
    calls: Calls, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember(calls, "i1", "我喜欢安静的咖啡馆")
    lease = extract(calls)
    later(monkeypatch, 600)  # the example grant's leases last 120 s
    late = submit(calls, lease, fact("用户喜欢安静的咖啡馆", "我喜欢安静的咖啡馆"))
    assert late == {"accepted": False, "reason": "the extraction lease expired before this result arrived"}
    assert calls.ok("learning.review.lease", {"request_id": calls.rid()}) == {"empty": True}
    status = calls.ok("learning.status")
    assert status["queue"]["failed"] == 1 and status["quotas"]["extractions"]["used"] == 1


def test_a_stale_review_lease_ends_when_the_next_review_is_leased(
    calls: Calls, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reviewer that vanished holds its candidate no longer than its lease: the next review lease ends it,
    as the next extraction lease ends a stale extraction (both run the one lease skeleton)."""
    remember(calls, "i1", "我喜欢安静的咖啡馆")
    assert submit(calls, extract(calls), fact("用户喜欢安静的咖啡馆", "我喜欢安静的咖啡馆"))["outcome"] == "candidate"
    stale = calls.ok("learning.review.lease", {"request_id": calls.rid()})
    assert calls.ok("learning.status")["open_leases"]["reviews"] == [stale["review_id"]]
    later(monkeypatch, 600)  # the example grant's leases last 120 s
    assert calls.ok("learning.review.lease", {"request_id": calls.rid()}) == {"empty": True}
    status = calls.ok("learning.status")
    assert status["open_leases"]["reviews"] == []
    assert status["queue"]["failed"] == 1 and status["quotas"]["reviews"]["used"] == 1
    late = {"review_id": stale["review_id"], "request_id": calls.rid(), "verdict": "approved", "reason": "看过原文"}
    refused = calls.ok("learning.review.submit", late)
    assert refused["accepted"] is False
    assert refused["reason"] == "this review ended: the review lease expired before a verdict arrived"


def test_a_sensitive_quotation_from_a_verbatim_run_is_never_learned(calls: Calls) -> None:
    outcome = {
        "success": True,
        "verifier": "pass",
        "goal_text": "登录邮箱，密码是 hunter2xyz!",
        "reason": "先点登录再输入",
    }
    calls.ok("run.finish", {"run_id": "r1", "outcome": outcome})
    lease = extract(calls)
    # The episode keeps it verbatim; the snapshot is kept with the lease, outside the episode records: redacted.
    assert "hunter2xyz" not in json.dumps(lease, ensure_ascii=False)
    lesson = {"operation": "add", "kind": "lesson", "content": "先点登录再输入", "quotations": ["密码是 hunter2xyz!"]}
    params = {"operation_id": lease["operation_id"], "request_id": calls.rid(), "result": lesson}
    calls.refused("learning.extract.submit", params, "forbidden", "result.quotations[0] holds sensitive text")


def _kept_outside_episodes(memory: Memory) -> str:
    """Every row of the home outside the episode records (the tables and `experience` events of runs)."""
    db = memory.store.db
    kept = [repr(row) for row in db.execute_sql("SELECT * FROM event WHERE domain != 'experience'")]
    tables = [row[0] for row in db.execute_sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        if table.startswith(("learning_", "desk_")) or table == "lesson":
            kept += [repr(row) for row in db.execute_sql(f'SELECT * FROM "{table}"')]
    return "\n".join(kept)


def test_what_learning_keeps_of_a_verbatim_run_and_of_its_reviewers_is_redacted(calls: Calls, memory: Memory) -> None:
    """Snapshots, review leases, verdict and revocation reasons live outside the episode records: redacted.
    A request id is stored as it is, so a sensitive one is refused."""
    outcome = {"success": True, "verifier": "pass", "goal_text": "登录邮箱，密码是 hunter2xyz!"}
    outcome["reason"] = "先点登录再输入"
    calls.ok("run.finish", {"run_id": "r1", "outcome": outcome})
    calls.refused("learning.extract.lease", {"request_id": "13812345678"}, "forbidden", "request_id")
    lease = extract(calls)
    assert "[redacted:" in lease["snapshot"]["source"]["turns"][0]["text"]
    lesson = {"operation": "add", "kind": "lesson", "content": "先点登录再输入", "quotations": ["先点登录再输入"]}
    assert submit(calls, lease, lesson)["outcome"] == "candidate"  # a quotation beside the marker is verbatim
    shown = calls.ok("learning.review.lease", {"request_id": calls.rid()})
    assert "hunter2xyz" not in json.dumps(shown, ensure_ascii=False)
    verdict = {"verdict": "approved", "reason": "原文如此，卡号 6222021847309155 与此无关"}
    reply = calls.ok("learning.review.submit", {"review_id": shown["review_id"], "request_id": calls.rid(), **verdict})
    assert reply["intent_state"] == "adopted", reply
    assert "[redacted:" in reply["record"]["provenance"]["review_reason"]
    revoke = {"record_id": reply["record"]["id"], "request_id": calls.rid(), "reason": "手机号 13812345678 换了"}
    assert calls.ok("learning.record.revoke", revoke, person=True)["revoked"] is True
    kept = _kept_outside_episodes(memory)
    assert "先点登录再输入" in kept
    for secret in ("hunter2xyz", "6222021847309155", "13812345678"):
        assert secret not in kept, secret


def test_a_source_revised_during_its_lease_stays_stopped_when_the_lease_ends(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls.ok("task.complete", {"task_id": "t1", "title": "备份", "status": "succeeded", "result": "用 rsync 备份"})
    extract(calls)
    calls.ok("task.complete", {"task_id": "t1", "title": "备份", "status": "succeeded", "result": "用 restic 备份"})
    assert calls.ok("learning.scan")["stopped"] == 1
    later(monkeypatch, 600)
    calls.ok("learning.scan")  # the old lease expires now
    status = calls.ok("learning.status")
    assert (
        status["queue"]["stopped"] == 1 and status["queue"]["failed"] == 0 and status["open_leases"]["operations"] == []
    )


def test_a_scan_that_finds_nothing_writes_and_announces_nothing(calls: Calls, memory: Memory) -> None:
    remember(calls, "i1", "我喜欢早起")
    assert calls.ok("learning.scan")["added"] == 1
    events, generation = memory.store.count_events(), memory.parts.bus.generation
    assert calls.ok("learning.scan") == {**calls.ok("learning.scan"), "added": 0, "read": 0}
    assert memory.store.count_events() == events and memory.parts.bus.generation == generation


def test_a_cursor_jumps_over_a_long_stretch_of_events_that_are_not_its_own(calls: Calls, memory: Memory) -> None:
    from store.learning import scan

    with memory.parts.writes, memory.store.atomic():
        for n in range(scan.SKIP_AHEAD + 5):
            memory.store.append("app_kb", "note", {"n": n}, actor="agent")  # nothing either feed reads
    calls.ok("learning.scan")
    cursors = calls.ok("learning.status")["cursors"]
    assert cursors["objective"] >= scan.SKIP_AHEAD and cursors["completion"] >= scan.SKIP_AHEAD
    calls.ok("run.finish", {"run_id": "r1", "outcome": {"success": True, "verifier": "pass", "goal_text": "看天气"}})
    assert calls.ok("learning.status")["queue"]["queued"] == 1  # what comes after the jump is still read


# -- keyset paging ----------------------------------------------------------------------------------


def test_records_and_intents_page_by_key_while_more_are_adopted(calls: Calls) -> None:
    """Paged after the last row held (`[updated, id]`), adopted records and intents come once each, newest
    first, though a newer one is adopted between two pages (by offset, a row would come twice)."""
    for i in range(5):
        learn_fact(calls, f"k{i}", f"我喜欢第{i}种茶", f"用户喜欢第{i}种茶")
    records = [r["id"] for r in calls.ok("learning.records.list", {})["records"]]
    intents = [r["intent_id"] for r in calls.ok("learning.queue", {})["intents"]]
    first_records = calls.ok("learning.records.list", {"limit": 2})["records"]
    first_intents = calls.ok("learning.queue", {"limit": 2})["intents"]
    learn_fact(calls, "k9", "我喜欢乌龙茶", "用户喜欢乌龙茶")  # newer than every row held: it sorts first
    held_records, held_intents = list(first_records), list(first_intents)
    while page := calls.ok("learning.records.list", {"limit": 2, "after": key(held_records[-1], "id")})["records"]:
        held_records += page
    while page := calls.ok("learning.queue", {"limit": 2, "after": key(held_intents[-1], "intent_id")})["intents"]:
        held_intents += page
    assert [r["id"] for r in held_records] == records and len(records) == 5
    assert [r["intent_id"] for r in held_intents] == intents
    shifted = calls.ok("learning.records.list", {"limit": 2, "offset": 2})["records"]
    assert shifted[0]["id"] == first_records[-1]["id"]  # what keyset paging avoids
    calls.refused("learning.records.list", {"after": ["x"]}, "invalid_params", "params.after must be [updated, id]")
    calls.refused("learning.queue", {"after": "x"}, "invalid_params", "params.after must be [updated, intent_id]")
    calls.refused("app.alias.list", {"after": ["a", "b", "c", 4]}, "invalid_params", "[term, package, kind, scope]")


def key(row: dict[str, Any], id_key: str) -> list[str]:
    return [row["updated"], row[id_key]]


# -- what a verdict's receipt says of adoption (protocol 1.6) ----------------------------------------


def test_the_receipt_tags_adoptions_outcome_and_keeps_the_keys_older_clients_read(home: Path) -> None:
    """`adoption` says what adoption did, tagged by `outcome`; `record` and `adoption_refused` say it as before."""
    with open_memory(home, max_records="1") as memory:
        calls = Calls(Dispatcher(memory))
        remember(calls, "i1", "我是素食者")
        submit(calls, extract(calls), fact("用户是素食者", "我是素食者"))
        adopted = review(calls)
        assert adopted["adoption"] == {"outcome": "adopted", "record": adopted["record"]}
        assert adopted["record"]["content"] == "用户是素食者" and "adoption_refused" not in adopted
        remember(calls, "i2", "我住在杭州")
        submit(calls, extract(calls), fact("用户住在杭州", "我住在杭州"))
        refused = review(calls)  # the grant's one adoption mutation is spent
        assert refused["intent_state"] == "refused" and "record" not in refused
        assert refused["adoption"]["outcome"] == "refused" and "quota" in refused["adoption"]["reason"]
        assert refused["adoption_refused"] == refused["adoption"]["reason"]
        remember(calls, "i3", "我养了一只猫")
        submit(calls, extract(calls), fact("用户养了一只猫", "我养了一只猫"))
        rejected = review(calls, "rejected")
        assert rejected["adoption"] is None and rejected["intent_state"] == "rejected"
        # in process, the same receipt is a `ReviewReceipt` whose `adoption` a reader matches on
        remember(calls, "i4", "我在学日语")
        submit(calls, extract(calls), fact("用户在学日语", "我在学日语"))
        lease = calls.ok("learning.review.lease", {"request_id": calls.rid()})
        receipt = memory.learning.review_submit(lease["review_id"], calls.rid(), "approved", "看过原文")
        assert isinstance(receipt.adoption, AdoptionRefused) and receipt.adoption_refused == receipt.adoption.reason
        assert msgspec.json.decode(msgspec.json.encode(receipt), type=ReviewReceipt) == receipt
