"""Each way a secret used to get past the filter (issue: Hardening, Secrets), through `Memory` on a real home;
and episodes, which keep their strings verbatim while what is derived from them does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.memory.memory import Memory
from store.appkb.entry import AppKbEntry
from store.appkb.projection import DOMAIN as APP_KB
from store.core.errors import SensitiveContent

PHONE = "13800135678"


def _log(memory: Memory, domain: str | None = None) -> str:
    return "\n".join(json.dumps(e.payload, ensure_ascii=False) for e in memory.store.events(domain))


def test_an_episode_revoke_reason_is_redacted(memory: Memory) -> None:
    memory.runs.run_start("r1", "d1", goal="查快递")
    memory.runs.run_finish("r1", {"success": True, "steps": 1})
    memory.runs.revoke_episode("r1", reason=f"误操作，联系 {PHONE}")
    assert PHONE not in _log(memory)
    assert "[redacted:mobile]" in _log(memory, "experience")


def test_forgetting_a_sensitive_looking_name_is_refused_and_leaves_no_trace(memory: Memory) -> None:
    with pytest.raises(SensitiveContent):
        memory.appkb.forget_alias(PHONE)
    with pytest.raises(SensitiveContent):
        memory.appkb.forget_alias("OTP 700001")
    assert PHONE not in _log(memory) and "700001" not in _log(memory)


def test_an_alias_imported_with_a_sensitive_name_can_still_be_forgotten(memory: Memory) -> None:
    entry = AppKbEntry(PHONE, PHONE, "com.tencent.mm", "user", "global", 1.0, 0, "2024-01-01T00:00:00", "2024-01-01")
    # Imported by an older Jiyi (imports pass the filter now: issue 25), so planted as its event.
    with memory.store.atomic():
        memory.store.append(APP_KB, "upsert", {"entry": entry.to_dict()}, actor="import")
    assert [e.package for e in memory.appkb.forget_alias(PHONE).removed] == ["com.tencent.mm"]


def test_numbers_inside_a_consolidation_detail_are_filtered(memory: Memory) -> None:
    detail = {
        "phone": int(PHONE),
        "card": 5555555555554444,
        "runs": 3,
        "ratio": 0.5,
        "nested": [{"id": 4111111111111111}],
    }
    memory.desk.record_consolidation("note", summary="整理", detail=detail)
    stored = memory.maintenance.consolidation_log(1)[0].detail
    assert stored == {
        "phone": "[redacted:mobile]",
        "card": "[redacted:card_number]",
        "runs": 3,
        "ratio": 0.5,
        "nested": [{"id": "[redacted:card_number]"}],
    }
    assert PHONE not in _log(memory)


def test_a_key_value_secret_inside_a_detail_goes_with_its_key(memory: Memory) -> None:
    memory.desk.record_consolidation("note", detail={"password": "hunter2-value", "otp_note": "OTP 700001"})
    assert "hunter2-value" not in _log(memory) and "700001" not in _log(memory)


@pytest.mark.parametrize(
    ("bundle_id", "path"),
    [(f"project/{PHONE}", "notes.md"), ("project/jiyi", f"runs/{PHONE}/summary.md"), ("project/OTP700001", "a.md")],
)
def test_a_sensitive_looking_bundle_key_or_run_id_is_refused(
    memory: Memory, config: object, bundle_id: str, path: str
) -> None:
    with pytest.raises(SensitiveContent):
        memory.bundles.put_bundle_document(bundle_id, path, "# 笔记\n", expected_revision=0)
    assert PHONE not in _log(memory) and "700001" not in _log(memory)
    bundles = Path(memory.store.home) / "bundles"
    assert not any(PHONE in str(p) or "700001" in str(p) for p in bundles.rglob("*"))


def test_state_json_keeps_its_numbers_and_its_bytes_and_loses_the_secrets_in_its_strings(memory: Memory) -> None:
    memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="run1")
    current = memory.bundles.get_bundle("schedule/weekly", "state.json").documents[0].revision
    state = '{\n  "last_order_id": 4111111111111111,\n  "note": "客户电话 13800135678",\n  "ok": true\n}\n'
    put = memory.bundles.put_bundle_document("schedule/weekly", "state.json", state, expected_revision=current)
    assert put["content"] == state.replace("13800135678", "[redacted:mobile]")
    assert json.loads(put["content"])["last_order_id"] == 4111111111111111
    clean = '{"last_order_id": 4111111111111111, "ok": true}'
    again = memory.bundles.put_bundle_document(
        "schedule/weekly", "state.json", clean, expected_revision=put["revision"]
    )
    assert again["content"] == clean


def test_a_project_fact_with_a_sensitive_looking_project_is_refused(memory: Memory) -> None:
    memory.desk.remember_interaction("a", user_text="Jiyi 用 SQLite 存数据", assistant_text="好的")
    fact = {
        "scope": "project",
        "project": PHONE,
        "content": "Jiyi 用 SQLite",
        "evidence": [{"interaction_id": "a", "quote": "Jiyi 用 SQLite"}],
    }
    with pytest.raises(SensitiveContent):
        memory.maintenance.maintenance_commit(
            {"topics": [{"title": "存储", "interaction_ids": ["a"]}], "facts": [fact]}
        )
    assert PHONE not in _log(memory)


def test_a_lesson_for_a_sensitive_looking_package_is_refused(memory: Memory) -> None:
    with pytest.raises(SensitiveContent):
        memory.lessons.add_lesson("先登录", [f"com.pay{PHONE}.app"])
    assert PHONE not in _log(memory)
    # A listed word inside a real package is no secret.
    assert memory.lessons.add_lesson("先解锁", ["com.agilebits.onepassword"]).apps == ["com.agilebits.onepassword"]


def test_an_episode_keeps_its_goal_and_notes_and_recall_keeps_neither(memory: Memory) -> None:
    goal = "联系 13800138000 问快递到哪了"
    memory.runs.run_start("r1", "d1", goal=goal, installed=[("com.taobao.taobao", "淘宝")])
    memory.runs.run_event(
        {"run_id": "r1", "step": 1, "tool": "type_text", "result_class": "ok", "note": "输入支付密码 123456"}
    )
    memory.runs.run_finish("r1", {"success": False, "takeover": "验证码 482913 需要本人", "steps": 3})
    episode = memory.runs.get_episode("r1")
    assert episode.goal_text == goal
    assert episode.takeover == "验证码 482913 需要本人"
    assert episode.events[0].note == "输入支付密码 123456"
    outside = "\n".join(
        json.dumps(e.payload, ensure_ascii=False) for e in memory.store.events() if e.domain != "experience"
    )
    assert "13800138000" not in outside
    trace = memory.recall.recall_trace("r1")
    assert trace is not None and trace.recall.query == "联系 [redacted:mobile] 问快递到哪了"
