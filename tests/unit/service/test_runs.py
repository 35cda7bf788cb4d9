"""A run's lifecycle on `Memory`: archive, fill-ins, fail-open."""

from __future__ import annotations

import pytest

from service.memory.memory import EpisodeFilter, Memory

INSTALLED = [("com.xingin.xhs", "小红书"), ("com.tencent.mm", "微信")]


def test_a_run_is_archived_with_what_jiyi_saw(memory: Memory) -> None:
    memory.runs.run_start("r1", "d1", goal="在小红书搜索火锅", installed=INSTALLED)
    memory.runs.run_event(
        {"run_id": "r1", "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": "com.xingin.xhs"},
        launch_name="小红书",
    )
    memory.runs.run_event({"run_id": "r1", "step": 4, "tool": "type_text", "result_class": "ok", "intent": "输入 火锅"})
    finished = memory.runs.run_finish("r1", {"success": True, "tokens_total": 1200, "verifier": "pass"})
    assert finished["archived"] is True and finished["known"] is True
    episode = memory.runs.get_episode("r1")
    assert episode["goal_text"] == "在小红书搜索火锅"
    assert episode["apps"] == ["com.xingin.xhs"] and episode["steps"] == 4
    assert episode["device_scope"] == "device:d1" and episode["success"] is True
    assert [e["tool"] for e in episode["events"]] == ["launch_app", "type_text"]
    assert memory.health()["episodes"] == 1


def test_the_agents_outcome_wins_over_fill_ins(memory: Memory) -> None:
    memory.runs.run_start("r2", "d1", goal="x")
    memory.runs.run_finish("r2", {"apps": ["com.tencent.mm"], "steps": 9, "goal_text": "agent's own goal"})
    episode = memory.runs.get_episode("r2")
    assert (episode["apps"], episode["steps"], episode["goal_text"]) == (["com.tencent.mm"], 9, "agent's own goal")


def test_a_known_run_without_an_outcome_is_archived_as_not_reported(memory: Memory) -> None:
    memory.runs.run_start("r3", "d1")
    memory.runs.run_finish("r3")
    episode = memory.runs.get_episode("r3")
    assert (episode["success"], episode["reason"]) == (False, "not_reported")
    assert memory.runs.run_finish("never-started")["archived"] is False


def test_archiving_fails_open(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from store.episodes import archive as episodes

    def broken(*_args: object, **_kwargs: object) -> int:
        raise OSError("disk full")

    caplog.errors_expected = True  # type: ignore[attr-defined]
    monkeypatch.setattr(episodes, "record_outcome", broken)
    monkeypatch.setattr(episodes, "record_event", broken)
    memory.runs.run_start("r4", "d1")
    event = memory.runs.run_event({"run_id": "r4", "step": 1, "tool": "tap", "result_class": "ok"})
    finished = memory.runs.run_finish("r4", {"success": True})
    assert event["archived"] is False and finished["archived"] is False
    assert memory.health()["archive_failures"] == 2
    assert "disk full" in caplog.text


def test_revoke_restore_and_listing(memory: Memory) -> None:
    for i in range(3):
        memory.runs.run_start(f"r{i}", "d1", goal=f"任务{i}")
        memory.runs.run_finish(f"r{i}", {"success": True})
    memory.runs.revoke_episode("r1", reason="launched the wrong app")
    assert [e["run_id"] for e in memory.runs.list_episodes(EpisodeFilter(revoked=False))] == ["r2", "r0"]
    memory.runs.restore_episode("r1")
    assert memory.runs.count_episodes(EpisodeFilter(revoked=True)) == 0
